"""Lowering statements: declarations, the blocks and edges of control flow, and loops.

`StmtLowerer.stmt` lowers a statement into the current block and leaves `block` at the code
after it: `if` and `switch` branch and join, loops get a header, a latch and an exit (and a
`LoopRecord` with their attributes and constant trip count), `break`, `continue` and `return`
jump. A condition with a compile-time value lowers only the branch it takes.
"""

from __future__ import annotations

from typing import Any

from hlsllint.analysis.ir import LoopRecord, Span, Value
from hlsllint.analysis.lowering import Frame, _flatten
from hlsllint.analysis.lowering_expr import swizzle_components
from hlsllint.analysis.lowering_inline import InlineLowerer
from hlsllint.semantic.loops import UNROLLED_TRIP_LIMIT, loop_header, trip_count
from hlsllint.semantic.symbols import Symbol
from hlsllint.syntax import Node
from hlsllint.syntax.fields import (
    F_ALTERNATIVE,
    F_ARGUMENT,
    F_ARGUMENTS,
    F_BODY,
    F_CONDITION,
    F_CONSEQUENCE,
    F_DECLARATOR,
    F_FIELD,
    F_FUNCTION,
    F_INITIALIZER,
    F_UPDATE,
    F_VALUE,
)
from hlsllint.syntax.queries import else_statement, unparen


