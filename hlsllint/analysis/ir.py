"""The instructions a control-flow graph is made of: values, instructions, loops, the graph.

Built by `hlsllint.analysis.cfg.build_cfg`; read by uniformity, liveness and the rules.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from hlsllint.deadline import current
from hlsllint.semantic import types as T
from hlsllint.semantic.symbols import EntryPoint, Symbol

Span = tuple[int, int]

FETCH_OPS = frozenset({"sample", "gather", "load"})


class Value:
    """Compared by identity. A plain class with its own `__init__` rather than a dataclass: a
    compiled dataclass keeps the `__init__` that `dataclasses` generates in Python, and lowering
    makes tens of thousands of values per unit."""

    id: int
    name: str
    width: int
    """Size in 32-bit components."""
    kind: str
    """`var`, `temp`, `input`, `preload`, `resource`."""
    type: T.Type
    symbol: Symbol | None
    reg_class: str | None
    """Forced class (`sgpr` for descriptors and scalar preloads, `scratch` for arrays too large
    for registers), else by uniformity."""
    parts: list[Value] | None
    """For a struct-typed expression (a whole local read, an inlined call's result, a struct
    loaded from a buffer): its member values. Such a value is never defined or read by an
    instruction: `emit` reads its members instead, and a member access picks one, so a struct
    that is only partly read costs only the members read."""

    def __init__(
        self,
        id: int,
        name: str,
        width: int,
        kind: str,
        type: T.Type = T.UNKNOWN,
        symbol: Symbol | None = None,
        reg_class: str | None = None,
        parts: list[Value] | None = None,
    ) -> None:
        self.id = id
        self.name = name
        self.width = width
        self.kind = kind
        self.type = type
        self.symbol = symbol
        self.reg_class = reg_class
        self.parts = parts

    def __repr__(self) -> str:
        return f"%{self.id}:{self.name}[{self.width}]"


class Instr:
    """Compared by identity; a plain class for the reason `Value` is."""

    op: str
    """`input`, `preload`, `descriptor`, `undef` (a declaration without a value), `alu`, `copy`,
    `cbload`, `load`, `sample`, `gather`, `lds_load`,
    `lds_store`, `store`, `atomic`, `query`, `intrinsic`, `call`, `branch`, `export`, `discard`,
    `hold` (reads what the next instruction needs of an earlier value's components:
    `components.number_components`)."""
    dest: Value | None
    reads: list[Value]
    span: Span
    rule: str
    """Uniformity of the result: `pure` (uniform iff every read is), `uniform`, `lane`,
    `readlane` (uniform iff the second read is)."""
    detail: dict[str, Any]
    """For fetches: `resource` (name), `typed`, `method`. For a store of a `float` into a typed
    resource: `splat`, the value stored (None for a constant): the texel is written as four
    copies of it (the SPIR-V front end's `float4(v)`; regtruth: `RWTexture2D<float>` 6
    presched VGPRs where `RWTexture2D<uint>` takes 3)."""
    block: int

    def __init__(
        self,
        op: str,
        dest: Value | None,
        reads: list[Value],
        span: Span,
        rule: str = "pure",
        detail: dict[str, Any] | None = None,
        block: int = 0,
    ) -> None:
        self.op = op
        self.dest = dest
        self.reads = reads
        self.span = span
        self.rule = rule
        self.detail = {} if detail is None else detail
        self.block = block

    @property
    def is_fetch(self) -> bool:
        return self.op in FETCH_OPS

    def __repr__(self) -> str:
        return f"{self.dest!r} = {self.op} {self.reads!r}"


@dataclass
class LoopRecord:
    span: Span
    kind: str
    """`for`, `while` or `do`."""
    header: int
    blocks: frozenset[int]
    attributes: tuple[str, ...]
    trip_count: int | None

    @property
    def dynamic(self) -> bool:
        """True when the loop really loops at run time: `[loop]`, or a trip count that is not a
        compile-time constant (what is computed from its counter changes every iteration)."""
        return "loop" in self.attributes or self.trip_count is None


@dataclass
class CFG:
    entry_point: EntryPoint
    graph: nx.DiGraph
    entry: int
    exit: int
    values: list[Value]
    loops: list[LoopRecord]
    expr: dict[Span, list[Instr | Value | None]]
    """Expression span -> what computed it (an instruction, a value read, or None for a
    constant); an inlined function's expressions have one entry per call site."""
    stage: str
    truncated: bool = False
    """True when lowering stopped early (instruction cap, recursion)."""
    unreachable: frozenset[int] = frozenset()
    """Blocks no path from the entry reaches (code after a `return`, `break`, `continue`); they
    are removed from the graph, but their expressions stay in `expr`."""
    preloaded_vgprs: int = 0
    """VGPRs the hardware fills before the first instruction (all live when the wave starts)."""
    dead: frozenset[Instr] = frozenset()
    """Instructions whose result reaches no output, store or other side effect, or that write
    a value no later read sees (`passes.unread_writes`): the compiler does not compute them,
    so liveness skips them (the rules still see them)."""
    replayed: int = 0
    """Inlined bodies replayed from an earlier lowering rather than walked again (`_body`)."""
    reused: int = 0
    """Inlined bodies replayed from the lowering of the unit's last version (`lowering_reuse`)."""
    shared_components: dict[Value, tuple[int, int]] = field(default_factory=dict, repr=False, compare=False)
    """Value -> (its components an earlier value computed already, its components that are
    compile-time constants), from `components.number_components`: the first are that value's
    registers, held for it by extracts, the others folded; neither takes a register of its
    own."""
    component_reads: dict[Instr, dict[Value, int]] = field(default_factory=dict, repr=False, compare=False)
    """Instruction -> the vectors it reads only some components of -> those components (bit
    i: component i), from the operands' swizzles the lowering records (`ops`, `picks`) and
    component writes (`set`: the components kept); `component_liveness.component_reads`. Every other
    read reads the whole value."""
    views: frozenset[Value] = field(default=frozenset(), repr=False, compare=False)
    """Values some expression reads a part or a reordering of (`v.rgb`) under the value's own
    name: an instruction that does not record its operands' components (a fetch's
    coordinates) reads the view and the whole alike (`repeated_nests`)."""
    bound_views: frozenset[Value] = field(default=frozenset(), repr=False, compare=False)
    """Values an inlined call's parameter is bound to a view of (`f(id.yx)`: `p` is `id`,
    read as `p`): what the callee computes from them names no view at all."""
    component_maps: dict[Instr, dict[Value, list[int]]] = field(
        default_factory=dict, repr=False, compare=False
    )
    """Component-wise instruction -> the vectors it reads -> per component of its result the
    components of that vector it reads (bit i: component i); `component_liveness.component_maps`."""
    cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Derived facts the analyses share (successor lists, def-use indexes...), computed on first
    use; the graph and its instructions must not change once it is filled."""

    def instrs(self, block: int) -> list[Instr]:
        result: list[Instr] = self.graph.nodes[block]["instrs"]
        return result

    def live_instrs(self, block: int) -> list[Instr]:
        """The block's instructions that the compiler keeps (see `dead`)."""
        return self.kept_instrs()[block]

    def kept_instrs(self) -> dict[int, list[Instr]]:
        """Block -> the instructions the compiler keeps (see `dead`), every block in graph order."""
        found: dict[int, list[Instr]] | None = self.cache.get("kept")
        if found is None:
            nodes = self.graph.nodes
            dead = self.dead
            if dead:
                found = {b: [i for i in nodes[b]["instrs"] if i not in dead] for b in nodes}
            else:
                found = {b: nodes[b]["instrs"] for b in nodes}
            self.cache["kept"] = found
        return found

    def successors(self) -> dict[int, list[int]]:
        """Block -> its successors (graph order), every block."""
        return self._neighbours("succs", self.graph._succ)

    def predecessors(self) -> dict[int, list[int]]:
        """Block -> its predecessors (graph order), every block."""
        return self._neighbours("preds", self.graph._pred)

    def _neighbours(self, key: str, adjacency: dict[int, dict[int, Any]]) -> dict[int, list[int]]:
        """From the graph's own dictionaries (`g._succ`, `g._pred`, a block's neighbours in
        graph order): networkx's views of them (`g.adj`, `g.pred`) run interpreted code at every
        lookup (SpartanEngine, 8 files: 65M instructions, compiled)."""
        found: dict[int, list[int]] | None = self.cache.get(key)
        if found is None:
            found = self.cache[key] = {b: list(adjacency[b]) for b in self.graph._node}
        return found

    def all_instrs(self) -> list[Instr]:
        out: list[Instr] = []
        for b in sorted(self.graph.nodes):
            out.extend(self.instrs(b))
        return out


