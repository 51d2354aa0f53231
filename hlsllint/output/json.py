"""ruff-shaped JSON: existing tooling that reads `ruff --output-format json` reads this."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import IO, Any

from hlsllint import rule_url
from hlsllint.diagnostics import Diagnostic
from hlsllint.source import Location, SourceFile


def _loc(loc: Location) -> dict[str, int]:
    return {"row": loc.row, "column": loc.column}


def diagnostic_to_json(d: Diagnostic) -> dict[str, Any]:
    fix = None
    if d.fix is not None:
        fix = {
            "applicability": d.fix.applicability.value,
            "message": d.fix.message,
            "edits": [
                {
                    "content": e.content,
                    "location": _loc(e.start_location),
                    "end_location": _loc(e.end_location),
                }
                for e in d.fix.edits
            ],
        }
    obj: dict[str, Any] = {
        "cell": None,
        "code": d.code,
        "name": d.name,
        "severity": d.severity.value,
        "filename": os.path.abspath(d.path),
        "message": d.message,
        "location": _loc(d.start),
        "end_location": _loc(d.end),
        "fix": fix,
        "noqa_row": d.noqa_row,
        "url": rule_url(d.code),
    }
    if d.help:
        obj["help"] = d.help
    if d.notes:
        obj["notes"] = list(d.notes)
    if d.variant:
        obj["variant"] = d.variant
    return obj


def print_json(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, SourceFile],
    out: IO[str],
    errors: Sequence[str] = (),
) -> None:
    json.dump([diagnostic_to_json(d) for d in diagnostics], out, indent=2)
    out.write("\n")


def print_json_lines(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, SourceFile],
    out: IO[str],
    errors: Sequence[str] = (),
) -> None:
    for d in diagnostics:
        out.write(json.dumps(diagnostic_to_json(d)) + "\n")
