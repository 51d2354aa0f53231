"""The language server, end to end: a pytest-lsp client talks to `python -m hlsllint server`."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

import hostile
import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from test_lsp_incremental import EDITED, HEADER, MAIN

from hlsllint import rule_url

pytestmark = pytest.mark.asyncio(loop_scope="module")

BAD = "float f(float x)\n{\n    return sign(x) < 0 ? 1.0 : 2.0;\n}\n"
#                                  ^ line 2, characters 11..22
COMPUTE = """\
RWStructuredBuffer<float4> Out : register(u0);
Texture2D<float4> Tex : register(t0);
SamplerState S : register(s0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 a = Tex.SampleLevel(S, float2(id.x, 0) / 64.0, 0);
    float4 b = Tex.SampleLevel(S, float2(id.x, 1) / 64.0, 0);
    float4 c = Tex.SampleLevel(S, float2(id.x, 2) / 64.0, 0);
    float4 d = a * b + c;
    Out[id.x] = d + a + b + c;
}
"""


REGISTRATIONS: list[types.Registration] = []


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ws")
    (root / "hlsllint.toml").write_text('select = ["HL"]\n', encoding="utf-8")
    return root


@pytest_lsp.fixture(
    scope="module",
    # The installed console script, not `python -m` (which would import the source tree, where
    # the rule plugins are not yet mapped to hlsllint.rules).
    config=ClientServerConfig(server_command=[str(Path(sys.executable).with_name("hlsllint")), "server"]),
)
async def client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[None]:
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        REGISTRATIONS.extend(params.registrations)

    caps = types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)
        )
    )
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            root_uri=workspace.as_uri(),
            initialization_options={"diagnosticMode": "push", "debounceMs": 50},
        )
    )
    yield
    await lsp_client.shutdown_session()


def open_doc(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="hlsl", version=version, text=text)
        )
    )
    return uri


def close_doc(client: LanguageClient, uri: str) -> None:
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )


def change(client: LanguageClient, uri: str, version: int, rng: types.Range | None, text: str) -> None:
    event: types.TextDocumentContentChangeEvent = (
        types.TextDocumentContentChangePartial(range=rng, text=text)
        if rng is not None
        else types.TextDocumentContentChangeWholeDocument(text=text)
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[event],
        )
    )


async def published(
    client: LanguageClient,
    uri: str,
    until: Callable[[Sequence[types.Diagnostic]], bool],
    timeout: float = 15.0,
) -> Sequence[types.Diagnostic]:
    async def wait() -> None:
        while uri not in client.diagnostics or not until(client.diagnostics[uri]):
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    await asyncio.wait_for(wait(), timeout)
    return client.diagnostics[uri]


def codes(diags: Sequence[types.Diagnostic]) -> list[str]:
    return [str(d.code) for d in diags]


def rng(line: int, start: int, end_line: int, end: int) -> types.Range:
    return types.Range(
        start=types.Position(line=line, character=start), end=types.Position(line=end_line, character=end)
    )


async def test_diagnostics_on_open_and_after_edit(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "edit.hlsl", BAD)
    diags = await published(client, uri, lambda ds: len(ds) > 0)
    (d,) = diags
    assert d.code == "HL105"
    assert d.source == "hlsllint"
    assert d.severity == types.DiagnosticSeverity.Warning
    assert d.code_description is not None and d.code_description.href == rule_url("HL105")
    assert d.range == rng(2, 11, 2, 22)
    (watch,) = REGISTRATIONS  # the server watches config files
    assert watch.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES

    change(client, uri, 2, rng(2, 11, 2, 18), "x")  # `sign(x) < 0` -> `x < 0`
    assert await published(client, uri, lambda ds: len(ds) == 0) == ()
    change(client, uri, 3, rng(2, 11, 2, 16), "sign(x) < 0")  # back again
    diags = await published(client, uri, lambda ds: len(ds) == 1)
    assert diags[0].range == rng(2, 11, 2, 22)
    close_doc(client, uri)
    assert await published(client, uri, lambda ds: len(ds) == 0) == ()


async def test_positions_are_utf16(client: LanguageClient, workspace: Path) -> None:
    text = "float f(float x)\n{\n    /* 😀é */ return sign(x) < 0;\n}\n"
    uri = open_doc(client, workspace / "utf16.hlsl", text)
    (d,) = await published(client, uri, lambda ds: len(ds) > 0)
    # 20 code points precede `sign`; the emoji takes two UTF-16 code units.
    assert d.range == rng(2, 21, 2, 32)
    close_doc(client, uri)


async def test_code_actions(client: LanguageClient, workspace: Path) -> None:
    text = BAD + "float g(float y)\n{\n    return sign(y) == 0; // noqa: HL999\n}\n"
    uri = open_doc(client, workspace / "actions.hlsl", text)
    diags = await published(client, uri, lambda ds: codes(ds).count("HL105") == 2)
    first = next(d for d in diags if d.range.start.line == 2)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=first.range,
            context=types.CodeActionContext(diagnostics=[first]),
        )
    )
    assert actions is not None
    by_title = {a.title: a for a in actions if isinstance(a, types.CodeAction)}
    fix = by_title["HL105: Replace with `x < 0`"]
    assert fix.kind == types.CodeActionKind.QuickFix
    assert fix.is_preferred
    assert fix.edit is not None and fix.edit.changes is not None
    assert list(fix.edit.changes[uri]) == [types.TextEdit(range=rng(2, 11, 2, 22), new_text="x < 0")]
    noqa = by_title["Suppress HL105 with `// noqa: HL105`"]
    assert noqa.edit is not None and noqa.edit.changes is not None
    assert list(noqa.edit.changes[uri]) == [
        types.TextEdit(range=rng(2, 35, 2, 35), new_text="  // noqa: HL105")
    ]

    second = next(d for d in diags if d.range.start.line == 6)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=second.range,
            context=types.CodeActionContext(diagnostics=[second]),
        )
    )
    assert actions is not None
    titles = [a.title for a in actions]
    assert "HL105: Replace with `y == 0` (unsafe fix)" in titles
    add = next(a for a in actions if isinstance(a, types.CodeAction) and a.title.startswith("Add HL105"))
    assert add.edit is not None and add.edit.changes is not None
    assert add.edit.changes[uri][0].new_text == ", HL105"
    assert add.edit.changes[uri][0].range.start == types.Position(line=6, character=39)

    fix_all = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng(0, 0, 0, 0),
            context=types.CodeActionContext(diagnostics=[], only=["source.fixAll"]),
        )
    )
    assert fix_all is not None and len(fix_all) == 1
    action = fix_all[0]
    assert isinstance(action, types.CodeAction)
    assert action.kind == "source.fixAll.hlsllint"
    assert action.edit is not None and action.edit.changes is not None
    edits = list(action.edit.changes[uri])
    # The safe fixes: HL105 on line 3 and HL001 (the unknown code's noqa); not the unsafe one.
    # Each is its own edit of the changed range, not the whole document.
    assert edits == [
        types.TextEdit(range=rng(2, 11, 2, 22), new_text="x < 0"),
        types.TextEdit(range=rng(6, 24, 6, 39), new_text=""),
    ]
    assert apply_edits(text, edits) == text.replace("sign(x) < 0", "x < 0").replace(" // noqa: HL999", "")
    close_doc(client, uri)


def apply_edits(text: str, edits: Sequence[types.TextEdit]) -> str:
    """The text after an editor applies `edits` (ASCII text: characters are code points)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(p: types.Position) -> int:
        return starts[p.line] + p.character

    ordered = sorted(edits, key=lambda e: offset(e.range.start), reverse=True)
    for e in ordered:
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end) :]
    return text


