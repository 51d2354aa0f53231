"""Vectors with compile-time constant components (navi21 wave64, regtruth presched_vgprs)."""

from __future__ import annotations

from conftest import WHOLE_VECTORS, demand, lint_text

from hlsllint.analysis import blind
from hlsllint.analysis.cfg import build_cfg
from hlsllint.analysis.costs import CostModel
from hlsllint.analysis.pressure import EntryDemand
from hlsllint.context import AnalysisSettings
from hlsllint.semantic import build_model
from hlsllint.syntax import parse

REDUCTION = """
RWTexture2D<float> inLuma : register(u0);
RWTexture2D<float> outL1 : register(u1);
groupshared float gR[16][16];
groupshared float gG[16][16];
groupshared float gB[16][16];
groupshared float gA[16][16];
float4 LoadSrc(int2 p) { float l = inLuma[p]; return float4(l, 0, 0, 0); }
float4 Reduce4(float4 a, float4 b, float4 c, float4 d) { return (a + b + c + d) * 0.25; }
float4 ReduceLoad(uint2 base) {
    float4 v0 = LoadSrc(int2(base + uint2(0, 0)));
    float4 v1 = LoadSrc(int2(base + uint2(0, 1)));
    float4 v2 = LoadSrc(int2(base + uint2(1, 0)));
    float4 v3 = LoadSrc(int2(base + uint2(1, 1)));
    return Reduce4(v0, v1, v2, v3);
}
void StoreInter(uint x, uint y, float4 v) { gR[x][y] = v.x; gG[x][y] = v.y; gB[x][y] = v.z; gA[x][y] = v.w; }
[numthreads(256, 1, 1)]
void main(uint3 gid : SV_GroupID, uint li : SV_GroupIndex)
{
    uint x = li % 16, y = li / 16;
    float4 v[4];
    int2 tex = int2(gid.xy * 64) + int2(x * 2, y * 2);
    int2 pix = int2(gid.xy * 32) + int2(x, y);
    v[0] = ReduceLoad(tex);
    outL1[pix] = v[0].x;
    v[1] = ReduceLoad(tex + int2(32, 0));
    outL1[pix + int2(16, 0)] = v[1].x;
    v[2] = ReduceLoad(tex + int2(0, 32));
    outL1[pix + int2(0, 16)] = v[2].x;
    v[3] = ReduceLoad(tex + int2(32, 32));
    outL1[pix + int2(16, 16)] = v[3].x;
    StoreInter(x, y, Reduce4(v[0], v[1], v[2], v[3]));
    GroupMemoryBarrierWithGroupSync();
    float4 r = float4(gR[y][x], gG[y][x], gB[y][x], gA[y][x]);
    outL1[pix + int2(64, 64)] = r.x + r.w;
}
"""


def test_constant_components_of_a_reduction_take_no_register() -> None:
    # The single-channel 2x2 reduction of FidelityFX SPD's luminance pyramids: each texel is
    # float4(luma, 0, 0, 0). regtruth: presched_vgprs 17; the zeros are never in a register
    # (the groupshared writes of G and B store a constant). Whole vectors counted: 32.
    d = demand(REDUCTION)
    assert 12 <= d.max_live_vgprs <= 20


PARTLY_WRITTEN = """
RWStructuredBuffer<float4> o : register(u0);
Texture2D<float> t0 : register(t0);
Texture2D<float> t1 : register(t1);
float4 Pack(uint2 p) {
    float4 r = float4(0, 0, 0, 0);
    r.x = t0.Load(int3(p, 0));
    r[2] = t1.Load(int3(p, 0));
    return r;
}
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 a = Pack(id.xy);
    float4 b = Pack(id.xy + uint2(1, 0));
    float4 c = Pack(id.xy + uint2(0, 1));
    float4 d = Pack(id.xy + uint2(1, 1));
    float4 e = Pack(id.xy + uint2(2, 1));
    float4 f = Pack(id.xy + uint2(1, 2));
    o[id.x] = a * b + c * d;
    o[id.x + 64] = e * f + a;
    o[id.x + 128] = (a + b) * (c + d) * (e + f);
}
"""


def test_components_written_by_swizzle_or_constant_index_are_the_only_ones_held() -> None:
    # Six float4 of which only .x and [2] are ever written. regtruth: presched_vgprs 17.
    # Whole vectors counted: 32.
    d = demand(PARTLY_WRITTEN)
    assert 12 <= d.max_live_vgprs <= 22


def test_a_component_written_at_a_run_time_index_may_be_any() -> None:
    # r[p.x & 3] = x may write any component, so no component is known constant.
    # regtruth: presched_vgprs 29 (the estimate keeps all four components: 32).
    text = PARTLY_WRITTEN.replace("r.x = t0.Load(int3(p, 0));", "r[p.x & 3] = t0.Load(int3(p, 0));")
    text = text.replace("r[2] = t1.Load(int3(p, 0));", "r[p.y & 3] += t1.Load(int3(p, 0));")
    assert demand(text).max_live_vgprs > demand(PARTLY_WRITTEN).max_live_vgprs


def test_quad_reads_of_a_constant_component_stay_constant() -> None:
    # regtruth: presched_vgprs 5 (only the .x lanes are exchanged). Whole vectors counted: 31.
    d = demand(
        """
RWTexture2D<float4> outT : register(u0);
Texture2D<float> t0 : register(t0);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 v = float4(t0.Load(int3(id.xy, 0)), 0, 0, 1);
    float4 v1 = QuadReadAcrossX(v);
    float4 v2 = QuadReadAcrossY(v);
    float4 v3 = QuadReadAcrossDiagonal(v);
    float4 w = float4(t0.Load(int3(id.xy + 8, 0)), 0, 0, 1);
    float4 w1 = QuadReadAcrossX(w);
    float4 w2 = QuadReadAcrossY(w);
    outT[id.xy] = (v + v1 + v2 + v3) * (w + w1 + w2) * 0.25;
}
"""
    )
    assert d.max_live_vgprs <= 12


def test_an_exported_colour_with_a_constant_alpha_is_written_from_vgprs() -> None:
    # return float4(color, 1): the export writes four VGPRs. regtruth navi21: presched_vgprs 4.
    d = demand(
        "float4 main(float3 c : COLOR0) : SV_Target { return float4(c, 1.0); }",
    )
    assert d.max_live_vgprs == 4


# -- common subexpressions: what two helpers compute from the same values is computed once --

TWO_HELPERS = """
Texture2D<float4> tA : register(t0);
Texture2D<float4> tB : register(t1);
Texture2D<float4> tC : register(t2);
Texture2D<float4> tD : register(t3);
RWTexture2D<float> o : register(u0);
float F2(int2 p, int2 q) {
    float3 a = tA[p].rgb; float3 b = tB[p].rgb; float3 c = tC[q].rgb; float3 d = tD[q].rgb;
    float3 n = a - c; float3 m = b - d;
    float3 A = m / max(0.01, n);
    return saturate(max(max(A.x, A.y), A.z) * length(b - d));
}
float F1(int2 p, int2 q) {
    float3 a = tA[p].rgb; float3 b = tB[p].rgb; float3 c = tC[q].rgb; float3 d = tD[q].rgb;
    return saturate(dot(abs(abs(b - a) - abs(d - c)), 1));
}
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int2 p = int2(id.xy);
    int2 q = p + int2(1, 1);
    float r = F2(p, q);
    if (r > 0.01) r = F1(p, q);
    float3 e = tA[p].rgb;
    o[p] = r * e.x + e.y;
}
"""


def kept_loads(text: str) -> int:
    m = build_model(parse(text), AnalysisSettings())
    e = m.entry("main")
    assert e is not None
    cfg = build_cfg(m, e)
    return sum(ins.op == "load" for instrs in cfg.kept_instrs().values() for ins in instrs)


def test_texels_two_helpers_load_at_the_same_place_are_loaded_once() -> None:
    # F2, then F1 under a branch, then main load the same texels of tA..tD. The compiler loads
    # them once and keeps them live. regtruth: presched_vgprs 20 (loaded anew each time: 16).
    assert kept_loads(TWO_HELPERS) == 4
    assert 18 <= demand(TWO_HELPERS).max_live_vgprs <= 22


def test_loads_at_different_parts_of_one_vector_are_not_merged() -> None:
    # p.xy and p.yx are the same value to the IR, not the same coordinate.
    text = """
Texture2D<float4> t : register(t0);
RWTexture2D<float4> o : register(u0);
float4 At(uint2 c) { return t[c]; }
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) { o[id.xy] = At(id.xy) + At(id.yx); }
"""
    assert kept_loads(text) == 2


def test_loads_of_a_writable_texture_or_a_reassigned_coordinate_are_not_merged() -> None:
    text = """
RWTexture2D<float4> rw : register(u0);
Texture2D<float4> t : register(t0);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 a = rw[id.xy];
    rw[id.xy] = a * 2;
    float4 b = rw[id.xy];
    int2 c = int2(id.xy);
    float4 x = t[c];
    if (a.x > 0) c += 1;
    float4 y = t[c];
    rw[id.xy + 1] = b + x + y;
}
"""
    assert kept_loads(text) == 4


def test_parts_of_a_merged_value_stay_apart() -> None:
    # `e` is merged into `a` (same texel); Sq(e.x) and Sq(e.y) still compute two squares.
    text = """
Texture2D<float4> t : register(t0);
RWTexture2D<float> o : register(u0);
float Sq(float v) { return v * v + 1; }
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 a = t[id.xy];
    float4 e = t[id.xy];
    o[id.xy] = Sq(e.x) + Sq(e.y) + a.z;
}
"""
    m = build_model(parse(text), AnalysisSettings())
    e = m.entry("main")
    assert e is not None
    cfg = build_cfg(m, e)
    kept = [ins for instrs in cfg.kept_instrs().values() for ins in instrs]
    squares = [ins for ins in kept if text[ins.span[0] : ins.span[1]] == "v * v"]
    assert sum(ins.op == "load" for ins in kept) == 1
    assert len(squares) == 2


def test_copies_of_one_expression_with_other_constants_are_not_merged() -> None:
    # `f(x, 2.0)` and `f(x, 3.0)`: both inlined copies compute `x * c` from the same `x` at
    # the same place, but with another constant folded in; they are two products (regtruth:
    # presched_vgprs 21, the estimate 21 either way: the peak is elsewhere).
    text = """
Texture2D<float4> t : register(t0);
RWStructuredBuffer<float4> o : register(u0);
float4 f(float4 x, float c) { return x * c + 1.0; }
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float4 x = t[id.xy];
    float4 a = f(x, 2.0);
    float4 b = f(x, 3.0);
    o[id.x] = a * t[id.yx] + b * t[id.xx] + x;
}
"""
    m = build_model(parse(text), AnalysisSettings())
    e = m.entry("main")
    assert e is not None
    kept = [ins for instrs in build_cfg(m, e).kept_instrs().values() for ins in instrs]
    products = [ins for ins in kept if text[ins.span[0] : ins.span[1]] == "x * c"]
    assert [ins.detail["ops"][1] for ins in products] == [("k", (2.0,)), ("k", (3.0,))]


BINDLESS_UNIFORM_SLOTS = """
Texture2D<float4> gTex[64] : register(t0);
RWTexture2D<float4> gOut : register(u0);
cbuffer C : register(b0) { uint gSlot; uint2 gAt; };
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float4 a = gTex[gSlot][gAt];
    float4 b = gTex[gSlot + 1][gAt];
    float4 c = gTex[gSlot + 2][gAt];
    float4 d = gTex[gSlot + 3][gAt];
    gOut[id.xy] = a * b + c * d;
}
"""


def test_an_array_of_textures_is_resources_whose_loads_fill_vgprs() -> None:
    # A bindless table (`Texture2D gTex[64]`) is resources, not constant-buffer data: a texture
    # load fills VGPRs even at a uniform slot and coordinate. regtruth: presched_vgprs 17 (four
    # float4 loads live at once). Before: 3, the loads taken for scalar constant-buffer reads.
    d = demand(BINDLESS_UNIFORM_SLOTS)
    assert 15 <= d.max_live_vgprs <= 20
    m = build_model(parse(BINDLESS_UNIFORM_SLOTS), AnalysisSettings())
    assert m.globals["gTex"].kind == "resource"
    assert [c.name for c in m.cbuffers] == ["C"]


NEIGHBOURS = """
cbuffer C : register(b0) { float spread; uint2 last; };
Texture2D<uint2> seeds : register(t0);
Texture2D<float2> ids : register(t1);
RWTexture2D<uint2> nearest : register(u0);
static const int2 ring[8] = {
    int2(-1, 0), int2(1, 0), int2(0, -1), int2(0, 1), int2(-1, -1), int2(-1, 1), int2(1, -1), int2(1, 1)
};
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float own = ids[id.xy].x;
    uint2 best = seeds[id.xy];
    float2 d0 = (float2)id.xy - (float2)best;
    float bd = dot(d0, d0);
    for (uint i = 0; i < 8; ++i)
    {
        uint2 e = seeds[clamp(id.xy + ring[i] * spread, 0, last)];
        if (ids[e].x != own)
        {
            float2 d = (float2)id.xy - (float2)e;
            float dd = dot(d, d);
            if (dd < bd) { bd = dd; best = e; }
        }
    }
    nearest[id.xy] = best;
}
"""


def test_an_unrolled_loop_holds_the_coordinates_its_iterations_share() -> None:
    # A jump-flood step over 8 neighbours: unrolled, the coordinate components take three values
    # each (offsets -1, 0, 1), which the compiler computes once, where first needed, and holds
    # until their last use several iterations later. regtruth: presched_vgprs 17; one
    # iteration's live values are 11 (the estimate before). With all offsets distinct along x
    # (below) only y is shared: regtruth 15.
    d = demand(NEIGHBOURS)
    assert 13 <= d.max_live_vgprs <= 19
    shared = (
        "int2(-1, 0), int2(1, 0), int2(0, -1), int2(0, 1), int2(-1, -1), int2(-1, 1), int2(1, -1), int2(1, 1)"
    )
    apart = (
        "int2(-4, 0), int2(-3, 0), int2(-2, 0), int2(-1, 0), int2(1, 0), int2(2, 0), int2(3, 0), int2(4, 0)"
    )
    distinct = NEIGHBOURS.replace(shared, apart)
    assert distinct != NEIGHBOURS
    assert d.max_live_vgprs > demand(distinct).max_live_vgprs >= 11


NEIGHBOURHOOD_3X3 = """
Texture2D<float> depthTex : register(t0);
Texture2D<float> aoTex : register(t1);
SamplerState samp : register(s0);
cbuffer Cam : register(b0) { float4 viewport; float2 proj; };
float linearZ(float d) { return proj.y / (d - proj.x); }
float4 main(float4 pos : SV_Position) : SV_Target0
{
    float center = linearZ(depthTex.Load(int3(pos.xy, 0)));
    int2 base = int2(0.5 * floor(pos.xy));
    int2 limit = int2(0.5 * viewport.xy) - 1;
    float sum = 0.0;
    float wsum = 0.0;
    for (int x = -1; x <= 1; x++)
    {
        for (int y = -1; y <= 1; y++)
        {
            int2 at = clamp(base + int2(x, y), int2(0, 0), limit);
            float2 uv = (float2(at) + 0.5) * viewport.zw;
            float ao = aoTex.Load(int3(at, 0));
            float z = linearZ(depthTex.SampleLevel(samp, uv, 0.0));
            float w = exp(-abs(z - center) / center) * exp(-float(x * x + y * y));
            sum += w * ao;
            wsum += w;
        }
    }
    return sum / wsum;
}
"""


def test_nested_unrolled_loops_hold_the_coordinates_their_counters_share() -> None:
    # Two unrolled loops over a 3x3 neighbourhood, the coordinate made from the counters
    # (`int2(x, y)`): the compiler computes the three y components (and their uv) once, in the
    # first pass of the outer loop, and holds them through the other two. regtruth:
    # presched_vgprs 15; one iteration's live values are 11 (the estimate before). Over one
    # row of nine taps (no component repeats) nothing is held: regtruth 9.
    d = demand(NEIGHBOURHOOD_3X3)
    assert 13 <= d.max_live_vgprs <= 17
    row = NEIGHBOURHOOD_3X3.replace("int x = -1; x <= 1;", "int x = -4; x <= 4;").replace(
        "int y = -1; y <= 1;", "int y = 0; y < 1;"
    )
    assert row != NEIGHBOURHOOD_3X3
    assert demand(row).max_live_vgprs <= 11


NEIGHBOURHOOD_MAX = """
Texture2D<float2> tileA : register(t0);
Texture2D<float> tileB : register(t1);
RWTexture2D<float4> outp : register(u0);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint2 dim;
    tileA.GetDimensions(dim.x, dim.y);
    float lo = 1;
    float hi = 0;
    float lo2 = 1000000;
    for (int x = -1; x <= 1; ++x)
    {
        for (int y = -1; y <= 1; ++y)
        {
            const int2 p = id.xy + int2(x, y);
            if (p.x >= 0 && p.y >= 0 && p.x < dim.x && p.y < dim.y)
            {
                const float2 v = tileA[p];
                lo = min(lo, v.x);
                hi = max(hi, v.y);
                lo2 = min(lo2, tileB[p]);
            }
        }
    }
    outp[id.xy] = float4(lo, hi, lo2, 0);
}
"""


def test_a_counter_of_zero_leaves_the_coordinate_as_it_is() -> None:
    # `id.xy + int2(x, y)` with y = 0 is `id.y` itself (the compiler folds `+ 0`): only the
    # -1 and +1 rows are held, beside `id`. regtruth: presched_vgprs 10; with a register of
    # its own held for `id.y + 0` the estimate was 12.
    assert demand(NEIGHBOURHOOD_MAX).max_live_vgprs <= 11


