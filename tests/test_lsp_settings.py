"""The editor's settings (initializationOptions and workspace/didChangeConfiguration) and the
custom requests editors build on (`hlsllint/pressure`, `hlsllint/pressurePage`), end to end."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from test_lsp import HELPERS, close_doc, open_doc, published

pytestmark = pytest.mark.asyncio(loop_scope="module")

# HL105 fires only in the `#ifdef USE_SIGN` branch: it is reported when the editor defines it.
DEFINED = """\
float f(float x)
{
#ifdef USE_SIGN
    return sign(x) < 0 ? 1.0 : 2.0;
#else
    return x;
#endif
}
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ws")
    (root / "hlsllint.toml").write_text('select = ["HL"]\ntarget = "rdna2"\n', encoding="utf-8")
    (root / "editor.toml").write_text('select = ["HL"]\nwave-size = 64\n', encoding="utf-8")
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
            initialization_options={
                "diagnosticMode": "push",
                "debounceMs": 0,
                "hlsllint": {"target": "rdna3", "waveSize": 32, "defines": ["USE_SIGN"]},
            },
        )
    )
    yield
    await lsp_client.shutdown_session()


async def pressure(client: LanguageClient, uri: str, line: int | None = None) -> Any:
    params: dict[str, Any] = {"textDocument": {"uri": uri}}
    if line is not None:
        params["position"] = {"line": line, "character": 0}
    return await client.protocol.send_request_async("hlsllint/pressure", params)


def configure(client: LanguageClient, settings: dict[str, Any]) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"hlsllint": settings})
    )


async def test_initialization_options_and_pressure_request(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "defined.hlsl", DEFINED)
    # USE_SIGN comes from the editor's `defines`: the `sign` branch is active and reported.
    diags = await published(client, uri, lambda ds: len(ds) > 0)
    assert [d.code for d in diags] == ["HL105"]
    close_doc(client, uri)

    uri = open_doc(client, workspace / "helpers.hlsl", HELPERS)
    await published(client, uri, lambda ds: True)
    result = await pressure(client, uri, line=12)  # inside `blend`, which `main` inlines
    assert result.current == "main"
    (entry,) = result.entries
    assert (entry.name, entry.stage, entry.target, entry.waveSize) == ("main", "compute", "rdna3", 32)
    assert entry.vgprs > 0 and 0 < entry.waves <= entry.maxWaves
    assert isinstance(entry.limiter, str) and isinstance(entry.peakLine, int)
    page = await client.protocol.send_request_async("hlsllint/pressurePage", {"textDocument": {"uri": uri}})
    assert page.html.lstrip().lower().startswith("<!doctype html") and "main" in page.html

    # The settings change: a config file of the editor's (wave 64), the target of the nearest
    # config file (rdna2) and no define any more.
    configure(client, {"configFile": "editor.toml", "target": "", "waveSize": None, "defines": []})
    for _ in range(50):
        result = await pressure(client, uri)
        if result.entries and result.entries[0].waveSize == 64:
            break
    (entry,) = result.entries
    assert (entry.target, entry.waveSize) == ("rdna2", 64)
    assert result.current == "main"  # the only entry point
    close_doc(client, uri)

    uri = open_doc(client, workspace / "defined2.hlsl", DEFINED)
    assert list(await published(client, uri, lambda ds: True)) == []  # USE_SIGN is gone
    close_doc(client, uri)


async def test_bad_settings_are_said_and_left_out(client: LanguageClient, workspace: Path) -> None:
    configure(client, {"target": "rdna9", "waveSize": 48, "configFile": "missing.toml"})
    uri = open_doc(client, workspace / "bad.hlsl", HELPERS)
    await published(client, uri, lambda ds: True)
    result = await pressure(client, uri)
    (entry,) = result.entries
    assert (entry.target, entry.waveSize) == ("rdna2", 64)  # the config file's, the default wave
    shown = [m.message for m in client.messages]
    assert any("unknown target 'rdna9'" in m for m in shown)
    assert any("waveSize: 48 is not 32 or 64" in m for m in shown)
    assert any("missing.toml: config file not found" in m for m in shown)
    assert await pressure(client, (workspace / "not-open.hlsl").as_uri()) is None
    close_doc(client, uri)


async def test_only_the_servers_keys_are_settings() -> None:  # the module is asyncio-marked
    """VS Code sends its whole `hlsllint` section (with `path`, `pressureHints`): the same
    server settings with other keys beside them are no change (no reload, no relint)."""
    from hlsllint.server.client_settings import settings_from

    init = settings_from({"pressureHints": True, "hlsllint": {"target": "rdna3", "defines": []}})
    change = settings_from(
        {"hlsllint": {"path": "/x/hlsllint", "pressureHints": True, "target": "rdna3", "defines": []}}
    )
    assert init == change == {"target": "rdna3", "defines": []}
    assert settings_from({"waveSize": 32, "debounceMs": 5}) == {"waveSize": 32}
    assert settings_from(None) is None and settings_from([1]) is None
