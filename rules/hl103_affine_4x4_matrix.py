"""HL103 affine-4x4-matrix."""

from __future__ import annotations

from dataclasses import dataclass, field

from hlsllint.rules._common import (
    call_args,
    call_name,
    in_main_file,
    is_assignment_target,
    same,
    struct_node,
    swizzle_of,
    unparen_up,
    uses_of,
)

from hlsllint.context import RuleContext
from hlsllint.rule import Rule
from hlsllint.semantic import Model, Symbol
from hlsllint.semantic import types as T
from hlsllint.syntax import Node


@dataclass
class _UnitState:
    """What the walk gathers for `check`."""

    locals: list[Symbol] = field(default_factory=list)
    seen: set[int] = field(default_factory=set)
    member_uses: dict[str, dict[str, list[Node]] | None] = field(default_factory=dict)


# How a use reads the matrix.
ROW = "row"  # mul(v, M) with the result's w dropped: the fourth column is never needed
COL = "col"  # mul(M, v) with the result's w dropped: the fourth row is never needed
CAST = "cast"  # (float3x3)M: neither
WRITE = "write"


def _struct_of(sym: Symbol | None) -> T.Type | None:
    """The struct a constant-buffer member or `ConstantBuffer<S>` holds, or a struct variable's."""
    if sym is None:
        return None
    t = sym.type
    if t.is_resource and t.resource is not None and t.resource.category == "constant":
        t = t.element or T.UNKNOWN
    return t if t.kind == "struct" else None


def _discards_w(ctx: RuleContext, expr: Node) -> bool:
    """True when only the first three components of the vector `expr` are read."""
    sw = swizzle_of(ctx, expr)
    if sw is not None:
        return not any(c in "wa" for c in sw)
    site, parent = unparen_up(expr)
    model: Model = ctx.model
    if parent is None:
        return False
    if parent.type == "init_declarator" and same(parent.child_by_field_name("value"), site):
        target = parent.child_by_field_name("declarator")
        sym = model.resolve(target) if target is not None and target.type == "identifier" else None
        return sym is not None and sym.type.kind in ("vector", "scalar") and sym.type.count <= 3
    if parent.type == "assignment_expression" and same(parent.child_by_field_name("right"), site):
        op = parent.child_by_field_name("operator")
        left_type = model.type_of(parent.child_by_field_name("left"))
        return (
            (op is None or op.type == "=") and left_type.kind in ("vector", "scalar") and left_type.count <= 3
        )
    return False


def _use_kind(ctx: RuleContext, use: Node) -> str | None:
    """ROW, COL, CAST or WRITE for a use that leaves the fourth column or row unused, else None."""
    model: Model = ctx.model
    if is_assignment_target(use) == "=":
        return WRITE
    site, parent = unparen_up(use)
    if parent is None:
        return None
    if parent.type == "cast_expression":
        t = model.type_from_node(parent.child_by_field_name("type"))
        if t.kind == "matrix" and t.rows <= 3 and t.cols <= 3:
            return CAST
        return None
    if parent.type != "argument_list" or parent.parent is None:
        return None
    call = parent.parent
    if call_name(ctx, call) != "mul":
        return None
    args = call_args(call)
    if len(args) != 2:
        return None
    if same(args[1], site) and model.type_of(args[0]).kind == "vector":
        kind = ROW
    elif same(args[0], site) and model.type_of(args[1]).kind == "vector":
        kind = COL
    else:
        return None
    return kind if _discards_w(ctx, call) else None


