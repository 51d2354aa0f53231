"""Wave-uniformity of an expression for rules: the per-entry analysis (`analyze(model)`,
computed once per unit) first; when no entry point lowers the expression (dead code, a helper no
entry calls, an expression it did not lower), a conservative check that reads the tree only:
literals, constant-buffer members, static consts, resources, `SV_GroupID`/`SV_ViewID` inputs,
wave reductions, and locals whose every assignment is uniform and not under a per-lane
condition. Anything else is per-lane.
"""

from __future__ import annotations

from hlsllint.analysis import analyze
from hlsllint.semantic.intrinsics import INTRINSICS
from hlsllint.semantic.model import Model
from hlsllint.semantic.queries import assignments
from hlsllint.semantic.symbols import Symbol
from hlsllint.syntax import Node
from hlsllint.syntax.queries import call_args, same

UNIFORM_SEMANTICS = frozenset({"SV_GROUPID", "SV_VIEWID"})
MAX_FOLLOWED = 64
"""Locals followed through their assignments for one question (`a2 = a1; a1 = a0; ...`): the
check recurses along the chain, and a compiled recursion has no `RecursionError`. Past it the
answer is "per-lane", the conservative one."""


def is_uniform(model: Model, node: Node) -> bool:
    """Is the expression wave-uniform? (the analysis query, else the local fallback)."""
    try:
        answer = analyze(model).uniform_at(model.tree.span(node))
    except Exception:  # the analysis stage is optional for these rules
        answer = None
    if answer is not None:
        return bool(answer)
    return local_uniform(model, node, set())


def local_uniform(model: Model, node: Node, seen: set[int]) -> bool:
    """A conservative wave-uniformity test that reads the tree only (see the module docstring)."""
    kind = node.type
    if kind in ("number_literal", "true", "false", "string_literal", "sizeof_expression"):
        return True
    if kind in ("parenthesized_expression", "comma_expression", "binary_expression", "unary_expression"):
        return all(local_uniform(model, c, seen) for c in node.named_children if c.type != "comment")
    if kind == "conditional_expression":
        return all(local_uniform(model, c, seen) for c in node.named_children)
    if kind == "cast_expression":
        value = node.child_by_field_name("value")
        return value is not None and local_uniform(model, value, seen)
    if kind == "field_expression":
        arg = node.child_by_field_name("argument")
        return arg is not None and local_uniform(model, arg, seen)
    if kind in ("subscript_expression", "subscript_argument_list", "argument_list", "initializer_list"):
        return all(local_uniform(model, c, seen) for c in node.named_children)
    if kind == "call_expression":
        return _call_uniform(model, node, seen)
    if kind == "identifier":
        sym = model.resolve(node)
        if sym is None:
            return False
        return symbol_uniform(model, sym, seen)
    return False


def _call_uniform(model: Model, call: Node, seen: set[int]) -> bool:
    fn = call.child_by_field_name("function")
    args = call_args(call)
    if fn is None:
        return False
    if fn.type == "field_expression":  # a resource method: uniform with uniform operands
        obj = fn.child_by_field_name("argument")
        if obj is None or model.type_of(obj).resource is None:
            return False  # a struct method: not followed
        return all(local_uniform(model, a, seen) for a in [obj, *args])
    name = model.tree.node_text(fn)
    spec = INTRINSICS.get(name)
    if spec is not None:
        cls = spec[1]
        if cls == "uniform":
            return True
        if cls == "readlane":
            return len(args) == 2 and local_uniform(model, args[1], seen)
        if cls == "pure":
            return all(local_uniform(model, a, seen) for a in args)
        return False
    if name == "mul" or model.lookup_type(name).is_numeric:
        return all(local_uniform(model, a, seen) for a in args)
    return False  # user functions: not followed


def symbol_uniform(model: Model, sym: Symbol, seen: set[int]) -> bool:
    if sym.is_uniform_storage:
        return True
    if sym.kind == "param":
        if (sym.semantic or "").upper() in UNIFORM_SEMANTICS:
            fn = model.function(sym.function or "")
            return fn is not None and any(e.function is fn for e in model.entry_points)
        return False
    if sym.kind != "local":
        return False
    if id(sym) in seen:
        return True  # assume uniform around cycles (i = i + 1); other writes decide
    if len(seen) >= MAX_FOLLOWED:
        return False
    seen.add(id(sym))
    writes = assignments(model, sym)
    if writes is None or not writes:
        return False
    for _op, value, site in writes:
        if value is not None and not local_uniform(model, value, seen):
            return False
        if not _uniform_control(model, site, seen):
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


def _uniform_control(model: Model, site: Node, seen: set[int]) -> bool:
    """Every condition that guards `site` inside the symbol's function is uniform."""
    cur = site.parent
    child = site
    while cur is not None and cur.type != "function_definition":
        cond: Node | None = None
        if cur.type in _BRANCHING:
            cond = cur.child_by_field_name("condition")
        if cond is not None and not same(cond, child) and not local_uniform(model, cond, seen):
            return False
        child, cur = cur, cur.parent
    return True