COMPONENTWISE_INTRINSICS = frozenset(
    {
        "abs", "saturate", "min", "max", "clamp", "lerp", "frac", "floor", "ceil", "round",
        "trunc", "sqrt", "rsqrt", "rcp", "exp", "exp2", "log", "log2", "sin", "cos", "sign",
        "pow", "step", "smoothstep", "mad", "fma",
    }
)  # fmt: skip
"""Intrinsics whose result component i reads only component i of each vector operand (the
liveness by component and the value classes ask it of an `intrinsic` instruction)."""


def dominator_tree(g: nx.DiGraph, entry: int, cache: dict[str, Any]) -> dict[int, int]:
    """`networkx.immediate_dominators(g, entry)`, kept in `cache` (a CFG's, or the passes' before
    the CFG is made): value numbering, the constant loads' sinking, uniformity and the unrolled
    loops' value classes each ask for it, and no pass changes the graph's edges (SpartanEngine
    `g_buffer`'s pixel shader, 1,003 blocks: about 9 ms each time, compiled)."""
    found: dict[int, int] | None = cache.get("idom")
    if found is None:
        node_succ: dict[int, dict[int, Any]] = g._succ
        node_pred: dict[int, dict[int, Any]] = g._pred
        found = immediate_dominators(node_succ, node_pred, entry)
        cache["idom"] = found
    return found