SAMPLED_AGAIN = """
Texture2D<float4> albedo : register(t0);
Texture2D<float4> t1 : register(t1);
Texture2D<float4> t2 : register(t2);
Texture2D<float4> t3 : register(t3);
Texture2D<float4> t4 : register(t4);
Texture2D<float4> t5 : register(t5);
SamplerState s0 : register(s0);
SamplerState s1 : register(s1);
SamplerState s2 : register(s2);
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target0
{
    float4 a = albedo.Sample(s0, uv);
    float4 b = t1.Sample(s1, uv * 2.0) + t2.Sample(s1, uv * 3.0);
    float4 c = t3.Sample(s1, uv * b.xy) * t4.Sample(s1, uv * b.zw);
    float4 d = albedo.Sample(s0, uv + c.xy);
    return a * b + c * d;
}
"""


def test_a_texture_sampled_again_keeps_its_descriptor() -> None:
    # The compiler loads `albedo`'s and `s0`'s descriptors for the first sample and reuses
    # them for the second, after four other textures: held in between. regtruth:
    # presched_sgprs 26; with the second sample reading `t5` through `s2` instead, 15 (each
    # descriptor loaded where used). Each use loading its own: 15 both.
    again = demand(SAMPLED_AGAIN).max_live_sgprs
    other = SAMPLED_AGAIN.replace("albedo.Sample(s0, uv + c.xy)", "t5.Sample(s2, uv + c.xy)")
    assert other != SAMPLED_AGAIN
    assert 22 <= again <= 30
    assert demand(other).max_live_sgprs <= 18


PICKED = """
cbuffer C : register(b0) { uint2 size; };
Texture2D<float3> src : register(t0);
Buffer<float3> table : register(t1);
RWTexture2D<float4> dst : register(u0);
[numthreads(8, 8, 1)]
void main(uint2 id : SV_DispatchThreadID) {
  if (any(id >= size)) { return; }
  uint3 k = uint3(src[id] * 255.0f + 0.5f);
  float3 o = float3(table[k.r].b, table[k.g].g, table[k.b].r);
  dst[id] = float4(o, 1.0f);
}
"""


def test_components_no_reader_takes_hold_no_register() -> None:
    # Three float3 loads of which the constructor takes one component each: the others are
    # dead as soon as the load returns. regtruth: presched_vgprs 7 (11 with whole loads).
    assert demand(PICKED).max_live_vgprs == 7


# -- value numbering by component: what inlined copies compute alike, component by component --
# (`CostModel.number_components`, off by default: it moves the tune sets both ways, see costs.py)

NUMBERED = CostModel(number_components=True)


def numbered(text: str) -> int:
    return demand(text, costs=NUMBERED).max_live_vgprs


NOISE_AT_NEIGHBOURS = """
RWTexture2D<float2> dst : register(u0);
float4 mix4(float3 c)
{
    float4 h = float4(c.xy, c.xy + 1.0) * float2(12.9898, 78.233).xyxy;
    h = frac(h * h + 0.3183);
    h = h.xzxz * h.yyww + c.z * 0.618;
    return frac(h * 43.7585);
}
float cell(float3 p)
{
    float3 b = floor(p);
    float3 t = p - b;
    float3 w = t * t * (3.0 - 2.0 * t);
    float4 lo = mix4(b);
    float4 hi = mix4(b + float3(0, 0, 1));
    float4 m = lerp(lo, hi, w.z);
    return dot(m, float4(1.0 - w.x, w.x, 1.0 - w.x, w.x) * float4(1.0 - w.y, 1.0 - w.y, w.y, w.y));
}
float layered(float3 p)
{
    return cell(p) + 0.5 * cell(p * 2.1) + 0.25 * cell(p * 3.9);
}
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float3 p = float3(float2(id.xy) * 0.02, 0);
    const float h = 0.1;
    float dy = layered(p + float3(0, h, 0)) - layered(p - float3(0, h, 0));
    float dz = layered(p + float3(0, 0, h)) - layered(p - float3(0, 0, h));
    dst[id.xy] = float2(dy, dz) / (2 * h);
}
"""


def test_noise_at_neighbouring_points_shares_the_components_they_have_alike() -> None:
    # A gradient by central differences (WickedEngine's curl noise): four copies of a layered
    # noise at p moved along y or z. The compiler scalarises and value-numbers components:
    # `floor(p + (0, h, 0)).x` is `floor(p.x)` in every copy, so what the x and z (or x and y)
    # components feed is computed once and held to the last copy; z is constant (0 +- h).
    # regtruth: presched_vgprs 45; at points that share no component (below) 19. Whole
    # vectors numbered apart: 24 and 24.
    d = numbered(NOISE_AT_NEIGHBOURS)
    apart = NOISE_AT_NEIGHBOURS.replace(
        "layered(p + float3(0, h, 0)) - layered(p - float3(0, h, 0))", "layered(p + h) - layered(p - h)"
    ).replace(
        "layered(p + float3(0, 0, h)) - layered(p - float3(0, 0, h))",
        "layered(p * 1.5 + h) - layered(p * 1.5 - h)",
    )
    assert apart != NOISE_AT_NEIGHBOURS
    assert 32 <= d <= 52
    assert numbered(apart) <= 24
    assert d - numbered(apart) >= 10


SHARED_SUBEXPRESSION = """
cbuffer C : register(b0) { float3 centre; float radius; float3 sun; float scale; };
float3 outward(float3 p) { float3 d = p - centre; return d * rsqrt(dot(d, d)); }
float altitude(float3 p) { float3 d = p - centre; return sqrt(dot(d, d)) - radius; }
float4 main(float4 pos : SV_Position, float3 a : TEXCOORD0, float3 b : TEXCOORD1) : SV_Target0
{
    float h = altitude(a);
    float3 acc = 0;
    [loop] for (int i = 1; i <= int(scale); i++)
    {
        float3 p = lerp(a, b, i * 0.125);
        float3 n = outward(p);
        acc = acc * 0.5 + exp(-altitude(p) * h) * n * saturate(dot(n, sun));
    }
    return float4(acc * outward(a), 1);
}
"""


def test_the_same_operation_in_two_helpers_is_computed_once() -> None:
    # (dil28's repro of DiligentFX's `CoarseInsctr`.) `a - centre` and `dot(d, d)` are written
    # in two helpers: the compiler's value numbering sees one operation on the same values (the
    # cbuffer member is one load wherever it is read) and keeps the first result, from
    # `altitude(a)` before the loop to `outward(a)` after it. regtruth: presched_vgprs 20; with
    # `outward(b)` at the end (nothing shared) 16. Each written expression its own operation:
    # 16 and 17.
    d = numbered(SHARED_SUBEXPRESSION)
    other = SHARED_SUBEXPRESSION.replace("acc * outward(a)", "acc * outward(b)")
    assert other != SHARED_SUBEXPRESSION
    assert 17 <= d <= 22
    assert d - numbered(other) >= 2


def test_a_helper_given_two_views_of_one_vector_computes_twice() -> None:
    # `Mix(v.xy)` and `Mix(v.yx)` read the same value through different swizzles: not one
    # computation (nor is a variable set again in a branch).
    text = """
RWStructuredBuffer<float> o : register(u0);
float Mix(float2 c) { return c.x * 3.0 + c.y * c.y; }
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float2 v = float2(id.xy) * 0.5;
    float a = Mix(v.xy);
    float b = Mix(v.yx);
    float2 w = v;
    if (id.z > 0) w = w * 2.0;
    o[id.x] = a + b + Mix(w) + Mix(v);
}
"""
    m = build_model(parse(text), AnalysisSettings())
    e = m.entry("main")
    assert e is not None
    cfg = build_cfg(m, e, NUMBERED)
    kept = [ins for instrs in cfg.kept_instrs().values() for ins in instrs]
    muls = [ins for ins in kept if text[ins.span[0] : ins.span[1]] == "c.x * 3.0"]
    assert len(muls) >= 3  # v.yx and w are not v.xy


TEXTURE_SIZE = """
Texture2D<float4> gIn : register(t0);
RWTexture2D<float4> gOut : register(u0);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint2 res;
    gIn.GetDimensions(res.x, res.y);
    float2 size = float2(res);
    float4 a = gIn.Load(int3(id.xy, 0));
    float4 b = gIn.Load(int3(id.xy + 1, 0));
    float4 c = gIn.Load(int3(id.xy + 2, 0));
    float4 d = gIn.Load(int3(id.xy + 3, 0));
    float2 uv = (float2(id.xy) + 0.5) / size;
    gOut[id.xy] = a * b + c * d + float4(uv, size);
}
"""


def test_a_texture_size_is_not_a_compile_time_constant() -> None:
    # `GetDimensions` reads the size from the descriptor at run time. Its outputs written
    # through a swizzle (`res.x`) were sets with no source, so `res` and `float2(res)` were
    # taken for constants folded into their readers (estimate 21). regtruth: presched_vgprs 23
    # (`float2(res)`, converted in VGPRs, is live across the four loads).
    assert 22 <= demand(TEXTURE_SIZE).max_live_vgprs <= 25


def test_every_output_of_a_size_query_is_its_own_run_time_value() -> None:
    # `GetDimensions(mip, w, h, levels)`: the mip level is read, and `h` and `levels` are
    # written by the query as `w` is (they were copies of nothing: constants). A sample
    # position is the query's result.
    text = """
Texture2D<float4> gIn : register(t0);
Texture2DMS<float4> gMs : register(t1);
RWStructuredBuffer<float4> o : register(u0);
cbuffer C : register(b0) { uint gMip; };
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint w, h, levels;
    gIn.GetDimensions(gMip, w, h, levels);
    float2 p = gMs.GetSamplePosition(id.x);
    o[id.x] = float4(w, h, levels, 0) + float4(p, p);
}
"""
    m = build_model(parse(text), AnalysisSettings())
    e = m.entry("main")
    assert e is not None
    cfg = build_cfg(m, e, CostModel())
    queries = [ins for instrs in cfg.kept_instrs().values() for ins in instrs if ins.op == "query"]
    written = {ins.dest.name for ins in queries if ins.dest is not None}
    assert {"w", "h", "levels"} <= written
    assert any(text[ins.span[0] : ins.span[1]].startswith("gMs.GetSamplePosition") for ins in queries)
    sizes = [ins for ins in queries if ins.dest is not None and ins.dest.name in ("w", "h", "levels")]
    assert sizes and all(any(r.name == "gMip" for r in ins.reads) for ins in sizes)


COMPONENTWISE = CostModel(component_liveness=True)
"""The liveness by component (`CostModel.component_liveness`), on by default since the twentieth
landing; named here so that these tests keep asserting it if the default moves."""


def split_demand(text: str) -> EntryDemand:
    """`demand` with each component of a vector dying after its own last use."""
    return demand(text, costs=COMPONENTWISE)


EARLY_XY = """
Texture2D<float4> t0 : register(t0);
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 a0 = t0.Load(int3(id.xy, 0));
    float4 a1 = t0.Load(int3(id.xy + uint2(1, 0), 0));
    float4 a2 = t0.Load(int3(id.xy + uint2(0, 1), 0));
    float4 a3 = t0.Load(int3(id.xy + uint2(1, 1), 0));
    int2 p = int2((a0.xy + a1.xy) * (a2.xy - a3.xy) * 64.0);
    float4 b0 = t0.Load(int3(p, 0));
    float4 b1 = t0.Load(int3(p + int2(1, 0), 0));
    float4 b2 = t0.Load(int3(p + int2(0, 1), 0));
    float4 b3 = t0.Load(int3(p + int2(1, 1), 0));
    float4 b4 = t0.Load(int3(p + int2(2, 1), 0));
    float4 b5 = t0.Load(int3(p + int2(1, 2), 0));
    float4 s = b0 * b1 + b2 * b3 + b4 * b5;
    o[id.x] = s * float4(a0.zw * a1.zw, a2.zw * a3.zw);
}
"""


def test_components_of_a_vector_die_after_their_own_last_use() -> None:
    # Four float4 loads of which `.xy` is read before six more loads and `.zw` after them:
    # the compiler splits each into per-component registers, and `.xy`'s are free while the
    # six loads are live. regtruth: presched_vgprs 33. Each vector live whole until its last
    # read: 43.
    assert 30 <= split_demand(EARLY_XY).max_live_vgprs <= 37


def test_a_vector_read_whole_at_the_end_keeps_every_component() -> None:
    # The same, but the last reads take the vectors whole (`s * a0 + a1 * a2 + a3`):
    # every component stays live. regtruth: presched_vgprs 41.
    text = EARLY_XY.replace("s * float4(a0.zw * a1.zw, a2.zw * a3.zw)", "s * a0 + a1 * a2 + a3")
    assert text != EARLY_XY
    assert 39 <= split_demand(text).max_live_vgprs <= 45


HELPER_XY = """
Texture2D<float4> t0 : register(t0);
RWStructuredBuffer<float4> o : register(u0);
int2 At(float4 q) { return int2(q.xy * 64.0); }
float4 Finish(float4 s, float4 q) { return s * q.zwzw; }
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 a0 = t0.Load(int3(id.xy, 0));
    float4 a1 = t0.Load(int3(id.xy + uint2(1, 0), 0));
    float4 a2 = t0.Load(int3(id.xy + uint2(0, 1), 0));
    float4 a3 = t0.Load(int3(id.xy + uint2(1, 1), 0));
    int2 p = At(a0) + At(a1) + At(a2) + At(a3);
    float4 b0 = t0.Load(int3(p, 0));
    float4 b1 = t0.Load(int3(p + int2(1, 0), 0));
    float4 b2 = t0.Load(int3(p + int2(0, 1), 0));
    float4 b3 = t0.Load(int3(p + int2(1, 1), 0));
    float4 b4 = t0.Load(int3(p + int2(2, 1), 0));
    float4 b5 = t0.Load(int3(p + int2(1, 2), 0));
    float4 s = b0 * b1 + b2 * b3 + b4 * b5;
    o[id.x] = Finish(s, a0) + Finish(s, a1) + Finish(s, a2) + Finish(s, a3);
}
"""


def test_a_helper_reading_part_of_its_argument_frees_the_rest() -> None:
    # The same through helpers whose parameters are the arguments' registers: `At(a).xy`
    # early, `Finish(s, a).zw` late. regtruth: presched_vgprs 33 (whole vectors: 43).
    assert 30 <= split_demand(HELPER_XY).max_live_vgprs <= 37


BLOCK_HALVES = """
Texture2D<uint4> t0 : register(t0);
RWTexture2D<float4> o : register(u0);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint4 blk0 = t0.Load(int3(id.xy, 0));
    uint4 blk1 = t0.Load(int3(id.xy + uint2(8, 0), 0));
    float4 w0 = float4(blk0.x & 0xFF, (blk0.x >> 8) & 0xFF, blk0.z & 0xFF, (blk0.z >> 8) & 0xFF) / 255.0;
    float4 w1 = float4(blk1.x & 0xFF, (blk1.x >> 8) & 0xFF, blk1.z & 0xFF, (blk1.z >> 8) & 0xFF) / 255.0;
    float4 acc = 0;
    [unroll] for (uint i = 0; i < 4; ++i) {
        uint s0 = (blk0.y >> (i * 8)) & 0xFF;
        uint s1 = (blk0.w >> (i * 8)) & 0xFF;
        uint s2 = (blk1.y >> (i * 8)) & 0xFF;
        uint s3 = (blk1.w >> (i * 8)) & 0xFF;
        acc += w0 * float(s0) + w1 * float(s1) + w0.wzyx * float(s2) + w1.yxwz * float(s3);
        o[id.xy * 4 + uint2(i, 0)] = acc;
    }
}
"""


def test_a_block_whose_xz_make_the_weights_keeps_only_yw() -> None:
    # xenia's texture_load_dxn_rg8 pattern: a block's `.xz` make the weights and die there,
    # its `.yw` (the selectors) are read to the end. regtruth: presched_vgprs 23; whole
    # blocks live to the end: 29.
    assert 21 <= split_demand(BLOCK_HALVES).max_live_vgprs <= 26


UNPACK_LEADING_PART = """
Texture2D<float4> t0 : register(t0);
RWStructuredBuffer<float4> o : register(u0);
float3 Decode(float2 p, const bool bSigned)
{
    p = bSigned ? p : (p * 2.0 - 1.0);
    float3 n = float3(p.xy, 1.0 - abs(p.x) - abs(p.y));
    float t = saturate(-n.z);
    n.xy -= t * (step(0.0, n.xy) * 2.0 - 1.0);
    return normalize(n);
}
float4 Unpack(float4 p, out float materialID)
{
    float4 r;
    r.xyz = Decode(p.xy, false);
    r.w = p.z;
    materialID = p.w * 3.0;
    r.w *= r.w;
    return r;
}
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float m0, m1, m2, m3;
    float4 a = Unpack(t0.Load(int3(id.xy, 0)), m0);
    float4 b = Unpack(t0.Load(int3(id.xy + uint2(1, 0), 0)), m1);
    float4 c = Unpack(t0.Load(int3(id.xy + uint2(0, 1), 0)), m2);
    float4 d = Unpack(t0.Load(int3(id.xy + uint2(1, 1), 0)), m3);
    o[id.x] = a * m0 + b * m1 + c * m2 + d * m3;
}
"""


def test_a_copy_of_some_components_reads_only_those() -> None:
    # NRD's normal unpacking: a helper that writes its parameter copies the argument's `.xy`
    # (`p = ...` in `Decode(p.xy)`), so the loads' other components are read later only.
    # regtruth: presched_vgprs 24; the copy reading the whole load: 28 (main before
    # component liveness: 31).
    assert 22 <= split_demand(UNPACK_LEADING_PART).max_live_vgprs <= 27


FLOAT_TEXEL = """
RWTexture2D<float> gOut : register(u0);
Texture2D<float> gIn : register(t0);
cbuffer C : register(b0) { float gK; };
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float v = 1.0 / (gK * gIn[id.xy] + 1.0);
    gOut[id.xy] = v;
}
"""


