"""`// noqa` suppressions: per line (`// noqa`, `// noqa: HL101, HL105`) and per file
(`// hlsllint: noqa` or `// hlsllint: noqa: HL101`), and the HL001 report of unused ones."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hlsllint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from hlsllint.registry import close_codes
from hlsllint.source import SourceFile

# A code as users may mistype it (`HL1O5`, `E501`): read as a code, so that it suppresses nothing
# and HL001 names it, instead of leaving a bare `// noqa` that suppresses everything.
_CODE = r"[A-Za-z]{1,4}[0-9][A-Za-z0-9]*"
_CODES = rf"{_CODE}(?:\s*,\s*{_CODE}|\s+{_CODE})*"
LINE_RE = re.compile(rf"//\s*noqa(?P<sep>\s*:\s*(?P<codes>{_CODES}))?", re.IGNORECASE)
FILE_RE = re.compile(rf"//\s*hlsllint\s*:\s*noqa(?:\s*:\s*(?P<codes>{_CODES}))?", re.IGNORECASE)
CODE_RE = re.compile(_CODE)


@dataclass
class Directive:
    row: int
    start: int
    """Offset of the `//` of the directive."""
    end: int
    codes: list[tuple[str, int, int]]
    """(code, start, end) of each listed code; empty for a bare `// noqa`."""
    used: set[str] = field(default_factory=set)
    used_bare: bool = False


@dataclass
class Suppressions:
    lines: dict[int, Directive]
    file_codes: set[str] | None
    """None: no file-level directive; empty set: the whole file is suppressed."""

    def suppresses(self, diag: Diagnostic) -> bool:
        if self.file_codes is not None and (not self.file_codes or diag.code in self.file_codes):
            return True
        d = self.lines.get(diag.noqa_row)
        if d is None:
            return False
        if not d.codes:
            d.used_bare = True
            return True
        if any(c == diag.code for c, _, _ in d.codes):
            d.used.add(diag.code)
            return True
        return False


def parse_suppressions(source: SourceFile) -> Suppressions:
    lines: dict[int, Directive] = {}
    file_codes: set[str] | None = None
    text = source.text
    if "noqa" not in text.lower():
        return Suppressions(lines, None)
    blanket = False
    for m in FILE_RE.finditer(text):
        listed = {c.upper() for c in CODE_RE.findall(m.group("codes") or "")}
        blanket = blanket or not listed
        file_codes = set() if blanket else (file_codes or set()) | listed
    for m in LINE_RE.finditer(text):
        start = m.start()
        line_start = text.rfind("\n", 0, start) + 1
        prefix = text[line_start:start]
        if FILE_RE.match(text, start) or _inside_string(prefix):
            continue
        codes: list[tuple[str, int, int]] = []
        if m.group("codes"):
            base = m.start("codes")
            for cm in CODE_RE.finditer(m.group("codes")):
                codes.append((cm.group().upper(), base + cm.start(), base + cm.end()))
        row = source.location(start).row
        lines[row] = Directive(row, start, m.end(), codes)
    return Suppressions(lines, file_codes)


def _inside_string(prefix: str) -> bool:
    return prefix.count('"') % 2 == 1


def unused_noqa(source: SourceFile, sup: Suppressions, known: set[str]) -> list[Diagnostic]:
    """HL001 findings for directives (or listed codes) that suppressed nothing."""
    out: list[Diagnostic] = []
    for d in sup.lines.values():
        if not d.codes:
            if not d.used_bare:
                out.append(
                    _hl001(
                        source,
                        d.start,
                        d.end,
                        "Unused blanket `noqa` directive",
                        d.start,
                        d.end,
                        "",
                    )
                )
            continue
        unused = [(c, s, e) for c, s, e in d.codes if c not in d.used]
        if not unused:
            continue
        names = ", ".join(c for c, _, _ in unused)
        unknown = [c for c, _, _ in unused if c not in known]
        what = "unknown code" if len(unknown) == len(unused) else "unused"
        guesses = [close[0] for close in map(close_codes, unknown) if close]
        hint = f"; did you mean {', '.join(f'`{g}`' for g in guesses)}?" if guesses else ""
        message = f"Unused `noqa` directive ({what}: {names}{hint})"
        kept = [c for c, _, _ in d.codes if c in d.used]
        # Fix: drop the unused codes, or the whole comment when none is left.
        if kept:
            fix_start, fix_end = d.codes[0][1], d.codes[-1][2]
            content = ", ".join(kept)
        else:
            fix_start, fix_end = d.start, d.end
            while fix_start > 0 and source.text[fix_start - 1] in " \t":
                fix_start -= 1
            content = ""
        out.append(_hl001(source, d.start, d.end, message, fix_start, fix_end, content))
    return out


def _hl001(
    source: SourceFile,
    start: int,
    end: int,
    message: str,
    fix_start: int,
    fix_end: int,
    content: str,
) -> Diagnostic:
    edit = Edit(
        source.path,
        fix_start,
        fix_end,
        content,
        source.location(fix_start),
        source.location(fix_end),
    )
    return Diagnostic(
        code="HL001",
        name="unused-noqa",
        message=message,
        severity=Severity.WARNING,
        path=source.path,
        start_offset=start,
        end_offset=end,
        start=source.location(start),
        end=source.location(end),
        fix=Fix("Remove unused `noqa` directive", Applicability.SAFE, (edit,)),
    )
