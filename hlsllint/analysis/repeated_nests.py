"""What two unrolled copies of one loop nest share (`repeated_nest_holds`, queried by
`liveness.register_demand`): a helper with an unrolled loop, inlined twice, fetches the same
texels twice; the compiler's value numbering loads them once, in the first copy, and holds every
iteration's texel until the second copy reads it again."""

from __future__ import annotations

from hlsllint.analysis.ir import CFG, Instr, LoopRecord, Value, dominates, dominator_tree
from hlsllint.analysis.value_classes import DefUse
from hlsllint.deadline import current
from hlsllint.semantic.loops import UNROLLED_TRIP_LIMIT

NEST_ITERATIONS = 64
"""The most iterations of an unrolled nest whose copies are followed (as
`unrolled._NEST_ITERATIONS`: a 5x5 neighbourhood in two loops is 25)."""

_SHARED_OPS = frozenset({"cbload", "load", "sample", "gather", "alu", "intrinsic", "copy", "descriptor"})
_FETCHES = frozenset({"load", "sample", "gather"})
_DETAILS = (
    "at",
    "method",
    "member",
    "name",
    "opr",
    "copr",
    "ops",
    "lanes",
    "sels",
    "merge",
    "sig",
    "cb_member",
    "typed",
    "resource",
)
"""The parts of an instruction's detail that say what it computes (its constants included:
two inlined copies of `c * x` with different constant `c` are different values)."""
_DEPTH = 200
"""The deepest chain of operations a signature follows (deeper: not compared)."""

Sig = tuple[object, ...]


class _Nest:
    """An unrolled loop nest: its outermost loop, every loop in it, and its blocks."""

    def __init__(self, root: LoopRecord, members: list[LoopRecord]) -> None:
        self.root = root
        self.members = members
        self.blocks = root.blocks
        self.shape = tuple(sorted((lp.span, lp.trip_count or 0) for lp in members))

    def iterations(self, block: int) -> int:
        """How many times the unrolled nest computes what `block` computes once."""
        n = 1
        for lp in self.members:
            if block in lp.blocks:
                n *= lp.trip_count or 1
        return n


def _nests(cfg: CFG) -> list[_Nest]:
    """The loop nests the compiler unrolls whole: constant trip counts within the unrolled
    limit (or `[unroll]`), no loop in them kept, at most `NEST_ITERATIONS` iterations."""
    constant = [
        lp
        for lp in cfg.loops
        if not lp.dynamic
        and lp.trip_count is not None
        and (lp.trip_count <= UNROLLED_TRIP_LIMIT or "unroll" in lp.attributes)
    ]
    out: list[_Nest] = []
    for root in constant:
        if any(root.blocks < lp.blocks for lp in constant):
            continue
        inside = [lp for lp in cfg.loops if lp.blocks <= root.blocks]
        if any(lp not in constant for lp in inside):
            continue
        nest = _Nest(root, inside)
        if max((nest.iterations(b) for b in root.blocks), default=1) <= NEST_ITERATIONS:
            out.append(nest)
    return out


def _signature(
    v: Value,
    du: DefUse,
    blocks: frozenset[int],
    memo: dict[Value, tuple[Sig, bool, bool] | None],
    views: tuple[frozenset[Value], frozenset[Value]],
    depth: int = 0,
) -> tuple[Sig, bool, bool] | None:
    """What `v` computes in one iteration of the unrolled nest of `blocks`, the same in every
    inlined copy of the nest, whether it changes with the nest's counters and whether it is
    computed from a fetch: a value from
    outside the nest is itself (when set once), a value set once in the nest its instruction's
    operation, detail and operands' signatures, a read of the counter (or of a table at it)
    its numbers per iteration; None when it cannot be compared (set more than once, a
    writable resource's fetch, another operation, a read of a view the IR does not name:
    `CFG.views`, and of a value set before the nest that a call binds a view of,
    `CFG.bound_views`: two calls, `f(id.xy)` and `f(id.yx)`, read `id` alike). Not a
    closure: see `unrolled._is_invariant`."""
    if v in memo:
        return memo[v]
    ds = du.defs.get(v, [])
    inside = [d for d in ds if d.block in blocks]
    found: tuple[Sig, bool, bool] | None = None
    if not inside:
        # set before the nest: what computes it, when it is set once (a declaration aside),
        # so that two copies of one helper's set-up (`float2(img.size())` of a struct each
        # call builds) are one value; else the value itself
        set_once = [d for d in ds if d.op != "undef"]
        if len(set_once) == 1 and depth < _DEPTH:
            memo[v] = None
            outer = _instr_signature(set_once[0], du, blocks, memo, views, depth)
            if outer is not None:
                found = (outer[0], False, False)
        if found is None and len(ds) <= 1:
            found = (("x", v.id), False, False)
    elif len(ds) == 1 and depth < _DEPTH:
        memo[v] = None  # a cycle is not compared
        found = _instr_signature(ds[0], du, blocks, memo, views, depth)
    memo[v] = found
    return found


