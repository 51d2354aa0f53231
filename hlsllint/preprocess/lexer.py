"""Tokenizing a file for the preprocessor, and caching its directive structure.

A file is lexed once per process (keyed by its text, so copies of a file share it): its significant
tokens (no whitespace, newlines or comments) go into one flat list, and the file is cut into
*chunks*: runs of ordinary text lines, and single directive lines. Backslash-newline splices count
as whitespace, so a directive continued over several physical lines is one chunk, and token
offsets stay offsets into the original text.
"""

from __future__ import annotations

import contextlib
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import NamedTuple

from hlsllint.deadline import current

# Token kinds (small strings compare fast and read well in tests).
ID = "id"
NUM = "num"
STR = "str"
CHR = "chr"
PUNCT = "punct"
OTHER = "other"

_BLANKS = r"(?:[ \t\f\v]|\\\r?\n|\\\r)"
"""Spaces, tabs and backslash-newline splices."""
_BLANK_RUN = r"[ \t\f\v]*+(?:(?:\\\r?\n|\\\r)[ \t\f\v]*+)*+"
"""`_BLANKS*+` written so that `re` takes a run of spaces in one step."""
_ALTERNATIVES = r"""
      (?P<nl>\r?\n|\r)
    | (?P<bc>/\*.*?\*/|/\*.*)
    | (?P<lc>//[^\r\n\\]*+(?:\\(?:\r?\n)?+[^\r\n\\]*+)*+)
    | (?P<id>(?:[^\W\d]|\$)[\w$]*)
    | (?P<num>\.?\d(?:[eEpP][+-]|[\w.])*)
    | (?P<str>"(?:\\\r\n|\\.|[^"\\\r\n])*"?)
    | (?P<chr>'(?:\\\r\n|\\.|[^'\\\r\n])*'?)
    | (?P<punct>%:%:|\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-*/%+&^|]=|\#\#|%:|::
        |[-+*/%&|^!~<>=?:;,.(){}\[\]\#])
    | (?P<other>.)
"""
_TOKEN_RE = re.compile(rf"(?P<ws>{_BLANKS}+) | {_ALTERNATIVES}", re.VERBOSE | re.DOTALL)
# For lex_file: each match takes the blanks in front of its token (half as many matches).
# Possessive, so that blanks at the end of the text never give a character back to `other`.
_LINE_RE = re.compile(rf"{_BLANK_RUN} (?: {_ALTERNATIVES} )", re.VERBOSE | re.DOTALL)
# Kind of each group number (the groups are numbered in the order above).
_KINDS: list[str] = [""] * (_TOKEN_RE.groups + 1)
for _name, _index in _TOKEN_RE.groupindex.items():
    _KINDS[_index] = _name
_WS, _NL, _BC, _LC = (_TOKEN_RE.groupindex[g] for g in ("ws", "nl", "bc", "lc"))
_L_KINDS: list[str] = [""] * (_LINE_RE.groups + 1)
for _name, _index in _LINE_RE.groupindex.items():
    _L_KINDS[_index] = _name
_L_NL, _L_BC, _L_LC = (_LINE_RE.groupindex[g] for g in ("nl", "bc", "lc"))
assert (_L_NL, _L_BC, _L_LC) == (1, 2, 3)  # the token groups come after them (lex_file counts on it)
_new_token = tuple.__new__


class Token(NamedTuple):
    kind: str
    text: str
    start: int
    end: int
    ws: bool
    """Whitespace, a comment or a line break comes before the token."""


@dataclass(frozen=True)
class Directive:
    name: str
    """The directive's name (`include`, `define`, ...); "" for a null directive `#`."""
    lo: int
    hi: int
    """Indices into `LexedFile.tokens` of the directive's operands (after the name)."""
    start: int
    end: int
    """Offsets of the logical line, without its line break."""
    name_end: int
    hash: int
    """Offset of the `#`: diagnostics about the directive start there."""


@dataclass(frozen=True)
class Text:
    lo: int
    hi: int
    """Indices into `LexedFile.tokens`."""
    start: int
    end: int
    """Offsets of the run of lines (the last line break excluded)."""


Chunk = Directive | Text


@dataclass
class LexedFile:
    text: str
    tokens: list[Token]
    chunks: list[Chunk]
    guard: str | None = None
    """The include-guard macro, when the whole file is `#ifndef G ... #endif` (or `#if !defined`)."""
    pragma_once: bool = False
    open_comment: bool = False
    """The file ends inside a `/*` comment."""
    line_starts: list[int] = field(default_factory=list)
    _ids: frozenset[str] | None = field(default=None, repr=False)

    @property
    def ids(self) -> frozenset[str]:
        """Every identifier in the file, active or not (a superset of the names the
        preprocessor can look up while it reads the file)."""
        if self._ids is None:
            self._ids = frozenset(t.text for t in self.tokens if t.kind == ID)
        return self._ids


