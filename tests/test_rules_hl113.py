"""HL113: per-thread neighbourhoods fetched without groupshared staging, with the border overhead
computed from the group size and the neighbourhood."""

from __future__ import annotations

import pytest
from conftest import lint_text
from hlsllint.rules.hl113_neighbourhood_without_groupshared import overhead

BLUR = """\
Texture2D<float> src : register(t0);
RWTexture2D<float> dst : register(u0);
{extra}
[numthreads({size})]
void main(uint3 id : SV_DispatchThreadID)
{{
    float sum = 0;
    [unroll] for (int y = -{r}; y <= {r}; y++)
        [unroll] for (int x = -{r}; x <= {r}; x++)
            sum += src[int2(id.xy) + int2(x, y)];
    dst[id.xy] = sum{use};
}}
"""


def _hl113(text: str) -> list[str]:
    return [d.long_message() for d in lint_text(text, select=("HL113",))]


def _blur(size: str = "8, 8, 1", r: int = 1, extra: str = "", use: str = "") -> str:
    return BLUR.format(size=size, r=r, extra=extra, use=use)


def test_overhead_formula() -> None:
    assert overhead(8, 8, 2, 2) == pytest.approx(0.5625)  # (10*10 - 64) / 64
    assert overhead(16, 16, 2, 2) == pytest.approx(0.265625)  # (18*18 - 256) / 256
    assert overhead(8, 8, 4, 4) == pytest.approx(1.25)  # 5x5 taps: (12*12 - 64) / 64


@pytest.mark.parametrize(
    ("size", "r", "expected"),
    [
        ("8, 8, 1", 1, ("9 texels", "3×3 neighbourhood", "(radius 1)", "10×10 tile", "56% extra")),
        ("16, 16, 1", 1, ("9 texels", "18×18 tile", "27% extra")),
        ("8, 8, 1", 2, ("25 texels", "5×5 neighbourhood", "(radius 2)", "12×12 tile", "125% extra")),
        ("64, 1, 1", 1, ("66×3 tile", "209% extra")),
    ],
)
def test_message_uses_the_group_size_and_radius(size: str, r: int, expected: tuple[str, ...]) -> None:
    (msg,) = _hl113(_blur(size, r))
    for part in expected:
        assert part in msg, (part, msg)


def test_groupshared_unknown_or_single_thread_groups_are_silent() -> None:
    shared = "groupshared float cache[64];"
    assert _hl113(_blur(extra=shared, use=" + cache[0]")) == []
    assert _hl113(_blur(size="Group::Width, Group::Height, 1")) == [], "size from a header not found"
    assert _hl113(_blur(size="1, 1, 1")) == []


def test_helpers_typedefs_and_local_offset_tables() -> None:
    text = """\
typedef int2 FfxInt32x2;
Texture2D<float> depthTex : register(t0);
RWTexture2D<float> dst : register(u0);

float LoadDepth(FfxInt32x2 p) { return depthTex[p]; }

float Nearest(FfxInt32x2 pos)
{
    const int count = 9;
    const FfxInt32x2 offsets[count] = {
        FfxInt32x2(0, 0), FfxInt32x2(1, 0), FfxInt32x2(0, 1), FfxInt32x2(0, -1), FfxInt32x2(-1, 0),
        FfxInt32x2(-1, 1), FfxInt32x2(1, 1), FfxInt32x2(-1, -1), FfxInt32x2(1, -1),
    };
    float nearest = 1;
    int i = 0;
    [unroll] for (i = 0; i < count; ++i)
        nearest = min(nearest, LoadDepth(pos + offsets[i]));
    return nearest;
}

[numthreads(8, 8, 1)]
void main(int2 id : SV_DispatchThreadID)
{
    dst[id] = Nearest(id);
}
"""
    (msg,) = _hl113(text)
    assert "neighbourhood of `depthTex` (9 texels)" in msg and "56% extra" in msg


def test_runtime_step_and_strided_coordinates_are_silent() -> None:
    text = """\
Texture2D<float> src : register(t0);
RWTexture2D<float> dst : register(u0);
cbuffer C : register(b0) { int step; };
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float a = 0, b = 0;
    [unroll] for (int y = -1; y <= 1; y++)
        [unroll] for (int x = -1; x <= 1; x++)
        {
            a += src[int2(id.xy) + int2(x, y) * step];
            b += src[int2(id.xy * 2) + int2(x, y)];
        }
    dst[id.xy] = a + b;
}
"""
    assert _hl113(text) == []


def test_stores_at_neighbouring_texels_are_not_fetches() -> None:
    text = """\
RWTexture2D<float> dst : register(u0);
float Write(int2 p) { dst[p] = 1; return 0; }
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    [unroll] for (int y = -1; y <= 1; y++)
        [unroll] for (int x = -1; x <= 1; x++)
        {
            dst[int2(id.xy) + int2(x, y)] = 0;
            Write(int2(id.xy) + int2(x, y));
        }
}
"""
    assert _hl113(text) == []


def test_tile_resolution_passes_are_left_alone() -> None:
    """One texel per screen tile: the pass is 64-256x smaller than a full-screen one."""
    from conftest import FIXTURES

    from hlsllint.config import Settings
    from hlsllint.lint import lint_unit

    good = FIXTURES / "HL113" / "good_tile_resolution_pass.hlsl"
    assert not lint_unit(str(good), Settings(select=("HL113",))).diagnostics
    bad = FIXTURES / "HL113" / "bad_full_resolution_neighbour_max.hlsl"
    (d,) = lint_unit(str(bad), Settings(select=("HL113",))).diagnostics
    assert "neighbourhood of `gVelocity` (9 texels)" in d.message
