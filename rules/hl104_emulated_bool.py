"""HL104 emulated-bool."""

from __future__ import annotations

from hlsllint.rules._common import (
    assignments,
    call_args,
    call_name,
    in_main_file,
    is_assignment_target,
    is_condition,
    is_uniform,
    same,
    unparen,
    unparen_up,
    uses_of,
)

from hlsllint.context import PendingEdit, RuleContext
from hlsllint.diagnostics import Applicability, FixAvailability
from hlsllint.rule import Rule
from hlsllint.semantic import Model, Symbol
from hlsllint.semantic.intrinsics import INTRINSICS
from hlsllint.syntax import Node

_COMPARISONS = frozenset({"<", ">", "<=", ">=", "==", "!="})
_LOGICAL = frozenset({"&&", "||"})
_BOOL_WRITES = frozenset({"=", "|=", "&="})
_SCALARS = frozenset({"int", "uint", "float", "half"})


def _operator(ctx: RuleContext, node: Node) -> str:
    op = node.child_by_field_name("operator")
    return ctx.node_text(op).strip() if op is not None else ""


def _is_zero_one(ctx: RuleContext, node: Node) -> bool:
    value = ctx.model.const_value(node)
    return value is not None and not isinstance(value, bool) and value in (0, 1)


def holds_zero_or_one(ctx: RuleContext, expr: Node) -> bool:
    """True when the expression's value is always 0 or 1 (false or true)."""
    model: Model = ctx.model
    node = unparen(expr)
    kind = node.type
    if kind in ("true", "false") or _is_zero_one(ctx, node):
        return True
    if kind == "binary_expression":
        return _operator(ctx, node) in _COMPARISONS | _LOGICAL
    if kind == "unary_expression":
        return _operator(ctx, node) == "!"
    if kind == "conditional_expression":
        a = node.child_by_field_name("consequence")
        b = node.child_by_field_name("alternative")
        return a is not None and b is not None and holds_zero_or_one(ctx, a) and holds_zero_or_one(ctx, b)
    if kind == "cast_expression":
        value = node.child_by_field_name("value")
        return value is not None and holds_zero_or_one(ctx, value)
    if kind == "call_expression":
        name = call_name(ctx, node)
        args = call_args(node)
        if name in INTRINSICS and INTRINSICS[name][0] in ("bool", "bool_shape"):
            return True
        if name is not None and model.lookup_type(name).is_numeric and args:
            return all(holds_zero_or_one(ctx, a) for a in args)  # int3(a < b) or float2(0, 1)
        return model.type_of(node).is_bool
    return model.type_of(node).is_bool


def _boolean_use(ctx: RuleContext, use: Node) -> bool:
    """True when a read of the flag only tests its truth."""
    if is_condition(use):
        return True
    site, parent = unparen_up(use)
    if parent is None:
        return False
    if parent.type == "binary_expression":
        op = _operator(ctx, parent)
        if op in _LOGICAL:
            return True
        if op in ("==", "!="):
            left = parent.child_by_field_name("left")
            right = parent.child_by_field_name("right")
            other = right if same(left, site) else left
            return other is not None and _is_zero_one(ctx, other)
        return False
    return parent.type == "unary_expression" and _operator(ctx, parent) == "!"


