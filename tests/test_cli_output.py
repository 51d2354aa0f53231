"""What a newcomer reads in the first hour: JUnit counts of info findings, the summary lines (hidden
fixes with --diff, N = 1), SARIF help and URIs, `rule --all` columns, an empty folder, the TOML of
--show-settings, the --statistics total."""

from __future__ import annotations

import json
import re
import tomllib
import urllib.parse
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import run_cli as run
from junitparser import Failure, JUnitXml

from hlsllint.config import OPTIONS, load_config_file
from hlsllint.registry import all_rules

DATA = Path(__file__).parent / "data"
SARIF_SCHEMA = json.loads((DATA / "sarif-2.1.0.json").read_text(encoding="utf-8"))  # = shared/schemas'

WARNING = "float f(float x)\n{\n    return sign(x) < 0 ? 1.0 : 2.0;\n}\n"  # HL105, a safe fix
UNPARSED = "float f(float x)\n{\n    @@@ $$$ ;;; }}}\n    return x;\n}\n"  # HL000, info
UNSAFE_ONLY = "float3 g(float3 n, float s) { return n * sign(s); }\n"  # HL105 with an unsafe fix


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()  # the SARIF root
    (tmp_path / "shaders").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- junit -----------------------------------------------------------------------------------------


def test_junit_info_findings_are_not_failures(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "shaders" / "info.hlsl").write_text(UNPARSED)
    (project / "shaders" / "warn.hlsl").write_text(WARNING)
    code, _, _ = run(capsys, "shaders", "--no-cache", "--output-format", "junit", "-o", "junit.xml")
    assert code == 1
    xml = JUnitXml.fromfile(str(project / "junit.xml"))
    suites = {s.name: s for s in xml}
    info = suites["shaders/info.hlsl"]
    assert info.tests == 3 and info.failures == 0  # three HL000 regions
    assert all(not isinstance(r, Failure) for case in info for r in case.result)
    assert all("HL000" in (case.system_out or "") for case in info)
    assert suites["shaders/warn.hlsl"].failures == 1
    assert xml.tests == 4 and xml.failures == 1

    # Only info findings: the run exits 0, and the report has no failure either.
    (project / "shaders" / "warn.hlsl").unlink()
    code, _, _ = run(capsys, "shaders", "--no-cache", "--output-format", "junit", "-o", "junit.xml")
    assert code == 0
    assert JUnitXml.fromfile(str(project / "junit.xml")).failures == 0


# -- summary lines -------------------------------------------------------------------------------


def test_diff_with_only_unsafe_fixes_names_the_hidden_fixes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "shaders" / "mul.hlsl").write_text(UNSAFE_ONLY)
    code, out, err = run(capsys, "shaders", "--no-cache")
    assert "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)." in out
    code, out, err = run(capsys, "shaders", "--no-cache", "--diff")
    assert code == 0 and out == ""
    assert "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)." in err
    # a safe fix beside it: the diff, and the hidden one named with it
    (project / "shaders" / "warn.hlsl").write_text(WARNING)
    code, out, err = run(capsys, "shaders", "--no-cache", "--diff")
    assert code == 1 and "+    return x < 0 ? 1.0 : 2.0;" in out
    assert "Would fix 1 finding (1 hidden fix can be enabled with the `--unsafe-fixes` option)." in err


def test_summary_lines_for_one(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "shaders" / "mul.hlsl").write_text(UNSAFE_ONLY)
    (project / "shaders" / "warn.hlsl").write_text(WARNING)
    _, out, _ = run(capsys, "shaders", "--no-cache")
    assert "Found 2 warnings.\n[*] 1 fixable with the `--fix` option (1 hidden fix can be enabled" in out
    _, out, _ = run(capsys, "shaders/warn.hlsl", "--no-cache", "--fix")
    assert "Fixed 1 finding; none remaining." in out
    _, _, err = run(capsys, "shaders/mul.hlsl", "--no-cache", "--verbose")
    assert "time per stage over 1 unit:" in err
    assert not re.search(r"\b1 [a-z ]*(fixes|findings|warnings|units|directives)\b", out + err)


# -- SARIF ------------------------------------------------------------------------------------------


