"""Position-preserving normalisation of HLSL text before tree-sitter parses it.

tree-sitter-hlsl 0.2.0 is a C++ grammar with a few HLSL additions, and it misreads or rejects
many everyday HLSL constructs. Rather than fork the grammar, we rewrite the text with
*same-length* replacements (so every kept token keeps its code-point offset) and record what was
removed as annotations:

- attributes `[numthreads(8,8,1)]`, `[unroll]`, `[[vk::binding(0)]]` are blanked (`Attribute`);
- semantics `: SV_Position` and bindings `: register(t0, space1)` / `: packoffset(c0.x)` are
  blanked (`Semantic`, `Register`);
- `cbuffer Name` / `tbuffer Name` become `struct  Name` and a whitespace character after the
  closing `}` becomes `;` when there is none (`Block`);
- HLSL-only modifiers that the grammar does not know where they appear (`unorm`, `snorm`,
  `sample`, `centroid`, `linear`, `noperspective`, `center`, GS primitive types `point`, `line`,
  `triangle`, `lineadj`, `triangleadj`, mesh-shader `indices`, `vertices`, `primitives`,
  `payload`) are blanked (`Modifier`); the same words used as names (`float sample = 1;`)
  get their first letter replaced by `_` so that the grammar reads them as identifiers;
- special float literals `1.#INF`, `1.#QNAN` have the `#...` part replaced by zeros.

Comments, strings and preprocessor directive lines are never touched.
"""

from __future__ import annotations

import itertools
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Literal

from hlsllint.deadline import current

Span = tuple[int, int]


@dataclass(frozen=True)
class Attribute:
    """`[name(args)]` or `[[ns::name(args)]]`; applies to the node that starts at `anchor`."""

    name: str
    args: tuple[str, ...]
    """The arguments as written, split at top-level commas and stripped (strings keep quotes)."""
    span: Span
    anchor: int
    double: bool = False
    """True for the C++11 / Vulkan form `[[...]]`."""
    macro: bool = False
    """True for an unexpanded macro in front of a statement, guessed to be an attribute."""


@dataclass(frozen=True)
class Semantic:
    """`: NAME` after a declarator that ends at `anchor`."""

    name: str
    span: Span
    anchor: int

    @property
    def base(self) -> str:
        """The semantic without its trailing index, upper-cased: `TEXCOORD3` -> `TEXCOORD`."""
        return self.name.rstrip("0123456789").upper()

    @property
    def index(self) -> int:
        digits = self.name[len(self.name.rstrip("0123456789")) :]
        return int(digits) if digits else 0


@dataclass(frozen=True)
class Register:
    """`: register([profile,] slot [, space])` or `: packoffset(slot)` after `anchor`."""

    kind: Literal["register", "packoffset", "read", "write"]
    slot: str
    """`b0`, `t3`, `u1`, `s0` for registers; `c1.x` for packoffset; for the payload access
    qualifiers `read(...)`/`write(...)` the stages as written, comma-separated."""
    space: str | None
    profile: str | None
    span: Span
    anchor: int


@dataclass(frozen=True)
class Modifier:
    """An HLSL modifier word removed from the text (e.g. `unorm`, `triangle`, `indices`)."""

    name: str
    span: Span
    macro: bool = False
    """True for an unexpanded macro guessed to be a qualifier (`FFX_GROUPSHARED`, `FFX_STATIC`)."""


@dataclass(frozen=True)
class Block:
    """A `cbuffer`/`tbuffer` rewritten to a struct; the struct_specifier starts at `anchor`."""

    kind: Literal["cbuffer", "tbuffer"]
    name: str
    span: Span
    """From the keyword to the closing brace (inclusive)."""
    anchor: int
    synthetic_semicolon: int | None
    """Offset of the character turned into `;` after the closing brace, if any."""


