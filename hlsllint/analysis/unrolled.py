"""What an unrolled loop holds across its iterations (`unrolled_holds`, queried by
`liveness.register_demand`): values its iterations compute alike from a constant table read at
the counter, the counter itself and loop-invariant values, which the compiler computes once and
keeps from their first computation to their last use. Reads the CFG's def-use index
(`value_classes.def_use`)."""

from __future__ import annotations

from hlsllint.analysis.ir import CFG, Instr, LoopRecord, Value, dominance
from hlsllint.analysis.value_classes import DefUse, _componentwise, def_use
from hlsllint.deadline import current

_CHAIN_OPS = frozenset({"alu", "intrinsic", "copy"})
_INVARIANT_OPS = frozenset({"alu", "intrinsic", "copy", "cbload", "descriptor"})


_NEST_ITERATIONS = 64
"""The most iterations of a nest of unrolled loops `unrolled_holds` follows as one sequence (a
3x3 neighbourhood in two loops: 9)."""


def unrolled_holds(
    cfg: CFG, by_component: bool = False
) -> list[tuple[frozenset[int], list[dict[Value, int]]]]:
    """Registers an unrolled loop holds across its iterations for values the compiler computes
    once and reuses: per loop (its blocks) and per iteration, the registers of each value beyond
    the one copy the loop's body counts.

    A loop the compiler unrolls reads a constant table at its counter (`offsets[i]`), or the
    counter itself (`int2(x, y)`), and combines it with values that do not change in the loop
    (`clamp(id + offsets[i] * step, 0, max)`). Unrolled, each iteration computes its own copy,
    and the compiler's value numbering merges the components that come out equal: with offsets
    of -1, 0 and 1 each coordinate component takes three values, each computed where first
    needed and held until its last use, several iterations later (regtruth: a jump-flood pass
    over 8 neighbours holds 6 such coordinates, 17 VGPRs where one iteration's live values are
    11). Unrolled loops nested in each other (`for x` around `for y`, a 3x3 neighbourhood) are
    one sequence of iterations: the inner counter's coordinate components repeat in every
    iteration of the outer loop, so each is held from the first outer iteration to the last
    (regtruth: a 3x3 bilateral filter, 18 VGPRs where one iteration's live values are 9). Each
    component of such a value is named by what it is computed from (the table's number or the
    counter's value in that iteration, the loop-invariant values' components) in every
    iteration; a name held from its first iteration to its last use counts in the iterations
    between.

    `by_component` (with the liveness by component, `CostModel.component_liveness`; without
    it the body's count is of whole vectors, and these holds on top of it overshoot elsewhere):
    a branch whose condition the counters (or tables read at them) alone decide
    (`if (i == 0 && j == 0) continue;`) is decided in each unrolled copy at compile time, so
    its blocks belong to the unrolled body, their values held as the others' (regtruth: a 5x5
    neighbourhood skipping its centre, presched_vgprs 21; 14 with the blocks behind the branch
    computed anew in every iteration, 20 without the branch); an operand's swizzle names the
    component each lane reads (`gR.xyz * c.x`: `c.x` in every lane, `_operand_picks`); and
    the long arms of a `?:` are branches, computed anew in each iteration (`_branched_arms`)."""
    found: list[tuple[frozenset[int], list[dict[Value, int]]]] = []
    tables: list[Instr] = []
    for instrs in cfg.kept_instrs().values():
        for ins in instrs:
            if "rows" in ins.detail and ins.dest is not None:
                tables.append(ins)
    if not tables:
        return found
    du = def_use(cfg)
    # a loop around a loop kept at run time is kept too (the compiler unrolls innermost loops)
    kept = [lp.blocks for lp in cfg.loops if lp.dynamic]
    loops = [
        lp
        for lp in cfg.loops
        if not lp.dynamic and lp.trip_count is not None and not any(k < lp.blocks for k in kept)
    ]
    by_nest: dict[tuple[int, ...], list[tuple[Instr, int]]] = {}
    for t in tables:
        rows = t.detail["rows"]
        span = t.detail.get("loop")
        around = sorted(
            (i for i, lp in enumerate(loops) if t.block in lp.blocks), key=lambda i: len(loops[i].blocks)
        )
        own = next(
            (i for i in around if loops[i].trip_count == len(rows) and span in (None, loops[i].span)),
            None,
        )
        if own is None:
            continue
        # the nest: the unrolled loops around the root, outward while their iterations multiply
        # to at most _NEST_ITERATIONS (always the root's own loop)
        chain: list[int] = []
        product = 1
        for i in around:
            trips = loops[i].trip_count or 1
            if product * trips > _NEST_ITERATIONS and own in chain:
                break
            product *= trips
            chain.append(i)
        if own not in chain:
            continue
        key = tuple(reversed(chain))  # outermost first
        by_nest.setdefault(key, []).append((t, key.index(own)))
    if not by_nest:
        return found
    dom = dominance(cfg.graph, cfg.entry, cfg.cache)
    for key, roots in by_nest.items():
        nest = [loops[i] for i in key]
        # blocks every iteration of their innermost loop of the nest runs (what they compute a
        # later iteration may reuse; a branch's block does not dominate the next iteration, so
        # what it computes is computed again)
        every: set[int] = set()
        decided = _counter_branches(cfg, du, nest[0].blocks) if by_component else set()
        for depth, lp in enumerate(nest):
            inner = nest[depth + 1].blocks if depth + 1 < len(nest) else frozenset()
            latches = [p for p in cfg.graph.predecessors(lp.header) if p in lp.blocks]
            runs = {b for b in lp.blocks - inner if all(dom.dominates(b, la) for la in latches)}
            if decided & lp.blocks:
                runs = _every_iteration(cfg, lp, lp.blocks - inner, latches, decided & lp.blocks, runs)
            every |= runs
        holds = _loop_holds(cfg, du, nest, roots, every, by_component)
        if holds:
            found.append((nest[0].blocks, holds))
    return found


