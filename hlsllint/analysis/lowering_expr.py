"""Lowering expressions: reads of variables, constant memory, groupshared memory and resources,
operators, and the stores that assignments make.

`ExprLowerer` lowers an expression to the instructions that compute it and returns the value
holding its result (None for a compile-time constant); `store_to` makes an instruction define
an lvalue (a variable, a member, an element, a swizzle, groupshared memory, a resource).
Calls are lowered by the subclasses (`lowering_calls`, `lowering_inline`).
"""

from __future__ import annotations

from typing import Any

from hlsllint.analysis.ir import Instr, Span, Value
from hlsllint.analysis.lowering import ACCESS_EXPRESSIONS, VARIABLE_KINDS, LowererBase, _flatten
from hlsllint.semantic import types as T
from hlsllint.semantic.expressions import OPERATOR_EXPRESSIONS, operator_operands
from hlsllint.semantic.intrinsics import MEMORY_OBJECTS, NODE_RECORDS, object_base
from hlsllint.semantic.queries import uses_of
from hlsllint.semantic.symbols import Function, Symbol
from hlsllint.syntax import Node
from hlsllint.syntax.fields import (
    F_ALTERNATIVE,
    F_ARGUMENT,
    F_ARGUMENTS,
    F_BODY,
    F_CONDITION,
    F_CONSEQUENCE,
    F_FIELD,
    F_FUNCTION,
    F_INDICES,
    F_LEFT,
    F_OPERATOR,
    F_RIGHT,
    F_VALUE,
)
from hlsllint.syntax.queries import call_name, enclosing, is_written, unparen

_FUNCTION = frozenset({"function_definition"})


_READ_ONLY = ("structured", "raw")