async def test_fix_all_edits_only_the_changed_ranges(client: LanguageClient, workspace: Path) -> None:
    """source.fixAll returns one small edit per fix: a long document with two fixes far apart
    gets two edits on their own lines, every other line untouched."""
    filler = "".join(f"static const float k{i} = {i}.0;\n" for i in range(200))
    text = BAD + filler + BAD.replace("f(float x)", "g(float x)")
    uri = open_doc(client, workspace / "fixall.hlsl", text)
    diags = await published(client, uri, lambda ds: codes(ds).count("HL105") == 2)
    assert {d.range.start.line for d in diags} == {2, 206}
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng(0, 0, 0, 0),
            context=types.CodeActionContext(diagnostics=[], only=["source.fixAll.hlsllint"]),
        )
    )
    assert actions is not None and len(actions) == 1
    action = actions[0]
    assert isinstance(action, types.CodeAction) and action.edit is not None and action.edit.changes
    edits = list(action.edit.changes[uri])
    assert [(e.range.start.line, e.range.end.line) for e in edits] == [(2, 2), (206, 206)]
    assert all(len(e.new_text) < 10 for e in edits)
    assert apply_edits(text, edits) == text.replace("sign(x) < 0", "x < 0")
    close_doc(client, uri)


async def test_pull_diagnostics(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "pull.hlsl", BAD)
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert codes(report.items) == ["HL105"]
    assert report.result_id
    again = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id
        )
    )
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
    close_doc(client, uri)
    closed = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(closed, types.RelatedFullDocumentDiagnosticReport)
    assert len(closed.items) == 0


