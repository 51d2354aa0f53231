"""The semantic model of one translation unit.

`build_model(tree, settings)` reads the syntax tree once and records:
- `structs` (name -> `Type` of kind struct, members with types and semantics), `typedefs`;
- `globals` (name -> `Symbol`): resources (`kind="resource"`, template type, `register`),
  constant-buffer members (`kind="cbuffer_member"`, `container` is the buffer; plain non-static
  globals are members of `$Globals`), `groupshared` (with `Type.bytes()`), `static_const`,
  `static`;
- `cbuffers` (cbuffer/tbuffer blocks and `ConstantBuffer<T>` declarations with their members);
- `functions` (name -> overloads) with parameters (`direction` in/out/inout, `semantic`), return
  type and semantic, attributes (`[numthreads(8,8,1)]` -> `Attribute("numthreads", (8,8,1))`);
- `entry_points` with their stage and compute group size;
- symbol resolution: `model.resolve(identifier_node) -> Symbol | None` for every identifier in a
  function body or initializer (locals follow block scopes), and `model.type_of(expr) -> Type`.

Nothing here raises on broken trees: unknown names resolve to None, unknown types are `UNKNOWN`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from typing import Any

from hlsllint.semantic import plans
from hlsllint.semantic import types as T
from hlsllint.semantic.constants import parse_number
from hlsllint.semantic.entries import find_entry_points
from hlsllint.semantic.expressions import Expressions
from hlsllint.semantic.plans import (
    NO_FUNCTION,
    OP_CALL,
    OP_DECLARE,
    OP_FREE,
    OP_LOCAL,
    PLAN_LIMIT,
    FunctionPlan,
    ParamSkeleton,
    Recording,
    notes_in,
)
from hlsllint.semantic.symbols import Attribute, CBuffer, EntryPoint, Function, Symbol
from hlsllint.settings import AnalysisSettings
from hlsllint.syntax import Node, SyntaxTree
from hlsllint.syntax.fields import (
    F_BODY,
    F_DECLARATOR,
    F_DEFAULT_VALUE,
    F_NAME,
    F_PARAMETERS,
    F_SIZE,
    F_TYPE,
)

__all__ = ["Attribute", "CBuffer", "EntryPoint", "Function", "Model", "Symbol", "build_model"]
"""The model, and the values it holds (from `hlsllint.semantic.symbols`) for the importers that
take them from here."""

_ATTR_RE = re.compile(r"\[\s*([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*\]", re.S)


class Model(Expressions):
    """See the module docstring."""

    def __init__(self, tree: SyntaxTree, settings: AnalysisSettings) -> None:
        super().__init__(tree, settings)
        self._function_symbols: dict[str, Symbol] = {}
        self._pending_uses: list[tuple[int, Node, Symbol]] = []
        """The uses found in the body being resolved: (start byte, identifier, symbol)."""
        self._recording: Recording | None = None
        """While a body is walked: its steps, for its function's plan."""
        self._free: dict[str, Symbol | None] = {}
        """While the bodies are resolved: name -> `_lookup(name, ())` (globals and functions do
        not change then)."""
        self._positions: list[int] = []
        """While a body is walked: the positions in `nodes()` of its nodes of `_RESOLVE_KINDS`."""
        self._plans: dict[int, tuple[FunctionPlan, int]] = {}
        """id(function) -> its plan (being recorded or replayed) and the definition's position."""

    # -- building ---------------------------------------------------------------------------

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
        return v if v is not None else a

    def _global_kind(self, sym: Symbol) -> str:
        if sym.type.is_resource:
            return "resource"
        if "groupshared" in sym.qualifiers:
            return "groupshared"
        if "static" in sym.qualifiers:
            return "static_const" if "const" in sym.qualifiers else "static"
        if "const" in sym.qualifiers and sym.decl is not None and self._specialization_constant(sym.decl):
            # a Vulkan specialization constant: its default is folded when nothing overrides it
            return "static_const"
        return "cbuffer_member"

    def _specialization_constant(self, decl: Node) -> bool:
        """`[[vk::constant_id(N)]] const T name = default;` (the attribute, blanked for the parser,
        is still in the text before the declaration)."""
        text = self.tree.text
        start = text.rfind(";", 0, decl.start_byte)
        start = max(start, text.rfind("}", 0, decl.start_byte))
        return "constant_id" in text[start + 1 : decl.end_byte]

    def _add_cbuffer(
        self, kind: str, name_node: Node | None, body: Node | None, node: Node, register: str | None
    ) -> None:
        name = self._text(name_node) if name_node is not None else f"<cbuffer@{node.start_byte}>"
        members: list[Symbol] = []
        if body is not None:
            for d in body.named_children:
                if d.type in ("declaration", "field_declaration"):
                    for sym in self.declare(d, "cbuffer_member"):
                        sym.container = name
                        if sym.type.is_resource:
                            sym.kind = "resource"
                        members.append(sym)
                        self.globals[sym.name] = sym
        self.cbuffers.append(CBuffer(name, kind, register, members, node))

    def _top_level(self, node: Node) -> Iterator[Node]:
        for c in node.named_children:
            if c.type in (
                "namespace_definition",
                "linkage_specification",
                "declaration_list",
                "preproc_if",
                "preproc_ifdef",
                "preproc_else",
                "preproc_elif",
            ):
                body = c.child_by_field_id(F_BODY)
                yield from self._top_level(body if body is not None else c)
            else:
                yield c

    def build(self) -> Model:
        nodes = list(self._top_level(self.tree.root))
        pending_attrs: list[Attribute] = []
        for i, n in enumerate(nodes):
            kind = n.type
            if kind == "comment":  # most top-level nodes: nothing to record
                pending_attrs = []
                continue
            type_node = n.child_by_field_id(F_TYPE)
            type_text = self._text(type_node) if type_node is not None else ""
            if kind in ("hlsl_attribute", "attribute_declaration", "attributed_statement"):
                pending_attrs.extend(self._attributes_in(n))
                continue
            block = self.block_kind(n) if kind == "struct_specifier" else None
            if block in ("cbuffer", "tbuffer"):
                reg = self._annotated_register(n) or self._register_in(n)
                body = n.child_by_field_id(F_BODY)
                self._add_cbuffer(block or "cbuffer", n.child_by_field_id(F_NAME), body, n, reg)
            elif kind in ("struct_specifier", "class_specifier"):
                if n.child_by_field_id(F_BODY) is not None:
                    self._define_struct(n)
            elif kind == "cbuffer_specifier":
                name_node = n.child_by_field_id(F_NAME) or _first(n, "identifier", "type_identifier")
                body = n.child_by_field_id(F_BODY) or _first(
                    n, "field_declaration_list", "declaration_list", "compound_statement"
                )
                reg = self._register_in(n)
                kw = "tbuffer" if self._text(n).lstrip().startswith("tbuffer") else "cbuffer"
                self._add_cbuffer(kw, name_node, body, n, reg)
            elif kind == "function_definition" and type_text in ("cbuffer", "tbuffer"):
                self._add_cbuffer(
                    type_text,
                    n.child_by_field_id(F_DECLARATOR),
                    n.child_by_field_id(F_BODY),
                    n,
                    self._register_in(n),
                )
            elif kind == "declaration" and type_text in ("cbuffer", "tbuffer"):
                nxt = nodes[i + 1] if i + 1 < len(nodes) else None
                body = nxt if nxt is not None and nxt.type == "compound_statement" else None
                self._add_cbuffer(type_text, n.child_by_field_id(F_DECLARATOR), body, n, self._register_in(n))
            elif kind == "type_definition":
                base = self.type_from_node(type_node)
                for j, c in enumerate(n.children):
                    if n.field_name_for_child(j) == "declarator":
                        d = self._unpack_declarator(c, base)
                        if d is not None:
                            self.typedefs[d.name] = d.type
                            self._named_types.clear()
            elif kind == "declaration":
                if type_node is not None and type_node.type in (
                    "struct_specifier",
                    "class_specifier",
                ):
                    self.type_from_node(type_node)
                if any(c.type == "function_declarator" for c in n.named_children):
                    continue  # a prototype
                for sym in self.declare(n, "global"):
                    sym.kind = self._global_kind(sym)
                    if sym.kind == "cbuffer_member":
                        sym.container = "$Globals"
                    self.globals[sym.name] = sym
                    res = sym.type.resource
                    if res is not None and res.category == "constant":
                        el = sym.type.element
                        members = [
                            Symbol(m.name, "cbuffer_member", m.type, container=sym.name)
                            for m in (el.members if el else ())
                        ]
                        self.cbuffers.append(CBuffer(sym.name, "ConstantBuffer", sym.register, members, n))
            elif kind == "function_definition":
                self._define_function(n, pending_attrs)
            pending_attrs = []
        globals_members = [s for s in self.globals.values() if s.container == "$Globals"]
        if globals_members:
            self.cbuffers.append(CBuffer("$Globals", "$Globals", None, globals_members, None))
        for overloads in self.functions.values():
            for f in overloads:
                self._pending_uses = []
                self._resolve_body(f)
                self._pending_uses.sort(key=lambda u: u[0])
                for _start, node, sym in self._pending_uses:
                    self._uses.setdefault(id(sym), []).append(node)
        self._pending_uses = []
        self._free = {}
        for name in self.functions:
            self._function_symbols[name] = Symbol(name, "function", T.UNKNOWN)
        self.entry_points.extend(find_entry_points(self.functions, self.settings))
        self._consts = {}
        return self

    def _register_in(self, node: Node) -> str | None:
        for c in self.tree.walk(node):
            if c.type in ("semantics", "bitfield_clause"):
                _, reg = self._semantic_of(c)
                if reg:
                    return reg
            if c.type in ("compound_statement", "field_declaration_list", "declaration_list"):
                break
        m = re.search(r"register\s*\(\s*([^)]*)\)", self._text(node).split("{", 1)[0])
        return m.group(1).strip() if m else None

    def _attributes_in(self, node: Node) -> list[Attribute]:
        out = []
        span = self.tree.span(node)
        for m in _ATTR_RE.finditer(self._text(node)):
            args: list[Any] = []
            raw = m.group(2)
            if raw is not None:
                for a in _split_args(raw):
                    a = a.strip()
                    if len(a) >= 2 and a[0] == '"' and a[-1] == '"':
                        args.append(a[1:-1])
                        continue
                    v = parse_number(a)
                    if v is None and a in self.globals and self.globals[a].init is not None:
                        v_ = self.const_value(self.globals[a].init)
                        v = v_ if isinstance(v_, int | float) else None
                    args.append(v if v is not None else a)
            s = span[0] + m.start()
            out.append(Attribute(m.group(1), tuple(args), (s, span[0] + m.end())))
        return out

    def _define_function(self, node: Node, pending_attrs: list[Attribute]) -> None:
        attrs = list(pending_attrs) + self._annotated_attributes(node)
        for c in node.children:
            if c.type in ("hlsl_attribute", "attribute_declaration", "attribute_specifier"):
                attrs.extend(self._attributes_in(c))
        # A function whose text, parse and annotations were seen before: what is read from its
        # own text comes from the plan, what the unit decides (types) is looked up here.
        tree = self.tree
        at = tree.index_of(node) if plans.USE_PLANS else None
        if at is None:
            return self._define_function_walk(node, attrs, None)
        s, e = tree.span(node)
        key = (tree.text[s:e], tree.normalized[s:e])
        plan = plans.PLANS.get(key)
        notes = notes_in(self.tree, node)
        if plan is not None and plan.fits(tree.node_types(), at, node.descendant_count, notes):
            return self._replay_define(node, at, plan, attrs)
        plan = FunctionPlan(tree.node_types()[at : at + node.descendant_count], notes)
        self._define_function_walk(node, attrs, (plan, at))
        if plan.define is not None:
            if len(plans.PLANS) >= PLAN_LIMIT:
                plans.PLANS.clear()
            plans.PLANS[key] = plan
        return None

    def _define_function_walk(
        self, node: Node, attrs: list[Attribute], recording: tuple[FunctionPlan, int] | None
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
        self.functions.setdefault(name, []).append(fn)
        if recording is not None and entries is not None:
            plan, at = recording
            body_at = self.tree.index_of(body) if body is not None else -1
            if body_at is not None:
                plan.define = (name, ret_sem, tuple(entries), body_at - at if body_at >= 0 else -1)
                self._plans[id(fn)] = (plan, at)

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

    def _replay_define(self, node: Node, at: int, plan: FunctionPlan, attrs: list[Attribute]) -> None:
        define = plan.define
        if define is None or define is NO_FUNCTION:
            return
        name, ret_sem, entries, body_rel = define
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
        self.functions.setdefault(name, []).append(fn)
        self._plans[id(fn)] = (plan, at)

    # -- scopes -----------------------------------------------------------------------------

    def _resolve_body(self, fn: Function) -> None:
        """Resolve every identifier of a body, following block scopes.

        A body whose function was seen before (in any unit of this process) with the same text,
        parse and annotations is resolved by replaying the recorded steps (`FunctionPlan`);
        otherwise it is walked, and the walk recorded."""
        if fn.body is None:
            return
        tree = self.tree
        start = tree.index_of(fn.body)
        if start is None:
            return
        planned = self._plans.get(id(fn))
        if planned is not None and planned[0].body is not None:
            self._replay(fn, planned[0].body, start)
            return
        rec = self._recording = Recording(start, fn.params) if planned is not None else None
        # The positions of the nodes the walk looks at, in this body only.
        kinds = _RESOLVE_KINDS
        self._positions = [
            i
            for i, t in enumerate(tree.node_types()[start : start + fn.body.descendant_count], start)
            if t in kinds
        ]
        try:
            self._resolve_range(fn, [{p.name: p for p in fn.params}], start)
        finally:
            self._recording = None
            self._positions = []
        if planned is not None and rec is not None and rec.ok:
            planned[0].body = rec.ops

    def _replay(self, fn: Function, ops: list[tuple[Any, ...]], base: int) -> None:
        """Resolve a body by the recorded steps of an identical one: the same declarations
        (their types looked up here), references, uses and calls, in the same order."""
        nodes = self.tree.nodes()
        refs = self._refs
        uses = self._pending_uses
        lookup = self._lookup
        free = self._free
        params = fn.params
        declared: list[list[Symbol]] = []
        for op in ops:
            code = op[0]
            if code == OP_DECLARE:
                decl = nodes[base + op[1]]
                skeleton = op[2]
                if skeleton is None:
                    declared.append(self.declare(decl, "local", function=fn.name))
                    continue
                entries, quals = skeleton
                t = self.type_from_node(decl.child_by_field_id(F_TYPE))
                syms: list[Symbol] = []
                for rel_name, rel_init, name, semantic, register in entries:
                    node = nodes[base + rel_name]
                    init = nodes[base + rel_init] if rel_init >= 0 else None
                    sym = Symbol(
                        name,
                        "local",
                        t,
                        node,
                        decl,
                        semantic,
                        register,
                        init=init,
                        qualifiers=quals,
                        function=fn.name,
                    )
                    refs[node.byte_range] = sym
                    syms.append(sym)
                declared.append(syms)
            elif code == OP_CALL:
                fn.calls.add(op[1])
            else:
                node = nodes[base + op[1]]
                found: Symbol | None
                if code == OP_FREE:
                    if op[2] in free:
                        found = free[op[2]]
                    else:
                        found = free[op[2]] = lookup(op[2], ())
                elif code == OP_LOCAL:
                    found = declared[op[2]][op[3]]
                else:
                    found = params[op[2]]
                if found is not None:
                    r = node.byte_range
                    refs[r] = found
                    if found.node is None or found.node.id != node.id:
                        uses.append((r[0], node, found))

    def _resolve_range(self, fn: Function, scopes: list[dict[str, Symbol]], first: int) -> None:
        """Resolve the identifiers of the subtree at `nodes()[first]` (its run of
        `descendant_count` nodes in document order) under `scopes`: a declaration's names are
        seen after it, a block's names until its end, initialisers and array sizes of a
        declaration after the names it declares."""
        tree = self.tree
        nodes = tree.nodes()
        types = tree.node_types()
        text = tree.text
        plain = tree.ascii
        refs = self._refs
        uses = self._pending_uses
        lookup = self._lookup
        rec = self._recording
        free = self._free
        # Only the nodes of these kinds matter: visit their positions, in document order.
        positions = self._positions
        count = len(positions)
        ends: list[int] = []  # where the scopes opened in this run close
        stop = first + nodes[first].descendant_count
        j = bisect.bisect_left(positions, first)
        while j < count:
            i = positions[j]
            if i >= stop:
                break
            while ends and i >= ends[-1]:
                ends.pop()
                scopes.pop()
            j += 1
            kind = types[i]
            if kind == "identifier":
                node = nodes[i]
                s, e = node.start_byte, node.end_byte
                name = text[s:e] if plain else tree.node_text(node)
                for scope in reversed(scopes):
                    sym = scope.get(name)
                    if sym is not None:
                        if rec is not None:
                            rec.bound(i, sym)
                        break
                else:
                    if name in free:
                        sym = free[name]
                    else:
                        sym = free[name] = lookup(name, ())
                    if rec is not None:
                        rec.ops.append((OP_FREE, i - rec.base, name))
                if sym is not None:
                    refs[(s, e)] = sym
                    if sym.node is None or sym.node.id != node.id:
                        uses.append((s, node, sym))
                size = node.descendant_count
                if size > 1:  # not a leaf: what is below is not looked at
                    j = bisect.bisect_left(positions, i + size, j)
            elif kind == "declaration":
                node = nodes[i]
                if node.child_by_field_id(F_TYPE) is not None:
                    self._resolve_declaration(fn, scopes, node, i)
                    j = bisect.bisect_left(positions, i + node.descendant_count, j)
            elif kind == "array_declarator":
                pass
            elif kind == "call_expression":
                # What the body calls: the identifiers whose parent is a call (the callee).
                for c in nodes[i].named_children:
                    if c.type == "identifier":
                        callee = tree.node_text(c)
                        fn.calls.add(callee)
                        if rec is not None:
                            rec.ops.append((OP_CALL, callee))
            else:  # a block scope
                ends.append(i + nodes[i].descendant_count)
                scopes.append({})
        for _ in ends:
            scopes.pop()

    def _resolve_declaration(
        self, fn: Function, scopes: list[dict[str, Symbol]], decl: Node, at: int
    ) -> None:
        """Declare a local declaration's names, then resolve its array sizes (last first) and
        initialisers (last first), in that order. `at` is the declaration's position in
        `nodes()`."""
        tree = self.tree
        then: list[Node] = []
        declared = self.declare(decl, "local", function=fn.name)
        for sym in declared:
            scopes[-1][sym.name] = sym
            if sym.init is not None:
                then.append(sym.init)
        # Array sizes: only when an array declarator lies inside the declaration at all.
        arrays = self._has_array_declarator(at, at + decl.descendant_count)
        if self._recording is not None:
            self._recording.declaration(tree, at, declared, arrays)
        if arrays:
            for c in decl.named_children:
                if c.type == "array_declarator" or c.type == "init_declarator":
                    for inner in tree.walk(c):
                        if inner.type == "array_declarator":
                            size = inner.child_by_field_id(F_SIZE)
                            if size is not None:
                                then.append(size)
        for node in reversed(then):
            first = tree.index_of(node)
            if first is not None:
                self._resolve_range(fn, scopes, first)

    def _has_array_declarator(self, first: int, stop: int) -> bool:
        """Whether `nodes()[first:stop]` holds an `array_declarator` (they are among the
        positions that resolving visits)."""
        positions = self._positions
        types = self.tree.node_types()
        j = bisect.bisect_left(positions, first)
        while j < len(positions):
            i = positions[j]
            if i >= stop:
                return False
            if types[i] == "array_declarator":
                return True
            j += 1
        return False

    def _lookup(self, name: str, scopes: Sequence[dict[str, Symbol]]) -> Symbol | None:
        for scope in reversed(scopes):
            sym = scope.get(name)
            if sym is not None:
                return sym
        sym = self.globals.get(name)
        if sym is not None:
            return sym
        if name in self.functions:
            fs = self._function_symbols.get(name)
            if fs is None:
                fs = Symbol(name, "function", T.UNKNOWN)
                self._function_symbols[name] = fs
            return fs
        return None


_SCOPE_NODES = frozenset(
    {
        "compound_statement",
        "for_statement",
        "while_statement",
        "do_statement",
        "if_statement",
        "switch_statement",
        "case_statement",
    }
)
"""Nodes that open a block scope for the names declared inside them."""

_RESOLVE_KINDS = _SCOPE_NODES | {"identifier", "declaration", "call_expression", "array_declarator"}
"""What resolving a body looks at (everything else is only walked through; array declarators
are only listed, for `_has_array_declarator`)."""


def _first(node: Node, *kinds: str) -> Node | None:
    for c in node.named_children:
        if c.type in kinds:
            return c
    return None


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


def build_model(tree: SyntaxTree, settings: AnalysisSettings | None = None) -> Model:
    """Build the semantic model of a parsed translation unit."""
    return Model(tree, settings or AnalysisSettings()).build()