def _counter_branches(cfg: CFG, du: DefUse, blocks: frozenset[int]) -> set[int]:
    """The blocks of `blocks` ending in a branch whose condition is computed from the unrolled
    counters, tables read at them and literals alone (`i == 0 && j == 0`): each unrolled copy
    takes one arm, decided at compile time."""
    known: dict[Value, bool] = {}
    out: set[int] = set()
    kept = cfg.kept_instrs()
    for b in blocks:
        instrs = kept.get(b)
        if not instrs or instrs[-1].op != "branch" or not instrs[-1].reads:
            continue
        if all(_decided(r, du, blocks, known) for r in instrs[-1].reads):
            out.add(b)
    return out


def _decided(v: Value, du: DefUse, blocks: frozenset[int], known: dict[Value, bool]) -> bool:
    """Is `v` computed in `blocks` from the unrolled counters, tables read at them and literals
    alone (`_counter_branches`)? `known` keeps the answers. (Not a nested function that calls
    itself: that is a reference cycle, see `_is_invariant`.)"""
    found = known.get(v)
    if found is not None:
        return found
    known[v] = False  # a cycle is not decided
    ds = du.defs.get(v, [])
    ok = (
        len(ds) == 1
        and ds[0].block in blocks
        and (
            ("rows" in ds[0].detail and ds[0].op in ("alu", "cbload"))
            or (ds[0].op in _CHAIN_OPS and all(_decided(r, du, blocks, known) for r in ds[0].reads))
        )
    )
    known[v] = ok
    return ok


