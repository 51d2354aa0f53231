"""HL102 unused-w-component."""

from __future__ import annotations

from hlsllint.rules._common import (
    as_fetch,
    call_args,
    call_name,
    in_main_file,
    is_assignment_target,
    same,
    struct_node,
    swizzle_of,
    unparen,
    unparen_up,
    uses_of,
)

from hlsllint.context import RuleContext
from hlsllint.rule import Rule
from hlsllint.semantic import Model, Symbol
from hlsllint.semantic import types as T
from hlsllint.syntax import Node

_STAGES = frozenset({"vertex", "pixel"})
_REINTERPRET = frozenset({"asfloat", "asuint", "asint"})


def _is_vec4(t: T.Type) -> bool:
    return t.kind == "vector" and t.cols == 4 and t.is_numeric


def _is_system_value(semantic: str | None) -> bool:
    return semantic is None or semantic.upper().startswith("SV_")


def _reads_only_xyz(ctx: RuleContext, value: Node) -> bool:
    """True when this use of a 4-component value reads at most x, y and z (or writes it)."""
    model: Model = ctx.model
    sw = swizzle_of(ctx, value)
    if sw is not None:
        return not any(c in "wa" for c in sw)
    if is_assignment_target(value) == "=":
        return True
    site, parent = unparen_up(value)
    if parent is not None and parent.type == "subscript_expression":
        if not same(parent.child_by_field_name("argument"), site):
            return False
        idx = next((c for c in parent.named_children if c.type == "subscript_argument_list"), None)
        consts = [model.const_value(c) for c in idx.named_children] if idx is not None else []
        return len(consts) == 1 and isinstance(consts[0], int) and 0 <= consts[0] < 3
    return False