class EmulatedBool(Rule):
    code = "HL104"
    name = "emulated-bool"
    summary = (
        "A per-lane local of int, uint or float type that only ever holds 0 or 1 and is only "
        "used as a condition or in logical combinations: a `bool` in disguise."
    )
    rationale = (
        "AMD GPUs keep a per-lane `bool` as a lane mask in a pair of SGPRs (one SGPR in wave32): "
        "one bit per lane, no VGPR at all, and `&&`, `||` and `!` become scalar mask operations. "
        "An int or float that stands in for a flag costs a full VGPR per lane for its whole "
        "lifetime, and every test of it needs a vector compare to turn it back into a mask. "
        "Sebastian Aaltonen's GPUOpen article on occupancy with large thread groups (section "
        "*Booleans*) says so directly: the compiler stores bools in a 64-bit SGPR at zero VGPR "
        "cost, so do not emulate them with int or float, or the optimisation is lost. Flags "
        "that are the same for the whole wave (read from a constant buffer, say) already live "
        "in SGPRs and are left alone."
    )
    bad_example = """\
float4 main(float4 color : COLOR0) : SV_Target
{
    int transparent = color.a < 0.5 ? 1 : 0;
    if (transparent)
        discard;
    return color;
}
"""
    good_example = """\
float4 main(float4 color : COLOR0) : SV_Target
{
    bool transparent = color.a < 0.5;
    if (transparent)
        discard;
    return color;
}
"""
    fix = FixAvailability.SOMETIMES
    fix_safety = (
        "Declaring the flag `bool` (or `boolN`) is safe when it is only assigned 0/1 values and "
        "only tested: HLSL converts the assigned ints and floats to bool and a bool compares "
        "equal to 1 when true. The fix is offered only for a declaration with a single variable; "
        "it is unsafe when the flag is combined with `|=` or `&=` (bitwise operators on bool "
        "depend on the language version)."
    )
    tags = ("vgpr", "sgpr", "aaltonen")
    references = (
        "Sebastian Aaltonen, Optimizing GPU occupancy and resource usage with large thread groups "
        "(GPUOpen), section Booleans",
    )

    node_kinds = frozenset({"identifier"})

    def visit(self, ctx: RuleContext, n: Node) -> None:
        if ctx.function is None:
            return
        sym = ctx.model.resolve(n)
        if sym is None or sym.kind != "local" or not same(sym.node, n):
            return
        if sym.type.kind not in ("scalar", "vector") or sym.type.scalar not in _SCALARS:
            return
        self._check_local(ctx, sym, n)

    def _check_local(self, ctx: RuleContext, sym: Symbol, name: Node) -> None:
        writes = assignments(ctx, sym)
        if not writes:
            return
        for op, value, _site in writes:
            if op not in _BOOL_WRITES or value is None or not holds_zero_or_one(ctx, value):
                return
        reads = [u for u in uses_of(ctx, sym) if is_assignment_target(u) is None]
        if not reads or not all(_boolean_use(ctx, u) for u in reads):
            return
        if all(is_uniform(ctx, u) for u in reads):
            return  # a wave-uniform flag already lives in an SGPR
        if not in_main_file(ctx, name):
            return
        bool_type = "bool" if sym.type.kind == "scalar" else f"bool{sym.type.cols}"
        ctx.report(
            name,
            f"`{sym.name}` ({sym.type.name}) only holds 0 or 1 and is only tested: declare "
            f"it `{bool_type}` to keep it in an SGPR lane mask instead of a VGPR",
            fix=self._fix(ctx, sym, bool_type, writes),
        )

    @staticmethod
    def _fix(
        ctx: RuleContext, sym: Symbol, bool_type: str, writes: list[tuple[str, Node | None, Node]]
    ) -> tuple[str, Applicability, list[PendingEdit]] | None:
        decl = sym.decl
        if decl is None or decl.type != "declaration":
            return None
        declarators = [c for i, c in enumerate(decl.children) if decl.field_name_for_child(i) == "declarator"]
        type_node = decl.child_by_field_name("type")
        if len(declarators) != 1 or type_node is None:
            return None
        if (
            type_node.type not in ("primitive_type", "type_identifier")
            or ctx.model.lookup_type(ctx.node_text(type_node)) != sym.type
        ):
            return None
        bitwise = any(op != "=" for op, _v, _s in writes)
        applicability = Applicability.UNSAFE if bitwise else Applicability.SAFE
        return (f"Declare `{sym.name}` as `{bool_type}`", applicability, [ctx.edit(type_node, bool_type)])
