"""HL109: group sizes against the configured wave size; invalid sizes are errors."""

from __future__ import annotations

from conftest import lint_text

from hlsllint.diagnostics import Severity


def _hl109(numthreads: str, **settings: object) -> list[tuple[Severity, str]]:
    text = (
        f"RWBuffer<uint> b;\n[numthreads({numthreads})]\n"
        "void main(uint3 id : SV_DispatchThreadID) { b[id.x] = 0; }\n"
    )
    return [(d.severity, d.message) for d in lint_text(text, select=("HL109",), **settings)]


def test_idle_lanes_counted_for_the_wave_size() -> None:
    ((sev, msg),) = _hl109("12, 12, 1")
    assert sev == Severity.WARNING and "3 wave64s with 48 of 192 lanes idle" in msg
    assert _hl109("8, 4, 1", wave_size=32) == []
    ((_, msg32),) = _hl109("12, 12, 1", wave_size=32)
    assert "5 wave32s with 16 of 160 lanes idle" in msg32


def test_invalid_sizes_are_errors_with_their_own_message() -> None:
    for dims, why in (
        ("0, 8, 1", "zero"),
        ("1, 1, 65", "`z` = 65 exceeds 64"),
        ("64, 32, 1", "2048 threads"),
    ):
        ((sev, msg),) = _hl109(dims)
        assert sev == Severity.ERROR and "not a valid group size" in msg and why in msg


def test_an_invalid_size_names_the_value_it_has() -> None:
    # `numthreads(-1, ...)` was called "a dimension is zero"; 1e30 and 2.5 were not looked at.
    for dims, why in (
        ("-1, 8, 1", "`x` = -1 is negative"),
        ("8, 0, 1", "`y` is zero"),
        ("1e30, 1, 1", "`x` = 1e+30 exceeds 1024"),
        ("2.5, 1, 1", "`x` = 2.5 is not an integer"),
        ("32, 32, 2", "2048 threads exceed the compute limit of 1024"),
    ):
        ((sev, msg),) = _hl109(dims)
        assert sev == Severity.ERROR and why in msg, msg
    text = (
        "RWBuffer<uint> b;\n[numthreads(-1, 1, 1)]\n"
        "void main(uint3 id : SV_DispatchThreadID) { b[id.x] = 0; }\n"
    )
    (d,) = lint_text(text, select=("HL109",))
    assert d.notes == ("the analyses take the group size as unknown",)


def test_an_invalid_size_is_an_unknown_group_size_to_the_analyses() -> None:
    text = (
        "RWStructuredBuffer<float> o;\n[numthreads(-1, 1, 1)]\n"
        "void main(uint i : SV_DispatchThreadID) { float b[4]; b[i & 3] = 1; o[i] = b[0]; }\n"
    )
    found = lint_text(text)  # every rule: none crashes on the negative count
    assert [d.code for d in found if d.severity == Severity.ERROR] == ["HL109"]


def test_whole_waves_and_single_threads_are_silent() -> None:
    assert _hl109("8, 8, 1") == []
    assert _hl109("256, 1, 1") == []
    assert _hl109("1, 1, 1") == []


def test_setup_jobs_and_wave_masks_keep_their_group_size() -> None:
    """Four threads, one per cascade, and a 32-thread group whose ballot packs one bit per
    thread are deliberate: no bigger group is advised. A 4-thread group walking a long list is."""
    from conftest import FIXTURES

    from hlsllint.config import Settings
    from hlsllint.lint import lint_unit

    good = FIXTURES / "HL109" / "good_setup_job_and_wave_mask.hlsl"
    assert not lint_unit(str(good), Settings(select=("HL109",))).diagnostics
    bad = FIXTURES / "HL109" / "bad_small_group_indexing_beyond.hlsl"
    (d,) = lint_unit(str(bad), Settings(select=("HL109",))).diagnostics
    assert "4 threads fill 4 of one wave64's 64 lanes" in d.message


def test_a_wave_mask_packed_in_a_called_helper_keeps_the_group_size() -> None:
    """The ballot two calls below the entry point (a denoiser library's tile mask) counts as
    the entry's own; the same 8x4 group whose helper only stores is still reported."""
    from conftest import FIXTURES

    from hlsllint.config import Settings
    from hlsllint.lint import lint_unit

    good = FIXTURES / "HL109" / "good_wave_mask_in_a_helper.hlsl"
    assert not lint_unit(str(good), Settings(select=("HL109",))).diagnostics
    text = (
        good.read_text(encoding="utf-8")
        .replace("WaveActiveBitOr(lit ? (1u << WaveGetLaneIndex()) : 0u)", "lit ? 1u : 0u")
        .replace("if (WaveIsFirstLane())", "if (tile != 0)")
    )
    (d,) = lint_text(text, select=("HL109",))
    assert "32 threads fill 32 of one wave64's 64 lanes" in d.message
