"""Passes over a lowered control-flow graph, run once before analysis: stage inputs moved to
their first use, repeated computations and fetches merged into the first (common
subexpressions), constant-buffer loads moved to their first use, the instructions no side
effect depends on (dead code), and the writes no later read sees (`unread_writes`)."""

from __future__ import annotations

from typing import Any

import networkx as nx

from hlsllint.analysis.ir import CFG, Instr, LoopRecord, Value, common_dominator, dominates, dominator_tree
from hlsllint.deadline import current

ROOT_OPS = frozenset({"preload", "store", "lds_store", "atomic", "export", "discard", "branch", "query"})
"""Instructions kept whatever reads their result: side effects, control flow, and what the
hardware preloads (those registers are filled when the wave starts). A stage input no one reads
is neither interpolated nor fetched."""


def sink_inputs(g: nx.DiGraph, instrs: list[Instr]) -> None:
    """Move each stage input's definition to just before its first use when every use is in
    one block: interpolants are interpolated, and thread IDs computed, where they are needed
    (only the preloaded registers, barycentrics or local IDs, are live from the start)."""
    inputs = [ins for ins in instrs if ins.op == "input" and ins.dest is not None]
    if not inputs:
        return
    readers: dict[Value, set[int]] = {ins.dest: set() for ins in inputs if ins.dest is not None}
    for ins in instrs:
        for r in ins.reads:
            found = readers.get(r)
            if found is not None:
                found.add(ins.block)
    for ins in inputs:
        blocks = readers.get(ins.dest) if ins.dest is not None else None
        if not blocks or len(blocks) != 1:
            continue
        (target,) = blocks
        src: list[Instr] = g.nodes[ins.block]["instrs"]
        dst: list[Instr] = g.nodes[target]["instrs"]
        src.remove(ins)
        at = next(i for i, x in enumerate(dst) if ins.dest in x.reads)
        dst.insert(at, ins)
        ins.block = target


def dead_instructions(instrs: list[Instr]) -> frozenset[Instr]:
    """Instructions no side effect depends on (aggressive dead-code elimination on values:
    unused struct members, loads whose result is never read, computations only feeding them)."""
    defs: dict[Value, list[Instr]] = {}
    # an instruction -> the holds just before it (`components.number_components`: what it
    # needs of an earlier value), kept with it
    holds: dict[Instr, list[Instr]] = {}
    pending: list[Instr] = []
    work: list[Instr] = []  # side effects, control flow (`ROOT_OPS`)
    for ins in instrs:
        d = ins.dest
        if d is not None:
            found = defs.get(d)
            if found is None:
                defs[d] = [ins]
            else:
                found.append(ins)
        op = ins.op
        if op == "hold":
            pending.append(ins)
            if ins.rule == "effect":
                work.append(ins)
            continue
        if pending:
            holds[ins] = pending
            pending = []
        if d is None or op in ROOT_OPS or ins.rule == "effect":
            work.append(ins)
    kept: set[Instr] = set()
    needed: set[Value] = set()
    deadline = current()
    while work:
        deadline.tick()
        ins = work.pop()
        if ins in kept:
            continue
        kept.add(ins)
        if holds:
            work.extend(holds.get(ins, ()))
        for r in ins.reads:
            if r not in needed:
                needed.add(r)
                work.extend(defs.get(r, ()))
    if len(kept) == len(instrs):
        return frozenset()
    return frozenset([i for i in instrs if i not in kept])