async def test_hover(client: LanguageClient, workspace: Path) -> None:
    text = BAD + "float g(float y) { return sign(y) > 0; } // noqa: HL105\n"
    uri = open_doc(client, workspace / "hover.hlsl", text)
    await published(client, uri, lambda ds: len(ds) == 1)

    def at(line: int, character: int) -> types.HoverParams:
        return types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )

    on_diag = await client.text_document_hover_async(at(2, 15))
    assert on_diag is not None and isinstance(on_diag.contents, types.MarkupContent)
    assert on_diag.contents.kind == types.MarkupKind.Markdown
    assert "# sign-for-sign-bit (HL105)" in on_diag.contents.value
    assert "if (facing < 0)" in on_diag.contents.value  # the good example
    on_noqa = await client.text_document_hover_async(at(4, 53))
    assert on_noqa is not None and isinstance(on_noqa.contents, types.MarkupContent)
    assert "# sign-for-sign-bit (HL105)" in on_noqa.contents.value
    close_doc(client, uri)
    assert await client.text_document_hover_async(at(2, 15)) is None


async def test_buffer_text_with_includes_from_disk(client: LanguageClient, workspace: Path) -> None:
    (workspace / "flags.hlsli").write_text("#define CHECK_SIGN 1\n", encoding="utf-8")
    main = workspace / "buffer.hlsl"
    main.write_text("float f(float x) { return x; }\n", encoding="utf-8")  # disk: clean
    text = '#include "flags.hlsli"\nfloat f(float x)\n{\n#if CHECK_SIGN\n    return sign(x) < 0;\n#endif\n}\n'
    uri = open_doc(client, main, text)
    (d,) = await published(client, uri, lambda ds: len(ds) > 0)
    assert d.code == "HL105"
    assert d.range.start.line == 4
    close_doc(client, uri)


async def test_broken_config_then_fixed(client: LanguageClient, workspace: Path) -> None:
    sub = workspace / "broken"
    sub.mkdir()
    config = sub / "hlsllint.toml"
    config.write_text("selekt = [1]\n", encoding="utf-8")
    uri = open_doc(client, sub / "a.hlsl", BAD)
    (d,) = await published(client, uri, lambda ds: len(ds) > 0)
    assert "broken configuration" in d.message and "selekt" in d.message
    assert d.range.start == types.Position(line=0, character=0)
    assert any("selekt" in m.message for m in client.messages)

    config.write_text('ignore = ["HL105"]\n', encoding="utf-8")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    assert await published(client, uri, lambda ds: len(ds) == 0) == ()

    # Without a notification, the mtime check sees the next change of the config.
    config.write_text('select = ["HL105"]\n# longer: a different size\n', encoding="utf-8")
    change(client, uri, 2, None, BAD + "\n")
    diags = await published(client, uri, lambda ds: len(ds) == 1)
    assert codes(diags) == ["HL105"]
    close_doc(client, uri)


async def test_survives_garbage(client: LanguageClient, workspace: Path) -> None:
    garbage = "".join(chr(c) for c in range(0, 0x3000, 7)) + "\x00\ufffd{{{((("
    uri = open_doc(client, workspace / "garbage.hlsl", garbage)
    await published(client, uri, lambda ds: True)
    huge = "float f(float x) { " + "x += 1; " * 20_000 + "return x; }\n"  # one 160 kB line
    change(client, uri, 2, None, huge)
    await asyncio.sleep(0.3)
    close_doc(client, uri)  # closed while (maybe) being linted
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0)
        )
    )
    assert hover is None
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=workspace.joinpath("never-opened.hlsl").as_uri()),
            range=rng(0, 0, 0, 0),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions is not None and len(actions) == 0
    # Still alive and linting.
    ok = open_doc(client, workspace / "after.hlsl", BAD)
    assert codes(await published(client, ok, lambda ds: len(ds) > 0)) == ["HL105"]
    close_doc(client, ok)


