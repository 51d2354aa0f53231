"""Lowering expressions: reads of variables, members and groupshared memory, and operators.

`ExprLowerer` lowers an expression to the instructions that compute it and returns the value
holding its result (None for a compile-time constant). Element accesses, loads of constant
memory, buffers and node records, assignments and the stores they make (`store_to`: an
instruction defines an lvalue, a variable, a member, an element, a swizzle, groupshared memory,
a resource) are lowered by the subclass `lowering_access`; calls by the subclasses
(`lowering_calls`, `lowering_inline`).
"""

from __future__ import annotations

from typing import Any

from hlsllint.analysis.ir import Instr, Span, Value
from hlsllint.analysis.lowering import ACCESS_EXPRESSIONS, VARIABLE_KINDS, LowererBase
from hlsllint.semantic import types as T
from hlsllint.semantic.expressions import OPERATOR_EXPRESSIONS, operator_operands
from hlsllint.semantic.symbols import Function, Symbol
from hlsllint.syntax import Node
from hlsllint.syntax.fields import (
    F_ALTERNATIVE,
    F_ARGUMENT,
    F_ARGUMENTS,
    F_CONDITION,
    F_CONSEQUENCE,
    F_FIELD,
    F_LEFT,
    F_OPERATOR,
    F_RIGHT,
    F_VALUE,
)
from hlsllint.syntax.queries import unparen


class ExprLowerer(LowererBase):
    """Expressions (element accesses, loads of memory, assignments and stores: `lowering_access`)."""

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

    def subscript(self, node: Node) -> Value | None:
        """Lower an element access (`lowering_access.AccessLowerer`)."""
        raise NotImplementedError

    def _constant_load(self, node: Node, sym: Symbol, root: Node, indices: list[Node]) -> Value | None:
        """Lower a member/element read of constant memory (`lowering_access.AccessLowerer`)."""
        raise NotImplementedError

    def _buffer_member_load(self, node: Node, element: Node) -> Value | None:
        """Lower a member read of a structured or raw buffer element
        (`lowering_access.AccessLowerer`)."""
        raise NotImplementedError

    def memory_member(self, node: Node, sym: Symbol, name: str) -> Value | None:
        """Lower `copy.member` of a local struct that copies read-only memory
        (`lowering_access.AccessLowerer`)."""
        raise NotImplementedError

    def assignment(self, node: Node) -> Value | None:
        """Lower an assignment (`lowering_access.AccessLowerer`)."""
        raise NotImplementedError

    def store_to(self, target: Node | None, ins: Instr, node: Node, partial: bool = True) -> None:
        """Make `ins` (whose result is being written) define the lvalue `target`
        (`lowering_access.AccessLowerer`)."""
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
            if split and ops is not None and len(reads) == 2:
                for i in (0, 1):
                    reads[i], ops = self.converted(reads[i], children[i], node, ops, i)
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
        reciprocal's. An integer divisor read as part of a view (`/ size.x` of a vector) is the
        reciprocal of its conversion to the division's float type (`converted` takes the
        others first); a constant, a non-numeric or a double divisor stays. Only with the liveness
        by component (`costs.component_liveness`): counting whole vectors, the estimate holds
        enough already (the tune sets' pooled mean error 15.82% -> 15.85% with it)."""
        if divisor is None or divisor_node is None or divisor.parts is not None:
            return divisor, ops
        t = self.m.type_of(divisor_node)
        if t.kind not in ("scalar", "vector") or not (t.is_float or t.is_int):
            return divisor, ops
        result = self.m.type_of(node)
        if not result.is_float or "double" in (t.scalar, result.scalar):
            return divisor, ops
        if t.is_int:  # converted to the division's float type first (`uv / int2 size`)
            t = T.numeric(result.scalar, 1, t.count)
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

    def converted(
        self, value: Value | None, value_node: Node, node: Node, ops: tuple[object, ...], at: int
    ) -> tuple[Value | None, tuple[object, ...]]:
        """The operand a floating-point operation `node` takes in place of an integer operand
        read whole (`uv * size` of an `int2 size`): its conversion, an instruction of its own
        that value numbering merges wherever the same value is converted again (`merge`, as an
        explicit cast's), so that an integer read from uniform memory holds its float in a VGPR
        (no scalar floating-point ALU) from its first conversion to its last use, across the
        inlined copies of a helper (regtruth: four copies of `(p + 0.5) * size`, presched_vgprs
        9; 7 with the integer read in SGPRs by every copy). With the operands' components
        (`ops`), the operation's; a constant, a view of a vector or a double stays."""
        operand = ops[at]
        if value is None or value.parts is not None or not isinstance(operand, tuple):
            return value, ops
        t = self.m.type_of(value_node)
        result = self.m.type_of(node)
        if not t.is_int or t.kind not in ("scalar", "vector") or not result.is_float:
            return value, ops
        if result.scalar == "double" or operand[0] != "v" or t.count != value.width:
            return value, ops
        if operand[1] != tuple(range(value.width)) and (operand[1] is not None or value in self.bound_views):
            return value, ops
        ft = T.numeric(result.scalar, 1, t.count)
        d = self.value(f"{ft.name}({self.temp_name(value_node)})", ft, "temp")
        self.emit("alu", d, [value], node, merge=("cast", ft.name, ""))
        return d, (*ops[:at], ("v", tuple(range(t.count)), ft.scalar, t.count, True), *ops[at + 1 :])

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

    def unrolled_counter_of(self, sym: Symbol | None) -> tuple[tuple[int, ...], Span] | None:
        """(value per iteration, loop span) when `sym` is the counter of an enclosing loop the
        compiler unrolls (the innermost such loop), else None."""
        for found, vals, loop in reversed(self.unrolled_counters):
            if found is sym:
                return vals, loop
        return None

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


_MERGED = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", ">", "<=", ">=", "==", "!="})
"""Binary operators whose result is their operands' alone (value numbering merges them)."""

_SWIZZLE_SETS = ("xyzw", "rgba")


def swizzle_components(name: str) -> tuple[int, ...] | None:
    """The components a swizzle names (`zx` is (2, 0)); None if `name` is not a swizzle."""
    for letters in _SWIZZLE_SETS:
        if name and all(c in letters for c in name):
            return tuple(letters.index(c) for c in name)
    return None


def _element_offset(t: T.Type, r: Value) -> tuple[int, int] | None:
    """(components per element, elements) of `t`, an array of scalars or vectors that `r`
    holds whole, one register per component; else None."""
    el = t.element
    if t.kind != "array" or el is None or el.kind not in ("scalar", "vector") or not t.length:
        return None
    if r.parts is not None or el.count * t.length != r.width:
        return None
    return el.count, t.length