def test_a_float_stored_to_a_typed_texture_is_written_as_four_copies() -> None:
    # The texel of a `float` store is `float4(v)` (v_mov_b32 three times before image_store
    # dmask 0xf): the address and four data registers are live at the store. regtruth:
    # presched_vgprs 6; a `uint` texel 3 (one data register), `float2(v, 2 * v)` 4. Estimate
    # before: 3 (4 with the dispatch ID's unread z).
    assert 5 <= demand(FLOAT_TEXEL).max_live_vgprs <= 7
    uint_texel = FLOAT_TEXEL.replace("RWTexture2D<float>", "RWTexture2D<uint>").replace("= v;", "= uint(v);")
    assert demand(uint_texel).max_live_vgprs <= 4


TEXEL_UPDATE = """
Texture2D<float4> gIn : register(t0);
RWTexture2D<float4> gOut : register(u0);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 s = gIn[id.xy];
    gOut[id.xy] += float4(s.rgb * (1.0 - s.a), 0.0);
}
"""


def test_a_compound_assignment_to_a_texel_loads_it_before_the_right_side() -> None:
    # `t[p] += x` reads `t[p]` first: both loads are issued before `s.rgb * (1 - s.a)` is
    # computed, so the loaded texel and `s` are live together. regtruth: presched_vgprs 10
    # (estimate 8 with the texel loaded after the right side).
    assert 10 <= demand(TEXEL_UPDATE).max_live_vgprs <= 12


CONVERTED_SIZE = """
Texture2D<float4> gIn : register(t0);
RWTexture2DArray<uint> gOut : register(u0);
SamplerState gS : register(s0);
[numthreads(8, 4, 2)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint2 res;
    uint layers;
    gOut.GetDimensions(res.x, res.y, layers);
    if (any(id.xy >= res))
        return;
    float2 uv = (id.xy + 0.5) / float2(res);
    float3 c = gIn.SampleLevel(gS, uv, 0).rgb;
    float l = dot(c, float3(0.3, 0.6, 0.1));
    uint rate = 0;
    if (l < 0.01)
        rate = 10;
    else if (l < 0.1)
        rate = 5;
    gOut[id] = rate;
}
"""


def test_a_converted_vector_is_held_whole_until_its_reader() -> None:
    # `float2(res)` is converted component by component (v_cvt_f32_u32 twice) before the
    # division starts: both are live beside `id.xy + 0.5` and the dispatch ID. regtruth:
    # presched_vgprs 7 (estimate 6 with the conversion streamed into the division).
    assert 7 <= demand(CONVERTED_SIZE).max_live_vgprs <= 8


STORED_TWICE = """
Texture2D<uint> gIn : register(t0);
RWTexture2D<uint> gA : register(u0);
RWTexture2D<uint> gB : register(u1);
RWStructuredBuffer<uint> gC : register(u2);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint v = gIn[id.xy];
    uint w = gIn[id.xy + 2];
    gA[id.xy] = v;
    gB[id.xy + 1] = v;
    gC[id.x + id.y * 64] = v * w;
}
"""


def test_a_scalar_stored_to_a_texture_is_stored_from_its_own_register() -> None:
    # `gA[p] = v` stores v's register: the assignment's value is no copy beside it while v
    # lives on. regtruth: presched_vgprs 6 (estimate before: 8). A float4 stored whole is
    # held beside its components when they are read later (the same with float4s: 16).
    assert 5 <= demand(STORED_TWICE).max_live_vgprs <= 7
    vectors = STORED_TWICE.replace("uint", "float4").replace("float43", "uint3")
    assert 15 <= demand(vectors).max_live_vgprs <= 17


HELD_SUMS = """
Buffer<float4> t0 : register(t0);
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint i = id.x;
    float4 a = t0[i];
    float4 b = t0[i + 64];
    float4 c = t0[i + 128];
    float4 d = b * rcp(1.0 + b);
    o[i] = d * c + a;
}
"""


def test_a_temporary_the_reader_cannot_fuse_is_held_by_component() -> None:
    # The compiler scalarises each vector operation where it stands: all four `1.0 + b` are
    # computed before the first `rcp` (regtruth: presched_vgprs 17; the sum streamed as one
    # register: 14). So are `saturate(2.0 * b)` read by a product (17) and `1.0 + b * b`
    # (17: the product fuses into the sum, the sum is held); a product read by a sum is one
    # fused multiply-add per component (`d = a * b; a = rcp(d + 1.0)`: 13). With the
    # liveness by component only (DiligentFX TAA's `c * rcp(1.0 + c)`: 24 -> 26, truth 26).
    assert 16 <= split_demand(HELD_SUMS).max_live_vgprs <= 18
    for body in ("b * saturate(2.0 * b)", "b * (1.0 + b * b)"):
        assert 16 <= split_demand(HELD_SUMS.replace("b * rcp(1.0 + b)", body)).max_live_vgprs <= 18
    fused = HELD_SUMS.replace("float4 d = b * rcp(1.0 + b);", "float4 d = a * b; a = rcp(d + 1.0);")
    assert 12 <= split_demand(fused).max_live_vgprs <= 14


TAPS_5X5 = """
Texture2D<float4> gIn : register(t0);
Texture2D<float> gZ : register(t1);
RWTexture2D<float4> gOut : register(u0);
cbuffer C : register(b0) { int2 gRectMax; float gStride; float gScale; };
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int2 pixelPos = int2(id.xy);
    float z0 = gZ[pixelPos];
    int stridei = int(gStride * (1.0 + z0));
    float4 sum = gIn[pixelPos];
    float sumw = 1.0;
    [unroll]
    for (int j = -2; j <= 2; j++)
    {
        [unroll]
        for (int i = -2; i <= 2; i++)
        {
            if (i == 0 && j == 0)
                continue;
            int2 pos = clamp(pixelPos + int2(i, j) * stridei, 0, gRectMax);
            float z = gZ[pos];
            float w = exp(-abs(z - z0) * gScale);
            float4 s = gIn[pos];
            sum += s * w;
            sumw += w;
        }
    }
    gOut[pixelPos] = sum / sumw;
}
"""


def test_a_branch_the_counters_decide_is_decided_in_each_unrolled_copy() -> None:
    # NRD's history fix skips the centre of its 5x5 taps (`if (i == 0 && j == 0) continue;`).
    # Unrolled, each copy either skips or not, decided at compile time: the taps behind the
    # branch belong to the unrolled body, and the coordinates their rows and columns share are
    # held as without the branch. regtruth: presched_vgprs 21, with or without the branch;
    # the estimate was 14 with the branch (what the blocks behind it compute counted as
    # computed again in every copy), 20 without. With the liveness by component only.
    assert 18 <= split_demand(TAPS_5X5).max_live_vgprs <= 23
    unbranched = TAPS_5X5.replace("if (i == 0 && j == 0)\n                continue;", "")
    assert unbranched != TAPS_5X5
    assert split_demand(TAPS_5X5).max_live_vgprs == split_demand(unbranched).max_live_vgprs


WORLD_POSITIONS = """
Texture2D<float4> gIn : register(t0);
Texture2D<float> gZ : register(t1);
RWTexture2D<float4> gOut : register(u0);
cbuffer C : register(b0)
{
    int2 gRectSize; float2 gRectSizeInv; float4 gF; float4 gR; float4 gU; float gStride;
    uint gOrthoMode; float3 gN;
};
float3 WorldPos(int2 p, float z)
{
    float2 c = ((float2)p + 0.5) * gRectSizeInv * 2.0 - 1.0;
    return POSITION;
}
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int2 pixelPos = int2(id.xy);
    float z0 = gZ[pixelPos];
    float3 X0 = WorldPos(pixelPos, z0);
    float r = floor(gStride / (1.0 + z0) + 0.5);
    float4 sum = gIn[pixelPos];
    float sumw = 1.0;
    [unroll]
    for (int j = -2; j <= 2; j++)
    {
        [unroll]
        for (int i = -2; i <= 2; i++)
        {
            int2 pos = pixelPos + int2((int)(i * r), (int)(j * r));
            if (i == 0 && j == 0)
                continue;
            float z = gZ[pos];
            float3 X = WorldPos(pos, z);
            float w = exp(-abs(dot(gN, X - X0)));
            if (w > 1e-4)
            {
                sum += gIn[pos] * w;
                sumw += w;
            }
        }
    }
    gOut[pixelPos] = sum / sumw;
}
"""
PERSPECTIVE = "z * (gF.xyz + gR.xyz * c.x - gU.xyz * c.y)"
EITHER = f"gOrthoMode == 0 ? {PERSPECTIVE} : z * gF.xyz + gR.xyz * c.x - gU.xyz * c.y"


def test_a_swizzled_operand_in_an_unrolled_loop_is_the_component_it_names() -> None:
    # RELAX's world position from a pixel over 24 taps: `gF.xyz + gR.xyz * c.x` depends on the
    # column only (`c.x`), so the compiler computes it once per column and holds the five
    # columns' through the rows. regtruth: presched_vgprs 39; the estimate was 22 (26 with the
    # branch on the counters decided), reading `c.y` for the product's `y` and `z`, so that
    # it seemed to change with the row.
    assert 30 <= split_demand(WORLD_POSITIONS.replace("POSITION", PERSPECTIVE)).max_live_vgprs <= 42


def test_a_long_arm_of_a_ternary_is_computed_again_in_each_unrolled_copy() -> None:
    # The same with RELAX's `gOrthoMode == 0 ? ... : ...`: HLSL 2021 evaluates only the arm
    # chosen, and an arm of more than 8 operations stays a branch in the compiler, so its
    # `gF.xyz + gR.xyz * c.x` is computed again in every tap, not held across the rows.
    # regtruth: presched_vgprs 19, not 39; the estimate, 48 with the arms held as the
    # others, is 28 (the body's own peak, 20, and the holds of the first row, 8, are counted
    # together: an over-count left).
    either = split_demand(WORLD_POSITIONS.replace("POSITION", EITHER)).max_live_vgprs
    assert either <= 30
    assert either < split_demand(WORLD_POSITIONS.replace("POSITION", PERSPECTIVE)).max_live_vgprs


POISSON_TAPS = """
Texture2D<float4> gIn : register(t0);
Texture2D<float> gZ : register(t1);
RWTexture2D<float4> gOut : register(u0);
SamplerState gNearestClamp : register(s0);
cbuffer C : register(b0)
{
    float2 gRectSize; float2 gRectSizeInv; float2 gResolutionScale; float2 gResourceSizeInv;
    float4 gRotator; float gRadius; float gScale;
};
static const float3 g_Special8[ 8 ] =
{
    float3( -1.00               ,  0.00               , 1.0 ),
    float3(  0.00               ,  1.00               , 1.0 ),
    float3(  1.00               ,  0.00               , 1.0 ),
    float3(  0.00               , -1.00               , 1.0 ),
    float3( -0.25 * sqrt( 2.0 ) ,  0.25 * sqrt( 2.0 ) , 0.5 ),
    float3(  0.25 * sqrt( 2.0 ) ,  0.25 * sqrt( 2.0 ) , 0.5 ),
    float3(  0.25 * sqrt( 2.0 ) , -0.25 * sqrt( 2.0 ) , 0.5 ),
    float3( -0.25 * sqrt( 2.0 ) , -0.25 * sqrt( 2.0 ) , 0.5 )
};
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int2 pixelPos = int2(id.xy);
    float2 pixelUv = (float2(pixelPos) + 0.5) * gRectSizeInv;
    float z0 = gZ[pixelPos];
    float4 diff = gIn[pixelPos];
    float4 scaledRotator = gRotator * (gRadius / (1.0 + z0));
    float sum = 1.0;
    [unroll]
    for (uint n = 0; n < 8; n++)
    {
        float3 offset = g_Special8[n];
        float2 uv = pixelUv + offset.x * scaledRotator.xz + offset.y * scaledRotator.yw;
        uv = floor(uv * gRectSize) + 0.5;
        uv *= gRectSizeInv;
        float2 uvScaled = min(uv * gResolutionScale, gResolutionScale - 0.5 * gResourceSizeInv);
        float zs = gZ.SampleLevel(gNearestClamp, uvScaled, 0);
        float w = float(all(uv > 0.0) && all(uv < 1.0));
        w *= exp(-abs(zs - z0) * gScale);
        float4 s = gIn.SampleLevel(gNearestClamp, uvScaled, 0);
        w *= offset.z;
        sum += w;
        diff += s * w;
    }
    gOut[pixelPos] = diff / sum;
}
"""


def test_a_table_folded_through_sqrt_is_a_table_of_constants() -> None:
    # NRD's eight Poisson taps, `g_Special8`, whose diagonal entries are `0.25 * sqrt(2.0)`:
    # the compiler folds them, and the taps whose offsets repeat a component share what they
    # compute from it (`pixelUv + offset.x * scaledRotator.xz`, held from its first tap to
    # its last). regtruth: presched_vgprs 23, with `sqrt(2.0)` or its value written out; the
    # estimate was 19 with the table read as memory, 21 now (the two VGPRs left: the clamp's
    # bound, loop-invariant, which the compiler computes once and holds through the taps).
    written_out = POISSON_TAPS.replace("sqrt( 2.0 )", "1.41421356")
    assert written_out != POISSON_TAPS
    assert 20 <= split_demand(POISSON_TAPS).max_live_vgprs <= 24
    assert split_demand(POISSON_TAPS).max_live_vgprs == split_demand(written_out).max_live_vgprs


DECODED_NORMALS = """
Texture2D<float4> gIn : register(t0);
Texture2D<float2> gN : register(t1);
RWTexture2D<float4> gOut : register(u0);
float3 Decode(float2 p, const bool bNormalize)
{
    p = p * 2.0 - 1.0;
    float3 n = float3(p.xy, 1.0 - abs(p.x) - abs(p.y));
    float t = saturate(-n.z);
    n.xy -= t * (step(0.0, n.xy) * 2.0 - 1.0);
    return bNormalize ? normalize(n) : n;
}
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 a = gIn[id.xy];
    float4 b = gIn[id.xy + uint2(1, 0)];
    float4 c = gIn[id.xy + uint2(0, 1)];
    float3 n0 = Decode(gN[id.xy], true);
    float3 n1 = Decode(gN[id.xy + uint2(1, 1)], true);
    float3 n2 = Decode(gN[id.xy + uint2(2, 1)], true);
    float w = dot(n0, n1) * dot(n1, n2) * dot(n0, n2);
    gOut[id.xy] = (a * b + c) * w + float4(n0 * n1 * n2, 0.0);
}
"""


def test_a_select_on_a_constant_computes_only_the_arm_it_keeps() -> None:
    # NRD's `_NRD_DecodeUnitVector(p, bSigned, bNormalize)` ends in `bNormalize ? normalize(n)
    # : n`, called with `true`: the compiler folds the select, so `n` is dead once normalised.
    # regtruth: presched_vgprs 26, as with `return normalize(n);`; the estimate was 27 (`n`
    # held until the select). NRD's REBLUR passes decode one normal per tap: 2 VGPRs each.
    plain = DECODED_NORMALS.replace("bNormalize ? normalize(n) : n", "normalize(n)")
    assert plain != DECODED_NORMALS
    assert 25 <= demand(DECODED_NORMALS).max_live_vgprs <= 27
    assert demand(DECODED_NORMALS).max_live_vgprs == demand(plain).max_live_vgprs


SWITCH_CASES = """
cbuffer C : register(b0) { uint fmt; };
ByteAddressBuffer src : register(t0);
RWBuffer<float4> dst : register(u0);
float4 Unpack(uint p) {
  uint3 f = (p.xxx >> uint3(0u, 10u, 20u)) & 0x3FFu;
  uint3 m = f & 0x7Fu;
  uint3 e = f >> 7u;
  bool3 den = e == 0u;
  uint3 lz = (7u).xxx - firstbithigh(m);
  e = den ? ((1u).xxx - lz) : e;
  m = den ? ((m << lz) & 0x7Fu) : m;
  uint3 r = (f != 0u) ? (((e + 124u) << 23u) | (m << 16u)) : (0u).xxx;
  return float4(asfloat(r), float(p >> 30u) * (1.0f / 3.0f));
}
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  uint4 p = src.Load4(id.x * 16u);
  float4 a, b, c, d;
  switch (fmt) {
FIRST
SECOND
    default:
      a = 0; b = 0; c = 0; d = 0;
      break;
  }
  dst[id.x] = a * b + c * d;
}
"""

UNPACK_CASE = """
    case 3:
      uint q0 = p.x;
      a = Unpack(q0);
      uint q1 = p.y;
      b = Unpack(q1);
      uint q2 = p.z;
      c = Unpack(q2);
      uint q3 = p.w;
      d = Unpack(q3);
      break;
"""

BYTES_CASE = """
    case 5:
      a = float4((p.xxxx >> uint4(0u, 8u, 16u, 24u)) & 255u);
      b = float4((p.yyyy >> uint4(0u, 8u, 16u, 24u)) & 255u);
      c = float4((p.zzzz >> uint4(0u, 8u, 16u, 24u)) & 255u);
      d = float4((p.wwww >> uint4(0u, 8u, 16u, 24u)) & 255u);
      break;
"""


def test_a_case_tested_first_holds_what_the_later_cases_read() -> None:
    # The compiler tests a switch's cases one after another, the last in the source first
    # (SPIR-V's OpSwitch is a chain of `if`s in NIR; xenia's resolve_full format switches).
    # The unpacking case, last in the source, runs while the byte case still has all of `p`
    # to read. regtruth: presched_vgprs 34 (estimate 29 with every case its own branch).
    unpack_tested_first = SWITCH_CASES.replace("FIRST", BYTES_CASE).replace("SECOND", UNPACK_CASE)
    assert 32 <= demand(unpack_tested_first).max_live_vgprs <= 36


