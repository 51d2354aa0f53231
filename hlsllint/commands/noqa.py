"""`hlsllint check --add-noqa`: a `// noqa: CODE` on the line of every finding.

Codes are merged into a directive already on the line (`// noqa: HL101` becomes
`// noqa: HL101, HL105`); a bare `// noqa` already suppresses everything and is left alone. Running
it twice changes nothing the second time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from hlsllint.diagnostics import Diagnostic
from hlsllint.noqa import CODE_RE, LINE_RE
from hlsllint.source import SourceFile


def add_noqa(source: SourceFile, diagnostics: Iterable[Diagnostic]) -> tuple[str, int]:
    """The file's text with the directives added, and how many lines changed."""
    wanted: dict[int, set[str]] = {}
    for d in diagnostics:
        wanted.setdefault(d.noqa_row, set()).add(d.code)
    lines = source.text.splitlines(keepends=True)
    changed = 0
    for row, codes in sorted(wanted.items()):
        if not 1 <= row <= len(lines):
            continue
        line = lines[row - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        m = LINE_RE.search(body)
        if m is not None and m.group("codes") is None:
            continue  # a bare noqa suppresses every code already
        if m is not None:
            present = [c.upper() for c in CODE_RE.findall(m.group("codes"))]
            missing = sorted(codes - set(present))
            if not missing:
                continue
            merged = ", ".join(present + missing)
            body = body[: m.start()] + f"// noqa: {merged}" + body[m.end() :]
        else:
            body = body.rstrip() + f"  // noqa: {', '.join(sorted(codes))}"
        lines[row - 1] = body + ending
        changed += 1
    return "".join(lines), changed


def add_noqa_all(
    sources: Mapping[str, SourceFile], diagnostics: Iterable[Diagnostic]
) -> dict[str, tuple[str, int]]:
    """New text and count per file that changes (files that cannot be rewritten are skipped)."""
    by_path: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_path.setdefault(d.path, []).append(d)
    out = {}
    for path, found in by_path.items():
        src = sources.get(path)
        if src is None or not src.writable:
            continue
        text, n = add_noqa(src, found)
        if n:
            out[path] = (text, n)
    return out
