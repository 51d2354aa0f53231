"""Liveness by component: which components of a vector are live at each instruction.

`component_reads(instrs, bound_views)` and `component_maps(instrs, bound_views)` (what the CFG
keeps as `CFG.component_reads` and `CFG.component_maps`): the vectors an instruction reads only
some components of, and per component-wise instruction which operand components each result
component reads. `_component_liveness(cfg, partial, counted)`, queried by
`liveness.register_demand` (`costs.component_liveness`): the backward liveness by component of
the vectors among the counted VGPR values, with the components that hold constants
(`_ComponentLiveness.constant_flow`), so a vector holds only the registers of the components
some later read takes.
"""

from __future__ import annotations

import heapq

from hlsllint.analysis.ir import CFG, COMPONENTWISE_INTRINSICS, Instr, Value, postorder_ranks
from hlsllint.deadline import current

FEW_BITS = 32
"""Up to this many set bits, `_bit_indices` takes them off the top one by one."""


def _bit_indices(x: int) -> list[int]:
    """The positions of the set bits of `x`, lowest first: a few bits (a vector's components,
    the components an instruction changes among thousands) taken off the top one at a time,
    else one pass over its binary digits (which costs the whole length of `x` however few
    are set: g_buffer's main_ps asks it for a few of 5,595 bits at each block)."""
    if x >= 0 and x.bit_count() <= FEW_BITS:
        out: list[int] = []
        while x:
            i = x.bit_length() - 1
            out.append(i)
            x ^= 1 << i
        out.reverse()
        return out
    digits = bin(x)[:1:-1]  # lowest bit first, without the "0b"
    out = []
    i = digits.find("1")
    while i != -1:
        out.append(i)
        i = digits.find("1", i + 1)
    return out


def _mask(sel: tuple[int, ...], width: int) -> int:
    """The components `sel` names as a bit set; 0 when one is out of range (unknown)."""
    m = 0
    for c in sel:
        if c < 0 or c >= width:
            return 0
        m |= 1 << c
    return m


def component_reads(
    instrs: list[Instr], bound_views: set[Value] | frozenset[Value]
) -> dict[Instr, dict[Value, int]]:
    """Per instruction, the vectors it reads only some components of and which (`CFG.component_reads`):
    from the operands' components the lowering records for pure operations (`ops`: a swizzle's
    components, a parameter bound to the leading part of its argument), the components a
    constructor picks (`picks`), the components a copy, a fetch or a store takes (`sels`) and the components a
    write of some components keeps (`set`).
    A parameter bound to another view of its argument (`f(v.yx)`, `bound_views`) reads it whole."""
    out: dict[Instr, dict[Value, int]] = {}
    for ins in instrs:
        detail = ins.detail
        reads = ins.reads
        if not reads:
            continue
        masks: list[int] = []  # per read: its components, 0 for the whole value
        ops = detail.get("ops")
        sels = detail.get("sels") if ops is None else None
        if sels is not None:
            if len(sels) != len(reads):
                continue
            for r, o in zip(reads, sels, strict=True):
                if o is None or (not o[4] and r in bound_views):
                    masks.append(0)
                elif o[1] is None:
                    masks.append((1 << o[3]) - 1 if 0 < o[3] < r.width else 0)
                else:
                    masks.append(_mask(o[1], r.width))
        elif ops is not None:
            i = 0
            for o in ops:
                if o[0] != "v":
                    continue
                if i >= len(reads):
                    break
                r = reads[i]
                i += 1
                sel = o[1]
                if not o[4] and r in bound_views:
                    masks.append(0)
                elif sel is None:
                    masks.append((1 << o[3]) - 1 if 0 < o[3] < r.width else 0)
                else:
                    masks.append(_mask(sel, r.width))
            if i != len(reads):
                continue
        elif (
            "set" in detail
            and ins.op == "alu"
            and len(reads) == 2
            and ins.dest is not None
            and ins.dest.type.kind != "matrix"  # a row written into a matrix reads it whole
        ):
            # (regtruth: four float4 rows blended in a loop through an `inout` helper hold the
            # whole matrix with the loop's loads batched, 28 presched VGPRs; a row freed between
            # its read and its write-back, 22, where the loads are not batched here)
            kept = (1 << reads[0].width) - 1
            for c in detail["set"]:
                kept &= ~(1 << c)
            masks = [kept, 0]
        elif "picks" in detail:
            picks = detail["picks"]
            if len(picks) != len(reads):
                continue
            for r, pick in zip(reads, picks, strict=True):
                masks.append(0 if pick is None else _mask(pick, r.width))
        else:
            continue
        found: dict[Value, int] = {}
        whole: set[Value] = set()
        for r, m in zip(reads, masks, strict=True):
            full = (1 << r.width) - 1
            if m == 0 or m == full:
                whole.add(r)
            else:
                found[r] = found.get(r, 0) | m
        for r in whole:
            found.pop(r, None)
        if found:
            out[ins] = found
    return out


