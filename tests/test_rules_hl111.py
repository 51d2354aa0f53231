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
    assert "270 instructions, latency ~3400 cycles; clamped with a select" in msg
    assert "keep the test as a select on the fetched value (`inside ? v : 0`)" in msg


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
        help = d.long_message().split("\n")[1]
        assert "rely on out-of-bounds" not in help and "inside ? v : 0" not in help
        assert "0 is not the neutral value of a min" in help
    sums = lint_unit(str(FIXTURES / "HL111" / "bad_guarded_taps.hlsl"), Settings(select=("HL111",)))
    assert all("rely on out-of-bounds reads returning 0" in d.long_message() for d in sums.diagnostics)


def test_continue_past_a_bounds_test_in_an_unrolled_loop() -> None:
    """Issue 22's miss: `if (outside) continue;` before the fetch is the same guard."""
    inner = "if (any(q < 0) || any(q >= dims)) continue;\n        acc += src.Load(int3(q, 0));"
    (msg,) = _hl111(_loop("for (int i = -1; i <= 1; i++)", inner))
    assert "fetched only past this bounds test's `continue`" in msg
    assert "skipped when `any(q < 0) || any(q >= dims)` holds" in msg
    braced = "if (q.x < 0 || q.x >= dims.x) { continue; }\n        acc += src[q];"
    assert len(_hl111(_loop("for (int i = -1; i <= 1; i++)", braced))) == 1


def test_continue_near_misses() -> None:
    """A loop the compiler keeps, more work after the test than a fetch and its sum, a test of
    data, and a `continue` nested deeper than the loop body are left alone."""
    inner = "if (any(q < 0) || any(q >= dims)) continue;\n        acc += src[q];"
    assert _hl111(_loop("for (int i = -radius; i <= radius; i++)", inner)) == []
    big = (
        "if (any(q < 0) || any(q >= dims)) continue;\n        float4 c = src[q];\n        c *= 2;\n"
        "        c = sqrt(c);\n        c = exp(c);\n        acc += c;"
    )
    assert _hl111(_loop("for (int i = -1; i <= 1; i++)", big)) == []
    data = "if (acc.a > 4) continue;\n        acc += src[q];"
    assert _hl111(_loop("for (int i = -1; i <= 1; i++)", data)) == []
    nested = "{ if (q.x < 0) continue; }\n        acc += src[q];"
    assert _hl111(_loop("for (int i = -1; i <= 1; i++)", nested)) == []


def test_min_max_offers_the_select_and_clamping_alone_for_a_rectangle() -> None:
    inner = "if (all(q >= 0) && all(q < dims)) acc = max(acc, src.Load(int3(q, 0)));"
    (msg,) = _hl111(_loop("for (int i = -1; i <= 1; i++)", inner))
    assert "`acc = inside ? max(acc, v) : acc`" in msg
    assert "clamping alone is enough when the taps cover a whole rectangle" in msg
    assert "rely on out-of-bounds" not in msg
