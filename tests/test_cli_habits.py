"""The ruff habits: --config KEY=VALUE, --show-settings, --add-noqa, --output-file,
--exit-non-zero-on-fix, --verbose, --watch, `hlsllint config`, the CI output formats, the summary."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from conftest import run_cli as run
from junitparser import Failure, JUnitXml

from hlsllint.config import table_changes
from hlsllint.config_options import OPTIONS

DATA = Path(__file__).parent / "data"
# HL105 (a warning with a safe fix) on row 3, and on row 8 a second one.
BAD = (
    "float f(float x)\n{\n    if (sign(x) < 0)\n        return 1;\n    return 0;\n}\n"
    "float g(float y)\n{ return sign(y) > 0 ? 1 : 0; }\n"
)
GOOD = "float f(float x)\n{\n    return x < 0 ? 1 : 0;\n}\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "shaders").mkdir()
    (tmp_path / "shaders" / "bad.hlsl").write_text(BAD)
    (tmp_path / "shaders" / "good.hlsl").write_text(GOOD)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HLSLLINT_CACHE_DIR", str(tmp_path / ".cache"))
    return tmp_path


# -- summary --------------------------------------------------------------------------------------


def test_summary_counts_by_severity(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "shaders", "--no-cache")
    assert code == 1
    assert "Found 2 warnings." in out
    assert "error" not in out.split("Found")[-1]


# -- --config KEY=VALUE -------------------------------------------------------------------------


def test_inline_config_overrides_the_config_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "hlsllint.toml").write_text('ignore = ["HL105"]\nwave-size = 64\n')
    code, out, _ = run(capsys, "shaders", "--no-cache")
    assert code == 0, out
    code, out, _ = run(capsys, "shaders", "--no-cache", "--config", "ignore=[]")
    assert code == 1 and "HL105" in out
    code, out, _ = run(capsys, "--show-settings", "shaders/bad.hlsl", "--config", "wave-size=32")
    assert code == 0
    assert re.search(r"^wave-size = 32  # --config wave-size$", out, re.M), out
    assert re.search(r"^ignore = \[\"HL105\"\]  # .*hlsllint\.toml$", out, re.M), out


def test_inline_config_bare_words_and_errors(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--show-settings", "shaders/bad.hlsl", "--config", "target=rdna3")
    assert code == 0 and 'target = "rdna3"  # --config target' in out
    code, _, err = run(capsys, "shaders", "--config", "wave-size=48")
    assert code == 2 and "wave-size" in err and "32, 64" in err
    code, _, err = run(capsys, "shaders", "--config", "no-such-key=1")
    assert code == 2 and "unknown key `no-such-key`" in err


def test_show_settings_names_every_origin(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text('[tool.hlsllint]\ntarget = "gcn"\n')
    code, out, _ = run(capsys, "--show-settings", "shaders/bad.hlsl", "--select", "HL1")
    assert code == 0
    assert f"Settings path: {project / 'pyproject.toml'}" in out
    assert re.search(r'^target = "gcn"  # .*pyproject\.toml$', out, re.M)
    assert re.search(r'^select = \["HL1"\]  # command line$', out, re.M)
    assert re.search(r"^time-budget = 10\.0  # default$", out, re.M)
    assert set(re.findall(r"^(?:# )?([a-z0-9-]+)(?: = |: not set)", out, re.M)) == set(OPTIONS)


# -- hlsllint config ------------------------------------------------------------------------------


def test_config_command_lists_and_documents_every_key(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "config")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == list(OPTIONS)
    code, out, _ = run(capsys, "config", "wave-size")
    assert code == 0 and "Type: 32 or 64" in out and "wave-size = 32" in out
    code, out, _ = run(capsys, "config", "--output-format", "json")
    assert set(json.loads(out)) == set(OPTIONS)
    code, _, err = run(capsys, "config", "wave")
    assert code == 2 and "unknown setting" in err


@pytest.mark.parametrize("key", sorted(OPTIONS))
def test_every_documented_key_is_read_with_its_example(key: str, tmp_path: Path) -> None:
    """`hlsllint config` and the config reader agree: each key's documented example is valid."""
    import tomllib

    (tmp_path / "compile_commands.json").write_text("[]")
    table = tomllib.loads(f"{key} = {OPTIONS[key].example}")
    changes = table_changes(tmp_path / "hlsllint.toml", table)
    assert changes, key


# -- --add-noqa -----------------------------------------------------------------------------------


