"""Configuration discovery, validation and its effect on a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hlsllint.cli import main
from hlsllint.config import ConfigError, ConfigResolver, load_config_file

BAD = "float f(float x) { return sign(x) < 0; }\n"


def lint_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, object]], str]:
    code = main([*args, "--output-format", "json", "-j", "1"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else []), err


def test_closest_config_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.hlsllint]\nignore = ["HL105"]\n')
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "hlsllint.toml").write_text('select = ["HL1"]\n')
    (tmp_path / "a.hlsl").write_text(BAD)
    (sub / "b.hlsl").write_text(BAD)
    monkeypatch.chdir(tmp_path)
    code, data, _ = lint_json(capsys, ".")
    assert code == 1 and [d["filename"] for d in data] == [str(sub / "b.hlsl")]


def test_pyproject_without_table_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text("[tool.other]\n")
    (tmp_path / ".hlsllint.toml").write_text('target = "gcn"\n')
    s = ConfigResolver().for_path(str(tmp_path / "sub" / "x.hlsl"))
    assert s.target == "gcn" and s.config_path == str(tmp_path / ".hlsllint.toml")


def test_cli_beats_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "hlsllint.toml").write_text('ignore = ["HL105"]\ntarget = "gcn"\n')
    (tmp_path / "a.hlsl").write_text(BAD)
    monkeypatch.chdir(tmp_path)
    assert lint_json(capsys, "a.hlsl")[0] == 0
    assert lint_json(capsys, "a.hlsl", "--extend-select", "HL105")[0] == 1
    r = ConfigResolver(overrides={"target": "rdna3"})
    assert r.for_path(str(tmp_path / "a.hlsl")).target == "rdna3"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("select = [", "invalid TOML"),
        ("selekt = []", "unknown key `selekt`"),
        ('select = "HL1"', "`select` must be a list of strings"),
        ('target = "rdna9"', "`target` must be one of"),
        ("wave-size = 48", "`wave-size` must be one of"),
        ('[per-file-ignores]\n"*.hlsl" = "HL105"', "`per-file-ignores.*.hlsl` must be a list"),
        ("[rule-options.HL999]\nx = 1", "rule-options.HL999"),
        ('[variants]\n"*.hlsl" = [1]', "`variants.*.hlsl` must be a list of define tables"),
    ],
)
def test_broken_config_names_file_and_key(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    content: str,
    message: str,
) -> None:
    cfg = tmp_path / "hlsllint.toml"
    cfg.write_text(content + "\n")
    (tmp_path / "a.hlsl").write_text(BAD)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"hlsllint\.toml"):
        load_config_file(cfg)
    code, _, err = lint_json(capsys, "a.hlsl")
    assert code == 2 and message in err and str(cfg) in err


def test_per_file_ignores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "hlsllint.toml").write_text('[per-file-ignores]\n"legacy/*" = ["HL105"]\n')
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "old.hlsl").write_text(BAD)
    (tmp_path / "new.hlsl").write_text(BAD)
    monkeypatch.chdir(tmp_path)
    _, data, _ = lint_json(capsys, ".")
    assert [Path(str(d["filename"])).name for d in data] == ["new.hlsl"]


def test_exclude_and_extensions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "hlsllint.toml").write_text('extend-exclude = ["gen/"]\nextensions = ["hlsl", "frag"]\n')
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "x.hlsl").write_text(BAD)
    (tmp_path / "a.frag").write_text(BAD)
    (tmp_path / "b.fx").write_text(BAD)
    monkeypatch.chdir(tmp_path)
    assert main([".", "--show-files"]) == 0
    assert capsys.readouterr().out.split() == ["a.frag"]


def test_defines_and_include_dirs_from_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "common.hlsli").write_text("#define TEST(x) (sign(x) < 0)\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.hlsl").write_text(
        '#include "common.hlsli"\n#if FAST\nbool f(float x) { return sign(x) > 0; }\n#endif\n'
    )
    (tmp_path / "hlsllint.toml").write_text('include-dirs = ["inc"]\n[defines]\nFAST = 1\n')
    monkeypatch.chdir(tmp_path)
    code, data, _ = lint_json(capsys, "src")
    assert code == 1 and [(d["code"], d["location"]["row"]) for d in data] == [("HL105", 3)]


def test_missing_include_is_reported_and_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.hlsl").write_text('#include "nowhere.hlsli"\n' + BAD)
    monkeypatch.chdir(tmp_path)
    _, data, _ = lint_json(capsys, "a.hlsl")
    assert sorted(str(d["code"]) for d in data) == ["HL002", "HL105"]


def test_variants_analyse_each_define_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "hlsllint.toml").write_text('[variants]\n"uber*.hlsl" = [{ MODE = "0" }, { MODE = "1" }]\n')
    (tmp_path / "uber.hlsl").write_text(
        "#if MODE == 1\nfloat f(float x) { return sign(x) < 0; }\n"
        "#else\nfloat f(float x) { return x; }\n#endif\n"
    )
    monkeypatch.chdir(tmp_path)
    _, data, _ = lint_json(capsys, ".")
    assert [(d["location"]["row"], d.get("variant")) for d in data] == [(2, "MODE=1")]
