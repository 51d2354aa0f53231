"""HL202 lds-occupancy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from hlsllint.analysis import analyze
from hlsllint.analysis.blind import INCOMPLETE_RATIONALE, estimate_incomplete
from hlsllint.analysis.occupancy import Occupancy, groupshared_bytes, occupancy, round_up, too_small_to_fill
from hlsllint.context import RuleContext
from hlsllint.diagnostics import Severity
from hlsllint.rule import Option, Rule
from hlsllint.semantic import EntryPoint, Model, Symbol
from hlsllint.targets import D3D_MAX_GROUPSHARED, KIB, Target, resolve_target


def _kib(n: int) -> str:
    return f"{n / KIB:.3g} KiB"


def max_lds_for_waves(target: Target, wave: int, group_threads: int, waves: int) -> int:
    """The most groupshared bytes per group that still let `waves` waves per SIMD be resident.

    `occupancy()` puts ceil(groups x waves per group / SIMDs) waves on the busiest SIMD (what
    regtruth measures), so the fewest groups that reach `waves` are
    (waves - 1) x SIMDs // waves per group + 1; the unit's LDS split among them, rounded down to
    the allocation granule, is the budget (regtruth, vega10: 3.5 KiB per one-wave group gives 5
    waves per SIMD, 4 KiB gives 4).
    """
    waves_per_group = -(-group_threads // wave)
    groups_needed = (max(waves, 1) - 1) * target.simds_per_lds // waves_per_group + 1
    per_group = target.lds_bytes // groups_needed
    return min(D3D_MAX_GROUPSHARED, per_group // target.lds_granule * target.lds_granule)


class LdsOccupancy(Rule):
    code = "HL202"
    name = "lds-occupancy"
    summary = (
        "Groupshared memory that exceeds the 32 KiB a thread group may use, or that leaves room "
        "for so few groups per CU (GCN) or WGP (RDNA) that occupancy drops below the target."
    )
    rationale = (
        "A thread group's LDS is allocated when the group starts and freed only when its last "
        "wave ends, so the groupshared size decides how many groups a CU (GCN: 64 KiB) or a "
        "WGP (RDNA: 128 KiB) can hold at once. Aaltonen's GPUOpen article on large thread "
        "groups works this out for GCN: Direct3D caps a group at 32 KiB, so the full 32 KiB "
        "still lets two groups share a CU, and two 1024-thread groups give 8 waves per SIMD. "
        "A smaller group with the same LDS gets far fewer waves: two 256-thread groups are "
        "only 2 waves per SIMD, too few to hide memory latency. AMD's *occupancy explained* "
        "lists LDS as one of the three resources (with VGPRs and SGPRs) that bound the waves "
        "a SIMD can host, and explains that a compute group's resources must all be available "
        "before any of its waves launches. The estimate assumes WGP mode on RDNA, as RADV "
        "and AMD's drivers use for compute. Groups are counted on the whole CU/WGP with integer "
        "arithmetic (128 KiB / 20 KiB = 6 groups) and their waves spread over its SIMDs, as "
        "regtruth measures; the advised budget is the largest that reaches the wanted waves. "
        "Occupancy is not judged for one-thread groups or single sub-wave groups (the 32 KiB "
        "limit still is)." + INCOMPLETE_RATIONALE
    )
    bad_example = """\
groupshared float4 tile[1536];   // 24 KiB for a 256-thread group
RWStructuredBuffer<float4> output;

[numthreads(256, 1, 1)]
void main(uint gi : SV_GroupIndex, uint3 id : SV_DispatchThreadID)
{
    tile[gi] = output[id.x];
    GroupMemoryBarrierWithGroupSync();
    output[id.x] = tile[(gi + 1) % 1536];
}
"""
    good_example = """\
groupshared float4 tile[256];    // 4 KiB for a 256-thread group
RWStructuredBuffer<float4> output;

