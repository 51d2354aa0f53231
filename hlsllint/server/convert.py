"""From the diagnostics model to LSP types, and LSP positions back to offsets.

hlsllint counts 1-based rows and code-point columns; LSP counts 0-based lines and characters in
the negotiated encoding (UTF-16 code units unless the client asks otherwise). pygls's
`PositionCodec` does the unit conversion; this module supplies the lines the way hlsllint splits
them (on `\\n` only, so form feeds and other Unicode line breaks do not shift rows).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from lsprotocol import types
from pygls import uris
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

from hlsllint import rule_url
from hlsllint.diagnostics import Applicability, Diagnostic, Edit, Severity
from hlsllint.noqa import parse_suppressions
from hlsllint.source import Location, SourceFile

SOURCE = "hlsllint"

SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def lines_of(src: SourceFile) -> list[str]:
    """The lines of `src` with their line endings, split as hlsllint splits them."""
    starts = src.line_starts
    ends = [*starts[1:], len(src.text)]
    return [src.text[s:e] for s, e in zip(starts, ends, strict=True)]


class Positions:
    """Converts between hlsllint locations/offsets and LSP positions for one source text."""

    def __init__(self, src: SourceFile, codec: PositionCodec) -> None:
        self.src = src
        self.codec = codec
        self.lines = lines_of(src)

    def position(self, loc: Location) -> types.Position:
        line = loc.row - 1
        if line >= len(self.lines):
            return types.Position(line=len(self.lines), character=0)
        return self.codec.position_to_client_units(self.lines, ServerTextPosition(line, loc.column - 1))

    def range(self, start: Location, end: Location) -> types.Range:
        return types.Range(start=self.position(start), end=self.position(end))

    def offset(self, pos: types.Position) -> int:
        if not self.lines:
            return 0
        if pos.line >= len(self.lines):
            return len(self.src.text)
        probe = types.Position(line=pos.line, character=pos.character)  # the codec may modify it
        server = self.codec.position_from_client_units(self.lines, probe)
        line = self.lines[server.line].rstrip("\r\n")
        return self.src.line_starts[server.line] + min(server.character, len(line))

    def whole(self) -> types.Range:
        """The range of the whole text."""
        end = self.src.location(len(self.src.text))
        return types.Range(start=types.Position(line=0, character=0), end=self.position(end))


def to_lsp(
    d: Diagnostic, pos: Positions, sources: Mapping[str, SourceFile] | None = None
) -> types.Diagnostic:
    """The LSP diagnostic of a finding; its related locations (a register peak in a header, a
    declaration) become `relatedInformation`, positioned with the text of their own file when
    `sources` holds it."""
    message = "\n".join([d.message + (f" [{d.variant}]" if d.variant else ""), *d.details()])
    tags = [types.DiagnosticTag.Unnecessary] if d.code == "HL001" else None
    related = None
    if d.related:
        related = []
        for r in d.related:
            here: Positions | None = pos
            if os.path.normpath(r.path) != os.path.normpath(pos.src.path):
                other = (sources or {}).get(r.path)
                here = Positions(other, pos.codec) if other is not None else None
            rng = (
                here.range(r.start, r.end)
                if here is not None
                else types.Range(
                    start=types.Position(line=r.start.row - 1, character=r.start.column - 1),
                    end=types.Position(line=r.end.row - 1, character=r.end.column - 1),
                )
            )
            uri = uris.from_fs_path(os.path.abspath(r.path)) or r.path
            related.append(
                types.DiagnosticRelatedInformation(
                    location=types.Location(uri=uri, range=rng), message=r.message
                )
            )
    return types.Diagnostic(
        range=pos.range(d.start, d.end),
        message=message,
        severity=SEVERITIES[d.severity],
        code=d.code,
        code_description=types.CodeDescription(href=rule_url(d.code)),
        source=SOURCE,
        tags=tags,
        related_information=related,
    )


def text_edit(e: Edit, pos: Positions) -> types.TextEdit:
    return types.TextEdit(range=pos.range(e.start_location, e.end_location), new_text=e.content)


def fix_title(d: Diagnostic) -> str:
    assert d.fix is not None
    unsafe = " (unsafe fix)" if d.fix.applicability is Applicability.UNSAFE else ""
    return f"{d.code}: {d.fix.message}{unsafe}"


def noqa_edit(d: Diagnostic, src: SourceFile, pos: Positions) -> tuple[str, types.TextEdit] | None:
    """Suppress `d` on its line: add its code to the line's `noqa`, or append `// noqa: CODE`."""
    directive = parse_suppressions(src).lines.get(d.noqa_row)
    if directive is not None:
        if not directive.codes:
            return None  # a blanket noqa already suppresses everything on the line
        at = src.location(directive.codes[-1][2])
        title = f"Add {d.code} to the `noqa` comment"
        edit = types.TextEdit(range=pos.range(at, at), new_text=f", {d.code}")
        return title, edit
    line = src.line(d.noqa_row)
    at = Location(d.noqa_row, len(line) + 1)
    separator = "" if not line.strip() else "  "
    title = f"Suppress {d.code} with `// noqa: {d.code}`"
    return title, types.TextEdit(range=pos.range(at, at), new_text=f"{separator}// noqa: {d.code}")


def overlaps(a: types.Range, b: types.Range) -> bool:
    """True when the ranges share a position (touching counts, as editors ask at the cursor)."""

    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def contains(r: types.Range, p: types.Position) -> bool:
    return (r.start.line, r.start.character) <= (p.line, p.character) <= (r.end.line, r.end.character)


def code_at(codes: Sequence[tuple[str, int, int]], offset: int) -> str | None:
    for code, start, end in codes:
        if start <= offset <= end:
            return code
    return None
