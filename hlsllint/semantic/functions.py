"""Function definitions: name, parameters (direction, semantic, default value), result type and
semantic, attributes (`[numthreads(8, 8, 1)]`). A definition seen before (in any unit of the
process) is replayed from its plan (`hlsllint.semantic.plans`), else read and recorded. On top of
the declared types (`Expressions` and the layers below it)."""

from __future__ import annotations

import re
from typing import Any

from hlsllint.semantic import plans
from hlsllint.semantic import types as T
from hlsllint.semantic.constants import parse_number
from hlsllint.semantic.expressions import Expressions
from hlsllint.semantic.plans import NO_FUNCTION, PLAN_LIMIT, FunctionPlan, ParamSkeleton, notes_in
from hlsllint.semantic.symbols import Attribute, Function, Symbol
from hlsllint.settings import AnalysisSettings
from hlsllint.syntax import Node, SyntaxTree
from hlsllint.syntax.fields import F_BODY, F_DECLARATOR, F_DEFAULT_VALUE, F_PARAMETERS, F_TYPE

_ATTR_RE = re.compile(r"\[\s*([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*\]", re.S)


class Functions(Expressions):
    """The model reading function definitions (see the module docstring)."""

    def __init__(self, tree: SyntaxTree, settings: AnalysisSettings) -> None:
        super().__init__(tree, settings)
        self._plans: dict[int, tuple[FunctionPlan, int]] = {}
        """id(function) -> its plan (being recorded or replayed) and the definition's position."""

    # -- attributes -------------------------------------------------------------------------

    def _annotated_attributes(self, node: Node) -> list[Attribute]:
        return [
            Attribute(a.name, tuple(self._attr_arg(x) for x in a.args), a.span)
            for a in self.tree.attributes_of(node)
        ]

    def _attr_arg(self, text: str) -> Any:
        a = text.strip()
        if len(a) >= 2 and a[0] == '"' and a[-1] == '"':
            return a[1:-1]
        v = parse_number(a)
        if v is None and a in self.globals and self.globals[a].init is not None:
            v_ = self.const_value(self.globals[a].init)
            v = v_ if isinstance(v_, int | float) else None
        if v is None and a:  # an expression (`Tile::kSize / 2`, `A * B`, `(uint)N`)
            v_ = self.const_text(a)
            v = v_ if isinstance(v_, int | float) and not isinstance(v_, bool) else None
        return v if v is not None else a

    def _attributes_in(self, node: Node) -> list[Attribute]:
        out = []
        span = self.tree.span(node)
        for m in _ATTR_RE.finditer(self._text(node)):
            raw = m.group(2)
            args = [self._attr_arg(a) for a in _split_args(raw)] if raw is not None else []
            s = span[0] + m.start()
            out.append(Attribute(m.group(1), tuple(args), (s, span[0] + m.end())))
        return out

    # -- definitions ------------------------------------------------------------------------

    def _define_function(self, node: Node, pending_attrs: list[Attribute]) -> None:
        attrs = list(pending_attrs) + self._annotated_attributes(node)
        for c in node.children:
            if c.type in ("hlsl_attribute", "attribute_declaration", "attribute_specifier"):
                attrs.extend(self._attributes_in(c))
        self._define_planned(node, attrs, None)

    def _define_planned(self, node: Node, attrs: list[Attribute], owner: str | None) -> None:
        """Define a function (a method of struct `owner` when one is named): a definition whose
        text, parse and annotations were seen before (in the same struct) is replayed from its
        plan, where what is read from its own text comes from the plan and what the unit decides
        (types) is looked up here; any other is walked and recorded."""
        tree = self.tree
        at = tree.index_of(node) if plans.USE_PLANS else None
        if at is None:
            return self._define_function_walk(node, attrs, None, owner)
        s, e = tree.span(node)
        key = (tree.text[s:e], tree.normalized[s:e], owner or "")
        plan = plans.PLANS.get(key)
        notes = notes_in(self.tree, node)
        if plan is not None and plan.fits(tree.node_types(), at, node.descendant_count, notes):
            return self._replay_define(node, at, plan, attrs, owner)
        plan = FunctionPlan(tree.node_types()[at : at + node.descendant_count], notes)
        self._define_function_walk(node, attrs, (plan, at), owner)
        if plan.define is not None:
            if len(plans.PLANS) >= PLAN_LIMIT:
                plans.PLANS.clear()
            plans.PLANS[key] = plan
        return None

    def _define_methods(self) -> None:
        """Define the methods met in struct bodies (`_pending_methods`), named `Struct::name`."""
        pending = self._pending_methods
        self._pending_methods = []
        for node, owner in pending:
            if node.type == "template_declaration":
                inner = [c for c in node.named_children if c.type == "function_definition"]
                if not inner:
                    continue
                node = inner[0]
            self._define_planned(node, self._annotated_attributes(node), owner)

    def _define_function_walk(
        self,
        node: Node,
        attrs: list[Attribute],
        recording: tuple[FunctionPlan, int] | None,
        owner: str | None = None,
    ) -> None:
        declarator = node.child_by_field_id(F_DECLARATOR)
        while declarator is not None and declarator.type != "function_declarator":
            declarator = declarator.child_by_field_id(F_DECLARATOR)
        if declarator is None:
            if recording is not None:
                recording[0].define = NO_FUNCTION
            return
        name_node = declarator.child_by_field_id(F_DECLARATOR)
        name = self._text(name_node)
        if not name:
            if recording is not None:
                recording[0].define = NO_FUNCTION
            return
        if name_node is not None and name_node.type == "operator_name":
            name = "".join(name.split())  # `operator +` is `operator+`
        if owner is not None:
            name = f"{owner}::{name}"
        elif name_node is not None and name_node.type == "qualified_identifier":
            name = "".join(name.split())  # `R S::f() {...}`: a method defined outside S
        written = name  # what a replay of the plan starts from
        if owner is None and "::" in name:
            name, owner = self._method_of_struct(name)
        ret_type = self.type_from_node(node.child_by_field_id(F_TYPE))
        ret_sem: str | None = None
        for c in list(declarator.named_children) + list(node.named_children):
            if c.type in ("semantics", "bitfield_clause"):
                ret_sem, _ = self._semantic_of(c)
        ret_sem = self._annotated_semantic(node) or ret_sem
        params: list[Symbol] = []
        entries: list[tuple[int, ParamSkeleton | None]] | None = [] if recording is not None else None
        plist = declarator.child_by_field_id(F_PARAMETERS)
        for p in plist.named_children if plist is not None else []:
            if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
                continue
            syms = self._define_param(p, name)
            if syms:
                params.append(syms[0])
            if entries is not None and recording is not None:
                entry = self._param_skeleton(p, syms, recording[1])
                if entry is None:
                    entries = None
                else:
                    entries.append(entry)
        body = node.child_by_field_id(F_BODY)
        fn = Function(name, node, params, ret_type, ret_sem, attrs, body)
        if owner is not None:
            self._make_method(fn, owner)
        self._function_of[node.id] = fn
        self.functions.setdefault(name, []).append(fn)
        if recording is not None and entries is not None:
            plan, at = recording
            body_at = self.tree.index_of(body) if body is not None else -1
            if body_at is not None:
                plan.define = (written, ret_sem, tuple(entries), body_at - at if body_at >= 0 else -1)
                self._plans[id(fn)] = (plan, at)

    def _method_of_struct(self, name: str) -> tuple[str, str | None]:
        """`S::f`, `Outer::Inner::f`, `Ns::S::f` (namespaces are flattened): the function's name
        as the struct's method (`Struct::f`, the struct as it is known) and that struct, the
        longest scope that names one; else the name unchanged and None (a namespace's function)."""
        scope, _, method = name.rpartition("::")
        parts = scope.split("::")
        for i in range(len(parts)):
            t = self.structs.get("::".join(parts[i:]))
            if t is not None:
                return f"{t.name}::{method}", t.name
        return name, None

    def _make_method(self, fn: Function, owner: str) -> None:
        """Make `fn` a method of struct `owner`: a `this` unless it is static."""
        fn.owner = owner
        self.method_names.setdefault(fn.name.rpartition("::")[2], []).append(fn)
        static = any(
            c.type == "storage_class_specifier" and self._text(c) == "static" for c in fn.node.children
        )
        if not static:
            t = self.structs.get(owner, T.UNKNOWN)
            fn.this = Symbol("this", "param", t, direction="inout", function=fn.name)

    def _define_param(self, p: Node, function: str) -> list[Symbol]:
        """Declare a parameter (the first symbol of `declare`, completed: semantic, default
        value, direction); every symbol `declare` made."""
        syms = self.declare(p, "param", function=function)
        if not syms:
            return syms
        sym = syms[0]
        for c in p.named_children:
            if c.type in ("semantics", "bitfield_clause"):
                sym.semantic = sym.semantic or self._semantic_of(c)[0]
        sym.semantic = sym.semantic or self._annotated_semantic(p)
        if sym.init is None:
            sym.init = p.child_by_field_id(F_DEFAULT_VALUE)
        q = sym.qualifiers
        sym.direction = (
            "inout" if "inout" in q or ("in" in q and "out" in q) else ("out" if "out" in q else "in")
        )
        return syms

    def _param_skeleton(
        self, p: Node, syms: list[Symbol], base: int
    ) -> tuple[int, ParamSkeleton | None] | None:
        """(position, skeleton) of a parameter for a plan: what its declaration says apart
        from its type, or None (declared anew) when it has several names, none, or array sizes.
        None when the parameter cannot be placed."""
        tree = self.tree
        at = tree.index_of(p)
        if at is None:
            return None
        if len(syms) != 1 or "array_declarator" in tree.node_types()[at : at + p.descendant_count]:
            return (at - base, None)
        sym = syms[0]
        name_at = tree.index_of(sym.node) if sym.node is not None else None
        init_at = tree.index_of(sym.init) if sym.init is not None else -1
        if name_at is None or init_at is None:
            return (at - base, None)
        rel_init = init_at - base if init_at >= 0 else -1
        return (
            at - base,
            (name_at - base, rel_init, sym.name, sym.semantic, sym.register, sym.qualifiers, sym.direction),
        )

    def _replay_define(
        self, node: Node, at: int, plan: FunctionPlan, attrs: list[Attribute], owner: str | None
    ) -> None:
        define = plan.define
        # `==`, not `is`: compiled, NO_FUNCTION is a native tuple boxed afresh at every use.
        if define is None or define == NO_FUNCTION:
            return
        written, ret_sem, entries, body_rel = define
        if owner is not None:  # a method of a struct's body: `written` is `Struct::name` already
            name = written
        elif "::" in written:
            name, owner = self._method_of_struct(written)
        else:
            name = written
        nodes = self.tree.nodes()
        refs = self._refs
        ret_type = self.type_from_node(node.child_by_field_id(F_TYPE))
        params: list[Symbol] = []
        for rel, skeleton in entries:
            p = nodes[at + rel]
            if skeleton is None:
                syms = self._define_param(p, name)
                if syms:
                    params.append(syms[0])
                continue
            rel_name, rel_init, pname, semantic, register, quals, direction = skeleton
            t = self.type_from_node(p.child_by_field_id(F_TYPE))
            name_node = nodes[at + rel_name]
            sym = Symbol(
                pname,
                "param",
                t,
                name_node,
                p,
                semantic,
                register,
                init=nodes[at + rel_init] if rel_init >= 0 else None,
                direction=direction,
                qualifiers=quals,
                function=name,
            )
            refs[name_node.byte_range] = sym
            params.append(sym)
        body = nodes[at + body_rel] if body_rel >= 0 else None
        fn = Function(name, node, params, ret_type, ret_sem, attrs, body)
        if owner is not None:
            self._make_method(fn, owner)
        self._function_of[node.id] = fn
        self.functions.setdefault(name, []).append(fn)
        self._plans[id(fn)] = (plan, at)


def _split_args(raw: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in raw:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        cur += ch
    if cur.strip():
        out.append(cur)
    return out