[numthreads(256, 1, 1)]
void main(uint gi : SV_GroupIndex, uint3 id : SV_DispatchThreadID)
{
    tile[gi] = output[id.x];
    GroupMemoryBarrierWithGroupSync();
    output[id.x] = tile[(gi + 1) % 256];
}
"""
    severity = Severity.WARNING
    tags = ("performance", "occupancy", "lds")
    precision = "high"
    references = (
        "Sebastian Aaltonen, Optimizing GPU occupancy and resource usage with large thread "
        "groups (GPUOpen, 2017)",
        "AMD GPUOpen, Occupancy explained (2024)",
        "docs/targets.md (LDS per CU/WGP, 32 KiB per group)",
    )
    options: ClassVar[Mapping[str, Option]] = {
        "min-occupancy": Option(
            float,
            0.5,
            "Report when LDS alone lets fewer than this fraction of the SIMD's wave slots be "
            "filled on the configured target (0.5: 5 of 10 on GCN, 8 of 16 on RDNA2).",
        ),
    }

    def check(self, ctx: RuleContext) -> None:
        model: Model = ctx.model
        target = resolve_target(ctx.settings.target)
        wave = target.wave_for(ctx.settings.wave_size)
        minimum = float(self.option_values["min-occupancy"])
        for entry in model.entry_points:
            if entry.stage != "compute" or entry.threads_per_group is None:
                continue
            symbols = analyze(model).groupshared(entry)
            size = groupshared_bytes(model, symbols)
            if size <= 0:
                continue
            anchor = _largest(model, symbols)
            if anchor is None:
                continue
            threads = entry.threads_per_group
            if size > D3D_MAX_GROUPSHARED:
                ctx.report(
                    anchor,
                    f"`{entry.name}` declares {_kib(size)} of groupshared memory, more than the "
                    f"32 KiB a thread group may use",
                    extra={"lds_bytes": size, "entry": entry.name},
                )
                continue
            if too_small_to_fill(entry, wave) is not None:
                continue  # the 32 KiB limit holds for any group; occupancy does not matter here
            if estimate_incomplete(model, entry):
                continue  # part of the entry is not seen (its group size, a call): no claim
            occ = occupancy(target, wave, vgprs=1, lds_bytes=size, group_threads=threads)
            wanted = max(1, int(minimum * occ.max_waves + 0.999))
            if occ.lds_waves >= wanted:
                continue
            self._report_limit(ctx, entry, anchor, occ, target, wave, threads, wanted)

    def _report_limit(
        self,
        ctx: RuleContext,
        entry: EntryPoint,
        anchor: tuple[int, int],
        occ: Occupancy,
        target: Target,
        wave: int,
        threads: int,
        wanted: int,
    ) -> None:
        unit = "CU" if target.family == "gcn" else "WGP"
        allocated = round_up(occ.lds_bytes, target.lds_granule)
        budget = max_lds_for_waves(target, wave, threads, wanted)
        advice = (
            f"keep it at or below {_kib(budget)} for {wanted} waves"
            if budget > 0
            else "use a larger group or less groupshared memory"
        )
        ctx.report(
            anchor,
            f"`{entry.name}`: {_kib(allocated)} of groupshared memory per {threads}-thread group "
            f"gives {occ.lds_waves} of {occ.max_waves} wave{wave}s per SIMD on {target.name}",
            help=advice,
            notes=[f"{occ.groups_per_cu} group(s) fit per {unit}"],
            extra={
                "entry": entry.name,
                "lds_bytes": occ.lds_bytes,
                "groups": occ.groups_per_cu,
                "waves_per_simd": occ.lds_waves,
                "target": target.name,
            },
        )


def _largest(model: Model, symbols: list[Symbol]) -> tuple[int, int] | None:
    best: Symbol | None = None
    for s in symbols:
        if best is None or s.type.bytes(model.sixteen_bit) > best.type.bytes(model.sixteen_bit):
            best = s
    if best is None:
        return None
    node = best.decl or best.node
    if node is None:
        return None
    return model.tree.span(node)
