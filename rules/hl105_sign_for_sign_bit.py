"""HL105 sign-for-sign-bit."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hlsllint.context import PendingEdit, RuleContext
from hlsllint.diagnostics import Applicability, FixAvailability
from hlsllint.rule import Rule
from hlsllint.semantic.queries import assignments, uses_of
from hlsllint.syntax import Node
from hlsllint.syntax.queries import call_name, same, unparen_up

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
        and fn.end_byte - fn.start_byte == 4  # the text is read only for a four-byte name
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


# Operands cheap and short enough to write twice in `select(c, -y, y)`: names, literals, member
# and element accesses of those. Anything else is bound to a local first.
_SHORT = {"identifier", "number_literal", "true", "false", "field_identifier"}
_NO_BINDING = {"assignment_expression", "update_expression", "comma_expression"}
_ACCESSES = {
    "field_expression",
    "subscript_expression",
    "subscript_argument_list",
    "parenthesized_expression",
}
_LOOPS = {"for_statement", "while_statement", "do_statement"}


def _short(node: Node) -> bool:
    if node.type in _SHORT:
        return True
    if node.type in _ACCESSES:
        return all(_short(c) for c in node.named_children)
    if node.type == "unary_expression":
        op = node.child_by_field_name("operator")
        operand = node.child_by_field_name("argument")
        return op is not None and op.type in ("-", "+") and operand is not None and _short(operand)
    return False


def _spelled_type(ctx: RuleContext, node: Node) -> str | None:
    """The HLSL spelling of a numeric expression's type (`float3`, `int`, `float4x4`), if known."""
    t = ctx.model.type_of(node)
    if not t.is_numeric or not t.scalar:
        return None
    if t.kind == "scalar":
        return t.scalar
    if t.kind == "vector":
        return f"{t.scalar}{t.cols}"
    return f"{t.scalar}{t.rows}x{t.cols}"


def _fresh_name(ctx: RuleContext, base: str, where: Node) -> str:
    """A name no identifier of the enclosing function uses and no other binding in it was given
    (all of a function's fixes apply together, possibly in one block). Taken from the function,
    not the unit, so that a header's function gets the same fix in every file that includes it
    (otherwise one finding is reported once per name: RTXPT's MathHelpers.hlsli, three times)."""
    fn: Node | None = where
    while fn is not None and fn.type != "function_definition":
        fn = fn.parent
    scope = fn if fn is not None else ctx.tree.root
    given_by_scope: dict[int, set[str]] = ctx.scratch(dict)
    given = given_by_scope.setdefault(scope.id, set())
    words = set(re.findall(r"[A-Za-z_]\w*", ctx.node_text(scope)))
    name, n = base, 1
    while name in words or name in given:
        n += 1
        name = f"{base}{n}"
    given.add(name)
    return name


@dataclass(frozen=True)
class _Binding:
    """A long operand bound to a local declared just before the statement that uses it."""

    name: str
    declaration: str
    statement: Node
    wrap: bool
    """No block encloses the statement (an `if` body without braces): it is wrapped in one."""

    def edits(self, ctx: RuleContext, expr: Node, replacement: str) -> list[PendingEdit]:
        start, end = ctx.span(self.statement)
        if self.wrap:
            s, e = ctx.span(expr)
            text = ctx.text[start:s] + replacement + ctx.text[e:end]
            return [ctx.edit(self.statement, f"{{ {self.declaration} {text} }}")]
        line_start = ctx.text.rfind("\n", 0, start) + 1
        indent = ctx.text[line_start:start]
        separator = "\n" + indent if not indent.strip() else " "
        return [ctx.edit((start, start), self.declaration + separator), ctx.edit(expr, replacement)]