def forward_copies(g: nx.DiGraph, dropped: frozenset[Instr]) -> frozenset[Instr]:
    """Copies `r = s` whose next reader in their block is a compound assignment of `r`
    (`r += x`): the compound operation reads `s` instead, and the copy is returned to be
    dropped. In the compiler's SSA form there is no copy, `r` is the operation's result, so
    it holds no registers from the copy to the operation (regtruth: `float3 r = s; r += x;`
    of a wave-uniform `s` holds `s` in SGPRs to the addition, 18 presched VGPRs; 21 with `r`
    in VGPRs from the copy). Only a local variable's copy: a parameter bound to its argument
    (`Location -= 0.5` in an inlined helper) stays a copy, as the unrolled loops' holds
    (`unrolled.unrolled_holds`) were measured with it (forwarded, DiligentFX's SSR temporal
    accumulation holds `Dimensions - 1` through a 3x3 loop: 53 against 45 measured).
    `dropped`: instructions already dropped, left alone."""
    out: list[Instr] = []
    node_data: dict[int, dict[str, Any]] = g._node
    for b in g.nodes:
        block: list[Instr] = node_data[b]["instrs"]
        for i, ins in enumerate(block):
            if ins.op != "copy" or len(ins.reads) != 1 or ins in dropped:
                continue
            r, s = ins.dest, ins.reads[0]
            if r is None or r is s or r.kind != "var" or r.parts is not None or s.parts is not None:
                continue
            if r.symbol is None or r.symbol.kind != "local":
                continue  # a parameter's binding: see the docstring
            if r.width != s.width or not _whole_operand(ins.detail.get("sels"), s.width):
                continue
            for later in block[i + 1 :]:
                if later in dropped:
                    continue
                if r in later.reads or later.dest is r or later.dest is s:
                    if (
                        later.dest is r
                        and later.op == "alu"
                        and "copr" in later.detail
                        and later.reads.count(r) == 1
                    ):
                        later.reads = [s if x is r else x for x in later.reads]
                        out.append(ins)
                    break
    return frozenset(out)


def _whole_operand(sels: Any, width: int) -> bool:
    """Whether a copy's `sels` (one operand) take every component of a value of `width`."""
    if sels is None:
        return True
    if len(sels) != 1:
        return False
    o = sels[0]
    if o is None:
        return True
    if o[1] is None:
        return bool(o[3] == 0 or o[3] >= width)
    return tuple(o[1]) == tuple(range(width))


MAX_UNREAD_ROUNDS = 8
"""`unread_writes`' rounds: each frees what only the last round's writes read."""