class ExprLowerer(LowererBase):
    """Expressions, assignments and stores."""

    def call(self, node: Node) -> Value | None:
        """Lower a call expression (`lowering_calls.CallLowerer`)."""
        raise NotImplementedError

    def inline(self, node: Node, fn: Function, args: list[Node], obj: Node | None = None) -> Value | None:
        """Lower a call of `fn` by inlining its body (`lowering_inline.InlineLowerer`); `obj`
        is the object a method is called on (None: the caller's own `this`)."""
        raise NotImplementedError

    def _this_written(self, fn: Function) -> bool:
        """Does a method write its object (`lowering_inline.InlineLowerer`)?"""
        raise NotImplementedError

    # -- expressions ----------------------------------------------------------------------

    def expr_(self, node: Node | None) -> Value | None:
        if node is None or self.truncated:
            return None
        self.deadline.tick()
        kind = node.type
        if kind in ("number_literal", "true", "false", "string_literal", "comment"):
            self.record(node, None)
            return None
        if kind == "identifier" or kind == "this":
            return self.ident(node)
        if kind in ("parenthesized_expression",):
            inner = [c for c in node.named_children if c.type != "comment"]
            v = None
            for c in inner:
                v = self.expr_(c)
            self.record(node, v)
            return v
        operands = operator_operands(self.m.tree, node) if kind in OPERATOR_EXPRESSIONS else None
        if operands is not None:
            obj, args, op_name = operands
            # only an operand of a struct type has operator methods (`operator_method`)
            obj_t = self.m.type_of(obj)
            if obj_t.kind == "struct":
                overload = self.m.operator_method(node)
                if overload is not None and overload.body is not None:
                    # `a + b`, `-a`, `a[i]` on a struct value call `a`'s `operator+(b)`,
                    # `operator-()`, `operator[](i)`: inlined as a call
                    return self.inline(node, overload, args, obj)
                # HLSL has no built-in operator on structs: an operator declared without a body
                # (or not declared at all) is a call the estimate cannot see into
                self.emit("call", None, [], node, rule="effect", blind=("call", f"{obj_t.name}::{op_name}"))
        if self.const_value(node) is not None and kind != "assignment_expression":
            self.record(node, None)
            return None
        if kind in ("field_expression", "subscript_expression"):
            path = self._constant_path(node)
            if path is not None:
                return self._constant_load(node, *path)
            element = self._buffer_member_path(node)
            if element is not None:
                return self._buffer_member_load(node, element)
            return self.field(node) if kind == "field_expression" else self.subscript(node)
        if kind == "call_expression":
            return self.call(node)
        if kind == "assignment_expression":
            return self.assignment(node)
        if kind == "update_expression":
            arg = node.child_by_field_id(F_ARGUMENT)
            cur = self.expr_(arg)
            ins = self.emit("alu", None, [cur], node)
            self.store_to(arg, ins, node)
            return cur
        if kind == "comma_expression":
            self.expr_(node.child_by_field_id(F_LEFT))
            return self.expr_(node.child_by_field_id(F_RIGHT))
        if kind == "initializer_list":
            reads = [self.expr_(c) for c in node.named_children]
            d = self.temp(node)
            ins = self.emit_expr("alu", d, reads, node)
            return d
        if kind == "cast_expression":
            value = node.child_by_field_id(F_VALUE)
            src = self.expr_(value)
            t = self.m.type_of(node)
            if src is None:
                return None
            d = self.temp(node, t)
            if self.costs.component_liveness and value is not None:  # (see `call`'s `merge`)
                cast = ("cast", t.name, self.access_path(value))
                ins = self.emit_expr("alu", d, [src], node, merge=cast)
            else:
                ins = self.emit_expr("alu", d, [src], node)
            return d
        if kind == "conditional_expression":
            taken = self.const_value(node.child_by_field_id(F_CONDITION))
            if taken is not None:
                # `bNormalize ? normalize(n) : n` in a copy passed `true`: the compiler folds the
                # select, and only the arm it keeps is computed (the other is dead code)
                v = self.expr_(node.child_by_field_id(F_CONSEQUENCE if taken else F_ALTERNATIVE))
                self.record(node, v)
                return v
        # binary, unary, conditional and anything else: an ALU op on its operands.
        children = [
            c
            for c in node.named_children
            if c.type.endswith(("expression", "identifier", "literal")) or c.type in ("true", "false")
        ]
        reads = [self.expr_(c) for c in children]
        if reads.count(None) == len(reads):  # no operand has a value (all constants)
            self.record(node, None)
            return None
        d = self.temp(node)
        if kind == "binary_expression":
            opr = node.child_by_field_id(F_OPERATOR)
            # component by component; `opr`: the operator; `ops`: its operands' components
            ops = self.operand_components(children, reads) if self.costs.records_components else None
            o = opr.type if opr is not None else ""
            split = self.costs.component_liveness  # (see `reciprocal`)
            if o == "/" and len(reads) == 2 and split:
                reads[1], ops = self.reciprocal(reads[1], children[1], node, ops, 1)
            # two run-time operands: the same operation of the same values wherever it is
            # written, to value numbering (`merge`; with the liveness by component, which
            # counts the components such a value holds rather than whole vectors)
            same: dict[str, Any] = (
                {"merge": ("op", o)}
                if split and len(reads) == 2 and None not in reads and o in _MERGED
                else {}
            )
            if ops is not None:
                ins = self.emit_expr("alu", d, reads, node, cw=True, opr=o, ops=ops, **same)
            else:
                ins = self.emit_expr("alu", d, reads, node, cw=True, opr=o, **same)
        elif kind == "unary_expression":
            opr = node.child_by_field_id(F_OPERATOR)
            ops = self.operand_components(children, reads) if self.costs.records_components else None
            # (a float negation is a free operand modifier: nothing to merge or hold)
            if ops is not None and opr is not None and opr.type in ("-", "!", "~"):
                ins = self.emit_expr("alu", d, reads, node, cw=True, unary=True, opr="u" + opr.type, ops=ops)
            else:
                ins = self.emit_expr("alu", d, reads, node, cw=True, unary=True)
        elif kind == "conditional_expression":
            ins = self.emit_expr("alu", d, reads, node, select=True)  # a move of either operand
        else:
            ins = self.emit_expr("alu", d, reads, node)
        return d

    def reciprocal(
        self,
        divisor: Value | None,
        divisor_node: Node | None,
        node: Node,
        ops: tuple[object, ...] | None,
        at: int,
    ) -> tuple[Value | None, tuple[object, ...] | None]:
        """The operand a float division `node` takes in place of its divisor: `a / b` is
        `a * rcp(b)`, as NIR lowers it, and value numbering merges the `rcp` of one divisor
        wherever it divides again (`merge`: the divisor's expression over the same values,
        `passes.common_values`), so that a divisor read from uniform memory holds its
        reciprocal in a VGPR from its first division to its last (no scalar floating-point
        ALU): the projection's `P[0][0]` of view-space positions rebuilt in a loop (regtruth:
        13 presched VGPRs; the same with products, 11). With the components the division's
        operands read (`ops`, the divisor's at position `at`), the division's and the
        reciprocal's. A constant, a non-float or a double divisor stays. Only with the liveness
        by component (`costs.component_liveness`): counting whole vectors, the estimate holds
        enough already (the tune sets' pooled mean error 15.82% -> 15.85% with it)."""
        if divisor is None or divisor_node is None or divisor.parts is not None:
            return divisor, ops
        t = self.m.type_of(divisor_node)
        if not t.is_float or t.scalar == "double" or t.kind not in ("scalar", "vector"):
            return divisor, ops
        if not self.m.type_of(node).is_float:
            return divisor, ops
        text = " ".join(self.text(divisor_node).split())
        d = self.value(f"rcp({self.temp_name(divisor_node)})", t, "temp")
        merge = ("rcp", text)
        operand = ops[at] if ops is not None and at < len(ops) else None
        if ops is not None and isinstance(operand, tuple) and operand[0] == "v":
            self.emit("intrinsic", d, [divisor], node, name="rcp", merge=merge, ops=(operand,))
            ops = (*ops[:at], ("v", None, t.scalar, t.count, True), *ops[at + 1 :])
        else:
            self.emit("intrinsic", d, [divisor], node, name="rcp", merge=merge)
            ops = None
        return d, ops

    def operand_components(
        self, operands: list[Node], reads: list[Value | None]
    ) -> tuple[object, ...] | None:
        """Which components of its operands an operation reads, for the compiler's value
        numbering by component (`components.number_components`): per operand, `("v", sel,
        scalar, count, own)` for a value (`sel`: the components a swizzle picks, None for the
        value as read; `scalar` and `count`: its type's, to see conversions and a parameter
        that is the leading part of its argument; `own`: False when read through a parameter
        bound to its argument, which may be a view: `f(v.yx)`) or `("k", numbers)` for a
        compile-time constant. None when an operand is neither (a struct, a matrix element)."""
        out: list[object] = []
        for n, r in zip(operands, reads, strict=True):
            if r is None:
                k = self.constant_components(n)
                if k is None:
                    return None
                out.append(("k", k))
                continue
            if r.parts is not None:
                return None
            sel = self._selection(n)
            if sel == ():
                return None
            t = self.m.type_of(n)
            count = t.count if t.kind in ("scalar", "vector") else 0
            base = self._access_base(n)
            own = self._own_value(base, r)
            if sel is None and count == r.width and own:
                sel = tuple(range(r.width))  # the value itself, not a view of another
            elif sel is None and count != r.width and base is not n:
                sel = self._element_selection(n, r)  # an element of an array read whole
                if sel is None:
                    return None  # a part no swizzle names (`m._m01`, a member of a view)
            out.append(("v", sel, t.scalar, count, own))
        return tuple(out)

    def constant_components(self, node: Node) -> tuple[int | float, ...] | None:
        """The components of a compile-time constant scalar or vector (`0.5`, `float3(0, e,
        0)`, `float2(1, 2).xyxy`), else None."""
        k = self.const_value(node)
        if k is not None:
            return (int(k),) if isinstance(k, bool) else (k,)
        node = unparen(node)
        if node.type == "field_expression":
            s = swizzle_components(self.text(node.child_by_field_id(F_FIELD) or node))
            arg = node.child_by_field_id(F_ARGUMENT)
            inner = self.constant_components(arg) if arg is not None and s is not None else None
            if inner is None or s is None or max(s) >= len(inner):
                return None
            return tuple(inner[i] for i in s)
        if node.type != "call_expression":
            return None
        t = self.m.type_of(node)
        args_node = node.child_by_field_id(F_ARGUMENTS)
        if t.kind != "vector" or args_node is None:
            return None
        comps: list[int | float] = []
        for a in args_node.named_children:
            if a.type == "comment":
                continue
            part = self.constant_components(a)
            if part is None:
                return None
            comps.extend(part)
        if len(comps) == 1:
            comps = comps * t.count
        return tuple(comps) if len(comps) == t.count else None

    def access_path(self, node: Node) -> str:
        """The accesses an operand expression makes of the value it reads (`.xy` of `v.xy`,
        `[2].z` of `a[2].z`, empty for the value itself), for value numbering (`merge`)."""
        node = unparen(node)
        base = self._access_base(node)
        if base is node:
            return ""
        return self.text(node)[base.end_byte - node.start_byte :]

    def _access_base(self, node: Node) -> Node:
        """The expression under a chain of swizzles, members and elements (`c` of `c.xy.x`)."""
        while True:
            if node.type == "parenthesized_expression" and node.named_child_count == 1:
                node = node.named_children[0]
            elif node.type in ACCESS_EXPRESSIONS:
                arg = node.child_by_field_id(F_ARGUMENT)
                if arg is None:
                    return node
                node = arg
            else:
                return node

    def _own_value(self, node: Node, r: Value) -> bool:
        """Is `r`, what operand `node` read, the value of `node` itself: an expression's result
        or a variable's own value (not a parameter bound to its argument, which may be a view
        of a part of a value: `f(v.yx)`)?"""
        node = unparen(node)
        if node.type == "identifier":
            return r.symbol is not None and r.symbol is self.m.resolve(node)
        return node.type not in ACCESS_EXPRESSIONS and node.type != "this"

    def _selection(self, node: Node) -> tuple[int, ...] | None:
        """The components of the value read that an operand expression picks through swizzles
        (`p.zx` is (2, 0), `c.xy.y` is (1,)); None for the value as read, () when unknown
        (a matrix element `m._11`)."""
        node = unparen(node)
        if node.type not in ACCESS_EXPRESSIONS:
            return None
        arg = node.child_by_field_id(F_ARGUMENT)
        if arg is None or self.m.type_of(arg).kind not in ("vector", "scalar"):
            return None
        if node.type == "subscript_expression":  # `v[2]`: a component
            idx = self._indices(node)
            k = self.const_value(idx[0]) if len(idx) == 1 else None
            if not isinstance(k, int) or isinstance(k, bool) or k < 0:
                return ()
            s: tuple[int, ...] | None = (k,)
        else:
            s = swizzle_components(self.text(node.child_by_field_id(F_FIELD) or node))
        if s is None:
            return ()
        inner = self._selection(arg)
        if inner is None:
            return s
        if inner == () or max(s) >= len(inner):
            return ()
        return tuple(inner[i] for i in s)

    def _element_selection(self, node: Node, r: Value) -> tuple[int, ...] | None:
        """The components of `r`, a whole array of scalars or vectors (one register per
        component), that an element read at a constant index picks (`c[1]`: (3, 4, 5) of a
        `float3 c[9]`; `c[1].y`: (4,)), else None."""
        node = unparen(node)
        swizzle: tuple[int, ...] | None = None
        if node.type == "field_expression":
            arg = node.child_by_field_id(F_ARGUMENT)
            if arg is None or self.m.type_of(arg).kind not in ("vector", "scalar"):
                return None
            swizzle = swizzle_components(self.text(node.child_by_field_id(F_FIELD) or node))
            if swizzle is None:
                return None
            node = unparen(arg)
        if node.type != "subscript_expression":
            return None
        at = _element_offset(self.m.type_of(node.child_by_field_id(F_ARGUMENT)), r)
        idx = self._indices(node)
        k = self.const_value(idx[0]) if len(idx) == 1 else None
        if at is None or not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < at[1]:
            return None
        w = at[0]
        comps = tuple(range(k * w, k * w + w))
        if swizzle is None:
            return comps
        if max(swizzle) >= w:
            return None
        return tuple(comps[i] for i in swizzle)

    def ident(self, node: Node) -> Value | None:
        sym = self.m.resolve(node)
        v: Value | None = None
        if sym is None or sym.kind == "function":
            v = None
        elif sym.kind == "param" and self.frames and id(sym) in self.frames[-1].consts:
            v = None  # a parameter this inlined copy was passed a constant for
        elif sym.kind == "resource":
            v = self.resource(sym, node)
        elif sym.kind == "cbuffer_member":
            d = self.temp(node, sym.type)
            cb = self.cbuffer(sym.container or "$Globals", node)
            self.emit_expr("cbload", d, [cb], node, rule="uniform", sig=("cb", sym.container, sym.name))
            return d
        elif sym.kind == "static_const":
            if self.const_value(sym.init) is None:
                d = self.temp(node, sym.type)
                self.emit_expr("cbload", d, [], node, rule="uniform")
                return d
            v = None
        elif sym.kind == "groupshared":
            d = self.temp(node, sym.type)
            self.emit_expr("lds_load", d, [], node, rule="lane", shared=(sym.name, (), ()))
            return d
        elif self.unrolled_counters and (counter := self.unrolled_counter_of(sym)) is not None:
            # the counter of a loop the compiler unrolls is a constant in each unrolled copy
            # (`int2(x, y)` of two such counters: a constant per copy, folded into its uses)
            d = self.temp(node, sym.type)
            self.emit_expr("alu", d, [], node, rows=tuple((v,) for v in counter[0]), loop=counter[1])
            return d
        else:
            vals = self.var(sym)
            if len(vals) > 1 or (sym.type.kind == "struct" and vals[0].parts is not None):
                # a whole struct read: its members (copies are free)
                d = self.aggregate(node, sym.type, list(vals))
                self.record(node, d)
                return d
            v = vals[0]
        self.record(node, v)
        return v

    def _access_root(self, node: Node) -> tuple[Node | None, list[Node]]:
        """(root, index expressions, outermost first) of a chain of member and element accesses
        such as `cb.cameras[i].view` or `tile[y][x]`, through parentheses (`(cb.scene).sun`: a
        macro's)."""
        indices: list[Node] = []
        n: Node | None = node
        while n is not None:
            if n.type == "parenthesized_expression" and n.named_child_count == 1:
                n = n.named_children[0]
                continue
            if n.type not in ACCESS_EXPRESSIONS:
                break
            if n.type == "subscript_expression":
                indices.extend(self._indices(n))
            n = n.child_by_field_id(F_ARGUMENT)
        return n, indices

    def _groupshared_path(self, node: Node) -> list[Node] | None:
        """The index expressions of an element or member access of a groupshared variable
        (`tile[y][x]`, `tile[i].pos`), else None: the access moves only what it names."""
        n, indices = self._access_root(node)
        sym = self._base_symbol(n)
        if sym is None or sym.kind != "groupshared":
            return None
        return indices

    def _shared_element(self, node: Node, indices: list[Node], idx: list[Value | None]) -> tuple[object, ...]:
        """What an element or member access of groupshared memory reads (`lds_load`'s `shared`
        detail): the variable's name, the access's shape (its members, `[]` for each index),
        each index as an `ops` operand (a constant's numbers, or the components a value's
        swizzle picks, aligned with the load's reads; () when an index is neither), the
        variable's first 32-bit word among the groupshared variables and its element's words."""
        shape: list[str] = []
        n: Node | None = node
        while n is not None:
            if n.type == "parenthesized_expression" and n.named_child_count == 1:
                n = n.named_children[0]
                continue
            if n.type == "subscript_expression":
                shape.append("[]")
            elif n.type == "field_expression":
                shape.append(self.text(n.child_by_field_id(F_FIELD) or n))
            else:
                break
            n = n.child_by_field_id(F_ARGUMENT)
        sym = self._base_symbol(n)
        ops = self.operand_components(indices, idx)
        # where the variable lies among the groupshared variables (in 32-bit words, as the
        # compiler lays them out in order) and its element's size, for `paired_reads`
        layout: dict[str, int] | None = self.m.memo.get("lowering.groupshared_layout")
        if layout is None:
            layout = {}
            words = 0
            for g in self.m.groupshared:
                layout.setdefault(g.name, words)
                words += g.type.components()
            self.m.memo["lowering.groupshared_layout"] = layout
        base = layout.get(sym.name, 0) if sym is not None else 0
        el = sym.type.element if sym is not None and sym.type.kind == "array" else None
        size = el.components() if el is not None else 0
        return (sym.name if sym is not None else "", tuple(shape), ops if ops is not None else (), base, size)

    def field(self, node: Node) -> Value | None:
        arg = node.child_by_field_id(F_ARGUMENT)
        gs = self._groupshared_path(node)
        if gs is not None and arg is not None and arg.type != "identifier":
            idx = [self.expr_(i) for i in gs]
            d = self.temp(node)
            self.emit_expr("lds_load", d, idx, node, rule="lane", shared=self._shared_element(node, gs, idx))
            return d
        name = self.text(node.child_by_field_id(F_FIELD) or node)
        cast = self.m.cast_call(arg)
        if cast is not None:  # `(T)(x).f` read as a call: the cast of `(x).f`
            v = self._field_of(node, cast[1], name)
            d = self.temp(node, cast[0])
            self.emit_expr("alu", d, [v], node)
            return d
        return self._field_of(node, arg, name)

    def _field_of(self, node: Node, arg: Node | None, name: str) -> Value | None:
        """Member `name` of `arg` (`node`: the member expression)."""
        sym = self._base_symbol(arg)
        if sym is not None and sym.kind in VARIABLE_KINDS:
            if self.memory_copies and arg is not None and arg.type == "identifier":
                late = self.memory_member(node, sym, name)
                if late is not None:
                    return late
            mv = self.member_value(sym, name)
            if mv is not None:
                self.record(node, mv)
                return mv
        if (
            sym is not None
            and sym.kind == "resource"
            and sym.type.resource is not None
            and (sym.type.resource.category == "constant")
        ):
            d = self.temp(node)
            self.emit_expr("cbload", d, [self.cbuffer(sym.name, node)], node, rule="uniform")
            return d
        base = self.expr_(arg)
        if base is not None and base.parts is not None:
            for m, part in zip(base.type.members, base.parts, strict=False):
                if m.name == name:
                    self.record(node, part)
                    return part
        # swizzles and member reads of a computed value are views of it
        if base is not None and not ("xyzw".startswith(name) or "rgba".startswith(name)):
            self.view(self.span(node))  # `.yx`, `.z`: not the leading components
        self.record(node, base)
        return base

    def _constant_path(self, node: Node) -> tuple[Symbol, Node, list[Node]] | None:
        """(root symbol, root identifier, index expressions) of a member/element read of constant
        memory: a cbuffer member, a `ConstantBuffer<T>` or a `static const`, else None."""
        n, indices = self._access_root(node)
        if n is None or n.type != "identifier":
            return None
        sym = self.m.resolve(n)
        if sym is None:
            return None
        res = sym.type.resource
        if sym.kind in ("cbuffer_member", "static_const") or (
            sym.kind == "resource" and res is not None and res.category == "constant"
        ):
            return sym, n, indices
        return None

    def _constant_load(self, node: Node, sym: Symbol, root: Node, indices: list[Node]) -> Value | None:
        """Only the part read is loaded: `cb.cameras[i].viewProj` loads 16 dwords, not the array
        of structs (regtruth: perftest's loop over a 4,096-entry cbuffer array holds 6 VGPRs).
        Scalar when every index is uniform; a `static const` table is constant memory too."""
        idx = [self.expr_(i) for i in indices]
        if sym.kind == "static_const":
            reads: list[Value | None] = idx
        elif sym.kind == "resource":
            reads = [self.resource(sym, root), *idx]
        else:
            reads = [self.cbuffer(sym.container or "$Globals", root), *idx]
        t = self.m.type_of(node)
        if t.kind == "struct" and t.members:
            agg = self.member_loads(node, t, "cbload", reads, "pure" if reads else "uniform")
            self.record(node, agg)
            return agg
        d = self.temp(node)
        rows = self._rows_per_iteration(node, sym, root, indices)
        if rows is not None:
            rule = "pure" if reads else "uniform"
            self.emit_expr("cbload", d, reads, node, rule=rule, rows=rows[0], loop=rows[1])
        elif sym.kind == "cbuffer_member" and all(i is None for i in idx):
            # every load of this member is one value to a division's reciprocal (`merge`)
            text = " ".join(self.text(node).split())
            member = ("cb", sym.container, text)
            self.emit_expr("cbload", d, reads, node, rule="pure" if reads else "uniform", cb_member=member)
        else:
            self.emit_expr("cbload", d, reads, node, rule="pure" if reads else "uniform")
        return d

    def _rows_per_iteration(
        self, node: Node, sym: Symbol, root: Node, indices: list[Node]
    ) -> tuple[tuple[tuple[int | float, ...], ...], Span] | None:
        """`table[i]` of a `static const` table of constants (`int2 offsets[] = { int2(-1, 0),
        ... }`) at the counter of an enclosing loop the compiler unrolls: the row read in each
        iteration, and the loop's span. None otherwise."""
        if not self.unrolled_counters or sym.kind != "static_const" or len(indices) != 1:
            return None
        if node.type != "subscript_expression" or node.child_by_field_id(F_ARGUMENT) != root:
            return None
        index = indices[0]
        index = unparen(index)
        if index.type != "identifier":
            return None
        counter = self.m.resolve(index)
        at = self.unrolled_counter_of(counter)
        if at is None:
            return None
        values, loop = at
        table = self._table_rows(sym)
        if table is None or not all(0 <= v < len(table) for v in values):
            return None
        return tuple(table[v] for v in values), loop

    def unrolled_counter_of(self, sym: Symbol | None) -> tuple[tuple[int, ...], Span] | None:
        """(value per iteration, loop span) when `sym` is the counter of an enclosing loop the
        compiler unrolls (the innermost such loop), else None."""
        for found, vals, loop in reversed(self.unrolled_counters):
            if found is sym:
                return vals, loop
        return None

    def _table_rows(self, sym: Symbol) -> tuple[tuple[int | float, ...], ...] | None:
        """The rows of a `static const` table of numbers or vectors, each row its components;
        None when an entry is not a constant (or the table is of structs)."""
        if sym in self._tables:
            return self._tables[sym]
        found: tuple[tuple[int | float, ...], ...] | None = None
        el = sym.type.element
        init = sym.init
        numeric = sym.type.kind == "array" and el is not None and el.is_numeric
        if numeric and el is not None and init is not None and init.type == "initializer_list":
            found = self._fold_rows(init, el.count)
        self._tables[sym] = found
        return found

    def _fold_rows(self, init: Node, width: int) -> tuple[tuple[int | float, ...], ...] | None:
        entries = [c for c in init.named_children if c.type != "comment"]
        flat: list[int | float] = []
        rows: list[tuple[int | float, ...]] = []
        for e in entries:
            parts = [e]
            if e.type == "initializer_list":
                parts = [c for c in e.named_children if c.type != "comment"]
            elif e.type == "call_expression":
                args = e.child_by_field_id(F_ARGUMENTS)
                parts = [c for c in args.named_children if c.type != "comment"] if args is not None else []
            row: list[int | float] = []
            for part in parts:
                v = self.m.const_value(part)
                if v is None or isinstance(v, bool):
                    return None
                if not self.costs.component_liveness and self._calls_sqrt(part):
                    # a table folded through `sqrt` (NRD's Poisson taps) reads as one only with
                    # the liveness by component: without it the loop's body counts whole
                    # vectors, and the holds of its taps on top overshoot
                    return None
                row.append(v)
            if len(parts) == 1 and e.type not in ("initializer_list", "call_expression"):
                flat.extend(row)  # a scalar entry: one row of a scalar table, or a flat list
            elif len(row) == width or (len(row) == 1 and e.type == "call_expression"):
                rows.append(tuple(row) if len(row) == width else tuple(row * width))
            else:
                return None
        if flat and rows:
            return None
        if flat:
            if len(flat) % width:
                return None
            return tuple(tuple(flat[k : k + width]) for k in range(0, len(flat), width))
        return tuple(rows)

    def _calls_sqrt(self, node: Node) -> bool:
        """Whether `node` calls `sqrt` or `rsqrt` (folded since constants fold through them)."""
        tree = self.m.tree
        return any(call_name(tree, n) in ("sqrt", "rsqrt") for n in tree.walk(node))

    def _buffer_member_path(self, node: Node) -> Node | None:
        """The element access `buf[i]` of a structured or raw buffer under a chain of member
        (and element) accesses that names a member of its struct (`buf[i].consts.count`,
        `buf[i].taps[2]`), else None."""
        n: Node | None = node
        member = False
        while n is not None and n.type in ACCESS_EXPRESSIONS:
            arg = n.child_by_field_id(F_ARGUMENT)
            if arg is None:
                return None
            t = self.m.type_of(arg)
            if n.type == "subscript_expression" and t.is_resource:
                res = t.resource
                if res is None or res.typed or res.category not in ("structured", "raw") or n is node:
                    return None
                return n if member else None
            if n.type == "field_expression" and t.kind == "struct":
                member = True
            n = arg
        return None

    def _buffer_member_load(self, node: Node, element: Node) -> Value | None:
        """Only the member read is loaded, as the compiler does: `buf[0].consts.count` loads one
        dword, not the element's struct (regtruth: a 50-dword member read for two of its fields
        after an early return held 7 VGPRs before scheduling; the whole struct was estimated)."""
        arg = element.child_by_field_id(F_ARGUMENT)
        base_t = self.m.type_of(arg)
        res_t = base_t.resource
        assert res_t is not None
        res = self.expr_(arg)
        idx = [self.expr_(i) for i in self._indices(element)]
        _root, inner = self._access_root(node)
        # `_access_root` lists every index of the chain, the element's own last
        idx += [self.expr_(i) for i in inner[: len(inner) - len(self._indices(element))]]
        reads: list[Value | None] = [res, *idx]
        rule = self._load_rule(res_t)
        detail = {"typed": False, "resource": self._res_name(arg), "method": "[]"}
        t = self.m.type_of(node)
        if t.kind == "struct" and t.members:
            agg = self.member_loads(node, t, "load", reads, rule, **detail)
            self.record(node, agg)
            return agg
        d = self.temp(node)
        self.emit_expr("load", d, reads, node, rule=rule, **detail)
        return d

    def subscript(self, node: Node) -> Value | None:
        arg = node.child_by_field_id(F_ARGUMENT)
        idx_node = node.child_by_field_id(F_INDICES)
        idx_nodes = [c for c in idx_node.named_children] if idx_node is not None else []
        if idx_node is not None and idx_node.type != "subscript_argument_list":
            idx_nodes = [idx_node]
        base_t = self.m.type_of(arg)
        gs = self._groupshared_path(node)
        if gs is not None:
            idx = [self.expr_(i) for i in gs]
            d = self.temp(node)
            self.emit_expr("lds_load", d, idx, node, rule="lane", shared=self._shared_element(node, gs, idx))
            return d
        if base_t.is_resource and base_t.resource is not None:
            res = self.expr_(arg)
            idx = [self.expr_(i) for i in idx_nodes]
            t = self.m.type_of(node)
            if t.kind == "struct" and t.members:
                agg = self.member_loads(
                    node,
                    t,
                    "load",
                    [res, *idx],
                    self._load_rule(base_t.resource),
                    typed=base_t.resource.typed,
                    resource=self._res_name(arg),
                    method="[]",
                )
                self.record(node, agg)
                return agg
            d = self.temp(node)
            self.emit_expr(
                "load",
                d,
                [res, *idx],
                node,
                rule=self._load_rule(base_t.resource),
                typed=base_t.resource.typed,
                resource=self._res_name(arg),
                method="[]",
            )
            return d
        if base_t.kind == "unknown" and object_base(base_t.name) in NODE_RECORDS and arg is not None:
            return self.record_load(node, arg, idx_nodes)  # `records[i]`: a work-graph record
        mem = self.memory_element(node, arg, idx_nodes)
        if mem is not None:
            return mem
        elem = self._array_element(node)
        if elem is not None:
            self.record(node, elem)
            return elem
        base = self.expr_(arg)
        idx = [self.expr_(i) for i in idx_nodes]
        sym = self._base_symbol(arg)
        if sym is not None and sym.kind in ("cbuffer_member", "static_const"):
            d = self.temp(node)
            rows = self._rows_per_iteration(node, sym, arg, idx_nodes) if arg is not None else None
            if rows is not None:
                self.emit_expr("cbload", d, idx, node, rows=rows[0], loop=rows[1])
            else:
                self.emit_expr("cbload", d, idx, node)
            return d
        if all(i is None for i in idx):  # a constant index: a view of the base
            self.view(self.span(node))
            self.record(node, base)
            return base
        d = self.temp(node)
        self.emit_expr("alu", d, [base, *idx], node)
        return d

    def memory_element(self, node: Node, arg: Node | None, idx_nodes: list[Node]) -> Value | None:
        """`copy.member[i]` of a local struct that copies read-only memory (`memory_copies`): a
        load of that element where it is read, as the compiler reads it from the buffer, not
        the whole array member loaded with the copy (regtruth: a 96-dword struct of two index
        arrays read at three run-time indices holds 6 VGPRs; the arrays held whole, 103)."""
        if arg is None or arg.type != "field_expression" or not self.memory_copies:
            return None
        sym = self._base_symbol(arg.child_by_field_id(F_ARGUMENT))
        loads = self.memory_copies.get(sym) if sym is not None else None
        if loads is None:
            return None
        ins = loads.get(self.text(arg.child_by_field_id(F_FIELD) or arg))
        if ins is None:
            return None
        reads: list[Value | None] = [*ins.reads, *(self.expr_(i) for i in idx_nodes)]
        t = self.m.type_of(node)
        detail = {k: v for k, v in ins.detail.items() if k != "member"}
        if t.kind == "struct" and t.members:
            agg = self.member_loads(node, t, ins.op, reads, ins.rule, **detail)
            self.record(node, agg)
            return agg
        d = self.temp(node)
        self.emit_expr(ins.op, d, reads, node, rule=ins.rule, **ins.detail)
        return d

    def note_memory_copy(self, sym: Symbol, init: Node, copy: list[Value]) -> None:
        """Remember `sym` (just declared as a copy of `init`) in `memory_copies` when `init` is
        read-only memory (an element of a structured or raw buffer, a member or element of a
        cbuffer) and `sym` is never written: every later use reads a member (an array member
        only through an element, `s.list[i]`), calls a method that does not write the object,
        or passes it whole to a helper. The compiler reads such a copy's members and elements
        from memory where they are used, in loops too, not all at the copy (regtruth: a
        six-member cbuffer struct read in a run-time loop, 13 SGPRs; held from the copy, 27).
        A writable buffer is left out: a store between the copy and the read makes the
        compiler load the whole struct first (regtruth: 101 VGPRs with one store, 6 without)."""
        self.memory_copies.pop(sym, None)
        inner = init
        while inner.type == "parenthesized_expression" and inner.named_children:
            inner = inner.named_children[0]
        if sym.type.kind != "struct" or inner.type not in ("subscript_expression", "field_expression"):
            return
        path = self._constant_path(inner)
        if path is None or path[0].kind == "static_const":
            if inner.type != "subscript_expression":
                return
            res = self.m.type_of(inner.child_by_field_id(F_ARGUMENT)).resource
            if res is None or res.writable or res.typed or res.category not in _READ_ONLY:
                return
        arrays = {m.name for m in sym.type.members if m.type.kind == "array"}
        fn = enclosing(init, _FUNCTION)
        body = fn.child_by_field_id(F_BODY) if fn is not None else None
        if body is None or sym in self._written_in(body)[1]:
            return
        for use in uses_of(self.m, sym):
            parent = use.parent
            if parent is not None and parent.type == "argument_list":
                continue  # passed whole: the helper's reads are the copy's (`inline`)
            if parent is None or parent.type != "field_expression" or is_written(self.tree, use):
                return
            if parent.parent is not None and parent.parent.type == "call_expression":
                callee = self.m.callee(parent.parent)
                if callee is None or self._this_written(callee):
                    return  # a method that may write the object
                continue
            name = self.text(parent.child_by_field_id(F_FIELD) or parent)
            if name in arrays:
                up = parent.parent
                if up is None or up.type != "subscript_expression":
                    return
                if up.child_by_field_id(F_ARGUMENT) != parent:
                    return
        loads: dict[str, Instr] = {}
        for m, v in zip(sym.type.members, copy, strict=False):
            if m.type.kind == "struct" and m.type.members:
                continue
            src = self._copied_from(v)
            ins = self.member_load.get(src.id) if src is not None else None
            if ins is not None:
                loads[m.name] = ins
        if loads:
            self.memory_copies[sym] = loads

    def memory_member(self, node: Node, sym: Symbol, name: str) -> Value | None:
        """`copy.member` of a local struct that copies read-only memory (`memory_copies`): a
        load of that member where it is read, as the compiler sinks the copy's load to its
        first use; reads of it again are the same load to value numbering (`detail["at"]`,
        `passes.common_values`), held from the first to the last."""
        loads = self.memory_copies.get(sym)
        ins = loads.get(name) if loads is not None else None
        if ins is None or ins.dest is None or ins.dest.type.kind == "array":
            return None
        d = self.temp(node, ins.dest.type)
        self.emit_expr(ins.op, d, list(ins.reads), node, rule=ins.rule, at=ins.span, **ins.detail)
        return d

    def _copied_from(self, v: Value) -> Value | None:
        """The value the last instruction of the current block copied into `v`, or `v` itself
        when that instruction defined it (a renamed temporary)."""
        for ins in reversed(self.blocks[self.block]):
            if ins.dest is v:
                if ins.op == "copy" and len(ins.reads) == 1:
                    return ins.reads[0]
                return v if v.id in self.member_load else None
        return None

    def record_load(self, node: Node, obj: Node, index: list[Node]) -> Value | None:
        """A work-graph record read (`input.Get()`, `records.Get(i)`, `records[i]`): a load of
        each member used, from the record's memory; uniform when the record object (its entry
        parameter: `NODE_UNIFORM`) and the index are."""
        reads = [self.expr_(obj), *(self.expr_(i) for i in index)]
        detail: dict[str, Any] = {"typed": False, "resource": self._res_name(obj), "method": "Get"}
        t = self.m.type_of(node)
        if t.kind == "struct" and t.members:
            agg = self.member_loads(node, t, "load", reads, "pure", **detail)
            self.record(node, agg)
            return agg
        d = self.temp(node)
        self.emit_expr("load", d, reads, node, rule="pure", **detail)
        return d

    def _record_target(self, target: Node) -> tuple[Node, list[Node]] | None:
        """(record object, index expressions) when an lvalue writes into a work-graph record
        (`out.Get().count = n`, `records[i].pos.x = p`, `out.Get(i) = r`), else None."""
        n: Node | None = target
        while n is not None and n.type in ("field_expression", "subscript_expression"):
            arg = n.child_by_field_id(F_ARGUMENT)
            if arg is None:
                return None
            if n.type == "subscript_expression" and object_base(self.m.type_of(arg).name) in NODE_RECORDS:
                idx = n.child_by_field_id(F_INDICES)
                if idx is not None and idx.type == "subscript_argument_list":
                    return arg, list(idx.named_children)
                return arg, [idx] if idx is not None else []
            n = arg
        if n is None or n.type != "call_expression":
            return None
        fn = n.child_by_field_id(F_FUNCTION)
        if fn is None or fn.type != "field_expression":
            return None
        obj = fn.child_by_field_id(F_ARGUMENT)
        if obj is None or self.text(fn.child_by_field_id(F_FIELD) or fn).strip() != "Get":
            return None
        if object_base(self.m.type_of(obj).name) not in MEMORY_OBJECTS:
            return None
        args = n.child_by_field_id(F_ARGUMENTS)
        return obj, [c for c in args.named_children if c.type != "comment"] if args is not None else []

    def _res_name(self, node: Node | None) -> str:
        while node is not None and node.type in ("field_expression", "subscript_expression"):
            node = node.child_by_field_id(F_ARGUMENT)
        return self.text(node) if node is not None else "?"

    def _load_rule(self, res: T.Resource) -> str:
        if res.typed:
            return "lane"
        if res.writable and not self.costs.writable_raw_loads_scalar:
            return "lane"
        return "pure"

    # -- assignments and stores -----------------------------------------------------------

    def assign_values(self, dests: list[Value], init: Node, node: Node) -> None:
        if init.type == "initializer_list":
            reads = [self.expr_(x) for x in init.named_children]
            for d in _flatten(dests):
                self.emit("alu", d, list(reads), node)
            return
        src = self.expr_(init)
        if len(dests) > 1 or dests[0].parts is not None:  # struct copy: member-wise
            srcs = self._struct_values(init)
            if srcs is None and src is not None and src.parts is not None:
                srcs = list(src.parts)
            for i, d in enumerate(dests):
                s = srcs[i] if srcs is not None and i < len(srcs) else src
                self.copy_into(d, s, node)
            return
        self._define(dests[0], src, node, init)

    def _define(self, dest: Value, src: Value | None, node: Node, init: Node | None = None) -> None:
        """dest = src; a temporary just computed is renamed instead of copied (`init`: the
        expression `src` is the value of, for the components a copy takes)."""
        blk = self.blocks[self.block]
        if src is not None and src.kind == "temp" and blk and blk[-1].dest is src:
            for rec in self.recordings:
                if self.block == rec.start_block and len(blk) <= rec.start_len:
                    rec.tainted = True  # renames an instruction from before the body
            blk[-1].dest = dest
            return
        self.emit("copy", dest, [src], node, **self.read_components([init], [src]))

    def read_components(self, nodes: list[Node | None], reads: list[Value | None]) -> dict[str, Any]:
        """The detail naming, per value an instruction reads (`reads` as `emit` keeps them:
        no constants), the components its expression in `nodes` takes (`sels`: an `ops`
        operand, or None for the whole value; for the liveness by component), or nothing."""
        if not self.costs.component_liveness:
            return {}
        out: list[object] = []
        found = False
        for n, r in zip(nodes, reads, strict=True):
            if r is None:
                continue
            if r.parts is not None:
                return {}
            ops = self.operand_components([n], [r]) if n is not None else None
            if ops is None or not isinstance(ops[0], tuple) or ops[0][0] != "v":
                out.append(None)
            else:
                out.append(ops[0])
                found = True
        return {"sels": tuple(out)} if found else {}

    def _struct_values(self, node: Node) -> list[Value] | None:
        """The member values of a struct-typed variable expression, if it is one."""
        if node.type == "identifier" or node.type == "this":
            sym = self.m.resolve(node)
            if sym is not None and self.sym_type(sym).kind == "struct" and sym.kind in VARIABLE_KINDS:
                return self.var(sym)
        if node.type == "parenthesized_expression" and node.named_children:
            return self._struct_values(node.named_children[0])
        return None

    def assignment(self, node: Node) -> Value | None:
        left = node.child_by_field_id(F_LEFT)
        right = node.child_by_field_id(F_RIGHT)
        op = self.text(node.child_by_field_id(F_OPERATOR) or node).strip()
        if left is None:
            return self.expr_(right)
        if op == "=" and left.type == "identifier":
            sym = self.m.resolve(left)
            if sym is not None and sym.kind in VARIABLE_KINDS and right is not None:
                dests = self.var(sym)
                self.assign_values(dests, right, node)
                self.record(left, dests[0])
                return dests[0] if len(dests) == 1 else None
        if op == "=" and left.type == "field_expression" and right is not None:
            mv = self.member_lvalue(left)
            if mv is not None and mv.parts is not None:  # a struct member: member by member
                self.assign_values(list(mv.parts), right, node)
                self.record(left, mv)
                return None
        # `t[p] += x` loads the texel before it computes `x` (regtruth: both loads of
        # `t[p] += float4(s.rgb * (1 - s.a), 0)` come first, 10 presched VGPRs)
        old = self.expr_(left) if op != "=" else None
        src = self.expr_(right)
        reads: list[Value | None] = [src]
        if op != "=":
            reads.append(old)
        t = self.m.type_of(left)
        d = self.temp(node, t)
        # `v += x` works component by component
        if op == "=":
            ins = self.emit("copy", d, reads, node, **self.read_components([right], reads))
        else:
            numbered = right is not None and self.costs.records_components
            ops = self.operand_components([right, left], reads) if numbered and right is not None else None
            if op == "/=" and self.costs.component_liveness:
                reads[0], ops = self.reciprocal(reads[0], right, node, ops, 0)
            if ops is not None:  # `copr`: the operator, its operands read in reverse
                ins = self.emit("alu", d, reads, node, cw=True, copr=op[:-1], ops=ops)
            else:
                ins = self.emit("alu", d, reads, node, cw=True, copr=op[:-1])
        self.store_to(left, ins, node)
        return ins.dest

    def store_to(self, target: Node | None, ins: Instr, node: Node, partial: bool = True) -> None:
        """Make `ins` (whose result is being written) define the lvalue `target`."""
        if target is None:
            return
        while target.type == "parenthesized_expression" and target.named_children:
            target = target.named_children[0]
        src = ins.dest
        if target.type != "identifier":
            rec = self._record_target(target)
            if rec is not None:  # a store into a work-graph record's memory
                obj, index = rec
                reads = [self.expr_(obj), src, *(self.expr_(i) for i in index)]
                self.emit(
                    "store", None, reads, node, rule="effect", resource=self._res_name(obj), method="Get"
                )
                return
            gs = self._groupshared_path(target)
            if gs is not None:
                idx = [self.expr_(i) for i in gs]
                self.emit("lds_store", None, [src, *idx], node, rule="effect")
                return
        if target.type == "identifier":
            sym = self.m.resolve(target)
            if sym is None:
                return
            if sym.kind == "groupshared":
                self.emit("lds_store", None, [src], node, rule="effect")
                return
            if sym.kind in VARIABLE_KINDS:
                vals = self.var(sym)
                if len(vals) == 1 and vals[0].parts is not None:
                    vals = list(vals[0].parts)  # the caller's elements, written whole
                if len(vals) == 1 and vals[0].parts is None:
                    if ins.dest is None or ins.dest.kind == "temp":
                        ins.dest = vals[0]
                    else:
                        self.emit("copy", vals[0], [src], node)
                else:
                    for v in vals:
                        self.copy_into(v, src, node)
            return
        if target.type == "field_expression":
            arg = target.child_by_field_id(F_ARGUMENT)
            fname = self.text(target.child_by_field_id(F_FIELD) or target)
            mv = self.member_lvalue(target)
            if mv is not None:
                self.copy_into(mv, src, node)
                return
            # a swizzle write: read-modify-write of the whole target
            base = self.expr_(arg)
            if base is not None and base.kind == "var" and base.parts is None:
                self.emit("alu", base, [base, src], node, **_lanes_set(base.type, swizzle_components(fname)))
            elif arg is not None:
                tmp = self.emit("alu", None, [base, src], node)
                self.store_to(arg, tmp, node)
            return
        if target.type == "subscript_expression":
            elem = self._array_element(target)
            if elem is not None:
                if src is not None and src.kind == "temp" and ins.dest is src and src.parts is None:
                    ins.dest = elem
                else:
                    self.emit("copy", elem, [src], node)
                return
            arg = target.child_by_field_id(F_ARGUMENT)
            idx_node = target.child_by_field_id(F_INDICES)
            block, first = self.block, len(self.blocks[self.block])
            idx_nodes = list(idx_node.named_children) if idx_node else []
            idx = [self.expr_(i) for i in idx_nodes]
            sym = self._base_symbol(arg)
            t = self.m.type_of(arg)
            if sym is not None and sym.kind == "groupshared":
                self.emit("lds_store", None, [src, *idx], node, rule="effect")
                return
            if t.is_resource:
                # `t[p] = s` of a scalar stores `s`'s own register: the assignment's copy of it
                # is no register of its own (regtruth: a uint stored to two textures, then
                # multiplied, 6 presched VGPRs; the copy beside it counted 8). A vector keeps
                # its copy: the compiler holds a vector stored whole beside its components
                # (the same with float4s: 16 presched VGPRs)
                emitted = self.blocks[block]
                if _plain_copy(ins) and block == self.block and first and emitted[first - 1] is ins:
                    value = ins.reads[0]
                    if all(later.dest is not value for later in emitted[first:]):
                        src = value  # (the index expressions do not write it)
                res = self.expr_(arg)
                # the address takes only the components its expression names (`o[id.x]`)
                sels = self.read_components([None, None, *idx_nodes], [res, src, *idx])
                store = self.emit(
                    "store", None, [res, src, *idx], node, rule="effect", resource=self._res_name(arg), **sels
                )
                el = t.element
                float_texel = el is not None and el.kind == "scalar" and el.scalar == "float"
                if t.resource is not None and t.resource.typed and float_texel:
                    store.detail["splat"] = src  # see `Instr.detail`
                return
            base = self.expr_(arg)
            if base is not None and base.parts is not None:
                for part in _flatten(base.parts):  # a run-time index may write any element
                    self.emit("alu", part, [part, src, *idx], node)
            elif base is not None and base.kind == "var":
                at = self._constant_component(idx_node, idx)
                element = _element_offset(t, base)
                if at is not None and element is not None:  # `a[2] = x` of an array held whole
                    w = element[0]
                    comps = tuple(range(at[0] * w, at[0] * w + w)) if at[0] < element[1] else ()
                    set_: dict[str, Any] = {"set": comps} if comps else {}
                    self.emit("alu", base, [base, src, *idx], node, **set_)
                else:
                    self.emit("alu", base, [base, src, *idx], node, **_lanes_set(base.type, at))
            elif arg is not None:
                tmp = self.emit("alu", None, [base, src, *idx], node)
                self.store_to(arg, tmp, node)
            return

    def _constant_component(self, idx_node: Node | None, idx: list[Value | None]) -> tuple[int, ...] | None:
        """The component a single compile-time index names (`v[2] = x`), else None."""
        if idx_node is None or len(idx) != 1 or idx[0] is not None:
            return None
        k = self.const_value(idx_node.named_children[0])
        return (k,) if isinstance(k, int) and not isinstance(k, bool) and k >= 0 else None


