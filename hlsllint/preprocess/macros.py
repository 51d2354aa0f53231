"""Macro definitions and their expansion: the part of the preprocessor that turns tokens into tokens.

Expansion follows Prosser's algorithm (the one behind the C standard's wording): every token
carries a hide set, the names of the macros it came out of; a name in its own token's hide set is
never expanded again ("painted blue"), which stops self-referential macros. The expander also
keeps what a header's recorded expansion (`expansions.Expansion`) must know of it: the names it
looked up, the definitions it changed, and anything that forbids reusing the record.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from hlsllint.deadline import current
from hlsllint.preprocess.expansions import Diag, Macro
from hlsllint.preprocess.lexer import ID, NUM, PUNCT, STR, LexedFile, Token, lex_tokens

MAX_EXPANSION_TOKENS = 200_000
"""Tokens produced by one top-level macro invocation before it is abandoned (HL003)."""
MAX_EXPANSION_DEPTH = 100
"""Nesting of macro arguments being expanded inside macro arguments."""

EMPTY: frozenset[str] = frozenset()


class Tok:
    """A token inside macro expansion (immutable after creation)."""

    __slots__ = ("hs", "kind", "text", "ws")

    def __init__(self, kind: str, text: str, ws: bool, hs: frozenset[str]) -> None:
        self.kind = kind
        self.text = text
        self.ws = ws
        self.hs = hs

    def __repr__(self) -> str:
        return f"Tok({self.text!r})"


class LimitError(Exception):
    """A limit on expansion was hit (HL003)."""


class UnterminatedError(Exception):
    """A macro invocation whose argument list does not close."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class Reader:
    """Pending tokens of an expansion: a stack of generated tokens, then (at top level) source."""

    __slots__ = ("end", "hi", "pos", "src", "stack")

    def __init__(self, stack: list[Tok], src: list[Token] | None = None, pos: int = 0, hi: int = 0):
        self.stack = stack  # reversed: the next token is stack[-1]
        self.src = src
        self.pos = pos
        self.hi = hi
        self.end = -1
        """Offset just after the last source token consumed."""

    def next(self) -> Tok | None:
        return self.stack.pop() if self.stack else None

    def next_arg(self) -> Tok | None:
        if self.stack:
            return self.stack.pop()
        if self.src is not None and self.pos < self.hi:
            t = self.src[self.pos]
            self.pos += 1
            self.end = t.end
            return Tok(t.kind, t.text, t.ws, EMPTY)
        return None

    def peek_is_lparen(self) -> bool:
        if self.stack:
            return self.stack[-1].text == "("
        if self.src is not None and self.pos < self.hi:
            return self.src[self.pos].text == "("
        return False

    def push(self, toks: list[Tok]) -> None:
        self.stack.extend(reversed(toks))


# Two-character punctuators: when two generated tokens would fuse, a space is put between them.
_FUSING = frozenset(
    [
        "++",
        "--",
        "<<",
        ">>",
        "<=",
        ">=",
        "==",
        "!=",
        "&&",
        "||",
        "+=",
        "-=",
        "*=",
        "/=",
        "%=",
        "&=",
        "^=",
        "|=",
        "->",
        "##",
        "::",
        "/*",
        "//",
        "..",
        "%:",
    ]
)


def join_tokens(toks: Sequence[Tok]) -> str:
    parts: list[str] = []
    prev: Tok | None = None
    for t in toks:
        if prev is not None and (
            t.ws
            or (prev.kind in (ID, NUM) and t.kind in (ID, NUM))
            or (prev.kind == PUNCT and t.kind == PUNCT and prev.text[-1] + t.text[0] in _FUSING)
        ):
            parts.append(" ")
        parts.append(t.text)
        prev = t
    return "".join(parts)


def _stringify(toks: Sequence[Tok]) -> str:
    parts = ['"']
    for k, t in enumerate(toks):
        if k and t.ws:
            parts.append(" ")
        if t.kind in (STR, "chr"):
            parts.append(t.text.replace("\\", "\\\\").replace('"', '\\"'))
        else:
            parts.append(t.text)
    parts.append('"')
    return "".join(parts)


