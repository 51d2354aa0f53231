"""How each value of a CFG counts, from its definitions and uses (computed once per CFG and
queried by `liveness.register_demand`): values that only hold compile-time constants (folded
into their uses, `constant_values`) or some constant components (`constant_components`),
vector temporaries streamed between two component-wise operations (`streamed_temps`), and
wave-uniform values the compiler keeps in VGPRs because the targets have no scalar
floating-point ALU (`vector_alu_uniforms`). `def_use(cfg)` is the index they all read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from hlsllint.analysis.ir import CFG, COMPONENTWISE_INTRINSICS, Instr, Value, postorder_ranks
from hlsllint.deadline import current
from hlsllint.semantic import types as T

_T = TypeVar("_T")

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


def cached_per_cfg(cfg: CFG, key: str, make: Callable[[DefUse], _T]) -> _T:
    """`make(def_use(cfg))`, computed once per CFG."""
    found: _T | None = cfg.cache.get(key)
    if found is None:
        found = cfg.cache[key] = make(def_use(cfg))
    return found


def streamed_temps(du: DefUse, fused_only: bool = False) -> set[Value]:
    """Vector temporaries computed and consumed component by component within one expression:
    `saturate(dot(l, n) * color)` feeding `+=` never holds all four components of the product,
    the compiler finishes one component before the next (regtruth: two lights accumulated into a
    float4 hold 6 VGPRs, not the 11 of whole vectors). Such a temporary costs one register.
    A conversion is not streamed: no reader takes it as an operand modifier, and each
    component is converted before the reader starts (regtruth: `(id.xy + 0.5) / float2(size)`
    holds both converted components, 6 presched VGPRs, 5 with `float2(size)` streamed).
    `fused_only`: only a temporary its reader fuses (`_fused`) streams; with the liveness by
    component, which holds each of the others' components as a register of its own."""
    out: set[Value] = set()
    for v, ds in du.defs.items():
        if v.kind != "temp" or v.width <= 1 or v.reg_class is not None or v.parts is not None:
            continue
        ins = ds[-1]
        rs = du.readers.get(v, [])
        if len(rs) == 1 and rs[0].block == ins.block and _componentwise(ins) and _componentwise(rs[0]):
            if _conversion(ins, v):
                continue  # every component of it before its reader
            if fused_only and not _fused(ins, rs[0]):
                continue  # every component of it before its reader
            out.add(v)
    return out


def computed_in_place(du: DefUse, cfg: CFG | None = None) -> set[Value]:
    """Vector temporaries an accumulation computes into the accumulator's registers: the
    product of `acc += c * w` (one fused multiply-add per lane of `acc`) and the value of a
    compound assignment into a swizzle's lanes, read only by that write (`blur.rgba += c * w`
    computes each component into the lane it writes). They take no register (regtruth: a
    7-tap gaussian summed so, 32 presched VGPRs; 33 with the product counted). With `cfg`,
    also a constructor of variables read later and constants (`_gathers_live_values`)."""
    out: set[Value] = set()
    place: dict[Instr, tuple[int, int]] | None = None
    for v, ds in du.defs.items():
        if v.kind != "temp" or v.width <= 1 or v.reg_class is not None or v.parts is not None:
            continue
        rs = du.readers.get(v, [])
        if len(ds) != 1 or len(rs) != 1 or rs[0].block != ds[0].block:
            continue
        ins, reader = ds[0], rs[0]
        if reader.op == "alu" and "set" in reader.detail and "copr" in ins.detail:
            out.add(v)
        elif "copr" in reader.detail and _fused_product(ins, reader):
            out.add(v)  # `acc += c * w`: one fused multiply-add per lane of `acc`
        elif cfg is not None and "lanes" in ins.detail:
            if place is None:
                place = _places(cfg)
            if _gathers_live_values(ins, reader, du, place):
                out.add(v)  # `mul(m, float4(p, 1))` with `p` read later: `p`'s own registers
    return out


