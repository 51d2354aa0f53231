"""One table of GPU targets (`hlsllint.targets`): names, aliases and chip names accepted wherever
a target is set (command line, config, editor), resolved once into the settings, and a wave size
the target does not run is an error, never a silent wave64."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from hlsllint.config import ConfigError, ConfigResolver, Settings, load_config_file
from hlsllint.server.client_settings import resolver_for
from hlsllint.targets import ALIASES, TARGETS, accepted_names, resolve_settings, resolve_target

SHADER = """\
RWStructuredBuffer<float4> dst : register(u0);
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) { dst[i] = float4(i, 0, 0, 1); }
"""


@pytest.mark.parametrize(
    ("name", "target"),
    [
        ("navi21", "rdna2"),
        ("NAVI21", "rdna2"),
        ("gfx1030", "rdna2"),
        ("gfx1100", "rdna3"),
        ("navi31", "rdna3"),
        ("navi10", "rdna1"),
        ("gfx1010", "rdna1"),
        ("polaris10", "polaris"),
        ("vega10", "gcn"),
        ("gfx9", "gcn"),
        ("hawaii", "gfx6"),
    ],
)
def test_chip_names_and_aliases_resolve_to_a_target(name: str, target: str) -> None:
    assert resolve_target(name).name == target
    assert Settings(target=name).target == target  # resolved once, into the settings


def test_every_accepted_name_resolves() -> None:
    names = accepted_names()
    assert {"navi21", "gfx1030", "gfx1100", "rdna2", "gcn"} <= set(names)
    for n in names:
        assert resolve_target(n).name in TARGETS


def test_a_wave_size_the_target_does_not_run_is_an_error() -> None:
    assert resolve_settings("navi21", 32) == ("rdna2", 32)
    with pytest.raises(ValueError, match="runs only wave64, not wave32"):
        resolve_settings("gcn", 32)
    with pytest.raises(ConfigError, match="runs only wave64"):
        Settings(target="gcn", wave_size=32)
    with pytest.raises(ConfigError, match="runs only wave64"):
        ConfigResolver(overrides={"target": "polaris", "wave_size": 32}).for_path("x.hlsl")


@pytest.mark.parametrize("command", [(), ("pressure",)])
def test_cli_accepts_the_chip_names_the_docs_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    f = tmp_path / "s.hlsl"
    f.write_text(SHADER)
    args = [*command, str(f), "--target", "navi21", "--output-format", "json"]
    code, out, err = run_cli(capsys, *args)
    assert code in (0, 1), err
    if command:
        assert json.loads(out)[0]["target"] == "rdna2"


@pytest.mark.parametrize("command", [(), ("pressure",)])
def test_cli_gcn_with_wave32_exits_2_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    f = tmp_path / "s.hlsl"
    f.write_text(SHADER)
    code, out, err = run_cli(capsys, *command, str(f), "--target", "gcn", "--wave-size", "32")
    assert code == 2
    assert "--target gcn --wave-size 32" in err and "runs only wave64" in err
    assert out == ""


def test_cli_unknown_target_lists_the_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "s.hlsl"
    f.write_text(SHADER)
    with pytest.raises(SystemExit) as stop:
        run_cli(capsys, "pressure", str(f), "--target", "navi99")
    assert stop.value.code == 2
    assert "unknown target 'navi99'" in capsys.readouterr().err


def test_config_accepts_chip_names_and_rejects_gcn_wave32(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = tmp_path / "hlsllint.toml"
    cfg.write_text('target = "gfx1030"\nwave-size = 32\n')
    assert load_config_file(cfg).target == "rdna2"
    cfg.write_text('target = "gcn"\nwave-size = 32\n')
    with pytest.raises(ConfigError, match=r"hlsllint\.toml: `wave-size = 32`: .*runs only wave64"):
        load_config_file(cfg)
    # the target from the file, the wave size from the command line
    cfg.write_text('target = "vega10"\n')
    f = tmp_path / "s.hlsl"
    f.write_text(SHADER)
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, "pressure", "s.hlsl", "--wave-size", "32")
    assert code == 2 and "runs only wave64" in err
    code, _, err = run_cli(capsys, "pressure", "s.hlsl", "--config", "wave-size=32")
    assert code == 2 and "runs only wave64" in err


def test_editor_settings_accept_chip_names_and_say_what_does_not_fit() -> None:
    resolver, errors = resolver_for({"target": "navi21", "waveSize": 32}, None)
    assert errors == []
    assert resolver.for_path("x.hlsl").target == "rdna2"
    assert resolver.for_path("x.hlsl").wave_size == 32
    resolver, errors = resolver_for({"target": "gcn", "waveSize": 32}, None)
    assert len(errors) == 1 and "runs only wave64" in errors[0]
    assert resolver.for_path("x.hlsl").wave_size is None  # left out, and said
    _, errors = resolver_for({"target": "navi99"}, None)
    assert errors and "unknown target 'navi99'" in errors[0]


def test_target_facts_live_in_one_module() -> None:
    """No other module spells a chip name or an alias: they are all in `hlsllint.targets`."""
    spelled = set(ALIASES)
    for t in TARGETS.values():
        spelled |= set(t.chips)
    found = []
    for path in [*(ROOT / "hlsllint").rglob("*.py"), *(ROOT / "rules").glob("*.py")]:
        if path.name == "targets.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in spelled:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert found == []


def test_the_analyses_never_fall_back_to_another_wave_size() -> None:
    from hlsllint.targets import WaveSizeError

    assert resolve_target("gcn").wave_for(None) == 64
    assert resolve_target("rdna2").wave_for(32) == 32
    with pytest.raises(WaveSizeError):
        resolve_target("gcn").wave_for(32)
