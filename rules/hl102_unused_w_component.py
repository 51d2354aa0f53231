"""HL102 unused-w-component."""

from __future__ import annotations

from dataclasses import dataclass, field

from hlsllint.context import RuleContext
from hlsllint.rule import Rule
from hlsllint.semantic import Model, Symbol
from hlsllint.semantic import types as T
from hlsllint.semantic.queries import uses_of
from hlsllint.syntax import Node
from hlsllint.syntax.queries import is_assignment_target, same, swizzle_of, unparen_up

_XYZW = "xyzw"
_RGBA = {"r": "x", "g": "y", "b": "z", "a": "w"}


@dataclass
class _Reads:
    """Components of a groupshared array's elements that some code reads (None: all of them)."""

    read: set[str] | None = field(default_factory=set)


@dataclass
class _UnitState:
    arrays: dict[int, _Reads] = field(default_factory=dict)


def _vector_array(t: T.Type) -> tuple[T.Type, int] | None:
    """(element vector type, element count) of a (multi-dimensional) array of 4-component vectors."""
    count = 1
    while t.kind == "array" and t.element is not None:
        if t.length is None:
            return None
        count *= t.length
        t = t.element
    if t.kind == "vector" and t.cols == 4 and t.is_numeric and count > 1:
        return t, count
    return None


def _element(ctx: RuleContext, use: Node, depth: int) -> Node | None:
    """The element expression `a[i]` (`a[i][j]` for 2-D arrays) that a use of `a` reads."""
    node = use
    for _ in range(depth):
        site, parent = unparen_up(node)
        if parent is None or parent.type != "subscript_expression":
            return None
        if not same(parent.child_by_field_name("argument"), site):
            return None
        node = parent
    return node


def _components_read(ctx: RuleContext, element: Node) -> set[str] | None:
    """Components of the element this use reads: a swizzle's, none for a plain store, None (all)
    for anything else (a compound assignment, a whole-vector read)."""
    sw = swizzle_of(ctx.tree, element)
    if sw is not None:
        site, parent = unparen_up(element)
        swizzle_node = parent
        if swizzle_node is not None and is_assignment_target(swizzle_node) == "=":
            return set()  # `a[i].xyz = v` writes
        return {_RGBA.get(c, c) for c in sw}
    if is_assignment_target(element) == "=":
        return set()
    site, parent = unparen_up(element)
    model: Model = ctx.model
    if (
        parent is not None
        and parent.type == "init_declarator"
        and same(parent.child_by_field_name("value"), site)
    ):
        target = parent.child_by_field_name("declarator")
        sym = model.resolve(target) if target is not None and target.type == "identifier" else None
        if sym is not None and sym.type.kind == "vector" and sym.type.cols < 4:
            return set(_XYZW[: sym.type.cols])  # implicit truncation reads the first components
    return None


def _bytes(t: T.Type, components: int, sixteen_bit: bool) -> int:
    bits = 16 if sixteen_bit and t.scalar in ("half", "int16_t", "uint16_t") else 32
    if t.scalar in ("double", "int64_t", "uint64_t"):
        bits = 64
    return components * bits // 8


