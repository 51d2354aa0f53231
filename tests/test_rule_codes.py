"""Rule codes wherever they are accepted (--select, --extend-select, --ignore, the config keys that
take codes, third-party rules): an unknown one is an error with a suggestion (exit 2), as in ruff,
never a silent selection of no rule; `// noqa` stays lenient and HL001 names its unknown codes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_cli as run

from hlsllint.registry import all_rules, rule_by_code

BAD = "float f(float x)\n{\n    return sign(x) < 0 ? 1.0 : 2.0;\n}\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "bad.hlsl").write_text(BAD)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("flag", "value", "hint"),
    [
        ("--select", "HL1O5", "did you mean `HL105`?"),  # the letter O
        ("--select", "E501", "see `hlsllint rule --all`"),  # another linter's code
        ("--select", "HL105,hl1o5", "did you mean `HL105`?"),
        ("--extend-select", "HL2O1", "did you mean `HL201`?"),
        ("--ignore", "HL1O4", "did you mean `HL104`?"),
        ("--ignore", "HL9", "did you mean"),  # a prefix of no rule
    ],
)
def test_unknown_code_on_the_command_line_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str, hint: str
) -> None:
    code, out, err = run(capsys, "bad.hlsl", "--no-cache", flag, value)
    assert code == 2
    assert "All checks passed" not in out
    assert f"hlsllint: error: {flag}: unknown rule code" in err and hint in err


@pytest.mark.parametrize("selector", ["HL105", "hl105", "HL1", "HL10", "HL", "ALL", "all"])
def test_codes_and_prefixes_of_known_rules_select(
    project: Path, capsys: pytest.CaptureFixture[str], selector: str
) -> None:
    code, out, _ = run(capsys, "bad.hlsl", "--no-cache", "--select", selector)
    assert code == 1 and "HL105" in out


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ('select = ["HL1O5"]\n', "`select`"),
        ('extend-select = ["HL1O5"]\n', "`extend-select`"),
        ('ignore = ["HL1", "HL1O5"]\n', "`ignore`"),
        ('[per-file-ignores]\n"legacy/*" = ["HL1O5"]\n', "`per-file-ignores.legacy/*`"),
    ],
)
def test_unknown_code_in_a_config_file_names_the_file_and_key(
    project: Path, capsys: pytest.CaptureFixture[str], toml: str, key: str
) -> None:
    (project / "hlsllint.toml").write_text(toml)
    code, out, err = run(capsys, "bad.hlsl", "--no-cache")
    assert code == 2 and "All checks passed" not in out
    assert f"{project / 'hlsllint.toml'}: {key}: unknown rule code `HL1O5` (did you mean `HL105`?)" in err


def test_unknown_code_in_pyproject_and_inline_config(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text('[tool.hlsllint]\nselect = ["E501"]\n')
    code, _, err = run(capsys, "bad.hlsl", "--no-cache")
    assert code == 2 and "pyproject.toml: `select`: unknown rule code `E501`" in err
    (project / "pyproject.toml").write_text('[tool.hlsllint]\nselect = ["HL1"]\n')
    code, _, err = run(capsys, "bad.hlsl", "--no-cache", "--config", 'ignore=["HL1O5"]')
    assert code == 2 and "`ignore`: unknown rule code `HL1O5` (did you mean `HL105`?)" in err


def test_unknown_rule_in_rule_options_suggests_a_code(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "hlsllint.toml").write_text("[rule-options.HL2O1]\n")
    code, _, err = run(capsys, "bad.hlsl", "--no-cache")
    assert code == 2 and "`rule-options.HL2O1`: unknown rule (did you mean `HL201`?)" in err


PLUGIN = """
from hlsllint.rule import Rule


class NoDiscard(Rule):
    code = "XY100"
    name = "xy-no-discard"
    summary = "A test plugin rule."
    rationale = "For the tests."
    bad_example = ""
    good_example = ""
"""


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A third-party rule package installed on sys.path, registered under `hlsllint.rules`."""
    site = tmp_path / "site"
    info = site / "xy_rules-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: xy-rules\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[hlsllint.rules]\nxy = xy_rules\n")
    (site / "xy_rules.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(site))
    all_rules.cache_clear()
    rule_by_code.cache_clear()
    yield
    monkeypatch.undo()
    all_rules.cache_clear()
    rule_by_code.cache_clear()


def test_codes_of_installed_plugins_are_known(
    project: Path, plugin: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "XY100" in rule_by_code()
    code, out, err = run(capsys, "bad.hlsl", "--no-cache", "--select", "XY1")
    assert code == 0 and "All checks passed!" in out, err
    (project / "hlsllint.toml").write_text('extend-select = ["XY100"]\n')
    code, out, err = run(capsys, "bad.hlsl", "--no-cache", "--ignore", "XY10O")
    assert code == 2 and "unknown rule code `XY10O` (did you mean `XY100`?)" in err


def test_noqa_with_a_mistyped_code_suppresses_nothing_and_hl001_says_so(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "bad.hlsl").write_text(BAD.replace("2.0;", "2.0; // noqa: HL1O5"))
    code, out, _ = run(capsys, "bad.hlsl", "--no-cache", "--output-format", "concise")
    assert code == 1
    assert "bad.hlsl:3:12: HL105" in out
    assert "HL001 [*] Unused `noqa` directive (unknown code: HL1O5; did you mean `HL105`?)" in out
    (project / "bad.hlsl").write_text(BAD.replace("2.0;", "2.0; // noqa: E501, HL105"))
    code, out, _ = run(capsys, "bad.hlsl", "--no-cache", "--output-format", "concise")
    assert "bad.hlsl:3:12: HL105" not in out  # the known code still suppresses
    assert "Unused `noqa` directive (unknown code: E501)" in out
