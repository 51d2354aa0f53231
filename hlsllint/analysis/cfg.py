"""Lowering one entry point to a control-flow graph of simple instructions.

`build_cfg(model, entry) -> CFG`. Every call is inlined (recursion and very deep call chains are
cut and treated as opaque calls). Each instruction defines at most one `Value` and reads others;
its `span` is the code-point span of the expression or statement in the preprocessed text.

Values: named variables (`kind="var"`, redefined by every assignment: the IR is not SSA; a
struct variable is split into one value per member), expression temporaries (`temp`, defined
once), stage inputs (`input`), preloaded hardware registers (`preload`) and resource
descriptors (`resource`). Literals and compile-time constants produce no value.

Blocks are the nodes of `CFG.graph` (a networkx DiGraph); `graph.nodes[b]["instrs"]` is the
block's instruction list. A block ending in a conditional branch has an instruction with
`op="branch"` whose reads hold the condition. Loops are recorded in `CFG.loops` (`LoopRecord`:
blocks, header, attributes, constant trip count when the compiler can tell it). Constant-trip
`[unroll]` loops are *not* expanded: liveness is the same for every iteration, so one copy of the
body gives the same peak (the scheduler's interleaving of unrolled iterations is not modelled).
"""

from __future__ import annotations

from itertools import chain
from typing import Any

import networkx as nx

from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel
from hlsllint.analysis.ir import CFG, Instr, LoopRecord, Value
from hlsllint.analysis.lowering import (
    Frame,
)
from hlsllint.analysis.lowering_inline import InlineLowerer
from hlsllint.analysis.occupancy import resolve_target
from hlsllint.analysis.passes import common_values, dead_instructions, sink_inputs
from hlsllint.semantic import types as T
from hlsllint.semantic.model import EntryPoint, Model, Symbol
from hlsllint.syntax import Node
from hlsllint.syntax.fields import (
    F_ALTERNATIVE,
    F_ARGUMENT,
    F_BODY,
    F_CONDITION,
    F_CONSEQUENCE,
    F_DECLARATOR,
    F_INITIALIZER,
    F_LEFT,
    F_OPERATOR,
    F_RIGHT,
    F_UPDATE,
    F_VALUE,
)
from hlsllint.syntax.queries import for_header

UNIFORM_INPUTS = frozenset({"SV_GROUPID", "SV_VIEWID"})
PRELOADED_INPUTS = {
    "SV_GROUPTHREADID": "local_invocation_id",
    "SV_VERTEXID": "vertex_id",
    "SV_INSTANCEID": "instance_id",
}
"""System values that are exactly registers the hardware preloads (no instruction computes them)."""


