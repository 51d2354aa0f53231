"""HL105 on a grid walk (DDA): the direction's zero components are a case the signs answer."""

from __future__ import annotations

from conftest import FIXTURES, lint_text

_GOOD = (FIXTURES / "HL105" / "good_grid_walk_signs.hlsl").read_text(encoding="utf-8")
_DIVIDE = "float3 stepLength = abs(1.0 / dir);"
_STEP = "int3 cellStep = int3(sign(dir));"


def _rows(text: str) -> list[int]:
    return [d.start.row for d in lint_text(text, ("HL105",))]


def test_signs_of_a_direction_the_walk_steps_by_are_left_alone() -> None:
    """The integer step `int3(sign(dir))` says a zero component is expected (no step along it);
    without it (the near miss), the same products are reported, division by `dir` or not: an
    epsilon kept away from 0 by `sign(d) * 1e-5` before dividing by `d` wants the select."""
    assert _rows(_GOOD) == []
    only_step = _GOOD.replace(_DIVIDE, "float3 stepLength = abs(rcp(max(abs(dir), 1e-6)));")
    assert _rows(only_step) == []
    only_divide = _GOOD.replace(_STEP, "int3 cellStep = int3(dir < 0 ? -1 : 1);")
    assert _rows(only_divide) == [13, 13]
    epsilon = "float f(float d) { d = abs(d) < 1e-5 ? sign(d) * 1e-5 : d; return 1.0 / d; }\n"
    assert _rows(epsilon) == [1]
