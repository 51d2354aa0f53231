"""A rule's docs quote what the real compiler measured on its examples, and never a stale figure."""

from __future__ import annotations

import pytest

from hlsllint import claims
from hlsllint.registry import rule_by_code

BAD, GOOD = "float4 a;", "float3 a;"
RECORD = {
    "bad": {"vgprs": 38, "presched_vgprs": 38, "instructions": 98, "waves_per_simd": 12},
    "good": {"vgprs": 9, "presched_vgprs": 9, "instructions": 29, "waves_per_simd": 16},
}


@pytest.fixture
def data(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    table: dict[str, object] = {"target": "regtruth navi21 wave64", "rules": {}}
    monkeypatch.setattr(claims, "_data", lambda: table)
    return table


def test_current_measurement_is_quoted(data: dict[str, object]) -> None:
    data["rules"] = {"HL999": {**RECORD, "hash": claims.example_hash(BAD, GOOD)}}
    text = claims.measured_markdown("HL999", BAD, GOOD)
    assert text is not None
    assert "regtruth navi21 wave64" in text
    assert "| max-live VGPRs | 38 | 9 |" in text
    assert "| waves/SIMD | 12 | 16 |" in text


def test_stale_measurement_is_not_quoted(data: dict[str, object]) -> None:
    data["rules"] = {"HL999": {**RECORD, "hash": claims.example_hash(BAD, "float2 a;")}}
    assert claims.measured_markdown("HL999", BAD, GOOD) is None


def test_rule_docs_carry_the_measured_section(data: dict[str, object]) -> None:
    rule = rule_by_code()["HL101"]
    assert "## Measured" not in rule.documentation()
    data["rules"] = {"HL101": {**RECORD, "hash": claims.example_hash(rule.bad_example, rule.good_example)}}
    assert "## Measured" in rule.documentation()
