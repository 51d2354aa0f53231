"""`pylint`: pylint's parseable one-line format (plain text: unlike `output/text.py` it needs no
rich, whose import is a tenth of a small lint's start-up)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import IO

from hlsllint.diagnostics import Diagnostic
from hlsllint.source import SourceFile


def print_pylint(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, SourceFile],
    out: IO[str],
    errors: Sequence[str] = (),
) -> None:
    """pylint's parseable format, `path:row: [CODE(name)] message`, one finding per line."""
    for d in diagnostics:
        variant = f" [{d.variant}]" if d.variant else ""
        out.write(f"{d.path}:{d.start.row}: [{d.code}({d.name})] {d.message}{variant}\n")
