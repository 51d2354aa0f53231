"""HL112: a sample at the centre of one of the texture's own texels, inside its bounds, is a load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, find_regtruth, lint_text

from hlsllint.fix import apply_fixes

REGTRUTH = find_regtruth()


def _shader(body: str, *, guard: str = "if (any(id.xy >= size)) return;") -> str:
    return (
        "Texture2D<float4> tex : register(t0);\nSamplerState s : register(s0);\n"
        "RWTexture2D<float4> dst : register(u0);\n"
        "cbuffer C : register(b0) { float2 invSize; };\n"
        "[numthreads(8, 8, 1)]\nvoid main(uint3 id : SV_DispatchThreadID)\n{\n"
        "    uint2 size;\n    tex.GetDimensions(size.x, size.y);\n"
        f"    {guard}\n    dst[id.xy] = {body};\n}}\n"
    )


def _hl112(text: str) -> list[str]:
    return [d.long_message() for d in lint_text(text, select=("HL112",))]


def test_centre_of_own_texel_fires_with_an_unsafe_fix() -> None:
    text = _shader("tex.SampleLevel(s, (id.xy + 0.5) / float2(size), 0)")
    (diag,) = lint_text(text, select=("HL112",))
    assert "`tex[id.xy]` needs no sampler descriptor" in diag.long_message()
    assert diag.fix is not None and diag.fix.applicability.value == "unsafe"
    fixed = apply_fixes({diag.path: text}, [diag], unsafe=True)[diag.path].text
    assert "dst[id.xy] = tex[id.xy];" in fixed
    assert _hl112(fixed) == []


def test_reciprocal_size_and_enclosing_bounds_check() -> None:
    body = "tex.SampleLevel(s, (id.xy + 0.5) * (1.0 / float2(size)), 0)"
    assert len(_hl112(_shader(body, guard="if (all(id.xy < size))"))) == 1


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("tex.SampleLevel(s, (id.xy + 0.5) * invSize, 0)", "a size from a constant buffer"),
        ("tex.SampleLevel(s, id.xy / float2(size), 0)", "a texel corner"),
        ("tex.SampleLevel(s, (id.xy + 0.5) / float2(size), 1)", "another level"),
        ("tex.SampleLevel(s, (id.xy + 0.5) / float2(size.y, size.x), 0)", "width and height swapped"),
        ("tex.SampleLevel(s, (id.xy + 0.5) / float2(size), 0, int2(1, 0))", "an offset"),
        ("tex.SampleLevel(s, (id.xy - 1 + 0.5) / float2(size), 0)", "an index the check does not cover"),
    ],
)
def test_near_misses_are_silent(body: str, why: str) -> None:
    assert _hl112(_shader(body)) == [], why


def test_no_bounds_check_is_silent() -> None:
    assert _hl112(_shader("tex.SampleLevel(s, (id.xy + 0.5) / float2(size), 0)", guard="")) == []


def test_sample_in_a_pixel_shader_is_silent() -> None:
    text = """\
Texture2D<float4> tex;
SamplerState s;
float4 main(float4 pos : SV_Position) : SV_Target
{
    uint2 size;
    tex.GetDimensions(size.x, size.y);
    uint2 p = uint2(pos.xy);
    if (any(p >= size))
        discard;
    return tex.Sample(s, (p + 0.5) / float2(size));
}
"""
    assert _hl112(text) == []


@pytest.mark.skipif(
    REGTRUTH is None or not REGTRUTH.is_file(),
    reason=f"regtruth.py not found ({REGTRUTH or '../shared/tools/regtruth'}; set REGTRUTH to its path)",
)
def test_fixed_fixture_still_compiles(tmp_path: Path) -> None:
    """The unsafe fix keeps the bad fixture compiling (Slang through regtruth)."""
    path = FIXTURES / "HL112" / "bad_texel_centre_samples.hlsl"
    text = path.read_text(encoding="utf-8")
    diags = lint_text(text, select=("HL112",), path=str(path))
    fixed = apply_fixes({str(path): text}, diags, unsafe=True)[str(path)].text
    assert ".Sample" not in fixed
    out = tmp_path / "fixed.hlsl"
    out.write_text(fixed, encoding="utf-8")
    for entry in ("copyScaled", "depthToColor", "implicitLevel"):
        proc = subprocess.run(
            [sys.executable, str(REGTRUTH), str(out), "-e", entry, "-S", "comp"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if "setup" in proc.stdout + proc.stderr and proc.returncode != 0:
            pytest.skip(f"regtruth cannot run here: {proc.stderr.strip()[-200:]}")
        assert proc.returncode == 0, proc.stderr
        assert "error" not in json.loads(proc.stdout.strip().splitlines()[-1])
