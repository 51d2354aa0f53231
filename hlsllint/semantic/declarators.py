"""What declarations declare: the types that type nodes name (defining structs met on the way),
declarators (names, array sizes, initialisers, semantics, registers), qualifiers, and the
symbols of a declaration (`Declarators.declare`), on top of constant evaluation (`Constants`)."""

from __future__ import annotations

import re

from hlsllint.semantic import plans
from hlsllint.semantic import types as T
from hlsllint.semantic.constants import Constants
from hlsllint.semantic.symbols import Symbol
from hlsllint.settings import AnalysisSettings
from hlsllint.syntax import Node, SyntaxTree
from hlsllint.syntax.fields import (
    F_ARGUMENTS,
    F_BODY,
    F_DECLARATOR,
    F_DEFAULT_VALUE,
    F_NAME,
    F_SIZE,
    F_TYPE,
    F_VALUE,
)

MAX_ARRAY_SIZE = (1 << 32) - 1
"""The largest array length (a 32-bit unsigned count)."""
MAX_TYPE_NESTING = 64
"""How deep structs may nest (a struct member of a struct type, arrays and resources of them):
sizes, semantics and registers are computed recursively over members, and a compiled recursion
has no `RecursionError`. A member nesting deeper is of unknown type (HL007)."""

PARAM_MODIFIERS = frozenset(
    {
        "in",
        "out",
        "inout",
        "uniform",
        "nointerpolation",
        "linear",
        "centroid",
        "noperspective",
        "sample",
        "point",
        "line",
        "triangle",
        "lineadj",
        "triangleadj",
        "vertices",
        "indices",
        "primitives",
        "payload",
        "const",
        "precise",
    }
)


