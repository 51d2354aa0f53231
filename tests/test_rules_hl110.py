"""HL110: local arrays indexed at run time; constant indices after unrolling and inlining."""

from __future__ import annotations

from conftest import lint_text


def _hl110(body: str, helpers: str = "") -> list[str]:
    text = (
        "StructuredBuffer<float4> src : register(t0);\nRWStructuredBuffer<float4> dst : register(u0);\n"
        "cbuffer C : register(b0) { uint count; };\n"
        f"{helpers}\n[numthreads(64, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID)\n{{\n{body}\n}}\n"
    )
    return [d.long_message() for d in lint_text(text, select=("HL110",))]


FILL8 = "    float4 a[8];\n    for (uint i = 0; i < 8; i++) a[i] = src[id.x + i];\n"


def test_per_lane_index_names_the_value_and_the_registers() -> None:
    (msg,) = _hl110(FILL8 + "    dst[id.x] = a[id.x & 7];")
    assert "local array `a` (8 × float4, 32 registers per lane) is read" in msg
    assert "(`id.x`)" in msg and "selects through them" in msg


def test_past_256_bytes_the_message_says_scratch() -> None:
    body = (
        "    float4 a[17];\n    for (uint i = 0; i < 17; i++) a[i] = src[id.x + i];\n"
        "    dst[id.x] = a[id.x % 17];"
    )
    (msg,) = _hl110(body)
    assert "(17 × float4, 272 bytes per lane)" in msg and "lives in scratch memory" in msg


def test_unrolled_counters_are_constant_and_long_loops_are_not() -> None:
    constant = "    float4 s = 0;\n    for (uint j = 0; j < 8; j++) s += a[7 - j];\n    dst[id.x] = s;"
    assert _hl110(FILL8 + constant) == []
    body = (
        "    float v[256];\n    for (uint i = 0; i < 256; i++) v[i] = src[id.x + i].x;\n    dst[id.x] = v[0];"
    )
    (msg,) = _hl110(body)
    assert "the counter of a 256-iteration loop" in msg and "1,024 bytes per lane" in msg
    assert _hl110(body.replace("256", "64")) == [], "33-128 iterations: the body decides, not judged"
    unroll = body.replace("for (uint i = 0; i < 256", "[unroll] for (uint i = 0; i < 256")
    assert _hl110(unroll) == []
    keep = FILL8.replace("for (uint i", "[loop] for (uint i") + "    dst[id.x] = a[0];"
    (msg,) = _hl110(keep)
    assert "`[loop]` loop" in msg


def test_dynamic_loop_counter_and_one_finding_per_array() -> None:
    body = (
        "    float r[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };\n"
        "    for (uint i = 0; i < count; i++) r[i] = src[i].x;\n"
        "    for (uint j = 0; j < count; j++) r[j] += 1;\n"
        "    dst[id.x] = float4(r[0], r[1], r[2], r[3]);"
    )
    (msg,) = _hl110(body)
    assert "local array `r` (8 × float, 8 registers per lane) is written" in msg
    assert "the counter of a loop whose trip count is not a compile-time constant" in msg


def test_literal_tables_are_folded_unless_written_at_a_run_time_index() -> None:
    table = "    float w[8] = { 0.1, 0.2, 0.3, -0.4, 0.5, 0.6, 0.7, 0.8 };\n"
    assert _hl110(table + "    dst[id.x] = w[id.x & 7];") == []
    (msg,) = _hl110(table + "    w[id.x & 7] = 1;\n    dst[id.x] = w[0];")
    assert "local array `w` (8 × float, 8 registers per lane) is written" in msg
    (msg,) = _hl110(table + "    w[1] = src[0].x;\n    dst[id.x] = w[id.x & 7];")
    assert "local array `w` (8 × float, 8 registers per lane) is read" in msg


def test_helper_parameter_is_constant_when_every_caller_passes_one() -> None:
    helper = (
        "float pick(uint id, uint k)\n"
        "{ float v[8]; for (uint i = 0; i < 8; i++) v[i] = src[id + i].x; return v[k]; }"
    )
    assert _hl110("    dst[id.x] = pick(id.x, 1) + pick(id.x, 3);", helper) == []
    (msg,) = _hl110("    dst[id.x] = pick(id.x, 1) + pick(id.x, id.y);", helper)
    assert "a parameter of `pick` given a run-time value by a caller" in msg


def test_locals_written_in_straight_line_or_unrolled_code_are_constant() -> None:
    body = FILL8 + (
        "    uint n = 0;\n    float4 s = 0;\n"
        "    [unroll] for (uint k = 0; k < 4; k++) s += a[n++];\n"
        "    uint m = 2;\n    if (id.x > 3) m = 5;\n    dst[id.x] = s + a[m];"
    )
    (msg,) = _hl110(body)
    assert "(`m`)" in msg and "`m` is written under a run-time condition" in msg


def test_a_comma_update_still_steps_the_counter() -> None:
    body = FILL8 + (
        "    uint bits = 0;\n    float4 s = 0;\n"
        "    for (uint j = 1, b = 0; j < 8; ++j, ++b) { s += a[j]; bits |= 1u << b; }\n"
        "    dst[id.x] = s + bits;"
    )
    assert _hl110(body) == []


def test_a_struct_without_a_name_is_shown_by_its_typedef_or_described() -> None:
    fill = "    for (uint i = 0; i < 8; i++) {{ {a}[i].v = src[id.x + i]; }}\n"
    typedef = "typedef struct { float4 v; float4 w; } Pair;"
    (msg,) = _hl110("    Pair p[8];\n" + fill.format(a="p") + "    dst[id.x] = p[id.x & 7].v;", typedef)
    assert "(8 × Pair, 64 registers per lane)" in msg
    body = "    struct { float4 v; } q[8];\n" + fill.format(a="q") + "    dst[id.x] = q[id.x & 7].v;"
    (msg,) = _hl110(body)
    assert "(8 × unnamed struct, 32 registers per lane)" in msg and "<anonymous" not in msg


def test_a_typedef_names_its_anonymous_struct_in_the_model() -> None:
    from hlsllint.semantic import build_model
    from hlsllint.syntax import parse

    model = build_model(parse("typedef struct { float a; } Named;\nNamed g;\n"))
    assert model.typedefs["Named"].name == "Named" and model.typedefs["Named"].kind == "struct"
    assert model.globals["g"].type.name == "Named"


def test_small_arrays_counters_in_their_own_branch_and_filled_tables_are_left_alone() -> None:
    """RTXPT LightsBaker `kernel[kernelCount]` (a counter declared inside a per-thread `if`,
    bumped in unrolled 3x3 loops), OmmDebug `debugColors[i]` (a table filled with literals
    element by element) and SpartanEngine's three-entry ReSTIR streams: see the fixture."""
    from conftest import FIXTURES

    text = (FIXTURES / "HL110" / "good_small_counter_and_tables.hlsl").read_text(encoding="utf-8")
    assert [d.message for d in lint_text(text, select=("HL110",))] == []
    counter = text.replace("float4 kernel[9];", "float4 kernel[9];\n        kernel[0] = 0;").replace(
        "r = kernel[0]", "r = kernel[pick & 7]"
    )
    (msg,) = [d.message for d in lint_text(counter, select=("HL110",))]
    assert "`kernel`" in msg and "(`pick`)" in msg  # the data-dependent pick is still reported