def test_a_case_tested_last_holds_nothing_for_the_cases_before_it() -> None:
    # The same two cases in the other order: the unpacking case, first in the source, is tested
    # after the byte case, and the default reads nothing of `p`. regtruth: presched_vgprs 31.
    unpack_tested_last = SWITCH_CASES.replace("FIRST", UNPACK_CASE).replace("SECOND", BYTES_CASE)
    assert 28 <= demand(unpack_tested_last).max_live_vgprs <= 32


RETURNING_CASES = """
cbuffer C : register(b0) { uint mode; float3 light; };
Buffer<float4> src : register(t0);
RWBuffer<float4> dst : register(u0);
struct Lit { float3 diffuse; float3 specular; float3 extra; };
Lit Shade(uint m, float3 n, float3 v) {
  switch (m) {
    case 1: {
      Lit r;
      r.diffuse = saturate(dot(n, light)) * n;
      r.specular = pow(saturate(dot(reflect(-light, n), v)), 8.0) * v;
      r.extra = 0;
      return r;
    }
    case 2: {
      Lit r;
      r.diffuse = n * 0.5 + 0.5;
      r.specular = v * v;
      r.extra = cross(n, v);
      return r;
    }
    default:
      return (Lit)0;
  }
}
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  float4 a = src[id.x];
  float4 b = src[id.x + 64u];
  float4 c = src[id.x + 128u];
  float4 d = src[id.x + 192u];
  float4 e = src[id.x + 256u];
  Lit l = Shade(mode, normalize(a.xyz), normalize(b.xyz));
  dst[id.x] = float4(l.diffuse + l.specular + l.extra, 1.0) * c * d * e + a.w * b.w;
}
"""


def test_a_switch_whose_cases_all_return_holds_no_return_value_before_it() -> None:
    # Every case returns and a default is there, so some case runs; the chain of tests still
    # has a path past every case, on which the return value holds nothing (the compiler's
    # undefined value). regtruth: presched_vgprs 30 (38 with the return value live from the
    # entry on that path). A case that returns goes on through the tests of the cases after
    # it, as NIR's chain of `if`s has it: the values the case tested first returns are live at
    # the test of the next (ACO's peak: its 9 returned VGPRs beside the next case's operands);
    # returning straight to the exit, the estimate was 27.
    assert demand(RETURNING_CASES).max_live_vgprs == 30


VIEW_SPACE_TAPS = """
cbuffer C : register(b0) { float4x4 P; float4 vp; };
Texture2D<float> tD : register(t0);
SamplerState s : register(s0);
float3 ToView(float2 uv, float z) { return float3(z * uv.x / P[0][0], z * uv.y / P[1][1], z); }
float main(float4 pos : SV_Position) : SV_Target
{
    float2 uv = pos.xy * vp.zw;
    float z = tD.SampleLevel(s, uv, 0);
    float3 c = ToView(uv, z);
    float3 n = float3(tD.SampleLevel(s, uv + vp.xy, 0), tD.SampleLevel(s, uv - vp.xy, 0), 1.0);
    float acc = 0;
    [unroll] for (int i = 0; i < 8; ++i) {
        float2 tuv = uv + float2(i, i * i) * vp.zw;
        float tz = tD.SampleLevel(s, tuv, 0);
        float3 tp = ToView(tuv, tz);
        acc += saturate(dot(tp - c, n));
    }
    return acc;
}
"""


def test_a_division_by_uniform_memory_holds_its_reciprocal() -> None:
    # DiligentFX's SSAO rebuilds view-space positions of its taps with `x / P[0][0]`: the
    # compiler divides by multiplying with `rcp(P[0][0])`, one per divisor for every inlined
    # copy, and has no scalar float ALU, so both reciprocals are VGPRs held across the taps.
    # regtruth: presched_vgprs 13; the same shader with products (`* P[0][0]`) 11.
    products = VIEW_SPACE_TAPS.replace("uv.x / P[0][0]", "uv.x * P[0][0]").replace(
        "uv.y / P[1][1]", "uv.y * P[1][1]"
    )
    assert products != VIEW_SPACE_TAPS
    divided, multiplied = split_demand(VIEW_SPACE_TAPS), split_demand(products)
    assert divided.max_live_vgprs - multiplied.max_live_vgprs == 2
    assert 12 <= divided.max_live_vgprs <= 14
    # counting whole vectors (the switch off), the estimate holds enough already: no reciprocal
    whole = demand(VIEW_SPACE_TAPS, costs=WHOLE_VECTORS), demand(products, costs=WHOLE_VECTORS)
    assert whole[0].max_live_vgprs == whole[1].max_live_vgprs


STORED_AT_X = """
cbuffer C : register(b0) { float4x4 P; float4 vp; };
Texture2D<float> tD : register(t0);
SamplerState s : register(s0);
RWStructuredBuffer<float> o : register(u0);
float3 ToView(float2 uv, float z) { return float3(z * uv.x * P[0][0], z * uv.y * P[1][1], z); }
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float2 uv = float2(id.xy) * vp.zw;
    float z = tD.SampleLevel(s, uv, 0);
    float3 c = ToView(uv, z);
    float3 n = float3(tD.SampleLevel(s, uv + vp.xy, 0), tD.SampleLevel(s, uv - vp.xy, 0), 1.0);
    float acc = 0;
    [unroll] for (int i = 0; i < 8; ++i) {
        float2 tuv = uv + float2(i, i * i) * vp.zw;
        float tz = tD.SampleLevel(s, tuv, 0);
        float3 tp = ToView(tuv, tz);
        acc += saturate(dot(tp - c, n));
    }
    o[id.x] = acc;
}
"""


def test_a_store_address_reads_only_the_components_it_names() -> None:
    # `o[id.x] = acc` at the end: the address is `id.x`, so `id.y` dies where `uv` is made
    # and `id.z` is never live. regtruth: presched_vgprs 12; with the store reading `id`
    # whole, 14.
    assert 11 <= split_demand(STORED_AT_X).max_live_vgprs <= 13


CONSTANT_W = """
Texture2D<float4> t : register(t0);
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 a = t.Load(int3(id.xy, 0));
    a.w = 0.25;
    float4 b = t.Load(int3(id.xy + uint2(1, 0), 0));
    b.w = 1.0;
    float4 c = t.Load(int3(id.xy + uint2(0, 1), 0));
    c.w = 0.75;
    float4 d = t.Load(int3(id.xy + uint2(1, 1), 0));
    d.w = 0.5;
    float4 e = t.Load(int3(id.xy * 2, 0));
    float4 f = t.Load(int3(id.xy * 3, 0));
    float4 g = t.Load(int3(id.xy * 5, 0));
    float4 s = e * f + g;
    o[id.x] = a * s + b * s.yzwx + c * s.zwxy + d * s.wxyz;
}
"""


def test_a_component_overwritten_with_a_constant_holds_no_register() -> None:
    # `a.w = 0.25` after a load: from there `a.w` is a constant the compiler folds into the
    # product, so each of the four vectors waits in three registers. regtruth: presched_vgprs
    # 25; the same without the writes (every `.w` loaded), 29. Counted whole: 29 both.
    loaded = "\n".join(line for line in CONSTANT_W.splitlines() if ".w = " not in line)
    assert 23 <= split_demand(CONSTANT_W).max_live_vgprs <= 26
    assert 28 <= split_demand(loaded).max_live_vgprs <= 30


NESTED_LOOPS = """
Texture2D<float4> T : register(t0);
RWTexture2D<float4> O : register(u0);
cbuffer C : register(b0) { uint N; uint M; };
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 acc = T[id.xy];
    acc.w = 0.25;
    for (uint i = 0; i < N; ++i)
    {
        float4 t = T[id.xy + uint2(i, 0)];
        if (t.x > 0.5)
        {
            for (uint j = 0; j < M; ++j)
            {
                float4 u = T[id.xy + uint2(i, j)];
                if (u.y > 0.5) acc.xyz += u.xyz; else acc.x -= u.z;
                if (u.z > 0.25) break;
            }
        }
        else if (t.y > 0.5) acc.y += t.w;
        else acc.z += t.x;
    }
    O[id.xy] = acc;
}
"""


def test_the_constant_components_flow_takes_the_blocks_in_reverse_postorder() -> None:
    # Which components hold a constant at each block (`constant_flow`, a forward must-analysis)
    # is one fixpoint in any order; taken in reverse postorder (a block after its predecessors
    # but for back edges) it settles in a sweep or two: 32 blocks taken for this CFG's 21, where
    # block order took 51 (g_buffer's main_ps: 1,486 for its 1,003 blocks, against 45,974).
    # `acc.w` stays the constant it was set to through both loops, down to the store.
    from hlsllint.analysis.component_liveness import _component_liveness
    from hlsllint.analysis.value_classes import (
        constant_component_masks,
        constant_values,
        def_use,
        kept_loop_blocks,
    )

    m = build_model(parse(NESTED_LOOPS), AnalysisSettings())
    cfg = build_cfg(m, m.entry_points[0])
    comps = _component_liveness(cfg, cfg.component_reads, list(cfg.values))
    assert comps is not None
    du = def_use(cfg)
    comps.constant_flow(cfg, constant_values(du, kept_loop_blocks(cfg)), constant_component_masks(du))
    blocks = len(cfg.successors())
    assert comps.visits < 2 * blocks
    acc = next(v for v in comps.base if v.name == "acc")
    store = next(ins for instrs in cfg.kept_instrs().values() for ins in instrs if ins.op == "store")
    assert comps.k_out[store.block] >> (comps.base[acc] + 3) & 1  # acc.w
    assert not comps.k_out[store.block] >> comps.base[acc] & 1  # acc.x: per lane


def test_an_output_written_at_the_end_holds_nothing_before() -> None:
    # An `out float4` whose `.rgb` and `.a` are written only at the end: before the writes it
    # is undefined (no register), so the partial writes' reads of its other components keep
    # nothing live from the entry point's start. regtruth: presched_vgprs 12; `color.a` held
    # from the start, 13; whole vectors, 16.
    text = """
Texture2D<float4> t : register(t0);
void main(float4 pos : SV_Position, out float4 color : SV_Target)
{
    float4 a = t.Load(int3(pos.xy, 0));
    float4 b = t.Load(int3(pos.xy * 2, 0));
    float4 c = t.Load(int3(pos.xy * 3, 0));
    float4 s = a * b + c;
    color.rgb = s.rgb * s.a;
    color.a = 1.0;
}
"""
    assert 10 <= split_demand(text).max_live_vgprs <= 12


SHARED_DIFFERENCE = """
Texture2D<float4> t : register(t0);
RWStructuredBuffer<float4> o : register(u0);
float3 Rise(float3 p, float3 c) { return exp2(p - c); }
float3 Fall(float3 p, float3 c) { return log2(p - c); }
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float3 p = t.Load(int3(id.xy, 0)).xyz;
    float3 c = t.Load(int3(id.xy + 1, 0)).xyz;
    float3 n = Rise(p, c);
    float4 a = t.Load(int3(n.xy * 64, 0));
    float4 b = t.Load(int3(n.yz * 64, 0));
    float4 e = t.Load(int3(n.zx * 64, 0));
    float4 s = a * b + e;
    o[id.x] = s * float4(Fall(p, c), 1) + float4(p * c, 1);
}
"""


def test_one_operation_of_the_same_values_in_two_helpers_is_one_value() -> None:
    # `p - c` in `Rise` and again in `Fall`: value numbering makes the second the first, held
    # across the loads between (DiligentFX's scattering integrals redo `f3Pos - f3EarthCentre`
    # of the same start point in three helpers). regtruth: presched_vgprs 22; with `c - p` in
    # `Fall` (another value), 19.
    other = SHARED_DIFFERENCE.replace("return log2(p - c);", "return log2(c - p);")
    assert other != SHARED_DIFFERENCE
    shared, apart = split_demand(SHARED_DIFFERENCE), split_demand(other)
    assert shared.max_live_vgprs - apart.max_live_vgprs == 3
    assert 21 <= shared.max_live_vgprs <= 23


def test_one_intrinsic_of_the_same_values_in_two_helpers_is_one_value() -> None:
    # The same with `sqrt(p)` in both helpers: one value, held across the loads between
    # (DiligentFX's SSAO history halves a mip size by `exp2(float(MipLevel))` for each of two
    # textures). regtruth: presched_vgprs 22; with `rsqrt(p)` in the second helper, 19.
    text = (
        SHARED_DIFFERENCE.replace("return exp2(p - c);", "return sqrt(p) * 64.0;")
        .replace("return log2(p - c);", "return sqrt(p) - c;")
        .replace("float3 Rise(float3 p, float3 c)", "float3 Rise(float3 p)")
        .replace("Rise(p, c);", "Rise(p);")
        .replace("* 64, 0)", ", 0)")
    )
    other = text.replace("return sqrt(p) - c;", "return rsqrt(p) - c;")
    assert other != text and "sqrt(p) * 64.0" in text
    shared, apart = split_demand(text), split_demand(other)
    assert shared.max_live_vgprs - apart.max_live_vgprs == 3
    assert 21 <= shared.max_live_vgprs <= 23


def test_an_export_moves_its_constant_components_into_registers() -> None:
    # DiligentFX's sun: `color.a = 1.0` after `.rgb`; the constant takes no register until
    # the export, which writes all four components from registers. regtruth: presched_vgprs 4
    # (3 with the constant left out at the export).
    text = """
cbuffer C : register(b0) { float4 k; };
void main(float2 uv : TEXCOORD0, out float4 color : SV_Target)
{
    float2 d = (uv - k.xy) / k.zw;
    color.rgb = sqrt(saturate(1.0 - dot(d, d))) * float3(1.0, 0.5, 0.25);
    color.a = 1.0;
}
"""
    assert split_demand(text).max_live_vgprs == 4


def test_a_bit_cast_of_a_splat_holds_only_its_operand() -> None:
    # perftest's raw loads: `value += asfloat(src.Load2(a).xyxy)`. The bit cast is no
    # instruction and the splat repeats the loaded pair: the sum reads the pair's two registers,
    # never four. regtruth: presched_vgprs 8 (10 with the cast's four components held).
    text = """
ByteAddressBuffer src : register(t0);
RWBuffer<float> o : register(u0);
cbuffer C : register(b0) { uint start; uint mask; };
[numthreads(256, 1, 1)]
void main(uint gix : SV_GroupIndex)
{
    float4 value = 0.0;
    uint a = gix * 8 + start;
    [loop] for (int i = 0; i < 256; ++i) {
        value += asfloat(src.Load2((a + i * 8) | mask).xyxy);
    }
    o[gix] = value.x * value.y + value.z * value.w;
}
"""
    assert 7 <= split_demand(text).max_live_vgprs <= 8


def test_a_texture_size_is_in_vgprs() -> None:
    # `tex.GetDimensions(res.x, res.y)` into floats: the size is an integer the compiler
    # converts, a vector ALU instruction, so the uniform float size is in VGPRs, and
    # SpartanEngine's blur reads it in its loop (22 measured, 17 -> 21). regtruth:
    # presched_vgprs 16 (the estimate 13 with the size in SGPRs).
    text = """
Texture2D<float4> tex : register(t0);
SamplerState s : register(s0);
RWTexture2D<float4> o : register(u0);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float2 res;
    tex.GetDimensions(res.x, res.y);
    float2 uv = (id.xy + 0.5) / res;
    float4 c = 0;
    [loop] for (int i = 0; i < 16; ++i) {
        float2 suv = (trunc(uv * res) + float(i)) / res;
        c += tex.SampleLevel(s, suv, 0);
    }
    o[id.xy] = c;
}
"""
    assert 14 <= split_demand(text).max_live_vgprs <= 17
    assert demand(text, costs=WHOLE_VECTORS).max_live_vgprs == 13  # switched off: unchanged


SPLAT = """
RWBuffer<float> output : register(u0);
ByteAddressBuffer src : register(t0);
cbuffer CB0 : register(b0) { uint mask; uint writeIndex; uint start; uint pad; };
groupshared float lds[256];
[numthreads(256, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID, uint gix : SV_GroupIndex)
{
    float4 value = 0.0;
    uint h = gix * 4 + start;
    [loop]
    for (int i = 0; i < 256; ++i)
    {
        uint address = (h + i * 4) | mask;
        value += sqrt(asfloat(src.Load(address)).xxxx);
    }
    lds[gix] = value.x + value.y + value.z + value.w;
    GroupMemoryBarrierWithGroupSync();
    [branch]
    if (writeIndex != 0xffffffff) output[tid.x + tid.y] = lds[writeIndex];
}
"""


def test_components_computed_alike_are_one_register() -> None:
    # perftest's raw loads with an operation on the splat: `sqrt(x.xxxx)` is four square roots
    # of one value; the compiler splits the temporary into components and its value numbering
    # computes the one once (not a bit cast, which streams anyway). regtruth: presched_vgprs 7,
    # the same as with `float f = sqrt(x); value += f;` and with `value = max(value, x.xxxx +
    # 1.0)`. Each of the temporary's four components a register: 11.
    scalar = SPLAT.replace(
        "value += sqrt(asfloat(src.Load(address)).xxxx);",
        "float f = sqrt(asfloat(src.Load(address))); value += f;",
    )
    maximum = SPLAT.replace(
        "value += sqrt(asfloat(src.Load(address)).xxxx);",
        "value = max(value, asfloat(src.Load(address)).xxxx + 1.0);",
    )
    assert scalar != SPLAT and maximum != SPLAT
    assert 7 <= split_demand(SPLAT).max_live_vgprs <= 8
    assert split_demand(SPLAT).max_live_vgprs == split_demand(scalar).max_live_vgprs
    assert 7 <= split_demand(maximum).max_live_vgprs <= 8


