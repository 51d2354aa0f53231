"""`--add-noqa` covers the engine's findings too (HL000, HL002, HL003, HL005), keeps the bytes of
files it cannot decode cleanly, prints the number of directives it wrote, and names each finding
no comment can carry instead of leaving it silently."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from conftest import run_cli as run

SIGN = "    return sign(x) < 0 ? 1.0 : 2.0;\n"
FILES: dict[str, bytes] = {
    "inc.hlsl": b'#include "missing.h"\nfloat f(float x)\n{\n' + SIGN.encode() + b"}\n",  # HL002, HL105
    "err.hlsl": b'#error "not for this platform"\nfloat g(float x) { return x; }\n',  # HL003
    "unparsed.hlsl": b"float f(float x)\n{\n    @@@ $$$ ;;; }}}\n    return x;\n}\n",  # HL000
    # HL005: a Latin-1 byte; the bytes around the added comment must stay as they are.
    "latin1.hlsl": b"float f(float x) { return x; } // caf\xe9\r\n" + SIGN.rstrip().encode() + b"\r\n",
    # UTF-16 with a BOM (HL005): written back as UTF-16.
    "u16.hlsl": "\ufefffloat f(float x)\n{\n".encode("utf-16-le")
    + SIGN.encode("utf-16-le")
    + "}\n".encode("utf-16-le"),
    # A form feed is no line break (str.splitlines would take it for one).
    "ff.hlsl": b"float f(float x)\x0c\n{\n" + SIGN.encode() + b"}\n",
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _changed_lines(before: bytes, after: bytes, encoding: str = "latin-1") -> list[tuple[str, str]]:
    old, new = before.decode(encoding).splitlines(), after.decode(encoding).splitlines()
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


def test_add_noqa_covers_engine_findings_and_counts_what_it_wrote(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, ".", "--no-cache", "--output-format", "concise")
    assert code == 1
    for finding in ("HL000", "HL002", "HL003", "HL005", "HL105"):
        assert f" {finding} " in out, out

    code, _, err = run(capsys, ".", "--no-cache", "--add-noqa")
    assert code == 0
    changed = {
        name: _changed_lines(
            data, (project / name).read_bytes(), "utf-16" if name == "u16.hlsl" else "latin-1"
        )
        for name, data in FILES.items()
    }
    assert changed["inc.hlsl"] == [
        ('#include "missing.h"', '#include "missing.h"  // noqa: HL002'),
        (SIGN.rstrip(), SIGN.rstrip() + "  // noqa: HL105"),
    ]
    assert changed["err.hlsl"][0][1].endswith('platform"  // noqa: HL003')
    assert changed["unparsed.hlsl"] == [
        ("    @@@ $$$ ;;; }}}", "    @@@ $$$ ;;; }}}  // noqa: HL000"),
        ("}", "}  // noqa: HL000"),  # the grammar resumes only at the closing brace
    ]
    assert changed["ff.hlsl"] == [(SIGN.rstrip(), SIGN.rstrip() + "  // noqa: HL105")]
    # Only the comments were added: the Latin-1 byte and the CRLF endings are kept.
    assert (project / "latin1.hlsl").read_bytes() == (
        b"float f(float x) { return x; } // caf\xe9  // noqa: HL005\r\n"
        + SIGN.rstrip().encode()
        + b"  // noqa: HL105\r\n"
    )
    assert (project / "u16.hlsl").read_bytes().startswith(b"\xff\xfe")
    assert changed["u16.hlsl"] == [
        ("float f(float x)", "float f(float x)  // noqa: HL005"),
        (SIGN.rstrip(), SIGN.rstrip() + "  // noqa: HL105"),
    ]
    written = sum(len(lines) for lines in changed.values())
    assert f"Added {written} noqa directives." in err
    assert "cannot take" not in err

    code, out, _ = run(capsys, ".", "--no-cache")
    assert code == 0 and "All checks passed!" in out, out
    code, _, err = run(capsys, ".", "--no-cache", "--add-noqa")
    assert "Added 0 noqa directives." in err


def test_findings_that_cannot_take_a_noqa_are_named(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "bin.hlsl").write_bytes(b"\x00\x01binary")  # HL004: no text to carry a comment
    (project / "unused.hlsl").write_text("float f(float x) { return x; } // noqa: HL105\n")  # HL001
    # A line spliced with a backslash: a comment would swallow the splice.
    (project / "splice.hlsl").write_text(
        "float f(float x)\n{\n    float y = sign(x) < 0 \\\n        ? 1.0 : 2.0;\n    return y;\n}\n"
    )
    code, _, err = run(
        capsys, "bin.hlsl", "unused.hlsl", "splice.hlsl", "inc.hlsl", "--no-cache", "--add-noqa"
    )
    assert code == 0
    assert "Added 2 noqa directives.\n3 findings cannot take a noqa comment:\n" in err
    assert "  bin.hlsl:1:1: HL004 (its file cannot be read as text)\n" in err
    assert "  splice.hlsl:3:15: HL105 (its line continues with `\\`" in err
    assert "  unused.hlsl:1:32: HL001 (it reports a `noqa` directive; `--fix` removes the unused one)" in err
    assert (project / "splice.hlsl").read_text().count("noqa") == 0
    code, out, _ = run(
        capsys,
        "bin.hlsl",
        "unused.hlsl",
        "splice.hlsl",
        "inc.hlsl",
        "--no-cache",
        "-q",
        "--output-format",
        "concise",
    )
    assert sorted(line.split(": ")[1].split()[0] for line in out.splitlines()) == [
        "HL001",
        "HL004",
        "HL105",
    ]


def test_add_noqa_writes_nothing_for_stdin(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(FILES["inc.hlsl"])))
    code, _, err = run(capsys, "-", "--stdin-filename", "inc.hlsl", "--no-cache", "--add-noqa")
    assert code == 0
    assert "Added 0 noqa directives.\n2 findings cannot take a noqa comment:" in err
    assert "inc.hlsl:1:1: HL002 (it was read from standard input)" in err
    assert (project / "inc.hlsl").read_bytes() == FILES["inc.hlsl"]
