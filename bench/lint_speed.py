"""Lint speed on real shaders, in one run on the same files:

    python bench/lint_speed.py /work/corpus/DirectX-Graphics-Samples/MiniEngine ... [--no-parallel]

prints whether the installed hlsllint is compiled (mypyc, `pip install .`) or pure Python (an
editable install); tree-sitter's parse-only time; the front end alone (every unit preprocessed and
its expansion parsed, as a lint must before any analysis) and its ratio to the parse (both the
fastest of three runs); a cold lint (`-j 1`, empty cache) and its ratio to the parse (with how
many units took the findings of an identical unit instead of being analysed; the fastest of this
process's first lint and `--runs` lints in fresh processes); a warm lint (`-j 1`, nothing changed)
and its ratio to the cold one; how many units one edited header makes the cache re-lint against
how many include it (the edit is an in-memory override: nothing under the folders is written); a
cold `-j 2` lint and its speed-up over `-j 1` (timed as the cold `-j 1` one, the two interleaved);
peak memory; the ten slowest units. The cache lives in a temporary folder. Run it on an otherwise
idle machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import tree_sitter

import hlsllint.analysis.cfg
from hlsllint import preprocess
from hlsllint.cache import Cache
from hlsllint.config import ConfigResolver, Settings
from hlsllint.driver import LintResult, _plan_units, _Unit, lint_paths
from hlsllint.lint import FileLoader, front_end, tune_gc
from hlsllint.syntax import language

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


def _timed_run(files: list[str], resolver: ConfigResolver, **kwargs: Any) -> tuple[float, LintResult]:
    t0 = time.perf_counter()
    result = lint_paths(files, resolver, **kwargs)
    return time.perf_counter() - t0, result


FLOOR_RUNS = 3
"""The parse-only floor and the front end are each timed this many times and the fastest run is
kept: they take hundredths to tenths of a second, where one run moves by up to 1.8x with the
host's load. The cold lint runs once (a second run in one process would find its per-process
caches filled)."""


def _parse_time(parser: tree_sitter.Parser, data: dict[str, bytes]) -> float:
    t0 = time.perf_counter()
    for d in data.values():
        parser.parse(d)
    return time.perf_counter() - t0


def _front_end_time(units: list[_Unit]) -> float:
    """Seconds to preprocess every unit and parse its expansion, cold (no file or lexer reused
    from before), as the lint driver does before any analysis."""
    preprocess.clear_cache()
    loader = FileLoader()
    t0 = time.perf_counter()
    for u in units:
        front_end(loader(u.path), u.settings, u.variant, loader)
    elapsed = time.perf_counter() - t0
    preprocess.clear_cache()
    return elapsed


def _most_included_header(units: list[_Unit], cache: Cache) -> tuple[str, int] | None:
    """The header that the most units read (as the cold run recorded it), with that count."""
    counts: dict[str, int] = {}
    for u in units:
        entry = cache.entry(cache.key(u.path, u.settings, u.variant))
        for f in entry.deps if entry else ():
            if f != u.path:
                counts[f] = counts.get(f, 0) + 1
    if not counts:
        return None
    return max(counts.items(), key=lambda kv: (kv[1], kv[0]))


def _time_one(jobs: int, list_file: str) -> int:
    """`--time-one`: print the seconds of one cold lint of the files listed in `list_file`, in this
    fresh process (imports excluded), as `_fresh_runs` asks."""
    files = Path(list_file).read_text(encoding="utf-8").splitlines()
    tune_gc()
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS))
    seconds, _ = _timed_run(files, resolver, jobs=jobs, cache=None)
    print(seconds)
    return 0


def _fresh_runs(files: list[str], jobs_list: list[int], runs: int) -> dict[int, float]:
    """The fastest of `runs` cold lints per `-j` value, each in a fresh process (no per-process
    cache filled by an earlier lint), the `-j` values interleaved so that a change in the host's
    load reaches all of them alike."""
    best = dict.fromkeys(jobs_list, float("inf"))
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write("\n".join(files))
    try:
        for _ in range(runs):
            for jobs in jobs_list:
                out = subprocess.run(
                    [sys.executable, __file__, "--time-one", str(jobs), f.name],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                best[jobs] = min(best[jobs], float(out.stdout.split()[-1]))
    finally:
        os.unlink(f.name)
    return best


def main() -> int:
    if sys.argv[1:2] == ["--time-one"]:
        return _time_one(int(sys.argv[2]), sys.argv[3])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--no-parallel", action="store_true", help="skip the -j 2 runs")
    ap.add_argument(
        "--runs",
        type=int,
        default=3,
        help="cold lints per -j value, each in a fresh process; the fastest is reported (default 3)",
    )
    args = ap.parse_args()
    files = shader_files(args.folders)
    data = {f: Path(f).read_bytes() for f in files}
    lines = sum(d.count(b"\n") + 1 for d in data.values())

    parser = tree_sitter.Parser(language())
    parse_s = min(_parse_time(parser, data) for _ in range(FLOOR_RUNS))

    tune_gc()  # as the CLI does
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS))
    units = _plan_units(files, resolver, FileLoader())
    front_s = min(_front_end_time(units) for _ in range(FLOOR_RUNS))
    stamps: list[float] = []
    with tempfile.TemporaryDirectory(prefix="hlsllint-bench-") as tmp:
        cache = Cache(os.path.join(tmp, "cache"))
        t0 = time.perf_counter()
        cold_s, result = _timed_run(
            files, resolver, jobs=1, cache=cache, progress=lambda _d, _t: stamps.append(time.perf_counter())
        )
        per_unit = [b - a for a, b in zip([t0, *stamps], stamps, strict=False)]
        warm_cache = Cache(os.path.join(tmp, "cache"))
        warm_s, warm = _timed_run(files, resolver, jobs=1, cache=warm_cache)
        same = warm.diagnostics == result.diagnostics
        header = _most_included_header(units, cache)
        edit_line = ""
        if header is not None:
            path, includers = header
            edited = Cache(os.path.join(tmp, "cache"))
            text = FileLoader()(path).text + "\n// edited\n"
            edit_s, _ = _timed_run(files, resolver, jobs=1, cache=edited, overrides={path: text})
            edit_line = (
                f"{'edit one header, warm':<26} {edit_s:8.2f} s  {path}: re-linted {edited.misses} "
                f"units, {includers} include it, {edited.hits} reused"
            )
    j2_s = 0.0
    if not args.no_parallel:
        j2_s, j2 = _timed_run(files, resolver, jobs=2)
        same = same and j2.diagnostics == result.diagnostics
    fresh = _fresh_runs(files, [1] if args.no_parallel else [1, 2], args.runs) if args.runs else {}
    cold_s = min(cold_s, fresh.get(1, cold_s))
    j2_s = min(j2_s, fresh.get(2, j2_s)) if j2_s else 0.0
    peak_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peak_child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    compiled = (hlsllint.analysis.cfg.__file__ or "").endswith(".so")
    print(f"hlsllint {'compiled by mypyc' if compiled else 'pure Python (an editable install)'}")
    print(
        f"files: {len(files)}  units: {len(units)}  lines: {lines}  findings: {len(result.diagnostics)}  "
        f"internal errors: {len(result.errors)}  same findings cold/warm/-j 2: {same}"
    )
    print(f"{'tree-sitter parse only':<26} {parse_s:8.2f} s  {lines / parse_s:>10,.0f} lines/s")
    print(
        f"{'front end only, -j 1':<26} {front_s:8.2f} s  {lines / front_s:>10,.0f} lines/s  "
        f"{front_s / parse_s:6.1f}x parse  (preprocess + parse of every unit's expansion)"
    )
    print(
        f"{'cold lint, -j 1':<26} {cold_s:8.2f} s  {lines / cold_s:>10,.0f} lines/s  "
        f"{cold_s / parse_s:6.1f}x parse  ({sum(1 for u in result.units if u.same_as)} of {len(units)} units "
        "took an identical unit's findings)"
    )
    print(
        f"{'warm lint (cached), -j 1':<26} {warm_s:8.2f} s  {lines / warm_s:>10,.0f} lines/s  "
        f"{100 * warm_s / cold_s:5.1f}% of cold"
    )
    if edit_line:
        print(edit_line)
    if j2_s:
        print(
            f"{'cold lint, -j 2':<26} {j2_s:8.2f} s  {lines / j2_s:>10,.0f} lines/s  "
            f"{cold_s / j2_s:.2f}x -j 1"
        )
    print(f"{'peak memory':<26} {peak_self:8.0f} MiB (main process), {peak_child:.0f} MiB (largest worker)")
    print("slowest units (-j 1, cold):")
    for secs, unit in sorted(zip(per_unit, units, strict=False), key=lambda t: -t[0])[:10]:
        variant = f" [{unit.variant.name}]" if unit.variant else ""
        print(f"  {secs:7.3f} s  {unit.path}{variant}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
