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
- under divergent control flow the saved exec masks (one lane mask per divergent level);
- `costs.base_sgprs` always.
At an instruction the count covers its operands and its result (live-in plus definitions); an
export also counts the uniform values it moves into VGPRs, and the first instructions count every
VGPR the hardware preloads. Instructions the compiler drops (`CFG.dead`) are skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel
from hlsllint.analysis.ir import CFG, Instr, Value
from hlsllint.analysis.uniformity import Uniformity
from hlsllint.deadline import current
from hlsllint.semantic import types as T

_T = TypeVar("_T")


def _bit_indices(x: int) -> list[int]:
    """The positions of the set bits of `x`, lowest first (one pass over its binary digits)."""
    digits = bin(x)[:1:-1]  # lowest bit first, without the "0b"
    out = []
    i = digits.find("1")
    while i != -1:
        out.append(i)
        i = digits.find("1", i + 1)
    return out


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
    use: dict[int, int] = {}
    defs: dict[int, int] = {}
    for b, instrs in cfg.kept_instrs().items():
        u = d = 0
        for ins in instrs:
            for r in ins.reads:
                i = index.get(r)
                if i is None:
                    i = index[r] = len(values)
                    values.append(r)
                rb = 1 << i
                if not d & rb:
                    u |= rb
            dest = ins.dest
            if dest is not None:
                i = index.get(dest)
                if i is None:
                    i = index[dest] = len(values)
                    values.append(dest)
                d |= 1 << i
        use[b], defs[b] = u, d
    live_in = dict(use)
    live_out = dict.fromkeys(use, 0)
    preds = cfg.predecessors()
    succs = cfg.successors()
    # Blocks are numbered roughly in program order: start from the end for fast convergence.
    work = sorted(use)
    queued = set(work)
    deadline = current()
    while work:
        deadline.tick()
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
    return LiveSets(_BitSets(live_in, values, index), _BitSets(live_out, values, index))


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
    """The def-use index of the kept instructions (computed once per CFG)."""
    found: DefUse | None = cfg.cache.get("def_use")
    if found is not None:
        return found
    defs: dict[Value, list[Instr]] = {}
    readers: dict[Value, list[Instr]] = {}
    for instrs in cfg.kept_instrs().values():
        for ins in instrs:
            for r in ins.reads:
                found_r = readers.get(r)
                if found_r is None:
                    readers[r] = [ins]
                else:
                    found_r.append(ins)
            if ins.dest is not None:
                found_d = defs.get(ins.dest)
                if found_d is None:
                    defs[ins.dest] = [ins]
                else:
                    found_d.append(ins)
    du = cfg.cache["def_use"] = DefUse(defs, readers)
    return du


def _cached(cfg: CFG, key: str, make: Callable[[DefUse], _T]) -> _T:
    """`make(def_use(cfg))`, computed once per CFG."""
    found: _T | None = cfg.cache.get(key)
    if found is None:
        found = cfg.cache[key] = make(def_use(cfg))
    return found


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


def kept_loop_blocks(cfg: CFG) -> frozenset[int]:
    """The blocks of loops the compiler keeps as loops (no constant trip count, or `[loop]`):
    what is computed there from the loop's counter changes from one iteration to the next."""
    kept: set[int] = set()
    for loop in cfg.loops:
        if loop.trip_count is None or "loop" in loop.attributes:
            kept |= loop.blocks
    return frozenset(kept)


def constant_values(du: DefUse, kept: frozenset[int] = frozenset()) -> set[Value]:
    """Values that hold compile-time constants wherever they are read: every definition is an
    arithmetic, a pure intrinsic (`exp(-0.5 * o * o)`) or a copy of constants (literals, other
    such values, the value itself), as in an offset table filled with `int2(1, 0)`... The
    compiler folds them into the instructions that read them, so they take no register. An
    intrinsic in a kept loop (`kept` blocks) is not folded: a counter or accumulator of such a
    loop looks constant here (its definitions read only literals and itself), and a `min`/`max`
    chain over it is the loop's work (a block compressor's search: ~160 VGPRs, not 8)."""
    defs = du.defs
    foldable = _FOLDABLE_OPS
    candidates: set[Value] = set()
    for v, ds in defs.items():
        if v.kind in ("var", "temp") and v.reg_class is None:
            for d in ds:
                if d.op not in foldable and not (
                    d.op == "intrinsic" and d.rule == "pure" and d.block not in kept
                ):
                    break
            else:
                candidates.add(v)
    # the candidates whose definitions read each candidate, and those that read a value that
    # is not one (they vary, and so does every candidate that reads them)
    readers: dict[Value, list[Value]] = {}
    work: list[Value] = []
    for v in candidates:
        varies = False
        for d in defs[v]:
            for r in d.reads:
                if r is v:
                    continue
                if r in candidates:
                    found = readers.get(r)
                    if found is None:
                        readers[r] = [v]
                    else:
                        found.append(v)
                else:
                    varies = True
        if varies:
            work.append(v)
    while work:
        v = work.pop()
        if v in candidates:
            candidates.discard(v)
            found = readers.get(v)
            if found:
                work.extend(found)
    return candidates


