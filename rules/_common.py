"""Helpers shared by the rules HL101-HL107: symbol uses, fetches, use sites, and a fallback
wave-uniformity check.

`is_uniform(ctx, expr)` asks the analysis stage (`analyze(model).uniform_at`, computed once per
unit) first; when that query
is not available or cannot tell (dead code, an expression it did not lower), it falls back to a
conservative local check (`local_uniform`): literals, constant-buffer members, static consts,
resources, `SV_GroupID`/`SV_ViewID` inputs, wave reductions, and locals whose every assignment is
uniform and not under a per-lane condition. Anything else is per-lane.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass

from hlsllint.analysis import analyze
from hlsllint.context import RuleContext
from hlsllint.semantic import Function, Model, Symbol
from hlsllint.semantic import types as T
from hlsllint.semantic.intrinsics import FETCH_KINDS, INTRINSICS, RESOURCE_METHODS
from hlsllint.syntax import Node

SWIZZLE_RE = re.compile(r"^(?:[xyzw]{1,4}|[rgba]{1,4})$")
UNIFORM_SEMANTICS = frozenset({"SV_GROUPID", "SV_VIEWID"})
LOOP_TYPES = frozenset({"for_statement", "while_statement", "do_statement"})
ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})


# -- syntax helpers ----------------------------------------------------------------------------


def unparen_up(node: Node) -> tuple[Node, Node | None]:
    """(outermost parenthesised wrapper of `node`, its parent)."""
    site = node
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        site, parent = parent, parent.parent
    return site, parent


def unparen(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        child = node.named_children[0]
        if child is None:
            break
        node = child
    return node


def same(a: Node | None, b: Node | None) -> bool:
    return a is not None and b is not None and a.id == b.id


def call_name(ctx: RuleContext, call: Node) -> str | None:
    """The name of a plain call `name(...)`, else None."""
    if call.type != "call_expression":
        return None
    fn = call.child_by_field_name("function")
    if fn is None or fn.type not in ("identifier", "primitive_type", "type_identifier"):
        return None
    return ctx.node_text(fn)


def call_args(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [c for c in args.named_children if c.type != "comment"] if args is not None else []


def is_assignment_target(node: Node) -> str | None:
    """The operator when `node` (unparenthesised) is the left side of an assignment."""
    site, parent = unparen_up(node)
    if (
        parent is not None
        and parent.type == "assignment_expression"
        and same(parent.child_by_field_name("left"), site)
    ):
        op = parent.child_by_field_name("operator")
        return op.type if op is not None else "="
    return None


def lvalue_top(node: Node) -> Node:
    """The outermost member/element access built on `node` (`a` in `a[i].x` gives `a[i].x`)."""
    cur = node
    while True:
        site, parent = unparen_up(cur)
        if parent is None or parent.type not in ("field_expression", "subscript_expression"):
            return site
        if not same(parent.child_by_field_name("argument"), site):
            return site
        cur = parent


def is_written(ctx: RuleContext, node: Node) -> bool:
    """True when `node`, or a member or element of it, is written: the left side of an
    assignment, `++`/`--`, or the destination of an `Interlocked*` call."""
    top = lvalue_top(node)
    _site, parent = unparen_up(top)
    if parent is None:
        return False
    if parent.type == "assignment_expression":
        return same(parent.child_by_field_name("left"), top) or same(
            parent.child_by_field_name("left"), _site
        )
    if parent.type == "update_expression":
        return True
    if parent.type == "argument_list" and parent.parent is not None:
        name = call_name(ctx, parent.parent) or ""
        args = call_args(parent.parent)
        return name.startswith("Interlocked") and bool(args) and same(args[0], _site)
    return False


def is_condition(node: Node) -> bool:
    """True when `node` is the condition of an if/while/do/for or `?:`."""
    site, parent = unparen_up(node)
    if parent is None:
        return False
    if parent.type == "condition_clause":
        return True
    if parent.type in ("conditional_expression", "while_statement", "do_statement", "for_statement"):
        return same(parent.child_by_field_name("condition"), site)
    if parent.type == "if_statement":
        return same(parent.child_by_field_name("condition"), site)
    return False


def enclosing(node: Node, types: frozenset[str] | set[str]) -> Node | None:
    cur = node.parent
    while cur is not None:
        if cur.type in types:
            return cur
        cur = cur.parent
    return None


def swizzle_of(ctx: RuleContext, node: Node) -> str | None:
    """The swizzle applied to `node` (`v.xyz` -> "xyz"), else None."""
    site, parent = unparen_up(node)
    if parent is None or parent.type != "field_expression":
        return None
    if not same(parent.child_by_field_name("argument"), site):
        return None
    field = parent.child_by_field_name("field")
    text = ctx.node_text(field) if field is not None else ""
    return text if SWIZZLE_RE.match(text) else None


# -- model helpers -----------------------------------------------------------------------------


def functions(model: Model) -> Iterator[Function]:
    for overloads in model.functions.values():
        yield from overloads


_USES: weakref.WeakKeyDictionary[Model, dict[int, list[Node]]] = weakref.WeakKeyDictionary()


def uses_of(ctx: RuleContext, sym: Symbol) -> list[Node]:
    """Identifier nodes in function bodies that refer to `sym` (its declaration excluded)."""
    model: Model = ctx.model
    table = _USES.get(model)
    if table is None:
        table = {}
        for fn in functions(model):
            if fn.body is None:
                continue
            for n in ctx.tree.walk(fn.body):
                if n.type == "identifier":
                    s = model.resolve(n)
                    if s is not None and not same(s.node, n):
                        table.setdefault(id(s), []).append(n)
        _USES[model] = table
    return table.get(id(sym), [])


def struct_node(ctx: RuleContext, name: str) -> Node | None:
    """The `struct name { ... }` definition in the tree."""
    for c in ctx.tree.walk():
        if c.type != "struct_specifier" or c.child_by_field_name("body") is None:
            continue
        nm = c.child_by_field_name("name")
        if nm is not None and ctx.node_text(nm) == name and ctx.tree.block_kind(c) == "struct":
            return c
    return None


def in_main_file(ctx: RuleContext, node: Node) -> bool:
    """True when `node` comes from the unit's main file (not an included header)."""
    start, end = ctx.span(node)
    mapped = ctx.pp.sourcemap.map_range(start, end)
    return mapped.path not in ctx.pp.included