def _every_iteration(
    cfg: CFG, lp: LoopRecord, body: frozenset[int], latches: list[int], decided: set[int], every: set[int]
) -> set[int]:
    """`every` (the blocks of `body` that dominate the `latches` of `lp`) with the blocks that
    every iteration runs once the arms of the `decided` branches that avoid them are not taken:
    a block behind `if (i == 0 && j == 0) continue;` runs in every unrolled copy but one."""
    succ = cfg.graph.succ
    blocks = lp.blocks
    header = lp.header

    def reach(start: int, avoid: int, cut: set[tuple[int, int]]) -> set[int]:
        """The blocks of the loop one iteration reaches from `start` without `avoid`, the
        header or the edges `cut`."""
        seen = {start}
        work = [start]
        while work:
            b = work.pop()
            for s in succ[b]:
                if s in blocks and s not in seen and s != avoid and s != header and (b, s) not in cut:
                    seen.add(s)
                    work.append(s)
        return seen

    arms = {(x, s): reach(s, -1, set()) for x in decided for s in succ[x] if s in blocks}
    after = {x: reach(x, -1, set()) for x in decided}
    out = set(every)
    for b in body - every:
        # the arms that never lead to `b` are the iterations that skip it
        cut = {(x, s) for (x, s), seen in arms.items() if b not in seen and b in after[x]}
        if not cut:
            continue
        seen = reach(header, b, cut)
        if not any(la in seen for la in latches if la != b):
            out.add(b)
    return out