_COMPONENTWISE_INTRINSICS = frozenset(
    {
        "abs", "saturate", "min", "max", "clamp", "lerp", "frac", "floor", "ceil", "round",
        "trunc", "sqrt", "rsqrt", "rcp", "exp", "exp2", "log", "log2", "sin", "cos", "sign",
        "pow", "step", "smoothstep", "mad", "fma",
    }
)  # fmt: skip
"""Intrinsics whose result component i depends only on component i of each operand."""
_LANE_READS = frozenset(
    {
        "QuadReadAcrossX", "QuadReadAcrossY", "QuadReadAcrossDiagonal", "QuadReadLaneAt",
        "WaveReadLaneAt", "WaveReadLaneFirst", "WaveActiveMin", "WaveActiveMax",
    }
)  # fmt: skip
"""Intrinsics that return their first operand as another lane holds it: a component that is a
constant in every lane stays that constant."""


def _lane_mask(width: int) -> int:
    return (1 << width) - 1


def _has_components(v: Value) -> bool:
    """A vector or matrix with one register per component (not packed 16-bit values)."""
    t = v.type
    return t.kind in ("vector", "matrix") and t.count == v.width > 1


def _transfer(ins: Instr, masks: dict[Value, int]) -> int:
    """The constant components (a bit per component) of what `ins` writes to its result, given
    those of what it reads (a value not in `masks` varies in every component)."""
    d = ins.dest
    assert d is not None
    full = _lane_mask(d.width)
    op, reads, detail = ins.op, ins.reads, ins.detail
    if op == "undef" or (op in ("alu", "copy") and not reads):
        return full
    lanes = detail.get("lanes")
    if lanes is not None:
        out, pos, i = 0, 0, 0
        for n in lanes:
            if n < 0:
                out |= _lane_mask(-n) << pos
                pos -= n
            else:
                out |= (masks.get(reads[i], 0) & _lane_mask(n)) << pos
                pos += n
                i += 1
        return out & full
    written = detail.get("set")
    if written is not None and reads and reads[0] is d:
        out = masks.get(d, 0)
        src = reads[1] if len(reads) > 1 else None
        src_mask = masks.get(src, 0) if src is not None else _lane_mask(len(written))
        for j, c in enumerate(written):
            bit = src_mask & 1 if src is not None and src.width == 1 else src_mask >> j & 1
            out = out | 1 << c if bit else out & ~(1 << c)
        return out & full
    if op == "intrinsic" and detail.get("name") in _LANE_READS:
        return masks.get(reads[0], 0) & full if reads and reads[0].width == d.width else 0
    componentwise = op == "intrinsic" and detail.get("name") in _COMPONENTWISE_INTRINSICS
    if op == "copy" or detail.get("cw") or componentwise:
        out = full
        for r in reads:
            m = masks.get(r, 0)
            if r.width == 1 and d.width > 1:
                out = out if m & 1 else 0
            elif r.width >= d.width:
                out &= m
            else:
                return 0
        return out
    return 0


def constant_components(du: DefUse) -> dict[Value, int]:
    """Vectors and matrices some of whose components are compile-time constants wherever the
    value is read (`float4(luma, 0, 0, 0)`, `(v0 + v1) * 0.25` of such vectors, `v.w = 0`):
    value -> the number of such components. The compiler folds those components into the
    instructions that use them, so they take no register (regtruth: a 2x2 reduction of
    `float4(luma, 0, 0, 0)` texels stores zeros from no register). Values whose every component
    is constant are `constant_values`, not listed here."""
    defs = du.defs
    masks: dict[Value, int] = {}
    for v in defs:
        if v.kind in ("var", "temp") and v.reg_class is None and v.parts is None and _has_components(v):
            masks[v] = _lane_mask(v.width)  # optimistic start, lowered to a fixed point
    readers: dict[Value, list[Value]] = {}  # value -> the candidates whose definitions read it
    for v in masks:
        for d in defs[v]:
            for r in d.reads:
                readers.setdefault(r, []).append(v)
    # A value waits in the work list at most once (the masks only fall, and the fixpoint they
    # fall to does not depend on the order): a value defined and read many times is not
    # recomputed once per read of each change.
    work = list(masks)
    queued = set(work)
    deadline = current()
    while work:
        deadline.tick()
        v = work.pop()
        queued.discard(v)
        m = _lane_mask(v.width)
        for d in defs[v]:
            m &= _transfer(d, masks)
            if not m:
                break
        if m != masks[v]:
            masks[v] = m
            for u in readers.get(v, ()):
                if u not in queued:
                    queued.add(u)
                    work.append(u)
    full = {v for v, m in masks.items() if m == _lane_mask(v.width)}
    return {v: m.bit_count() for v, m in masks.items() if m and v not in full}


