"""How much of a lint is the front end, and how much of that is headers expanded again per unit.

    python bench/front_end_share.py /work/corpus/DirectX-Graphics-Samples/MiniEngine

Preprocesses and parses every translation unit of the folders (as `hlsllint` plans them) and
prints the time of each stage and how large the expanded text is against the units' own files:
the share that expanding and parsing each header once per process could save at most, and how
many header expansions the preprocessor reused from earlier units.

Last, tree-sitter alone (no repair, no Python) on every file once, the parse-only floor of
`bench/lint_speed.py`, and on every unit's expansion, which a lint must parse (the fastest of
three runs each): the second over the first is what the parse alone costs against the floor.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import tree_sitter
from lint_speed import STAGE_EXTS, shader_files

from hlsllint import preprocess as pp_stage
from hlsllint.config import ConfigResolver, Settings
from hlsllint.driver import _plan_units
from hlsllint.lint import FileLoader, tune_gc
from hlsllint.syntax import language, parse


def main() -> int:
    tune_gc()
    files = shader_files(sys.argv[1:])
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS))
    loader = FileLoader()
    units = _plan_units(files, resolver, loader)
    pp_s = parse_s = 0.0
    own = expanded = reused = 0
    expansions: list[bytes] = []
    for u in units:
        main_file = loader(u.path)
        defines = u.settings.defines + (u.variant.defines if u.variant else ())
        options = pp_stage.PreprocessOptions(defines=defines, include_dirs=u.settings.include_dirs)
        t0 = time.perf_counter()
        pp = pp_stage.preprocess(main_file, options, loader)
        t1 = time.perf_counter()
        parse(pp.text)
        parse_s += time.perf_counter() - t1
        pp_s += t1 - t0
        own += len(main_file.text)
        expanded += len(pp.text)
        reused += pp.reused
        expansions.append(pp.text.encode("utf-8"))
    print(f"units: {len(units)}  preprocess: {pp_s:.2f} s  parse (+repair): {parse_s:.2f} s")
    print(f"units' own text: {own:,} chars  expanded: {expanded:,} chars ({expanded / max(own, 1):.1f}x)")
    print(f"header expansions reused from an earlier unit (same file, same macro state): {reused}")
    parser = tree_sitter.Parser(language())
    floor = _fastest(parser, [Path(f).read_bytes() for f in files])
    needed = _fastest(parser, expansions)
    print(
        f"tree-sitter alone: every file once {floor:.3f} s (the floor), every unit's expansion "
        f"{needed:.3f} s ({needed / floor:.1f}x the floor)"
    )
    return 0


def _fastest(parser: tree_sitter.Parser, texts: list[bytes], runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        for text in texts:
            parser.parse(text)
        best = min(best, time.perf_counter() - t0)
    return best


if __name__ == "__main__":
    sys.exit(main())
