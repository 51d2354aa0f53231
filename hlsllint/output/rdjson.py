"""reviewdog's Diagnostic Format (`--output-format rdjson`), for `reviewdog -f=rdjson`.

Columns are 1-based UTF-8 byte offsets, as the format asks; fixes become `suggestions`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import IO, Any

from hlsllint import rule_url
from hlsllint.diagnostics import Diagnostic, Severity
from hlsllint.source import Location, SourceFile

SOURCE = {"name": "hlsllint", "url": "https://github.com/hlsllint/hlsllint"}
SEVERITIES = {Severity.ERROR: "ERROR", Severity.WARNING: "WARNING", Severity.INFO: "INFO"}


def _position(loc: Location, src: SourceFile | None) -> dict[str, int]:
    column = loc.column
    if src is not None:
        column = len(src.line(loc.row)[: loc.column - 1].encode("utf-8")) + 1
    return {"line": loc.row, "column": column}


def _range(start: Location, end: Location, src: SourceFile | None) -> dict[str, Any]:
    return {"start": _position(start, src), "end": _position(end, src)}


def rdjson_report(diagnostics: Sequence[Diagnostic], sources: Mapping[str, SourceFile]) -> dict[str, Any]:
    out = []
    for d in diagnostics:
        src = sources.get(d.path)
        item: dict[str, Any] = {
            "message": "\n".join([d.message + (f" [{d.variant}]" if d.variant else ""), *d.details()]),
            "location": {"path": d.path, "range": _range(d.start, d.end, src)},
            "severity": SEVERITIES[d.severity],
            "source": SOURCE,
            "code": {"value": d.code, "url": rule_url(d.code)},
        }
        if d.fix is not None and d.fix.edits:
            item["suggestions"] = [
                {"range": _range(e.start_location, e.end_location, sources.get(e.path)), "text": e.content}
                for e in d.fix.edits
                if e.path == d.path
            ]
        out.append(item)
    return {"source": SOURCE, "diagnostics": out}


def print_rdjson(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, SourceFile],
    out: IO[str],
    errors: Sequence[str] = (),
) -> None:
    json.dump(rdjson_report(diagnostics, sources), out, indent=2, ensure_ascii=False)
    out.write("\n")