def _places(cfg: CFG) -> dict[Instr, tuple[int, int]]:
    """Each kept instruction's (block's place in reverse postorder, index in its block)."""
    order = postorder_ranks(cfg)[0]
    rank = {b: len(order) - i for i, b in enumerate(order)}
    return {
        ins: (rank.get(b, 0), k) for b, instrs in cfg.kept_instrs().items() for k, ins in enumerate(instrs)
    }


def _gathers_live_values(ins: Instr, reader: Instr, du: DefUse, place: dict[Instr, tuple[int, int]]) -> bool:
    """Whether `ins` is a constructor that gathers components of variables with constants
    (`float4(p, 1)`, no conversion) for one arithmetic `reader` in its block, each variable
    read again after `reader` (`place`: reverse postorder, then the index in the block): the
    compiler splits the vector into its components, so the reader reads the variables' own
    registers, which stay live anyway (regtruth: `mul(m, float4(q, 1)).xyz` with `q` read after
    it, a matrix loaded between, 15 presched VGPRs; the constructor held beside `q`, 20). A
    constructor with no constant lane (a cast of a whole vector, FidelityFX's
    `FfxUInt32x2(pos)`) is left as it was: free as well in SSA, it took FidelityFX's median
    from 8.8% to 10.3% (the estimate is under there by other means)."""
    d = ins.dest
    lanes = ins.detail.get("lanes") or ()
    if ins.op != "alu" or d is None or not ins.reads or _conversion(ins, d) or all(n > 0 for n in lanes):
        return False  # (a cast of a whole vector, `uint2(pos)`, is left as it was)
    if reader.op not in ("alu", "intrinsic") or "set" in reader.detail or reader not in place:
        return False
    at = place[reader]
    for src in ins.reads:
        if src.kind != "var" or src.parts is not None:
            return False
        if not any(r is not ins and place.get(r, at) > at for r in du.readers.get(src, ())):
            return False
    return True


def fused_temps(du: DefUse) -> set[Value]:
    """`streamed_temps` of the temporaries their readers fuse only."""
    return streamed_temps(du, fused_only=True)


_BIT_CASTS = frozenset({"asfloat", "asuint", "asint"})
"""Reinterpretations of bits: no instruction (`asfloat(load.xxxx)` of a scalar is its register)."""

_MODIFIERS = frozenset({"saturate", "abs"})
"""Intrinsics the compiler applies as a modifier of the instruction that computes their
operand (`saturate`: an output clamp) or reads their result (`abs`: an input modifier)."""


def _operator(ins: Instr) -> object:
    """The operator of an ALU instruction (`+` of `a + b` and of `v += x`), else None."""
    detail = ins.detail
    return detail.get("opr", detail.get("copr"))


def _fused(ins: Instr, reader: Instr) -> bool:
    """Whether the compiler folds `ins`'s result into `reader`'s instruction instead of holding
    every component of it: a product read by an addition or subtraction (one fused multiply-add
    per component), a product or sum clamped by `saturate` (an output modifier), a negation or
    `abs` (input modifiers of the reader), a compound assignment into the lanes of a swizzle
    (`blur.rgba += c * w` is `blur += c * w`: regtruth, a 7-tap gaussian summed so, 32
    presched VGPRs; the sum held whole beside `blur`, 36).
    Anything else is computed for every component before the reader starts (the compiler
    scalarises each vector operation where it stands; regtruth: `b * rcp(1.0 + b)` of a loaded
    float4 holds all four sums, presched_vgprs 17, 14 with the sum streamed)."""
    if ins.op == "intrinsic" and ins.detail.get("name") == "abs":
        return True
    d = ins.dest
    if (
        ins.op == "intrinsic"
        and ins.detail.get("name") in _BIT_CASTS
        and d is not None
        and all(r.width < d.width for r in ins.reads)
    ):
        return True  # no instruction: a splat of its operand's registers (`.xxxx`, `.xyxy`)
    if reader.op == "intrinsic" and reader.detail.get("name") in _MODIFIERS:
        return True
    if "unary" in ins.detail or "unary" in reader.detail:
        return True
    if ins.op == "copy" or reader.op == "copy":
        return True
    if reader.op == "alu" and "set" in reader.detail and "copr" in ins.detail:
        return True  # `v.rgb += x`: each component computed into the lanes it writes
    product = ins.op == "alu" and _operator(ins) == "*"
    return product and reader.op == "alu" and _operator(reader) in ("+", "-")