class _ComponentLiveness:
    """Liveness by component of the vectors some instructions read only part of
    (`CFG.component_reads`): bit `base[v] + c` stands for component c of v."""

    def __init__(
        self,
        base: dict[Value, int],
        owner: list[Value],
        partial: dict[Instr, dict[Value, int]],
        live_out: dict[int, int],
    ) -> None:
        self.base = base
        self.owner = owner
        """Bit -> the vector whose component it is."""
        self.partial = partial
        self.live_out = live_out
        self.constant: dict[Value, int] = {}
        """Vector -> its compile-time constant components wherever it is read (a bit each)."""
        self.k_out: dict[int, int] = {}
        """Block -> the components (bit `base[v] + c`) that every definition reaching the
        block's end leaves constant or undefined (`constant_flow`)."""
        self.k_before: dict[Instr, int] = {}
        """A definition of a vector -> those components of the vector before it."""
        self.alike: dict[Value, tuple[int, ...]] = {}
        """Vector -> per component the first one computed alike (`alike_components`): the
        components of one class are one register."""
        self.visits = 0
        """Blocks `constant_flow` took from its work list (each meets its predecessors)."""
        self.walks = 0
        """Blocks the backward liveness took from its work list (each walked backwards)."""
        self.touching: set[Instr] = set()
        """The instructions that read or write a tracked vector (`step` changes nothing across
        the others)."""
        self.maps: dict[Instr, dict[Value, list[int]]] = {}
        """A component-wise instruction -> per vector it reads, per component of its result
        the components of that vector it reads (`_component_map`): it reads only what the
        live components of its result need."""

    def reads(self, ins: Instr, bits: int) -> dict[Value, int]:
        """The components of each tracked vector `ins` reads, given what is live after it
        (`bits`): a component-wise instruction reads only what its result's live components
        need (a component overwritten before any read is never computed, nor are the
        components of its operands that only it needed)."""
        base = self.base
        touched: dict[Value, int] = {}
        partial = self.partial.get(ins)
        m = self.maps.get(ins)
        d = ins.dest
        if m is not None and d is not None and d in base:
            live = bits >> base[d] & ((1 << d.width) - 1)
            for r, per in m.items():
                if r in base:
                    got = 0
                    for c in _bit_indices(live):
                        got |= per[c]
                    touched[r] = touched.get(r, 0) | got
            for r in ins.reads:
                if r in base and r not in m:
                    full = (1 << r.width) - 1
                    touched[r] = touched.get(r, 0) | (partial.get(r, full) if partial is not None else full)
            return touched
        for r in ins.reads:
            if r in base:
                full = (1 << r.width) - 1
                mr = partial.get(r, full) if partial is not None else full
                touched[r] = touched.get(r, 0) | mr
        return touched

    def walk(self, instrs: list[Instr], bits: int) -> int:
        """The components live before `instrs` from those live after them."""
        base = self.base
        for ins in reversed(instrs):
            d = ins.dest
            at = base.get(d) if d is not None else None
            if at is None:
                for r in ins.reads:
                    if r in base:
                        break
                else:
                    continue  # touches no tracked vector
            touched = self.reads(ins, bits)
            if at is not None:
                assert d is not None
                # the result's components cleared: one exclusive or of the bits set there (the
                # complement of a shifted mask is a negative number, whose `&` takes longer)
                mine = bits >> at & ((1 << d.width) - 1)
                if mine:
                    bits ^= mine << at
            for r, m in touched.items():
                bits |= m << base[r]
        return bits

    def constant_flow(self, cfg: CFG, constant: set[Value], masks: dict[Value, int]) -> None:
        """Which components hold a compile-time constant or nothing at each point (a forward
        must-analysis): `v.w = 0.25` after `v = t.Load(p)` leaves `.w` constant until `v` is
        written again, and a vector no definition has reached yet (an output written at the
        end) is undefined, which takes no register either."""
        base = self.base
        defs_of: dict[int, list[Instr]] = {}
        for b, instrs in cfg.kept_instrs().items():
            found = [ins for ins in instrs if ins.dest is not None and ins.dest in base]
            if found:
                defs_of[b] = found
        if not defs_of:
            return
        everything = (1 << len(self.owner)) - 1
        succs = cfg.successors()
        preds = cfg.predecessors()

        def through(b: int, k: int, record: bool) -> int:
            for ins in defs_of.get(b, ()):
                d = ins.dest
                assert d is not None
                full = (1 << d.width) - 1
                at = base[d]
                was = mine = k >> at & full
                if record:
                    self.k_before[ins] = was
                written = ins.detail.get("set")
                if ins.op == "undef":
                    # a matrix declared without a value and filled row by row holds all its
                    # registers from there, as before it was followed by component (the rising
                    # loads of its rows are counted in it: `scheduling._absorbed_below`)
                    mine = full if d.type.kind != "matrix" else 0
                elif written is not None and ins.op == "alu" and ins.reads and ins.reads[0] is d:
                    src = ins.reads[1] if len(ins.reads) > 1 else None
                    src_k = masks.get(src, 0) if src is not None else full
                    for j, c in enumerate(written):
                        if src is None or src in constant:
                            bit = 1
                        else:
                            bit = src_k & 1 if src.width == 1 else src_k >> j & 1
                        mine = mine | 1 << c if bit else mine & ~(1 << c)
                elif ins.op in ("alu", "copy") and all(r in constant for r in ins.reads):
                    mine = full  # `float3 sum = 0;` before `sum += ...`
                else:
                    mine = 0
                mine &= full
                if mine != was:  # only the bits that change (see `walk`)
                    k ^= (mine ^ was) << at
            return k

        out = {b: everything for b in succs}
        # The blocks in reverse postorder, the next one taken the first in that order: a block
        # after its predecessors but for loops' back edges, so each sweep settles what it
        # reaches (g_buffer's main_ps: 1,486 blocks taken for its 1,003; in block order, from
        # the list's front, 45,974).
        # The transfer is monotone, so the fixpoint from "all" is the same in any order.
        order = postorder_ranks(cfg)[0][::-1]  # the CFG's postorder, made once for it
        rank = {b: i for i, b in enumerate(order)}
        work = list(range(len(order)))  # a heap of ranks (sorted: already one)
        queued = [True] * len(order)
        deadline = current()
        while work:
            deadline.tick()
            i = heapq.heappop(work)
            queued[i] = False
            self.visits += 1
            b = order[i]
            k = everything  # the entry: nothing defined yet
            for p in preds[b]:
                k &= out[p]
            k = through(b, k, False)
            if k != out[b]:
                out[b] = k
                for t in succs[b]:
                    j = rank[t]
                    if not queued[j]:
                        queued[j] = True
                        heapq.heappush(work, j)
        for b in defs_of:
            k = everything
            for p in preds[b]:
                k &= out[p]
            through(b, k, True)
        self.k_out = out

    def dead_registers(self, bits: int, vsize: list[int], index: dict[Value, int], kbits: int = 0) -> int:
        """The registers the vectors live in `bits` hold for components no later read takes
        or that are constant (`kbits`, besides `constant`)."""
        total = 0
        seen: set[Value] = set()
        for i in _bit_indices(bits):
            v = self.owner[i]
            if v not in seen:
                seen.add(v)
                total += self._vector_dead(v, bits, kbits, vsize[index[v]])
        return total

    def _vector_dead(self, v: Value, bits: int, kbits: int, n: int) -> int:
        """The registers of `v` (of `n` registers) that `bits` leave dead (`kbits`: constant)."""
        full = (1 << v.width) - 1
        at = self.base[v]
        k = self.constant.get(v, 0) | kbits >> at & full
        return _dead(n, bits >> at & full, k, self.alike.get(v))

    def dead_registers_from(
        self,
        before: tuple[int, int, int],
        bits: int,
        vsize: list[int],
        index: dict[Value, int],
        kbits: int = 0,
    ) -> int:
        """`dead_registers(bits, vsize, index, kbits)` from its answer for other bits
        (`before`: those bits, their constant bits and the answer): the answer is a sum over
        the vectors, so only the vectors whose bits differ are counted again (twice each: what
        they held and what they hold), or the live ones afresh when as many bits differ as are
        live (blocks taken in turn start from live sets that may share little)."""
        old_bits, old_k, total = before
        changed = (bits ^ old_bits) | (kbits ^ old_k)
        if not changed:
            return total
        if changed.bit_count() >= bits.bit_count():  # as many to count again as to count afresh
            return self.dead_registers(bits, vsize, index, kbits)
        seen: set[Value] = set()
        for i in _bit_indices(changed):
            v = self.owner[i]
            if v not in seen:
                seen.add(v)
                n = vsize[index[v]]
                total += self._vector_dead(v, bits, kbits, n) - self._vector_dead(v, old_bits, old_k, n)
        return total

    def step(
        self,
        ins: Instr,
        bits: int,
        ded: int,
        vsize: list[int],
        index: dict[Value, int],
        reads_counted: bool,
        kbits: int = 0,
    ) -> tuple[int, int, int, int]:
        """Across `ins` backwards, from the components live after it (`bits`, of which `ded`
        registers dead, `kbits` constant): (live before, registers dead at `ins`, registers
        dead before, constant before)."""
        base = self.base
        d = ins.dest
        touched = self.reads(ins, bits)  # candidate -> components read here
        if d is not None and d in base and d not in touched:
            touched[d] = 0
        mapped = ins in self.maps
        loaded = ins.op in ("load", "cbload")
        if not touched:
            return bits, ded, ded, kbits
        here = before_ded = ded
        k_before = kbits
        k_moved = False  # k_before differs from kbits (in `d`'s components only)
        if d is not None and ins in self.k_before:
            full = (1 << d.width) - 1
            at = base[d]
            change = (kbits >> at & full) ^ self.k_before[ins]
            if change:  # only the bits that change (see `walk`)
                k_before = kbits ^ change << at
                k_moved = True
        for v, rm in touched.items():
            b = base[v]
            full = (1 << v.width) - 1
            after = bits >> b & full
            # a component-wise result computes only its live components, and a matrix is
            # loaded only in the components some later read takes (`_product_map`)
            partial_def = mapped or (loaded and v.type.kind == "matrix")
            dm = (after if partial_def and after else full) if v is d else 0
            counted = after | (dm if ins.op != "undef" else 0) | (rm if reads_counted else 0)
            before = (after & ~(full if v is d else 0)) | rm
            n = vsize[index[v]]
            k = self.constant.get(v, 0)
            ka = k | kbits >> b & full
            alike = self.alike.get(v)
            was = _dead(n, after, ka, alike)
            # an export moves its constant components into registers too
            here += _dead(n, counted, 0 if ins.op == "export" else ka, alike) - was
            # constant before: as after but for the result's components
            kb = k | k_before >> b & full if k_moved and v is d else ka
            before_ded += _dead(n, before, kb, alike) - was
            if before != after:  # only the bits that change (see `walk`)
                bits ^= (before ^ after) << b
        return bits, here, before_ded, k_before


