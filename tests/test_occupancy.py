"""The occupancy model against every row of the target tables (docs/targets.md, from hlsllint.targets)."""

from __future__ import annotations

import pytest

from hlsllint.analysis.occupancy import driver_waves_per_simd, max_vgprs_for_waves, occupancy, sgpr_waves

# (target, wave, "≤N:waves, ..." exactly as the document lists them)
from hlsllint.targets import D3D_MAX_GROUPSHARED, UnknownTarget, resolve_target

# (target, wave, "≤N:waves, ..." exactly as the document lists them)
VGPR_TABLES = [
    ("gcn", 64, "≤24:10, ≤28:9, ≤32:8, ≤36:7, ≤40:6, ≤48:5, ≤64:4, ≤84:3, ≤128:2, ≤256:1"),
    ("gfx6", 64, "≤24:10, ≤28:9, ≤32:8, ≤36:7, ≤40:6, ≤48:5, ≤64:4, ≤84:3, ≤128:2, ≤256:1"),
    (
        "rdna1",
        64,
        "≤24:20, ≤28:18, ≤32:16, ≤36:14, ≤40:12, ≤44:11, ≤48:10, ≤56:9, ≤64:8, "
        "≤72:7, ≤84:6, ≤100:5, ≤128:4, ≤168:3, ≤256:2",
    ),
    (
        "rdna1",
        32,
        "≤48:20, ≤56:18, ≤64:16, ≤72:14, ≤80:12, ≤88:11, ≤96:10, ≤112:9, ≤128:8, "
        "≤144:7, ≤168:6, ≤200:5, ≤256:4",
    ),
    (
        "rdna2",
        64,
        "≤32:16, ≤40:12, ≤48:10, ≤56:9, ≤64:8, ≤72:7, ≤80:6, ≤96:5, ≤128:4, ≤168:3, ≤256:2",
    ),
    ("rdna2", 32, "≤64:16, ≤80:12, ≤96:10, ≤112:9, ≤128:8, ≤144:7, ≤160:6, ≤192:5, ≤256:4"),
    (
        "rdna3",
        64,
        "≤48:16, ≤60:12, ≤72:10, ≤84:9, ≤96:8, ≤108:7, ≤120:6, ≤144:5, ≤192:4, ≤252:3, ≤256:2",
    ),
    ("rdna3", 32, "≤96:16, ≤120:12, ≤144:10, ≤168:9, ≤192:8, ≤216:7, ≤240:6, ≤256:5"),
]


def _rows(table: str) -> list[tuple[int, int, int]]:
    """(previous limit, limit, waves) for each step of a table."""
    out = []
    prev = 0
    for item in table.split(","):
        limit, waves = item.strip().lstrip("≤").split(":")
        out.append((prev, int(limit), int(waves)))
        prev = int(limit)
    return out


VGPR_ROWS = [
    pytest.param(t, w, lo, hi, waves, id=f"{t}-w{w}-le{hi}")
    for t, w, table in VGPR_TABLES
    for lo, hi, waves in _rows(table)
]


@pytest.mark.parametrize(("target", "wave", "low", "high", "waves"), VGPR_ROWS)
def test_vgpr_table_row(target: str, wave: int, low: int, high: int, waves: int) -> None:
    # Every VGPR count of the step gives the step's waves, and one more gives fewer.
    assert occupancy(target, wave, high).waves_per_simd == waves
    assert occupancy(target, wave, low + 1).waves_per_simd == waves
    if high < 256:
        assert occupancy(target, wave, high + 1).waves_per_simd < waves
    occ = occupancy(target, wave, high)
    assert occ.limiter == ("waves" if waves == occ.max_waves else "vgpr")


@pytest.mark.parametrize(
    ("target", "wave", "vgprs", "allocated"),
    [
        ("gcn", 64, 1, 4),
        ("gcn", 64, 21, 24),
        ("rdna1", 64, 21, 24),
        ("rdna1", 32, 21, 24),
        ("rdna2", 64, 20, 24),
        ("rdna2", 32, 20, 32),
        ("rdna3", 64, 8, 12),
        ("rdna3", 32, 25, 48),
    ],
)
def test_vgpr_granules(target: str, wave: int, vgprs: int, allocated: int) -> None:
    assert occupancy(target, wave, vgprs).allocated_vgprs == allocated


# GCN SGPR steps (allocated SGPRs, VCC included): gfx6/7 and gfx8/9.
SGPR_ROWS = [
    ("gfx6", "≤48:10, ≤56:9, ≤64:8, ≤72:7, ≤80:6, ≤104:5"),
    ("gcn", "≤80:10, ≤88:9, ≤100:8, ≤104:7"),
]


