"""Where a cold `-j 1` lint's time goes, stage by stage, in the build that is installed (compiled
or pure Python: cProfile sees a compiled stage as one call, this does not need to look inside).

    python bench/stage_times.py /work/corpus/SpartanEngine

Lints the folders as `bench/lint_speed.py` does (one process, no cache, no time budget) and sums
CPU seconds over the units for: preprocessing; the parse, split into the repair (`normalize`, run
a second time outside the lint's own clock to time it) and the rest (tree-sitter, the node table);
the semantic model; per entry point the CFG, the two uniformities, liveness with loops, and the
register pressure; and the rules' walk and checks (what is left). The analyses are computed for
every entry point before the rules run (as `bench/rule_cost.py` does), so that each is counted
once, in its own stage.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
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
from hlsllint.syntax import language
from hlsllint.syntax.normalize import normalize

_spent: dict[str, float] = {}


def _add(stage: str, seconds: float) -> None:
    _spent[stage] = _spent.get(stage, 0.0) + seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    args = ap.parse_args()
    import tree_sitter

    ts_parser = tree_sitter.Parser(language())
    clock = time.process_time
    extra = [0.0]  # the second parses' own time, kept off the total
    fresh = [0.0]  # tree-sitter alone on every unit's text, from no earlier tree
    original_pp, original_parse, original_rules = lint._preprocess, lint.parse, lint.run_rules

    def preprocess(*a: Any, **kw: Any) -> Any:
        t = clock()
        try:
            return original_pp(*a, **kw)
        finally:
            _add("preprocess", clock() - t)

    def parse(text: str, **kw: Any) -> Any:
        t = clock()
        tree = original_parse(text, **kw)
        whole = clock() - t
        t = clock()
        normalized, _notes = normalize(text)
        repair = clock() - t
        t = clock()
        ts_parser.parse(normalized.encode("utf-8"))
        fresh[0] += clock() - t
        extra[0] += clock() - t + repair
        _add("parse: repair (normalize)", repair)
        _add("parse: tree-sitter, node table", max(0.0, whole - repair))
        return tree

    def run_rules(ctx: RuleContext, rules: Sequence[Rule], path: str, **kw: Any) -> list[str]:
        t = clock()
        model = ctx.model
        _add("semantic model", clock() - t)
        try:
            t = clock()
            unit = analyze(model)
            _add("analyses: entry points found", clock() - t)
            for ea in unit.entries.values():
                t = clock()
                _ = ea.cfg
                _add("analyses: CFG", clock() - t)
                t = clock()
                _ = ea.uniformity, ea.value_uniformity
                _add("analyses: uniformity", clock() - t)
                t = clock()
                _ = ea.liveness, ea.loops
                _add("analyses: liveness and loops", clock() - t)
                t = clock()
                analyse_entry(model, ea.entry)
                _add("analyses: register pressure", clock() - t)
        except Exception:  # the rules meet the same failure and handle it their way
            pass
        t = clock()
        try:
            return original_rules(ctx, rules, path, **kw)
        finally:
            _add("rules (walk, visits, checks)", clock() - t)

    lint._preprocess = preprocess  # type: ignore[assignment]
    lint.parse = parse  # type: ignore[assignment]
    lint.run_rules = run_rules  # type: ignore[assignment]
    files = shader_files(args.folders)
    lint.tune_gc()
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS, time_budget=0.0))
    t = clock()
    res = driver.lint_paths(files, resolver, jobs=1, cache=None)
    total = clock() - t - extra[0]
    compiled = not checker.__file__.endswith(".py")
    build = "compiled" if compiled else "pure Python"
    print(f"{len(files)} files, {len(res.diagnostics)} findings, {total:.2f} CPU s in all ({build})")
    for stage, seconds in _spent.items():
        print(f"{stage:34} {seconds:7.2f} s {100 * seconds / total:5.1f}%")
    rest = total - sum(_spent.values())
    print(f"{'the rest (driver, collector, ...)':34} {rest:7.2f} s {100 * rest / total:5.1f}%")
    print(f"(tree-sitter alone on every unit's text afresh, outside the lint: {fresh[0]:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
