"""What two unrolled loop nests of one shape share (`repeated_nest_holds`, queried by
`liveness.register_demand`): a helper with an unrolled loop, inlined twice, fetches the same
texels twice, and two loops over one neighbourhood of groupshared memory read the same elements;
the compiler's value numbering loads them once, in the first nest, and holds every iteration's
value until the second nest reads it again."""

from __future__ import annotations

import itertools

from hlsllint.analysis.ir import CFG, Instr, LoopRecord, Value, blocks_between, dominance
from hlsllint.analysis.value_classes import DefUse
from hlsllint.deadline import current
from hlsllint.semantic.loops import UNROLLED_TRIP_LIMIT

NEST_ITERATIONS = 64
"""The most iterations of an unrolled nest whose copies are followed (as
`unrolled._NEST_ITERATIONS`: a 5x5 neighbourhood in two loops is 25)."""

_SHARED_OPS = frozenset(
    {"cbload", "load", "sample", "gather", "lds_load", "alu", "intrinsic", "copy", "descriptor"}
)
_FETCHES = frozenset({"load", "sample", "gather"})
_EFFECTS = frozenset({"store", "lds_store", "atomic", "call", "export"})
"""What a nest does besides computing values (`live_iterations`: every iteration counts)."""
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
    "shared",
)
"""The parts of an instruction's detail that say what it computes (its constants included:
two inlined copies of `c * x` with different constant `c` are different values)."""
_DEPTH = 200
"""The deepest chain of operations a signature follows (deeper: not compared)."""

Sig = tuple[object, ...]
Found = tuple[Sig, bool, bool, bool]
"""A value's signature, whether it changes with the nest's counters, whether it is computed from
a fetch and whether from groupshared memory."""


class Nest:
    """An unrolled loop nest: its outermost loop, every loop in it, and its blocks."""

    def __init__(self, root: LoopRecord, members: list[LoopRecord]) -> None:
        self.root = root
        self.members = members
        self.blocks = root.blocks
        # each loop's depth in the nest (0: the root): a counter is named by its depth and its
        # numbers, so nests of one shape written apart (two 3x3 loops) are compared
        self.depths = {lp.span: sum(1 for o in members if lp.blocks < o.blocks) for lp in members}
        self.shape = tuple(sorted((self.depths[lp.span], lp.trip_count or 0) for lp in members))

    def iterations(self, block: int) -> int:
        """How many times the unrolled nest computes what `block` computes once."""
        n = 1
        for lp in self.members:
            if block in lp.blocks:
                n *= lp.trip_count or 1
        return n


def nests_of(cfg: CFG) -> list[Nest]:
    """The loop nests the compiler unrolls whole: constant trip counts within the unrolled
    limit (or `[unroll]`), no loop in them kept, at most `NEST_ITERATIONS` iterations. Found
    once per CFG (its loops do not change after the lowering); the list is shared, not to be
    changed."""
    found: list[Nest] | None = cfg.cache.get("nests")
    if found is None:
        found = cfg.cache["nests"] = _nests(cfg)
    return found


def _nests(cfg: CFG) -> list[Nest]:
    constant = [
        lp
        for lp in cfg.loops
        if not lp.dynamic
        and lp.trip_count is not None
        and (lp.trip_count <= UNROLLED_TRIP_LIMIT or "unroll" in lp.attributes)
    ]
    out: list[Nest] = []
    for root in constant:
        if any(root.blocks < lp.blocks for lp in constant):
            continue
        inside = [lp for lp in cfg.loops if lp.blocks <= root.blocks]
        if any(lp not in constant for lp in inside):
            continue
        nest = Nest(root, inside)
        if max((nest.iterations(b) for b in root.blocks), default=1) <= NEST_ITERATIONS:
            out.append(nest)
    return out


def _signature(
    v: Value,
    du: DefUse,
    nest: Nest,
    memo: dict[Value, Found | None],
    views: tuple[frozenset[Value], frozenset[Value]],
    depth: int = 0,
) -> Found | None:
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
    inside = [d for d in ds if d.block in nest.blocks]
    found: Found | None = None
    if not inside:
        # set before the nest: what computes it, when it is set once (a declaration aside),
        # so that two copies of one helper's set-up (`float2(img.size())` of a struct each
        # call builds) are one value; else the value itself
        set_once = [d for d in ds if d.op != "undef"]
        if len(set_once) == 1 and depth < _DEPTH:
            memo[v] = None
            outer = _instr_signature(set_once[0], du, nest, memo, views, depth)
            if outer is not None and not outer[3]:  # not a read of groupshared memory
                found = (outer[0], False, False, False)
        if found is None and len(ds) <= 1:
            found = (("x", v.id), False, False, False)
    elif len(ds) == 1 and depth < _DEPTH:
        memo[v] = None  # a cycle is not compared
        found = _instr_signature(ds[0], du, nest, memo, views, depth)
    memo[v] = found
    return found