@dataclass
class Annotations:
    attributes: list[Attribute] = field(default_factory=list)
    semantics: list[Semantic] = field(default_factory=list)
    registers: list[Register] = field(default_factory=list)
    modifiers: list[Modifier] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    renamed: list[Span] = field(default_factory=list)
    """Spans of names that collide with HLSL keywords and were disguised for the parser."""
    effects: list[Span] = field(default_factory=list)
    """Effect-file state, blanked (it holds no shader code): `technique` blocks and the bodies of
    `sampler_state { ... }` and `SamplerState s { ... }` state objects."""


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
_IDENT = re.compile(rb"[A-Za-z_]\w*")
_WS = re.compile(rb"\s*")
_ATTR_NAME = re.compile(rb"\s*([A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*")
_BRACKET = re.compile(rb"\[")
_COLON = re.compile(rb":(?<!::)(?!:)")  # the literal first: re scans for it fast
_BUFFER = re.compile(rb"\b([ct]buffer)(\s+)([A-Za-z_]\w*)")
_SPECIAL_FLOAT = re.compile(rb"\.#(?:INF|IND|QNAN|SNAN)\b")
_BINDING = re.compile(rb"(register|packoffset|read|write)\s*\(")
_STATE_OBJECTS = (
    b"SamplerState",
    b"SamplerComparisonState",
    b"BlendState",
    b"DepthStencilState",
    b"RasterizerState",
)
_EFFECT = re.compile(
    rb"\b(?:technique(?:10|11)?\b(?:[^{;<]|<[^>]*>)*|sampler_state\s*"
    rb"|(?:" + b"|".join(_STATE_OBJECTS) + rb")"
    rb"\s+[A-Za-z_]\w*(?:\s*\[[^\]]*\])?\s*)(?=\{)"
)
"""The head of an effect file's state block, up to its `{`: a technique (its name and `<...>`
annotations), `= sampler_state`, or a D3D10 effect state object `SamplerState s`."""
_EFFECT_WORDS = (b"technique", b"sampler_state", *_STATE_OBJECTS)
"""The words an `_EFFECT` match starts with."""

# Words that the grammar treats as keywords but that HLSL code uses as modifiers in places the
# grammar does not expect them, or as plain names.
MODIFIER_WORDS = frozenset(
    {
        "sample",
        "centroid",
        "linear",
        "noperspective",
        "center",
        "point",
        "line",
        "triangle",
        "lineadj",
        "triangleadj",
        "indices",
        "vertices",
        "primitives",
        "payload",
        "unorm",
        "snorm",
        "row_major",
        "column_major",
        "reordercoherent",
    }
)
_MODIFIER_WORDS = tuple(w.encode() for w in sorted(MODIFIER_WORDS))
_MODIFIER = re.compile(rb"(?:" + b"|".join(_MODIFIER_WORDS) + rb")\b")
"""A modifier word; the caller checks that no identifier character comes before it (a pattern
that starts with `\b` would be tried at every offset; this one is tried where one of the words
is, `_matches_at_words`)."""
# Qualifiers the grammar accepts in declarations but not after `typedef`.
_TYPEDEF_QUALIFIERS = re.compile(
    rb"\btypedef((?:\s+(?:precise|nointerpolation|groupshared|uniform|shared|row_major"
    rb"|column_major|snorm|unorm)\b)+)"
)
_WORD = re.compile(rb"[A-Za-z_]\w*")
_CONTROL = frozenset({b"if", b"for", b"while", b"switch"})
_LABELS = frozenset({b"case", b"default", b"public", b"private", b"protected"})
_TYPE_HEADS = frozenset({b"struct", b"class", b"interface"})
_BRACKETS_OF = {
    ord("("): re.compile(rb"[();]"),
    ord("["): re.compile(rb"[\[\];]"),
    ord("{"): re.compile(rb"[{}]"),
}
"""What `match_close` looks at after an opening bracket of each kind."""
_SPACE_BYTES = b" \t\r\n\f\v"
_SPACE = frozenset(_SPACE_BYTES)
_IDENT_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


class _Scanner:
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
        if i < 0 or buf[i] not in _SPACE:
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
        while i > 0 and buf[i - 1] in _IDENT_CHARS:
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
"""The characters `_split_args` acts on (the others are skipped in one step)."""


def _split_args(text: str) -> tuple[str, ...]:
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


# -- passes -----------------------------------------------------------------------------------


