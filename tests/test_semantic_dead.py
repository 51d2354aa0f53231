"""Dead code gets no finding (issue 21, item 3): code after an unconditional jump, the branch a
constant condition does not take, and functions no entry point reaches. Where the model cannot
tell (no entry point, a condition that is not a constant), the code is live."""

from __future__ import annotations

from conftest import lint_text

from hlsllint.config import Settings
from hlsllint.lint import FileLoader, lint_unit
from hlsllint.semantic.dead import dead_code

_HEAD = """
RWStructuredBuffer<float4> gOut : register(u0);
cbuffer C : register(b0) { float gSide; uint gMode; };
static const bool kDebug = false;
"""


def _rows(text: str, code: str = "HL105") -> list[int]:
    return [d.start.row for d in lint_text(_HEAD + text, select=(code,))]


def _line(text: str, needle: str) -> int:
    """1-based row of `needle` in the linted text (`_HEAD` + text)."""
    lines = (_HEAD + text).splitlines()
    return next(i for i, x in enumerate(lines, 1) if needle in x)


def test_code_after_return_is_dead() -> None:
    text = """
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float v = gSide * i;
    gOut[i] = v * sign(gSide);
    return;
    gOut[i + 1] = v * sign(v);
}
"""
    assert _rows(text) == [_line(text, "v * sign(gSide)")]


def test_break_and_continue_end_their_block_only() -> None:
    text = """
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float v = gSide;
    for (uint k = 0; k < gMode; ++k) {
        if (k == i) { break; v = v * sign(v); }
        if (k > 7) { continue; }
        v = v * sign(gSide + k);
    }
    gOut[i] = v;
}
"""
    assert _rows(text) == [_line(text, "sign(gSide + k)")]


def test_constant_condition_drops_the_branch_not_taken() -> None:
    text = """
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float v = gSide * i;
    if (kDebug) { v = v * sign(v); }
    else { v = v * sign(gSide); }
    if (1) { v += 1; } else { v = v * sign(v - 1); }
    float w = (0 ? v * sign(v + 2) : v);
    if (gMode == 2) { w = w * sign(w); }
    gOut[i] = float4(v, w, 0, 0);
}
"""
    assert _rows(text) == [_line(text, "v * sign(gSide)"), _line(text, "w * sign(w)")]


def test_function_no_entry_point_reaches_is_dead() -> None:
    text = """
float unused(float x) { return x * sign(x - 1); }
float used(float x) { return x * sign(x); }
float viaMethod(float x) { return used(x); }
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) { gOut[i] = viaMethod(gSide * i); }
"""
    assert _rows(text) == [_line(text, "float used(")]


def test_a_header_function_this_includer_does_not_call_is_live() -> None:
    header = "float helper(float x) { return x * sign(x - 1); }\n"
    main = (
        '#include "common.hlsli"\nfloat local(float x) { return x * sign(x); }\n'
        "RWStructuredBuffer<float> o;\n"
        "[numthreads(64, 1, 1)] void main(uint i : SV_DispatchThreadID) { o[i] = i; }\n"
    )
    loader = FileLoader({"main.hlsl": main, "common.hlsli": header})
    result = lint_unit("main.hlsl", Settings(select=("HL105",)), loader=loader)
    # Another includer may call `helper`; `local` is this file's own and nothing calls it.
    assert [(d.path, d.start.row) for d in result.diagnostics] == [("common.hlsli", 1)]


def test_without_entry_point_every_function_is_live() -> None:
    text = """
float helper(float x) { return x * sign(x - 1); }
float other(float x) { return x * sign(x); }
"""
    assert _rows(text) == [_line(text, "float helper("), _line(text, "float other(")]


def test_functions_named_by_attributes_and_globals_are_reached() -> None:
    text = """
struct CP { float4 p : POSITION; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };
PC PatchHS(InputPatch<CP, 3> ip)
{ PC o; o.e[0] = o.e[1] = o.e[2] = ip[0].p.x * sign(gSide); o.i = 1; return o; }
float Scale(float x) { return x * sign(x); }
static const float kScale = Scale(2.0);
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")] [outputcontrolpoints(3)]
[patchconstantfunc("PatchHS")]
CP main(InputPatch<CP, 3> ip, uint id : SV_OutputControlPointID) { CP o = ip[id]; o.p *= kScale; return o; }
"""
    assert _rows(text) == [_line(text, "{ PC o;"), _line(text, "float Scale(")]


def test_compiler_errors_are_reported_in_dead_code() -> None:
    text = """
static const int Zero = 0;
int unused(int a) { return a % Zero; }
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) { gOut[i] = i; return; gOut[i] = i / 0; }
"""
    assert _rows(text, "HL008") == [_line(text, "int unused("), _line(text, "void main(")]


def test_dead_code_is_looked_for_only_where_a_rule_reports() -> None:
    """A unit's dead statements are found in the bodies around the spans asked about, and the
    functions no entry point reaches only for a span of the unit's own file: a cold lint of an
    engine asks about a few bodies of thousands (SpartanEngine: 7% of its CPU went to finding
    the dead code of every body first)."""
    helpers = "".join(
        f"float h{k}(float x) {{ if (false) {{ return x; }} return x + {k}; }}\n" for k in range(20)
    )
    header = helpers + "float helper(float x) { return x * sign(x - 1); return x * sign(x); }\n"
    main = (
        '#include "common.hlsli"\n'
        "RWStructuredBuffer<float> o;\n"
        "[numthreads(64, 1, 1)] void main(uint i : SV_DispatchThreadID) { o[i] = i; }\n"
    )
    loader = FileLoader({"main.hlsl": main, "common.hlsli": header})
    result = lint_unit("main.hlsl", Settings(select=("HL105",)), loader=loader)
    assert [(d.path, d.start.row) for d in result.diagnostics] == [("common.hlsli", 21)]
    assert result.context is not None
    model = result.context.model
    found = dead_code(model)
    assert found.walked == 1  # `helper`'s body only (both of its findings ask about it)
    text = result.context.text
    at = text.index("x * sign(x); }")
    assert found.in_statements(model, at, at + 11)  # after `return`
    assert found.walked == 1  # answered from the same walk
    at = text.index("return x + 3")
    assert found.in_statements(model, at, at + 12) is False
    assert found.walked == 2
