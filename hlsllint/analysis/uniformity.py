"""Uniformity: which values are the same for every lane of a wave (SGPR) and which are per-lane
(VGPR).

`uniformity(cfg) -> Uniformity`. Sources of divergence are the instructions whose rule is `lane`
(thread-ID inputs, VS/PS inputs, typed loads and samples even at a uniform address, groupshared
loads, lane-index and prefix intrinsics); `uniform` instructions (cbuffer loads, SV_GroupID,
WaveReadLaneFirst, WaveActive* reductions) are uniform whatever they read; `pure` ones are uniform
when all their operands are; `readlane` (WaveReadLaneAt) when the lane index is.

Control divergence: a branch on a per-lane condition makes every variable assigned between the
branch and its immediate post-dominator per-lane (the merge of different lanes' values; this also
covers loops with a per-lane exit, whose carried variables diverge). The two steps repeat until
nothing changes.

Two questions, one lattice (`question=`):
- `"sgpr"` (the default; the pressure model's): is the value held in SGPRs? Typed loads, samples
  and groupshared loads fill VGPRs even at a uniform address.
- `"value"` (the rules'): is it the same value in every lane? A load at a uniform address is.
Calls that are not inlined are per-lane unless the intrinsic table says otherwise (ray-tracing
system values, unknown functions, struct methods); their out/inout arguments and a `TraceRay`
payload are written per lane (the CFG builder emits those writes). Code no path from the entry
reaches is answered "not uniform" (`unreachable`), never "uniform".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import networkx as nx

from hlsllint.analysis.ir import CFG, Dominance, Instr, Value, dominance, immediate_dominators
from hlsllint.deadline import current


@dataclass
class Uniformity:
    divergent: set[Value]
    """Per-lane values."""
    divergent_instrs: set[Instr]
    """Instructions whose result is per-lane (computed from their operands at that point)."""
    divergent_branches: set[int]
    """Blocks ending in a branch on a per-lane condition."""
    divergent_blocks: dict[int, int] = field(default_factory=dict)
    """Blocks under divergent control flow -> nesting depth of divergent branches."""
    unreachable: frozenset[int] = frozenset()
    """Blocks no path from the entry reaches (code after a `return`, `break` or `continue`)."""

    def is_uniform(self, value: Value | None) -> bool:
        """Literals and constants (None) are uniform; a struct when all its members are."""
        if value is not None and value.parts is not None:
            return all(self.is_uniform(p) for p in value.parts)
        return value is None or value not in self.divergent

    def is_uniform_instr(self, ins: Instr) -> bool:
        return ins not in self.divergent_instrs and ins.block not in self.unreachable


Question = Literal["sgpr", "value"]
_VECTOR_FETCHES = frozenset({"load", "sample", "gather", "lds_load"})
"""Fetches that fill VGPRs whatever their address: the same value in every lane when it is uniform."""


def post_dominators(cfg: CFG) -> dict[int, int]:
    """Immediate post-dominators (blocks that cannot reach the exit post-dominate to it)."""
    found: dict[int, int] | None = cfg.cache.get("ipdom")
    if found is not None:
        return found
    succs = cfg.successors()
    if _all_reach_the_exit(cfg, succs):
        # The common case needs no sink: the dominators of the reversed graph from the exit,
        # read through a view of the CFG's graph (no copy).
        graph = cfg.graph
        node_succ: dict[int, dict[int, Any]] = graph._succ
        node_pred: dict[int, dict[int, Any]] = graph._pred
        result = immediate_dominators(node_pred, node_succ, cfg.exit)
        result[cfg.exit] = cfg.exit
        cfg.cache["ipdom"] = result
        return result
    rev = nx.DiGraph()
    rev.add_nodes_from(succs)
    rev.add_edges_from((b, a) for a, outs in succs.items() for b in outs)
    sink = -1
    rev.add_edge(sink, cfg.exit)
    rev.add_edges_from((sink, b) for b, outs in succs.items() if b != cfg.exit and not outs)
    # blocks in infinite loops never reach the exit: let them reach the sink too
    reach = nx.descendants(rev, sink)
    rev.add_edges_from((sink, b) for b in succs if b not in reach)
    idom: dict[int, int] = nx.immediate_dominators(rev, sink)
    result = {b: (d if d != sink else cfg.exit) for b, d in idom.items() if b != sink}
    cfg.cache["ipdom"] = result
    return result


def _all_reach_the_exit(cfg: CFG, succs: dict[int, list[int]]) -> bool:
    """Does every block reach the exit, and has every other block a successor (no infinite
    loop, no dead end)? Then the exit post-dominates every block and no sink is needed."""
    exit_block = cfg.exit
    if exit_block not in succs:
        return False
    for b, outs in succs.items():
        if not outs and b != exit_block:
            return False
    preds = cfg.predecessors()
    seen = {exit_block}
    stack = [exit_block]
    while stack:
        for p in preds[stack.pop()]:
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return len(seen) == len(succs)


def divergent_region(cfg: CFG, branch: int, ipdom: dict[int, int]) -> set[int]:
    """Blocks reached from `branch` before its immediate post-dominator."""
    succs = cfg.successors()
    stop = ipdom.get(branch, cfg.exit)
    seen: set[int] = set()
    stack = [s for s in succs[branch] if s != stop]
    deadline = current()
    while stack:
        deadline.tick()
        b = stack.pop()
        if b in seen or b == stop:
            continue
        seen.add(b)
        stack.extend(succs[b])
    return seen


class _Index:
    """What both uniformity questions read: every instruction, the readers of each value, the
    blocks ending in a conditional branch, and the divergent region of each such branch."""

    def __init__(self, cfg: CFG) -> None:
        self.instrs = cfg.all_instrs()
        readers: dict[Value, list[Instr]] = {}
        # Per-lane whatever they read: the sources of divergence (every other instruction is
        # per-lane only once something it reads is, and is reached through `readers` then).
        self.lane_fetches: list[Instr] = []
        """Vector fetches: per-lane for the "sgpr" question only."""
        self.lane_others: list[Instr] = []
        vector_fetches = _VECTOR_FETCHES
        for ins in self.instrs:
            for r in ins.reads:
                found = readers.get(r)
                if found is None:
                    readers[r] = [ins]
                else:
                    found.append(ins)
            if ins.rule == "lane":
                (self.lane_fetches if ins.op in vector_fetches else self.lane_others).append(ins)
        self.readers = readers
        succs = cfg.successors()
        self.branches: dict[int, Instr] = {}
        for b in cfg.graph.nodes:
            block_instrs = cfg.instrs(b)
            if block_instrs and block_instrs[-1].op == "branch" and len(succs[b]) > 1:
                self.branches[b] = block_instrs[-1]
        self.regions: dict[int, set[int]] = {}
        self.region_vars: dict[int, list[Value]] = {}
        """Branch block -> the variables its region defines (in instruction order)."""
        # No reference to `cfg`: this is kept in its cache, and a reference back would make a
        # cycle that only the garbage collector can free (the methods take the CFG instead).
        self.ipdom: dict[int, int] | None = None
        """Immediate post-dominators, computed once when a branch's region is first asked for."""
        self.value_answer: Uniformity | None = None
        """The `"value"` question's answer once computed: the `"sgpr"` question starts from it."""
        self.n_defs: dict[Value, int] | None = None
        """How many instructions set each value (`_read_where_set`, computed when first asked)."""
        self.dom: Dominance | None = None
        self.loops_around: dict[int, int] = {}
        """Block -> the loops its block is in, as bits (loop i: bit i), for `_read_where_set`."""
        self.read_where_set: dict[Instr, bool] = {}
        """`_read_where_set` per instruction (it reads nothing of the branch asking)."""
        self.positions: dict[int, dict[int, int]] = {}
        """Block -> id of each of its instructions -> its place in the block."""
        self.var_writes: dict[int, list[tuple[Instr, Value, int]]] = {}
        """Block -> `_var_writes`, computed when first asked."""
        self.bits: dict[int, int] = {}
        """Block -> its bit in a set of blocks held as an int (`reach`)."""
        self.reach: dict[int, int] | None = None
        """Block -> the blocks reachable from it, itself included, as bits (`_reachable`)."""

    def region(self, cfg: CFG, b: int) -> set[int]:
        found = self.regions.get(b)
        if found is None:
            if self.ipdom is None:
                self.ipdom = post_dominators(cfg)
            found = self.regions[b] = divergent_region(cfg, b, self.ipdom)
        return found

    def vars_defined(self, cfg: CFG, b: int) -> list[Value]:
        """The variables the region of branch `b` assigns that are read where lanes from its
        different sides meet again (at a join or after it). A variable assigned after a per-lane
        early `return` is read only by the lanes that stayed, which all took the same side: it
        stays uniform (regtruth: a cbuffer matrix picked by a uniform `?:` after a per-lane
        `return` stays in SGPRs)."""
        found = self.region_vars.get(b)
        if found is None:
            found = []
            after = self._after_joins(cfg, b)
            known = self.read_where_set
            for blk in self.region(cfg, b):
                for ins, d, read_in in self._var_writes(cfg, blk):
                    if not after & read_in:
                        continue
                    where = known.get(ins)
                    if where is None:
                        where = known[ins] = self._read_where_set(cfg, ins, self.readers[d])
                    if not where:
                        found.append(d)
            self.region_vars[b] = found
        return found

    def _var_writes(self, cfg: CFG, blk: int) -> list[tuple[Instr, Value, int]]:
        """The block's instructions that set a variable something reads, each with that
        variable and the blocks of its readers as bits (`bits`), in instruction order."""
        found = self.var_writes.get(blk)
        if found is None:
            self._reachable(cfg)  # numbers the blocks
            bits = self.bits
            found = []
            for ins in cfg.instrs(blk):
                d = ins.dest
                if d is None or d.kind != "var":
                    continue
                rs = self.readers.get(d)
                if not rs:
                    continue
                read_in = 0
                for r in rs:
                    bit = bits.get(r.block)
                    if bit is not None:
                        read_in |= 1 << bit
                found.append((ins, d, read_in))
            self.var_writes[blk] = found
        return found

    def _read_where_set(self, cfg: CFG, ins: Instr, readers: list[Instr]) -> bool:
        """Is the variable `ins` sets set only there and read only where that setting reaches
        every lane that reads it: after it in its block or in blocks it dominates, inside every
        loop around it (the same iteration)? Then no lanes' values meet: it is per-lane only if
        what it is computed from is (an inlined method's result in a per-lane branch of a
        run-time loop, `light.GetMatrixIndex()` of a cbuffer light, stays in SGPRs)."""
        if self.n_defs is None:
            n_defs: dict[Value, int] = {}
            for x in self.instrs:
                if x.dest is not None:
                    n_defs[x.dest] = n_defs.get(x.dest, 0) + 1
            self.n_defs = n_defs
            self.dom = dominance(cfg.graph, cfg.entry, cfg.cache)
            around_of = self.loops_around
            for i, loop in enumerate(cfg.loops):
                for b in loop.blocks:
                    around_of[b] = around_of.get(b, 0) | 1 << i
        d = ins.dest
        if d is None or self.n_defs.get(d) != 1:
            return False
        around = self.loops_around.get(ins.block, 0)
        order: dict[int, int] | None = None
        for r in readers:
            if around & ~self.loops_around.get(r.block, 0):
                return False  # outside a loop around the setting: another iteration's value
            if r.block == ins.block:
                if order is None:
                    order = self.positions.get(ins.block)
                    if order is None:
                        order = self.positions[ins.block] = {
                            id(x): i for i, x in enumerate(cfg.instrs(ins.block))
                        }
                if order.get(id(r), -1) <= order.get(id(ins), -1):
                    return False
            elif self.dom is None or not self.dom.dominates(ins.block, r.block):
                return False
        return True

    def _after_joins(self, cfg: CFG, b: int) -> int:
        """The blocks where lanes that left `b` by different successors meet again (reached from
        two of them before its post-dominator, or the post-dominator), and every block after, as
        bits (`bits`)."""
        succs = cfg.successors()
        if self.ipdom is None:
            self.ipdom = post_dominators(cfg)
        stop = self.ipdom.get(b, cfg.exit)
        reach = self._reachable(cfg)
        outs = list(set(succs[b]))
        stop_bit = self.bits.get(stop)
        if stop_bit is not None and sum((reach[s] >> stop_bit) & 1 for s in outs) > 1:
            # Two sides reach the post-dominator, so it is a meeting and all after it is too:
            # a block two sides reach is then a meeting or after one (reached through the
            # post-dominator), and every block after a meeting is reached from both its sides.
            # The answer is the blocks two sides reach, with no walk.
            after = 0
            for i, s in enumerate(outs):
                for t in outs[i + 1 :]:
                    after |= reach[s] & reach[t]
            return after
        deadline = current()
        sides: dict[int, int] = {}
        for s in set(succs[b]):
            seen: set[int] = set()
            stack = [s]
            while stack:
                deadline.tick()
                x = stack.pop()
                if x in seen:
                    continue
                seen.add(x)
                if x != stop:
                    stack.extend(succs[x])
            for x in seen:
                sides[x] = sides.get(x, 0) + 1
        after = 0
        for x, n in sides.items():
            if n > 1:
                after |= reach[x]
        return after

    def _reachable(self, cfg: CFG) -> dict[int, int]:
        """Block -> every block a path from it reaches, itself included, as bits (`bits`), once
        per CFG (`reachable_bits`): a branch's `_after_joins` is then a union of a few of them
        rather than a walk to the exit, for every branch."""
        found = self.reach
        if found is None:
            succs = cfg.successors()
            bits = self.bits
            for i, blk in enumerate(succs):
                bits[blk] = i
            found = self.reach = reachable_bits(succs, bits)
        return found


