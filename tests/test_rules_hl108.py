"""HL108: barriers under per-thread control flow, and the value that makes it per-thread."""

from __future__ import annotations

from conftest import lint_text

_HEAD = """\
groupshared float tile[64];
groupshared bool done;
RWStructuredBuffer<float> data;
cbuffer Params { uint count; };
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID, uint gi : SV_GroupIndex)
{
"""


def _hl108(body: str) -> list[str]:
    return [d.long_message() for d in lint_text(_HEAD + body + "}\n", select=("HL108",))]


def test_names_the_per_thread_value() -> None:
    (msg,) = _hl108("if (data[id.x] > 0) { GroupMemoryBarrierWithGroupSync(); }\n")
    assert "`data[id.x]` differs" in msg


def test_early_return_and_break_before_the_next_iteration() -> None:
    (msg,) = _hl108("if (gi >= count) return;\nGroupMemoryBarrierWithGroupSync();\n")
    assert "`gi`" in msg
    loop = (
        "for (uint s = 1; s < 64; s *= 2)"
        " { tile[gi] = s; GroupMemoryBarrierWithGroupSync(); if (gi < s) break; }\n"
    )
    assert len(_hl108(loop)) == 1, "a per-thread break skips the barrier of the next iteration"


def test_early_return_is_told_not_to_return_early() -> None:
    # The barrier is in no branch: "move the barrier out of the branch" cannot be followed.
    (msg,) = _hl108("if (gi >= count) return;\nGroupMemoryBarrierWithGroupSync();\n")
    assert "don't return early" in msg and "every thread reaches the barrier" in msg
    assert "move the barrier out of the branch" not in msg
    (msg,) = _hl108("if (data[id.x] > 0) { GroupMemoryBarrierWithGroupSync(); }\n")
    assert "move the barrier out of the branch" in msg and "return early" not in msg


def test_group_uniform_conditions_are_silent() -> None:
    assert _hl108("if (group.x == 0) GroupMemoryBarrierWithGroupSync();\n") == []
    assert _hl108("for (uint i = 0; i < count; ++i) GroupMemoryBarrierWithGroupSync();\n") == []
    # groupshared read after a barrier: every thread sees the same value
    assert _hl108("if (done) return;\nGroupMemoryBarrierWithGroupSync();\n") == []
    assert _hl108("if (tile[0] == 0) return;\nGroupMemoryBarrierWithGroupSync();\n") == []
    # a per-thread branch that only guards work, with the barrier outside
    assert _hl108("if (gi < 32) tile[gi] += tile[gi + 32];\nGroupMemoryBarrierWithGroupSync();\n") == []


def test_wave_uniform_is_not_group_uniform() -> None:
    (msg,) = _hl108("if (WaveActiveAllTrue(gi < 8)) GroupMemoryBarrierWithGroupSync();\n")
    assert "within a wave only" in msg


def test_wave_size_tests_are_group_uniform() -> None:
    """The wave size is fixed for the dispatch: `WaveGetLaneCount() == 64` branches alike in
    every wave of the group, a vote beside it does not."""
    from conftest import FIXTURES

    from hlsllint.config import Settings
    from hlsllint.lint import lint_unit

    good = FIXTURES / "HL108" / "good_wave_size_branch.hlsl"
    assert not lint_unit(str(good), Settings(select=("HL108",))).diagnostics
    assert _hl108("if (WaveGetLaneCount() < 64) GroupMemoryBarrierWithGroupSync();\n") == []
    (msg,) = _hl108(
        "if (WaveGetLaneCount() == 32 && WaveActiveAllTrue(gi < 8)) GroupMemoryBarrierWithGroupSync();\n"
    )
    assert "`WaveActiveAllTrue(gi < 8)` is the same within a wave only" in msg