def immediate_dominators(
    succ: dict[int, dict[int, Any]], pred: dict[int, dict[int, Any]], start: int
) -> dict[int, int]:
    """`networkx.immediate_dominators(G, start)` of the graph whose successors and predecessors
    are `succ` and `pred` (a `DiGraph`'s `_succ` and `_pred`; swapped, its reverse): the same
    answer, every block `start` reaches but `start` mapped to its immediate dominator, in the
    same order (reverse postorder), by the same algorithm (Cooper, Harvey and Kennedy's
    iteration over the depth-first postorder networkx's `dfs_postorder_nodes` gives, successors
    in their order), compiled rather than networkx's interpreted loops (g_buffer's main_ps,
    1,003 blocks: the dominators and the post-dominators of every edit)."""
    if start not in succ:
        raise nx.NetworkXError("start is not in G")
    order: list[int] = []  # depth-first postorder
    visited = {start}
    stack: list[tuple[int, list[int], int]] = [(start, list(succ[start]), 0)]
    while stack:
        parent, children, k = stack[-1]
        while k < len(children) and children[k] in visited:
            k += 1
        if k < len(children):
            child = children[k]
            stack[-1] = (parent, children, k + 1)
            visited.add(child)
            stack.append((child, list(succ[child]), 0))
        else:
            stack.pop()
            order.append(parent)
    dfn = {u: i for i, u in enumerate(order)}
    order.pop()
    order.reverse()
    idom: dict[int, int] = {start: start}
    changed = True
    while changed:
        changed = False
        for u in order:
            new = start
            first = True
            for v in pred[u]:
                if v not in idom:
                    continue
                if first:
                    new = v
                    first = False
                    continue
                a = new  # the two fingers of `intersect`, up the tree to their meeting
                while a != v:
                    while dfn[a] < dfn[v]:
                        a = idom[a]
                    while dfn[a] > dfn[v]:
                        v = idom[v]
                new = a
            if first:
                raise TypeError("reduce() of empty iterable with no initial value")
            if u not in idom or idom[u] != new:
                idom[u] = new
                changed = True
    del idom[start]
    return idom


