"""What each compiled part costs to build and what it saves a lint, one build per configuration:

    python bench/build_cost.py /work/corpus/FidelityFX-SDK all:3 all:2 all:1 pure
    python bench/build_cost.py -- /work/corpus/FidelityFX-SDK all:2 -analysis:2 -semantic:2 ...

A configuration is `WHAT:LEVEL`: WHAT is `all`, a comma list of setup.py's compiled packages and
modules (`preprocess,syntax`), or `-NAME` for all but that one (then put `--` before the folder);
LEVEL the C compiler's -O level; `pure` builds nothing. Each is built in a fresh clone of HEAD
(`setup.py build_ext --inplace`,
as the wheel build does, with `HLSLLINT_COMPILE`, `HLSLLINT_OPT_LEVEL` and `HLSLLINT_BUILD_JOBS`)
and timed: wall seconds, and the CPU seconds of the build and its compilers (which the host's load
moves far less). Then a cold `-j 1` lint of the folder runs on that clone under callgrind
(`bench/profile_lint.py --no-profile`, the whole process, bytecode written beforehand as an
install does); instructions do not move with the load.

Run it with a Python that has the build requirements (pyproject.toml: mypy, setuptools, pybind11,
tree-sitter) and hlsllint's dependencies installed; `--jobs N` compiles N files at once (default 2).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARTS = ("preprocess", "syntax", "semantic", "analysis", "checker.py")


def compile_choice(what: str) -> str:
    if what == "all":
        return "1"
    if what == "pure":
        return "0"
    if what.startswith("-"):
        left_out = set(what[1:].split(","))
        return ",".join(p for p in PARTS if p not in left_out)
    return what


def build(clone: Path, what: str, level: str, jobs: int) -> tuple[float, float]:
    env = {
        **os.environ,
        "HLSLLINT_COMPILE": compile_choice(what),
        "HLSLLINT_OPT_LEVEL": level,
        "HLSLLINT_BUILD_JOBS": str(jobs),
    }
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
        cwd=clone,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def instructions(clone: Path, folder: str, keep: str | None) -> tuple[int, int]:
    """(callgrind's total for the whole process, how many modules of hlsllint are compiled)."""
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "PYTHONPATH": str(clone)}
        compiled = len(list((clone / "hlsllint").rglob("*.so")))
        # Bytecode for the modules that stay Python, as pip writes it on install: a fresh clone has
        # none, and compiling it on import cost about 480 M instructions of a FidelityFX lint.
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(clone)], check=True)
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}/cg",
                sys.executable,
                str(ROOT / "bench" / "profile_lint.py"),
                "--no-profile",
                folder,
            ],
            env=env,
            cwd=out,
            check=True,
            capture_output=True,
        )
        summary = subprocess.run(["callgrind_annotate", f"{out}/cg"], capture_output=True, text=True).stdout
        if keep:
            shutil.copy(f"{out}/cg", keep)
        match = re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", summary) or re.search(
            r"([\d,]+)\s+PROGRAM TOTALS", summary
        )
        assert match, summary[:2000]
        return int(match.group(1).replace(",", "")), compiled


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("configs", nargs="+", help="WHAT:LEVEL, or pure")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", metavar="DIR", help="keep each callgrind profile here (callgrind.WHAT-LEVEL)")
    args = ap.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    load = os.getloadavg()[0]
    print(f"HEAD {head.stdout.strip()}, {Path(args.folder).name}, {args.jobs} compile jobs, load {load:.1f}")
    print("| compiled | -O | build wall | build CPU | compiled modules | lint instructions |")
    print("|---|---:|---:|---:|---:|---:|")
    for config in args.configs:
        what, _, level = config.partition(":")
        with tempfile.TemporaryDirectory(prefix="hlsllint-build-", ignore_cleanup_errors=True) as tmp:
            clone = Path(tmp) / "clone"
            subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
            wall, cpu = build(clone, what, level or "3", args.jobs)
            keep = args.keep and os.path.join(args.keep, f"callgrind.{what}-{level}")
            count, compiled = instructions(clone, args.folder, keep)
        print(
            f"| {what} | {level or '-'} | {wall:.0f} s | {cpu:.0f} s | {compiled} | {count / 1e9:.3f} G |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
