"""HL104 emulated-bool."""

from __future__ import annotations

from hlsllint.analysis.local_uniformity import is_uniform
from hlsllint.context import PendingEdit, RuleContext
from hlsllint.diagnostics import Applicability, FixAvailability
from hlsllint.rule import Rule
from hlsllint.semantic import Symbol
from hlsllint.semantic.queries import assignments, declared_symbols, uses_of, zero_or_one
from hlsllint.syntax import Node
from hlsllint.syntax.queries import call_args, call_name, is_assignment_target, is_condition, same, unparen_up

_COMPARISONS = frozenset({"<", ">", "<=", ">=", "==", "!="})
_LOGICAL = frozenset({"&&", "||"})
_BOOL_WRITES = frozenset({"=", "|=", "&=", "*="})
_SCALARS = frozenset({"int", "uint", "float", "half"})


def _operator(ctx: RuleContext, node: Node) -> str:
    op = node.child_by_field_name("operator")
    return ctx.node_text(op).strip() if op is not None else ""


def _use_kind(ctx: RuleContext, use: Node) -> str:
    """How a read of a 0/1 value uses it: `test` (only its truth matters: a condition, a logical
    operand, a comparison with a constant), `select` (it picks one of two values: `select()` or a
    `lerp` weight), `scale` (a multiplier in arithmetic, `color * shadowed`), else `value`."""
    if is_condition(use):
        return "test"
    site, parent = unparen_up(use)
    if parent is None:
        return "value"
    if parent.type == "binary_expression":
        op = _operator(ctx, parent)
        if op in _LOGICAL:
            return "test"
        if op in _COMPARISONS:
            left = parent.child_by_field_name("left")
            right = parent.child_by_field_name("right")
            other = right if same(left, site) else left
            return "test" if other is not None and ctx.model.const_value(other) is not None else "value"
        return "scale" if op == "*" else "value"
    if parent.type == "unary_expression":
        return "test" if _operator(ctx, parent) == "!" else "value"
    if parent.type == "assignment_expression" and _operator(ctx, parent) == "*=":
        return "scale" if same(parent.child_by_field_name("right"), site) else "value"
    if parent.type == "argument_list" and parent.parent is not None:
        call = parent.parent
        name = call_name(ctx.tree, call)
        args = call_args(call)
        if name == "select" and len(args) == 3 and same(args[0], site):
            return "select"
        if name == "lerp" and len(args) == 3 and same(args[2], site):
            return "select"
    return "value"


class EmulatedBool(Rule):
    code = "HL104"
    name = "emulated-bool"
    summary = (
        "A per-lane local of int, uint or float type that only ever holds 0 or 1 (from `?1:0`, "
        "comparisons, `step`, `(float)cond`, `saturate(sign(x))`) and is tested or used to "
        "select between two values: a `bool` in disguise."
    )
    rationale = (
        "A flag declared `int` or `float` hides what it is: a reader has to check every "
        "assignment to learn that it only holds 0 or 1, and `if (shadowed != 0)` or "
        "`lerp(a, b, lit)` read like arithmetic. Declared `bool`, the type says it. Sebastian "
        "Aaltonen's GPUOpen article on occupancy with large thread groups (section *Booleans*) "
        "adds a register argument: the compiler keeps a per-lane `bool` as a lane mask in SGPRs "
        "(one bit per lane) and an emulated one in a VGPR. On a current compiler that argument "
        "does not hold: RADV/ACO (navi21) compiles the bad and good examples below, and the "
        "float flags of this rule's fixtures, to identical code (same VGPRs, SGPRs and "
        "instructions; `docs/claims.md`), because it sees the 0/1 values and turns the tests "
        "into masks itself. So this is a readability and intent rule; it saves no registers. "
        "A 0/1 float that is only a weight in arithmetic (`color * shadowed`) is a legitimate "
        "float and is left alone unless it is also tested; flags that are the same for the "
        "whole wave (read from a constant buffer) are left alone too."
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
        "it is unsafe when the flag is combined with `|=`, `&=` or `*=` (bitwise operators on "
        "bool depend on the language version) or read as a number (`lerp(a, b, flag)`, "
        "`c * flag`: the bool converts back to 0.0/1.0, but the overload a call picks may change)."
    )
    tags = ("readability", "aaltonen")
    references = (
        "Sebastian Aaltonen, Optimizing GPU occupancy and resource usage with large thread groups "
        "(GPUOpen), section Booleans",
    )

    function_local = True
    """Nothing in a header's functions (reported where the header is linted itself); a local of
    the main file's code asks `ctx.needs_unit()`."""
    node_kinds = frozenset({"declaration"})

    def visit(self, ctx: RuleContext, decl: Node) -> None:
        if ctx.function is None or not ctx.in_main_file(decl):
            return  # reported where the header is linted itself: its includers skip its locals
        for n, sym in declared_symbols(ctx.model, decl):
            if n.type != "identifier" or sym.kind != "local":
                continue
            if sym.type.kind not in ("scalar", "vector") or sym.type.scalar not in _SCALARS:
                continue
            ctx.needs_unit()  # the reads' uniformity is the entry points' (`is_uniform`)
            self._check_local(ctx, sym, n)

    def _check_local(self, ctx: RuleContext, sym: Symbol, name: Node) -> None:
        # Every test below must pass for a finding; the cheap ones go first. Most locals are
        # read as numbers, which settles them before their writes and values are looked at.
        reads: list[Node] = []
        kinds: set[str] = set()
        for u in uses_of(ctx.model, sym):
            if is_assignment_target(u) is not None:
                continue
            kind = _use_kind(ctx, u)
            if kind == "value":
                return  # used as a number (a counter, an index, an addend, an output)
            reads.append(u)
            kinds.add(kind)
        if not kinds:
            return  # unread
        if "test" not in kinds and "scale" in kinds:
            return  # a 0/1 weight in arithmetic (`color * shadowed`) that is never tested
        writes = assignments(ctx.model, sym)
        if not writes:
            return
        for op, value, _site in writes:
            if op not in _BOOL_WRITES or value is None or not zero_or_one(ctx.model, value):
                return
        if all(is_uniform(ctx.model, u) for u in reads):
            return  # a wave-uniform flag, read from constants: left alone
        bool_type = "bool" if sym.type.kind == "scalar" else f"bool{sym.type.cols}"
        how = {
            frozenset({"test"}): "is only tested",
            frozenset({"select"}): "only selects between two values",
            frozenset({"test", "select"}): "is only tested or used to select",
        }.get(frozenset(kinds), "is tested and used as a 0/1 weight")
        ctx.report(
            name,
            f"`{sym.name}` ({sym.type.name}) only holds 0 or 1 and {how}",
            help=f"declare it `{bool_type}` to say it is a flag",
            notes=["a matter of readability: the compiler emits the same code"],
            fix=self._fix(ctx, sym, bool_type, writes, tests_only=kinds == {"test"}),
        )

    @staticmethod
    def _fix(
        ctx: RuleContext,
        sym: Symbol,
        bool_type: str,
        writes: list[tuple[str, Node | None, Node]],
        *,
        tests_only: bool,
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
        # A bool read as a number (`lerp(a, b, flag)`, `c * flag`) converts back to 0.0/1.0, but the
        # overload picked for a mixed call may change: unsafe there.
        applicability = Applicability.UNSAFE if bitwise or not tests_only else Applicability.SAFE
        return (f"Declare `{sym.name}` as `{bool_type}`", applicability, [ctx.edit(type_node, bool_type)])
