"""Lint speed on real shaders: the whole pipeline against tree-sitter's parse-only floor.

    python bench/lint_speed.py /work/corpus/microsoft+DirectX-Graphics-Samples ... [-j N]

Lints every shader file under the folders (the same extensions as bench/parse_coverage.py) with all
rules, and parses the same files with plain tree-sitter-hlsl. Prints files, lines, seconds and
lines/second for both. Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import tree_sitter
import tree_sitter_hlsl

from hlsllint.config import ConfigResolver, Settings
from hlsllint.lint import lint_paths, tune_gc

STAGE_EXTS = (
    ".hlsl",
    ".hlsli",
    ".fx",
    ".fxh",
    ".vert",
    ".frag",
    ".comp",
    ".geom",
    ".tesc",
    ".tese",
    ".mesh",
    ".task",
    ".rgen",
    ".rchit",
    ".rmiss",
    ".rahit",
    ".rint",
    ".rcall",
)


def shader_files(folders: list[str]) -> list[str]:
    out = []
    for folder in folders:
        for dirpath, _dirs, files in os.walk(folder):
            for name in sorted(files):
                if name.lower().endswith(STAGE_EXTS):
                    out.append(os.path.join(dirpath, name))
    return sorted(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    args = ap.parse_args()
    files = shader_files(args.folders)
    data = {f: Path(f).read_bytes() for f in files}
    lines = sum(d.count(b"\n") + 1 for d in data.values())

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_hlsl.language()))
    t0 = time.perf_counter()
    for d in data.values():
        parser.parse(d)
    parse_s = time.perf_counter() - t0

    tune_gc()  # as the CLI does
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS))
    t0 = time.perf_counter()
    result = lint_paths(files, resolver, jobs=args.jobs)
    lint_s = time.perf_counter() - t0

    print(
        f"files: {len(files)}  lines: {lines}  findings: {len(result.diagnostics)}  "
        f"internal errors: {len(result.errors)}  jobs: {args.jobs}"
    )
    print(f"{'tree-sitter parse only':<26} {parse_s:8.2f} s  {lines / parse_s:>10,.0f} lines/s")
    print(f"{'hlsllint (all rules)':<26} {lint_s:8.2f} s  {lines / lint_s:>10,.0f} lines/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