class Dominance:
    """O(1) dominance queries: each block of the dominator tree numbered on entry and on exit
    of a depth-first walk of the tree, so that `a` dominates `b` when `b`'s numbers lie within
    `a`'s (rather than a walk up the tree from `b` for every question). Made once per CFG
    (`dominance`) from its dominator tree."""

    def __init__(self, idom: dict[int, int]) -> None:
        children: dict[int, list[int]] = {}
        roots: list[int] = []
        for b, up in idom.items():
            if up == b:
                roots.append(b)
            else:
                children.setdefault(up, []).append(b)
        for up in children:
            if up not in idom:  # the entry, when `idom` leaves it out
                roots.append(up)
        self.enter: dict[int, int] = {}
        self.leave: dict[int, int] = {}
        clock = 0
        for root in roots:
            stack: list[tuple[int, int]] = [(root, 0)]
            self.enter[root] = clock
            clock += 1
            while stack:
                b, k = stack[-1]
                kids = children.get(b)
                if kids is not None and k < len(kids):
                    stack[-1] = (b, k + 1)
                    c = kids[k]
                    self.enter[c] = clock
                    clock += 1
                    stack.append((c, 0))
                else:
                    stack.pop()
                    self.leave[b] = clock
                    clock += 1

    def dominates(self, a: int, b: int) -> bool:
        """Does block `a` dominate block `b`? (`ir.dominates` over the same tree.)"""
        if a == b:
            return True
        ea = self.enter.get(a)
        eb = self.enter.get(b)
        if ea is None or eb is None:
            return False
        return ea < eb and self.leave[b] < self.leave[a]


def dominance(g: nx.DiGraph, entry: int, cache: dict[str, Any]) -> Dominance:
    """The `Dominance` of `dominator_tree(g, entry, cache)`, kept in `cache` beside it."""
    found: Dominance | None = cache.get("dominance")
    if found is None:
        found = cache["dominance"] = Dominance(dominator_tree(g, entry, cache))
    return found


def back_edges(cfg: CFG) -> frozenset[tuple[int, int]]:
    """The CFG's edges `b -> s` whose target dominates their source (its loops' back edges),
    kept in its cache."""
    found: frozenset[tuple[int, int]] | None = cfg.cache.get("back_edges")
    if found is None:
        dom = dominance(cfg.graph, cfg.entry, cfg.cache)
        found = frozenset((b, s) for b, succ in cfg.successors().items() for s in succ if dom.dominates(s, b))
        cfg.cache["back_edges"] = found
    return found


def blocks_between(cfg: CFG, start: int, end: int) -> set[int]:
    """The blocks on a path from block `start` to block `end` that takes no loop's back edge."""
    back = back_edges(cfg)
    succ = cfg.graph.succ
    pred = cfg.graph.pred
    ahead = {start}
    work = [start]
    while work:
        b = work.pop()
        for s in succ[b]:
            if s not in ahead and (b, s) not in back:
                ahead.add(s)
                work.append(s)
    behind = {end}
    work = [end]
    while work:
        b = work.pop()
        for p in pred[b]:
            if p not in behind and p in ahead and (p, b) not in back:
                behind.add(p)
                work.append(p)
    return ahead & behind