def _loop_holds(
    cfg: CFG,
    du: DefUse,
    nest: list[LoopRecord],
    roots: list[tuple[Instr, int]],
    every: set[int],
    by_component: bool = False,
) -> list[dict[Value, int]]:
    """`unrolled_holds` of one nest of loops (outermost first; `roots`: the instructions that
    read a table or counter, with the position in `nest` of the loop whose iterations they
    follow); `every`: the blocks every iteration runs; `by_component`: see `unrolled_holds`."""
    defs = du.defs
    blocks = nest[0].blocks
    deadline = current()
    invariant: dict[Value, bool] = {}
    # values set once in the nest that vary: named per iteration of the loops around their
    # definition (a value of the outer loop's body is the same in every inner iteration)
    varies: dict[Value, tuple[int, ...]] = {}

    # the chain: values computed in the loop, once, from table rows, chain values and invariants
    chain: dict[Value, Instr] = {}
    own_loop: dict[Instr, int] = {}
    for t, pos in roots:
        if t.dest is not None and len(defs.get(t.dest, [])) == 1:
            chain[t.dest] = t
            own_loop[t] = pos
    order: list[Instr] = []
    for b in sorted(blocks):
        for ins in cfg.kept_instrs().get(b, []):
            d = ins.dest
            if d is None:
                continue
            if d in chain and chain[d] is ins:
                order.append(ins)
                continue
            if ins.op not in _CHAIN_OPS or len(defs.get(d, [])) != 1 or d.parts is not None or d.width > 16:
                continue
            if any(r in chain for r in ins.reads) and all(
                r in chain or _nameable(r, defs, blocks, nest, invariant, varies) for r in ins.reads
            ):
                chain[d] = ins
                order.append(ins)
    if not order:
        return []
    picked = {ins: sels for ins in order if (sels := _operand_picks(ins)) is not None} if by_component else {}
    branched = _branched_arms(cfg, du, blocks) if by_component else set()
    sizes = [lp.trip_count or 1 for lp in nest]
    trips = 1
    for n in sizes:
        trips *= n
    position = {ins: n for n, ins in enumerate(order)}
    # per iteration: each chain value's component names, and which are new (first computed)
    names: dict[tuple[object, ...], int] = {}
    constant_names: set[int] = set()
    numbers: dict[int, int | float] = {}  # the names of a table's or counter's numbers
    outside: set[int] = set()  # names of components of values not in the chain (live anyway)
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    per_iter: list[dict[Value, list[int]]] = []
    new_at: list[dict[Instr, set[int]]] = []
    for k in range(trips):
        deadline.tick()
        digits: list[int] = []
        rest = k
        for n in reversed(sizes):
            digits.append(rest % n)
            rest //= n
        digits.reverse()
        comps: dict[Value, list[int]] = {}
        fresh: dict[Instr, set[int]] = {}
        for ins in order:
            d = ins.dest
            assert d is not None
            width = d.width
            out: list[int] = []
            if "rows" in ins.detail and chain.get(d) is ins:
                row = ins.detail["rows"][digits[own_loop[ins]]]
                for c in range(width):
                    number = row[min(c, len(row) - 1)]
                    key: tuple[object, ...] = ("t", number)
                    n = names.setdefault(key, len(names))
                    constant_names.add(n)
                    numbers[n] = number
                    out.append(n)
            elif "lanes" in ins.detail:
                # a constructor (`int2(x, y)`): each component is one of an operand's, or a constant
                i = 0
                for n_lanes in ins.detail["lanes"]:
                    if n_lanes < 0:
                        for _ in range(-n_lanes):
                            n = names.setdefault(("k", position[ins], len(out)), len(names))
                            constant_names.add(n)
                            out.append(n)
                    else:
                        r = ins.reads[i]
                        i += 1
                        for c in range(n_lanes):
                            part = _component(r, c, comps, varies, digits)
                            if not isinstance(part, int):
                                part = names.setdefault((part,), len(names))
                                outside.add(part)
                            out.append(part)
                out = out[:width]
            else:
                sels = picked.get(ins)
                widest = max((_picked_width(r, sels, n) for n, r in enumerate(ins.reads)), default=1)
                whole = not _componentwise(ins) or (width == 1 and widest > 1)
                every_part: tuple[object, ...] = ()
                if whole:
                    every_part = tuple(
                        _component(r, _pick(sels, n, c), comps, varies, digits)
                        for n, r in enumerate(ins.reads)
                        for c in range(_picked_width(r, sels, n))
                    )
                # not reused by a later iteration
                again = k if ins.block not in every or ins in branched else -1
                for c in range(width):
                    if whole:
                        parts: tuple[object, ...] = every_part
                        key = (position[ins], again, c, every_part)
                    else:
                        parts = tuple(
                            _component(r, _pick(sels, n, c), comps, varies, digits)
                            for n, r in enumerate(ins.reads)
                        )
                        same = _identity(ins.detail.get("opr"), parts, numbers)
                        if same is not None:  # `x + 0`, `x * 1`: the operand itself
                            if not isinstance(same, int):
                                same = names.setdefault((same,), len(names))
                                outside.add(same)
                            out.append(same)
                            continue
                        key = (position[ins], again, parts)
                    n = names.setdefault(key, len(names))
                    if all(isinstance(p, int) and p in constant_names for p in parts):
                        constant_names.add(n)
                    out.append(n)
            fresh_comps: set[int] = set()
            for c, n in enumerate(out):
                if n not in first:
                    first[n] = k
                    fresh_comps.add(c)
            fresh[ins] = fresh_comps
            comps[d] = out
        per_iter.append(comps)
        new_at.append(fresh)
    # where each name is needed: by a reader outside the chain, or by a component of a chain
    # reader computed anew in that iteration (a component-wise reader needs that component of
    # its operand, another reader all of them); a constructor's components are its operands'
    # own names, needed where the constructor's are
    whole_reader = {
        ins: not _componentwise(ins)
        or (
            ins.dest is not None
            and ins.dest.width == 1
            and any(_picked_width(r, picked.get(ins), n) > 1 for n, r in enumerate(ins.reads))
        )
        for ins in order
    }
    for k in range(trips):
        deadline.tick()
        for ins in order:
            d = ins.dest
            assert d is not None
            mine = per_iter[k][d]
            needed: set[int] = set()
            for rd in du.readers.get(d, []):
                rc = chain.get(rd.dest) if rd.dest is not None else None
                if rc is not rd:
                    needed = set(range(len(mine)))
                    break
                if "lanes" in rd.detail or "rows" in rd.detail:
                    continue
                new_comps = new_at[k].get(rd, set())
                if not new_comps:
                    continue
                sels = picked.get(rd)
                if sels is None:
                    if whole_reader[rd]:
                        needed = set(range(len(mine)))
                        break
                    needed.update(min(c, len(mine) - 1) for c in new_comps)
                    continue
                for n, r in enumerate(rd.reads):
                    if r is d:
                        taken = range(_picked_width(r, sels, n)) if whole_reader[rd] else new_comps
                        needed.update(min(_pick(sels, n, c), len(mine) - 1) for c in taken)
            for c in needed:
                n = mine[c]
                if last.get(n, -1) < k:
                    last[n] = k
    # the names held across an iteration's end, from their first iteration to their last use,
    # each counted once (one iteration's own copy is the body's count), as registers of the
    # first value that takes it; a component that is an operand's outside the chain
    # (`DTid.y + 0`) is that operand's register, which the body counts already
    owner: dict[int, Value] = {}
    for comps in per_iter:
        for v, ns in comps.items():
            for n in ns:
                if n not in constant_names and n not in outside and n in last and n not in owner:
                    owner[n] = v
    out_holds: list[dict[Value, int]] = []
    for k in range(trips):
        deadline.tick()
        now = {n for ns in per_iter[k].values() for n in ns}
        held: dict[Value, int] = {}
        for n, v in owner.items():
            if n not in now and first[n] <= k <= last[n]:
                held[v] = held.get(v, 0) + 1
        for v, ns in per_iter[k].items():
            shared = sum(1 for n in ns if n in outside)
            if shared:
                held[v] = held.get(v, 0) - shared
        out_holds.append(held)
    return out_holds if any(out_holds) else []