class Affine4x4Matrix(Rule):
    code = "HL103"
    name = "affine-4x4-matrix"
    summary = (
        "A `float4x4` whose every use is an affine transform that drops the fourth output "
        "component (`mul(float4(p, 1), M).xyz`, `(float3x3)M`): a `float4x3` (or `float3x4`) holds "
        "everything that is read."
    )
    rationale = (
        "Only a projection needs the whole 4×4 matrix. For an affine transform (world, view, "
        "bones, normals) the fourth column is always (0, 0, 0, 1), and when the result's `w` is "
        "thrown away it is never read at all, yet a `float4x4` still spends 16 registers (and 64 "
        "bytes of constant data) where 12 do. Sebastian Aaltonen's GPUOpen article on occupancy "
        "with large thread groups (section *Unneeded data*) makes the point: all affine "
        "transformations need at most a 4×3 matrix, which saves four VGPRs or SGPRs compared "
        "with a full 4×4. With `mul(v, M)` (row vectors) the unused part is the fourth column: "
        "declare `float4x3`; with `mul(M, v)` it is the fourth row: declare `float3x4`."
    )
    bad_example = """\
cbuffer PerObject : register(b0)
{
    float4x4 World;
};

float3 worldPosition(float3 p)
{
    return mul(float4(p, 1), World).xyz;
}
"""
    good_example = """\
cbuffer PerObject : register(b0)
{
    float4x3 World;
};

float3 worldPosition(float3 p)
{
    return mul(float4(p, 1), World);
}
"""
    tags = ("vgpr", "sgpr", "aaltonen")
    references = (
        "Sebastian Aaltonen, Optimizing GPU occupancy and resource usage with large thread groups "
        "(GPUOpen), section Unneeded data",
    )

    node_kinds = frozenset({"identifier"})

    def visit(self, ctx: RuleContext, n: Node) -> None:
        if ctx.function is None:
            return
        state = ctx.scratch(_UnitState)
        s = ctx.model.resolve(n)
        if s is None:
            return
        if s.kind == "local" and same(s.node, n) and id(s) not in state.seen and self._is_4x4(s):
            state.locals.append(s)
            state.seen.add(id(s))
        self._note_member_use(ctx, n, s, state.member_uses)

    def check(self, ctx: RuleContext) -> None:
        model: Model = ctx.model
        state = ctx.scratch(_UnitState)
        candidates: list[Symbol] = [
            s for s in model.globals.values() if s.kind == "cbuffer_member" and self._is_4x4(s)
        ]
        seen = {id(s) for s in candidates}
        candidates += [s for s in state.locals if id(s) not in seen]
        for sym in candidates:
            self._check_symbol(ctx, sym)
        self._check_struct_members(ctx, state.member_uses)

    @staticmethod
    def _is_4x4(sym: Symbol) -> bool:
        t = sym.type
        return t.kind == "matrix" and t.rows == 4 and t.cols == 4 and t.is_float

    @staticmethod
    def _note_member_use(
        ctx: RuleContext, n: Node, sym: Symbol, member_uses: dict[str, dict[str, list[Node]] | None]
    ) -> None:
        """Record how a use of a struct-typed constant buffer or resource reads its members."""
        struct = _struct_of(sym)
        if struct is None or member_uses.get(struct.name, {}) is None:
            return
        if sym.kind not in ("cbuffer_member", "resource"):
            member_uses[struct.name] = None  # a local or parameter copy: not followed
            return
        _site, parent = unparen_up(n)
        field = parent.child_by_field_name("field") if parent is not None else None
        if parent is None or parent.type != "field_expression" or field is None:
            member_uses[struct.name] = None  # the struct is used whole
            return
        table = member_uses.setdefault(struct.name, {})
        assert table is not None
        table.setdefault(ctx.node_text(field), []).append(parent)

    def _check_struct_members(
        self, ctx: RuleContext, member_uses: dict[str, dict[str, list[Node]] | None]
    ) -> None:
        """4x4 members of structs that are only read through constant buffers (`ubo.model`)."""
        model: Model = ctx.model
        for struct_name, members in sorted((k, v) for k, v in member_uses.items() if v is not None):
            struct_type = model.structs.get(struct_name)
            node = struct_node(ctx, struct_name)
            if struct_type is None or node is None or not in_main_file(ctx, node):
                continue
            for member in struct_type.members:
                t = member.type
                if not (t.kind == "matrix" and t.rows == 4 and t.cols == 4 and t.is_float):
                    continue
                decl = next(
                    (
                        c
                        for c in ctx.tree.walk(node)
                        if c.type == "field_identifier" and ctx.node_text(c) == member.name
                    ),
                    None,
                )
                if decl is not None:
                    self._judge(ctx, decl, member.name, t, members.get(member.name, []))

    def _check_symbol(self, ctx: RuleContext, sym: Symbol) -> None:
        if sym.node is None or not in_main_file(ctx, sym.node):
            return
        self._judge(ctx, sym.node, sym.name, sym.type, uses_of(ctx, sym))

    def _judge(self, ctx: RuleContext, at: Node, name: str, t: T.Type, uses: list[Node]) -> None:
        kinds: set[str] = set()
        for use in uses:
            kind = _use_kind(ctx, use)
            if kind is None:
                return
            kinds.add(kind)
        reads = kinds - {WRITE}
        if not reads or {ROW, COL} <= reads:
            return
        scalar = t.scalar
        if reads == {CAST}:
            better, part = f"{scalar}3x3", "fourth row and column are"
        elif ROW in reads:
            better, part = f"{scalar}4x3", "fourth column is"
        else:
            better, part = f"{scalar}3x4", "fourth row is"
        ctx.report(
            at,
            f"`{name}` is a {t.name} but every use is an affine transform whose `w` is "
            f"dropped: its {part} never needed; a {better} saves {16 - int(better[-3]) * int(better[-1])} "
            "registers",
        )
