"""HL113 neighbourhood-without-groupshared."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hlsllint.analysis import analyze
from hlsllint.analysis.occupancy import reachable_functions
from hlsllint.context import RuleContext
from hlsllint.diagnostics import Severity
from hlsllint.rule import Rule
from hlsllint.semantic import EntryPoint
from hlsllint.semantic.offsets import Relative, ThreadOffsets, Vec
from hlsllint.semantic.queries import as_fetch, unwritten
from hlsllint.syntax import Node
from hlsllint.syntax.queries import call_args, call_name, is_written, unparen

_MIN_TEXELS = 8
_TILE_RESOLUTION = re.compile(r"(?i)tile")
"""A resource named for tiles (`gTileMaxVelocity`, `TileClassification`): one texel per 8×8 or
16×16 tile of the screen, so a pass over it runs 64-256 times fewer threads than a full-screen
one and staging its neighbourhood saves next to nothing."""


@dataclass
class _Unit:
    """Per-unit state: call sites of each function, and the findings already reported."""

    calls: dict[str, list[Node]] = field(default_factory=dict)
    reported: set[tuple[int, int]] = field(default_factory=set)
    in_body: dict[int, list[Node]] = field(default_factory=dict)
    """Body node id -> its calls and subscripts in document order (`_Seen.in_body`)."""


@dataclass
class _Seen:
    """What the driver's walk handed to `visit`, in document order: every call, and per function
    body (by node id) its calls and subscripts (the fetch candidates)."""

    calls: list[Node] = field(default_factory=list)
    in_body: dict[int, list[Node]] = field(default_factory=dict)


@dataclass
class _Group:
    resource: str
    first: Node
    offsets: set[Vec] = field(default_factory=set)


def overhead(width: int, height: int, border_x: int, border_y: int) -> float:
    """Extra loads of staging a W×H tile plus its border: ((W+bx)(H+by) − WH) / WH."""
    tile = width * height
    return ((width + border_x) * (height + border_y) - tile) / tile


class NeighbourhoodWithoutGroupshared(Rule):
    code = "HL113"
    name = "neighbourhood-without-groupshared"
    summary = (
        "A compute shader whose threads each fetch eight or more texels of one resource at constant "
        "offsets around their own coordinate (a 3×3 or larger neighbourhood, written out or in "
        "constant loops), with no groupshared memory in the shader."
    )
    rationale = (
        "When every thread reads a 3×3 neighbourhood around its own texel, the neighbouring threads "
        "of the group read the same texels again: inside the group each texel is fetched by up to "
        "nine threads (25 for 5×5). The texture cache absorbs part of it, but each fetch still costs "
        "a texture instruction, address work and cache bandwidth. Loading the group's tile plus its "
        "border into groupshared memory once (one or a few loads per thread), a barrier, then "
        "reading the neighbourhood from LDS, fetches each texel once per group: the extra loads are "
        "only the border, ((W+2r)(H+2r) − WH)/WH for a W×H group and radius r: 56% for 8×8 with a "
        "one-texel border, 27% for 16×16, against 800% (nine loads per texel) without staging. The "
        "message computes it from the shader's `[numthreads]` and its actual neighbourhood. Sparse "
        "taps (fewer than eight), offsets scaled by a runtime step (à-trous filters, whose taps "
        "do not overlap between neighbours), coordinates that do not move one texel per thread (a "
        "2× downsample), shaders that already use groupshared memory and passes over a "
        "tile-resolution resource (named for tiles, one texel per 8×8 or 16×16 screen tile: 64 "
        "to 256 times fewer threads than a full-screen pass, so little to gain) are left alone. The "
        "saving is in texture fetches, not instructions: compiled with regtruth (navi21, wave64) "
        "the example below issues 9 `image_load`s per thread in 44 instructions, the staged "
        "version one or two per thread (100 for the group's 64 threads) in 60 instructions with "
        "512 bytes of LDS, both at 16 VGPRs and 16 waves/SIMD. Staging adds a barrier and LDS, "
        "which can lower occupancy: measure before and after."
    )
    bad_example = """\