def _attributes(sc: _Scanner, text: str, notes: Annotations) -> None:
    buf = sc.buf
    pending: list[tuple[str, tuple[str, ...], Span, bool]] = []
    for m in _BRACKET.finditer(sc.orig):
        start = m.start()
        if buf[start] != 91:  # already blanked (inside an earlier attribute)
            continue
        inner = sc.next_sig(start + 1)
        double = inner < len(buf) and buf[inner] == 91
        if not double and not _attribute_position(sc, start):
            continue
        name_at = inner + 1 if double else start + 1
        nm = _ATTR_NAME.match(buf, name_at)
        if nm is None:
            continue
        pos = nm.end()
        args: tuple[str, ...] = ()
        if pos < len(buf) and buf[pos] == 40:
            close = sc.match_close(pos)
            if close < 0:
                continue
            args = _split_args(text[pos + 1 : close])
            pos = sc.next_sig(close + 1)
        if double:
            # `[[a, b(1)]]` lists are rare; only the first attribute of the list is recorded.
            end = sc.match_close(start)
            if end < 0 or buf[end - 1] != 93 or sc.prev_sig(end - 1) < 0:
                continue
            end += 1
        else:
            if pos >= len(buf) or buf[pos] != 93:
                continue
            end = pos + 1
        name = re.sub(r"\s+", "", text[nm.start(1) : nm.end(1)])
        sc.blank(start, end, text)
        pending.append((name, args, (start, end), double))
    for name, args, span, double in pending:
        anchor = sc.next_sig(span[1])
        notes.attributes.append(Attribute(name, args, span, anchor, double))


def _attribute_position(sc: _Scanner, start: int) -> bool:
    """Whether a `[` at `start` begins a statement or declaration (so it is an attribute)."""
    p = sc.prev_sig(start)
    if p < 0:
        return True
    c = sc.buf[p]
    if c in b";{}:(,":  # `(` and `,`: attributes on parameters (`[MaxRecords(4)] NodeOutput<R> o`)
        return c != 58 or sc.buf[p - 1] != 58  # not after `::`
    if c == 41:  # `)` closing an if/for/while/switch header
        o = sc.match_open(p)
        if o >= 0 and sc.word_before(sc.prev_sig(o) + 1) in _CONTROL:
            return True
        return _after_macro_lines(sc, p)
    if c in _IDENT_CHARS:
        word = sc.word_before(p + 1)
        if word in (b"else", b"do", b"struct", b"class"):
            return True
        return _after_macro_lines(sc, p)
    return False


MACRO_LINES = 8
"""How many unexpanded macros in a row may stand in front of an attribute."""


def _after_macro_lines(sc: _Scanner, p: int) -> bool:
    """Whether the text ending at `p` is a run of unexpanded macros at the start of a
    declaration: `FFX_PREFER_WAVE64 [numthreads(...)]`, `META_CS(true, FEATURE_LEVEL_SM5)
    [numthreads(...)]`, `META_PERMUTATION_1(A=1) META_PERMUTATION_1(A=2) [numthreads(...)]`."""
    buf = sc.buf
    for _ in range(MACRO_LINES):
        if buf[p] == 41:  # `MACRO(args)`
            o = sc.match_open(p)
            if o < 0:
                return False
            p = sc.prev_sig(o)
            if p < 0 or buf[p] not in _IDENT_CHARS:
                return False
        word = sc.word_before(p + 1)
        if not _MACRO_LIKE.fullmatch(word):
            return False
        p = sc.prev_sig(p + 1 - len(word))
        if p < 0 or buf[p] in b";{}]":
            return True
        if buf[p] != 41 and buf[p] not in _IDENT_CHARS:
            return False
    return False


def _buffer_matches(buf: bytearray) -> Iterator[re.Match[bytes]]:
    """`_BUFFER.finditer(buf)`, trying the pattern only where `buffer` follows a `c` or `t`
    (a pattern that starts with `\\b` is tried at every offset by `re`)."""
    pos = 0
    while True:
        i = buf.find(b"buffer", pos + 1)
        if i < 0:
            return
        if buf[i - 1] in b"ct":
            m = _BUFFER.match(buf, i - 1)
            if m is not None:
                yield m
                pos = m.end()
                continue
        pos = i


def _matches_at_words(
    pattern: re.Pattern[bytes], buf: bytearray, words: tuple[bytes, ...]
) -> Iterator[re.Match[bytes]]:
    """`pattern.finditer(buf)` for a pattern whose every match starts with one of `words`, trying
    it only where one of them is. `re` has no fast search for a set of words: a pattern without
    a literal prefix is tried at every offset its first character allows (for `_MODIFIER`, most
    letters; for `_EFFECT`, which starts with `\\b`, every offset). As with `finditer`, each match
    is looked for in `buf` as it is then, and the next one from where it ends; the caller may
    blank what it matched or what follows it, which can only take matches away (the words are
    found before)."""
    starts: set[int] = set()
    for word in words:
        i = buf.find(word)
        while i >= 0:
            starts.add(i)
            i = buf.find(word, i + 1)
    end = 0
    for i in sorted(starts):
        if i < end:
            continue
        m = pattern.match(buf, i)
        if m is not None:
            yield m
            end = m.end()


