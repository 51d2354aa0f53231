"""GitHub Actions workflow commands (`--output-format github`): one annotation per finding.

`::warning file=shaders/a.hlsl,line=4,col=12,endLine=4,endColumn=23,title=HL105 sign-for-sign-bit::...`
Paths are relative to the repository root (as GitHub expects), like the SARIF output.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import IO

from hlsllint.diagnostics import Diagnostic, Severity
from hlsllint.output.sarif import relative_path, repository_root
from hlsllint.source import SourceFile

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """Escape a command's message (GitHub's `escapeData`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value (GitHub's `escapeProperty`): the message escapes plus `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic, root: str) -> str:
    props = {
        "file": relative_path(d.path, root),
        "line": str(d.start.row),
        "col": str(d.start.column),
        "endLine": str(d.end.row),
        "endColumn": str(d.end.column),
        "title": f"{d.code} {d.name}",
    }
    message = "\n".join([d.message + (f" [{d.variant}]" if d.variant else ""), *d.details()])
    joined = ",".join(f"{k}={escape_property(v)}" for k, v in props.items())
    return f"::{COMMANDS[d.severity]} {joined}::{escape_data(message)}"


def print_github(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, SourceFile],
    out: IO[str],
    errors: Sequence[str] = (),
) -> None:
    root = repository_root()
    for d in diagnostics:
        out.write(annotation(d, root) + "\n")
