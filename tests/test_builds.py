"""Build settings from compilation databases and compiler command lines (--compile-commands)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hlsllint.builds import parse_command, split_command
from hlsllint.cli import main
from hlsllint.config import Settings, Variant, build_variants
from hlsllint.lint import lint_unit

# A blur compiled as an engine builds it: the compute entry twice (horizontal and vertical
# passes, different -D), and the pixel entry once; `tone` only has the slow sign test where DXC
# compiles it for a compute stage with HLSL 2021.
BLUR = """RWStructuredBuffer<float> o;

float tone(float x)
{
#if __SHADER_TARGET_STAGE == __SHADER_STAGE_COMPUTE && __HLSL_VERSION >= 2021
    return sign(x) < 0 ? 0.0 : x;
#else
    return x;
#endif
}

[numthreads(64, 1, 1)]
void BlurCS(uint i : SV_DispatchThreadID)
{
#ifdef HORIZONTAL
    o[i] = tone(o[i + 1]);
#else
    o[i] = tone(o[i + 64]) + (sign(o[i]) < 0);
#endif
}

float4 BlurPS(float4 p : SV_Position) : SV_Target
{
    return tone(p.x);
}
"""


def lint_json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, object]]:
    main([*args, "--output-format", "json", "-j", "1"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return json.loads(out) if out.strip() else []


@pytest.fixture
def blur(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shaders").mkdir()
    (tmp_path / "shaders" / "blur.hlsl").write_text(BLUR)
    return tmp_path


def test_dxc_flags_in_both_spellings() -> None:
    argv = split_command(
        "dxc -T cs_6_6 -E Main -D A -DB=2 -D 'C=a b' -I inc -Iinc2 -enable-16bit-types -HV 2018 "
        "-Fo out.cso -Zi src/x.hlsl"
    )
    e = parse_command(argv, "/build")
    assert e is not None
    assert (e.file, e.entry, e.profile, e.stage) == ("/build/src/x.hlsl", "Main", "cs_6_6", "compute")
    assert e.defines == (("A", "1"), ("B", "2"), ("C", "a b"))
    assert e.include_dirs == ("/build/inc", "/build/inc2")
    assert e.enable_16bit_types and e.hlsl_version == 2018


def test_fxc_slangc_glslang_and_others() -> None:
    fxc = parse_command(split_command("fxc.exe /T ps_5_0 /E PSMain /D FOO=1 /Fo a.cso a.hlsl"), "/b")
    assert fxc is not None and (fxc.stage, fxc.entry, fxc.defines) == ("pixel", "PSMain", (("FOO", "1"),))
    assert fxc.predefined() == ()  # fxc defines none of DXC's macros
    slang = parse_command(split_command("slangc a.hlsl -profile cs_6_6 -entry Go -stage compute -D X"), "/b")
    assert slang is not None and (slang.stage, slang.entry, slang.defines) == ("compute", "Go", (("X", "1"),))
    glsl = parse_command(split_command("glslangValidator -D -V -S frag -e main -DX=3 -o a.spv a.hlsl"), "/b")
    assert glsl is not None and (glsl.file, glsl.stage, glsl.entry) == ("/b/a.hlsl", "pixel", "main")
    assert glsl.defines == (("X", "3"),)
    assert parse_command(["clang++", "-DX", "a.cpp"], "/b") is None


def test_dxc_predefined_macros() -> None:
    e = parse_command(split_command("dxc -T as_6_5 -E Amp a.hlsl"), "/b")
    assert e is not None
    macros = dict(e.predefined())
    assert macros["__SHADER_TARGET_STAGE"] == macros["__SHADER_STAGE_AMPLIFICATION"] == "14"
    assert macros["__SHADER_STAGE_PIXEL"] == "0" and macros["__SHADER_STAGE_COMPUTE"] == "5"
    assert (macros["__SHADER_TARGET_MAJOR"], macros["__SHADER_TARGET_MINOR"]) == ("6", "5")
    assert macros["__HLSL_VERSION"] == "2021" and macros["__DXC_VERSION_MAJOR"] == "1"
    old = parse_command(split_command("dxc -T vs_6_0 -HV 2018 a.hlsl"), "/b")
    assert old is not None and dict(old.predefined())["__HLSL_VERSION"] == "2018"


def test_compilation_database_variants(blur: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = [
        {
            "directory": "shaders",
            "file": "blur.hlsl",
            "command": "dxc -T cs_6_6 -E BlurCS -D HORIZONTAL blur.hlsl",
        },
        {
            "directory": "shaders",
            "file": "blur.hlsl",
            "command": "dxc -T cs_6_6 -E BlurCS -DVERTICAL=1 blur.hlsl",
        },
        {
            "directory": "shaders",
            "file": "blur.hlsl",
            "arguments": ["dxc", "-T", "ps_6_0", "-E", "BlurPS", "blur.hlsl"],
        },
        {"directory": "tools", "file": "main.cpp", "command": "c++ -c main.cpp"},
    ]
    (blur / "compile_commands.json").write_text(json.dumps(db))
    data = lint_json(capsys, "shaders", "--compile-commands", "compile_commands.json")
    found = sorted((d["location"]["row"], d["code"], d["variant"]) for d in data)  # type: ignore[index]
    # One finding per line and code, naming the compiles that see it. The #else branch of
    # BlurCS is preprocessed for the pixel shader too, but `-E BlurPS` does not reach BlurCS:
    # DXC drops it, and so does the finding (dead code).
    assert found == [
        (6, "HL105", "BlurCS cs_6_6 -DHORIZONTAL, BlurCS cs_6_6 -DVERTICAL"),
        (18, "HL105", "BlurCS cs_6_6 -DVERTICAL"),
    ]
    # Without the build, the code DXC compiles for compute with HLSL 2021 is not seen.
    assert [d["location"]["row"] for d in lint_json(capsys, "shaders")] == [18]  # type: ignore[index]


def test_each_variant_analyses_its_own_entry_and_stage(blur: Path) -> None:
    path = str(blur / "shaders" / "blur.hlsl")
    (blur / "cmds.txt").write_text(
        "# the engine's build log\n"
        'dxc -T ps_6_0 -E BlurPS "shaders/blur.hlsl"\n'
        "dxc -T cs_6_6 -E BlurCS -DHORIZONTAL shaders/blur.hlsl\n"
        "cl.exe /c main.cpp\n"
    )
    variants = build_variants(str(blur / "cmds.txt"), path)
    assert [(v.entry, v.stage) for v in variants] == [("BlurPS", "pixel"), ("BlurCS", "compute")]
    for v in variants:
        ctx = lint_unit(path, Settings(root=str(blur)), v).context
        assert ctx is not None
        assert [(e.name, e.stage) for e in ctx.model.entry_points] == [(v.entry, v.stage)]
    plain = lint_unit(path, Settings(root=str(blur)), Variant("x", "x", ())).context
    assert plain is not None and {e.name for e in plain.model.entry_points} == {"BlurCS", "BlurPS"}


def test_config_key_and_errors(blur: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (blur / "build.txt").write_text("dxc -T cs_6_6 -E BlurCS -D HORIZONTAL shaders/blur.hlsl\n")
    (blur / "hlsllint.toml").write_text('compile-commands = "build.txt"\n')
    data = lint_json(capsys, "shaders")
    assert [(d["location"]["row"], d["variant"]) for d in data] == [(6, "BlurCS cs_6_6 -DHORIZONTAL")]  # type: ignore[index]
    (blur / "hlsllint.toml").write_text('compile-commands = "missing.json"\n')
    assert main(["shaders"]) == 2
    assert "compile-commands" in capsys.readouterr().err
    (blur / "bad.json").write_text("[{")
    assert (
        main(
            ["shaders", "--compile-commands", "bad.json", "--isolated"]
            if False
            else ["shaders", "--compile-commands", "bad.json"]
        )
        == 2
    )
    assert "invalid JSON" in capsys.readouterr().err