def _buffers(sc: _Scanner, text: str, notes: Annotations) -> None:
    buf = sc.buf
    for m in _buffer_matches(buf):
        kw_start = m.start(1)
        if kw_start > 0 and buf[kw_start - 1] in _IDENT_CHARS:
            continue
        brace = buf.find(b"{", m.end())
        if brace < 0 and buf.find(b";", m.end()) < 0:
            sc.read_past_end = True  # a `{` after the text would have been this block's
        if brace < 0 or buf.find(b";", m.end(), brace) >= 0:
            continue
        close = sc.match_close(brace)
        if close < 0:
            continue
        kind = m.group(1).decode()
        sc.replace(kw_start, "struct ")  # same length as `cbuffer`/`tbuffer`
        after = close + 1
        semicolon: int | None = None
        nxt = sc.next_sig(after)
        if nxt >= len(buf) or buf[nxt] != 59:
            # Turn one whitespace character after `}` into `;`, preferring a space to a newline.
            # Only characters that are whitespace in the original text qualify (not comments,
            # not blanked annotations).
            semicolon = _free_space(sc, after)
            if semicolon is not None:
                sc.replace(semicolon, ";")
        notes.blocks.append(
            Block(kind, m.group(3).decode(), (kw_start, close + 1), kw_start, semicolon)  # type: ignore[arg-type]
        )


def _effects(sc: _Scanner, text: str, notes: Annotations) -> None:
    """Blank effect-file state, which the grammar cannot read and which holds no code: a
    `technique` block whole (`pass P { VertexShader = compile vs_2_0 VS(); }`), the body of a
    `sampler_state { Texture = <t>; }` and of a `SamplerState s { Filter = ...; }` (these two
    stay declarations: `sampler2D s = sampler_state ;`, `SamplerState s ;`)."""
    buf = sc.buf
    if b"technique" not in buf and b"_state" not in buf and b"State" not in buf:
        return
    if b"technique" in buf or buf.rfind(b"[") > buf.rfind(b"]"):
        # `<...>` annotations and `[...]` array sizes can run past the end of the text
        sc.read_past_end = True
    for m in _matches_at_words(_EFFECT, buf, _EFFECT_WORDS):
        sc.read_past_end = True  # what a state block's blanking leaves is not followed further
        start, brace = m.span()
        prev = sc.prev_sig(start)
        whole = buf.startswith(b"technique", start)
        if prev >= 0 and buf[prev] not in (b";}" if whole else b";}="):
            continue
        close = sc.match_close(brace)
        if close < 0:
            continue
        end = close + 1
        if whole:
            nxt = sc.next_sig(end)
            if nxt < len(buf) and buf[nxt] == 59:  # `technique T { ... };`
                end = nxt + 1
            sc.blank(start, end, text)
        else:
            sc.blank(brace, end, text)
        notes.effects.append((start, end))


def _free_space(sc: _Scanner, start: int) -> int | None:
    """A whitespace character of the original text right after `start` to turn into `;`."""
    orig = sc.orig
    end = start
    while end < len(orig) and orig[end] in _SPACE:
        end += 1
    run = orig[start:end]
    for ch in b" \t\r\n":
        i = run.find(ch)
        if i >= 0:
            return start + i
    return None


def _colons(sc: _Scanner, text: str, notes: Annotations) -> None:
    buf = sc.buf
    n = len(buf)
    for m in _COLON.finditer(sc.orig):
        p = m.start()
        if buf[p] != 58:
            continue
        prev = sc.prev_sig(p)
        if prev < 0 or not (buf[prev] in _IDENT_CHARS or buf[prev] in b")]"):
            continue
        after = sc.next_sig(p + 1)
        bm = _BINDING.match(buf, after)
        if bm is not None:
            close = sc.match_close(bm.end() - 1)
            if close < 0:
                continue
            _record_binding(sc, text, notes, bm.group(1).decode(), p, bm.end(), close, prev + 1)
            continue
        im = _IDENT.match(buf, after)
        if im is None:
            continue
        nxt = sc.next_sig(im.end())
        if nxt < n and buf[nxt] not in b";,){=:<":
            continue
        if not _declaration_colon(sc, p):
            continue
        sc.blank(p, im.end(), text)
        notes.semantics.append(Semantic(text[im.start() : im.end()], (p, im.end()), prev + 1))