def _instr_signature(
    ins: Instr,
    du: DefUse,
    nest: Nest,
    memo: dict[Value, Found | None],
    views: tuple[frozenset[Value], frozenset[Value]],
    depth: int,
) -> Found | None:
    """`_signature` of what one instruction computes."""
    d = ins.dest
    if d is None or d.parts is not None or ins.op not in _SHARED_OPS:
        return None
    detail = ins.detail
    rows = detail.get("rows")
    if rows is not None:
        loop = detail.get("loop")
        at = nest.depths.get(loop, loop) if loop is not None else None
        return ("rows", rows, at, d.width), True, False, False
    if ins.op == "descriptor":
        return (("descriptor", d.name, d.width), False, False, False) if not ins.reads else None
    if ins.op in _FETCHES:
        res = ins.reads[0].type.resource if ins.reads else None
        if res is None or res.writable:
            return None
    # where it is written (two inlined copies of an expression share its place), unless its
    # detail says all it computes (a constant-buffer member wherever it is loaded; two loops
    # written apart compute it alike)
    named = "at" in detail or _described(ins)
    parts: list[object] = [ins.op, None if named else ins.span, ins.rule, d.width]
    for key in _DETAILS:
        if key in detail:
            x = detail[key]
            if key == "ops" or key == "sels":
                x = _operands(x, ins.reads, views[1])
            elif key == "shared" and len(x) >= 3:
                x = (x[0], x[1], _operands(x[2], ins.reads, views[1]))
            try:
                hash(x)
            except TypeError:
                return None
            parts.append((key, x))
    varies = False
    shared = ins.op == "lds_load"
    fetched = shared or ins.op in _FETCHES
    # the components of its operands it reads
    picks = "ops" in detail or "sels" in detail or bool(detail.get("shared"))
    for r in ins.reads:
        if r in views[0] and not picks:
            return None  # a view of `r` or `r` itself: the IR names both alike
        if r in views[1] and not any(d.block in nest.blocks for d in du.defs.get(r, ())):
            return None  # bound to a view of it by a call outside the nest: which one?
        s = _signature(r, du, nest, memo, views, depth + 1)
        if s is None:
            return None
        parts.append(s[0])
        varies = varies or s[1]
        fetched = fetched or s[2]
        shared = shared or s[3]
    return tuple(parts), varies, fetched, shared


def _operands(ops: object, reads: list[Value], bound: frozenset[Value]) -> object:
    """An `ops` (or `sels`) detail with each value operand named by the components it reads
    (`("v", components, scalar type)`), so that `c + 1` reads `c` alike whether `c` is the
    caller's variable or a helper's parameter bound to it whole; an operand read through a
    parameter bound to a view or a part of its argument (`f(v.yx)`, `CFG.bound_views`; `f(v.y)`)
    is left as written. `ops` as it is when it does not line up with `reads`."""
    if not isinstance(ops, tuple):
        return ops
    out: list[object] = []
    i = 0
    for o in ops:
        if o is not None and not (isinstance(o, tuple) and o and o[0] == "v" and len(o) == 5):
            out.append(o)  # a constant's numbers
            continue
        if i >= len(reads):
            return ops
        r = reads[i]
        i += 1
        if o is None:  # the whole value
            out.append(("v", tuple(range(r.width)), None))
            continue
        sel, scalar, count, own = o[1], o[2], o[3], o[4]
        if not own and (r in bound or count != r.width):
            out.append(o)  # a view of the value, or a part of it: which, the IR does not say
            continue
        out.append(("v", tuple(range(r.width)) if sel is None else sel, scalar))
    return tuple(out)


