"""Structs read from buffers: what the compiler loads, and when (navi21 wave64, regtruth
presched_vgprs)."""

from __future__ import annotations

from conftest import demand

from hlsllint.context import AnalysisSettings
from hlsllint.semantic import build_model
from hlsllint.syntax import parse

NESTED = """
struct Xform { float4 r0; float4 r1; float4 r2; };
struct Inst { Xform world; Xform prev; uint id; uint flags; };
StructuredBuffer<Inst> insts : register(t0);
RWStructuredBuffer<float4> outp : register(u0);
struct Ctx {
    Inst inst;
    float3 p;
    void load(uint i, float3 q) { inst = insts[i]; p = q; }
};
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Ctx c;
    c.load(id.x >> 2, float3(id));
    float3 x = c.p;
    [unroll] for (int k = 0; k < 6; ++k) x = sin(x) * dot(c.inst.world.r0.xyz, x) + c.inst.prev.r1.xyz;
    outp[id.x] = float4(x, c.inst.id);
}
"""


def test_nested_struct_member_of_a_buffer_load_loads_only_the_members_read() -> None:
    # `inst = insts[i]` copies a struct whose members are structs of three float4: only
    # `world.r0` and `prev.r1` are read. regtruth: presched_vgprs 14. Each nested member loaded
    # whole (12 VGPRs) and copied member by member into `c.inst`: 21.
    d = demand(NESTED)
    assert 12 <= d.max_live_vgprs <= 17


INDEX_TABLES = """
struct Item { uint count; uint pad0; uint pad1; uint pad2; uint ids[64]; uint packed[32]; };
StructuredBuffer<Item> items : register(t0);
RWStructuredBuffer<uint4> outp : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Item it = items[id.x >> 5];
    uint k = id.x & 31;
    uint a = it.ids[it.packed[k] & 0xFF];
    uint b = it.ids[(it.packed[k] >> 8) & 0xFF];
    uint c = it.ids[(it.packed[k] >> 16) & 0xFF];
    outp[id.x] = uint4(a, b, c, it.count);
}
"""


def test_array_member_of_a_copied_buffer_struct_is_read_element_by_element() -> None:
    # A local copy of a read-only buffer's struct, never written: the compiler reads
    # `it.ids[j]` from the buffer where it is used. regtruth: presched_vgprs 6 (scratch 0).
    # The two arrays loaded whole with the copy: 103.
    d = demand(INDEX_TABLES)
    assert d.max_live_vgprs <= 12


def test_array_member_of_a_written_copy_is_still_loaded_whole() -> None:
    # The copy written (one element): the compiler needs the struct's own copy.
    # regtruth: presched_vgprs 133.
    written = INDEX_TABLES.replace("uint k = id.x & 31;", "uint k = id.x & 31; it.ids[k] = 7;")
    assert demand(written).max_live_vgprs >= 64


MEMBERS_OF_ONE_WIDTH = """
struct Quad { float4 a; float4 b; float4 c; float4 d; };
StructuredBuffer<Quad> quads : register(t0);
RWStructuredBuffer<float4> outp : register(u0);
float4 blend(Quad q, float4 x)
{
    [unroll] for (int k = 0; k < 6; ++k) x = sin(x) * q.b + q.c * cos(x) + q.d * x.yzwx;
    return x + q.a;
}
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    outp[id.x] = blend(quads[id.x >> 1], float4(id, 1));
}
"""


def test_members_of_one_width_are_separate_loads() -> None:
    # regtruth: presched_vgprs 29. The four float4 members are four loads held through the
    # loop; value numbering took them for one load (13).
    d = demand(MEMBERS_OF_ONE_WIDTH)
    assert 22 <= d.max_live_vgprs <= 32


CAMERA_COPY = """
struct Cam {
    float4x4 viewProj;
    float4 plane;
    float3 eye;
    uint layer;
};
cbuffer Cams : register(b0) { Cam cams[16]; };
Texture2D<float4> hmap : register(t0);
SamplerState smp : register(s0);
struct VOut { float4 pos : SV_Position; float3 w : TEXCOORD0; };
VOut main(uint vid : SV_VertexID, uint inst : SV_InstanceID, out uint rt : SV_RenderTargetArrayIndex)
{
    Cam c = cams[inst];
    rt = c.layer;
    float2 g = float2(vid & 127, vid >> 7) / 127.0;
    float4 h0 = hmap.SampleLevel(smp, g, 0), h1 = hmap.SampleLevel(smp, g + 0.01, 0);
    float4 h2 = hmap.SampleLevel(smp, g - 0.01, 0), h3 = hmap.SampleLevel(smp, g.yx, 0);
    float3 w = float3(g.x, dot(h0, h1) + dot(h2, h3), g.y) * 100 - c.eye;
    w += h0.xyz * h1.w + h2.xyz * h3.w;
    VOut o;
    o.pos = mul(c.viewProj, float4(w, 1));
    o.w = w + c.plane.xyz * c.plane.w;
    return o;
}
"""


