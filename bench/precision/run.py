"""Precision bench for HL101-HL107: lint the production corpus and count findings per rule.

    python bench/precision/run.py /work/corpus [--select HL101,HL102] [--show HL103] [--json out.json]

Scans the four production trees (the compiler test suites are excluded), with the Vulkan
samples' HLSL stage extensions enabled, and prints files scanned and findings per rule. `--show`
prints every finding of the given rules (path:row:col message) for hand review; the reviewed
verdicts are in README.md next to this script.
"""

from __future__ import annotations

import argparse
import json
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
)
EXTENSIONS = [".hlsl", ".hlsli", ".fx", ".fxh", ".vert", ".frag", ".comp", ".geom", ".tesc", ".tese"]
RULES = ("HL101", "HL102", "HL103", "HL104", "HL106", "HL107")
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


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--select", default=",".join(RULES))
    ap.add_argument("--show", default="")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    select = tuple(s for s in args.select.split(",") if s)
    n_files, findings = run(args.corpus, select)
    counts = Counter(str(f["code"]) for f in findings)
    print(f"files scanned: {n_files}")
    for code in select:
        print(f"{code}: {counts.get(code, 0)} findings")
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
