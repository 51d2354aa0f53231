"""Where a `-j 2` lint's time goes beside the work: each process's busy seconds (its groups of
units) and when its first group started and its last ended, against the run's wall-clock time.
With `-j 2` the main process lints beside one worker (`driver._run_units`).

    python bench/worker_balance.py /work/corpus/FidelityFX-SDK [--runs 3]
    python bench/worker_balance.py /work/corpus/FidelityFX-SDK --order

`--order` checks what the queue's order rests on instead: the rank correlation (Spearman) of a
unit's `-j 1` lint time with its main file's size and with `_IncludeScan.reach_size`; with
`--shards N` also how evenly `--shard K/N` splits that time (the slowest shard over the mean)
when units are weighed by either.

A process busy for much less than the run lasts waits on start-up or on the other; busy seconds
that sum to more than a `-j 1` lint's are per-process caches filled twice and the CPUs' sharing.
The lint is cold (no cache) and forked from this process.
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lint_speed import STAGE_EXTS, shader_files

import hlsllint.driver as driver
from hlsllint.config import ConfigResolver, Settings
from hlsllint.lint import FileLoader, UnitResult, tune_gc

_run_group = driver._run_group


def _timed_group(units: list[driver._Unit], loader: FileLoader) -> list[UnitResult]:
    start = time.perf_counter()
    results = _run_group(units, loader)
    results[0].timings["busy"] = time.perf_counter() - start
    results[0].timings["pid"] = os.getpid()
    results[0].timings["group start"] = start
    results[0].timings["group end"] = time.perf_counter()
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--order", action="store_true", help="how well sizes predict a unit's lint time")
    ap.add_argument("--shards", type=int, default=0, help="with --order: the balance of N shards")
    args = ap.parse_args()
    files = shader_files(args.folders)
    tune_gc()
    if args.order:
        return _order(files, args.shards)
    driver._run_group = _timed_group  # forked workers inherit the timed version
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS))
    for _ in range(args.runs):
        t0 = time.perf_counter()
        result = driver.lint_paths(files, resolver, jobs=2, cache=None)
        wall = time.perf_counter() - t0
        busy: dict[float, float] = collections.Counter()
        first: dict[float, float] = {}
        last: dict[float, float] = {}
        for u in result.units:
            pid = u.timings.get("pid")
            if pid is not None:
                busy[pid] += u.timings["busy"]
                first[pid] = min(first.get(pid, wall), u.timings["group start"] - t0)
                last[pid] = max(last.get(pid, 0.0), u.timings["group end"] - t0)
        shares = [
            f"{'main' if pid == os.getpid() else 'worker'} busy {busy[pid]:.3f} "
            f"from {first[pid]:.3f} to {last[pid]:.3f}"
            for pid in sorted(busy, key=lambda p: p != os.getpid())
        ]
        print(f"wall {wall:.3f} s; " + "; ".join(shares) + " s")
    return 0


def _ranks(xs: list[float]) -> list[float]:
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    for rank, i in enumerate(order):
        ranks[i] = rank
    return ranks


def _order(files: list[str], shards: int) -> int:
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS))
    result = driver.lint_paths(files, resolver, jobs=1, cache=None)
    loader = FileLoader()
    scan = driver._IncludeScan(loader)
    units = [u for u in result.units if u.same_as is None]
    seconds = _ranks([sum(u.timings.values()) for u in units])
    planned = {
        (u.path, u.variant.name if u.variant else None): u
        for u in driver._plan_units(files, resolver, loader)
    }
    plan = [planned[(u.path, u.variant)] for u in units]
    main_size = statistics.correlation(seconds, _ranks([float(driver._size(loader, u.path)) for u in plan]))
    reach = statistics.correlation(seconds, _ranks([float(scan.reach_size(u)) for u in plan]))
    print(f"{len(units)} units; rank correlation of a unit's lint time with")
    print(f"  {'its main file':38}{main_size:5.2f}")
    print(f"  {'what it may include too (reach_size)':38}{reach:5.2f}")
    if shards > 1:
        spent = {(u.path, u.variant): sum(u.timings.values()) for u in result.units}
        reach_of = {u.path: scan.reach_size(u) for u in plan}
        weights = {"its main file": lambda p: driver._size(loader, p), "reach_size": reach_of.__getitem__}
        for name, weight in weights.items():
            parts = [
                sum(spent[(u.path, u.variant.name if u.variant else None)] for u in part)
                for part in (driver.shard_units(plan, (k, shards), weight) for k in range(1, shards + 1))
            ]
            mean = sum(parts) / shards
            slowest = max(parts)
            ratio = slowest / mean
            print(f"{shards} shards by {name}: slowest {slowest:.2f} s, mean {mean:.2f} s ({ratio:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
