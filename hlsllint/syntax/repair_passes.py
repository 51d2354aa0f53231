"""The repair passes: position-preserving normalisation of HLSL text before tree-sitter parses it.

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

import re
from collections.abc import Iterator
from dataclasses import replace

from hlsllint.deadline import current
from hlsllint.syntax.annotations import (
    Annotations,
    Attribute,
    Block,
    Modifier,
    Register,
    Semantic,
    Span,
)
from hlsllint.syntax.scanner import IDENT_CHARS, SPACE, Scanner, split_args

_IDENT = re.compile(rb"[A-Za-z_]\w*")
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


# -- passes -----------------------------------------------------------------------------------


def _attributes(sc: Scanner, text: str, notes: Annotations) -> None:
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
            args = split_args(text[pos + 1 : close])
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


def _attribute_position(sc: Scanner, start: int) -> bool:
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
    if c in IDENT_CHARS:
        word = sc.word_before(p + 1)
        if word in (b"else", b"do", b"struct", b"class"):
            return True
        return _after_macro_lines(sc, p)
    return False


MACRO_LINES = 8
"""How many unexpanded macros in a row may stand in front of an attribute."""


def _after_macro_lines(sc: Scanner, p: int) -> bool:
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
            if p < 0 or buf[p] not in IDENT_CHARS:
                return False
        word = sc.word_before(p + 1)
        if not _MACRO_LIKE.fullmatch(word):
            return False
        p = sc.prev_sig(p + 1 - len(word))
        if p < 0 or buf[p] in b";{}]":
            return True
        if buf[p] != 41 and buf[p] not in IDENT_CHARS:
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


def _buffers(sc: Scanner, text: str, notes: Annotations) -> None:
    buf = sc.buf
    for m in _buffer_matches(buf):
        kw_start = m.start(1)
        if kw_start > 0 and buf[kw_start - 1] in IDENT_CHARS:
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


def _effects(sc: Scanner, text: str, notes: Annotations) -> None:
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


def _free_space(sc: Scanner, start: int) -> int | None:
    """A whitespace character of the original text right after `start` to turn into `;`."""
    orig = sc.orig
    end = start
    while end < len(orig) and orig[end] in SPACE:
        end += 1
    run = orig[start:end]
    for ch in b" \t\r\n":
        i = run.find(ch)
        if i >= 0:
            return start + i
    return None


def _colons(sc: Scanner, text: str, notes: Annotations) -> None:
    buf = sc.buf
    n = len(buf)
    for m in _COLON.finditer(sc.orig):
        p = m.start()
        if buf[p] != 58:
            continue
        prev = sc.prev_sig(p)
        if prev < 0 or not (buf[prev] in IDENT_CHARS or buf[prev] in b")]"):
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
    sc: Scanner,
    text: str,
    notes: Annotations,
    kind: str,
    colon: int,
    open_end: int,
    close: int,
    anchor: int,
) -> None:
    args = split_args(text[open_end:close])
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


def _declaration_colon(sc: Scanner, colon: int) -> bool:
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


def _modifiers(sc: Scanner, text: str, notes: Annotations) -> None:
    buf = sc.buf
    n = len(buf)
    for m in _matches_at_words(_MODIFIER, buf, _MODIFIER_WORDS):
        s, e = m.span()
        if s > 0 and buf[s - 1] in IDENT_CHARS:  # inside a longer name
            continue
        prev = sc.prev_sig(s)
        nxt = sc.next_sig(e)
        is_modifier = (
            nxt < n
            and buf[nxt] in IDENT_CHARS
            and buf[nxt] not in b"0123456789"
            and not (prev >= 0 and buf[prev] == 46)  # `.point`
        )
        if is_modifier:
            notes.modifiers.append(Modifier(text[s:e], (s, e)))
            sc.blank(s, e, text)
        else:
            sc.replace(s, "_")
            notes.renamed.append((s, e))


def _typedefs(sc: Scanner, text: str, notes: Annotations) -> None:
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


def _unknown_macros(sc: Scanner, text: str, notes: Annotations) -> None:
    """Blank an unexpanded macro used as a qualifier: `FFX_STATIC const T x`, `FOO void f()`.

    A macro-looking word (upper case, or an upper-case prefix and `_`) that starts a declaration
    or a parameter and is followed by at least a type and a name is taken to expand to a
    qualifier or attribute: C has no declaration with three names in a row.
    """
    buf = sc.buf
    n = len(buf)
    for m in _MACRO_SCAN.finditer(buf):
        s, e = m.span()
        if buf[s] == 32 or (s > 0 and buf[s - 1] in IDENT_CHARS):  # blanked earlier in this pass
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


def _reanchor(sc: Scanner, notes: Annotations) -> None:
    """An attribute anchored at an unexpanded macro that was blanked (`[numthreads(8, 8, 1)]
    FFX_EMBED_ROOTSIG void CS(...)`) applies to what follows the macro."""
    blanked = {m.span[0] for m in notes.modifiers if m.macro}
    if not blanked:
        return
    for i, a in enumerate(notes.attributes):
        if a.anchor in blanked and not a.macro:
            notes.attributes[i] = replace(a, anchor=sc.next_sig(a.anchor))


def _special_floats(sc: Scanner) -> None:
    buf = sc.buf
    for m in _SPECIAL_FLOAT.finditer(buf):
        if m.start() > 0 and buf[m.start() - 1] in b"0123456789":
            sc.replace(m.start() + 1, "0" * (m.end() - m.start() - 1))


def repair(text: str) -> tuple[Scanner, Annotations, list[tuple[int, ...]]]:
    """The passes over `text`; with, before the first pass and after each, how many annotations
    of each kind there were (`counts`) and where the last significant byte was (last in each
    tuple)."""
    notes = Annotations()
    deadline = current()
    sc = Scanner(text)
    marks = [(*counts(notes), sc.prev_sig(len(sc.buf)))]
    for step in (_effects, _attributes, _buffers, _colons, _modifiers, _typedefs, _unknown_macros):
        deadline.check()
        step(sc, text, notes)
        marks.append((*counts(notes), sc.prev_sig(len(sc.buf))))
    _reanchor(sc, notes)
    _special_floats(sc)
    marks.append((*counts(notes), sc.prev_sig(len(sc.buf))))
    return sc, notes, marks


def counts(notes: Annotations) -> tuple[int, ...]:
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
