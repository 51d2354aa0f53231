"""The lowerer's state and building blocks, which every part of lowering uses.

`LowererBase` holds what lowering one entry point builds (blocks, edges, values, loops, what
each expression computed, the call frames) and makes its pieces: blocks, values, instructions,
records, a variable's values, resource descriptors; it also answers what a syntax subtree
writes. The lowering itself is a chain of subclasses, each adding one kind of syntax:
`lowering_expr` (expressions) <- `lowering_access` (element accesses, loads of memory, stores)
<- `lowering_calls` (calls that stay calls) <- `lowering_inline` (inlined calls, replays)
<- `lowering_stmt` (statements) <- `cfg` (the entry point and the finished graph).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import networkx as nx

from hlsllint.analysis.costs import CostModel
from hlsllint.analysis.ir import Instr, LoopRecord, Span, Value
from hlsllint.analysis.lowering_memo import Recording, Template
from hlsllint.analysis.lowering_memo import facts as lowering_facts
from hlsllint.analysis.lowering_reuse import entry_reuse
from hlsllint.analysis.lowering_share import unit_share
from hlsllint.deadline import current
from hlsllint.semantic import types as T
from hlsllint.semantic.constants import FoldMemo
from hlsllint.semantic.intrinsics import RAY_PAYLOAD_WRITERS
from hlsllint.semantic.loops import trip_count, unrolled
from hlsllint.semantic.model import Model
from hlsllint.semantic.queries import uses_of
from hlsllint.semantic.symbols import EntryPoint, Function, Symbol
from hlsllint.syntax import Node
from hlsllint.syntax.fields import (
    F_ARGUMENT,
    F_ARGUMENTS,
    F_BODY,
    F_FIELD,
    F_FUNCTION,
    F_INDICES,
    F_LEFT,
    F_OPERATOR,
)

MAX_INSTRUCTIONS = 200_000

OUT_INTRINSICS = frozenset({"sincos", "modf", "frexp", "asuint", "GetDimensions"})
"""Intrinsics (and the one method) with out parameters."""


SCRATCH_ARRAY_REGISTERS = 64
"""A local array past 256 bytes per lane lives in scratch memory, not in registers (RADV lowers
such function-temporary arrays to scratch; regtruth: a dynamically indexed `float a[64]` stays in
VGPRs, `float a[100]` takes 25,600 bytes of scratch per wave64)."""


MAX_STRUCT_DEPTH = 16
"""Struct members nested deeper than this are one value each (HLSL structs cannot contain
themselves; the limit only bounds a malformed model)."""

ACCESS_EXPRESSIONS = ("field_expression", "subscript_expression")

VARIABLE_KINDS = ("local", "param", "static", "member")
"""Symbols held in registers by the lowering (`var`): a method's `member`s are the members of
the object it is called on."""


def _flatten(reads: Sequence[Value | None]) -> list[Value]:
    """The registers an instruction reads: struct aggregates stand for their members."""
    out: list[Value] = []
    for r in reads:
        if r is None:
            continue
        if r.parts is not None:
            out.extend(_flatten(r.parts))
        else:
            out.append(r)
    return out


_NOT_FOLDED_INDEX = frozenset(
    {
        "call_expression",
        "field_expression",
        "subscript_expression",
        "assignment_expression",
        "update_expression",
    }
)
"""Expressions inside an index that `_unrolled_index` does not fold from loop counters."""

_RUNNING_BRANCHES = frozenset(
    {"if_statement", "switch_statement", "conditional_expression", "case_statement"}
)
"""Statements and expressions around an index that may not run in every iteration."""

_JUMPS = frozenset({"break_statement", "continue_statement", "return_statement", "goto_statement"})


class Frame:
    """A function being lowered: its variables' values, its return values and its exit block."""

    def __init__(self, fn: Function | None, ret: list[Value] | None, exit_block: int) -> None:
        self.fn = fn
        self.env: dict[Symbol, list[Value]] = {}
        self.ret = ret
        self.exit = exit_block
        self.consts: dict[int, int | float | bool] = {}
        """id(parameter) -> the compile-time constant this inlined copy was passed."""
        self.const_memo: ConstMemo | None = None
        """What `const_value` folded in this copy, shared with every copy bound to the same
        constants (`LowererBase.const_memos`); made at the first question."""
        self.arg_types: dict[Symbol, T.Type] = {}
        """A parameter whose type is a template's parameter (`Remap remap`) -> the struct type
        of the argument this copy was passed (`LinearToSrgbRemap::create()`): its methods are
        that struct's, as DXC instantiates the template."""


