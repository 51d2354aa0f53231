"""Every rule carries complete metadata, fixtures that fire and stay silent, and tested examples."""

from __future__ import annotations

import re

import pytest
from conftest import FIXTURES, expected_findings, lint_fixture, lint_text

from hlsllint.registry import all_rules
from hlsllint.rule import Rule

RULES = all_rules()
CHECKED = [r for r in RULES if not r.engine]


def test_codes_are_unique_and_well_formed() -> None:
    codes = [r.code for r in RULES]
    assert len(codes) == len(set(codes))
    assert all(re.fullmatch(r"HL[0-9]{3}", c) for c in codes)
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", n) for n in names)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_metadata_is_complete(rule: type[Rule]) -> None:
    assert rule.summary.strip()
    assert len(rule.rationale.strip()) > 80, "the rationale says why, with its source"
    assert rule.precision in ("very-high", "high", "medium", "low")
    doc = rule.documentation()
    assert rule.code in doc and "## Why is this bad?" in doc
    if rule.fix.value != "none":
        assert rule.fix_safety.strip(), "a rule with a fix explains when it is safe"


@pytest.mark.parametrize("rule", CHECKED, ids=lambda r: r.code)
def test_examples(rule: type[Rule]) -> None:
    bad = lint_text(rule.bad_example, select=(rule.code,))
    assert any(d.code == rule.code for d in bad), "the bad example must trigger the rule"
    good = lint_text(rule.good_example, select=(rule.code,))
    assert not [d for d in good if d.code == rule.code], "the good example must stay silent"


def _fixture_cases() -> list[tuple[str, str]]:
    cases = []
    for rule in CHECKED:
        folder = FIXTURES / rule.code
        for f in sorted(folder.glob("*.hlsl")) if folder.is_dir() else []:
            cases.append((rule.code, f.name))
    return cases


@pytest.mark.parametrize("rule", CHECKED, ids=lambda r: r.code)
def test_rule_has_bad_and_good_fixtures(rule: type[Rule]) -> None:
    folder = FIXTURES / rule.code
    assert list(folder.glob("bad_*.hlsl")), f"fixtures/{rule.code}/bad_*.hlsl missing"
    assert list(folder.glob("good_*.hlsl")), f"fixtures/{rule.code}/good_*.hlsl missing"


@pytest.mark.parametrize(("code", "name"), _fixture_cases())
def test_fixture(code: str, name: str) -> None:
    path = FIXTURES / code / name
    expected = expected_findings(path)
    if name.startswith("bad_"):
        assert expected, "a bad fixture marks its findings with `// expect: CODE`"
    else:
        assert not expected
    assert lint_fixture(path, code) == expected
