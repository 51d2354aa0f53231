"""The CFG lowering of a header's functions shared across the units of a process
(hlsllint/analysis/lowering_share.py): a unit replays the bodies an earlier unit lowered when
it reads the header in the same state, and every CFG is the one its own lowering builds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_lowering_reuse import _shape

from hlsllint import checker
from hlsllint.analysis import lowering_share
from hlsllint.analysis.cfg import build_cfg
from hlsllint.analysis.ir import CFG
from hlsllint.config import Settings
from hlsllint.context import RuleContext
from hlsllint.lint import FileLoader, front_end, lint_unit
from hlsllint.rule import Rule
from hlsllint.semantic.model import Model
from hlsllint.syntax import Node

HEADER = """\
#ifndef SCALE
#define SCALE 2.0
#endif
cbuffer Frame : register(b0)
{
    float4 Tint;
    float4 Offsets[4];
    float Time;
};
struct Item { float4 a; float4 b; };
StructuredBuffer<Item> Items : register(t0);
Texture2D<float4> Albedo : register(t1);
SamplerState Linear : register(s0);
static float Gain;

struct Light
{
    float3 dir;
    float power;
    float lit(float3 n) { return saturate(dot(n, dir)) * power; }
};

float wave(float x)
{
    return sin(x * Time) * Gain * SCALE;
}

float4 taps(float2 uv, int n)
{
    float4 acc = 0;
    [unroll] for (int j = 0; j < 4; ++j)
        acc += Albedo.Sample(Linear, uv + Offsets[j].xy) * wave(float(j + n));
    return acc * Tint;
}

float4 item(uint i)
{
    Item it = Items[i];
    return it.a * it.b.x;
}

RWTexture2D<float> Stored : register(u1);
void put(uint2 p, float v)
{
    Stored[p] = v * Time;
}