def reachable_bits(succs: dict[int, list[int]], bits: dict[int, int]) -> dict[int, int]:
    """Block -> the blocks a path from it reaches, itself included, as a set of `bits`: the
    least solution of "a block reaches itself and what its successors reach", by one pass over
    the strongly connected components (Tarjan's, which finishes a component after every
    component it reaches): the blocks of a component reach the same blocks, its own and what
    the edges leaving it reach, each union taken once (not a sweep of every block per loop
    nesting level until nothing changes)."""
    found = {blk: 0 for blk in succs}  # the blocks' order
    number: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on_stack: set[int] = set()
    deadline = current()
    for root in succs:
        if root in number:
            continue
        number[root] = low[root] = len(number)
        stack.append(root)
        on_stack.add(root)
        work: list[tuple[int, int]] = [(root, 0)]
        while work:
            deadline.tick()
            v, k = work[-1]
            outs = succs[v]
            if k < len(outs):
                work[-1] = (v, k + 1)
                w = outs[k]
                if w not in number:
                    number[w] = low[w] = len(number)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, 0))
                elif w in on_stack and number[w] < low[v]:
                    low[v] = number[w]
                continue
            work.pop()
            if work:
                u = work[-1][0]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] != number[v]:
                continue
            # `v` roots a component: its blocks are on the stack down to it
            members: list[int] = []
            own = 0
            while True:
                w = stack.pop()
                on_stack.discard(w)
                members.append(w)
                own |= 1 << bits[w]
                if w == v:
                    break
            mask = own
            for w in members:
                for t in succs[w]:
                    if not own >> bits[t] & 1:
                        mask |= found[t]  # a component finished before this one
            for w in members:
                found[w] = mask
    return found


