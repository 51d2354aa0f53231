"""`--force-exclude` / `force-exclude = true` (ruff's): `exclude` applies to the paths named on the
command line too, as pre-commit names every staged file; and `--stdin-filename` alone reads stdin."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from conftest import run_cli as run

BAD = "float f(float x)\n{\n    return sign(x) < 0 ? 1.0 : 2.0;\n}\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The project itself sits in a folder named `build` (excluded by default): only the folders
    # inside the config's root count, or nothing here would ever be linted.
    root = tmp_path / "build" / "proj"
    (root / "third_party" / "sub").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "hlsllint.toml").write_text('extend-exclude = ["third_party/"]\n')
    (root / "third_party" / "sub" / "vendor.hlsl").write_text(BAD)
    (root / "third_party" / "top.hlsl").write_text(BAD)
    (root / "src" / "mine.hlsl").write_text(BAD)
    monkeypatch.chdir(root)
    return root


def test_named_files_under_exclude_are_linted_without_the_flag(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "third_party/sub/vendor.hlsl", "--no-cache", "--output-format", "concise")
    assert code == 1 and "third_party/sub/vendor.hlsl:3:12: HL105" in out


@pytest.mark.parametrize(
    "paths",
    [
        ("third_party/sub/vendor.hlsl",),  # an excluded folder above the file
        ("third_party/top.hlsl",),
        ("third_party",),  # the excluded folder itself
        ("third_party/sub",),
    ],
)
def test_force_exclude_drops_named_paths_under_exclude(
    project: Path, capsys: pytest.CaptureFixture[str], paths: tuple[str, ...]
) -> None:
    code, out, _ = run(
        capsys, *paths, "src/mine.hlsl", "--no-cache", "--force-exclude", "--output-format", "concise"
    )
    assert code == 1
    assert "third_party" not in out
    assert "src/mine.hlsl:3:12: HL105" in out


def test_force_exclude_in_the_config(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "hlsllint.toml").write_text('extend-exclude = ["third_party/"]\nforce-exclude = true\n')
    code, out, _ = run(capsys, "third_party/sub/vendor.hlsl", "--no-cache", "--output-format", "concise")
    assert code == 0 and "HL105" not in out


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))


def test_stdin_filename_alone_lints_stdin_only(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stdin(monkeypatch, BAD)
    code, out, _ = run(capsys, "--stdin-filename", "src/new.hlsl", "--no-cache", "--output-format", "concise")
    assert code == 1
    assert out.startswith("src/new.hlsl:3:12: HL105")
    assert "mine.hlsl" not in out  # not also the working folder


def test_stdin_filename_alone_with_fix_writes_no_other_file(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stdin(monkeypatch, BAD)
    code, out, _ = run(capsys, "--stdin-filename", "src/new.hlsl", "--no-cache", "--fix")
    assert code == 0 and "sign(" not in out  # the fixed text of stdin
    assert (project / "src" / "mine.hlsl").read_text() == BAD


def test_force_excluded_stdin_filename_is_not_linted(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stdin(monkeypatch, BAD)
    code, out, _ = run(capsys, "-", "--stdin-filename", "third_party/x.hlsl", "--force-exclude", "--no-cache")
    assert code == 0 and "HL105" not in out
    _stdin(monkeypatch, BAD)
    code, out, _ = run(
        capsys, "-", "--stdin-filename", "third_party/x.hlsl", "--force-exclude", "--fix", "--no-cache"
    )
    assert code == 0 and out == BAD  # --fix passes the text through unchanged
