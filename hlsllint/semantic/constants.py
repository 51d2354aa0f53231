"""Compile-time constants: `Constants.const_value(expr)` folds literals, static consts, casts and
arithmetic (array sizes, `vector<float, N>`, `[numthreads]`, loop bounds), on top of the model's
tables (`ModelBase`)."""

from __future__ import annotations

import math
import re
from typing import Any, Final, TypeVar

from hlsllint.semantic.base import ModelBase
from hlsllint.semantic.symbols import Symbol
from hlsllint.semantic.types import Type
from hlsllint.settings import AnalysisSettings
from hlsllint.syntax import Node, SyntaxTree
from hlsllint.syntax.fields import (
    F_ALTERNATIVE,
    F_ARGUMENT,
    F_ARGUMENTS,
    F_CONDITION,
    F_CONSEQUENCE,
    F_FIELD,
    F_FUNCTION,
    F_LEFT,
    F_NAME,
    F_OPERATOR,
    F_RIGHT,
    F_TYPE,
    F_VALUE,
)
from hlsllint.syntax.queries import call_name, is_written, unparen_up

_OUT_ARGUMENTS = frozenset({"sincos", "modf", "frexp", "asuint", "asdouble"})
"""Intrinsics that write one of their arguments (`sincos(x, s, c)`)."""


MEMBER_SLOTS: Final = 1024
"""`member_binding` keys: members per struct parameter."""


def member_binding(param_id: int, member: int) -> int:
    """The key, among an inlined copy's bindings (`Model.const_value_with`), of member number
    `member` of the struct parameter `param_id` (its `id`): negative, so never a parameter's
    own key; `member_of_binding` gives both back."""
    return -(param_id * MEMBER_SLOTS + member + 1)


def member_of_binding(key: int) -> tuple[int, int] | None:
    """(parameter id, member number) of a `member_binding` key; None for a parameter's key."""
    if key >= 0:
        return None
    n = -key - 1
    return n // MEMBER_SLOTS, n % MEMBER_SLOTS


def _strip_suffix(text: str) -> str:
    return text.rstrip("fFhHlLuU") if not text.lower().startswith("0x") else text.rstrip("uUlL")


FLOAT_MAX = 3.4028234663852886e38
HALF_MAX = 65504.0


def float_limit(text: str) -> float:
    """The largest value the type of a floating literal holds (`h`: half, `l`/`L`: double)."""
    suffix = text.rstrip()[-1:].lower()
    return HALF_MAX if suffix == "h" else math.inf if suffix == "l" else FLOAT_MAX


_ROUNDS_TO_INFINITY = {"float": 2.0**128 - 2.0**103, "half": 65520.0}
"""The smallest magnitude a literal of the type rounds to infinity (to nearest, ties to even):
the largest finite value plus half a unit in its last place. `3.40282347e+38`, FLT_MAX as
<float.h> spells it, lies above FLT_MAX and rounds to it."""


def overflows(text: str, value: float) -> bool:
    """A floating literal's value rounds to infinity in its type (`h`: half, `l`: double)."""
    suffix = text.rstrip()[-1:].lower()
    if suffix == "l":
        return math.isinf(value)
    return abs(value) >= _ROUNDS_TO_INFINITY["half" if suffix == "h" else "float"]


def parse_number(text: str) -> int | float | None:
    """The value of a literal; None when it is not one, or a floating literal that overflows its
    type (HL008 reports it; the analyses take it as unknown)."""
    t = text.strip()
    try:
        low = t.lower()
        if low.startswith("0x"):
            return int(low.rstrip("ul"), 16)
        core = _strip_suffix(t)
        if any(c in core for c in ".eE"):
            v = float(core)
            return None if overflows(t, v) else v
        if len(core) > 1 and core.startswith("0") and core.isdigit():
            return int(core, 8)
        value = int(core)
        return value if value < 1 << 64 else None
    except ValueError:
        return None


