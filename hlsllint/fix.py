"""Applying fixes: non-overlapping edits per file, shown as a diff or written (`hlsllint.writing`)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from hlsllint.diagnostics import Applicability, Diagnostic, Edit


@dataclass
class FixedFile:
    path: str
    text: str
    fixes: int


def applicable(diag: Diagnostic, unsafe: bool) -> bool:
    if diag.fix is None or not diag.fix.edits:
        return False
    if diag.fix.applicability is Applicability.SAFE:
        return True
    return unsafe and diag.fix.applicability is Applicability.UNSAFE


def chosen_edits(
    texts: dict[str, str], diagnostics: Iterable[Diagnostic], unsafe: bool
) -> tuple[dict[str, list[Edit]], dict[str, int]]:
    """The edits of every applicable fix whose edits do not overlap an earlier one, per file
    (sorted by place), and how many fixes each file gets."""
    by_file: dict[str, list[Edit]] = {}
    counts: dict[str, int] = {}
    taken: dict[str, list[tuple[int, int]]] = {}
    for diag in sorted(diagnostics, key=Diagnostic.sort_key):
        if not applicable(diag, unsafe):
            continue
        assert diag.fix is not None
        edits = diag.fix.edits
        if any(e.path not in texts for e in edits):
            continue
        if any(_overlaps(taken.get(e.path, []), e) for e in edits):
            continue
        for e in edits:
            taken.setdefault(e.path, []).append((e.start, e.end))
            by_file.setdefault(e.path, []).append(e)
        counts[edits[0].path] = counts.get(edits[0].path, 0) + 1
    for file_edits in by_file.values():
        file_edits.sort(key=lambda e: (e.start, e.end))
    return by_file, counts


def apply_fixes(
    texts: dict[str, str], diagnostics: Iterable[Diagnostic], unsafe: bool
) -> dict[str, FixedFile]:
    """Apply every applicable fix whose edits do not overlap an earlier one. Returns changed files."""
    by_file, counts = chosen_edits(texts, diagnostics, unsafe)
    out: dict[str, FixedFile] = {}
    for path, file_edits in by_file.items():
        text = texts[path]
        for e in sorted(file_edits, key=lambda e: (e.start, e.end), reverse=True):
            text = text[: e.start] + e.content + text[e.end :]
        if text != texts[path]:
            out[path] = FixedFile(path, text, counts.get(path, 0))
    return out


def _overlaps(ranges: list[tuple[int, int]], e: Edit) -> bool:
    return any((s < e.end and e.start < t) or (s == t == e.start == e.end) for s, t in ranges)


def unified_diff(path: str, before: str, after: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )
