"""`hlsllint check --add-noqa`: a `// noqa: CODE` on the line of every finding.

Codes are merged into a directive already on the line (`// noqa: HL101` becomes
`// noqa: HL101, HL105`); a bare `// noqa` already suppresses everything and is left alone. Running
it twice changes nothing the second time.

Every finding gets one, the engine's (HL000, HL002-HL006) included, except those that no comment
can carry; each of those is returned with the reason, for the summary to say so:
- HL001 reports a `noqa` directive itself (a directive on its line does not suppress it): `--fix`
  removes the unused directive;
- a finding on a line continued with `\\` (a comment there would end the macro or directive);
- a finding in a file that cannot be read as text (binary, over the size limit) or rewritten
  byte for byte, or read from standard input.
A file that is not valid UTF-8, or is UTF-16 or UTF-32, is edited through a lossless decoding of
its bytes, so every byte outside the added comments stays as it was.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from hlsllint.diagnostics import Diagnostic
from hlsllint.files import read_regular
from hlsllint.noqa import CODE_RE, LINE_RE
from hlsllint.source import SourceError, SourceFile

_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
"""A file's lines with their endings, split where SourceFile counts rows (LF, CRLF, a lone CR);
not `str.splitlines`, which also splits at form feeds and U+2028."""


@dataclass
class Added:
    """What `--add-noqa` does: the new bytes of each file it changes, how many directives it added
    or extended, and the findings no directive can carry (with why)."""

    files: dict[str, bytes] = field(default_factory=dict)
    originals: dict[str, bytes] = field(default_factory=dict)
    """The bytes each changed file held when it was read (it is not written if it changed since)."""
    counts: dict[str, int] = field(default_factory=dict)
    """Directives added or extended per file."""
    directives: int = 0
    refused: list[tuple[Diagnostic, str]] = field(default_factory=list)


def add_noqa(text: str, diagnostics: Iterable[Diagnostic]) -> tuple[str, int, list[tuple[Diagnostic, str]]]:
    """`text` with the directives added, how many lines changed, and the findings refused."""
    wanted: dict[int, list[Diagnostic]] = {}
    refused: list[tuple[Diagnostic, str]] = []
    for d in diagnostics:
        if d.code == "HL001":
            refused.append((d, "it reports a `noqa` directive; `--fix` removes the unused one"))
        else:
            wanted.setdefault(d.noqa_row, []).append(d)
    lines = _LINES.findall(text)
    changed = 0
    for row, found in sorted(wanted.items()):
        if not 1 <= row <= len(lines):
            refused += [(d, f"the file has no line {row}") for d in found]
            continue
        codes = {d.code for d in found}
        line = lines[row - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        if body.endswith("\\"):
            refused += [(d, "its line continues with `\\`: a comment there would end it") for d in found]
            continue
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
    return "".join(lines), changed, refused


def add_noqa_all(
    sources: Mapping[str, SourceFile], diagnostics: Iterable[Diagnostic], stdin: str | None = None
) -> Added:
    """The new bytes of every file that changes; findings in files that cannot be edited (or in
    `stdin`, the name standard input was read as) are refused."""
    by_path: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_path.setdefault(d.path, []).append(d)
    out = Added()
    for path, found in by_path.items():
        src = sources.get(path)
        if path == stdin:
            out.refused += [(d, "it was read from standard input") for d in found]
            continue
        editable = None if src is None else _lossless(src)
        if editable is None:
            out.refused += [(d, "its file cannot be read as text") for d in found]
            continue
        text, encode, original = editable
        new, n, refused = add_noqa(text, found)
        out.refused += refused
        if n:
            out.files[path] = encode(new)
            out.originals[path] = original
            out.counts[path] = n
            out.directives += n
    out.refused.sort(key=lambda r: r[0].sort_key())
    return out


def _lossless(src: SourceFile) -> tuple[str, Callable[[str], bytes], bytes] | None:
    """The file's text, how to write it back with only the edits changed, and its bytes as read:
    the loaded text for a clean UTF-8 file; the bytes on disk decoded without loss for one that is
    not valid UTF-8 (invalid bytes kept as surrogates) or is UTF-16 or UTF-32 (its byte order and
    BOM kept). None when the file on disk no longer reads as the text that was linted."""
    if src.writable:
        return src.text, src.to_bytes, src.to_bytes()
    try:
        raw = read_regular(src.path)
        if SourceFile.from_bytes(src.path, raw).text != src.text:  # changed since the lint
            return None
        if src.encoding in ("utf-16", "utf-32"):
            width = 2 if src.encoding == "utf-16" else 4
            bom = raw[:width]
            little = bom in (codecs.BOM_UTF16_LE, codecs.BOM_UTF32_LE)
            codec = f"{src.encoding}-{'le' if little else 'be'}"
            return raw[width:].decode(codec), lambda text: bom + text.encode(codec), raw
        utf8_bom = b"\xef\xbb\xbf" if raw.startswith(b"\xef\xbb\xbf") else b""
        text = raw[len(utf8_bom) :].decode("utf-8", "surrogateescape")
    except (OSError, UnicodeDecodeError, SourceError):
        return None
    return text, lambda new: utf8_bom + new.encode("utf-8", "surrogateescape"), raw
