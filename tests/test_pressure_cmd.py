"""`hlsllint pressure`: per-line counts mapped to original rows, the peak, JSON fields."""

from __future__ import annotations

import ast
import io
import json
import re
import time
from pathlib import Path

import pytest

import hlsllint.commands.pressure
import hlsllint.output
from hlsllint import deadline
from hlsllint.cli import build_parser, main
from hlsllint.commands.pressure import run_pressure
from hlsllint.config import ConfigResolver
from hlsllint.lint import FileLoader
from hlsllint.source import SourceFile

SHADER = """\
Buffer<float4> src : register(t0);
RWStructuredBuffer<float4> dst : register(u0);
cbuffer P : register(b0) { uint count; };

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float4 a = src[i], b = src[i + 1], c = src[i + 2], d = src[i + 3];
    for (uint j = 0; j < count; ++j)
    {
        a = a * b + c; b = b * c + d; c = c * d + a; d = d * a + b;
    }
    dst[i] = a + b + c + d;
}

[numthreads(1024, 1, 1)]
void small(uint i : SV_DispatchThreadID)
{
    dst[i] = src[i];
}
"""


def _run(paths: list[str], **kw: object) -> tuple[int, str]:
    out = io.StringIO()
    code = run_pressure(paths, ConfigResolver(), out=out, **kw)  # type: ignore[arg-type]
    return code, out.getvalue()


def test_json_fields_and_rows(tmp_path: Path) -> None:
    f = tmp_path / "s.hlsl"
    f.write_text(SHADER)
    code, text = _run([str(f)], output_format="json", target="gcn")
    assert code == 0
    data = json.loads(text)
    assert [d["entry"] for d in data] == ["main", "small"]
    main = data[0]
    for key in (
        "filename",
        "stage",
        "target",
        "wave_size",
        "max_live_vgprs",
        "max_live_sgprs",
        "allocated_vgprs",
        "waves_per_simd",
        "limiter",
        "peak",
        "lines",
    ):
        assert key in main
    assert main["stage"] == "compute" and main["target"] == "gcn" and main["wave_size"] == 64
    # Four float4 live across the loop: at least 16 VGPRs, and the loop rows carry them.
    assert main["max_live_vgprs"] >= 16
    assert main["allocated_vgprs"] % 4 == 0 and main["allocated_vgprs"] >= main["max_live_vgprs"]
    rows = {int(r): v["vgprs"] for r, v in main["lines"].items()}
    assert rows[11] >= 16
    assert 8 <= main["peak"]["row"] <= 13
    names = {v["name"] for v in main["peak"]["values"]}
    assert {"a", "b", "c", "d"} & names
    assert data[1]["max_live_vgprs"] < main["max_live_vgprs"]


def test_entry_filter_and_missing_entry(tmp_path: Path) -> None:
    f = tmp_path / "s.hlsl"
    f.write_text(SHADER)
    code, text = _run([str(f)], output_format="json", entry="small")
    assert code == 0
    assert [d["entry"] for d in json.loads(text)] == ["small"]
    code, _ = _run([str(f)], output_format="json", entry="nope")
    assert code == 1


def test_rows_map_through_includes(tmp_path: Path) -> None:
    (tmp_path / "body.hlsli").write_text(
        "float4 Work(float4 a, float4 b)\n{\n    return a * b + a.yzwx;\n}\n"
    )
    f = tmp_path / "main.hlsl"
    f.write_text(
        '#include "body.hlsli"\nBuffer<float4> src;\nRWStructuredBuffer<float4> dst;\n\n'
        "[numthreads(64, 1, 1)]\nvoid main(uint i : SV_DispatchThreadID)\n{\n"
        "    dst[i] = Work(src[i], src[i + 1]);\n}\n"
    )
    code, text = _run([str(f)], output_format="json")
    assert code == 0
    (main,) = json.loads(text)
    assert "8" in main["lines"]  # the call row in main.hlsl
    included = main["included_lines"]
    assert any(p.endswith("body.hlsli") and "3" in rows for p, rows in included.items())


def test_text_output_gutter_and_occupancy(tmp_path: Path) -> None:
    f = tmp_path / "s.hlsl"
    f.write_text(SHADER)
    code, text = _run([str(f)], entry="main", target="rdna2", wave=32)
    assert code == 0
    assert "wave32" in text and "◀ peak" in text
    assert "waves per SIMD" in text and "limited by" in text
    loop_line = next(line for line in text.splitlines() if "a = a * b + c" in line)
    assert loop_line.split("│")[0].split()[0].isdigit()


