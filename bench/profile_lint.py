"""cProfile of a cold `-j 1` lint (no cache) of shader folders, as bench/lint_speed.py lints them.

    python bench/profile_lint.py /work/corpus/DirectX-Graphics-Samples/MiniEngine [--top 40] [--out prof.out]

Prints the findings count, then the top functions by cumulative and by own time. No time
budget applies (a slow unit is analysed, not skipped). `--no-profile` runs the same lint without
the profiler and prints its CPU seconds, for counting instructions, which do not move with the
host's load as seconds do:

    valgrind --tool=callgrind --callgrind-out-file=OUT python bench/profile_lint.py --no-profile FOLDER
    callgrind_annotate OUT | grep 'PROGRAM TOTALS'
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lint_speed import STAGE_EXTS, shader_files

from hlsllint.config import ConfigResolver, Settings
from hlsllint.driver import lint_paths
from hlsllint.lint import tune_gc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--out", help="keep the raw profile here (pstats format)")
    ap.add_argument("--no-profile", action="store_true", help="lint without the profiler")
    args = ap.parse_args()
    files = shader_files(args.folders)
    tune_gc()  # as the CLI does
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS, time_budget=0.0))
    if args.no_profile:
        start = time.process_time()
        result = lint_paths(files, resolver, jobs=1, cache=None)
        cpu = time.process_time() - start
        print(f"files: {len(files)}  findings: {len(result.diagnostics)}  cpu: {cpu:.2f} s")
        return 0
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
