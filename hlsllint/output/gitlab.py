"""GitLab Code Quality (`--output-format gitlab`): the JSON report GitLab shows in merge requests.

Each finding has a `fingerprint` that stays the same while the finding's rule and line text stay
the same (moving the line does not change it), so GitLab can tell new findings from old ones.
Paths are relative to the repository root, as GitLab expects.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import IO, Any

from hlsllint.diagnostics import Diagnostic, Severity
from hlsllint.output.sarif import fingerprints, relative_path, repository_root
from hlsllint.source import SourceFile

SEVERITIES = {Severity.ERROR: "critical", Severity.WARNING: "major", Severity.INFO: "info"}


def gitlab_report(
    diagnostics: Sequence[Diagnostic], sources: Mapping[str, SourceFile], root: str
) -> list[dict[str, Any]]:
    report = []
    for d, line_print in zip(diagnostics, fingerprints(diagnostics, sources), strict=True):
        path = relative_path(d.path, root)
        key = f"{path}\0{d.code}\0{line_print}\0{d.variant or ''}"
        issue: dict[str, Any] = {
            "type": "issue",
            "check_name": f"{d.code} {d.name}",
            "description": f"{d.code}: {d.message}" + (f" [{d.variant}]" if d.variant else ""),
            "categories": ["Performance"] if d.code[2] in "12" else ["Bug Risk"],
            "severity": SEVERITIES[d.severity],
            "fingerprint": hashlib.md5(key.encode("utf-8")).hexdigest(),
            "location": {"path": path, "lines": {"begin": d.start.row, "end": d.end.row}},
        }
        if d.details():  # GitLab shows `content.body` (Markdown) under the description
            issue["content"] = {"body": "\n\n".join(d.details())}
        report.append(issue)
    return report


def print_gitlab(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, SourceFile],
    out: IO[str],
    errors: Sequence[str] = (),
) -> None:
    json.dump(gitlab_report(diagnostics, sources, repository_root()), out, indent=2)
    out.write("\n")
