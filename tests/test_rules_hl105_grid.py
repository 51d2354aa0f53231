"""HL105 on a grid walk (DDA): the direction's zero components are a case the signs answer."""

from __future__ import annotations

from conftest import FIXTURES, lint_text

_GOOD = (FIXTURES / "HL105" / "good_grid_walk_signs.hlsl").read_text(encoding="utf-8")
_DIVIDE = "float3 stepLength = abs(1.0 / dir);"
_STEP = "int3 cellStep = int3(sign(dir));"


def _rows(text: str) -> list[int]:
    return [d.start.row for d in lint_text(text, ("HL105",))]


def test_signs_of_a_direction_the_walk_divides_by_or_steps_by_are_left_alone() -> None:
    """Either the division by `dir` or the integer step `int3(sign(dir))` says a zero component
    is expected; with neither, the same products are reported (the near miss)."""
    assert _rows(_GOOD) == []
    only_step = _GOOD.replace(_DIVIDE, "float3 stepLength = abs(rcp(max(abs(dir), 1e-6)));")
    assert _rows(only_step) == []
    only_divide = _GOOD.replace(_STEP, "int3 cellStep = int3(dir < 0 ? -1 : 1);")
    assert _rows(only_divide) == []
    neither = only_divide.replace(_DIVIDE, "float3 stepLength = abs(rcp(max(abs(dir), 1e-6)));")
    assert _rows(neither) == [13, 13]