float3 shade(float3 n, float2 uv, uint i)
{
    Light l;
    l.dir = normalize(float3(uv, 1.0));
    l.power = Time;
    return (taps(uv, 1) + item(i)).xyz * l.lit(n) + taps(uv * 2.0, 1).xyz;
}
"""

PIXEL = """\
{before}
#include "common.hlsli"
float4 main_ps(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{{
    Gain = pos.z;
    float3 c = shade(normalize(pos.xyz), uv, uint(pos.x));
    put(uint2(pos.xy), c.x);
    return float4(c + taps(uv, 3).xyz, 1.0);
}}
"""

COMPUTE = """\
{before}
#include "common.hlsli"
RWTexture2D<float4> Out : register(u0);
[numthreads(8, 8, 1)]
void main_cs(uint3 id : SV_DispatchThreadID)
{{
    Gain = 1.0;
    Out[id.xy] = float4(shade(float3(0, 0, 1), float2(id.xy), id.x), 1.0) + taps(float2(id.xy), 1);
}}
"""


class _Local(Rule):
    """A function-local rule: the checker keys the header's functions for it."""

    code = "HL998"
    name = "test-local"
    summary = rationale = bad_example = good_example = ""
    node_kinds = frozenset({"number_literal"})
    function_local = True

    def visit(self, ctx: RuleContext, node: Node) -> None:
        pass


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    checker.FUNCTIONS.clear()
    yield
    checker.FUNCTIONS.clear()


def _unit(loader: FileLoader, path: str) -> Model:
    pp, tree = front_end(loader(path), Settings(), None, loader)
    ctx = RuleContext(pp=pp, tree=tree)
    assert checker.run_rules(ctx, [_Local()], path) == []
    return ctx.model


def _cfgs(model: Model) -> tuple[dict[str, CFG], int]:
    """Every entry point's CFG as the unit's lowering builds it, and how many bodies it took
    from earlier units; checked against the CFGs it builds on its own."""
    before = checker.FUNCTIONS.lowering.taken
    cfgs = {e.name: build_cfg(model, e) for e in model.entry_points}
    taken = checker.FUNCTIONS.lowering.taken - before
    share = model.memo.pop("lowering.share", None)
    for e in model.entry_points:
        assert _shape(cfgs[e.name]) == _shape(build_cfg(model, e)), e.name
    if share is not None:
        model.memo["lowering.share"] = share
    return cfgs, taken


def _files(**units: str) -> FileLoader:
    files = {"common.hlsli": HEADER}
    for name, (kind, before) in ((n, u.split("|", 1)) for n, u in units.items()):
        files[f"{name}.hlsl"] = (PIXEL if kind == "ps" else COMPUTE).format(before=before)
    return FileLoader(files)


def test_a_unit_replays_the_header_bodies_an_earlier_unit_lowered() -> None:
    # another comment before the header: the same text, further on (spans move)
    loader = _files(a="ps|// a", b="ps|// b: a longer comment before the header", c="cs|")
    _, taken = _cfgs(_unit(loader, "a.hlsl"))
    assert taken == 0
    stored = checker.FUNCTIONS.lowering.stored
    assert stored >= 3  # shade, taps (two shapes of its constant), wave, Light::lit
    _, taken = _cfgs(_unit(loader, "b.hlsl"))
    assert taken >= 2  # shade (with what it inlines) and taps(uv, 3)
    _, taken = _cfgs(_unit(loader, "c.hlsl"))  # another stage, no leading text
    assert taken >= 1
    assert checker.FUNCTIONS.lowering.taken > 0


def test_a_body_that_notes_what_later_lowering_reads_is_not_shared() -> None:
    # `item` copies a struct of memory (its member loads are noted for later reads): lowered in
    # every unit, as is `shade`, which inlines it; `put`'s store of a float texel names the value
    # it stores (`splat`), a value of the lowering that made it
    loader = _files(a="ps|", b="ps|// b")
    assert _cfgs(_unit(loader, "a.hlsl"))[1] == 0
    kept = checker.FUNCTIONS.lowering._found
    names = {k[0][1] for k, v in kept.items() if v is not None}
    model = _unit(loader, "b.hlsl")
    share = model.memo["lowering.share"]
    by_name = {f.name: share.keys.get(f.body.id) for fs in model.functions.values() for f in fs if f.body}
    assert by_name["item"] is not None and by_name["item"][1] not in names
    assert by_name["shade"] is not None and by_name["shade"][1] not in names
    assert by_name["put"] is not None and by_name["put"][1] not in names
    assert by_name["taps"] is not None and by_name["taps"][1] in names
    _cfgs(model)


def test_another_state_of_the_header_or_a_later_declaration_it_reads_takes_nothing() -> None:
    loader = _files(a="ps|", b="ps|#define SCALE 3.0", c="ps|")
    _cfgs(_unit(loader, "a.hlsl"))
    _, taken = _cfgs(_unit(loader, "b.hlsl"))  # the header's text differs
    assert taken == 0
    files = {
        "common.hlsli": HEADER,
        "a.hlsl": PIXEL.format(before=""),
        # an overload of a name the header spells, declared after it: it may change what the
        # header's calls resolve to
        "d.hlsl": PIXEL.format(before="") + "float wave(int x) { return x; }\n",
    }
    loader = FileLoader(files)
    checker.FUNCTIONS.clear()
    _cfgs(_unit(loader, "a.hlsl"))
    model = _unit(loader, "d.hlsl")
    assert "lowering.share" not in model.memo or not model.memo["lowering.share"].keys
    _, taken = _cfgs(model)
    assert taken == 0


def test_findings_and_estimates_are_the_same_shared_or_not(monkeypatch: pytest.MonkeyPatch) -> None:
    loader = _files(a="ps|// a", b="cs|// bb", c="ps|#define SCALE 1.0", d="ps|")
    settings = Settings(select=("HL",))
    paths = ["a.hlsl", "b.hlsl", "c.hlsl", "d.hlsl", "a.hlsl"]
    shared = [lint_unit(p, settings, loader=loader).diagnostics for p in paths]
    assert checker.FUNCTIONS.lowering.taken > 0
    checker.FUNCTIONS.clear()
    monkeypatch.setattr(lowering_share, "SHARE_LOWERING", False)
    alone = [lint_unit(p, settings, loader=loader).diagnostics for p in paths]
    assert checker.FUNCTIONS.lowering.taken == 0
    assert shared == alone
