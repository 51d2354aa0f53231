"""Intrinsics the compiler expands into a polynomial hold temporaries while they compute
(navi21 wave64, regtruth presched_vgprs)."""

from __future__ import annotations

import pytest
from conftest import demand


def one_op(expr: str) -> str:
    return f"""
RWStructuredBuffer<float> b : register(u0);
RWStructuredBuffer<float4> o : register(u1);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{{
    float4 k = o[id.x + 100];
    float4 k2 = o[id.x + 200];
    float4 k3 = o[id.x + 300];
    float x = b[id.x];
    float y = b[id.x + 64];
    float r = {expr};
    o[id.x] = k * r + k2 * k3;
}}
"""


@pytest.mark.parametrize(
    ("expr", "truth"),
    [("x * y", 15), ("atan2(y, x)", 23), ("atan(x)", 21), ("tanh(x)", 18), ("asin(x)", 17), ("acos(x)", 16)],
)
def test_an_expanded_intrinsic_holds_temporaries_on_top_of_what_is_live(expr: str, truth: int) -> None:
    # regtruth presched_vgprs with 12 VGPRs of float4s live across the call: `*` 15, `atan2` 23,
    # `atan` 21, `tanh` 18, `asin` 17, `acos` 16 (all were estimated 16-17 before).
    d = demand(one_op(expr))
    assert truth - 1 <= d.max_live_vgprs <= truth + 2


MOTION_DEBUG = """
Texture2D t0 : register(t0);
Texture2D t1 : register(t1);
SamplerState s0 : register(s0);
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{
    float4 c = t0.SampleLevel(s0, uv, 0);
    float2 v = t1.SampleLevel(s0, uv, 0).xy * 20.0f;
    float angle = atan2(v.y, v.x);
    float hue = (angle * 0.3183f + 1.0f) * 0.5f;
    float4 k = saturate(float4(abs(hue * 6.0f - 3.0f) - 1.0f, 2.0f - abs(hue * 6.0f - 4.0f),
                               2.0f - abs(hue * 6.0f - 2.0f), length(v)));
    return float4(lerp(c.rgb, k.rgb, k.a * 0.6f), c.a);
}
"""


def test_a_vector_shown_as_a_hue_pays_for_atan2() -> None:
    # regtruth: presched_vgprs 15 (9 with `v.y * v.x` for the angle); estimated 9 before.
    d = demand(MOTION_DEBUG)
    assert 13 <= d.max_live_vgprs <= 17