def test_add_noqa_is_idempotent_and_merges(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = project / "shaders" / "bad.hlsl"
    text = path.read_text().replace("return 0;\n}\nfloat g", "return 0;\n}\nfloat g")
    lines = text.splitlines(keepends=True)
    lines[7] = lines[7].rstrip("\n") + " // noqa: HL101\n"
    path.write_text("".join(lines))
    code, _, err = run(capsys, "shaders", "--no-cache", "--add-noqa")
    assert code == 0 and "Added 2 noqa directives." in err
    new = path.read_text().splitlines()
    assert new[2].endswith("if (sign(x) < 0)  // noqa: HL105")
    assert new[7].endswith("// noqa: HL101, HL105")
    before = path.read_text()
    code, _, err = run(capsys, "shaders", "--no-cache", "--add-noqa")
    assert code == 0 and "Added 0 noqa directives." in err and path.read_text() == before
    code, out, _ = run(capsys, "shaders", "--no-cache", "--select", "HL105")
    assert code == 0, out


# -- --output-file, --exit-non-zero-on-fix, --verbose ------------------------------------------------


def test_output_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "shaders", "--no-cache", "--output-format", "json", "-o", "out/report.json")
    assert code == 1 and out == ""
    data = json.loads((project / "out" / "report.json").read_text())
    assert [d["code"] for d in data] == ["HL105", "HL105"]


def test_exit_non_zero_on_fix(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "shaders" / "bad.hlsl").write_text(BAD.split("float g")[0])
    code, _, _ = run(capsys, "shaders", "--no-cache", "--fix", "--exit-non-zero-on-fix")
    assert code == 1
    assert "sign(" not in (project / "shaders" / "bad.hlsl").read_text()
    code, _, _ = run(capsys, "shaders", "--no-cache", "--fix", "--exit-non-zero-on-fix")
    assert code == 0  # nothing left to fix


def test_verbose_names_config_and_stage_times(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "hlsllint.toml").write_text('target = "rdna3"\n')
    code, _, err = run(capsys, "shaders", "--no-cache", "-v", "-j", "1")
    assert code == 1
    line = next(x for x in err.splitlines() if "bad.hlsl" in x)
    assert f"config {project / 'hlsllint.toml'}" in line
    assert re.search(r"preprocessing and parsing \d+ ms", line), line
    assert "time per stage over 2 units" in err


# -- --watch ------------------------------------------------------------------------------------------