@pytest.mark.parametrize(
    ("target", "low", "high", "waves"),
    [pytest.param(t, lo, hi, w, id=f"{t}-le{hi}") for t, table in SGPR_ROWS for lo, hi, w in _rows(table)],
)
def test_sgpr_table_row(target: str, low: int, high: int, waves: int) -> None:
    t = resolve_target(target)
    assert sgpr_waves(t, high) == waves
    assert sgpr_waves(t, low + 1) == waves
    if high < 104:
        assert sgpr_waves(t, high + 1) < waves


@pytest.mark.parametrize(
    ("target", "sgprs", "allocated", "waves"),
    [
        # The driver adds VCC (2) and rounds to the granule (16 on gfx8/9, 8 on gfx6/7).
        ("gcn", 22, 32, 10),
        ("gcn", 78, 80, 10),
        ("gcn", 79, 96, 8),
        ("gcn", 100, 112, 7),
        ("gfx6", 22, 24, 10),
        ("gfx6", 54, 56, 9),
        ("gfx6", 80, 88, 5),
    ],
)
def test_sgpr_allocation(target: str, sgprs: int, allocated: int, waves: int) -> None:
    occ = occupancy(target, 64, vgprs=4, sgprs=sgprs)
    assert occ.allocated_sgprs == allocated
    assert occ.waves_per_simd == waves
    if waves < 10:
        assert occ.limiter == "sgpr"


def test_sgprs_never_limit_rdna() -> None:
    occ = occupancy("rdna2", 64, vgprs=8, sgprs=106)
    assert occ.allocated_sgprs is None
    assert occ.waves_per_simd == 16


def test_polaris_has_eight_wave_slots() -> None:
    # regtruth: matrix_raw (8 VGPRs) gets 8 waves on polaris10 and 10 on vega10.
    assert occupancy("polaris10", 64, 8, 22).waves_per_simd == 8
    assert occupancy("vega10", 64, 8, 22).waves_per_simd == 10


@pytest.mark.parametrize(
    ("chip", "target"),
    [
        ("navi21", "rdna2"),
        ("navi10", "rdna1"),
        ("polaris10", "polaris"),
        ("vega10", "gcn"),
        ("gfx1100", "rdna3"),
        ("gfx1102", "rdna2"),
        ("tahiti", "gfx6"),
        ("gfx9", "gcn"),
        ("GFX1030", "rdna2"),
    ],
)
def test_chip_names(chip: str, target: str) -> None:
    assert resolve_target(chip).name == target


def test_unknown_target() -> None:
    with pytest.raises(UnknownTarget):
        resolve_target("gfx12")
    with pytest.raises(ValueError):
        occupancy("gcn", 32, 16)


def test_two_1024_thread_groups_need_32_vgprs_on_gcn() -> None:
    # Aaltonen: a 1024-thread group is 16 wave64s, 4 per SIMD; two groups per CU need ≤32 VGPRs.
    two = occupancy("gcn", 64, vgprs=32, group_threads=1024, lds_bytes=D3D_MAX_GROUPSHARED)
    assert two.groups_per_cu == 2
    assert two.waves_per_simd == 8
    one = occupancy("gcn", 64, vgprs=40, group_threads=1024)
    assert one.groups_per_cu == 1
    assert one.waves_per_simd == 4  # 40% of 10
    assert one.limiter == "group"
    assert one.vgpr_waves == 6


def test_lds_limits_groups() -> None:
    # 24 KiB per 256-thread group on GCN: two groups per CU (64 KiB), 8 waves, 2 per SIMD.
    occ = occupancy("gcn", 64, vgprs=16, lds_bytes=24 * 1024, group_threads=256)
    assert occ.groups_per_cu == 2
    assert occ.waves_per_simd == 2
    assert occ.limiter == "lds"
    # The same group on RDNA2 (128 KiB per WGP): five groups, 20 wave64s over 4 SIMDs.
    occ = occupancy("rdna2", 64, vgprs=16, lds_bytes=24 * 1024, group_threads=256)
    assert occ.groups_per_cu == 5
    assert occ.waves_per_simd == 5
    assert not occ.lds_over_limit
    assert occupancy("gcn", 64, 16, lds_bytes=40 * 1024, group_threads=64).lds_over_limit


