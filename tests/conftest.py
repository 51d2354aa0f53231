"""Shared test helpers: lint a snippet or a fixture with chosen rules."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import hlsllint
from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel
from hlsllint.analysis.pressure import EntryDemand, analyse_entry
from hlsllint.cli import main
from hlsllint.config import ConfigResolver, Settings
from hlsllint.context import AnalysisSettings
from hlsllint.diagnostics import Diagnostic
from hlsllint.lint import FileLoader, lint_unit
from hlsllint.semantic import build_model
from hlsllint.syntax import parse

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
EXPECT_RE = re.compile(r"//.*\bexpect:\s*((?:HL[0-9]{3}[\s,]*)+)")


def find_regtruth(root: Path = ROOT) -> Path | None:
    """regtruth.py (the real AMD compiler's register counts): `$REGTRUTH`, else the project's
    `shared/` folder beside the clone (`../shared/tools/regtruth`) or beside a folder above it."""
    if os.environ.get("REGTRUTH"):
        return Path(os.environ["REGTRUTH"])
    for folder in root.resolve().parents:
        candidate = folder / "shared" / "tools" / "regtruth" / "regtruth.py"
        if candidate.is_file():
            return candidate
    return None


def stale_sources(root: Path = ROOT) -> list[str]:
    """The checkout's Python sources (`hlsllint/`, `rules/`) that the imported hlsllint lacks or
    has in another version: empty when the tests run this checkout's code.

    `pytest` imports the installed hlsllint (the compiled build CI tests); a contributor who edits
    the checkout after a plain `pip install` would otherwise test the old copy.
    """
    package = Path(hlsllint.__file__).resolve().parent
    if package == (root / "hlsllint").resolve():
        return []  # the checkout itself: an editable install, or `python -m pytest` in it
    from hlsllint import rules

    installed_rules = Path(next(iter(rules.__path__))).resolve()
    stale = []
    for source, copy, name in (
        (root / "hlsllint", package, "hlsllint"),
        (root / "rules", installed_rules, "rules"),
    ):
        mine = {p.relative_to(source) for p in source.rglob("*.py")}
        theirs = {p.relative_to(copy) for p in copy.rglob("*.py") if installed_rules not in p.parents}
        for rel in sorted(mine | theirs):
            a, b = source / rel, copy / rel
            if not (a.is_file() and b.is_file() and a.read_bytes() == b.read_bytes()):
                stale.append(f"{name}/{rel.as_posix()}")
    return stale


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("HLSLLINT_TEST_ANY_INSTALL"):
        return
    stale = stale_sources()
    if stale:
        shown = ", ".join(stale[:5]) + (f" and {len(stale) - 5} more" if len(stale) > 5 else "")
        raise pytest.UsageError(
            f"the hlsllint these tests import ({Path(hlsllint.__file__).parent}) is not this "
            f"checkout's: {shown} differ. Install the checkout again (`.venv/bin/pip install .`), "
            "or install it editable while you work on it (`.venv/bin/pip install -e '.[test]'`), "
            "or run `python -m pytest`, which tests the checkout's sources as they are "
            "(HLSLLINT_TEST_ANY_INSTALL=1 tests the installed copy anyway)."
        )


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


WHOLE_VECTORS = CostModel(component_liveness=False)
"""The cost model with the liveness by component switched off (a vector's registers live until
its last component's last use): the default until the twentieth landing, kept for the tests of
what the lowering does for that model."""


def demand(text: str, entry: str = "main", costs: CostModel = DEFAULT_COSTS) -> EntryDemand:
    """The register demand of one entry point of `text` (navi21 wave64, `costs`: the default
    cost model unless a test switches one of its models on), as the pressure tests compare
    with regtruth's presched figures."""
    m = build_model(parse(text), AnalysisSettings())
    e = m.entry(entry)
    assert e is not None
    return analyse_entry(m, e, 64, costs)
