"""SARIF output: schema-valid, GitHub-ready (relative URIs, rules from metadata, fingerprints, fixes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from hlsllint import rule_url
from hlsllint.cli import main
from hlsllint.config import ConfigResolver
from hlsllint.driver import lint_paths
from hlsllint.output import sarif
from hlsllint.registry import find_rule

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-2.1.0.json").read_text(encoding="utf-8"))

SHADER = """\
#include "common.hlsli"

float f(float x, float y)
{
    if (sign(x) < 0)
        return 1;
    return y * sign(x);
}
"""
HEADER = """\
float g(float v)
{
    return sign(v) > 0 ? v : 0;
}
"""


def validate(log: dict[str, Any]) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(log)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    shaders = tmp_path / "shaders"
    shaders.mkdir()
    (shaders / "main.hlsl").write_text(SHADER, encoding="utf-8")
    (shaders / "common.hlsli").write_text(HEADER, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "shaders")  # URIs must still be relative to the git root
    return tmp_path


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[dict[str, Any], str]:
    code = main(["check", "--output-format", "sarif", *args])
    assert code in (0, 1)
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def test_cli_sarif_is_schema_valid_and_github_ready(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log, err = run_cli(capsys, "--select", "HL105", ".")
    validate(log)
    assert err == ""
    run = log["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["invocations"] == [{"executionSuccessful": True}]
    driver = run["tool"]["driver"]
    assert driver["name"] == "hlsllint"
    assert driver["informationUri"].startswith("https://")
    assert driver["version"]

    results = run["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {"shaders/main.hlsl", "shaders/common.hlsli"}  # the header finding is at the header
    for r in results:
        loc = r["locations"][0]["physicalLocation"]["artifactLocation"]
        assert loc["uriBaseId"] == "%SRCROOT%"
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"] == "HL105"
        assert r["level"] == "warning"
        assert r["partialFingerprints"]["primaryLocationLineHash"]


def test_rule_descriptor_from_metadata() -> None:
    rule = find_rule("HL105")
    assert rule is not None
    desc = sarif.rule_descriptor(rule)
    assert desc["id"] == "HL105"
    assert desc["name"] == "sign-for-sign-bit"
    assert desc["helpUri"] == rule_url("HL105")
    assert "if (sign(facing) < 0)" in desc["help"]["markdown"]  # the bad example
    assert "if (facing < 0)" in desc["help"]["markdown"]  # the good example
    assert desc["help"]["markdown"] == rule.documentation()
    assert desc["help"]["text"].startswith("sign-for-sign-bit (HL105)\n\nDefault severity: warning\n")
    assert desc["defaultConfiguration"]["level"] == "warning"
    assert desc["properties"] == {"tags": list(rule.tags), "precision": rule.precision}
    assert desc["shortDescription"]["text"].startswith("`sign(x)` compared")


def test_region_and_fix(repo: Path) -> None:
    result = lint_paths(["."], ConfigResolver(overrides={"select": ("HL105",)}), jobs=1)
    log, note = sarif.sarif_log(result.diagnostics, result.sources, root=str(repo))
    validate(log)
    assert note is None
    main_results = [
        r
        for r in log["runs"][0]["results"]
        if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "shaders/main.hlsl"
    ]
    first = main_results[0]
    # `sign(x) < 0` on line 5, columns 9..20 (1-based, exclusive end).
    assert first["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 5,
        "startColumn": 9,
        "endLine": 5,
        "endColumn": 20,
    }
    (fix,) = first["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "shaders/main.hlsl"
    (rep,) = change["replacements"]
    assert rep["insertedContent"]["text"] == "x < 0"
    region = rep["deletedRegion"]
    line = SHADER.splitlines()[region["startLine"] - 1]
    fixed = (
        line[: region["startColumn"] - 1] + rep["insertedContent"]["text"] + line[region["endColumn"] - 1 :]
    )
    assert fixed == "    if (x < 0)"
    assert fix["properties"]["applicability"] == "safe"
    assert main_results[1]["fixes"][0]["properties"]["applicability"] == "unsafe"


def _fingerprints(repo: Path) -> dict[str, str]:
    result = lint_paths(["."], ConfigResolver(overrides={"select": ("HL105",)}), jobs=1)
    log, _ = sarif.sarif_log(result.diagnostics, result.sources, root=str(repo))
    return {
        r["message"]["text"]: r["partialFingerprints"]["primaryLocationLineHash"]
        for r in log["runs"][0]["results"]
    }


def test_fingerprints_survive_unrelated_moves(repo: Path) -> None:
    before = _fingerprints(repo)
    main_hlsl = repo / "shaders" / "main.hlsl"
    main_hlsl.write_text("// a new comment\n\n" + SHADER.replace("if (sign", "if  (sign"), encoding="utf-8")
    after = _fingerprints(repo)
    assert before == after  # lines moved and whitespace changed: same alerts
    main_hlsl.write_text(SHADER.replace("sign(x) < 0", "sign(y) < 0"), encoding="utf-8")
    changed = _fingerprints(repo)
    assert set(changed.values()) != set(before.values())


def test_repeated_lines_get_occurrence_indexes(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    body = (
        "float f(float x)\n{\n    float a = sign(x) < 0;\n    float b = 0;\n"
        "    a = sign(x) < 0;\n    a = sign(x) < 0;\n    return a;\n}\n"
    )
    (tmp_path / "r.hlsl").write_text(body, encoding="utf-8")
    result = lint_paths([str(tmp_path)], ConfigResolver(overrides={"select": ("HL105",)}), jobs=1)
    log, _ = sarif.sarif_log(result.diagnostics, result.sources, root=str(tmp_path))
    prints = [r["partialFingerprints"]["primaryLocationLineHash"] for r in log["runs"][0]["results"]]
    assert len(prints) == 3
    assert prints[1].split(":")[0] == prints[2].split(":")[0] != prints[0].split(":")[0]
    assert [p.split(":")[1] for p in prints] == ["1", "1", "2"]


def test_truncation_is_reported(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sarif, "MAX_RESULTS", 1)
    log, err = run_cli(capsys, "--select", "HL105", ".")
    validate(log)
    run = log["runs"][0]
    assert len(run["results"]) == 1
    assert "truncated to 1 of 3 results" in err
    (notification,) = run["invocations"][0]["toolExecutionNotifications"]
    assert notification["level"] == "warning"
    assert "truncated" in notification["message"]["text"]


def test_size_limit(repo: Path) -> None:
    result = lint_paths(["."], ConfigResolver(overrides={"select": ("HL105",)}), jobs=1)
    full, _ = sarif.sarif_log(result.diagnostics, result.sources, root=str(repo))
    size = len(sarif.dumps(full).encode())
    log, note = sarif.sarif_log(result.diagnostics, result.sources, root=str(repo), max_bytes=size - 1)
    validate(log)
    assert note is not None
    assert len(log["runs"][0]["results"]) < 3
    assert len(sarif.dumps(log).encode()) <= size - 1


def test_paths_outside_the_repository_stay_relative(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert sarif.relative_path(str(tmp_path / "a b" / "x.hlsl"), str(tmp_path)) == "a b/x.hlsl"
    assert sarif.artifact_uri(str(tmp_path / "a b" / "x.hlsl"), str(tmp_path)) == "a%20b/x.hlsl"
    outside = sarif.relative_path("/elsewhere/x.hlsl", str(tmp_path / "repo"))
    assert not outside.startswith("/")


def test_empty_run_is_valid(tmp_path: Path) -> None:
    log, note = sarif.sarif_log([], {}, root=str(tmp_path))
    validate(log)
    assert log["runs"][0]["results"] == []
    assert note is None


def test_internal_errors_carry_relative_paths(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notification of a crashing rule named the file and hlsllint's own modules by their
    absolute paths (the runner's folders), where the results' URIs are relative."""
    rule = find_rule("HL105")
    assert rule is not None

    def crash(*_args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(rule, "visit", crash)
    code = main(["check", "--output-format", "sarif", "--no-cache", "-j", "1", str(repo / "shaders")])
    log = json.loads(capsys.readouterr().out)
    validate(log)
    (note,) = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    text = note["message"]["text"]
    assert code == 2 and "boom" in text
    assert text.startswith("rule HL105 (sign-for-sign-bit) crashed on shaders/main.hlsl:\n")
    assert str(repo) not in text and str(Path(sarif.__file__).parents[2]) not in text
    assert 'File "hlsllint/checker.py"' in text
