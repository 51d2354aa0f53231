"""Functions seen before (in any unit of the process) are read from a recorded plan: the model
answers exactly as when every definition is walked, and what the unit decides (types, globals,
constants) is looked up in the unit."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlsllint import checker
from hlsllint.config import Settings
from hlsllint.context import AnalysisSettings
from hlsllint.lint import FileLoader, lint_unit
from hlsllint.semantic import Model, build_model
from hlsllint.semantic import plans as plans_module
from hlsllint.semantic.queries import uses_of
from hlsllint.syntax import Node, parse

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures").rglob("*.hlsl"))


def _node(n: Node | None) -> tuple[int, int] | None:
    return None if n is None else n.byte_range


def digest(m: Model) -> list[str]:
    """Everything the model says about functions, symbols, references and uses, with symbols
    numbered by first appearance (identity, not address). The bodies left to resolve late are
    resolved first (`_refs` holds only what was resolved)."""
    m.resolve_every_body()
    names: dict[int, int] = {}

    def sym(s: object) -> str:
        if s is None:
            return "None"
        names.setdefault(id(s), len(names))
        return (
            f"#{names[id(s)]} {s.name} {s.kind} {s.type!r} {_node(s.node)} {_node(s.decl)} "  # type: ignore[attr-defined]
            f"{s.semantic} {s.register} {s.container} {_node(s.init)} {s.direction} "  # type: ignore[attr-defined]
            f"{sorted(s.qualifiers)} {s.function}"  # type: ignore[attr-defined]
        )

    out = [f"struct {k} {t!r}" for k, t in m.structs.items()]
    out += [f"global {k} {sym(s)}" for k, s in m.globals.items()]
    for name, overloads in m.functions.items():
        for f in overloads:
            out.append(
                f"fn {name} {_node(f.node)} {f.return_type!r} {f.return_semantic} {f.attributes} "
                f"{_node(f.body)} {sorted(f.calls)} {[sym(p) for p in f.params]}"
            )
    out += [f"entry {e.name} {e.stage} {e.group_size}" for e in m.entry_points]
    out += [f"ref {r} {sym(m._refs[r])}" for r in sorted(m._refs)]
    for n in m.tree.nodes():
        if n.type == "identifier":
            s = m.resolve(n)
            if s is not None:
                from hlsllint.semantic.queries import uses_of

                out.append(f"uses {sym(s)} {[_node(u) for u in uses_of(m, s)]}")
    return out


def _models(texts: list[str], plans: bool, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    monkeypatch.setattr(plans_module, "USE_PLANS", plans)
    plans_module.PLANS.clear()
    plans_module.STRUCT_PLANS.clear()
    return [digest(build_model(parse(t), AnalysisSettings())) for t in texts]


def test_replayed_models_equal_walked_models_on_the_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [p.read_text() for p in FIXTURES]
    assert len(texts) > 50
    walked = _models(texts, False, monkeypatch)
    # Twice over: the second round replays every function of the first.
    replayed = _models(texts + texts, True, monkeypatch)
    assert len(plans_module.PLANS) > 50
    assert replayed[: len(texts)] == walked
    assert replayed[len(texts) :] == walked


SHARED = """
float shade(Surface s, float k)
{
    Surface t = s;
    float scaled[2] = { t.a * k, Scale };
    { float k = 2; t.a = t.a * k; }
    return helper(t.a) + scaled[1] + k;
}
"""


def test_a_replayed_function_looks_its_types_and_names_up_in_its_own_unit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = (
        "struct Surface { float a; };\nstatic const float Scale = 2;\nfloat helper(float x) { return x; }\n"
    )
    second = "struct Surface { float4 a; };\ncbuffer C { float Scale; };\n"
    texts = [first + SHARED, second + SHARED]
    walked = _models(texts, False, monkeypatch)
    replayed = _models(texts, True, monkeypatch)
    assert replayed == walked
    monkeypatch.setattr(plans_module, "USE_PLANS", True)
    m = build_model(parse(second + SHARED), AnalysisSettings())  # replayed from the plan
    t = next(n for n in m.tree.nodes() if n.type == "identifier" and m.tree.node_text(n) == "t")
    assert str(m.resolve(t).type) == "Surface"  # type: ignore[union-attr]
    assert m.resolve(t).type.member("a").type.name == "float4"  # type: ignore[union-attr]
    scale = [n for n in m.tree.nodes() if n.type == "identifier" and m.tree.node_text(n) == "Scale"]
    assert m.resolve(scale[-1]).kind == "cbuffer_member"  # type: ignore[union-attr]
    helper = [n for n in m.tree.nodes() if n.type == "identifier" and m.tree.node_text(n) == "helper"]
    assert m.resolve(helper[-1]) is None  # no such function in this unit
    shade = m.function("shade")
    assert shade is not None and shade.calls == {"helper"}


HEADER = """
struct Light
{
    float3 color;
    SCALE_MEMBER
    float3 lit(float3 albedo)
    {
        float3 c = color * albedo;
        return c * scale + this.color;
    }
};
"""


def _header_unit(scale_member: bool, main: str) -> str:
    """A unit including HEADER in the state `SCALE_MEMBER` gives it: `float scale;` or nothing
    (then `scale` is the cbuffer's, declared after the include)."""
    text = HEADER.replace("SCALE_MEMBER", "float scale;" if scale_member else "")
    return text + "cbuffer C { float scale; };\n" + main


def _scale_in_lit(m: Model) -> str:
    lit = m.function("Light::lit")
    assert lit is not None and lit.body is not None
    uses = [n for n in m.tree.walk(lit.body) if n.type == "identifier" and m.tree.node_text(n) == "scale"]
    assert len(uses) == 1
    found = m.resolve(uses[0])
    assert found is not None
    return found.kind


def test_a_method_of_a_header_is_read_once_per_state_of_its_struct(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plans_module, "USE_PLANS", True)
    plans_module.PLANS.clear()
    mains = ["float4 a() : SV_Target { return 1; }\n", "float4 b() : SV_Target { return 2; }\n"]
    first = build_model(parse(_header_unit(True, mains[0])), AnalysisSettings())
    before = dict(plans_module.STATS)
    second = build_model(parse(_header_unit(True, mains[1])), AnalysisSettings())
    # The same header in the same state: the method's body is replayed, `b`'s walked.
    assert plans_module.STATS["replayed"] - before["replayed"] == 1
    assert plans_module.STATS["walked"] - before["walked"] == 1
    assert _scale_in_lit(first) == _scale_in_lit(second) == "member"
    # Another state: the struct has no `scale`, so the method's `scale` is the cbuffer's; the
    # method's text is the same, its steps are not replayed.
    before = dict(plans_module.STATS)
    other = build_model(parse(_header_unit(False, mains[0])), AnalysisSettings())
    assert plans_module.STATS["walked"] - before["walked"] == 1  # Light::lit (`a` is replayed)
    assert _scale_in_lit(other) == "cbuffer_member"
    texts = [_header_unit(s, m) for s in (True, False, True, False) for m in mains]
    assert _models(texts, True, monkeypatch) == _models(texts, False, monkeypatch)


SURFACE = """
struct Surface
{
    Light light;
    float3 normal : NORMAL;
};
"""


def test_a_struct_of_a_header_is_read_once_per_state_of_its_fields_types(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`Surface`'s text is the same in every state; what `Light` is, a macro of the includer
    decides (here: the text before it). The same state replays `Surface`; another one reads it
    anew, and its member `light` has that state's members."""
    monkeypatch.setattr(plans_module, "USE_PLANS", True)
    plans_module.STRUCT_PLANS.clear()
    rgb = "struct Light { float3 color; };\n"
    mono = "struct Light { float intensity; uint mask; };\n"
    stats = plans_module.STRUCT_STATS
    first = build_model(parse(rgb + SURFACE), AnalysisSettings())
    before = dict(stats)
    second = build_model(parse(rgb + SURFACE + "float f() { return 1; }\n"), AnalysisSettings())
    assert stats["replayed"] - before["replayed"] == 2  # Light and Surface
    assert stats["walked"] == before["walked"]
    assert repr(second.structs["Surface"]) == repr(first.structs["Surface"])
    before = dict(stats)
    other = build_model(parse(mono + SURFACE), AnalysisSettings())
    assert stats["walked"] - before["walked"] == 2  # another Light, so another Surface
    light = other.structs["Surface"].member("light")
    assert light is not None
    assert [m.name for m in light.type.members] == ["intensity", "mask"]
    sized = "static const uint N = 4;\nstruct Taps { float w[N]; };\n"
    texts = [rgb + SURFACE, mono + SURFACE, rgb + SURFACE, sized, sized.replace("4", "8")]
    assert _models(texts, True, monkeypatch) == _models(texts, False, monkeypatch)
    walked = build_model(parse(sized.replace("4", "8")), AnalysisSettings())
    taps = walked.structs["Taps"].member("w")
    assert taps is not None and taps.type.length == 8


LATE_HEADER = """
static float Scale = 2;
cbuffer C { float Bias; };
float helper_unused(float x)
{
    float y = x * Scale;
    return y + Bias;
}
float helper_used(float x)
{
    float z = x + Scale;
    return z;
}
"""


def _unit(main: str) -> Model:
    return build_model(parse(LATE_HEADER + main), AnalysisSettings())


def _identifier(m: Model, function: str, name: str) -> Node:
    f = m.function(function)
    assert f is not None and f.body is not None
    found = [n for n in m.tree.walk(f.body) if n.type == "identifier" and m.tree.node_text(n) == name]
    return found[0]


def test_a_header_body_is_resolved_when_something_asks_about_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A body replayed from a plan (a shared header's function met before in the process) is
    resolved only when something asks about it (`plans.LATE_BODIES`)."""
    monkeypatch.setattr(plans_module, "LATE_BODIES", True)
    plans_module.PLANS.clear()
    _unit("float4 a() : SV_Target { return helper_used(1); }\n")
    before = dict(plans_module.STATS)
    second = _unit("float4 b() : SV_Target { return helper_used(2); }\n")
    # Both header bodies were seen before: neither is resolved with the model; `b` is new.
    assert plans_module.STATS["late"] - before["late"] == 2
    assert plans_module.STATS["walked"] - before["walked"] == 1
    assert plans_module.STATS["resolved_late"] == before["resolved_late"]
    # What they call is known at once (the entry points are found from it).
    assert [e.name for e in second.entry_points] == ["b"]
    # Asking about a name of one body resolves that body only.
    y = second.resolve(_identifier(second, "helper_unused", "y"))
    assert y is not None and y.kind == "local"
    assert plans_module.STATS["resolved_late"] - before["resolved_late"] == 1
    # The uses of a global are every body's that names it, in the functions' order.
    scale = second.globals["Scale"]
    uses = [second.tree.node_text(n.parent) for n in uses_of(second, scale) if n.parent is not None]
    assert uses == ["x * Scale", "x + Scale"]
    assert plans_module.STATS["resolved_late"] - before["resolved_late"] == 2
    eager = digest(_eager("float4 b() : SV_Target { return helper_used(2); }\n", monkeypatch))
    assert digest(second) == eager


def _eager(main: str, monkeypatch: pytest.MonkeyPatch) -> Model:
    with monkeypatch.context() as m:
        m.setattr(plans_module, "LATE_BODIES", False)
        return _unit(main)


def _asked_backwards(m: Model) -> list[str]:
    """Ask the model about every identifier from the last to the first (the late bodies are
    resolved one by one, out of order), then about every symbol's uses, then its digest."""
    names = [n for n in m.tree.nodes() if n.type == "identifier"]
    for n in reversed(names):
        m.resolve(n)
    asked: list[str] = []
    for n in names:
        s = m.resolve(n)
        if s is not None:
            asked.append(f"{s.name} {s.kind} {[u.byte_range for u in uses_of(m, s)]}")
    return asked + digest(m)


LOCAL_STRUCT = """
struct Foo { float a; };
float f(float x) { Foo v; v.a = x; return v.a; }
float g(float x) { struct Foo { float b; float c; }; Foo w; w.b = x; return w.b; }
float h(float x) { Foo u; u.a = x; return u.a; }
float4 main() : SV_Target { return f(1) + g(2) + h(3); }
"""
"""A body defines a struct that a body before it names: that one is resolved with the model."""


def test_late_models_answer_as_eager_ones_in_any_order(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [p.read_text() for p in FIXTURES] + [LOCAL_STRUCT]
    monkeypatch.setattr(plans_module, "LATE_BODIES", False)
    plans_module.PLANS.clear()
    eager = [_asked_backwards(build_model(parse(t), AnalysisSettings())) for t in texts]
    plans_module.PLANS.clear()
    monkeypatch.setattr(plans_module, "LATE_BODIES", True)
    before = plans_module.STATS["late"]
    # Twice over: the second round leaves every body replayed from a plan to resolve late.
    late = [_asked_backwards(build_model(parse(t), AnalysisSettings())) for t in texts + texts]
    assert plans_module.STATS["late"] - before > 100
    assert late[: len(texts)] == eager
    assert late[len(texts) :] == eager


def test_findings_are_the_same_with_bodies_resolved_late(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every rule over the bad fixtures, each including a shared header and linted twice (the
    second time every body is replayed), with the bodies resolved late or with the model."""
    bad = [p for p in FIXTURES if p.name.startswith("bad_")]
    mains = {f"m{i}.hlsl": '#include "common.hlsli"\n' + p.read_text() for i, p in enumerate(bad)}
    loader = FileLoader({"common.hlsli": LATE_HEADER, **mains})
    settings = Settings(select=("HL",))

    def lint() -> list[list[object]]:
        plans_module.PLANS.clear()
        checker.FUNCTIONS.clear()
        return [list(lint_unit(p, settings, loader=loader).diagnostics) for p in [*mains, *mains]]

    monkeypatch.setattr(plans_module, "LATE_BODIES", False)
    eager = lint()
    monkeypatch.setattr(plans_module, "LATE_BODIES", True)
    before = plans_module.STATS["late"]
    late = lint()
    assert plans_module.STATS["late"] - before > 100
    assert late == eager
    assert sum(len(found) for found in eager) > 50
