"""The findings of function-local rules in a header's functions are reused by every unit that
meets the function in the same state (`checker.FunctionFindings`), and only then."""

from __future__ import annotations

import re
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


class _Unitwide(Rule):
    """A function-local rule whose visits of `3` say they need the unit (and report what the
    unit's main file is called there): a `2` is reported from the function, a `3` per unit."""

    code = "HL998"
    name = "test-unit-wide"
    summary = rationale = bad_example = good_example = ""
    node_kinds = frozenset({"number_literal"})
    function_local = True
    seen: ClassVar[list[str]] = []

    def visit(self, ctx: RuleContext, node: Node) -> None:
        text = ctx.node_text(node)
        self.seen.append(text)
        if text == "3":
            ctx.needs_unit()
            ctx.report(node, f"a three seen from {ctx.path}")
        elif text == "2":
            ctx.report(node, "a two")


class _Gathers(_Literals):
    """The same visits, declared entry-dependent (the default)."""

    code = "HL997"
    name = "test-gathers"
    function_local = False


MIXED = "int Mixed(int a) { return a * 2 + a * 3 + a * 2; }\n"


def _run(loader: FileLoader, path: str, rule: Rule) -> list[tuple[str, str, int, int]]:
    pp, tree = front_end(loader(path), Settings(), None, loader)
    ctx = RuleContext(pp=pp, tree=tree, path=path)
    assert checker.run_rules(ctx, [rule], path) == []
    return [(d.path, d.message, d.start.row, d.start.column) for d in ctx.diagnostics]


MIXED_FROM_B = [
    ("mixed.hlsli", "a two", 1, 31),
    ("mixed.hlsli", "a three seen from b.hlsl", 1, 39),
    ("mixed.hlsli", "a two", 1, 47),
]
"""What `_Unitwide` and `_Facts` report in `mixed.hlsli` linted through `b.hlsl`: the twos taken
from the first unit, in the order of the visits that made them, and the unit's own three."""


def test_a_visit_that_needs_the_unit_is_made_again_in_every_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    loader = FileLoader(
        {
            "mixed.hlsli": MIXED,
            "a.hlsl": '#include "mixed.hlsli"\nint A() { return Mixed(1); }\n',
            "b.hlsl": '#include "mixed.hlsli"\nint B() { return Mixed(1); }\n',
        }
    )
    _Unitwide.seen = []
    first = _run(loader, "a.hlsl", _Unitwide())
    assert _Unitwide.seen == ["2", "3", "2", "1"]
    assert checker.FUNCTIONS.stores == 1
    _Unitwide.seen = []
    second = _run(loader, "b.hlsl", _Unitwide())
    assert checker.FUNCTIONS.hits == 1
    assert _Unitwide.seen == ["3", "1"], "only the visit that needs the unit, and the main file's"
    # The three is the unit's own; the twos are taken, in the order of the visits that made them.
    assert second == MIXED_FROM_B
    assert first == [(p, m.replace("b.hlsl", "a.hlsl"), r, c) for p, m, r, c in second]
    monkeypatch.setattr(checker, "SHARE_FUNCTIONS", False)
    assert _run(loader, "b.hlsl", _Unitwide()) == second


class _Facts(_Unitwide):
    """The same rule, its visits of `3` giving the literal's text as their fact: later units
    call `replay` with it (and the node) instead of visiting."""

    code = "HL996"
    name = "test-facts"
    replayed: ClassVar[list[tuple[str, object]]] = []

    def visit(self, ctx: RuleContext, node: Node) -> None:
        text = ctx.node_text(node)
        self.seen.append(text)
        if text == "3":
            ctx.needs_unit(("literal", text))
            self.replay(ctx, node, ("literal", text))
        elif text == "2":
            ctx.report(node, "a two")

    def replay(self, ctx: RuleContext, node: Node, fact: object) -> None:
        self.replayed.append((ctx.node_text(node), fact))
        ctx.report(node, f"a three seen from {ctx.path}")


def test_a_visit_that_gives_a_fact_is_replayed_in_every_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    loader = FileLoader(
        {
            "mixed.hlsli": MIXED,
            "a.hlsl": '#include "mixed.hlsli"\nint A() { return Mixed(1); }\n',
            "b.hlsl": '#include "mixed.hlsli"\nint B() { return Mixed(1); }\n',
        }
    )
    _Facts.seen, _Facts.replayed = [], []
    first = _run(loader, "a.hlsl", _Facts())
    assert _Facts.seen == ["2", "3", "2", "1"]
    _Facts.seen, _Facts.replayed = [], []
    second = _run(loader, "b.hlsl", _Facts())
    assert _Facts.seen == ["1"], "only the main file's literal is visited"
    assert _Facts.replayed == [("3", ("literal", "3"))]
    assert (checker.FUNCTIONS.hits, checker.FUNCTIONS.replays, checker.FUNCTIONS.revisits) == (1, 1, 0)
    assert second == MIXED_FROM_B
    assert first == [(p, m.replace("b.hlsl", "a.hlsl"), r, c) for p, m, r, c in second]
    monkeypatch.setattr(checker, "SHARE_FUNCTIONS", False)
    assert _run(loader, "b.hlsl", _Facts()) == second


