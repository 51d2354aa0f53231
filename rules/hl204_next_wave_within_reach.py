"""HL204 next-wave-within-reach."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from hlsllint.analysis.blind import INCOMPLETE_RATIONALE, estimate_incomplete
from hlsllint.analysis.ir import Instr, LoopRecord, Value
from hlsllint.analysis.liveness import Demand, register_demand
from hlsllint.analysis.occupancy import max_vgprs_for_waves, occupancy, too_small_to_fill, vgpr_waves
from hlsllint.analysis.pressure import analyse_entry, error_band, lds_bytes
from hlsllint.analysis.unit import EntryAnalysis, analyze
from hlsllint.context import RuleContext
from hlsllint.diagnostics import Severity
from hlsllint.rule import Option, Rule
from hlsllint.semantic import EntryPoint, Model
from hlsllint.semantic.queries import assignments, zero_or_one
from hlsllint.syntax import Node
from hlsllint.targets import D3D_MAX_GROUPSHARED, Target, resolve_target

Span = tuple[int, int]


@dataclass(frozen=True)
class Suggestion:
    values: tuple[Value, ...]
    saving: int
    text: str


class NextWaveWithinReach(Rule):
    code = "HL204"
    name = "next-wave-within-reach"
    summary = (
        "The register peak of an entry point is a few VGPRs above the next occupancy step, and "
        "values live at the peak could go: names them and the waves per SIMD they would buy."
    )
    rationale = (
        "Occupancy moves in steps: on RDNA2 wave64 a wave needs at most 64 VGPRs for 8 waves "
        "per SIMD, 72 for 7, 80 for 6. A shader a handful of registers above a step pays a "
        "whole wave per SIMD for them, and AMD's *occupancy explained* recommends working on "
        "the peak itself: the whole program is allocated for its single worst point. The "
        "article's toolbox for that point applies to the shader's own values: a value live "
        "across the peak but not used there can be reloaded or recomputed after it (or, in a "
        "compute shader, parked in groupshared memory). The rule looks for the common case: "
        "a value computed before the loop that holds the peak, read only after it, which the "
        "compiler carries through every iteration. It reports only when the estimate is at "
        "most `max-gap` VGPRs above the step and leaving that value out brings every point "
        "above the step down to it; it names the value, the registers it frees and the waves "
        "it would buy. Values the compiler rematerialises itself (a load from a read-only "
        "buffer) and 0/1 flags (kept as SGPR lane masks) free nothing, and stage inputs arrive "
        "in registers before the shader runs: none of these is suggested. Only entry points "
        "below `min-occupancy` are considered: above it a wave more rarely shows. "
        "It promises a wave only when the VGPRs are what limits the entry (not its "
        "groupshared memory, group size or SGPRs), suggests groupshared memory only when the "
        "extra bytes per group keep the wave it buys, and only claims what survives the "
        "estimate's measured error: the median VGPR error on held-out engine shaders is about "
        "9% (README, *Accuracy on engine shaders*), so the peak must be more than that band "
        "above the step and the values named must free the gap plus the band; the message "
        "states the band. Measured with regtruth (navi21 wave64) on the fixtures: a compute "
        "shader 72 VGPRs / 7 waves, 64 / 8 with four values parked in groupshared memory "
        "behind a `GroupMemoryBarrier()`; the same with a 2 KiB tile already declared, 64 "
        "VGPRs but 6 waves once parked (the LDS now limits it); a pixel shader 72 / 7, 64 / 8 "
        "with the values computed after the loop." + INCOMPLETE_RATIONALE
    )
    bad_example = """\
Buffer<float4> src;
RWStructuredBuffer<float4> dst;
cbuffer P { uint count; };

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    float4 lo = 0, hi = 0, sum = 0, sq = 0;
    for (uint s = 0; s < count; ++s)
    {
        float4 v = src[i + s * 64];
        lo = min(lo, v); hi = max(hi, v); sum += v; sq += v * v;
    }
    float4 a = src[i], b = src[i + 1], c = src[i + 2], d = src[i + 3];
    float4 e = src[i + 4], f = src[i + 5], g = src[i + 6], h = src[i + 7];
    float4 k = src[i + 8], l = src[i + 9], m = src[i + 10];
    for (uint j = 0; j < count; ++j)
    {
        float4 t = src[i + 64 + j], u = src[i + 128 + j];
        float3 w = src[i + 192 + j].xyz;
        a = a * b + t; b = b * c + u; c = c * d + t; d = d * e + f;
        e = e * f + g; f = f * g + h; g = g * h + k; h = h * k + l;
        k = k * l + m; l = l * m + u; m = m * t + a; m.xyz += w * l.xyz;
    }
    dst[i] = (a + b + c + d + e + f + g + h + k + l + m) * (hi - lo) + sum * sq;
}
"""
    good_example = """\