def _described(ins: Instr) -> bool:
    """Whether `ins`'s detail names all it computes: a fetch (its resource, method and
    operands), a groupshared read (its variable and indices), a constant buffer's member, a cast,
    an operation or call with its operands and constants (`ops`), a copy of one value."""
    detail = ins.detail
    op = ins.op
    if op in _FETCHES:
        return True
    if op == "lds_load":
        return bool(detail.get("shared"))
    if op == "cbload":
        return "sig" in detail or "cb_member" in detail
    if op == "copy":
        return len(ins.reads) == 1 and set(detail) <= {"sels"}
    if op in ("alu", "intrinsic"):
        merge = detail.get("merge")
        if isinstance(merge, tuple) and merge and merge[0] == "cast":
            return True
        return "ops" in detail and ("opr" in detail or "copr" in detail or "name" in detail)
    return False


def clobbers_shared(ins: Instr) -> bool:
    """Whether `ins` may change groupshared memory between two reads (a store, an atomic, a
    barrier, a call the lowering could not inline)."""
    op = ins.op
    if op in ("lds_store", "atomic", "call"):
        return True
    return op == "intrinsic" and "Barrier" in str(ins.detail.get("name", ""))


def live_iterations(
    nest: Nest, du: DefUse, kept: dict[int, list[Instr]]
) -> frozenset[tuple[int, ...]] | None:
    """The iterations of an unrolled nest whose work is used (each as its iteration number in
    every loop of the nest, the outermost first), when all it leaves to the code after it is
    elements of a split local array written at an index each unrolled copy knows (the
    `element` detail of the writes, `lowering_access._element_rows`): an iteration writing
    only elements nothing reads after the nest is dead code to the compiler, and with it
    every texel it fetched (FidelityFX's reactive mask: a 3x3 loop fills `lum[i++]`, the
    gradients read the cross of 5). None when every iteration counts: the nest stores, calls
    or leaves another value, or its loops are not one inside the other."""
    chain = sorted(nest.members, key=lambda lp: nest.depths[lp.span])
    if len({nest.depths[lp.span] for lp in chain}) != len(chain):
        return None
    pos = {lp.span: k for k, lp in enumerate(chain)}
    trips = [lp.trip_count or 1 for lp in chain]
    every = list(itertools.product(*(range(n) for n in trips)))
    live: set[tuple[int, ...]] = set()
    for b in nest.blocks:
        for ins in kept.get(b, []):
            if ins.rule == "effect" or ins.op in _EFFECTS:
                return None
            d = ins.dest
            if d is None or all(r.block in nest.blocks for r in du.readers.get(d, [])):
                continue
            element = ins.detail.get("element")
            if element is None:
                return None
            spans, written = element
            if any(sp not in pos for sp in spans):
                return None
            at = [pos[sp] for sp in spans]
            for it in every:
                if tuple([it[k] for k in at]) in written:
                    live.add(it)
    return frozenset(live)


def element_sources(cfg: CFG, du: DefUse) -> set[Value]:
    """Values an unrolled nest writes to a split local array, a new element in each iteration
    (`lum[i++] = x`, `c[(y + 1) * 3 + x + 1] = t.Load(p)`: the `element` detail of the writes),
    and the copies they are made of. Unrolled, the value each copy computes is the element
    itself, so while the body's one copy is live the element it becomes is not yet: the
    body, which counts every element live, counts that one twice (regtruth: a 3x3 loop filling
    a float3 and a float array, read by a second loop, 43 presched VGPRs: eight elements
    held, the ninth loaded; 51 counted). Only elements not live before the nest (declared
    without a value) written once each, by every iteration of the nest."""
    free: set[Value] = set()
    for nest in nests_of(cfg):
        chain = [lp for lp in nest.members if (lp.trip_count or 1) > 1]
        spans = {lp.span for lp in chain}
        for b in nest.blocks:
            for ins in cfg.kept_instrs().get(b, []):
                if "element_read" in ins.detail and ins.dest is not None:
                    _read_in_place(ins.dest, du, nest, free)
                    continue
                element = ins.detail.get("element")
                if element is None or len(ins.reads) < 2:
                    continue
                src = ins.reads[1]
                if src in free or set(element[0]) != spans:
                    continue
                if not _writes_each_once(src, du, nest, element[0]):
                    continue
                free.add(src)
                v = src
                for _ in range(_DEPTH):  # a copy holds the value it copies: the element too
                    ds = du.defs.get(v, [])
                    if len(ds) != 1 or ds[0].op != "copy" or len(ds[0].reads) != 1:
                        break
                    v = ds[0].reads[0]
                    defs = du.defs.get(v, [])
                    if v in free or len(defs) != 1 or defs[0].block not in nest.blocks:
                        break
                    free.add(v)
    return free