def _instr_signature(
    ins: Instr,
    du: DefUse,
    blocks: frozenset[int],
    memo: dict[Value, tuple[Sig, bool, bool] | None],
    views: tuple[frozenset[Value], frozenset[Value]],
    depth: int,
) -> tuple[Sig, bool, bool] | None:
    """`_signature` of what one instruction of the nest computes."""
    d = ins.dest
    if d is None or d.parts is not None or ins.op not in _SHARED_OPS:
        return None
    detail = ins.detail
    rows = detail.get("rows")
    if rows is not None:
        return ("rows", rows, detail.get("loop"), d.width), True, False
    if ins.op == "descriptor":
        return (("descriptor", d.name, d.width), False, False) if not ins.reads else None
    if ins.op in _FETCHES:
        res = ins.reads[0].type.resource if ins.reads else None
        if res is None or res.writable:
            return None
    # where it is written (two inlined copies of an expression share its place), but for a
    # constant-buffer member, which is the member wherever it is loaded
    named = "at" in detail or (ins.op == "cbload" and ("sig" in detail or "cb_member" in detail))
    parts: list[object] = [ins.op, None if named else ins.span, ins.rule, d.width]
    for key in _DETAILS:
        if key in detail:
            x = detail[key]
            try:
                hash(x)
            except TypeError:
                return None
            parts.append((key, x))
    varies = False
    fetched = ins.op in _FETCHES
    picks = "ops" in detail or "sels" in detail  # the components of its operands it reads
    for r in ins.reads:
        if r in views[0] and not picks:
            return None  # a view of `r` or `r` itself: the IR names both alike
        if r in views[1] and not any(d.block in blocks for d in du.defs.get(r, ())):
            return None  # bound to a view of it by a call outside the nest: which one?
        s = _signature(r, du, blocks, memo, views, depth + 1)
        if s is None:
            return None
        parts.append(s[0])
        varies = varies or s[1]
        fetched = fetched or s[2]
    return tuple(parts), varies, fetched


def _between(cfg: CFG, idom: dict[int, int], start: int, end: int) -> set[int]:
    """The blocks on a path from block `start` to block `end` that takes no loop's back edge."""
    succ = cfg.graph.succ
    pred = cfg.graph.pred
    ahead = {start}
    work = [start]
    while work:
        b = work.pop()
        for s in succ[b]:
            if s not in ahead and not dominates(idom, s, b):
                ahead.add(s)
                work.append(s)
    behind = {end}
    work = [end]
    while work:
        b = work.pop()
        for p in pred[b]:
            if p not in behind and p in ahead and not dominates(idom, b, p):
                behind.add(p)
                work.append(p)
    return ahead & behind


