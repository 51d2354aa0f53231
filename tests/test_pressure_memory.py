"""Structs read from buffers: what the compiler loads, and when (navi21 wave64, regtruth
presched_vgprs)."""

from __future__ import annotations

from conftest import demand

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