def unread_writes(cfg: CFG) -> frozenset[Instr]:
    """Instructions besides `cfg.dead` whose result no later read sees (the value is written
    again, or never read, on every path from here): copies back into a struct after a call
    that took it `inout` where the caller reads the members only before the call, a variable
    overwritten before it is read. The compiler's SSA form has no such write, so neither has
    what only it reads (each member copied in and out of the call stays live across the
    call's body otherwise). Side effects and control flow always stay.

    In rounds: each finds the writes of a value written more than once that no later read
    sees (the others are dead code by `dead_instructions` already), by liveness over those
    values alone, and then what only the dropped writes read is dead code too
    (`dead_instructions` over what is left). Liveness is per value, and a value's stays the
    same while no instruction reading it is dropped (a dropped write of it had nothing live
    after it), so each round after the first follows only the values whose readers the last
    one dropped (SpartanEngine's entry points take up to 5 rounds)."""
    dead0 = cfg.dead
    order: list[Instr] = []  # the instructions besides cfg.dead, block by block (graph order)
    block_at: list[int] = []  # per instruction, its block's position in graph order
    # values by number; per instruction (by number) the values it reads and the one it
    # writes (-1: none); per value its writers and its readers, ascending
    number: dict[Value, int] = {}
    reads_of: list[list[int]] = []
    dest_of: list[int] = []
    writers: list[list[int]] = []
    readers: list[list[int]] = []
    # never an unread write: side effects, control flow, declarations (lists of bools, not
    # bytearrays: mypyc indexes a list natively, a bytearray through the generic protocol)
    keep: list[bool] = []
    roots: list[int] = []  # what `dead_instructions` starts from
    holds = False
    blocks = list(cfg.graph.nodes)
    for at_b, b in enumerate(blocks):
        for ins in cfg.instrs(b):
            if ins in dead0:
                continue
            i = len(order)
            order.append(ins)
            block_at.append(at_b)
            rs: list[int] = []
            for r in ins.reads:
                k = number.get(r)
                if k is None:
                    k = number[r] = len(writers)
                    writers.append([])
                    readers.append([])
                rs.append(k)
                readers[k].append(i)  # twice if it reads the value twice
            reads_of.append(rs)
            d = ins.dest
            if d is None:
                dest_of.append(-1)
            else:
                k = number.get(d)
                if k is None:
                    k = number[d] = len(writers)
                    writers.append([])
                    readers.append([])
                dest_of.append(k)
                writers[k].append(i)
            op = ins.op
            if op in ROOT_OPS or ins.rule == "effect":
                keep.append(True)
                roots.append(i)
            else:
                keep.append(op == "undef")
                if op == "hold":
                    holds = True
                elif d is None:
                    roots.append(i)
    wcount = [len(w) for w in writers]
    follow = [v for v in range(len(writers)) if wcount[v] > 1]
    if not follow:
        return frozenset()
    n = len(order)
    alive = [True] * n
    mark = [False] * n
    # per value: followed this round; read before written, written, live (in the block at hand)
    followed = [False] * len(writers)
    read = [False] * len(writers)
    written = [False] * len(writers)
    live = [False] * len(writers)
    # the graph's edges and the blocks reached (in the block at hand), by position
    at_of = {b: at_b for at_b, b in enumerate(blocks)}
    succs = cfg.successors()
    preds = cfg.predecessors()
    succ_at = [[at_of[x] for x in succs[b]] for b in blocks]
    pred_at = [[at_of[x] for x in preds[b]] for b in blocks]
    reached = [False] * len(blocks)
    kills = [False] * len(blocks)
    found: list[int] = []
    deadline = current()
    for _ in range(MAX_UNREAD_ROUNDS):
        index = [v for v in follow if wcount[v] > 1]
        if not index:
            break
        for v in index:
            followed[v] = True
        # the instructions reading or writing them, block by block in order
        touching: list[int] = []
        for v in index:
            for i in readers[v]:
                if alive[i] and not mark[i]:
                    mark[i] = True
                    touching.append(i)
            for i in writers[v]:
                if alive[i] and not mark[i]:
                    mark[i] = True
                    touching.append(i)
        touching.sort()
        # per block, where its run of `touching` starts and whether it writes one; per value,
        # the blocks that read it before writing it and the blocks that write it
        starts: list[int] = []
        writes_here: list[bool] = []
        exposed: dict[int, list[int]] = {}
        written_in: dict[int, list[int]] = {}
        at = 0
        while at < len(touching):
            deadline.tick()
            lo = at
            at_b = block_at[touching[at]]
            starts.append(at)
            writes = False
            while at < len(touching) and block_at[touching[at]] == at_b:
                i = touching[at]
                mark[i] = False
                for r_at in reads_of[i]:
                    if followed[r_at] and not written[r_at] and not read[r_at]:
                        read[r_at] = True
                        _append(exposed, r_at, at_b)
                w = dest_of[i]
                if w >= 0 and followed[w] and not written[w]:
                    written[w] = True
                    writes = True
                    _append(written_in, w, at_b)
                at += 1
            writes_here.append(writes)
            for t in range(lo, at):
                i = touching[t]
                for r_at in reads_of[i]:
                    read[r_at] = False
                if dest_of[i] >= 0:
                    written[dest_of[i]] = False
        starts.append(len(touching))
        # their liveness, value by value (most are live across a few blocks): from the blocks
        # that read one before writing it, backwards, up to the blocks that write it
        live_in: list[list[int]] = [[] for _ in blocks]  # by position: the values live into it
        for v, first in exposed.items():
            deadline.tick()
            stops = written_in.get(v, [])
            for at_b in stops:
                kills[at_b] = True
            work = list(first)
            for at_b in first:
                reached[at_b] = True
            met = list(first)
            while work:
                at_b = work.pop()
                live_in[at_b].append(v)
                for p in pred_at[at_b]:
                    if not reached[p] and not kills[p]:
                        reached[p] = True
                        met.append(p)
                        work.append(p)
            for at_b in met:
                reached[at_b] = False
            for at_b in stops:
                kills[at_b] = False
        # the writes nothing live after them reads (what a dropped write reads does not count)
        fresh: list[int] = []
        for s_at in range(len(starts) - 1):
            deadline.tick()
            if not writes_here[s_at]:
                continue
            lo = starts[s_at]
            at_b = block_at[touching[lo]]
            for x in succ_at[at_b]:
                for v in live_in[x]:
                    live[v] = True
            for t in range(starts[s_at + 1] - 1, lo - 1, -1):
                i = touching[t]
                w = dest_of[i]
                if w >= 0 and followed[w]:
                    if not live[w] and not keep[i]:
                        fresh.append(i)
                        continue
                    live[w] = False
                for r_at in reads_of[i]:
                    if followed[r_at]:
                        live[r_at] = True
            for x in succ_at[at_b]:
                for v in live_in[x]:
                    live[v] = False
            for t in range(lo, starts[s_at + 1]):
                for r_at in reads_of[touching[t]]:
                    live[r_at] = False
        for v in index:
            followed[v] = False
        if not fresh:
            break
        for i in fresh:
            alive[i] = False
            if dest_of[i] >= 0:
                wcount[dest_of[i]] -= 1
        swept = _unreached(order, alive, roots, reads_of, writers, holds)
        for i in swept:
            alive[i] = False
            if dest_of[i] >= 0:
                wcount[dest_of[i]] -= 1
        found.extend(fresh)
        found.extend(swept)
        # the next round follows the values whose readers this one dropped
        follow = []
        picked = [False] * len(writers)
        for group in (fresh, swept):
            for i in group:
                for r_at in reads_of[i]:
                    if not picked[r_at]:
                        picked[r_at] = True
                        follow.append(r_at)
    return frozenset([order[i] for i in found])


