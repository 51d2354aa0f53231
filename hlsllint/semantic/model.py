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

`Model` is a chain of classes, one job per module, each building on the one before it:
- `base.py` `ModelBase`: the tables above and the lookups over them (`resolve`, `function`,
  `entry`, `lookup_type`); the values in them are in `symbols.py`;
- `constants.py` `Constants`: compile-time constants (`const_value`);
- `declarators.py` `Declarators`: what declarations declare (`type_from_node`, structs, `declare`);
- `expressions.py` `Expressions`: expression types (`type_of`);
- `functions.py` `Functions`: function definitions and their attributes;
- `scopes.py` `Scopes`: function bodies resolved (references, uses, calls);
- here, `Model.build`: the top-level declarations in order (structs, typedefs, cbuffers, globals,
  functions), then the bodies, then the entry points (`entries.py`).
Definitions and bodies seen before in the process are replayed from plans (`plans.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hlsllint.deadline import Deadline, current
from hlsllint.semantic import types as T
from hlsllint.semantic.entries import find_entry_points, technique_stages
from hlsllint.semantic.scopes import Scopes
from hlsllint.semantic.symbols import Attribute, CBuffer, Symbol
from hlsllint.settings import AnalysisSettings
from hlsllint.syntax import Node, SyntaxTree
from hlsllint.syntax.fields import (
    F_BODY,
    F_DECLARATOR,
    F_NAME,
    F_TYPE,
)

__all__ = ["Model", "build_model"]


class Model(Scopes):
    """See the module docstring."""

    # -- building ---------------------------------------------------------------------------

    def _global_kind(self, sym: Symbol) -> str:
        t = sym.type
        while t.kind == "array" and t.element is not None:  # `Texture2D gTex[64]`: resources
            t = t.element
        if t.is_resource:
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
                "template_declaration",
                "export_declaration",  # `export float f(...)`: a library's exported function
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
        self.deadline = deadline = current()
        nodes = list(self._top_level(self.tree.root))
        pending_attrs: list[Attribute] = []
        for i, n in enumerate(nodes):
            deadline.tick()
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
                            t = d.type
                            if t is base and t.kind == "struct" and t.name.startswith("<anonymous@"):
                                # `typedef struct { ... } Name;`: the struct is known by its typedef's name
                                t = base = T.struct_type(d.name, t.members)
                                self.structs[d.name] = t
                            self.typedefs[d.name] = t
                            self._named_types.clear()
            elif kind == "declaration":
                if type_node is not None and type_node.type in (
                    "struct_specifier",
                    "class_specifier",
                ):
                    self.type_from_node(type_node)
                if any(c.type == "function_declarator" for c in n.named_children):
                    continue  # a prototype
                scope = self._namespace_of(n)
                for sym in self.declare(n, "global"):
                    sym.kind = self._global_kind(sym)
                    if sym.kind == "cbuffer_member":
                        sym.container = "$Globals"
                    self.globals[sym.name] = sym
                    if scope:
                        # `FilterKernel::Width` names this one, whichever namespace declared a
                        # `Width` last (the flattened globals keep that one)
                        self.static_members[scope + "::" + sym.name] = sym
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
        self._define_methods()
        globals_members = [s for s in self.globals.values() if s.container == "$Globals"]
        if globals_members:
            self.cbuffers.append(CBuffer("$Globals", "$Globals", None, globals_members, None))
        self._resolve_bodies()
        effects = self.tree.annotations.effects
        techniques = technique_stages(self.tree.text, effects) if effects else None
        self.entry_points.extend(find_entry_points(self.functions, self.settings, techniques))
        self._consts = {}
        self.deadline = Deadline()
        return self

    def _namespace_of(self, node: Node) -> str:
        """The namespaces a top-level declaration is in (`Outer::Inner`), or ""."""
        names: list[str] = []
        cur = node.parent
        while cur is not None:
            if cur.type == "namespace_definition":
                name = cur.child_by_field_id(F_NAME)
                if name is None:
                    return ""  # an anonymous namespace: its names are the enclosing scope's
                names.append("".join(self._text(name).split()))
            cur = cur.parent
        return "::".join(reversed(names))

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


def _first(node: Node, *kinds: str) -> Node | None:
    for c in node.named_children:
        if c.type in kinds:
            return c
    return None


def build_model(tree: SyntaxTree, settings: AnalysisSettings | None = None) -> Model:
    """Build the semantic model of a parsed translation unit."""
    return Model(tree, settings or AnalysisSettings()).build()
