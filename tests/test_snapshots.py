"""Every rule fixture's full output, pinned: message, location, help, notes and fix edits.

`test_rules_meta.py` checks which lines fire; these snapshots (syrupy) also pin what a user reads
and what a fix writes, so a change of wording or location shows up in review as a snapshot diff
instead of passing silently. After an intended change: `pytest tests/test_snapshots.py
--snapshot-update`, then read the diff of `tests/__snapshots__/test_snapshots.ambr`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, run_cli
from syrupy.assertion import SnapshotAssertion

CASES = sorted(p for p in FIXTURES.glob("HL*/*.hlsl*") if p.is_file())


def _pinned(finding: dict[str, object]) -> dict[str, object]:
    """A finding as the JSON output gives it, minus what depends on the machine or the checkout
    (the absolute path, the documentation URL)."""
    kept = {k: v for k, v in finding.items() if k not in {"filename", "url", "cell"}}
    fix = kept.get("fix")
    if isinstance(fix, dict):
        for edit in fix.get("edits", []):
            if isinstance(edit, dict):
                edit.pop("filename", None)
    return kept


@pytest.mark.parametrize("path", CASES, ids=[p.relative_to(FIXTURES).as_posix() for p in CASES])
def test_fixture_output(
    path: Path,
    snapshot: SnapshotAssertion,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    code = path.parent.name
    status, out, err = run_cli(
        capsys,
        "check",
        str(path.relative_to(ROOT)),
        "--select",
        code,
        "--no-cache",
        "--output-format",
        "json",
    )
    assert status in (0, 1), err
    findings = [_pinned(f) for f in json.loads(out)]
    if path.name.startswith("good_"):
        assert [f for f in findings if f["code"] == code] == [], "a good fixture stays silent"
    assert findings == snapshot