def lex_tokens(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """The significant tokens of `text[start:end]` (no structure; used for -D values and pasting)."""
    out: list[Token] = []
    ws = False
    for m in _TOKEN_RE.finditer(text, start, len(text) if end is None else end):
        g = m.lastindex
        assert g is not None
        if g in (_WS, _NL, _BC, _LC):
            ws = True
            continue
        s, e = m.span()
        out.append(_new_token(Token, (_KINDS[g], text[s:e], s, e, ws)))
        ws = False
    return out


def token_layout(text: str, start: int, end: int) -> tuple[tuple[str, bool], ...]:
    """The tokens of `text[start:end]`, each with whether a line break precedes it: the text as
    far as the compiler is concerned (comments and blanks aside), keyed in a unit's state."""
    out = []
    at = start
    for t in lex_tokens(text, start, end):
        out.append((t.text, "\n" in text[at : t.start]))
        at = t.end
    return tuple(out)


def lex_file(text: str) -> LexedFile:
    tokens: list[Token] = []
    chunks: list[Chunk] = []
    append = tokens.append
    line_start = 0
    line_first = 0  # index of the line's first token
    at_line_start = True
    is_directive = False
    open_comment = False
    text_lo = -1  # first token index of the current text run, -1 when none
    text_start = 0
    last_line_end = 0
    line_starts = [0]
    prev_end = -1
    kinds = _L_KINDS
    new_token = _new_token

    def finish_line(line_end: int) -> None:
        nonlocal text_lo, text_start, last_line_end
        if is_directive:
            if text_lo >= 0:
                chunks.append(Text(text_lo, line_first, text_start, last_line_end))
                text_lo = -1
            name_i = line_first + 1
            name = ""
            name_end = tokens[line_first].end
            if name_i < len(tokens) and tokens[name_i].kind in (ID, NUM):
                name = tokens[name_i].text
                name_end = tokens[name_i].end
                name_i += 1
            chunks.append(
                Directive(name, name_i, len(tokens), line_start, line_end, name_end, tokens[line_first].start)
            )
        elif text_lo < 0:
            text_lo = line_first
            text_start = line_start
        last_line_end = line_end

    deadline = current()
    for m in _LINE_RE.finditer(text):
        deadline.tick()
        g = m.lastindex or 0
        if g > 3:  # a token (the most frequent case first; groups 1-3 are nl, bc, lc)
            start, end = m.span(g)
            value = text[start:end]
            kind = kinds[g]
            if at_line_start:
                at_line_start = False
                is_directive = kind == PUNCT and value in ("#", "%:")
            # Whitespace, a comment or a line break came before the token if it does not start
            # where the previous token ended (nothing lies between matches but their blanks).
            append(new_token(Token, (kind, value, start, end, start != prev_end)))
            prev_end = end
        elif g == 1:  # a line break
            if is_directive:
                finish_line(m.start(1))
                is_directive = False
            else:
                if text_lo < 0:
                    text_lo = line_first
                    text_start = line_start
                last_line_end = m.start(1)
            line_start = m.end()
            line_starts.append(line_start)
            line_first = len(tokens)
            at_line_start = True
        elif g == 2:
            # A block comment spanning lines: keep line_starts right for __LINE__.
            s = m.group(g)
            if len(s) < 4 or not s.endswith("*/"):
                open_comment = True
            base = m.start(g)
            i = s.find("\n")
            while i != -1:
                line_starts.append(base + i + 1)
                i = s.find("\n", i + 1)
    finish_line(len(text))
    if text_lo >= 0:
        chunks.append(Text(text_lo, len(tokens), text_start, last_line_end))
    lexed = LexedFile(text, tokens, chunks, line_starts=line_starts, open_comment=open_comment)
    lexed.guard = _find_guard(lexed)
    lexed.pragma_once = any(
        isinstance(c, Directive) and c.name == "pragma" and c.hi > c.lo and tokens[c.lo].text == "once"
        for c in chunks
    )
    return lexed


_CONDITIONALS_OPEN = frozenset(("if", "ifdef", "ifndef"))


def _find_guard(f: LexedFile) -> str | None:
    """`G` when the file is `#ifndef G` (or `#if !defined(G)`) ... matching `#endif` at the end."""
    chunks = f.chunks
    first = 0
    while first < len(chunks) and isinstance(chunks[first], Text):
        if chunks[first].hi > chunks[first].lo:
            return None
        first += 1
    if first >= len(chunks):
        return None
    head = chunks[first]
    assert isinstance(head, Directive)
    ops = [t.text for t in f.tokens[head.lo : head.hi]]
    if head.name == "ifndef" and len(ops) == 1:
        guard = ops[0]
    elif head.name == "if" and ops[:2] == ["!", "defined"] and len(ops) in (3, 5):
        guard = ops[2] if len(ops) == 3 else ops[3]
        if len(ops) == 5 and (ops[2], ops[4]) != ("(", ")"):
            return None
    else:
        return None
    depth = 0
    for i in range(first, len(chunks)):
        c = chunks[i]
        if isinstance(c, Text):
            if depth == 0 and c.hi > c.lo:
                return None
            continue
        if c.name in _CONDITIONALS_OPEN:
            depth += 1
        elif c.name == "endif":
            depth -= 1
            if depth == 0:
                rest = chunks[i + 1 :]
                if all(isinstance(r, Text) and r.hi == r.lo for r in rest):
                    return guard
                return None
        elif depth == 1 and c.name in ("else", "elif"):
            return None
    return None


_CACHE: OrderedDict[str, LexedFile] = OrderedDict()
_CACHE_SIZE = 1024


class LexStats:
    """How many texts `lexed` has lexed in this process (a cached text is not counted again)."""

    def __init__(self) -> None:
        self.lexed = 0


STATS = LexStats()


def lexed(path: str, text: str) -> LexedFile:
    """`lex_file(text)`, cached per process by content: a header included by many files is lexed
    once, and so is every copy of it (engine trees often ship the same header in many samples).
    `path` is not part of the key: lexing does not depend on it."""
    hit = _CACHE.get(text)
    if hit is not None:
        with contextlib.suppress(KeyError):  # another thread's stop cleared the cache, or evicted it
            _CACHE.move_to_end(text)
        return hit
    STATS.lexed += 1
    result = lex_file(text)
    _CACHE[text] = result
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return result


def clear_cache() -> None:
    _CACHE.clear()
