"""Dead code, as the compiler sees it: the regions of a unit it drops before code generation.

- statements after an unconditional `return`, `break` or `continue` in the same block (`discard`
  is not one: the lanes it stops keep running as helpers, and DXC keeps what follows);
- the branch an `if` or a `?:` does not take when its condition has a compile-time value
  (`Model.const_value`: literals, `static const` values, macros);
- the functions no entry point of the unit reaches, when the unit has entry points and what they
  reach is known (every call resolved by name, no unparsed region on their path).

A finding inside dead code is about code that costs nothing and is never run, so the rules do not
report there (`Rule.reports_dead_code` opts out). Where the model cannot tell, the code counts as
live: a condition that is not a constant, a unit without entry points, a path through an
unparsed region. An unreached function counts as dead only in the unit's own file
(`RuleContext.report`): a header's function that this includer does not call may be another's,
and a header passed alone is analysed through units cut after it, where no entry point is seen.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right

from hlsllint.semantic.model import Model
from hlsllint.semantic.symbols import Function
from hlsllint.syntax import Node
from hlsllint.syntax.fields import F_ALTERNATIVE, F_CONDITION, F_CONSEQUENCE

Span = tuple[int, int]

_JUMPS = frozenset({"return_statement", "break_statement", "continue_statement"})
_SKIPPED = frozenset({"comment", ";"})


class Regions:
    """Regions of the expanded text, sorted and merged; `covers` answers in O(log n)."""

    def __init__(self, spans: list[Span]) -> None:
        merged: list[Span] = []
        for s, e in sorted(spans):
            if merged and s <= merged[-1][1]:
                if e > merged[-1][1]:
                    merged[-1] = (merged[-1][0], e)
            else:
                merged.append((s, e))
        self.spans = merged
        self._starts = [s for s, _ in merged]

    def covers(self, start: int, end: int) -> bool:
        """Is the whole of `start..end` inside one region?"""
        i = bisect_right(self._starts, start) - 1
        return i >= 0 and end <= self.spans[i][1]


class DeadCode:
    """A unit's dead code, found where it is asked about: the dead statements of a function
    body (after a jump, a branch not taken; dead wherever the function is) are looked for in the
    bodies around a span the first time a span there is asked about, and the functions no entry
    point reaches (dead in this unit) the first time `in_unreached` is asked. A lint asks about
    the spans its rules report only, most of them in a few bodies of the unit's headers: finding
    every body's dead code first took 7% of a cold lint of SpartanEngine (compiled)."""

    def __init__(self, bodies: list[tuple[int, int, Node]]) -> None:
        bodies.sort(key=lambda b: (b[0], -b[1]))
        self._starts = [b[0] for b in bodies]
        self._bodies = bodies
        self._reach = list(itertools.accumulate((b[1] for b in bodies), max))
        """Where the bodies end at most, over those that start before each of them."""
        self._statements: dict[tuple[int, ...], Regions] = {}
        self._unreached: Regions | None = None
        self.walked = 0
        """Bodies walked for their dead statements (tests observe it)."""

    def in_statements(self, model: Model, start: int, end: int) -> bool:
        """Is the whole of `start..end` in one dead statement region (after a jump, a branch
        not taken)? Only the bodies holding `start..end` can hold such a region."""
        i = bisect_right(self._starts, start) - 1
        around: list[int] = []
        while i >= 0 and self._reach[i] >= end:
            if self._bodies[i][1] >= end:
                around.append(i)
            i -= 1
        if not around:
            return False
        key = tuple(around)
        regions = self._statements.get(key)
        if regions is None:
            spans: list[Span] = []
            for k in around:
                _dead_in_body(model, self._bodies[k][2], spans)
                self.walked += 1
            regions = self._statements[key] = Regions(spans)
        return regions.covers(start, end)

    def in_unreached(self, model: Model, start: int, end: int) -> bool:
        """Is the whole of `start..end` in a function no entry point reaches?"""
        if self._unreached is None:
            tree = model.tree
            self._unreached = Regions([tree.span(fn.node) for fn in _unreached(model)])
        return self._unreached.covers(start, end)


