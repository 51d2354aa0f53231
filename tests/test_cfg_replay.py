"""Inlined bodies replayed from a template lower exactly as when each body is walked from its
syntax: across call paths, at different inlining depths, and whatever the call site's last
instruction is."""

from __future__ import annotations

from typing import Any

import pytest

from hlsllint.analysis import build_cfg, lowering_inline
from hlsllint.context import AnalysisSettings
from hlsllint.semantic import Model, build_model
from hlsllint.syntax import parse


def model(text: str) -> Model:
    return build_model(parse(text), AnalysisSettings())


def describe(cfg: Any) -> list[Any]:
    """Everything a CFG holds, objects named by number."""
    out: list[Any] = [list(cfg.graph.nodes), list(cfg.graph.edges), cfg.exit, sorted(cfg.unreachable)]
    for v in cfg.values:
        parts = [p.id for p in v.parts] if v.parts is not None else None
        sym = v.symbol.name if v.symbol is not None else None
        out.append((v.id, v.name, v.width, v.kind, str(v.type), sym, v.reg_class, parts))
    index: dict[int, int] = {}
    for b in cfg.graph.nodes:
        for ins in cfg.instrs(b):
            index[id(ins)] = len(index)
            dest = ins.dest.id if ins.dest is not None else None
            reads = [r.id for r in ins.reads]
            out.append((b, ins.block, ins.op, dest, reads, ins.span, ins.rule, ins.detail, ins in cfg.dead))

    def what(x: Any) -> Any:
        if x is None:
            return None
        return ("I", index.get(id(x))) if hasattr(x, "op") else ("V", x.id)

    out.append([(span, [what(x) for x in xs]) for span, xs in cfg.expr.items()])
    loops = cfg.loops
    out.append(
        [(lp.span, lp.kind, lp.header, sorted(lp.blocks), lp.attributes, lp.trip_count) for lp in loops]
    )
    out.append(cfg.truncated)
    return out


def replayed_and_walked(m: Model) -> tuple[int, list[Any], list[Any]]:
    """(number of bodies replayed, the CFG with replays, the CFG with every body walked)."""
    fast = build_cfg(m, m.entry_points[0])
    slow = build_cfg(m, m.entry_points[0], replay=False)
    assert slow.replayed == 0
    return fast.replayed, describe(fast), describe(slow)


def test_a_body_is_replayed_on_another_call_path_with_other_variables() -> None:
    src = """
Texture2D<float4> t; SamplerState s;
float4 shade(float2 uv, float w) { uv *= w; float4 c = t.Sample(s, uv); if (c.a > w) { c *= w; } return c; }
float4 near(float2 uv, float w) { return shade(uv, w) * 2; }
float4 far(float2 uv, float w) { float2 q = uv * 3; return shade(q, w); }
float4 main(float2 uv : TEXCOORD0, float w : TEXCOORD1) : SV_Target {
    float2 other = uv.yx;
    return near(uv, w) + far(other, w) + shade(other, w);
}"""
    n, fast, slow = replayed_and_walked(model(src))
    # shade under far and under main replay its lowering under near (`uv` is written: each call
    # copies its argument; one only read would be the caller's own value, of another shape)
    assert n >= 2
    assert fast == slow


def test_replays_respect_the_inlining_depth_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    src = """
float leaf(float x) { return x * x + 1; }
float mid(float x) { return leaf(x) * 2; }
float top(float x) { return mid(x) + leaf(x); }
float4 main(float x : TEXCOORD0) : SV_Target {
    float a = leaf(x);
    float b = mid(x);
    float c = top(x);
    return float4(a, b, c, mid(c));
}"""
    m = model(src)
    counts = set()
    for limit in range(0, 5):
        monkeypatch.setattr(lowering_inline, "MAX_INLINE_DEPTH", limit)
        n, fast, slow = replayed_and_walked(m)
        counts.add(n)
        assert fast == slow, limit
    assert max(counts) > 0


def test_replays_see_whether_the_call_site_just_computed_an_argument() -> None:
    """`float y = x;` renames the instruction that computed x when it is the block's last (a call
    `f(a * b, k)`), and copies otherwise (`f(a * b, k = 2)` writes k after)."""
    src = """
float f(float x, float z) { float y = x; return y * z; }
float4 main(float a : TEXCOORD0, float b : TEXCOORD1) : SV_Target {
    float k = b;
    float first = f(a * b, k = 2);
    float second = f(a * b, k);
    float third = f(a * b, k = 3);
    return float4(first, second, third, k);
}"""
    n, fast, slow = replayed_and_walked(model(src))
    assert n == 1  # the third call replays the first; the second is lowered from its syntax
    assert fast == slow


def test_recursion_is_not_replayed_into_a_path_that_cuts_it() -> None:
    src = """
float g(float x);
float f(float x) { return x > 0 ? g(x - 1) : x; }
float g(float x) { return f(x) * 2; }
float h(float x) { return x + 1; }
float4 main(float x : TEXCOORD0) : SV_Target {
    return float4(h(x * 2), h(x * 2), f(x), g(x));
}"""
    n, fast, slow = replayed_and_walked(model(src))
    assert n == 1  # the second h; after the recursion nothing is replayed
    assert fast == slow