def _read_in_place(d: Value, du: DefUse, nest: Nest, free: set[Value]) -> None:
    """An element an unrolled copy reads at an index it knows is the element's register, and
    so are the copies made of it (`float3 c = cs[k];` set once)."""
    v = d
    for _ in range(_DEPTH):
        defs = du.defs.get(v, [])
        if v in free or len(defs) != 1 or defs[0].block not in nest.blocks:
            return
        free.add(v)
        copies = [r.dest for r in du.readers.get(v, []) if r.op == "copy" and len(r.reads) == 1]
        if len(copies) != 1 or copies[0] is None:
            return
        v = copies[0]


def _writes_each_once(src: Value, du: DefUse, nest: Nest, spans: tuple[object, ...]) -> bool:
    """Whether the element writes of `src` in `nest` write a distinct element in every
    iteration of the loops `spans` names, to elements nothing sets before the nest but their
    declaration, and `src` is set in the nest."""
    if any(d.block not in nest.blocks for d in du.defs.get(src, [])) or not du.defs.get(src):
        return False
    trips = 1
    for lp in nest.members:
        if lp.span in spans:
            trips *= lp.trip_count or 1
    seen: set[tuple[int, ...]] = set()
    for w in du.readers.get(src, []):
        element = w.detail.get("element")
        if element is None or w.dest is None or element[0] != spans or w.block not in nest.blocks:
            continue
        if not element[1]:
            continue  # an element no iteration writes (`color[0]`, set before `color[start++]`)
        if any(d.block not in nest.blocks and d.op != "undef" for d in du.defs.get(w.dest, [])):
            return False
        for it in element[1]:
            if it in seen:
                return False
            seen.add(it)
    return len(seen) == trips