def _record_binding(
    sc: _Scanner,
    text: str,
    notes: Annotations,
    kind: str,
    colon: int,
    open_end: int,
    close: int,
    anchor: int,
) -> None:
    args = _split_args(text[open_end:close])
    profile: str | None = None
    space: str | None = None
    slot = ""
    if kind in ("read", "write"):
        slot = ",".join(args)
    elif kind == "packoffset":
        slot = re.sub(r"\s+", "", args[0]) if args else ""
    else:
        rest = list(args)
        if (rest and rest[0][:1].lower() not in ("b", "t", "u", "s", "c")) or (
            len(rest) >= 2 and rest[0].lower().startswith(("ps_", "vs_", "cs_", "gs_", "hs_", "ds_"))
        ):
            profile = rest.pop(0)
        if rest:
            slot = rest.pop(0)
        if rest:
            space = rest.pop(0)
    sc.blank(colon, close + 1, text)
    notes.registers.append(
        Register(kind, slot, space, profile, (colon, close + 1), anchor)  # type: ignore[arg-type]
    )


def _declaration_colon(sc: _Scanner, colon: int) -> bool:
    """Whether the `:` at `colon` follows a declarator (not a ternary, label or base class)."""
    buf = sc.buf
    depth = 0
    i = colon - 1
    while i >= 0:
        c = buf[i]
        if c == 41 or c == 93:  # ) ]
            depth += 1
        elif c == 40 or c == 91:  # ( [
            depth -= 1
            if depth < 0:
                break
        elif depth == 0:
            if c in b";{}":
                break
            if c == 44:  # ',' separates parameters or declarators
                break
            if c == 63:  # '?'
                return False
        i -= 1
    if i < 0 and depth > 0:
        sc.read_before_start = True
    first = _IDENT.match(buf, sc.next_sig(i + 1))
    if first is not None:
        word = first.group()
        if word in _LABELS:
            return False
        if word in _TYPE_HEADS and buf.find(b"(", i + 1, colon) < 0:
            return False
    return True


def _modifiers(sc: _Scanner, text: str, notes: Annotations) -> None:
    buf = sc.buf
    n = len(buf)
    for m in _matches_at_words(_MODIFIER, buf, _MODIFIER_WORDS):
        s, e = m.span()
        if s > 0 and buf[s - 1] in _IDENT_CHARS:  # inside a longer name
            continue
        prev = sc.prev_sig(s)
        nxt = sc.next_sig(e)
        is_modifier = (
            nxt < n
            and buf[nxt] in _IDENT_CHARS
            and buf[nxt] not in b"0123456789"
            and not (prev >= 0 and buf[prev] == 46)  # `.point`
        )
        if is_modifier:
            notes.modifiers.append(Modifier(text[s:e], (s, e)))
            sc.blank(s, e, text)
        else:
            sc.replace(s, "_")
            notes.renamed.append((s, e))


def _typedefs(sc: _Scanner, text: str, notes: Annotations) -> None:
    if b"typedef" not in sc.buf:  # most units have none; the substring test is far cheaper
        return
    for m in _TYPEDEF_QUALIFIERS.finditer(sc.buf):
        for w in _WORD.finditer(sc.buf, m.start(1), m.end(1)):
            notes.modifiers.append(Modifier(text[w.start() : w.end()], w.span()))
            sc.blank(w.start(), w.end(), text)


# Words that never count as the type or the name of a declaration.
_DECL_KEYWORDS = frozenset(
    b"const static inline extern volatile uniform groupshared precise shared nointerpolation "
    b"row_major column_major in out inout export globallycoherent snorm unorm".split()
)
_NOT_DECL_START = frozenset(b"return case else typedef struct class using namespace".split())
_STATEMENT_KEYWORDS = frozenset(b"for while do if switch".split())
_MACRO_LIKE = re.compile(rb"\b[A-Z][A-Z0-9]*_\w*|\b[A-Z][A-Z0-9]{2,}\b")
_MACRO_SCAN = re.compile(rb"[A-Z](?:[A-Z0-9]*_\w*|[A-Z0-9]{2,}\b)")
"""`_MACRO_LIKE` without the leading `\b` (so `re` only tries it at capitals): the caller skips
a match with an identifier character before it, which `\b` would not have matched. Such a
match lies inside one name, so it never hides the start of one that `_MACRO_LIKE` finds."""
_DECL_WORD = re.compile(rb"\s*([A-Za-z_]\w*)")