_FOLDABLE_OPS = frozenset({"alu", "copy", "undef"})


def kept_loop_blocks(cfg: CFG) -> list[frozenset[int]]:
    """The blocks of each loop that loops at run time (`LoopRecord.dynamic`)."""
    return [loop.blocks for loop in cfg.loops if loop.dynamic]


def _loops_around(loops: list[frozenset[int]]) -> dict[int, int]:
    """Block -> the loops of `loops` holding it, as bits (bit i: `loops[i]`)."""
    around: dict[int, int] = {}
    for i, blocks in enumerate(loops):
        bit = 1 << i
        for b in blocks:
            around[b] = around.get(b, 0) | bit
    return around


def _carried(ds: list[Instr], around: dict[int, int]) -> bool:
    """Is the value these definitions set carried around a kept loop: set before it and set
    again inside it from other values (a counter `i = 0` then `i++`, `w = 1` then
    `w = w * 0.5 + 1`)? It then changes from one iteration to the next, whatever constants its
    definitions read. (Set inside to a literal, `x = 5`, it holds that literal after the first.)
    `around`: the kept loops around each block (`_loops_around`): a loop some definition inside
    it computes and some definition lies outside of, in one pass over the definitions rather
    than one per loop."""
    computed = 0  # the loops a definition inside computes from values
    everywhere = -1  # the loops every definition lies in
    for d in ds:
        inside = around.get(d.block, 0)
        if d.reads:
            computed |= inside
        everywhere &= inside
    return bool(computed & ~everywhere)


def constant_values(du: DefUse, kept_loops: list[frozenset[int]]) -> set[Value]:
    """Values that hold compile-time constants wherever they are read: every definition is an
    arithmetic, a pure intrinsic (`exp(-0.5 * o * o)`) or a copy of constants (literals, other
    such values, the value itself), as in an offset table filled with `int2(1, 0)`... The
    compiler folds them into the instructions that read them, so they take no register. An
    intrinsic in a kept loop (`kept_loops`, the blocks of each) is not folded, and neither is a
    value carried around one (`_carried`): a counter or accumulator of such a loop looks constant
    by its definitions alone (they read only literals and itself), but it changes every
    iteration, and so does every chain over it, ALU or intrinsic: a `min`/`max` search over it is
    the loop's work (a block compressor's search: ~160 VGPRs, not 8; regtruth: six float4
    recurrences `w = w * 0.5 + i * k` in a kept loop hold 34 VGPRs, 10 when folded)."""
    defs = du.defs
    foldable = _FOLDABLE_OPS
    kept: frozenset[int] = frozenset().union(*kept_loops) if kept_loops else frozenset()
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
    around = _loops_around(kept_loops)
    for v in candidates:
        varies = bool(kept_loops) and _carried(defs[v], around)
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
    if written is not None and reads and (reads[0] is d or reads[0].symbol is d.symbol):
        out = masks.get(reads[0], 0)  # the value written into (`components` may rename it)
        src = reads[1] if len(reads) > 1 else None
        src_mask = masks.get(src, 0) if src is not None else _lane_mask(len(written))
        for j, c in enumerate(written):
            bit = src_mask & 1 if src is not None and src.width == 1 else src_mask >> j & 1
            out = out | 1 << c if bit else out & ~(1 << c)
        return out & full
    if op == "intrinsic" and detail.get("name") in _LANE_READS:
        return masks.get(reads[0], 0) & full if reads and reads[0].width == d.width else 0
    componentwise = op == "intrinsic" and detail.get("name") in COMPONENTWISE_INTRINSICS
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
    return {v: m.bit_count() for v, m in constant_component_masks(du).items()}


