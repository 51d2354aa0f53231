"""Wave-uniform floating-point values are in VGPRs (the targets modelled have no scalar
floating-point ALU), and compile-time constants are folded (navi21 wave64, regtruth
presched_vgprs)."""

from __future__ import annotations

from conftest import demand

INT_ARITHMETIC = """
cbuffer C : register(b0) { int4 a; int4 b; uint n; };
RWStructuredBuffer<int4> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint id : SV_DispatchThreadID)
{
    int4 s = a * b + a.yzwx;
    int4 t = (b - a) * 3 + b.wzyx * a.x;
    int4 acc = 0;
    for (uint i = id; i < n; i += 64) acc += o[i] * s + t;
    o[id] = acc + s * t;
}
"""

FLOAT_ARITHMETIC = (
    INT_ARITHMETIC.replace("int4 a; int4 b;", "float4 a; float4 b;")
    .replace("int4 s", "float4 s")
    .replace("int4 t", "float4 t")
    .replace("int4 acc", "float4 acc")
    .replace("RWStructuredBuffer<int4>", "RWStructuredBuffer<float4>")
)


def test_uniform_float_arithmetic_is_held_in_vgprs() -> None:
    # s and t are the same in every lane. As integers the scalar ALU computes them and they wait
    # in SGPRs through the loop (regtruth: presched_vgprs 10); as floats only the vector ALU can,
    # so they take 8 VGPRs (regtruth: presched_vgprs 18). Counted as SGPRs: 10.
    assert demand(INT_ARITHMETIC).max_live_vgprs <= 12
    assert 15 <= demand(FLOAT_ARITHMETIC).max_live_vgprs <= 21


def test_conversions_of_uniform_integers_are_held_in_vgprs() -> None:
    # float4(a) of a cbuffer int4 is a vector conversion. regtruth: presched_vgprs 18 (12 SGPRs).
    # Counted as SGPRs: 10.
    d = demand(
        """
cbuffer C : register(b0) { int4 a; int4 b; uint n; };
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint id : SV_DispatchThreadID)
{
    float4 s = float4(a);
    float4 t = float4(b);
    float4 acc = 0;
    for (uint i = id; i < n; i += 64) acc += o[i] * s + t;
    o[id] = acc;
}
"""
    )
    assert 15 <= d.max_live_vgprs <= 21


def test_conversions_of_texture_sizes_are_held_in_vgprs() -> None:
    # GetDimensions gives uniform integers (SGPRs); the rectangle computed from them in floating
    # point lives in VGPRs. regtruth: presched_vgprs 12; counted as SGPRs: 9.
    d = demand(
        """
Texture2D<float4> tex : register(t0);
RWTexture2D<float4> outT : register(u0);
cbuffer C : register(b0) { float4 rect; };
[numthreads(8, 8, 1)]
void main(uint2 id : SV_DispatchThreadID)
{
    uint w, h;
    tex.GetDimensions(w, h);
    float2 size = float2(w, h);
    float2 lo = rect.xy * size;
    float2 hi = rect.zw * size;
    float2 p = float2(id) + 0.5;
    float4 c = tex.Load(int3((p - lo) / (hi - lo) * size, 0));
    outT[id] = c * float4(lo - p, hi - p);
}
"""
    )
    assert 11 <= d.max_live_vgprs <= 13


def test_intrinsics_of_constants_are_folded() -> None:
    # exp, sqrt, sin, lerp and max of literals are compile-time constants: the compiler folds them
    # into the instructions that read them. regtruth: presched_vgprs 10, presched_sgprs 13.
    # Left uniform values: 8 more VGPRs (or, before, 8 more SGPRs).
    d = demand(
        """
cbuffer C : register(b0) { uint n; };
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint id : SV_DispatchThreadID)
{
    float k0 = exp(-0.5);
    float k1 = sqrt(2.0);
    float k2 = sin(0.3);
    float k3 = lerp(1.0, 3.0, 0.25);
    float4 k = float4(k0, k1, k2, k3) * max(k0, 0.1);
    float4 acc = 0;
    for (uint i = id; i < n; i += 64) acc += o[i] * k + float4(k3, k2, k1, k0);
    o[id] = acc;
}
"""
    )
    assert 8 <= d.max_live_vgprs <= 12
    assert not {v.name for v in d.peak_values} & {"k", "k0", "k1", "k2", "k3"}


