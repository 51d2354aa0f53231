"""HL101 typed-uniform-load."""

from __future__ import annotations

from hlsllint.analysis import analyze
from hlsllint.analysis.local_uniformity import is_uniform
from hlsllint.context import RuleContext
from hlsllint.rule import Rule
from hlsllint.semantic import Model
from hlsllint.semantic.intrinsics import INTRINSICS
from hlsllint.semantic.queries import Fetch, as_fetch, uses_of
from hlsllint.syntax import Node
from hlsllint.syntax.queries import (
    call_name,
    is_assignment_target,
    is_written,
    loop_of,
    same,
    swizzle_of,
    unparen_up,
)

_SAMPLE_METHODS = frozenset(
    {"Sample", "SampleLevel", "SampleBias", "SampleGrad", "SampleCmp", "SampleCmpLevelZero", "SampleCmpLevel"}
)


def _atomic_operand(ctx: RuleContext, node: Node) -> bool:
    """True for `InterlockedAdd(tex[coord], ...)`: the element is the destination of an atomic."""
    _site, parent = unparen_up(node)
    call = parent.parent if parent is not None and parent.type == "argument_list" else None
    return call is not None and (call_name(ctx.tree, call) or "").startswith("Interlocked")


def _wave_uniform(ctx: RuleContext, node: Node) -> bool:
    """The same value in every lane (a typed load at a uniform address is uniform data)."""
    return is_uniform(ctx.model, node)


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
    for use in uses_of(ctx.model, sym):
        if is_assignment_target(use) == "=":
            continue
        swizzle = swizzle_of(model.tree, use)
        if swizzle is None:
            return None
        if is_written(ctx.tree, use):
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
                name = call_name(ctx.tree, n) or ""
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
        "A loop over a wave-uniform range (a per-tile or per-group list) that loads the same "
        "element of a typed buffer or texture in every lane, a new one each iteration."
    )
    rationale = (
        "sebbbi's *fast uniform load with wave ops*: in a tiled light loop every lane of the "
        "wave loads the same light, one vector load per iteration, each filling its VGPRs with "
        "a copy of the same value. Loading 32 or 64 elements at once, one per lane, and "
        "broadcasting each with `WaveReadLaneAt` (SM 6.0) cuts the loads by the wave width "
        "without register bloat, and works for every buffer and texture type. Measured with "
        "regtruth (RADV/ACO, navi21 wave64) on the fixture: one `buffer_load_format_xyzw` per "
        "iteration; with the broadcast, one per 64 lights and a `v_readlane_b32` per use; from a "
        "StructuredBuffer, a scalar `s_buffer_load_dwordx4` per iteration (offered as well for "
        "typed buffers, never for textures, which may be render targets or depth buffers). "
        "A one-off load of a wave-uniform value (a 1×1 exposure texture, a tile's flag) costs "
        "nothing worth a finding: the compiler moves the value to SGPRs itself "
        "(`v_readfirstlane`; measured 7 against 6 VGPRs and 19 against 18 instructions for the "
        "StructuredBuffer version), so it is not reported, nor are samples (their coordinates "
        "do not spread over the lanes that way) or one-thread groups. Aaltonen's GPUOpen "
        "article on large thread groups (section *Scalar data*) makes the related point for "
        "matrices read from `Buffer<float4>`."
    )
    bad_example = """\
Buffer<float4> gLights : register(t0);
Texture2D<uint2> gTileRanges : register(t1);
Texture2D<float4> gNormal : register(t2);
RWTexture2D<float4> gOut : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 px : SV_DispatchThreadID, uint3 tile : SV_GroupID)
{
    uint2 range = gTileRanges[tile.xy];
    float3 n = gNormal[px.xy].xyz;
    float3 lit = 0;
    for (uint i = 0; i < range.y; ++i)
    {
        float4 light = gLights[range.x + i];
        lit += saturate(dot(n, light.xyz)) * light.w;
    }
    gOut[px.xy] = float4(lit, 1);
}
"""
    good_example = """\
Buffer<float4> gLights : register(t0);
Texture2D<uint2> gTileRanges : register(t1);
Texture2D<float4> gNormal : register(t2);
RWTexture2D<float4> gOut : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 px : SV_DispatchThreadID, uint3 tile : SV_GroupID)
{
    uint2 range = gTileRanges[tile.xy];
    float3 n = gNormal[px.xy].xyz;
    float3 lit = 0;
    uint lanes = WaveGetLaneCount();
    for (uint base = 0; base < range.y; base += lanes)
    {
        float4 mine = gLights[range.x + base + WaveGetLaneIndex()];
        uint count = min(lanes, range.y - base);
        for (uint j = 0; j < count; ++j)
        {
            float4 light = WaveReadLaneAt(mine, j);
            lit += saturate(dot(n, light.xyz)) * light.w;
        }
    }
    gOut[px.xy] = float4(lit, 1);
}
"""
    tags = ("vgpr", "sgpr", "aaltonen")
    references = (
        "Sebastian Aaltonen, Optimizing GPU occupancy and resource usage with large thread groups "
        "(GPUOpen), section Scalar data",
        "Sebastian Aaltonen (sebbbi), Fast uniform load with wave ops (GitHub gist)",
    )

    function_local = True
    """Up to the uniformity of the address and of the loop conditions, which the entry points'
    analyses answer (and `_single_lane`, which reads them too): a typed load in a loop its
    address moves in gives the places of those expressions and of the loop, which the function
    alone gives, as its fact (`ctx.needs_unit(fact)`), and `replay` asks the unit about them, so
    a header function's fetches are read once per header state."""
    node_kinds = frozenset({"call_expression", "subscript_expression"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        if ctx.function is None:
            return
        fetch = as_fetch(ctx.model, node)
        if fetch is None or not self._typed_candidate(fetch):
            return
        if is_written(ctx.tree, node) or _atomic_operand(ctx, node):
            return  # a store, read-modify-write or atomic through a RW resource
        if not fetch.address:
            return
        if fetch.kind != "load":
            return  # a sample's coordinate cannot be spread over the lanes the same way
        found = _moving_loop(ctx, fetch)
        if found is None:
            return  # a one-off load: the compiler moves the value to SGPRs itself (v_readfirstlane)
        conditions, loop = found
        tree = ctx.tree
        at = tree.index_of(node)
        places = [tree.index_of(n) for n in [*fetch.address, *conditions, loop]]
        if at is None or any(p is None for p in places):
            ctx.needs_unit()  # no place to give: visited again
            self._judge(ctx, node, fetch.address, conditions, loop)
            return
        offsets = tuple(p - at for p in places if p is not None)
        fact = (len(fetch.address), offsets)
        ctx.needs_unit(fact)
        self.replay(ctx, node, fact)

    def replay(self, ctx: RuleContext, node: Node, fact: object) -> None:
        """Judge the load `node` from its `fact`: (the number of address operands, the offsets
        in the walk from `node` of the address operands, the loop conditions and the loop)."""
        assert isinstance(fact, tuple)
        n_address, offsets = fact
        at = ctx.tree.index_of(node)
        assert at is not None
        nodes = ctx.tree.nodes()
        found = [nodes[at + k] for k in offsets]
        self._judge(ctx, node, found[:n_address], found[n_address:-1], found[-1])

    def _judge(
        self, ctx: RuleContext, node: Node, address: list[Node], conditions: list[Node], loop: Node
    ) -> None:
        """What depends on the unit: is the address wave-uniform, and every condition of the
        loops out to `loop`, the innermost one the address moves in (the uniform list walk), and
        do more lanes than one run it?"""
        if not all(_wave_uniform(ctx, a) for a in address):
            return
        if not all(_wave_uniform(ctx, c) for c in conditions):
            return  # lanes leave at different times: not the uniform list walk
        if _single_lane(ctx, node):
            return  # a one-thread group: there are no other lanes to share the load with
        fetch = as_fetch(ctx.model, node)
        assert fetch is not None
        self._report(ctx, fetch, loop)

    @staticmethod
    def _typed_candidate(fetch: Fetch) -> bool:
        res = fetch.resource.resource
        if res is None or not res.typed:
            return False
        return fetch.kind == "load" or fetch.method in _SAMPLE_METHODS

    def _report(self, ctx: RuleContext, fetch: Fetch, loop: Node) -> None:
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
        raw = (
            "; or, if it can be a StructuredBuffer or ByteAddressBuffer, read it from one: the "
            "compiler loads those with scalar loads (regtruth: `s_buffer_load_dwordx4`)"
            if res.category == "buffer"
            else ""
        )
        ctx.report(
            fetch.node,
            f"every lane loads the same `{res.kind}` element in each iteration of this loop, filling "
            f"{regs} VGPR{'s' if regs != 1 else ''} per lane with one value",
            related=[(loop, "the loop")],
            help=(
                "load 32/64 elements per wave at once, one per lane, and broadcast each with "
                "`WaveReadLaneAt` (SM 6.0): one load per wave width of iterations instead of one "
                f"per iteration{raw}"
            ),
            notes=[f"the address is wave-uniform ({_why_uniform(ctx, fetch.address)})"],
        )


def _moving_loop(ctx: RuleContext, fetch: Fetch) -> tuple[list[Node], Node] | None:
    """The innermost loop around the fetch whose iterations change its address, with the
    conditions of the loops out to it (each one's and its own), when each of them has one: if
    the address and these conditions are wave-uniform, every lane loads the same element, a new
    one each iteration (a per-tile light list). None for a one-off load, a load no loop moves, or
    a loop without a condition on the way."""
    conditions: list[Node] = []
    loop = loop_of(fetch.node)
    while loop is not None:
        cond = loop.child_by_field_name("condition")
        if cond is None:
            return None
        conditions.append(cond)
        if any(_varies_in(ctx, loop, a, 0) for a in fetch.address):
            return conditions, loop
        loop = loop_of(loop)
    return None


def _inside(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _varies_in(ctx: RuleContext, loop: Node, expr: Node, depth: int) -> bool:
    """Does `expr` change from one iteration of `loop` to the next: it reads a variable written
    in the loop (its counter), or a local declared in the loop from such a variable."""
    if depth > 4:
        return False
    model = ctx.model
    for n in model.tree.walk(expr):
        if n.type != "identifier":
            continue
        sym = model.resolve(n)
        if sym is None or sym.kind not in ("local", "param"):
            continue
        if any(_inside(u, loop) and is_written(ctx.tree, u) for u in uses_of(ctx.model, sym)):
            return True
        declared_inside = sym.node is not None and _inside(sym.node, loop)
        if declared_inside and sym.init is not None and _varies_in(ctx, loop, sym.init, depth + 1):
            return True
    return False
