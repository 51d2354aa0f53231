"""Backward liveness over the CFG and the live VGPR/SGPR count at each instruction.

`liveness(cfg) -> LiveSets` (block live-in/live-out sets, a plain dataflow result) and
`register_demand(cfg, live, uni, wave_size, costs) -> Demand` (per instruction: live VGPRs and
SGPRs, and the peak). How a value counts:
- per-lane values: `width` VGPRs; per-lane bools: a lane mask of SGPRs per component
  (2 in wave64, 1 in wave32);
- uniform values, descriptors and scalar preloads: `width` SGPRs;
- values that only ever hold compile-time constants: nothing (folded into their uses);
- a vector temporary between two component-wise operations: one register;
- under divergent control flow the saved exec masks (one lane mask per divergent level);
- `costs.base_sgprs` always.
At an instruction the count covers its operands and its result (live-in plus definitions); an
export also counts the uniform values it moves into VGPRs, and the first instructions count every
VGPR the hardware preloads. Instructions the compiler drops (`CFG.dead`) are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel
from hlsllint.analysis.ir import CFG, Instr, Value
from hlsllint.analysis.uniformity import Uniformity


class _BitSets(Mapping[int, set[Value]]):
    """Block -> set of values, stored as Python ints used as bit sets (decoded on access)."""

    def __init__(self, bits: dict[int, int], values: list[Value]) -> None:
        self._bits = bits
        self._values = values

    def __getitem__(self, block: int) -> set[Value]:
        x = self._bits[block]
        out = set()
        while x:
            low = x & -x
            out.add(self._values[low.bit_length() - 1])
            x ^= low
        return out

    def __iter__(self) -> Iterator[int]:
        return iter(self._bits)

    def __len__(self) -> int:
        return len(self._bits)


@dataclass
class LiveSets:
    live_in: Mapping[int, set[Value]]
    live_out: Mapping[int, set[Value]]


def liveness(cfg: CFG) -> LiveSets:
    """Backward liveness with a worklist over bit sets (one bit per value)."""
    g = cfg.graph
    index: dict[Value, int] = {}
    values: list[Value] = []

    def bit(v: Value) -> int:
        i = index.get(v)
        if i is None:
            i = index[v] = len(values)
            values.append(v)
        return 1 << i

    use: dict[int, int] = {}
    defs: dict[int, int] = {}
    for b in g.nodes:
        u = d = 0
        for ins in cfg.live_instrs(b):
            for r in ins.reads:
                rb = bit(r)
                if not d & rb:
                    u |= rb
            if ins.dest is not None:
                d |= bit(ins.dest)
        use[b], defs[b] = u, d
    live_in = dict(use)
    live_out = dict.fromkeys(g.nodes, 0)
    preds = {b: list(g.predecessors(b)) for b in g.nodes}
    succs = {b: list(g.successors(b)) for b in g.nodes}
    # Blocks are numbered roughly in program order: start from the end for fast convergence.
    work = sorted(g.nodes, reverse=True)
    queued = set(work)
    work.reverse()  # pop() takes from the end: highest block first
    while work:
        b = work.pop()
        queued.discard(b)
        out = 0
        for s in succs[b]:
            out |= live_in[s]
        live_out[b] = out
        new_in = use[b] | (out & ~defs[b])
        if new_in != live_in[b]:
            live_in[b] = new_in
            for p in preds[b]:
                if p not in queued:
                    queued.add(p)
                    work.append(p)
    return LiveSets(_BitSets(live_in, values), _BitSets(live_out, values))


@dataclass
class Demand:
    vgprs: dict[Instr, int]
    sgprs: dict[Instr, int]
    peak_vgprs: int
    peak_sgprs: int
    peak_instr: Instr | None
    peak_live: list[Value]
    """Values counted at the peak-VGPR instruction."""
    classes: dict[Value, str]
    """Register class of every value: `vgpr` or `sgpr`."""
    costs: dict[Value, int]
    live_at: dict[Instr, list[Value]] = field(default_factory=dict)
    """Values counted at every instruction; only filled when asked (`record_live`)."""


def value_class(v: Value, uni: Uniformity, wave_size: int, costs: CostModel) -> tuple[str, int]:
    """(register class, registers) of a value."""
    if v.reg_class is not None:
        return v.reg_class, v.width
    if uni.is_uniform(v):
        return "sgpr", v.width
    if costs.bool_as_lane_mask and v.type.is_bool:
        return "sgpr", v.type.count * (2 if wave_size == 64 else 1)
    return "vgpr", v.width


_WHOLE_VECTOR = frozenset(
    {"mul", "cross", "normalize", "reflect", "refract", "transpose", "determinant", "faceforward"}
)
"""Calls that need every component of an operand at once (a matrix product, a normalisation);
the other operations work component by component."""
_STREAM_OPS = frozenset({"alu", "intrinsic", "copy"})


def _componentwise(ins: Instr) -> bool:
    return ins.op in _STREAM_OPS and ins.detail.get("name") not in _WHOLE_VECTOR


@dataclass
class DefUse:
    """The instructions the compiler keeps that define and that read each value."""

    defs: dict[Value, list[Instr]]
    readers: dict[Value, list[Instr]]


def def_use(cfg: CFG) -> DefUse:
    defs: dict[Value, list[Instr]] = {}
    readers: dict[Value, list[Instr]] = {}
    for b in cfg.graph.nodes:
        for ins in cfg.live_instrs(b):
            for r in ins.reads:
                readers.setdefault(r, []).append(ins)
            if ins.dest is not None:
                defs.setdefault(ins.dest, []).append(ins)
    return DefUse(defs, readers)


def streamed_temps(du: DefUse) -> set[Value]:
    """Vector temporaries computed and consumed component by component within one expression:
    `saturate(dot(l, n) * color)` feeding `+=` never holds all four components of the product,
    the compiler finishes one component before the next (regtruth: two lights accumulated into a
    float4 hold 6 VGPRs, not the 11 of whole vectors). Such a temporary costs one register."""
    out: set[Value] = set()
    for v, ds in du.defs.items():
        if v.kind != "temp" or v.width <= 1 or v.reg_class is not None or v.parts is not None:
            continue
        ins = ds[-1]
        rs = du.readers.get(v, [])
        if len(rs) == 1 and rs[0].block == ins.block and _componentwise(ins) and _componentwise(rs[0]):
            out.add(v)
    return out


_FOLDABLE_OPS = frozenset({"alu", "copy", "undef"})


def constant_values(du: DefUse) -> set[Value]:
    """Values that hold compile-time constants wherever they are read: every definition is an
    arithmetic or copy of constants (literals, other such values, the value itself), as in an
    offset table filled with `int2(1, 0)`... The compiler folds them into the instructions that
    read them, so they take no register."""
    defs = du.defs
    candidates = {
        v
        for v, ds in defs.items()
        if v.kind in ("var", "temp") and v.reg_class is None and all(d.op in _FOLDABLE_OPS for d in ds)
    }
    readers: dict[Value, set[Value]] = {}  # value -> the candidates whose definitions read it
    for v in candidates:
        for d in defs[v]:
            for r in d.reads:
                readers.setdefault(r, set()).add(v)
    work = [
        v for v in candidates if any(r is not v and r not in candidates for d in defs[v] for r in d.reads)
    ]
    while work:
        v = work.pop()
        if v in candidates:
            candidates.discard(v)  # it reads a value that varies, so it varies too
            work.extend(u for u in readers.get(v, ()) if u in candidates)
    return candidates


def register_demand(
    cfg: CFG,
    live: LiveSets,
    uni: Uniformity,
    wave_size: int = 64,
    costs: CostModel = DEFAULT_COSTS,
    *,
    record_live: bool = False,
) -> Demand:
    classes: dict[Value, str] = {}
    sizes: dict[Value, int] = {}
    du = def_use(cfg)
    streamed = streamed_temps(du) if costs.stream_componentwise_temps else set()
    constant = constant_values(du) if costs.fold_constant_values else set()
    for v in cfg.values:
        cls, n = value_class(v, uni, wave_size, costs)
        classes[v], sizes[v] = cls, (0 if v in constant else 1 if v in streamed and cls == "vgpr" else n)
    mask = 2 if wave_size == 64 else 1
    # every register the hardware preloads is live when the wave starts, read later or not
    preloaded = cfg.preloaded_vgprs
    operands = costs.count_operands_at_instruction
    vg: dict[Instr, int] = {}
    sg: dict[Instr, int] = {}
    best: tuple[int, Instr | None, list[Value]] = (-1, None, [])
    live_at: dict[Instr, list[Value]] = {}
    for b in cfg.graph.nodes:
        cur = set(live.live_out[b])
        v_sum = sum(sizes[x] for x in cur if classes[x] == "vgpr")
        s_sum = sum(sizes[x] for x in cur if classes[x] == "sgpr")
        extra_s = costs.base_sgprs
        if costs.exec_mask_per_divergent_level:
            extra_s += mask * uni.divergent_blocks.get(b, 0)
        for ins in reversed(cfg.live_instrs(b)):
            # live before = (live after - dest) | reads; counted: live after | dest | reads
            # (`added` is counted - cur, built without copying the live set per instruction)
            d = ins.dest
            # a declaration without a value takes no register until it is written
            added: list[Value] = [d] if d is not None and d not in cur and ins.op != "undef" else []
            if operands:
                for r in ins.reads:
                    if r not in cur and r not in added:
                        added.append(r)
            nv, ns = v_sum, s_sum
            if ins.op == "export" and costs.export_needs_vgprs:
                nv += sum(
                    x.width if x in constant else sizes[x]
                    for x in ins.reads
                    if classes[x] == "sgpr" or x in constant
                )
            for x in added:
                if classes[x] == "vgpr":
                    nv += sizes[x]
                elif classes[x] == "sgpr":
                    ns += sizes[x]
            if ins.op == "preload":
                nv = max(nv, preloaded)
            vg[ins] = nv
            sg[ins] = ns + extra_s
            if nv > best[0] or record_live:
                counted = cur.union(added)
                ordered = sorted(counted, key=lambda x: (-sizes[x], x.id))
                if nv > best[0]:
                    best = (nv, ins, ordered)
                if record_live:
                    live_at[ins] = ordered
            # step backwards
            if d is not None and d in cur:
                cur.discard(d)
                if classes[d] == "vgpr":
                    v_sum -= sizes[d]
                elif classes[d] == "sgpr":
                    s_sum -= sizes[d]
            for r in ins.reads:
                if r not in cur:
                    cur.add(r)
                    if classes[r] == "vgpr":
                        v_sum += sizes[r]
                    elif classes[r] == "sgpr":
                        s_sum += sizes[r]
    peak_v = max(vg.values(), default=0)
    peak_s = max(sg.values(), default=costs.base_sgprs)
    return Demand(vg, sg, peak_v, peak_s, best[1], best[2], classes, sizes, live_at)
