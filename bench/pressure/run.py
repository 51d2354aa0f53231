"""Score hlsllint's register-pressure estimate against the real compiler (regtruth: RADV/ACO).

    python bench/pressure/run.py [--corpus /work/corpus] [--family navi21 --family polaris10]
                                 [--sets fixtures,calibration,corpus] [--worst 10] [--json OUT]

For every entry point that both regtruth and hlsllint see, it compares hlsllint's
`max_live_vgprs` with regtruth's `presched_vgprs` (ACO's max-live before scheduling) and
hlsllint's occupancy (`driver_waves_per_simd`, RADV's formula on our estimate) with regtruth's
`waves_per_simd`. Entries are split into a tuning half and a held-out half by a hash of the file
path; both are reported, with the bar (median relative error ≤ 20 %, Spearman ≥ 0.8, occupancy
exact on ≥ 70 %).

regtruth results are cached in bench/pressure/cache/ (gitignored); a first run on the default
corpus takes a few minutes on two cores.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

import truth  # noqa: E402

from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel  # noqa: E402
from hlsllint.analysis.occupancy import driver_waves_per_simd, round_up, vgpr_waves  # noqa: E402
from hlsllint.pressure_report import EntryReport, estimate_file  # noqa: E402
from hlsllint.targets import resolve_target  # noqa: E402

STAGES = {"comp": "compute", "vert": "vertex", "frag": "pixel"}
CORPUS_DIRS = ("microsoft+DirectX-Graphics-Samples", "sebbbi+perftest")
BAR = {"median_rel": 0.20, "spearman": 0.80, "occ_exact": 0.70}


@dataclass
class Pair:
    file: str
    entry: str
    stage: str
    split: str
    truth_vgprs: int
    truth_sgprs: int
    truth_waves: int
    est_vgprs: int
    est_sgprs: int
    est_waves: int
    levels_apart: int


def levels_apart(family: str, wave: int, estimated: int, true: int) -> int:
    """How many occupancy steps of the target lie between two waves-per-SIMD figures."""
    levels = occupancy_levels(family, wave)

    def level(w: int) -> int:
        return min(range(len(levels)), key=lambda i: abs(levels[i] - w))

    return abs(level(estimated) - level(true))


def collect(sets: Sequence[str], corpus: Path) -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {}
    if "fixtures" in sets:
        out["fixtures"] = sorted((REPO / "fixtures").rglob("*.hlsl"))
    if "calibration" in sets:
        out["calibration"] = sorted((HERE / "shaders").glob("*.hlsl"))
    if "corpus" in sets:
        files: list[Path] = []
        for d in CORPUS_DIRS:
            files += sorted((corpus / d).rglob("*.hlsl"))
        out["corpus"] = files
    return out


def split_of(path: str) -> str:
    """A stable 50/50 split by file (all entries of a file land in the same half)."""
    rel = path.replace(str(REPO), "").replace("/work/corpus", "")
    return "tune" if hashlib.sha1(rel.encode()).digest()[0] % 2 == 0 else "held-out"


def ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    if len(xs) < 3:
        return float("nan")
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / (vx * vy) ** 0.5 if vx and vy else float("nan")


def occupancy_levels(target: str, wave: int) -> list[int]:
    t = resolve_target(target)
    return sorted({vgpr_waves(t, wave, v) for v in range(1, 257)})


def estimate_waves(rep: EntryReport, family: str, wave: int) -> int:
    t = resolve_target(family)
    # the VGPRs ACO's scheduler is predicted to leave (`analysis.scheduling`)
    allocated = round_up(max(rep.scheduled_vgprs, rep.max_live_vgprs, 1), t.vgpr_granule[wave])
    sgprs = None
    if t.sgpr_file is not None:
        sgprs = round_up(rep.max_live_sgprs + 2, t.sgpr_granule)
    return driver_waves_per_simd(t, wave, allocated, sgprs, rep.lds_bytes, rep.group_threads)


def pair_up(
    records: list[dict[str, object]], family: str, estimates: dict[str, list[EntryReport]]
) -> tuple[list[Pair], dict[str, int]]:
    pairs: list[Pair] = []
    counts = {"truth_ok": 0, "truth_failed": 0, "unmatched": 0}
    for rec in records:
        if "error" in rec:
            counts["truth_failed"] += 1
            continue
        counts["truth_ok"] += 1
        file, entry = str(rec["file"]), str(rec["entry"])
        stage = STAGES.get(str(rec["stage"]), str(rec["stage"]))
        match = [r for r in estimates.get(file, []) if r.entry == entry]
        if not match:
            counts["unmatched"] += 1
            continue
        rep = match[0]
        wave = int(str(rec["wave"]))
        est_waves = estimate_waves(rep, family, wave)
        truth_waves = int(str(rec["waves_per_simd"]))

        pairs.append(
            Pair(
                file=file,
                entry=entry,
                stage=stage,
                split=split_of(file),
                truth_vgprs=int(str(rec["presched_vgprs"])),
                truth_sgprs=int(str(rec["presched_sgprs"])),
                truth_waves=truth_waves,
                est_vgprs=rep.max_live_vgprs,
                est_sgprs=rep.max_live_sgprs,
                est_waves=est_waves,
                levels_apart=levels_apart(family, wave, est_waves, truth_waves),
            )
        )
    return pairs, counts


def summarize(pairs: list[Pair]) -> dict[str, float]:
    if not pairs:
        return {"n": 0}
    abs_err = [abs(p.est_vgprs - p.truth_vgprs) for p in pairs]
    rel_err = [abs(p.est_vgprs - p.truth_vgprs) / max(p.truth_vgprs, 1) for p in pairs]
    bias = [p.est_vgprs - p.truth_vgprs for p in pairs]
    return {
        "n": len(pairs),
        "median_abs": statistics.median(abs_err),
        "median_rel": statistics.median(rel_err),
        "median_bias": statistics.median(bias),
        "spearman": spearman([p.est_vgprs for p in pairs], [p.truth_vgprs for p in pairs]),
        "sgpr_spearman": spearman([p.est_sgprs for p in pairs], [p.truth_sgprs for p in pairs]),
        "occ_exact": sum(p.est_waves == p.truth_waves for p in pairs) / len(pairs),
        "occ_within_one": sum(p.levels_apart <= 1 for p in pairs) / len(pairs),
    }


def fmt(s: dict[str, float]) -> str:
    if not s.get("n"):
        return "n=0"
    marks = {
        "median_rel": "ok" if s["median_rel"] <= BAR["median_rel"] else "MISS",
        "spearman": "ok" if s["spearman"] >= BAR["spearman"] else "MISS",
        "occ_exact": "ok" if s["occ_exact"] >= BAR["occ_exact"] else "MISS",
    }
    return (
        f"n={int(s['n']):4d}  VGPR median abs err {s['median_abs']:5.1f}  "
        f"median rel err {s['median_rel']:5.1%} [{marks['median_rel']}]  "
        f"bias {s['median_bias']:+5.1f}  Spearman {s['spearman']:.3f} [{marks['spearman']}]  "
        f"occupancy exact {s['occ_exact']:5.1%} [{marks['occ_exact']}]  "
        f"within one step {s['occ_within_one']:5.1%}  (SGPR Spearman {s['sgpr_spearman']:.2f})"
    )


def cost_overrides(items: Sequence[str]) -> CostModel | None:
    if not items:
        return None
    changes: dict[str, object] = {}
    for item in items:
        name, _, raw = item.partition("=")
        current = getattr(DEFAULT_COSTS, name)
        if isinstance(current, bool):
            changes[name] = raw.lower() in ("1", "true", "yes", "on")
        elif isinstance(current, int):
            changes[name] = int(raw)
        else:
            changes[name] = type(current)(raw)
    return dataclasses.replace(DEFAULT_COSTS, **changes)  # type: ignore[arg-type]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", default="/work/corpus", type=Path)
    ap.add_argument("--family", action="append", help="RADV chip (default: navi21 and polaris10)")
    ap.add_argument("--wave", type=int, choices=(32, 64), help="compile with this wave size")
    ap.add_argument("--sets", default="fixtures,calibration,corpus")
    ap.add_argument("--regtruth", help="path to regtruth.py (default: $REGTRUTH, ../regtruth)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--worst", type=int, default=0, help="list the N largest errors")
    ap.add_argument("--json", type=Path, help="write every pair and the summaries here")
    ap.add_argument(
        "--cost",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a CostModel coefficient (hlsllint/analysis/costs.py) for this run",
    )
    args = ap.parse_args(argv)

    families = args.family or ["navi21", "polaris10"]
    costs = cost_overrides(args.cost)
    by_set = collect(args.sets.split(","), args.corpus)
    regtruth = truth.find_regtruth(args.regtruth)
    dump: dict[str, object] = {}
    for family in families:
        target = resolve_target(family)
        print(f"== {family} ({target.name}, wave {args.wave or 'default'}) ==")
        all_pairs: list[Pair] = []
        for set_name, files in by_set.items():
            records = truth.measure(files, family, args.wave, regtruth=regtruth, jobs=args.jobs)
            t0 = time.perf_counter()
            estimates: dict[str, list[EntryReport]] = {}
            for f in files:
                try:
                    estimates[str(f)] = estimate_file(str(f), target=target.name, wave=args.wave, costs=costs)
                except Exception as e:  # keep going: a crash is counted as unmatched
                    print(f"  estimate failed on {f}: {type(e).__name__}: {e}", file=sys.stderr)
            elapsed = time.perf_counter() - t0
            pairs, counts = pair_up(records, family, estimates)
            all_pairs += pairs
            print(
                f"  {set_name:11s} files {len(files)}, regtruth ok {counts['truth_ok']} "
                f"(failed {counts['truth_failed']}), unmatched {counts['unmatched']}, "
                f"estimate {elapsed:.1f}s"
            )
            for split in ("tune", "held-out"):
                print(f"    {split:8s} {fmt(summarize([p for p in pairs if p.split == split]))}")
        production = [p for p in all_pairs if "/fixtures/" not in p.file]
        for split in ("tune", "held-out", "all"):
            chosen = [p for p in production if split == "all" or p.split == split]
            print(f"  TOTAL {split:8s} {fmt(summarize(chosen))}")
        if args.worst:
            worst = sorted(all_pairs, key=lambda p: -abs(p.est_vgprs - p.truth_vgprs))[: args.worst]
            for p in worst:
                print(
                    f"    {p.est_vgprs:4d} vs {p.truth_vgprs:4d}  waves {p.est_waves}/{p.truth_waves}  "
                    f"{p.file.replace(str(args.corpus) + '/', '')}:{p.entry}"
                )
        dump[family] = {
            "pairs": [p.__dict__ for p in all_pairs],
            "summary": {
                s: summarize([p for p in production if s == "all" or p.split == s])
                for s in ("tune", "held-out", "all")
            },
        }
    if args.json:
        args.json.write_text(json.dumps(dump, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