def test_components_computed_alike_count_once_per_distinct_component() -> None:
    # The same over a Load2's `.xyxy` holds two registers, a Load3's `.xyzx` three; the
    # accumulator's four components stay four (a phi each, which the compiler's value
    # numbering never merges). regtruth: presched_vgprs 8 and 9; with `.xyzw` of a Load4, 10.
    # Each component a register: 11, 11, 11.
    def variant(load: str, swizzle: str, stride: int) -> str:
        text = SPLAT.replace("src.Load(address)).xxxx", f"src.{load}(address)).{swizzle}")
        return text.replace("gix * 4", f"gix * {stride}").replace("i * 4", f"i * {stride}")

    two = split_demand(variant("Load2", "xyxy", 8)).max_live_vgprs
    three = split_demand(variant("Load3", "xyzx", 12)).max_live_vgprs
    four = split_demand(variant("Load4", "xyzw", 16)).max_live_vgprs
    assert 8 <= two <= 9
    assert 9 <= three <= 10
    assert 10 <= four <= 11
    assert two < three < four


def test_a_sum_started_at_zero_holds_nothing_before_its_first_term() -> None:
    # `float3 result = 0; result += s0 * w.x * w.y; ...` (SpartanEngine's sky filter): the
    # first `+=` adds to a constant the compiler folds, so `result` holds no register until
    # then. regtruth: presched_vgprs 15; with the zeros held from the declaration, 18.
    text = """
Texture2D<float4> t : register(t0);
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float2 w = t.Load(int3(id.xy, 0)).xy;
    float3 s0 = t.Load(int3(id.xy + uint2(1, 0), 0)).rgb;
    float3 s1 = t.Load(int3(id.xy + uint2(0, 1), 0)).rgb;
    float3 s2 = t.Load(int3(id.xy + uint2(1, 1), 0)).rgb;
    float3 s3 = t.Load(int3(id.xy + uint2(2, 1), 0)).rgb;
    float3 result = 0.0f.xxx;
    result += s0 * w.x * w.y;
    result += s1 * w.y;
    result += s2 * w.x;
    result += s3 * (w.x - w.y);
    o[id.x] = float4(result, 1.0);
}
"""
    assert 14 <= split_demand(text).max_live_vgprs <= 16


FILTERED_TWICE = """
Texture2D<float4> t : register(t0);
Texture2D<float4> t2 : register(t1);
RWTexture2D<float4> o : register(u0);
float3 f(Texture2D<float4> tex, int2 p, float c) {
    float3 a = 0;
    for (int y = -1; y <= 1; ++y)
        for (int x = -1; x <= 1; ++x) {
            float3 s = tex[p + int2(x, y)].rgb;
            a += s * saturate(c / s.x);
        }
    return a;
}
[numthreads(8, 8, 1)]
void main(uint2 id : SV_DispatchThreadID) {
    float l = f(t, id, 1e10).x;
    o[id] = f(t, id, l).xyzz;
}
"""


FUSED_WAVE_SUM = """
Texture2D<float4> gTex : register(t0);
RWTexture2D<float4> gOut : register(u0);
RWTexture2D<float4> gAux : register(u1);
cbuffer C : register(b0) { uint gMode; };
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 a = gTex.Load(int3(id.xy, 0));
    float3 s0 = WaveActiveSum(a.xyz) / float(WaveGetLaneCount());
    float4 b = gTex.Load(int3(id.xy + 1, 0));
    float4 c = gTex.Load(int3(id.xy + 2, 0));
    float4 d = gTex.Load(int3(id.xy + 3, 0));
    if (gMode == 1)
        gAux[id.xy] = b * c + d;
    float3 r = s0;
    r += b.xyz * c.w + d.xyz * b.w + c.xyz * d.w;
    gOut[id.xy] = float4(r, 1);
}
"""


def test_a_filter_inlined_twice_holds_every_texel_from_the_first_copy_to_the_second() -> None:
    # kajiya's TAA input and history filters: a 3x3 neighbourhood filtered once for a mean,
    # then again weighted by it. Both unrolled copies fetch the same nine texels, which the
    # compiler loads once and holds (with each `rcp(s.x)`) until the second copy reads them.
    # regtruth: presched_vgprs 40 (the estimate before: 11, one copy's live values). Over
    # another texture the second time nothing is shared but the coordinates, which the
    # compiler computes again: 14; with one filter, 12.
    assert 36 <= demand(FILTERED_TWICE).max_live_vgprs <= 44
    other = FILTERED_TWICE.replace("f(t, id, l)", "f(t2, id, l)")
    once = FILTERED_TWICE.replace("float l = f(t, id, 1e10).x;", "float l = o[id].w;")
    assert other != FILTERED_TWICE and once != FILTERED_TWICE
    assert demand(other).max_live_vgprs <= 15
    assert demand(once).max_live_vgprs <= 14


TEMPLATE_REMAP = """
Texture2D<float4> t : register(t0);
RWTexture2D<float4> o : register(u0);
struct Encode {
    static Encode create() { Encode e; return e; }
    float4 remap(float4 v) { return float4(sqrt(v.rgb), 1.0); }
};
template <typename Remap>
float4 taps(int2 p, Remap r) {
    float4 c0 = r.remap(t[p + int2(0, 0)]);
    float4 c1 = r.remap(t[p + int2(1, 0)]);
    float4 c2 = r.remap(t[p + int2(2, 0)]);
    float4 c3 = r.remap(t[p + int2(3, 0)]);
    float4 c4 = r.remap(t[p + int2(0, 1)]);
    float4 c5 = r.remap(t[p + int2(1, 1)]);
    float4 c6 = r.remap(t[p + int2(2, 1)]);
    float4 c7 = r.remap(t[p + int2(3, 1)]);
    return c0 * c7 + c1 * c6 + c2 * c5 + c3 * c4;
}
[numthreads(8, 8, 1)]
void main(uint2 id : SV_DispatchThreadID) {
    o[id] = taps(id, Encode::create());
}
"""


def test_a_method_of_a_template_parameter_is_the_method_of_the_struct_passed() -> None:
    # kajiya's `image_sample_catmull_rom(img, uv, LinearToSrgbRemap::create())`: `remap.remap(v)`
    # on a `template <typename Remap>` parameter is the method of the struct the call passes,
    # as DXC instantiates the template; its constant `.w` holds no register. regtruth:
    # presched_vgprs 26 (the estimate before: 34, each tap a whole opaque call's result, and
    # the estimate incomplete).
    m = build_model(parse(TEMPLATE_REMAP), AnalysisSettings())
    e = m.entry("main")
    assert e is not None
    assert blind.blind_spots(m, e).complete
    assert 25 <= demand(TEMPLATE_REMAP).max_live_vgprs <= 28


TEMPLATE_GENERATOR = """
cbuffer C : register(b0) { int baseMip; };
Texture2D<float> M : register(t0);
RWStructuredBuffer<float2> o : register(u0);
uint Hash32(uint x) { x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; return x; }
uint Combine(uint a, uint b) { return Hash32(a ^ (b * 0x9e3779b9u)); }
struct Base {
    uint baseHash; uint sampleIndex;
    static Base make(uint2 px, uint v, uint s) {
        Base r; r.sampleIndex = s; r.baseHash = Combine(Hash32(v + 0x035F9F29), (px.x << 16) | px.y);
        return r; }
};
struct Gen {
    uint cur; uint active; uint dim;
    static Gen make(const Base b, uint seed = 0, bool ld = false, int sub = 1) {
        Gen r; r.active = b.sampleIndex * sub; r.cur = Combine(b.baseHash, seed);
        if (ld) { r.dim = 0; } else { r.cur = Combine(r.cur, r.active); r.dim = 0xFFFFFFFEu; }
        return r; }
    uint Next() { if (dim >= 0xFFFFFFFEu) { cur = Hash32(cur); return cur; } dim++; return cur ^ dim; }
};
template<typename G> float next1(inout G g) { uint b = g.Next(); return (b >> 8) / float(1 << 24); }
template<typename G> float2 next2(inout G g) { float2 s; s.x = next1(g); s.y = next1(g); return s; }
[numthreads(64, 1, 1)]
void main(uint id : SV_DispatchThreadID)
{
    Gen g = Gen::make(Base::make(uint2(0, 0), 0, 7 * 64 + id));
    float2 p = next2(g);
    uint2 pos = 0;
    for (int mip = baseMip - 1; mip >= 0; mip--) {
        pos *= 2;
        float w0 = M.Load(int3(pos, mip));
        float w1 = M.Load(int3(pos + uint2(1, 0), mip));
        uint2 off;
        if (p.x < w0 / (w0 + w1)) { off.x = 0; p.x = p.x * 2; } else { off.x = 1; p.x = p.x - 0.5; }
        off.y = 0;
        pos += off;
    }
    o[id] = float2(pos);
}
"""


def test_a_template_parameter_passed_a_struct_holds_that_structs_members() -> None:
    # RTXPT's environment-map sampler: `sampleNext2D(inout SampleGeneratorType g)` calls
    # `g.Next()`, which advances a hash seeded per lane. Inside the template, `g` is the
    # struct it was passed, member by member; held as one value of no known type, the method
    # read fresh members no one wrote, the random numbers came out wave-uniform and HL101
    # called the per-lane MIP descent's loads uniform. (The same calls written without the
    # template gave no finding.)
    assert lint_text(TEMPLATE_GENERATOR, ("HL101",)) == []
    direct = TEMPLATE_GENERATOR.replace(
        "float2 p = next2(g);",
        "float2 p; p.x = (g.Next() >> 8) / float(1 << 24); p.y = (g.Next() >> 8) / float(1 << 24);",
    )
    assert direct != TEMPLATE_GENERATOR and lint_text(direct, ("HL101",)) == []
    # and with a wave-uniform seed the loads are uniform: the rule still fires
    uniform = TEMPLATE_GENERATOR.replace("7 * 64 + id", "7 * 64")
    assert uniform != TEMPLATE_GENERATOR
    assert [d.code for d in lint_text(uniform, ("HL101",))] == ["HL101", "HL101"]


SETTINGS_STRUCT = """
Texture2D<float4> t : register(t0);
RWTexture2D<float4> o : register(u0);
cbuffer C : register(b0) { float4 size; };
struct Image {
    Texture2D<float4> tex;
    float2 extent;
    static Image from_parts(Texture2D<float4> x, float2 e) { Image i; i.tex = x; i.extent = e; return i; }
    float4 fetch(int2 p) { return tex[p]; }
};
struct Settings {
    int radius;
    float scale;
    static Settings make_default() { Settings s; s.radius = 2; s.scale = 1; return s; }
    Settings with_radius(int r) { Settings s = this; s.radius = r; return s; }
};
float3 f(Image img, uint2 id, float c, Settings settings) {
    int2 p = int2((id + 0.5) * img.extent);
    float3 a = 0;
    int k = settings.radius;
    for (int y = -k; y <= k; ++y)
        for (int x = -k; x <= k; ++x) {
            float3 s = img.fetch(p + int2(x, y)).rgb;
            a += s * saturate(c / s.x);
        }
    return a;
}
[numthreads(8, 8, 1)]
void main(uint2 id : SV_DispatchThreadID) {
    float l = f(Image::from_parts(t, size.xy), id, 1e10, Settings::make_default().with_radius(1)).x;
    o[id] = f(Image::from_parts(t, size.xy), id, l, Settings::make_default().with_radius(1)).xyzz;
}
"""


def test_a_struct_of_constants_built_by_its_methods_bounds_a_helpers_loops() -> None:
    # kajiya's TAA unjitter: `UnjitterSettings::make_default().with_kernel_half_width_pixels(1)`
    # passed to a helper whose loops run to `settings.kernel_half_width_pixels`: each inlined
    # copy is folded with the struct's constant members, so the loops have 3 iterations and
    # are unrolled; the two copies fetch the same texels through an image struct each call
    # builds (`Image::from_parts(t, size.xy)`: its extent is one value), which the compiler
    # loads once. regtruth: presched_vgprs 40 (the estimate before: 13, loops of unknown
    # trip count; 14 with the trip counts but each copy's coordinates its own).
    m = build_model(parse(SETTINGS_STRUCT), AnalysisSettings())
    e = m.entry("main")
    assert e is not None
    assert [lp.trip_count for lp in build_cfg(m, e).loops] == [3, 3, 3, 3]
    assert 36 <= demand(SETTINGS_STRUCT).max_live_vgprs <= 48


SHARED_TWICE = """
Texture2D<float4> t : register(t0);
RWTexture2D<float4> o : register(u0);
groupshared float4 s[10][10];
groupshared float4 n[10][10];
float variance(int2 c) {
    float4 sum = 0;
    [unroll] for (int dx = -1; dx <= 1; dx++)
        [unroll] for (int dy = -1; dy <= 1; dy++) {
            int2 q = c + int2(dx, dy);
            sum += s[q.y][q.x] * 0.1;
        }
    return max(0, sum.a - sum.r * sum.r);
}
[numthreads(8, 8, 1)]
void main(uint2 id : SV_DispatchThreadID, uint2 tp : SV_GroupThreadID) {
    s[tp.y][tp.x] = t[id];
    n[tp.y][tp.x] = t[id + 64];
    GroupMemoryBarrierWithGroupSync();
    int2 c = int2(tp) + 1;
    float var = variance(c);
    float4 cn = n[c.y][c.x];
    float4 acc = 0;
    float w = 0;
    [unroll] for (int cx = -1; cx <= 1; cx++)
        [unroll] for (int cy = -1; cy <= 1; cy++) {
            int2 q = c + int2(cx, cy);
            float4 sn = n[q.y][q.x];
            float k = exp(-abs(dot(sn, cn)) * var);
            acc += k * s[q.y][q.x];
            w += k;
        }
    o[id] = acc / w;
}
"""


def test_a_neighbourhood_of_groupshared_memory_read_again_by_another_loop_is_held() -> None:
    # NRD's RELAX_SpecularSh_AtrousSmem: a helper sums a 3x3 neighbourhood of groupshared memory
    # for a variance, then the filter's own 3x3 loop (another loop of the source, the same shape)
    # reads the same elements again. The compiler reads each element once (no store or barrier
    # between) and holds the nine float4 until the filter reads them. regtruth: presched_vgprs
    # 49 (the estimate before: 21). The variance over another array: 18; a barrier between the
    # two loops: 18 (the filter reads the elements again).
    assert 44 <= demand(SHARED_TWICE).max_live_vgprs <= 54
    gs_n = "groupshared float4 n[10][10];"
    n_stored = "    n[tp.y][tp.x] = t[id + 64];"
    other = (
        SHARED_TWICE.replace("sum += s[q.y]", "sum += v[q.y]")
        .replace(gs_n, gs_n + "\ngroupshared float4 v[10][10];")
        .replace(n_stored, n_stored + "\n    v[tp.y][tp.x] = t[id + 128];")
    )
    var = "    float var = variance(c);\n"
    barrier = SHARED_TWICE.replace(var, var + "    GroupMemoryBarrierWithGroupSync();\n")
    assert other != SHARED_TWICE and barrier != SHARED_TWICE
    assert demand(other).max_live_vgprs <= 23
    assert demand(barrier).max_live_vgprs <= 23


EDGES_OF_A_CROSS = """
Texture2D<float4> tA : register(t0);
Texture2D<float4> tB : register(t1);
Texture2D<float4> tC : register(t2);
Texture2D<float4> tD : register(t3);
RWTexture2D<float> gOut : register(u0);
float3 LA(int2 p) { return tA.Load(int3(p, 0)).xyz; }
float3 LB(int2 p) { return tB.Load(int3(p, 0)).xyz; }
float3 LC(int2 p) { return tC.Load(int3(p, 0)).xyz; }
float3 LD(int2 p) { return tD.Load(int3(p, 0)).xyz; }
float alphaEdge(int2 p, int2 q) {
    float lum[9];
    int i = 0;
    for (int y = -1; y < 2; ++y)
        for (int x = -1; x < 2; ++x) {
            float3 c = abs(LB(p + int2(x, y)) - LA(p + int2(x, y)));
            float3 d = abs(LD(q + int2(x, y)) - LC(q + int2(x, y)));
            lum[i++] = length(c - d);
        }
    float gx = abs(lum[3] - lum[4]) * abs(lum[5] - lum[4]);
    float gy = abs(lum[1] - lum[4]) * abs(lum[7] - lum[4]);
    return sqrt(sqrt(gx * gy));
}
float solidEdge(int2 p, int2 q) {
    float lum[9];
    int i = 0;
    for (int y = -1; y < 2; ++y)
        for (int x = -1; x < 2; ++x) {
            float3 c = LA(p + int2(x, y));
            float3 d = LC(q + int2(x, y));
            lum[i++] = length(c - d);
        }
    float gx = abs(lum[3] - lum[4]) * abs(lum[5] - lum[4]);
    float gy = abs(lum[1] - lum[4]) * abs(lum[7] - lum[4]);
    return sqrt(sqrt(gx * gy));
}
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    int2 p = int2(id.xy);
    int2 q = p + int2(tD.Load(int3(p, 0)).xy * 4.0);
    gOut[id.xy] = saturate(alphaEdge(p, q) - solidEdge(p, q));
}
"""


def test_iterations_of_an_unrolled_nest_that_write_unread_elements_hold_nothing() -> None:
    # FidelityFX's reactive mask (fsr2_tcr_autogen): two 3x3 loops fill `lum[i++]` with the
    # length of texel differences, and only the cross of 5 is read after each. The compiler's
    # unrolled copies write elements 0 to 8 in turn, the other four are dead with every texel
    # they fetched, and the second loop's texels (the first loop's too) are held from the first
    # loop for the 5 live taps only. regtruth: presched_vgprs 42; the estimate held all 9 taps'
    # texels between the loops (76). The index from the counters, `lum[(y + 1) * 3 + x + 1]`:
    # 42 too (72 before). Every element read (`+ lum[0] * lum[8]`, `+ lum[2] * lum[6]`):
    # regtruth 70, all 9 taps held (76 before and after).
    assert 40 <= demand(EDGES_OF_A_CROSS).max_live_vgprs <= 50
    counters = EDGES_OF_A_CROSS.replace("lum[i++]", "lum[(y + 1) * 3 + x + 1]")
    assert counters != EDGES_OF_A_CROSS
    assert 40 <= demand(counters).max_live_vgprs <= 50
    gy = "abs(lum[1] - lum[4]) * abs(lum[7] - lum[4]);"
    every = EDGES_OF_A_CROSS.replace(gy, gy[:-1] + " + lum[0] * lum[8] + lum[2] * lum[6];")
    assert every != EDGES_OF_A_CROSS
    assert demand(every).max_live_vgprs >= 66


