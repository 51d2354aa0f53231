"""The register/occupancy rules HL201-HL204 as users meet them: one finding per entry point at
the entry, the peak as a related location, no impossible figures, silence on tiny dispatches."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES, lint_text

from hlsllint.config import Settings
from hlsllint.diagnostics import Diagnostic
from hlsllint.lint import FileLoader, lint_unit

HEAVY_HEADER = """\
Buffer<float4> gSrc : register(t0);
cbuffer Params : register(b0) { uint gCount; };

float4 Heavy(uint i)
{
    float4 a0 = gSrc[i], a1 = gSrc[i + 1], a2 = gSrc[i + 2], a3 = gSrc[i + 3];
    float4 a4 = gSrc[i + 4], a5 = gSrc[i + 5], a6 = gSrc[i + 6], a7 = gSrc[i + 7];
    float4 a8 = gSrc[i + 8], a9 = gSrc[i + 9], b0 = gSrc[i + 10], b1 = gSrc[i + 11];
    float4 b2 = gSrc[i + 12], b3 = gSrc[i + 13], b4 = gSrc[i + 14], b5 = gSrc[i + 15];
    float4 b6 = gSrc[i + 16], b7 = gSrc[i + 17], b8 = gSrc[i + 18], b9 = gSrc[i + 19];
    for (uint j = 0; j < gCount; ++j)
    {
        a0 = a0 * a1 + a2; a1 = a1 * a2 + a3; a2 = a2 * a3 + a4; a3 = a3 * a4 + a5;
        a4 = a4 * a5 + a6; a5 = a5 * a6 + a7; a6 = a6 * a7 + a8; a7 = a7 * a8 + a9;
        a8 = a8 * a9 + b0; a9 = a9 * b0 + b1; b0 = b0 * b1 + b2; b1 = b1 * b2 + b3;
        b2 = b2 * b3 + b4; b3 = b3 * b4 + b5; b4 = b4 * b5 + b6; b5 = b5 * b6 + b7;
        b6 = b6 * b7 + b8; b7 = b7 * b8 + b9; b8 = b8 * b9 + a0; b9 = b9 * a0 + a1;
    }
    return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9
         + b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7 + b8 + b9;
}
"""

INCLUDER = """\
#include "heavy.hlsli"
RWStructuredBuffer<float4> gDst : register(u0);

