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


def test_targets_reference_is_up_to_date() -> None:
    from hlsllint.targets import markdown

    current = (ROOT / "docs" / "targets.md").read_text(encoding="utf-8")
    assert current == markdown(), "regenerate with: python -m hlsllint.targets > docs/targets.md"


def test_rule_documentation_cites_only_files_the_project_ships() -> None:
    """A reference such as `docs/amd-targets.md` must be a file of this repository."""
    import re

    cited = set(
        re.findall(r"\b((?:docs|bench|hlsllint|rules)/[\w./-]+\.(?:md|py|toml|json))", rules_markdown())
    )
    assert cited, "the rules cite no file at all: the pattern is stale"
    missing = sorted(p for p in cited if not (ROOT / p).is_file())
    assert missing == []