def _append(lists: dict[int, list[int]], key: int, item: int) -> None:
    """`lists[key].append(item)`, the list made on first use."""
    found = lists.get(key)
    if found is None:
        lists[key] = [item]
    else:
        found.append(item)


def _unreached(
    order: list[Instr],
    alive: list[bool],
    roots: list[int],
    reads_of: list[list[int]],
    writers: list[list[int]],
    holds: bool,
) -> list[int]:
    """`dead_instructions` over the instructions `alive` marks (by number)."""
    n = len(order)
    attached: dict[int, list[int]] = {}
    if holds:  # an instruction -> the holds just before it among those alive
        pending: list[int] = []
        for i in range(n):
            if alive[i]:
                if order[i].op == "hold":
                    pending.append(i)
                elif pending:
                    attached[i] = pending
                    pending = []
    reached = [False] * n
    needed = [False] * len(writers)
    work = [i for i in roots if alive[i]]
    deadline = current()
    while work:
        deadline.tick()
        i = work.pop()
        if reached[i]:
            continue
        reached[i] = True
        if holds:
            work.extend(attached.get(i, ()))
        for r in reads_of[i]:
            if not needed[r]:
                needed[r] = True
                for w in writers[r]:
                    if alive[w]:
                        work.append(w)
    return [i for i in range(n) if alive[i] and not reached[i]]


_CSE_OPS = frozenset({"cbload", "load", "sample", "gather", "alu", "intrinsic", "copy"})
"""What the compiler merges when it is computed again from the same values: pure arithmetic and
reads of memory no instruction of the shader writes."""
_SPAN_FREE = frozenset({"load", "sample", "gather"})
"""Ops whose identity is their operands and detail alone (not where they are written): a texel
fetched at the same coordinate by two helpers is one fetch."""


