"""HL201 vgpr-occupancy."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from typing import ClassVar

from hlsllint.analysis.blind import INCOMPLETE_RATIONALE, estimate_incomplete
from hlsllint.analysis.occupancy import Occupancy, max_vgprs_for_waves, occupancy, too_small_to_fill
from hlsllint.analysis.pressure import EntryDemand, LiveValue, analyse_entry, error_band, lds_bytes
from hlsllint.context import RuleContext
from hlsllint.diagnostics import Severity
from hlsllint.rule import Option, Rule
from hlsllint.semantic import EntryPoint, Model
from hlsllint.targets import MAX_ADDRESSABLE_VGPRS, Target, resolve_target


def largest_values(values: list[LiveValue], limit: int = 4) -> str:
    """`a (4), b (3), ...`: the largest per-lane values first."""
    vector = [v for v in values if v.vgprs > 0]
    parts = [f"`{v.name}` ({v.vgprs})" for v in vector[:limit]]
    if len(vector) > limit:
        parts.append(f"{len(vector) - limit} more")
    return ", ".join(parts)


class VgprOccupancy(Rule):
    code = "HL201"
    name = "vgpr-occupancy"
    summary = (
        "The estimated live VGPRs of an entry point limit its occupancy below the target, or keep "
        "a second large thread group from sharing the CU/WGP."
    )
    rationale = (
        "A SIMD's vector register file is split between the waves resident on it, so the "
        "registers one wave needs at its worst point decide how many waves can hide each "
        "other's memory latency. AMD's *occupancy explained* walks through the arithmetic "
        "(1536 VGPRs per SIMD on RDNA3 with 120 VGPRs per wave32 leaves 12 of 16 slots) and "
        "notes that the whole shader is allocated for its single worst point. Aaltonen's "
        "GPUOpen article shows what this means for large groups on GCN: a 1024-thread group "
        "is 4 wave64s per SIMD, and a second group fits on the CU only when a wave needs at "
        "most 32 VGPRs (two groups × 1024 threads × 32 = the CU's 65,536 VGPRs). At 40 VGPRs "
        "only one group runs and occupancy is 4 of 10 waves; cutting a 48-VGPR shader to 32 "
        "VGPRs made it 50% faster on one platform. The count here is a static estimate of "
        "the live values before instruction scheduling (what ACO calls max register demand); "
        "the compiler's scheduler can add registers on top to issue memory loads early, and "
        "where it is predicted to give up waves for that the finding says so and counts the "
        "waves it leaves (`4 of 16 wave64s per SIMD on rdna2 after scheduling (5 by the "
        "demand)`; README, *Register pressure*). The finding is reported once "
        "per entry point, at its name, with the peak line (often in a shared header) as a "
        "related location; past the 256 VGPRs a wave can address it says the compiler spills "
        "to scratch memory. It stays silent on one-thread groups and on single groups smaller "
        "than a wave (no `SV_DispatchThreadID`/`SV_GroupID` read), which cannot fill a SIMD "
        "anyway, and it does not count groupshared rows copied into a value at the peak (the "
        "compiler may read them from LDS where they are used). It reports only estimates past "
        "the occupancy step by more than the estimate's measured error (its median VGPR "
        "error on held-out engine shaders, about 9%, at least 2 VGPRs; README, *Accuracy on "
        "engine shaders*): a finding just past a step would rest on that error (FidelityFX "
        "`BC1Compress2Mips`: 65 estimated, 63 before scheduling, 8 waves)." + INCOMPLETE_RATIONALE
    )
    bad_example = """\
Buffer<float4> src;
RWStructuredBuffer<float4> dst;
cbuffer P { uint count; };