async def test_register_pressure_hints_and_hover(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "cs.hlsl", COMPUTE)
    await published(client, uri, lambda ds: True)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=uri), range=rng(0, 0, 13, 0))
    )
    assert hints
    labels = {h.position.line: h.label for h in hints}
    peak = next(line for line, label in labels.items() if isinstance(label, str) and "(peak)" in label)
    assert "VGPR" in str(labels[peak])
    assert hints[0].position.character == len(COMPUTE.splitlines()[hints[0].position.line])
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=peak, character=4),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "**Live registers** in `main`" in hover.contents.value
    assert "Live here:" in hover.contents.value and "`a`" in hover.contents.value
    close_doc(client, uri)


async def test_edits_publish_what_a_lint_from_scratch_does(client: LanguageClient, workspace: Path) -> None:
    """Edits go through the incremental lint; each version's diagnostics equal a fresh lint's."""
    from pygls.workspace.position_codec import PositionCodec

    from hlsllint.config import ConfigResolver
    from hlsllint.server.convert import Positions, to_lsp
    from hlsllint.server.document_lint import lint_document
    from hlsllint.server.lsp import STATS_COMMAND
    from hlsllint.source import SourceFile

    (workspace / "lib.hlsli").write_text(HEADER, encoding="utf-8")
    main = workspace / "incremental.hlsl"
    path = str(main)

    def fresh(text: str) -> list[types.Diagnostic]:
        done = lint_document(path, text, ConfigResolver())
        pos = Positions(SourceFile(path=path, text=text), PositionCodec(types.PositionEncodingKind.Utf16))
        return [to_lsp(d, pos, done.sources) for d in done.diagnostics]

    async def stats() -> dict[str, object]:
        got = await client.workspace_execute_command_async(types.ExecuteCommandParams(command=STATS_COMMAND))
        assert isinstance(got, dict)
        return got

    before = await stats()
    text = MAIN
    uri = open_doc(client, main, text)
    await published(client, uri, lambda ds: list(ds) == fresh(text))
    lines = MAIN.split("\n")
    probe = next(i for i, line in enumerate(lines) if "return x < 0" in line)
    lonely = next(i for i, line in enumerate(lines) if "return sign(z) == 0" in line)
    edits = [
        (rng(probe, 11, probe, 16), "sign(x) < 0", "return sign(x) < 0"),  # a finding appears
        (rng(lonely, 0, lonely, 0), "    z = z * 0.5;\n", "z = z * 0.5;"),  # lines below move
        (rng(probe, 11, probe, 22), "x < 0", "return x < 0"),  # and goes again
        (rng(probe, 11, probe, 11), "(", "return (x < 0"),  # a syntax error: from scratch
        (rng(probe, 11, probe, 12), "", "return x < 0"),  # undone: the last result serves
        (rng(probe, 11, probe, 11), "sign(", "return sign(x < 0"),  # from scratch
        (rng(probe, 17, probe, 17), ")", "return sign(x) < 0"),  # against the last clean text
    ]
    for version, (where, new, check) in enumerate(edits, start=2):
        start = sum(len(line) + 1 for line in text.split("\n")[: where.start.line]) + where.start.character
        end = sum(len(line) + 1 for line in text.split("\n")[: where.end.line]) + where.end.character
        text = text[:start] + new + text[end:]
        assert check in text
        expected = fresh(text)
        change(client, uri, version, where, new)
        assert list(await published(client, uri, lambda ds, e=expected: list(ds) == e)) == expected
    after = await stats()
    assert int(str(after["relints"])) - int(str(before["relints"])) == len(edits) - 2, after
    assert after["mismatches"] == 0
    # The pressure view still sees the whole unit (the last lint analysed part of it).
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=rng(0, 0, len(lines) + 2, 0)
        )
    )
    assert hints and any("VGPR" in str(h.label) for h in hints)
    close_doc(client, uri)


