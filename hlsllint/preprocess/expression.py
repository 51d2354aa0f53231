"""Evaluating `#if` expressions with C semantics (64-bit intmax_t / uintmax_t arithmetic).

The input is the directive's tokens after `defined` and macro replacement; identifiers that are
left are 0 (`true` is 1, as in C++). Errors raise `ExpressionError` (the caller reports HL003 and
takes the branch as false).
"""

from __future__ import annotations

from collections.abc import Sequence

from hlsllint.preprocess.lexer import CHR, ID, NUM, Token

_MASK = (1 << 64) - 1
_SIGN = 1 << 63
MAX_NESTING = 128
"""Parentheses, unary operators and `?:` nested in one `#if` expression (the parser recurses on
them, and a compiled recursion has no `RecursionError`: deeper is an HL003 error)."""


class ExpressionError(Exception):
    pass


Value = tuple[int, bool]
"""(value, unsigned). Signed values are kept in Python's range; unsigned ones in [0, 2**64)."""


def _signed(v: int) -> int:
    v &= _MASK
    return v - (1 << 64) if v & _SIGN else v


def _make(v: int, unsigned: bool) -> Value:
    return (v & _MASK, True) if unsigned else (_signed(v), False)


def parse_int(text: str) -> Value:
    body = text.rstrip("uUlL")
    suffix = text[len(body) :].lower()
    if suffix.replace("l", "") not in ("", "u") or suffix.count("u") > 1:
        raise ExpressionError(f"invalid integer suffix in '{text}'")
    unsigned = "u" in suffix
    low = body.lower()
    try:
        if low.startswith("0x"):
            v = int(low[2:], 16)
        elif low.startswith("0b"):
            v = int(low[2:], 2)
        elif len(low) > 1 and low.startswith("0"):
            v = int(low[1:], 8)
        else:
            v = int(low, 10)
    except ValueError:
        raise ExpressionError(f"invalid integer constant '{text}' in #if") from None
    if v > _MASK:
        raise ExpressionError(f"integer constant '{text}' is too large")
    if v >= _SIGN:
        unsigned = True
    return _make(v, unsigned)


_ESCAPES = {
    "n": 10,
    "t": 9,
    "r": 13,
    "0": 0,
    "a": 7,
    "b": 8,
    "f": 12,
    "v": 11,
    "\\": 92,
    "'": 39,
    '"': 34,
    "?": 63,
}