def test_an_entry_dependent_rule_is_never_shared() -> None:
    loader = _files(a="// unit a", b="// unit b")
    for path in ("a.hlsl", "b.hlsl"):
        _Gathers.seen = []
        pp, tree = front_end(loader(path), Settings(), None, loader)
        ctx = RuleContext(pp=pp, tree=tree)
        assert checker.run_rules(ctx, [_Gathers()], path) == []
        assert _Gathers.seen == ["0", "2", "1"], "every header function visited in every unit"
    assert checker.FUNCTIONS.stores == checker.FUNCTIONS.hits == 0


TILES = """
Buffer<float4> Lights : register(t0);
float3 Shade(uint first, uint count)
{
    float3 lit = 0;
    for (uint i = 0; i < count; ++i)
    {
        float4 light = Lights[first + i];
        lit += light.xyz * light.w;
    }
    return lit;
}
"""

TILE_UNIT = """
#include "tiles.hlsli"
RWBuffer<float4> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID)
{{
    Out[id.x] = float4(Shade({first}, {count}), 1);
}}
"""


def test_a_header_load_uniform_in_one_includer_only_is_reported_there_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HL101 reads the entry points' uniformity: the same header function in the same state is
    a uniform list walk from one includer (a group's range) and a per-lane one from the other."""
    loader = FileLoader(
        {
            "tiles.hlsli": TILES,
            "uniform.hlsl": TILE_UNIT.format(first="group.x * 8", count="8"),
            "lanes.hlsl": TILE_UNIT.format(first="id.x", count="8"),
        }
    )
    settings = Settings(select=("HL101",))
    paths = ["uniform.hlsl", "lanes.hlsl", "uniform.hlsl"]
    shared = [lint_unit(p, settings, loader=loader).diagnostics for p in paths]
    assert checker.FUNCTIONS.hits == 2
    assert [[d.code for d in found] for found in shared] == [["HL101"], [], ["HL101"]]
    monkeypatch.setattr(checker, "SHARE_FUNCTIONS", False)
    assert [lint_unit(p, settings, loader=loader).diagnostics for p in paths] == shared


def test_a_name_in_a_header_comment_only_does_not_stop_the_sharing() -> None:
    """An includer's `struct vertex` after the header cannot change what the header's code
    means when the header spells `vertex` in comments (and a string) only."""
    header = (
        "// vertex attribute unpackers\n"
        "/* the vertex\n   struct */\n"
        'int Twice(int a) { return a * 2; } // "vertex"\n'
    )
    loader = FileLoader(
        {
            "common.hlsli": header,
            "a.hlsl": '#include "common.hlsli"\nstruct vertex { float4 p : SV_Position; };\n',
            "b.hlsl": '#include "common.hlsli"\nstruct pixel { float4 p : SV_Position; };\n',
        }
    )
    assert _walk(loader, "a.hlsl") == _walk(loader, "b.hlsl") == [("common.hlsli", "a two", 4)]
    assert checker.FUNCTIONS.hits == 1


def test_code_words_leave_comments_out_and_strings_in() -> None:
    text = 'int a; // b c\n/* d\n e */ int f; string s = "g // h"; /* unclosed i'
    assert checker.code_words(text) == frozenset({"int", "a", "f", "string", "s", "g", "h", "unclosed", "i"})


def test_code_words_are_what_the_word_pattern_finds_in_the_code() -> None:
    """`code_words` splits ASCII code at the other characters instead of running the word
    pattern: the same words, digits before a name's first letter dropped as `findall` drops
    them, also in text with non-ASCII word characters (which takes the pattern)."""
    import random
    import re

    def by_pattern(text: str) -> frozenset[str]:
        code = re.sub(
            r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/',
            lambda m: m.group(0) if m.group(0).startswith('"') else " ",
            text,
            flags=re.DOTALL,
        )
        return frozenset(re.findall(r"[A-Za-z_]\w*", code))

    assert checker.code_words('0x1F 2D_tex 12 a1b2 _3 "s t"u') == by_pattern('0x1F 2D_tex 12 a1b2 _3 "s t"u')
    assert checker.code_words("0x1F 12ab") == frozenset({"x1F", "ab"})
    pieces = [
        "a",
        "B",
        "_",
        "0",
        "7",
        " ",
        "\n",
        "\t",
        '"',
        "\\",
        "/",
        "*",
        ".",
        "#",
        "é",
        "٣",
        "x1",
        "//",
        "/*",
        "*/",
    ]
    rng = random.Random(3)
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(30)))
        assert checker.code_words(text) == by_pattern(text), text


