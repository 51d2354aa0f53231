"""HL101 typed-uniform-load."""

from __future__ import annotations

from hlsllint.rules._common import (
    Fetch,
    as_fetch,
    call_name,
    is_uniform,
    is_written,
    local_uniform,
    loop_of,
    unparen_up,
)

from hlsllint.context import RuleContext
from hlsllint.rule import Rule
from hlsllint.semantic import Model
from hlsllint.syntax import Node

_SAMPLE_METHODS = frozenset(
    {"Sample", "SampleLevel", "SampleBias", "SampleGrad", "SampleCmp", "SampleCmpLevelZero", "SampleCmpLevel"}
)


def _atomic_operand(ctx: RuleContext, node: Node) -> bool:
    """True for `InterlockedAdd(tex[coord], ...)`: the element is the destination of an atomic."""
    _site, parent = unparen_up(node)
    call = parent.parent if parent is not None and parent.type == "argument_list" else None
    return call is not None and (call_name(ctx, call) or "").startswith("Interlocked")


def _wave_uniform(ctx: RuleContext, node: Node) -> bool:
    """Uniform by the analysis, or by value (a typed load at a uniform address is uniform data)."""
    return is_uniform(ctx, node) or local_uniform(ctx, node, set())


class TypedUniformLoad(Rule):
    code = "HL101"
    name = "typed-uniform-load"
    summary = (
        "A load through a typed resource (`Buffer<T>`, `RWBuffer<T>`, a texture's `Load`, `[]`, "
        "`mips` or `Sample*`) at a wave-uniform address."
    )
    rationale = (
        "When every lane of a wave reads the same address, AMD GPUs can load the data once with a "
        "scalar load into SGPRs, which costs no VGPRs and is co-issued with vector work. Scalar "
        "loads exist only for raw and structured buffers (and constant buffers): typed buffers "
        "and textures always go through the texture unit and fill VGPRs in every lane with a "
        "copy of the same value. Sebastian Aaltonen's GPUOpen article on occupancy with large "
        "thread groups (section *Scalar data*) gives the example of a 4×4 matrix read from "
        "`Buffer<float4>`: 16 VGPRs wasted, against none with four `Load4` from a "
        "`ByteAddressBuffer`; measured with RADV/ACO on navi21 the typed version allocates 24 "
        "VGPRs and the raw one 8 (ACO; RADV's LLVM backend did not scalarise the raw loads). In "
        "a loop over a uniform range, sebbbi's *fast uniform load with wave ops* gist goes "
        "further: load 32 or 64 items at once, one per lane, and broadcast each with "
        "`WaveReadLaneAt` (SM 6.0), which cuts the number of loads by the wave width."
    )
    bad_example = """\
Buffer<float4> gMatrices : register(t0);
RWStructuredBuffer<float4> gOut : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID)
{
    float4 row = gMatrices[group.x];
    gOut[id.x] = row * id.x;
}
"""
    good_example = """\
StructuredBuffer<float4> gMatrices : register(t0);
RWStructuredBuffer<float4> gOut : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID)
{
    float4 row = gMatrices[group.x];
    gOut[id.x] = row * id.x;
}
"""
    tags = ("vgpr", "sgpr", "aaltonen")
    references = (
        "Sebastian Aaltonen, Optimizing GPU occupancy and resource usage with large thread groups "
        "(GPUOpen), section Scalar data",
        "Sebastian Aaltonen (sebbbi), Fast uniform load with wave ops (GitHub gist)",
    )

    node_kinds = frozenset({"call_expression", "subscript_expression"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        if ctx.function is None:
            return
        fetch = as_fetch(ctx, node)
        if fetch is None or not self._typed_candidate(fetch):
            return
        if is_written(ctx, node) or _atomic_operand(ctx, node):
            return  # a store, read-modify-write or atomic through a RW resource
        if not fetch.address or not all(_wave_uniform(ctx, a) for a in fetch.address):
            return
        self._report(ctx, fetch)

    @staticmethod
    def _typed_candidate(fetch: Fetch) -> bool:
        res = fetch.resource.resource
        if res is None or not res.typed:
            return False
        return fetch.kind == "load" or fetch.method in _SAMPLE_METHODS

    def _report(self, ctx: RuleContext, fetch: Fetch) -> None:
        model: Model = ctx.model
        res = fetch.resource.resource
        assert res is not None
        regs = model.type_of(fetch.node).components(model.sixteen_bit)
        what = "sample" if fetch.kind == "sample" else "typed load"
        raw = (
            "a StructuredBuffer or ByteAddressBuffer"
            if res.category == "buffer"
            else "a StructuredBuffer or ByteAddressBuffer (with your own address math)"
        )
        message = (
            f"{what} from `{res.kind}` at a wave-uniform address fills {regs} VGPR"
            f"{'s' if regs != 1 else ''} per lane with the same value; read it from {raw} to get "
            "a scalar load"
        )
        loop = loop_of(fetch.node)
        cond = loop.child_by_field_name("condition") if loop is not None else None
        if loop is not None and cond is not None and _wave_uniform(ctx, cond):
            message += (
                ", or load 32/64 items per wave (one per lane) and broadcast them with "
                "`WaveReadLaneAt` (SM 6.0)"
            )
        ctx.report(fetch.node, message)
