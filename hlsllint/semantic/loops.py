"""Loops as the compiler sees them: constant trip counts of `for` loops, and whether a loop is
unrolled (measured with regtruth, RADV/ACO)."""

from __future__ import annotations

from hlsllint.semantic.model import Model
from hlsllint.syntax import Node
from hlsllint.syntax.queries import for_header, is_written

UNROLLED_TRIP_LIMIT = 32
"""Constant-trip loops up to this many iterations are unrolled whatever they index, so their
counter is a constant index (regtruth, RADV/ACO navi21: a 32-iteration loop reading a local
`float v[32]` at `v[j]` and `v[31 - j]` was unrolled with no branch; the same loop of 40 iterations
was kept, 15 branches)."""
KEPT_TRIP_LIMIT = 128
"""Above this many iterations a constant loop is kept (HL106's measurement: 128 unrolled,
129/256/512 kept; here a 256-iteration loop filling `float v[256]` kept its branch and took
65,536 bytes of scratch per wave). Between the two limits it depends on the body (the 40-iteration
loop above was kept; loops of 40, 64 and 128 iterations reading only `v[j]` were unrolled), so an
index from such a counter is not judged."""


def is_var(model: Model, node: Node | None, var: Node) -> bool:
    """`node` names the same variable as the identifier `var` (by symbol; by name when neither
    resolves, as for a loop counter leaked from an earlier loop in old HLSL scoping)."""
    if node is None or node.type != "identifier":
        return False
    sym = model.resolve(var)
    if sym is not None:
        return model.resolve(node) is sym
    return model.resolve(node) is None and model.tree.node_text(node) == model.tree.node_text(var)


def trip_count(model: Model, loop: Node) -> tuple[Node, int] | None:
    """(counter identifier, constant trip count) of `for (i = A; i < B; i++ / i += C)` whose
    body does not write the counter; None otherwise."""
    header = for_header(loop)
    if header is None or header.counter.type != "identifier":
        return None
    var, start, cond, update = header
    a = model.const_value(start)
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if not isinstance(a, int) or left is None or right is None or not is_var(model, left, var):
        return None
    b = model.const_value(right)
    op = model.tree.node_text(cond.child_by_field_name("operator") or cond)
    step = _step(model, update, var)
    if not isinstance(b, int) or isinstance(b, bool) or step is None or step == 0:
        return None
    body = loop.child_by_field_name("body")
    if body is not None and any(
        is_var(model, n, var) and is_written(model.tree, n) for n in model.tree.walk(body)
    ):
        return None
    if op in ("<=", ">="):
        b += 1 if step > 0 else -1
    if op in ("<", "<=", "!=") and step > 0:
        return var, max(0, -(-(b - a) // step))
    if op in (">", ">=", "!=") and step < 0:
        return var, max(0, -(-(a - b) // -step))
    return None


def _step(model: Model, update: Node, var: Node) -> int | None:
    if update.type == "comma_expression":  # `++i, ++j`: the part that steps the counter
        steps = [_step(model, c, var) for c in update.named_children if c.type != "comment"]
        mentions = [
            c for c in update.named_children if any(is_var(model, n, var) for n in model.tree.walk(c))
        ]
        found = [x for x in steps if x is not None]
        return found[0] if len(found) == 1 and len(mentions) == 1 else None
    if update.type == "update_expression":
        arg = update.child_by_field_name("argument")
        if not is_var(model, arg, var):
            return None
        return 1 if "++" in model.tree.node_text(update) else -1
    if update.type == "assignment_expression":
        if not is_var(model, update.child_by_field_name("left"), var):
            return None
        op = model.tree.node_text(update.child_by_field_name("operator") or update)
        v = model.const_value(update.child_by_field_name("right"))
        if not isinstance(v, int):
            return None
        return v if op == "+=" else -v if op == "-=" else None
    return None


def unrolled(model: Model, loop: Node) -> bool | None:
    """Does the compiler unroll `loop`? False for loops it keeps (a run-time trip count, `[loop]`,
    more than `KEPT_TRIP_LIMIT` iterations), None when the body decides (see the limits)."""
    found = trip_count(model, loop)
    attrs = {a.name.lower() for a in model.tree.attributes_of(loop)}
    if found is None or "loop" in attrs:
        return False
    if "unroll" in attrs or found[1] <= UNROLLED_TRIP_LIMIT:
        return True
    return False if found[1] > KEPT_TRIP_LIMIT else None