def _dead(size: int, live: int, constant: int = 0, alike: tuple[int, ...] | None = None) -> int:
    """Registers of a vector of `size` registers held for components not in `live` or among
    its `constant` ones (none when no component is live: the value is not counted at all);
    with `alike` (per component the first computed alike), one register per distinct one."""
    if not live:
        return 0
    held = live & ~constant
    if alike is None:
        return max(0, size - held.bit_count())
    return max(0, size - len({alike[c] for c in _bit_indices(held)}))


def _vector(v: Value) -> bool:
    """A vector or a matrix (component `r * cols + c` for row r, column c), or an array of
    scalars or vectors held whole, with one 32-bit register per component (what the liveness
    by component tracks)."""
    if v.width <= 1 or v.parts is not None:
        return False
    t = v.type
    if t.kind in ("vector", "matrix"):
        return t.count == v.width
    el = t.element
    return (
        t.kind == "array"
        and el is not None
        and el.kind in ("scalar", "vector")
        and bool(t.length)
        and el.count * (t.length or 0) == v.width
    )


def _component_map(ins: Instr, bound_views: set[Value] | frozenset[Value]) -> dict[Value, list[int]] | None:
    """For a component-wise instruction with a vector result (an operator, a component-wise
    intrinsic, a copy), per vector it reads the components of it each result component reads
    (a bit set each); None for any other instruction or an operand it cannot place."""
    d = ins.dest
    if d is None or not _vector(d) or not ins.reads:
        return None
    detail = ins.detail
    n = d.width
    if ins.op == "alu" and detail.get("name") == "mul":
        return _product_map(ins, d)
    merge = detail.get("merge")
    if ins.op == "alu" and isinstance(merge, tuple) and merge[0] == "cast" and d.type.kind == "matrix":
        return _truncation_map(ins, d)
    if ins.op == "copy":
        ops = detail.get("sels")
        if ops is None or len(ops) != 1:
            return None
    elif (ins.op == "alu" and detail.get("cw") and "set" not in detail) or (
        ins.op == "intrinsic" and detail.get("name") in COMPONENTWISE_INTRINSICS
    ):
        ops = detail.get("ops")
        if ops is None:
            return None
    else:
        return None
    out: dict[Value, list[int]] = {}
    reads = iter(ins.reads)
    for o in ops:
        if o is None:
            return None
        if o[0] != "v":
            continue
        r = next(reads, None)
        if r is None:
            return None
        sel = o[1]
        if r.width == 1:
            continue  # a scalar: no components to follow
        if not o[4] and r in bound_views:
            return None  # a parameter bound to another view of its argument
        if sel is None:
            if r.width != n or o[3] not in (0, n):
                return None
            per = [1 << c for c in range(n)]
        elif len(sel) == n and all(0 <= c < r.width for c in sel):
            per = [1 << c for c in sel]
        elif len(sel) == 1 and 0 <= sel[0] < r.width:
            per = [1 << sel[0]] * n
        else:
            return None
        prev = out.get(r)
        out[r] = per if prev is None else [a | b for a, b in zip(prev, per, strict=True)]
    if next(reads, None) is not None:
        return None
    return out