_MOVES = frozenset({"asfloat", "asint", "asuint", "asfloat16", "asint16", "asuint16", "select", "abs"})
"""Intrinsics that move or reinterpret their operands' bits (`abs` is a source modifier of the
instruction that reads its result): in the class of the operands."""


def _vector_alu(ins: Instr, d: Value) -> bool:
    """Whether `ins`, computing `d`, is a vector ALU instruction whatever the uniformity of its
    operands: floating-point arithmetic, and conversions between floating-point and integer or
    bool values. The compiler has no scalar floating-point ALU on the targets modelled (ACO on
    GCN and RDNA 1-3), so such a result is in VGPRs even when every lane holds the same value.
    Moves (copies, swizzles, constructors and initialisers of values of one kind, `?:`,
    component writes, bit casts, dynamic indexing), negations and `abs` (source modifiers of the
    instruction that reads them) and integer arithmetic follow their operands."""
    op = ins.op
    if op not in ("alu", "intrinsic"):
        return False
    detail = ins.detail
    name = detail.get("name")
    reads = ins.reads
    if op == "intrinsic":
        return (
            ins.rule == "pure"
            and name not in _MOVES
            and (d.type.is_float or any(r.type.is_float for r in reads))
        )
    if (detail.get("cw") and "unary" not in detail) or name == "mul":  # arithmetic
        return d.type.is_float or any(r.type.is_float for r in reads)
    if "set" in detail or "select" in detail or "unary" in detail:
        return False
    return any(_converts(d.type, r.type) for r in reads)


def _converts(to: T.Type, src: T.Type) -> bool:
    """Whether a value of type `src` made into one of type `to` takes a conversion instruction
    of the vector ALU: between floating-point and integer or bool values, or to or from double."""
    if to.is_float:
        return (
            src.is_int
            or src.is_bool
            or (src.is_float and (to.scalar == "double") != (src.scalar == "double"))
        )
    return to.is_int and src.is_float


def vector_alu_uniforms(du: DefUse, divergent: set[Value], constant: set[Value]) -> set[Value]:
    """Wave-uniform values the compiler nonetheless keeps in VGPRs: results of vector ALU
    instructions (`_vector_alu`: floating-point arithmetic and conversions), and moves and
    integer arithmetic of such values (regtruth: two float4 of cbuffer arithmetic live across a
    loop take 8 more VGPRs than the same integer arithmetic, which stays in SGPRs). A value with
    several definitions is in VGPRs when any definition puts it there, as the compiler's phi
    does. Bools stay lane masks or scalar conditions; scalar loads, descriptors and what a wave
    intrinsic returns (`uniform` rule) stay in SGPRs. Matrices stay in the SGPR count: the
    compiler computes only the components of a uniform matrix product that are used, where they
    are used, and folds products with a constant identity, where a whole matrix counted in VGPRs
    overshoots (regtruth: `(float3x3)mul(view, model)` of two cbuffer matrices in a vertex shader,
    presched_vgprs 16; 21 with the whole product in VGPRs, 16 in SGPRs)."""
    found: set[Value] = set()
    work: list[Value] = []
    for v, ds in du.defs.items():
        if (
            v.reg_class is not None
            or v.parts is not None
            or v in divergent
            or v in constant
            or v.type.is_bool
            or v.type.kind == "matrix"
        ):
            continue
        for ins in ds:
            if _vector_alu(ins, v):
                found.add(v)
                work.append(v)
                break
    deadline = current()
    while work:
        deadline.tick()
        v = work.pop()
        for ins in du.readers.get(v, ()):
            d = ins.dest
            if (
                d is None
                or d in found
                or ins.op not in _STREAM_OPS
                or ins.rule == "uniform"
                or d.reg_class is not None
                or d.parts is not None
                or d in divergent
                or d in constant
                or d.type.is_bool
                or d.type.kind == "matrix"
            ):
                continue
            found.add(d)
            work.append(d)
    # A value defined once and read once in the same block is folded into its reader
    # (`x - 0.5 * r` is one fused multiply-add reading `r` from SGPRs; `ambient + diffuse` of
    # `ambient = c.rgb * 0.5` too): it holds no VGPR of its own (regtruth: such a pixel shader,
    # presched_vgprs 4; 5 with the product in a VGPR).
    readers, defs = du.readers, du.defs
    for v in list(found):
        rs = readers.get(v, ())
        ds = defs[v]
        if len(rs) == 1 and len(ds) == 1 and rs[0].block == ds[0].block:
            found.discard(v)
    return found


