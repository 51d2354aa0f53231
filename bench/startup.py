"""Start-up cost: whole `hlsllint` processes on tiny inputs, where importing is most of the time.

    python bench/startup.py [--runs 10] [--python PATH] [FILE ...]

runs each command below in fresh processes (`--runs` times each, the commands interleaved so
that a change in the machine's load touches all of them alike) and prints the fastest and the
median wall-clock seconds: the interpreter alone (`python -c pass`, the floor), `--version`,
`rule HL101`, `config`, a lint of a one-entry-point compute shader (`check tiny.hlsl
--no-cache`, text and JSON output) and, when FILEs are given, a lint of them as a pre-commit hook
runs it (`check --no-cache FILE ...`). The console script next to `--python` (default: this
interpreter) is what runs, from a temporary folder (a source checkout in the working folder would
shadow the installed package). Where the time goes inside one process:
`python -X importtime -m hlsllint check tiny.hlsl --no-cache 2> imports.txt`.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TINY = """RWBuffer<float> Out : register(u0);
Buffer<float> In : register(t0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Out[id.x] = In[id.x] * 2.0;
}
"""


def commands(python: str, files: list[str]) -> dict[str, list[str]]:
    script = Path(python).with_name("hlsllint")
    hlsllint = [str(script)] if script.exists() else [python, "-m", "hlsllint"]
    out = {
        "python -c pass": [python, "-c", "pass"],
        "hlsllint --version": [*hlsllint, "--version"],
        "hlsllint rule HL101": [*hlsllint, "rule", "HL101"],
        "hlsllint config": [*hlsllint, "config"],
        "check tiny.hlsl --no-cache": [*hlsllint, "check", "tiny.hlsl", "--no-cache"],
        "... --output-format json": [*hlsllint, "check", "tiny.hlsl", "--no-cache", "--output-format=json"],
    }
    if files:
        out[f"check --no-cache on {len(files)} files"] = [*hlsllint, "check", "--no-cache", *files]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("files", nargs="*", help="shader files for a pre-commit-like run")
    parser.add_argument("--runs", type=int, default=10, help="fresh processes per command (default 10)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the install to time")
    args = parser.parse_args()
    files = [str(Path(f).resolve()) for f in args.files]
    runs = commands(args.python, files)
    times: dict[str, list[float]] = {name: [] for name in runs}
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "tiny.hlsl").write_text(TINY)
        for cmd in runs.values():  # one run each, not counted: the files reach the OS cache
            subprocess.run(cmd, cwd=folder, capture_output=True, check=False)
        for _ in range(args.runs):
            for name, cmd in runs.items():
                start = time.perf_counter()
                done = subprocess.run(cmd, cwd=folder, capture_output=True, check=False)
                times[name].append(time.perf_counter() - start)
                if done.returncode not in (0, 1):
                    print(f"{name}: exit {done.returncode}\n{done.stderr.decode()}", file=sys.stderr)
                    return 2
    probe = "import hlsllint.analysis.cfg as m; print(m.__file__.endswith('.so'))"
    compiled = subprocess.run([args.python, "-P", "-c", probe], capture_output=True, text=True).stdout
    build = "compiled by mypyc" if compiled.strip() == "True" else "pure Python"
    print(f"{args.python} (hlsllint {build}): {args.runs} fresh processes each, wall-clock seconds")
    width = max(len(name) for name in runs)
    print(f"{'command':<{width}}  fastest  median")
    for name, found in times.items():
        print(f"{name:<{width}}  {min(found):7.3f}  {statistics.median(found):6.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
