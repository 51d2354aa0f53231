"""The language server under a slow document: other documents are not held up behind it, and an
edit cancels its stale analysis (a pytest-lsp client talks to `hlsllint server`)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import hostile
import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from test_lsp import BAD, change, codes, open_doc, published

pytestmark = pytest.mark.asyncio(loop_scope="module")


def slow_shader(entries: int = 8, loops: int = 20) -> str:
    """A legitimate shader that takes seconds to analyse: many entry points of many loops (not a
    pathological one that a depth bound would cut short)."""
    parts = [
        "RWStructuredBuffer<float4> Out : register(u0);\nTexture2D<float4> Tex : register(t0);\n"
        "SamplerState S : register(s0);\ncbuffer C : register(b0) { uint n; }\n"
    ]
    for e in range(entries):
        body = "\n".join(
            f"    for (uint i{j} = 0; i{j} < n; ++i{j})"
            f" {{ acc += Tex.SampleLevel(S, float2(i{j}, {e}) / 64.0, 0) * {j + 1}.0;"
            f" if (acc.x > {j}) acc.y += acc.z; }}"
            for j in range(loops)
        )
        parts.append(
            f"[numthreads(64, 1, 1)]\nvoid main{e}(uint3 id : SV_DispatchThreadID)\n{{\n"
            f"    float4 acc = 0;\n{body}\n    Out[id.x] = acc;\n}}\n"
        )
    return "".join(parts)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("slow")
    # No time budget: the slow document runs until it is done or cancelled.
    (root / "hlsllint.toml").write_text('select = ["HL"]\ntime-budget = 0\n', encoding="utf-8")
    return root


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[str(Path(sys.executable).with_name("hlsllint")), "server"]),
)
async def client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[None]:
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=workspace.as_uri(),
            initialization_options={"diagnosticMode": "push", "debounceMs": 0},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def stats(client: LanguageClient) -> dict[str, Any]:
    found = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="hlsllint.stats"))
    assert isinstance(found, dict)
    return found


async def running(client: LanguageClient, uri: str) -> None:
    """Wait until the server is analysing `uri`."""
    while uri not in (await stats(client)).get("running", ()):
        await asyncio.sleep(0.02)


async def test_a_slow_document_holds_up_no_other(client: LanguageClient, workspace: Path) -> None:
    """While a slow document is analysed, another one opened after it gets its diagnostics (they
    used to wait in one queue behind it)."""
    slow = open_doc(client, workspace / "slow.hlsl", slow_shader())
    quick = open_doc(client, workspace / "quick.hlsl", BAD)
    assert codes(await published(client, quick, lambda ds: len(ds) > 0, timeout=60)) == ["HL105"]
    assert slow not in client.diagnostics, "the slow document finished first"
    assert slow in (await stats(client))["running"]
    change(client, slow, 2, None, BAD)  # done with it: a small text, cancelling the slow run
    assert codes(await published(client, slow, lambda ds: len(ds) > 0, timeout=60)) == ["HL105"]


async def test_an_edit_cancels_the_stale_analysis(client: LanguageClient, workspace: Path) -> None:
    """An edit to a document being analysed stops that analysis (`cancelled` in the stats) and
    the new version is analysed at once, not after the stale one ran to its end. An analysis
    that ends between the look that saw it running and the edit's arrival has nothing to stop
    (seen under load): a new document is tried then (at most five), so the test waits for a
    stop instead of racing one, and still fails if no edit ever stops an analysis."""
    before = (await stats(client)).get("cancelled", 0)
    for attempt in range(5):
        slow = open_doc(client, workspace / f"stale{attempt}.hlsl", slow_shader(entries=40))
        await asyncio.wait_for(running(client, slow), 30)
        change(client, slow, 2, None, BAD)
        assert codes(await published(client, slow, lambda ds: len(ds) > 0, timeout=60)) == ["HL105"]
        if (await stats(client)).get("cancelled", 0) > before:
            break
    assert (await stats(client)).get("cancelled", 0) == before + 1
    assert slow not in (await stats(client))["running"]


async def test_an_edit_cancels_the_preparation_of_the_first_edits(
    client: LanguageClient, workspace: Path
) -> None:
    """After a lint from scratch the server prepares the document's first edits in the
    background (`incremental.prepare`: the unit blanked as an edit in each entry point blanks
    it); an edit meanwhile cancels that (`cancelled` in the stats) and is linted incrementally
    from the snapshot at once, not after the preparation ran to its end."""
    probe = "    float p = 0.5; p = sign(p) < 0 ? 1.0 : 0.0;\n"
    # one entry point: the preparation lints it again (1.3 s of CPU idle, against 1.5 s for the lint)
    text = slow_shader(entries=1, loops=400).replace(
        "    float4 acc = 0;\n", "    float4 acc = 0;\n" + probe, 1
    )
    before = await stats(client)
    uri = open_doc(client, workspace / "prepared.hlsl", text)
    assert codes(await published(client, uri, lambda ds: len(ds) > 0, timeout=120)) == ["HL105"]
    await asyncio.wait_for(running(client, uri), 30)  # its lint is out: the preparation runs
    change(client, uri, 2, None, text.replace(probe, probe + probe, 1))
    assert codes(await published(client, uri, lambda ds: len(ds) > 1, timeout=120)) == ["HL105", "HL105"]
    after = await stats(client)
    assert after["cancelled"] == before["cancelled"] + 1
    assert after["relints"] == before["relints"] + 1
    assert uri not in after["running"]


async def analysing(client: LanguageClient, uri: str, probes: int) -> bool:
    """Wait until the server analyses `uri` (True), or has published the version with `probes`
    findings already (False: its analysis ended between two looks)."""
    while uri not in (await stats(client)).get("running", ()):
        if len(client.diagnostics.get(uri, ())) == probes:
            return False
        await asyncio.sleep(0.02)
    return True


async def test_an_edit_cancels_the_stale_incremental_lint(client: LanguageClient, workspace: Path) -> None:
    """An edit while the last edit's incremental lint runs stops that lint (`cancelled` in the
    stats) and is linted incrementally from the same snapshot, the last version analysed to the
    end: only the newer version's diagnostics are published. An incremental lint is short, and
    one that ends before the edit reaches the server has nothing to stop: the edit pair is sent
    again then (at most five times), so the test waits for a stop instead of racing one."""
    probe = "    float p = 0.5; p = sign(p) < 0 ? 1.0 : 0.0;\n"
    text = slow_shader(entries=1, loops=400).replace(
        "    float4 acc = 0;\n", "    float4 acc = 0;\n" + probe, 1
    )
    uri = open_doc(client, workspace / "relinted.hlsl", text)
    assert codes(await published(client, uri, lambda ds: len(ds) > 0, timeout=120)) == ["HL105"]
    while uri in (now := await stats(client))["running"] or uri in now["preparing"]:
        await asyncio.sleep(0.05)  # the first edits prepared: nothing runs for it
    before = await stats(client)
    probes = 1
    for _attempt in range(5):
        probes += 1  # version `probes` has that many probes, and as many findings
        change(client, uri, probes, None, text.replace(probe, probe * probes, 1))
        if not await asyncio.wait_for(analysing(client, uri, probes), 30):
            continue
        probes += 1
        change(client, uri, probes, None, text.replace(probe, probe * probes, 1))
        found = await published(client, uri, lambda ds, n=probes: len(ds) == n, timeout=120)
        assert codes(found) == ["HL105"] * probes
        if (await stats(client))["cancelled"] > before["cancelled"]:
            break
    after = await stats(client)
    assert after["cancelled"] == before["cancelled"] + 1
    assert after["relints"] >= before["relints"] + 1
    assert after["fullLints"] == before["fullLints"]


@pytest.mark.parametrize("shape", ["ifs", "terms"])
async def test_deep_code_is_one_finding_and_other_documents_go_on(
    client: LanguageClient, workspace: Path, shape: str
) -> None:
    """Nested `if`s and a chain of terms nested deeper than the analyses follow (5,000 here; the
    50,000 of issue 23 in bench/lsp_responsiveness.py): one HL007 naming the function, and a
    document opened meanwhile is answered (hovered, linted) as usual."""
    deep = open_doc(client, workspace / f"deep-{shape}.hlsl", hostile.SHAPES[shape](5_000))
    other = open_doc(client, workspace / f"beside-{shape}.hlsl", BAD)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=other),
            position=types.Position(line=2, character=14),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "HL105" in hover.contents.value
    assert codes(await published(client, other, lambda ds: len(ds) > 0, timeout=60)) == ["HL105"]
    (d,) = await published(client, deep, lambda ds: len(ds) > 0, timeout=60)
    assert d.code == "HL007" and "nested 5,00" in d.message and "function `main` is not analysed" in d.message