def _bind(ctx: RuleContext, expr: Node, operand: Node) -> _Binding | None:
    """Where to declare `operand` so that `select(c, -y, y)` does not write it twice. None when
    there is no place (a loop's header, a declaration outside a block), the operand has side
    effects, or its type is unknown."""
    if any(n.type in _NO_BINDING for n in _descendants(operand)):
        return None
    type_name = _spelled_type(ctx, operand)
    if type_name is None:
        return None
    stmt: Node | None = expr
    while stmt is not None and not (stmt.type.endswith("_statement") or stmt.type == "declaration"):
        stmt = stmt.parent
    if stmt is None or stmt.type in _LOOPS or stmt.parent is None:
        return None
    wrap = stmt.parent.type != "compound_statement"
    if wrap and stmt.type == "declaration":
        return None  # a declaration wrapped in braces would go out of scope
    name = _fresh_name(ctx, "magnitude", stmt)
    return _Binding(name, f"const {type_name} {name} = {ctx.node_text(_unparen(operand))};", stmt, wrap)


def _descendants(node: Node) -> list[Node]:
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        out.append(n)
        todo.extend(c for c in n.children if c is not None)
    return out


_INTEGER_CASTS = ("int", "uint", "min16int", "min16uint", "int16_t", "uint16_t")


