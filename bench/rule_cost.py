"""What each rule costs on its own, in a cold `-j 1` lint of real shaders:

    python bench/rule_cost.py /work/corpus/DirectX-Graphics-Samples/MiniEngine [--cold]

Before the rules of a unit run, the shared analyses are computed for every entry point (the
analysis stage's CFG, both uniformities, liveness, loops, and the register demand the HL2xx
rules read), so that the time of each rule's `visit` calls and `check` is the rule's own work and
not the first ask of a shared analysis; the cyclic garbage collector is run between units and
kept out of the rules' timings. `--cold` leaves the analyses to the rules (the time then
includes whichever shared analysis a rule happened to ask for first). Prints the seconds per rule
(visit, check, calls) and the shared-analysis time, in CPU seconds of this process (so that other
processes on a shared machine do not count); run it twice back to back to judge a change.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from lint_speed import STAGE_EXTS, shader_files

from hlsllint import checker, driver, lint
from hlsllint.analysis import analyze
from hlsllint.analysis.pressure import analyse_entry
from hlsllint.config import ConfigResolver, Settings
from hlsllint.context import RuleContext
from hlsllint.rule import Rule

_visit: dict[str, float] = {}
_check: dict[str, float] = {}
_calls: dict[str, int] = {}
_shared = [0.0]


def _timed_visit(rule: Rule, inner: Callable[..., None]) -> Callable[..., None]:
    code = rule.code

    def visit(ctx: RuleContext, node: Any) -> None:
        t = time.process_time()
        try:
            inner(ctx, node)
        finally:
            _visit[code] = _visit.get(code, 0.0) + time.process_time() - t
            _calls[code] = _calls.get(code, 0) + 1

    return visit


def _timed_check(rule: Rule, inner: Callable[..., None]) -> Callable[..., None]:
    code = rule.code

    def check(ctx: RuleContext) -> None:
        t = time.process_time()
        try:
            inner(ctx)
        finally:
            _check[code] = _check.get(code, 0.0) + time.process_time() - t

    return check


def _warm(ctx: RuleContext) -> None:
    t = time.process_time()
    model = ctx.model
    try:
        unit = analyze(model)
        for ea in unit.entries.values():
            _ = ea.cfg, ea.uniformity, ea.value_uniformity, ea.liveness, ea.loops
            analyse_entry(model, ea.entry)
    except Exception:  # the rules see the same failure and handle it their way
        pass
    _shared[0] += time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cold", action="store_true", help="leave the shared analyses to the rules")
    args = ap.parse_args()
    original = checker.run_rules

    def run_rules(ctx: RuleContext, rules: Sequence[Rule], path: str, **kw: Any) -> list[str]:
        for rule in rules:
            if not getattr(rule, "_timed", False):
                rule.visit = _timed_visit(rule, rule.visit)  # type: ignore[method-assign]
                rule.check = _timed_check(rule, rule.check)  # type: ignore[method-assign]
                rule._timed = True  # type: ignore[attr-defined]
        if not args.cold:
            _warm(ctx)
        # The cyclic collector runs between units, not inside a rule's timing (where its pause
        # would be charged to whichever rule happened to allocate last).
        gc.collect()
        gc.disable()
        try:
            return original(ctx, rules, path, **kw)
        finally:
            gc.enable()

    lint.run_rules = run_rules  # type: ignore[assignment]
    files = shader_files(args.folders)
    lint.tune_gc()
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS))
    t = time.process_time()
    res = driver.lint_paths(files, resolver, jobs=1, cache=None)
    total = time.process_time() - t
    print(f"{len(files)} files, {len(res.diagnostics)} findings, {total:.2f} CPU s in all")
    if args.cold:
        print("shared analyses: counted in the rules that ask for them first")
    else:
        print(f"shared analyses (computed before the rules): {_shared[0]:.2f} s")
    print(f"{'rule':6} {'visit s':>8} {'calls':>7} {'check s':>8} {'total s':>8}")
    codes = sorted(set(_visit) | set(_check))
    for code in sorted(codes, key=lambda c: -(_visit.get(c, 0.0) + _check.get(c, 0.0))):
        v, c = _visit.get(code, 0.0), _check.get(code, 0.0)
        print(f"{code:6} {v:8.3f} {_calls.get(code, 0):7d} {c:8.3f} {v + c:8.3f}")
    print(f"{'all':6} {sum(_visit.values()):8.3f} {'':7} {sum(_check.values()):8.3f}")


if __name__ == "__main__":
    main()