def test_lds_groups_counted_on_the_whole_wgp() -> None:
    # fixtures/HL202/bad_small_group_large_tile.hlsl: 20 KiB per 64-thread group on RDNA2 wave64.
    # 128 KiB // 20 KiB = 6 groups per WGP (not 4 x floor(6 / 4) = 4); 6 one-wave groups over
    # 4 SIMDs put 2 waves on the busiest SIMD, which is what regtruth (RADV, navi21) reports.
    occ = occupancy("rdna2", 64, vgprs=11, lds_bytes=20 * 1024, group_threads=64)
    assert occ.groups_per_cu == 6
    assert occ.waves_per_simd == 2
    assert occ.limiter == "lds"
    # 4 KiB: 32 groups fit the LDS, the 16 wave slots x 4 SIMDs hold 64 one-wave groups.
    assert occupancy("rdna2", 64, vgprs=11, lds_bytes=4 * 1024, group_threads=64).groups_per_cu == 32


def test_max_vgprs_for_waves() -> None:
    assert max_vgprs_for_waves("gcn", 64, 8) == 32
    assert max_vgprs_for_waves("rdna2", 64, 16) == 32
    assert max_vgprs_for_waves("rdna3", 32, 12) == 120
    assert max_vgprs_for_waves("gcn", 64, 11) == 0


def test_driver_formula_matches_radv_lds_rounding() -> None:
    # 1024 threads with 32 KiB: 2 KiB per wave, 16 KiB per SIMD on GCN -> 8 waves.
    assert driver_waves_per_simd("gcn", 64, 24, 32, 32 * 1024, 1024) == 8
    # The driver formula ignores whole-group rounding.
    assert driver_waves_per_simd("gcn", 64, 40, 32, 0, 1024) == 6


def test_driver_formula_counts_wave32_slots_twice_on_rdna() -> None:
    # regtruth navi21 wave32 reports 32 waves/SIMD at 16 VGPRs and 21 at 48 (1024 / 48);
    # wave64: 16 at 16 VGPRs, 12 at 40.
    from hlsllint.analysis.occupancy import driver_waves_per_simd

    assert driver_waves_per_simd("navi21", 32, 16) == 32
    assert driver_waves_per_simd("navi21", 32, 48) == 21
    assert driver_waves_per_simd("navi21", 64, 16) == 16
    assert driver_waves_per_simd("navi21", 64, 40) == 12


def test_aco_scheduler_floors_an_odd_rdna2_wave64_count_to_even() -> None:
    # ACO's scheduler divides its target by the register file's 256-VGPR units (2 on RDNA2
    # wave64) and multiplies back. regtruth navi21 wave64 (NRD, cs_6_5): presched 49 VGPRs and
    # 51 (9 waves by the demand) allocated 64, 8 waves; presched 65 (7 waves) allocated 80, 6
    # waves. The old window kept 9 and 7 and missed them.
    from hlsllint.analysis.occupancy import aco_scheduler_ceiling, aco_scheduler_waves

    assert aco_scheduler_waves("navi21", 64, 51) == 8
    assert aco_scheduler_ceiling("navi21", 64, 51) == 62
    assert driver_waves_per_simd("navi21", 64, 64) == 8
    assert aco_scheduler_waves("navi21", 64, 65) == 6
    assert aco_scheduler_ceiling("navi21", 64, 65) == 78
    assert driver_waves_per_simd("navi21", 64, 80) == 6
    assert aco_scheduler_waves("navi21", 64, 49) == 8
    # An even count stays: presched 47 (10 waves) allocated 48, the ceiling is the demand.
    assert aco_scheduler_waves("navi21", 64, 47) == 10
    assert aco_scheduler_ceiling("navi21", 64, 47) == 47


def test_aco_scheduler_aims_at_five_units_above_29_vgprs() -> None:
    # Above 5 units of waves the scheduler aims at 5 (demand >= 29), 6 (25-28) or 7 (less).
    # regtruth navi21 wave64: presched 29 VGPRs (16 waves by the demand) allocated 48, 10 waves;
    # presched 22 allocated 32 (ceiling 30), 16 waves. wave32 (4 units): presched 39 allocated
    # 48, 21 waves (the target of 20 leaves 48 VGPRs, which still give 21).
    from hlsllint.analysis.occupancy import aco_scheduler_ceiling, aco_scheduler_waves

    assert aco_scheduler_waves("navi21", 64, 29) == 10
    assert aco_scheduler_ceiling("navi21", 64, 29) == 46
    assert aco_scheduler_ceiling("navi21", 64, 22) == 30
    assert aco_scheduler_waves("navi21", 32, 39) == 20
    assert driver_waves_per_simd("navi21", 32, aco_scheduler_ceiling("navi21", 32, 39) + 2) == 21
    # A demand past what any target leaves is the ceiling itself.
    assert aco_scheduler_ceiling("navi21", 64, 255) == 255
