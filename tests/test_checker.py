"""The shared walk (hlsllint/checker.py): one traversal dispatched to the rules that subscribed."""

from __future__ import annotations

from typing import Any

import pytest

from hlsllint.checker import run_rules
from hlsllint.config import Settings
from hlsllint.context import RuleContext
from hlsllint.lint import front_end
from hlsllint.rule import Rule
from hlsllint.source import SourceFile
from hlsllint.syntax import Node

SRC = """\
static const float k = 2.0;
float helper(float a) { return a * k; }
[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { float b = helper(id.x); }
"""


def _ctx(text: str = SRC) -> RuleContext:
    main = SourceFile(path="unit.hlsl", text=text)
    pp, tree = front_end(main, Settings(), None, lambda p: SourceFile.read(p))
    return RuleContext(pp=pp, tree=tree)


class _Names(Rule):
    """Reports every identifier with the function whose body holds it, then a summary."""

    code = "HL990"
    name = "names"
    node_kinds = frozenset({"identifier"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        seen = ctx.scratch(list)
        where = ctx.function.name if ctx.function is not None else "-"
        seen.append(f"{ctx.node_text(node)}@{where}")

    def check(self, ctx: RuleContext) -> None:
        ctx.report((0, 1), " ".join(ctx.scratch(list)))


class _Crashes(Rule):
    code = "HL991"
    name = "crashes"
    node_kinds = frozenset({"call_expression"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        raise RuntimeError("boom")

    def check(self, ctx: RuleContext) -> None:
        ctx.report((0, 1), "check must not run after visit crashed")


class _CheckOnly(Rule):
    code = "HL992"
    name = "check-only"

    def check(self, ctx: RuleContext) -> None:
        ctx.report((0, 1), "whole unit")


def test_walk_dispatches_in_document_order_with_the_enclosing_function() -> None:
    ctx = _ctx()
    errors = run_rules(ctx, [_Names()], "unit.hlsl")
    assert errors == []
    [diag] = ctx.diagnostics
    # document order; only nodes inside a body carry its function (`x` is a field_identifier)
    assert diag.message.split() == [
        "k@-",
        "helper@-",
        "a@-",
        "a@helper",
        "k@helper",
        "main@-",
        "id@-",
        "b@main",
        "helper@main",
        "id@main",
    ]


def test_a_crashing_rule_is_dropped_and_the_others_keep_their_order() -> None:
    ctx = _ctx()
    errors = run_rules(ctx, [_CheckOnly(), _Crashes(), _Names()], "unit.hlsl")
    assert len(errors) == 1 and "HL991" in errors[0] and "boom" in errors[0]
    assert [d.code for d in ctx.diagnostics] == ["HL992", "HL990"]
    assert ctx.rule is None and ctx.function is None


def test_scratch_is_per_rule_and_per_unit() -> None:
    first, second = _ctx(), _ctx("float f(float q) { return q; }\n")
    rule = _Names()
    run_rules(first, [rule], "unit.hlsl")
    run_rules(second, [rule], "unit.hlsl")
    assert second.diagnostics[0].message == "f@- q@- q@f"


def test_a_model_being_built_on_one_thread_holds_up_no_other(monkeypatch: pytest.MonkeyPatch) -> None:
    """The language server builds documents' models on threads of their own: while one unit's
    model is being built (held here until released), another unit's is built at once. A
    `functools.cached_property` on Python 3.11 has one lock per class, so the second waited for
    the first (a slow document held up every other document's diagnostics)."""
    import threading

    import hlsllint.context as context

    slow, quick = _ctx(), _ctx()
    building, release = threading.Event(), threading.Event()
    real = context.build_model

    def build(tree: Any, settings: Any) -> Any:
        if tree is slow.tree:
            building.set()
            release.wait(60)
        return real(tree, settings)

    monkeypatch.setattr(context, "build_model", build)
    first = threading.Thread(target=lambda: slow.model)
    first.start()
    try:
        assert building.wait(60)
        second = threading.Thread(target=lambda: quick.model)
        second.start()
        second.join(60)
        assert not second.is_alive(), "the second unit's model waited for the first's"
        assert first.is_alive()  # the first is still being built
    finally:
        release.set()
        first.join()
    assert slow.model.functions and quick.model.functions