def _index(cfg: CFG) -> _Index:
    found: _Index | None = cfg.cache.get("uniformity_index")
    if found is None:
        found = cfg.cache["uniformity_index"] = _Index(cfg)
    return found


def uniformity(cfg: CFG, question: Question = "sgpr") -> Uniformity:
    index = _index(cfg)
    readers = index.readers
    branches = index.branches
    value_question = question == "value"
    seed = index.value_answer
    if not value_question and seed is not None:
        # Every value the "value" question finds per-lane is per-lane in SGPR terms too (the
        # only difference: vector fetches at a uniform address are per-lane there), so the
        # "sgpr" answer is the same fixpoint continued from it with those fetches.
        div = set(seed.divergent)
        div_instrs = set(seed.divergent_instrs)
        div_branches = set(seed.divergent_branches)
        work = [ins for ins in index.lane_fetches if ins not in div_instrs]
    else:
        div = set()
        div_instrs = set()
        div_branches = set()
        # the least fixpoint from the sources of divergence
        work = list(index.lane_others) if value_question else index.lane_others + index.lane_fetches
    deadline = current()
    while True:
        while work:
            deadline.tick()
            ins = work.pop()
            if ins in div_instrs:
                continue
            rule = ins.rule
            if rule == "lane" and value_question and ins.op in _VECTOR_FETCHES:
                rule = "pure"
            if rule == "lane":
                pass
            elif rule in ("uniform", "effect"):
                continue
            elif rule == "readlane":
                if not (len(ins.reads) > 1 and ins.reads[1] in div):
                    continue
            else:  # pure: per-lane when an operand is
                for r in ins.reads:
                    if r in div:
                        break
                else:
                    continue
            div_instrs.add(ins)
            d = ins.dest
            if d is not None and d.reg_class != "sgpr" and d not in div:
                div.add(d)
                found = readers.get(d)
                if found:
                    work.extend(found)
        changed = False
        for b, br in branches.items():
            if b in div_branches or br not in div_instrs:
                continue
            deadline.check()
            div_branches.add(b)
            for d in index.vars_defined(cfg, b):
                if d not in div:
                    div.add(d)
                    found = readers.get(d)
                    if found:
                        work.extend(found)
                    changed = True
        if not changed and not work:
            break
    depth: dict[int, int] = {}
    for branch_block in div_branches:
        deadline.check()
        for node in index.region(cfg, branch_block):
            depth[node] = depth.get(node, 0) + 1
    # an instruction that defines a variable forced per-lane still computes a uniform value there
    answer = Uniformity(div, div_instrs, div_branches, depth, cfg.unreachable)
    if value_question:
        index.value_answer = answer
    return answer