def repeated_nest_holds(cfg: CFG, du: DefUse) -> list[tuple[dict[int, int], list[Value], int]]:
    """Registers held because a later unrolled copy of a loop nest computes again what an
    earlier copy computed: per held value, the blocks where it is held and how many copies of
    it each holds (with the values it stands for in each copy: its registers are the widest)
    and how many of its components the later copy reads.

    A helper that filters a neighbourhood in an unrolled loop, inlined twice with the same
    texels (a first pass for a mean, a second weighted by it), loads each texel once: the
    compiler's value numbering merges the second copy's loads, and what it computes from them
    alike (a conversion, `rcp(s.x)`), into the first copy's, so every iteration's value is held
    from the first copy to the second (regtruth: a 3x3 filter called twice, presched_vgprs 40;
    12 for one call; kajiya's TAA history filter, 5x5 twice, 130). The two copies are the
    same loops of the source (one nest inlined twice) with the same trip counts, the first
    dominating the second; a value of the second copy is the first's when it is computed
    alike (the same operation, constants and operands, texels of a read-only resource at the
    same coordinates), it is computed from a fetch (the coordinates alone are computed again:
    regtruth, the same filter over another texture the second time, 14) and something the
    second copy does not share reads it. Held: each
    iteration's copy between the two nests, all but the one the body counts inside them (a
    value that does not change with the counters: one copy between them)."""
    nests = _nests(cfg)
    if len(nests) < 2:
        return []
    idom = dominator_tree(cfg.graph, cfg.entry, cfg.cache)
    kept = cfg.kept_instrs()
    deadline = current()
    views = (cfg.views, cfg.bound_views)
    # each nest's signatures: signature -> the instruction that first computes it
    tables: list[dict[Sig, Instr]] = []
    varying: set[Sig] = set()
    fetched: set[Sig] = set()
    for nest in nests:
        memo: dict[Value, tuple[Sig, bool, bool] | None] = {}
        table: dict[Sig, Instr] = {}
        for b in sorted(nest.blocks):
            for ins in kept.get(b, []):
                deadline.tick()
                if ins.dest is None:
                    continue
                found = _signature(ins.dest, du, nest.blocks, memo, views)
                if found is not None:
                    table.setdefault(found[0], ins)
                    if found[1]:
                        varying.add(found[0])
                    if found[2]:
                        fetched.add(found[0])
        tables.append(table)
    # held values, by (first nest, signature): the widest value and the blocks with their copies
    held: dict[tuple[int, Sig], tuple[list[Value], dict[int, int], list[int]]] = {}
    for j, later in enumerate(nests):
        first = next(
            (
                i
                for i, earlier in enumerate(nests)
                if i != j
                and earlier.shape == later.shape
                and earlier.root.span == later.root.span
                and not (earlier.blocks & later.blocks)
                and dominates(idom, earlier.root.header, later.root.header)
            ),
            None,
        )
        if first is None:
            continue
        earlier = nests[first]
        shared = {s: ins for s, ins in tables[j].items() if s in tables[first]}
        if not shared:
            continue
        mine = {id(ins) for ins in shared.values()}
        region = _between(cfg, idom, earlier.root.header, later.root.header)
        for s, ins in shared.items():
            d = ins.dest
            assert d is not None
            if s not in fetched:
                continue  # arithmetic of the counters and invariants alone is computed again
            readers = du.readers.get(d, [])
            if not readers or all(id(r) in mine for r in readers):
                continue  # what reads it is shared too: that is held instead
            copies = later.iterations(ins.block) if s in varying else 1
            vals, blocks, comps = held.setdefault((first, s), ([], {}, [0]))
            comps[0] = max(comps[0], _components_read(cfg, d, readers))
            vals.append(d)
            first_d = tables[first][s].dest
            if first_d is not None and first_d not in vals:
                vals.append(first_d)
            for b in region | earlier.blocks | later.blocks:
                n = copies - 1 if b in earlier.blocks or b in later.blocks else copies
                if n > blocks.get(b, 0):
                    blocks[b] = n
    return [(blocks, vals, comps[0]) for vals, blocks, comps in held.values() if any(blocks.values())]


def _components_read(cfg: CFG, d: Value, readers: list[Instr]) -> int:
    """How many of `d`'s components its `readers` take (`CFG.component_reads`; a reader that
    takes it whole, all of them)."""
    mask = 0
    for r in readers:
        m = cfg.component_reads.get(r, {}).get(d, 0)
        if not m:
            return d.width
        mask |= m
    return mask.bit_count()
