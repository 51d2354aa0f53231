"""Loops as the compiler sees them: constant trip counts of `for` loops, and whether a loop is
unrolled (measured with regtruth, RADV/ACO)."""

from __future__ import annotations

from collections.abc import Callable

from hlsllint.semantic.model import Model
from hlsllint.syntax import Node
from hlsllint.syntax.queries import for_header, is_written

Const = Callable[[Node | None], int | float | bool | None]
"""A constant folder: `Model.const_value`, or one that binds an inlined call's arguments."""

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


class LoopHeader:
    """The parts of a counted loop `for (i = A; i OP B; STEP)` (`loop_header`): `counter` (the
    identifier of `i` in the initializer), `start` (A), `bound` (B), `op` (OP as if the counter
    were on the left: `N > i` is `i < N`), `update` (the part of STEP that moves the counter:
    `i++`, `i += C`; one part of a comma expression) and `amount` (C; None for `++`/`--`)."""

    def __init__(
        self, counter: Node, start: Node, bound: Node, op: str, update: Node, amount: Node | None
    ) -> None:
        self.counter = counter
        self.start = start
        self.bound = bound
        self.op = op
        self.update = update
        self.amount = amount

    def step(self, model: Model, const: Const | None = None) -> int | None:
        """The constant the counter moves by each iteration (`-1` for `i--`, `-C` for `i -= C`;
        None when C is not an integer constant or the update is not an increment or decrement);
        `const` folds C (the model's `const_value` by default)."""
        text = model.tree.node_text(self.update)
        if self.amount is None:
            return 1 if "++" in text else -1
        how = model.tree.node_text(self.update.child_by_field_name("operator") or self.update)
        v = (const or model.const_value)(self.amount)
        if not isinstance(v, int) or isinstance(v, bool):
            return None
        return v if how == "+=" else -v if how == "-=" else None


_MIRRORED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!="}


def loop_header(model: Model, loop: Node) -> LoopHeader | None:
    """The parts of `for (i = A; i OP B; i++ / i += C / ...)` (or `B OP i`, or an update with
    more parts, `i++, j++`); None for another loop. Whether A, B and C are constants is the
    caller's question (`trip_count`)."""
    header = for_header(loop)
    if header is None or header.counter.type != "identifier":
        return None
    var, start, cond, update = header
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    op = model.tree.node_text(cond.child_by_field_name("operator") or cond)
    if left is None or right is None:
        return None
    if is_var(model, left, var):
        bound = right
    elif is_var(model, right, var) and op in _MIRRORED:
        bound, op = left, _MIRRORED[op]
    else:
        return None
    moves = _counter_update(model, update, var)
    if moves is None:
        return None
    amount = moves.child_by_field_name("right") if moves.type == "assignment_expression" else None
    return LoopHeader(var, start, bound, op, moves, amount)


def _counter_update(model: Model, update: Node, var: Node) -> Node | None:
    """The part of a loop's update that moves the counter: `i++`, `i += C` (`i *= 2`: the caller
    finds no step), the one part of a comma expression that mentions the counter."""
    if update.type == "comma_expression":  # `++i, ++j`: the part that steps the counter
        parts = [c for c in update.named_children if c.type != "comment"]
        mentions = [c for c in parts if any(is_var(model, n, var) for n in model.tree.walk(c))]
        found = [m for m in (_counter_update(model, c, var) for c in parts) if m is not None]
        return found[0] if len(found) == 1 and len(mentions) == 1 else None
    if update.type == "update_expression":
        return update if is_var(model, update.child_by_field_name("argument"), var) else None
    if update.type == "assignment_expression":
        return update if is_var(model, update.child_by_field_name("left"), var) else None
    return None


def count(first: int, last: int, op: str, step: int) -> int | None:
    """The iterations of a counter from `first` while `counter OP last`, moving by `step`; None
    when it does not head for the bound (`i < N` going down)."""
    if step == 0:
        return None
    if op in ("<=", ">="):
        last += 1 if step > 0 else -1
    if op in ("<", "<=", "!=") and step > 0:
        return max(0, -(-(last - first) // step))
    if op in (">", ">=", "!=") and step < 0:
        return max(0, -(-(first - last) // -step))
    return None


def trip_count(
    model: Model,
    loop: Node,
    const: Const | None = None,
    written: Callable[[Node, Node], bool] | None = None,
) -> tuple[Node, int] | None:
    """(counter identifier, constant trip count) of `for (i = A; i < B; i++ / i += C)` whose
    body does not write the counter; None otherwise. The one answer for the rules and the CFG:
    `const` folds A, B and C (the model's `const_value`; the CFG's lowering passes its own, which
    binds the constant arguments of an inlined call), `written(body, counter)` says whether the
    body writes the counter (by default an assignment or update of it)."""
    header = loop_header(model, loop)
    if header is None:
        return None
    fold = const or model.const_value
    a = fold(header.start)
    b = fold(header.bound)
    if not isinstance(a, int) or not isinstance(b, int) or isinstance(b, bool):
        return None
    step = header.step(model, fold)
    if step is None or step == 0:
        return None
    body = loop.child_by_field_name("body")
    var = header.counter
    if body is not None:
        if written is not None:
            if written(body, var):
                return None
        elif any(is_var(model, n, var) and is_written(model.tree, n) for n in model.tree.walk(body)):
            return None
    found = count(a, b, header.op, step)
    return None if found is None else (var, found)


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