_MERGED = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", ">", "<=", ">=", "==", "!="})
"""Binary operators whose result is their operands' alone (value numbering merges them)."""

_SWIZZLE_SETS = ("xyzw", "rgba")


def swizzle_components(name: str) -> tuple[int, ...] | None:
    """The components a swizzle names (`zx` is (2, 0)); None if `name` is not a swizzle."""
    for letters in _SWIZZLE_SETS:
        if name and all(c in letters for c in name):
            return tuple(letters.index(c) for c in name)
    return None


def _plain_copy(ins: Instr) -> bool:
    """Whether `ins` copies one scalar value into a temporary (an assignment's value)."""
    return (
        ins.op == "copy"
        and len(ins.reads) == 1
        and "sels" not in ins.detail
        and ins.dest is not None
        and ins.dest.kind == "temp"
        and ins.dest.width == 1
    )


def _element_offset(t: T.Type, r: Value) -> tuple[int, int] | None:
    """(components per element, elements) of `t`, an array of scalars or vectors that `r`
    holds whole, one register per component; else None."""
    el = t.element
    if t.kind != "array" or el is None or el.kind not in ("scalar", "vector") or not t.length:
        return None
    if r.parts is not None or el.count * t.length != r.width:
        return None
    return el.count, t.length


def _lanes_set(t: T.Type, comps: tuple[int, ...] | None) -> dict[str, Any]:
    """The `set` detail of a partial write of a vector: the components written, in the order of
    the written value's components (empty when unknown or not a vector)."""
    if comps is None or t.kind != "vector" or len(set(comps)) != len(comps) or max(comps) >= t.count:
        return {}
    return {"set": comps}
