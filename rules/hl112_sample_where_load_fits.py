"""HL112 sample-where-load-fits."""

from __future__ import annotations

import re
from collections.abc import Callable

from hlsllint.analysis.occupancy import reachable_functions
from hlsllint.context import RuleContext
from hlsllint.diagnostics import Applicability, FixAvailability, Severity
from hlsllint.rule import Rule
from hlsllint.semantic import Function, Model, Symbol
from hlsllint.semantic.queries import as_fetch, unwritten, uses_of
from hlsllint.syntax import Node
from hlsllint.syntax.queries import call_args, call_name, member_root, unparen

# Textures whose `tex[uint2]` reads the texel a 2D coordinate samples.
_TEXTURES_2D = frozenset({"Texture2D"})
_FLOAT_CASTS = frozenset({"float", "float2", "half2", "min16float2"})
_FOLLOW = 4
"""How many single-assignment locals are followed from the coordinate back to its definition."""


def _stages_by_function(model: Model) -> dict[int, set[str]]:
    """id(function) -> the stages of the entry points that reach it."""
    out: dict[int, set[str]] = {}
    for entry in model.entry_points:
        for fn in reachable_functions(model, entry):
            out.setdefault(id(fn), set()).add(entry.stage)
    return out


def _single_value(model: Model, node: Node) -> Node:
    """Follow a local (or parameter-free const) that is assigned once, at its declaration."""
    for _ in range(_FOLLOW):
        node = unparen(node)
        if node.type != "identifier":
            return node
        sym = model.resolve(node)
        if sym is None or sym.kind != "local" or sym.init is None:
            return node
        if not unwritten(model, sym):
            return node
        node = sym.init
    return unparen(node)


def _strip_float_cast(model: Model, node: Node) -> Node:
    """`float2(x)`, `(float2)x` -> x."""
    node = unparen(node)
    if node.type == "call_expression" and call_name(model.tree, node) in _FLOAT_CASTS:
        args = call_args(node)
        if len(args) == 1:
            return unparen(args[0])
    if node.type == "cast_expression":
        t = model.type_from_node(node.child_by_field_name("type"))
        value = node.child_by_field_name("value")
        if t.is_float and value is not None:
            return unparen(value)
    return node


def _is_half(model: Model, node: Node) -> bool:
    """`0.5`, `0.5f`, `float2(0.5, 0.5)`, `0.5.xx`."""
    node = unparen(node)
    value = model.const_value(node)
    if value is not None:
        return isinstance(value, float) and value == 0.5
    if node.type == "call_expression" and call_name(model.tree, node) in _FLOAT_CASTS:
        args = call_args(node)
        return bool(args) and len(args) <= 2 and all(_is_half(model, a) for a in args)
    if node.type == "field_expression":
        field = node.child_by_field_name("field")
        arg = node.child_by_field_name("argument")
        return (
            field is not None
            and arg is not None
            and model.tree.node_text(field) in ("xx", "rr")
            and _is_half(model, arg)
        )
    return False


def _root_symbol(model: Model, node: Node) -> Symbol | None:
    """The parameter or local a coordinate like `id.xy` (or `id`) reads."""
    root = member_root(node)
    if root is None:
        return None
    sym = model.resolve(root)
    return sym if sym is not None and sym.kind in ("param", "local") else None


def _pixel_position(model: Model, node: Node) -> bool:
    """`pos.xy` (or `input.pos.xy`) of a pixel shader's `SV_Position`: the centre of the pixel,
    `px + 0.5`, already (not with `sample` interpolation, which moves it to the sample)."""
    node = unparen(node)
    if node.type != "field_expression":
        return False
    field = node.child_by_field_name("field")
    arg = node.child_by_field_name("argument")
    if field is None or arg is None or model.tree.node_text(field) != "xy":
        return False
    arg = unparen(arg)
    if arg.type == "identifier":
        sym = model.resolve(arg)
        if sym is None or sym.kind != "param" or (sym.semantic or "").upper() != "SV_POSITION":
            return False
        return sym.decl is None or "sample" not in model.tree.modifiers_of(sym.decl)
    if arg.type == "field_expression":
        base, member = arg.child_by_field_name("argument"), arg.child_by_field_name("field")
        if base is None or member is None:
            return False
        struct = model.type_of(base)
        name = model.tree.node_text(member)
        return struct.kind == "struct" and any(
            m.name == name and (m.semantic or "").upper() == "SV_POSITION" for m in struct.members
        )
    return False


