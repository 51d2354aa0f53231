"""HL101 typed-uniform-load."""

from __future__ import annotations

from hlsllint.rules._common import (
    Fetch,
    as_fetch,
    call_name,
    is_assignment_target,
    is_uniform,
    is_written,
    loop_of,
    same,
    unparen_up,
    uses_of,
)

from hlsllint.analysis import analyze
from hlsllint.context import RuleContext
from hlsllint.rule import Rule
from hlsllint.semantic import Model
from hlsllint.semantic.intrinsics import INTRINSICS
from hlsllint.syntax import Node
from hlsllint.syntax.queries import swizzle_of

_SAMPLE_METHODS = frozenset(
    {"Sample", "SampleLevel", "SampleBias", "SampleGrad", "SampleCmp", "SampleCmpLevelZero", "SampleCmpLevel"}
)


def _atomic_operand(ctx: RuleContext, node: Node) -> bool:
    """True for `InterlockedAdd(tex[coord], ...)`: the element is the destination of an atomic."""
    _site, parent = unparen_up(node)
    call = parent.parent if parent is not None and parent.type == "argument_list" else None
    return call is not None and (call_name(ctx, call) or "").startswith("Interlocked")


def _wave_uniform(ctx: RuleContext, node: Node) -> bool:
    """The same value in every lane (a typed load at a uniform address is uniform data)."""
    return is_uniform(ctx, node)


def _single_lane(ctx: RuleContext, node: Node) -> bool:
    """Every entry point that reaches `node` runs one thread per group (`[numthreads(1, 1, 1)]`)."""
    span = ctx.model.tree.span(node)
    try:
        unit = analyze(ctx.model)
    except Exception:  # the analysis is optional here
        return False
    reaching = [e.entry for e in unit.entries.values() if span in e.cfg.expr]
    return bool(reaching) and all(e.threads_per_group == 1 for e in reaching)


_COMPONENT = {"x": 0, "y": 1, "z": 2, "w": 3, "r": 0, "g": 1, "b": 2, "a": 3}


def _components_read_through(ctx: RuleContext, node: Node) -> int | None:
    """When the load initialises or is assigned whole to a local vector, the components of that
    local that are ever read (`float4 row = buf[i]; ... row.x` gives 1); None when it is not
    stored in a local or the local is read whole (`f(row)`, `row * 2`, `row[i]`)."""
    model = ctx.model
    site, parent = unparen_up(node)
    sym = None
    if parent is not None and parent.type == "init_declarator":
        declarator = parent.child_by_field_name("declarator")
        sym = (
            model.resolve(declarator) if declarator is not None and declarator.type == "identifier" else None
        )
    elif parent is not None and parent.type == "assignment_expression":
        left, op = parent.child_by_field_name("left"), parent.child_by_field_name("operator")
        whole = op is None or ctx.node_text(op) == "="
        if (
            left is not None
            and left.type == "identifier"
            and whole
            and same(parent.child_by_field_name("right"), site)
        ):
            sym = model.resolve(left)
    if sym is None or sym.kind != "local" or sym.type.kind != "vector":
        return None
    used: set[int] = set()
    for use in uses_of(ctx, sym):
        if is_assignment_target(use) == "=":
            continue
        swizzle = swizzle_of(model.tree, use)
        if swizzle is None:
            return None
        if is_written(ctx, use):
            continue  # `row.w = 1`: a write of that component, not a read
        used |= {_COMPONENT[c] for c in swizzle}
    return len(used)


def _why_uniform(ctx: RuleContext, address: list[Node]) -> str:
    """Where the uniform address comes from, for the message (`from `SV_GroupID``)."""
    model = ctx.model
    sources: list[str] = []
    for root in address:
        for n in model.tree.walk(root):
            text = ""
            if n.type == "identifier":
                sym = model.resolve(n)
                if sym is None:
                    continue
                if sym.kind == "param" and sym.semantic:
                    text = f"`{sym.semantic}`"
                elif sym.kind == "cbuffer_member":
                    text = f"`{sym.name}`, a constant-buffer value"
                elif sym.kind in ("local", "param", "static_const"):
                    text = f"`{sym.name}`"
            elif n.type == "call_expression":
                name = call_name(ctx, n) or ""
                if INTRINSICS.get(name, ("", ""))[1] == "uniform":
                    text = f"`{name}`"
            if text and text not in sources:
                sources.append(text)
    if not sources:
        return "a constant"
    return "from " + "; ".join(sources[:2])


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
        if _single_lane(ctx, fetch.node):
            return  # a one-thread group: there are no other lanes to share the load with
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
        swizzle = swizzle_of(model.tree, fetch.node)
        if swizzle:  # only the components read are loaded
            regs = min(regs, len(set(swizzle)))
        else:
            read = _components_read_through(ctx, fetch.node)
            if read is not None:  # `float4 row = buf[i];` then only `row.x` read
                regs = min(regs, read)
        what = "sample" if fetch.kind == "sample" else "typed load"
        raw = (
            "a StructuredBuffer or ByteAddressBuffer"
            if res.category == "buffer"
            else "a StructuredBuffer or ByteAddressBuffer (with your own address math)"
        )
        message = (
            f"{what} from `{res.kind}` at a wave-uniform address ({_why_uniform(ctx, fetch.address)}) "
            f"fills {regs} VGPR"
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
