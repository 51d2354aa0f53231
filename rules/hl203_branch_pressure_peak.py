"""HL203 branch-pressure-peak."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from hlsllint.analysis.blind import INCOMPLETE_RATIONALE, estimate_incomplete
from hlsllint.analysis.occupancy import occupancy, reachable_functions, too_small_to_fill
from hlsllint.analysis.pressure import analyse_entry
from hlsllint.context import RuleContext
from hlsllint.diagnostics import Severity
from hlsllint.rule import Option, Rule
from hlsllint.semantic import EntryPoint
from hlsllint.syntax import Node
from hlsllint.syntax.queries import call_name, else_statement, enclosing, loop_of
from hlsllint.targets import resolve_target

Span = tuple[int, int]


@dataclass(frozen=True)
class Arm:
    span: Span
    """The arm's body (consequence, else body or case)."""
    header: Span
    """What to point at: `if (...)`, `else` or `case ...:`."""
    kind: str
    node: Node
    """The if statement (for `if` and `else` arms) or the case statement."""


def arms(ctx: RuleContext, branches: list[Node]) -> list[Arm]:
    """Every arm of the if/else and switch statements `branches` (the unit's, in document order,
    as the driver's walk handed them to `visit`)."""
    out: list[Arm] = []
    for node in branches:
        if node.type == "if_statement":
            cond = node.child_by_field_name("condition")
            then = node.child_by_field_name("consequence")
            start = ctx.span(node)[0]
            if then is not None:
                end = ctx.span(cond)[1] if cond is not None else ctx.span(then)[0]
                out.append(Arm(ctx.span(then), (start, end), "if", node))
            other = node.child_by_field_name("alternative")
            if other is not None:
                body = else_statement(other)
                if body is not None and body.type != "if_statement":  # `else if` is its own if
                    kw = ctx.span(other)
                    out.append(Arm(ctx.span(body), (kw[0], kw[0] + 4), "else", node))
        elif node.type == "case_statement":
            span = ctx.span(node)
            value = node.child_by_field_name("value")
            end = ctx.span(value)[1] if value is not None else span[0] + len("default")
            out.append(Arm(span, (span[0], end), "case", node))
    return out


def _branches() -> list[Node]:
    """The unit's if and case statements, in document order (gathered by `visit`)."""
    return []


def _inside(inner: Span, outer: Span) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


FEATURE_RE = re.compile(
    r"(material|feature|flag|type|kind|class|category|shading_?model|lighting_?model|"
    r"^(g_?|m_?|u_?|c_?)?(use|enable|has)[A-Z_])",
    re.IGNORECASE,
)
"""Names of values that select a kind of work (a material, a feature, a light type)."""


def _ops(ctx: RuleContext, node: Node) -> list[tuple[str, Node]]:
    """(operator, node) of every binary/unary expression in a condition, outermost first."""
    out: list[tuple[str, Node]] = []
    for n in ctx.tree.walk(node):
        if n.type in ("binary_expression", "unary_expression"):
            op = n.child_by_field_name("operator")
            if op is not None:
                out.append((op.type, n))
    return out


def _names(ctx: RuleContext, node: Node) -> list[str]:
    return [
        ctx.tree.node_text(n) for n in ctx.tree.walk(node) if n.type in ("identifier", "field_identifier")
    ]