def _product_map(ins: Instr, d: Value) -> dict[Value, list[int]] | None:
    """`mul` of a matrix and a vector or of two matrices: per operand held in a register per
    component, the components each result component reads. `mul(m, v)[i]` reads row i of `m`,
    `mul(v, m)[j]` column j, `mul(a, b)[i][j]` row i of `a` and column j of `b` (the vector
    operands whole). A result narrower than the product (`mul(m, float4(p, 1)).xyz` kept as a
    `float3`) is its leading components. The compiler computes only the result components
    some later read takes, and loads or computes only the matrix components they read
    (regtruth: `mul(m, float4(p, 1)).xyz` of a 4x4 matrix loaded at a per-lane index holds
    three of its rows)."""
    if len(ins.reads) != 2:
        return None
    a, b = ins.reads
    ta, tb = a.type, b.type
    n = d.width
    out: dict[Value, list[int]] = {}
    if ta.kind == "matrix" and tb.kind == "vector" and tb.count == ta.cols and n <= ta.rows:
        row = (1 << ta.cols) - 1
        out[a] = [row << (i * ta.cols) for i in range(n)]
        out[b] = [(1 << tb.count) - 1] * n
    elif ta.kind == "vector" and tb.kind == "matrix" and ta.count == tb.rows and n <= tb.cols:
        out[b] = [sum(1 << (i * tb.cols + j) for i in range(tb.rows)) for j in range(n)]
        out[a] = [(1 << ta.count) - 1] * n
    elif (
        ta.kind == "matrix"
        and tb.kind == "matrix"
        and ta.cols == tb.rows
        and d.type.kind == "matrix"
        and (d.type.rows, d.type.cols) == (ta.rows, tb.cols)
    ):
        k, cols = ta.cols, tb.cols
        col_b = [sum(1 << (r * cols + j) for r in range(tb.rows)) for j in range(cols)]
        row_a = [((1 << k) - 1) << (i * k) for i in range(ta.rows)]
        if a is b:
            out[a] = [row_a[c // cols] | col_b[c % cols] for c in range(n)]
        else:
            out[a] = [row_a[c // cols] for c in range(n)]
            out[b] = [col_b[c % cols] for c in range(n)]
    else:
        return None
    return {r: per for r, per in out.items() if r.width > 1 and r.width == r.type.count}


def _truncation_map(ins: Instr, d: Value) -> dict[Value, list[int]] | None:
    """A matrix cast to a smaller one (`(float3x3)m` of a `float4x4`): component (i, j) of the
    result is component (i, j) of the matrix cast."""
    if len(ins.reads) != 1:
        return None
    r = ins.reads[0]
    tr, td = r.type, d.type
    if tr.kind != "matrix" or not _vector(r) or td.rows > tr.rows or td.cols > tr.cols:
        return None
    return {r: [1 << (c // td.cols * tr.cols + c % td.cols) for c in range(d.width)]}


def component_maps(
    instrs: list[Instr], bound_views: set[Value] | frozenset[Value]
) -> dict[Instr, dict[Value, list[int]]]:
    """`_component_map` of every component-wise instruction (`CFG.component_maps`)."""
    out: dict[Instr, dict[Value, list[int]]] = {}
    for ins in instrs:
        m = _component_map(ins, bound_views)
        if m:
            out[ins] = m
    return out


def _component_liveness(
    cfg: CFG, partial: dict[Instr, dict[Value, int]], counted: list[Value]
) -> _ComponentLiveness | None:
    """Backward liveness by component of the vectors among `counted` (VGPR values) that some
    instruction reads only part of or that a component-wise instruction computes or reads
    (32-bit components, one register each)."""
    wanted = {v for reads in partial.values() for v in reads}
    kept = cfg.kept_instrs()
    maps = cfg.component_maps
    for instrs in kept.values():  # a vector set to a constant: its components are constants
        for ins in instrs:  # until written again (`constant_flow`)
            if ins.dest is not None and not ins.reads and ins.op in ("alu", "copy"):
                wanted.add(ins.dest)
            m = maps.get(ins)
            if m:
                assert ins.dest is not None
                wanted.add(ins.dest)
                wanted.update(m)
    base: dict[Value, int] = {}
    owner: list[Value] = []
    for v in counted:
        if v in wanted and _vector(v):
            base[v] = len(owner)
            owner.extend([v] * v.width)
    if not base:
        return None
    comps = _ComponentLiveness(base, owner, partial, {})
    comps.maps = {ins: m for ins, m in maps.items() if ins.dest in base}
    # each block's instructions that touch a tracked vector (the walk skips the others), found
    # once rather than at every visit of the block
    touching: dict[int, list[Instr]] = {}
    for b, instrs in kept.items():
        mine: list[Instr] = []
        for ins in instrs:
            d = ins.dest
            if d is not None and d in base:
                mine.append(ins)
                continue
            for r in ins.reads:
                if r in base:
                    mine.append(ins)
                    break
        touching[b] = mine
        comps.touching.update(mine)
    # what a block reads depends on what is live after it: a worklist to the least fixed
    # point, the next block taken the first in postorder (after its successors but for loops'
    # back edges, as `ir.backward_live_in`), so that a sweep settles what it reaches (g_buffer's
    # main_ps: in block order from the end, 3.5 walks per block); the transfer is monotone,
    # so the solution is the same in any order
    succs = cfg.successors()
    preds = cfg.predecessors()
    order, rank = postorder_ranks(cfg)
    live_in = {b: 0 for b in kept}
    live_out = {b: 0 for b in kept}
    heap = sorted(rank[b] for b in kept)
    queued = [False] * len(order)
    for i in heap:
        queued[i] = True
    deadline = current()
    while heap:
        deadline.tick()
        i = heapq.heappop(heap)
        queued[i] = False
        b = order[i]
        comps.walks += 1
        out = 0
        for t in succs[b]:
            out |= live_in.get(t, 0)
        live_out[b] = out
        found = comps.walk(touching[b], out)
        if found != live_in[b]:
            live_in[b] = found
            for p in preds[b]:
                j = rank[p]
                if p in live_in and not queued[j]:
                    queued[j] = True
                    heapq.heappush(heap, j)
    comps.live_out = live_out
    return comps
