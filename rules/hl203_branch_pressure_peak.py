"""HL203 branch-pressure-peak."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from hlsllint.rules._pressure import too_small_to_fill

from hlsllint.analysis.occupancy import occupancy, resolve_target
from hlsllint.analysis.pressure import analyse_entry
from hlsllint.context import RuleContext
from hlsllint.diagnostics import Severity
from hlsllint.rule import Option, Rule
from hlsllint.syntax import Node

Span = tuple[int, int]


@dataclass(frozen=True)
class Arm:
    span: Span
    """The arm's body (consequence, else body or case)."""
    header: Span
    """What to point at: `if (...)`, `else` or `case ...:`."""
    kind: str


def arms(ctx: RuleContext) -> list[Arm]:
    """Every arm of every if/else and switch in the unit."""
    out: list[Arm] = []
    for node in ctx.tree.walk():
        if node.type == "if_statement":
            cond = node.child_by_field_name("condition")
            then = node.child_by_field_name("consequence")
            start = ctx.span(node)[0]
            if then is not None:
                end = ctx.span(cond)[1] if cond is not None else ctx.span(then)[0]
                out.append(Arm(ctx.span(then), (start, end), "if"))
            other = node.child_by_field_name("alternative")
            if other is not None:
                body: Node | None = other.named_children[0] if other.named_children else None
                if body is not None and body.type != "if_statement":  # `else if` is its own if
                    kw = ctx.span(other)
                    out.append(Arm(ctx.span(body), (kw[0], kw[0] + 4), "else"))
        elif node.type == "case_statement":
            span = ctx.span(node)
            value = node.child_by_field_name("value")
            end = ctx.span(value)[1] if value is not None else span[0] + len("default")
            out.append(Arm(span, (span[0], end), "case"))
    return out


def _inside(inner: Span, outer: Span) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


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
        "would raise the estimated occupancy."
    )
    bad_example = """\
Buffer<float4> src;
RWStructuredBuffer<float4> dst;
cbuffer P { uint count; };

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float4 result = src[i];
    if (result.w > 0.5)
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
    dst[i] = result;
}
"""
    good_example = """\
Buffer<float4> src;
RWStructuredBuffer<float4> dst;

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float4 result = src[i];
    if (result.w > 0.5)
    {
        result = result * src[i + 1] + src[i + 2];
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

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        target = resolve_target(ctx.settings.target)
        wave = target.wave_for(ctx.settings.wave_size)
        gap = int(self.option_values["min-gap"])
        all_arms: list[Arm] | None = None
        for entry in model.entry_points:
            if too_small_to_fill(entry, wave) is not None:
                continue
            result = analyse_entry(model, entry, wave)
            peak = result.peak_span
            if peak is None or not result.spans:
                continue
            if all_arms is None:
                all_arms = arms(ctx)
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
                row_hint = ctx.pp.sourcemap.map_range(*peak)
                src = ctx.source(row_hint.path)
                where = f" (line {src.location(row_hint.start).row})" if src is not None else ""
                ctx.report(
                    arm.header,
                    f"`{entry.name}` peaks at ~{result.max_live_vgprs} VGPRs inside this {arm.kind} "
                    f"arm{where}; the rest of the shader needs ~{rest}. The arm sets the whole "
                    f"shader to {with_arm} waves per SIMD on {target.name} instead of {without}: "
                    f"consider a separate shader permutation for this path (e.g. classify tiles "
                    f"and dispatch it indirectly)",
                    extra={"entry": entry.name, "peak": result.max_live_vgprs, "rest": rest},
                )
                break