def _count_header_visits(monkeypatch: pytest.MonkeyPatch, code: str) -> list[str]:
    """The visits rule `code` makes in header function bodies (the paths of their functions'
    files), through a wrapper around its class's `visit`."""
    from hlsllint.registry import rule_by_code

    cls = rule_by_code()[code]
    visit = cls.visit
    seen: list[str] = []

    def counted(self: Rule, ctx: RuleContext, node: Node) -> None:
        fn = ctx.function
        if fn is not None and not ctx.in_main_file(fn.node):
            seen.append(ctx.node_text(node))
        visit(self, ctx, node)

    monkeypatch.setattr(cls, "visit", counted)
    return seen


FILL = """
void Fill(inout VSOut o, float2 uv)
{
    o.uv = uv;
    o.debug = 1;
}
"""

FILL_UNIT = """
struct VSOut
{{
    float4 pos : SV_Position;
    float2 uv : TEXCOORD0;
    float debug : TEXCOORD1;
}};
#include "fill.hlsli"
Texture2D<float4> Tex : register(t0);
SamplerState Smp : register(s0);
VSOut vs_{name}(float3 p : POSITION, float2 uv : TEXCOORD0)
{{
    VSOut o;
    o.pos = float4(p, 1);
    Fill(o, uv);
    return o;
}}
float4 ps_{name}(VSOut i) : SV_Target {{ return Tex.Sample(Smp, i.uv); }}
"""


def test_hl107_takes_a_header_functions_member_accesses_from_its_facts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HL107 keeps every `x.member` access for `check` (the unread member's fix deletes the
    statements that write it, here one in the header): in the second unit the header's accesses
    come from the facts the first unit's visits gave, not from visits (so not typed again)."""
    loader = FileLoader(
        {"fill.hlsli": FILL, "a.hlsl": FILL_UNIT.format(name="a"), "b.hlsl": FILL_UNIT.format(name="b")}
    )
    settings = Settings(select=("HL107",))
    seen = _count_header_visits(monkeypatch, "HL107")
    first = lint_unit("a.hlsl", settings, loader=loader).diagnostics
    assert seen == ["o.uv", "o.debug"]
    seen.clear()
    second = lint_unit("b.hlsl", settings, loader=loader).diagnostics
    assert seen == [], "the header's accesses are not visited again"
    assert checker.FUNCTIONS.hits == 1
    assert (checker.FUNCTIONS.replays, checker.FUNCTIONS.revisits) == (2, 0)
    assert [d.message for d in second] == ["`debug` (TEXCOORD1) of `VSOut` is never read by `ps_b`"]
    assert [d.message.replace("ps_a", "ps_b") for d in first] == [d.message for d in second]
    monkeypatch.setattr(checker, "SHARE_FUNCTIONS", False)
    assert lint_unit("b.hlsl", settings, loader=loader).diagnostics == second


COPY = """
float3 Placed(uint i, float3 p)
{
    Inst copy = Insts[i];
    return mul(float4(p, 1), copy.world).xyz;
}
"""

COPY_UNIT = """
struct Inst
{{
    float4x4 world;
}};
StructuredBuffer<Inst> Insts : register(t0);
{include}
float4 vs_{name}(float3 p : POSITION, uint id : SV_InstanceID) : SV_Position
{{
    return float4(mul(float4(p, 1), Insts[id].world).xyz{call}, 1);
}}
"""


def test_hl103_takes_a_header_functions_struct_copies_from_its_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A local copy of `Inst` in a header function keeps HL103 from weighing `Inst.world`'s
    reads: in the second unit that copy comes from the first unit's fact, not a visit."""
    loader = FileLoader(
        {
            "copy.hlsli": COPY,
            "a.hlsl": COPY_UNIT.format(name="a", include='#include "copy.hlsli"', call=" + Placed(id, p)"),
            "b.hlsl": COPY_UNIT.format(name="b", include='#include "copy.hlsli"', call=" + Placed(id, p)"),
            "alone.hlsl": COPY_UNIT.format(name="alone", include="", call=""),
        }
    )
    settings = Settings(select=("HL103",))
    assert [d.code for d in lint_unit("alone.hlsl", settings, loader=loader).diagnostics] == ["HL103"]
    seen = _count_header_visits(monkeypatch, "HL103")
    assert lint_unit("a.hlsl", settings, loader=loader).diagnostics == []
    assert seen == ["Inst copy = Insts[i];"]
    seen.clear()
    assert lint_unit("b.hlsl", settings, loader=loader).diagnostics == [], "the copy is the unit's too"
    assert seen == []
    assert (checker.FUNCTIONS.hits, checker.FUNCTIONS.replays, checker.FUNCTIONS.revisits) == (1, 1, 0)