async def test_pressure_after_an_edit_builds_no_unit_again(client: LanguageClient, workspace: Path) -> None:
    """Inlay hints and hover after an incremental lint take its analyses and the last view
    (`hlsllint.stats`: no unit built again for them) and answer as after a lint from scratch."""
    from hlsllint.server.lsp import STATS_COMMAND

    (workspace / "lib.hlsli").write_text(HEADER, encoding="utf-8")
    whole = rng(0, 0, len(MAIN.split("\n")) + 2, 0)

    async def hints(uri: str) -> list[tuple[int, str, str]]:
        got = await client.text_document_inlay_hint_async(
            types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=uri), range=whole)
        )
        return [(h.position.line, str(h.label), str(h.tooltip)) for h in got or []]

    async def hovers(uri: str) -> list[str | None]:
        out: list[str | None] = []
        for line in range(whole.end.line):
            h = await client.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    position=types.Position(line=line, character=4),
                )
            )
            out.append(
                h.contents.value if h is not None and isinstance(h.contents, types.MarkupContent) else None
            )
        return out

    async def stats() -> dict[str, int]:
        got = await client.workspace_execute_command_async(types.ExecuteCommandParams(command=STATS_COMMAND))
        assert isinstance(got, dict)
        return got

    uri = open_doc(client, workspace / "reuse.hlsl", MAIN)
    assert await hints(uri)  # from the lint's own analyses
    before = await stats()
    # A line added inside `lonely`, which only `ps` runs: `main`'s rows move down.
    at = MAIN.split("\n").index("    return sign(z) == 0 ? 1.0 : z;")
    change(client, uri, 2, rng(at, 0, at, 0), "    z = z * 0.5;\n")
    edited = await hints(uri)
    edited_hovers = await hovers(uri)
    after = await stats()
    assert after["relints"] - before["relints"] == 1, after
    assert after["pressureUnits"] == before["pressureUnits"], after  # no unit built again
    assert after["pressureReused"] - before["pressureReused"] == 1, after
    fresh = open_doc(client, workspace / "reuse_fresh.hlsl", EDITED)
    assert edited and edited == await hints(fresh)
    assert any(edited_hovers) and edited_hovers == await hovers(fresh)
    close_doc(client, uri)
    close_doc(client, fresh)


async def test_help_and_notes_follow_the_message(client: LanguageClient, workspace: Path) -> None:
    text = "float f(float x, float y)\n{\n    return y * sign(x);\n}\n"
    uri = open_doc(client, workspace / "help.hlsl", text)
    (d,) = await published(client, uri, lambda ds: len(ds) > 0)
    first, help, note = d.message.split("\n")
    assert first == "multiplying by `sign()` to apply a sign costs compares, selects and a multiply"
    assert help == "help: select on the sign instead: `(x < 0 ? -y : y)`"
    assert note == "note: the select differs from the product only when the value is 0"


HELPERS = """\
RWStructuredBuffer<float4> Out : register(u0);
Texture2D<float4> Tex : register(t0);
SamplerState S : register(s0);

float4 scale(float4 v, float t)
{

    return v * t;
}

float4 blend(float4 a, float4 b, float t)
{
    float4 m = scale(a, t);

    // a comment inside
    return m + b * (1.0 - t);
}

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 a = Tex.SampleLevel(S, float2(id.x, 0) / 64.0, 0);
    float4 b = Tex.SampleLevel(S, float2(id.x, 1) / 64.0, 0);
    float4 c = blend(a, b, 0.5);
    Out[id.x] = c + a;
}
"""