def _centre(model: Model, node: Node) -> Node | None:
    """C of `(C + 0.5)`, C an unsigned two-component texel index, or a pixel shader's
    `SV_Position.xy` (the pixel's centre itself)."""
    node = _single_value(model, node)
    if _pixel_position(model, node):
        return node
    if node.type == "binary_expression" and model.tree.node_text(node.child_by_field_name("operator")) == "+":  # type: ignore[arg-type]
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return None
        coord = left if _is_half(model, right) else right if _is_half(model, left) else None
        if coord is None:
            return None
        coord = _strip_float_cast(model, coord)
        t = model.type_of(coord)
        if t.kind != "vector" or t.cols != 2 or t.scalar not in ("uint", "int"):
            return None
        return coord
    return None


def _dimension_symbols(model: Model, texture: Symbol) -> dict[int, int]:
    """id(symbol) -> axis (0 width, 1 height) for the outputs of `texture.GetDimensions(...)` at
    mip 0 (`GetDimensions(w, h)`, `GetDimensions(0, w, h, levels)`); a vector output written
    through `.x`/`.y` maps to -1 (its components follow its swizzle)."""
    out: dict[int, int] = {}
    for use in uses_of(model, texture):
        field = use.parent
        call = field.parent if field is not None else None
        if (
            field is None
            or call is None
            or field.type != "field_expression"
            or call.type != "call_expression"
        ):
            continue
        name = field.child_by_field_name("field")
        if name is None or model.tree.node_text(name) != "GetDimensions":
            continue
        args = call_args(call)
        if len(args) == 4:
            if model.const_value(args[0]) != 0:
                continue  # another mip's size
            args = args[1:3]
        elif len(args) != 2:
            continue
        for axis, arg in enumerate(args):
            arg = unparen(arg)
            swizzle = None
            if arg.type == "field_expression":
                swizzle = model.tree.node_text(arg.child_by_field_name("field"))  # type: ignore[arg-type]
                arg = unparen(arg.child_by_field_name("argument"))  # type: ignore[arg-type]
            sym = model.resolve(arg) if arg.type == "identifier" else None
            if sym is None:
                continue
            if swizzle is None:
                out[id(sym)] = axis
            elif swizzle == "xy"[axis]:
                out[id(sym)] = -1
    return out


def _is_size_of(model: Model, node: Node, dims: dict[int, int]) -> bool:
    """Is `node` the texture's (width, height): `dims`, `dims.xy`, `float2(dims)`, `float2(w, h)`?"""
    node = _single_value(model, node)
    node = _strip_float_cast(model, node)
    if node.type == "call_expression" and call_name(model.tree, node) in _FLOAT_CASTS:
        args = call_args(node)
        if len(args) != 2:
            return False
        for axis, arg in enumerate(args):
            arg = _strip_float_cast(model, _single_value(model, arg))
            if arg.type == "identifier":
                sym = model.resolve(arg)
                if sym is None or dims.get(id(sym)) != axis:
                    return False
            elif arg.type == "field_expression":
                base = unparen(arg.child_by_field_name("argument"))  # type: ignore[arg-type]
                sym = model.resolve(base) if base.type == "identifier" else None
                field = model.tree.node_text(arg.child_by_field_name("field"))  # type: ignore[arg-type]
                if sym is None or dims.get(id(sym)) != -1 or field != "xy"[axis]:
                    return False
            else:
                return False
        return True
    swizzle = "xy"
    if node.type == "field_expression":
        swizzle = model.tree.node_text(node.child_by_field_name("field"))  # type: ignore[arg-type]
        node = unparen(node.child_by_field_name("argument"))  # type: ignore[arg-type]
    if node.type != "identifier" or swizzle != "xy":
        return False
    sym = model.resolve(node)
    return sym is not None and dims.get(id(sym)) == -1 and sym.type.cols >= 2


def _is_reciprocal_of_size(model: Model, node: Node, dims: dict[int, int]) -> bool:
    """`1.0 / size` or `rcp(size)`."""
    node = _single_value(model, node)
    if node.type == "call_expression" and call_name(model.tree, node) == "rcp":
        args = call_args(node)
        return len(args) == 1 and _is_size_of(model, args[0], dims)
    if node.type == "binary_expression" and model.tree.node_text(node.child_by_field_name("operator")) == "/":  # type: ignore[arg-type]
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        return model.const_value(left) == 1 and right is not None and _is_size_of(model, right, dims)
    return False