class UnusedWComponent(Rule):
    code = "HL102"
    name = "unused-w-component"
    summary = (
        "A four-component value that is loaded or received (buffer loads, `Load4`, structured "
        "elements, vertex inputs, interpolants) whose `.w`/`.a` is never read."
    )
    rationale = (
        "Sebastian Aaltonen's GPUOpen article on occupancy with large thread groups (section "
        "*Unneeded data*) singles out the W of homogeneous coordinates: it is almost always a "
        "known 0 or 1, so loading or using it wastes one VGPR per thread and adds ALU work. "
        "Load or pass three components and write the constant where it is needed "
        "(`float4(p, 1)`). An optimising compiler can drop a dead component from a single load "
        "it sees whole, but it cannot shrink the data: the element still takes 16 bytes of "
        "memory and cache instead of 12, a vertex attribute still occupies its four-component "
        "fetch, and an interpolant's fourth component is still exported by the previous stage "
        "and takes parameter space. The rule stays silent when the fourth component is read on "
        "any path, or when the value is used whole (passed to a function, stored, returned, "
        "multiplied)."
    )
    bad_example = """\
ByteAddressBuffer positions : register(t0);

float3 load_position(uint i)
{
    float4 p = asfloat(positions.Load4(i * 16));
    return p.xyz * 2.0;
}
"""
    good_example = """\
ByteAddressBuffer positions : register(t0);

float3 load_position(uint i)
{
    float3 p = asfloat(positions.Load3(i * 12));
    return p * 2.0;
}
"""
    tags = ("vgpr", "aaltonen")
    references = (
        "Sebastian Aaltonen, Optimizing GPU occupancy and resource usage with large thread groups "
        "(GPUOpen), section Unneeded data",
    )

    node_kinds = frozenset({"identifier"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        if ctx.function is not None:
            self._loaded_local(ctx, node)

    def check(self, ctx: RuleContext) -> None:
        self._stage_inputs(ctx)

    # -- values loaded into locals --------------------------------------------------------------

    def _loaded_local(self, ctx: RuleContext, n: Node) -> None:
        model: Model = ctx.model
        sym = model.resolve(n)
        if sym is None or sym.kind != "local" or not same(sym.node, n) or sym.init is None:
            return
        if not _is_vec4(sym.type) or sym.type.is_bool:
            return
        source = self._load_source(ctx, sym.init)
        if source is None or not in_main_file(ctx, n):
            return
        if self._w_unread(ctx, [*uses_of(ctx, sym)]):
            ctx.report(
                n,
                f"`{sym.name}.w` is never read: `{sym.name}` is a {sym.type.name} loaded from "
                f"`{source}`; load three components and save a register per lane",
            )

    def _load_source(self, ctx: RuleContext, init: Node) -> str | None:
        """The resource a 4-component load in `init` reads, when `init` is such a load."""
        model: Model = ctx.model
        expr = unparen(init)
        if call_name(ctx, expr) in _REINTERPRET and len(call_args(expr)) == 1:
            expr = unparen(call_args(expr)[0])
        fetch = as_fetch(ctx, expr)
        if fetch is None or fetch.kind != "load" or not _is_vec4(model.type_of(expr)):
            return None
        obj = expr.child_by_field_name("function") if expr.type == "call_expression" else expr
        base = obj.child_by_field_name("argument") if obj is not None else None
        while base is not None and base.type in ("subscript_expression", "field_expression"):
            base = base.child_by_field_name("argument")
        return ctx.node_text(base) if base is not None else fetch.resource.name

    @staticmethod
    def _w_unread(ctx: RuleContext, uses: list[Node]) -> bool:
        reads = [u for u in uses if is_assignment_target(u) != "="]
        return bool(reads) and all(_reads_only_xyz(ctx, u) for u in uses)

    # -- vertex inputs and interpolants ---------------------------------------------------------

    def _stage_inputs(self, ctx: RuleContext) -> None:
        model: Model = ctx.model
        # struct name -> member name -> uses (None once a struct parameter is used whole)
        member_uses: dict[str, dict[str, list[Node]] | None] = {}
        readers: dict[str, list[str]] = {}
        for entry in model.entry_points:
            if entry.stage not in _STAGES:
                continue
            for param in entry.function.params:
                if param.direction != "in":
                    continue
                if param.type.kind == "struct":
                    self._struct_param(ctx, param, member_uses)
                    readers.setdefault(param.type.name, []).append(entry.name)
                elif (
                    _is_vec4(param.type)
                    and not _is_system_value(param.semantic)
                    and param.node is not None
                    and in_main_file(ctx, param.node)
                    and self._w_unread(ctx, uses_of(ctx, param))
                ):
                    kind = "a vertex input" if entry.stage == "vertex" else "an interpolant"
                    ctx.report(
                        param.node,
                        f"`{param.name}.w` ({param.semantic}) is never read: {kind} of "
                        f"{param.type.name}; declare three components",
                    )
        for struct_name, members in member_uses.items():
            if members is None:
                continue
            struct = model.structs.get(struct_name)
            decl = struct_node(ctx, struct_name)
            if struct is None or decl is None or not in_main_file(ctx, decl):
                continue
            for member in struct.members:
                if not _is_vec4(member.type) or _is_system_value(member.semantic):
                    continue
                uses = members.get(member.name, [])
                if not self._w_unread(ctx, uses):
                    continue
                field = self._field_node(ctx, decl, member.name)
                who = ", ".join(sorted(set(readers.get(struct_name, []))))
                ctx.report(
                    field if field is not None else decl,
                    f"`{member.name}.w` ({member.semantic}) is never read by {who}: declare "
                    f"{member.type.with_shape(1, 3).name}",
                )

    def _struct_param(
        self, ctx: RuleContext, param: Symbol, member_uses: dict[str, dict[str, list[Node]] | None]
    ) -> None:
        name = param.type.name
        if name in member_uses and member_uses[name] is None:
            return
        table = member_uses.setdefault(name, {})
        assert table is not None
        for use in uses_of(ctx, param):
            _site, parent = unparen_up(use)
            if parent is None or parent.type != "field_expression":
                member_uses[name] = None
                return
            field = parent.child_by_field_name("field")
            if field is None:
                member_uses[name] = None
                return
            table.setdefault(ctx.node_text(field), []).append(parent)

    @staticmethod
    def _field_node(ctx: RuleContext, struct: Node, member: str) -> Node | None:
        for n in ctx.tree.walk(struct):
            if n.type == "field_identifier" and ctx.node_text(n) == member:
                return n
        return None