# -- fetches -----------------------------------------------------------------------------------


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


def as_fetch(ctx: RuleContext, node: Node) -> Fetch | None:
    """The fetch that `node` is: a resource Load/Sample/Gather call or a resource subscript."""
    model: Model = ctx.model
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        if fn is None or fn.type != "field_expression":
            return None
        obj = fn.child_by_field_name("argument")
        field = fn.child_by_field_name("field")
        if obj is None or field is None:
            return None
        method = ctx.node_text(field)
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


def fetches_in(ctx: RuleContext, root: Node, *, skip_loops: bool = False) -> list[Fetch]:
    """Fetches below `root` in document order (optionally not inside nested loops)."""
    out: list[Fetch] = []
    stack = [root]
    while stack:
        n = stack.pop()
        f = as_fetch(ctx, n)
        if f is not None:
            out.append(f)
        for c in reversed(n.children):
            if skip_loops and c.type in LOOP_TYPES:
                continue
            stack.append(c)
    return out


# -- assignments -------------------------------------------------------------------------------


def assignments(ctx: RuleContext, sym: Symbol) -> list[tuple[str, Node | None, Node]] | None:
    """Every write of `sym`: (operator, value, site). `++`/`--` give ("++", None, site).

    None when the symbol is written in a way that cannot be followed (passed as an out argument,
    a member or element written through a swizzle or subscript...).
    """
    out: list[tuple[str, Node | None, Node]] = []
    if sym.init is not None and sym.node is not None:
        out.append(("=", sym.init, sym.node))
    for use in uses_of(ctx, sym):
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
            if call is not None and call_name(ctx, call) not in INTRINSICS and call_name(ctx, call) != "mul":
                fn = ctx.model.function(call_name(ctx, call) or "", len(call_args(call)))
                if fn is None:
                    return None
                idx = next((i for i, a in enumerate(call_args(call)) if same(a, site)), -1)
                if 0 <= idx < len(fn.params) and fn.params[idx].direction != "in":
                    return None
            elif call is not None and call_name(ctx, call) in ("InterlockedAdd", "modf", "frexp", "sincos"):
                return None
    return out


# -- uniformity --------------------------------------------------------------------------------


