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