[numthreads(1024, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float4 a = src[i], b = src[i + 1], c = src[i + 2], d = src[i + 3];
    float4 e = src[i + 4], f = src[i + 5], g = src[i + 6], h = src[i + 7];
    float4 k = src[i + 8], l = src[i + 9], m = src[i + 10], n = src[i + 11];
    float4 o = src[i + 12], p = src[i + 13], q = src[i + 14], r = src[i + 15];
    float4 s = src[i + 16], t = src[i + 17];
    for (uint j = 0; j < count; ++j)
    {
        a = a * b + c; b = b * c + d; c = c * d + e; d = d * e + f;
        e = e * f + g; f = f * g + h; g = g * h + k; h = h * k + l;
        k = k * l + m; l = l * m + n; m = m * n + o; n = n * o + p;
        o = o * p + q; p = p * q + r; q = q * r + s; r = r * s + t;
        s = s * t + a; t = t * a + b;
    }
    dst[i] = a + b + c + d + e + f + g + h + k + l + m + n + o + p + q + r + s + t;
}
"""
    good_example = """\
Buffer<float4> src;
RWStructuredBuffer<float4> dst;
cbuffer P { uint count; };

[numthreads(1024, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float4 a = src[i], b = src[i + 1], c = src[i + 2], d = src[i + 3];
    for (uint j = 0; j < count; ++j)
    {
        a = a * b + c; b = b * c + d; c = c * d + a; d = d * a + b;
    }
    dst[i] = a + b + c + d;
}
"""
    severity = Severity.WARNING
    tags = ("performance", "occupancy", "registers")
    precision = "medium"
    references = (
        "Sebastian Aaltonen, Optimizing GPU occupancy and resource usage with large thread "
        "groups (GPUOpen, 2017)",
        "AMD GPUOpen, Occupancy explained (2024)",
        "docs/targets.md (waves per SIMD by VGPRs)",
    )
    options: ClassVar[Mapping[str, Option]] = {
        "min-occupancy": Option(
            float,
            0.5,
            "Report an entry point whose VGPRs (or SGPRs on GCN) leave fewer than this fraction "
            "of the SIMD's wave slots (0.5: 5 of 10 on GCN, 8 of 16 on RDNA2).",
        ),
        "large-group-threads": Option(
            int,
            512,
            "Groups of at least this many threads are also reported when a second group no "
            "longer fits on a CU (GCN) or WGP (RDNA); 0 turns that check off.",
        ),
    }

    def check(self, ctx: RuleContext) -> None:
        model: Model = ctx.model
        target = resolve_target(ctx.settings.target)
        wave = target.wave_for(ctx.settings.wave_size)
        for entry in model.entry_points:
            if entry.stage not in ("compute", "pixel", "vertex"):
                continue
            if too_small_to_fill(entry, wave) is not None:
                continue
            if estimate_incomplete(model, entry):
                continue  # part of the entry's code is not in the estimate: no claim
            result = analyse_entry(model, entry, wave)
            peak_span = result.peak_span
            if peak_span is None:
                continue
            result, discounted = _without_shared_rows(model, result)
            compute = entry.stage == "compute"
            threads = entry.threads_per_group if compute else None
            lds = lds_bytes(model, entry) if compute else 0
            occ = occupancy(target, wave, result.max_live_vgprs, result.max_live_sgprs, lds, threads)
            by_demand = 0
            if not discounted and result.scheduled_vgprs > result.max_live_vgprs:
                # ACO's scheduler is predicted to trade waves for latency: the occupancy it leaves
                scheduled = occupancy(
                    target, wave, result.scheduled_vgprs, result.max_live_sgprs, lds, threads
                )
                if scheduled.waves_per_simd < occ.waves_per_simd:
                    occ, by_demand = scheduled, occ.waves_per_simd
            if result.spilled_vgprs == 0 and self._within_error(result, occ, target, wave, lds, threads):
                continue
            at = ctx.row_of(peak_span)
            where = ""
            if at is not None:
                path, row = at
                anchor_at = ctx.row_of(ctx.entry_anchor(entry))
                same_file = anchor_at is not None and anchor_at[0] == path
                where = f"line {row}" if same_file else f"line {row} of {os.path.basename(path)}"
            said = self._message(entry, result, occ, target, wave, threads, where, by_demand)
            if said is None:
                continue
            message, help, notes = said
            if discounted:
                notes.append(
                    f"not counting {discounted}: groupshared data passed by value, which the "
                    f"compiler may read from LDS where it is used instead"
                )
            live = largest_values(result.peak_values)
            total = result.max_live_vgprs + result.spilled_vgprs
            ctx.report(
                ctx.entry_anchor(entry),
                message,
                help=help,
                notes=notes,
                related=[(peak_span, f"`{entry.name}`: ~{total} VGPRs live here ({live})")],
                extra={
                    "entry": entry.name,
                    "max_live_vgprs": result.max_live_vgprs,
                    "spilled_vgprs": result.spilled_vgprs,
                    "waves_per_simd": occ.waves_per_simd,
                    "limiter": occ.limiter,
                    "target": target.name,
                    "peak": where,
                },
            )

    def _within_error(
        self, result: EntryDemand, occ: Occupancy, target: Target, wave: int, lds: int, threads: int | None
    ) -> bool:
        """Would the occupancy the rule asks for be reached if the estimate were high by its
        usual error? Then the finding would rest on that error: stay silent."""
        wanted = max(1, int(float(self.option_values["min-occupancy"]) * occ.max_waves + 0.999))
        if occ.waves_per_simd >= wanted:
            return False
        margin = error_band(result.max_live_vgprs)
        low = max(1, result.max_live_vgprs - margin)
        return occupancy(target, wave, low, result.max_live_sgprs, lds, threads).waves_per_simd >= wanted

    def _message(
        self,
        entry: EntryPoint,
        result: EntryDemand,
        occ: Occupancy,
        target: Target,
        wave: int,
        threads: int | None,
        where: str,
        by_demand: int = 0,
    ) -> tuple[str, str | None, list[str]] | None:
        """The message, its help and its notes, or None when occupancy is not the problem."""
        minimum = float(self.option_values["min-occupancy"])
        wanted = max(1, int(minimum * occ.max_waves + 0.999))
        large = int(self.option_values["large-group-threads"])
        notes = [f"live at the peak: {largest_values(result.peak_values)}"]
        at = f" ({where})" if where else ""
        unit = "CU" if target.family == "gcn" else "WGP"
        per_simd = f"{occ.waves_per_simd} of {occ.max_waves} wave{wave}s per SIMD"
        waves = f"{per_simd} on {target.name}"
        if by_demand:
            waves += f" after scheduling ({by_demand} by the demand)"
            notes.append(
                f"ACO's scheduler is predicted to use up to {result.scheduled_vgprs} VGPRs to issue "
                "memory loads early, trading waves for latency"
            )

        if result.spilled_vgprs > 0:
            total = result.max_live_vgprs + result.spilled_vgprs
            notes.append(
                "the compiler spills the rest to scratch memory (a memory round trip per spilled "
                f"value) and runs at most {waves}"
            )
            return (
                f"`{entry.name}` peaks at ~{total} VGPRs{at}, more than the {MAX_ADDRESSABLE_VGPRS} "
                "a wave can address",
                None,
                notes,
            )
        head = f"`{entry.name}` peaks at ~{result.max_live_vgprs} VGPRs{at}"
        if (
            large
            and threads is not None
            and threads >= large
            and occ.waves_per_group is not None
            and occ.waves_per_group > 1
            and occ.groups_per_cu is not None
            and occ.groups_per_cu < 2
            and occ.lds_waves >= occ.waves_per_simd  # not an LDS problem (that is HL202)
            and occ.limiter in ("vgpr", "sgpr", "group")
        ):
            if occ.groups_per_cu == 0:
                needed = -(-occ.waves_per_group // target.simds_per_lds)
                budget = max_vgprs_for_waves(target, wave, needed)
                notes.append(
                    f"the compiler must stay at or below {budget} VGPRs and spill the rest to scratch memory"
                )
                return (
                    f"{head}: a {threads}-thread group does not fit on a {unit} of {target.name} at all",
                    None,
                    notes,
                )
            needed = -(-2 * occ.waves_per_group // target.simds_per_lds)
            budget = max_vgprs_for_waves(target, wave, needed)
            return (
                f"{head}: only one {threads}-thread group fits per {unit} on {target.name} ({per_simd})",
                f"two groups need at most {budget} VGPRs",
                notes,
            )
        if occ.waves_per_simd < wanted and occ.limiter in ("vgpr", "sgpr", "group"):
            budget = max_vgprs_for_waves(target, wave, wanted)
            notes.append(f"{occ.allocated_vgprs} VGPRs allocated; occupancy limited by {occ.limiter}")
            return (f"{head}: {waves}", f"{wanted} waves need at most {budget} VGPRs", notes)
        return None


def _without_shared_rows(model: Model, result: EntryDemand) -> tuple[EntryDemand, str]:
    """The peak without the rows/structs of groupshared arrays copied into a value (a row passed
    to a function by value). Whether the compiler keeps such a copy in registers depends on how
    it is indexed (regtruth: FastBlockCompress `BC5Compress2Mips`, 144 VGPRs estimated with two
    64-VGPR rows at the peak, 48 allocated; a row read at a dynamic index in a loop was copied,
    73 VGPRs), so a finding must not rest on them. Counted at the peak only: the figure is a
    lower bound of what the estimate says elsewhere."""
    shared = {s.name for s in model.groupshared}
    rows = [
        v for v in result.peak_values if v.vgprs >= 8 and re.split(r"[\[.]", v.name, maxsplit=1)[0] in shared
    ]
    if not rows:
        return result, ""
    dropped = sum(v.vgprs for v in rows)
    kept = [v for v in result.peak_values if v not in rows]
    names = ", ".join(f"`{v.name}` ({v.vgprs})" for v in rows)
    adjusted = dataclasses.replace(
        result, max_live_vgprs=max(0, result.max_live_vgprs - dropped), peak_values=kept, spilled_vgprs=0
    )
    return adjusted, names
