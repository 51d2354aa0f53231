"""Questions over the semantic model that several rules ask: every use of a symbol (indexed
once per model), every write of a local, resource fetches, struct definitions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from hlsllint.semantic import types as T
from hlsllint.semantic.intrinsics import FETCH_KINDS, INTRINSICS, RESOURCE_METHODS
from hlsllint.semantic.model import Model
from hlsllint.semantic.symbols import Function, Symbol
from hlsllint.syntax import Node
from hlsllint.syntax.queries import (
    LOOP_TYPES,
    call_args,
    call_name,
    is_assignment_target,
    is_written,
    lvalue_top,
    same,
    unparen,
    unparen_up,
)


def functions(model: Model) -> Iterator[Function]:
    for overloads in model.functions.values():
        yield from overloads


def uses_of(model: Model, sym: Symbol) -> list[Node]:
    """Identifier nodes in function bodies that refer to `sym` (its declaration excluded), in
    document order; indexed once while the model resolved the bodies."""
    return model.uses_of_symbol(sym)


_NAMES = frozenset({"identifier", "field_identifier", "type_identifier"})


def declared_symbols(model: Model, decl: Node) -> list[tuple[Node, Symbol]]:
    """The symbols a declaration declares, each with its name node (`Symbol.node`), in document
    order. The name of each declarator is found the way the model finds it (through
    `init_declarator`/`array_declarator` and other declarators to the identifier), so only a few
    nodes are read, never the initial values. Answered once per declaration and model."""
    known: _Declared = model.memo.setdefault("queries.declared", {})
    found = known.get(decl.id)
    if found is None:
        found = known[decl.id] = _declared_symbols(model, decl)
    return found


_Declared = dict[int, list[tuple[Node, Symbol]]]
"""Declaration node id -> `declared_symbols`, kept in the model's memo (HL103 and HL104 ask it
of every local declaration)."""


def _declared_symbols(model: Model, decl: Node) -> list[tuple[Node, Symbol]]:
    out: list[tuple[Node, Symbol]] = []
    for i, child in enumerate(decl.children):
        if child.type == "function_declarator" or decl.field_name_for_child(i) != "declarator":
            continue
        cur: Node | None = child
        for _ in range(32):
            if cur is None:
                break
            if cur.type in _NAMES:
                sym = model.resolve(cur)
                if sym is not None and same(sym.node, cur):
                    out.append((cur, sym))
                break
            nxt = cur.child_by_field_name("declarator")
            if nxt is None and cur.type not in ("init_declarator", "array_declarator"):
                nxt = next((c for c in cur.named_children if c.type == "identifier"), None)
            cur = nxt
    return out


def struct_node(model: Model, name: str) -> Node | None:
    """The `struct name { ... }` definition in the tree (the first, when there are several)."""
    found = model.memo.get("struct_nodes")
    if not isinstance(found, dict):
        found = {}
        tree = model.tree
        for c in tree.nodes_of_type("struct_specifier"):
            if c.child_by_field_name("body") is None:
                continue
            nm = c.child_by_field_name("name")
            if nm is not None and tree.block_kind(c) == "struct":
                found.setdefault(tree.node_text(nm), c)
        model.memo["struct_nodes"] = found
    return found.get(name)


@dataclass(frozen=True)
class Fetch:
    node: Node
    """The whole fetch expression (call or subscript)."""
    resource: T.Type
    method: str
    """`Load`, `Sample`, ..., or `[]` for operator[] (and `mips[][]`)."""
    kind: str
    """`load`, `sample` or `gather`."""
    address: list[Node]
    """The address operands (coordinates, index, offset...)."""


def as_fetch(model: Model, node: Node) -> Fetch | None:
    """The fetch that `node` is: a resource Load/Sample/Gather call or a resource subscript
    (answered once per node and model)."""
    kind = node.type
    if kind == "call_expression":
        fn = node.child_by_field_name("function")
        if fn is None or fn.type != "field_expression":
            return None  # not a method call: settled without the memo
    elif kind != "subscript_expression":
        return None
    known: dict[int, Fetch | None] = model.memo.setdefault("queries.fetches", {})
    key = node.id
    if key in known:
        return known[key]
    found = known[key] = _as_fetch(model, node)
    return found


def _as_fetch(model: Model, node: Node) -> Fetch | None:
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        if fn is None or fn.type != "field_expression":
            return None
        obj = fn.child_by_field_name("argument")
        field = fn.child_by_field_name("field")
        if obj is None or field is None:
            return None
        if field.type == "template_method":  # `buf.Load<float4>(addr)`
            field = field.child_by_field_name("name") or field.named_children[0] or field
        method = model.tree.node_text(field)
        kind = RESOURCE_METHODS.get(method)
        if kind not in FETCH_KINDS:
            return None
        t = model.type_of(obj)
        if not t.is_resource or t.resource is None or t.resource.category in ("constant", "sampler"):
            return None
        args = call_args(node)
        if kind in ("sample", "gather") and args:
            args = args[1:]  # the sampler
        return Fetch(node, t, method, kind or "load", args)
    if node.type == "subscript_expression":
        obj = node.child_by_field_name("argument")
        if obj is None:
            return None
        t = model.type_of(obj)
        if not t.is_resource or t.resource is None or t.resource.category in ("constant", "sampler", "other"):
            return None
        if t.name.endswith((".mips", ".sample")):
            return None  # the inner subscript of tex.mips[level][coord]: the outer one is the fetch
        idx = node.child_by_field_name("indices") or next(
            (c for c in node.named_children if c.type == "subscript_argument_list"), None
        )
        address = [c for c in idx.named_children] if idx is not None else []
        if obj.type == "subscript_expression":  # tex.mips[level][coord]: the level is an address too
            inner = next((c for c in obj.named_children if c.type == "subscript_argument_list"), None)
            address += [c for c in inner.named_children] if inner is not None else []
        return Fetch(node, t, "[]", "load", address)
    return None


def fetches_in(model: Model, root: Node, *, skip_loops: bool = False) -> list[Fetch]:
    """Fetches below `root` in document order (optionally not inside nested loops)."""
    out: list[Fetch] = []
    stack = [root]
    while stack:
        n = stack.pop()
        f = as_fetch(model, n)
        if f is not None:
            out.append(f)
        for c in reversed(n.children):
            if skip_loops and c.type in LOOP_TYPES:
                continue
            stack.append(c)
    return out


def assignments(model: Model, sym: Symbol) -> list[tuple[str, Node | None, Node]] | None:
    """Every write of `sym`: (operator, value, site). `++`/`--` give ("++", None, site).

    None when the symbol is written in a way that cannot be followed (passed as an out argument,
    a member or element written through a swizzle or subscript...).
    """
    tree = model.tree
    out: list[tuple[str, Node | None, Node]] = []
    if sym.init is not None and sym.node is not None:
        out.append(("=", sym.init, sym.node))
    for use in uses_of(model, sym):
        op = is_assignment_target(use)
        site, parent = unparen_up(use)
        if op is not None and parent is not None:
            out.append((op, parent.child_by_field_name("right"), parent))
            continue
        if parent is not None and parent.type == "update_expression":
            out.append(("++", None, parent))
            continue
        if parent is not None and parent.type in ("field_expression", "subscript_expression"):
            # v.x = ..., v[i] = ...: a partial write
            outer_site, outer = unparen_up(parent)
            if outer is not None and (
                (
                    outer.type == "assignment_expression"
                    and same(outer.child_by_field_name("left"), outer_site)
                )
                or outer.type == "update_expression"
            ):
                return None
        if parent is not None and parent.type == "argument_list":
            call = parent.parent
            name = call_name(tree, call) if call is not None else None
            if call is not None and name not in INTRINSICS and name != "mul":
                fn = model.function(name or "", len(call_args(call)))
                if fn is None:
                    return None
                idx = next((i for i, a in enumerate(call_args(call)) if same(a, site)), -1)
                if 0 <= idx < len(fn.params) and fn.params[idx].direction != "in":
                    return None
            elif call is not None and name in ("InterlockedAdd", "modf", "frexp", "sincos"):
                return None
    return out


_COMPARISONS = frozenset({"<", ">", "<=", ">=", "==", "!="})
_LOGICAL = frozenset({"&&", "||"})


def _operator(model: Model, node: Node) -> str:
    op = node.child_by_field_name("operator")
    return model.tree.node_text(op).strip() if op is not None else ""


def _is_zero_one(model: Model, node: Node) -> bool:
    value = model.const_value(node)
    return value is not None and not isinstance(value, bool) and value in (0, 1)


def zero_or_one(model: Model, expr: Node) -> bool:
    """True when the expression's value is always 0 or 1 (false or true)."""
    node = unparen(expr)
    kind = node.type
    if kind in ("true", "false") or _is_zero_one(model, node):
        return True
    if kind == "binary_expression":
        return _operator(model, node) in _COMPARISONS | _LOGICAL
    if kind == "unary_expression":
        return _operator(model, node) == "!"
    if kind == "conditional_expression":
        a = node.child_by_field_name("consequence")
        b = node.child_by_field_name("alternative")
        return a is not None and b is not None and zero_or_one(model, a) and zero_or_one(model, b)
    if kind == "cast_expression":
        value = node.child_by_field_name("value")
        return value is not None and zero_or_one(model, value)
    if kind == "call_expression":
        name = call_name(model.tree, node)
        args = call_args(node)
        if name in INTRINSICS and INTRINSICS[name][0] in ("bool", "bool_shape"):
            return True
        if name == "step" and len(args) == 2:
            return True  # step(a, b) is (b >= a) as 0.0 or 1.0
        if name == "saturate" and len(args) == 1:
            inner = unparen(args[0])
            # saturate(sign(x)) clamps -1 to 0: a 0/1 flag (x > 0)
            return call_name(model.tree, inner) == "sign" or zero_or_one(model, inner)
        if name is not None and model.lookup_type(name).is_numeric and args:
            return all(zero_or_one(model, a) for a in args)  # int3(a < b) or float2(0, 1)
        return model.type_of(node).is_bool
    return model.type_of(node).is_bool


_WRITES_ARGUMENTS = frozenset({"GetDimensions", "sincos", "modf", "frexp"})
"""Intrinsics that write one of their arguments (besides the Interlocked* family)."""


def unwritten(model: Model, sym: Symbol) -> bool:
    """No use of `sym` writes it (or a part of it): not assigned, incremented, or passed to an
    `out`/`inout` parameter or to an intrinsic that writes its arguments."""
    for use in uses_of(model, sym):
        if is_written(model.tree, use):
            return False
        site, parent = unparen_up(lvalue_top(use))
        if parent is None or parent.type != "argument_list" or parent.parent is None:
            continue
        call = parent.parent
        name = call_name(model.tree, call) or ""
        if name in _WRITES_ARGUMENTS or name.startswith("Interlocked"):
            return False
        args = call_args(call)
        fn = model.function(name, len(args))
        if fn is not None:
            index = next((i for i, a in enumerate(args) if same(a, site)), -1)
            if 0 <= index < len(fn.params) and fn.params[index].direction != "in":
                return False
    return True
