"""HL107: an input struct passed whole to a helper in a variant the linted build leaves out."""

from __future__ import annotations

from conftest import FIXTURES, lint_text

_GOOD = (FIXTURES / "HL107" / "good_passed_whole_in_a_variant.hlsl").read_text(encoding="utf-8")


def test_members_read_through_a_helper_in_another_variant_are_not_unread() -> None:
    """The G-buffer variant hands `input` to `Evaluate`, which reads every member: silent. When
    no variant passes it whole (the near miss), the members the preview leaves unread are
    reported."""
    assert lint_text(_GOOD, ("HL107",)) == []
    near = _GOOD.replace("Surface s = Evaluate(input);", "Surface s = Evaluate();")
    unread = sorted(d.message.split("`")[1] for d in lint_text(near, ("HL107",)))
    assert unread == ["tangent", "uv", "worldPos"]