def test_intrinsics_over_a_kept_loops_counter_are_not_folded() -> None:
    # A loop with a run-time trip count is kept: its counter and the min/max accumulators over
    # intrinsics of it look constant to the constant analysis (every definition reads literals
    # and itself), but they change every iteration. regtruth: presched_vgprs 30 (six float4
    # accumulators, uniform floats in VGPRs). Folded, they were 5 (SpartanEngine's BC1/BC3
    # compressors fell from ~160 VGPRs to 8 and lost their HL201 finding).
    d = demand(
        """
cbuffer C : register(b0) { uint n; };
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint id : SV_DispatchThreadID)
{
    float4 a0 = -1, a1 = -1, a2 = -1, a3 = 2, a4 = 2, a5 = 2;
    for (uint i = 0; i < n; ++i) {
        float fi = float(i);
        a0 = max(a0, sin(fi * float4(1, 2, 3, 4)));
        a1 = max(a1, cos(fi * float4(5, 6, 7, 8)));
        a2 = max(a2, sin(fi * float4(9, 10, 11, 12)));
        a3 = min(a3, cos(fi * float4(13, 14, 15, 16)));
        a4 = min(a4, sin(fi * float4(17, 18, 19, 20)));
        a5 = min(a5, cos(fi * float4(21, 22, 23, 24)));
    }
    float4 p = o[id];
    o[id] = p * a0 + a1 * a2 + a3 * a4 + a5;
}
"""
    )
    assert 26 <= d.max_live_vgprs <= 34


def test_values_carried_around_a_kept_loop_are_not_folded() -> None:
    # Recurrences in a loop with a run-time trip count: `w = 1` before the loop, then
    # `w = w * 0.5 + i * k` in it. Every definition reads only literals, the counter and the
    # value itself, so the constant analysis took them for constants; but each changes every
    # iteration, and so does any ALU chain over the counter. regtruth: presched_vgprs 34 (six
    # float4 recurrences, uniform floats in VGPRs); folded, they were 10 (SpartanEngine's BC1/BC3
    # compressors, whose searches are such chains: ~111 against regtruth 220).
    d = demand(
        """
cbuffer C : register(b0) { uint n; };
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint id : SV_DispatchThreadID)
{
    float4 p = o[id];
    float4 acc = 0;
    float4 w0 = 1, w1 = 2, w2 = 3, w3 = 4, w4 = 5, w5 = 6;
    for (uint i = 0; i < n; ++i) {
        float fi = float(i);
        w0 = w0 * 0.5 + fi * float4(1, 2, 3, 4);
        w1 = w1 * 0.75 + fi * float4(5, 6, 7, 8);
        w2 = w2 * 0.25 - fi * float4(9, 10, 11, 12);
        w3 = w3 * 1.5 + float4(13, 14, 15, 16);
        w4 = w4 * 0.125 - float4(17, 18, 19, 20);
        w5 = w5 * 0.625 + fi;
        acc += p * w0 + w1 * w2;
    }
    o[id] = acc + w3 * w4 + w5;
}
"""
    )
    assert 30 <= d.max_live_vgprs <= 38
    assert {"w0", "w1", "w2", "w3", "w4", "w5"} <= {v.name for v in d.peak_values}


def test_a_value_reset_to_a_literal_in_a_kept_loop_stays_folded() -> None:
    # `x = float4(5, 6, 7, 8)` in the loop's body holds those literals whatever the iteration:
    # only a value computed from others in the loop and set before it is carried, and the
    # multiply takes x's components as literals (regtruth: presched_vgprs 5, p and id).
    d = demand(
        """
cbuffer C : register(b0) { uint n; };
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint id : SV_DispatchThreadID)
{
    float4 p = o[id];
    float4 x = 0;
    for (uint i = 0; i < n; ++i) { x = float4(5, 6, 7, 8); p = p * x + 1; }
    o[id] = p + x;
}
"""
    )
    assert 4 <= d.max_live_vgprs <= 6
    assert "x" not in {v.name for v in d.peak_values}


METHOD_RESULT_IN_A_PER_LANE_BRANCH = """
struct Light {
    float4 pos;
    uint indices;
    float3 dir;
    uint matrix_index() { return indices & 0xFFF; }
};
cbuffer Frame : register(b0) { Light lights[64]; float4x4 matrices[64]; uint light_index; };
Texture2D<float4> tx : register(t0);
RWTexture2D<float4> o : register(u0);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Light l = lights[light_index];
    float4 p = tx[id.xy];
    uint steps = uint(p.w * 16);
    float3 acc = 0;
    for (uint i = 0; i < steps; ++i) {
        float3 d = l.pos.xyz - p.xyz;
        if (dot(d, l.dir) > 0.5) {
            float4 s = mul(matrices[l.matrix_index()], float4(p.xyz, 1));
            acc += s.xyz / s.w;
        }
        p.xyz += d * 0.1;
    }
    o[id.xy] = float4(acc, 1);
}
"""


def test_value_set_once_in_a_per_lane_branch_and_read_there_stays_uniform() -> None:
    # regtruth: presched_vgprs 16, presched_sgprs 31. The method's result is set once, inside a
    # per-lane branch of a run-time loop, and read right after in the same iteration: no two
    # lanes' values meet, so it and the matrix it indexes are scalar (33 VGPRs per lane).
    d = demand(METHOD_RESULT_IN_A_PER_LANE_BRANCH)
    assert 13 <= d.max_live_vgprs <= 20
    assert d.max_live_sgprs >= 24