_FLATTENED_ARM = 8
"""The most operations an arm of a `?:` may take for the compiler to compute both arms and
select (NIR's peephole select in RADV: 8 instructions); a longer arm is a branch."""


def _branched_arms(cfg: CFG, du: DefUse, blocks: frozenset[int]) -> set[Instr]:
    """The instructions of `blocks` that compute only an arm of a `?:` with a scalar condition
    and more than `_FLATTENED_ARM` operations in an arm: HLSL 2021 evaluates only the arm
    chosen (the front end emits a branch), and an arm of that size stays one, so what it
    computes is computed again in each iteration of an unrolled loop, never reused by a later
    one (regtruth: RELAX's world position from a pixel, `gOrthoMode == 0 ? z * (F + R * c.x -
    U * c.y) : ...`, over 24 taps: presched_vgprs 19; 39 without the `?:`, where each
    column's `F + R * c.x` is held across the rows)."""
    out: set[Instr] = set()
    kept = cfg.kept_instrs()
    for b in blocks:
        for sel in kept.get(b, []):
            if "select" not in sel.detail or sel.dest is None:
                continue
            conds = [r for r in sel.reads if r.type.is_bool]
            if sel.dest.type.is_bool or len(conds) != 1 or conds[0].width != 1:
                continue
            arms: list[set[Instr]] = []
            for a in sel.reads:
                if a is conds[0]:
                    continue
                # the arm's value, and each value only the arm reads (to a fixpoint: a value
                # two of the arm's operations read joins once both have)
                arm: set[Instr] = set()
                waiting = [a]
                grew = True
                while grew:
                    grew = False
                    later: list[Value] = []
                    for v in waiting:
                        ds = du.defs.get(v, [])
                        if len(ds) != 1 or ds[0] in arm or ds[0].block != b or ds[0].op not in _CHAIN_OPS:
                            continue
                        if v is not a and not all(r in arm for r in du.readers.get(v, [])):
                            later.append(v)
                            continue
                        arm.add(ds[0])
                        later.extend(ds[0].reads)
                        grew = True
                    waiting = later
                arms.append(arm)
            if any(sum(i.dest.width for i in arm if i.dest is not None) > _FLATTENED_ARM for arm in arms):
                for arm in arms:
                    out |= arm
    return out


