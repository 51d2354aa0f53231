"""Pixel-shader inputs: what the hardware preloads and what interpolation keeps live (navi21
wave64, regtruth presched_vgprs)."""

from __future__ import annotations

import pytest
from conftest import demand

TWO_SAMPLES = """
{decl}
Texture2D t0 : register(t0);
Texture2D t1 : register(t1);
SamplerState s : register(s0);
float4 main(float2 uv : TEXCOORD0{param}) : SV_Target {{
    float4 a = t0.Sample(s, uv);
    float4 b = t1.Sample(s, uv * 2);
    return a * b * {use};
}}
"""


def test_an_interpolated_input_read_late_keeps_the_barycentrics_live() -> None:
    # The input is interpolated where it is read, so the barycentric i/j stay live across both
    # samples. regtruth navi21: presched_vgprs 10 (8 without the input).
    d = demand(TWO_SAMPLES.format(decl="", param=", float4 c : TEXCOORD1", use="c"))
    assert d.max_live_vgprs == 10


@pytest.mark.parametrize(
    ("decl", "param", "use"),
    [
        ("", ", nointerpolation float4 c : TEXCOORD1", "c"),
        ("", ", uint c : COLOR0", "float(c)"),
        ("", ", int2 c : COLOR0", "float(c.x + c.y)"),
        ("struct F { nointerpolation float4 c : TEXCOORD1; };", ", F f", "f.c"),
    ],
    ids=["nointerpolation", "uint", "int2", "nointerpolation-member"],
)
def test_a_flat_input_read_late_needs_no_barycentrics(decl: str, param: str, use: str) -> None:
    # A flat input (declared nointerpolation, or an integer, which is never interpolated) is
    # read from the parameter cache as it is (v_interp_mov): the i/j die after the samples'
    # coordinates. regtruth navi21: presched_vgprs 8 for each (as without the input); 10 when
    # flat inputs read the barycentrics too.
    d = demand(TWO_SAMPLES.format(decl=decl, param=param, use=use))
    assert d.max_live_vgprs == 8