def _unknown_macros(sc: _Scanner, text: str, notes: Annotations) -> None:
    """Blank an unexpanded macro used as a qualifier: `FFX_STATIC const T x`, `FOO void f()`.

    A macro-looking word (upper case, or an upper-case prefix and `_`) that starts a declaration
    or a parameter and is followed by at least a type and a name is taken to expand to a
    qualifier or attribute: C has no declaration with three names in a row.
    """
    buf = sc.buf
    n = len(buf)
    for m in _MACRO_SCAN.finditer(buf):
        s, e = m.span()
        if buf[s] == 32 or (s > 0 and buf[s - 1] in _IDENT_CHARS):  # blanked earlier in this pass
            continue
        prev = sc.prev_sig(s)
        if prev >= 0 and buf[prev] not in b";{}(,":
            continue
        w = _DECL_WORD.match(buf, e)
        if w is not None and w.group(1) in _STATEMENT_KEYWORDS:
            # `FFX_UNROLL for (...)`: a macro standing for a statement attribute.
            notes.attributes.append(Attribute(text[s:e], (), (s, e), sc.next_sig(e), macro=True))
            sc.blank(s, e, text)
            continue
        names = 0
        pos = e
        while True:
            w = _DECL_WORD.match(buf, pos)
            if w is None:
                break
            word = w.group(1)
            if word in _NOT_DECL_START:
                names = 0
                break
            if word not in _DECL_KEYWORDS:
                names += 1
            pos = w.end()
            nxt = sc.next_sig(pos)
            if nxt < n and buf[nxt] == 60:  # template arguments
                close = _match_angle(buf, nxt)
                if close < 0:
                    break
                pos = close + 1
        if names < 2:
            continue
        nxt = sc.next_sig(pos)
        if nxt < n and buf[nxt] not in b";,=([):{":
            continue
        notes.modifiers.append(Modifier(text[s:e], (s, e), macro=True))
        sc.blank(s, e, text)


def _match_angle(buf: bytearray, open_pos: int) -> int:
    depth = 0
    for i in range(open_pos, min(len(buf), open_pos + 400)):
        c = buf[i]
        if c == 60:
            depth += 1
        elif c == 62:
            depth -= 1
            if depth == 0:
                return i
        elif c in b";{}":
            return -1
    return -1


def _reanchor(sc: _Scanner, notes: Annotations) -> None:
    """An attribute anchored at an unexpanded macro that was blanked (`[numthreads(8, 8, 1)]
    FFX_EMBED_ROOTSIG void CS(...)`) applies to what follows the macro."""
    blanked = {m.span[0] for m in notes.modifiers if m.macro}
    if not blanked:
        return
    for i, a in enumerate(notes.attributes):
        if a.anchor in blanked and not a.macro:
            notes.attributes[i] = replace(a, anchor=sc.next_sig(a.anchor))


def _special_floats(sc: _Scanner) -> None:
    buf = sc.buf
    for m in _SPECIAL_FLOAT.finditer(buf):
        if m.start() > 0 and buf[m.start() - 1] in b"0123456789":
            sc.replace(m.start() + 1, "0" * (m.end() - m.start() - 1))


def normalize(text: str) -> tuple[str, Annotations]:
    """The text to hand to tree-sitter (same length as `text`) and what was taken out of it.

    A long text (a unit's expansion: its header chain, then its own code) is repaired in pieces
    cut where the text alone decides where (`_cuts`), each piece's repair kept by its content for
    the next text that holds it (`_piece`); where a piece's repair could depend on its neighbour
    (`_joins`), the two are repaired as one. The result is the repair of the whole text."""
    if len(text) < PIECES_MIN:
        sc, notes, _ = _repair(text)
        return sc.apply(text), notes
    return _normalize_cut(text, _cuts(text))


