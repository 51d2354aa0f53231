"""Shared test helpers: lint a snippet or a fixture with chosen rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hlsllint.cli import main
from hlsllint.config import ConfigResolver, Settings
from hlsllint.diagnostics import Diagnostic
from hlsllint.lint import FileLoader, lint_unit

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
EXPECT_RE = re.compile(r"//.*\bexpect:\s*((?:HL[0-9]{3}[\s,]*)+)")


def lint_text(
    text: str, select: tuple[str, ...] = ("HL",), path: str = "snippet.hlsl", **settings: object
) -> list[Diagnostic]:
    """Lint `text` as one translation unit (no noqa processing)."""
    s = Settings(select=select, **settings)  # type: ignore[arg-type]
    result = lint_unit(path, s, loader=FileLoader({path: text}))
    assert not result.errors, result.errors
    return sorted(result.diagnostics, key=Diagnostic.sort_key)


def expected_findings(path: Path) -> set[tuple[int, str]]:
    out: set[tuple[int, str]] = set()
    for row, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = EXPECT_RE.search(line)
        if m:
            out.update((row, c) for c in re.findall(r"HL[0-9]{3}", m.group(1)))
    return out


def lint_fixture(path: Path, code: str) -> set[tuple[int, str]]:
    s = Settings(select=(code,))
    result = lint_unit(str(path), s)
    assert not result.errors, result.errors
    return {(d.start.row, d.code) for d in result.diagnostics if d.path == str(path)}


@pytest.fixture
def resolver() -> ConfigResolver:
    return ConfigResolver()


@pytest.fixture(autouse=True, scope="session")
def _cache_outside_the_repo(tmp_path_factory: pytest.TempPathFactory) -> None:
    """CLI runs in tests keep their cache in a temporary folder, not in the working directory."""
    import os

    os.environ.setdefault("HLSLLINT_CACHE_DIR", str(tmp_path_factory.mktemp("hlsllint_cache")))


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`hlsllint ARGS...` in process: (exit code, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err
