"""Identical translation units of a run are analysed once (`SameUnits`): a copy takes the first
unit's findings on its own paths, and the output is what linting each copy alone gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_rules_hl20x import HEAVY_HEADER

from hlsllint import lint
from hlsllint.cache import Cache
from hlsllint.config import ConfigResolver
from hlsllint.diagnostics import Diagnostic
from hlsllint.driver import LintResult, lint_paths

KERNEL = """\
RWStructuredBuffer<float4> gDst : register(u0);

[numthreads(64, 1, 1)]
void MainCS(uint i : SV_DispatchThreadID)
{
    gDst[i] = Heavy(i);
}
"""
# The header holds the register peak (HL201 names "heavy.hlsli") and a fixable HL105.
HEADER = HEAVY_HEADER + "float Mag(float x) { return sign(x) < 0 ? -x : x; }\n"
MAIN = '#include "heavy.hlsli"\n#ifdef WIDE\nfloat Wide(float y) { return (sign(y) < 0); }\n#endif\n' + KERNEL
# The other way round: the peak in the main file, the entry in a header (HL201 names the main file).
FLIPPED = HEAVY_HEADER + '#include "kernel.hlsli"\n'


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _lint(paths: list[Path], jobs: int = 1, cache: Cache | None = None) -> LintResult:
    result = lint_paths([str(p) for p in paths], ConfigResolver(), jobs=jobs, cache=cache)
    assert not result.errors, result.errors
    return result


def _alone(root: Path, folders: list[str]) -> list[Diagnostic]:
    """Each folder linted in a run of its own (no copies in it)."""
    found = [d for f in folders for d in _lint([root / f]).diagnostics]
    return sorted(found, key=Diagnostic.sort_key)


def _same_as(result: LintResult, root: Path) -> dict[str, str | None]:
    def rel(p: str | None) -> str | None:
        return p and Path(p).relative_to(root).as_posix()

    return {str(rel(u.path)): rel(u.same_as) for u in result.units}


@pytest.fixture
def copies(tmp_path: Path) -> Path:
    return _write(
        tmp_path,
        {
            "one/a.hlsl": MAIN,
            "one/heavy.hlsli": HEADER,
            "two/a.hlsl": MAIN,  # a copy of one/, header and all
            "two/heavy.hlsli": HEADER,
            "three/b.hlsl": MAIN,  # the same, under another name
            "three/heavy.hlsli": HEADER,
            "four/x.hlsl": FLIPPED,
            "four/kernel.hlsli": KERNEL,
            "five/y.hlsl": FLIPPED,  # HL201 names x.hlsl in four/: y.hlsl here
            "five/kernel.hlsli": KERNEL,
        },
    )


def test_copies_take_the_findings_on_their_own_paths(copies: Path) -> None:
    result = _lint([copies])
    assert _same_as(result, copies) == {
        "one/a.hlsl": None,
        "two/a.hlsl": "one/a.hlsl",
        "three/b.hlsl": "one/a.hlsl",
        "four/x.hlsl": None,
        "five/y.hlsl": None,  # a finding's message holds the other main file's name
    }
    # Every field (paths, positions, messages, fixes, related locations, extra) as linted alone.
    assert result.diagnostics == _alone(copies, ["five", "four", "one", "three", "two"])
    by_path = {(Path(d.path).relative_to(copies).as_posix(), d.code): d for d in result.diagnostics}
    fix = by_path["two/heavy.hlsli", "HL105"].fix
    assert fix is not None and [e.path for e in fix.edits] == [str(copies / "two/heavy.hlsli")]
    peak = by_path["three/b.hlsl", "HL201"]
    assert "of heavy.hlsli" in peak.message
    assert [r.path for r in peak.related] == [str(copies / "three/heavy.hlsli")]
    assert "of y.hlsl" in by_path["five/kernel.hlsli", "HL201"].message


def test_a_different_header_define_or_rule_option_is_not_reused(tmp_path: Path) -> None:
    inactive = "#if 0\n#define VERSION 1\n#endif\n"
    root = _write(
        tmp_path,
        {
            "one/a.hlsl": MAIN,
            "one/heavy.hlsli": inactive + HEADER,
            # Another header: it expands to the same text with the same map (an inactive line).
            "two/a.hlsl": MAIN,
            "two/heavy.hlsli": inactive.replace("1", "2") + HEADER,
            "three/a.hlsl": MAIN,
            "three/heavy.hlsli": inactive + HEADER,
            "three/hlsllint.toml": "[defines]\nWIDE = 1\n",
            "four/a.hlsl": MAIN,
            "four/heavy.hlsli": inactive + HEADER,
            "four/hlsllint.toml": "[rule-options.HL201]\nmin-occupancy = 0.1\n",
        },
    )
    result = _lint([root])
    assert set(_same_as(result, root).values()) == {None}
    assert result.diagnostics == _alone(root, ["four", "one", "three", "two"])
    codes = {(Path(d.path).parent.name, d.code) for d in result.diagnostics}
    assert ("three", "HL105") in codes and ("one", "HL201") in codes and ("four", "HL201") not in codes


def test_a_unit_cut_by_the_time_budget_is_not_reused(copies: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first copy is analysed to the end but past its budget (HL006, checked last): the second
    is analysed afresh, not given the first's findings as if they were complete."""
    enter = lint.Budget.enter
    cut: list[str] = []

    def cut_first_at_the_end(budget: lint.Budget, stage: str) -> None:
        if stage == "" and not cut:
            cut.append(stage)
            raise lint.BudgetExceeded
        enter(budget, stage)

    monkeypatch.setattr(lint.Budget, "enter", cut_first_at_the_end)
    result = _lint([copies / "one", copies / "two"])
    assert _same_as(result, copies) == {"one/a.hlsl": None, "two/a.hlsl": None}
    cut_off = {Path(d.path).relative_to(copies).as_posix() for d in result.diagnostics if d.code == "HL006"}
    assert cut_off == {"one/a.hlsl"}
    two = [d for d in result.diagnostics if Path(d.path).parent.name == "two"]
    assert two and two == _alone(copies, ["two"])


def test_parallel_run_equals_serial_with_the_same_reuse(copies: Path) -> None:
    serial = _lint([copies], jobs=1)
    parallel = _lint([copies], jobs=2)
    assert parallel.diagnostics == serial.diagnostics
    assert _same_as(parallel, copies) == _same_as(serial, copies)


def test_a_copy_caches_its_own_files(tmp_path: Path, copies: Path) -> None:
    cache = Cache(tmp_path / "cache")
    result = _lint([copies], cache=cache)
    (unit,) = [u for u in result.units if u.path.endswith("two/a.hlsl")]
    assert unit.same_as is not None
    resolver = ConfigResolver()
    entry = cache.entry(cache.key(unit.path, resolver.for_path(unit.path), None))
    assert entry is not None
    assert set(entry.deps) == {str(copies / "two/a.hlsl"), str(copies / "two/heavy.hlsli")}
    # Editing the copy's header re-lints that copy only.
    (copies / "two/heavy.hlsli").write_text(HEADER + "// edited\n")
    warm = Cache(tmp_path / "cache")
    assert _lint([copies], cache=warm).diagnostics == result.diagnostics
    assert (warm.misses, warm.hits) == (1, 4)