class ConstMemo:
    """The constants folded under one set of parameter bindings: each expression asked
    (`values`, by node id) and, for the model, what folding them folded (`fold`)."""

    def __init__(self) -> None:
        self.values: dict[int, int | float | bool | None] = {}
        self.fold = FoldMemo()


class LowererBase:
    """The state of one entry point's lowering and the pieces it is built of."""

    def __init__(self, model: Model, entry: EntryPoint, costs: CostModel, replay: bool = True) -> None:
        self.m = model
        self.deadline = current()
        """The unit's deadline (`hlsllint.deadline`), checked per instruction and per statement."""
        self.tree = model.tree
        self.entry_point = entry
        self.costs = costs
        facts = lowering_facts(model)
        self.facts = facts
        self.span = facts.span
        self.text = facts.text
        self.temp_name = facts.temp_name
        self.blocks: list[list[Instr]] = []
        self.edges: list[tuple[int, int]] = []
        self.g = nx.DiGraph()
        self.values: list[Value] = []
        self.loops: list[LoopRecord] = []
        self.early_returns: dict[int, bool] = {}
        """A `return` node's id -> whether code its function cannot fold into a select follows
        it (`StmtLowerer._returns_early`)."""
        self.expr: dict[Span, list[Instr | Value | None]] = {}
        self.frames: list[Frame] = []
        self.loop_targets: list[tuple[int | None, int]] = []  # (continue, break)
        self.unrolled_counters: list[tuple[Symbol, tuple[int, ...], Span]] = []
        """The counters of the enclosing loops the compiler unrolls, with their value in each
        iteration (`i` of `for (int i = 0; i < 8; ++i)`: 0..7) and the loop's span: a read of one
        is a constant in each unrolled copy, and it and a constant table read at one
        (`offsets[i]`) record their value per iteration (`rows`, `loop`:
        `unrolled.unrolled_holds`)."""
        self._tables: dict[Symbol, tuple[tuple[int | float, ...], ...] | None] = {}
        self.globals_env: dict[Symbol, list[Value]] = {}
        self.preloads: dict[str, Value] = {}
        self._split: dict[Symbol, bool] = {}
        self._per_iteration: dict[Symbol, str | None] = {}
        self.member_load: dict[int, Instr] = {}
        """Value id -> the load of that member of a struct read from memory (`member_loads`)."""
        self.memory_copies: dict[Symbol, dict[str, Instr]] = {}
        """Locals that copy a struct of read-only memory and are never written: the loads of
        their array members by name, which a read of an element repeats (`memory_element`)."""
        self.preloaded_vgprs = 0
        self._written: dict[tuple[int, Symbol], bool] = {}
        self.n_instrs = 0
        self.truncated = False
        self._value_shapes: dict[int, tuple[T.Type, int, str | None]] = {}
        """id(type) -> (type, width, register class) of a new value (see `value`)."""
        self.block = self.new_block()
        self.sixteen = model.sixteen_bit
        self.record_log: list[tuple[Span, Instr | Value | None]] = []
        """Every `record` made while a body is being recorded, in order (what an inlined body
        recorded is replayed from it; a `Recording` reads the part appended while it was open)."""
        self.templates: dict[tuple[Any, ...], Template | Recording | None] = {}
        self.recordings: list[Recording] = []
        self.replay = replay
        self.replayed = 0
        self.view_spans: set[Span] = set()
        self.bound_views: set[Value] = set()
        """Values a parameter is bound to through a swizzle that is not their leading part
        (`f(v.yx)`): what the callee reads of them is not what it names."""
        """Expressions that stand for a part of a value (`v.yx`, `m[1]`) but are recorded as the
        value itself: two reads of such a value may be different parts of it."""
        self.view_log: list[Span] = []
        """Every `view` made while a body is being recorded, in order (as `record_log`)."""
        self.reuse = entry_reuse(model, entry, costs)
        """The lowering of the unit's last version, when the editor keeps one (`lowering_reuse`)."""
        self.portable_keys: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        """With `reuse`: each template key's form that the next version can look up."""
        self.reused = 0
        self.share = unit_share(model, costs, replay) if self.reuse is None else None
        """The header bodies lowered by earlier units of the process (`lowering_share`)."""
        self.share_pending: dict[tuple[Any, ...], tuple[tuple[Any, ...], Function]] = {}
        """With `share`: each template key of a shared header function -> its key for the process."""
        self.shared = 0
        """Bodies replayed from an earlier unit's lowering."""
        self.effects = 0
        """Changes made to what later lowering reads besides a template's contents (a member load
        noted, a memory copy, a view bound): a body recorded while this moved is not shared."""
        self.effectful: set[tuple[Any, ...]] = set()
        """With `share`: the template keys whose recording moved `effects`."""
        self.const_memos: dict[tuple[tuple[int, str, str], ...], ConstMemo] = {}
        """The bindings of a frame's constant parameters (id, type and text of each value) ->
        what was folded under them, for every inlined copy so bound."""

    def const_value(self, node: Node | None) -> int | float | bool | None:
        """The compile-time value of an expression in this inlined copy: the model's (memoised
        there), with the parameters this copy was passed constants for bound to them."""
        frame = self.frames[-1] if self.frames else None
        if frame is None or not frame.consts:
            return self.m.const_value(node)
        if node is None:
            return None
        memo = frame.const_memo
        if memo is None:
            bound = tuple([(k, type(v).__name__, repr(v)) for k, v in frame.consts.items()])
            memo = self.const_memos.get(bound)
            if memo is None:
                memo = self.const_memos[bound] = ConstMemo()
            frame.const_memo = memo
        values = memo.values
        key = node.id
        if key in values:
            return values[key]
        value = values[key] = self.m.const_value_with(node, frame.consts, memo.fold)
        return value

    # -- building blocks ------------------------------------------------------------------

    def new_block(self) -> int:
        """A new block (numbered in creation order; the graph is built by `finish`)."""
        self.blocks.append([])
        return len(self.blocks) - 1

    def edge(self, a: int, b: int) -> None:
        self.edges.append((a, b))

    def value(self, name: str, t: T.Type, kind: str, sym: Symbol | None = None) -> Value:
        found = self._value_shapes.get(id(t))
        if found is None or found[0] is not t:
            width = self.facts.width(t, self.sixteen)
            scratch = t.kind == "array" and width > SCRATCH_ARRAY_REGISTERS
            found = self._value_shapes[id(t)] = (t, width, "scratch" if scratch else None)
        v = Value(len(self.values), name, found[1], kind, t, sym, found[2])
        self.values.append(v)
        return v

    def emit(
        self,
        op: str,
        dest: Value | None,
        reads: list[Value | None],
        node: Node | Span,
        rule: str = "pure",
        **detail: Any,
    ) -> Instr:
        span = node if isinstance(node, tuple) else self.span(node)
        flat: list[Value] = []
        for r in reads:  # `_flatten`, one level in line
            if r is not None:
                if r.parts is None:
                    flat.append(r)
                else:
                    flat.extend(_flatten(r.parts))
        self.deadline.tick()
        ins = Instr(op, dest, flat, span, rule, detail, self.block)
        self.blocks[self.block].append(ins)
        self.n_instrs += 1
        if self.n_instrs > MAX_INSTRUCTIONS:
            self.truncated = True
        return ins

    def emit_expr(
        self,
        op: str,
        dest: Value | None,
        reads: list[Value | None],
        node: Node,
        rule: str = "pure",
        **detail: Any,
    ) -> Instr:
        """`emit`, then `record` the instruction as what computed `node`."""
        span = self.span(node)
        ins = self.emit(op, dest, reads, span, rule, **detail)
        self.note(span, ins)
        return ins

    def temp(self, node: Node, t: T.Type | None = None) -> Value:
        t = t if t is not None else self.m.type_of(node)
        return self.value(self.temp_name(node), t, "temp")

    def aggregate(self, node: Node, t: T.Type, parts: list[Value]) -> Value:
        """A struct-typed expression made of `parts` (see `Value.parts`); no instruction."""
        v = self.temp(node, t)
        v.parts = parts
        return v

    def member_loads(
        self, node: Node, t: T.Type, op: str, reads: list[Value | None], rule: str, **detail: Any
    ) -> Value:
        """A struct read from memory, one load per member: the compiler loads only the members
        used (unused ones are dead code, see `dead_instructions`)."""
        parts = self._member_loads(self.temp_name(node), node, t, op, reads, rule, "", detail)
        return self.aggregate(node, t, parts)

    def _member_loads(
        self,
        prefix: str,
        node: Node,
        t: T.Type,
        op: str,
        reads: list[Value | None],
        rule: str,
        path: str,
        detail: dict[str, Any],
    ) -> list[Value]:
        """One load per member of `t`; a member that is a struct is the aggregate of its own
        members' loads, as a variable's nested struct is (`member_values`), so that copying
        it into a variable and reading one member loads only that member (regtruth: two
        nested structs of three float4 each, one float4 of each read, 14 VGPRs; each nested
        member loaded whole, 21). Each load names its member (`member`, the path from the
        struct: `.a.b`), so that two members of one width are two loads to the compiler's
        value numbering (`passes.common_values`), not one."""
        parts = []
        for m in t.members:
            d = self.value(f"{prefix}.{m.name}", m.type, "temp")
            sub = f"{path}.{m.name}"
            if m.type.kind == "struct" and m.type.members and sub.count(".") <= MAX_STRUCT_DEPTH:
                d.parts = self._member_loads(d.name, node, m.type, op, reads, rule, sub, detail)
            else:
                ins = self.emit(op, d, reads, node, rule=rule, member=sub, **detail)
                if op in ("load", "cbload"):
                    self.member_load[d.id] = ins
                    self.effects += 1
            parts.append(d)
        return parts

    def view(self, span: Span) -> None:
        """Note the expression at `span` as a view of the value it records (`view_spans`)."""
        self.view_spans.add(span)
        if self.recordings:
            self.view_log.append(span)

    def record(self, node: Node, what: Instr | Value | None) -> None:
        self.note(self.span(node), what)

    def note(self, span: Span, what: Instr | Value | None) -> None:
        """`record` by span."""
        found = self.expr.get(span)
        if found is None:
            self.expr[span] = [what]
        else:
            found.append(what)
        if self.recordings:
            self.record_log.append((span, what))

    # -- variables ------------------------------------------------------------------------

    def sym_type(self, sym: Symbol) -> T.Type:
        """A variable's type in this inlined copy: a parameter whose type is a template's
        parameter is the struct the copy was passed (`Frame.arg_types`), as DXC instantiates
        the template."""
        if self.frames:
            bound = self.frames[-1].arg_types.get(sym)
            if bound is not None:
                return bound
        return sym.type

    def var(self, sym: Symbol) -> list[Value]:
        """The values of a variable (one per member for structs)."""
        env = self.globals_env if sym.kind in ("static", "global") else self.frames[-1].env
        vals = env.get(sym)
        if vals is None:
            t = self.sym_type(sym)
            if t.kind == "struct" and t.members:
                vals = self.member_values(sym.name, t, "var", sym)
            elif t.element is not None and (counter := self.iteration_array(sym)) is not None:
                vals = [self.value(f"{sym.name}[{counter}]", t.element, "var", sym)]
            elif self._split_array(sym) and t.element is not None and t.length is not None:
                vals = [self.value(f"{sym.name}[{i}]", t.element, "var", sym) for i in range(t.length)]
            else:
                vals = [self.value(sym.name, t, "var", sym)]
            env[sym] = vals
        return vals

    def member_values(
        self, prefix: str, t: T.Type, kind: str, sym: Symbol | None, depth: int = 0
    ) -> list[Value]:
        """One value per member of the struct type `t`. A member that is a struct itself is the
        aggregate (`Value.parts`) of its own members' values, to any depth: the compiler splits
        nested structs into scalars too (SROA), so `out.geo.pos` written once is live from its
        own write, not the whole `out.geo` from the first write of any of its members
        (regtruth: six float4 members of a nested struct, each written and stored in turn,
        hold 7 VGPRs before scheduling, not the 24 of the whole member)."""
        out: list[Value] = []
        for m in t.members:
            v = self.value(f"{prefix}.{m.name}", m.type, kind, sym)
            if m.type.kind == "struct" and m.type.members and depth < MAX_STRUCT_DEPTH:
                v.parts = self.member_values(v.name, m.type, kind, sym, depth + 1)
            out.append(v)
        return out

    def copy_into(self, dest: Value, src: Value | None, node: Node | Span) -> None:
        """dest = src for a variable's value that may be a nested struct's aggregate: member by
        member when `src` has the same members, else every member from all of `src`."""
        if dest.parts is None:
            self.emit("copy", dest, [src], node)
            return
        if src is not None and src.parts is not None and len(src.parts) == len(dest.parts):
            for d, s in zip(dest.parts, src.parts, strict=True):
                self.copy_into(d, s, node)
            return
        for d in dest.parts:
            self.copy_into(d, src, node)

    def member_lvalue(self, node: Node) -> Value | None:
        """The value of a member of a struct variable named by a chain of member accesses
        (`s.x`, `out.geo.pos`; an aggregate when the member is a struct), else None (a swizzle,
        an element, a member of something that is not a variable)."""
        arg = node.child_by_field_id(F_ARGUMENT)
        if arg is None:
            return None
        members: list[Value] | None = None
        sym = self._base_symbol(arg)
        if sym is not None:
            if sym.kind not in VARIABLE_KINDS or sym.type.kind != "struct":
                return None
            t = sym.type
            members = self.var(sym)
        elif arg.type == "field_expression":
            parent = self.member_lvalue(arg)
            if parent is None or parent.parts is None:
                return None
            t = parent.type
            members = parent.parts
        else:
            return None
        name = self.text(node.child_by_field_id(F_FIELD) or node)
        for m, v in zip(t.members, members, strict=False):
            if m.name == name:
                return v
        return None

    def _split_array(self, sym: Symbol) -> bool:
        """A local array indexed only by constants is a set of separate values, one per element
        (the compiler's scalar replacement): writing `v[0]` does not keep `v[3]` live. The
        counter of a loop the compiler unrolls is a constant in each unrolled copy, so
        `for (i = 0; i < 8; i++) v[i] = ...` indexes by constants too (regtruth: eight `float2`
        loaded that way and passed element by element to helpers, 28 VGPRs; the array held whole
        beside its elements was estimated 50)."""
        t = sym.type
        if sym.kind not in ("local", "param") or t.kind != "array" or not t.length or t.length > 64:
            return False
        found = self._split.get(sym)
        if found is None:
            found = self._split[sym] = self._only_constant_indices(sym)
        return found

    def iteration_array(self, sym: Symbol) -> str | None:
        """The counter's name when `sym` is a local array, declared without a value, that only
        one loop the compiler unrolls reads and writes, always at its counter (`e[side]` in
        `for (int side = 0; side < 2; side++)`), else None. Unrolled, each copy of the body
        reads and writes its own element only, so the array is one value per iteration: an
        element is live from its write to the last read in the same copy, never across copies
        (regtruth: two float4 and a float element per iteration of a 2-iteration loop, 11
        presched VGPRs; every element held across the loop, 22). Such an array is one value,
        the element of the iteration."""
        if sym in self._per_iteration:
            return self._per_iteration[sym]
        found = self._per_iteration[sym] = self._one_iteration_index(sym)
        return found

    def _one_iteration_index(self, sym: Symbol) -> str | None:
        t = sym.type
        if sym.kind != "local" or sym.init is not None or t.kind != "array" or not t.length or t.length > 64:
            return None
        loop: Node | None = None
        counter: Symbol | None = None
        for n in uses_of(self.m, sym):
            parent = n.parent
            if parent is None or parent.type != "subscript_expression":
                return None  # a whole-array use
            if parent.child_by_field_id(F_ARGUMENT) != n:
                return None
            idx = self._indices(parent)
            if len(idx) != 1 or idx[0].type != "identifier":
                return None
            at = self.m.resolve(idx[0])
            if at is None or (counter is not None and at is not counter):
                return None
            cur = parent.parent
            while cur is not None and cur.type != "function_definition":
                if cur.type == "for_statement":
                    found = trip_count(self.m, cur)
                    if found is not None and self.m.resolve(found[0]) is at:
                        break
                cur = cur.parent
            if cur is None or cur.type != "for_statement" or (loop is not None and cur.id != loop.id):
                return None
            body = cur.child_by_field_id(F_BODY)
            if body is None or not (body.start_byte <= n.start_byte and n.end_byte <= body.end_byte):
                return None
            if loop is None and unrolled(self.m, cur) is not True:
                return None
            loop, counter = cur, at
        return counter.name if counter is not None else None

    def _only_constant_indices(self, sym: Symbol) -> bool:
        for n in uses_of(self.m, sym):
            parent = n.parent
            if parent is None or parent.type != "subscript_expression":
                continue  # a whole-array use: every element, which split values also give
            if parent.child_by_field_id(F_ARGUMENT) != n:
                return False
            idx = self._indices(parent)
            if len(idx) != 1:
                return False
            index = idx[0]
            if (
                not isinstance(self.const_value(index), int)
                and not self._unrolled_index(index)
                and self._running_index(index) is None
            ):
                return False
        return True

    def _running_index(self, index: Node) -> tuple[Symbol, int, int, list[Node]] | None:
        """`i++` (or `++i`, `i--`) as an index inside loops the compiler unrolls, where `i` is a
        local declared outside them with a constant and written nowhere else, and the index is
        met once in every iteration of the innermost loop (no branch, `?:`, `&&` or `||` around
        it there, no `break`, `continue` or `return` in the loops): each unrolled copy reads a
        constant (`lum[i++] = length(a - b)` in a 3x3 loop writes elements 0 to 8 in turn).
        (the local, the index in the first iteration, the change per iteration, the loops from
        the outermost in); None otherwise."""
        if index.type != "update_expression" or index.named_child_count != 1:
            return None
        name = index.named_children[0]
        if name.type != "identifier":
            return None
        sym = self.m.resolve(name)
        if sym is None or sym.kind != "local" or sym.node is None or sym.init is None:
            return None
        start = self.m.const_value(sym.init)
        if not isinstance(start, int) or isinstance(start, bool) or len(uses_of(self.m, sym)) != 1:
            return None
        text = self.text(index)
        step = 1 if "++" in text else -1
        first = start if text.startswith(self.text(name)) else start + step
        decl_start, decl_end = sym.node.start_byte, sym.node.end_byte
        loops: list[Node] = []
        child, cur = index, index.parent
        while cur is not None and not (cur.start_byte <= decl_start and decl_end <= cur.end_byte):
            kind = cur.type
            if kind in _RUNNING_BRANCHES or (kind == "binary_expression" and self._short_circuit(cur)):
                return None
            if kind in ("while_statement", "do_statement"):
                return None
            if kind == "for_statement":
                if cur.child_by_field_id(F_BODY) != child or unrolled(self.m, cur) is not True:
                    return None
                if trip_count(self.m, cur) is None:
                    return None
                loops.append(cur)
            elif loops and kind != "compound_statement":
                return None  # between two loops: only blocks
            child, cur = cur, cur.parent
        if cur is None or not loops:
            return None
        for n in self.tree.walk(loops[-1]):
            if n.type in _JUMPS:
                return None
        loops.reverse()
        return sym, first, step, loops

    def _short_circuit(self, node: Node) -> bool:
        op = node.child_by_field_id(F_OPERATOR)
        return op is not None and self.text(op) in ("&&", "||")

    def _unrolled_index(self, index: Node) -> bool:
        """Is `index` made of constants and the counters of the loops around it that the
        compiler unrolls (`i`, `7 - i`, `i * 2 + j`), so a constant in every unrolled copy?"""
        counters: list[Symbol] = []
        cur = index.parent
        while cur is not None and cur.type != "function_definition":
            if cur.type == "for_statement" and unrolled(self.m, cur) is True:
                found = trip_count(self.m, cur)
                sym = self.m.resolve(found[0]) if found is not None else None
                if sym is not None:
                    counters.append(sym)
            cur = cur.parent
        if not counters:
            return False
        return self._made_of_counters(index, counters, 0)

    def _made_of_counters(
        self, expr: Node, counters: list[Symbol], depth: int, used: set[int] | None = None
    ) -> bool:
        """Is `expr` made of constants, `counters` and locals set once from such an expression
        (`int k = (y + 1) * 3 + x + 1;` in the loop, never written again)? `used` collects
        the counters it reads (their `id`)."""
        for n in self.tree.walk(expr):
            kind = n.type
            if kind in _NOT_FOLDED_INDEX:
                return False
            if kind == "identifier":
                sym = self.m.resolve(n)
                if sym is not None and sym in counters:
                    if used is not None:
                        used.add(id(sym))
                    continue
                if isinstance(self.const_value(n), int):
                    continue
                if (
                    sym is None
                    or sym.kind != "local"
                    or sym.init is None
                    or depth >= 4
                    or not self.m.never_written(sym)
                    or not self._made_of_counters(sym.init, counters, depth + 1, used)
                ):
                    return False
        return True

    @staticmethod
    def _indices(node: Node) -> list[Node]:
        idx_node = node.child_by_field_id(F_INDICES)
        if idx_node is None:
            return []
        if idx_node.type == "subscript_argument_list":
            return [c for c in idx_node.named_children if c.type != "comment"]
        return [idx_node]

    def _array_element(self, node: Node) -> Value | None:
        """The element value of `a[k]` for a split local array `a` and a constant `k`."""
        arg = node.child_by_field_id(F_ARGUMENT)
        sym = self._base_symbol(arg)
        if sym is not None and self.iteration_array(sym) is not None:
            return self.var(sym)[0]
        if sym is None or not self._split_array(sym):
            return None
        idx = self._indices(node)
        k = self.const_value(idx[0]) if len(idx) == 1 else None
        vals = self.var(sym)
        if not isinstance(k, int) or not 0 <= k < len(vals):
            return None
        return vals[k]

    def _base_symbol(self, node: Node | None) -> Symbol | None:
        if node is not None and (node.type == "identifier" or node.type == "this"):
            return self.m.resolve(node)
        return None

    def member_value(self, sym: Symbol, member: str) -> Value | None:
        t = sym.type
        if t.kind != "struct":
            return None
        for m, v in zip(t.members, self.var(sym), strict=False):
            if m.name == member:
                return v
        return None

    # -- resources ------------------------------------------------------------------------

    def resource(self, sym: Symbol, node: Node | Span) -> Value:
        """A resource's descriptor, loaded (scalar) where it is used: 24 textures read one after
        another each hold theirs only at their read (regtruth: a peak of 10 SGPRs before
        scheduling); a later use of the same resource reuses the first load
        (`passes.common_values`)."""
        res = sym.type.resource
        c = self.costs
        width = (
            c.texture_descriptor_sgprs
            if res is not None and res.is_texture
            else (
                c.sampler_descriptor_sgprs
                if res is not None and res.category == "sampler"
                else c.buffer_descriptor_sgprs
            )
        )
        return self._descriptor(sym.name, width, sym.type, sym, node)

    def cbuffer(self, name: str, node: Node | Span) -> Value:
        return self._descriptor(name, self.costs.cbuffer_descriptor_sgprs, T.UNKNOWN, None, node)

    def _descriptor(self, name: str, width: int, t: T.Type, sym: Symbol | None, node: Node | Span) -> Value:
        v = Value(len(self.values), name, width, "resource", t, sym, "sgpr")
        self.values.append(v)
        self.emit("descriptor", v, [], node, rule="uniform")
        return v

    # -- what a subtree writes ------------------------------------------------------------

    def _writes(self, body: Node, sym: Symbol, parts: bool = False) -> bool:
        """Does `body` write `sym` (with `parts`: or a member, element or swizzle of it)?"""
        whole, in_part = self._written_in(body)
        return sym in (in_part if parts else whole)

    def _written_in(self, body: Node) -> tuple[set[Symbol], set[Symbol]]:
        """(symbols `body` assigns, updates or passes to an out argument; those and the symbols
        it writes a member, element or swizzle of), one walk per node and unit."""
        found = self.facts.writes.get(body.id)
        if found is not None:
            return found
        whole: set[Symbol] = set()
        in_part: set[Symbol] = set()
        resolve = self.m.resolve
        for n in self.tree.walk(body):
            target = None
            kind = n.type
            if kind == "assignment_expression":
                target = n.child_by_field_id(F_LEFT)
            elif kind == "update_expression":
                target = n.child_by_field_id(F_ARGUMENT)
            elif kind == "call_expression":
                args = n.child_by_field_id(F_ARGUMENTS)
                for i, a in enumerate(args.named_children if args is not None else []):
                    if a.type == "identifier" and self._may_write_arg(n, i):
                        sym = resolve(a)
                        if sym is not None:
                            whole.add(sym)
                            in_part.add(sym)
            if target is None:
                continue
            if target.type == "identifier":
                sym = resolve(target)
                if sym is not None:
                    whole.add(sym)
                    in_part.add(sym)
                continue
            while target is not None and target.type in ACCESS_EXPRESSIONS:
                target = target.child_by_field_id(F_ARGUMENT)
            if target is not None and target.type == "identifier":
                sym = resolve(target)
                if sym is not None:
                    in_part.add(sym)
        found = self.facts.writes[body.id] = (whole, in_part)
        return found

    def _builtin_method_writes(self, call: Node, fn: Node, index: int) -> bool:
        """Whether argument `index` of a method of a built-in object may be written: a fetch
        (`Load`, `Sample*`, `Gather*`) writes only its optional status, its last argument at
        the longest form (`buf.Load(i)`, `ms.Load(p, s)` read their arguments); another method
        (`GetDimensions`, `Interlocked*`, a method not known) may write any."""
        field = fn.child_by_field_id(F_FIELD)
        name = self.text(field) if field is not None else ""
        if not name.startswith(("Load", "Sample", "Gather")):
            return True
        args = call.child_by_field_id(F_ARGUMENTS)
        n = len([a for a in args.named_children if a.type != "comment"]) if args is not None else 0
        if index != n - 1:
            return False
        if name.startswith("Load"):
            res = self.m.type_of(fn.child_by_field_id(F_ARGUMENT)).resource
            if res is None or res.category != "texture" or res.writable:
                return n >= 2  # `Load(address, status)`
            return n >= (4 if "MS" in res.kind else 3)  # `Load(p[, sample], offset, status)`
        return n >= 4  # `Sample(s, uv, offset, clamp, status)`, `Gather(s, uv, offset, status)`

    def _may_write_arg(self, call: Node, index: int) -> bool:
        """Whether argument `index` of a call may be an out/inout argument."""
        fn = call.child_by_field_id(F_FUNCTION)
        if fn is not None and fn.type == "field_expression":
            # a struct's method writes its object and the arguments of its out and inout
            # parameters only; another method (GetDimensions, Interlocked* on a resource...)
            # may write any argument
            method = self.m.callee(call)
            if method is None:
                return self._builtin_method_writes(call, fn, index)
            found = self.m.open_overloads.get(call.id) or [method]
            return any(index < len(f.params) and f.params[index].direction != "in" for f in found)
        if fn is not None and fn.type == "primitive_type":
            return False  # `int(k)`, `float2(i, j)`: a cast or constructor only reads
        if fn is None or fn.type != "identifier":
            return True
        name = self.text(fn)
        user = self.m.functions.get(name)
        if user:
            return any(index < len(f.params) and f.params[index].direction != "in" for f in user)
        # Intrinsics with out parameters; constructors and other intrinsics only read.
        return name in OUT_INTRINSICS or name in RAY_PAYLOAD_WRITERS or name.startswith("Interlocked")
