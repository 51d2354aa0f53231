"""The language server (`hlsllint server`, LSP over stdio, pygls).

- Diagnostics on open, change and save, pushed (`textDocument/publishDiagnostics`) and pulled
  (`textDocument/diagnostic`). By default the server pushes unless the client can pull
  (`initializationOptions.diagnosticMode`: `auto`, `push`, `pull` or `both`).
- Changes are debounced: an edit after a quiet spell is linted at once; edits in a burst wait
  until the typing pauses (`debounceMs`, default 200). A run whose document changed meanwhile is
  dropped (it never reaches the client) and queued runs for old versions are skipped.
- The buffer's unsaved text is linted; its includes are read from disk.
- Settings come from the config file closest to each document, reloaded when a config file
  changes (`workspace/didChangeWatchedFiles`, and by checking their mtimes before each run).
- Code actions: each finding's fix (unsafe ones labelled), `source.fixAll.hlsllint` (safe
  fixes) and "suppress with `// noqa: CODE`". Hover shows a rule's documentation on a finding or
  on a code inside a `noqa` comment, and the live registers of the line.
- Register pressure: inlay hints with the live VGPRs on the lines near each entry's peak. After
  an incremental lint they come from its analyses (the entry points it analysed) and the last
  view (the others, rows moved: `view_after_relint`), not from the unit built again.
- A message it cannot read gets the JSON-RPC error the specification asks for
  (`hlsllint/server/protocol.py`); a bad notification is logged.

- Edits are linted incrementally: an edit inside one function body re-analyses that function's
  group (its callers up to the entry points, their callees, functions sharing its globals) and
  reuses the rest of the last result (`hlsllint/server/incremental.py`); anything else, and the
  first lint of a document, is a lint from scratch. Either way the diagnostics are those of a lint
  from scratch. `HLSLLINT_LSP_INCREMENTAL=0` turns it off; `HLSLLINT_LSP_VERIFY=1` checks every
  incremental result against a lint from scratch (slow: tests). The `hlsllint.stats` command
  counts both kinds of lint. What a result replaces (the last one's model and analyses) is
  freed, and the garbage collector runs again, after the new diagnostics are out.

Each document is analysed on a worker thread of its own (`LINT_THREADS` at most at once), so
the server keeps answering while a file is analysed and a slow document holds up no other. A
document has one analysis at a time: a newer version cancels the running one (`Analysis`), which
stops at its next check, and is analysed once it has.
"""

from __future__ import annotations

import asyncio
import os
import sys
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
from hlsllint.registry import find_rule
from hlsllint.server import incremental
from hlsllint.server.actions import FIX_ALL_KIND, markdown, noqa_code_at, quick_fixes, wanted
from hlsllint.server.actions import fix_all as fix_all_action
from hlsllint.server.client_settings import (
    init_option,
    request_param,
    resolver_for,
    settings_from,
)
from hlsllint.server.convert import (
    SOURCE,
    Positions,
    contains,
    to_lsp,
)
from hlsllint.server.document_lint import (
    Analysis,
    DocumentLint,
    Outcome,
    lint_document,
    pressure_html,
    publishable,
    unit_context,
)
from hlsllint.server.incremental import Snapshot, relint, snapshot
from hlsllint.server.pressure_view import PressureView, build_pressure_view, view_after_relint
from hlsllint.server.protocol import PARSE_ERRORS, HlslLintProtocol
from hlsllint.source import SourceError, SourceFile

DEBOUNCE_SECONDS = 0.2
STATS_COMMAND = "hlsllint.stats"
CONFIG_GLOB = "**/{" + ",".join(CONFIG_NAMES) + "}"
MODES = ("auto", "push", "pull", "both")
PRESSURE_REQUEST = "hlsllint/pressure"
PRESSURE_PAGE_REQUEST = "hlsllint/pressurePage"

T = TypeVar("T")

SETTLE_SECONDS = 0.25
"""How long after an outcome's diagnostics are out what it replaced waits to be freed, and the
garbage collector to run again after an incremental lint (a collection then walks the lint's
analyses, kept for the pressure view: 150-300 ms every third edit on an engine pixel shader),
unless a pressure view of it (inlay hints, which an editor asks for after each change) is
answered first: then just after that answer."""

LINT_THREADS = 8
"""Documents analysed at once, each on its own thread."""