def _normalize_cut(text: str, cuts: list[int]) -> tuple[str, Annotations]:
    """`normalize(text)` from the pieces between `cuts` (line starts, in order), those whose
    repair could depend on a neighbour repaired with it."""
    bounds = [0, *cuts, len(text)]
    pieces = [_piece(text[a:b]) for a, b in itertools.pairwise(bounds)]
    for _ in range(MERGE_ROUNDS):
        keep = [0]
        for i in range(1, len(pieces)):
            if _joins(pieces[i - 1], pieces[i]):
                keep.append(i)
        if len(keep) == len(pieces):
            if len(pieces) == 1:
                return pieces[0].normalized, _copy_notes(pieces[0].notes)
            return "".join(p.normalized for p in pieces), _merged(pieces, bounds)
        # the pieces between two safe cuts are repaired as one (their joins are looked at again)
        keep.append(len(pieces))
        pieces = [
            pieces[i] if j == i + 1 else _piece(text[bounds[i] : bounds[j]])
            for i, j in itertools.pairwise(keep)
        ]
        bounds = [bounds[i] for i in keep]
    sc, notes, _ = _repair(text)
    return sc.apply(text), notes


def _repair(text: str) -> tuple[_Scanner, Annotations, list[tuple[int, ...]]]:
    """The passes over `text`; with, before the first pass and after each, how many annotations
    of each kind there were (`_counts`) and where the last significant byte was (last in each
    tuple)."""
    notes = Annotations()
    deadline = current()
    sc = _Scanner(text)
    marks = [(*_counts(notes), sc.prev_sig(len(sc.buf)))]
    for step in (_effects, _attributes, _buffers, _colons, _modifiers, _typedefs, _unknown_macros):
        deadline.check()
        step(sc, text, notes)
        marks.append((*_counts(notes), sc.prev_sig(len(sc.buf))))
    _reanchor(sc, notes)
    _special_floats(sc)
    marks.append((*_counts(notes), sc.prev_sig(len(sc.buf))))
    return sc, notes, marks


def _counts(notes: Annotations) -> tuple[int, ...]:
    """How many attributes, semantics, registers, modifiers, blocks, renamed and effects."""
    return (
        len(notes.attributes),
        len(notes.semantics),
        len(notes.registers),
        len(notes.modifiers),
        len(notes.blocks),
        len(notes.renamed),
        len(notes.effects),
    )


MERGE_ROUNDS = 4
"""How many times unsafe cuts are taken out before the text is repaired whole instead."""
PIECES_MIN = 1 << 15
"""A text shorter than this is repaired whole (a shader without a long header chain)."""
_CUT = re.compile(r"\n\};?[ \t\r]*\n")
"""A line holding only the `}` (or `};`) that ends a function or a type at the top level: where
a text may be cut into pieces, when `_STRIDE` says so."""
_STRIDE = 8
"""One cut in about this many: a cut is taken where the crc32 of the text around it is a multiple
of `_STRIDE` (so two texts holding the same stretch cut it in the same places, wherever it is in
them), pieces of about 8 KB on SpartanEngine's header chain."""
_AROUND = 96


def _cuts(text: str) -> list[int]:
    """Where `text` is cut into pieces: after some of the lines that `_CUT` finds, chosen by the
    text around each alone."""
    cuts: list[int] = []
    for m in _CUT.finditer(text):
        c = m.end()
        if c >= len(text):
            break
        around = text[max(0, c - _AROUND) : c + _AROUND].encode("utf-8", "surrogatepass")
        if zlib.crc32(around) % _STRIDE == 0:
            cuts.append(c)
    return cuts


class _Piece:
    """The repair of one piece of a text, alone, and what decides whether it is the repair of that
    piece inside a longer text (`_joins`)."""

    def __init__(self, text: str) -> None:
        sc, notes, marks = _repair(text)
        self.normalized = sc.apply(text)
        self.notes = notes
        self.marks = marks
        last = marks[0][-1]
        self.end_ok = (
            not sc.read_past_end
            and text.endswith("\n")
            and last >= 0
            and sc.buf[last] in b";}"
            and all(m[-1] == last for m in marks)
            and sc.mask_end < len(text)
        )
        """Nothing after the piece could change its repair: no pass looked past its end; it
        ends with a line break outside every comment, string and directive; and its last
        significant byte, before and after every pass, is the same `;` or `}` (so what a pass
        over the next piece looks for backwards stops there, as at the start of a text)."""
        self.start_ok = not sc.read_before_start
        """Nothing before the piece could change its repair (given the piece before ends as
        `end_ok` says)."""
        self.line_comment_end = sc.line_comment_end
        self.line_comment_start = _LINE_COMMENT_START.match(text) is not None


_LINE_COMMENT_START = re.compile(r"[ \t]*//")


