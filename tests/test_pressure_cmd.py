"""`hlsllint pressure`: per-line counts mapped to original rows, the peak, JSON fields."""

from __future__ import annotations

import ast
import io
import json
from pathlib import Path

import hlsllint.output
from hlsllint.cli import build_parser
from hlsllint.commands.pressure import run_pressure
from hlsllint.config import ConfigResolver

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