FOLD_DEPTH: Final = 64
"""How deep the evaluation of one constant goes (names followed to their values, operands): a
constant that needs more (a chain of locals, each set from the one before) is unknown."""


class FoldMemo:
    """What `Constants.const_value_with` folded under one set of bindings, for the next question
    under the same bindings (an inlined copy's expressions, asked outermost first, share their
    operands): the values and their heights, as the model's own memo keeps them."""

    def __init__(self) -> None:
        self.values: dict[int, int | float | bool | None] = {}
        self.heights: dict[int, int] = {}


class Constants(ModelBase):
    """The model with constant evaluation (see the module docstring)."""

    def __init__(self, tree: SyntaxTree, settings: AnalysisSettings) -> None:
        super().__init__(tree, settings)
        self._const_guard: set[int] = set()
        """The expressions being evaluated, outermost first (a name met again is a cycle)."""
        self._consts: dict[int, int | float | bool | None] | None = None
        """Memoised values (from the end of `build` on: before that a name may not be resolved
        yet), with their `_const_heights`."""
        self._const_heights: dict[int, int] = {}
        """How deep the evaluation of each memoised value went: asked inside an evaluation `d`
        deep, the value holds if `d + height <= FOLD_DEPTH` (else it is unknown, as an evaluation
        that goes past `FOLD_DEPTH` is)."""
        self._reach = 0
        """The deepest level the evaluations in progress have gone to."""
        self.folds = 0
        """Expressions evaluated (not answered from the memo): for the tests."""
        self._bindings: dict[int, int | float | bool] | None = None
        """While `const_value_with` runs: id(parameter) -> the constant it is bound to (what is
        folded then holds for these bindings only: not in the model's memo, in `_bound_memo`)."""
        self._bound_memo: FoldMemo | None = None
        """While `const_value_with` runs: its caller's memo for those bindings, if any."""
        self._never_written_memo: dict[int, bool] = {}
        """id(symbol) -> `never_written`, once the bodies are resolved."""
        self.use_walks = 0
        """Symbols whose uses `never_written` walked (not answered from its memo): for the tests."""

    def const_value(self, node: Node | None) -> int | float | bool | None:
        """The compile-time value of an expression (literals, static consts, arithmetic)."""
        if node is None:
            return None
        if not self._const_guard:
            return self._fold(node)
        # Inside another constant (a type it casts to names one: `(vector<float, N>)x`): its own
        # depth does not count in that one's.
        reach = self._reach
        value = self._fold(node)
        self._reach = reach
        return value

    def _fold(self, node: Node) -> int | float | bool | None:
        """`const_value` inside an evaluation `len(_const_guard)` deep. A value computed without
        reaching `FOLD_DEPTH` (or one known to need more) is memoised with its height, so that a
        chain of locals asked in order is evaluated once, not up to `FOLD_DEPTH` levels per
        local; the answers are those of an evaluation without the memo."""
        guard = self._const_guard
        key = node.id
        depth = len(guard)
        if depth and (key in guard or depth > FOLD_DEPTH):  # a cycle, or too deep
            if depth > self._reach:
                self._reach = depth
            return None
        memo = self._consts
        heights = self._const_heights
        if self._bindings is not None:
            bound = self._bound_memo
            memo = bound.values if bound is not None and memo is not None else None
            heights = bound.heights if bound is not None else heights
        if memo is not None and key in memo:
            reach = depth + heights[key]
            if reach > self._reach:
                self._reach = reach
            return memo[key] if reach <= FOLD_DEPTH else None
        outer = self._reach
        self._reach = depth
        self.folds += 1
        value = self._const_value_guarded(node)
        reach = self._reach
        if memo is not None and (reach <= FOLD_DEPTH or reach - depth > FOLD_DEPTH):
            memo[key] = value
            heights[key] = reach - depth
        if outer > reach:
            self._reach = outer
        return value

    def const_value_with(
        self, node: Node | None, bindings: dict[int, int | float | bool], memo: FoldMemo | None = None
    ) -> int | float | bool | None:
        """`const_value` in an inlined copy of a function whose parameters `bindings` names
        (id(parameter) -> value) were passed compile-time constants: the compiler folds each
        copy with its own arguments (`filter(uv, 2)`: a loop to `radius` has 5 iterations).
        `memo`, kept by the caller for these same bindings, holds what the questions before
        folded (the operands of an expression asked before), as the model's memo does without
        bindings."""
        if node is None:
            return None
        if not bindings:
            return self.const_value(node)
        saved = self._bindings
        saved_memo = self._bound_memo
        self._bindings = bindings
        self._bound_memo = memo
        try:
            return self._const_value_guarded(node)
        finally:
            self._bindings = saved
            self._bound_memo = saved_memo

    def static_member(self, name: str) -> Symbol | None:
        """The static member a scoped name names (`Tile::kSize`, `Outer::Inner::kSize`: a
        struct's `static const`), or None."""
        if "::" not in name:
            return None
        parts = name.split("::")
        for i in range(len(parts) - 1):  # the innermost struct names it (`Ns::Tile::kSize`)
            sym = self.static_members.get("::".join(parts[i:]))
            if sym is not None:
                return sym
        return None

    def const_text(self, text: str) -> int | float | bool | None:
        """The value of a constant expression written as text (an attribute's argument:
        `[numthreads(Tile::kSize / 2, A * B, 1)]`): literals, `static const` names (scoped or
        not), struct static members, casts, arithmetic, `?:`. None when any part is not a
        constant."""
        tokens = _TOKEN.findall(text)
        if not tokens or "".join(tokens) != "".join(text.split()):
            return None  # a character no constant expression holds
        try:
            parser = _TextParser(self, tokens)
            value = parser.ternary()
            return value if parser.at == len(tokens) else None
        except (ArithmeticError, ValueError, TypeError, IndexError, RecursionError):
            return None

    def _name_value(self, name: str) -> int | float | bool | None:
        """The value of a constant's name in an attribute's text (`const_text`)."""
        if name == "true" or name == "false":
            return name == "true"
        member = self.static_member(name)
        if member is not None:
            return self.const_value(member.init)
        sym = self.globals.get(name.rpartition("::")[2])
        if sym is None or sym.kind != "static_const" or sym.init is None:
            return None
        return self.const_value(sym.init)

    def never_written(self, sym: Symbol) -> bool:
        """A local (not `const`) that keeps its initial value: no use of it is written or passed
        where it could be (an argument of a user function or a method, an out argument of an
        intrinsic). Known only once the bodies are resolved (the end of `build`): before that,
        False."""
        if self._consts is None or sym.node is None:
            return False
        found = self._never_written_memo.get(id(sym))
        if found is None:
            found = self._never_written_memo[id(sym)] = self._no_use_written(sym)
        return found

    def _no_use_written(self, sym: Symbol) -> bool:
        self.use_walks += 1
        tree = self.tree
        for use in self.uses_of_symbol(sym):
            if is_written(tree, use):
                return False
            _site, parent = unparen_up(use)
            if parent is not None and parent.type == "argument_list" and parent.parent is not None:
                call = parent.parent
                fn = call.child_by_field_id(F_FUNCTION)
                name = call_name(tree, call) or ""
                if fn is None or fn.type == "field_expression" or name in _OUT_ARGUMENTS:
                    return False
                if name in self.functions or name.startswith("Interlocked"):
                    return False
        return True

    def _const_value_guarded(self, node: Node) -> int | float | bool | None:
        self._const_guard.add(node.id)
        try:
            return self._const_value(node)
        except (ArithmeticError, ValueError, TypeError):
            return None
        finally:
            self._const_guard.discard(node.id)

    def _fold_opt(self, node: Node | None) -> int | float | bool | None:
        return None if node is None else self._fold(node)

    def _const_value(self, node: Node) -> int | float | bool | None:
        kind = node.type
        if kind == "number_literal":
            return parse_number(self.tree.node_text(node))
        if kind == "user_defined_literal":  # `1.0h`: the grammar reads the half suffix as a C++ UDL
            text = self.tree.node_text(node)
            return parse_number(text) if text[-1:] in "hHfFlLuU" else None
        if kind == "true":
            return True
        if kind == "false":
            return False
        if kind in ("parenthesized_expression", "type_descriptor"):
            inner = node.named_children
            return self._fold_opt(inner[0]) if len(inner) == 1 else None
        if kind == "identifier":
            sym = self.resolve(node) or self.globals.get(self.tree.node_text(node))
            if sym is not None and self._bindings is not None and id(sym) in self._bindings:
                return self._bindings[id(sym)]
            if sym is not None and sym.kind in ("static_const", "local") and sym.init is not None:
                if sym.kind == "local" and "const" not in sym.qualifiers and not self.never_written(sym):
                    return None
                return self._fold_opt(sym.init)
            return None
        if kind == "field_expression" and self._bindings is not None:
            # a member of a struct parameter this inlined copy was passed a constant for
            obj = node.child_by_field_id(F_ARGUMENT)
            sym = self.resolve(obj) if obj is not None and obj.type == "identifier" else None
            if sym is None or sym.kind != "param" or sym.type.kind != "struct":
                return None
            field = self.tree.node_text(node.child_by_field_id(F_FIELD) or node)
            names = [m.name for m in sym.type.members]
            if field not in names:
                return None
            key = member_binding(id(sym), names.index(field))
            return self._bindings.get(key)
        if kind == "call_expression":
            # `int(N)`, `uint(x)`: a cast written as a call of a scalar type
            fn = node.child_by_field_id(F_FUNCTION)
            args = node.child_by_field_id(F_ARGUMENTS)
            if fn is None or fn.type not in ("identifier", "primitive_type") or args is None:
                return None
            operands = [a for a in args.named_children if a.type != "comment"]
            name = self.tree.node_text(fn)
            if name == "WaveGetLaneCount" and not operands and self.settings.wave_size is not None:
                return self.settings.wave_size  # the configured wave size
            if name == "select" and len(operands) == 3 and name not in self.functions:
                # HLSL 2021's `select(c, a, b)`, the `?:` of a scalar condition
                c = self._fold_opt(operands[0])
                return None if c is None else self._fold_opt(operands[1] if c else operands[2])
            if name in _FOLDED_INTRINSICS and name not in self.functions:
                # `max(INITIAL_SAMPLE_STEP, 32)` in a `[numthreads]`: the compiler folds it
                return _fold_intrinsic(name, [self._fold_opt(o) for o in operands])
            t = self.lookup_type(name)
            if len(operands) != 1 or t.kind != "scalar":
                return None
            return _converted(self._fold_opt(operands[0]), t)
        if kind == "qualified_identifier":
            # `Tile::kSize`: a struct's static member; `Kernel::Width`: namespaces are flattened
            # into the globals, so the member's own name.
            member = self.static_member("".join(self.tree.node_text(node).split()))
            if member is not None:
                return self._fold_opt(member.init)
            return self._fold_opt(node.child_by_field_id(F_NAME))
        if kind == "cast_expression":
            t = self.type_from_node(node.child_by_field_id(F_TYPE))
            return _converted(self._fold_opt(node.child_by_field_id(F_VALUE)), t)
        if kind == "unary_expression":
            v = self._fold_opt(node.child_by_field_id(F_ARGUMENT))
            op = node.child_by_field_id(F_OPERATOR)
            o = self.tree.node_text(op) if op else ""
            if v is None:
                return None
            if o == "-":
                return -v
            if o == "+":
                return v
            if o == "!":
                return not v
            if o == "~" and isinstance(v, int):
                return ~v
            return None
        if kind == "binary_expression":
            a = self._fold_opt(node.child_by_field_id(F_LEFT))
            b = self._fold_opt(node.child_by_field_id(F_RIGHT))
            op = node.child_by_field_id(F_OPERATOR)
            if a is None or b is None or op is None:
                return None
            return _binop(self.tree.node_text(op), a, b)
        if kind == "conditional_expression":
            c = self._fold_opt(node.child_by_field_id(F_CONDITION))
            if c is None:
                return None
            return self._fold_opt(node.child_by_field_id(F_CONSEQUENCE if c else F_ALTERNATIVE))
        if kind == "sizeof_expression":
            return self._sizeof(node)
        return None

    def _sizeof(self, node: Node) -> int | None:
        """`sizeof(T)` or `sizeof(expr)` in bytes, as DXC counts them (4 per 32-bit component,
        no padding; `half` is 4 bytes without 16-bit types): engines bound loops by
        `sizeof(table) / sizeof(table[0])`. None for a resource or a size not known here."""
        t: Type | None = None
        operand = node.child_by_field_id(F_TYPE)
        if operand is not None:
            t = self.type_from_node(operand)
        else:
            operand = node.child_by_field_id(F_VALUE)
            while operand is not None and operand.type == "parenthesized_expression":
                inner = [c for c in operand.named_children if c.type != "comment"]
                operand = inner[0] if len(inner) == 1 else None
            if operand is None:
                return None
            if operand.type in ("identifier", "primitive_type") and self.resolve(operand) is None:
                t = self.lookup_type(self.tree.node_text(operand))  # `sizeof(float4)`
            if t is None or t.kind == "unknown":
                t = self.type_of(operand)
        if t.kind in ("unknown", "void", "resource") or (t.kind == "array" and t.length is None):
            return None
        size = t.bytes(self.sixteen_bit)
        return size if size > 0 else None