def parse_char(text: str) -> Value:
    body = text
    for prefix in ("u8", "u", "U", "L"):
        if body.startswith(prefix + "'"):
            body = body[len(prefix) :]
            break
    if len(body) < 3 or not body.endswith("'"):
        raise ExpressionError(f"invalid character constant {text}")
    inner = body[1:-1]
    values: list[int] = []
    i = 0
    while i < len(inner):
        c = inner[i]
        if c != "\\":
            values.append(ord(c))
            i += 1
            continue
        if i + 1 >= len(inner):
            raise ExpressionError(f"invalid character constant {text}")
        e = inner[i + 1]
        if e == "x":
            j = i + 2
            while j < len(inner) and inner[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i + 2:
                raise ExpressionError(f"invalid character constant {text}")
            values.append(int(inner[i + 2 : j], 16) & 0xFF)
            i = j
        elif e in "01234567":
            j = i + 1
            while j < len(inner) and j < i + 4 and inner[j] in "01234567":
                j += 1
            values.append(int(inner[i + 1 : j], 8) & 0xFF)
            i = j
        elif e in _ESCAPES:
            values.append(_ESCAPES[e])
            i += 2
        else:
            values.append(ord(e))
            i += 2
    v = 0
    for b in values:
        v = (v << 8) | (b & 0xFF)
    if len(values) == 1 and values[0] >= 0x80 and values[0] < 0x100:
        v = values[0] - 0x100  # plain char is signed
    return _make(v, False)


# Binary operators: precedence (higher binds tighter).
_BINARY = {
    "*": 10,
    "/": 10,
    "%": 10,
    "+": 9,
    "-": 9,
    "<<": 8,
    ">>": 8,
    "<": 7,
    ">": 7,
    "<=": 7,
    ">=": 7,
    "==": 6,
    "!=": 6,
    "&": 5,
    "^": 4,
    "|": 3,
    "&&": 2,
    "||": 1,
}


class _Parser:
    def __init__(self, tokens: Sequence[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    def _nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ExpressionError(f"#if expression nested more than {MAX_NESTING} deep")

    def peek(self) -> str | None:
        return self.tokens[self.pos].text if self.pos < len(self.tokens) else None

    def take(self) -> Token:
        if self.pos >= len(self.tokens):
            raise ExpressionError("unexpected end of #if expression")
        t = self.tokens[self.pos]
        self.pos += 1
        return t

    def expect(self, text: str) -> None:
        t = self.peek()
        if t != text:
            raise ExpressionError(f"expected '{text}' in #if expression, found {t or 'end'}")
        self.pos += 1

    # conditional: logical-or ('?' expression ':' conditional)?
    def conditional(self, evaluate: bool) -> Value:
        cond = self.binary(1, evaluate)
        if self.peek() != "?":
            return cond
        self.pos += 1
        truthy = cond[0] != 0
        self._nest()
        a = self.comma(evaluate and truthy)
        self.expect(":")
        b = self.conditional(evaluate and not truthy)
        self.depth -= 1
        unsigned = a[1] or b[1]
        return _make(a[0] if truthy else b[0], unsigned)

    def comma(self, evaluate: bool) -> Value:
        v = self.conditional(evaluate)
        while self.peek() == ",":
            self.pos += 1
            v = self.conditional(evaluate)
        return v

    def binary(self, min_prec: int, evaluate: bool) -> Value:
        left = self.unary(evaluate)
        while True:
            op = self.peek()
            prec = _BINARY.get(op or "")
            if prec is None or prec < min_prec:
                return left
            assert op is not None
            self.pos += 1
            if op == "&&":
                right = self.binary(prec + 1, evaluate and left[0] != 0)
                left = (int(left[0] != 0 and right[0] != 0), False)
            elif op == "||":
                right = self.binary(prec + 1, evaluate and left[0] == 0)
                left = (int(left[0] != 0 or right[0] != 0), False)
            else:
                right = self.binary(prec + 1, evaluate)
                left = _apply(op, left, right, evaluate)

    def unary(self, evaluate: bool) -> Value:
        t = self.take()
        text = t.text
        if text in ("(", "!", "~", "-", "+"):
            self._nest()
            v = self._prefixed(text, evaluate)
            self.depth -= 1
            return v
        if t.kind == NUM:
            return parse_int(text)
        if t.kind == CHR:
            return parse_char(text)
        if t.kind == ID:
            return (1, False) if text == "true" else (0, False)
        raise ExpressionError(f"unexpected '{text}' in #if expression")

    def _prefixed(self, text: str, evaluate: bool) -> Value:
        """What follows `(` or a unary operator."""
        if text == "(":
            v = self.comma(evaluate)
            self.expect(")")
            return v
        v = self.unary(evaluate)
        if text == "!":
            return (int(v[0] == 0), False)
        if text == "~":
            return _make(~v[0], v[1])
        if text == "-":
            return _make(-v[0], v[1])
        return v


def _apply(op: str, a: Value, b: Value, evaluate: bool) -> Value:
    unsigned = a[1] or b[1]
    x, y = a[0], b[0]
    if unsigned:
        x &= _MASK
        y &= _MASK
    if op in ("<", ">", "<=", ">=", "==", "!="):
        holds = {
            "<": x < y,
            ">": x > y,
            "<=": x <= y,
            ">=": x >= y,
            "==": x == y,
            "!=": x != y,
        }[op]
        return (int(holds), False)
    if op in ("<<", ">>"):
        # The result has the type of the left operand.
        if not evaluate:
            return (0, a[1])
        n = b[0] if not b[1] else b[0] & _MASK
        if n < 0:
            return _apply(">>" if op == "<<" else "<<", a, (-n, False), evaluate)
        if n >= 64:
            return (0 if op == "<<" or not (a[0] < 0) else -1, a[1])
        return _make(a[0] << n if op == "<<" else a[0] >> n, a[1])
    if op in ("/", "%"):
        if y == 0:
            if evaluate:
                raise ExpressionError("division by zero in #if expression")
            return (0, unsigned)
        q = abs(x) // abs(y)
        if (x < 0) != (y < 0):
            q = -q
        return _make(q if op == "/" else x - q * y, unsigned)
    r = {
        "*": x * y,
        "+": x + y,
        "-": x - y,
        "&": x & y,
        "^": x ^ y,
        "|": x | y,
    }[op]
    return _make(r, unsigned)


def evaluate(tokens: Sequence[Token]) -> int:
    """The value of a `#if` expression (tokens already macro-expanded, `defined` replaced)."""
    if not tokens:
        raise ExpressionError("#if with no expression")
    p = _Parser(tokens)
    v = p.comma(True)
    if p.pos != len(tokens):
        raise ExpressionError(f"unexpected '{tokens[p.pos].text}' in #if expression")
    return v[0]
