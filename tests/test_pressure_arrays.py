"""Local arrays the compiler splits into one value per element (navi21 wave64, regtruth
presched_vgprs)."""

from __future__ import annotations

from conftest import demand

UNROLLED_FILL = """
StructuredBuffer<float2> src : register(t0);
RWStructuredBuffer<float2> dst : register(u0);
cbuffer C : register(b0) { uint stride; float ph; };
void Bfly(inout float2 a, inout float2 b) {
    float t = a.x; a.x += b.x; b.x = t - b.x; t = a.y; a.y += b.y; b.y = t - b.y;
}
void Rot(inout float2 a, float phase) {
    float s, c; sincos(phase, s, c); float t = a.x; a.x = t * c - a.y * s; a.y = t * s + a.y * c;
}
void Half(inout float2 v[8]) { Bfly(v[0], v[2]); Bfly(v[1], v[3]); Bfly(v[0], v[1]); }
void Pass(inout float2 v[8]) {
    Bfly(v[0], v[4]); Bfly(v[1], v[5]); Bfly(v[2], v[6]); Bfly(v[3], v[7]);
    Half(v);
    Bfly(v[4], v[5]); Bfly(v[6], v[7]);
}
void RotAll(inout float2 v[8], float p) {
    Rot(v[1], p); Rot(v[2], 2 * p); Rot(v[3], 3 * p); Rot(v[4], 4 * p);
    Rot(v[5], 5 * p); Rot(v[6], 6 * p); Rot(v[7], 7 * p);
}
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float2 v[8];
    uint base = id.x * 8;
    for (uint i = 0; i < 8; i++)
        v[i] = src[base + i * stride];
    Pass(v);
    RotAll(v, ph * id.x);
    dst[base + 0 * stride] = v[0];
    dst[base + 1 * stride] = v[4];
    dst[base + 2 * stride] = v[2];
    dst[base + 3 * stride] = v[6];
    dst[base + 4 * stride] = v[1];
    dst[base + 5 * stride] = v[5];
    dst[base + 6 * stride] = v[3];
    dst[base + 7 * stride] = v[7];
}
"""


def test_array_filled_by_an_unrolled_loop_is_split_into_elements() -> None:
    # An 8-iteration loop is unrolled, so `v[i]` is `v[0]` ... `v[7]`: the array is eight
    # float2 values, which helpers then read and write element by element. regtruth:
    # presched_vgprs 28. Held whole (for the loop's index) beside its elements: 50.
    d = demand(UNROLLED_FILL)
    assert 20 <= d.max_live_vgprs <= 32


def test_array_indexed_in_a_kept_loop_stays_whole() -> None:
    # `[loop]` keeps the loop, so `v[i]` is a run-time index: the array is not split.
    kept = UNROLLED_FILL.replace("for (uint i", "[loop] for (uint i")
    split = demand(UNROLLED_FILL).max_live_vgprs
    assert demand(kept).max_live_vgprs > split
