"""HL008 invalid-constant."""

from __future__ import annotations

import math

from hlsllint.context import RuleContext
from hlsllint.diagnostics import Severity
from hlsllint.rule import Rule
from hlsllint.semantic.constants import HALF_MAX, float_limit, overflows
from hlsllint.syntax import Node

_INT_RANGE = {"int": (-(1 << 31), (1 << 31) - 1), "uint": (0, (1 << 32) - 1)}


_UNKNOWN = "the analyses take its value as unknown"


def _short(text: str) -> str:
    """An expression as quoted in a message: one line, at most 40 characters."""
    one = " ".join(text.split())
    return one if len(one) <= 40 else one[:39] + "…"


def _float_literal(text: str) -> bool:
    low = text.lower()
    return not low.startswith("0x") and any(c in low for c in ".e")


class InvalidConstant(Rule):
    reports_dead_code = True  # the compiler rejects the constant wherever it is
    code = "HL008"
    name = "invalid-constant"
    summary = (
        "A constant the compiler rejects or cannot represent: an array size that is not a positive "
        "32-bit count, an integer division by zero, a literal too large for its type."
    )
    rationale = (
        "`float b[-1]`, `int a[0]` and `float c[1e30]` do not compile; an integer `x / 0` or `x % 0` "
        "is undefined (DXC folds it to anything, or rejects it in a constant expression); `1e39` "
        "does not fit in a float (it becomes infinity) and `int n = 1e30;` does not fit in an "
        "int. hlsllint reports the place and the value, and its analyses take the value as "
        "unknown (an array of unknown length, no constant), instead of guessing. Invalid "
        "`[numthreads]` sizes are HL109's."
    )
    bad_example = """\
RWStructuredBuffer<float> o;

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float b[-1];
    o[i] = b[0] + i / 0;
}
"""
    good_example = """\
RWStructuredBuffer<float> o;

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float b[1];
    b[0] = 0;
    o[i] = b[0] + i / 2;
}
"""
    severity = Severity.ERROR
    precision = "very-high"
    tags = ("correctness",)
    function_local = True
    """Literals, and divisions and initialisers folded by the model from what precedes them."""
    node_kinds = frozenset(
        {
            "binary_expression",
            "assignment_expression",
            "number_literal",
            "user_defined_literal",
            "init_declarator",
        }
    )

    def visit(self, ctx: RuleContext, node: Node) -> None:
        kind = node.type
        if kind == "number_literal":
            self._literal(ctx, node)
        elif kind == "user_defined_literal":  # `1.0h`: the grammar reads the suffix as a C++ UDL
            if ctx.node_text(node).strip()[-1:] in "hHfFlL":
                self._literal(ctx, node)
        elif kind == "init_declarator":
            self._int_init(ctx, node)
        else:
            self._division(ctx, node)

    def check(self, ctx: RuleContext) -> None:
        # What the model found reading declarations (array sizes).
        for span, (code, message) in sorted(ctx.model.problems.items()):
            if code == self.code:
                ctx.report(span, message, notes=("the analyses take the array's length as unknown",))

    def _division(self, ctx: RuleContext, node: Node) -> None:
        op = node.child_by_field_name("operator")
        text = ctx.node_text(op).strip() if op is not None else ""
        if text not in ("/", "%", "/=", "%="):
            return
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is None or right is None:
            return
        model = ctx.model
        divisor = model.const_value(right)
        if divisor is None or isinstance(divisor, float) or divisor != 0:
            return
        if not (model.type_of(left).is_int and model.type_of(right).is_int):
            return  # a floating division by zero is infinity or NaN, as IEEE says
        what = "division" if text.startswith("/") else "remainder"
        ctx.report(
            node,
            f"`{_short(ctx.node_text(node))}`: integer {what} by zero is undefined",
            notes=(_UNKNOWN,),
        )

    def _literal(self, ctx: RuleContext, node: Node) -> None:
        text = ctx.node_text(node).strip()
        if not _float_literal(text):
            digits = text.rstrip("uUlL")
            try:
                value = int(digits, 16) if digits.lower().startswith("0x") else int(digits, 10)
            except ValueError:
                return
            if value >= 1 << 64:
                ctx.report(node, f"`{_short(text)}` does not fit in 64 bits", notes=(_UNKNOWN,))
            return
        try:
            value_f = float(text.rstrip("fFhHlL"))
        except ValueError:
            return
        limit = float_limit(text)
        if not overflows(text, value_f) or self._double_context(ctx, node):
            return
        kind = "half" if limit == HALF_MAX else "float"
        diag = ctx.report(
            node, f"`{_short(text)}` overflows {kind} (largest {limit:g}): it is infinity", notes=(_UNKNOWN,)
        )
        if diag is not None:
            diag.severity = Severity.WARNING  # infinity may be what was meant

    @staticmethod
    def _double_context(ctx: RuleContext, node: Node) -> bool:
        """The literal initialises a `double` (an unsuffixed literal is a 64-bit literal float)."""
        parent = node.parent
        if parent is None or parent.type != "init_declarator":
            return False
        name = parent.child_by_field_name("declarator")
        sym = ctx.model.resolve(name) if name is not None else None
        return sym is not None and sym.type.scalar == "double"

    def _int_init(self, ctx: RuleContext, node: Node) -> None:
        value_node = node.child_by_field_name("value")
        name = node.child_by_field_name("declarator")
        if value_node is None or name is None:
            return
        sym = ctx.model.resolve(name)
        if sym is None or sym.type.kind != "scalar" or sym.type.scalar not in _INT_RANGE:
            return
        value = ctx.model.const_value(value_node)
        if not isinstance(value, float):
            return
        low, high = _INT_RANGE[sym.type.scalar]
        if math.isfinite(value) and low <= value <= high:
            return
        ctx.report(
            value_node,
            f"`{_short(ctx.node_text(value_node))}` ({value:g}) does not fit in {sym.type.scalar}: the "
            "conversion is undefined",
        )