def dead_code(model: Model) -> DeadCode:
    """The unit's dead code (see the module docstring), one per model: `in_statements` and
    `in_unreached` answer for a span of the text."""
    found = model.memo.get("dead_code")
    if isinstance(found, DeadCode):
        return found
    tree = model.tree
    bodies: list[tuple[int, int, Node]] = []
    for overloads in model.functions.values():
        for fn in overloads:
            if fn.body is not None:
                start, end = tree.span(fn.body)
                bodies.append((start, end, fn.body))
    result = DeadCode(bodies)
    model.memo["dead_code"] = result
    return result


def _dead_in_body(model: Model, body: Node, spans: list[Span]) -> None:
    tree = model.tree
    stack = [body]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "compound_statement":
            children = [c for c in node.named_children if c.type not in _SKIPPED]
            for i, c in enumerate(children):
                if c.type in _JUMPS and i + 1 < len(children):
                    spans.append((tree.span(children[i + 1])[0], tree.span(children[-1])[1]))
                    stack.extend(children[: i + 1])
                    break
            else:
                stack.extend(children)
            continue
        if kind in ("if_statement", "conditional_expression"):
            value = model.const_value(_condition(node))
            if value is not None:
                then = node.child_by_field_id(F_CONSEQUENCE)
                alt = node.child_by_field_id(F_ALTERNATIVE)
                dropped = alt if value else then
                if dropped is not None:
                    spans.append(tree.span(dropped))
                kept = then if value else alt
                if kept is not None:
                    stack.append(kept)
                continue
        stack.extend(node.named_children)


def _condition(node: Node) -> Node | None:
    cond = node.child_by_field_id(F_CONDITION)
    if cond is not None and cond.type == "condition_clause":
        parts = [c for c in cond.named_children if c.type != "comment"]
        if len(parts) != 1:  # `if (int x = f(); x)`: not a plain condition
            return None
        cond = parts[0]
    while cond is not None and cond.type == "parenthesized_expression" and cond.named_child_count == 1:
        cond = cond.named_children[0]
    return cond


def _unreached(model: Model) -> list[Function]:
    """The functions with a body that no entry point reaches; none when the unit has no entry
    point or the walk from them is not known to be complete."""
    if not model.entry_points:
        return []
    tree = model.tree
    every = [fn for overloads in model.functions.values() for fn in overloads if fn.body is not None]
    roots: list[Function] = [e.function for e in model.entry_points]
    named = _names_outside_calls(model, every)
    roots.extend(fn for fn in every if fn.name in named or fn.name.rpartition("::")[2] in named)
    seen: dict[int, Function] = {}
    stack = list(roots)
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen[id(fn)] = fn
        if fn.body is not None and tree.unparsed:
            start, end = tree.span(fn.node)
            if tree.in_unparsed(start, end):
                return []  # a call in the unparsed text may reach anything
        stack.extend(model.called_functions(fn))
    return [fn for fn in every if id(fn) not in seen]


def _names_outside_calls(model: Model, bodies: list[Function]) -> set[str]:
    """Names a function is reached by other than a call in a reached body: string arguments of
    attributes (`[patchconstantfunc("PatchHS")]`) and calls outside every function body (a
    global's initial value)."""
    names: set[str] = set()
    for fn in bodies:
        for attr in fn.attributes:
            for arg in attr.args:
                if isinstance(arg, str):
                    names.add(arg.strip().strip('"'))
    tree = model.tree
    ranges = sorted(tree.span(fn.body) for fn in bodies if fn.body is not None)
    starts = [s for s, _ in ranges]
    for node in tree.nodes_of_type("call_expression"):
        start = tree.span(node)[0]
        j = bisect_right(starts, start) - 1
        if j >= 0 and start < ranges[j][1]:
            continue
        callee = node.child_by_field_name("function")
        if callee is not None:
            names.add(tree.node_text(callee).rpartition("::")[2].strip())
    return names