_TOKEN = re.compile(
    r"0[xX][0-9a-fA-F]+[uUlL]*|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFhHlLuU]*"
    r"|[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%()<>&|^!~?:,]"
)
"""The tokens of a constant expression's text: numbers, (scoped) names, operators."""

_BINARY_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", ">", "<=", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
)
"""C's binary operators, loosest first."""


class _TextParser:
    """A recursive-descent evaluator of a constant expression's tokens (`Constants.const_text`)."""

    def __init__(self, model: Constants, tokens: list[str]) -> None:
        self.model = model
        self.tokens = tokens
        self.at = 0

    def peek(self) -> str:
        return self.tokens[self.at] if self.at < len(self.tokens) else ""

    def take(self, token: str) -> None:
        if self.peek() != token:
            raise ValueError(token)
        self.at += 1

    def ternary(self) -> int | float | bool | None:
        cond = self.binary(0)
        if self.peek() != "?":
            return cond
        self.at += 1
        yes = self.ternary()
        self.take(":")
        no = self.ternary()
        return None if cond is None else yes if cond else no

    def binary(self, level: int) -> int | float | bool | None:
        if level == len(_BINARY_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        ops = _BINARY_LEVELS[level]
        while self.peek() in ops:
            op = self.tokens[self.at]
            self.at += 1
            right = self.binary(level + 1)
            left = None if left is None or right is None else _binop(op, left, right)
        return left

    def unary(self) -> int | float | bool | None:
        tok = self.peek()
        if tok in ("-", "+", "!", "~"):
            self.at += 1
            v = self.unary()
            if v is None:
                return None
            if tok == "-":
                return -v
            if tok == "!":
                return not v
            if tok == "~":
                return ~v if isinstance(v, int) else None
            return v
        if tok == "(":
            after = self.tokens[self.at + 1] if self.at + 1 < len(self.tokens) else ""
            t = self.model.lookup_type(after)
            if t.kind == "scalar" and self.at + 2 < len(self.tokens) and self.tokens[self.at + 2] == ")":
                self.at += 3  # `(uint)X`: a cast
                return _converted(self.unary(), t)
            self.at += 1
            v = self.ternary()
            self.take(")")
            return v
        return self.primary()

    def primary(self) -> int | float | bool | None:
        tok = self.peek()
        if not tok:
            raise ValueError("end")
        self.at += 1
        if tok[0].isdigit() or tok[0] == ".":
            return parse_number(tok)
        if not (tok[0].isalpha() or tok[0] == "_"):
            raise ValueError(tok)
        name = "".join(tok.split())
        if self.peek() == "(" and name in _FOLDED_INTRINSICS and name not in self.model.functions:
            self.at += 1  # `max(STEP, 32)`
            args = [self.ternary()]
            while self.peek() == ",":
                self.at += 1
                args.append(self.ternary())
            self.take(")")
            return _fold_intrinsic(name, args)
        if self.peek() == "(":  # `uint(N)`: a cast written as a call
            t = self.model.lookup_type(name)
            if t.kind != "scalar":
                raise ValueError(name)
            self.at += 1
            v = self.ternary()
            self.take(")")
            return _converted(v, t)
        return self.model._name_value(name)


def _converted(v: int | float | bool | None, t: Type) -> int | float | bool | None:
    """A constant converted to a scalar type, as `(int)x` and `int(x)` convert it."""
    if v is None:
        return None
    if t.is_int:
        return int(v)
    if t.is_float:
        return float(v)
    return v


def _binop(op: str, a: Any, b: Any) -> int | float | bool | None:
    both_int = isinstance(a, int) and isinstance(b, int)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if both_int:
            return int(a / b)
        return a / b
    if op == "%" and both_int:
        return int(a - b * int(a / b))
    if both_int and op in ("<<", ">>", "&", "|", "^"):
        return {"<<": a << b, ">>": a >> b, "&": a & b, "|": a | b, "^": a ^ b}[op]
    if op in ("<", ">", "<=", ">=", "==", "!="):
        return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b, "!=": a != b}[op]
    if op == "&&":
        return bool(a) and bool(b)
    if op == "||":
        return bool(a) or bool(b)
    return None


