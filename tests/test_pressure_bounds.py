"""Register-pressure model against regtruth (navi21 wave64): descriptors and hardware limits."""

from __future__ import annotations

from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel
from hlsllint.analysis.pressure import EntryDemand, analyse_entry, bound_registers
from hlsllint.context import AnalysisSettings
from hlsllint.semantic import Model, build_model
from hlsllint.syntax import parse
from hlsllint.targets import resolve_target


def model(text: str) -> Model:
    return build_model(parse(text), AnalysisSettings())


def demand(text: str) -> EntryDemand:
    m = model(text)
    entry = m.entry("main")
    assert entry is not None
    return analyse_entry(m, entry, 64)


def test_descriptors_are_loaded_at_use_and_dead_after() -> None:
    # 24 textures read one after another. regtruth navi21 wave64: presched_sgprs 10,
    # sgprs_used 96 after scheduling (loads hoisted for latency), no spill.
    # Kept live from entry, the descriptors alone would be 24 x 8 = 192 SGPRs.
    n = 24
    lines = [f"Texture2D<float4> t{i} : register(t{i});" for i in range(n)]
    lines += [
        "RWStructuredBuffer<float4> o : register(u0);",
        "[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) {",
        "    float4 s = 0;",
    ]
    lines += [f"    s += t{i}.Load(int3(id.x, {i}, 0));" for i in range(n)]
    lines += ["    o[id.x] = s;", "}"]
    d = demand("\n".join(lines))
    assert d.max_live_sgprs <= 16
    assert d.spilled_sgprs == 0


def test_sgpr_estimate_never_exceeds_the_addressable_registers() -> None:
    # 120 uniform integers all live at once. regtruth navi21 wave64: sgprs_used 106 (the limit),
    # spilled_sgprs 18, presched_sgprs 108.
    n = 120
    lines = [
        "cbuffer C : register(b0) { uint count; uint step; };",
        "RWStructuredBuffer<uint> o : register(u0);",
        "[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) {",
    ]
    lines += [f"    uint a{i} = (count ^ {i * 7919 + 13}u) * (step + {i}u);" for i in range(n)]
    lines += ["    uint s = id.x;"]
    lines += [f"    s = s * a{i} + {i}u;" for i in reversed(range(n))]
    lines += ["    o[id.x] = s;", "}"]
    d = demand("\n".join(lines))
    assert d.max_live_sgprs == 106
    assert d.spilled_sgprs > 0
    assert all(sc.sgprs <= 106 for sc in d.spans)


def test_bound_registers_spills_past_the_limits() -> None:
    rdna = resolve_target("rdna2")
    gcn = resolve_target("gcn")
    b = bound_registers(rdna, 64, 10, 200)
    assert (b.vgprs, b.sgprs, b.spilled_sgprs, b.spilled_vgprs) == (10, 106, 94, 0)
    assert bound_registers(gcn, 64, 10, 200).sgprs == 102
    b = bound_registers(rdna, 32, 300, 20)
    assert (b.vgprs, b.spilled_vgprs, b.sgprs) == (256, 44, 20)
    assert bound_registers(rdna, 64, 40, 30).vgprs == 40


def test_only_the_member_read_from_a_cbuffer_array_is_loaded() -> None:
    # regtruth navi21 wave64: presched_vgprs 9, presched_sgprs 19 (the 32 cameras are 1,664
    # dwords; only one matrix at a uniform index and one float4 at a per-lane index are loaded).
    d = demand(
        """
struct Camera { float4x4 viewProj; float4x4 view; float4x4 invView; float4 pos; };
cbuffer Cams : register(b0) { Camera cams[32]; uint camIndex; };
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {
    float4 p = float4(id.x, id.y, 1, 1);
    o[id.x] = mul(cams[camIndex].viewProj, p) + cams[id.x & 31].pos;
}
"""
    )
    assert 8 <= d.max_live_vgprs <= 12
    assert 16 <= d.max_live_sgprs <= 24