class Declarators(Constants):
    """The model reading declarations (see the module docstring)."""

    def __init__(self, tree: SyntaxTree, settings: AnalysisSettings) -> None:
        super().__init__(tree, settings)
        self._named_types: dict[str, T.Type] = {}
        """Type name as written -> `lookup_type` of it, while no struct or typedef is added."""
        self._struct_nesting: dict[str, int] = {}
        """Struct name -> how deep its type nests (1 for members of no struct type)."""
        self.struct_bases: dict[str, str] = {}
        """Struct name -> the struct it derives from (`struct B : A`); its members come first."""
        self._pending_methods: list[tuple[Node, str]] = []
        """Methods met in struct bodies, (definition, struct name): defined once the
        top-level declarations are read (a method may use members declared after it)."""
        self._method_nodes: set[int] = set()
        self._struct_scope: list[str] = []
        self.struct_definitions = 0
        """Struct definitions read so far (`_define_struct`)."""
        """The structs whose bodies are being read: a struct declared in one is `Outer::Inner`."""
        self._member_symbols: dict[str, dict[str, Symbol]] = {}

    def _nesting(self, t: T.Type) -> int:
        """How deep a type nests: structs count their own nesting, arrays and resources one more
        than their element."""
        n = 0
        cur: T.Type | None = t
        while cur is not None and n <= MAX_TYPE_NESTING:
            if cur.kind == "struct":
                return n + self._struct_nesting.get(cur.name, 1)
            if cur.element is None:
                return n
            n += 1
            cur = cur.element
        return n

    def type_from_node(self, node: Node | None) -> T.Type:
        """The type named by a type node (`primitive_type`, `template_type`, ...)."""
        if node is None:
            return T.UNKNOWN
        kind = node.type
        if kind == "type_descriptor":
            return self.type_from_node(node.child_by_field_id(F_TYPE))
        qualified_template = (
            kind == "qualified_identifier"
            and node.named_child_count > 0
            and node.named_children[-1].type == "template_type"
        )
        if kind == "template_type" or qualified_template:
            # `vk::BufferPointer<S>`: the scope is part of the base name
            inner = node.named_children[-1] if qualified_template else node
            name_node = inner.child_by_field_id(F_NAME)
            base = self.tree.node_text(name_node) if name_node else ""
            if qualified_template:
                base = self.tree.node_text(node).partition("<")[0].strip()
            args_node = inner.child_by_field_id(F_ARGUMENTS)
            args = [c for c in args_node.named_children] if args_node else []
            if base in ("vector", "matrix"):
                return self.template_numeric(base, args)
            element = self.type_from_node(args[0]) if args else None
            if T.resource_of(base) is not None:
                return T.resource_type(base, element)
            if base in self.structs:  # a templated struct: its members and methods
                return self.structs[base]
            return T.Type("unknown", self.tree.node_text(node), element=element)
        if kind in ("struct_specifier", "class_specifier"):
            name_node = node.child_by_field_id(F_NAME)
            if node.child_by_field_id(F_BODY) is not None:
                return self._define_struct(node)
            return self.lookup_type(self.tree.node_text(name_node)) if name_node else T.UNKNOWN
        text = self._text(node)
        found = self._named_types.get(text)
        if found is None:
            found = self.lookup_type(" ".join(text.split()))
            if found.kind != "resource":  # a resource type is made anew on every lookup
                self._named_types[text] = found
        return found

    def template_numeric(self, base: str, args: list[Node]) -> T.Type:
        """`vector<T, N>` or `matrix<T, R, C>` (the type of a constructor call too). A vector may
        be long (SM 6.9: up to 1,024 components); a matrix is at most 4x4."""
        el = self.type_from_node(args[0]) if args else T.FLOAT
        nums = [self.const_value(a) for a in args[1:]]
        if base == "vector":
            n = nums[0] if nums else 4
            return el.with_shape(1, int(n) if isinstance(n, int | float) and 1 <= n <= 1024 else 4)
        dims = [int(n) if isinstance(n, int | float) and 1 <= n <= 4 else 4 for n in nums]
        r, c = ([*dims, 4, 4])[:2]
        return T.numeric(el.scalar or "float", r, c, matrix=True)

    def _define_struct(self, node: Node) -> T.Type:
        self.struct_definitions += 1
        name_node = node.child_by_field_id(F_NAME)
        name = self._text(name_node) if name_node else f"<anonymous@{node.start_byte}>"
        short = name
        if self._struct_scope and name_node is not None:
            name = f"{self._struct_scope[-1]}::{name}"
        self._struct_scope.append(name)
        try:
            t = self._struct_planned(node, name, name_node)
        finally:
            self._struct_scope.pop()
        self.structs[name] = t
        existing = self.structs.get(short)
        if short != name and (existing is None or "::" in existing.name):
            self.structs[short] = t  # in its outer struct's methods `Inner` names it too
        self._named_types.clear()
        return t

    def _struct_planned(self, node: Node, name: str, name_node: Node | None) -> T.Type:
        """The struct's type: a definition seen before (in any unit of the process) with the
        same text, parse, annotations and name is replayed from its plan when its fields' types
        are the same here (`plans.StructPlan`); else its members are read (and a plan recorded)."""
        tree = self.tree
        at = tree.index_of(node) if plans.USE_PLANS else None
        if at is None:
            return self._struct_members(node, name, name_node)
        s, e = tree.span(node)
        key = (tree.text[s:e], tree.normalized[s:e], name)
        count = node.descendant_count
        notes = plans.notes_in(tree, node)
        plan = plans.STRUCT_PLANS.get(key)
        if plan is not None and plan.fits(tree.node_types(), at, count, notes):
            nodes = tree.nodes()
            same = True
            for rel, base in plan.fields:
                t = self.type_from_node(nodes[at + rel]) if rel >= 0 else T.UNKNOWN
                if not T.same_type(t, base):
                    same = False
                    break
            if same:
                plans.STRUCT_STATS["replayed"] += 1
                for rel in plan.methods:
                    fd = nodes[at + rel]
                    if fd.id not in self._method_nodes:
                        self._method_nodes.add(fd.id)
                        self._pending_methods.append((fd, name))
                self._struct_nesting[name] = plan.nesting
                return plan.result
        plans.STRUCT_STATS["walked"] += 1
        problems = len(self.problems)
        t = self._struct_members(node, name, name_node)
        if len(self.problems) == problems:
            made = self._struct_plan(node, at, count, notes, t, name)
            if made is not None:
                if len(plans.STRUCT_PLANS) >= plans.PLAN_LIMIT:
                    plans.STRUCT_PLANS.clear()
                plans.STRUCT_PLANS[key] = made
        return t

    def _struct_plan(
        self, node: Node, at: int, count: int, notes: tuple[object, ...], t: T.Type, name: str
    ) -> plans.StructPlan | None:
        """The plan of a struct just read (`_struct_members` gave `t`), or None when reading it
        depends on more of the unit than its fields' types (see `plans.StructPlan`)."""
        tree = self.tree
        types = tree.node_types()
        fields: list[tuple[int, T.Type]] = []
        methods: list[int] = []
        for c in node.named_children:
            if c.type == "base_class_clause":
                return None
        body = node.child_by_field_id(F_BODY)
        if body is not None:
            for fd in body.named_children:
                kind = fd.type
                if kind == "function_definition" or kind == "template_declaration":
                    pos = tree.index_of(fd)
                    if pos is None:
                        return None
                    methods.append(pos - at)
                    continue
                if kind not in ("field_declaration", "declaration"):
                    continue
                if any(c.type == "function_declarator" for c in fd.named_children):
                    continue
                first = tree.index_of(fd)
                if first is None:
                    return None
                inside = types[first : first + fd.descendant_count]
                if "array_declarator" in inside or "field_declaration_list" in inside:
                    return None  # array sizes are the unit's constants; a struct defined in it
                if "static" in self._qualifiers(fd):
                    return None
                type_node = fd.child_by_field_id(F_TYPE)
                if type_node is None:
                    fields.append((-1, T.UNKNOWN))
                    continue
                pos = tree.index_of(type_node)
                if pos is None:
                    return None
                fields.append((pos - at, self.type_from_node(type_node)))
        return plans.StructPlan(
            types[at : at + count], notes, fields, methods, t, self._struct_nesting.get(name, 1)
        )

    def _struct_members(self, node: Node, name: str, name_node: Node | None) -> T.Type:
        body = node.child_by_field_id(F_BODY)
        members: list[T.Member] = []
        for c in node.named_children:
            if c.type == "base_class_clause":  # `struct B : A`: A's members come first
                for b in c.named_children:
                    base_t = self.lookup_type(self._text(b))
                    if base_t.kind == "struct" and base_t.name != name:
                        members.extend(base_t.members)
                        self.struct_bases[name] = base_t.name
                        break
        if body is not None:
            for fd in body.named_children:
                if fd.type == "function_definition" or fd.type == "template_declaration":
                    if fd.id not in self._method_nodes:
                        self._method_nodes.add(fd.id)
                        self._pending_methods.append((fd, name))
                    continue
                if fd.type not in ("field_declaration", "declaration"):
                    continue
                if any(c.type == "function_declarator" for c in fd.named_children):
                    continue  # a method's prototype (defined outside: `R S::f() {...}`)
                base = self.type_from_node(fd.child_by_field_id(F_TYPE))
                quals = self._qualifiers(fd)
                if "static" in quals:  # `static const uint kSize = 16;`: no part of a value
                    self._define_static_member(fd, name, base, quals)
                    continue
                pending: T.Member | None = None
                for child in fd.named_children:
                    if child.type in ("semantics", "bitfield_clause"):
                        sem, _reg = self._semantic_of(child)
                        if pending is not None and sem:
                            members[-1] = T.Member(pending.name, pending.type, sem, pending.qualifiers)
                        continue
                    if fd.field_name_for_named_child(_index_of(fd, child)) != "declarator":
                        continue
                    d = self._unpack_declarator(child, base)
                    if d is None:
                        continue
                    sem = self._annotated_semantic(child) or d.semantic
                    if sem is None and not members:
                        sem = self._annotated_semantic(fd)
                    pending = T.Member(d.name, d.type, sem, quals)
                    members.append(pending)
        nesting = 1
        for k, m in enumerate(members):
            inner = self._nesting(m.type)
            if inner >= MAX_TYPE_NESTING:
                span = self.tree.span(name_node if name_node is not None else node)
                self.problems[span] = (
                    "HL007",
                    f"struct `{name}` nests types more than {MAX_TYPE_NESTING} deep (member "
                    f"`{m.name}`): the member's type is taken as unknown",
                )
                members[k] = T.Member(m.name, T.UNKNOWN, m.semantic, m.qualifiers)
                inner = 0
            nesting = max(nesting, inner + 1)
        self._struct_nesting[name] = nesting
        return T.struct_type(name, tuple(members))

    def _define_static_member(self, fd: Node, struct: str, base: T.Type, quals: frozenset[str]) -> None:
        """A struct's `static` member (`static const uint kSize = 16;`), as `Struct::kSize`."""
        init = fd.child_by_field_id(F_DEFAULT_VALUE)
        for i, child in enumerate(fd.named_children):
            if fd.field_name_for_named_child(i) != "declarator":
                continue
            d = self._unpack_declarator(child, base)
            if d is None:
                continue
            if child.type == "init_declarator":
                init = child.child_by_field_id(F_VALUE)
            kind = "static_const" if "const" in quals else "static"
            sym = Symbol(d.name, kind, d.type, node=child, decl=fd, init=init, qualifiers=quals)
            self.static_members[f"{struct}::{d.name}"] = sym

    def member_symbols(self, struct: str) -> dict[str, Symbol]:
        """The members of a struct (its bases' included) as the names a method's body sees
        (kind `member`: in a call, the members of the object the method is called on)."""
        found = self._member_symbols.get(struct)
        if found is None:
            t = self.structs.get(struct)
            found = {}
            prefix = f"{struct}::"
            for key, sym in self.static_members.items():  # a method sees them unqualified
                if key.startswith(prefix):
                    found[key[len(prefix) :]] = sym
            for m in t.members if t is not None else ():
                found[m.name] = Symbol(m.name, "member", m.type, container=struct)
            self._member_symbols[struct] = found
        return found

    def _semantic_of(self, node: Node) -> tuple[str | None, str | None]:
        """(semantic, register) of a `semantics` / `bitfield_clause` node."""
        text = self._text(node).strip().lstrip(":").strip()
        m = re.match(r"register\s*\(\s*([^)]*)\)", text)
        if m:
            return None, m.group(1).strip()
        if text.startswith("packoffset"):
            return None, None
        m = re.match(r"[A-Za-z_]\w*", text)
        return (m.group(0) if m else None), None

    def _unpack_declarator(self, node: Node, base: T.Type) -> _Declarator | None:
        init: Node | None = None
        sizes: list[int | None] = []
        semantic: str | None = None
        register: str | None = None
        cur: Node | None = node
        guard = 0
        while cur is not None and guard < 32:
            guard += 1
            kind = cur.type
            if cur.named_child_count:
                for c in cur.named_children:
                    if c.type in ("semantics", "bitfield_clause"):
                        s, r = self._semantic_of(c)
                        semantic = semantic or s
                        register = register or r
            if kind in ("identifier", "field_identifier", "type_identifier"):
                t = base
                if sizes == [None] and init is not None:
                    sizes = [self._initialized_length(init, base)]
                for size in reversed(sizes):
                    t = T.array_of(t, size)
                return _Declarator(self._text(cur), cur, t, init, semantic, register)
            if kind == "init_declarator":
                init = cur.child_by_field_id(F_VALUE)
                cur = cur.child_by_field_id(F_DECLARATOR)
            elif kind == "array_declarator":
                size_node = cur.child_by_field_id(F_SIZE)
                sizes.append(self._array_size(size_node) if size_node is not None else None)
                cur = cur.child_by_field_id(F_DECLARATOR)
            else:
                nxt = cur.child_by_field_id(F_DECLARATOR)
                if nxt is None:
                    ids = [c for c in cur.named_children if c.type == "identifier"]
                    nxt = ids[0] if ids else None
                cur = nxt
        return None

    def _initialized_length(self, init: Node, element: T.Type) -> int | None:
        """The length of `T a[] = { ... }` that its initializer gives, as the compiler counts it:
        one element per entry (`int2(1, 0)`, `{ 1, 0 }`), or the scalars of a flat list
        (`float2 a[] = { 1, 0, 0, 1 }` is 2); None when the list mixes the two."""
        if init.type != "initializer_list":
            return None
        entries = [c for c in init.named_children if c.type != "comment"]
        if not entries:
            return None
        scalars = element.count if element.is_numeric else 0
        if scalars > 1 and all(c.type == "number_literal" for c in entries):
            return len(entries) // scalars if len(entries) % scalars == 0 else None
        if scalars > 1 and any(c.type == "number_literal" for c in entries):
            return None
        return len(entries)

    def _array_size(self, node: Node) -> int | None:
        """The length an array size gives, or None (unknown): a size that is not a positive
        integer that fits in 32 bits is an error the compiler reports; it is kept for HL008."""
        v = self.const_value(node)
        if v is None or isinstance(v, bool):
            return None
        if isinstance(v, float) and v.is_integer():  # finite: infinity is no constant
            v = int(v)
        if isinstance(v, int) and 0 < v <= MAX_ARRAY_SIZE:
            return v
        text = self._text(node)
        value = f"{v:,}" if abs(v) < 1e15 else f"{float(v):g}"
        shown = f"`{text}`" if text == str(v) else f"`{text}` ({value})"
        if isinstance(v, int) and v <= 0:
            why = "is not positive" if v < 0 else "is zero"
        elif isinstance(v, int):
            why = f"does not fit in 32 bits (at most {MAX_ARRAY_SIZE:,})"
        else:
            why = "is not an integer"
        self.problems[self.tree.span(node)] = ("HL008", f"array size {shown} {why}")
        return None

    def _qualifiers(self, decl: Node) -> frozenset[str]:
        words: set[str] = set()
        for c in decl.children:
            if c.type in ("storage_class_specifier", "type_qualifier", "qualifiers"):
                words.update(self._text(c).split())
            elif not c.is_named and c.type in PARAM_MODIFIERS:
                words.add(c.type)
        words.update(self.tree.modifiers_of(decl))
        return frozenset(words)

    # -- annotations of the repaired tree (see hlsllint.syntax) -----------------------------

    def _annotated_semantic(self, node: Node) -> str | None:
        sem = self.tree.semantic_of(node)
        return str(sem.name) if sem is not None else None

    def _annotated_register(self, node: Node) -> str | None:
        reg = self.tree.register_of(node)
        return str(reg.slot) if reg is not None else None

    def declare(self, decl: Node, kind: str, function: str | None = None) -> list[Symbol]:
        """Symbols of a `declaration` node (globals or locals); registers names for resolve()."""
        base = self.type_from_node(decl.child_by_field_id(F_TYPE))
        quals = self._qualifiers(decl)
        # Annotations of the declarators lie inside the declaration: most have none at all.
        semantics, bindings = self.tree.may_have_annotations(decl)
        out: list[Symbol] = []
        refs = self._refs
        field_of = decl.field_name_for_child
        for i, child in enumerate(decl.children):
            ctype = child.type
            if ctype == "semantics" or ctype == "bitfield_clause":
                sem, reg = self._semantic_of(child)
                if out:
                    out[-1].semantic = out[-1].semantic or sem
                    out[-1].register = out[-1].register or reg
                continue
            if ctype == "function_declarator" or field_of(i) != "declarator":
                continue
            d = self._unpack_declarator(child, base)
            if d is None:
                continue
            sem = (self._annotated_semantic(child) if semantics else None) or d.semantic
            reg = (self._annotated_register(child) if bindings else None) or d.register
            if sem is None and not out and semantics:
                sem = self._annotated_semantic(decl)
            if reg is None and not out and bindings:
                reg = self._annotated_register(decl)
            d.semantic, d.register = sem, reg
            sym = Symbol(
                d.name,
                kind,
                d.type,
                d.node,
                decl,
                d.semantic,
                d.register,
                init=d.init,
                qualifiers=quals,
                function=function,
            )
            refs[d.node.byte_range] = sym
            out.append(sym)
        return out


class _Declarator:
    """What a declarator declares. A plain class with its own `__init__`: a compiled dataclass
    keeps the generated one, a Python function (one per declared name of every unit)."""

    def __init__(
        self,
        name: str,
        node: Node,
        type: T.Type,
        init: Node | None,
        semantic: str | None,
        register: str | None,
    ) -> None:
        self.name = name
        self.node = node
        self.type = type
        self.init = init
        self.semantic = semantic
        self.register = register


def _index_of(parent: Node, child: Node) -> int:
    for i, c in enumerate(parent.named_children):
        if c.id == child.id:
            return i
    return -1
