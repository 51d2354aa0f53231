"""The findings of function-local rules in a header's functions are reused by every unit that
meets the function in the same state (`checker.FunctionFindings`), and only then."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import pytest

from hlsllint import checker
from hlsllint.config import Settings
from hlsllint.context import RuleContext
from hlsllint.lint import FileLoader, front_end, lint_unit
from hlsllint.rule import Rule
from hlsllint.syntax import Node

HEADER = """
#ifndef DIVISOR
#define DIVISOR 0
#endif
int Divide(int a) { return a / DIVISOR; }
int Twice(int a) { return a * 2; }
"""

UNIT = """
{before}
#include "common.hlsli"
RWBuffer<int> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {{ Out[id.x] = Divide(id.x) + Twice(1); }}
"""


class _Literals(Rule):
    """A function-local rule that notes every number literal it visits (and reports the `2`s)."""

    code = "HL999"
    name = "test-literals"
    summary = rationale = bad_example = good_example = ""
    node_kinds = frozenset({"number_literal"})
    function_local = True
    seen: ClassVar[list[str]] = []

    def visit(self, ctx: RuleContext, node: Node) -> None:
        text = ctx.node_text(node)
        self.seen.append(text)
        if text == "2":
            ctx.report(node, "a two")


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    checker.FUNCTIONS.clear()
    _Literals.seen = []
    yield
    checker.FUNCTIONS.clear()


def _files(**units: str) -> FileLoader:
    mains = {f"{n}.hlsl": UNIT.format(before=b) for n, b in units.items()}
    return FileLoader({"common.hlsli": HEADER, **mains})


def _walk(loader: FileLoader, path: str) -> list[tuple[str, str, int]]:
    pp, tree = front_end(loader(path), Settings(), None, loader)
    ctx = RuleContext(pp=pp, tree=tree)
    assert checker.run_rules(ctx, [_Literals()], path) == []
    return [(d.path, d.message, d.start.row) for d in ctx.diagnostics]


def test_a_header_function_is_visited_once_for_two_units() -> None:
    loader = _files(a="// unit a", b="// unit b, another comment")
    first = _walk(loader, "a.hlsl")
    assert _Literals.seen == ["0", "2", "1"]  # Divide's, Twice's, then main's `Twice(1)`
    assert checker.FUNCTIONS.stores == 2  # both header functions
    _Literals.seen = []
    second = _walk(loader, "b.hlsl")
    assert _Literals.seen == ["1"], "only the main file's literals are visited again"
    assert checker.FUNCTIONS.hits == 2
    assert first == second == [("common.hlsli", "a two", 6)]


def test_another_macro_state_is_not_reused() -> None:
    loader = _files(a="", b="#define DIVISOR 2")
    _walk(loader, "a.hlsl")
    _Literals.seen = []
    _walk(loader, "b.hlsl")
    # Another state of the header (the main file's code before its end differs): Divide, whose
    # text changed, and Twice are visited again.
    assert _Literals.seen == ["2", "2", "1"]
    assert checker.FUNCTIONS.hits == 0


def test_a_name_the_main_file_declares_after_the_header_is_not_shared() -> None:
    """A header function can read a name its includer declares (the model resolves it): a unit
    whose main file declares a name the header text holds shares none of the header's functions."""
    loader = FileLoader(
        {
            "common.hlsli": "int Scaled(int a) { return a / K; }\n",
            "zero.hlsl": '#include "common.hlsli"\nstatic const int K = 0;\n',
            "two.hlsl": '#include "common.hlsli"\nstatic const int K = 2;\n',
        }
    )
    settings = Settings(select=("HL008",))
    found = [lint_unit(p, settings, loader=loader).diagnostics for p in ("zero.hlsl", "two.hlsl")]
    assert [d.code for d in found[0]] == ["HL008"]
    assert found[1] == []
    assert checker.FUNCTIONS.hits == 0


def test_findings_are_the_same_shared_or_not(monkeypatch: pytest.MonkeyPatch) -> None:
    loader = _files(a="", b="#define DIVISOR 2", c="// c")
    settings = Settings(select=("HL",))
    paths = ["a.hlsl", "b.hlsl", "c.hlsl", "a.hlsl"]
    shared = [lint_unit(p, settings, loader=loader).diagnostics for p in paths]
    assert checker.FUNCTIONS.hits > 0
    monkeypatch.setattr(checker, "SHARE_FUNCTIONS", False)
    alone = [lint_unit(p, settings, loader=loader).diagnostics for p in paths]
    assert shared == alone
    assert any(d.code == "HL008" and d.path == "common.hlsli" for d in shared[0])


def test_the_headers_included_first_are_shared_whatever_comes_next() -> None:
    loader = FileLoader(
        {
            "common.hlsli": HEADER,
            "one.hlsli": "int One() { return 1; }\n",
            "two.hlsli": "int Two() { return 2; }\n",
            "a.hlsl": '#include "common.hlsli"\n#include "one.hlsli"\nint A() { return One(); }\n',
            "b.hlsl": '#include "common.hlsli"\n#include "two.hlsli"\nint B() { return Two(); }\n',
        }
    )
    _walk(loader, "a.hlsl")
    assert checker.FUNCTIONS.stores == 3
    _Literals.seen = []
    assert _walk(loader, "b.hlsl") == [("common.hlsli", "a two", 6), ("two.hlsli", "a two", 1)]
    assert checker.FUNCTIONS.hits == 2  # Divide and Twice
    assert _Literals.seen == ["2"]  # Two's