def test_static_const_table_is_constant_memory() -> None:
    # regtruth navi21 wave64: presched_vgprs 10, presched_sgprs 10: the table indexed per lane
    # inside the loop is read from memory at each use, never held in registers.
    rows = ", ".join(f"float4({i}.1, {i}.2, {i}.3, {i}.4)" for i in range(16))
    d = demand(
        f"""
static const float4 kOffsets[16] = {{ {rows} }};
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {{
    float4 s = o[id.x];
    for (uint i = 0; i < id.y; ++i)
        s = s * kOffsets[(id.x + i) & 15] + kOffsets[3];
    o[id.x] = s;
}}
"""
    )
    assert d.max_live_vgprs <= 14
    assert d.max_live_sgprs <= 14


def test_struct_accessor_loads_only_the_member_read() -> None:
    # An accessor returning a 100-dword struct, of which one float4x4 is read.
    # regtruth navi21 wave64: presched_vgprs 19 (16 for the matrix, the position, the id).
    # Counted as the whole struct it was 175.
    d = demand(
        """
struct Camera { float4x4 viewProj; float4x4 view; float4x4 proj; float4x4 invView; float4 pos;
                float4 params[8]; };
StructuredBuffer<Camera> cameras : register(t0);
RWStructuredBuffer<float4> o : register(u0);
Camera GetCamera(uint i) { return cameras[i]; }
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) {
    float4 p = float4(id.x, id.y, 1, 1);
    Camera c = GetCamera(id.x & 3);
    o[id.x] = mul(c.viewProj, p);
}
"""
    )
    assert 17 <= d.max_live_vgprs <= 24
    assert all(v.name != "GetCamera.params" for v in d.peak_values)


def test_element_of_a_2d_groupshared_array_is_one_value_not_a_row() -> None:
    # regtruth navi21 wave64: presched_vgprs 6. A row counted as live was 16 VGPRs (23 in all).
    d = demand(
        """
groupshared float tile[16][16];
RWStructuredBuffer<float> o : register(u0);
[numthreads(16,16,1)] void main(uint3 gid : SV_GroupThreadID, uint3 id : SV_DispatchThreadID) {
    tile[gid.y][gid.x] = id.x * 0.5;
    GroupMemoryBarrierWithGroupSync();
    o[id.x + id.y * 64] = tile[gid.x][gid.y] + tile[15 - gid.y][gid.x];
}
"""
    )
    assert d.max_live_vgprs <= 9


def test_values_that_reach_no_output_are_not_computed() -> None:
    # Two of three loads feed only an unused value. regtruth navi21 wave64: presched_vgprs 5.
    # Kept, the loads and their product were 15.
    d = demand(
        """
Texture2D<float4> t : register(t0);
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) {
    float4 a = t.Load(int3(id.xy, 0));
    float4 b = t.Load(int3(id.yx, 0));
    float4 c = t.Load(int3(id.x, 3, 0));
    float4 unused = a * b + c * 3.0;
    o[id.x] = a;
}
"""
    )
    assert d.max_live_vgprs <= 8


def pixel_demand(text: str, costs: CostModel = DEFAULT_COSTS) -> EntryDemand:
    m = model(text)
    entry = m.entry("main")
    assert entry is not None and entry.stage == "pixel"
    return analyse_entry(m, entry, 64, costs)


def test_componentwise_temporaries_are_not_held_whole() -> None:
    # Two lights accumulated into a float4. regtruth navi21 wave64: presched_vgprs 6.
    # Holding the float4 product whole as well was 11. Counting whole vectors (the liveness by
    # component off) the stream of the temporary gives 9. By component: `c.a = 1` overwrites
    # the accumulator's `.w` before any read, so the compiler never computes it, nor the
    # product's `.w` that only it read (a component-wise instruction reads only what its
    # result's live components need): 8; with the four components held through both lights, 10.
    d = pixel_demand(
        """
cbuffer Lights : register(b0) { float4 lightDir[2]; float4 lightColor[2]; };
struct PSIn { float4 pos : SV_POSITION; float3 n : NORMAL; };
float4 main(PSIn input) : SV_Target {
    float4 c = 0;
    for (int i = 0; i < 2; i++)
        c += saturate(dot((float3)lightDir[i], input.n) * lightColor[i]);
    c.a = 1;
    return c;
}
"""
    )
    assert 6 <= d.max_live_vgprs <= 8


