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
(`hoisted_vgprs`) and takes the most VGPRs live anywhere, capped at the ceiling. The replay
follows `schedule_VMEM` where the estimate's code differs from ACO's: a load passing an earlier
load leaves that load's operands above it (ACO joins the earlier load to its clause or skips it,
and either way its operands become dependencies: regtruth's IR of DiligentFX's
`DOF_ComputePostfilteredTexture`, eight samples, none rises over another's coordinates), copies
and declarations are none of the compiler's instructions, and a load written into a wider value
that the demand already counts (a matrix filled row by row: FlaxEngine's shadow tiles) adds no
registers of its own below that value's definition.

Above `5 * fac` ACO aims lower by a jump (a demand of 29 VGPRs or more at `5 * fac`, 25-28 at
`6 * fac`): on RDNA2 wave64, 16 or 12 waves aimed at 10 with a ceiling of 46 VGPRs, or 16 at 12
with a ceiling of 38. There a
trade is called only when the replay reaches the ceiling: ACO's moves then stop at its
`max_registers` whatever the exact rise, while a partial rise is within the replay's error (the
estimate's demand a few VGPRs off, NIR's common subexpressions that the estimate's code repeats,
moves ACO refuses because the candidate reads a value the load reads for the last time). On the
tune engines (navi21 wave64) the partial calls that would move an entry were 4 right and 5 wrong,
each wrong one two or more waves below the truth; the full ones 4 right and none wrong. Vertex
shaders are left out (none of the 60 on tune trades waves; the replay called one).
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


def _vmem(ins: Instr, demand: Demand) -> bool:
    """A vector memory load: a fetch whose result is a VGPR (a uniform one is a scalar load)."""
    d = ins.dest
    return ins.op in FETCH_OPS and d is not None and demand.classes.get(d) == "vgpr"


def _first_defs(run: list[Instr]) -> dict[Value, int]:
    first: dict[Value, int] = {}
    for p, x in enumerate(run):
        d = x.dest
        if d is not None and d not in first:
            first[d] = p
    return first


def _absorbed_below(run: list[Instr], j: int, w: int, demand: Demand, first: dict[Value, int]) -> int:
    """Where the registers of the load at `j` are already counted: a load whose result (through
    copies) goes first into a wider value by a partial write (`V = insert(V, r)`: a matrix or a
    vector assembled from loads) lands in V's registers, which the demand counts from V's first
    definition in the run on. ACO has no such value: the load's registers are the vector's. The
    index of that definition, or -1."""
    d = run[j].dest
    alias = {d}
    for q in range(j + 1, len(run)):
        y = run[q]
        if alias.isdisjoint(y.reads):
            if y.dest in alias:
                return -1
            continue
        v = y.dest
        if v is None:
            return -1
        if y.op == "copy":
            alias.add(v)
            continue
        if v in y.reads and demand.costs.get(v, v.width) > w:
            at = first.get(v, -1)
            return at if at <= j else -1
        return -1
    return -1


def _risen(run: list[Instr], demand: Demand, reach: int) -> list[int]:
    """Per instruction of `run`: the VGPRs of the vector memory loads that rise above it, those
    that follow it within `reach` of the compiler's instructions, with no barrier or store between,
    and do not depend on it (an operand's definition, and what that reads, stays above the load).

    As in ACO's `schedule_VMEM`: a load passing an earlier load leaves that load's operands above
    it too (ACO either joins the earlier load to its clause or skips it, and either way marks its
    operands as dependencies), so a later load never rises above an earlier load's address
    computation; copies and declarations are no instructions of the compiler's, so nothing rises
    above them; and a load whose registers are already counted in a wider value (`_absorbed_below`)
    adds nothing below that value's definition."""
    costs = demand.costs
    step = [_cost(ins, demand) for ins in run]
    first = _first_defs(run)
    out = [0] * len(run)
    for j, ins in enumerate(run):
        if not _vmem(ins, demand):
            continue
        d = ins.dest
        assert d is not None
        w = costs.get(d, d.width)
        if not w:
            continue
        floor = _absorbed_below(run, j, w, demand, first)
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
            if (xd is not None and xd in needed) or _vmem(x, demand):
                needed.update(x.reads)
            elif step[k] and (floor < 0 or k < floor):
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
    ceiling = aco_scheduler_ceiling(target, wave, vgprs)
    if driver_waves_per_simd(target, wave, round_up(ceiling, granule)) >= allowed:
        return vgprs  # the ceiling keeps the demand's waves: nothing to trade
    aim = aco_scheduler_waves(target, wave, vgprs)
    reach = 256 - 16 * max(aim // fac, 1)
    hoisted = hoisted_vgprs(cfg, demand, reach)
    if allowed > 5 * fac and hoisted < ceiling:
        return vgprs  # an aim below the demand's count by a jump: only a full rise is called
    return min(ceiling, max(vgprs, hoisted))
