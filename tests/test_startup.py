"""Start-up cost: what each command imports, in a fresh process through the installed entry point.

A pre-commit hook or an editor runs hlsllint on a file or two, where importing is most of the
wall time; these tests keep the heavy imports (networkx, rich, tree-sitter, importlib.metadata,
pathspec) out of the runs that do not need them. (networkx comes with the analysis modules, which
the rules import: a lint's -j N workers then inherit it from the process that forks them.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points, version
from pathlib import Path

import pytest

import hlsllint

TINY = """RWBuffer<float> Out : register(u0);
Buffer<float> In : register(t0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Out[id.x] = In[id.x] * 2.0;
}
"""

BAD = "float f(float x)\n{\n    return sign(x) < 0 ? 1 : 0;\n}\n"

# Runs the console script's function (as `hlsllint ARGS` does), then prints which of the watched
# modules were imported, as JSON on the last line of stderr.
PROBE = """
import importlib, json, sys
module, _, function = sys.argv[1].partition(":")
try:
    code = getattr(importlib.import_module(module), function)(sys.argv[2:])
except SystemExit as e:
    code = e.code
watched = {watched!r}
print(json.dumps([code, sorted(m for m in watched if m in sys.modules)]), file=sys.stderr)
"""

WATCHED = (
    "networkx",
    "tree_sitter",
    "rich",
    "rich.progress",
    "pathspec",
    "importlib.metadata",
    "hlsllint.analysis",
    "hlsllint.lint",
    "hlsllint.rules",
    "multiprocessing",
)


def _entry() -> str:
    (script,) = [ep for ep in entry_points(group="console_scripts") if ep.name == "hlsllint"]
    return script.value


def run(folder: Path, *args: str) -> tuple[int, str, set[str]]:
    """Exit code, stdout, and the watched modules a fresh `hlsllint ARGS` imported."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(watched=WATCHED), _entry(), *args],
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=60,
    )
    code, loaded = json.loads(out.stderr.splitlines()[-1])
    return code, out.stdout, set(loaded)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "tiny.hlsl").write_text(TINY)
    (tmp_path / "bad.hlsl").write_text(BAD)
    return tmp_path


def test_version_is_static_and_matches_the_installed_metadata() -> None:
    assert hlsllint.__version__ == version("hlsllint")


@pytest.mark.parametrize("args", [("--version",), ("config", "wave-size")])
def test_commands_that_read_no_rule_import_nothing_heavy(folder: Path, args: tuple[str, ...]) -> None:
    code, out, loaded = run(folder, *args)
    assert code == 0 and out
    assert loaded == set()


def test_rule_documentation_loads_no_driver_and_draws_nothing(folder: Path) -> None:
    code, out, loaded = run(folder, "rule", "HL101")
    assert code == 0 and out.startswith("# typed-uniform-load (HL101)")
    assert "hlsllint.rules" in loaded  # the rules (and the analysis modules they import)
    assert not loaded & {"rich", "hlsllint.lint"}


def test_clean_lint_imports_no_rich(folder: Path) -> None:
    code, out, loaded = run(folder, "check", "tiny.hlsl", "--no-cache", "-j", "1")
    assert code == 0 and out == "All checks passed!\n"
    assert "networkx" in loaded  # the entry point's graph was built: the lint really ran
    assert not loaded & {"rich", "pathspec"}


def test_one_unit_at_the_default_jobs_starts_no_pool(folder: Path) -> None:
    code, _, loaded = run(folder, "check", "tiny.hlsl", "--no-cache")
    assert code == 0
    assert "networkx" in loaded and "multiprocessing" not in loaded
    code, _, loaded = run(folder, "check", "tiny.hlsl", "bad.hlsl", "--no-cache", "-j", "2")
    assert code == 1 and "multiprocessing" in loaded  # two units: a worker lints beside this process


@pytest.mark.parametrize("fmt", ["json", "pylint"])
def test_machine_formats_import_no_rich(folder: Path, fmt: str) -> None:
    code, out, loaded = run(folder, "check", "bad.hlsl", "--no-cache", "-j", "1", "--output-format", fmt)
    assert code == 1 and "HL105" in out
    assert "rich" not in loaded


def test_text_findings_without_a_terminal_draw_no_progress_bar(folder: Path) -> None:
    code, out, loaded = run(folder, "check", "bad.hlsl", "--no-cache", "-j", "1")
    assert code == 1 and "bad.hlsl:3:12: HL105" in out
    assert "rich" in loaded and "rich.progress" not in loaded
