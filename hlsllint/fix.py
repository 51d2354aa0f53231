"""Applying fixes: non-overlapping edits per file, shown as a diff or written (`hlsllint.writing`)."""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hlsllint.diagnostics import Applicability, Diagnostic, Edit

MAX_FIXES_TRIED_ALONE = 200
"""A file whose fixes together would break its parse has its fixes tried one by one, up to this
many; past it they are all left out (each try parses the file)."""


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
    for path, fixes in _chosen(texts, diagnostics, unsafe).items():
        for diag, edits in fixes:
            by_file.setdefault(path, []).extend(edits)
            if diag.fix is not None and diag.fix.edits[0].path == path:
                counts[path] = counts.get(path, 0) + 1
    for file_edits in by_file.values():
        file_edits.sort(key=lambda e: (e.start, e.end))
    return by_file, counts


def _chosen(
    texts: dict[str, str], diagnostics: Iterable[Diagnostic], unsafe: bool
) -> dict[str, list[tuple[Diagnostic, list[Edit]]]]:
    """Per file, each applicable fix (in finding order) whose edits overlap no earlier one's,
    with its edits in that file."""
    out: dict[str, list[tuple[Diagnostic, list[Edit]]]] = {}
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
        for path in dict.fromkeys(e.path for e in edits):
            out.setdefault(path, []).append((diag, [e for e in edits if e.path == path]))
    return out


def _applied(text: str, edits: Iterable[Edit]) -> str:
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[: e.start] + e.content + text[e.end :]
    return text


def apply_fixes(
    texts: dict[str, str],
    diagnostics: Iterable[Diagnostic],
    unsafe: bool,
    keeps: Callable[[str, str], bool] | None = None,
    dropped: list[Diagnostic] | None = None,
) -> dict[str, FixedFile]:
    """Apply every applicable fix whose edits do not overlap an earlier one. Returns changed files.

    With `keeps(before, after)` (`parses_as_well`), a file's fixes are applied only if it accepts
    the result; else each fix is tried alone, and those it rejects are left out (added to
    `dropped`), as are all of the file's fixes when together they are still rejected."""
    out: dict[str, FixedFile] = {}
    for path, fixes in _chosen(texts, diagnostics, unsafe).items():
        before = texts[path]
        kept = fixes
        text = _applied(before, [e for _d, edits in fixes for e in edits])
        if keeps is not None and text != before and not keeps(before, text):
            if len(fixes) <= MAX_FIXES_TRIED_ALONE:
                kept = [(d, edits) for d, edits in fixes if keeps(before, _applied(before, edits))]
                text = _applied(before, [e for _d, edits in kept for e in edits])
            if len(kept) == len(fixes) or (kept and not keeps(before, text)):
                kept = []
            text = _applied(before, [e for _d, edits in kept for e in edits])
            if dropped is not None:
                taken = {id(d) for d, _e in kept}
                dropped.extend(d for d, _e in fixes if id(d) not in taken)
        count = sum(1 for d, _e in kept if d.fix is not None and d.fix.edits[0].path == path)
        if text != before:
            out[path] = FixedFile(path, text, count)
    return out


def parses_as_well(before: str, after: str) -> bool:
    """Whether a file's fixed text leaves no more code the grammar cannot read than it had (a
    fix never turns code into HL000)."""
    return _unparsed_regions(after) <= _unparsed_regions(before)


@functools.lru_cache(maxsize=4)
def _unparsed_regions(text: str) -> int:
    from hlsllint.syntax import parse

    return len(parse(text).unparsed)


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