class UnusedWComponent(Rule):
    code = "HL102"
    name = "unused-w-component"
    summary = (
        "A groupshared array of four-component vectors in which some component (often `w`) is "
        "written but never read: its bytes of LDS hold nothing."
    )
    rationale = (
        "The articles (Aaltonen, GPUOpen, section *Unneeded data*) warn that an unused `w` wastes a "
        "register per lane. Measured with Mesa RADV/ACO (navi21), that no longer holds for loads: a "
        "`float4` loaded from a texture, a typed or structured buffer or `Load4` whose `w` is never "
        "read compiles to the same code as a `float3` (the load fetches only the components read: "
        "`image_load dmask:0x7`, `buffer_load_format_xyz`, `buffer_load_dwordx3`), and an "
        "interpolant's unused `w` does not free an attribute slot (a slot holds four components). "
        "So hlsllint does not report those. What the compiler cannot shrink is memory it does not "
        "own: a groupshared array keeps the layout you declared, and LDS is a per-workgroup budget "
        "that limits how many groups fit on a CU or WGP (the GPUOpen occupancy article). A "
        "`groupshared float4 cache[256]` whose `w` is never read spends 1 KiB of its 4 KiB on "
        "nothing; as `float3` (or a `float2`, or the spare component put to use) the group needs "
        "less LDS and more groups may fit. Measured on the examples below (navi21 wave64): 4,096 "
        "against 3,072 bytes of LDS, with the same registers; the `float3` layout took 28 "
        "instructions instead of 24 (three-component LDS accesses), so it pays where LDS limits "
        "the groups per CU, or when the spare component can carry other data."
    )
    bad_example = """\
groupshared float4 gTile[256];
RWStructuredBuffer<float3> gOut : register(u0);
StructuredBuffer<float4> gIn : register(t0);

[numthreads(256, 1, 1)]
void main(uint i : SV_GroupIndex, uint3 id : SV_DispatchThreadID)
{
    gTile[i] = gIn[id.x];
    GroupMemoryBarrierWithGroupSync();
    gOut[id.x] = gTile[(i + 1) % 256].xyz + gTile[i].xyz;
}
"""
    good_example = """\
groupshared float3 gTile[256];
RWStructuredBuffer<float3> gOut : register(u0);
StructuredBuffer<float4> gIn : register(t0);

[numthreads(256, 1, 1)]
void main(uint i : SV_GroupIndex, uint3 id : SV_DispatchThreadID)
{
    gTile[i] = gIn[id.x].xyz;
    GroupMemoryBarrierWithGroupSync();
    gOut[id.x] = gTile[(i + 1) % 256] + gTile[i];
}
"""
    tags = ("lds", "occupancy", "aaltonen")
    references = (
        "Sebastian Aaltonen, Optimizing GPU occupancy and resource usage with large thread groups "
        "(GPUOpen), section Unneeded data",
        "AMD GPUOpen, Occupancy explained: LDS as an occupancy limiter",
    )

    def _note_reads(self, ctx: RuleContext, sym: Symbol, state: _UnitState) -> None:
        """The components of `sym`'s elements that its uses (the model's use index) read."""
        for node in uses_of(ctx.model, sym):
            entry = state.arrays.setdefault(id(sym), _Reads())
            if entry.read is None:
                return
            element = _element(ctx, node, _depth(sym.type))
            read = _components_read(ctx, element) if element is not None else None
            entry.read = None if read is None else entry.read | read

    def check(self, ctx: RuleContext) -> None:
        model: Model = ctx.model
        state = _UnitState()
        for sym in model.groupshared:
            if _vector_array(sym.type) is not None:
                self._note_reads(ctx, sym, state)
        reads = state.arrays
        for sym in model.groupshared:
            shape = _vector_array(sym.type)
            entry = reads.get(id(sym))
            if shape is None or entry is None or entry.read is None or sym.node is None:
                continue
            if not ctx.in_main_file(sym.node):
                continue
            unused = [c for c in _XYZW if c not in entry.read]
            if not unused or len(unused) == 4:
                continue  # every component read; or nothing read at all (another problem)
            self._report(ctx, sym, shape, unused)

    def _report(self, ctx: RuleContext, sym: Symbol, shape: tuple[T.Type, int], unused: list[str]) -> None:
        vec, count = shape
        assert sym.node is not None
        sixteen = ctx.model.sixteen_bit
        per = _bytes(vec, 4, sixteen)
        waste = _bytes(vec, len(unused), sixteen)
        named = ", ".join(f"`{c}`" for c in unused)
        kept = 4 - len(unused)
        better = f"{vec.scalar}{kept}" if kept > 1 else vec.scalar
        ctx.report(
            sym.node,
            f"`{sym.name}` is groupshared {vec.name}[{count:,}] whose {named} "
            f"{'is' if len(unused) == 1 else 'are'} never read: {waste * count:,} of its "
            f"{per * count:,} bytes of LDS hold nothing",
            help=f"declare it {better} (or put the spare component to use) so the group needs less LDS",
        )


def _depth(t: T.Type) -> int:
    depth = 0
    while t.kind == "array" and t.element is not None:
        depth += 1
        t = t.element
    return depth
