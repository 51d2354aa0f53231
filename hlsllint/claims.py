"""What the real compiler measured on each rule's bad and good examples.

`bench/claims.py` compiles the examples with regtruth (Mesa RADV/ACO) and writes
`hlsllint/data/claims.json`; a rule's documentation quotes its own measurement from there. Each
record carries a hash of the examples it measured, so a measurement of an older example is never
quoted.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Any

_ROWS = (
    ("vgprs", "VGPRs allocated"),
    ("presched_vgprs", "max-live VGPRs"),
    ("sgprs_used", "SGPRs"),
    ("lds", "LDS bytes"),
    ("instructions", "instructions"),
    ("waves_per_simd", "waves/SIMD"),
)


def example_hash(bad_example: str, good_example: str) -> str:
    text = bad_example.strip() + "\n\0\n" + good_example.strip()
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@cache
def _data() -> dict[str, Any]:
    # Imported here, not at the top: only documentation reads the claims, and a lint imports
    # this module through hlsllint.rule (start-up cost).
    from importlib import resources

    try:
        text = resources.files("hlsllint").joinpath("data/claims.json").read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def measured_markdown(code: str, bad_example: str, good_example: str) -> str | None:
    """A Markdown table of the bad and good examples' figures, or None when not measured (or stale)."""
    data = _data()
    record = data.get("rules", {}).get(code)
    if not isinstance(record, dict) or record.get("hash") != example_hash(bad_example, good_example):
        return None
    bad, good = record.get("bad", {}), record.get("good", {})
    lines = [
        f"The examples above, compiled with {data.get('target', 'regtruth')} (`bench/claims.py`):",
        "",
        "| | example | use instead |",
        "|---|---:|---:|",
    ]
    lines += [f"| {label} | {bad.get(k, '-')} | {good.get(k, '-')} |" for k, label in _ROWS]
    return "\n".join(lines)
