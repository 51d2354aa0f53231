"""How far ACO's scheduler trades occupancy for latency, on the pairs of an engine.py run.

    python bench/pressure/engine.py /work/corpus -j 2 --json /tmp/engine.json
    python bench/pressure/scheduler_trade.py /tmp/engine.json [--family navi21 --wave 64]

Mesa 22.3's ACO (the compiler regtruth runs) does not keep the occupancy that the
pre-scheduling register demand allows. Its scheduler picks a target wave count from that demand
(`hlsllint.analysis.occupancy.aco_scheduler_waves`: the register file in units of 256 VGPRs
is `fac`; a shader that already runs at most `5 * fac` waves keeps its count, otherwise a demand
of 29 VGPRs or more targets `5 * fac` waves, 25-28 targets `6 * fac`, less targets `7 * fac`,
never more than the demand allows, and the count is then floored to a multiple of `fac`: an
RDNA2 wave64 shader at 9 waves aims at 8) and may then use every register that target leaves,
less two (`aco_scheduler_ceiling`). So the real occupancy lies between the target and what the
demand allows.

This script checks that window against regtruth (with the true pre-scheduling demand: how many
entries land inside it), then asks what a point prediction would gain: the estimate moved a
fraction `a` of the way towards the scheduler's ceiling, scored as issue 9 scores occupancy
(exact, within one step, two or more waves below the truth), tune and held-out apart.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import levels_apart  # noqa: E402

from hlsllint.analysis.occupancy import aco_scheduler_ceiling, vgpr_waves  # noqa: E402
from hlsllint.targets import resolve_target  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="the --json output of bench/pressure/engine.py")
    ap.add_argument("--family", default="navi21")
    ap.add_argument("--wave", type=int, default=64)
    args = ap.parse_args()
    t = resolve_target(args.family)
    wave = args.wave
    pairs = json.loads(Path(args.json).read_text())["pairs"]

    def waves_at(vgprs: int, cap: int) -> int:
        # the pair's own estimate already carries the LDS/SGPR limits: keep them as a cap
        slots = 64 // wave if t.family == "rdna" else 1
        return min(cap, vgpr_waves(t, wave, vgprs) * slots)

    inside = [
        p
        for p in pairs
        if waves_at(aco_scheduler_ceiling(t, wave, p["truth_vgprs"]), 99) <= p["truth_waves"]
        and p["truth_waves"] <= waves_at(p["truth_vgprs"], 99)
    ]
    traded = [p for p in pairs if p["truth_waves"] < waves_at(p["truth_vgprs"], p["truth_waves"] + 99)]
    print(
        f"{len(pairs)} entries; regtruth occupancy inside the scheduler's window (true demand): "
        f"{len(inside)}; below what the demand alone allows: {len(traded)}"
    )
    print(f"{'a':>5} {'split':<9} {'n':>4} {'exact':>7} {'within 1':>9} {'2 below':>8}")
    for a in (0.0, 0.25, 0.5, 0.75, 1.0):
        for split in ("tune", "held-out"):
            rows = [p for p in pairs if p["split"] == split]
            if not rows:
                continue
            exact = within = below = 0
            for p in rows:
                est = p["est_vgprs"]
                moved = round(est + a * (aco_scheduler_ceiling(t, wave, est) - est))
                w = min(p["est_waves"], waves_at(moved, p["est_waves"]))
                exact += w == p["truth_waves"]
                within += levels_apart(args.family, wave, w, p["truth_waves"]) <= 1
                below += w <= p["truth_waves"] - 2
            n = len(rows)
            print(
                f"{a:5.2f} {split:<9} {n:4d} {100 * exact / n:6.1f}% {100 * within / n:8.1f}% "
                f"{100 * below / n:7.1f}%"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