def constant_component_masks(du: DefUse) -> dict[Value, int]:
    """`constant_components` as a bit per constant component (bit c: component c), for the
    liveness by component (`component_liveness._ComponentLiveness.constant_flow`)."""
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
    return {v: m for v, m in masks.items() if m and v not in full}


def unpicked_components(du: DefUse) -> dict[Value, int]:
    """Vectors read only through constructors that pick some of their components
    (`float3(a.b, b.g, c.r)` of three loads): value -> the number of components no reader
    takes. The compiler drops the unread components (a load's are dead as soon as it returns),
    so they hold no register while the value waits for its reader (regtruth: three `float3`
    loads of which a constructor takes one component each hold 7 VGPRs, 11 whole)."""
    out: dict[Value, int] = {}
    for v, rs in du.readers.items():
        if v.width <= 1 or v.parts is not None or v.reg_class is not None or v not in du.defs:
            continue
        if any(d.op in ("input", "preload") for d in du.defs[v]):
            continue  # the registers the hardware fills are there whatever is read
        taken = 0
        for ins in rs:
            picks = ins.detail.get("picks")
            if picks is None:
                break
            whole = False
            for r, pick in zip(ins.reads, picks, strict=False):
                if r is v:
                    if pick is None:
                        whole = True
                        break
                    for c in pick:
                        taken |= 1 << c
            if whole:
                break
        else:
            n = v.width - taken.bit_count()
            if n > 0:
                out[v] = n
    return out


_ALIKE_INTRINSICS = COMPONENTWISE_INTRINSICS | {"asfloat", "asint", "asuint"}
"""Component-wise intrinsics whose result components are alike when their operands' are."""


def alike_components(du: DefUse) -> dict[Value, tuple[int, ...]]:
    """Vectors some of whose components are computed alike: value -> per component the first
    component computed the same way (`sqrt(x.xxxx)`: (0, 0, 0, 0); `a.xyxy * 2`: (0, 1, 0, 1)).
    A component-wise operation (an operator, a component-wise intrinsic, a bit cast, a copy of
    a swizzle) computes two components alike when every operand gives both the same component
    (a component computed alike, a scalar, an equal constant); the compiler splits the vector
    into components and its value numbering computes them once (regtruth: `value +=
    sqrt(x.xxxx)` in a loop holds one register for the four-wide temporary, 7 presched VGPRs
    as with a scalar `sqrt(x)`; the estimate with four, 11). Only values set once: a variable
    set again (a loop's accumulator) is a phi of each component, which the compiler never
    merges. A vector some store, export or fetch reads is left out: it takes the components in
    registers of their own."""
    out: dict[Value, tuple[int, ...]] = {}
    for v, ds in du.defs.items():  # in the order of the definitions
        if len(ds) == 1 and v.parts is None and _has_components(v):
            found = _alike(v, ds[0], out)
            if found is not None:
                out[v] = found
    # a store, an export or a fetch takes the vector whole, in registers of their own
    return {v: c for v, c in out.items() if all(ins.op in _STREAM_OPS for ins in du.readers.get(v, ()))}


def _classes(r: Value, out: dict[Value, tuple[int, ...]]) -> tuple[int, ...]:
    """Per component of `r`, the first component computed alike (`alike_components` so far;
    a value not met yet, read before its definition in a loop, is distinct). Module-level, as
    `_alike`: nested functions that call each other make a reference cycle in the compiled
    build (their shared environment), which the collector would have to free."""
    return (0,) if r.width == 1 else out.get(r) or tuple(range(r.width))


