"""Setup problems come with their remedy: HL002 says where it looked and which `-I` finds the
file, HL003 on an `#error` names the macros that chose its branch, HL000 names the undefined
macro behind an unreadable region, HL005 points at the first byte that is not UTF-8."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import lint_text, run_cli


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, object]]:
    code, out, err = run_cli(capsys, "check", "--no-cache", "--output-format", "json", *args)
    assert code in (0, 1), err
    found: list[dict[str, object]] = json.loads(out)
    return found


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Shaders that include headers of another folder by name, without the `-I` for it."""
    (tmp_path / "shaders").mkdir()
    (tmp_path / "engine" / "include" / "sub").mkdir(parents=True)
    for name in ("blur", "tonemap"):
        (tmp_path / "shaders" / f"{name}.hlsl").write_text(
            '#include "common.hlsli"\n#include "sub/Color.hlsli"\n#include "generated.h"\n'
            "float f(float x) { return x; }\n",
            encoding="utf-8",
        )
    (tmp_path / "engine" / "include" / "common.hlsli").write_text("float g;\n", encoding="utf-8")
    (tmp_path / "engine" / "include" / "sub" / "color.hlsli").write_text("float h;\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_include_not_found_says_where_it_looked_and_which_dir_finds_it(
    engine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = _json(capsys, "--select", "HL002", ".")
    blur = {str(d["message"]): d for d in found if str(d["filename"]).endswith("blur.hlsl")}
    common = blur["include file 'common.hlsli' not found"]
    assert (
        common["help"]
        == 'pass `-I engine/include`, or set `include-dirs = ["engine/include"]` in hlsllint.toml'
    )
    assert common["notes"] == ["looked beside the includer (`shaders`)"]
    color = blur["include file 'sub/Color.hlsli' not found"]
    assert color["help"] == (
        "the file on disk differs only in case (`engine/include/sub/color.hlsli`): match the `#include` to it"
    )
    generated = blur["include file 'generated.h' not found"]
    assert (
        generated["help"]
        == "pass the folder that holds it with `-I DIR`, or add it to `include-dirs` in hlsllint.toml"
    )
    assert generated["notes"] == [
        "looked beside the includer (`shaders`)",
        "no file named `generated.h` under `.`",
    ]
    # The suggestion works: with it, every `common.hlsli` of the folder is found.
    again = _json(capsys, "--select", "HL002", "-I", "engine/include", ".")
    assert not [d for d in again if "common.hlsli" in str(d["message"])]
    assert len(again) == 4 and all("`engine/include`" in str(d["notes"]) for d in again)


def test_include_dirs_are_relative_to_the_config_and_its_folder_is_searched(
    engine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only `shaders/` is passed: the project's root (the config's folder) is searched too, and
    the `include-dirs` entry is written relative to it."""
    (engine / "hlsllint.toml").write_text('include-dirs = ["shaders"]\n', encoding="utf-8")
    found = _json(capsys, "--select", "HL002", "shaders/blur.hlsl")
    common = next(d for d in found if "common.hlsli" in str(d["message"]))
    assert (
        common["help"]
        == 'pass `-I engine/include`, or add "engine/include" to `include-dirs` in hlsllint.toml'
    )
    assert common["notes"] == ["looked beside the includer (`shaders`) and in the include folders `shaders`"]


def test_error_directive_names_the_macros_of_its_branch() -> None:
    text = (
        "#if defined(FFX_HLSL)\nfloat a;\n#elif defined(FFX_GLSL)\nfloat b;\n#else\n"
        '#error "define FFX_HLSL or FFX_GLSL"\n#endif\n'
        "#ifndef TILE_SIZE\n#error TILE_SIZE must be set by the build\n#endif\n"
        "#if QUALITY > 1\n#error never\n#endif\n"
    )
    first, second = (d for d in lint_text(text) if d.code == "HL003")
    assert first.help is not None and first.help.startswith(
        "define one of `FFX_HLSL`, `FFX_GLSL` as the build does"
    )
    assert "`-D FFX_HLSL=...` on the command line, `[defines]` in the config" in first.help
    assert first.notes == (
        "the `#error` is in the `#else` of `#if defined(FFX_HLSL)`: "
        "the defines the linter was given chose this branch",
    )
    assert second.help is not None and second.help.startswith(
        "define `TILE_SIZE` as the build does: `-D TILE_SIZE=...`"
    )
    assert lint_text(text, defines=(("TILE_SIZE", "8"), ("FFX_HLSL", "1"))) == []
    other = lint_text("#error unconditional\n")
    assert [(d.code, d.help) for d in other] == [("HL003", None)]


def test_unparsed_region_names_the_undefined_macro() -> None:
    text = (
        "RWStructuredBuffer<float4> gOut : register(u0);\n"
        "VK_BINDING(0, 1) ByteAddressBuffer gBuffers[] : register(t0, space1);\n"
        "float f(float x) { return x; }\n"
    )
    (d,) = [d for d in lint_text(text) if d.code == "HL000"]
    assert d.message == "The grammar cannot read this code: `VK_BINDING` is not defined"
    assert (
        d.help
        == "pass the include folder (`-I DIR`) of the header that defines `VK_BINDING`, or define it (`-D`)"
    )
    # Defined, even where the grammar still cannot read the result: not blamed.
    defined = lint_text("#define VK_BINDING(a, b) [[vk::binding(a, b)]] )\n" + text)
    assert all("VK_BINDING" not in d.message for d in defined)


def test_non_utf8_points_at_the_first_bad_byte(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "latin1.hlsl").write_bytes(b"// ok\nfloat f(float x)\n{ return x; } // caf\xe9 na\xefve\n")
    (d,) = _json(capsys, str(tmp_path / "latin1.hlsl"))
    assert d["code"] == "HL005" and d["message"] == "File is not valid UTF-8: 2 byte(s) read as U+FFFD"
    assert (d["location"], d["end_location"]) == ({"row": 3, "column": 21}, {"row": 3, "column": 22})
