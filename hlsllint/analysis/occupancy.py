"""Occupancy: how many waves of a shader fit on one SIMD of an AMD GPU.

Given the registers one wave needs (VGPRs, SGPRs), the LDS one thread group needs and the group
size, `occupancy()` returns the waves per SIMD and the resource that limits them. The hardware
numbers are those of `hlsllint.targets` (the one table of targets; `docs/targets.md`):

* VGPRs are allocated in granules; waves = file size // rounded VGPRs, capped by the wave slots.
* SGPRs limit occupancy only on GCN (gfx6/7: 512 per SIMD in granules of 8; gfx8/9: 800 in
  granules of 16, the allocation including VCC).
* LDS belongs to the CU on GCN (64 KiB, 4 SIMDs) and to the WGP on RDNA (128 KiB in WGP mode,
  4 SIMD32s). A group may use at most 32 KiB (the D3D limit).
* A compute group's waves are allocated together, so a CU/WGP holds only whole groups: a
  1024-thread group is 16 wave64s, 4 per SIMD, and a second group needs 4 more free slots per
  SIMD (the "32 VGPRs for two groups" budget of Aaltonen's article).

Everything here is plain arithmetic on small frozen tables; no analysis state is involved.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hlsllint.semantic.queries import uses_of
from hlsllint.targets import D3D_MAX_GROUPSHARED, MAX_ADDRESSABLE_VGPRS, Target, resolve_target

if TYPE_CHECKING:
    from hlsllint.semantic import EntryPoint, Function, Model, Symbol
    from hlsllint.semantic.types import Type

Span = tuple[int, int]


def round_up(value: int, granule: int) -> int:
    return -(-value // granule) * granule


@dataclass(frozen=True)
class Occupancy:
    target: str
    wave_size: int
    waves_per_simd: int
    """Waves of this wave size that can be resident on one SIMD (the theoretical occupancy)."""
    limiter: str
    """What sets `waves_per_simd`: "vgpr", "sgpr", "lds", "group" or "waves" (nothing: the
    wave slots are full)."""
    max_waves: int
    allocated_vgprs: int
    """VGPRs rounded up to the allocation granule."""
    allocated_sgprs: int | None
    """SGPRs as allocated on GCN (with VCC, rounded to the granule); None on RDNA."""
    vgpr_waves: int
    sgpr_waves: int
    lds_waves: int
    """Waves per SIMD that the LDS allows (max_waves when the shader uses none)."""
    waves_per_group: int | None
    groups_per_cu: int | None
    """Whole groups resident per CU (GCN) or WGP (RDNA); None outside compute."""
    lds_bytes: int
    lds_over_limit: bool
    """The group declares more than the 32 KiB of groupshared memory D3D allows."""

    @property
    def fraction(self) -> float:
        return self.waves_per_simd / self.max_waves


def vgpr_waves(target: Target, wave_size: int, vgprs: int) -> int:
    """Waves per SIMD allowed by the VGPR file alone."""
    allocated = round_up(max(vgprs, 1), target.vgpr_granule[wave_size])
    return min(target.max_waves, target.vgpr_file[wave_size] // allocated)


def sgpr_waves(target: Target, allocated_sgprs: int | None) -> int:
    if allocated_sgprs is None or not target.sgpr_waves_table:
        return target.max_waves
    for limit, waves in target.sgpr_waves_table:
        if allocated_sgprs <= limit:
            return min(waves, target.max_waves)
    return target.sgpr_waves_table[-1][1]


def allocate_sgprs(target: Target, sgprs: int, *, vcc: bool = True) -> int | None:
    """SGPRs the driver allocates on GCN (VCC included); None on RDNA (fixed per wave)."""
    if target.sgpr_file is None:
        return None
    extra = 2 if vcc else 0
    return round_up(max(sgprs, 1) + extra, target.sgpr_granule)


def max_vgprs_for_waves(target: str | Target, wave_size: int, waves: int) -> int:
    """The most VGPRs a wave may use so that `waves` waves fit on a SIMD (0 if impossible)."""
    t = resolve_target(target)
    if waves <= 0:
        return MAX_ADDRESSABLE_VGPRS
    if waves > t.max_waves:
        return 0
    granule = t.vgpr_granule[wave_size]
    per_wave = t.vgpr_file[wave_size] // waves
    return min(MAX_ADDRESSABLE_VGPRS, per_wave // granule * granule)


def occupancy_steps(target: str | Target, wave_size: int) -> list[tuple[int, int]]:
    """(most VGPRs, waves per SIMD) at every VGPR occupancy step of a target, fewest VGPRs first."""
    t = resolve_target(target)
    steps: list[tuple[int, int]] = []
    for waves in range(t.max_waves, 0, -1):
        most = max_vgprs_for_waves(t, wave_size, waves)
        if most and (not steps or most > steps[-1][0]):
            steps.append((most, waves))
    return steps


def occupancy(
    target: str | Target,
    wave_size: int | None,
    vgprs: int,
    sgprs: int = 0,
    lds_bytes: int = 0,
    group_threads: int | None = None,
) -> Occupancy:
    """The theoretical occupancy of one shader on `target`.

    `vgprs`/`sgprs` are what one wave needs (before rounding); `lds_bytes` is the groupshared
    memory of one thread group; `group_threads` is the group size of a compute shader (None for
    other stages, whose waves are independent).
    """
    t = resolve_target(target)
    wave = wave_size or t.default_wave
    if wave not in t.wave_sizes:
        raise ValueError(f"{t.name} has no wave{wave} (it runs {t.wave_sizes})")

    allocated_vgprs = round_up(max(vgprs, 1), t.vgpr_granule[wave])
    by_vgpr = vgpr_waves(t, wave, vgprs)
    allocated_sgprs = allocate_sgprs(t, sgprs)
    by_sgpr = sgpr_waves(t, allocated_sgprs)

    waves_per_group: int | None = None
    groups: int | None = None
    by_lds = t.max_waves
    lds_alloc = round_up(lds_bytes, t.lds_granule) if lds_bytes > 0 else 0
    simds = t.simds_per_lds

    if group_threads is not None and group_threads > 0:
        waves_per_group = -(-group_threads // wave)
        if lds_alloc:
            lds_groups = t.lds_bytes // lds_alloc
            # The driver rounds up (regtruth, navi21 wave64: six one-wave groups per WGP give
            # 2 waves per SIMD, two SIMDs hold two of them).
            by_lds = min(t.max_waves, -(-lds_groups * waves_per_group // simds))
    elif lds_alloc:
        # Without a group size (pixel shaders, unknown): assume one wave per group.
        by_lds = min(t.max_waves, t.lds_bytes // lds_alloc // simds)

    per_simd = min(t.max_waves, by_vgpr, by_sgpr, by_lds)
    waves = per_simd
    limiter = _limiter(t.max_waves, per_simd, by_vgpr, by_sgpr, by_lds)

    if waves_per_group is not None:
        # Only whole groups are resident. Count them on the whole CU/WGP with integer arithmetic:
        # the wave slots the registers leave (S SIMDs x W waves) hold floor(S*W / wpg) groups, and
        # the unit's LDS holds floor(LDS / group LDS); the LDS-floored per-SIMD figure would
        # undercount (128 KiB / 20 KiB is 6 groups, not 4 x floor(6/4)).
        slot_waves = min(t.max_waves, by_vgpr, by_sgpr)
        groups = simds * slot_waves // waves_per_group
        if lds_alloc:
            groups = min(groups, t.lds_bytes // lds_alloc)
        grouped = min(per_simd, -(-groups * waves_per_group // simds))
        if grouped < waves:
            waves = grouped
            limiter = "group"

    return Occupancy(
        target=t.name,
        wave_size=wave,
        waves_per_simd=waves,
        limiter=limiter,
        max_waves=t.max_waves,
        allocated_vgprs=allocated_vgprs,
        allocated_sgprs=allocated_sgprs,
        vgpr_waves=by_vgpr,
        sgpr_waves=by_sgpr,
        lds_waves=by_lds,
        waves_per_group=waves_per_group,
        groups_per_cu=groups,
        lds_bytes=lds_bytes,
        lds_over_limit=lds_bytes > D3D_MAX_GROUPSHARED,
    )


def _limiter(max_waves: int, waves: int, by_vgpr: int, by_sgpr: int, by_lds: int) -> str:
    if waves >= max_waves:
        return "waves"
    if by_vgpr == waves:
        return "vgpr"
    if by_sgpr == waves:
        return "sgpr"
    return "lds"


def driver_waves_per_simd(
    target: str | Target,
    wave_size: int | None,
    allocated_vgprs: int,
    allocated_sgprs: int | None = None,
    lds_bytes: int = 0,
    group_threads: int | None = None,
) -> int:
    """RADV's own occupancy formula (`radv_get_max_waves`), which regtruth reports.

    It differs from `occupancy()` in three ways: it ignores whole-group rounding, it divides
    the LDS per SIMD by the LDS per wave rounding *up*, and it counts wave32 slots twice. Used by
    the calibration bench to compare like with like.
    """
    t = resolve_target(target)
    wave = wave_size or t.default_wave
    # RADV counts wave slots in wave64 units and doubles them for wave32
    # (`max_wave64_per_simd * (64 / wave_size)`; regtruth navi21 wave32: 32 waves at 16 VGPRs)
    slots = t.max_waves * (64 // wave) if t.family == "rdna" else t.max_waves
    vgpr_limited = t.vgpr_file[wave] // round_up(max(allocated_vgprs, 1), t.vgpr_granule[wave])
    waves = min(slots, vgpr_limited)
    if allocated_sgprs is not None and t.sgpr_waves_table:
        waves = min(waves, sgpr_waves(t, allocated_sgprs))
    if lds_bytes > 0:
        per_group = round_up(lds_bytes, t.lds_granule)
        waves_per_group = -(-(group_threads or wave) // wave)
        per_wave = per_group // waves_per_group
        if per_wave:
            lds_per_simd = t.lds_bytes // t.simds_per_lds
            waves = min(waves, -(-lds_per_simd // per_wave))
    return waves


def aco_scheduler_waves(target: str | Target, wave_size: int | None, demand_vgprs: int) -> int:
    """The waves per SIMD that ACO's scheduler (Mesa 22.3, what regtruth runs) aims for, given
    the pre-scheduling VGPR demand, in the driver's units (wave32 slots counted twice on RDNA).

    `schedule_program` keeps the count the demand allows when it is at most `5 * fac` (`fac`: the
    register file in units of 256 VGPRs: 1 on GCN, 2 for RDNA2 wave64, 3 for RDNA3 wave64, 4 and
    6 for wave32); above that a demand of 29 VGPRs or more aims at `5 * fac`, 25-28 at `6 * fac`,
    less at `7 * fac`. It then divides by `fac` and multiplies back, so an odd count of RDNA2
    wave64 falls to the even one below: regtruth navi21 wave64, NRD's
    `REBLUR_DiffuseDirectionalOcclusion_TemporalAccumulation` (presched 49 VGPRs, 9 waves by the
    demand) allocates 64 and runs 8 waves,
    `REBLUR_DiffuseSpecularSh_Blur` (65, 7 waves by the demand) 80 and 6. ACO's own workgroup and
    LDS adjustment of the count (`max_suitable_waves`) is left out: on NRD's groups with 7 KiB of
    LDS it would aim lower than regtruth allocates.
    """
    t = resolve_target(target)
    wave = wave_size or t.default_wave
    fac = max(t.vgpr_file[wave] // 256, 1)
    slots = t.max_waves * (64 // wave) if t.family == "rdna" else t.max_waves
    allowed = min(slots, t.vgpr_file[wave] // round_up(max(demand_vgprs, 1), t.vgpr_granule[wave]))
    if allowed <= 5 * fac:
        aim = allowed
    elif demand_vgprs >= 29:
        aim = 5 * fac
    elif demand_vgprs >= 25:
        aim = 6 * fac
    else:
        aim = 7 * fac
    aim = min(aim, allowed)
    return max(aim // fac, 1) * fac


def aco_scheduler_ceiling(target: str | Target, wave_size: int | None, demand_vgprs: int) -> int:
    """The most VGPRs ACO's scheduler lets a shader use after scheduling (never fewer than the
    demand): what its target wave count leaves, less two. The allocation lies between the demand
    and this ceiling rounded up to the granule; so does the occupancy regtruth reports (navi21
    wave64: a demand of 22 may grow to 30, of 29 to 46, of 49 to 62)."""
    t = resolve_target(target)
    wave = wave_size or t.default_wave
    granule = t.vgpr_granule[wave]
    aim = aco_scheduler_waves(t, wave, demand_vgprs)
    most = min(MAX_ADDRESSABLE_VGPRS, t.vgpr_file[wave] // aim // granule * granule)
    return max(demand_vgprs, most - 2)


# -- glue to the semantic model -----------------------------------------------------------------


def reachable_functions(model: Model, entry: EntryPoint) -> list[Function]:
    """The entry's function and every function it calls, directly or not (each overload), in
    the order of their definitions in the unit (`Function.calls` is a set: the order of a walk
    over it would change from run to run with the string hash seed)."""
    seen: dict[int, Function] = {}
    stack = [entry.function]
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen[id(fn)] = fn
        stack.extend(model.called_functions(fn))
    return sorted(seen.values(), key=lambda f: f.node.start_byte)


def entry_groupshared(model: Model, entry: EntryPoint) -> list[Symbol]:
    """The groupshared variables that the entry point (or a function it calls) names, in
    declaration order: a variable's uses (the model's use index) that fall in a reached body."""
    shared = model.groupshared
    if not shared:
        return []
    bodies = sorted(
        (fn.body.start_byte, fn.body.end_byte)
        for fn in reachable_functions(model, entry)
        if fn.body is not None
    )
    starts = [b[0] for b in bodies]

    def reached(use: int) -> bool:
        i = bisect_right(starts, use) - 1
        return i >= 0 and use < bodies[i][1]

    return [s for s in shared if any(reached(u.start_byte) for u in uses_of(model, s))]


def groupshared_bytes(model: Model, symbols: list[Symbol]) -> int:
    return sum(s.type.bytes(model.sixteen_bit) for s in symbols)


_GRID_SEMANTICS = frozenset({"SV_DISPATCHTHREADID", "SV_GROUPID"})


def _semantics(t: Type, sem: str | None, out: set[str]) -> None:
    if sem:
        out.add(sem.upper())
    if t.kind == "struct":
        for m in t.members:
            _semantics(m.type, m.semantic, out)


def input_semantics(entry: EntryPoint) -> set[str]:
    """The (upper-case) semantics of the entry's inputs, struct members included."""
    out: set[str] = set()
    for p in entry.function.params:
        _semantics(p.type, p.semantic, out)
    return out


def too_small_to_fill(entry: EntryPoint, wave: int) -> str | None:
    """Why occupancy does not matter for this compute entry point, or None when it may.

    A one-thread group, or a group smaller than a wave in a shader that never reads
    `SV_DispatchThreadID`/`SV_GroupID` (so each group does the same work: a setup job run as one
    group), leaves a SIMD mostly idle whatever the registers: there are not enough waves to hide
    latency with, so a warning about how many could be resident helps no one.
    """
    if entry.stage != "compute":
        return None
    threads = entry.threads_per_group
    if threads is None:
        return None
    if threads == 1:
        return "one-thread groups"
    if threads < wave and not input_semantics(entry) & _GRID_SEMANTICS:
        return f"a single {threads}-thread group"
    return None
