"""Lowering element accesses, loads of memory and stores: subscripts, loads of constant
memory (cbuffer members, `static const` tables, rows of a table an unrolled loop's counter
picks), members of structured and raw buffer elements, copies of read-only memory and node
records, and the assignments and stores that write variables, members, elements, swizzles,
groupshared memory and resources.

`AccessLowerer` extends `ExprLowerer` (`lowering_expr`), which declares the methods of it that
`expr_` calls; `store_to` makes an instruction define an lvalue.
"""

from __future__ import annotations

import itertools
from typing import Any

from hlsllint.analysis.ir import Instr, Span, Value
from hlsllint.analysis.lowering import VARIABLE_KINDS, _flatten
from hlsllint.analysis.lowering_expr import ExprLowerer, _element_offset, swizzle_components
from hlsllint.semantic import types as T
from hlsllint.semantic.intrinsics import MEMORY_OBJECTS, NODE_RECORDS, object_base
from hlsllint.semantic.queries import uses_of
from hlsllint.semantic.symbols import Symbol
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
    F_RIGHT,
)
from hlsllint.syntax.queries import call_name, enclosing, is_written, unparen

_FUNCTION = frozenset({"function_definition"})


_READ_ONLY = ("structured", "raw")


class AccessLowerer(ExprLowerer):
    """Element accesses, loads of memory, assignments and stores."""

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
        if not self.unrolled_counters or len(indices) != 1:
            return None
        if sym.kind != "static_const" and not self._local_table(sym):
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

    def _local_table(self, sym: Symbol) -> bool:
        """A local array that keeps its initial values (`const int2 offsets[8] = { ... }` in a
        function, or one never written): read at an unrolled counter, a table as a `static
        const` one is (the compiler folds its elements into each unrolled copy; regtruth: a
        jump-flood pass over 8 neighbours, presched_vgprs 17 with the table in either place;
        the estimate 15 with the global one, 12 with the local one as a run-time array)."""
        return (
            sym.kind == "local"
            and sym.type.kind == "array"
            and sym.init is not None
            and ("const" in sym.qualifiers or self.m.never_written(sym))
        )

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
        sym = self._base_symbol(arg)
        if sym is not None and arg is not None and self._local_table(sym):
            rows = self._rows_per_iteration(node, sym, arg, idx_nodes)
            if rows is not None:
                # a local table of constants read at an unrolled counter: a constant in each
                # unrolled copy, as the counter itself (`lowering_expr`)
                d = self.temp(node)
                self.emit_expr("alu", d, [], node, rows=rows[0], loop=rows[1])
                return d
        base = self.expr_(arg)
        idx = [self.expr_(i) for i in idx_nodes]
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
        parts = base.parts if base is not None else None
        split = self._element_rows(idx_nodes, parts) if parts is not None else None
        if split is not None and parts is not None:  # a split array's element, known in each unrolled copy
            # each copy reads its own element: the elements no iteration reads are not read
            # here (`color[0]` read before a loop over `color[i]` from 1 dies before it)
            read: list[Value | None] = [parts[k] for k in sorted(split[1])]
            # the elements only the first unrolled copy reads (`liveness._first_copy_kills`)
            first = tuple(
                p for p, k in enumerate(sorted(split[1])) if set(split[1][k]) == {(0,) * len(split[0])}
            )
            if first and all(r is not None for r in read):
                self.emit_expr("alu", d, [*read, *idx], node, element_read=split[0], element_first=first)
            else:
                self.emit_expr("alu", d, [*read, *idx], node, element_read=split[0])
        else:
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
        if self.memory_copies.pop(sym, None) is not None:
            self.effects += 1
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
            self.effects += 1

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
            member_of = self._buffer_member_path(target)
            if member_of is not None:
                self._buffer_member_store(target, member_of, src, node)
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
                stored: list[Value | None] = [src]
                if _plain_copy(ins) and block == self.block and first and emitted[first - 1] is ins:
                    value = ins.reads[0]
                    if all(later.dest is not value for later in emitted[first:]):
                        src = value  # (the index expressions do not write it)
                        stored = [src]
                elif _struct_copy(ins) and block == self.block and first and emitted[first - 1] is ins:
                    members = list(ins.reads)
                    if all(later.dest not in members for later in emitted[first:]):
                        stored = list(members)
                res = self.expr_(arg)
                # the address takes only the components its expression names (`o[id.x]`)
                pad: list[Node | None] = [None] * (1 + len(stored))
                sels = self.read_components([*pad, *idx_nodes], [res, *stored, *idx])
                name = self._res_name(arg)
                reads = [res, *stored, *idx]
                store = self.emit("store", None, reads, node, rule="effect", resource=name, **sels)
                el = t.element
                float_texel = el is not None and el.kind == "scalar" and el.scalar == "float"
                if t.resource is not None and t.resource.typed and float_texel:
                    store.detail["splat"] = src  # see `Instr.detail`
                return
            base = self.expr_(arg)
            if base is not None and base.parts is not None:
                rows = self._element_rows(idx_nodes, base.parts)
                for k, part in enumerate(_flatten(base.parts)):  # a run-time index may write any element
                    if rows is None:
                        self.emit("alu", part, [part, src, *idx], node)
                    else:
                        self.emit("alu", part, [part, src, *idx], node, element=(rows[0], rows[1].get(k, ())))
            elif base is not None and base.kind == "var":
                at = self._constant_component(idx_node, idx)
                element = _element_offset(t, base)
                if at is not None and element is not None:  # `a[2] = x` of an array held whole
                    w = element[0]
                    comps = tuple(range(at[0] * w, at[0] * w + w)) if at[0] < element[1] else ()
                    set_: dict[str, Any] = {"set": comps} if comps else {}
                    self.emit("alu", base, [base, src, *idx], node, **set_)
                else:
                    whole_row = src is not None and src.width == base.type.cols
                    self.emit("alu", base, [base, src, *idx], node, **_lanes_set(base.type, at, whole_row))
            elif arg is not None:
                tmp = self.emit("alu", None, [base, src, *idx], node)
                self.store_to(arg, tmp, node)
            return

    def _buffer_member_store(self, target: Node, element: Node, src: Value | None, node: Node) -> None:
        """`buf[i].member = v` (`buf[i].m.xy = v`, `buf[i].a[j] = v`) of a structured or raw
        buffer stores the member's words, not the element read, changed and written back
        whole (regtruth: WickedEngine's emittedparticle_kickoffUpdateCS, an element of
        counters written member by member and a struct of three dispatch counts stored into
        a member, presched_vgprs 4; 14 with every element read whole)."""
        res_node = element.child_by_field_id(F_ARGUMENT)
        reads: list[Value | None] = [self.expr_(res_node), src]
        n: Node | None = target
        while n is not None and n.id != element.id:
            if n.type == "subscript_expression":
                reads.extend(self.expr_(i) for i in self._indices(n))
            n = n.child_by_field_id(F_ARGUMENT)
        reads.extend(self.expr_(i) for i in self._indices(element))
        res = res_node if res_node is not None else element
        self.emit("store", None, reads, node, rule="effect", resource=self._res_name(res))

    def _element_rows(
        self, idx_nodes: list[Node], parts: list[Value]
    ) -> tuple[tuple[Span, ...], dict[int, tuple[tuple[int, ...], ...]]] | None:
        """Which element of a split array (`_split_array`) a write in loops the compiler unrolls
        writes in each unrolled copy: (the loops' spans from the outermost in, element -> the
        iterations writing it, each as its iteration number in every loop). The index is made
        of the loops' counters (`lum[(y + 1) * 3 + x + 1]`) or a running index (`lum[i++]`,
        `_running_index`). None when an element of a struct array, or an index not so made."""
        if len(idx_nodes) != 1 or not self.unrolled_counters or any(p.parts is not None for p in parts):
            return None
        index = idx_nodes[0]
        counters = {span: (sym, vals) for sym, vals, span in self.unrolled_counters}
        out: dict[int, list[tuple[int, ...]]] = {}
        running = self._running_index(index)
        if running is not None:
            _sym, first, step, loops = running
            spans = tuple(self.span(lp) for lp in loops)
            if any(sp not in counters for sp in spans):
                return None
            trips = [len(counters[sp][1]) for sp in spans]
            for t, at in enumerate(itertools.product(*(range(n) for n in trips))):
                out.setdefault(first + t * step, []).append(at)
        else:
            used: set[int] = set()
            if not self._made_of_counters(index, [sym for sym, _v, _s in self.unrolled_counters], 0, used):
                return None
            spans = tuple(sp for sp, (sym, _vals) in counters.items() if id(sym) in used)
            frame = self.frames[-1] if self.frames else None
            bound = dict(frame.consts) if frame is not None else {}
            for at in itertools.product(*(range(len(counters[sp][1])) for sp in spans)):
                for sp, k in zip(spans, at, strict=True):
                    sym, vals = counters[sp]
                    bound[id(sym)] = vals[k]
                e = self.m.const_value_with(index, bound)
                if not isinstance(e, int) or isinstance(e, bool):
                    return None
                out.setdefault(e, []).append(at)
        if any(not 0 <= e < len(parts) for e in out):
            return None
        return spans, {e: tuple(ats) for e, ats in out.items()}

    def _constant_component(self, idx_node: Node | None, idx: list[Value | None]) -> tuple[int, ...] | None:
        """The component a single compile-time index names (`v[2] = x`), else None."""
        if idx_node is None or len(idx) != 1 or idx[0] is not None:
            return None
        k = self.const_value(idx_node.named_children[0])
        return (k,) if isinstance(k, int) and not isinstance(k, bool) and k >= 0 else None


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