def common_values(
    g: nx.DiGraph,
    entry: int,
    instrs: list[Instr],
    viewed: set[Value] | frozenset[Value] = frozenset(),
    cache: dict[str, Any] | None = None,
    bound_views: set[Value] | None = None,
) -> frozenset[Instr]:
    """Instructions that recompute a value an instruction dominating them already computed
    (dominator-scoped value numbering, as the compiler's CSE does): reads of their result are
    redirected to the first, and they are returned to be dropped. Two helpers that load the same
    texels (`LoadColor(id)` in one and again in the other) load them once, and the first load
    stays live until the last use (regtruth: 20 VGPRs where separate loads were 16).
    Never merged: values written more than once (a variable assigned in a branch or a loop),
    reads of writable resources, and what reads a value some expression takes a part of
    (`viewed`: the IR names `p.yx` and `p.xy` alike). A resource's descriptor is loaded where
    it is first used and merged with its later loads, which it dominates: a texture sampled
    again after other textures keeps its descriptor (regtruth: presched_sgprs 26; 15 when the
    second sample reads another texture); two descriptors of one resource are the same
    operand. `bound_views` (`components.number_components`) gains what a value in it is merged
    into."""
    defs: dict[Value, int] = {}
    same: dict[Value, Value] = {}  # descriptor -> the first descriptor of its resource
    first: dict[tuple[str, int], Value] = {}
    member: dict[Value, Value] = {}  # a cbuffer member's load -> its first load
    first_member: dict[object, Value] = {}
    for ins in instrs:
        d = ins.dest
        if d is not None:
            defs[d] = defs.get(d, 0) + 1
            if ins.op == "descriptor":
                same[d] = first.setdefault((d.name, d.width), d)
            elif ins.op == "cbload":
                sig = ins.detail.get("sig") or ins.detail.get("cb_member")
                if sig is not None:
                    member[d] = first_member.setdefault(sig, d)
    written_twice = {v for v, n in defs.items() if n > 1}
    unmergeable = written_twice | set(viewed)  # as operands
    for v in written_twice:
        member.pop(v, None)
    by_member = {**same, **member} if member else same

    # Nothing repeats: nothing to merge (the common case, without building dominators).
    keys: dict[Instr, tuple[object, ...]] = {}
    seen: set[tuple[object, ...]] = set()
    repeats = False
    for ins in instrs:
        k = _cse_key(ins, written_twice, unmergeable, same, by_member)
        if k is not None:
            keys[ins] = k
            repeats = repeats or k in seen
            seen.add(k)
    if not repeats:
        return frozenset()
    idom = dominator_tree(g, entry, cache if cache is not None else {})
    children: dict[int, list[int]] = {}
    for b, dom in idom.items():
        if b != dom:
            children.setdefault(dom, []).append(b)
    alias: dict[Value, Value] = {}
    grew = False  # whether `unmergeable` gained a value during the walk
    dropped: set[Instr] = set()
    scope: dict[tuple[object, ...], Value] = {}
    added: dict[int, list[tuple[object, ...]]] = {}
    path: list[int] = []  # the dominator tree from its root to the block being visited
    node_data: dict[int, dict[str, Any]] = g._node  # not `g.nodes`, interpreted at each lookup
    stack = [entry]
    while stack:  # the dominator tree, depth first: what is in scope dominates the block
        b = stack.pop()
        stack.extend(children.get(b, ()))
        while path and path[-1] != idom[b]:
            for gone in added.pop(path.pop(), ()):
                del scope[gone]
        path.append(b)
        mine = added[b] = []
        block: list[Instr] = node_data[b]["instrs"]
        for ins in block:
            if alias and any(r in alias for r in ins.reads):
                ins.reads = [alias.get(r, r) for r in ins.reads]
                k = _cse_key(ins, written_twice, unmergeable, same, by_member)  # its operands changed
            else:
                k = keys.get(ins)
                if (
                    k is not None
                    and grew
                    and ins.detail.get("merge", ("",))[0] != "rcp"
                    and any(r in unmergeable for r in ins.reads)
                ):
                    k = None  # reads a value that became unmergeable after its key was made
            if k is None:
                continue
            d = ins.dest
            assert d is not None  # _cse_key() is None without one
            found = scope.get(k)
            if found is not None:
                alias[d] = found
                dropped.add(ins)
                if d in unmergeable:  # its views now read `found`
                    unmergeable.add(found)
                    grew = True
                if bound_views is not None and d in bound_views:
                    bound_views.add(found)
            else:
                scope[k] = d
                mine.append(k)
    if alias:
        for ins in instrs:
            if any(r in alias for r in ins.reads):
                ins.reads = [alias.get(r, r) for r in ins.reads]
    return frozenset(dropped)