def backward_live_in(cfg: CFG, use: dict[int, int], defs: dict[int, int], work: list[int]) -> dict[int, int]:
    """Each block's live-in bit set, the least solution of `in = use | (out & ~defs)`, `out`
    the union of the successors' `in`, by a worklist started from `work` that holds every block
    whose `use` is not empty. The next block taken is the first in postorder (a block after its
    successors but for loops' back edges), so that a sweep settles what it reaches: the solution
    is the same in any order (the equations are monotone), the blocks taken fewer (g_buffer's
    main_ps: 1,003 blocks, 6,436 taken in the blocks' order from the end of the list). `use` and
    `defs` may leave out the blocks that neither read nor write a value followed (read as 0),
    and so may the result: the liveness of a CFG (`liveness`). (The unread writes' rounds,
    `passes.unread_writes`, follow each value apart: most of theirs are live across a few
    blocks, where a bit set as wide as all of them costs at every block.)"""
    live_in: dict[int, int] = {}
    preds = cfg.predecessors()
    succs = cfg.successors()
    order, rank = postorder_ranks(cfg)
    heap = sorted({rank[b] for b in work})
    queued = [False] * len(order)
    for i in heap:
        queued[i] = True
    deadline = current()
    taken = 0
    while heap:
        deadline.tick()
        i = heapq.heappop(heap)
        queued[i] = False
        taken += 1
        b = order[i]
        out = 0
        for s in succs[b]:
            out |= live_in.get(s, 0)
        new_in = use.get(b, 0) | (out & ~defs.get(b, 0))
        if new_in != live_in.get(b, 0):
            live_in[b] = new_in
            for p in preds[b]:
                j = rank[p]
                if not queued[j]:
                    queued[j] = True
                    heapq.heappush(heap, j)
    cfg.cache["live_in_taken"] = cfg.cache.get("live_in_taken", 0) + taken  # for the tests
    return live_in


def postorder_ranks(cfg: CFG) -> tuple[list[int], dict[int, int]]:
    """The CFG's blocks in `postorder` and each block's place in it (once per CFG)."""
    found: tuple[list[int], dict[int, int]] | None = cfg.cache.get("postorder")
    if found is None:
        order = postorder(cfg.successors(), cfg.entry)
        found = cfg.cache["postorder"] = (order, {b: i for i, b in enumerate(order)})
    return found


def postorder(succs: dict[int, list[int]], entry: int) -> list[int]:
    """Every block of `succs`, those the entry reaches in depth-first postorder (a block after
    its successors but for loops' back edges), then the others."""
    order: list[int] = []
    seen: set[int] = set()
    for root in [entry, *succs]:
        if root in seen or root not in succs:
            continue
        seen.add(root)
        stack: list[tuple[int, int]] = [(root, 0)]
        while stack:
            blk, k = stack[-1]
            outs = succs[blk]
            if k < len(outs):
                stack[-1] = (blk, k + 1)
                nxt = outs[k]
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, 0))
            else:
                stack.pop()
                order.append(blk)
    return order


def dominates(idom: dict[int, int], a: int, b: int) -> bool:
    """Does block `a` dominate block `b`? `idom` maps a block to its immediate dominator
    (`networkx.immediate_dominators`; the entry maps to itself or is left out)."""
    while True:
        if a == b:
            return True
        up = idom.get(b)
        if up is None or up == b:
            return False
        b = up


def common_dominator(idom: dict[int, int], blocks: set[int]) -> int | None:
    """The nearest block dominating every one of `blocks` (`idom` as for `dominates`)."""
    chains: list[list[int]] = []
    for b in blocks:
        chain = [b]
        while True:
            up = idom.get(chain[-1])  # None at the entry (networkx leaves it out)
            if up is None or up == chain[-1]:
                break
            chain.append(up)
        chains.append(chain)
    common = set(chains[0]).intersection(*chains[1:])
    for b in chains[0]:
        if b in common:
            return b
    return None


def with_parts(vals: Sequence[Value], out: list[Value]) -> list[Value]:
    """`vals` and their parts (nested structs' and their members', to any depth), onto `out`."""
    for v in vals:
        out.append(v)
        if v.parts is not None:
            with_parts(v.parts, out)
    return out