class _Lowerer(InlineLowerer):
    # -- entry ----------------------------------------------------------------------------

    def lower_entry(self) -> CFG:
        fn = self.entry_point.function
        stage = self.entry_point.stage
        exit_block = -1  # set below
        frame = Frame(fn, None, exit_block)
        self.frames.append(frame)
        preloads = list(self.costs.preloads.get(stage, ()))
        if stage == "vertex":
            family = resolve_target(self.m.settings.target).family
            extra = self.costs.vs_input_vgprs.get(family, 2) - 2
            if extra > 0:  # the other system values the hardware loads into a vertex wave
                preloads.append(("vs_system_inputs", extra, "vgpr"))
        self.preloaded_vgprs = sum(w for _, w, cls in preloads if cls == "vgpr")
        group = self.entry_point.group_size
        for name, width, cls in preloads:
            if name == "local_invocation_id" and group is not None:
                # the wave starts with all three, but a 1-D group's y and z are 0: only the
                # dimensions the group has stay live
                width = max(1, sum(1 for d in group if d > 1))
            v = Value(len(self.values), name, width, "preload", T.UNKNOWN, None, cls)
            self.values.append(v)
            self.preloads[name] = v
            self.emit("preload", v, [], fn.node, rule="uniform" if cls == "sgpr" else "lane")
        for p in fn.params:
            if p.direction == "out":
                continue
            alias = self.preloads.get(PRELOADED_INPUTS.get((p.semantic or "").upper(), ""))
            if alias is not None and p.type.kind != "struct":
                frame.env[p] = [alias]  # the preloaded registers themselves, not a copy
                continue
            for v, sem in zip(self.var(p), self._semantics(p), strict=False):
                rule = "uniform" if (sem or "").upper() in UNIFORM_INPUTS else "lane"
                if "uniform" in p.qualifiers:
                    rule = "uniform"
                self.emit("input", v, self._input_sources(sem), p.node or fn.node, rule=rule, semantic=sem)
        ret = (
            [self.value(f"{fn.name}.return", fn.return_type, "var")]
            if (fn.return_type.kind not in ("void", "unknown"))
            else None
        )
        if ret and fn.return_type.kind == "struct":
            ret = [self.value(f"return.{m.name}", m.type, "var") for m in fn.return_type.members]
        frame.ret = ret
        exit_b = self.new_block()
        frame.exit = exit_b
        if fn.body is not None:
            self.stmt(fn.body)
        self.edge(self.block, exit_b)
        self.block = exit_b
        outs: list[Value | None] = list(ret or [])
        for p in fn.params:
            if p.direction in ("out", "inout"):
                outs.extend(self.var(p))
        self.emit("export", None, outs, fn.node)
        return self.finish(exit_b)

    def _semantics(self, p: Symbol) -> list[str | None]:
        if p.type.kind == "struct":
            return [m.semantic for m in p.type.members]
        return [p.semantic]

    def _input_sources(self, sem: str | None) -> list[Value | None]:
        s = (sem or "").upper()
        pre = self.preloads
        if s in ("SV_DISPATCHTHREADID",):
            return [pre.get("local_invocation_id"), pre.get("workgroup_id")]
        if s in ("SV_GROUPTHREADID", "SV_GROUPINDEX"):
            return [pre.get("local_invocation_id")]
        if s == "SV_GROUPID":
            return [pre.get("workgroup_id")]
        if s in ("SV_VERTEXID",):
            return [pre.get("vertex_id")]
        if s in ("SV_INSTANCEID",):
            return [pre.get("instance_id")]
        if self.entry_point.stage == "pixel" and not s.startswith("SV_"):
            return [pre.get("barycentrics"), pre.get("prim_mask")]
        if self.entry_point.stage == "vertex" and not s.startswith("SV_"):
            return [pre.get("vertex_id")]
        return []

    def finish(self, exit_b: int) -> CFG:
        """The graph of the blocks the entry reaches (in block order, then the exit block if
        no path reaches it, with no instructions), and the passes over it."""
        blocks = self.blocks
        n = len(blocks)
        succ: list[list[int]] = [[] for _ in range(n)]
        for a, b in self.edges:
            if not (0 <= a < n and 0 <= b < n):  # a block that was never made (cut short)
                return self._finish_unnumbered(exit_b)
            succ[a].append(b)
        seen = bytearray(n)
        seen[0] = 1
        stack = [0]
        while stack:
            for b in succ[stack.pop()]:
                if not seen[b]:
                    seen[b] = 1
                    stack.append(b)
        live = [b for b in range(n) if seen[b]]
        dead = [b for b in range(n) if not seen[b]]
        g = self.g
        # Numbers first, then the instruction lists: `add_nodes_from` given (node, attributes)
        # pairs takes each one through a TypeError it raises and catches.
        g.add_nodes_from(live)
        nx.set_node_attributes(g, {b: blocks[b] for b in live}, "instrs")
        g.add_edges_from(e for e in self.edges if seen[e[0]])
        if not (0 <= exit_b < n and seen[exit_b]):
            g.add_node(exit_b, instrs=[])
        for loop in self.loops:
            loop.blocks = frozenset(b for b in loop.blocks if seen[b])
        instrs = list(chain.from_iterable(blocks[b] for b in live))
        return self._passes(exit_b, instrs, dead)

    def _finish_unnumbered(self, exit_b: int) -> CFG:
        """`finish` through networkx alone, for edges to blocks that do not exist."""
        self.g.add_nodes_from((b, {"instrs": instrs}) for b, instrs in enumerate(self.blocks))
        self.g.add_edges_from(self.edges)
        reachable = nx.descendants(self.g, 0) | {0}
        dead = [b for b in self.g.nodes if b not in reachable]
        self.g.remove_nodes_from(dead)
        if exit_b not in self.g:
            self.g.add_node(exit_b, instrs=[])
        for loop in self.loops:
            loop.blocks = frozenset(b for b in loop.blocks if b in reachable)
        instrs = [ins for b in self.g.nodes for ins in self.g.nodes[b]["instrs"]]
        return self._passes(exit_b, instrs, dead)

    def _passes(self, exit_b: int, instrs: list[Instr], dead: list[int]) -> CFG:
        sink_inputs(self.g, instrs)
        expr = self.expr
        viewed = {x for sp in self.view_spans for x in expr.get(sp, ()) if isinstance(x, Value)}
        merged = common_values(self.g, 0, instrs, viewed)
        return CFG(
            self.entry_point,
            self.g,
            0,
            exit_b,
            self.values,
            self.loops,
            self.expr,
            self.entry_point.stage,
            self.truncated,
            frozenset(dead),
            self.preloaded_vgprs,
            dead_instructions(instrs) | merged,
            self.replayed,
        )

    # -- statements -----------------------------------------------------------------------

    def stmt(self, node: Node | None) -> None:
        if node is None or self.truncated:
            return
        kind = node.type
        if kind == "compound_statement":
            for c in node.named_children:
                self.stmt(c)
        elif kind == "declaration":
            self.declaration(node)
        elif kind == "expression_statement":
            for c in node.named_children:
                self.expr_(c)
        elif kind == "if_statement":
            self.if_(node)
        elif kind == "for_statement":
            self.loop(node, "for")
        elif kind == "while_statement":
            self.loop(node, "while")
        elif kind == "do_statement":
            self.loop(node, "do")
        elif kind == "switch_statement":
            self.switch(node)
        elif kind == "return_statement":
            self.return_(node)
        elif kind == "break_statement":
            if self.loop_targets:
                self.edge(self.block, self.loop_targets[-1][1])
                self.block = self.new_block()
        elif kind == "continue_statement":
            target = next((c for c, _ in reversed(self.loop_targets) if c is not None), None)
            if target is not None:
                self.edge(self.block, target)
                self.block = self.new_block()
        elif kind == "discard_statement":
            self.emit("discard", None, [], node, rule="effect")
        elif kind in ("attributed_statement", "labeled_statement"):
            for c in node.named_children:
                if c.type.endswith("statement") or c.type == "declaration":
                    self.stmt(c)
        elif kind in ("comment", "type_definition", "struct_specifier", ";"):
            return
        elif node.is_named and not kind.endswith("_declaration"):
            # Unknown statement shapes (ERROR nodes...): lower the expressions inside.
            for c in node.named_children:
                if c.type.endswith("statement") or c.type == "declaration":
                    self.stmt(c)
                elif c.type.endswith("expression"):
                    self.expr_(c)

    def declaration(self, node: Node) -> None:
        for c in node.named_children:
            if c.type in ("struct_specifier", "primitive_type", "type_identifier"):
                continue
            target = c
            while target.type in ("init_declarator", "array_declarator"):
                nxt = target.child_by_field_id(F_DECLARATOR)
                if nxt is None:
                    break
                target = nxt
            if target.type != "identifier":
                continue
            sym = self.m.resolve(target)
            if sym is None or sym.kind not in ("local", "static", "static_const"):
                continue
            if sym.kind == "static_const" and self.const_value(sym.init) is not None:
                continue
            init = c.child_by_field_id(F_VALUE) if c.type == "init_declarator" else None
            if init is None:
                # Declared, not yet written: a later partial write (an element, a member, a
                # swizzle) starts its live range here, not at the function's entry.
                for v in self.var(sym):
                    self.emit("undef", v, [], c, rule="uniform")
                continue
            self.assign_values(self.var(sym), init, c)

    def cond(self, node: Node | None) -> tuple[Value | None, Any]:
        """Lower a condition; also its compile-time value when it has one."""
        if node is None:
            return None, None
        if node.type == "condition_clause":
            parts = node.named_children
            for p in parts[:-1]:
                self.stmt(p) if p.type == "declaration" else self.expr_(p)
            node = node.child_by_field_id(F_VALUE) or (parts[-1] if parts else None)
            if node is None:
                return None, None
        return self.expr_(node), self.const_value(node)

    def if_(self, node: Node) -> None:
        c, const = self.cond(node.child_by_field_id(F_CONDITION))
        then = node.child_by_field_id(F_CONSEQUENCE)
        alt = node.child_by_field_id(F_ALTERNATIVE)
        if alt is not None and alt.type == "else_clause":
            alt = alt.named_children[0] if alt.named_children else None
        if const is not None:
            self.stmt(then if const else alt)
            return
        self.emit("branch", None, [c], node)
        head = self.block
        join = self.new_block()
        self.block = self.new_block()
        self.edge(head, self.block)
        self.stmt(then)
        self.edge(self.block, join)
        if alt is not None:
            self.block = self.new_block()
            self.edge(head, self.block)
            self.stmt(alt)
            self.edge(self.block, join)
        else:
            self.edge(head, join)
        self.block = join

    def loop(self, node: Node, kind: str) -> None:
        first = len(self.blocks)
        attrs = tuple(a.name.lower() for a in self._attributes(node))
        trip = self.trip_count(node) if kind == "for" else None
        if kind == "for":
            init = node.child_by_field_id(F_INITIALIZER)
            if init is not None:
                self.stmt(init) if init.type == "declaration" else self.expr_(init)
        header = self.new_block()
        self.edge(self.block, header)
        exit_b = self.new_block()
        cont = self.new_block()  # the latch: update, then back to the header
        self.block = header
        body = node.child_by_field_id(F_BODY)
        if kind in ("for", "while"):
            c, const = self.cond(node.child_by_field_id(F_CONDITION))
            if const is None or not const:
                self.emit("branch", None, [c], node)
                self.edge(self.block, exit_b)
            body_b = self.new_block()
            self.edge(self.block, body_b)
            self.block = body_b
            self.loop_targets.append((cont, exit_b))
            self.stmt(body)
            self.loop_targets.pop()
            self.edge(self.block, cont)
            self.block = cont
            if kind == "for":
                upd = node.child_by_field_id(F_UPDATE)
                if upd is not None:
                    self.expr_(upd)
            self.edge(self.block, header)
        else:  # do { body } while (cond)
            self.loop_targets.append((cont, exit_b))
            self.stmt(body)
            self.loop_targets.pop()
            self.edge(self.block, cont)
            self.block = cont
            c, const = self.cond(node.child_by_field_id(F_CONDITION))
            if const is None or const:
                self.emit("branch", None, [c], node)
                self.edge(self.block, header)
            self.edge(self.block, exit_b)
        last = len(self.blocks)
        blocks = frozenset(b for b in range(first, last) if b != exit_b)
        self.loops.append(LoopRecord(self.span(node), kind, header, blocks, attrs, trip))
        self.block = exit_b

    def _attributes(self, node: Node) -> list[Any]:
        get = getattr(self.tree, "attributes_of", None)
        attrs: list[Any] = list(get(node)) if get is not None else []
        for c in node.children:  # unrepaired trees keep hlsl_attribute children
            if c.type == "hlsl_attribute":
                name = self.text(c).strip("[] \t\n").split("(")[0].strip()
                attrs.append(type("A", (), {"name": name})())
        return attrs

    def trip_count(self, node: Node) -> int | None:
        """Constant trip count of `for (i = A; i < B; i++ / i += C)` with i not written in the
        body; None otherwise."""
        header = for_header(node)
        if header is None or header.counter.type != "identifier":
            return None
        var, start, cond, upd = header
        sym = self.m.resolve(var)
        a = self.const_value(start)
        if sym is None or not isinstance(a, int):
            return None
        left, right = cond.child_by_field_id(F_LEFT), cond.child_by_field_id(F_RIGHT)
        op = self.text(cond.child_by_field_id(F_OPERATOR) or cond)
        if left is None or left.type != "identifier" or self.m.resolve(left) is not sym:
            return None
        b = self.const_value(right)
        step = self._step(upd, sym)
        if not isinstance(b, int) or step is None or step == 0:
            return None
        body = node.child_by_field_id(F_BODY)
        if body is not None and self._writes(body, sym):
            return None
        if op == "<=" or op == ">=":
            b += 1 if step > 0 else -1
        if op in ("<", "<=", "!=") and step > 0:
            return max(0, -(-(b - a) // step))
        if op in (">", ">=", "!=") and step < 0:
            return max(0, -(-(a - b) // -step))
        return None

    def _step(self, upd: Node, sym: Symbol) -> int | None:
        if upd.type == "update_expression":
            arg = upd.child_by_field_id(F_ARGUMENT)
            if arg is None or self.m.resolve(arg) is not sym:
                return None
            return 1 if "++" in self.text(upd) else -1
        if upd.type == "assignment_expression":
            left = upd.child_by_field_id(F_LEFT)
            if left is None or self.m.resolve(left) is not sym:
                return None
            op = self.text(upd.child_by_field_id(F_OPERATOR) or upd)
            v = self.const_value(upd.child_by_field_id(F_RIGHT))
            if not isinstance(v, int):
                return None
            return v if op == "+=" else -v if op == "-=" else None
        return None

    def switch(self, node: Node) -> None:
        c, known = self.cond(node.child_by_field_id(F_CONDITION))
        body = node.child_by_field_id(F_BODY)
        cases = [x for x in body.named_children if x.type == "case_statement"] if body else []
        if isinstance(known, int) and not isinstance(known, bool):
            self._constant_switch(cases, known)
            return
        self.emit("branch", None, [c], node)
        head = self.block
        exit_b = self.new_block()
        prev: int | None = None
        has_default = False
        self.loop_targets.append((None, exit_b))
        for case in cases:
            b = self.new_block()
            self.edge(head, b)
            if prev is not None:
                self.edge(prev, b)  # fall-through
            self.block = b
            if self.text(case).lstrip().startswith("default"):
                has_default = True
            value = case.child_by_field_id(F_VALUE)
            for s in case.named_children:
                if value is not None and s.id == value.id:
                    continue
                self.stmt(s)
            prev = self.block
        self.loop_targets.pop()
        if prev is not None:
            self.edge(prev, exit_b)
        if not has_default:
            self.edge(head, exit_b)
        self.block = exit_b

    def _constant_switch(self, cases: list[Node], known: int) -> None:
        """A switch on a compile-time value (a specialization constant, a macro) runs one case
        and what falls through from it; the compiler drops the others."""
        start = None
        for i, case in enumerate(cases):
            value = case.child_by_field_id(F_VALUE)
            if value is not None and self.const_value(value) == known:
                start = i
                break
        if start is None:
            text = self.text
            defaults = [i for i, x in enumerate(cases) if text(x).lstrip().startswith("default")]
            start = defaults[0] if defaults else None
        exit_b = self.new_block()
        self.loop_targets.append((None, exit_b))
        for case in cases[start:] if start is not None else []:
            value = case.child_by_field_id(F_VALUE)
            for st in case.named_children:
                if value is not None and st.id == value.id:
                    continue
                self.stmt(st)
        self.loop_targets.pop()
        self.edge(self.block, exit_b)
        self.block = exit_b

    def return_(self, node: Node) -> None:
        frame = self.frames[-1]
        values = [c for c in node.named_children if c.type != "comment"]
        if values and frame.ret:
            self.assign_values(frame.ret, values[0], node)
        elif values:
            self.expr_(values[0])
        self.edge(self.block, frame.exit)
        self.block = self.new_block()


def build_cfg(
    model: Model, entry: EntryPoint, costs: CostModel = DEFAULT_COSTS, *, replay: bool = True
) -> CFG:
    """Inline and lower one entry point (see the module docstring). `replay=False` walks every
    inlined body's syntax afresh (the tests compare the two)."""
    lowerer = _Lowerer(model, entry, costs, replay)
    try:
        return lowerer.lower_entry()
    except RecursionError:
        lowerer.truncated = True
        return lowerer.finish(lowerer.frames[0].exit if lowerer.frames else 0)
