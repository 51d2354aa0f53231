"""The language server's state: one analysis per document on worker threads (`LINT_THREADS`),
debounced runs, a newer version cancelling the running one, results kept for hovers, inlay hints
and the pressure page, and what a result replaces freed after its diagnostics are out. The LSP
features that drive it are registered in `lsp.create_server`; the module docstring of `lsp` says
what users see."""

from __future__ import annotations

import asyncio
import os
import time
import traceback
import urllib.parse
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from lsprotocol import types
from pygls import uris
from pygls.lsp.server import LanguageServer

from hlsllint import __version__
from hlsllint.config import (
    CONFIG_NAMES,
    ConfigError,
    ConfigResolver,
    Settings,
)
from hlsllint.deadline import BudgetExceeded, Cancelled, Deadline, Stop, active
from hlsllint.lint import (
    FileLoader,
    check_override,
    hold_collection,
    lint_unit,
)
from hlsllint.server import incremental
from hlsllint.server.client_settings import (
    resolver_for,
)
from hlsllint.server.convert import (
    SOURCE,
    Positions,
    to_lsp,
)
from hlsllint.server.document_lint import (
    Analysis,
    DocumentLint,
    Outcome,
    lint_document,
    publishable,
    unit_context,
)
from hlsllint.server.incremental import Snapshot, relint, snapshot
from hlsllint.server.pressure_view import PressureView, build_pressure_view, view_after_relint
from hlsllint.server.protocol import PARSE_ERRORS, HlslLintProtocol
from hlsllint.source import SourceError, SourceFile

DEBOUNCE_SECONDS = 0.2

T = TypeVar("T")

SETTLE_SECONDS = 0.25
"""How long after an outcome's diagnostics are out what it replaced waits to be freed, and the
garbage collector to run again after an incremental lint (a collection then walks the lint's
analyses, kept for the pressure view: 150-300 ms every third edit on an engine pixel shader),
unless a pressure view of it (inlay hints, which an editor asks for after each change) is
answered first: then just after that answer."""

LINT_THREADS = 8
"""Documents analysed at once, each on its own thread."""


@dataclass
class Running:
    """A document's analysis on its worker thread."""

    analysis: Analysis
    future: asyncio.Future[Outcome | None]


class HlslLintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "hlsllint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=HlslLintProtocol,
        )
        self.protocol: HlslLintProtocol
        self.resolver = ConfigResolver()
        self.generation = 0
        """Bumped whenever the configuration is reloaded (part of pull result ids)."""
        self.config_stamps: dict[str, tuple[int, int] | None] = {}
        self.outcomes: dict[str, Outcome] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.last_change: dict[str, float] = {}
        self.pressure: dict[str, tuple[str, PressureView | None]] = {}
        self.views: dict[str, tuple[str, int, Settings, PressureView]] = {}
        """Per document: the last pressure view built (its text, generation and settings): the
        next incremental lint's view starts from it (`view_after_relint`)."""
        self.pressure_units = self.pressure_reused = 0
        """Units built again for a pressure view / views made from an incremental lint's
        analyses and the last view (`hlsllint.stats`)."""
        self.retired: list[object] = []
        """What newer results replaced (outcomes, snapshots: a unit's model, CFGs and analyses),
        freed once the new diagnostics are out rather than before (g_buffer: 25-35 ms)."""
        self.worker = ThreadPoolExecutor(max_workers=LINT_THREADS, thread_name_prefix="hlsllint-lint")
        self.running: dict[str, Running] = {}
        """Per document: the analysis on a worker thread, if one is."""
        self.cancelled = 0
        """Analyses stopped because a newer version made them stale (`hlsllint.stats`)."""
        self.preparing: set[str] = set()
        """Documents whose edits are to be prepared once the editor's first requests are answered
        (`prepare_soon`); while they are prepared, they are `running`."""
        self.prepared = 0
        """Blankings prepared for first edits (`incremental.prepare`; `hlsllint.stats`)."""
        self.prepare_errors: list[str] = []
        self.shown: set[str] = set()
        self.mode = "auto"
        self.push = True
        self.debounce = DEBOUNCE_SECONDS
        self.pressure_hints = True
        self.options: dict[str, Any] = {}
        self.root: str | None = None
        self.option_errors: list[str] = []
        """What did not fit in the initialization options (said once the session is up)."""
        """The editor's settings (`target`, `waveSize`, `configFile`, `defines`): above config files."""
        self.snapshots: dict[str, tuple[int, Snapshot]] = {}
        """Per document: what its last lint leaves for an incremental one (with the generation)."""
        self.incremental = os.environ.get("HLSLLINT_LSP_INCREMENTAL", "1") != "0"
        self.verify = os.environ.get("HLSLLINT_LSP_VERIFY", "0") == "1"
        self.relints = self.full_lints = self.mismatches = 0
        self.lint_ms: list[float] = []
        """Milliseconds of each lint on the worker thread (the `hlsllint.stats` command)."""

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls's error handler: a message body that is not JSON gets a ParseError reply (pygls
        gives none); anything else is shown as pygls shows it."""
        if isinstance(error, PARSE_ERRORS):
            self.protocol.parse_error(error)
            return
        super().report_server_error(error, source)

    # -- documents and paths ------------------------------------------------------------------

    def document(self, uri: str) -> Any | None:
        """The open document, or None when the client has not opened (or has closed) it."""
        return self.workspace.text_documents.get(urllib.parse.unquote(uri))

    def path_for(self, uri: str) -> str:
        path = uris.to_fs_path(uri) if uri.startswith("file:") else None
        if path:
            return os.path.normpath(path)
        name = os.path.basename(urllib.parse.urlparse(uri).path) or "untitled.hlsl"
        if "." not in name:
            name += ".hlsl"
        return os.path.join(self.workspace.root_path or os.getcwd(), name)

    async def in_worker(self, fn: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.worker, fn)

    # -- configuration --------------------------------------------------------------------------

    def check_config(self, path: str) -> None:
        """Reload the configuration when a config file above `path` appeared, changed or went away."""
        directory = os.path.dirname(os.path.abspath(path))
        changed = False
        while True:
            for name in CONFIG_NAMES:
                candidate = os.path.join(directory, name)
                try:
                    st = os.stat(candidate)
                    stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
                except OSError:
                    stamp = None
                if candidate in self.config_stamps and self.config_stamps[candidate] != stamp:
                    changed = True
                self.config_stamps[candidate] = stamp
            parent = os.path.dirname(directory)
            if parent == directory:
                break
            directory = parent
        if changed:
            self.reload_config()

    def reload_config(self) -> None:
        self.resolver, errors = resolver_for(self.options, self.root)
        self.tell([(types.MessageType.Error, f"hlsllint: {e}") for e in errors])
        self.generation += 1
        self.pressure.clear()
        self.views.clear()

    # -- linting ----------------------------------------------------------------------------------

    def lint(
        self,
        uri: str,
        version: int | None,
        text: str,
        is_current: Callable[[], bool],
        analysis: Analysis | None = None,
    ) -> Outcome | None:
        """Lint one document version (runs on a worker thread). None when it is already stale."""
        if not is_current() or (analysis is not None and analysis.cancelled):
            return None
        path = self.path_for(uri)
        src = SourceFile(path=path, text=text)
        pos = Positions(src, self.workspace.position_codec)
        outcome = Outcome(uri, version, self.generation, path, src, [], [], pos)
        resolver = self.resolver
        try:
            settings = resolver.for_path(path)
        except ConfigError as e:
            outcome.items = [_message_diagnostic(f"hlsllint: broken configuration: {e}")]
            outcome.messages.append((types.MessageType.Error, f"hlsllint: {e}"))
            return outcome
        try:
            check_override(path, text, settings.max_file_bytes)
        except SourceError as e:  # not analysed, as the command line does not read such a file
            self.snapshots.pop(uri, None)
            loader = FileLoader({path: text}, resolver, limit_overrides=True)
            skipped = lint_unit(path, settings, None, loader)
            outcome.diagnostics = skipped.diagnostics  # HL004, naming the size and the limit
            outcome.items = [to_lsp(d, pos, {}) for d in skipped.diagnostics]
            outcome.messages.append((types.MessageType.Warning, f"hlsllint: {path} is not linted: {e}"))
            return outcome
        try:
            began = time.perf_counter()
            done = self.lint_text(uri, path, text, settings, analysis or Analysis(version))
            self.lint_ms.append((time.perf_counter() - began) * 1000)
        except Exception:  # a bug must not take the server down: report it and carry on
            trace = traceback.format_exc()
            outcome.items = [_message_diagnostic("hlsllint: internal error while linting (see the log)")]
            outcome.messages.append((types.MessageType.Error, "hlsllint: internal error while linting"))
            outcome.messages.append((types.MessageType.Log, trace))
            return outcome
        outcome.sources = done.sources
        outcome.context = done.context
        outcome.relint = done.relint
        outcome.release = done.release
        outcome.settings = settings
        outcome.messages += done.messages
        found = done.diagnostics
        outcome.diagnostics = found
        outcome.items = [to_lsp(d, pos, outcome.sources) for d in found]
        return outcome

    def lint_text(
        self, uri: str, path: str, text: str, settings: Settings, analysis: Analysis
    ) -> DocumentLint:
        """Lint the document's text: again only where the last version's results cannot be
        reused (`incremental.relint`), else from scratch."""
        resolver = self.resolver
        last = self.snapshots.pop(uri, None)
        usable = last is not None and last[0] == self.generation and last[1].settings == settings
        if self.incremental and last is not None and usable:
            # No garbage collection from here to the publication (`hold_collection`): the
            # outcome lets it run again; on any other way out, it runs again here.
            release = hold_collection()
            handed = False
            try:
                with active(analysis.token(settings.time_budget)):
                    again = relint(last[1], text)
                if again is not None:
                    self.snapshots[uri] = (self.generation, again.snapshot)
                    self.retired.append(last)  # freed after the publish
                    found = publishable(again.findings, path, text, resolver)
                    done = DocumentLint(found, again.findings, again.sources, None, [], again, release)
                    self.relints += 1
                    if self.verify:
                        self._verify(path, text, settings, done, analysis)
                    handed = True
                    return done
            except Cancelled:
                self.snapshots[uri] = last  # still the last version analysed to the end
                raise
            except BudgetExceeded:  # a lint from scratch reports it (HL006)
                pass
            finally:
                if not handed:
                    release()
        try:
            done = lint_document(path, text, resolver, settings, analysis)
        except Cancelled:
            if last is not None and usable:
                self.snapshots[uri] = last
            raise
        self.retired.append(last)
        self.full_lints += 1
        variants = settings.variants_for(path)
        if self.incremental and len(variants) <= 1 and done.context is not None and not done.messages:
            snap = snapshot(
                done.context, path, text, settings, variants[0] if variants else None, done.findings
            )
            if snap is not None:
                self.snapshots[uri] = (self.generation, snap)
            elif last is not None and usable:
                # This version cannot serve (a syntax error while typing): the next edit is
                # compared with the last version that can, often one edit inside one body away.
                self.snapshots[uri] = last
        return done

    def _verify(
        self, path: str, text: str, settings: Settings, done: DocumentLint, analysis: Analysis
    ) -> None:
        """HLSLLINT_LSP_VERIFY=1: check an incremental result against a lint from scratch (tests)."""
        fresh = lint_document(path, text, self.resolver, settings, analysis)
        if fresh.diagnostics != done.diagnostics:
            self.mismatches += 1
            done.messages.append(
                (types.MessageType.Error, f"hlsllint: incremental lint differs from a fresh lint of {path}")
            )
            done.diagnostics, done.findings = fresh.diagnostics, fresh.findings

    def tell(self, messages: list[tuple[types.MessageType, str]]) -> None:
        for kind, text in messages:
            if kind is types.MessageType.Log:
                self.window_log_message(types.LogMessageParams(type=kind, message=text))
            elif text not in self.shown:  # once per distinct message, not on every keystroke
                self.shown.add(text)
                self.window_show_message(types.ShowMessageParams(type=kind, message=text))
                self.window_log_message(types.LogMessageParams(type=kind, message=text))

    async def refresh(self, uri: str) -> Outcome | None:
        """The outcome for the open document's current version, linting it when needed."""
        for _ in range(3):  # the document may change while it is linted: try again
            doc = self.document(uri)
            if doc is None:
                return None
            self.check_config(self.path_for(uri))
            cached = self.outcomes.get(uri)
            if cached is not None and cached.version == doc.version and cached.generation == self.generation:
                return cached
            outcome = await self._lint_version(uri, doc.version, doc.source)
            if outcome is not None:
                return outcome
        return self.outcomes.get(uri)

    async def _lint_version(self, uri: str, version: int | None, text: str) -> Outcome | None:
        """The outcome of analysing `version` of the document, or None when it went stale. The
        document's running analysis of another version is cancelled and waited for (a document
        has one analysis at a time: it keeps the document's incremental state); one of this
        version serves as it is."""

        def is_current() -> bool:
            current = self.document(uri)
            return current is not None and current.version == version

        while (running := self.running.get(uri)) is not None:
            if running.analysis.version != version or running.analysis.preparing:
                running.analysis.cancel()
            await asyncio.wait([running.future])
            if running.analysis.version == version and not running.analysis.preparing:
                outcome = self.outcomes.get(uri)
                return outcome if outcome is not None and outcome.version == version else None
        if not is_current():
            return None
        analysis = Analysis(version)
        future = asyncio.get_running_loop().run_in_executor(
            self.worker, lambda: self.lint(uri, version, text, is_current, analysis)
        )
        mine = self.running[uri] = Running(analysis, future)
        future.add_done_callback(lambda _: self._finished(uri, mine, is_current))
        # Shielded: a request that stops waiting (a newer edit cancels its task) leaves the
        # analysis to finish or stop on its own; the next one for the document waits for it.
        try:
            outcome = await asyncio.shield(future)
        except Stop:  # cancelled: a newer version is on its way
            return None
        return outcome if outcome is not None and self.outcomes.get(uri) is outcome else None

    def _finished(self, uri: str, running: Running, is_current: Callable[[], bool]) -> None:
        """An analysis ended (on the event loop): keep its outcome if its version is current."""
        if self.running.get(uri) is running:
            del self.running[uri]
        if running.future.cancelled():
            return
        error = running.future.exception()
        if error is not None:  # the lint caught every Exception: a stop from outside
            if isinstance(error, Cancelled):
                self.cancelled += 1
            else:
                self.tell([(types.MessageType.Log, f"hlsllint: analysis stopped: {error!r}")])
            return
        outcome = running.future.result()
        if outcome is not None and is_current():
            self.retired.append(self.outcomes.get(uri))  # freed after the publish
            self.outcomes[uri] = outcome
            self.tell(outcome.messages)
            # Whoever waits for it publishes or answers at once (and settles it); should
            # nobody, in a second.
            asyncio.get_running_loop().call_later(1.0, self.free_retired, outcome)
            if outcome.relint is None:
                self.prepare_soon(uri, outcome)
        elif outcome is not None and outcome.release is not None:
            outcome.release()  # stale: never published

    def prepare_soon(self, uri: str, outcome: Outcome) -> None:
        """After a lint from scratch, prepare the document's first edits in the background
        (`incremental.prepare`), `SETTLE_SECONDS` after its diagnostics (the editor's first
        requests go first), unless the document changed or has no snapshot by then. A newer
        version cancels it, as it cancels a stale analysis."""
        entry = self.snapshots.get(uri)
        if entry is None or entry[1].prepared or outcome.version is None:
            return
        snap, version = entry[1], outcome.version
        self.preparing.add(uri)

        def start() -> None:
            self.preparing.discard(uri)
            doc = self.document(uri)
            held = self.snapshots.get(uri)
            if (
                doc is None
                or doc.version != version
                or uri in self.running
                or held is None
                or held[1] is not snap
            ):
                return
            analysis = Analysis(version, preparing=True)
            budget = snap.settings.time_budget

            def work() -> Outcome | None:
                with active(analysis.token(budget)):
                    try:
                        self.prepared += incremental.prepare(snap)
                    except Cancelled:  # a newer version came: what is prepared stays
                        self.cancelled += 1
                    except BudgetExceeded:
                        pass
                    except Exception:  # a bug must not take the server down, nor cost more than the help
                        self.prepare_errors.append(traceback.format_exc())
                return None

            future = asyncio.get_running_loop().run_in_executor(self.worker, work)
            mine = self.running[uri] = Running(analysis, future)

            def done(_: object) -> None:
                if self.running.get(uri) is mine:
                    del self.running[uri]
                errors, self.prepare_errors = self.prepare_errors, []
                self.tell(
                    [(types.MessageType.Log, f"hlsllint: preparing the edits failed:\n{e}") for e in errors]
                )

            future.add_done_callback(done)

        asyncio.get_running_loop().call_later(SETTLE_SECONDS, start)

    def free_retired(self, outcome: Outcome | None = None) -> None:
        """Free what newer results replaced, and let the garbage collector run again (after an
        incremental lint of `outcome`): on the event loop, once its diagnostics are sent."""
        gone, self.retired = self.retired, []
        for old in gone:
            if isinstance(old, Outcome) and old.release is not None:
                old.release()
        gone.clear()
        if outcome is not None and outcome.release is not None:
            outcome.release()

    def free_after_reply(self, outcome: Outcome | None) -> None:
        """`free_retired` once the reply of the running request is sent (pygls sends it from a
        callback scheduled when the handler returns, so two turns of the loop later)."""
        loop = asyncio.get_running_loop()
        loop.call_soon(loop.call_soon, self.free_retired, outcome)

    def settle(self, outcome: Outcome | None) -> None:
        """`free_retired` in `SETTLE_SECONDS` (its diagnostics are out)."""
        asyncio.get_running_loop().call_later(SETTLE_SECONDS, self.free_retired, outcome)

    async def lint_and_publish(self, uri: str, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        outcome = await self.refresh(uri)
        if outcome is not None and self.push and self.document(uri) is not None:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, version=outcome.version, diagnostics=outcome.items)
            )
        self.settle(outcome)

    def schedule(self, uri: str, delay: float) -> None:
        """(Re)start the run for `uri`; a pending run for an older version is cancelled."""
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        new = asyncio.ensure_future(self.lint_and_publish(uri, delay))
        self.pending[uri] = new
        new.add_done_callback(lambda t: self.pending.pop(uri, None) if self.pending.get(uri) is t else None)

    def relint_open_documents(self, delay: float = 0.0) -> None:
        for uri in list(self.workspace.text_documents):
            self.schedule(uri, delay)
        if not self.push:
            caps = self.client_capabilities.workspace
            if caps and caps.diagnostics and caps.diagnostics.refresh_support:
                self.workspace_diagnostic_refresh(None)

    async def pressure_for(self, uri: str) -> PressureView | None:
        outcome = await self.refresh(uri)
        if outcome is None or not self.pressure_hints:
            return None
        key = outcome.result_id
        cached = self.pressure.get(uri)
        if cached is not None and cached[0] == key:
            return cached[1]
        settings = outcome.settings
        if settings is None:  # a broken config or an internal error
            return None
        if any(d.code == "HL006" for d in outcome.diagnostics):  # so would the view: none
            self.pressure[uri] = (key, None)
            return None
        context, relint = outcome.context, outcome.relint
        path, text, resolver = outcome.path, outcome.source.text, self.resolver
        generation = outcome.generation
        last = self.views.get(uri)
        basis = (
            last[3]
            if relint is not None
            and last is not None
            and (last[0], last[1], last[2]) == (relint.basis, generation, settings)
            else None
        )

        def build() -> PressureView | None:
            # Within the time budget, as the lint: a view is not worth a hover that waits longer.
            with active(Deadline(settings.time_budget)):
                try:
                    if context is not None:
                        return build_pressure_view(path, context, settings)
                    if relint is not None and basis is not None:
                        # The entry points the incremental lint analysed from its analyses,
                        # the others (which the edit does not run) from the last view.
                        view = view_after_relint(
                            path, relint.context, settings, basis, relint.shift, relint.entries
                        )
                        if view is not None:
                            self.pressure_reused += 1
                            return view
                    # The unit's every entry point from scratch.
                    self.pressure_units += 1
                    return build_pressure_view(path, unit_context(path, text, settings, resolver), settings)
                except Stop:
                    return None

        view = await self.in_worker(build)
        self.pressure[uri] = (key, view)
        if view is not None:
            self.views[uri] = (text, generation, settings, view)
        if self.outcomes.get(uri) is outcome:
            self.free_after_reply(outcome)  # the view is what the editor waited for
        return view


def _message_diagnostic(message: str) -> types.Diagnostic:
    return types.Diagnostic(
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=1)),
        message=message,
        severity=types.DiagnosticSeverity.Error,
        source=SOURCE,
    )