_FOLDED_INTRINSICS = frozenset({"min", "max", "abs", "clamp", "sqrt", "rsqrt"})
"""Scalar intrinsics folded on constant arguments (`max(128, 32)` is 128, `sqrt(2.0)` is
1.41...)."""


def _fold_intrinsic(name: str, args: list[int | float | bool | None]) -> int | float | None:
    """`min`, `max`, `abs` or `clamp` of constant scalars, as the compiler folds them (a float
    argument makes the result float), and `sqrt` and `rsqrt` (a float result; none of a negative
    number: NaN); None unless every argument is a number."""
    if any(a is None or isinstance(a, bool) for a in args):
        return None
    if name in ("sqrt", "rsqrt"):
        # NRD's Poisson table `float3(-0.25 * sqrt(2.0), ...)`: the compiler folds it
        if len(args) != 1 or args[0] is None:
            return None
        x = float(args[0])
        if x < 0.0 or (name == "rsqrt" and x == 0.0) or math.isinf(x) or math.isnan(x):
            return None
        return math.sqrt(x) if name == "sqrt" else 1.0 / math.sqrt(x)
    # Integers and floats apart: compiled, an `int | float` value would be a float.
    ints: list[int] = [a for a in args if isinstance(a, int)]
    if len(ints) == len(args):
        return _fold_numbers(name, ints)
    return _fold_numbers(name, [float(a) for a in args if a is not None])


Number = TypeVar("Number", int, float)
"""An int or a float, never mixed; compiled, a TypeVar's value is an object, so an int stays one."""


def _fold_numbers(name: str, v: list[Number]) -> Number | None:
    if name == "abs" and len(v) == 1:
        return abs(v[0])
    if name == "min" and len(v) == 2:
        return min(v[0], v[1])
    if name == "max" and len(v) == 2:
        return max(v[0], v[1])
    if name == "clamp" and len(v) == 3:
        return min(max(v[0], v[1]), v[2])
    return None