def test_copy_of_a_cbuffer_struct_reads_each_member_where_it_is_used() -> None:
    # regtruth: presched_vgprs 19. `c` copies a camera at a per-instance index and is never
    # written: the matrix is loaded at the product, not held from the copy (44).
    d = demand(CAMERA_COPY)
    assert 17 <= d.max_live_vgprs <= 25


COPY_PASSED_INTO_A_LOOP = """
struct Medium { float4 scatter; float3 absorb; float2 phase; float density; };
struct Frame { float4 misc; Medium medium; uint steps; };
cbuffer FrameCB : register(b0) { Frame frame; };
Texture2D<float4> tx : register(t0);
RWTexture2D<float4> o : register(u0);
float3 march_step(Medium m, float3 p, float t)
{
    return p * m.scatter.xyz * m.scatter.w + exp(-m.absorb * t) * m.phase.x + m.phase.y / (1 + t * m.density);
}
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Medium m = frame.medium;
    float3 p = tx[id.xy].xyz;
    float3 acc = 0;
    for (uint i = 0; i < frame.steps; ++i) {
        acc += march_step(m, p, i * 0.5 + p.x);
        p = p * 0.9 + acc * 0.1;
    }
    o[id.xy] = float4(acc, 1);
}
"""


def test_copy_of_a_cbuffer_member_passed_to_a_helper_is_read_in_the_loop() -> None:
    # regtruth: presched_sgprs 12. A copy of a cbuffer's struct member, passed whole to a
    # helper called in a run-time loop: the helper's reads load the members in the loop, none
    # is held across it (20 with the ten registers of the copy live from the declaration).
    d = demand(COPY_PASSED_INTO_A_LOOP)
    assert d.max_live_sgprs <= 16


ROWS_READ_AHEAD = """
Texture2D<float4> tx : register(t1);
RWStructuredBuffer<float4> o : register(u0);
cbuffer P : register(b0) { float4 k[64]; };
float4 work(uint i) {
    float4 a = tx.Load(int3(i, 0, 0)), b = tx.Load(int3(i, 1, 0));
    float4 c = tx.Load(int3(i, 2, 0)), d = tx.Load(int3(i, 3, 0));
    return a * b + c * d + a * c + b * d;
}
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 v0 = k[id.x];
    float4 v1 = k[id.x + 1];
    float4 v2 = k[id.x + 2];
    float4 v3 = k[id.x + 3];
    float4 w = work(id.x);
    o[id.x] = w + v0 * v1 + v2 * v3;
}
"""


def test_cbuffer_rows_are_loaded_where_they_are_used() -> None:
    # regtruth: presched_vgprs 21. The four rows, read at a per-thread index before a
    # 16-VGPR computation, are loaded after it, where the sum reads them (37 held from their
    # declarations). A structured buffer's are not moved: regtruth 37 for the same shader.
    d = demand(ROWS_READ_AHEAD)
    assert 18 <= d.max_live_vgprs <= 27
    d = demand(
        ROWS_READ_AHEAD.replace("cbuffer P : register(b0) { float4 k[64]; };", "StructuredBuffer<float4> k;")
    )
    assert 33 <= d.max_live_vgprs <= 40


CAST_OF_A_MEMBER = """
struct View { float4x4 view; float4x4 proj; float4x4 prev; float4 extra[6]; };
cbuffer Views : register(b0) { View views[8]; };
struct VOut { float4 pos : SV_Position; float3 n : NORMAL; };
VOut main(float3 p : POSITION, float3 n : NORMAL, uint inst : SV_InstanceID)
{
    VOut o;
    o.pos = mul(views[inst].proj, float4(p, 1));
    o.n = mul((float3x3)(views[inst]).view, n);
    return o;
}
"""


def test_cast_read_as_a_call_applies_to_the_member() -> None:
    # regtruth: presched_vgprs 19. `(float3x3)(views[inst]).view` is the cast of the member
    # (a member access binds tighter than a cast), which the grammar reads as a call of
    # `(float3x3)` followed by `.view`: the cast of the whole struct loaded every member (45).
    d = demand(CAST_OF_A_MEMBER)
    assert 16 <= d.max_live_vgprs <= 24
    m = build_model(parse(CAST_OF_A_MEMBER), AnalysisSettings())
    (node,) = [n for n in m.tree.walk(m.tree.root) if m.tree.node_text(n) == "(float3x3)(views[inst]).view"]
    assert m.type_of(node).name == "float3x3"
