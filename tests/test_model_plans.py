"""Functions seen before (in any unit of the process) are read from a recorded plan: the model
answers exactly as when every definition is walked, and what the unit decides (types, globals,
constants) is looked up in the unit."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlsllint.context import AnalysisSettings
from hlsllint.semantic import Model, build_model
from hlsllint.semantic import plans as plans_module
from hlsllint.syntax import Node, parse

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures").rglob("*.hlsl"))


def _node(n: Node | None) -> tuple[int, int] | None:
    return None if n is None else n.byte_range


def digest(m: Model) -> list[str]:
    """Everything the model says about functions, symbols, references and uses, with symbols
    numbered by first appearance (identity, not address). Bodies left for later are resolved
    first."""
    m.resolve_all()
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
    second.resolve_all()  # the replayed body waits until asked
    # The same header in the same state: the method's body is replayed, `b`'s walked.
    assert plans_module.STATS["replayed"] - before["replayed"] == 1
    assert plans_module.STATS["walked"] - before["walked"] == 1
    assert _scale_in_lit(first) == _scale_in_lit(second) == "member"
    # Another state: the struct has no `scale`, so the method's `scale` is the cbuffer's; the
    # method's text is the same, its steps are not replayed.
    before = dict(plans_module.STATS)
    other = build_model(parse(_header_unit(False, mains[0])), AnalysisSettings())
    other.resolve_all()
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


LATER_HEADER = """
cbuffer Frame { float Exposure; float Gamma; };
float tone(float x) { float y = x * Exposure; return pow(y, Gamma); }
float grade(float x) { float k = tone(x) + Exposure; return k * k; }
struct Ray { float3 dir; float t;
    float3 at(float s) { return dir * s * t + Exposure; } };
float lut(float x) { float taps[3] = { x, x * 2, Exposure }; return taps[1]; }
float widen(float x) { int n = 2; vector<float, n> v = x; return v.y * Gamma; }
"""


def _scrambled(m: Model) -> list[str]:
    """`digest` of a model asked in an order of its own first: the uses of its globals, the last
    first, then every identifier from the end of the text back."""
    from hlsllint.semantic.queries import uses_of

    for s in reversed(list(m.globals.values())):
        uses_of(m, s)
    for n in reversed(m.tree.nodes()):
        if n.type == "identifier":
            m.resolve(n)
    return digest(m)


def _lazy_and_eager(
    texts: list[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[list[list[str]], list[list[str]]]:
    from hlsllint.semantic import scopes

    out: list[list[list[str]]] = []
    for defer in (True, False):
        monkeypatch.setattr(scopes, "DEFER_BODIES", defer)
        monkeypatch.setattr(plans_module, "USE_PLANS", True)
        plans_module.PLANS.clear()
        plans_module.STRUCT_PLANS.clear()
        out.append([_scrambled(build_model(parse(t), AnalysisSettings())) for t in texts])
    return out[0], out[1]


def test_a_replayed_body_waits_until_asked_and_answers_as_resolved_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A header function's body read from its plan is resolved when something asks about it: an
    identifier in it, or the uses of a name it mentions. Its calls are known at once (entry
    points need them), a body that declares an array (a size the model may report as a problem)
    is resolved at once, and every answer is the one of a model that resolved every body."""
    from hlsllint.semantic import scopes
    from hlsllint.semantic.queries import uses_of

    monkeypatch.setattr(scopes, "DEFER_BODIES", True)
    monkeypatch.setattr(plans_module, "USE_PLANS", True)
    plans_module.PLANS.clear()
    main = "float4 ps(float4 p : SV_Position) : SV_Target { return grade(p.x) + Ray::at(p.y); }\n"
    build_model(parse(LATER_HEADER + main), AnalysisSettings())
    before = dict(plans_module.STATS)
    m = build_model(parse(LATER_HEADER + main.replace("p.x", "p.z")), AnalysisSettings())
    # tone, grade, widen and Ray::at wait; lut (an array) and ps (its text differs) do not
    assert plans_module.STATS["deferred"] - before["deferred"] == 4
    assert plans_module.STATS["later"] == before["later"]
    grade = m.function("grade")
    assert grade is not None and grade.calls == {"tone"}
    assert [e.name for e in m.entry_points] == ["ps"]
    # the uses of `Exposure`: the bodies mentioning it are resolved, in the order of the functions
    exposure = m.globals["Exposure"]
    bodies = [
        (f.body.start_byte, f.body.end_byte, f.name) for fs in m.functions.values() for f in fs if f.body
    ]
    used_in = [next(n for s, e, n in bodies if s <= u.start_byte < e) for u in uses_of(m, exposure)]
    assert plans_module.STATS["later"] - before["later"] == 3
    assert used_in == ["tone", "grade", "lut", "Ray::at"]  # the order of `m.functions` (methods last)
    # an identifier in a body resolves it (here, already resolved through `Exposure`)
    y = [n for n in m.tree.nodes() if n.type == "identifier" and m.tree.node_text(n) == "y"]
    assert m.resolve(y[-1]) is not None and m.resolve(y[-1]).kind == "local"  # type: ignore[union-attr]
    # a type in a body resolved later reads as it does while the model is built (`n`, a local
    # in a type, is no constant: `v` is a float4)
    v = [n for n in m.tree.nodes() if n.type == "identifier" and m.tree.node_text(n) == "v"]
    assert str(m.resolve(v[-1]).type) == "float4"  # type: ignore[union-attr]
    assert plans_module.STATS["later"] - before["later"] == 4
    texts = [LATER_HEADER + main, LATER_HEADER + main.replace("p.x", "p.z"), LATER_HEADER + main]
    lazy, eager = _lazy_and_eager(texts, monkeypatch)
    assert lazy == eager


def test_bodies_waiting_answer_as_resolved_at_once_on_the_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [p.read_text() for p in FIXTURES]
    before = plans_module.STATS["deferred"]
    lazy, eager = _lazy_and_eager(texts + texts, monkeypatch)
    assert plans_module.STATS["deferred"] - before > 50  # the second round's bodies waited
    assert lazy == eager


def test_no_body_waits_in_a_unit_where_a_body_defines_a_struct(monkeypatch: pytest.MonkeyPatch) -> None:
    """A body that defines a struct adds it to the unit's structs when it is resolved: a body
    before it sees the struct it names as it was before (`w` holds the global `L`), so none waits."""
    header = (
        "struct L { float4 a; };\n"
        "float g(L v) { L w = v; return w.a.x; }\n"
        "float f() { struct L { float a; }; L l; l.a = 1; return l.a; }\n"
    )
    mains = ["float4 ps() : SV_Target { return g((L)0); }\n", "float4 ps() : SV_Target { return f(); }\n"]
    texts = [header + mains[0], header + mains[1]]
    before = plans_module.STATS["deferred"]
    lazy, eager = _lazy_and_eager(texts, monkeypatch)
    assert plans_module.STATS["deferred"] == before
    assert lazy == eager