def test_partly_written_local_is_live_from_its_declaration_not_the_entry() -> None:
    # An inlined helper fills a local array element by element, called four times.
    # regtruth navi21 wave64: presched_vgprs 23. Live from the entry, the four arrays were 43.
    d = demand(
        """
Texture2D<float4> t : register(t0);
RWStructuredBuffer<float4> o : register(u0);
float4 Gather4(int2 p) {
    int2 offs[4];
    offs[0] = p; offs[1] = p + int2(1, 0); offs[2] = p + int2(0, 1); offs[3] = p + 1;
    float4 s = 0;
    for (int i = 0; i < 4; i++) s += t.Load(int3(offs[i], 0));
    return s;
}
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) {
    float4 a = Gather4(id.xy);
    float4 b = Gather4(id.yx);
    float4 c = Gather4(id.xx);
    float4 d = Gather4(id.yy);
    o[id.x] = a * b + c * d;
}
"""
    )
    assert d.max_live_vgprs <= 34


def test_vertex_wave_starts_with_the_system_input_vgprs_of_its_family() -> None:
    # regtruth: a pass-through VS, presched_vgprs 9 and input_vgprs 9 on navi10, navi21 and
    # gfx1100; 8 VGPRs (input_vgprs 4) on vega10.
    text = """
struct VSOut { float4 pos : SV_Position; float4 col : COLOR; };
VSOut main(float3 p : POSITION, float4 c : COLOR) { VSOut o; o.pos = float4(p, 1); o.col = c; return o; }
"""
    for target, expected in (("rdna2", 9), ("rdna3", 9), ("gcn", 8)):
        m = build_model(parse(text), AnalysisSettings(target=target))
        entry = m.entry("main")
        assert entry is not None
        assert analyse_entry(m, entry, 64).max_live_vgprs == expected, target


def test_an_exported_uniform_colour_is_moved_into_vgprs() -> None:
    # regtruth navi21: returning a cbuffer colour, presched_vgprs 4 (the export reads VGPRs).
    d = pixel_demand(
        """
cbuffer C : register(b0) { float4 color; };
float4 main() : SV_Target { return color; }
"""
    )
    assert d.max_live_vgprs == 4


def test_group_thread_id_is_the_preloaded_register_not_a_copy() -> None:
    # SV_GroupThreadID is the local invocation ID the wave starts with; SV_DispatchThreadID is
    # computed from it where it is used. regtruth navi21 wave64: presched_vgprs 4 (a copy: 8).
    d = demand(
        """
groupshared float lds[64];
RWStructuredBuffer<float> o : register(u0);
Buffer<float> src : register(t0);
[numthreads(64,1,1)] void main(uint3 gid : SV_GroupThreadID, uint3 tid : SV_DispatchThreadID) {
    float v = 0;
    for (int i = 0; i < 8; i++) v += src[gid.x * 8 + i];
    lds[gid.x] = v;
    GroupMemoryBarrierWithGroupSync();
    o[tid.x] = lds[63 - gid.x];
}
"""
    )
    assert d.max_live_vgprs <= 5


def test_a_one_dimensional_group_keeps_only_the_x_local_id_live() -> None:
    # The wave starts with three local-ID VGPRs, but in a 256x1x1 group y and z are 0.
    # regtruth navi21 wave64: presched_vgprs 4, input_vgprs 3. All three kept live: 8.
    d = demand(
        """
Buffer<float> src : register(t0);
RWStructuredBuffer<float> o : register(u0);
[numthreads(256,1,1)] void main(uint3 gid : SV_GroupThreadID, uint3 g : SV_GroupID) {
    float4 v = 0;
    for (int i = 0; i < 16; i++) v += src[(gid.x + i) * 4 + g.x].xxxx * float4(1, 2, 3, 4);
    o[g.x * 256 + gid.x] = v.x + v.y + v.z + v.w;
}
"""
    )
    assert d.max_live_vgprs <= 6