def test_watch_lints_again_after_a_change(project: Path) -> None:
    exe = Path(sys.executable).with_name("hlsllint")
    proc = subprocess.Popen(
        [str(exe), "shaders", "--watch", "--no-cache", "--output-format", "concise"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        seen: list[str] = []

        def read_until(marker: str) -> None:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                line = proc.stdout.readline()  # type: ignore[union-attr]
                seen.append(line)
                if marker in line:
                    return
            raise AssertionError(f"no {marker!r} in {seen}")

        read_until("Found 2 warnings.")
        time.sleep(0.1)
        (project / "shaders" / "bad.hlsl").write_text(GOOD)
        read_until("File change detected")
        read_until("All checks passed!")
    finally:
        proc.kill()
        proc.wait()


# -- output formats -----------------------------------------------------------------------------


def test_junit_is_read_by_a_junit_parser(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run(capsys, "shaders", "--no-cache", "--output-format", "junit", "-o", "junit.xml")
    assert code == 1
    xml = JUnitXml.fromfile(str(project / "junit.xml"))
    suites = list(xml)
    assert [s.name for s in suites] == ["shaders/bad.hlsl"]
    cases = list(suites[0])
    assert len(cases) == 2 and suites[0].failures == 2
    assert all(isinstance(r, Failure) for c in cases for r in c.result)
    assert cases[0].classname == "hlsllint.HL105"
    (project / "shaders" / "bad.hlsl").write_text(GOOD)
    run(capsys, "shaders", "--no-cache", "--output-format", "junit", "-o", "junit.xml")
    xml = JUnitXml.fromfile(str(project / "junit.xml"))
    assert xml.failures == 0 and xml.tests == 1


def test_junit_spells_out_characters_xml_cannot_hold(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A fuzzed file's `#include <vk/ohr\x0fcooperative_matrix.h>` put a raw 0x0F in a message: no
    # XML 1.0 parser reads that, escaped or not.
    (project / "shaders" / "bad.hlsl").write_bytes(b"#include <vk/ohr\x0fm.h>\n")
    run(capsys, "shaders", "--no-cache", "--output-format", "junit", "-o", "junit.xml")
    xml = JUnitXml.fromfile(str(project / "junit.xml"))
    (case,) = list(next(iter(xml)))
    assert case.result[0].message == "include file 'vk/ohr\\x0fm.h' not found"


def test_gitlab_report_fields_and_stable_fingerprints(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = json.loads((DATA / "gitlab-codequality.schema.json").read_text())
    _, out, _ = run(capsys, "shaders", "--no-cache", "--output-format", "gitlab")
    report = json.loads(out)
    jsonschema.Draft7Validator(schema).validate(report)
    assert {r["location"]["path"] for r in report} == {"shaders/bad.hlsl"}
    assert [r["location"]["lines"]["begin"] for r in report] == [3, 8]
    assert len({r["fingerprint"] for r in report}) == 2
    # A line added above moves the findings but keeps their fingerprints.
    (project / "shaders" / "bad.hlsl").write_text("// moved\n" + BAD)
    _, out, _ = run(capsys, "shaders", "--no-cache", "--output-format", "gitlab")
    moved = json.loads(out)
    assert [r["location"]["lines"]["begin"] for r in moved] == [4, 9]
    assert [r["fingerprint"] for r in moved] == [r["fingerprint"] for r in report]


def test_rdjson_matches_the_reviewdog_format(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "shaders" / "bad.hlsl").write_text("// é\n" + BAD.replace("if (sign", "/*é*/ if (sign"))
    schema = json.loads((DATA / "rdjson.schema.json").read_text())
    _, out, _ = run(capsys, "shaders", "--no-cache", "--output-format", "rdjson")
    report = json.loads(out)
    jsonschema.Draft7Validator(schema).validate(report)
    first = report["diagnostics"][0]
    assert first["code"]["value"] == "HL105" and first["severity"] == "WARNING"
    # Columns are UTF-8 bytes: `/*é*/ ` is 7 bytes but 6 code points.
    assert first["location"]["range"]["start"] == {"line": 4, "column": 5 + 7 + 4}
    assert first["suggestions"][0]["text"] == "x < 0"


def test_pylint_and_grouped(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "shaders", "--no-cache", "--output-format", "pylint")
    lines = out.splitlines()
    assert len(lines) == 2
    assert all(re.fullmatch(r"shaders/bad\.hlsl:\d+: \[HL105\(sign-for-sign-bit\)\] .+", x) for x in lines)
    _, out, _ = run(capsys, "shaders", "--no-cache", "--output-format", "grouped")
    assert out.splitlines()[0] == "shaders/bad.hlsl"
    assert re.search(r"^  3:9  HL105 \[\*\] ", out, re.M) and re.search(r"^  8:10 HL105 ", out, re.M)
    assert "Found 2 warnings." in out


def test_sarif_says_when_the_run_was_not_successful(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = json.loads((DATA / "sarif-2.1.0.json").read_text())
    _, out, _ = run(capsys, "shaders", "--no-cache", "--output-format", "sarif")
    log = json.loads(out)
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is True
    (project / "shaders" / "link.hlsl").symlink_to(project / "shaders" / "missing.hlsl")
    _, out, _ = run(capsys, "shaders", "--no-cache", "--output-format", "sarif")
    log = json.loads(out)
    jsonschema.Draft4Validator(schema).validate(log)
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    notes = invocation["toolExecutionNotifications"]
    assert [n["descriptor"]["id"] for n in notes] == ["HL004"] and notes[0]["level"] == "error"


def test_sarif_and_junit_carry_internal_errors(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hlsllint.registry import rule_by_code

    rule = rule_by_code()["HL105"]

    def crash(*_args: object, **_kw: object) -> None:
        raise RuntimeError("boom")

    for name in ("check", "visit"):
        if name in vars(rule) or hasattr(rule, name):
            monkeypatch.setattr(rule, name, crash)
    code, out, err = run(capsys, "shaders", "--no-cache", "-j", "1", "--output-format", "sarif")
    assert code == 2 and "boom" in err
    invocation = json.loads(out)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert any("boom" in n["message"]["text"] for n in invocation["toolExecutionNotifications"])
    code, out, _ = run(capsys, "shaders", "--no-cache", "-j", "1", "--output-format", "junit")
    root = ET.fromstring(out)
    assert root.get("errors") != "0" and root.find(".//error") is not None
