"""HL105 sign-for-sign-bit."""

from __future__ import annotations

from hlsllint.context import RuleContext
from hlsllint.diagnostics import Applicability, FixAvailability
from hlsllint.rule import Rule
from hlsllint.syntax import Node

# Comparisons of sign(x) with a constant, and the equivalent test on x.
# Safe: identical for every input, NaN included (sign(NaN) is 0; NaN compares false).
# Unsafe: differs for NaN only (e.g. sign(NaN) == 0 is true, NaN == 0 is false).
_SAFE = {
    ("<", "0"): "<",
    (">", "0"): ">",
    ("==", "1"): ">",
    ("==", "-1"): "<",
    ("<", "1"): "<=",
    (">", "-1"): ">=",
}
_UNSAFE = {
    ("==", "0"): "==",
    ("!=", "0"): "!=",
    (">=", "0"): ">=",
    ("<=", "0"): "<=",
    ("!=", "1"): "<=",
    ("!=", "-1"): ">=",
    (">=", "1"): ">",
    ("<=", "-1"): "<",
}
_MIRROR = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}
# Argument shapes that can stand next to a comparison operator without parentheses.
_TIGHT = {
    "identifier",
    "field_expression",
    "subscript_expression",
    "call_expression",
    "number_literal",
    "parenthesized_expression",
    "unary_expression",
}
_ARITH = {"+", "-", "*", "/", "%"}


def _is_sign_call(node: Node, ctx: RuleContext) -> bool:
    if node.type != "call_expression":
        return False
    fn = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    return (
        fn is not None
        and fn.type == "identifier"
        and ctx.node_text(fn) == "sign"
        and args is not None
        and args.named_child_count == 1
    )


