"""What ACO's scheduler does to an entry point's VGPRs (Mesa 22.3, the compiler regtruth runs).

ACO schedules each basic block on its own (`schedule_block`, top to bottom). At every vector
memory load (`schedule_VMEM`) it moves the instructions above the load that the load does not
depend on to below it (the load's own address computation stays above), and pulls independent
work from below its first use up: the load issues early and its result is live across
everything it passed. A move fails when it would take the demand past `max_registers`, which
the target wave count leaves (`occupancy.aco_scheduler_waves`, less two VGPRs:
`occupancy.aco_scheduler_ceiling`), and a load makes at most `256 - 16 * waves` moves (`waves`
in GCN units: the target over the register file's multiple of 256; `VMEM_MAX_MOVES`).

When the demand's own wave count is at most `5 * fac` (`fac`: the register file over 256
VGPRs), the target is that count floored to a multiple of `fac`: an RDNA2 wave64 shader at 9
waves aims at 8 and may grow from its 49-56 VGPRs to 62. Whether it does is what
`scheduled_vgprs` predicts: it replays the loads' rise on the estimate's own instruction order
(`hoisted_vgprs`) and takes the most VGPRs live anywhere, capped at the ceiling. On the tune
engines (navi21 wave64, 598 entries) it moves 9 entries from 9 waves to 8: regtruth runs 8 of
them at 8 waves (each allocating 64 VGPRs), one at 9.

Left out, because the replay does not tell them apart on the tune engines: shaders whose demand
allows more than `5 * fac` waves, which ACO aims lower still (16 waves at 29 VGPRs aims at 10):
the replay made 19 such calls, 10 right and 9 wrong, each wrong one two or more waves below the
truth; and vertex shaders (none of the 60 on tune trades waves; the replay called one).
"""

from __future__ import annotations

from hlsllint.analysis.ir import CFG, FETCH_OPS, Instr, Value
from hlsllint.analysis.liveness import Demand
from hlsllint.analysis.occupancy import (
    aco_scheduler_ceiling,
    aco_scheduler_waves,
    driver_waves_per_simd,
    round_up,
)
from hlsllint.targets import Target

_STOPS = frozenset({"store", "atomic", "discard", "export", "call"})
"""Instructions no load rises above: memory writes it may alias, and what ends lanes."""

_FREE = frozenset({"copy", "undef", "descriptor", "input", "preload", "hold", "branch"})
"""Instructions that become none of the compiler's own (coalesced copies, declarations)."""


def _stops(ins: Instr) -> bool:
    if ins.op in _STOPS:
        return True
    if ins.op == "intrinsic" and ins.dest is None:
        return "barrier" in str(ins.detail.get("name", "")).lower()
    return False


def _cost(ins: Instr, demand: Demand) -> int:
    """Roughly how many of the compiler's instructions `ins` becomes: one per VGPR component of
    its result, one for a scalar one, none for a copy or a declaration."""
    if ins.op in _FREE:
        return 0
    d = ins.dest
    if d is None or demand.classes.get(d) != "vgpr":
        return 1
    return max(1, demand.costs.get(d, d.width))


def straight_runs(cfg: CFG) -> list[list[Instr]]:
    """The kept instructions of each maximal chain of blocks that control flow runs straight
    through (a block whose only successor has it as its only predecessor), in order: the
    lowering splits a block at inlined calls and statements where the compiler's blocks go on."""
    kept = cfg.kept_instrs()
    succs = cfg.successors()
    preds = cfg.predecessors()

    def continues(b: int) -> bool:
        ps = preds.get(b, [])
        return len(ps) == 1 and ps[0] != b and len(succs.get(ps[0], [])) == 1

    runs: list[list[Instr]] = []
    for b in kept:
        if continues(b):
            continue
        run: list[Instr] = []
        at = b
        seen = {b}
        while True:
            run.extend(kept[at])
            nxt = succs.get(at, [])
            if len(nxt) != 1 or nxt[0] in seen or not continues(nxt[0]):
                break
            at = nxt[0]
            seen.add(at)
        runs.append(run)
    return runs


def _risen(run: list[Instr], demand: Demand, reach: int) -> list[int]:
    """Per instruction of `run`: the VGPRs of the fetches that rise above it, those that follow
    it within `reach` of the compiler's instructions, with no barrier or store between, and do
    not depend on it (an operand's definition, and what that reads, stays above the load)."""
    classes = demand.classes
    costs = demand.costs
    step = [_cost(ins, demand) for ins in run]
    out = [0] * len(run)
    for j, ins in enumerate(run):
        d = ins.dest
        if ins.op not in FETCH_OPS or d is None or classes.get(d) != "vgpr":
            continue
        w = costs.get(d, d.width)
        if not w:
            continue
        needed: set[Value] = set(ins.reads)
        dist = 0
        k = j - 1
        while k >= 0:
            x = run[k]
            if _stops(x):
                break
            dist += step[k]
            if dist > reach:
                break
            xd = x.dest
            if xd is not None and xd in needed:
                needed.update(x.reads)
            else:
                out[k] += w
            k -= 1
    return out


def hoisted_vgprs(cfg: CFG, demand: Demand, reach: int) -> int:
    """The most VGPRs live at an instruction once the fetches that follow it within `reach` of
    the compiler's instructions (its scheduler's move limit) have risen above it (at least the
    demand's own peak)."""
    counted = demand.vgprs
    best = demand.peak_vgprs
    for run in straight_runs(cfg):
        if not any(ins.op in FETCH_OPS for ins in run):
            continue
        for ins, extra in zip(run, _risen(run, demand, reach), strict=True):
            if extra:
                n = counted.get(ins, 0) + extra
                if n > best:
                    best = n
    return best


def scheduled_vgprs(cfg: CFG, demand: Demand, target: Target, wave: int, vgprs: int) -> int:
    """The VGPRs ACO is predicted to allocate after scheduling an entry point whose demand is
    `vgprs` (the estimate's, bounded as it is reported): `vgprs` itself unless its scheduler
    aims at fewer waves than that demand allows, may grow the demand to the point of losing
    them, and the rising loads take it there (`hoisted_vgprs`)."""
    if cfg.entry_point.stage == "vertex" or vgprs <= 0:
        return vgprs
    fac = max(target.vgpr_file[wave] // 256, 1)
    granule = target.vgpr_granule[wave]
    allowed = driver_waves_per_simd(target, wave, round_up(vgprs, granule))
    if allowed > 5 * fac:
        return vgprs  # ACO aims lower still: not predicted (module docstring)
    ceiling = aco_scheduler_ceiling(target, wave, vgprs)
    if driver_waves_per_simd(target, wave, round_up(ceiling, granule)) >= allowed:
        return vgprs  # the ceiling keeps the demand's waves: nothing to trade
    aim = aco_scheduler_waves(target, wave, vgprs)
    reach = 256 - 16 * max(aim // fac, 1)
    return min(ceiling, max(vgprs, hoisted_vgprs(cfg, demand, reach)))