def _sarif(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code, out, _ = run(capsys, *args, "--no-cache", "--output-format", "sarif")
    assert code in (0, 1)
    log: dict[str, Any] = json.loads(out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    return log


def test_sarif_help_text_is_plain_and_markdown_is_markdown(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "shaders" / "warn.hlsl").write_text(WARNING)
    rules = _sarif(capsys, "shaders")["runs"][0]["tool"]["driver"]["rules"]
    docs = {r.code: r.documentation() for r in all_rules()}
    assert {r["id"] for r in rules} == set(docs)
    for r in rules:
        text, markdown = r["help"]["text"], r["help"]["markdown"]
        assert markdown == docs[r["id"]]
        assert not re.search(r"```|\*\*|^#+ |`", text, re.M), (r["id"], text)
        assert text.startswith(f"{r['name']} ({r['id']})\n")
    hl105 = next(r for r in rules if r["id"] == "HL105")["help"]["text"]
    assert "\n        if (sign(facing) < 0)\n" in hl105  # the example, indented as a code block
    assert "Default severity: warning\nFix: sometimes\n" in hl105


def test_sarif_uris_are_relative_to_a_declared_srcroot(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (project / "shaders" / "a b.hlsl").write_text(WARNING)
    outside = tmp_path_factory.mktemp("elsewhere") / "x.hlsl"
    outside.write_text(WARNING)
    (project / "shaders" / "sub").mkdir()
    monkeypatch.chdir(project / "shaders" / "sub")  # run from below the root: URIs stay root-relative
    log = _sarif(capsys, "..", str(outside))
    run_ = log["runs"][0]
    base = run_["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == project.as_uri() + "/"
    seen = {}
    for result in run_["results"]:
        loc = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert ".." not in loc["uri"]
        if "uriBaseId" in loc:
            assert loc["uriBaseId"] == "%SRCROOT%"
            full = urllib.parse.urljoin(base, loc["uri"])
        else:
            full = loc["uri"]
            assert full.startswith("file:///")
        seen[full] = loc
        for fix in result.get("fixes", []):
            for change in fix["artifactChanges"]:
                assert change["artifactLocation"] == loc
    assert set(seen) == {(project / "shaders" / "a b.hlsl").as_uri(), outside.as_uri()}
    assert seen[(project / "shaders" / "a b.hlsl").as_uri()]["uri"] == "shaders/a%20b.hlsl"


# -- rule --all, an empty folder, --statistics ---------------------------------------------------------


def test_rule_all_columns_line_up(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rule", "--all")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == len(all_rules())
    columns = set()
    for r, line in zip(all_rules(), lines, strict=True):
        name_at = line.index(r.name)
        severity_at = line.index(r.severity.value, name_at + len(r.name))
        summary_at = line.index(r.summary.strip().splitlines()[0])
        columns.add((name_at, severity_at, summary_at))
    assert len(columns) == 1, columns  # each column starts at the same offset on every line


def test_empty_folder_warns_that_no_file_was_found(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "empty").mkdir()
    (project / "empty" / "notes.txt").write_text("not a shader")
    code, out, err = run(capsys, "empty", "--no-cache")
    assert code == 0 and "All checks passed!" in out
    assert "hlsllint: warning: No HLSL files found under empty (extensions: .hlsl, .hlsli, .fx, .fxh;" in err
    (project / "empty" / "a.hlsl").write_text(WARNING)
    _, _, err = run(capsys, "empty", "--no-cache")
    assert "No HLSL files found" not in err


def test_statistics_end_with_a_total(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "shaders" / "warn.hlsl").write_text(WARNING + WARNING.replace("f(", "g("))
    (project / "shaders" / "info.hlsl").write_text(UNPARSED)
    code, out, _ = run(capsys, "shaders", "--no-cache", "--statistics")
    assert code == 1
    assert out.splitlines() == [
        "    3\tHL000\t    unparsed-region",
        "    2\tHL105\t[*] sign-for-sign-bit",
        "    5\ttotal",
    ]


# -- --show-settings is TOML -------------------------------------------------------------------------


def test_show_settings_is_toml_that_reads_back_as_the_same_settings(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "include").mkdir()
    (project / "hlsllint.toml").write_text(
        'extend-select = ["HL2"]\n'
        'include-dirs = ["include"]\n'
        "force-exclude = true\n"
        'entry-points = ["Main\\"Quoted"]\n'
        '[defines]\nUSE_SHADOWS = 1\nNAME = "caf\u00e9 \\u007f"\n'
        '[per-file-ignores]\n"legacy/*.hlsl" = ["HL105"]\n'
        '[variants]\n"uber_*.hlsl" = [{ SHADOWS = "0" }, { SHADOWS = "1", FOG = "1" }]\n'
        "[rule-options.HL201]\nmin-occupancy = 0.25\n",
        encoding="utf-8",
    )
    (project / "shaders" / "warn.hlsl").write_text(WARNING)
    code, out, _ = run(capsys, "--show-settings", "shaders/warn.hlsl", "--wave-size", "32")
    assert code == 0
    table = tomllib.loads(out)
    assert set(table) == set(OPTIONS) - {"compile-commands"}  # unset: a comment, not `null`
    assert re.search(r"^# compile-commands: not set  # default$", out, re.M)
    assert table["wave-size"] == 32 and re.search(r"^wave-size = 32  # command line$", out, re.M)
    assert table["defines"] == {"USE_SHADOWS": "1", "NAME": "caf\u00e9 \x7f"}
    assert table["variants"] == {"uber_*.hlsl": [{"SHADOWS": "0"}, {"SHADOWS": "1", "FOG": "1"}]}
    assert table["rule-options"] == {"HL201": {"min-occupancy": 0.25}}
    # Read back as a config file, the printed settings are the settings.
    copy = project / "copy" / "hlsllint.toml"
    copy.parent.mkdir()
    copy.write_text(out, encoding="utf-8")
    printed = load_config_file(copy)
    original = load_config_file(project / "hlsllint.toml")
    for field in (key.replace("-", "_") for key in OPTIONS):
        if field != "wave_size":
            assert getattr(printed, field) == getattr(original, field), field

    code, out, _ = run(capsys, "--show-settings", "shaders/warn.hlsl")
    assert "# wave-size: not set, so the target's default (64)  # default" in out
    tomllib.loads(out)