def _classes(
    cfg: CFG,
    uni: Uniformity,
    wave_size: int,
    costs: CostModel,
    streamed: set[Value],
    constant: set[Value],
    partly: dict[Value, int],
    valu: set[Value],
) -> tuple[dict[Value, str], dict[Value, int]]:
    """Register class and registers counted of every value (`value_class`, less its constant
    components, then nothing for a folded constant and one register for a streamed vector
    temporary)."""
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
        classes[v] = cls
        sizes[v] = 0 if v in constant else 1 if cls == "vgpr" and v in streamed else n
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


def register_demand(
    cfg: CFG,
    live: LiveSets,
    uni: Uniformity,
    wave_size: int = 64,
    costs: CostModel = DEFAULT_COSTS,
    *,
    record_live: bool = False,
) -> Demand:
    streamed = _cached(cfg, "streamed", streamed_temps) if costs.stream_componentwise_temps else set()
    constant = (
        _cached(cfg, "constant", lambda du: constant_values(du, kept_loop_blocks(cfg)))
        if costs.fold_constant_values
        else set()
    )
    partly: dict[Value, int] = (
        _cached(cfg, "constant_components", constant_components) if costs.fold_constant_components else {}
    )
    valu = (
        vector_alu_uniforms(def_use(cfg), uni.divergent, constant)
        if costs.uniform_float_alu_in_vgprs
        else set()
    )
    classes, sizes = _classes(cfg, uni, wave_size, costs, streamed, constant, partly, valu)
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
    best: tuple[Instr, int] | None = None  # instruction, live after it
    live_at: dict[Instr, list[Value]] = {}
    bits_out = out.bits
    deadline = current()
    for b, instrs in cfg.kept_instrs().items():
        deadline.check()
        cur = bits_out[b]
        v_sum = s_sum = 0
        if cur:
            for n, m in vmask_items:
                v_sum += n * (cur & m).bit_count()
            for n, m in smask_items:
                s_sum += n * (cur & m).bit_count()
        extra_s = base_sgprs + per_level * divergent_blocks.get(b, 0)
        for ins in reversed(instrs):
            deadline.tick()
            # live before = (live after - dest) | reads; counted: live after | dest | reads.
            # One pass over the reads gives both: the registers of the operands not live after
            # (other than the result) are counted here and become live before.
            d = ins.dest
            op = ins.op
            add_v = add_s = 0
            seen = cur
            d_read = False
            for r in ins.reads:
                if r is d:
                    d_read = True
                    continue
                ri = index[r]
                rb = 1 << ri
                if not seen & rb:
                    seen |= rb
                    add_v += vsize[ri]
                    add_s += ssize[ri]
            if operands:
                nv, ns = v_sum + add_v, s_sum + add_s
            else:
                nv, ns = v_sum, s_sum
            if d is not None:
                di = index[d]
                d_bit = cur & (1 << di)  # nonzero when live after
                dv, ds = vsize[di], ssize[di]
                # a declaration without a value takes no register until it is written
                if not d_bit and op != "undef":
                    nv += dv
                    ns += ds
            if op == "export" and export_vgprs:
                nv += sum(
                    x.width if x in constant else sizes[x]
                    for x in ins.reads
                    if classes[x] == "sgpr" or x in constant
                )
                # the export holds its per-lane outputs whole, constant components included
                nv += sum(
                    (x.width if x in partly else sizes[x]) if not cur & (1 << index[x]) else partly.get(x, 0)
                    for x in dict.fromkeys(ins.reads)
                    if classes[x] == "vgpr" and x not in constant
                )
            elif op == "preload" and nv < preloaded:
                nv = preloaded
            elif op == "intrinsic" and d is not None and vsize[index[d]]:
                nv += intrinsic_temps.get(ins.detail.get("name", ""), 0)
            vg[ins] = nv
            sg[ins] = ns + extra_s
            if nv > best_v:
                best_v = nv
                best = (ins, cur)
            if record_live:
                live_at[ins] = _ordered(_counted(ins, _decode(cur, values), operands), sizes)
            # step backwards: the result is not live before unless it is read
            v_sum += add_v
            s_sum += add_s
            if d is not None:
                if d_read:
                    if not d_bit:
                        seen |= 1 << di
                        v_sum += dv
                        s_sum += ds
                elif d_bit:
                    seen ^= d_bit
                    v_sum -= dv
                    s_sum -= ds
            cur = seen
    peak_v = max(vg.values(), default=0)
    peak_s = max(sg.values(), default=costs.base_sgprs)
    peak_instr = best[0] if best is not None else None
    peak_live = (
        _ordered(_counted(best[0], _decode(best[1], values), operands), sizes) if best is not None else []
    )
    return Demand(vg, sg, peak_v, peak_s, peak_instr, peak_live, classes, sizes, live_at)


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