def test_unreadable_file(tmp_path: Path) -> None:
    code, _ = _run([str(tmp_path / "missing.hlsl")])
    assert code == 2


# What only a command does: find files, read the config, set the exit status.
COMMAND_MODULES = {"hlsllint.config", "hlsllint.discovery", "hlsllint.driver", "hlsllint.lint", "sys"}


def test_printers_only_print_and_pressure_formats_are_one_table() -> None:
    """`hlsllint pressure` lives with the other commands; its printers, like `check`'s, are
    listed in one table in `hlsllint.output` and take the reports, not paths or settings."""
    folder = Path(hlsllint.output.__file__).parent
    for module in sorted(folder.glob("pressure*.py")):
        imported = set()
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(a.name for a in node.names)
        assert not imported & COMMAND_MODULES, (module.name, imported & COMMAND_MODULES)
        assert not any(m.startswith("hlsllint.commands") for m in imported), module.name
    table = hlsllint.output.PRESSURE_FORMATS
    assert {"text", "json", "html"} <= set(table)
    for name in table:
        assert callable(hlsllint.output.pressure_printer(name))
    parser = build_parser()
    for name in table:
        assert parser.parse_args(["pressure", "x.hlsl", "--output-format", name]).output_format == name


# -- the text report ----------------------------------------------------------------------------

# A library header much larger than what the shader uses: sixty functions it never calls around
# the two it does, and a block compiled out inside the entry point.
UNUSED = "float4 Unused{k}(float4 v)\n{{\n    float4 w = v * {k}.0 + v.yzwx;\n    return w * w;\n}}\n\n"
USED = """\
float4 Blend(float4 a, float4 b, float t)
{
    float4 d = b - a;
    return a + d * t;
}

float4 Scale(float4 v, float s)
{
    return v * s;
}

"""
MAIN = """\
#include "lib.hlsli"
Buffer<float4> src : register(t0);
RWStructuredBuffer<float4> dst : register(u0);

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float4 a = src[i], b = src[i + 1];
#if 0
    COMPILED_OUT_1
    COMPILED_OUT_2
    COMPILED_OUT_3
    COMPILED_OUT_4
    COMPILED_OUT_5
    COMPILED_OUT_6
    COMPILED_OUT_7
    COMPILED_OUT_8
    COMPILED_OUT_9
#endif
    float4 c = Blend(a, b, 0.25);
    dst[i] = Scale(c, 2.0);
}
"""
CODE_ROW = re.compile(r"^.{22}\s*(\d+) │ ?(.*)$")
FILE_HEAD = re.compile(r"┌─ (.*)$")


def _library(tmp_path: Path) -> tuple[Path, Path]:
    header = "".join(UNUSED.format(k=k) for k in range(30)) + USED
    header += "".join(UNUSED.format(k=k) for k in range(30, 60))
    (tmp_path / "lib.hlsli").write_text(header)
    main = tmp_path / "main.hlsl"
    main.write_text(MAIN)
    return main, tmp_path / "lib.hlsli"


def test_text_report_leads_with_the_summary(tmp_path: Path) -> None:
    main, _ = _library(tmp_path)
    code, text = _run([str(main)], target="rdna2", wave=64)
    assert code == 0
    _, js = _run([str(main)], output_format="json", target="rdna2", wave=64)
    (rep,) = json.loads(js)
    lines = text.splitlines()
    first_code = next(i for i, line in enumerate(lines) if CODE_ROW.match(line))
    head = "\n".join(lines[:first_code])
    assert lines[0] == f"main (compute, 64 threads/group) in {main}, rdna2 wave64"
    peak_file = Path(rep["peak"]["filename"]).name
    peak = next(line for line in lines[:first_code] if line.lstrip().startswith("peak "))
    assert re.search(rf"peak +{rep['max_live_vgprs']} VGPRs( at |, )", peak)
    assert f"{peak_file}:{rep['peak']['row']}" in peak and f"{rep['max_live_sgprs']} SGPRs at " in peak
    waves = f"{rep['waves_per_simd']} of {rep['max_waves_per_simd']} waves per SIMD, limited by"
    assert waves in head
    names = [v["name"] for v in rep["peak"]["values"]]
    assert names and all(f"{n} (" in head for n in names[:4]), (names, head)
    assert "\x1b" not in text  # plain text: the output is no terminal