def _cse_key(
    ins: Instr,
    written_twice: set[Value],
    unmergeable: set[Value],
    same: dict[Value, Value],
    by_member: dict[Value, Value],
) -> tuple[object, ...] | None:
    """What `common_values` merges `ins` by: equal keys, one value (None: never merged).
    An instruction the lowering names by what it computes (`merge`: a division's reciprocal,
    by the divisor's expression) is merged wherever it is computed from the same values, a
    view of them included (its expression names the part), and takes two loads of one cbuffer
    member as one operand (`by_member`)."""
    op = ins.op
    if op == "descriptor" and ins.dest is not None and not ins.reads:
        return (op, ins.dest.name, ins.dest.width)
    if op not in _CSE_OPS:
        return None
    d = ins.dest
    if d is None or d in written_twice or d.parts is not None:
        return None
    reads = ins.reads
    detail = ins.detail
    merge = detail.get("merge")
    if merge is not None:
        # a reciprocal's key names the part it reads: a view of its operand is no other value
        if any(r in (written_twice if merge[0] == "rcp" else unmergeable) for r in reads):
            return None
        return (op, merge, ins.rule, d.width, tuple([by_member.get(r, r) for r in reads]))
    for r in reads:
        if r in unmergeable:
            return None
    if op in _SPAN_FREE:
        res = reads[0].type.resource if reads else None
        if res is None or res.writable:
            return None
        where: object = detail.get("method")
    else:
        # the expression (its operator and constants), or for a member of a memory copy
        # loaded where it is read, the copy's (`lowering_access.memory_member`)
        where = detail.get("at", ins.span)
    # operands by identity (a Value compares by identity): no int made per operand; a
    # struct's member loads differ by the member they read; the constants an inlined copy
    # folded into the operation (`ops`, recorded with the components) tell `x * c` with c = 2
    # from the same expression with c = 3
    return (
        op,
        where,
        detail.get("member"),
        "at" in detail,
        ins.rule,
        d.width,
        tuple([same.get(r, r) for r in reads]),
        detail.get("ops"),
    )