def _copies(nest: Nest, block: int, live: frozenset[tuple[int, ...]] | None) -> int:
    """How many of the unrolled copies of what `block` computes once are used: with every
    iteration used, `Nest.iterations`; else the live iterations told apart by the loops
    around `block`."""
    if live is None:
        return nest.iterations(block)
    chain = sorted(nest.members, key=lambda lp: nest.depths[lp.span])
    around = [k for k, lp in enumerate(chain) if block in lp.blocks]
    return len({tuple([it[k] for k in around]) for it in live})


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
    second copy does not share reads it. Two nests written apart are compared as well when
    they have one shape (the same trip counts at the same depths; a counter is named by its
    depth and numbers): a helper's 3x3 loop over groupshared memory, then the filter's own
    3x3 loop over the same elements, with no store, atomic or barrier between (elements of
    groupshared memory are read once: regtruth 49; 21 before; with a barrier between, 18).
    Held: each
    iteration's copy between the two nests, all but the one the body counts inside them (a
    value that does not change with the counters: one copy between them)."""
    nests = nests_of(cfg)
    if len(nests) < 2:
        return []
    dom = dominance(cfg.graph, cfg.entry, cfg.cache)
    kept = cfg.kept_instrs()
    deadline = current()
    views = (cfg.views, cfg.bound_views)
    # each nest's signatures: signature -> the instruction that first computes it
    tables: list[dict[Sig, Instr]] = []
    memos: list[dict[Value, Found | None]] = []
    varying: set[Sig] = set()
    fetched: set[Sig] = set()
    shared_reads: set[Sig] = set()
    for nest in nests:
        memo: dict[Value, Found | None] = {}
        table: dict[Sig, Instr] = {}
        for b in sorted(nest.blocks):
            for ins in kept.get(b, []):
                deadline.tick()
                if ins.dest is None:
                    continue
                found = _signature(ins.dest, du, nest, memo, views)
                if found is not None:
                    table.setdefault(found[0], ins)
                    if found[1]:
                        varying.add(found[0])
                    if found[2]:
                        fetched.add(found[0])
                    if found[3]:
                        shared_reads.add(found[0])
        tables.append(table)
        memos.append(memo)
    live = [live_iterations(nest, du, kept) for nest in nests]
    # held values, by (first nest, signature): the widest value and the blocks with their copies
    held: dict[tuple[int, Sig], tuple[list[Value], dict[int, int], list[int]]] = {}
    for j, later in enumerate(nests):
        first = next(
            (
                i
                for i, earlier in enumerate(nests)
                if i != j
                and earlier.shape == later.shape
                and not (earlier.blocks & later.blocks)
                and dom.dominates(earlier.root.header, later.root.header)
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
        # what the earlier nest computes only in iterations it uses, the later one reads only
        # in those it uses: held are the iterations both use
        live_first, live_later = live[first], live[j]
        both = (
            live_later
            if live_first is None
            else live_first
            if live_later is None
            else live_first & live_later
        )
        region = blocks_between(cfg, earlier.root.header, later.root.header)
        if any(clobbers_shared(x) for b in region | earlier.blocks | later.blocks for x in kept.get(b, [])):
            # groupshared memory may change in between: read again
            shared = {s: ins for s, ins in shared.items() if s not in shared_reads}
        for s, ins in shared.items():
            d = ins.dest
            assert d is not None
            readers = du.readers.get(d, [])
            if not readers or all(id(r) in mine for r in readers):
                continue  # what reads it is shared too: that is held instead
            if s not in fetched and not _held_integer(ins, s in varying, readers, mine, memos[j]):
                continue  # arithmetic of the counters and invariants alone is computed again
            copies = _copies(later, ins.block, both) if s in varying else 1
            vals, blocks, comps = held.setdefault((first, s), ([], {}, [0]))
            apart = _offset_components(ins, du, later) if s in varying else None
            if apart is not None:
                # `p + offsets[i]`: its components are numbered apart, and the iterations whose
                # offset repeats one, or is 0 (`p`'s own), hold no register of their own
                copies = apart
                comps[0] = 1
            else:
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


_ADDRESSED = {"lds_load": 0, "lds_store": 1, "load": 1, "store": 2}
"""The accesses that take an address, and how many of their first operands are not part of it
(the resource, the value stored)."""


def _held_integer(
    ins: Instr, varies: bool, readers: list[Instr], mine: set[int], memo: dict[Value, Found | None]
) -> bool:
    """Whether the compiler holds an integer that a later unrolled copy of a nest computes alike,
    though nothing fetched goes into it: each iteration's index or bound computed from the
    thread's id (`BaseIndex + i * 256 + localID`, `(i * 256 + localID) % 4`), which its value
    numbering merges into the first copy's and holds to the later one (FidelityFX's parallel
    sort scan, inlined in XeGTAO: a coalesced load loop and a store loop of four iterations,
    regtruth presched 14, 5 before). Not a counter's own value (a constant once unrolled), and
    not a sum of a value the same in every iteration and one of the counters that only addresses
    memory: its constant part goes into the access's offset and one register serves every
    iteration (NRD's `s[threadPos.y + j][threadPos.x + i]` in two 5x5 loops)."""
    d = ins.dest
    if not varies or d is None or d.type is None or not d.type.is_int or "rows" in ins.detail:
        return False
    if ins.op != "alu" or ins.detail.get("opr") not in ("+", "-"):
        return True
    found = [memo.get(r) for r in ins.reads]
    if not any(f is not None and not f[1] for f in found):
        return True  # no operand the same in every iteration
    for r in readers:
        if id(r) in mine:
            continue
        skip = _ADDRESSED.get(r.op)
        if skip is None or any(x is d for x in r.reads[:skip]):
            return True  # read as a value, not only as an address
    return False


def _offset_components(ins: Instr, du: DefUse, nest: Nest) -> int | None:
    """For an integer `v + table[i]` (or `v - table[i]`) of a value set before the nest and a
    table read at its counter, the number of distinct non-zero (component, offset) pairs over
    the table's rows: the compiler numbers each component apart, so only those take a register
    of their own (regtruth: two 8-tap loops over one offset table of -1, 0 and 1, 25 presched
    VGPRs; with every iteration's int2 held, 38). None for any other value."""
    d = ins.dest
    if d is None or d.type is None or not d.type.is_int:
        return None
    if ins.op != "alu" or ins.detail.get("opr") not in ("+", "-") or len(ins.reads) != 2:
        return None
    rows = None
    outside = 0
    for r in ins.reads:
        ds = du.defs.get(r, [])
        if len(ds) == 1 and "rows" in ds[0].detail and ds[0].block in nest.blocks:
            rows = ds[0].detail["rows"]
        elif all(x.block not in nest.blocks for x in ds):
            outside += 1
    if rows is None or outside != 1:
        return None
    width = max((len(row) for row in rows), default=0)
    n = 0
    for c in range(width):
        n += len({row[c] for row in rows if c < len(row)} - {0})
    return n


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