def test_hl101_visits_a_header_load_once_and_asks_each_unit_about_its_uniformity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HL101's header load in a loop its address moves in is read once per header state (its
    fact: where the address and the loop condition are); each unit answers their uniformity.
    A sample and a one-off load never depend on the unit: they are taken, not replayed."""
    header = TILES.replace(
        "    return lit;",
        "    lit += Lights[first].xyz + Lights.SampleLevel(Smp, 0.5, 0).xyz;\n    return lit;",
    )
    header = "SamplerState Smp : register(s0);\n" + header.replace(
        "Buffer<float4> Lights", "Texture1D<float4> Lights"
    )
    loader = FileLoader(
        {
            "tiles.hlsli": header,
            "uniform.hlsl": TILE_UNIT.format(first="group.x * 8", count="8"),
            "lanes.hlsl": TILE_UNIT.format(first="id.x", count="8"),
        }
    )
    settings = Settings(select=("HL101",))
    seen = _count_header_visits(monkeypatch, "HL101")
    paths = ["uniform.hlsl", "lanes.hlsl", "uniform.hlsl"]
    shared = []
    for i, path in enumerate(paths):
        seen.clear()
        shared.append(lint_unit(path, settings, loader=loader).diagnostics)
        assert len(seen) == (3 if i == 0 else 0), seen
    assert [[d.code for d in found] for found in shared] == [["HL101"], [], ["HL101"]]
    assert (checker.FUNCTIONS.hits, checker.FUNCTIONS.replays, checker.FUNCTIONS.revisits) == (2, 2, 0)
    monkeypatch.setattr(checker, "SHARE_FUNCTIONS", False)
    assert [lint_unit(p, settings, loader=loader).diagnostics for p in paths] == shared


@pytest.mark.parametrize("pattern", [checker._TYPE_NAMES, checker._TYPEDEF, checker._ENUM_BODY])
def test_declared_names_are_found_where_words_start_only(pattern: re.Pattern[str]) -> None:
    """`_at_words` finds what the pattern with a `\\b` in front of it finds, from any offset
    (the includer's later declarations that stop a state's sharing)."""
    text = (
        "xstruct A; mystruct B; struct C {}; xclass struct D; _enum {x}; enum E {a, b};\n"
        "typedefs x; typedef int T; \u00fctypedef float U; 9enum F {c}; class\tclass G; enum{d}\n"
        "struct typedef enum H {e}; interface I; namespace N {}"
    )
    bounded = re.compile(r"\b" + pattern.pattern, pattern.flags)
    for start in range(len(text) + 1):
        found = [(m.span(), m.groups()) for m in checker._at_words(pattern, text, start)]
        assert found == [(m.span(), m.groups()) for m in bounded.finditer(text, start)], start


def test_a_states_words_are_its_pieces_words_where_the_pieces_may_be_split() -> None:
    """A state's words are taken from the words of its pieces, split where one file's text
    follows another's and kept for the next state that holds the same piece: exactly
    `code_words` of the whole text, also where a piece leaves a block comment open, ends in a
    string continued by a backslash or holds `/*` in a string (there the piece is not split)."""
    import random

    pieces = [
        "a",
        "B",
        "_",
        "0",
        " ",
        "\n",
        "\n",
        '"',
        "\\",
        "/",
        "*",
        "é",
        "//",
        "/*",
        "*/",
        "int x;\n",
        '"a\\\n b"',
    ]
    rng = random.Random(7)
    table = checker.FunctionFindings()
    for _ in range(3000):
        parts = [
            "".join(rng.choice(pieces) for _ in range(rng.randrange(12))) for _ in range(rng.randrange(1, 5))
        ]
        text = "".join(parts)
        splits = [0]
        for part in parts:
            splits.append(splits[-1] + len(part))
        cut = rng.randrange(len(text) + 1)
        assert table._words_of(text, cut, splits[:-1]) == checker.code_words(text[:cut]), (parts, cut)
    # A piece that ends a line is kept and split off: the next state holding it reads its words.
    header = "struct Light { float3 colour; };\n/* a closed comment */\n"
    table = checker.FunctionFindings()
    assert table._words_of(header + "float4 main();\n", len(header) + 15, [0, len(header)]) == frozenset(
        {"struct", "Light", "float3", "colour", "float4", "main"}
    )
    assert table._pieces[header][1]  # its end is clean
    table._pieces[header] = (frozenset({"taken"}), True)
    assert "taken" in table._words_of(header + "int b;\n", len(header) + 7, [0, len(header)])
    # A piece that leaves `/*` open is not split off (the next piece could close it).
    open_comment = "int a; /* open\n"
    text = open_comment + "b */ int c;\n"
    assert table._words_of(text, len(text), [0, len(open_comment)]) == frozenset({"int", "a", "c"})
