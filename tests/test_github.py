"""`--output-format github`: workflow-command annotations with GitHub's escaping."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlsllint.cli import main
from hlsllint.diagnostics import Diagnostic, Severity
from hlsllint.output.github import annotation, escape_data, escape_property
from hlsllint.source import Location


def test_cli_annotations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.hlsl").write_text(
        "float f(float x)\n{\n    return sign(x) < 0;\n}\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path / "src")
    assert main(["check", "--output-format", "github", "--select", "HL105", "a.hlsl"]) == 1
    out = capsys.readouterr().out
    assert out == (
        "::warning file=src/a.hlsl,line=3,col=12,endLine=3,endColumn=23,"
        "title=HL105 sign-for-sign-bit::`sign(x) < 0` tests the sign through `sign()`"
        "%0Ahelp: compare the value: `x < 0`\n"
    )


def test_escaping() -> None:
    assert escape_data("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext: a, b"
    assert escape_property("dir:a,b%\n") == "dir%3Aa%2Cb%25%0A"


def _diag(severity: Severity, path: str, message: str) -> Diagnostic:
    return Diagnostic(
        code="HL000",
        name="unparsed-region",
        message=message,
        severity=severity,
        path=path,
        start_offset=0,
        end_offset=1,
        start=Location(1, 1),
        end=Location(2, 3),
    )


@pytest.mark.parametrize(
    ("severity", "command"),
    [(Severity.ERROR, "::error "), (Severity.WARNING, "::warning "), (Severity.INFO, "::notice ")],
)
def test_severity_and_escaped_fields(tmp_path: Path, severity: Severity, command: str) -> None:
    line = annotation(_diag(severity, str(tmp_path / "x,y:z.hlsl"), "bad\nthing 100%"), str(tmp_path))
    assert line.startswith(command)
    assert "file=x%2Cy%3Az.hlsl,line=1,col=1,endLine=2,endColumn=3,title=HL000 unparsed-region::" in line
    assert line.endswith("::bad thing 100%25")  # a Diagnostic keeps no line break in its message
    assert "\n" not in line
    assert escape_data("a\r\nb%") == "a%0D%0Ab%25"