[numthreads(64, 1, 1)]
void {name}(uint i : SV_DispatchThreadID)
{{
    gDst[i] = Heavy(i);
}}
"""


def _lint(files: dict[str, str], main: str, select: tuple[str, ...]) -> list[Diagnostic]:
    result = lint_unit(main, Settings(select=select), loader=FileLoader(files))
    assert not result.errors, result.errors
    return result.diagnostics


def test_hl201_reports_at_each_entry_with_the_peak_as_related_location() -> None:
    files = {
        "heavy.hlsli": HEAVY_HEADER,
        "a.hlsl": INCLUDER.format(name="BlurCS"),
        "b.hlsl": INCLUDER.format(name="SharpenCS"),
    }
    found = []
    for main in ("a.hlsl", "b.hlsl"):
        diags = [d for d in _lint(files, main, ("HL201",)) if d.code == "HL201"]
        assert len(diags) == 1, diags
        (d,) = diags
        # At the entry point's name in the includer, not on the header's line.
        assert d.path == main and d.start.row == 5
        name = "BlurCS" if main == "a.hlsl" else "SharpenCS"
        assert d.message.startswith(f"`{name}` peaks at ~")
        assert "of heavy.hlsli" in d.message  # where the peak is
        # The peak line is a related location (SARIF relatedLocations, LSP relatedInformation).
        assert [r.path for r in d.related] == ["heavy.hlsli"]
        assert 11 <= d.related[0].start.row <= 18
        found.append(d)
    assert found[0].key() != found[1].key()


def _spilling_shader(n: int) -> str:
    loads = "\n".join(f"    float4 v{k} = gSrc[i + {k}];" for k in range(n))
    mix = "\n".join(f"        v{k} = v{k} * v{(k + 1) % n} + v{(k + 2) % n};" for k in range(n))
    total = " + ".join(f"v{k}" for k in range(n))
    return (
        "Buffer<float4> gSrc : register(t0);\nRWStructuredBuffer<float4> gDst : register(u0);\n"
        "cbuffer P : register(b0) { uint gCount; };\n\n[numthreads(64, 1, 1)]\n"
        f"void main(uint i : SV_DispatchThreadID)\n{{\n{loads}\n"
        f"    for (uint j = 0; j < gCount; ++j)\n    {{\n{mix}\n    }}\n"
        f"    gDst[i] = {total};\n}}\n"
    )


def test_hl201_past_256_vgprs_says_spill_not_zero_waves() -> None:
    (d,) = [d for d in lint_text(_spilling_shader(72), select=("HL201",)) if d.code == "HL201"]
    assert "more than the 256 a wave can address" in d.message
    assert "scratch memory" in d.long_message()
    assert " 0 of " not in d.long_message()
    assert d.extra["spilled_vgprs"] > 0 and d.extra["max_live_vgprs"] == 256


def test_hl201_silent_on_one_thread_groups_and_single_small_groups() -> None:
    heavy = _spilling_shader(24)
    one = heavy.replace("[numthreads(64, 1, 1)]", "[numthreads(1, 1, 1)]")
    single = heavy.replace("[numthreads(64, 1, 1)]", "[numthreads(4, 1, 1)]").replace(
        "uint i : SV_DispatchThreadID", "uint i : SV_GroupIndex"
    )
    indexed = heavy.replace("[numthreads(64, 1, 1)]", "[numthreads(4, 1, 1)]")
    assert [d.code for d in lint_text(heavy, select=("HL201",))] == ["HL201"]
    assert not lint_text(one, select=("HL201",))
    assert not lint_text(single, select=("HL201",))
    # Four threads per group but many groups (it reads SV_DispatchThreadID): still reported.
    assert [d.code for d in lint_text(indexed, select=("HL201",))] == ["HL201"]


def test_hl201_fixture_message_names_entry_and_peak_line() -> None:
    path = FIXTURES / "HL201" / "bad_large_group.hlsl"
    result = lint_unit(str(path), Settings(select=("HL201",)))
    (d,) = result.diagnostics
    assert d.message.startswith("`main` peaks at ~73 VGPRs (line 18):")
    assert "only one 1024-thread group fits per WGP on rdna2 (4 of 16 wave64s per SIMD)" in d.message
    assert d.help == "two groups need at most 64 VGPRs"
    assert d.notes[0].startswith("live at the peak: `a` (4)")
    assert Path(d.related[0].path).name == "bad_large_group.hlsl" and d.related[0].start.row == 18


def test_tiny_dispatch_fixtures_fire_once_the_group_is_full() -> None:
    """The good_ fixtures of HL201-HL203 are silent only because of their group size."""
    cases = [
        ("HL201", "good_one_thread_group.hlsl", "[numthreads(1, 1, 1)]", "[numthreads(64, 1, 1)]"),
        ("HL202", "good_single_small_group.hlsl", "[numthreads(16, 1, 1)]", "[numthreads(16, 1, 1)]"),
        ("HL203", "good_one_thread_group.hlsl", "[numthreads(1, 1, 1)]", "[numthreads(64, 1, 1)]"),
    ]
    for code, name, small, full in cases:
        text = (FIXTURES / code / name).read_text()
        assert not [d for d in lint_text(text, select=(code,)) if d.code == code]
        grown = text.replace(small, full)
        if code == "HL202":  # many 16-thread groups: the shader now reads its group's id
            grown = grown.replace("uint gi : SV_GroupIndex", "uint gi : SV_GroupIndex, uint3 g : SV_GroupID")
        assert [d.code for d in lint_text(grown, select=(code,)) if d.code == code] == [code], code


def test_hl203_says_why_the_arm_looks_rare() -> None:
    path = FIXTURES / "HL203" / "bad_material_branch.hlsl"
    (d,) = lint_unit(str(path), Settings(select=("HL203",))).diagnostics
    assert "looks rarely taken: its condition tests one value (`material == 3`)" in d.long_message()
    assert "not inside a loop" in d.long_message()
    assert d.extra["why"]
    # The same arm behind a depth test is the main path, and inside a loop it is not rare.
    text = path.read_text()
    depth = text.replace("if (material == MATERIAL_COMPLEX)", "if (result.w < 1.0)")
    assert not lint_text(depth, select=("HL203",))
    in_loop = (FIXTURES / "HL203" / "good_arm_in_loop.hlsl").read_text()
    assert not lint_text(in_loop, select=("HL203",))
    hoisted = in_loop.replace("for (uint s = 0; s < gNeighbours; ++s)", "uint s = gNeighbours;")
    assert [d.code for d in lint_text(hoisted, select=("HL203",))] == ["HL203"]


# (target, LDS bytes of one 64-thread group, waves per SIMD that regtruth measured): the fixture
# bad_small_group_large_tile.hlsl with its two arrays resized (navi21 and vega10, wave64).
REGTRUTH_LDS = [
    ("rdna2", 20480, 2),
    ("rdna2", 7168, 5),
    ("rdna2", 6144, 6),
    ("rdna2", 5120, 7),
    ("rdna2", 4608, 7),
    ("gcn", 20480, 1),
    ("gcn", 4096, 4),
    ("gcn", 3584, 5),
    ("gcn", 3072, 6),
]


def test_hl202_figures_match_regtruth() -> None:
    from hlsllint.rules.hl202_lds_occupancy import max_lds_for_waves

    from hlsllint.analysis.occupancy import occupancy
    from hlsllint.targets import resolve_target

    for target, lds, waves in REGTRUTH_LDS:
        assert occupancy(target, 64, vgprs=16, lds_bytes=lds, group_threads=64).waves_per_simd == waves
    # The advised budget is the largest that reaches the wanted waves (measured: 4 KiB -> 8 waves
    # on navi21 and 4.5 KiB -> 7; 3.5 KiB -> 5 waves on vega10 and 4 KiB -> 4).
    assert max_lds_for_waves(resolve_target("rdna2"), 64, 64, 8) == 4096
    assert max_lds_for_waves(resolve_target("gcn"), 64, 64, 5) == 3584
    path = FIXTURES / "HL202" / "bad_small_group_large_tile.hlsl"
    (d,) = lint_unit(str(path), Settings(select=("HL202",))).diagnostics
    assert "20 KiB of groupshared memory per 64-thread group gives 2 of 16 wave64s per SIMD" in d.message
    assert d.help == "keep it at or below 4 KiB for 8 waves" and d.notes == ("6 group(s) fit per WGP",)
    (g,) = lint_unit(str(path), Settings(select=("HL202",), target="gcn")).diagnostics
    assert "gives 1 of 10 wave64s per SIMD on gcn" in g.message and g.notes == ("3 group(s) fit per CU",)
    assert g.help == "keep it at or below 3.5 KiB for 5 waves"


def test_hl204_names_the_values_the_wave_they_buy_and_the_error_band() -> None:
    path = FIXTURES / "HL204" / "bad_loop_carried_value.hlsl"
    (d,) = lint_unit(str(path), Settings(select=("HL204",))).diagnostics
    assert d.start.row == 12  # the entry point's name
    assert "peaks at ~72 VGPRs (line 29), 8 above the 64 that give 8 instead of 7 wave64s" in d.message
    assert "measured error is about ±7 VGPRs here" in d.long_message()
    assert "`hi`, `lo`, `sq` and `sum` (16 VGPRs together) are carried through the loop at line 23" in str(
        d.help
    )
    assert "groupshared memory" in str(d.help) and "GroupMemoryBarrier()" in str(d.help)
    assert {r.start.row for r in d.related} == {29, 14}  # the peak and the declarations
    assert d.extra["savings"] == [16] and d.extra["error_band"] == 7
    # With a budget of 0 VGPRs above the step nothing is within reach.
    strict = Settings(select=("HL204",), rule_options=(("HL204", (("max-gap", 0),)),))
    assert not lint_unit(str(path), strict).diagnostics


def test_hl204_silent_inside_the_error_band() -> None:
    """One VGPR above the step (regtruth 65 here, but ±6 on engine code): no promise."""
    for name in ("good_within_error_band.hlsl", "good_pixel_within_error_band.hlsl"):
        assert not lint_unit(str(FIXTURES / "HL204" / name), Settings(select=("HL204",))).diagnostics


def test_hl204_no_wave_promised_when_the_lds_limits_the_entry() -> None:
    """A 24 KiB tile caps the pass at 2 waves (regtruth): fewer VGPRs buy nothing."""
    path = FIXTURES / "HL204" / "good_lds_limited.hlsl"
    assert not lint_unit(str(path), Settings(select=("HL204",))).diagnostics


def test_hl204_never_parks_values_in_lds_when_that_lowers_occupancy() -> None:
    """With a 2 KiB tile, 4 KiB more per group would give 6 waves, not 8 (regtruth)."""
    path = FIXTURES / "HL204" / "bad_parking_would_cost_lds.hlsl"
    (d,) = lint_unit(str(path), Settings(select=("HL204",))).diagnostics
    assert "recompute or reload them after the loop" in d.long_message()
    assert "would take 4 KiB more per group and cost the wave in LDS occupancy" in d.long_message()
    assert "GroupMemoryBarrier" not in d.long_message()


def test_hl201_does_not_rest_on_groupshared_rows_at_the_peak() -> None:
    from hlsllint.rules.hl201_vgpr_occupancy import _without_shared_rows

    from hlsllint.analysis.pressure import EntryDemand, LiveValue
    from hlsllint.semantic import build_model
    from hlsllint.syntax import parse

    model = build_model(parse("groupshared float gs_U[16][16];\nvoid f() {}\n"))
    peak = [LiveValue("gs_U[threadIndexWithinGroup]", 64), LiveValue("packed", 2), LiveValue("gs_U[0]", 1)]
    result = EntryDemand(144, 20, (0, 1), peak, [])
    adjusted, names = _without_shared_rows(model, result)
    assert adjusted.max_live_vgprs == 80
    assert names == "`gs_U[threadIndexWithinGroup]` (64)"
    assert [v.name for v in adjusted.peak_values] == ["packed", "gs_U[0]"]
    plain = EntryDemand(144, 20, (0, 1), [LiveValue("block", 64)], [])
    assert _without_shared_rows(model, plain) == (plain, "")


def test_hl201_peak_in_a_header_is_lsp_related_information() -> None:
    from lsprotocol import types
    from pygls.workspace.position_codec import PositionCodec

    from hlsllint.server.convert import Positions, to_lsp

    files = {"heavy.hlsli": HEAVY_HEADER, "a.hlsl": INCLUDER.format(name="BlurCS")}
    result = lint_unit("a.hlsl", Settings(select=("HL201",)), loader=FileLoader(files))
    (d,) = result.diagnostics
    codec = PositionCodec(types.PositionEncodingKind.Utf16)
    lsp = to_lsp(d, Positions(result.sources["a.hlsl"], codec), result.sources)
    assert lsp.range.start.line == 4  # `BlurCS` on row 5
    (info,) = lsp.related_information or []
    assert info.location.uri.endswith("heavy.hlsli")
    assert info.location.range.start.line == d.related[0].start.row - 1
    assert "VGPRs live here" in info.message


def test_hl201_silent_just_past_a_step_inside_the_error_band() -> None:
    """69 VGPRs estimated, 5 past the step of 64: the 9% band (7 VGPRs) covers it."""
    path = FIXTURES / "HL201" / "good_within_error_band.hlsl"
    assert not lint_unit(str(path), Settings(select=("HL201",))).diagnostics
    # well past the step (HL204's fixture, 72 estimated and measured) it is still reported
    (d,) = lint_unit(
        str(FIXTURES / "HL204" / "bad_loop_carried_value.hlsl"), Settings(select=("HL201",))
    ).diagnostics
    assert "~72 VGPRs" in d.message and "7 of 16 wave64s" in d.message
