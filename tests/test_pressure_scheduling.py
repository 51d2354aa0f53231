"""ACO's scheduler trading waves for memory latency (navi21 wave64, regtruth figures).

Both shaders load eleven float4 texels, keep them live together (presched_vgprs 50: 9 waves
by the demand) and then read eight more. ACO (Mesa 22.3) aims an RDNA2 wave64 shader at 9
waves at 8, so its scheduler may grow the shader to 62 VGPRs to issue loads early. When the
eight later loads are independent of the first eleven's work, they rise above it: regtruth
allocates 64 VGPRs and runs 8 waves. When each later load's address depends on the
accumulated result, none can rise: 56 VGPRs, 9 waves. With fewer texels the demand allows 12 or
16 waves and ACO aims at 10: the trade is called where the rising loads reach its ceiling.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from conftest import demand

from hlsllint.analysis.occupancy import driver_waves_per_simd, round_up
from hlsllint.commands.pressure import run_pressure
from hlsllint.config import ConfigResolver
from hlsllint.targets import resolve_target


def _shader(dependent: bool, first: int = 11, later: int = 8) -> str:
    lines = [
        "Texture2D<float4> T[32] : register(t0);",
        "RWTexture2D<float4> O : register(u0);",
        "[numthreads(64, 1, 1)]",
        "void main(uint3 id : SV_DispatchThreadID)",
        "{",
    ]
    for i in range(first):
        lines.append(f"    float4 a{i} = T[{i}][id.xy + uint2({i}, 0)];")
    lines.append("    float4 acc = 0;")
    for i in range(first):
        lines.append(f"    acc += sqrt(a{i} * a{(i + 1) % first} + acc.wxyz);")
    for i in range(later):
        coord = f"uint2(acc.x * {i + 1}, id.y)" if dependent else f"id.xy + uint2(0, {i + 1})"
        lines.append(f"    acc += sqrt(T[{first + i}][{coord}] + acc.yzwx);")
    lines += ["    O[id.xy] = acc;", "}"]
    return "\n".join(lines) + "\n"


def _waves(vgprs: int) -> int:
    t = resolve_target("navi21")
    return driver_waves_per_simd(t, 64, round_up(vgprs, t.vgpr_granule[64]))


def test_independent_later_loads_rise_and_cost_a_wave() -> None:
    # regtruth: presched_vgprs 50, vgprs 64, waves_per_simd 8
    d = demand(_shader(dependent=False))
    assert 48 <= d.max_live_vgprs <= 52
    assert _waves(d.max_live_vgprs) == 9
    assert d.scheduled_vgprs == 62  # the scheduler's ceiling at an aim of 8 waves
    assert _waves(d.scheduled_vgprs) == 8


def test_loads_whose_address_waits_on_the_work_keep_the_waves() -> None:
    # regtruth: presched_vgprs 50, vgprs 56, waves_per_simd 9
    d = demand(_shader(dependent=True))
    assert 48 <= d.max_live_vgprs <= 52
    assert d.scheduled_vgprs == d.max_live_vgprs
    assert _waves(d.scheduled_vgprs) == 9


def test_a_demand_at_sixteen_waves_aimed_at_ten_is_called_when_the_loads_fill_the_ceiling() -> None:
    # Six texels: regtruth presched_vgprs 30 (16 waves by the demand), vgprs 48, 10 waves: ACO
    # aims at 10 waves above 29 VGPRs, and the eight later loads rise until its ceiling (46).
    # The replay reaches the ceiling too, so the trade is called.
    d = demand(_shader(dependent=False, first=6))
    assert _waves(d.max_live_vgprs) == 16
    assert d.scheduled_vgprs == 46
    assert _waves(d.scheduled_vgprs) == 10


def test_twelve_waves_fall_to_ten_only_when_the_later_loads_can_rise() -> None:
    # Eight texels, eight later loads. regtruth: presched_vgprs 38 (12 waves) in both; vgprs 48,
    # 10 waves when the later loads are independent; 40 and 12 waves when they wait on the work.
    free = demand(_shader(dependent=False, first=8))
    waiting = demand(_shader(dependent=True, first=8))
    assert 36 <= free.max_live_vgprs <= 40 and _waves(free.max_live_vgprs) == 12
    assert free.scheduled_vgprs == 46 and _waves(free.scheduled_vgprs) == 10
    assert waiting.scheduled_vgprs == waiting.max_live_vgprs
    assert _waves(waiting.scheduled_vgprs) == 12


MATRIX_ROWS = """StructuredBuffer<float4> B : register(t0);
RWStructuredBuffer<float4> O : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint base = id.x * 13;
    float4x4 M0, M1, M2;
    M0[0] = B[base + 0]; M0[1] = B[base + 1]; M0[2] = B[base + 2]; M0[3] = B[base + 3];
    M1[0] = B[base + 4]; M1[1] = B[base + 5]; M1[2] = B[base + 6]; M1[3] = B[base + 7];
    M2[0] = B[base + 8]; M2[1] = B[base + 9]; M2[2] = B[base + 10]; M2[3] = B[base + 11];
    float4 p = B[base + 12];
    O[id.x] = mul(M0, p) * mul(M1, p.yzwx) + mul(M2, p.zwxy);
}
"""


def test_rows_loaded_into_a_matrix_do_not_rise_over_the_matrix() -> None:
    # regtruth: presched_vgprs 53, vgprs 56, 9 waves. Each row is written into a matrix whose
    # sixteen registers the demand counts from its first row on; in ACO the rows are the loads'
    # own registers, so a later row rising above an earlier one adds none (before: 62, 8 waves).
    d = demand(MATRIX_ROWS)
    assert 50 <= d.max_live_vgprs <= 56 and _waves(d.max_live_vgprs) == 9
    assert d.scheduled_vgprs == d.max_live_vgprs
    assert _waves(d.scheduled_vgprs) == 9


def _pressure(tmp_path: Path, text: str, output_format: str) -> str:
    f = tmp_path / "s.hlsl"
    f.write_text(text)
    out = io.StringIO()
    code = run_pressure(
        [str(f)], ConfigResolver(), out=out, target="navi21", wave=64, output_format=output_format
    )
    assert code == 0
    return out.getvalue()


def test_pressure_says_when_the_scheduler_trades_waves(tmp_path: Path) -> None:
    text = _pressure(tmp_path, _shader(dependent=False), "text")
    assert "8 of 16 waves per SIMD after scheduling; 9 by demand" in text
    assert "up to 62 VGPRs, and give up 1 wave for the latency" in text
    data = json.loads(_pressure(tmp_path, _shader(dependent=False), "json"))[0]
    assert (data["waves_per_simd"], data["demand_waves_per_simd"]) == (8, 9)
    assert data["scheduled_vgprs"] == 62
    assert data["max_live_vgprs"] == demand(_shader(dependent=False)).max_live_vgprs  # the demand stays


def test_pressure_keeps_quiet_when_the_scheduler_keeps_the_waves(tmp_path: Path) -> None:
    text = _pressure(tmp_path, _shader(dependent=True), "text")
    assert "9 of 16 waves per SIMD, limited by" in text and "after scheduling" not in text
    data = json.loads(_pressure(tmp_path, _shader(dependent=True), "json"))[0]
    assert data["waves_per_simd"] == data["demand_waves_per_simd"] == 9


def test_seven_waves_fall_to_six_only_when_the_later_loads_can_rise() -> None:
    # Fifteen texels, ten later loads. regtruth: presched_vgprs 66 (7 waves) in both; vgprs 80,
    # 6 waves when the later loads are independent, 72 and 7 waves when they wait on the work.
    free = demand(_shader(dependent=False, first=15, later=10))
    waiting = demand(_shader(dependent=True, first=15, later=10))
    assert 64 <= free.max_live_vgprs <= 68 and _waves(free.max_live_vgprs) == 7
    assert _waves(free.scheduled_vgprs) == 6
    assert waiting.scheduled_vgprs == waiting.max_live_vgprs
    assert _waves(waiting.scheduled_vgprs) == 7
