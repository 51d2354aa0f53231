"""Where a `-j 2` lint's time goes beside the work: each worker's busy seconds (its groups of
units) and when its last group ended, against the run's wall-clock time.

    python bench/worker_balance.py /work/corpus/FidelityFX-SDK [--runs 3]

A worker busy for much less than the run lasts waits on start-up and on the pool's per-task
round trips; busy seconds that sum to more than a `-j 1` lint's are per-process caches filled
twice and the CPUs' sharing. The lint is cold (no cache) and forked from this process.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lint_speed import STAGE_EXTS, shader_files

import hlsllint.driver as driver
from hlsllint.config import ConfigResolver, Settings
from hlsllint.lint import UnitResult, tune_gc

_run_group = driver._run_group


def _timed_group(units: list[driver._Unit], overrides: dict[str, str]) -> list[UnitResult]:
    start = time.perf_counter()
    results = _run_group(units, overrides)
    results[0].timings["worker busy"] = time.perf_counter() - start
    results[0].timings["worker pid"] = os.getpid()
    results[0].timings["group end"] = time.perf_counter()
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    files = shader_files(args.folders)
    tune_gc()
    driver._run_group = _timed_group  # forked workers inherit the timed version
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS))
    for _ in range(args.runs):
        t0 = time.perf_counter()
        result = driver.lint_paths(files, resolver, jobs=2, cache=None)
        wall = time.perf_counter() - t0
        busy: dict[float, float] = collections.Counter()
        end: dict[float, float] = {}
        for u in result.units:
            pid = u.timings.get("worker pid")
            if pid is not None:
                busy[pid] += u.timings["worker busy"]
                end[pid] = max(end.get(pid, 0.0), u.timings["group end"] - t0)
        print(
            f"wall {wall:.3f} s; per worker busy {', '.join(f'{b:.3f}' for b in busy.values())} s, "
            f"last group ended at {', '.join(f'{e:.3f}' for e in end.values())} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
