"""One traversal, many rules: walk a unit's tree once and dispatch each node to the rules that
subscribed to its type (`Rule.node_kinds`), then give every rule its whole-unit `check`.

A rule that raises is dropped for the rest of the unit and reported as an internal error; the
others keep running.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence

from hlsllint.context import RuleContext
from hlsllint.deadline import current
from hlsllint.rule import Rule
from hlsllint.semantic import Function
from hlsllint.syntax import Node


def _crash(rule: Rule, path: str) -> str:
    return f"rule {rule.code} ({rule.name}) crashed on {path}:\n{traceback.format_exc(limit=-3)}"


def _no_stage(_stage: str) -> None:
    pass


_Visit = Callable[[RuleContext, Node], None]


def run_rules(
    ctx: RuleContext,
    rules: Sequence[Rule],
    path: str,
    on_stage: Callable[[str], None] = _no_stage,
) -> list[str]:
    """Run `rules` over the unit of `ctx`; returns the internal errors (crashed rules).

    `on_stage(name)` is told before the walk and before each rule's `check` (the driver's time
    budget raises from it)."""
    errors: list[str] = []
    failed: set[str] = set()
    lists: dict[str, list[tuple[Rule, _Visit]]] = {}
    for rule in rules:
        for kind in rule.node_kinds:
            lists.setdefault(kind, []).append((rule, rule.visit))
    dispatch = {kind: tuple(subs) for kind, subs in lists.items()}
    if dispatch:
        on_stage("the rules' walk (" + ", ".join(r.code for r in rules if r.node_kinds) + ")")
        bodies: dict[int, Function] = {}
        for overloads in ctx.model.functions.values():
            for f in overloads:
                if f.body is not None:
                    bodies[f.body.id] = f
        body_types = {f.body.type for f in bodies.values() if f.body is not None}
        nodes = ctx.tree.nodes()
        # The function of a node is that of the innermost body around it; a body's subtree is
        # the run of `descendant_count` nodes that starts at it in document order.
        fn: Function | None = None
        fn_end = len(nodes)
        outer: list[tuple[Function | None, int]] = []
        deadline = current()
        for i, kind in enumerate(ctx.tree.node_types()):
            deadline.tick()
            while i >= fn_end:
                fn, fn_end = outer.pop()
            if kind in body_types:
                node = nodes[i]
                inner = bodies.get(node.id)
                if inner is not None:
                    outer.append((fn, fn_end))
                    fn, fn_end = inner, i + node.descendant_count
            subscribers = dispatch.get(kind)
            if subscribers:
                node = nodes[i]
                ctx.function = fn
                for rule, visit in subscribers:
                    ctx.rule = rule
                    try:
                        visit(ctx, node)
                    except Exception:  # a rule bug must not take the run down
                        failed.add(rule.code)
                        errors.append(_crash(rule, path))
                        for k, subs in dispatch.items():  # no more visits for it
                            dispatch[k] = tuple(s for s in subs if s[0].code not in failed)
        ctx.function = None
    for rule in rules:
        if rule.code in failed:
            continue
        on_stage(f"rule {rule.code} ({rule.name})")
        ctx.rule = rule
        try:
            rule.check(ctx)
        except Exception:  # a rule bug must not take the run down
            errors.append(_crash(rule, path))
    ctx.rule = None
    # Findings grouped by rule, in rule order, as if each rule had run on its own.
    order = {rule.code: i for i, rule in enumerate(rules)}
    ctx.diagnostics.sort(key=lambda d: order.get(d.code, -1))
    return errors