class MacroExpander:
    """Macro definitions, and the expansion of token lists under them: the base of `Preprocessor`,
    which feeds it the tokens of active lines and directives."""

    def __init__(self) -> None:
        self.macros: dict[str, Macro] = {}
        for name in ("__LINE__", "__FILE__", "__COUNTER__"):
            self.macros[name] = Macro(name, None, False, (), builtin=True)
        self.diagnostics: list[Diag] = []
        self.deadline = current()
        """The unit's deadline (`hlsllint.deadline`): expansion and the directives' loop check it."""
        self._counter = 0
        self._budget = 0
        self._depth = 0
        self._in_if = False
        self._rec_names: list[frozenset[str]] = []
        """Other names looked up: bodies of expanded macros, pasted names, include guards."""
        self._rec_writes: list[tuple[str, Macro | None]] = []
        """Macro definitions changed: (name, the definition before)."""
        self._rec_bad: list[str] = []
        """Reasons an expansion cannot be reused (limits hit, unreadable files...)."""
        # Context for __LINE__ / __FILE__.
        self._cur_path = ""
        self._cur_lexed: LexedFile | None = None
        self._cur_offset = 0

    def define_from_text(self, src: str, path: str) -> None:
        """Define a macro from `NAME VALUE` / `NAME(args) VALUE` (a -D option)."""
        toks = lex_tokens(src)
        err = self._define(toks, 0, len(toks), path, 0)
        if err:
            self.diagnostics.append(Diag("HL003", f"invalid -D option '{src}': {err}", path, 0, 0))

    def _define(self, toks: Sequence[Token], lo: int, hi: int, path: str, start: int) -> str:
        """Parse a #define's operands; returns an error message or ""."""
        if lo >= hi or toks[lo].kind != ID:
            return "macro name missing in #define"
        name = toks[lo].text
        if name == "defined":
            return "'defined' cannot be used as a macro name"
        i = lo + 1
        params: tuple[str, ...] | None = None
        variadic = False
        if i < hi and toks[i].text == "(" and not toks[i].ws:
            names: list[str] = []
            i += 1
            expect_name = True
            while True:
                if i >= hi:
                    return f"missing ')' in parameter list of macro '{name}'"
                t = toks[i]
                i += 1
                if t.text == ")" and (not expect_name or not names):
                    break
                if not expect_name:
                    if t.text != ",":
                        return f"expected ',' or ')' in parameter list of macro '{name}'"
                    expect_name = True
                    continue
                if t.text == "...":
                    names.append("__VA_ARGS__")
                    variadic = True
                    if i >= hi or toks[i].text != ")":
                        return f"'...' must be the last parameter of macro '{name}'"
                    i += 1
                    break
                if t.kind != ID:
                    return f"invalid parameter '{t.text}' in macro '{name}'"
                if i < hi and toks[i].text == "...":
                    names.append(t.text)
                    variadic = True
                    i += 1
                    if i >= hi or toks[i].text != ")":
                        return f"'...' must be the last parameter of macro '{name}'"
                    i += 1
                    break
                names.append(t.text)
                expect_name = False
            params = tuple(names)
        body = tuple(toks[i:hi])
        ids = frozenset(t.text for t in body if t.kind == ID)
        self._rec_writes.append((name, self.macros.get(name)))
        self.macros[name] = Macro(name, params, variadic, body, path, start, ids=ids)
        return ""

    def _line(self) -> int:
        lf = self._cur_lexed
        if lf is None:
            return 1
        return bisect.bisect_right(lf.line_starts, self._cur_offset)

    def _builtin(self, t: Tok) -> Tok:
        if t.text == "__LINE__":
            return Tok(NUM, str(self._line()), t.ws, t.hs)
        if t.text == "__FILE__":
            quoted = self._cur_path.replace("\\", "\\\\").replace('"', '\\"')
            return Tok(STR, f'"{quoted}"', t.ws, t.hs)
        self._counter += 1
        self._rec_bad.append("__COUNTER__")
        return Tok(NUM, str(self._counter - 1), t.ws, t.hs)

    def _expand(self, reader: Reader) -> list[Tok]:
        out: list[Tok] = []
        macros = self.macros
        deadline = self.deadline
        while True:
            deadline.tick()
            t = reader.next()
            if t is None:
                return out
            if t.kind != ID:
                out.append(t)
                continue
            m = macros.get(t.text)
            if m is None or t.text in t.hs:
                out.append(t)
                if self._in_if and t.text == "defined":
                    # The operand of `defined` is not expanded, even when it comes out of a macro.
                    nxt = reader.next()
                    if nxt is not None and nxt.text == "(":
                        out.append(nxt)
                        nxt = reader.next()
                    if nxt is not None:
                        out.append(nxt)
                continue
            if m.builtin:
                out.append(self._builtin(t))
                continue
            if m.params is None:
                self._rec_names.append(m.ids)
                reader.push(self._subst(m, [], t.hs | {m.name}, t.ws))
                continue
            if not reader.peek_is_lparen():
                out.append(t)
                continue
            self._rec_names.append(m.ids)
            args, rparen = self._collect_args(reader, m)
            hs = (t.hs & rparen.hs) | {m.name}
            reader.push(self._subst(m, args, hs, t.ws))

    def _collect_args(self, reader: Reader, m: Macro) -> tuple[list[list[Tok]], Tok]:
        assert m.params is not None
        reader.next_arg()  # "("
        nparams = len(m.params)
        args: list[list[Tok]] = [[]]
        depth = 0
        while True:
            t = reader.next_arg()
            if t is None:
                raise UnterminatedError(m.name)
            text = t.text
            if text == "(":
                depth += 1
            elif text == ")":
                if depth == 0:
                    rparen = t
                    break
                depth -= 1
            elif text == "," and depth == 0 and not (m.variadic and len(args) >= nparams):
                args.append([])
                continue
            args[-1].append(t)
        if nparams == 0 and len(args) == 1 and not args[0]:
            args = []
        elif m.variadic and len(args) == nparams - 1:
            args.append([])
        if len(args) != nparams:
            self._error(f"macro '{m.name}' takes {nparams} argument{'s' * (nparams != 1)}, {len(args)} given")
            args = (args + [[] for _ in range(nparams)])[:nparams]
        return args, rparen

    def _expand_arg(self, arg: list[Tok]) -> list[Tok]:
        self._depth += 1
        try:
            if self._depth > MAX_EXPANSION_DEPTH:
                raise LimitError("macro arguments nested too deeply")
            return self._expand(Reader(list(reversed(arg))))
        finally:
            self._depth -= 1

    def _subst(self, m: Macro, args: list[list[Tok]], hs: frozenset[str], ws: bool) -> list[Tok]:
        body = m.body
        params = m.params or ()
        n = len(body)
        # Pieces between ## operators: (tokens, is __VA_ARGS__ of a variadic macro); None is ##.
        pieces: list[tuple[list[Tok], bool] | None] = []
        expanded: dict[int, list[Tok]] = {}
        i = 0
        while i < n:
            t = body[i]
            text = t.text
            if (
                (text == "#" or text == "%:")
                and m.params is not None
                and i + 1 < n
                and body[i + 1].text in params
            ):
                idx = params.index(body[i + 1].text)
                pieces.append(([Tok(STR, _stringify(args[idx]), t.ws, hs)], False))
                i += 2
                continue
            if (text == "##" or text == "%:%:") and 0 < i < n - 1:
                pieces.append(None)
                i += 1
                continue
            if t.kind == ID and text in params:
                idx = params.index(text)
                pasted = (pieces and pieces[-1] is None) or (i + 1 < n and body[i + 1].text in ("##", "%:%:"))
                if pasted:
                    src = args[idx]
                elif idx in expanded:
                    src = expanded[idx]
                else:
                    src = expanded[idx] = self._expand_arg(args[idx])
                toks = [Tok(a.kind, a.text, a.ws, a.hs | hs) for a in src]
                if toks:
                    toks[0] = Tok(toks[0].kind, toks[0].text, t.ws, toks[0].hs)
                pieces.append((toks, m.variadic and idx == len(params) - 1))
            else:
                pieces.append(([Tok(t.kind, text, t.ws, hs)], False))
            i += 1
        result: list[Tok] = []
        last_empty = False
        k = 0
        while k < len(pieces):
            piece = pieces[k]
            k += 1
            if piece is None:
                if k >= len(pieces) or pieces[k] is None:
                    continue
                right = pieces[k]
                assert right is not None
                k += 1
                rtoks, is_va = right
                if is_va and not last_empty and result and result[-1].text == ",":
                    # GNU ", ## __VA_ARGS__": drop the comma when there are no variadic args.
                    if not rtoks:
                        result.pop()
                    else:
                        result.extend(rtoks)
                    last_empty = not rtoks
                    continue
                if not rtoks:
                    continue
                if last_empty or not result:
                    result.extend(rtoks)
                    last_empty = False
                    continue
                left = result.pop()
                joined = left.text + rtoks[0].text
                fused = lex_tokens(joined)
                self._rec_names.append(frozenset(f.text for f in fused if f.kind == ID))
                if len(fused) != 1:
                    self._error(f"pasting '{left.text}' and '{rtoks[0].text}' does not give a token")
                for f_i, f in enumerate(fused):
                    result.append(Tok(f.kind, f.text, left.ws if f_i == 0 else f.ws, hs))
                result.extend(rtoks[1:])
                last_empty = False
                continue
            toks, _ = piece
            result.extend(toks)
            last_empty = not toks
        if result:
            first = result[0]
            result[0] = Tok(first.kind, first.text, ws, first.hs)
        self._budget += len(result)
        if self._budget > MAX_EXPANSION_TOKENS:
            raise LimitError("macro expansion too large")
        return result

    # -- diagnostics --------------------------------------------------------------------------

    def _error(self, message: str, start: int | None = None, end: int | None = None) -> None:
        s = self._cur_offset if start is None else start
        e = s if end is None else end
        self.diagnostics.append(Diag("HL003", message, self._cur_path, s, e))