def _alike(d: Value, ins: Instr, out: dict[Value, tuple[int, ...]]) -> tuple[int, ...] | None:
    """The components of `d`, defined by `ins`, computed alike (see `alike_components`)."""
    detail = ins.detail
    n = d.width
    per: list[list[object]] = [[] for _ in range(n)]  # per component: what computes it
    if ins.op == "copy" and detail.get("sels") is not None and len(ins.reads) == 1:
        ops: tuple[object, ...] = tuple(detail["sels"])
    elif (ins.op == "alu" and detail.get("cw")) or (
        ins.op == "intrinsic" and detail.get("name") in _ALIKE_INTRINSICS
    ):
        ops = detail.get("ops") or ()
    else:
        return None
    reads = iter(ins.reads)
    for o in ops:
        if not isinstance(o, tuple) or not o:
            return None
        if o[0] == "k":
            ks = o[1]
            if len(ks) not in (1, n):
                return None
            for c in range(n):
                per[c].append(("k", ks[c if len(ks) > 1 else 0]))
            continue
        r = next(reads, None)
        if r is None or o[0] != "v":
            return None
        sel = o[1]
        if r.width > 1 and (sel is None or not o[4]):
            return None  # a view no swizzle names, or a parameter bound to a view
        if sel is None:
            sel = (0,)
        if len(sel) not in (1, n) or max(sel) >= r.width or min(sel) < 0:
            return None
        rc = _classes(r, out)
        for c in range(n):
            per[c].append(rc[sel[c if len(sel) > 1 else 0]])
    if next(reads, None) is not None:
        return None
    first: dict[tuple[object, ...], int] = {}
    found = tuple(first.setdefault(tuple(p), c) for c, p in enumerate(per))
    return found if len(first) < n else None


_MOVES = frozenset({"asfloat", "asint", "asuint", "asfloat16", "asint16", "asuint16", "select", "abs"})
"""Intrinsics that move or reinterpret their operands' bits (`abs` is a source modifier of the
instruction that reads its result): in the class of the operands."""


def _texture_size(ins: Instr) -> bool:
    """Whether `ins` queries a resource's size into a float (`float2 size;
    t.GetDimensions(size.x, size.y)`): the size is an integer the compiler converts, a
    vector ALU instruction, so the float is in VGPRs (an integer size stays in SGPRs: the
    compiler reads a uniform one into them)."""
    d = ins.dest
    return ins.op == "query" and d is not None and d.type.is_float


def _vector_alu(ins: Instr, d: Value) -> bool:
    """Whether `ins`, computing `d`, is a vector ALU instruction whatever the uniformity of its
    operands: floating-point arithmetic, and conversions between floating-point and integer or
    bool values. The compiler has no scalar floating-point ALU on the targets modelled (ACO on
    GCN and RDNA 1-3), so such a result is in VGPRs even when every lane holds the same value.
    Moves (copies, swizzles, constructors and initialisers of values of one kind, `?:`,
    component writes, bit casts, dynamic indexing), negations and `abs` (source modifiers of the
    instruction that reads them) and integer arithmetic follow their operands."""
    op = ins.op
    reads = ins.reads
    if op not in ("alu", "intrinsic"):
        return False
    detail = ins.detail
    name = detail.get("name")
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


def _conversion(ins: Instr, d: Value) -> bool:
    """Whether `ins` converts its operands into `d` (`float2(size)` of a `uint2`)."""
    return ins.op == "alu" and any(_converts(d.type, r.type) for r in ins.reads)


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


def _stays_scalar(v: Value, divergent: set[Value], constant: set[Value]) -> bool:
    """A value `vector_alu_uniforms` leaves where it is: already placed, split into parts,
    per-lane, folded, a bool (a lane mask or a scalar condition) or a matrix."""
    return (
        v.reg_class is not None
        or v.parts is not None
        or v in divergent
        or v in constant
        or v.type.is_bool
        or v.type.kind == "matrix"
    )