def sink_constant_loads(
    g: nx.DiGraph,
    entry: int,
    instrs: list[Instr],
    dropped: frozenset[Instr],
    loops: list[LoopRecord],
    cache: dict[str, Any] | None = None,
) -> frozenset[Instr]:
    """Move each constant-buffer load to just before its first use, in the block that
    dominates every use (not into a loop the load is outside of), as the compiler sinks its
    reorderable uniform-buffer loads: a cbuffer row read into a local (`float4 v = k[i];`) or
    a struct of a cbuffer passed to a helper is loaded where it is used, not where it is
    written (regtruth: four rows read ahead of a 16-VGPR computation, 21 VGPRs; held from
    their declaration, 37). Loads of other buffers and textures stay where they are written
    (regtruth: 37 either way). Only loads whose value and operands are each set once move.
    A load only copied into a variable set once (`Camera c = cams[i];`, a member per load) loads
    into the variable itself, as the compiler's SSA form has no copy; the copies are returned,
    to be dropped."""
    defs: dict[Value, int] = {}
    for ins in instrs:
        if ins.dest is not None and ins not in dropped:
            defs[ins.dest] = defs.get(ins.dest, 0) + 1
    loads = [
        ins
        for ins in instrs
        if ins.op == "cbload"
        and ins not in dropped
        and ins.dest is not None
        and ins.dest.parts is None
        and defs.get(ins.dest) == 1
        and all(defs.get(r, 0) <= 1 for r in ins.reads)
    ]
    if not loads:
        return frozenset()
    readers: dict[Value, list[Instr]] = {ins.dest: [] for ins in loads if ins.dest is not None}
    for ins in instrs:
        if ins in dropped:
            continue
        for r in ins.reads:
            found = readers.get(r)
            if found is not None:
                found.append(ins)
    copies: set[Instr] = set()
    for ins in loads:
        src = ins.dest
        uses = readers.get(src) if src is not None else None
        if src is None or src.kind != "temp" or not uses or len(uses) != 1:
            continue
        c = uses[0]
        d = c.dest
        if c.op != "copy" or c.block != ins.block or len(c.reads) != 1 or d is None or d.parts is not None:
            continue
        if defs.get(d) != 1 or d.width != src.width or d in readers:
            continue
        ins.dest = d  # the load sets the variable; the copy goes
        copies.add(c)
        readers[d] = []
    if copies:
        renamed = {c.dest for c in copies}
        for ins in instrs:
            if ins in dropped or ins in copies:
                continue
            for r in ins.reads:
                if r in renamed:
                    readers[r].append(ins)
    idom: dict[int, int] | None = None
    kept_loops = [loop.blocks for loop in loops if loop.dynamic]
    deadline = current()
    before: dict[Instr, list[Instr]] = {}  # instruction -> loads moved to just before it
    at_end: dict[int, list[Instr]] = {}  # block -> loads moved to its end
    moved: set[Instr] = set()
    touched: set[int] = set()
    for ins in loads:
        deadline.tick()
        uses = readers.get(ins.dest) if ins.dest is not None else None
        if not uses:
            continue
        blocks = {u.block for u in uses}
        target: int | None = ins.block
        if blocks != {ins.block}:
            if idom is None:
                idom = dominator_tree(g, entry, cache if cache is not None else {})
            target = common_dominator(idom, blocks)
            if target is None or not dominates(idom, ins.block, target):
                continue
            while target != ins.block and any(target in lb and ins.block not in lb for lb in kept_loops):
                target = idom[target]
        if target is None:
            continue
        in_target = [u for u in uses if u.block == target]
        if in_target:
            order = {id(x): i for i, x in enumerate(g.nodes[target]["instrs"])} if len(in_target) > 1 else {}
            first = min(in_target, key=lambda u: order.get(id(u), 0))
            before.setdefault(first, []).append(ins)
        else:
            at_end.setdefault(target, []).append(ins)
        moved.add(ins)
        touched.add(ins.block)
        touched.add(target)
        ins.block = target
    for b in touched:
        old: list[Instr] = g.nodes[b]["instrs"]
        new: list[Instr] = []
        for x in old:
            if x not in moved:
                _place(x, before, new)
        tail = at_end.get(b)
        if tail:
            branch = new.pop() if new and new[-1].op == "branch" else None
            for x in tail:
                _place(x, before, new)
            if branch is not None:
                new.append(branch)
        old[:] = new
    return frozenset(copies)


def _place(ins: Instr, before: dict[Instr, list[Instr]], out: list[Instr]) -> None:
    """Append `ins` to `out`, after the loads moved to just before it (and theirs)."""
    for x in before.get(ins, ()):
        _place(x, before, out)
    out.append(ins)
