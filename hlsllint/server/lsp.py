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

Each document is analysed on a worker thread of its own (`language_server.LINT_THREADS` at most
at once), so the server keeps answering while a file is analysed and a slow document holds up no
other. A document has one analysis at a time: a newer version cancels the running one
(`Analysis`), which stops at its next check, and is analysed once it has. The server's state and
that scheduling are `language_server.HlslLintServer`; this module registers the features.
"""

from __future__ import annotations

import os
import sys
import time
import urllib.parse
from typing import Any

from lsprotocol import types
from pygls import uris

from hlsllint.config import (
    CONFIG_NAMES,
)
from hlsllint.deadline import Deadline, Stop, active
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
    contains,
)
from hlsllint.server.document_lint import (
    pressure_html,
)
from hlsllint.server.language_server import HlslLintServer

STATS_COMMAND = "hlsllint.stats"
CONFIG_GLOB = "**/{" + ",".join(CONFIG_NAMES) + "}"
MODES = ("auto", "push", "pull", "both")
PRESSURE_REQUEST = "hlsllint/pressure"
PRESSURE_PAGE_REQUEST = "hlsllint/pressurePage"

SWITCH_SECONDS = 0.001
"""How long a thread waits for the GIL before it asks the one holding it to hand it over (Python's
default: 5 ms): a request waits for it several times while a document is analysed (50,000 nested
ifs, compiled, load 13 on 2 cores: hover p50 25 -> 6-18 ms, p95 118 -> 40-60 ms;
bench/lsp_responsiveness.py)."""


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
