"""docs/rules.md is generated from the rule metadata and must be current."""

from __future__ import annotations

from conftest import ROOT

from hlsllint.docs import rules_markdown
from hlsllint.registry import all_rules


def test_rules_reference_is_up_to_date() -> None:
    current = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert current == rules_markdown(), "regenerate with: python -m hlsllint.docs > docs/rules.md"


def test_every_rule_has_an_anchor() -> None:
    text = rules_markdown()
    for r in all_rules():
        assert f'<a id="{r.code.lower()}"></a>' in text