class StmtLowerer(InlineLowerer):
    """Statements and control flow."""

    def stmt(self, node: Node | None) -> None:
        if node is None or self.truncated:
            return
        self.deadline.tick()
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
                for v in _flatten(self.var(sym)):
                    self.emit("undef", v, [], c, rule="uniform", declared=True)
                continue
            alias = self._copied_value(sym, init) if sym.kind == "local" else None
            if alias is not None:
                self.frames[-1].env[sym] = [alias]
                self.record(init, alias)
                continue
            self.assign_values(self.var(sym), init, c)
            if sym.kind == "local":
                self.note_memory_copy(sym, init, self.var(sym))

    def _copied_value(self, sym: Symbol, init: Node) -> Value | None:
        """The value a local never written after its declaration copies, when it is set from
        another variable never written after its own (`uint2 p = id.xy;`, `int2 p =
        int2(id.xy);`, `float3 n = normal;`): the compiler's SSA form reads the source's
        registers, so the copy is the source's value, not a second one held beside it
        (regtruth: `int2 p = int2(id.xy)` read in a loop, `id.xy` after it, 10 presched
        VGPRs; both held, 12). The whole value (`id.xy` of a `uint2 id`), also between
        signed and unsigned integers (no instruction); not a copy of fewer components
        (`uint i = id.x;`), which readers that name no components would read whole."""
        t = sym.type
        if t.kind not in ("scalar", "vector") or not self.frames or not self.m.never_written(sym):
            return None
        node = unparen(init)
        if node.type in ("call_expression", "cast_expression"):
            if node.type == "call_expression":
                fn = node.child_by_field_id(F_FUNCTION)
                args = node.child_by_field_id(F_ARGUMENTS)
                inner = [a for a in args.named_children if a.type != "comment"] if args is not None else []
                if fn is None or fn.type not in ("identifier", "primitive_type", "type_identifier"):
                    return None
                named = self.m.lookup_type(self.text(fn))
                if named is None or named.kind not in ("scalar", "vector") or len(inner) != 1:
                    return None  # a call, not a constructor
                node = inner[0]
            else:
                value = node.child_by_field_id(F_VALUE)
                if value is None:
                    return None
                node = value
            node = unparen(node)
            made = self.m.type_of(node)
            if not (t.is_int and made.is_int and made.count == t.count):
                return None  # a conversion, not a reinterpretation
        picked: tuple[int, ...] | None = None
        if node.type == "field_expression":
            field = node.child_by_field_id(F_FIELD)
            picked = swizzle_components(self.text(field)) if field is not None else None
            if picked is None or picked != tuple(range(len(picked))):
                return None  # not the leading components
            node = unparen(node.child_by_field_id(F_ARGUMENT) or node)
        if node.type != "identifier":
            return None
        src = self.m.resolve(node)
        if src is None or src is sym or src.kind not in ("local", "param"):
            return None
        st = self.sym_type(src)
        if st.kind not in ("scalar", "vector") or st.count < t.count:
            return None
        if st.count != t.count:
            return None  # a narrower copy: a reader that names no components would read all
        if st.is_float != t.is_float or not self.m.never_written(src):
            return None
        vals = self.var(src)
        if len(vals) != 1 or vals[0].parts is not None or vals[0].kind == "temp":
            return None
        return vals[0]

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
        if alt is not None:
            alt = else_statement(alt)
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
            counter = self._unrolled_counter(node, attrs, trip)
            if counter is not None:
                self.unrolled_counters.append(counter)
            self.stmt(body)
            if counter is not None:
                self.unrolled_counters.pop()
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

    def _unrolled_counter(
        self, node: Node, attrs: tuple[str, ...], trip: int | None
    ) -> tuple[Symbol, tuple[int, ...], Span] | None:
        """(counter, its value per iteration) of a loop the compiler unrolls: a constant trip
        count within `UNROLLED_TRIP_LIMIT` (or `[unroll]`), not `[loop]`."""
        if (
            trip is None
            or trip < 2
            or "loop" in attrs
            or (trip > UNROLLED_TRIP_LIMIT and "unroll" not in attrs)
        ):
            return None
        header = loop_header(self.m, node)
        if header is None:
            return None
        start = self.const_value(header.start)
        step = header.step(self.m, self.const_value)
        sym = self.m.resolve(header.counter)
        if sym is None or step is None or not isinstance(start, int) or isinstance(start, bool):
            return None
        return sym, tuple(start + k * step for k in range(trip)), self.span(node)

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
        body (`semantic.loops.trip_count`, the rules' answer too), folded in this inlined copy;
        None otherwise."""
        found = trip_count(self.m, node, self.const_value, self._counter_written)
        return None if found is None else found[1]

    def _counter_written(self, body: Node, counter: Node) -> bool:
        """Does `body` write the loop counter (assigned, updated or passed to an out argument)?
        A counter that does not resolve is taken as written (no trip count)."""
        sym = self.m.resolve(counter)
        return sym is None or self._writes(body, sym)

    def switch(self, node: Node) -> None:
        c, known = self.cond(node.child_by_field_id(F_CONDITION))
        body = node.child_by_field_id(F_BODY)
        cases = [x for x in body.named_children if x.type == "case_statement"] if body else []
        if isinstance(known, int) and not isinstance(known, bool):
            self._constant_switch(cases, known)
            return
        # The compiler tests the cases one after another (SPIR-V's OpSwitch becomes a chain of
        # `if`s in NIR): the case last in the source is tested first, the default last, and
        # what a case tested later reads stays live through the cases tested before it.
        arms: list[list[Node]] = []
        for case in cases:
            if not arms or any(self._case_body(c) for c in arms[-1]):
                arms.append([])
            arms[-1].append(case)
        plain: list[list[Node]] = []
        defaults: list[list[Node]] = []
        for arm in arms:
            (defaults if any(self._is_default(c) for c in arm) else plain).append(arm)
        frame = self.frames[-1] if self.frames else None
        ret = frame.ret if frame is not None else None
        returns = bool(
            ret
            and defaults
            and body is not None
            and any(n.type == "return_statement" for n in self.m.tree.walk(body))
        )
        if returns:
            # with a default some case runs, but the chain has a path past every case: the
            # return value holds nothing on it (nothing was returned before the switch)
            for r in _flatten(ret or []):
                self.emit("undef", r, [], node, rule="uniform")
        # every case returns: nothing after the switch runs
        all_return = returns and all(self._returns(self._case_body(arm[-1])) for arm in arms)
        for arm in plain[::-1] + defaults:
            self.emit("branch", None, [c], node)
            test = self.block
            skip = self.new_block()
            self.edge(test, skip)
            self.block = self.new_block()
            self.edge(test, self.block)
            self.loop_targets.append((None, skip))
            # A case that returns goes on through the tests of the cases after it (NIR's chain
            # of `if`s guards them with a flag): what it returns stays live through them
            # (regtruth: the returned values of the case tested first are live at the test of
            # the next, 30 presched VGPRs; 27 with the case returning straight to the exit).
            exit_b = frame.exit if frame is not None else None
            if all_return and frame is not None:
                frame.exit = skip
            for case in arm:
                for s in self._case_body(case):
                    self.stmt(s)
            if frame is not None and exit_b is not None:
                frame.exit = exit_b
            self.loop_targets.pop()
            self.edge(self.block, skip)  # falls off its end (into the next case: rare)
            self.block = skip
        if all_return and frame is not None:
            self.edge(self.block, frame.exit)  # every path here returned
            self.block = self.new_block()

    def _returns_early(self, frame: Frame, node: Node) -> bool:
        """Whether the `return` at `node` leaves code of its function after it that the
        compiler cannot fold into a select: anything but one `return` of a little arithmetic
        on locals and parameters (NIR's peephole select takes up to 8 instructions and no
        memory read; regtruth: `return a * c + b` of float4s after `if (c.w <= k) return 0;`
        is a select of the two, `sqrt(a * c + b)`, a second statement or a cbuffer read is not)."""
        body = frame.fn.body if frame.fn is not None else None
        if body is None:
            return False
        found = self.early_returns.get(node.id)
        if found is not None:
            return found
        rest: list[Node] = []
        n: Node | None = node
        while n is not None and n.id != body.id:
            parent = n.parent
            if parent is not None and parent.type == "compound_statement":
                after = False
                for c in parent.named_children:
                    if after and c.type != "comment":
                        rest.append(c)
                    after = after or c.id == n.id
            n = parent
        early = bool(rest) and not self._selectable(rest, frame)
        self.early_returns[node.id] = early
        return early

    def _selectable(self, rest: list[Node], frame: Frame) -> bool:
        """Whether `rest` is one `return` of a few operations on locals and parameters."""
        if len(rest) != 1 or rest[0].type != "return_statement":
            return False
        values = [c for c in rest[0].named_children if c.type != "comment"]
        if not values:
            return True
        ops = 0
        for c in self.m.tree.walk(values[0]):
            if c.type in ("call_expression", "subscript_expression", "conditional_expression"):
                return False
            if c.type in ("binary_expression", "unary_expression"):
                ops += 1
            elif c.type == "identifier":
                sym = self.m.resolve(c)
                if sym is None or sym.kind not in ("local", "param"):
                    return False
        ret = frame.fn.return_type if frame.fn is not None else None
        width = ret.count if ret is not None and ret.kind in ("scalar", "vector") else 4
        return ops * max(1, width) <= 8

    def _returns(self, stmts: list[Node]) -> bool:
        """Whether statements end in a `return` (the last one, or the last of a block)."""
        last = [s for s in stmts if s.is_named and s.type != "comment"]
        if not last:
            return False
        s = last[-1]
        if s.type == "compound_statement":
            return self._returns(list(s.named_children))
        return s.type == "return_statement"

    def _case_body(self, case: Node) -> list[Node]:
        """The statements of a `case`/`default` label (its value left out)."""
        value = case.child_by_field_id(F_VALUE)
        return [s for s in case.named_children if value is None or s.id != value.id]

    def _is_default(self, case: Node) -> bool:
        """Whether `case` is the `default` label."""
        return self.text(case).lstrip().startswith("default")

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
            start = next((i for i, x in enumerate(cases) if self._is_default(x)), None)
        exit_b = self.new_block()
        self.loop_targets.append((None, exit_b))
        for case in cases[start:] if start is not None else []:
            for st in self._case_body(case):
                self.stmt(st)
        self.loop_targets.pop()
        self.edge(self.block, exit_b)
        self.block = exit_b

    def return_(self, node: Node) -> None:
        frame = self.frames[-1]
        values = [c for c in node.named_children if c.type != "comment"]
        if values and frame.ret:
            kept: list[tuple[Value, Value]] = []
            if len(self.frames) > 1 and self._returns_early(frame, node):
                # The compiler lowers an early return to a flag that guards the rest of the
                # function (nir_lower_returns): the return value here is a select of the
                # returned value and the variable's value before, which in a loop is the
                # previous iteration's (a phi of undef and the last value at the loop's header):
                # what the caller reads of it stays live through the loop up to here
                # (regtruth: a float4 helper returning 0 early, then sampling, in a loop: 26
                # presched VGPRs, 18 without the loop). `_place_loop_carried` keeps the select
                # only inside a loop, the old value undefined before it.
                for r in _flatten(frame.ret):
                    if r.type.kind in ("scalar", "vector") and r.parts is None:
                        k = self.value(f"{r.name}.before", r.type, "temp")
                        whole = ("v", None, r.type.scalar, r.width, True)
                        self.emit("alu", k, [r], node, cw=True, keep_old=True, ops=(whole,))
                        kept.append((r, k))
            self.assign_values(frame.ret, values[0], node)
            for r, k in kept:
                whole = ("v", None, r.type.scalar, r.width, True)
                self.emit("alu", r, [r, k], node, cw=True, kept_select=True, ops=(whole, whole))
        elif values:
            self.expr_(values[0])
        self.edge(self.block, frame.exit)
        self.block = self.new_block()
