"""Questions about the shape of the tree around a node (no types, no symbols): parentheses,
assignment targets, conditions, enclosing statements, calls by name, swizzles."""

from __future__ import annotations

import re
from typing import NamedTuple

from hlsllint.syntax import Node, SyntaxTree

SWIZZLE_RE = re.compile(r"^(?:[xyzw]{1,4}|[rgba]{1,4})$")
LOOP_TYPES = frozenset({"for_statement", "while_statement", "do_statement"})
ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})


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


def member_root(node: Node) -> Node | None:
    """The identifier a member access starts from: `id` of `id.xy`, `input.pos.xy` or `(id).x`;
    None when it starts from anything else (a call, a subscript)."""
    node = unparen(node)
    while node.type == "field_expression":
        arg = node.child_by_field_name("argument")
        if arg is None:
            return None
        node = unparen(arg)
    return node if node.type == "identifier" else None


def same(a: Node | None, b: Node | None) -> bool:
    return a is not None and b is not None and a.id == b.id


def call_name(tree: SyntaxTree, call: Node) -> str | None:
    """The name of a plain call `name(...)`, else None."""
    if call.type != "call_expression":
        return None
    fn = call.child_by_field_name("function")
    if fn is None or fn.type not in ("identifier", "primitive_type", "type_identifier"):
        return None
    return tree.node_text(fn)


def else_statement(alternative: Node) -> Node | None:
    """The statement of an `else` clause (an `if`'s `alternative` field): its first named child
    that is not a comment (`else // why` puts the comment first)."""
    if alternative.type != "else_clause":
        return alternative
    for c in alternative.named_children:
        if c.type != "comment":
            return c
    return None


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


def is_written(tree: SyntaxTree, node: Node) -> bool:
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
        name = call_name(tree, parent.parent) or ""
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


def loop_of(node: Node) -> Node | None:
    """The innermost loop statement around `node`."""
    return enclosing(node, LOOP_TYPES)


def swizzle_of(tree: SyntaxTree, node: Node) -> str | None:
    """The swizzle applied to `node` (`v.xyz` -> "xyz"), else None."""
    site, parent = unparen_up(node)
    if parent is None or parent.type != "field_expression":
        return None
    if not same(parent.child_by_field_name("argument"), site):
        return None
    field = parent.child_by_field_name("field")
    text = tree.node_text(field) if field is not None else ""
    return text if SWIZZLE_RE.match(text) else None


class ForHeader(NamedTuple):
    """The parts of `for (i = A; i OP B; STEP)` (or `for (T i = A; ...)`)."""

    counter: Node
    start: Node
    condition: Node
    """A binary expression."""
    update: Node


def for_header(loop: Node) -> ForHeader | None:
    """The counter, start, condition and update of a `for` loop with all four, else None."""
    if loop.type != "for_statement":
        return None
    init = loop.child_by_field_name("initializer")
    cond = loop.child_by_field_name("condition")
    update = loop.child_by_field_name("update")
    if init is None or cond is None or update is None or cond.type != "binary_expression":
        return None
    if init.type == "declaration":
        init = next((c for c in init.named_children if c.type == "init_declarator"), init)
    counter = init.child_by_field_name("declarator") or init.child_by_field_name("left")
    start = init.child_by_field_name("value") or init.child_by_field_name("right")
    if counter is None or start is None:
        return None
    return ForHeader(counter, start, cond, update)
