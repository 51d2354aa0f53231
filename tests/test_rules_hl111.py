"""HL111: bounds-tested fetches in unrolled loops and neighbourhoods; what is left alone."""

from __future__ import annotations

from conftest import lint_text

HEAD = (
    "Texture2D<float4> src : register(t0);\nRWTexture2D<float4> dst : register(u0);\n"
    "cbuffer C : register(b0) { int2 dims; int radius; };\n"
)


def _hl111(body: str) -> list[str]:
    text = (
        f"{HEAD}[numthreads(8, 8, 1)]\nvoid main(uint3 id : SV_DispatchThreadID)\n{{\n"
        f"    int2 p = int2(id.xy);\n    float4 acc = 0;\n{body}\n    dst[p] = acc;\n}}\n"
    )
    return [d.long_message() for d in lint_text(text, select=("HL111",))]


def _loop(head: str, inner: str) -> str:
    return f"    {head}\n    {{\n        int2 q = p + int2(i, 0);\n        {inner}\n    }}"


def test_unrolled_loop_message_names_fetch_test_and_measurement() -> None:
    (msg,) = _hl111(
        _loop("for (int i = -1; i <= 1; i++)", "if (q.x >= 0 && q.x < dims.x) acc += src.Load(int3(q, 0));")
    )
    assert "`src.Load(int3(q, 0))` is fetched only inside this bounds test" in msg
    assert "only when `q.x >= 0 && q.x < dims.x` holds" in msg
    assert "an unrolled loop" in msg and "rely on out-of-bounds reads returning 0" in msg
    assert "25 branches and 375 instructions guarded, no branch and 216 clamped" in msg


def test_loops_the_compiler_keeps_are_left_alone() -> None:
    inner = "if (q.x >= 0 && q.x < dims.x) acc += src[q];"
    assert _hl111(_loop("for (int i = -radius; i <= radius; i++)", inner)) == []
    assert _hl111(_loop("[loop] for (int i = -1; i <= 1; i++)", inner)) == []
    assert _hl111(_loop("for (int i = -40; i <= 40; i++)", inner)) == []
    assert len(_hl111(_loop("[unroll] for (int i = -40; i <= 40; i++)", inner))) == 1


def test_ternary_with_a_constant_arm_and_a_bounds_test_helper() -> None:
    inner = "bool inside = all(q >= 0) && all(q < dims);\n        acc += inside ? src[q] : 0;"
    (msg,) = _hl111(_loop("for (int i = -1; i <= 1; i++)", inner))
    assert "`src[q]`" in msg and "`inside`" in msg
    other = "acc += q.x < dims.x ? src[q] : src[p];"
    assert _hl111(_loop("for (int i = -1; i <= 1; i++)", other)) == []


def test_stores_jumps_larger_work_and_else_are_left_alone() -> None:
    head = "for (int i = -1; i <= 1; i++)"
    assert _hl111(_loop(head, "if (q.x < dims.x) { acc += src[q]; dst[q] = 0; }")) == []
    assert _hl111(_loop(head, "if (q.x < dims.x) { acc += src[q]; break; }")) == []
    assert _hl111(_loop(head, "if (q.x < dims.x) acc += src[q]; else acc += 1;")) == []
    big = "if (q.x < dims.x) { float4 c = src[q]; c *= 2; c = sqrt(c); c = exp(c); acc += c; }"
    assert _hl111(_loop(head, big)) == []


def test_straight_line_needs_two_guarded_fetches() -> None:
    one = "    if (p.x > 0) acc += src[p - int2(1, 0)];"
    assert _hl111(one) == []
    two = one + "\n    if (p.x < dims.x - 1) acc += src[p + int2(1, 0)];"
    msgs = _hl111(two)
    assert len(msgs) == 2 and all("a neighbourhood of guarded fetches" in m for m in msgs)


def test_a_test_of_fetched_data_is_not_a_bounds_test() -> None:
    inner = "float4 c = src[q];\n        if (c.a > 0.5) acc += src[q + int2(0, 1)];"
    assert _hl111(_loop("for (int i = -1; i <= 1; i++)", inner)) == []


def test_out_of_bounds_zero_only_offered_where_zero_is_neutral() -> None:
    """A sum (or a value that starts at 0) may rely on out-of-bounds reads returning 0; a min
    filter or a distance minimum may not: a 0 would win every min."""
    from conftest import FIXTURES

    from hlsllint.config import Settings
    from hlsllint.lint import lint_unit

    mins = lint_unit(str(FIXTURES / "HL111" / "bad_guarded_min_filter.hlsl"), Settings(select=("HL111",)))
    assert len(mins.diagnostics) == 2
    for d in mins.diagnostics:
        assert "out-of-bounds" not in d.long_message() and "by 0" not in d.long_message()
        assert "keeping taps outside out of the result" in d.long_message()
    sums = lint_unit(str(FIXTURES / "HL111" / "bad_guarded_taps.hlsl"), Settings(select=("HL111",)))
    assert all("rely on out-of-bounds reads returning 0" in d.long_message() for d in sums.diagnostics)