Buffer<float4> src;
groupshared float4 gStats[4][64];
RWStructuredBuffer<float4> dst;
cbuffer P { uint count; };

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    float4 lo = 0, hi = 0, sum = 0, sq = 0;
    for (uint s = 0; s < count; ++s)
    {
        float4 v = src[i + s * 64];
        lo = min(lo, v); hi = max(hi, v); sum += v; sq += v * v;
    }
    gStats[0][gi] = lo; gStats[1][gi] = hi; gStats[2][gi] = sum; gStats[3][gi] = sq;
    float4 a = src[i], b = src[i + 1], c = src[i + 2], d = src[i + 3];
    float4 e = src[i + 4], f = src[i + 5], g = src[i + 6], h = src[i + 7];
    float4 k = src[i + 8], l = src[i + 9], m = src[i + 10];
    for (uint j = 0; j < count; ++j)
    {
        float4 t = src[i + 64 + j], u = src[i + 128 + j];
        float3 w = src[i + 192 + j].xyz;
        a = a * b + t; b = b * c + u; c = c * d + t; d = d * e + f;
        e = e * f + g; f = f * g + h; g = g * h + k; h = h * k + l;
        k = k * l + m; l = l * m + u; m = m * t + a; m.xyz += w * l.xyz;
    }
    GroupMemoryBarrier();
    lo = gStats[0][gi]; hi = gStats[1][gi]; sum = gStats[2][gi]; sq = gStats[3][gi];
    dst[i] = (a + b + c + d + e + f + g + h + k + l + m) * (hi - lo) + sum * sq;
}
"""
    severity = Severity.INFO
    tags = ("performance", "occupancy", "registers")
    precision = "medium"
    references = (
        "AMD GPUOpen, Occupancy explained (2024): optimising VGPR usage at the peak",
        "docs/targets.md (waves per SIMD by VGPRs)",
    )
    options: ClassVar[Mapping[str, Option]] = {
        "min-occupancy": Option(
            float,
            0.5,
            "Report only entry points below this fraction of the SIMD's wave slots (0.5: fewer "
            "than 8 of 16 on RDNA2, 5 of 10 on GCN): above it one more wave rarely shows.",
        ),
        "max-gap": Option(
            int,
            16,
            "Report only when the estimated peak is at most this many VGPRs above the next "
            "occupancy step (and always more than the estimate's measured error band above it).",
        ),
    }

    def check(self, ctx: RuleContext) -> None:
        model: Model = ctx.model
        target = resolve_target(ctx.settings.target)
        wave = target.wave_for(ctx.settings.wave_size)
        max_gap = int(self.option_values["max-gap"])
        minimum = float(self.option_values["min-occupancy"])
        for entry in model.entry_points:
            if entry.stage not in ("compute", "pixel", "vertex"):
                continue
            if too_small_to_fill(entry, wave) is not None:
                continue
            if estimate_incomplete(model, entry):
                continue  # part of the entry's code is not in the estimate: no claim
            result = analyse_entry(model, entry, wave)
            if result.peak_span is None or result.spilled_vgprs:
                continue
            peak = result.max_live_vgprs
            compute = entry.stage == "compute"
            threads = entry.threads_per_group if compute else None
            lds = lds_bytes(model, entry) if compute else 0
            # the occupancy after ACO's scheduler (which may trade waves for latency: `scheduled_vgprs`)
            now = occupancy(
                target, wave, max(peak, result.scheduled_vgprs), result.max_live_sgprs, lds, threads
            )
            waves = now.waves_per_simd
            if waves >= target.max_waves:
                continue
            if waves >= max(1, int(minimum * target.max_waves + 0.999)):
                continue  # already at or above the occupancy HL201 asks for: a wave more matters little
            budget = max_vgprs_for_waves(target, wave, vgpr_waves(target, wave, peak) + 1)
            after = occupancy(target, wave, budget, result.max_live_sgprs, lds, threads)
            if after.waves_per_simd <= waves:
                continue  # limited by the LDS, the group size or the SGPRs: fewer VGPRs buy nothing
            gap = peak - budget
            band = error_band(peak)
            if gap <= band or gap > max_gap:
                continue  # inside the estimate's measured error: the step may lie either side
            found = entry_analysis(model, entry)
            demand = register_demand(
                found.cfg, found.liveness, found.uniformity, wave, found.costs, record_live=True
            )
            lds_room = _LdsRoom(target, wave, result.max_live_sgprs, lds, threads, budget, waves)
            suggestions = self._suggest(ctx, entry, found, demand, budget, gap + band, lds_room)
            if not suggestions:
                continue
            region = [ins for ins, n in demand.vgprs.items() if n > budget]
            self._report(
                ctx,
                entry,
                result.peak_span,
                region,
                peak,
                budget,
                (waves, after.waves_per_simd, band),
                suggestions,
                target.name,
                wave,
            )

    # -- what could go --------------------------------------------------------------------------

    def _suggest(
        self,
        ctx: RuleContext,
        entry: EntryPoint,
        found: EntryAnalysis,
        demand: Demand,
        budget: int,
        needed: int,
        lds_room: _LdsRoom,
    ) -> list[Suggestion]:
        """Values whose removal brings every point above the step down to it, and frees at least
        `needed` VGPRs (the gap plus the estimate's error band, so the promise survives it)."""
        region = [ins for ins, n in demand.vgprs.items() if n > budget]
        if not region:
            return []

        def crosses(saved: list[int]) -> bool:
            return all(demand.vgprs[ins] - s <= budget for ins, s in zip(region, saved, strict=True))

        out: list[Suggestion] = []
        # A value that a loop around the whole peak carries without touching: computed before the
        # loop, read after it. The compiler keeps it in registers through every iteration;
        # parked in groupshared memory (compute) or recomputed/reloaded after the loop, it is
        # not live inside. (Values the compiler can rematerialise itself, such as a load from a
        # read-only buffer, are not counted live there by the estimate in the first place.)
        loop = _loop_around(found, region)
        if loop is not None:
            inside = [ins for b in loop.blocks for ins in found.cfg.instrs(b)]
            touched: set[Value] = set()
            for ins in inside:
                touched.update(ins.reads)
                if ins.dest is not None:
                    touched.add(ins.dest)
            live_all = set.intersection(*(set(demand.live_at.get(ins, ())) for ins in region))
            idle = sorted(
                (
                    v
                    for v in live_all
                    if v not in touched
                    and v.kind == "var"
                    and not (v.symbol is not None and v.symbol.kind == "param")
                    and demand.classes.get(v) == "vgpr"
                    and not _zero_one(ctx, v)
                ),
                key=lambda v: (-demand.costs.get(v, v.width), v.name),
            )
            for v in idle:
                size = demand.costs.get(v, v.width)
                if size >= needed and crosses([size] * len(region)):
                    out.append(
                        Suggestion(
                            (v,),
                            size,
                            f"`{v.name}` ({size} VGPRs) is carried through the loop at line "
                            f"{_row(ctx, loop.span)} without being used in it: "
                            f"{_park(entry, lds_room, size, 'it')}",
                        )
                    )
            if not out:
                # the fewest of the largest idle values that free enough together (up to four)
                chosen: list[Value] = []
                size = 0
                for v in idle[:4]:
                    chosen.append(v)
                    size += demand.costs.get(v, v.width)
                    if size >= needed:
                        break
                if len(chosen) >= 2 and size >= needed and crosses([size] * len(region)):
                    names = ", ".join(f"`{v.name}`" for v in chosen[:-1]) + f" and `{chosen[-1].name}`"
                    out.append(
                        Suggestion(
                            tuple(chosen),
                            size,
                            f"{names} ({size} VGPRs together) are carried through the loop at line "
                            f"{_row(ctx, loop.span)} without being used in it: "
                            f"{_park(entry, lds_room, size, 'them')}",
                        )
                    )
        return out[:3]

    # -- the finding ----------------------------------------------------------------------------

    def _report(
        self,
        ctx: RuleContext,
        entry: EntryPoint,
        peak_span: Span,
        region: list[Instr],
        peak: int,
        budget: int,
        occupancies: tuple[int, int, int],
        suggestions: list[Suggestion],
        target: str,
        wave: int,
    ) -> None:
        waves, waves_after, band = occupancies
        anchor = ctx.entry_anchor(entry)
        at = ctx.row_of(peak_span)
        home = ctx.row_of(anchor)
        where = ""
        if at is not None:
            path, row = at
            where = (
                f" (line {row})"
                if home is not None and home[0] == path
                else f" (line {row} of {os.path.basename(path)})"
            )
        rows = sorted(
            {r[1] for r in (ctx.row_of(ins.span) for ins in region) if r is not None and at and r[0] == at[0]}
        )
        span_text = f"lines {rows[0]}-{rows[-1]}" if len(rows) > 1 else (f"line {rows[0]}" if rows else "")
        above = f"above {budget} VGPRs on {span_text}" if span_text else f"above {budget} VGPRs"
        ideas = "; ".join(s.text for s in suggestions)
        related: list[tuple[Node | Span, str]] = [(peak_span, f"`{entry.name}`: the peak, ~{peak} VGPRs")]
        for s in suggestions:
            for v in s.values:
                sym = v.symbol
                node = sym.node if sym is not None else None
                if node is not None:
                    related.append((ctx.span(node), f"`{v.name}` is declared here"))
        ctx.report(
            anchor,
            f"`{entry.name}` peaks at ~{peak} VGPRs{where}, {peak - budget} above the {budget} that "
            f"give {waves_after} instead of {waves} wave{wave}s per SIMD on {target}",
            related=related,
            help=ideas,
            notes=[
                f"the shader is {above}",
                f"the estimate's measured error is about ±{band} VGPRs here, so measure the change",
            ],
            extra={
                "entry": entry.name,
                "peak": peak,
                "budget": budget,
                "waves": waves,
                "waves_after": waves_after,
                "error_band": band,
                "savings": [s.saving for s in suggestions],
            },
        )


@dataclass(frozen=True)
class _LdsRoom:
    """What parking values in groupshared memory would do to the occupancy of a compute entry."""

    target: Target
    wave: int
    sgprs: int
    lds: int
    threads: int | None
    budget: int
    waves: int

    def extra_bytes(self, vgprs: int) -> int:
        return (self.threads or self.wave) * vgprs * 4

    def pays(self, vgprs: int) -> bool:
        """Would the entry still gain a wave with `vgprs` VGPRs per lane more in groupshared memory?"""
        lds = self.lds + self.extra_bytes(vgprs)
        if lds > D3D_MAX_GROUPSHARED:
            return False
        after = occupancy(self.target, self.wave, self.budget, self.sgprs, lds, self.threads)
        return after.waves_per_simd > self.waves


def _park(entry: EntryPoint, room: _LdsRoom, vgprs: int, it: str) -> str:
    later = f"recompute or reload {it} after the loop"
    if entry.stage != "compute":
        return later
    if not room.pays(vgprs):
        kib = room.extra_bytes(vgprs) / 1024
        return (
            f"{later} (parking {it} in groupshared memory would take {kib:g} KiB more per group "
            "and cost the wave in LDS occupancy instead)"
        )
    return (
        f"park {it} in groupshared memory before the loop and read {it} back after a "
        "`GroupMemoryBarrier()` (without one the compiler forwards the stored value and keeps "
        f"{it} live), or {later}"
    )


def _loop_around(found: EntryAnalysis, region: list[Instr]) -> LoopRecord | None:
    """The innermost loop whose blocks hold every instruction of the region, if any."""
    blocks = {ins.block for ins in region}
    best: LoopRecord | None = None
    for loop in found.cfg.loops:
        if blocks <= loop.blocks and (best is None or len(loop.blocks) < len(best.blocks)):
            best = loop
    return best


def _zero_one(ctx: RuleContext, v: Value) -> bool:
    """A local that only holds 0 or 1: the compiler keeps such a flag as a lane mask in SGPRs or
    re-derives it where it is used (regtruth: four `x > 0 ? 1.0 : 0.0` flags carried through a
    loop cost no VGPR), so parking it frees nothing."""
    sym = v.symbol
    if sym is None or sym.kind != "local":
        return False
    writes = list(assignments(ctx.model, sym) or [])
    if not writes and sym.init is not None and sym.node is not None:
        writes = [("=", sym.init, sym.node)]  # only initialised (or written in ways not followed)
    return bool(writes) and all(
        op == "=" and value is not None and zero_or_one(ctx.model, value) for op, value, _ in writes
    )


def _row(ctx: RuleContext, span: Span) -> int:
    at = ctx.row_of(span)
    return at[1] if at is not None else 0


def entry_analysis(model: Model, entry: EntryPoint) -> EntryAnalysis:
    found = analyze(model).entry(entry.name)
    return found if found is not None and found.entry is entry else EntryAnalysis(model, entry)
