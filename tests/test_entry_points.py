"""Which functions are entry points: attributes and signatures first, then the config's
`entry-points`, then names; never a helper (issue 9, point 7)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from hlsllint.commands.pressure import run_pressure
from hlsllint.config import ConfigResolver, Settings
from hlsllint.lint import FileLoader, front_end
from hlsllint.semantic import build_model
from hlsllint.semantic.entries import looks_like_entry_name, stage_from_name

DATA = Path(__file__).parent / "data" / "entries"


def _entries(path: Path, settings: Settings | None = None) -> list[tuple[str, str]]:
    s = settings or Settings()
    load = FileLoader()
    pp, tree = front_end(load(str(path)), s, None, load)
    del pp
    model = build_model(tree, s.analysis)
    return [(e.name, e.stage) for e in model.entry_points]


def test_signatures_pick_entries_and_skip_helpers() -> None:
    assert _entries(DATA / "helpers_and_entries.hlsl") == [
        ("AlphaTestPS", "pixel"),
        ("FullscreenVS", "vertex"),
        ("LegacyPS", "pixel"),
        ("ClearCS", "compute"),
    ]


def test_a_helper_returning_a_position_struct_is_not_a_vertex_shader(tmp_path: Path) -> None:
    """A header helper that returns a struct holding `SV_POSITION` but takes a parameter without
    a semantic cannot be compiled as an entry point (DXC and FXC require a semantic on every
    parameter of one), so a unit that includes it without calling it has only its own entry
    points; a vertex shader with the same result and semantic-carrying parameters stays one."""
    shader = tmp_path / "s.hlsl"
    shader.write_text(
        "struct V { float4 position : SV_POSITION; float2 uv : TEXCOORD0; };\n"
        "V to_clip(V v, float3 position, uint view = 0) { v.position = float4(position, view); return v; }\n"
        "V from_world(float3 p, inout float3 world)\n"
        "{ V v; v.position = float4(p + world, 1); v.uv = 0; return v; }\n"
        "V main_vs(float3 p : POSITION, uint id : SV_VertexID)\n"
        "{ V v; v.position = float4(p, id); v.uv = 0; return v; }\n"
        "RWTexture2D<float4> o;\n"
        "[numthreads(8, 8, 1)] void main_cs(uint2 i : SV_DispatchThreadID) { o[i] = 1; }\n"
    )
    assert _entries(shader) == [("main_vs", "vertex"), ("main_cs", "compute")]


def test_names_when_nothing_else_says() -> None:
    assert _entries(DATA / "names_only.hlsl") == [("main", "unknown")]


def test_config_entry_list_adds_a_named_function() -> None:
    s = Settings(entry_points=("Unpack",))
    names = [n for n, _ in _entries(DATA / "helpers_and_entries.hlsl", s)]
    assert "Unpack" in names and "Shade" not in names


@pytest.mark.parametrize(
    ("name", "stage", "entry_like"),
    [
        ("main", None, True),
        ("PSMain", "pixel", True),
        ("GBufferPS", "pixel", True),
        ("main_vs", "vertex", True),
        ("CS", "compute", True),
        ("ComputeLighting", None, False),
        ("AsFloat", None, False),
        ("GetBaseVertex", None, False),
    ],
)
def test_entry_names(name: str, stage: str | None, entry_like: bool) -> None:
    assert stage_from_name(name) == stage
    assert looks_like_entry_name(name) is entry_like


def test_pressure_reports_each_entry_not_helpers() -> None:
    out = io.StringIO()
    code = run_pressure(
        [str(DATA / "helpers_and_entries.hlsl")], ConfigResolver(), output_format="json", out=out
    )
    assert code == 0
    reported = [d["entry"] for d in json.loads(out.getvalue())]
    assert reported == ["AlphaTestPS", "FullscreenVS", "LegacyPS", "ClearCS"]


def test_entry_points_config_key(tmp_path: Path) -> None:
    (tmp_path / "hlsllint.toml").write_text('entry-points = ["Unpack"]\n')
    shader = tmp_path / "s.hlsl"
    shader.write_text((DATA / "helpers_and_entries.hlsl").read_text())
    assert ConfigResolver().for_path(str(shader)).entry_points == ("Unpack",)


def test_pressure_takes_the_builds_entry_points(tmp_path: Path) -> None:
    shader = tmp_path / "s.hlsl"
    shader.write_text((DATA / "helpers_and_entries.hlsl").read_text())
    # The build compiles a function nothing else marks as an entry point, as a pixel shader.
    (tmp_path / "build.txt").write_text(
        "dxc -T ps_6_0 -E Unpack s.hlsl\ndxc -T vs_6_0 -E FullscreenVS s.hlsl\n"
    )
    resolver = ConfigResolver(overrides={"compile_commands": str(tmp_path / "build.txt")})
    out = io.StringIO()
    assert run_pressure([str(shader)], resolver, output_format="json", out=out) == 0
    reported = [(d["entry"], d["stage"]) for d in json.loads(out.getvalue())]
    assert reported == [("Unpack", "pixel"), ("FullscreenVS", "vertex")]


def test_effect_techniques_name_the_entries_and_their_stages() -> None:
    # the passes compile TransformVS and Shade, at the stages of their profiles; DebugVS has an
    # entry point's signature but no pass compiles it
    assert _entries(DATA / "effect_techniques.fx") == [("TransformVS", "vertex"), ("Shade", "pixel")]