def _struct_copy(ins: Instr) -> bool:
    """Whether `ins` copies a struct's members into a temporary (an assignment's value): a
    store of a struct stores its members' own registers, a few words at a time (regtruth:
    WickedEngine's surfel_indirectprepareCS stores nine counts, three computed and six
    constants, in 4 presched VGPRs; the copy held all nine at once)."""
    return (
        ins.op == "copy"
        and len(ins.reads) > 1
        and "sels" not in ins.detail
        and ins.dest is not None
        and ins.dest.kind == "temp"
        and ins.dest.type.kind == "struct"
    )


def _lanes_set(t: T.Type, comps: tuple[int, ...] | None, row: bool = False) -> dict[str, Any]:
    """The `set` detail of a partial write of a vector: the components written, in the order of
    the written value's components (empty when unknown or not a vector). With `row`, `comps`
    is a row of a matrix written whole (`m[2] = v`): its components, row by row."""
    if row and comps is not None and t.kind == "matrix" and len(comps) == 1 and comps[0] < t.rows:
        return {"set": tuple(range(comps[0] * t.cols, comps[0] * t.cols + t.cols))}
    if comps is None or t.kind != "vector" or len(set(comps)) != len(comps) or max(comps) >= t.count:
        return {}
    return {"set": comps}