def test_text_report_shows_only_the_code_the_entry_point_reaches(tmp_path: Path) -> None:
    main, lib = _library(tmp_path)
    code, text = _run([str(main)])
    assert code == 0
    assert "Unused" not in text and "COMPILED_OUT" not in text
    assert re.search(r"… \d+ lines not reached by main …", text)
    assert "… 11 lines without instructions …" in text  # `#if 0` ... `#endif`
    assert len(text.splitlines()) < 60 < len(lib.read_text().splitlines()) // 5
    # Every code line is numbered as in its file, under its file's name.
    files = {str(main): main.read_text().splitlines(), str(lib): lib.read_text().splitlines()}
    current: list[str] = []
    shown: dict[str, list[int]] = {}
    for line in text.splitlines():
        head = FILE_HEAD.search(line)
        if head:
            path = head.group(1)
            current = files[path]
            shown[path] = []
            continue
        m = CODE_ROW.match(line)
        if m:
            row = int(m.group(1))
            assert current[row - 1] == m.group(2).removesuffix("  ◀ peak"), line
            shown[path].append(row)
    lib_lines = files[str(lib)]
    blend = lib_lines.index("float4 Blend(float4 a, float4 b, float t)") + 1
    scale = lib_lines.index("float4 Scale(float4 v, float s)") + 1
    assert set(range(blend, blend + 4)) | set(range(scale, scale + 3)) <= set(shown[str(lib)])
    assert list(shown) == [str(main), str(lib)]
    assert shown[str(main)][0] == 5  # `[numthreads(64, 1, 1)]`, the entry's first line


def test_text_report_names_the_builds_variant(tmp_path: Path) -> None:
    f = tmp_path / "s.hlsl"
    f.write_text(SHADER)
    (tmp_path / "build.txt").write_text(f"dxc -T cs_6_0 -E main -D WIDE=1 {f}\n")
    resolver = ConfigResolver(overrides={"compile_commands": str(tmp_path / "build.txt")})
    out = io.StringIO()
    assert run_pressure([str(f)], resolver, out=out) == 0
    assert out.getvalue().splitlines()[0].endswith("[main cs_6_0 -DWIDE]")


def test_text_report_is_styled_on_a_terminal(tmp_path: Path) -> None:
    from hlsllint.output.pressure_text import print_pressure_text
    from hlsllint.pressure_report import analyse_file

    main, _ = _library(tmp_path)
    unit = analyse_file(str(main), ConfigResolver().for_path(str(main)))
    plain, styled = io.StringIO(), io.StringIO()
    print_pressure_text([unit], plain, color=False)
    print_pressure_text([unit], styled, color=True)
    assert "\x1b[" in styled.getvalue()
    assert re.sub(r"\x1b\[[0-9;]*m", "", styled.getvalue()) == plain.getvalue()


class _SlowIncludeLoader(FileLoader):
    """Serves `slow.hlsli` once the unit's deadline has passed (at most 5 s: without one, the
    preprocessor goes on and the unit is analysed whole)."""

    def __call__(self, path: str) -> SourceFile:
        if path.endswith("slow.hlsli"):
            token = deadline.current()
            waited = 0.0
            while not token.expired() and waited < 5:
                time.sleep(0.01)
                waited += 0.01
        return super().__call__(path)


def test_pressure_stops_at_the_time_budget_as_check_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, `pressure` built the unit outside any deadline: a macro bomb that `check` stops in a
    # second ran on (the fuzz's five `pressure` hangs).
    (tmp_path / "slow.hlsli").write_text("float slow;\n")
    f = tmp_path / "s.hlsl"
    f.write_text('#include "slow.hlsli"\n' + SHADER)
    monkeypatch.setattr(hlsllint.commands.pressure, "FileLoader", _SlowIncludeLoader)
    assert main(["pressure", str(f), "--time-budget", "0.05", "--output-format", "json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out) == []
    assert err == (
        f"hlsllint: {f}:1: analysis skipped after 0.05 s: preprocessing and parsing was still running "
        "(HL006; raise `time-budget` to analyse it whole)\n"
    )
    # Within the budget, the same file is reported.
    assert main(["pressure", str(f), "--time-budget", "30", "--output-format", "json"]) == 0
    assert [r["entry"] for r in json.loads(capsys.readouterr().out)] == ["main", "small"]