def test_a_parameter_only_read_is_the_arguments_registers() -> None:
    # Two 5-tap blurs over six loaded pixels, through an inlined helper.
    # regtruth navi21 wave64: presched_vgprs 19. Copying the arguments into parameters was 33.
    d = demand(
        """
Buffer<float4> src : register(t0);
RWStructuredBuffer<float3> o : register(u0);
float3 Blur(float3 a, float3 b, float3 c, float3 d, float3 e) {
    return 0.1 * a + 0.2 * b + 0.4 * c + 0.2 * d + 0.1 * e;
}
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) {
    float3 s0 = src[id.x].rgb, s1 = src[id.x + 1].rgb, s2 = src[id.x + 2].rgb;
    float3 s3 = src[id.x + 3].rgb, s4 = src[id.x + 4].rgb, s5 = src[id.x + 5].rgb;
    o[id.x * 2] = Blur(s0, s1, s2, s3, s4);
    o[id.x * 2 + 1] = Blur(s1, s2, s3, s4, s5);
}
"""
    )
    assert d.max_live_vgprs <= 24


def test_a_switch_on_a_specialization_constant_runs_only_its_case() -> None:
    # `[[vk::constant_id]] const` keeps its default unless the pipeline overrides it, and the
    # compiler drops the other cases. regtruth navi21 wave64: presched_vgprs 4 (all cases: 12).
    d = pixel_demand(
        """
[[vk::constant_id(0)]] const int mode = 0;
Texture2D<float4> t : register(t0);
SamplerState s : register(s0);
struct PSIn { float4 pos : SV_Position; float3 a : TEXCOORD0; float3 b : TEXCOORD1; float3 c : TEXCOORD2; };
float4 main(PSIn i) : SV_Target {
    float4 color;
    switch (mode) {
    case 0:
        color = t.Sample(s, i.a.xy);
        break;
    case 1: {
        float3 n = normalize(i.a), v = normalize(i.b), l = normalize(i.c);
        float3 h = normalize(v + l);
        color = float4(n * dot(n, l) + h * pow(max(dot(n, h), 0), 16) + v, 1);
        break;
    }
    default:
        color = 0;
    }
    return color;
}
"""
    )
    assert d.max_live_vgprs <= 6


def test_an_out_parameter_filled_a_member_at_a_time_is_live_from_the_call() -> None:
    # regtruth navi21 wave64: presched_vgprs 9. Each inlined call's `out` parameter, written
    # one component at a time, was live from the entry point's start: 20.
    d = demand(
        """
Buffer<uint> rg : register(t0);
Buffer<uint> bw : register(t1);
RWStructuredBuffer<float4> o : register(u0);
void LoadColor(out float4 c, uint i) {
    c.r = f16tof32(rg[i] >> 16); c.g = f16tof32(rg[i]);
    c.b = f16tof32(bw[i] >> 16); c.a = f16tof32(bw[i]);
}
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) {
    float4 acc = 0;
    float4 c;
    LoadColor(c, id.x);     acc += c;
    LoadColor(c, id.x + 1); acc += c * 0.5;
    LoadColor(c, id.x + 2); acc += c * 0.25;
    o[id.x] = acc;
}
"""
    )
    assert d.max_live_vgprs <= 14


