"""Terminal output: `full` (code frames with a caret range, via rich), `concise` and `grouped`
(findings under their file name)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import IO

from rich.console import Console
from rich.text import Text

from hlsllint.diagnostics import Applicability, Diagnostic, Severity
from hlsllint.source import SourceFile

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.INFO: "bold blue"}


def _console(out: IO[str]) -> Console:
    return Console(file=out, highlight=False, soft_wrap=True, emoji=False)


def _finding(t: Text, d: Diagnostic) -> Text:
    """Append `CODE [*] message [variant]` to `t`."""
    t.append(d.code, style=_STYLE[d.severity])
    if d.fix is not None and d.fix.applicability is Applicability.SAFE:
        t.append(" [*]", style="cyan")
    t.append(" " + d.message)
    if d.variant:
        t.append(f" [{d.variant}]", style="dim")
    return t


def _header(d: Diagnostic) -> Text:
    t = Text()
    t.append(d.path, style="bold")
    t.append(f":{d.start.row}:{d.start.column}: ", style="cyan")
    return _finding(t, d)


def print_concise(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, SourceFile],
    out: IO[str],
    errors: Sequence[str] = (),
) -> None:
    console = _console(out)
    for d in diagnostics:
        console.print(_header(d))


def print_full(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, SourceFile],
    out: IO[str],
    errors: Sequence[str] = (),
) -> None:
    console = _console(out)
    for d in diagnostics:
        console.print(_header(d))
        src = sources.get(d.path)
        if src is not None and src.text:
            _frame(console, src, d)
        # A rule's help says what its fix does; without one, the fix's title is the help (as ruff's).
        help = d.help or (d.fix.message if d.fix is not None else None)
        if help:
            console.print(Text(f"  = help: {help}", style="cyan"))
        for n in d.notes:
            console.print(Text(f"  = note: {n}", style="dim"))
        for r in d.related:
            console.print(
                Text(f"  = note: {r.path}:{r.start.row}:{r.start.column}: {r.message}", style="dim")
            )
        console.print()


def _frame(console: Console, src: SourceFile, d: Diagnostic) -> None:
    first = max(1, d.start.row - 1)
    last = min(src.line_count, max(d.end.row, d.start.row) + 1)
    if d.end.row - d.start.row > 6:  # long ranges: show the start only
        last = min(src.line_count, d.start.row + 1)
    width = len(str(last))
    gutter = " " * width + " |"
    console.print(Text(gutter, style="blue"))
    for row in range(first, last + 1):
        line = src.line(row).replace("\t", " ")  # one column per code point keeps carets aligned
        t = Text(f"{row:>{width}} | ", style="blue")
        t.append(line)
        console.print(t)
        if d.start.row <= row <= d.end.row:
            start_col = d.start.column if row == d.start.row else 1
            end_col = d.end.column if row == d.end.row else len(line) + 1
            carets = max(1, end_col - start_col)
            mark = Text(gutter + " " + " " * (start_col - 1), style="blue")
            mark.append(
                "^" * carets + (f" {d.code}" if row == d.end.row or row == last else ""),
                style=_STYLE[d.severity],
            )
            console.print(mark)
    console.print(Text(gutter, style="blue"))


def print_grouped(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, SourceFile],
    out: IO[str],
    errors: Sequence[str] = (),
) -> None:
    """Findings grouped under their file's name, `row:col CODE message` lines aligned per file."""
    console = _console(out)
    by_path: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_path.setdefault(d.path, []).append(d)
    for path, found in by_path.items():
        console.print(Text(path, style="bold underline"))
        width = max(len(f"{d.start.row}:{d.start.column}") for d in found)
        for d in found:
            line = Text("  ")
            line.append(f"{d.start.row}:{d.start.column}".ljust(width) + " ", style="cyan")
            console.print(_finding(line, d))
        console.print("")