def vector_alu_uniforms(
    du: DefUse, divergent: set[Value], constant: set[Value], texture_sizes: bool = False
) -> set[Value]:
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
    presched_vgprs 16; 21 with the whole product in VGPRs, 16 in SGPRs).
    `texture_sizes` (with the liveness by component): a size queried into floats too
    (`_texture_size`)."""
    found: set[Value] = set()
    work: list[Value] = []
    for v, ds in du.defs.items():
        if _stays_scalar(v, divergent, constant):
            continue
        for ins in ds:
            if _vector_alu(ins, v) or (texture_sizes and _texture_size(ins)):
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
                or _stays_scalar(d, divergent, constant)
            ):
                continue
            found.add(d)
            work.append(d)
    # A value defined once and read once in the same block is folded into its reader
    # (`x - 0.5 * r` is one fused multiply-add reading `r` from SGPRs; `ambient + diffuse` of
    # `ambient = c.rgb * 0.5` too): it holds no VGPR of its own (regtruth: such a pixel shader,
    # presched_vgprs 4; 5 with the product in a VGPR). Not a conversion: no reader takes one
    # as an operand (`float2(size)` read by a division is in VGPRs: 7, not 5).
    # So is a product read only by an addition, wherever the addition is: one fused
    # multiply-add reads the product's uniform operands from SGPRs (regtruth: a wave sum
    # scaled by `1 / WaveGetLaneCount()` and added to per-lane values after a branch, 18
    # presched VGPRs; 21 when the scaled sum multiplies them instead).
    readers, defs = du.readers, du.defs
    for v in list(found):
        rs = readers.get(v, ())
        ds = defs[v]
        if (
            len(rs) == 1
            and len(ds) == 1
            and not _conversion(ds[0], v)
            and (rs[0].block == ds[0].block or _fused_product(ds[0], rs[0]))
        ):
            found.discard(v)
    return found


def _fused_product(ins: Instr, reader: Instr) -> bool:
    """Whether `ins` is a floating-point product (a division by a constant or a reciprocal
    included) that `reader`, an addition or subtraction, fuses into a multiply-add (an
    integer product is a multiply of its own)."""
    d = ins.dest
    return (
        ins.op == "alu"
        and d is not None
        and d.type.is_float
        and _operator(ins) in ("*", "/")
        and reader.op == "alu"
        and _operator(reader) in ("+", "-")
    )


def bit_identical_conversions(du: DefUse) -> dict[Value, Value]:
    """Conversions that change no bit, value -> its operand: `int2(id.xy)` of a `uint3`, `uint(i)`
    of an `int` (integers of one width, signed to unsigned or back) and bit casts (`asuint(f)`).
    The compiler emits no instruction: the result is the operand's registers, and while both
    are live they are one value (`liveness.register_demand` counts the conversion only once
    its operand is dead; regtruth: `int2 p = int2(id.xy)` read by five loads, `id.xy` by the
    store after them, presched_vgprs 16; `p` held beside `id`, 17). `lowering_stmt` makes a
    local that copies a whole variable so the variable itself; this covers what it leaves (a
    copy of fewer components, a conversion passed as an argument). A constructor of the same
    type (`uint2(gxy)` of a `uint2`) is a copy, and counts apart as every copy does."""
    out: dict[Value, Value] = {}
    for v, ds in du.defs.items():
        if len(ds) != 1 or v.parts is not None or v.reg_class is not None:
            continue
        ins = ds[0]
        if len(ins.reads) != 1:
            continue
        r = ins.reads[0]
        if r.parts is not None or r.reg_class is not None or r.type is None or v.type is None:
            continue
        name = ins.detail.get("name")
        if ins.op == "intrinsic" and name in _BIT_CASTS and r.width >= v.width:
            pass
        elif ins.op == "alu" and ins.detail.get("lanes") == (v.width,):
            if {r.type.scalar, v.type.scalar} != {"int", "uint"}:
                continue  # of one type it is a copy, which counts apart as every copy does
        else:
            continue
        out[v] = r
    return out