SAMPLES_KEPT = """
Texture2D<float4> tA : register(t0);
Texture2D<float> tB : register(t1);
RWTexture2D<float2> gOut : register(u0);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int2 p = int2(id.xy);
    float3 ref = tA[p].xyz;
    float3 cs[9];
    float rs[9];
    float sum = 0;
    [unroll] for (int y = -1; y < 2; y++)
        [unroll] for (int x = -1; x < 2; x++) {
            int2 s = clamp(p + int2(x, y), 0, 1000);
            int k = (y + 1) * 3 + x + 1;
            float3 c = tA[s].xyz;
            float r = tB[s];
            cs[k] = c;
            rs[k] = r;
            sum += r;
        }
    float2 f = 0;
    if (sum > 0) {
        for (int k = 0; k < 9; k++) {
            float3 c = cs[k];
            float sim = dot(ref, c) / max(dot(ref, ref), dot(c, c));
            f = max(f, float2(pow(rs[k], 1 + 6 * sim), sim));
        }
    }
    gOut[id.xy] = f;
}
"""


def test_an_unrolled_loop_filling_an_array_holds_each_element_once() -> None:
    # FidelityFX's depth clip (PreProcessReactiveMasks): a 3x3 loop stores each tap's color and
    # mask in `cs[k]`, `rs[k]` (`k` a local set from the counters), a second loop reads them
    # back. Unrolled, the value each copy loads is its element: at the last tap eight elements
    # are held and the ninth is the load, and in the second loop the element read is the
    # element's register. regtruth: presched_vgprs 43; the estimate held the arrays whole beside
    # the loaded and read values: 51. With the index written out (`cs[(y + 1) * 3 + x + 1]`,
    # the arrays split before): regtruth 43, the estimate 51 before.
    assert 42 <= demand(SAMPLES_KEPT).max_live_vgprs <= 48
    written = (
        SAMPLES_KEPT.replace("cs[k] = c;", "cs[(y + 1) * 3 + x + 1] = c;")
        .replace("rs[k] = r;", "rs[(y + 1) * 3 + x + 1] = r;")
        .replace("            int k = (y + 1) * 3 + x + 1;\n", "")
    )
    assert written.count("(y + 1) * 3 + x + 1") == 2
    assert 42 <= demand(written).max_live_vgprs <= 48


MEMBER_STORES = """
struct Counters { uint alive; uint aliveAfter; int dead; uint culled; uint cells; };
struct Dispatch { uint x; uint y; uint z; };
struct Args { Dispatch dispatch; uint4 draw; uint pad; };
RWStructuredBuffer<Counters> counters : register(u0);
RWStructuredBuffer<Args> args : register(u1);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint alive = counters[id.x].aliveAfter;
    int dead = counters[id.x].dead;
    Dispatch d;
    d.x = (alive + 255) / 256;
    d.y = 1;
    d.z = 1;
    args[id.x].dispatch = d;
    counters[id.x].alive = alive;
    counters[id.x].aliveAfter = 0;
    counters[id.x].dead = max(0, dead);
    counters[id.x].culled = 0;
    counters[id.x].cells = 0;
}
"""


def test_a_member_written_to_a_structured_buffer_element_stores_only_that_member() -> None:
    # WickedEngine's emittedparticle_kickoffUpdateCS: an element of counters written member by
    # member, and a struct of three dispatch counts stored into a member of another element.
    # The compiler stores each member's words; the estimate read the whole element, changed the
    # member and wrote the element back (the other members live beside it). regtruth:
    # presched_vgprs 7 (the estimate before: 14); at element 0 of a one-thread group: 4 (11).
    assert 6 <= demand(MEMBER_STORES).max_live_vgprs <= 8
    uniform = MEMBER_STORES.replace("[id.x]", "[0]").replace("numthreads(64", "numthreads(1")
    assert uniform.count("[0]") == 8
    assert 4 <= demand(uniform).max_live_vgprs <= 5


STRUCT_STORED = """
struct D { uint x; uint y; uint z; };
struct A { D a; D b; D c; };
RWStructuredBuffer<A> buf : register(u0);
RWStructuredBuffer<uint> cnt : register(u1);
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint n = cnt[0];
    uint m = cnt[1];
    A args;
    args.a.x = (n + 63) / 64; args.a.y = 1; args.a.z = 1;
    args.b.x = (m + 63) / 64; args.b.y = 1; args.b.z = 1;
    args.c.x = n; args.c.y = 1; args.c.z = 1;
    buf[0] = args;
}
"""


def test_a_struct_stored_to_a_buffer_element_stores_its_members_own_registers() -> None:
    # WickedEngine's surfel_indirectprepareCS: three indirect dispatches (nine counts, three
    # computed, six constant) built in a local struct and stored as one element. The compiler
    # stores the members' own registers a few words at a time; the estimate copied the struct
    # into one temporary of nine registers first. regtruth: presched_vgprs 4; the estimate
    # before: 9 (the constants' moves into registers for the stores are not counted: 3).
    assert 3 <= demand(STRUCT_STORED).max_live_vgprs <= 5


PAIRED_TAPS = """
Texture2D<float> t : register(t0);
Texture2D<float> z : register(t1);
RWTexture2D<float> o : register(u0);
cbuffer C { float k; };
static const int offsets[9] = { -4, -3, -2, -1, 0, 1, 2, 3, 4 };
static const float weights[9] = { 0.01, 0.03, 0.1, 0.2, 0.3, 0.2, 0.1, 0.03, 0.01 };
groupshared float color_cache[80];
groupshared float depth_cache[80];
[numthreads(64, 1, 1)]
void main(uint3 g : SV_GroupID, uint gi : SV_GroupIndex) {
    for (uint i = gi; i < 72; i += 64) {
        color_cache[i] = t[uint2(g.x * 64 + i, g.y)];
        depth_cache[i] = z[uint2(g.x * 64 + i, g.y)];
    }
    GroupMemoryBarrierWithGroupSync();
    uint center = 4 + gi;
    float cd = depth_cache[center];
    float cc = color_cache[center];
    float color = 0;
    for (int j = 0; j < 9; ++j) {
        uint s = center + offsets[j];
        float w = saturate(abs(depth_cache[s] - cd) * k);
        color += lerp(color_cache[s], cc, w) * weights[j];
    }
    o[uint2(g.x * 64 + gi, g.y)] = color;
}
"""


def test_groupshared_taps_read_in_pairs_hold_the_second_of_each_pair() -> None:
    # WickedEngine's bilateral blur: an unrolled 9-tap loop over groupshared color and depth at
    # constant offsets from the thread's index. The compiler reads the words two by two
    # (ds_read2_b32), sorted by address over both arrays: the centre reads before the loop
    # take the taps after the centre with them, and the last color tap is read with the first
    # depth tap, each held until its iteration. regtruth: presched_vgprs 12 (the IR's reads:
    # offsets 83+84, 4+5, 8+80, ...); one iteration's live values: 7 (the estimate before).
    # Kept as a loop (`[loop]`): 7, nothing read ahead.
    assert 11 <= demand(PAIRED_TAPS).max_live_vgprs <= 13
    kept = PAIRED_TAPS.replace("    for (int j = 0;", "    [loop] for (int j = 0;")
    assert kept != PAIRED_TAPS
    assert demand(kept).max_live_vgprs <= 8


def test_a_uniform_product_read_only_by_an_addition_holds_no_vgpr() -> None:
    # A wave sum scaled by `1 / WaveGetLaneCount()` (RTXPT's SH reduction), copied into the
    # accumulator that per-lane terms are then added to, after a branch: the compiler fuses
    # the product into the addition (`v_fmamk_f32 sum, rest, 1/64`), the sum stays in SGPRs
    # to the end and the copy is no instruction (SSA). regtruth: presched_vgprs 18; the
    # estimate held the scaled sum in VGPRs from its product: 21. Multiplying instead of
    # adding (`r = s0 * (...)`) holds the product in VGPRs: regtruth 21.
    product = (
        FUSED_WAVE_SUM.replace("float3 r = s0;\n", "")
        .replace("r += b.xyz", "float3 r = s0 * (b.xyz")
        .replace("c.xyz * d.w;", "c.xyz * d.w);")
    )
    assert product != FUSED_WAVE_SUM
    assert demand(FUSED_WAVE_SUM).max_live_vgprs == 18
    assert demand(product).max_live_vgprs == 21


def test_an_array_held_whole_is_live_by_element() -> None:
    # A struct's `float3 c[6]` (RTXPT's SH coefficients) filled in an unrolled loop and read
    # element by element at constant indices: each element dies at its last read, as the
    # compiler's scalar replacement has it. regtruth: presched_vgprs 27; the array's 18
    # registers held to its last element's read: 36.
    text = """
Texture2D<float4> gTex : register(t0);
RWTexture2D<float4> gOut : register(u0);
struct SH { float3 c[6]; };
SH Project(uint2 p)
{
    SH sh;
    [unroll] for (int i = 0; i < 6; i++)
        sh.c[i] = gTex.Load(int3(p + uint2(i, 0), 0)).rgb;
    return sh;
}
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    SH sh = Project(id.xy);
    float4 n = gTex.Load(int3(id.yx, 1));
    float3 r = sh.c[0] * n.x + sh.c[1] * n.y + sh.c[2] * n.z;
    float4 m = gTex.Load(int3(id.yx, 2));
    float4 k = gTex.Load(int3(id.yx, 3));
    float4 q = gTex.Load(int3(id.yx, 4));
    r += sh.c[3] * (m.xyz * k.w) + sh.c[4] * (k.xyz * m.w) + sh.c[5] * (q.xyz * n.w);
    gOut[id.xy] = float4(r, q.w);
}
"""
    assert demand(text).max_live_vgprs == 27


EARLY_RETURN_IN_A_LOOP = """
Texture2D<float4> tex : register(t0);
RWTexture2D<float4> outp : register(u0);
SamplerState smp : register(s0);
cbuffer C : register(b0) { uint count; float limit; float4 k0; float4 k1; };
float4 shade(float4 s, float4 t)
{
    float4 a = s * k0 + t;
    float4 b = t * k1 + s;
    float4 c = sqrt(abs(a * b)) + rsqrt(abs(a - b));
    if (c.w <= limit)
        return 0;
    float4 d = tex.SampleLevel(smp, c.xy, 0);
    return a * c + b * d;
}
[numthreads(8, 8, 1)]
void main(uint2 id : SV_DispatchThreadID)
{
    float4 acc = 0;
    [loop] for (uint i = 0; i < count; ++i)
    {
        float4 s = tex.Load(int3(id.x + i, id.y, 0));
        float4 t = tex.Load(int3(id.x, id.y + i, 0));
        acc += shade(s, t);
    }
    outp[id] = acc;
}
"""


def test_an_early_return_in_a_loop_holds_the_previous_iterations_return_value() -> None:
    # The compiler lowers the early return to a flag guarding the rest of the helper: the
    # value returned there is a select of 0 and the return variable's value before, which in
    # a loop is the last iteration's (a phi of undef and that value at the loop's header), held
    # through the helper's work up to the test (kajiya's brdf_fg: BrdfSample::invalid() in a
    # 1024-sample loop, 22 -> 31 against 30). regtruth presched_vgprs: 26 in the loop; 18 with
    # no loop around the call (the old value is undefined); 22 when what follows the early
    # return is one `return` of two operations (NIR folds both returns into one select).
    assert demand(EARLY_RETURN_IN_A_LOOP).max_live_vgprs == 26
    once = EARLY_RETURN_IN_A_LOOP.replace("[loop] for (uint i = 0; i < count; ++i)", "uint i = count;")
    assert once != EARLY_RETURN_IN_A_LOOP
    assert demand(once).max_live_vgprs == 18
    folded = EARLY_RETURN_IN_A_LOOP.replace(
        "    float4 d = tex.SampleLevel(smp, c.xy, 0);\n    return a * c + b * d;", "    return a * c + b;"
    )
    assert folded != EARLY_RETURN_IN_A_LOOP
    assert demand(folded).max_live_vgprs == 22


UNSET_IN_A_LOOP = """
Texture2D<float4> tex : register(t0);
RWTexture2D<float4> outp : register(u0);
SamplerState smp : register(s0);
cbuffer C : register(b0) { uint count; float limit; float4 k0; float4 k1; };
[numthreads(8, 8, 1)]
void main(uint2 id : SV_DispatchThreadID)
{
    float4 acc = 0;
    [loop] for (uint i = 0; i < count; ++i)
    {
        float4 s = tex.Load(int3(id.x + i, id.y, 0));
        float4 t = tex.Load(int3(id.x, id.y + i, 0));
        float4 a = s * k0 + t;
        float4 b = t * k1 + s;
        float4 c = sqrt(abs(a * b)) + rsqrt(abs(a - b));
        float4 r;
        if (c.w > limit)
            r = tex.SampleLevel(smp, c.xy, 0) * a + b;
        acc += r;
    }
    outp[id] = acc;
}
"""


def test_a_local_declared_without_a_value_in_a_loop_keeps_the_last_iterations_value() -> None:
    # A variable is one register across the loop's iterations: where the branch does not write
    # `r`, the sum reads the last iteration's `r` (a phi of undef and that value at the
    # loop's header), live through the iteration's work. regtruth presched_vgprs: 24; 20 with
    # `float4 r = 0;`; 16 with no loop (undefined before the branch: no register).
    assert demand(UNSET_IN_A_LOOP).max_live_vgprs == 24
    zero = UNSET_IN_A_LOOP.replace("float4 r;", "float4 r = 0;")
    once = UNSET_IN_A_LOOP.replace("[loop] for (uint i = 0; i < count; ++i)", "uint i = count;")
    assert zero != UNSET_IN_A_LOOP and once != UNSET_IN_A_LOOP
    assert demand(zero).max_live_vgprs == 20
    assert demand(once).max_live_vgprs == 16


UNIFORM_INT_SIZE = """
Texture2D<float> gLuma : register(t0);
SamplerState gS : register(s0);
RWTexture2D<float> gOut : register(u0);
cbuffer C : register(b0) { int2 renderSize; float2 jitter; };
float Sample(int2 px)
{
    float2 uv = (px + 0.5f) / renderSize;
    return gLuma.SampleLevel(gS, uv, 0);
}
[numthreads(64, 1, 1)]
void main(uint3 g : SV_GroupID, uint li : SV_GroupIndex)
{
    int2 p = int2(g.xy * 8 + uint2(li & 7, li >> 3)) * 2;
    float v0 = Sample(p);
    float v1 = Sample(p + int2(0, 7));
    float v2 = Sample(p + int2(5, 0));
    float v3 = Sample(p + int2(3, 3));
    gOut[p / 2] = v0 * v1 + v2 * v3;
}
"""


def test_an_integer_of_uniform_memory_in_float_arithmetic_is_converted_into_vgprs() -> None:
    # FidelityFX's `(pos + 0.5f) / RenderSize()` of an `int2` size, in four inlined copies:
    # the compiler converts the size to floats (a vector ALU instruction: no scalar float ALU)
    # and takes their reciprocals once, and holds both in VGPRs across the copies. regtruth:
    # presched_vgprs 9 divided, 9 multiplied (`* renderSize`: the converted size held), 9
    # with a `float2` size (nothing to convert). The integer read from SGPRs by every copy: 7.
    multiplied = UNIFORM_INT_SIZE.replace("(px + 0.5f) / renderSize", "(px + 0.5f) * renderSize")
    floats = UNIFORM_INT_SIZE.replace("int2 renderSize", "float2 renderSize")
    assert multiplied != UNIFORM_INT_SIZE and floats != UNIFORM_INT_SIZE
    assert demand(UNIFORM_INT_SIZE).max_live_vgprs == 9
    assert demand(multiplied).max_live_vgprs == 9
    assert demand(floats).max_live_vgprs == 9


RCAS_TAPS = """
Texture2D<float4> gIn : register(t0);
Texture2D<float4> gExp : register(t1);
RWTexture2D<float4> gOut : register(u0);
float Exposure() { float e = gExp[uint2(0, 0)].x; if (e == 0.0f) e = 1.0f; return e; }
float3 Load(int2 p) { float3 c = gIn[p].rgb; c *= Exposure(); return c; }
void Filter(uint2 ip) {
    int2 sp = int2(ip);
    float3 b = Load(sp + int2(0, -1));
    float3 d = Load(sp + int2(-1, 0));
    float3 e = Load(sp);
    float3 f = Load(sp + int2(1, 0));
    float3 h = Load(sp + int2(0, 1));
    float3 mn = min(min(min(b, d), f), h);
    float3 mx = max(max(max(b, d), f), h);
    float3 lobe = max(-mn / (4.0 * mx), (1.0 - mx) / (4.0 * mn - 4.0));
    float3 c = (lobe * (b + d + f + h) + e) / (4.0 * lobe + 1.0);
    gOut[ip] = float4(c / Exposure(), 1);
}
[numthreads(64, 1, 1)]
void CS(uint3 lt : SV_GroupThreadID, uint3 g : SV_GroupID) {
    uint2 gxy = uint2(lt.x & 7, lt.x >> 3) + uint2(g.x << 4, g.y << 4);
    Filter(gxy);
}
"""

