"""Speed of the stages between the parser and the rules, on real shaders:

    python bench/model_speed.py /work/corpus/DirectX-Graphics-Samples/MiniEngine [--repeat 3]

Preprocesses and parses every unit once, then times, per stage and summed over the units (best
of `--repeat` runs, each on freshly parsed trees so that no per-tree cache carries over):
the semantic model build, the rules' walk (the driver's dispatch with every rule's node kinds
subscribed to a visit that does nothing), and the syntax layer's node index (`nodes_of_type`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from lint_speed import STAGE_EXTS, shader_files

from hlsllint.checker import run_rules
from hlsllint.config import ConfigResolver, Settings
from hlsllint.context import RuleContext
from hlsllint.driver import _plan_units
from hlsllint.lint import FileLoader, analysis_settings, front_end, tune_gc
from hlsllint.registry import all_rules
from hlsllint.rule import Rule
from hlsllint.syntax import Node, parse


class _Quiet(Rule):
    code = "HL999"
    name = "quiet"

    def __init__(self, kinds: frozenset[str]) -> None:
        super().__init__()
        self.node_kinds = kinds  # type: ignore[misc]

    def visit(self, ctx: RuleContext, node: Node) -> None:
        pass


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    tune_gc()  # as the CLI does
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS))
    loader = FileLoader({})
    units = _plan_units(shader_files(args.folders), resolver, loader)
    fronts = []
    for u in units:
        pp, tree = front_end(loader(u.path), u.settings, u.variant, loader)
        fronts.append((pp, tree.text, analysis_settings(u.settings, u.variant)))
    kinds = frozenset(k for cls in all_rules() for k in getattr(cls, "node_kinds", ()))
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        spent = {"parse": 0.0, "model": 0.0, "walk": 0.0, "nodes_of_type": 0.0}
        for pp, text, settings in fronts:
            t0 = time.process_time()
            tree = parse(text)
            t1 = time.process_time()
            ctx = RuleContext(pp=pp, tree=tree, settings=settings)
            ctx.model  # noqa: B018
            t2 = time.process_time()
            run_rules(ctx, [_Quiet(kinds)], "")
            t3 = time.process_time()
            for k in ("call_expression", "struct_specifier", "for_statement", "identifier"):
                tree.nodes_of_type(k)
            t4 = time.process_time()
            spent["parse"] += t1 - t0
            spent["model"] += t2 - t1
            spent["walk"] += t3 - t2
            spent["nodes_of_type"] += t4 - t3
        for k, v in spent.items():
            best[k] = min(best.get(k, v), v)
    print(f"{len(fronts)} units")
    for k, v in best.items():
        print(f"{k:15s} {v:7.3f} s")


if __name__ == "__main__":
    main()