def is_uniform(ctx: RuleContext, node: Node) -> bool:
    """Is the expression wave-uniform? (the analysis query, else the local fallback)."""
    try:
        answer = analyze(ctx.model).uniform_at(ctx.span(node))
    except Exception:  # the analysis stage is optional for these rules
        answer = None
    if answer is not None:
        return bool(answer)
    return local_uniform(ctx, node, set())


def local_uniform(ctx: RuleContext, node: Node, seen: set[int]) -> bool:
    """A conservative wave-uniformity test that reads the tree only (see the module docstring)."""
    model: Model = ctx.model
    kind = node.type
    if kind in ("number_literal", "true", "false", "string_literal", "sizeof_expression"):
        return True
    if kind in ("parenthesized_expression", "comma_expression", "binary_expression", "unary_expression"):
        return all(local_uniform(ctx, c, seen) for c in node.named_children if c.type != "comment")
    if kind == "conditional_expression":
        return all(local_uniform(ctx, c, seen) for c in node.named_children)
    if kind == "cast_expression":
        value = node.child_by_field_name("value")
        return value is not None and local_uniform(ctx, value, seen)
    if kind == "field_expression":
        arg = node.child_by_field_name("argument")
        return arg is not None and local_uniform(ctx, arg, seen)
    if kind in ("subscript_expression", "subscript_argument_list", "argument_list", "initializer_list"):
        return all(local_uniform(ctx, c, seen) for c in node.named_children)
    if kind == "call_expression":
        return _call_uniform(ctx, node, seen)
    if kind == "identifier":
        sym = model.resolve(node)
        if sym is None:
            return False
        return symbol_uniform(ctx, sym, seen)
    return False


def _call_uniform(ctx: RuleContext, call: Node, seen: set[int]) -> bool:
    fn = call.child_by_field_name("function")
    args = call_args(call)
    if fn is None:
        return False
    if fn.type == "field_expression":  # a resource method: uniform with uniform operands
        obj = fn.child_by_field_name("argument")
        return obj is not None and all(local_uniform(ctx, a, seen) for a in [obj, *args])
    name = ctx.node_text(fn)
    spec = INTRINSICS.get(name)
    if spec is not None:
        cls = spec[1]
        if cls == "uniform":
            return True
        if cls == "readlane":
            return len(args) == 2 and local_uniform(ctx, args[1], seen)
        if cls == "pure":
            return all(local_uniform(ctx, a, seen) for a in args)
        return False
    if name == "mul" or ctx.model.lookup_type(name).is_numeric:
        return all(local_uniform(ctx, a, seen) for a in args)
    return False  # user functions: not followed


def symbol_uniform(ctx: RuleContext, sym: Symbol, seen: set[int]) -> bool:
    if sym.is_uniform_storage:
        return True
    if sym.kind == "param":
        if (sym.semantic or "").upper() in UNIFORM_SEMANTICS:
            fn = ctx.model.function(sym.function or "")
            return fn is not None and any(e.function is fn for e in ctx.model.entry_points)
        return False
    if sym.kind != "local":
        return False
    if id(sym) in seen:
        return True  # assume uniform around cycles (i = i + 1); other writes decide
    seen.add(id(sym))
    writes = assignments(ctx, sym)
    if writes is None or not writes:
        return False
    for _op, value, site in writes:
        if value is not None and not local_uniform(ctx, value, seen):
            return False
        if not _uniform_control(ctx, site, sym, seen):
            return False
    return True


_BRANCHING = frozenset(
    {
        "if_statement",
        "while_statement",
        "do_statement",
        "for_statement",
        "switch_statement",
        "conditional_expression",
    }
)


def _uniform_control(ctx: RuleContext, site: Node, sym: Symbol, seen: set[int]) -> bool:
    """Every condition that guards `site` inside the symbol's function is uniform."""
    cur = site.parent
    child = site
    while cur is not None and cur.type != "function_definition":
        cond: Node | None = None
        if cur.type in _BRANCHING:
            cond = cur.child_by_field_name("condition")
        if cond is not None and not same(cond, child) and not local_uniform(ctx, cond, seen):
            return False
        child, cur = cur, cur.parent
    return True


def loop_of(node: Node) -> Node | None:
    """The innermost loop statement around `node`."""
    return enclosing(node, LOOP_TYPES)