async def test_pressure_hover_on_every_line_of_an_inlined_helper(
    client: LanguageClient, workspace: Path
) -> None:
    """Every line of a helper the entry inlines answers with the entry's registers at the call
    (line 24, 0-based 23); a helper called from a helper's line (`scale`) reaches it too."""
    uri = open_doc(client, workspace / "helpers.hlsl", HELPERS)
    await published(client, uri, lambda ds: True)

    async def hover(line: int) -> str:
        h = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=0),
            )
        )
        assert h is not None and isinstance(h.contents, types.MarkupContent), line
        return h.contents.value

    at_call = await hover(23)
    counts = at_call.split("`main`: ", 1)[1].split("\n", 1)[0]  # "N VGPRs, M SGPRs"
    for line in range(10, 16):  # blend: signature, braces, blank line, comment, statements
        assert f"t the call of `blend` (line 24: {counts})" in await hover(line), line
    for line in range(4, 8):  # scale, called from blend's line 13 (its own figures)
        text = await hover(line)
        assert "the call of `scale` (line 13: " in text and "VGPRs" in text, line
    outside = await client.text_document_hover_async(  # outside every function: no figures
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=2, character=0)
        )
    )
    assert outside is None
    close_doc(client, uri)


async def test_a_small_file_of_50_000_terms_is_one_finding(client: LanguageClient, workspace: Path) -> None:
    # 247 bytes of macros: compiled, the server died within a second of opening it (the analysis
    # recursed 50,000 deep on the C stack).
    uri = open_doc(client, workspace / "terms.hlsl", hostile.macro_terms(50_000))
    diags = await published(client, uri, lambda ds: len(ds) > 0, timeout=60)
    assert codes(diags) == ["HL007"] and "function `main` is not analysed" in diags[0].message
    close_doc(client, uri)
    ok = open_doc(client, workspace / "after-terms.hlsl", BAD)
    assert codes(await published(client, ok, lambda ds: len(ds) > 0)) == ["HL105"]
    close_doc(client, ok)


async def test_max_file_size_holds_for_documents_and_includes(
    client: LanguageClient, workspace: Path
) -> None:
    """A document or an include over `max-file-size` is not analysed, and the finding says its size
    (the server used to analyse any buffer, and read includes up to the default 4 MiB)."""
    sub = workspace / "limited"
    sub.mkdir()
    config = 'select = ["HL"]\nmax-file-size = 0.002\n'  # 2,097 bytes
    (sub / "hlsllint.toml").write_text(config, encoding="utf-8")
    big = "float a;\n" * 300 + BAD
    size = f"{len(big):,} bytes"  # 2,757
    (sub / "big.hlsli").write_text(big, encoding="utf-8")
    uri = open_doc(client, sub / "big.hlsl", big)
    (d,) = await published(client, uri, lambda ds: len(ds) > 0)
    assert d.code == "HL004"
    assert d.message == f"Cannot lint file: file is {size}, over the 0.002 MiB limit (`max-file-size`)"
    path = str(sub / "big.hlsl")
    assert any(path in m.message and size in m.message for m in client.messages)
    change(client, uri, 2, None, BAD)  # under the limit again: analysed
    assert codes(await published(client, uri, lambda ds: codes(ds) == ["HL105"])) == ["HL105"]
    close_doc(client, uri)

    user = open_doc(client, sub / "user.hlsl", '#include "big.hlsli"\n' + BAD)
    diags = await published(client, user, lambda ds: len(ds) > 0)
    assert codes(diags) == ["HL003", "HL105"]
    assert "big.hlsli" in diags[0].message and f"{size}, over the 0.002 MiB limit" in diags[0].message
    close_doc(client, user)


async def test_no_pressure_view_past_the_time_budget(client: LanguageClient, workspace: Path) -> None:
    """A document whose lint ran out of its time budget (HL006) gets no register view: it was built
    anyway, with no limit (a hover on 50,000 nested `if`s answered after 13 s, compiled)."""
    sub = workspace / "hurried"
    sub.mkdir()
    (sub / "hlsllint.toml").write_text('select = ["HL"]\ntime-budget = 0.000001\n', encoding="utf-8")
    uri = open_doc(client, sub / "cs.hlsl", COMPUTE)
    assert codes(await published(client, uri, lambda ds: len(ds) > 0)) == ["HL006"]
    document = types.TextDocumentIdentifier(uri=uri)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=document, position=types.Position(line=10, character=4))
    )
    assert hover is None
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=document, range=rng(0, 0, 13, 0))
    )
    assert not hints
    summary = await client.protocol.send_request_async("hlsllint/pressure", {"textDocument": {"uri": uri}})
    assert not summary.entries and summary.current is None
    page = await client.protocol.send_request_async("hlsllint/pressurePage", {"textDocument": {"uri": uri}})
    assert page is None
    close_doc(client, uri)