def test_a_table_of_constants_in_a_struct_takes_no_register() -> None:
    # A bilinear setup fills `offsets` with int2 constants, read in an unrolled loop: the
    # compiler folds them (regtruth navi21 wave64: presched_vgprs 14). Counted, they were 8 more.
    d = demand(
        """
Texture2D<float4> t : register(t0);
RWStructuredBuffer<float4> o : register(u0);
struct Bilinear { int2 offsets[4]; float weights[4]; int2 base; };
Bilinear Setup(float2 p) {
    Bilinear b;
    b.base = int2(floor(p));
    float2 f = frac(p);
    b.offsets[0] = int2(0, 0); b.offsets[1] = int2(1, 0);
    b.offsets[2] = int2(0, 1); b.offsets[3] = int2(1, 1);
    b.weights[0] = (1 - f.x) * (1 - f.y); b.weights[1] = f.x * (1 - f.y);
    b.weights[2] = (1 - f.x) * f.y;       b.weights[3] = f.x * f.y;
    return b;
}
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) {
    Bilinear b = Setup(float2(id.xy) * 0.37);
    float4 c = 0;
    for (int i = 0; i < 4; i++) c += t.Load(int3(b.base + b.offsets[i], 0)) * b.weights[i];
    o[id.x] = c;
}
"""
    )
    assert all(v.name != "b.offsets" for v in d.peak_values)
    assert d.max_live_vgprs <= 18


def test_an_inout_argument_that_is_a_matrix_row_is_written_back() -> None:
    # Four float4 rows blended through an inout helper across a loop.
    # regtruth navi21 wave64: presched_vgprs 28. The write-back was lost before (12).
    d = demand(
        """
Texture2D<float4> t : register(t0);
RWStructuredBuffer<float4> o : register(u0);
void Blend(inout float4 dst, float4 src) { dst = dst * (1 - src.a) + src; }
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) {
    float4x4 quad = 0;
    for (int k = 0; k < 8; k++) {
        Blend(quad[0], t.Load(int3(id.x, k, 0)));
        Blend(quad[1], t.Load(int3(id.x + 1, k, 0)));
        Blend(quad[2], t.Load(int3(id.x, k + 1, 0)));
        Blend(quad[3], t.Load(int3(id.x + 1, k + 1, 0)));
    }
    o[id.x * 4] = quad[0]; o[id.x * 4 + 1] = quad[1]; o[id.x * 4 + 2] = quad[2]; o[id.x * 4 + 3] = quad[3];
}
"""
    )
    assert 24 <= d.max_live_vgprs <= 32


def test_an_array_filled_by_a_helper_and_passed_on_is_held_once() -> None:
    # The shape of FastBlockCompress: an `out` array filled at constant indices, passed to a
    # helper that reads it element by element and to one that loops over it. regtruth navi21
    # wave64: presched_vgprs 30. Held as elements and as a copy of the whole array it was 49.
    d = demand(
        """
Texture2D<float4> t : register(t0);
RWStructuredBuffer<float4> o : register(u0);
groupshared float3 lds[64];
void LoadBlock(uint2 p, out float3 block[8]) {
    block[0] = t.Load(int3(p.x, p.y, 0)).rgb;     block[1] = t.Load(int3(p.x + 1, p.y, 0)).rgb;
    block[2] = t.Load(int3(p.x + 2, p.y, 0)).rgb; block[3] = t.Load(int3(p.x + 3, p.y, 0)).rgb;
    block[4] = t.Load(int3(p.x, p.y + 1, 0)).rgb; block[5] = t.Load(int3(p.x + 1, p.y + 1, 0)).rgb;
    block[6] = t.Load(int3(p.x + 2, p.y + 1, 0)).rgb; block[7] = t.Load(int3(p.x + 3, p.y + 1, 0)).rgb;
}
void Downsample(uint i, float3 block[8]) {
    lds[i] = block[0] + block[1] + block[4] + block[5] + block[2] + block[3] + block[6] + block[7];
}
float3 MaxOf(float3 block[8]) {
    float3 m = block[0];
    for (int i = 1; i < 8; i++) m = max(m, block[i]);
    return m;
}
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
    float3 block[8];
    LoadBlock(id.xy, block);
    Downsample(gi, block);
    GroupMemoryBarrierWithGroupSync();
    o[id.x] = float4(MaxOf(block) + lds[gi ^ 1], 1);
}
"""
    )
    assert d.max_live_vgprs <= 36
