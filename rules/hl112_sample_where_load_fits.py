"""HL112 sample-where-load-fits."""

from __future__ import annotations

from hlsllint.analysis.occupancy import reachable_functions
from hlsllint.context import RuleContext
from hlsllint.diagnostics import Applicability, FixAvailability, Severity
from hlsllint.rule import Rule
from hlsllint.semantic import Function, Model, Symbol
from hlsllint.semantic.queries import as_fetch, unwritten, uses_of
from hlsllint.syntax import Node
from hlsllint.syntax.queries import call_args, call_name, unparen

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
    value = model.const_value(node)
    return isinstance(value, float) and value == 0.5


def _root_symbol(model: Model, node: Node) -> Symbol | None:
    """The parameter or local a coordinate like `id.xy` (or `id`) reads."""
    node = unparen(node)
    while node.type == "field_expression":
        arg = node.child_by_field_name("argument")
        if arg is None:
            return None
        node = unparen(arg)
    if node.type != "identifier":
        return None
    sym = model.resolve(node)
    return sym if sym is not None and sym.kind in ("param", "local") else None


def _centre(model: Model, node: Node) -> Node | None:
    """C of `(C + 0.5)`, C an unsigned two-component texel index."""
    node = _single_value(model, node)
    if node.type == "binary_expression" and model.tree.node_text(node.child_by_field_name("operator")) == "+":  # type: ignore[arg-type]
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return None
        coord = left if _is_half(model, right) else right if _is_half(model, left) else None
        if coord is None:
            return None
        coord = _strip_float_cast(model, coord)
        t = model.type_of(coord)
        if t.kind != "vector" or t.cols != 2 or t.scalar != "uint":
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
    uv = _single_value(model, uv)
    if uv.type != "binary_expression":
        return None
    op = model.tree.node_text(uv.child_by_field_name("operator"))  # type: ignore[arg-type]
    left, right = uv.child_by_field_name("left"), uv.child_by_field_name("right")
    if left is None or right is None:
        return None
    if op == "/":
        centre = _centre(model, left)
        return centre if centre is not None and _is_size_of(model, right, dims) else None
    if op == "*":
        for a, b in ((left, right), (right, left)):
            centre = _centre(model, a)
            if centre is not None and _is_reciprocal_of_size(model, b, dims):
                return centre
    return None


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
        "`Sample`/`SampleLevel` at level 0 at the exact centre of a texel of the texture itself "
        "(`(id + 0.5) / size` with `size` from its own `GetDimensions`, inside a bounds check), in "
        "a compute or pixel shader, where `tex[id]` reads the same texel."
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
        "shaders only (in a pixel shader its level comes from derivatives)."
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
    node_kinds = frozenset({"call_expression"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        fn = ctx.function
        if fn is None or not ctx.in_main_file(node):
            return  # reported in the main file only: a header's fetches where it is linted itself
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
        if not dims:
            return
        centre = _texel_centre(model, args[1], dims)
        if centre is None:
            return
        root = _root_symbol(model, centre)
        if root is None or not _in_range(model, node, {id(root)}, set(dims)):
            return
        tex, index = ctx.node_text(obj), ctx.node_text(centre)
        replacement = f"{tex}[{index}]"
        fix = None
        if _fixable_coord(model, fn, centre):
            fix = (f"Replace with `{replacement}`", Applicability.UNSAFE, [ctx.edit(node, replacement)])
        ctx.report(
            node,
            f"`{tex}.{fetch.method}` at the centre of texel `{index}` of its own mip 0 reads "
            "exactly that texel",
            fix=fix,
            help=f"load it: `{replacement}` needs no sampler descriptor and no filtering",
            notes=[
                f"the coordinate is inside the bounds of `{tex}`",
                "regtruth example: 51 -> 39 instructions, 32 -> 24 SGPRs",
            ],
        )