def _unparen(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        child = node.named_children[0]
        assert child is not None
        node = child
    return node


def _constant(node: Node, ctx: RuleContext) -> str | None:
    text = ctx.node_text(_unparen(node)).replace(" ", "").lower().rstrip("fhlu")
    for value in ("0", "1", "-1"):
        if text in (value, value + ".0", value + ".", value.replace("1", "1.0")):
            return value
    if text in ("0.0", "-0", "-0.0", "+0"):
        return "0"
    return None


# Intrinsics whose result is never negative (NaN aside).
_NON_NEGATIVE = frozenset({"saturate", "abs", "length", "distance", "sqrt", "rsqrt", "exp", "exp2"})


def _never_negative(arg: Node, ctx: RuleContext) -> bool:
    """`sign(saturate(v))`, `sign(length(d))`, `sign(color.a)`: the argument is never negative, so
    `sign()` is a 0/1 mask (zero when the value is zero), not a sign to apply. A lone `.a` swizzle
    names a colour's alpha, which render targets and vertex colours keep in [0, 1]."""
    arg = _unparen(arg)
    if arg.type == "call_expression":
        fn = arg.child_by_field_name("function")
        return fn is not None and ctx.node_text(fn) in _NON_NEGATIVE
    if arg.type == "field_expression":
        field = arg.child_by_field_name("field")
        return field is not None and ctx.node_text(field) == "a"
    return False


def _argument_text(arg: Node, ctx: RuleContext) -> str:
    text = ctx.node_text(arg)
    if arg.type in _TIGHT:
        return text
    if arg.type == "binary_expression":
        op = arg.child_by_field_name("operator")
        if op is not None and ctx.node_text(op) in _ARITH:
            return text
    return f"({text})"


class SignForSignBit(Rule):
    code = "HL105"
    name = "sign-for-sign-bit"
    summary = (
        "`sign(x)` compared with 0 or ±1, used as a condition, or multiplied in to apply a sign, "
        "where testing `x` directly is cheaper."
    )
    rationale = (
        "`sign()` is not a single instruction on AMD GPUs: it compiles to compares and selects "
        "(sign(0) must be 0), and the result then still has to be compared or multiplied. Testing "
        "the value itself (`x < 0`) is one compare, and `abs()`/negation are free input modifiers "
        "on GCN and RDNA. Sebastian Aaltonen's occupancy article (GPUOpen, section *Booleans*) warns "
        "against reclaiming a sign with `sign()`: the compiler output is worse than a plain `>= 0` "
        "test, and when the sign bit stores a flag, reading it is free with `abs()` and a compare."
    )
    bad_example = """\
float3 flipIfBackFacing(float3 n, float facing)
{
    if (sign(facing) < 0)
        n = -n;
    return n * sign(facing);
}
"""
    good_example = """\
float3 flipIfBackFacing(float3 n, float facing)
{
    if (facing < 0)
        n = -n;
    return facing < 0 ? -n : n;
}
"""
    fix = FixAvailability.SOMETIMES
    fix_safety = (
        "Rewriting `sign(x) < 0`, `sign(x) > 0`, `sign(x) == 1` and `sign(x) == -1` to a test on `x` "
        "is safe: the result is the same for every input, NaN included. Comparisons that include "
        "zero (`sign(x) == 0`, `>= 0`, ...) and truth tests (`if (sign(x))`) differ when `x` is NaN, "
        "so their fixes are unsafe. Rewriting `sign(x) * y` as `(x < 0 ? -y : y)` is unsafe because "
        "`sign(0)` is 0: the product is 0 when `x` is 0 and the rewrite is not."
    )
    tags = ("alu", "aaltonen")
    references = (
        "Sebastian Aaltonen, Optimizing GPU occupancy and resource usage with large thread groups "
        "(GPUOpen), section Booleans",
    )

    node_kinds = frozenset({"call_expression"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        if _is_sign_call(node, ctx):
            self._check_use(ctx, node)

    def _check_use(self, ctx: RuleContext, call: Node) -> None:
        args = call.child_by_field_name("arguments")
        assert args is not None
        arg = args.named_children[0]
        assert arg is not None
        x = _argument_text(arg, ctx)
        site: Node = call
        parent = call.parent
        while parent is not None and parent.type == "parenthesized_expression":
            site, parent = parent, parent.parent
        if parent is None:
            return
        if parent.type == "binary_expression":
            op_node = parent.child_by_field_name("operator")
            left = parent.child_by_field_name("left")
            right = parent.child_by_field_name("right")
            if op_node is None or left is None or right is None:
                return
            op = ctx.node_text(op_node)
            other = right if left.id == site.id else left
            if op in _MIRROR:
                self._comparison(ctx, parent, op if other.id == right.id else _MIRROR[op], other, x)
            elif op == "*":
                self._product(ctx, parent, other, x, arg)
            elif op in ("&&", "||"):
                self._truth_test(ctx, site, x)
        elif (
            parent.type == "condition_clause"
            or (
                parent.type in ("conditional_expression", "while_statement", "do_statement", "for_statement")
                and (c := parent.child_by_field_name("condition")) is not None
                and c.id == site.id
            )
            or (parent.type == "unary_expression" and ctx.node_text(parent).lstrip().startswith("!"))
        ):
            self._truth_test(ctx, site, x)

    def _comparison(self, ctx: RuleContext, expr: Node, op: str, other: Node, x: str) -> None:
        value = _constant(other, ctx)
        if value is None:
            return
        new_op = _SAFE.get((op, value))
        applicability = Applicability.SAFE
        if new_op is None:
            new_op = _UNSAFE.get((op, value))
            applicability = Applicability.UNSAFE
        if new_op is None:
            return
        replacement = f"{x} {new_op} 0"
        ctx.report(
            expr,
            f"`{ctx.node_text(expr)}` tests the sign through `sign()`; compare the value: `{replacement}`",
            fix=(f"Replace with `{replacement}`", applicability, [ctx.edit(expr, replacement)]),
        )

    def _product(self, ctx: RuleContext, expr: Node, other: Node, x: str, arg: Node) -> None:
        if _never_negative(arg, ctx):
            return  # sign() of a value >= 0 is a 0/1 mask: the select would change the 0 case it exists for
        y = ctx.node_text(other)
        y_neg = y if other.type in _TIGHT and other.type != "unary_expression" else f"({y})"
        if ctx.model.type_of(arg).components() > 1:
            # A vector condition in a ternary is an error under HLSL 2021 (DXC's default): select().
            replacement = f"select({x} < 0, -{y_neg}, {y})"
        else:
            replacement = f"({x} < 0 ? -{y_neg} : {y})"
        ctx.report(
            expr,
            f"Multiplying by `sign()` to apply a sign costs compares, selects and a multiply; "
            f"select on the sign instead: `{replacement}` (differs only when the value is 0)",
            fix=(
                f"Replace with `{replacement}`",
                Applicability.UNSAFE,
                [ctx.edit(expr, replacement)],
            ),
        )

    def _truth_test(self, ctx: RuleContext, site: Node, x: str) -> None:
        replacement = f"({x} != 0)"
        ctx.report(
            site,
            f"`sign()` used as a truth value; test the value itself: `{replacement}`",
            fix=(
                f"Replace with `{replacement}`",
                Applicability.UNSAFE,
                [ctx.edit(site, replacement)],
            ),
        )