def _short(ctx: RuleContext, node: Node, limit: int = 60) -> str:
    text = " ".join(ctx.tree.node_text(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def classifies_work(ctx: RuleContext, arm: Arm) -> str | None:
    """Why the arm's condition picks out one kind of work (so the arm is plausibly rare), or None.

    A `case` of a switch, an equality test or a flag bit (`kind == 2`, `flags & HAS_CLEARCOAT`),
    or a value named as a material/feature/type selector. A comparison (`depth < 1`,
    `id.x < width`) or a validity test is the main path, not a class of work.
    """
    node = arm.node
    if arm.kind == "case":
        value = node.child_by_field_name("value")
        if value is None:
            return None  # `default` is whatever the other cases leave: not rare
        switch = enclosing(node, {"switch_statement"})
        cond = switch.child_by_field_name("condition") if switch is not None else None
        subject = f" on `{_short(ctx, cond).strip('()')}`" if cond is not None else ""
        return f"it is one `case` of a switch{subject}"
    cond = node.child_by_field_name("condition")
    if cond is None:
        return None
    ops = _ops(ctx, cond)
    equal = "==" if arm.kind == "if" else "!="
    for op, n in ops:
        if op == equal:
            return f"its condition tests one value (`{_short(ctx, n)}`)"
    if arm.kind == "if":
        for op, n in ops:
            if op == "&":
                return f"its condition tests a flag bit (`{_short(ctx, n)}`)"
        for name in _names(ctx, cond):
            if FEATURE_RE.search(name):
                return f"its condition tests a material/feature value (`{name}`)"
    return None


def _in_loop(ctx: RuleContext, node: Node, entry: EntryPoint, depth: int = 0) -> bool:
    """Whether `node` runs inside a loop of the entry point: a loop around it in its function,
    or around a call of its function (followed up to the entry, a few levels deep)."""
    if loop_of(node) is not None:
        return True
    fn = enclosing(node, {"function_definition"})
    if fn is None or fn.id == entry.function.node.id or depth > 4:
        return False
    name = None
    for f in ctx.model.functions.values():
        for overload in f:
            if overload.node.id == fn.id:
                name = overload.name
    if name is None:
        return False
    for caller in reachable_functions(ctx.model, entry):
        if caller.body is None or name not in caller.calls:
            continue
        for n in ctx.tree.walk(caller.body):
            is_call = n.type == "call_expression" and call_name(ctx.tree, n) == name
            if is_call and _in_loop(ctx, n, entry, depth + 1):
                return True
    return False


class BranchPressurePeak(Rule):
    code = "HL203"
    name = "branch-pressure-peak"
    summary = (
        "The register peak of an entry point sits inside one arm of an if/else or switch and is "
        "well above the peak of the rest of the shader, so a rarely taken path sets the "
        "occupancy of every wave."
    )
    rationale = (
        "Registers are allocated once per wave for the worst point of the whole program, "
        "whether or not a wave ever takes the branch that needs them: AMD's *occupancy "
        "explained* (the RGA live-VGPR section) points out that a single spike in one branch "
        "makes the whole shader allocate for it. Uber-shaders that handle every material or "
        "light type behind branches are the common case. Pocol's article on tile "
        "classification shows the remedy: classify screen tiles by the features they need, "
        "then dispatch a separate shader permutation per class with `DispatchIndirect`, so "
        "the heavy path only costs the tiles that use it. In the article's worst case the "
        "uber shader took 4.0 ms; picking the best permutation per tile brought it to 3.4 ms "
        "and branch-free permutations to 2.7 ms. The rule reports only when removing the arm "
        "would raise the estimated occupancy, and only an arm that is plausibly rare: one `case` "
        "of a switch, or an if whose condition tests one value, a flag bit or a value named as "
        "a material/feature/type selector; not an arm inside a loop (taken again and again), "
        "not a comparison such as a depth or bounds test (the main path), and not an if "
        "without else around most of the shader. The message says which of these it saw."
        + INCOMPLETE_RATIONALE
    )
    bad_example = """\
Buffer<float4> src;
Buffer<uint> materialIds;
RWStructuredBuffer<float4> dst;
cbuffer P { uint count; };

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float4 result = src[i];
    if (materialIds[i] == 3)  // the rare "complex" material
    {
        float4 a = src[i + 1], b = src[i + 2], c = src[i + 3], d = src[i + 4];
        float4 e = src[i + 5], f = src[i + 6], g = src[i + 7], h = src[i + 8];
        float4 k = src[i + 9], l = src[i + 10], m = src[i + 11], n = src[i + 12];
        for (uint j = 0; j < count; ++j)
        {
            a = a * b + c; b = b * c + d; c = c * d + e; d = d * e + f;
            e = e * f + g; f = f * g + h; g = g * h + k; h = h * k + l;
            k = k * l + m; l = l * m + n; m = m * n + a; n = n * a + b;
        }
        result = a + b + c + d + e + f + g + h + k + l + m + n;
    }
    else  // the common materials
    {
        result *= 0.5;
    }
    dst[i] = result;
}
"""
    good_example = """\
Buffer<float4> src;
Buffer<uint> materialIds;
RWStructuredBuffer<float4> dst;

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float4 result = src[i];
    if (materialIds[i] == 3)
    {
        result = result * src[i + 1] + src[i + 2];
    }
    else
    {
        result *= 0.5;
    }
    dst[i] = result;
}
"""
    severity = Severity.INFO
    tags = ("performance", "occupancy", "registers", "uber-shader")
    precision = "medium"
    references = (
        "AMD GPUOpen, Occupancy explained (2024), section on RGA live VGPR analysis",
        "Pocol, tile classification for uber-shaders (shader permutations + DispatchIndirect)",
    )
    options: ClassVar[Mapping[str, Option]] = {
        "min-gap": Option(
            int,
            16,
            "Report only when the arm's peak exceeds the rest of the shader by at least this "
            "many VGPRs (and removing it raises the estimated occupancy).",
        ),
    }

    function_local = False
    """Entry-dependent: visit gathers branches for `check`, which weighs them against each entry point's
    pressure peak."""
    node_kinds = frozenset({"if_statement", "case_statement"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        ctx.scratch(_branches).append(node)

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        target = resolve_target(ctx.settings.target)
        wave = target.wave_for(ctx.settings.wave_size)
        gap = int(self.option_values["min-gap"])
        all_arms: list[Arm] | None = None
        for entry in model.entry_points:
            if too_small_to_fill(entry, wave) is not None:
                continue
            if estimate_incomplete(model, entry):
                continue  # part of the entry's code is not in the estimate: no claim
            result = analyse_entry(model, entry, wave)
            peak = result.peak_span
            if peak is None or not result.spans:
                continue
            if all_arms is None:
                all_arms = arms(ctx, ctx.scratch(_branches))
            holding = sorted(
                (a for a in all_arms if _inside(peak, a.span)), key=lambda a: a.span[1] - a.span[0]
            )
            for arm in holding:
                rest = max((s.vgprs for s in result.spans if not _inside(s.span, arm.span)), default=0)
                if result.max_live_vgprs - rest < gap:
                    continue
                with_arm = occupancy(target, wave, result.max_live_vgprs).vgpr_waves
                without = occupancy(target, wave, rest).vgpr_waves
                if without <= with_arm:
                    continue
                # Only an arm that is plausibly rare is worth its own permutation.
                if _in_loop(ctx, arm.node, entry):
                    break  # taken again and again: not a rare path
                why = classifies_work(ctx, arm)
                if why is None:
                    break
                inside = sum(1 for s in result.spans if _inside(s.span, arm.span))
                total = len(result.spans)
                other = arm.node.child_by_field_name("alternative") if arm.kind == "if" else None
                if other is None and arm.kind == "if" and inside * 4 > total * 3:
                    break  # an if without else around most of the shader is its main path
                row_hint = ctx.pp.sourcemap.map_range(*peak)
                src = ctx.source(row_hint.path)
                where = f" (line {src.location(row_hint.start).row})" if src is not None else ""
                ctx.report(
                    arm.header,
                    f"`{entry.name}` peaks at ~{result.max_live_vgprs} VGPRs in this {arm.kind} arm{where}, "
                    f"~{rest} elsewhere: {with_arm} waves per SIMD on {target.name} instead of {without}",
                    help=(
                        "consider a separate shader permutation for this path (e.g. classify tiles "
                        "and dispatch it indirectly)"
                    ),
                    notes=[
                        f"the arm looks rarely taken: {why}, it is not inside a loop and holds "
                        f"{inside} of the shader's {total} instructions"
                    ],
                    extra={"entry": entry.name, "peak": result.max_live_vgprs, "rest": rest, "why": why},
                )
                break
