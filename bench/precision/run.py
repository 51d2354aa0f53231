"""Precision bench: lint the engine-grade corpus and count findings per rule.

    python bench/precision/run.py /work/corpus [--select HL101,HL102] [--show HL103] [--json out.json]
    python bench/precision/run.py /work/corpus --sample 20 --seed 1 [--select HL108]

Scans the production trees (the compiler test suites are excluded), with the Vulkan samples' HLSL
stage extensions enabled, and prints files scanned and findings per rule and repository. `--show`
prints every finding of the given rules (path:row:col message) for hand review. `--sample N` picks
up to N findings per rule for review, spread over the repositories (round robin, shuffled with
`--seed`), each with the source lines around it. The reviewed verdicts are in README.md next to
this script.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

PRODUCTION = (
    "microsoft+DirectX-Graphics-Samples",
    "GPUOpen-LibrariesAndSDKs+FidelityFX-SDK",
    "sebbbi+perftest",
    "SaschaWillems+Vulkan",
    "microsoft+Xbox-ATG-Samples",
    "KhronosGroup+Vulkan-Samples",
    "NVIDIAGameWorks+RTXDI",
    "GPUOpen-LibrariesAndSDKs+Cauldron",
)
EXTENSIONS = [".hlsl", ".hlsli", ".fx", ".fxh", ".vert", ".frag", ".comp", ".geom", ".tesc", ".tese"]
RULES = ("HL101", "HL102", "HL103", "HL104", "HL105", "HL106", "HL107")
HLSLLINT = Path(sys.executable).with_name("hlsllint")


def run(corpus: Path, select: tuple[str, ...]) -> tuple[int, list[dict[str, object]]]:
    dirs = [str(corpus / d) for d in PRODUCTION if (corpus / d).is_dir()]
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "hlsllint.toml"
        config.write_text(f"extensions = {json.dumps(EXTENSIONS)}\n", encoding="utf-8")
        base = [str(HLSLLINT), "check", "--config", str(config)]
        files = subprocess.run(
            [*base, "--show-files", *dirs], capture_output=True, text=True, check=False
        ).stdout.split()
        out = subprocess.run(
            [*base, "--select", ",".join(select), "--output-format", "json", "--exit-zero", "-q", *dirs],
            capture_output=True,
            text=True,
            check=False,
        )
    findings = json.loads(out.stdout or "[]")
    return len(files), findings


def repository(corpus: Path, filename: str) -> str:
    """The corpus folder a finding's file lies in (symlinked owner+name folders resolve to it)."""
    try:
        return Path(filename).resolve().relative_to(corpus.resolve()).parts[0]
    except ValueError:
        return "?"


def sample(findings: list[dict[str, object]], corpus: Path, n: int, seed: int) -> list[dict[str, object]]:
    """Up to n findings, taken round robin over the repositories, in a shuffled but fixed order."""
    by_repo: dict[str, list[dict[str, object]]] = {}
    for f in findings:
        by_repo.setdefault(repository(corpus, str(f["filename"])), []).append(f)
    rng = random.Random(seed)
    queues = [rng.sample(v, len(v)) for _, v in sorted(by_repo.items())]
    picked: list[dict[str, object]] = []
    while len(picked) < n and any(queues):
        for q in queues:
            if q and len(picked) < n:
                picked.append(q.pop())
    return picked


def context(filename: str, row: int, around: int = 3) -> str:
    try:
        lines = Path(filename).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    lo, hi = max(1, row - around), min(len(lines), row + around)
    return "\n".join(f"{'>' if r == row else ' '}{r:5d} | {lines[r - 1]}" for r in range(lo, hi + 1))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--select", default=",".join(RULES))
    ap.add_argument("--show", default="")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--sample", type=int, default=0, help="findings per rule to print for review")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    select = tuple(s for s in args.select.split(",") if s)
    n_files, findings = run(args.corpus, select)
    counts = Counter(str(f["code"]) for f in findings)
    print(f"files scanned: {n_files}")
    for code in select:
        repos = Counter(repository(args.corpus, str(f["filename"])) for f in findings if f["code"] == code)
        spread = ", ".join(f"{r} {n}" for r, n in sorted(repos.items()))
        print(f"{code}: {counts.get(code, 0)} findings" + (f" ({spread})" if spread else ""))
    if args.sample:
        for code in select:
            for f in sample([f for f in findings if f["code"] == code], args.corpus, args.sample, args.seed):
                loc = f.get("location") or {}
                row = int(loc.get("row", 0)) if isinstance(loc, dict) else 0
                print(f"\n{code} {f['filename']}:{row} {f['message']}")
                print(context(str(f["filename"]), row))
    show = {s for s in args.show.split(",") if s}
    for f in findings:
        if f["code"] in show:
            loc = f.get("location") or {}
            row = loc.get("row") if isinstance(loc, dict) else None
            col = loc.get("column") if isinstance(loc, dict) else None
            print(f"{f['code']} {f['filename']}:{row}:{col} {f['message']}")
    if args.json:
        args.json.write_text(json.dumps(findings, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