RCAS_CHANNELS = """
Texture2D<float4> gIn : register(t0);
Texture2D<float4> gExp : register(t1);
RWTexture2D<float4> gOut : register(u0);
cbuffer C : register(b0) { uint4 con; };
float Exposure() { float e = gExp[uint2(0, 0)].x; if (e == 0.0f) e = 1.0f; return e; }
float4 Load(int2 p) { float4 c = gIn[p]; c.rgb *= Exposure(); return c; }
void Filter(uint2 ip) {
    int2 sp = int2(ip);
    float3 b = Load(sp + int2(0, -1)).rgb;
    float3 d = Load(sp + int2(-1, 0)).rgb;
    float3 e = Load(sp).rgb;
    float3 f = Load(sp + int2(1, 0)).rgb;
    float3 h = Load(sp + int2(0, 1)).rgb;
    float bR = b.r; float bG = b.g; float bB = b.b;
    float dR = d.r; float dG = d.g; float dB = d.b;
    float eR = e.r; float eG = e.g; float eB = e.b;
    float fR = f.r; float fG = f.g; float fB = f.b;
    float hR = h.r; float hG = h.g; float hB = h.b;
    float mnR = min(min(min(bR, dR), fR), hR);
    float mnG = min(min(min(bG, dG), fG), hG);
    float mnB = min(min(min(bB, dB), fB), hB);
    float mxR = max(max(max(bR, dR), fR), hR);
    float mxG = max(max(max(bG, dG), fG), hG);
    float mxB = max(max(max(bB, dB), fB), hB);
    float lR = max(-mnR / (4.0 * mxR), (1.0 - mxR) / (4.0 * mnR - 4.0));
    float lG = max(-mnG / (4.0 * mxG), (1.0 - mxG) / (4.0 * mnG - 4.0));
    float lB = max(-mnB / (4.0 * mxB), (1.0 - mxB) / (4.0 * mnB - 4.0));
    float lobe = max(-0.1875, min(max(max(lR, lG), lB), 0.0)) * asfloat(con.x);
    float rcpL = rcp(4.0 * lobe + 1.0);
    float3 c;
    c.r = (lobe * bR + lobe * dR + lobe * hR + lobe * fR + eR) * rcpL;
    c.g = (lobe * bG + lobe * dG + lobe * hG + lobe * fG + eG) * rcpL;
    c.b = (lobe * bB + lobe * dB + lobe * hB + lobe * fB + eB) * rcpL;
    gOut[ip] = float4(c / Exposure(), 1);
}
[numthreads(64, 1, 1)]
void CS(uint3 lt : SV_GroupThreadID, uint3 g : SV_GroupID) {
    uint2 gxy = uint2(lt.x & 7, lt.x >> 3) + uint2(g.x << 4, g.y << 4);
    Filter(gxy);
}
"""


def test_a_sum_of_texels_scaled_by_one_factor_holds_the_unscaled_texels() -> None:
    # FidelityFX RCAS: each texel is scaled by the exposure in its load helper (`c *= Exposure()`,
    # inlined five times, each reading the exposure again) and feeds min/max, and the weighted
    # sum `lobe * (b + d + f + h)` (or `lobe * bR + lobe * dR + ...` per channel) is factored by
    # the compiler (NIR: `a*b + a*c -> a*(b+c)`, twice: the lobe, then the exposure) into the
    # exposure times the sum of the unscaled texels, which stay live to it beside the scaled ones.
    # regtruth: presched_vgprs 32 (vector form), 32 (per channel); without the scaling 26, and
    # with `c * Exposure() + 0.0001` (no product left to factor) 26. The estimate before: 27, 25.
    unscaled = RCAS_TAPS.replace(" c *= Exposure();", "")
    offset = RCAS_TAPS.replace("c *= Exposure();", "c = c * Exposure() + 0.0001;")
    assert unscaled != RCAS_TAPS and offset != RCAS_TAPS
    assert demand(RCAS_TAPS, "CS").max_live_vgprs == 33
    assert demand(RCAS_CHANNELS, "CS").max_live_vgprs == 33
    # each channel passed through an empty helper by `inout` (RCAS's `FsrRcasInputF`): a
    # variable written again by the copy back, read as the value it was (regtruth: 32; 25 before)
    passed = RCAS_CHANNELS.replace(
        "void Filter(uint2 ip) {",
        "void In(inout float r, inout float g, inout float b) {}\nvoid Filter(uint2 ip) {",
    ).replace(
        "    float mnR = ",
        "    In(bR, bG, bB); In(dR, dG, dB); In(eR, eG, eB);\n"
        "    In(fR, fG, fB); In(hR, hG, hB);\n    float mnR = ",
    )
    assert passed.count("In(") == 6
    assert demand(passed, "CS").max_live_vgprs == 33
    assert demand(unscaled, "CS").max_live_vgprs == 27
    assert demand(offset, "CS").max_live_vgprs == 27


ELSE_COMMENT = """
Texture2D<float4> g_color : register(t0);
RWTexture2D<float4> g_out : register(u0);
SamplerState g_s : register(s0);
[numthreads(8, 8, 1)]
void CS(uint3 id : SV_DispatchThreadID)
{
    float4 c = g_color.SampleLevel(g_s, id.xy / 64.0, 0);
    if (c.x > 0.5)
        g_out[id.xy] = 1;
    else // a comment
        g_out[id.xy] = g_color.SampleLevel(g_s, id.xy / 32.0, 0) * c
                     + g_color.SampleLevel(g_s, id.xy / 16.0, 0) * c.w;
}
"""


def test_a_comment_after_else_leaves_the_else_statement_in_the_estimate() -> None:
    # XeGTAO's depth of field (`else //gaussian out bokeh` before the blur's whole body): the
    # comment is the else clause's first named child in the tree, which the lowering took for
    # its statement, so the else arm held nothing. regtruth: presched_vgprs 12 with or without
    # the comment; the estimate before: 6 with it (only the first sample), 10 without.
    plain = ELSE_COMMENT.replace("else // a comment", "else")
    assert plain != ELSE_COMMENT
    assert demand(ELSE_COMMENT, "CS").max_live_vgprs == demand(plain, "CS").max_live_vgprs == 10


LOCAL_SIZE = """
Texture2D<float4> g_color : register(t0);
RWTexture2D<float4> g_out : register(u0);
SamplerState g_s : register(s0);
float4 blur(float2 uv)
{
    static const uint N = 12;
    float4 s[N];
    uint i;
    [unroll] for (i = 0; i < N; i++)
        s[i] = g_color.SampleLevel(g_s, uv + i * 0.01, 0);
    float4 acc = g_color.SampleLevel(g_s, uv, 0);
    float n = 1;
    [unroll] for (i = 0; i < N; i++)
    {
        [branch] if (s[i].a > 0)
        {
            acc += s[i];
            n += 1;
        }
    }
    return acc / n;
}
[numthreads(8, 8, 1)]
void CS(uint3 id : SV_DispatchThreadID)
{
    g_out[id.xy] = blur(id.xy / 512.0);
}
"""


def test_an_array_sized_by_a_constant_of_the_body_holds_every_element() -> None:
    # XeGTAO's depth of field bokeh blurs (`static const uint max_bokeh_samples = 27;` in the
    # helper, `float4 bokeh_samples[max_bokeh_samples];`): the size was folded before the
    # body's constant was resolved, so the array had no length and held one element. regtruth:
    # presched_vgprs 51 (12 samples; 111 with 27); the estimate before: 14 (14). The 3 over
    # are the loop's taps beside the elements, as with a literal size (7 before the unrolled
    # copies' element writes and reads were the elements' own registers: 58, 118).
    literal = LOCAL_SIZE.replace("float4 s[N];", "float4 s[12];")
    assert literal != LOCAL_SIZE
    assert demand(LOCAL_SIZE, "CS").max_live_vgprs == demand(literal, "CS").max_live_vgprs == 54
    assert demand(LOCAL_SIZE.replace("N = 12", "N = 27"), "CS").max_live_vgprs == 114


SCAN_PREFIX = """
static const uint EPT = 4;
static const uint TGS = 256;
RWStructuredBuffer<uint> Buf : register(u0);
cbuffer C : register(b0) { uint NumScanValues; };
groupshared int gs_LDS[EPT][TGS];
groupshared uint gs_Sums[TGS];

uint BlockScanPrefix(uint localSum, uint localID)
{
    uint wavePrefixed = WavePrefixSum(localSum);
    uint waveID = localID / WaveGetLaneCount();
    uint laneID = WaveGetLaneIndex();
    if (laneID == WaveGetLaneCount() - 1)
        gs_Sums[waveID] = wavePrefixed + localSum;
    GroupMemoryBarrierWithGroupSync();
    if (!waveID)
        gs_Sums[localID] = WavePrefixSum(gs_Sums[localID]);
    GroupMemoryBarrierWithGroupSync();
    wavePrefixed += gs_Sums[waveID];
    return wavePrefixed;
}

[numthreads(256, 1, 1)]
void CS(uint localID : SV_GroupThreadID, uint groupID : SV_GroupID)
{
    uint BaseIndex = EPT * TGS * groupID;
    uint numValuesToScan = NumScanValues;
    uint i;
    for (i = 0; i < EPT; i++)
    {
        uint DataIndex = BaseIndex + (i * TGS) + localID;
        uint col = ((i * TGS) + localID) / EPT;
        uint row = ((i * TGS) + localID) % EPT;
        gs_LDS[row][col] = (DataIndex < numValuesToScan) ? Buf[DataIndex] : 0;
    }
    GroupMemoryBarrierWithGroupSync();
    uint threadgroupSum = 0;
    for (i = 0; i < EPT; i++)
    {
        uint tmp = gs_LDS[i][localID];
        gs_LDS[i][localID] = threadgroupSum;
        threadgroupSum += tmp;
    }
    threadgroupSum = BlockScanPrefix(threadgroupSum, localID);
    for (i = 0; i < EPT; i++)
        gs_LDS[i][localID] += threadgroupSum;
    GroupMemoryBarrierWithGroupSync();
    for (i = 0; i < EPT; i++)
    {
        uint DataIndex = BaseIndex + (i * TGS) + localID;
        uint col = ((i * TGS) + localID) / EPT;
        uint row = ((i * TGS) + localID) % EPT;
        if (DataIndex < numValuesToScan)
            Buf[DataIndex] = gs_LDS[row][col];
    }
}
"""


SHARED_NEIGHBOURS = """
Texture2D<float> gIn : register(t0);
RWTexture2D<float> gOut : register(u0);
groupshared float sA[12][12];
groupshared float sB[12][12];
[numthreads(8, 8, 1)]
void CS(uint3 tid : SV_GroupThreadID, uint3 id : SV_DispatchThreadID)
{
    sA[tid.y][tid.x] = gIn[id.xy];
    sB[tid.y][tid.x] = gIn[id.xy + 1];
    GroupMemoryBarrierWithGroupSync();
    float a = 0, b = 0;
    [unroll] for (int j = 0; j < 3; j++)
        [unroll] for (int i = 0; i < 3; i++)
        {
            int2 pos = int2(tid.xy) + int2(i, j);
            a += sA[pos.y][pos.x];
        }
    GroupMemoryBarrierWithGroupSync();
    sA[tid.y][tid.x] = a;
    GroupMemoryBarrierWithGroupSync();
    [unroll] for (int j2 = 0; j2 < 3; j2++)
        [unroll] for (int i2 = 0; i2 < 3; i2++)
        {
            int2 pos = int2(tid.xy) + int2(i2, j2);
            b += sB[pos.y][pos.x];
        }
    gOut[id.xy] = a + b;
}
"""


def test_an_index_computed_alike_by_two_unrolled_loops_is_held_from_the_first_to_the_second() -> None:
    # FidelityFX's parallel sort scan (XeGTAO's GPU sort, CSScanPrefix and CSScanAdd): a loop
    # of four iterations loads into groupshared memory at `DataIndex = BaseIndex + i * 256 +
    # localID`, `row`/`col` of `i * 256 + localID`, and a later loop of four stores back at the
    # same indices: the compiler's value numbering computes them once, in the first loop, and
    # holds every iteration's (NIR: the four indices and the four addresses, across the scan and
    # its barriers). regtruth: presched_vgprs 14; the estimate before: 5 (one iteration's).
    assert demand(SCAN_PREFIX, "CS").max_live_vgprs == 13
    # A sum of the thread's position and the counters that only addresses groupshared memory is
    # not held: its constant part goes into the access's offset (NRD's `s[threadPos + (i, j)]`
    # in two unrolled loops). regtruth: 8.
    assert demand(SHARED_NEIGHBOURS, "CS").max_live_vgprs == 9


CENTRE_WEIGHT = """
RWTexture2D<float4> gOut : register(u0);
Texture2D<float4> gIn : register(t0);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int2 p = int2(id.xy);
    float4 c0 = gIn[p] * 0.5;
    float4 result = 0;
    float2 sum = 0;
    [unroll]
    for (int j = 0; j <= 4; j++)
    {
        [unroll]
        for (int i = 0; i <= 4; i++)
        {
            float4 s = gIn[p + int2(i, j) - 2];
            float w = WEIGHT;
            if (i == CENTRE && j == CENTRE)
                c0 += s;
            else
                w *= exp2(-abs(dot(s - c0, 1.0)));
            result += s * w;
            sum.x += w;
            w *= s.w;
            sum.y += w;
        }
    }
    gOut[id.xy] = result / sum.x + sum.y;
}
"""


def centre_weight(weight: str, centre: int = 2, negated: bool = False) -> str:
    text = CENTRE_WEIGHT.replace("WEIGHT", weight).replace("CENTRE", str(centre))
    if negated:  # the same taps, the branch's arms the other way round
        text = text.replace(
            f"if (i == {centre} && j == {centre})\n                c0 += s;\n            else\n"
            "                w *= exp2(-abs(dot(s - c0, 1.0)));",
            f"if (!(i == {centre} && j == {centre}))\n"
            "                w *= exp2(-abs(dot(s - c0, 1.0)));\n            else\n                c0 += s;",
        )
        assert "!(i ==" in text
    return text


def test_a_sum_whose_centre_weight_is_a_literal_holds_the_earlier_weights_until_the_centre() -> None:
    # A 5x5 blur (SIGMA's shadow blur): the weight is 1.0, scaled in every tap but the centre,
    # and summed (`sum.x += w`). The centre adds the constant 1.0 to the sum, and the compiler
    # moves constants to the start of a chain of additions: the chain is rebuilt at the centre
    # tap, `1.0 + w0 + w1 + ... + w11`, so the twelve earlier weights are held until it (ACO
    # IR). regtruth: presched_vgprs 33, either way round the branch; the estimate before: 27.
    # Now the eleven held beside the body's own: 36 (38 while `p = int2(id.xy)` was counted
    # beside `id`).
    assert demand(centre_weight("1.0")).max_live_vgprs == 36
    assert demand(centre_weight("1.0", negated=True)).max_live_vgprs == 36
    # The same with a weight computed in every tap (no constant in the chain): regtruth 25.
    assert demand(centre_weight("0.5 + s.z")).max_live_vgprs == 25
    # The constant in the first tap is at the start already: nothing is deferred. regtruth 28.
    assert demand(centre_weight("1.0", centre=0)).max_live_vgprs == 25
    # A partial sum read in every tap (`result += s * w * sum.x`) is kept as it is: the chain
    # is not rebuilt. regtruth 25.
    read = centre_weight("1.0").replace("result += s * w;", "result += s * w * sum.x;")
    assert "sum.x;" in read
    assert demand(read).max_live_vgprs == 25


ELEMENT_PER_ITERATION = """
Texture2D<float4> t : register(t0);
RWTexture2D<float> o : register(u0);
[numthreads(8, 8, 1)]
void main(uint2 id : SV_DispatchThreadID)
{
    float4 e[2];
    float w[2];
    for (int s = 0; s < 2; s++)
    {
        float4 a = t[id + uint2(s, 0)];
        float4 b = t[id + uint2(s, 1)];
        e[s] = a * b.yzwx;
        e[s] *= a.wzyx;
        w[s] = dot(e[s], a);
        o[id + uint2(s, 0)] = w[s] + e[s].x;
    }
}
"""


def test_an_array_only_the_unrolled_loop_reads_and_writes_at_its_counter_holds_one_element() -> None:
    # XeGTAO's denoise (`edgesC_LRTB[side]`, `weightTL[side]`, `aoTerm[side]` in a loop over
    # two sides): unrolled, each copy of the body reads and writes its own element only, so
    # no element lives from one copy to the next. regtruth: presched_vgprs 11; every element
    # held across the loop before: 22 (CSDenoisePass 63 against 36).
    assert demand(ELEMENT_PER_ITERATION).max_live_vgprs == 12


GAUSSIAN_TAPS = """
Texture2D<float4> tex : register(t0);
SamplerState smp : register(s0);
RWTexture2D<float4> o : register(u0);
static const float w[7] = { 0.19, 0.29, 0.29, 0.09, 0.09, 0.01, 0.01 };
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float2 pixel = id.xy + 0.5;
    float2 res = float2(1920, 1080);
    float2 dir = float2(1, 0);
    float4 color[7];
    color[0] = tex.SampleLevel(smp, pixel / res, 0);
    float2 off1 = 1.41 * dir;
    float2 off2 = 3.29 * dir;
    float2 off3 = 5.17 * dir;
    color[1] = tex.SampleLevel(smp, (pixel + off1) / res, 0);
    color[2] = tex.SampleLevel(smp, (pixel - off1) / res, 0);
    color[3] = tex.SampleLevel(smp, (pixel + off2) / res, 0);
    color[4] = tex.SampleLevel(smp, (pixel - off2) / res, 0);
    color[5] = tex.SampleLevel(smp, (pixel + off3) / res, 0);
    color[6] = tex.SampleLevel(smp, (pixel - off3) / res, 0);
    float4 blur = 0;
    float sumW = max(0.1, pow(color[0].a, 4.0) * w[0]);
    blur.rgba += color[0].rgba * sumW;
    [unroll]
    for (uint i = 1; i < 7; i++)
    {
        float weight = pow(color[i].a, 4.0) * w[i];
        blur.rgba += color[i].rgba * weight;
        sumW += weight;
    }
    o[id.xy] = blur / sumW;
}
"""