Texture2D<float> src : register(t0);
RWTexture2D<float> dst : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float sum = 0;
    [unroll] for (int y = -1; y <= 1; y++)
        [unroll] for (int x = -1; x <= 1; x++)
            sum += src[int2(id.xy) + int2(x, y)];
    dst[id.xy] = sum / 9;
}
"""
    good_example = """\
Texture2D<float> src : register(t0);
RWTexture2D<float> dst : register(u0);

groupshared float tile[10][10];

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 gtid : SV_GroupThreadID, uint3 gid : SV_GroupID)
{
    int2 origin = int2(gid.xy * 8) - 1;
    for (uint i = gtid.y * 8 + gtid.x; i < 100; i += 64)
        tile[i / 10][i % 10] = src[origin + int2(i % 10, i / 10)];
    GroupMemoryBarrierWithGroupSync();
    float sum = 0;
    [unroll] for (int y = 0; y < 3; y++)
        [unroll] for (int x = 0; x < 3; x++)
            sum += tile[gtid.y + y][gtid.x + x];
    dst[id.xy] = sum / 9;
}
"""
    severity = Severity.INFO
    tags = ("memory", "compute", "groupshared")
    references = (
        "AMD GPUOpen, compute shader tiling: stage the tile plus its apron in LDS (the border "
        "overhead is ((W+2r)(H+2r) − WH)/WH)",
        "Microsoft docs: groupshared and GroupMemoryBarrierWithGroupSync",
    )

    function_local = False
    """Entry-dependent: visit gathers calls and fetches for `check`, which reads them per compute entry
    point."""
    node_kinds = frozenset({"call_expression", "subscript_expression"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        seen = ctx.scratch(_Seen)
        if node.type == "call_expression":
            seen.calls.append(node)
        fn = ctx.function
        if fn is not None and fn.body is not None:
            seen.in_body.setdefault(fn.body.id, []).append(node)

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        seen = ctx.scratch(_Seen)
        unit = _Unit(in_body=seen.in_body)
        indexed = False
        for entry in model.entry_points:
            if entry.stage != "compute" or entry.group_size is None or analyze(model).groupshared(entry):
                continue
            attr = entry.function.attribute("numthreads")
            if attr is None or not all(isinstance(a, int) for a in attr.args[:2]):
                continue  # the group size could not be read (a constant of a header not found)
            if entry.group_size[0] * entry.group_size[1] < 2:
                continue  # one thread per group: nothing to share
            if not indexed:  # the call sites of each function, once an entry point needs them
                indexed = True
                for call in seen.calls:
                    name = call_name(model.tree, call)
                    if name and name in model.functions:
                        unit.calls.setdefault(name, []).append(call)
            reader = ThreadOffsets(model, entry, unit.calls)
            groups: dict[tuple[object, ...], _Group] = {}
            for fn in reachable_functions(model, entry):
                if fn.body is not None:
                    self._collect(ctx, reader, seen.in_body, seen.in_body.get(fn.body.id, []), groups)
            for group in groups.values():
                self._report(ctx, entry, unit, group)

    def _collect(
        self,
        ctx: RuleContext,
        reader: ThreadOffsets,
        in_body: dict[int, list[Node]],
        nodes: list[Node],
        groups: dict[tuple[object, ...], _Group],
    ) -> None:
        """The fetches among a function's calls and subscripts `nodes`, grouped by what they read."""
        model = ctx.model
        for node in nodes:
            if node.type == "call_expression" and as_fetch(model, node) is None:
                for obj, method, kind, address, extra in self._helper_fetches(reader, in_body, node):
                    found = reader.fetch_offsets(node, method, kind, address, extra)
                    self._add(ctx, reader, groups, node, obj, found)
                continue
            fetch = as_fetch(model, node)
            if fetch is None or fetch.kind == "gather" or not fetch.address or is_written(model.tree, node):
                continue
            target = _object(node)
            if target is None:
                continue
            found = reader.fetch_offsets(node, fetch.method, fetch.kind, fetch.address[0], fetch.address[1:])
            self._add(ctx, reader, groups, node, target, found)

    @staticmethod
    def _add(
        ctx: RuleContext,
        reader: ThreadOffsets,
        groups: dict[tuple[object, ...], _Group],
        site: Node,
        obj: Node,
        found: tuple[Relative, set[Vec]] | None,
    ) -> None:
        if found is None:
            return
        key_base, offsets = found
        key = (reader.identity(obj), *key_base)
        group = groups.setdefault(key, _Group(ctx.node_text(obj), site))
        group.offsets |= offsets

    @staticmethod
    def _helper_fetches(
        reader: ThreadOffsets, in_body: dict[int, list[Node]], call: Node
    ) -> list[tuple[Node, str, str, Node, list[Node]]]:
        """`LoadColor(p + int2(1, 0))` where `LoadColor(int2 q)` returns `tex[q]`: the fetches the
        helper makes at one of its parameters, with the call's argument as their address."""
        model = reader.model
        name = call_name(model.tree, call)
        overloads = model.functions.get(name or "", [])
        body = overloads[0].body if len(overloads) == 1 else None
        if body is None:
            return []
        fn = overloads[0]
        args = call_args(call)
        out: list[tuple[Node, str, str, Node, list[Node]]] = []
        for node in in_body.get(body.id, []):  # the helper's calls and subscripts
            fetch = as_fetch(model, node)
            if fetch is None or not fetch.address or fetch.kind == "gather" or is_written(model.tree, node):
                continue  # not a fetch, or a store `rw[p] = ...`
            address = fetch.address[0]
            if fetch.kind == "load":
                stripped = reader.strip_level(address)
                if stripped is None:
                    continue
                address = stripped
            address = unparen(address)
            sym = model.resolve(address) if address.type == "identifier" else None
            index = next((i for i, p in enumerate(fn.params) if p is sym), -1)
            obj = _object(node)
            if sym is None or not 0 <= index < len(args) or obj is None or not unwritten(model, sym):
                continue
            if fetch.address[1:]:
                continue  # an offset or level argument of the helper's own
            out.append((obj, fetch.method, fetch.kind, args[index], []))
        return out

    def _report(self, ctx: RuleContext, entry: EntryPoint, unit: _Unit, group: _Group) -> None:
        offsets = group.offsets
        if len(offsets) < _MIN_TEXELS:
            return
        xs = [o[0] for o in offsets]
        ys = [o[1] for o in offsets]
        if not all(float(v).is_integer() for v in xs + ys):
            return
        border_x, border_y = int(max(xs) - min(xs)), int(max(ys) - min(ys))
        if border_x < 2 or border_y < 2:
            return  # not a 3×3 or larger neighbourhood (a line of taps, a separable pass)
        if _TILE_RESOLUTION.search(group.resource):
            return  # a tile-resolution pass (one texel per screen tile): little to gain
        key = (group.first.start_byte, group.first.end_byte)
        if key in unit.reported:
            return
        unit.reported.add(key)
        assert entry.group_size is not None
        width, height, _depth = entry.group_size
        extra = overhead(width, height, border_x, border_y)
        radius = max(border_x, border_y) / 2
        shape = f"{border_x + 1}×{border_y + 1}"
        square = border_x == border_y and radius.is_integer()
        r = f"radius {radius:g}" if square else f"border {border_x}×{border_y}"
        ctx.report(
            group.first,
            f"each thread of `{entry.name}` fetches a {shape} neighbourhood of `{group.resource}` "
            f"({len(offsets)} texels) with no groupshared staging",
            help=(
                f"stage the {width}×{height} group's {width + border_x}×{height + border_y} tile with its "
                f"border in groupshared memory: each texel loaded once, {100 * extra:.0f}% extra loads "
                "for the border"
            ),
            notes=[
                f"the taps lie around the thread's own coordinate ({r}): a texel is fetched by up "
                f"to {len(offsets)} threads"
            ],
        )


def _object(node: Node) -> Node | None:
    """The resource expression of a fetch (`tex` of `tex.Load(...)` or `tex[...]`)."""
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        return fn.child_by_field_name("argument") if fn is not None else None
    return node.child_by_field_name("argument")
