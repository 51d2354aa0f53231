"""Time the CLI on pathological nesting at full size: each shape of `tests/hostile.py` (50,000
terms, parentheses, nested `if`s, blocks, calls, chained locals and structs, a deep `#if`), one
process per file, and report its wall time, exit code and findings.

    python bench/deep_nesting.py [--size 50000] [--time-budget 10] [--hlsllint PATH]

What it checks: no run crashes (exit 0 or 1) and each ends within the time budget plus a
second, with a finding that says what happened (HL007 nesting-too-deep, HL003 for `#if`,
HL006 time budget). The budget counts from when the file is read: the wall time of the same
command on a trivial file (start-up, imports, output) is measured first and subtracted. Use the
`hlsllint` of a compiled install to measure the compiled stages.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import hostile


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=50_000)
    ap.add_argument("--time-budget", type=float, default=10.0)
    ap.add_argument("--hlsllint", default=shutil.which("hlsllint") or "hlsllint")
    ap.add_argument("--shapes", nargs="*", default=[*hostile.SHAPES, "macro-terms"])
    args = ap.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        trivial = Path(tmp) / "trivial.hlsl"
        trivial.write_text(hostile.terms(1))
        base = min(_run(args, trivial)[0] for _ in range(3))
        print(f"start-up (a trivial file): {base:.1f} s; the times below are past it")
        for shape in args.shapes:
            if shape == "macro-terms":
                text = hostile.macro_terms(args.size // 10_000 * 10_000)
            else:
                text = hostile.SHAPES[shape](args.size)
            path = Path(tmp) / f"{shape}.hlsl"
            path.write_text(text)
            wall, run = _run(args, path)
            wall -= base
            try:
                codes = sorted({str(d["code"]) for d in json.loads(run.stdout)})
            except ValueError:
                codes = ["(no report)"]
            ok = run.returncode in (0, 1) and wall <= args.time_budget + 1 and codes != ["(no report)"]
            failed |= not ok
            size = f"{len(text.encode()):,} bytes"
            verdict = "ok" if ok else "FAIL"
            print(f"{shape:14} {size:>16}  {wall:6.1f} s  exit {run.returncode:3}  {codes}  {verdict}")
            if run.stderr.strip():
                print("    " + run.stderr.strip().splitlines()[-1][:200])
    return 1 if failed else 0


def _run(args: argparse.Namespace, path: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    cmd = [args.hlsllint, str(path), "--no-cache", "--output-format", "json"]
    cmd += ["--time-budget", f"{args.time_budget:g}"]
    start = time.monotonic()
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return time.monotonic() - start, run


if __name__ == "__main__":
    sys.exit(main())