def _operand_picks(ins: Instr) -> list[tuple[int, ...] | None] | None:
    """Per read of a pure operation, the components of it the operation takes, as the lowering
    records its operands (`ops`, with the liveness by component): `c.x` of `gR.xyz * c.x` is
    component 0 for every lane of the product (None: lane c takes component c); None when not
    recorded."""
    ops = ins.detail.get("ops")
    if ops is None:
        return None
    out: list[tuple[int, ...] | None] = []
    reads = ins.reads
    for o in ops:
        if o[0] != "v":
            continue
        if len(out) >= len(reads):
            return None
        sel = o[1]
        if sel is None and o[3] == 1 and reads[len(out)].width > 1:
            sel = (0,)  # a scalar view of a vector: its first component in every lane
        out.append(tuple(sel) if sel is not None else None)
    return out if len(out) == len(reads) else None


def _pick(sels: list[tuple[int, ...] | None] | None, n: int, c: int) -> int:
    """The component of read `n` that lane `c` takes (`_operand_picks`)."""
    if sels is None:
        return c
    sel = sels[n]
    if sel is None:
        return c
    return sel[min(c, len(sel) - 1)]


def _picked_width(r: Value, sels: list[tuple[int, ...] | None] | None, n: int) -> int:
    """The number of components of read `n` (`r`) the operation takes."""
    if sels is None or sels[n] is None:
        return r.width
    return len(sels[n] or ())


def _is_invariant(
    v: Value, defs: dict[Value, list[Instr]], blocks: frozenset[int], known: dict[Value, bool]
) -> bool:
    """Is `v` the same in every iteration of the loops of `blocks` (set outside them, or once
    inside from invariants alone)? `known` keeps the answers. (Not a closure in `_loop_holds`:
    a nested function that calls itself is a reference cycle, which would leave the nest's
    instructions and values to the garbage collector.)"""
    found = known.get(v)
    if found is not None:
        return found
    ds = defs.get(v, [])
    inside = [d for d in ds if d.block in blocks]
    if not inside:
        known[v] = True
        return True
    known[v] = False  # a cycle through the loop varies
    ok = (
        len(ds) == 1
        and ds[0].op in _INVARIANT_OPS
        and "rows" not in ds[0].detail
        and all(_is_invariant(r, defs, blocks, known) for r in ds[0].reads)
    )
    known[v] = ok
    return ok


def _nameable(
    v: Value,
    defs: dict[Value, list[Instr]],
    blocks: frozenset[int],
    nest: list[LoopRecord],
    invariant: dict[Value, bool],
    varies: dict[Value, tuple[int, ...]],
) -> bool:
    """Can an iteration name `v`'s components: an invariant, or a value set once in the nest
    (which `varies` then maps to the positions in `nest` of the loops around its definition)."""
    if _is_invariant(v, defs, blocks, invariant):
        return True
    ds = defs.get(v, [])
    if len(ds) != 1:
        return False
    if v not in varies:
        varies[v] = tuple(p for p, lp in enumerate(nest) if ds[0].block in lp.blocks)
    return True


def _identity(opr: object, parts: tuple[object, ...], numbers: dict[int, int | float]) -> object:
    """The operand name an operation of two operands leaves as it is (`x + 0`, `0 + x`,
    `x - 0`, `x * 1`, `1 * x`: the compiler folds it, no register), else None."""
    if len(parts) != 2 or opr not in ("+", "-", "*"):
        return None
    a, b = parts
    unit = 1 if opr == "*" else 0
    if isinstance(b, int) and numbers.get(b) == unit:
        return a
    if opr != "-" and isinstance(a, int) and numbers.get(a) == unit:
        return b
    return None


def _component(
    r: Value, c: int, comps: dict[Value, list[int]], varies: dict[Value, tuple[int, ...]], digits: list[int]
) -> object:
    """The name of component `c` of operand `r` in this iteration (`digits`: the iteration of
    each loop of the nest): a chain value's; else a loop-invariant value's own, or for a value
    set in the nest, its own in this iteration of the loops around its definition (a scalar
    read by a vector operation is each component)."""
    c = min(c, r.width - 1)
    found = comps.get(r)
    if found is not None:
        return found[min(c, len(found) - 1)]
    at = varies.get(r)
    if at:
        return ("i", r.id, c, tuple(digits[p] for p in at))
    return ("i", r.id, c)
