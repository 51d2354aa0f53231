"""Backward liveness over the CFG and the live VGPR/SGPR count at each instruction.

`liveness(cfg) -> LiveSets` (block live-in/live-out sets, a plain dataflow result) and
`register_demand(cfg, live, uni, wave_size, costs) -> Demand` (per instruction: live VGPRs and
SGPRs, and the peak). How a value counts:
- per-lane values: `width` VGPRs; per-lane bools: a lane mask of SGPRs per component
  (2 in wave64, 1 in wave32);
- uniform values, descriptors and scalar preloads: `width` SGPRs, except uniform results of
  floating-point arithmetic and conversions and what is computed from them (`width` VGPRs: the
  targets have no scalar floating-point ALU, `vector_alu_uniforms`);
- values that only ever hold compile-time constants (arithmetic and intrinsics of constants):
  nothing (folded into their uses);
- a vector temporary between two component-wise operations: one register;
- a conversion that changes no bit (`int2(id.xy)` of a uint vector, `asuint(f)`): nothing while
  its operand is live (`bit_identical_conversions`);
- a vector (or an array of scalars or vectors held whole) some instructions read only part of
  (`CFG.component_reads`) or a component-wise instruction computes or reads: only its
  components some later read takes (`costs.component_liveness`; the liveness by component is
  `component_liveness`); a component-wise instruction reads only what its result's live
  components need (`CFG.component_maps`);
- under divergent control flow the saved exec masks (one lane mask per divergent level);
- `costs.base_sgprs` always.
At an instruction the count covers its operands and its result (live-in plus definitions); an
export also counts the uniform values it moves into VGPRs, and the first instructions count every
VGPR the hardware preloads. Instructions the compiler drops (`CFG.dead`) are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from hlsllint.analysis.component_liveness import _bit_indices, _component_liveness
from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel
from hlsllint.analysis.deferred_sums import deferred_sum_holds
from hlsllint.analysis.ir import CFG, Instr, Value, backward_live_in, dominance
from hlsllint.analysis.paired_reads import paired_read_holds
from hlsllint.analysis.repeated_nests import element_sources, repeated_nest_holds
from hlsllint.analysis.uniformity import Uniformity
from hlsllint.analysis.unrolled import unrolled_holds
from hlsllint.analysis.value_classes import (
    alike_components,
    bit_identical_conversions,
    cached_per_cfg,
    computed_in_place,
    constant_component_masks,
    constant_values,
    def_use,
    fused_temps,
    kept_loop_blocks,
    streamed_temps,
    unpicked_components,
    vector_alu_uniforms,
)
from hlsllint.deadline import current

_T = TypeVar("_T")


class _BitSets(Mapping[int, set[Value]]):
    """Block -> set of values, stored as Python ints used as bit sets (decoded on access)."""

    def __init__(self, bits: dict[int, int], values: list[Value], index: dict[Value, int]) -> None:
        self.bits = bits
        self.value_of = values
        """Bit i stands for value_of[i]."""
        self.index = index

    def __getitem__(self, block: int) -> set[Value]:
        values = self.value_of
        return {values[i] for i in _bit_indices(self.bits[block])}

    def __iter__(self) -> Iterator[int]:
        return iter(self.bits)

    def __len__(self) -> int:
        return len(self.bits)


@dataclass
class LiveSets:
    live_in: Mapping[int, set[Value]]
    live_out: Mapping[int, set[Value]]


def liveness(cfg: CFG) -> LiveSets:
    """Backward liveness with a worklist over bit sets (one bit per value)."""
    index: dict[Value, int] = {}
    values: list[Value] = []
    live_in, live_out = _backward(cfg.kept_instrs(), cfg, index, values)
    return LiveSets(_BitSets(live_in, values, index), _BitSets(live_out, values, index))


def _backward(
    kept: dict[int, list[Instr]], cfg: CFG, index: dict[Value, int], values: list[Value]
) -> tuple[dict[int, int], dict[int, int]]:
    """Block live-in and live-out bit sets over `kept`'s instructions (bit i: the value `index`
    gives i; each value met is numbered, appended to `values`).

    A block's upward-exposed uses and definitions are gathered as value numbers, marked per
    value with the block's place (not tested and set in a bit set per operand: g_buffer's
    main_ps numbers 10,000 values, and each `1 << i`, `&` and `|` costs as many digits as the
    highest of them), and made bit sets once per block (`bits_of`)."""
    use: dict[int, int] = {}
    defs: dict[int, int] = {}
    used_in: list[int] = []  # per value number: the last block (place + 1) that read it first
    set_in: list[int] = []  # per value number: the last block (place + 1) that wrote it
    for at, (b, instrs) in enumerate(kept.items(), 1):
        u: list[int] = []
        d: list[int] = []
        for ins in instrs:
            for r in ins.reads:
                i = index.get(r)
                if i is None:
                    i = index[r] = len(values)
                    values.append(r)
                    used_in.append(0)
                    set_in.append(0)
                if set_in[i] != at and used_in[i] != at:
                    used_in[i] = at
                    u.append(i)
            dest = ins.dest
            if dest is not None:
                i = index.get(dest)
                if i is None:
                    i = index[dest] = len(values)
                    values.append(dest)
                    used_in.append(0)
                    set_in.append(0)
                if set_in[i] != at:
                    set_in[i] = at
                    d.append(i)
        use[b], defs[b] = bits_of(u), bits_of(d)
    kills = _first_copy_kills(cfg, kept, index)
    for b, k in kills.items():
        defs[b] |= k
    live_in, live_out = _solve(use, defs, cfg)
    for b, k in kills.items():
        live_out[b] &= ~k
    return live_in, live_out


def _first_copy_kills(cfg: CFG, kept: dict[int, list[Instr]], index: dict[Value, int]) -> dict[int, int]:
    """Per block that closes an iteration of an unrolled loop (its back edge), the scalar
    elements of a split local array that only the loop's first unrolled copy reads (`f[i]` with
    `i` from 0): the body is every copy at once, and in the first, which holds the most, such an
    element dies at its read; the back edge does not carry it to the next copy (DiligentFX's
    epipolar unwarp: `fSrcSliceV[i]` and `fSliceWeights[i]` in a 2-trip [unroll] loop).
    Only a loop no other loop holds, an element set before it and read nowhere but by its
    first copy."""
    elements: dict[Value, list[Instr]] = {}
    for instrs in kept.values():
        for ins in instrs:
            first = ins.detail.get("element_first") if ins.detail else None
            if first is not None:
                for p in first:
                    if p < len(ins.reads):
                        elements.setdefault(ins.reads[p], []).append(ins)
    if not elements:
        return {}
    readers: dict[Value, list[Instr]] = {}
    setters: dict[Value, set[int]] = {}
    for b, instrs in kept.items():
        for ins in instrs:
            for r in ins.reads:
                if r in elements:
                    readers.setdefault(r, []).append(ins)
            if ins.dest is not None and ins.dest in elements:
                setters.setdefault(ins.dest, set()).add(b)
    preds = cfg.predecessors()
    dom = dominance(cfg.graph, cfg.entry, cfg.cache)
    kills: dict[int, int] = {}
    for lp in cfg.loops:
        if lp.dynamic or (lp.trip_count or 0) < 2 or any(lp.blocks < o.blocks for o in cfg.loops):
            continue
        for v, reads in elements.items():
            if v.width != 1 or v.parts is not None or v not in index:
                continue
            if any(r.detail.get("element_read") != (lp.span,) or r.block not in lp.blocks for r in reads):
                continue  # read by the copies of another loop
            if any(
                (r.block in lp.blocks and r not in reads)
                or (
                    r.block not in lp.blocks
                    and (r.block == lp.header or not dom.dominates(r.block, lp.header))
                )
                for r in readers.get(v, [])
            ):
                continue  # read otherwise in the loop, or after it
            if setters.get(v, set()) & lp.blocks:
                continue
            for b in preds.get(lp.header, []):
                if b in lp.blocks:
                    kills[b] = kills.get(b, 0) | 1 << index[v]
    return kills


def bits_of(numbers: list[int]) -> int:
    """The bit set of `numbers` (distinct, not negative), built in bytes and converted once:
    `x |= 1 << i` per number costs as many digits as `x` and `i` have, each time."""
    if not numbers:
        return 0
    if len(numbers) == 1:
        return 1 << numbers[0]
    buf = bytearray((max(numbers) >> 3) + 1)
    for i in numbers:
        buf[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(buf, "little")


def _solve(use: dict[int, int], defs: dict[int, int], cfg: CFG) -> tuple[dict[int, int], dict[int, int]]:
    """Block live-in and live-out bit sets from each block's upward-exposed uses and definitions
    (`use` and `defs` name every block)."""
    # Blocks are numbered roughly in program order: start from the end for fast convergence.
    found = backward_live_in(cfg, use, defs, sorted(use))
    live_in = {b: found.get(b, 0) for b in use}
    succs = cfg.successors()
    live_out: dict[int, int] = {}
    for b in use:
        out = 0
        for s in succs[b]:
            out |= live_in[s]
        live_out[b] = out
    return live_in, live_out


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


def _classes(
    cfg: CFG,
    uni: Uniformity,
    wave_size: int,
    costs: CostModel,
    streamed: set[Value],
    constant: set[Value],
    partly: dict[Value, int],
    valu: set[Value],
    unpicked: dict[Value, int],
    alike: dict[Value, tuple[int, ...]] | None = None,
    in_place: set[Value] | frozenset[Value] = frozenset(),
) -> tuple[dict[Value, str], dict[Value, int]]:
    """Register class and registers counted of every value (`value_class`, less its constant
    components and the components no reader takes (`unpicked`), at most one per distinct
    component of a VGPR vector whose components are computed alike (`alike`), then nothing
    for a folded constant and one register for a streamed vector temporary)."""
    classes: dict[Value, str] = {}
    sizes: dict[Value, int] = {}
    divergent = uni.divergent
    lane_mask_bools = costs.bool_as_lane_mask
    per_bool = 2 if wave_size == 64 else 1
    for v in cfg.values:
        n = v.width
        cls = v.reg_class
        if cls is None:
            if v in valu:
                cls = "vgpr"
            elif (v not in divergent) if v.parts is None else uni.is_uniform(v):
                cls = "sgpr"
            elif lane_mask_bools and v.type.is_bool:
                cls = "sgpr"
                n = v.type.count * per_bool
            else:
                cls = "vgpr"
        if v in partly and not v.type.is_bool:
            n -= partly[v]
        elif v in unpicked:
            n -= unpicked[v]
        if alike and cls == "vgpr" and v in alike:
            n = min(n, len(set(alike[v])))
        classes[v] = cls
        sizes[v] = 0 if v in constant or v in in_place else 1 if cls == "vgpr" and v in streamed else n
    return classes, sizes


def _as_bits(live: LiveSets, cfg: CFG) -> _BitSets:
    """The live-out sets as bit sets (as `liveness` makes them; built for other mappings)."""
    out = live.live_out
    if isinstance(out, _BitSets):
        return out
    values = list(cfg.values)
    index = {v: i for i, v in enumerate(values)}

    def bit(v: Value) -> int:
        i = index.get(v)
        if i is None:
            i = index[v] = len(values)
            values.append(v)
        return 1 << i

    bits = {b: 0 for b in cfg.kept_instrs()}
    for b, vals in out.items():
        for v in vals:
            bits[b] |= bit(v)
    for instrs in cfg.kept_instrs().values():
        for ins in instrs:
            for r in ins.reads:
                bit(r)
            if ins.dest is not None:
                bit(ins.dest)
    return _BitSets(bits, values, index)


def _constant_counts(cfg: CFG) -> dict[Value, int]:
    """`constant_components` from the masks the liveness by component reads too (once per
    CFG: they were computed once for each)."""
    masks = cached_per_cfg(cfg, "constant_masks", constant_component_masks)
    return {v: m.bit_count() for v, m in masks.items()}


def register_demand(
    cfg: CFG,
    live: LiveSets,
    uni: Uniformity,
    wave_size: int = 64,
    costs: CostModel = DEFAULT_COSTS,
    *,
    record_live: bool = False,
) -> Demand:
    streamed: set[Value] = set()
    if costs.stream_componentwise_temps and costs.component_liveness:
        streamed = cached_per_cfg(cfg, "fused", fused_temps)  # the others held by component
    elif costs.stream_componentwise_temps:
        streamed = cached_per_cfg(cfg, "streamed", streamed_temps)
    constant = (
        cached_per_cfg(cfg, "constant", lambda du: constant_values(du, kept_loop_blocks(cfg)))
        if costs.fold_constant_values
        else set()
    )
    partly: dict[Value, int] = (
        cached_per_cfg(cfg, "constant_components", lambda du: _constant_counts(cfg))
        if costs.fold_constant_components
        else {}
    )
    if cfg.shared_components:
        partly = dict(partly)
        for v, (n, k) in cfg.shared_components.items():
            partly[v] = min(v.width, max(partly.get(v, 0), k) + n)
    valu = (
        vector_alu_uniforms(def_use(cfg), uni.divergent, constant, costs.component_liveness)
        if costs.uniform_float_alu_in_vgprs
        else set()
    )
    unpicked = (
        cached_per_cfg(cfg, "unpicked_components", unpicked_components)
        if costs.drop_unpicked_components
        else {}
    )
    # under the liveness by component, components computed alike are one register
    alike = cached_per_cfg(cfg, "alike_components", alike_components) if costs.component_liveness else {}
    in_place = cached_per_cfg(cfg, "in_place", lambda du: computed_in_place(du, cfg)) if streamed else set()
    classes, sizes = _classes(
        cfg, uni, wave_size, costs, streamed, constant, partly, valu, unpicked, alike, in_place
    )
    if costs.elements_in_place:
        for v in cached_per_cfg(cfg, "element_sources", lambda du: element_sources(cfg, du)):
            sizes[v] = 0
    held_v: dict[int, int] = {}  # block -> VGPRs an unrolled loop around it holds besides
    held_s: dict[int, int] = {}
    if costs.hold_unrolled_common_values:
        split = costs.component_liveness  # `unrolled_holds(by_component=)`
        key = "unrolled_holds_split" if split else "unrolled_holds"
        for loop_blocks, holds in cached_per_cfg(cfg, key, lambda du: unrolled_holds(cfg, split)):
            most_v = most_s = 0
            for held in holds:
                hv = sum(n for v, n in held.items() if classes.get(v) == "vgpr" and sizes.get(v))
                hs = sum(n for v, n in held.items() if classes.get(v) == "sgpr" and sizes.get(v))
                most_v, most_s = max(most_v, hv), max(most_s, hs)
            for b in loop_blocks:
                held_v[b] = held_v.get(b, 0) + most_v
                held_s[b] = held_s.get(b, 0) + most_s
    if costs.hold_paired_shared_reads:
        for nest_blocks, n in cached_per_cfg(cfg, "paired_reads", lambda du: paired_read_holds(cfg, du)):
            for b in nest_blocks:
                held_v[b] = held_v.get(b, 0) + n
    if costs.hold_deferred_sums:
        for nest_blocks, n in cached_per_cfg(cfg, "deferred_sums", lambda du: deferred_sum_holds(cfg, du)):
            for b in nest_blocks:
                held_v[b] = held_v.get(b, 0) + n
    if costs.hold_repeated_nests:
        for blocks, vals, n_read in cached_per_cfg(
            cfg, "repeated_nests", lambda du: repeated_nest_holds(cfg, du)
        ):
            widest_v = max(
                (min(sizes.get(v) or 0, n_read) for v in vals if classes.get(v) == "vgpr"), default=0
            )
            widest_s = max(
                (min(sizes.get(v) or 0, n_read) for v in vals if classes.get(v) == "sgpr"), default=0
            )
            for b, n in blocks.items():
                if widest_v:
                    held_v[b] = held_v.get(b, 0) + n * widest_v
                if widest_s:
                    held_s[b] = held_s.get(b, 0) + n * widest_s
    # The walk below keeps the live set as a bit set (bit i: `values[i]`): registers by class
    # per bit, and per register count the mask of the values of that size, so that a block's
    # starting sums are a few population counts.
    out = _as_bits(live, cfg)
    values, index = out.value_of, out.index
    vsize = [0] * len(values)  # registers counted as VGPRs (0 for other classes)
    ssize = [0] * len(values)  # registers counted as SGPRs
    vbits: dict[int, bytearray] = {}  # register count -> bit set of the values of that size
    sbits: dict[int, bytearray] = {}
    nbytes = (len(values) + 7) >> 3
    for i, v in enumerate(values):
        n = sizes[v]
        if not n:
            continue
        cls = classes[v]
        if cls == "vgpr":
            vsize[i] = n
            found = vbits.get(n)
            if found is None:
                found = vbits[n] = bytearray(nbytes)
        elif cls == "sgpr":
            ssize[i] = n
            found = sbits.get(n)
            if found is None:
                found = sbits[n] = bytearray(nbytes)
        else:
            continue
        found[i >> 3] |= 1 << (i & 7)
    # an extract of a shared component (`components.number_components`) is its source's
    # register while the source is live: it counts only once the source is dead
    extracts: dict[int, int] = {}  # extract's value number -> its source's
    if cfg.shared_components:
        for instrs in cfg.kept_instrs().values():
            for ins in instrs:
                x = ins.dest
                if x is not None and "extract" in ins.detail and ins.reads:
                    xi = index[x]
                    if vsize[xi]:
                        extracts[xi] = index[ins.reads[0]]
    extract_pairs = sorted(extracts.items())
    # a bit-identical conversion (`int2(id.xy)` of a uint vector) is its operand's registers
    # while the operand is live: it counts only once the operand is dead
    aliases: dict[int, tuple[int, int]] = {}  # conversion's value number -> (operand's, regs)
    if costs.share_bit_identical_conversions:
        for x, src in cached_per_cfg(cfg, "bit_identical", bit_identical_conversions).items():
            at_x = index.get(x)
            at_src = index.get(src)
            if at_x is None or at_src is None or not vsize[at_x] or not vsize[at_src]:
                continue
            aliases[at_x] = (at_src, min(vsize[at_x], vsize[at_src]))
    # both as pairs (value numbers and registers), each value's pairs found by `pairs_of`; the
    # walk keeps the registers of the pairs whose two values are live (`both_live`, changed as
    # a flag of one of theirs flips: `_flip`)
    pair_x: list[int] = []
    pair_s: list[int] = []
    pair_n: list[int] = []
    for xi, si in extract_pairs:
        pair_x.append(xi)
        pair_s.append(si)
        pair_n.append(1)
    for xi, (si, n_regs) in sorted(aliases.items()):
        pair_x.append(xi)
        pair_s.append(si)
        pair_n.append(n_regs)
    pairs_of: dict[int, list[int]] = {}
    for p, xi in enumerate(pair_x):
        pairs_of.setdefault(xi, []).append(p)
        if pair_s[p] != xi:
            pairs_of.setdefault(pair_s[p], []).append(p)
    # the components of a vector that only some reads take die after their own last use
    comps = (
        _component_liveness(cfg, cfg.component_reads, [v for v in values if vsize[index[v]]])
        if costs.component_liveness and (cfg.component_reads or cfg.component_maps)
        else None
    )
    if comps is not None and costs.fold_constant_components:
        # a vector whose live components are all constants holds nothing (`f.w = 1.0` of an
        # output whose `.rgb` are written at the end)
        masks = cached_per_cfg(cfg, "constant_masks", constant_component_masks)
        comps.constant = {v: m for v, m in masks.items() if v in comps.base}
        comps.constant_flow(cfg, constant, masks)
    if comps is not None:
        comps.alike = {v: c for v, c in alike.items() if v in comps.base}
    vmask_items = [(n, int.from_bytes(b, "little")) for n, b in vbits.items()]
    smask_items = [(n, int.from_bytes(b, "little")) for n, b in sbits.items()]
    mask = 2 if wave_size == 64 else 1
    # every register the hardware preloads is live when the wave starts, read later or not
    preloaded = cfg.preloaded_vgprs
    operands = costs.count_operands_at_instruction
    export_vgprs = costs.export_needs_vgprs
    per_level = mask if costs.exec_mask_per_divergent_level else 0
    base_sgprs = costs.base_sgprs
    intrinsic_temps = costs.intrinsic_temp_vgprs
    divergent_blocks = uni.divergent_blocks
    vg: dict[Instr, int] = {}
    sg: dict[Instr, int] = {}
    best_v = -1
    best: Instr | None = None
    live_at: dict[Instr, list[Value]] = {}
    bits_out = out.bits
    deadline = current()
    # the last block's start (its live components, constant ones, dead registers): the next
    # block's dead registers are counted from it (`dead_registers_from`)
    start: tuple[int, int, int] = (0, 0, 0)
    # The live set of the walk by value number (`alive`), not as a bit set: a test, setting or
    # clearing of one value's bit in a number of as many bits as values costs their number of
    # digits, at every operand (g_buffer's main_ps: 10,000 values). A block's walk starts from
    # its live-out set (the values whose bit differs from the last start flipped) and records
    # what it flips (`flips`), undone at its end; the peak's live set is made again from them.
    alive = [False] * len(values)
    held_bits = 0  # the bit set `alive` holds between blocks
    both_live = 0
    best_at: tuple[int, list[int], int] = (0, [], 0)  # the peak's block, its flips, how many before
    for b, instrs in cfg.kept_instrs().items():
        deadline.check()
        cur = bits_out[b]
        if cur != held_bits:
            for i in _bit_indices(cur ^ held_bits):
                if pairs_of:
                    both_live += _flip(i, alive, pairs_of, pair_x, pair_s, pair_n)
                else:
                    alive[i] = not alive[i]
            held_bits = cur
        flips: list[int] = []
        v_sum = s_sum = 0
        if cur:
            for n, m in vmask_items:
                v_sum += n * (cur & m).bit_count()
            for n, m in smask_items:
                s_sum += n * (cur & m).bit_count()
        extra_s = base_sgprs + per_level * divergent_blocks.get(b, 0) + held_s.get(b, 0)
        extra_v = held_v.get(b, 0)
        ccur = ded = kcur = 0
        if comps is not None:
            ccur = comps.live_out[b]
            kcur = comps.k_out.get(b, 0)
            ded = comps.dead_registers_from(start, ccur, vsize, index, kcur)
            start = (ccur, kcur, ded)
        for ins in reversed(instrs):
            deadline.tick()
            # live before = (live after - dest) | reads; counted: live after | dest | reads.
            # One pass over the reads gives both: the registers of the operands not live after
            # (other than the result) are counted here and become live before.
            d = ins.dest
            op = ins.op
            # what depends on the values live after `ins`, before its operands are added
            di = -1
            d_live = False
            if d is not None:
                di = index[d]
                d_live = alive[di]
            exported = 0
            if op == "export" and export_vgprs:
                exported = sum(
                    x.width if x in constant else sizes[x]
                    for x in ins.reads
                    if classes[x] == "sgpr" or x in constant
                )
                # the export holds its per-lane outputs whole, constant components included
                exported += sum(
                    (x.width if x in partly else sizes[x]) if not alive[index[x]] else partly.get(x, 0)
                    for x in dict.fromkeys(ins.reads)
                    if classes[x] == "vgpr" and x not in constant
                )
            # registers of extracts and bit-identical conversions whose source is live too (each
            # live after `ins`, or its result)
            shared_held = both_live
            if pairs_of and not d_live and di in pairs_of:
                for p in pairs_of[di]:
                    other = pair_s[p] if pair_x[p] == di else pair_x[p]
                    if other == di or alive[other]:
                        shared_held += pair_n[p]
            if record_live:
                live_at[ins] = _ordered(
                    _counted(ins, {values[i] for i, x in enumerate(alive) if x}, operands), sizes
                )
            flipped = len(flips)  # `alive` is the live set after `ins` up to here
            add_v = add_s = 0
            d_read = False
            for r in ins.reads:
                if r is d:
                    d_read = True
                    continue
                ri = index[r]
                if not alive[ri]:
                    if pairs_of:
                        both_live += _flip(ri, alive, pairs_of, pair_x, pair_s, pair_n)
                    else:
                        alive[ri] = True
                    flips.append(ri)
                    add_v += vsize[ri]
                    add_s += ssize[ri]
            if operands:
                nv, ns = v_sum + add_v, s_sum + add_s
            else:
                nv, ns = v_sum, s_sum
            if d is not None:
                dv, ds = vsize[di], ssize[di]
                # a declaration without a value takes no register until it is written
                if not d_live and op != "undef":
                    nv += dv
                    ns += ds
            if op == "export" and export_vgprs:
                nv += exported
            elif op == "store" and "splat" in ins.detail:
                # the operands and four copies of a float texel (`Instr.detail`), the value's
                # own register one of them
                x = ins.detail["splat"]
                nv = v_sum + add_v + 4 - (vsize[index[x]] if isinstance(x, Value) and x in index else 0)
            elif op == "preload" and nv < preloaded:
                nv = preloaded
            elif op == "intrinsic" and d is not None and vsize[index[d]]:
                nv += intrinsic_temps.get(ins.detail.get("name", ""), 0)
            if comps is not None:
                if ins in comps.touching:
                    ccur, ded_here, ded, kcur = comps.step(
                        ins, ccur, ded, vsize, index, operands or op == "export", kcur
                    )
                    nv -= ded_here
                else:  # reads and writes no tracked vector: nothing changes across it
                    nv -= ded
            nv -= shared_held
            nv += extra_v
            vg[ins] = nv
            sg[ins] = ns + extra_s
            if nv > best_v:
                best_v = nv
                best = ins
                best_at = (cur, flips, flipped)
            # step backwards: the result is not live before unless it is read
            v_sum += add_v
            s_sum += add_s
            if d is not None:
                if d_read:
                    if not d_live:
                        if pairs_of:
                            both_live += _flip(di, alive, pairs_of, pair_x, pair_s, pair_n)
                        else:
                            alive[di] = True
                        flips.append(di)
                        v_sum += dv
                        s_sum += ds
                elif d_live:
                    if pairs_of:
                        both_live += _flip(di, alive, pairs_of, pair_x, pair_s, pair_n)
                    else:
                        alive[di] = False
                    flips.append(di)
                    v_sum -= dv
                    s_sum -= ds
        for i in flips:  # back to the block's start
            if pairs_of:
                both_live += _flip(i, alive, pairs_of, pair_x, pair_s, pair_n)
            else:
                alive[i] = not alive[i]
    peak_v = max(vg.values(), default=0)
    peak_s = max(sg.values(), default=costs.base_sgprs)
    peak_live: list[Value] = []
    if best is not None:
        after, flips, flipped = best_at  # the live set after the peak: its block's start, flipped
        for i in flips[:flipped]:
            after ^= 1 << i
        peak_live = _ordered(_counted(best, _decode(after, values), operands), sizes)
    peak_instr = best
    return Demand(vg, sg, peak_v, peak_s, peak_instr, peak_live, classes, sizes, live_at)


def _flip(
    i: int, alive: list[bool], pairs_of: dict[int, list[int]], xs: list[int], ss: list[int], ns: list[int]
) -> int:
    """Flip value `i`'s flag in `alive`: the change in the registers of the pairs (`xs`, `ss`,
    `ns`) whose two values are live."""
    found = pairs_of.get(i)
    if found is None:
        alive[i] = not alive[i]
        return 0
    change = 0
    for p in found:
        if alive[xs[p]] and alive[ss[p]]:
            change -= ns[p]
    alive[i] = not alive[i]
    for p in found:
        if alive[xs[p]] and alive[ss[p]]:
            change += ns[p]
    return change


def _decode(bits: int, values: list[Value]) -> set[Value]:
    return {values[i] for i in _bit_indices(bits)}


def _counted(ins: Instr, after: set[Value], operands: bool) -> set[Value]:
    """The values counted at `ins`: live after it, its result (unless a bare declaration) and,
    with `operands`, what it reads."""
    counted = set(after)
    d = ins.dest
    if d is not None and ins.op != "undef":
        counted.add(d)
    if operands or ins.op == "export":  # an export holds what it writes out
        counted.update(ins.reads)
    return counted


def _ordered(values: set[Value], sizes: dict[Value, int]) -> list[Value]:
    return sorted(values, key=lambda x: (-sizes[x], x.id))
