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
    assert "`tex.Load(int3(id.xy, 0))` needs no sampler descriptor" in diag.long_message()
    assert diag.fix is not None and diag.fix.applicability.value == "unsafe"
    fixed = apply_fixes({diag.path: text}, [diag], unsafe=True)[diag.path].text
    assert "dst[id.xy] = tex.Load(int3(id.xy, 0));" in fixed
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


def test_thread_pixel_needs_no_bounds_check_but_an_offset_index_does() -> None:
    """Lanes past the edge at the thread's own pixel come from a rounded-up dispatch; an index
    with an offset leaves the texture at its border, where the sampler clamps and Load gives 0."""
    assert len(_hl112(_shader("tex.SampleLevel(s, (id.xy + 0.5) / float2(size), 0)", guard=""))) == 1
    offset = "tex.SampleLevel(s, (int2(id.xy) - 1 + 0.5) / float2(size), 0)"
    assert _hl112(_shader(offset, guard="")) == []


def _point(uv: str, *, level: str = "0", sampler: str = "pointClamp", tex: str = "tex") -> str:
    coord = "float3(uv, 1)" if tex == "sky" else "uv"
    return (
        "Texture2D<float4> tex : register(t0);\nTextureCube<float4> sky : register(t1);\n"
        f"SamplerState {sampler} : register(s0);\nRWTexture2D<float4> dst : register(u0);\n"
        "cbuffer C : register(b0) { float2 invSize; float2 size; float lod; };\n"
        "[numthreads(8, 8, 1)]\nvoid main(uint3 id : SV_DispatchThreadID)\n{\n"
        f"    float2 uv = {uv};\n"
        f"    dst[id.xy] = {tex}.SampleLevel({sampler}, {coord}, {level});\n}}\n"
    )


@pytest.mark.parametrize(
    "uv", ["(id.xy + 0.5) * invSize", "(float2(id.xy) + 0.5f) / size", "(id.xy + 0.5) * rcp(size)"]
)
def test_point_sampler_at_texel_centres_of_an_application_size(uv: str) -> None:
    """Issue 22's miss: `SampleLevel(point, (px + 0.5) * invSize, 0)` is `Load(int3(px, 0))` when
    the size is the texture's; the message says so and offers no automatic fix."""
    (diag,) = lint_text(_point(uv), select=("HL112",))
    text = diag.long_message()
    assert "`tex.Load(int3(id.xy, 0))`" in text and "is the application's" in text
    assert diag.fix is None


@pytest.mark.parametrize(
    ("uv", "kw", "why"),
    [
        ("id.xy * invSize", {}, "a texel corner: bilinear filtering between texels"),
        ("(id.xy + 1.0) * invSize", {}, "a shifted coordinate, not a centre"),
        ("(id.xy + 0.5) * invSize", {"level": "1"}, "another level"),
        ("(id.xy + 0.5) * invSize", {"level": "lod"}, "a level set at run time"),
        ("(id.xy + 0.5) * invSize", {"tex": "sky"}, "a cube map cannot be loaded"),
        ("(id.xy + 0.5) * invSize", {"sampler": "linearClamp"}, "a linear sampler: a downsample"),
    ],
)
def test_point_sampler_near_misses(uv: str, kw: dict[str, str], why: str) -> None:
    assert _hl112(_point(uv, **kw)) == [], why


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
    assert fixed.count(".Load(int3(") == 4
    out = tmp_path / "fixed.hlsl"
    out.write_text(fixed, encoding="utf-8")
    for entry in ("copyScaled", "depthToColor", "implicitLevel", "unchecked"):
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


_PIXEL = """\
Texture2D<float4> tex : register(t0);
SamplerState pointClamp : register(s0);
SamplerState linearClamp : register(s1);
cbuffer C : register(b0) { float2 invSize; };
struct In { float4 position : SV_Position; };
float4 main(MODIFIER float4 pos : SV_Position, In input) : SV_Target
{
    return tex.SampleLevel(SAMPLER, UV, 0);
}
"""


@pytest.mark.parametrize(
    "uv", ["pos.xy * invSize", "input.position.xy * invSize", "pos.xy / (1.0 / invSize)"]
)
def test_pixel_position_is_a_texel_centre(uv: str) -> None:
    """A pixel shader's SV_Position.xy is `px + 0.5` already."""
    text = _PIXEL.replace("MODIFIER ", "").replace("SAMPLER", "pointClamp").replace("UV", uv)
    (diag,) = lint_text(text, select=("HL112",))
    assert "`tex.Load(int3(int2(" in diag.long_message()


@pytest.mark.parametrize(
    ("modifier", "sampler", "uv", "why"),
    [
        ("", "pointClamp", "(pos.xy + 0.5) * invSize", "half a texel off the centre"),
        ("", "linearClamp", "pos.xy * invSize", "a linear sampler: an upsample"),
        ("sample ", "pointClamp", "pos.xy * invSize", "the sample's position, not the centre"),
    ],
)
def test_pixel_position_near_misses(modifier: str, sampler: str, uv: str, why: str) -> None:
    text = _PIXEL.replace("MODIFIER ", modifier).replace("SAMPLER", sampler).replace("UV", uv)
    assert _hl112(text) == [], why
