"""Memos of CFG lowering: what a syntax node answers (once per unit), and inlined bodies
recorded once and replayed at the next call of the same function with the same argument shape.

The lowerer (`lowering.LowererBase`, the replays in `lowering_inline`) owns the lists these
read; `LowererState` says which.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, Protocol

from hlsllint.analysis.ir import Instr, LoopRecord, Span, Value
from hlsllint.semantic import types as T
from hlsllint.semantic.model import Model
from hlsllint.semantic.symbols import Symbol
from hlsllint.syntax import Node


class LowererState(Protocol):
    """What a recording reads of the lowerer: its lists only grow while a body is lowered."""

    values: list[Value]
    blocks: list[list[Instr]]
    edges: list[tuple[int, int]]
    loops: list[LoopRecord]
    record_log: list[tuple[Span, Instr | Value | None]]
    view_log: list[Span]
    globals_env: dict[Symbol, list[Value]]
    preloads: dict[str, Value]
    n_instrs: int
    truncated: bool
    block: int

    def _fixed_values(self) -> set[int]: ...


class NodeFacts:
    """What lowering asks of a syntax node, answered once per unit (keyed by node id): an inlined
    function's nodes are lowered again at every call site and in every entry point, and their
    spans, texts and temporary names do not change (constant values are the model's own memo)."""

    def __init__(self, model: Model) -> None:
        # No reference to the model: this is kept in the model's memo, and a reference back
        # would make a cycle that only the garbage collector can free.
        self.tree = model.tree
        self.names: dict[int, str] = {}
        self.widths: dict[tuple[int, bool], tuple[T.Type, int]] = {}
        self.writes: dict[int, tuple[set[Symbol], set[Symbol]]] = {}
        """Node id -> what its subtree writes (`LowererBase._written_in`)."""
        # Byte offsets are code-point offsets in an ASCII tree (`SyntaxTree.span`): the node's own
        # byte range, read in C, costs less than a memo. Not a method of this object: a bound
        # method kept here would make a cycle that only the garbage collector can free.
        self.span: Callable[[Node], Span] = (
            operator.attrgetter("byte_range") if model.tree.ascii else model.tree.span
        )

    def text(self, node: Node) -> str:
        start, end = self.span(node)
        return self.tree.text[start:end]

    def temp_name(self, node: Node) -> str:
        key = node.id
        found = self.names.get(key)
        if found is None:
            text = " ".join(self.text(node).split())
            found = self.names[key] = text if len(text) <= 40 else text[:37] + "..."
        return found

    def width(self, t: T.Type, sixteen: bool) -> int:
        """Registers of a value of type `t` (see `LowererBase.value`)."""
        key = (id(t), sixteen)
        found = self.widths.get(key)
        if found is None or found[0] is not t:
            found = self.widths[key] = (t, max(1, t.components(sixteen)) if t.kind != "void" else 0)
        return found[1]


UNSET = object()


def facts(model: Model) -> NodeFacts:
    found = model.memo.get("lowering.facts")
    if not isinstance(found, NodeFacts):
        found = model.memo["lowering.facts"] = NodeFacts(model)
    return found


class Template:
    """An inlined body as lowered once, with its call site factored out, for replays.

    A value reference is an index into [values it made..., its call site's slots
    (the lowerer's `_slots`)..., `fixed` (globals' and preloads' values, the same objects at every
    call site)...]; -1 is no value. A block is an index into [blocks it made..., the block the
    call site is in, the callee's exit block]."""

    def __init__(self) -> None:
        self.values: list[tuple[str, int, str, T.Type, Symbol | None, str | None, list[int] | None]] = []
        self.n_slots = 0
        self.fixed: list[Value] = []
        self.n_blocks = 0
        self.instrs: list[tuple[int, str, int, list[int], Span, str, dict[str, Any]]] = []
        self.edges: list[tuple[int, int]] = []
        self.loops: list[tuple[Span, str, int, list[int], tuple[str, ...], int | None]] = []
        self.records: list[tuple[Span, int, int]] = []
        """(span, instruction index or -1, value reference or -1)."""
        self.views: list[Span] = []
        """The spans the body noted as views of a value (`LowererBase.view_spans`)."""
        self.end_block = 0
        self.reach = Reach(0)


class Reach:
    """What a body's lowering read of its call path: the functions it tried to inline (at any
    depth), how much deeper than itself it went, and whether the depth limit cut a call. Calls
    are cut on recursion (a function already on the path) and past `MAX_INLINE_DEPTH` only, so
    a body lowers the same at any call site whose path holds none of those functions and whose
    depth cuts the same calls (`fits`)."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        """Frames on the path when the body started (its own included)."""
        self.calls: set[int] = set()
        """ids of the functions an inline was tried for inside the body."""
        self.deepest = -1
        """The largest number of frames, less `depth`, at such a try (-1: none)."""
        self.cut = False
        """Whether the depth limit cut one of them."""

    def fits(self, path: set[int], depth: int, limit: int) -> bool:
        """Does the body lower the same with `path` (ids of the caller's functions, not the
        body's own) and `depth` frames (its own included)?"""
        if not path.isdisjoint(self.calls):
            return False
        if self.cut:
            return depth == self.depth
        return depth + self.deepest <= limit


class Recording:
    """Where the lowerer's lists stood when an inlined body started and ended; made into a
    `Template` when the same call comes again (the lists only grow, and nothing changes what
    a finished body emitted)."""

    def __init__(self, lowerer: LowererState, slots: list[Value], exit_block: int, depth: int) -> None:
        self.slots = slots
        self.reach = Reach(depth)
        self.n_values = len(lowerer.values)
        self.n_blocks = len(lowerer.blocks)
        self.n_edges = len(lowerer.edges)
        self.n_loops = len(lowerer.loops)
        self.n_records = len(lowerer.record_log)
        self.n_views = len(lowerer.view_log)
        self.n_instrs = lowerer.n_instrs
        self.n_globals = len(lowerer.globals_env)
        self.start_block = lowerer.block
        self.start_len = len(lowerer.blocks[lowerer.block])
        self.exit_block = exit_block
        self.tainted = False
        self.end: tuple[int, int, int, int, int, int, int, int, int] | None = None

    def close(self, lw: LowererState) -> bool:
        """Note where the body ended; False when it cannot be replayed: it depends on more than
        its call site's slots (it made a global's values, renamed an instruction from before
        it) or was cut short."""
        if self.tainted or lw.truncated or len(lw.globals_env) != self.n_globals:
            return False
        self.end = (
            len(lw.values),
            len(lw.blocks),
            len(lw.edges),
            len(lw.loops),
            len(lw.record_log),
            lw.n_instrs,
            len(lw.blocks[self.start_block]),
            lw.block,
            len(lw.view_log),
        )
        return True

    def template(self, lw: LowererState) -> Template | None:
        """The recorded body as a template, or None when it reads a value that is neither made
        by it, a slot, nor fixed, or leaves through a block of the caller (a loop's exit)."""
        assert self.end is not None
        n_values, n_blocks, n_edges, n_loops, n_records, n_instrs, start_end, end_block, n_views = self.end
        tpl = Template()
        tpl.reach = self.reach
        made = lw.values[self.n_values : n_values]
        refs: dict[int, int] = {id(v): i for i, v in enumerate(made)}
        base = len(made)
        for i, v in enumerate(self.slots):
            refs.setdefault(id(v), base + i)
        tpl.n_slots = len(self.slots)
        fixed = lw._fixed_values()
        base += len(self.slots)

        def ref(v: Value | None) -> int:
            if v is None:
                return -1
            found = refs.get(id(v))
            if found is None:
                if id(v) not in fixed:
                    raise NotReplayable
                found = refs[id(v)] = base + len(tpl.fixed)
                tpl.fixed.append(v)
            return found

        inner = n_blocks - self.n_blocks

        def block(b: int) -> int:
            if b >= self.n_blocks:
                return b - self.n_blocks
            if b == self.start_block:
                return inner
            if b == self.exit_block:
                return inner + 1
            raise NotReplayable

        try:
            for v in made:
                parts = [ref(x) for x in v.parts] if v.parts is not None else None
                tpl.values.append((v.name, v.width, v.kind, v.type, v.symbol, v.reg_class, parts))
            tpl.n_blocks = inner
            index: dict[int, int] = {}
            lists = [(inner, lw.blocks[self.start_block][self.start_len : start_end])]
            lists += [(b - self.n_blocks, lw.blocks[b]) for b in range(self.n_blocks, n_blocks)]
            for code, instrs in lists:
                for ins in instrs:
                    index[id(ins)] = len(tpl.instrs)
                    reads = [ref(r) for r in ins.reads]
                    tpl.instrs.append((code, ins.op, ref(ins.dest), reads, ins.span, ins.rule, ins.detail))
            if len(tpl.instrs) != n_instrs - self.n_instrs:
                return None
            tpl.edges = [(block(a), block(b)) for a, b in lw.edges[self.n_edges : n_edges]]
            for loop in lw.loops[self.n_loops : n_loops]:
                blocks = [block(b) for b in sorted(loop.blocks)]
                header = block(loop.header)
                tpl.loops.append((loop.span, loop.kind, header, blocks, loop.attributes, loop.trip_count))
            for span, what in lw.record_log[self.n_records : n_records]:
                if isinstance(what, Instr):
                    at = index.get(id(what))
                    if at is None:
                        return None
                    tpl.records.append((span, at, -1))
                else:
                    tpl.records.append((span, -1, ref(what)))
            tpl.end_block = block(end_block)
            tpl.views = lw.view_log[self.n_views : n_views]
        except NotReplayable:
            return None
        return tpl


class NotReplayable(Exception):
    pass
