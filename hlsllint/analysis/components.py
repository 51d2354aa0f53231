"""Value numbering by component, as the compiler does after scalarising vectors.

The IR's values are whole vectors; the compiler (NIR after SPIR-V) splits them into components
and value-numbers each component: `floor(p + float3(0, e, 0)).x` is `floor(p.x)`, the same
value as `floor(p + float3(0, 0, e)).x`, so two inlined copies of a noise helper called at
neighbouring points compute the components they share once, and the first copy's registers for
them stay live until the last copy has used them. `number_components` names each component of
every value set once by what computes it (the operator or intrinsic and its operands'
component names, through swizzles, constructors, constants and conversions; `x + 0` and `x * 1`
are `x`), walking the dominator tree, and:

- a value whose every component is one a dominating value computed already, in the same order,
  is that value (its instruction is dropped and its reads go to the first);
- a component some dominating value computed already is that value's register: it costs
  nothing in the later value (`shared`), and an extract of it (`alu` with detail `extract`)
  right after the first value's definition is read (by a `hold` just before each) by the
  readers of the later value that need that component, so the register is live from the
  first computation to the last use.

Only pure operations are numbered (`ops` from the lowering: arithmetic, component-wise and
other pure intrinsics, constructors; copies pass their operand's names on); loads, reads of a
variable set more than once, and anything else name their components afresh.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import networkx as nx

from hlsllint.analysis.ir import Instr, Value, dominator_tree
from hlsllint.deadline import current
from hlsllint.semantic import types as T

_COMPONENTWISE = frozenset(
    {
        "abs", "saturate", "min", "max", "clamp", "lerp", "frac", "floor", "ceil", "round",
        "trunc", "sqrt", "rsqrt", "rcp", "exp", "exp2", "log", "log2", "sin", "cos", "sign",
        "pow", "step", "smoothstep", "mad", "fma", "tan", "sincos", "fmod", "isnan", "isinf",
    }
)  # fmt: skip
"""Intrinsics whose result component i depends only on component i of each operand."""


_WIDEST = 16
"""Values wider than a matrix (arrays) are not numbered by component."""
_FETCHES = frozenset({"load", "sample", "gather"})
_SAME_BITS = frozenset({"int", "uint", "dword", "int32_t", "uint32_t"})
"""Scalar types a conversion between leaves the bits as they are (no instruction)."""


class Numbering:
    """What `number_components` found: the instructions merged into an earlier one, and per
    value the components it shares with an earlier value (held by extracts)."""

    dropped: set[Instr]
    shared: dict[Value, int]
    constant: dict[Value, int]
    """Value -> its components that are compile-time constants (`floor(0)`, folded)."""
    extracts: int

    def __init__(self) -> None:
        self.dropped = set()
        self.shared = {}
        self.constant = {}
        self.extracts = 0


def number_components(
    g: nx.DiGraph,
    entry: int,
    instrs: list[Instr],
    dropped: frozenset[Instr],
    new_value: Callable[[str, T.Type], Value],
    viewed: set[Value] | frozenset[Value] = frozenset(),
    bound_views: set[Value] | frozenset[Value] = frozenset(),
    merge_whole: bool = True,
    hold_shared: bool = True,
    cache: dict[str, Any] | None = None,
) -> Numbering:
    """See the module docstring. `dropped`: instructions already removed (merged, copies);
    `viewed`: values some expression takes a part of (a load or copy reading them may read that
    part); `bound_views`: values a parameter is bound to through such a part (`f(v.yx)`)."""
    found = Numbering()
    if not any("ops" in ins.detail for ins in instrs):
        return found
    _rename_in_blocks(g, instrs, dropped, new_value)
    defs: dict[Value, int] = {}
    def_of: dict[Value, Instr] = {}
    for ins in instrs:
        d = ins.dest
        if d is not None and ins not in dropped:
            defs[d] = defs.get(d, 0) + 1
            def_of[d] = ins
    cw_reads: dict[Instr, list[tuple[Value, tuple[int, ...] | None]]] = {}
    ids: dict[object, int] = {}
    numbers: dict[int, float] = {}  # the name of a constant -> its number
    comps: dict[Value, tuple[int, ...]] = {}

    def name(key: object) -> int:
        n = ids.get(key)
        if n is None:
            n = ids[key] = len(ids)
        return n

    def constant(x: int | float) -> int:
        n = name(("k", float(x)))
        numbers[n] = float(x)
        return n

    def fresh(v: Value) -> tuple[int, ...]:
        # names of their own, never interned: below zero, apart from every computed name
        base = -1 - (v.id << 16)
        return tuple([base - c for c in range(v.width)])

    local: dict[Value, tuple[int, ...]] = {}  # a variable set more than once: since its
    # last definition in the block being walked (which no other definition can follow there)

    def of(r: Value) -> tuple[int, ...] | None:
        known = comps.get(r)
        if known is not None:
            return known
        known = local.get(r)
        if known is not None:
            return known
        if r.width > _WIDEST:
            return None
        n = defs.get(r, 0)
        if n == 0:  # a resource or anything no instruction sets: the same wherever read
            known = comps[r] = fresh(r)
            return known
        return None  # set more than once, or not yet (a loop's back edge)

    def operand_lists(ins: Instr, d: Value) -> list[tuple[int, ...]] | None:
        ops = ins.detail["ops"]
        reads = ins.reads
        out: list[tuple[int, ...]] = []
        i = 0
        to = d.type.scalar
        for o in ops:
            if o[0] == "k":
                out.append(tuple([constant(x) for x in o[1]]))
                continue
            if i >= len(reads):
                return None
            base = of(reads[i])
            i += 1
            if base is None:
                return None
            sel = o[1]
            r = reads[i - 1]
            if not o[4] and r in bound_views:
                return None  # through a parameter that may be a view of it (`f(v.yx)`)
            if sel is None and 0 < o[3] < len(base):
                sel = tuple(range(o[3]))  # the leading part (a parameter bound to `v.xy`)
            if sel is not None:
                if max(sel) >= len(base):
                    return None
                base = tuple([base[c] for c in sel])
            if o[2] != to and o[2] and to and not (o[2] in _SAME_BITS and to in _SAME_BITS):
                base = tuple([name(("cvt", to, c)) for c in base])
            out.append(base)
        if i != len(reads):
            return None
        return out

    def number(ins: Instr, d: Value) -> tuple[int, ...] | None:
        detail = ins.detail
        width = d.width
        if any(r in viewed for r in ins.reads) and "ops" not in detail:
            return None  # may read a view no expression here names (`At(id.yx)`)
        if ins.op in ("alu", "copy") and not ins.reads and "ops" not in detail and "rows" not in detail:
            # a compile-time constant (`const float h = 0.1;`), its number not kept here
            out_k = [name(("kv", d.id, c)) for c in range(width)]
            for n in out_k:
                numbers[n] = float("nan")
            return tuple(out_k)
        if ins.op == "copy":
            if len(ins.reads) == 1 and ins.reads[0].width == width:
                return of(ins.reads[0])
            return None
        if d.type.kind not in ("scalar", "vector") or d.type.count != width:
            return None
        sig = detail.get("sig")
        if sig is not None and ins.op == "cbload":  # a constant-buffer member, wherever read
            every_r: list[int] = []
            for r in ins.reads:
                rc = of(r)
                if rc is None:
                    return None
                every_r.extend(rc)
            key_r = tuple(every_r)
            return tuple([name(("cb", sig, key_r, c)) for c in range(width)])
        if ins.op in _FETCHES and ins.reads and ins.rule != "effect":
            res = ins.reads[0].type.resource
            if res is None or res.writable:
                return None
            every_f: list[int] = []
            for r in ins.reads:
                rc = of(r)
                if rc is None:
                    return None
                every_f.extend(rc)
            key_f = (ins.op, detail.get("method"), detail.get("member"), tuple(every_f))
            return tuple([name((key_f, c)) for c in range(width)])
        written = detail.get("set")
        if written is not None and len(ins.reads) == 2 and ins.op == "alu":
            # a write of some components (`v.x = s`): the earlier value's others
            before = of(ins.reads[0])
            src = of(ins.reads[1])
            if before is None or src is None or len(before) != width:
                return None
            out_set = list(before)
            for j, c in enumerate(written):
                out_set[c] = src[min(j, len(src) - 1)]
            return tuple(out_set)
        if "ops" not in detail:
            return None
        lists = operand_lists(ins, d)
        if lists is None:
            return None
        opr = detail.get("opr")
        fname = detail.get("name")
        if opr is None and "copr" in detail:  # `v op= x`: read as (x, v)
            opr = detail["copr"]
            lists.reverse()
        if opr is not None and ins.op == "alu":
            if any(len(x) != 1 and len(x) < width for x in lists):
                return None
            cw_reads[ins] = _operand_map(ins)
            out: list[int] = []
            for c in range(width):
                parts = [x[c] if len(x) > 1 else x[0] for x in lists]
                same = _identity(opr, parts, numbers) if len(parts) == 2 else None
                if same is not None:
                    out.append(same)
                    continue
                n = name((opr, *parts))
                if all(p in numbers for p in parts):  # constants only: a constant
                    numbers[n] = _fold(opr, [numbers[p] for p in parts])
                out.append(n)
            return tuple(out)
        if ins.op == "alu" and "lanes" in detail:  # a constructor: its operands' components
            flat = [c for x in lists for c in x]
            if len(flat) == 1:
                flat = flat * width
            return tuple(flat) if len(flat) == width else None
        if ins.op == "intrinsic" and isinstance(fname, str):
            if fname in _COMPONENTWISE:
                if any(len(x) != 1 and len(x) < width for x in lists):
                    return None
                cw_reads[ins] = _operand_map(ins)
                out_i: list[int] = []
                for c in range(width):
                    parts = [x[c] if len(x) > 1 else x[0] for x in lists]
                    n = name((fname, *parts))
                    if all(p in numbers for p in parts):  # of constants: a constant
                        numbers[n] = _fold_call(fname, [numbers[p] for p in parts])
                    out_i.append(n)
                return tuple(out_i)
            every = tuple([c for x in lists for c in x])
            out_e = [name((fname, c, every)) for c in range(width)]
            if all(p in numbers for p in every):
                for n in out_e:
                    numbers[n] = float("nan")
            return tuple(out_e)
        return None

    idom = dominator_tree(g, entry, cache if cache is not None else {})
    children: dict[int, list[int]] = {}
    for b, up in idom.items():
        if b != up:
            children.setdefault(up, []).append(b)
    whole: dict[tuple[int, ...], Value] = {}
    avail: dict[int, tuple[Value, int]] = {}
    added: dict[int, tuple[list[tuple[int, ...]], list[int]]] = {}
    alias: dict[Value, Value] = {}
    # (instruction, its component, first value, that value's component)
    shares: list[tuple[Instr, int, Value, int]] = []
    path: list[int] = []
    stack = [entry]
    deadline = current()
    while stack:  # the dominator tree, depth first: what is in scope dominates the block
        b = stack.pop()
        stack.extend(children.get(b, ()))
        while path and path[-1] != idom.get(b, b):
            w_gone, a_gone = added.pop(path.pop())
            for key in w_gone:
                del whole[key]
            for n in a_gone:
                del avail[n]
        path.append(b)
        mine_w: list[tuple[int, ...]] = []
        mine_a: list[int] = []
        added[b] = (mine_w, mine_a)
        local.clear()
        for ins in g.nodes[b]["instrs"]:
            deadline.tick()
            if ins in dropped:
                continue
            if alias and any(r in alias for r in ins.reads):
                ins.reads = [alias.get(r, r) for r in ins.reads]
            d = ins.dest
            if d is None or d.parts is not None or d.width > _WIDEST:
                continue
            once = defs.get(d) == 1
            if ins.op == "descriptor":  # one resource's descriptors are one operand
                if once:
                    comps[d] = tuple([name(("desc", d.name, c)) for c in range(d.width)])
                continue
            vn = number(ins, d)
            if vn is None or (not once and d in ins.reads):
                if once:
                    comps[d] = fresh(d)
                else:
                    local.pop(d, None)
                continue
            if not once:
                local[d] = vn
            else:
                comps[d] = vn
            if ins.op == "copy" or _modifier(ins):
                continue
            first = whole.get(vn)
            if first is not None and merge_whole and once and first.width == d.width:
                alias[d] = first
                found.dropped.add(ins)
                continue
            if first is None and once:
                whole[vn] = d
                mine_w.append(vn)
            # a component of an operand (`x + 0`, a constructor's, through a copy) is the
            # liveness of the operand and the result as they are: no share
            operand_names: set[int] | None = None
            for c, n in enumerate(vn):
                if n in numbers:
                    if once:
                        found.constant[d] = found.constant.get(d, 0) + 1
                    continue  # a constant: folded, no register
                at = avail.get(n)
                if at is None:
                    avail[n] = (d, c)
                    mine_a.append(n)
                elif at[0] is not d and hold_shared and once:
                    if operand_names is None:
                        operand_names = set()
                        for r in ins.reads:
                            rc = comps.get(r) or local.get(r)
                            if rc is not None:
                                operand_names.update(rc)
                    if n not in operand_names:
                        shares.append((ins, c, at[0], at[1]))
    if alias:
        for ins in instrs:
            if any(r in alias for r in ins.reads):
                ins.reads = [alias.get(r, r) for r in ins.reads]
    if not shares:
        return found
    # each shared component is the first value's register: an extract of it right after the
    # first value's definition, read by the instructions that need that component of the later
    # value (not by a component-wise reader whose own component there is shared as well: the
    # compiler computes nothing there)
    src_of: dict[Value, dict[int, tuple[Value, int]]] = {}
    for ins, c, src, sc in shares:
        d = ins.dest
        assert d is not None
        src_of.setdefault(d, {})[c] = (src, sc)
        found.shared[d] = found.shared.get(d, 0) + 1
    # a component-wise temporary read once by a component-wise reader in its block is
    # computed and consumed a component at a time (`value_classes.streamed_temps`, one
    # register): its shared components need no hold of their own
    n_readers: dict[Value, int] = {}
    for ins in instrs:
        if ins not in dropped and ins not in found.dropped:
            for r in set(ins.reads):
                if r in src_of:
                    n_readers[r] = n_readers.get(r, 0) + 1
    streamed = {ins.dest for ins, _c, _s, _sc in shares if ins.dest is not None and _streams(ins, n_readers)}
    extract: dict[tuple[Value, int], Value] = {}
    for blk_b in list(g.nodes):
        for ins in list(g.nodes[blk_b]["instrs"]):
            if ins in dropped or ins in found.dropped or not any(r in src_of for r in ins.reads):
                continue
            r_shared = src_of.get(ins.dest) if ins.dest is not None else None
            cmap = cw_reads.get(ins)
            need: list[tuple[Value, int]] = []
            for r in dict.fromkeys(ins.reads):
                held = src_of.get(r)
                if held is None:
                    continue
                if r in streamed and ins.block == def_of[r].block and _componentwise(ins):
                    continue
                if cmap is None:
                    wanted = set(held)
                else:
                    wanted = set()
                    width = ins.dest.width if ins.dest is not None else 1
                    for rv, sel in cmap:
                        if rv is not r:
                            continue
                        for j in range(width):
                            if r_shared is not None and j in r_shared:
                                continue  # this component is an earlier value's too
                            k = sel[min(j, len(sel) - 1)] if sel is not None else min(j, r.width - 1)
                            if k in held:
                                wanted.add(k)
                for k in sorted(wanted):
                    need.append(held[k])
            extra: list[Value] = []
            for want in need:
                x = extract.get(want)
                if x is None:
                    source, scomp = want
                    first_def = def_of[source]
                    t = T.numeric(source.type.scalar) if source.type.scalar else T.UNKNOWN
                    x = extract[want] = new_value(f"{source.name}.{'xyzw'[scomp] if scomp < 4 else scomp}", t)
                    blk: list[Instr] = g.nodes[first_def.block]["instrs"]
                    made = Instr(
                        "alu", x, [source], first_def.span, "pure", {"extract": scomp}, first_def.block
                    )
                    blk.insert(blk.index(first_def) + 1, made)
                    found.extracts += 1
                if x not in ins.reads and x not in extra:
                    extra.append(x)
            if extra:  # read just before the reader, kept with it (`passes.dead_instructions`)
                blk = g.nodes[blk_b]["instrs"]
                blk.insert(blk.index(ins), Instr("hold", None, extra, ins.span, "pure", None, blk_b))
                found.extracts += 1
    return found


def _modifier(ins: Instr) -> bool:
    """A negation or `abs`: a source modifier of the instruction that reads the result, not a
    value the compiler holds (never merged into, nor held for a later reader)."""
    if ins.op == "alu":
        return ins.detail.get("opr") == "u-"
    return ins.op == "intrinsic" and ins.detail.get("name") == "abs"


def _componentwise(ins: Instr) -> bool:
    if ins.op == "alu":
        return bool(ins.detail.get("cw")) or "set" in ins.detail
    return ins.op == "intrinsic" and ins.detail.get("name") in _COMPONENTWISE


def _streams(ins: Instr, n_readers: dict[Value, int]) -> bool:
    d = ins.dest
    if d is None or d.kind != "temp" or d.width <= 1:
        return False
    return n_readers.get(d, 0) == 1 and _componentwise(ins)


def _operand_map(ins: Instr) -> list[tuple[Value, tuple[int, ...] | None]]:
    """The value operands of a component-wise instruction with the components each reads."""
    out: list[tuple[Value, tuple[int, ...] | None]] = []
    i = 0
    for o in ins.detail["ops"]:
        if o[0] == "v":
            out.append((ins.reads[i], o[1]))
            i += 1
    return out


def _rename_in_blocks(
    g: nx.DiGraph, instrs: list[Instr], dropped: frozenset[Instr], new_value: Callable[[str, T.Type], Value]
) -> None:
    """A variable set more than once in a block: every definition but the block's last sets a
    value of its own, which the reads up to the next definition read (the compiler's SSA form;
    no other definition can come between), so `q = frac(c); q += dot(q, q)` is two values set
    once, numbered apart."""
    defs: dict[Value, int] = {}
    for ins in instrs:
        d = ins.dest
        if d is not None and ins not in dropped and d.parts is None and d.kind == "var":
            defs[d] = defs.get(d, 0) + 1
    if not any(n > 1 for n in defs.values()):
        return
    for b in g.nodes:
        blk: list[Instr] = g.nodes[b]["instrs"]
        last: dict[Value, int] = {}
        for k, ins in enumerate(blk):
            d = ins.dest
            if d is not None and ins not in dropped and defs.get(d, 0) > 1:
                last[d] = k
        if not last:
            continue
        now: dict[Value, Value] = {}  # variable -> the value its last definition set
        for k, ins in enumerate(blk):
            if ins in dropped:
                continue
            if now and any(r in now for r in ins.reads):
                ins.reads = [now.get(r, r) for r in ins.reads]
            d = ins.dest
            if d is None or d not in last:
                continue
            if last[d] == k:
                now.pop(d, None)
                continue
            v = new_value(d.name, d.type)
            v.kind, v.symbol, v.reg_class, v.width = d.kind, d.symbol, d.reg_class, d.width
            ins.dest = v
            now[d] = v


def _fold(opr: object, xs: list[float]) -> float:
    """The number an operator makes of constants (NaN when not worked out here: still a
    constant, never taken for 0 or 1)."""
    if len(xs) == 2:
        a, b = xs
        if opr == "+":
            return a + b
        if opr == "-":
            return a - b
        if opr == "*":
            return a * b
    if len(xs) == 1 and opr == "u-":
        return -xs[0]
    return float("nan")


def _fold_call(fname: str, xs: list[float]) -> float:
    """`_fold` of a component-wise intrinsic (the few whose result matters here)."""
    if len(xs) == 1:
        x = xs[0]
        if x != x:
            return x
        if fname == "floor":
            return float(math.floor(x))
        if fname == "ceil":
            return float(math.ceil(x))
        if fname == "frac":
            return x - math.floor(x)
        if fname == "abs":
            return abs(x)
        if fname == "saturate":
            return min(1.0, max(0.0, x))
    return float("nan")


def _identity(opr: object, parts: list[int], numbers: dict[int, float]) -> int | None:
    """The operand an operation of two operands leaves as it is (`x + 0`, `0 + x`, `x - 0`,
    `x * 1`, `1 * x`, `x / 1`: the compiler folds it), else None."""
    a, b = parts
    if opr in ("+", "-", "|", "^", "<<", ">>") and numbers.get(b) == 0.0:
        return a
    if opr in ("*", "/") and numbers.get(b) == 1.0:
        return a
    if opr == "+" and numbers.get(a) == 0.0:
        return b
    if opr == "*" and numbers.get(a) == 1.0:
        return b
    return None