def _texel_centre(model: Model, uv: Node, dims: dict[int, int]) -> Node | None:
    """The texel index when `uv` is `(C + 0.5) * (1 / size)` or `(C + 0.5) / size` of the texture."""
    return _centre_over(
        model,
        uv,
        lambda n: _is_size_of(model, n, dims),
        lambda n: _is_reciprocal_of_size(model, n, dims),
    )


def _centre_over(
    model: Model, uv: Node, is_size: Callable[[Node], bool], is_reciprocal: Callable[[Node], bool]
) -> Node | None:
    """The texel index when `uv` is `(C + 0.5) * R` with `is_reciprocal(R)` or `(C + 0.5) / S`
    with `is_size(S)`."""
    uv = _single_value(model, uv)
    if uv.type != "binary_expression":
        return None
    op = model.tree.node_text(uv.child_by_field_name("operator"))  # type: ignore[arg-type]
    left, right = uv.child_by_field_name("left"), uv.child_by_field_name("right")
    if left is None or right is None:
        return None
    if op == "/":
        centre = _centre(model, left)
        return centre if centre is not None and is_size(right) else None
    if op == "*":
        for a, b in ((left, right), (right, left)):
            centre = _centre(model, a)
            if centre is not None and is_reciprocal(b):
                return centre
    return None


def _uniform_size(model: Model, node: Node, elsewhere: set[int]) -> bool:
    """A two-component size (or its reciprocal) the application sets: a constant-buffer member
    (`invSize`, `params.texelSize.xy`, `float2(gWidth, gHeight)`), `rcp` or `1.0 /` of one, or a
    constant. Not the output of another texture's `GetDimensions` (`elsewhere`)."""
    node = _strip_float_cast(model, _single_value(model, node))
    if node.type == "call_expression" and call_name(model.tree, node) == "rcp":
        args = call_args(node)
        return len(args) == 1 and _uniform_size(model, args[0], elsewhere)
    if node.type == "binary_expression" and model.tree.node_text(node.child_by_field_name("operator")) == "/":  # type: ignore[arg-type]
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        return model.const_value(left) == 1 and right is not None and _uniform_size(model, right, elsewhere)
    if node.type == "call_expression" and call_name(model.tree, node) in _FLOAT_CASTS:
        args = call_args(node)
        return len(args) == 2 and all(_uniform_scalar(model, a, elsewhere) for a in args)
    t = model.type_of(node)
    return t.kind == "vector" and t.cols == 2 and _application_value(model, node, elsewhere)


def _uniform_scalar(model: Model, node: Node, elsewhere: set[int]) -> bool:
    node = _strip_float_cast(model, _single_value(model, node))
    return model.const_value(node) is not None or _application_value(model, node, elsewhere)


def _application_value(model: Model, node: Node, elsewhere: set[int]) -> bool:
    """A constant-buffer member or global constant, possibly through members and a swizzle."""
    node = unparen(node)
    if model.const_value(node) is not None:
        return True
    root = member_root(node)
    if root is None:
        return False
    sym = model.resolve(root)
    if sym is None or id(sym) in elsewhere:
        return False
    if sym.kind in ("cbuffer_member", "static_const"):
        return True
    return (
        sym.kind == "resource"
        and sym.type.resource is not None
        and sym.type.resource.kind == "ConstantBuffer"
    )


_POINT_NAME = re.compile(r"(?i)point|nearest")


def _point_sampler(model: Model, node: Node) -> bool:
    """A sampler named as a point (nearest) sampler: its filter is the application's (a root
    signature or the API), so the name is the evidence the shader holds."""
    node = unparen(node)
    sym = model.resolve(node) if node.type == "identifier" else None
    if sym is None or sym.kind != "resource":
        return False
    return bool(_POINT_NAME.search(sym.name))


def _all_dimension_symbols(model: Model) -> dict[int, int]:
    """id(symbol) -> axis for the outputs of every texture's `GetDimensions`."""
    out: dict[int, int] = {}
    for sym in model.globals.values():
        if sym.kind == "resource":
            out.update(_dimension_symbols(model, sym))
    return out


_THREAD_IDS = frozenset({"SV_DISPATCHTHREADID", "SV_POSITION"})