def _zero_is_a_case(ctx: RuleContext, arg: Node) -> bool:
    """The function also turns `sign(x)` into an integer step (`int3(sign(dir))`): a grid walk
    (DDA) whose direction may have zero components, no step along them and an infinite step
    length (`1 / dir`). There `sign(0) == 0` is a case the code relies on: a select would turn
    the zero component's side distance from `0.5 * inf` into `-inf` or NaN. Dividing by `x`
    alone says less: an epsilon kept away from 0 (`sign(d) * 1e-5`) is better as a select."""
    fn = ctx.function
    if fn is None or fn.body is None:
        return False
    x = "".join(ctx.node_text(_unparen(arg)).split())
    for n in ctx.tree.walk(fn.body):
        if n.type == "call_expression" and _is_sign_call(n, ctx):
            args = n.child_by_field_name("arguments")
            other = args.named_children[0] if args is not None and args.named_children else None
            if other is None or "".join(ctx.node_text(_unparen(other)).split()) != x:
                continue
            _site, parent = unparen_up(n)
            if parent is not None and parent.type == "argument_list":
                parent = parent.parent
            name = (
                call_name(ctx.tree, parent)
                if parent is not None and parent.type == "call_expression"
                else None
            )
            if name is not None and name.rstrip("1234").rstrip("x").rstrip("1234") in _INTEGER_CASTS:
                return True
            if parent is not None and parent.type == "cast_expression":
                t = parent.child_by_field_name("type")
                if (
                    t is not None
                    and ctx.node_text(t).rstrip("1234").rstrip("x").rstrip("1234") in _INTEGER_CASTS
                ):
                    return True
    return False


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
        "`sign(0)` is 0: the product is 0 when `x` is 0 and the rewrite is not. A vector `x` gets "
        "`select(x < 0, -y, y)` (a vector condition in a ternary does not compile under HLSL 2021). "
        "A `y` longer than a name, a literal or a member/element access is never written twice: it "
        "is bound first (`const float3 magnitude = y;` before the statement, which is wrapped in "
        "braces when no block encloses it); in a loop's header there is no place for that and no "
        "fix is offered. Every fix is compiled with Slang in the tests, before and after."
    )
    tags = ("alu", "aaltonen")
    references = (
        "Sebastian Aaltonen, Optimizing GPU occupancy and resource usage with large thread groups "
        "(GPUOpen), section Booleans",
    )

    function_local = True
    """The call, the function's locals and their writes; fresh names by function (`scratch` by
    the function's node)."""
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
        elif parent.type == "assignment_expression" and parent.child_by_field_name("right") is not None:
            op_node = parent.child_by_field_name("operator")
            right = parent.child_by_field_name("right")
            if op_node is not None and right is not None and right.id == site.id:
                if ctx.node_text(op_node) == "*=":  # `v *= sign(x)`
                    self._applied(ctx, parent, x, arg, "multiplied in with `*=`")
                elif ctx.node_text(op_node) == "=":
                    self._kept(ctx, call, parent.child_by_field_name("left"), x, arg)
        elif parent.type == "init_declarator":
            self._kept(ctx, call, parent.child_by_field_name("declarator"), x, arg)
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
            f"`{ctx.node_text(expr)}` tests the sign through `sign()`",
            help=f"compare the value: `{replacement}`",
            fix=(f"Replace with `{replacement}`", applicability, [ctx.edit(expr, replacement)]),
        )

    def _product(self, ctx: RuleContext, expr: Node, other: Node, x: str, arg: Node) -> None:
        if _never_negative(arg, ctx):
            return  # sign() of a value >= 0 is a 0/1 mask: the select would change the 0 case it exists for
        if _zero_is_a_case(ctx, arg):
            return  # a grid walk's direction: a zero component is a case, sign(0) == 0 its answer
        # A vector condition in a ternary is an error under HLSL 2021 (DXC's default): select().
        vector = ctx.model.type_of(arg).components() > 1

        def choose(y: str, y_neg: str) -> str:
            return f"select({x} < 0, -{y_neg}, {y})" if vector else f"({x} < 0 ? -{y_neg} : {y})"

        y = ctx.node_text(other)
        binding = None if _short(other) else _bind(ctx, expr, other)
        if binding is not None:
            replacement = choose(binding.name, binding.name)
            advice = f"`{replacement}` after `{binding.declaration}`"
            edits = binding.edits(ctx, expr, replacement)
        else:
            y_neg = y if other.type in _TIGHT and other.type != "unary_expression" else f"({y})"
            replacement = choose(y, y_neg)
            advice = f"`{replacement}`"
            # A long operand is never written twice by a fix: without a place to bind it, no fix.
            edits = [ctx.edit(expr, replacement)] if _short(other) else []
        ctx.report(
            expr,
            "multiplying by `sign()` to apply a sign costs compares, selects and a multiply",
            help=f"select on the sign instead: {advice}",
            notes=["the select differs from the product only when the value is 0"],
            fix=(f"Replace with {advice}", Applicability.UNSAFE, edits) if edits else None,
        )

    def _applied(self, ctx: RuleContext, site: Node, x: str, arg: Node, how: str) -> None:
        if _never_negative(arg, ctx):
            return  # a 0/1 mask
        if _zero_is_a_case(ctx, arg):
            return  # a grid walk's direction: sign(0) == 0 is a case it relies on
        choice = (
            f"`{x} < 0 ? -y : y`" if ctx.model.type_of(arg).components() == 1 else f"`select({x} < 0, -y, y)`"
        )
        ctx.report(
            site,
            f"`sign()` {how}: compares, selects and a multiply to apply a sign",
            help=f"select on the sign instead: {choice} for each value `y` it multiplies",
            notes=["the select differs from the product only when the value is 0"],
        )

    def _kept(self, ctx: RuleContext, call: Node, target: Node | None, x: str, arg: Node) -> None:
        """`float s = sign(x);` whose every use multiplies by it (`v * s`, `v *= s`): the same
        sign application, one variable away. A use of any other kind (stored, added, returned)
        needs the value itself."""
        sym = ctx.model.resolve(target) if target is not None and target.type == "identifier" else None
        if sym is None or sym.kind != "local":
            return
        writes = assignments(ctx.model, sym)
        if writes is None or len(writes) != 1:
            return  # written again: not a plain copy of the sign
        uses = uses_of(ctx.model, sym)
        if not uses:
            return
        for use in uses:
            site, parent = unparen_up(use)
            if parent is None:
                return
            op_node = parent.child_by_field_name("operator")
            op = ctx.node_text(op_node) if op_node is not None else ""
            product = parent.type == "binary_expression" and op == "*"
            scaled = (
                parent.type == "assignment_expression"
                and op == "*="
                and same(parent.child_by_field_name("right"), site)
            )
            if not (product or scaled):
                return
        self._applied(ctx, call, x, arg, f"kept in `{sym.name}`, only multiplied in")

    def _truth_test(self, ctx: RuleContext, site: Node, x: str) -> None:
        replacement = f"({x} != 0)"
        ctx.report(
            site,
            "`sign()` used as a truth value",
            help=f"test the value itself: `{replacement}`",
            fix=(
                f"Replace with `{replacement}`",
                Applicability.UNSAFE,
                [ctx.edit(site, replacement)],
            ),
        )