SWITCH_SECONDS = 0.001
"""How long a thread waits for the GIL before it asks the one holding it to hand it over (Python's
default: 5 ms): a request waits for it several times while a document is analysed (50,000 nested
ifs, compiled, load 13 on 2 cores: hover p50 25 -> 6-18 ms, p95 118 -> 40-60 ms;
bench/lsp_responsiveness.py)."""


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


def create_server() -> HlslLintServer:
    server = HlslLintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: HlslLintServer, params: types.InitializeParams) -> None:
        mode = init_option(params, "diagnosticMode")
        ls.mode = mode if mode in MODES else "auto"
        can_pull = params.capabilities.text_document is not None and (
            params.capabilities.text_document.diagnostic is not None
        )
        ls.push = ls.mode in ("push", "both") or (ls.mode == "auto" and not can_pull)
        debounce = init_option(params, "debounceMs")
        if isinstance(debounce, int | float) and not isinstance(debounce, bool) and debounce >= 0:
            ls.debounce = debounce / 1000
        if init_option(params, "pressureHints") is False:
            ls.pressure_hints = False
        if params.root_uri and params.root_uri.startswith("file:"):
            ls.root = uris.to_fs_path(params.root_uri)
        elif params.root_path:
            ls.root = params.root_path
        options = settings_from(params.initialization_options)
        if options:
            ls.options = options
            ls.resolver, ls.option_errors = resolver_for(options, ls.root)

    @server.feature(types.INITIALIZED)
    def initialized(ls: HlslLintServer, params: types.InitializedParams) -> None:
        ls.tell([(types.MessageType.Error, f"hlsllint: {e}") for e in ls.option_errors])
        caps = ls.client_capabilities.workspace
        watched = caps.did_change_watched_files if caps else None
        if watched is not None and watched.dynamic_registration:
            options = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern=CONFIG_GLOB)]
            )
            ls.client_register_capability(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="hlsllint-config-files",
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=options,
                        )
                    ]
                )
            )

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(ls: HlslLintServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(os.path.basename(urllib.parse.urlparse(c.uri).path) in CONFIG_NAMES for c in params.changes):
            ls.reload_config()
            ls.relint_open_documents()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def changed_configuration(ls: HlslLintServer, params: types.DidChangeConfigurationParams) -> None:
        """The editor's settings changed (`{"hlsllint": {"target": ..., "waveSize": ...,
        "configFile": ..., "defines": [...]}}`): lint the open documents with them."""
        options = settings_from(params.settings)
        if options is None or options == ls.options:
            return
        ls.options = options
        ls.reload_config()
        ls.relint_open_documents()

    @server.feature(PRESSURE_REQUEST)
    async def pressure_summary(ls: HlslLintServer, params: Any) -> dict[str, Any] | None:
        """`hlsllint/pressure` {textDocument: {uri}, position?}: each entry point's peak registers
        and waves, and `current`, the entry whose code (its body or a helper it inlines) holds the
        position (else the only entry point). Null when the document is not open."""
        uri = request_param(params, "textDocument", "uri")
        if not isinstance(uri, str):
            return None
        view = await ls.pressure_for(uri)
        if view is None:
            return None if ls.document(uri) is None else {"entries": [], "current": None}
        line = request_param(params, "position", "line")
        row = line + 1 if isinstance(line, int) else None
        entries = [e.figures for e in view.entries]
        current = next((e.entry for e in view.entries if row is not None and e.covers(row)), None)
        if current is None and len(entries) == 1:
            current = view.entries[0].entry
        return {"entries": entries, "current": current}

    @server.feature(PRESSURE_PAGE_REQUEST)
    async def pressure_page(ls: HlslLintServer, params: Any) -> dict[str, Any] | None:
        """`hlsllint/pressurePage` {textDocument: {uri}}: the page `hlsllint pressure
        --output-format html` prints, for the buffer's text (`{"html": ...}`); null when the
        document is not open or its analysis runs past the time budget."""
        uri = request_param(params, "textDocument", "uri")
        if not isinstance(uri, str):
            return None
        outcome = await ls.refresh(uri)
        if outcome is None or outcome.settings is None:
            return None
        path, text, settings = outcome.path, outcome.source.text, outcome.settings

        if any(d.code == "HL006" for d in outcome.diagnostics):
            return None  # its analysis ran out of time: so would the page's

        def render() -> str | None:
            with active(Deadline(settings.time_budget)):
                try:
                    return pressure_html(path, text, settings, ls.resolver)
                except Stop:
                    return None

        html = await ls.in_worker(render)
        return None if html is None else {"html": html}

    @server.command(STATS_COMMAND)
    def stats(ls: HlslLintServer, *args: Any) -> dict[str, Any]:
        """How documents were linted: incremental relints, from-scratch lints, why the last
        relint was not possible, and (HLSLLINT_LSP_VERIFY=1) relints that differed."""
        return {
            "relints": ls.relints,
            "fullLints": ls.full_lints,
            "mismatches": ls.mismatches,
            "cancelled": ls.cancelled,
            "running": sorted(ls.running),
            "preparing": sorted(ls.preparing),
            "prepared": ls.prepared,
            "lastFallback": incremental.last_reason,
            "pressureUnits": ls.pressure_units,
            "pressureReused": ls.pressure_reused,
            "lintMs": [round(ms, 1) for ms in ls.lint_ms[-1000:]],
        }

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: HlslLintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: HlslLintServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        now = time.monotonic()
        quiet = now - ls.last_change.get(uri, float("-inf")) >= ls.debounce
        ls.last_change[uri] = now
        ls.schedule(uri, 0.0 if quiet else ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: HlslLintServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if os.path.basename(ls.path_for(uri)) in CONFIG_NAMES:
            ls.reload_config()
        # Documents that include the saved file see its new text: lint them all.
        for other in list(ls.workspace.text_documents):
            ls.schedule(other, 0.0 if other == uri else ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: HlslLintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        task = ls.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        running = ls.running.get(uri)
        if running is not None:
            running.analysis.cancel()
        ls.outcomes.pop(uri, None)
        ls.pressure.pop(uri, None)
        ls.views.pop(uri, None)
        ls.snapshots.pop(uri, None)
        ls.last_change.pop(uri, None)
        if ls.push:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(identifier=SOURCE, inter_file_dependencies=True, workspace_diagnostics=False),
    )
    async def pull_diagnostics(
        ls: HlslLintServer, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport:
        outcome = await ls.refresh(params.text_document.uri)
        ls.settle(outcome)
        if outcome is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        if params.previous_result_id == outcome.result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=outcome.result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=outcome.items, result_id=outcome.result_id)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=False
        ),
    )
    async def code_actions(ls: HlslLintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        outcome = await ls.refresh(params.text_document.uri)
        if outcome is None:
            return []
        only = params.context.only
        actions: list[types.CodeAction] = []
        if wanted(types.CodeActionKind.QuickFix, only):
            actions += quick_fixes(outcome, params.range)
        if wanted(FIX_ALL_KIND, only):
            fix_all = fix_all_action(outcome)
            if fix_all is not None:
                actions.append(fix_all)
        return actions

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: HlslLintServer, params: types.HoverParams) -> types.Hover | None:
        outcome = await ls.refresh(params.text_document.uri)
        if outcome is None:
            return None
        code = noqa_code_at(outcome, params.position)
        if code is not None:
            rule = find_rule(code)
            text = rule.documentation() if rule else f"`{code}` is not a known hlsllint rule."
            return markdown(text)
        parts = []
        for d, item in zip(outcome.diagnostics, outcome.items, strict=True):
            if contains(item.range, params.position):
                rule = find_rule(d.code)
                details = "".join(f"\n\n{line}" for line in d.details())
                doc = rule.documentation() if rule else ""
                parts.append(f"**{d.code}** {d.message}{details}\n\n{doc}")
        if parts:
            return markdown("\n\n---\n\n".join(parts))
        view = await ls.pressure_for(params.text_document.uri)
        if view is not None:
            line_info = view.hover(outcome.path, params.position.line + 1)
            if line_info:
                return markdown(line_info)
        return None

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    async def inlay_hints(ls: HlslLintServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        view = await ls.pressure_for(params.text_document.uri)
        outcome = ls.outcomes.get(params.text_document.uri)
        if view is None or outcome is None:
            return []
        first, last = params.range.start.line + 1, params.range.end.line + 1
        hints = []
        for row, label, tooltip in view.hints(outcome.path):
            if first <= row <= last:
                line = outcome.source.line(row)
                at = outcome.positions.position(
                    outcome.source.location(outcome.source.offset(row, len(line) + 1))
                )
                hints.append(
                    types.InlayHint(
                        position=at,
                        label=label,
                        kind=types.InlayHintKind.Type,
                        padding_left=True,
                        tooltip=types.MarkupContent(kind=types.MarkupKind.Markdown, value=tooltip),
                    )
                )
        return hints

    return server


def run() -> int:
    sys.setswitchinterval(SWITCH_SECONDS)
    create_server().start_io()
    return 0