def _is_thread_texel(model: Model, centre: Node) -> bool:
    """The index is the thread's own pixel: `id.xy` of `SV_DispatchThreadID`, or `uint2(pos.xy)`
    of `SV_Position` (directly or through a local set once). Lanes past the texture's edge only
    come from a dispatch rounded up to the group size, whose writes miss the output too."""
    if _pixel_position(model, _single_value(model, centre)):
        return True
    node = _single_value(model, centre)
    for _ in range(3):
        node = unparen(node)
        if node.type == "call_expression" and call_name(model.tree, node) in ("uint2", "int2"):
            args = call_args(node)
            if len(args) != 1:
                return False
            node = _single_value(model, args[0])
        elif node.type == "cast_expression":
            value = node.child_by_field_name("value")
            if value is None:
                return False
            node = _single_value(model, value)
        else:
            break
    if node.type == "field_expression":
        field = node.child_by_field_name("field")
        if field is None or model.tree.node_text(field) != "xy":
            return False
        node = unparen(node.child_by_field_name("argument"))  # type: ignore[arg-type]
    if node.type != "identifier":
        return False
    sym = model.resolve(node)
    return sym is not None and sym.kind == "param" and (sym.semantic or "").upper() in _THREAD_IDS


def _mentions(model: Model, node: Node, symbols: set[int]) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            sym = model.resolve(n)
            if sym is not None and id(sym) in symbols:
                return True
        stack.extend(n.children)
    return False


def _bound_test(model: Model, cond: Node, coord: set[int], dims: set[int], inside: bool) -> bool:
    """Does `cond` compare the coordinate with the size: `coord >= size` (outside) or
    `coord < size` (inside), possibly under `any`/`all`, `||`/`&&`?"""
    stack = [cond]
    while stack:
        n = unparen(stack.pop())
        if n.type == "binary_expression":
            op = model.tree.node_text(n.child_by_field_name("operator"))  # type: ignore[arg-type]
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left is not None and right is not None and op in (">=", "<", ">", "<="):
                lo, hi = (left, right) if op in (">=", "<") else (right, left)
                wanted = "<" if inside else ">="
                flipped = {">=": "<=", "<": ">"}[wanted]
                if op in (wanted, flipped) and _mentions(model, lo, coord) and _mentions(model, hi, dims):
                    return True
            stack.extend(c for c in (left, right) if c is not None)
        elif n.type == "call_expression" and call_name(model.tree, n) in ("any", "all"):
            stack.extend(call_args(n))
        elif n.type == "condition_clause":
            stack.extend(c for c in n.named_children if c.type != "comment")
    return False


def _jumps_out(stmt: Node | None) -> bool:
    if stmt is None:
        return False
    if stmt.type == "return_statement":
        return True
    if stmt.type == "compound_statement":
        inner = [c for c in stmt.named_children if c.type != "comment"]
        return bool(inner) and inner[-1].type == "return_statement"
    return False


def _in_range(model: Model, call: Node, coord: set[int], dims: set[int]) -> bool:
    """The fetch runs only for texel indices inside the texture: under `if (all(id < size))`, or
    after `if (any(id >= size)) return;` in a block that encloses it."""
    child, cur = call, call.parent
    while cur is not None and cur.type != "function_definition":
        if cur.type == "if_statement":
            cond = cur.child_by_field_name("condition")
            body = cur.child_by_field_name("consequence")
            if (
                cond is not None
                and body is not None
                and body.start_byte <= child.start_byte < body.end_byte
                and _bound_test(model, cond, coord, dims, inside=True)
            ):
                return True
        if cur.type == "compound_statement":
            for stmt in cur.named_children:
                if stmt.start_byte >= child.start_byte:
                    break
                if stmt.type != "if_statement" or stmt.child_by_field_name("alternative") is not None:
                    continue
                cond = stmt.child_by_field_name("condition")
                if (
                    cond is not None
                    and _jumps_out(stmt.child_by_field_name("consequence"))
                    and _bound_test(model, cond, coord, dims, inside=False)
                ):
                    return True
        child, cur = cur, cur.parent
    return False


def _fixable_coord(model: Model, fn: Function, coord: Node) -> bool:
    """The index reads only parameters of the function that are never written, so its text means
    the same at the fetch."""
    stack = [coord]
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            sym = model.resolve(n)
            if sym is None or sym.kind != "param" or not any(sym is p for p in fn.params):
                return False
            if not unwritten(model, sym):
                return False
        stack.extend(c for c in n.children if c.type != "field_identifier")
    return True