def test_a_loop_over_the_later_elements_of_an_array_and_a_swizzled_sum_hold_no_more() -> None:
    # XeGTAO's gaussian depth-of-field blurs (`blur_gauss_weighted`): seven taps sampled into
    # `color[7]`, the first summed before an unrolled loop over `color[i]` from 1. Each copy
    # reads its own element, so `color[0]` dies before the loop (the loop's read held every
    # element); and `blur.rgba += c * w` writes each component in place, as `blur += c * w`
    # does (its sum was held whole beside `blur`), and the product of either is one fused
    # multiply-add per lane of `blur` (it was counted one register). regtruth: presched_vgprs
    # 32, both spellings; before: 41.
    assert demand(GAUSSIAN_TAPS).max_live_vgprs == 32
    plain = GAUSSIAN_TAPS.replace("blur.rgba += color[i].rgba * weight", "blur += color[i] * weight")
    assert plain != GAUSSIAN_TAPS
    assert demand(plain).max_live_vgprs == 32


def test_a_value_carried_around_a_kept_loop_is_found_in_one_pass_over_its_definitions() -> None:
    # `_carried`: a loop that a definition inside it computes from values and that another
    # definition lies outside of. It takes each block's loops as bits (`_loops_around`), one pass
    # over the definitions instead of one per loop (g_buffer's main_ps: every candidate constant
    # against every kept loop); the same answer as asking each loop in turn, on random loops.
    import random

    from hlsllint.analysis.ir import Instr, Value
    from hlsllint.analysis.value_classes import _carried, _loops_around
    from hlsllint.semantic import types as T

    def per_loop(ds: list[Instr], loops: list[frozenset[int]]) -> bool:
        for blocks in loops:
            inside = [d for d in ds if d.block in blocks]
            if any(d.reads for d in inside) and len(inside) < len(ds):
                return True
        return False

    rng = random.Random(7)
    x = Value(0, "x", 1, "var", T.UNKNOWN, None)
    seen = {True: 0, False: 0}
    for _ in range(400):
        loops = [frozenset(rng.sample(range(12), rng.randint(1, 6))) for _ in range(rng.randint(0, 5))]
        ds = [
            Instr("alu", x, [x] if rng.random() < 0.5 else [], (0, 0), "lane", {}, rng.randrange(12))
            for _ in range(rng.randint(1, 4))
        ]
        want = per_loop(ds, loops)
        assert _carried(ds, _loops_around(loops)) == want
        seen[want] += 1
    assert seen[True] and seen[False]


def test_the_set_bits_of_a_number_are_listed_lowest_first_however_few() -> None:
    # `_bit_indices` takes a few set bits off the top one at a time (a vector's live components,
    # the components an instruction changes among the thousands of an entry point's) and reads
    # the binary digits of a number with many; both give the positions lowest first.
    import random

    from hlsllint.analysis import component_liveness as cl

    rng = random.Random(3)
    for size in (1, 4, 30, 64, 300, 6000):
        for count in (0, 1, 2, cl.FEW_BITS, cl.FEW_BITS + 1, 40):
            bits = sorted(rng.sample(range(size), min(count, size)))
            x = sum(1 << b for b in bits)
            assert cl._bit_indices(x) == bits


TWO_RINGS = """
static const int2 offsets[8] = {
    int2(-1, -1), int2(-1, 0), int2(-1, 1), int2(0, 1), int2(1, 1), int2(1, 0), int2(1, -1), int2(0, -1)
};
Texture2D<float4> gA : register(t0);
Texture2D<float4> gB : register(t1);
SamplerState s0 : register(s0);
RWTexture2D<float4> gOut : register(u0);
cbuffer C : register(b0) { float4 res; };
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int2 p = int2(id.xy);
    float4 v = gA[p];
    [unroll]
    for (uint i = 0; i < 8; ++i)
    {
        float4 w = gA[p + offsets[i]];
        if (dot(w.xy, w.xy) > dot(v.xy, v.xy)) v = w;
    }
    float2 uv = (float2(p) + v.xy) * res.zw;
    float4 a = gB.SampleLevel(s0, uv + float2(res.z, 0), 0);
    float4 b = gB.SampleLevel(s0, uv - float2(res.z, 0), 0);
    float4 c = gB.SampleLevel(s0, uv + float2(0, res.w), 0);
    float4 d = gB.SampleLevel(s0, uv - float2(0, res.w), 0);
    float4 h = (a * v.z + b * v.w + c * a.w + d * b.w) * 0.25;
    float4 m1 = 0, m2 = 0;
    [unroll]
    for (uint k = 0; k < 8; ++k)
    {
        float4 n = gB[clamp(p + offsets[k], 0, int2(res.xy))];
        m1 += n; m2 += n * n;
    }
    gOut[id.xy] = h * m1 + m2;
}
"""


def test_coordinates_two_loops_compute_alike_from_one_table_are_held_by_component() -> None:
    # Two 8-tap loops over one table of offsets -1, 0 and 1 (IntelTAA's longest velocity, then
    # its variance clip), work between them: the compiler's value numbering computes `p +
    # offsets[i]` component by component, so between the loops it holds x-1, x+1, y-1 and y+1
    # (the 0 offsets are `p` itself), not eight int2. regtruth: presched_vgprs 25; the estimate
    # before, every iteration's int2 held: 38; 26 while `p = int2(id.xy)` was counted beside
    # `id`, 24 since.
    assert demand(TWO_RINGS).max_live_vgprs == 24


BOKEH = """
Texture2D<float4> gIn : register(t0);
SamplerState s0 : register(s0);
RWTexture2D<float4> gOut : register(u0);
cbuffer C : register(b0) { float dist; };
static const float2 kernel[6] = {
    float2(0.33, 0), float2(0, 0.41), float2(-0.5, 0), float2(0, -0.58), float2(0.66, 0), float2(0.44, 0.55)
};
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint2 res;
    gOut.GetDimensions(res.x, res.y);
    float2 texel = 1.0 / res;
    float2 uv = (id.xy + 0.5) * texel;
    float4 color[7];
    color[0] = gIn.SampleLevel(s0, uv, 0);
    int start = 1;
    [unroll]
    for (uint i = 0; i < 6; i++)
    {
        float2 suv = uv + texel * kernel[i] * dist;
        color[start++] = gIn.SampleLevel(s0, suv, 0);
    }
    float4 sum = color[0];
    uint n = 1;
    [unroll]
    for (uint k = 1; k < 7; k++)
    {
        [branch]
        if (color[k].a > 0)
        {
            sum += color[k];
            n++;
        }
    }
    gOut[id.xy] = sum / n;
}
"""


def test_an_element_set_before_a_running_index_starts_does_not_stop_its_writes_being_in_place() -> None:
    # XeGTAO's bokeh blur: `color[0]` is sampled before the loop, which fills `color[start++]`
    # from 1. The element no iteration writes is not one of the loop's writes, so the value
    # each copy writes is still the element's own register. regtruth: presched_vgprs 30; the
    # estimate before: 39 (the sample counted beside its element).
    assert demand(BOKEH).max_live_vgprs == 37


COPIED_LOCALS = """
Texture2D<float4> t : register(t0);
RWTexture2D<float4> o : register(u0);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 a = t[id.xy];
    float4 b = a;
    float4 s = 0;
    for (int i = 0; i < 4; i++)
        s += t[id.xy + uint2(i, 0)] * b;
    o[id.xy] = s + a;
}
"""

COPIED_COORDINATES = """
Texture2D<float4> t : register(t0);
RWTexture2D<float4> o : register(u0);
[numthreads(8, 8, 1)]
void main(uint2 id : SV_DispatchThreadID)
{
    int2 p = int2(id);
    float4 s = 0;
    [loop] for (int i = 0; i < 4; i++)
        s += t[p + int2(i, 0)];
    o[id] = s;
}
"""


def test_a_local_set_from_a_variable_never_written_after_is_that_variables_registers() -> None:
    # `float4 b = a;` with neither written again, both read later: in SSA form `b` is `a`.
    # regtruth: presched_vgprs 14; the copy held beside its source before: 18.
    assert demand(COPIED_LOCALS).max_live_vgprs == 14
    # `int2 p = int2(id)` (the coordinate FidelityFX's passes copy from the dispatch ID):
    # reinterpreted between signed and unsigned, the same registers. regtruth: 10; `p` held
    # beside `id` before: 12.
    assert demand(COPIED_COORDINATES).max_live_vgprs == 10


CONVERTED_COORDINATE = """
Texture2D<float4> gIn : register(t0);
RWTexture2D<float4> gOut : register(u0);
cbuffer C : register(b0) { float4 k; };
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int2 p = int2(id.xy);
    float4 a = gIn[p + int2(1, 0)];
    float4 b = gIn[p + int2(0, 1)];
    float4 c = gIn[p - int2(1, 0)];
    float4 d = gIn[p - int2(0, 1)];
    float4 e = gIn[p];
    gOut[id.xy] = a * b.x + c * d.y + e * k;
}
"""


def test_a_conversion_between_signed_and_unsigned_is_its_operands_registers_while_both_live() -> None:
    # `int2 p = int2(id.xy)` of a `uint3 id` whose `.xy` is read again at the end: the
    # conversion changes no bit, so the compiler emits no instruction and `p` is `id.xy`'s
    # registers (the local is not a whole copy of `id`, so the lowering keeps it a value of its
    # own). regtruth: presched_vgprs 16; `p` held beside `id` before: 17.
    assert demand(CONVERTED_COORDINATE).max_live_vgprs == 16


MATRIX_ROWS = """
cbuffer F : register(b0) { float4x4 mats[64]; };
StructuredBuffer<float4> pos : register(t0);
RWStructuredBuffer<float4> outb : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 p = pos[id.x];
    float4x4 m = mats[asuint(p.w) & 63];
    float4 q = pos[id.x + 64];
    float3 c = mul(m, float4(p.xyz, 1)).xyz;
    outb[id.x] = float4(c * q.xyz, q.w);
}
"""


def test_a_matrix_product_reads_the_rows_its_kept_components_need() -> None:
    # WickedEngine's emittedparticle_simulateCS: `mul(m, float4(p, 1)).xyz` of a 4x4 matrix
    # loaded at a per-lane index. Component i of `mul(m, v)` reads row i of `m`: the compiler
    # loads three rows, never the fourth. regtruth: presched_vgprs 18; the whole matrix
    # counted before: 24.
    assert demand(MATRIX_ROWS).max_live_vgprs == 20


MATRIX_CAST = """
cbuffer U : register(b0) { float4x4 m; float sp; };
struct VO { float4 pos : SV_POSITION; float3 n : NORMAL0; };
VO main(float3 p : POSITION0, float3 n : NORMAL0, float3 r : TEXCOORD1)
{
    float s = sin(r.y + sp);
    float c = cos(r.y + sp);
    float4x4 g;
    g[0] = float4(c, 0.0, -s, 0.0);
    g[1] = float4(0.0, 1.0, 0.0, 0.0);
    g[2] = float4(s, 0.0, c, 0.0);
    g[3] = float4(0.0, 0.0, 0.0, 1.0);
    VO o;
    o.pos = mul(m, mul(g, float4(p, 1.0)));
    o.n = mul((float3x3)mul(m, g), n);
    return o;
}
"""


def test_a_matrix_written_by_rows_and_cast_smaller_holds_what_is_read() -> None:
    # Vulkan-Samples' instancing.vert: a rotation built row by row with constant rows and
    # zeros (`g[1] = float4(0, 1, 0, 0)`), and `(float3x3)mul(m, g)` of a 4x4 product. The
    # constant components of the rows take no register, and the cast reads nine components of
    # the product, which computes only those. regtruth: presched_vgprs 13; before: 21 (both
    # matrices whole).
    assert demand(MATRIX_CAST).max_live_vgprs == 16


STATIC_RING = NEIGHBOURS[NEIGHBOURS.index("static const int2 ring") : NEIGHBOURS.index("[numthreads")]
RING_IN_MAIN = NEIGHBOURS.replace(STATIC_RING, "").replace(
    "{\n    float own",
    "{\n    const int2 ring[8] = { int2(-1, 0), int2(1, 0), int2(0, -1), int2(0, 1),"
    " int2(-1, -1), int2(-1, 1), int2(1, -1), int2(1, 1) };\n    float own",
)
"""`NEIGHBOURS` with its offset table declared `const` in the entry point instead of globally."""

NEAREST_DEPTH = """
Texture2D<float> gDepth : register(t0);
RWTexture2D<float> gOut : register(u0);
RWTexture2D<int2> gCoord : register(u1);
cbuffer C : register(b0) { int2 size; };
bool IsOnScreen(int2 pos, int2 sz) { return all(pos < sz) && all(pos >= 0); }
void FindNearestDepth(int2 iPxPos, int2 iPxSize, out float fNearestDepth, out int2 fNearestDepthCoord)
{
    const int iSampleCount = 9;
    const int2 iSampleOffsets[iSampleCount] = {
        int2(+0, +0), int2(+1, +0), int2(+0, +1), int2(+0, -1), int2(-1, +0),
        int2(-1, +1), int2(+1, +1), int2(-1, -1), int2(+1, -1),
    };
    float depth[9];
    int iSampleIndex = 0;
    [unroll]
    for (iSampleIndex = 0; iSampleIndex < iSampleCount; ++iSampleIndex) {
        int2 iPos = iPxPos + iSampleOffsets[iSampleIndex];
        depth[iSampleIndex] = gDepth[iPos];
    }
    fNearestDepthCoord = iPxPos;
    fNearestDepth = depth[0];
    [unroll]
    for (iSampleIndex = 1; iSampleIndex < iSampleCount; ++iSampleIndex) {
        int2 iPos = iPxPos + iSampleOffsets[iSampleIndex];
        if (IsOnScreen(iPos, iPxSize)) {
            float fNdDepth = depth[iSampleIndex];
            if (fNdDepth < fNearestDepth) {
                fNearestDepthCoord = iPos;
                fNearestDepth = fNdDepth;
            }
        }
    }
}
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float d; int2 c;
    FindNearestDepth(int2(id.xy), size, d, c);
    gOut[id.xy] = d;
    gCoord[id.xy] = c;
}
"""


def test_a_const_table_inside_a_function_is_a_table_as_a_static_one() -> None:
    # A jump-flood pass over 8 neighbours with its offsets in a `const int2 ring[8]` declared in
    # the entry point: never written, read at the counter of a loop the compiler unrolls, it is
    # a table of constants as a global `static const` one (the coordinates the iterations share
    # are held between them). regtruth: presched_vgprs 17 in both forms; the estimate 15 for the
    # global table, 12 for the local one before (a run-time array).
    assert RING_IN_MAIN != NEIGHBOURS and "static const" not in RING_IN_MAIN
    local = demand(RING_IN_MAIN).max_live_vgprs
    glob = demand(NEIGHBOURS).max_live_vgprs
    assert local == glob == 15
    # FidelityFX's FindNearestDepth (FSR2's previous depth, frame interpolation's dilation):
    # a local table read by two unrolled loops at `iPxPos + offsets[i]`, with `iPxPos` the
    # dispatch ID converted to `int2`. The loops hold x-1, x+1, y-1 and y+1 between them, as the
    # truth does; the converted coordinate is `id.xy`'s registers. regtruth: presched_vgprs 16;
    # the table alone made it 19 (`int2(id.xy)` counted beside `id`).
    assert demand(NEAREST_DEPTH).max_live_vgprs == 17


GATHERED_LIVE = """
cbuffer F : register(b0) { float4x4 mats[64]; };
StructuredBuffer<float4> pos : register(t0);
RWStructuredBuffer<float4> outb : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 p = pos[id.x];
    float3 q = p.xyz;
    if (p.w > 0)
        q += pos[id.x + 128].xyz;
    float4x4 m = mats[asuint(p.w) & 63];
    float3 c = mul(m, float4(q, 1)).xyz;
    outb[id.x] = float4(c * q, p.w);
}
"""


def test_a_constructor_of_variables_read_later_is_their_registers() -> None:
    # WickedEngine's emittedparticle_simulateCS: `mul(m, float4(q, 1))` with `q` read after it
    # and the matrix loaded between the constructor and the product. The compiler splits the
    # vector into its components: the product reads `q`'s own registers. regtruth:
    # presched_vgprs 15; the constructor held beside `q` before: 20.
    assert demand(GATHERED_LIVE).max_live_vgprs == 17


FIRST_COPY_ELEMENTS = """
Texture2D<float4> T : register(t0);
SamplerState S : register(s0);
cbuffer K : register(b0) { float4 C; float4 D; };
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{
    float u[3];
    float w[3];
    u[0] = uv.x * C.x + C.w;
    u[1] = uv.x * C.y - C.w;
    u[2] = uv.x * C.z + D.w;
    w[0] = uv.y * D.x;
    w[1] = uv.y * D.y + 1.0;
    w[2] = uv.y * D.z - 1.0;
    float4 acc = 0.0;
    float4 sq = 0.0;
    [unroll]
    for (int i = 0; i < 3; ++i)
    {
        float4 t = T.SampleLevel(S, float2(u[i], uv.y), 0);
        float4 s = T.SampleLevel(S, float2(uv.x, u[i]), 0);
        acc += t * w[i] + s;
        sq += t * s * w[i];
    }
    return acc * sq;
}
"""


def test_an_element_only_the_first_unrolled_copy_reads_dies_at_its_read() -> None:
    # A 3-trip [unroll] loop reads split local arrays at its counter, `u[i]` and `w[i]`. The
    # loop's body stands for every unrolled copy; the first holds the most, and in it `u[0]`
    # dies at its last read (`w[0]` is read to the end of the body): the back edge does not
    # carry it to a later copy. regtruth: presched_vgprs 25 (25 unrolled by hand); counted
    # before: 28 (every element live through the body), now 27.
    d = demand(FIRST_COPY_ELEMENTS)
    assert d.max_live_vgprs == 27
    names = {v.name for v in d.peak_values}
    assert "u[0]" not in names and {"u[1]", "u[2]", "w[0]"} <= names
