"""The analysis copy of a text that the repair passes scan (`repair_passes`): one byte per code
point, comments, strings and preprocessor lines masked, blanked in place as the passes edit it."""

from __future__ import annotations

import re

# Comments, string/char literals and preprocessor lines (with continuations) are masked out of
# the analysis copy of the text so that the scanners below never look inside them.
_DIRECTIVE_LINE = rb"[ \t]*#(?:[^\n\\]|\\.|\\\n)*"
_MASK = re.compile(
    rb"//[^\n]*(?:\n[ \t]*//[^\n]*)*+|/\*.*?(?:\*/|\Z)|\"(?:[^\"\\\n]|\\.)*\"?|'(?:[^'\\\n]|\\.)*'?|\n"
    + _DIRECTIVE_LINE,
    re.S,
)
"""Every alternative starts with a fixed character, so that `re` skips ahead to the next one
fast. A directive line is matched with the line break in front of it (blanking keeps line
breaks): no earlier match can end just after a line break that a directive follows, so these
are the regions that `^[ \t]*#...` matched; the first line is looked at on its own. Lines of
`//` comments one after the other are one match (the indentation between them is blanked too,
and the scanners take a blank for the tab it was)."""
_FIRST_DIRECTIVE = re.compile(_DIRECTIVE_LINE, re.S)
_NON_NL_STR = re.compile(r"[^\n]")
_BLANK = bytes(10 if b == 10 else 32 for b in range(256))
"""`bytes.translate` table: every byte but a newline becomes a space."""
_WS = re.compile(rb"\s*")
_BRACKETS_OF = {
    ord("("): re.compile(rb"[();]"),
    ord("["): re.compile(rb"[\[\];]"),
    ord("{"): re.compile(rb"[{}]"),
}
"""What `match_close` looks at after an opening bracket of each kind."""
_SPACE_BYTES = b" \t\r\n\f\v"
SPACE = frozenset(_SPACE_BYTES)
IDENT_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


class Scanner:
    """The analysis copy of the text: one byte per code point, masked, blanked in place."""

    def __init__(self, text: str) -> None:
        if text.isascii():
            raw = bytearray(text.encode("ascii"))
        else:
            raw = bytearray(ch if ch < 128 else 97 for ch in map(ord, text))
        self.buf = raw
        self.orig = bytes(raw)
        # Masked bytes keep their newlines so line-based patterns still work.
        orig = self.orig
        first = _FIRST_DIRECTIVE.match(orig)
        pos = 0
        if first is not None:
            pos = first.end()
            raw[:pos] = orig[:pos].translate(_BLANK)
        last_end = pos
        line_comment = False
        for m in _MASK.finditer(orig, pos):
            s, e = m.span()
            raw[s:e] = orig[s:e].translate(_BLANK)
            last_end = e
            line_comment = orig[s] == 47 and orig[s + 1] == 47
        self.mask_end = last_end
        """Where the last masked region ends (a comment, string or directive line)."""
        self.line_comment_end = line_comment and last_end == len(orig) - 1
        """Whether that region is a run of `//` lines ending right before a last line break."""
        self.edits: dict[int, tuple[int, str]] = {}
        """start -> (end, replacement) for the output text."""
        self.read_past_end = False
        """Whether a pass looked for something past the end of the text (what follows the
        text could have changed what it did: `_piece`)."""
        self.read_before_start = False
        """Whether a pass walked back to the start of the text inside brackets (what precedes
        it could have changed what it did)."""

    # -- editing ----------------------------------------------------------------------------

    def blank(self, start: int, end: int, text: str) -> None:
        """Replace [start, end) by spaces (newlines kept) in both the analysis copy and output."""
        self.buf[start:end] = self.buf[start:end].translate(_BLANK)
        piece = text[start:end]
        self.edits[start] = (end, _NON_NL_STR.sub(" ", piece) if "\n" in piece else " " * len(piece))

    def replace(self, start: int, new: str) -> None:
        end = start + len(new)
        self.buf[start:end] = new.encode("ascii")
        self.edits[start] = (end, new)

    def apply(self, text: str) -> str:
        if not self.edits:
            return text
        parts: list[str] = []
        pos = 0
        for start in sorted(self.edits):
            end, new = self.edits[start]
            if start < pos:  # overlapping edits should not happen; keep the first
                continue
            parts.append(text[pos:start])
            parts.append(new)
            pos = end
        parts.append(text[pos:])
        return "".join(parts)

    # -- looking around -----------------------------------------------------------------------

    def prev_sig(self, pos: int) -> int:
        """Index of the last non-space byte before `pos`, or -1."""
        buf = self.buf
        i = pos - 1
        if i < 0 or buf[i] not in SPACE:
            return i
        # A blanked comment can be a long run of spaces: strip it in windows, not byte by byte.
        size = 64
        while i >= 0:
            start = max(0, i + 1 - size)
            kept = len(buf[start : i + 1].rstrip(_SPACE_BYTES))
            if kept:
                return start + kept - 1
            i = start - 1
            size *= 4
        return -1

    def next_sig(self, pos: int) -> int:
        """Index of the first non-space byte at or after `pos` (len(buf) at the end)."""
        m = _WS.match(self.buf, pos)
        end = m.end() if m else pos
        if end >= len(self.buf):
            self.read_past_end = True
        return end

    def word_before(self, end: int) -> bytes:
        """The identifier that ends at `end` (exclusive), or b""."""
        buf = self.buf
        i = end
        while i > 0 and buf[i - 1] in IDENT_CHARS:
            i -= 1
        return bytes(buf[i:end])

    def match_close(self, open_pos: int) -> int:
        """Index of the bracket closing the one at `open_pos`, or -1 (brackets of one kind)."""
        buf = self.buf
        opener = buf[open_pos]
        depth = 0
        # Only the brackets of this kind (and `;`, never inside () or []) are looked at.
        for m in _BRACKETS_OF[opener].finditer(buf, open_pos):
            c = buf[m.start()]
            if c == opener:
                depth += 1
            elif c == 59:
                return -1
            else:
                depth -= 1
                if depth == 0:
                    return m.start()
        self.read_past_end = True
        return -1

    def match_open(self, close_pos: int) -> int:
        """Index of the `(` that the `)` at `close_pos` closes, or -1."""
        buf = self.buf
        depth = 0
        for i in range(close_pos, -1, -1):
            c = buf[i]
            if c == 41:
                depth += 1
            elif c == 40:
                depth -= 1
                if depth == 0:
                    return i
            elif c in (59, 123, 125):
                return -1
        return -1


_SPLIT_MARKS = re.compile(r"[\"'(\[{<)\]}>,]")
"""The characters `split_args` acts on (the others are skipped in one step)."""


def split_args(text: str) -> tuple[str, ...]:
    if not text.strip():
        return ()
    args: list[str] = []
    depth = 0
    start = 0
    quote = ""
    for m in _SPLIT_MARKS.finditer(text):
        ch = m.group()
        if quote:
            i = m.start()
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif depth == 0:  # a comma
            i = m.start()
            args.append(text[start:i].strip())
            start = i + 1
    args.append(text[start:].strip())
    return tuple(args)