def _joins(a: _Piece, b: _Piece) -> bool:
    """Whether repairing `a` and `b` apart gives the repair of their text together: `a` needs
    nothing after it nor `b` before it, and no run of `//` lines goes on from one into the other
    (the mask of the two would take `b`'s indentation in)."""
    return a.end_ok and b.start_ok and not (a.line_comment_end and b.line_comment_start)


_pieces: dict[str, _Piece] = {}
_pieces_chars = 0
PIECES_MAX = 4096
PIECES_MAX_CHARS = 1 << 24
"""How many pieces (and characters of their text) are kept at most: the table is emptied when
either is reached (an engine's header chain is a few hundred pieces)."""


class PieceStats:
    """How many pieces were repaired (`repaired`) and how many were found already repaired
    (`reused`), in this process."""

    def __init__(self) -> None:
        self.repaired = 0
        self.reused = 0


STATS = PieceStats()


def _piece(text: str) -> _Piece:
    """The repair of `text` alone, kept by its content."""
    global _pieces_chars
    piece = _pieces.get(text)
    if piece is not None:
        STATS.reused += 1
        return piece
    piece = _Piece(text)
    STATS.repaired += 1
    if len(_pieces) >= PIECES_MAX or _pieces_chars + len(text) > PIECES_MAX_CHARS:
        _pieces.clear()
        _pieces_chars = 0
    _pieces[text] = piece
    _pieces_chars += len(text)
    return piece


def clear_pieces() -> None:
    """Forget every piece kept."""
    global _pieces_chars
    _pieces.clear()
    _pieces_chars = 0


def _merged(pieces: list[_Piece], bounds: list[int]) -> Annotations:
    """The annotations of the whole text from its pieces': each pass appends to its lists in the
    order of the text, so a kind's list is, pass after pass, every piece's entries of that pass,
    moved to where the piece starts (`_reanchor` replaces entries in place)."""
    notes = Annotations()
    for step in range(1, len(pieces[0].marks)):
        for piece, d in zip(pieces, bounds[:-1], strict=True):
            b = piece.marks[step - 1]
            a = piece.marks[step]
            n = piece.notes
            if a[0] > b[0]:
                notes.attributes.extend(_moved_attribute(x, d) for x in n.attributes[b[0] : a[0]])
            if a[1] > b[1]:
                notes.semantics.extend(
                    x if d == 0 else Semantic(x.name, (x.span[0] + d, x.span[1] + d), x.anchor + d)
                    for x in n.semantics[b[1] : a[1]]
                )
            if a[2] > b[2]:
                notes.registers.extend(_moved_register(x, d) for x in n.registers[b[2] : a[2]])
            if a[3] > b[3]:
                notes.modifiers.extend(
                    x if d == 0 else Modifier(x.name, (x.span[0] + d, x.span[1] + d), x.macro)
                    for x in n.modifiers[b[3] : a[3]]
                )
            if a[4] > b[4]:
                notes.blocks.extend(_moved_block(x, d) for x in n.blocks[b[4] : a[4]])
            if a[5] > b[5]:
                notes.renamed.extend((x[0] + d, x[1] + d) for x in n.renamed[b[5] : a[5]])
            if a[6] > b[6]:
                notes.effects.extend((x[0] + d, x[1] + d) for x in n.effects[b[6] : a[6]])
    return notes


def _moved_attribute(x: Attribute, d: int) -> Attribute:
    if d == 0:
        return x
    return Attribute(x.name, x.args, (x.span[0] + d, x.span[1] + d), x.anchor + d, x.double, x.macro)


def _moved_register(x: Register, d: int) -> Register:
    if d == 0:
        return x
    return Register(x.kind, x.slot, x.space, x.profile, (x.span[0] + d, x.span[1] + d), x.anchor + d)


def _moved_block(x: Block, d: int) -> Block:
    if d == 0:
        return x
    semicolon = x.synthetic_semicolon
    return Block(
        x.kind,
        x.name,
        (x.span[0] + d, x.span[1] + d),
        x.anchor + d,
        None if semicolon is None else semicolon + d,
    )


def _copy_notes(notes: Annotations) -> Annotations:
    """New lists of the same (frozen) entries: a kept piece's lists are never handed out."""
    return Annotations(
        list(notes.attributes),
        list(notes.semantics),
        list(notes.registers),
        list(notes.modifiers),
        list(notes.blocks),
        list(notes.renamed),
        list(notes.effects),
    )
