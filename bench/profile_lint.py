"""cProfile of a cold `-j 1` lint (no cache) of shader folders, as bench/lint_speed.py lints them.

    python bench/profile_lint.py /work/corpus/DirectX-Graphics-Samples/MiniEngine [--top 40] [--out prof.out]

Prints the findings count, then the top functions by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lint_speed import STAGE_EXTS, shader_files

from hlsllint.config import ConfigResolver, Settings
from hlsllint.lint import lint_paths, tune_gc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--out", help="keep the raw profile here (pstats format)")
    args = ap.parse_args()
    files = shader_files(args.folders)
    tune_gc()  # as the CLI does
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS))
    profile = cProfile.Profile()
    profile.enable()
    result = lint_paths(files, resolver, jobs=1, cache=None)
    profile.disable()
    out = args.out or os.path.join(tempfile.mkdtemp(prefix="hlsllint-profile-"), "lint.prof")
    profile.dump_stats(out)
    print(f"files: {len(files)}  findings: {len(result.diagnostics)}  profile: {out}")
    stats = pstats.Stats(out)
    stats.sort_stats("cumulative").print_stats(args.top)
    stats.sort_stats("tottime").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