class SampleWhereLoadFits(Rule):
    code = "HL112"
    name = "sample-where-load-fits"
    summary = (
        "`Sample`/`SampleLevel` at level 0 at the exact centre of a texel of a `Texture2D` "
        "(`(id + 0.5) / size` with `size` from its own `GetDimensions`, or `(id + 0.5) * invSize` "
        "through a point sampler), in a compute or pixel shader, where `Load(int3(id, 0))` reads "
        "the same texel."
    )
    rationale = (
        "At the exact centre of a texel of mip 0, bilinear filtering weighs that one texel by 1 "
        "and its neighbours by 0, so the sample returns the texel itself: the sampler descriptor, "
        "the coordinate arithmetic (int to float, +0.5, scale) and the filtering are work for "
        "nothing. `tex[id]` (an `image_load`) needs no sampler and no float coordinate. Compiled "
        "with regtruth (navi21, wave64) the example below takes 51 instructions and 32 SGPRs "
        "against 39 and 24 with `tex[id]` (the issue's own measurement: 26 -> 16 instructions, 32 "
        "-> 24 SGPRs). The rule is conservative: the size must come from the sampled texture's "
        "own `GetDimensions` (a size from a constant buffer may be another texture's: a bilinear "
        "downsample samples the source at the output's texel centres, which are corners of the "
        "source's texels, on purpose), the index must be unsigned and checked against that size "
        "before the fetch (out of range, the sampler would wrap or clamp where `tex[id]` returns "
        "0), and interpolated coordinates are never reported. `Sample` is reported in compute "
        "shaders only (in a pixel shader its level comes from derivatives). A size the "
        "application sets (`(px + 0.5) * invSize` with `invSize` a constant-buffer value) is "
        "reported only through a point sampler (its name says `point` or `nearest`): a linear "
        "sampler there is the downsample above, and the note says the claim holds when the size "
        "is the texture's own; measured with regtruth (navi21, wave64), `SampleLevel(pointClamp, "
        "(id.xy + 0.5) * invSize, 0)` against `Load(int3(id.xy, 0))` in a compute shader: 26 -> "
        "18 instructions, 16 VGPRs and 32 SGPRs either way. A pixel shader's `SV_Position.xy` is "
        "the pixel's centre already (`pos.xy * invSize` samples texel `int2(pos.xy)`; not with "
        "`sample` interpolation); measured, `SampleLevel(pointClamp, pos.xy * invSize, 0)` "
        "against `Load(int3(int2(pos.xy), 0))`: 18 -> 16 instructions, 8 VGPRs and 16 SGPRs "
        "either way. No bounds check is needed when the "
        "index is the thread's own pixel (`SV_DispatchThreadID.xy`, `uint2(SV_Position.xy)`): "
        "lanes past the edge come from a dispatch rounded up to the group size (or a render "
        "target larger than the texture), whose results are usually dropped; an index with an "
        "offset must be checked."
    )
    bad_example = """\
Texture2D<float4> src : register(t0);
SamplerState linearClamp : register(s0);
RWTexture2D<float4> dst : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint2 size;
    src.GetDimensions(size.x, size.y);
    if (any(id.xy >= size))
        return;
    float2 uv = (id.xy + 0.5) / float2(size);
    dst[id.xy] = src.SampleLevel(linearClamp, uv, 0) * 2.0;
}
"""
    good_example = """\
Texture2D<float4> src : register(t0);
RWTexture2D<float4> dst : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint2 size;
    src.GetDimensions(size.x, size.y);
    if (any(id.xy >= size))
        return;
    dst[id.xy] = src[id.xy] * 2.0;
}
"""
    severity = Severity.INFO
    fix = FixAvailability.SOMETIMES
    fix_safety = (
        "Offered as an unsafe fix when the texel index reads only parameters of the function that "
        "are never written (so its text can replace the call as is). It is unsafe because the "
        "sampler's state is the application's: a `MinLOD` or `MipLODBias` above 0, or a min/max "
        "reduction sampler, would make the sample differ from the texel. The sampler declaration "
        "is left in place (other code may use it)."
    )
    tags = ("memory", "compute", "descriptors")
    references = (
        "D3D11.3 functional specification, 7.18.8 (texel coordinates: the centre of texel i is at "
        "(i + 0.5) / size) and 7.18.10 (point and linear filtering weights)",
        "AMD RDNA2 ISA reference: IMAGE_LOAD needs a resource descriptor only, IMAGE_SAMPLE a "
        "resource and a sampler descriptor",
    )
    function_local = True
    """Nothing in a header's functions (reported where the header is linted itself); a call in
    the main file's code asks `ctx.needs_unit()`."""
    node_kinds = frozenset({"call_expression"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        fn = ctx.function
        if fn is None or not ctx.in_main_file(node):
            return  # reported in the main file only: a header's fetches where it is linted itself
        ctx.needs_unit()  # the stages of the entry points that reach the function
        model = ctx.model
        fetch = as_fetch(model, node)
        if fetch is None or fetch.method not in ("Sample", "SampleLevel"):
            return
        res = fetch.resource.resource
        if res is None or res.kind not in _TEXTURES_2D:
            return
        args = call_args(node)
        if fetch.method == "SampleLevel":
            if len(args) != 3 or model.const_value(args[2]) != 0:
                return  # another level, or an offset / clamp / status argument
        elif len(args) != 2:
            return
        stages = ctx.scratch(lambda: _stages_by_function(model)).get(id(fn), set())
        allowed = {"compute"} if fetch.method == "Sample" else {"compute", "pixel"}
        if not stages or not stages <= allowed:
            return
        callee = node.child_by_field_name("function")
        obj = callee.child_by_field_name("argument") if callee is not None else None
        texture = model.resolve(obj) if obj is not None and obj.type == "identifier" else None
        if obj is None or texture is None or texture.kind in ("local", "param"):
            return
        dims = _dimension_symbols(model, texture)
        centre = _texel_centre(model, args[1], dims) if dims else None
        own_size = centre is not None
        if centre is None and _point_sampler(model, args[0]):
            # A point sampler at `(C + 0.5) * invSize` with a size the application sets: the
            # texel C when the size is this texture's (a linear sampler at another texture's
            # texel centres is a bilinear downsample, on purpose: not reported).
            elsewhere = set(ctx.scratch(lambda: _all_dimension_symbols(model))) - set(dims)
            centre = _centre_over(
                model,
                args[1],
                lambda n: _uniform_size(model, n, elsewhere),
                lambda n: _uniform_size(model, n, elsewhere),
            )
        if centre is None:
            return
        root = _root_symbol(model, centre)
        if root is None:
            return
        checked = bool(dims) and _in_range(model, node, {id(root)}, set(dims))
        if not checked and not _is_thread_texel(model, centre):
            return  # an offset index may leave the texture, where the sampler clamps and Load returns 0
        tex, index = ctx.node_text(obj), ctx.node_text(centre)
        if _pixel_position(model, centre):
            index = f"int2({index})"
        replacement = f"{tex}.Load(int3({index}, 0))"
        fix = None
        if own_size and _fixable_coord(model, fn, centre):
            fix = (f"Replace with `{replacement}`", Applicability.UNSAFE, [ctx.edit(node, replacement)])
        size_text = ctx.node_text(_single_value(model, args[1]))
        whose = "its own mip 0" if own_size else "mip 0"
        notes = [
            f"the coordinate is inside the bounds of `{tex}`"
            if checked
            else "the index is the thread's own pixel: where that is past the texture's edge (a "
            "dispatch rounded up, a larger render target) the sampler clamps or wraps where `Load` "
            "returns 0",
        ]
        if not own_size:
            notes.append(
                f"the size in `{_short(size_text)}` is the application's: this holds when it "
                f"is `{tex}`'s own size"
            )
        if _pixel_position(model, centre):
            notes.append("regtruth example (pixel shader): 18 -> 16 instructions, same VGPRs and SGPRs")
        elif own_size:
            notes.append("regtruth example: 51 -> 39 instructions, 32 -> 24 SGPRs")
        else:
            notes.append("regtruth example (point sampler): 26 -> 18 instructions, same VGPRs and SGPRs")
        ctx.report(
            node,
            f"`{tex}.{fetch.method}` at the centre of texel `{index}` of {whose} reads exactly that texel",
            fix=fix,
            help=f"load it: `{replacement}` needs no sampler descriptor and no filtering",
            notes=notes,
        )


def _short(text: str, limit: int = 48) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
