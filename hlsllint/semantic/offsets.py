"""Addresses relative to the thread: the constant offsets a fetch's coordinate takes around the
dispatch (or group) thread id of one entry point.

`ThreadOffsets(model, entry, call_sites)` answers, for the coordinate of a `Load`, `[]`,
`Sample` or `SampleLevel`:

- `fetch_offsets(site, method, kind, address, extra)`: (what the coordinate is relative to, the
  set of constant 2D offsets it takes), or None. `int2(id.xy) + int2(x, y)` inside
  `for (y = -1; y <= 1; y++) for (x = -1; x <= 1; x++)` is the thread index plus nine offsets,
  `(id.xy + 0.5 + float2(1, 0)) * texel` a uv coordinate one `texel` unit away; offsets come
  from constant arrays (`static const int2 taps[] = {...}`), locals set once, parameters of
  helpers called once and the `Load` offset argument.
- `value(expr, env)`: a scalar or two-component constant, given values of loop counters (`env`:
  id(symbol) -> value). The leaves and scalar sub-expressions are the model's own constants
  (`Model.const_value`); this adds only what that folder does not hold: two-component vectors
  (`int2(x, y)`, a component-wise `+ - * /`) and bindings of the counters of constant loops.
- `loop_values(loop)`: the counter of `for (i = A; i < B; i++ / i += C)` with constant A, B, C
  and every value it takes (at most `MAX_LOOP_VALUES`).
- `origin(expr)`, `identity(expr)`, `texel_index(expr)`, `base(expr)`: where a value comes from
  (through locals set once and parameters of helpers with one call site), and whether it is the
  thread index (plus a group-uniform term) or a coordinate that moves one unit per thread.

`call_sites` maps a function's name to its calls in the unit (a rule gathers them in its walk).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from hlsllint.semantic.model import Model
from hlsllint.semantic.queries import unwritten
from hlsllint.semantic.symbols import EntryPoint, Symbol
from hlsllint.syntax import Node
from hlsllint.syntax.queries import call_args, call_name, for_header, is_written, member_root, same, unparen

THREAD_SEMANTICS = frozenset({"SV_DISPATCHTHREADID", "SV_GROUPTHREADID"})
"""The inputs a coordinate is taken relative to."""
_CASTS = frozenset(
    {"int", "int2", "uint", "uint2", "float", "float2", "half2", "min16float2", "min16int2", "min16uint2"}
)
MAX_LOOP_VALUES = 64
"""A loop with more iterations is not enumerated."""
MAX_COMBINATIONS = 4096
"""Nested loops whose iterations combine to more bindings than this are not enumerated."""
FOLLOW = 6
"""How many locals and parameters `origin` follows back."""

Vec = tuple[float, float]
Env = dict[int, float]
"""id(loop counter symbol) -> its value in one iteration."""
Identity = tuple[str, int, int]
"""Two expressions with the same identity hold the same value."""
Relative = tuple[Identity, str, Identity | None]
"""What a coordinate is relative to: (identity of the base, "texel" / "uv" / "uv/", the identity of
the unit a uv coordinate moves by per thread)."""


class ThreadOffsets:
    """Reads the addresses of one entry point (see the module docstring)."""

    def __init__(self, model: Model, entry: EntryPoint, call_sites: Mapping[str, list[Node]]) -> None:
        self.model = model
        self.entry = entry
        self.call_sites = call_sites

    # -- where a value comes from ---------------------------------------------------------------

    def origin(self, node: Node) -> Node:
        """Follow locals assigned once (at their declaration) and parameters of helpers with one
        call site back to the expression that defines the value."""
        for _ in range(FOLLOW):
            node = unparen(node)
            if node.type != "identifier":
                return node
            sym = self.model.resolve(node)
            if sym is None or not unwritten(self.model, sym):
                return node
            if sym.kind == "local" and sym.init is not None:
                node = sym.init
                continue
            arg = self._single_argument(sym)
            if arg is None:
                return node
            node = arg
        return unparen(node)

    def _single_argument(self, sym: Symbol) -> Node | None:
        if sym.kind != "param" or sym.function is None or sym.function == self.entry.name:
            return None
        fn = self.model.function(sym.function)
        if fn is None or len(self.model.functions.get(sym.function, ())) != 1:
            return None
        sites = self.call_sites.get(sym.function, [])
        if len(sites) != 1:
            return None
        index = next((i for i, p in enumerate(fn.params) if p is sym), -1)
        args = call_args(sites[0])
        return args[index] if 0 <= index < len(args) else None

    def identity(self, node: Node) -> Identity:
        """Two expressions with the same identity hold the same value."""
        node = self.origin(node)
        if node.type == "identifier":
            sym = self.model.resolve(node)
            if sym is not None:
                return ("symbol", id(sym), 0)
        return ("node", node.start_byte, node.end_byte)

    def is_cast(self, node: Node) -> bool:
        """`int2(...)`, `float2(...)` or a typedef of a numeric type (`FfxInt32x2(...)`)."""
        if node.type != "call_expression":
            return False
        name = call_name(self.model.tree, node)
        if name is None:
            return False
        if name in _CASTS:
            return True
        if name in self.model.functions:
            return False
        t = self.model.lookup_type(name)
        return t.is_numeric and t.kind in ("scalar", "vector") and t.cols <= 2

    def base_identity(self, node: Node) -> Identity:
        """`id.xy`, `int2(id.xy)` and `float2(id.xy)` are one base: the thread index itself."""
        origin = self.origin(node)
        while True:
            if self.is_cast(origin):
                args = call_args(origin)
                if len(args) != 1:
                    break
                origin = self.origin(args[0])
            elif origin.type == "cast_expression" and origin.child_by_field_name("value") is not None:
                origin = self.origin(origin.child_by_field_name("value"))  # type: ignore[arg-type]
            else:
                break
        if self._thread_param(origin):
            while origin.type == "field_expression":
                origin = unparen(origin.child_by_field_name("argument"))  # type: ignore[arg-type]
            sym = self.model.resolve(origin)
            return ("thread", id(sym), 0)
        return self.identity(node)

    def _thread_param(self, node: Node) -> bool:
        """`id`, `id.xy`: a thread index input of the entry point."""
        root = member_root(node)
        if root is None:
            return False
        sym = self.model.resolve(root)
        return (
            sym is not None
            and sym.kind == "param"
            and sym.function == self.entry.name
            and (sym.semantic or "").upper() in THREAD_SEMANTICS
        )

    def _uniform(self, node: Node) -> bool:
        """Constant or the same for the whole group: literals, constant buffers, group ids."""
        node = self.origin(node)
        if self.model.const_value(node) is not None:
            return True
        if node.type == "identifier":
            sym = self.model.resolve(node)
            return sym is not None and (
                sym.kind in ("cbuffer_member", "static_const")
                or (sym.kind == "param" and (sym.semantic or "").upper() == "SV_GROUPID")
            )
        if node.type in ("field_expression", "subscript_expression"):
            arg = node.child_by_field_name("argument")
            index = [c for c in node.named_children if not same(c, arg)]
            if node.type == "field_expression":
                index = []
            return arg is not None and self._uniform(arg) and all(self._uniform(i) for i in index)
        if node.type in ("binary_expression", "unary_expression", "parenthesized_expression"):
            return all(self._uniform(c) for c in node.named_children)
        if self.is_cast(node):
            return all(self._uniform(a) for a in call_args(node))
        return False

    def texel_index(self, node: Node) -> bool:
        """An integer-valued index that moves one texel from one thread to the next."""
        node = self.origin(node)
        if self._thread_param(node):
            return True
        if self.is_cast(node):
            args = call_args(node)
            return len(args) == 1 and self.texel_index(args[0])
        if node.type == "cast_expression":
            value = node.child_by_field_name("value")
            return value is not None and self.texel_index(value)
        if node.type == "binary_expression":
            op = self.model.tree.node_text(node.child_by_field_name("operator"))  # type: ignore[arg-type]
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None or op not in ("+", "-"):
                return False
            if self.texel_index(left) and self._uniform(right):
                return True
            return op == "+" and self.texel_index(right) and self._uniform(left)
        return False

    def base(self, node: Node) -> tuple[str, Identity | None] | None:
        """("texel", None) for an integer texel index; ("uv", unit) for `(index + c) * unit`
        (or `/ size`): a coordinate that moves by one `unit` from one thread to the next."""
        if self.texel_index(node):
            return ("texel", None)
        node = self.origin(node)
        if node.type != "binary_expression":
            return None
        op = self.model.tree.node_text(node.child_by_field_name("operator"))  # type: ignore[arg-type]
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or op not in ("*", "/"):
            return None
        pairs = [(left, right)] if op == "/" else [(left, right), (right, left)]
        for scaled, unit in pairs:
            if self._centred_index(scaled) and self._uniform(unit):
                return ("uv" if op == "*" else "uv/", self.identity(unit))
        return None

    def _centred_index(self, node: Node) -> bool:
        """`index`, `index + 0.5`, `float2(index) + 0.5f`."""
        node = self.origin(node)
        if self.texel_index(node):
            return True
        if node.type == "binary_expression":
            op = self.model.tree.node_text(node.child_by_field_name("operator"))  # type: ignore[arg-type]
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if op == "+" and left is not None and right is not None:
                for a, b in ((left, right), (right, left)):
                    if self.texel_index(a) and self.model.const_value(b) is not None:
                        return True
        return False

    # -- constant offsets -----------------------------------------------------------------------

    def value(self, node: Node, env: Env) -> Vec | float | None:
        """The value of a constant expression (scalar or two-component vector) given the loop
        variables' values (`env`). What `Model.const_value` folds is taken from it."""
        node = unparen(node)
        kind = node.type
        if kind == "identifier":
            sym = self.model.resolve(node)
            if sym is not None and id(sym) in env:
                return env[id(sym)]
            local = sym is not None and sym.kind == "local" and sym.init is not None
            if local and sym is not None and sym.init is not None and unwritten(self.model, sym):
                return self.value(sym.init, env)
        const = self.model.const_value(node)
        if isinstance(const, bool):
            return None
        if isinstance(const, (int, float)):
            return float(const)
        if kind == "unary_expression":
            arg = node.child_by_field_name("argument")
            op = self.model.tree.node_text(node.child_by_field_name("operator"))  # type: ignore[arg-type]
            v = self.value(arg, env) if arg is not None else None
            if v is None or op not in ("-", "+"):
                return None
            return v if op == "+" else _neg(v)
        if kind == "binary_expression":
            op = self.model.tree.node_text(node.child_by_field_name("operator"))  # type: ignore[arg-type]
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            a = self.value(left, env) if left is not None else None
            b = self.value(right, env) if right is not None else None
            return _componentwise(op, a, b)
        if self.is_cast(node):
            parts: list[float] = []
            for arg in call_args(node):
                v = self.value(arg, env)
                if v is None:
                    return None
                parts += list(v) if isinstance(v, tuple) else [v]
            if len(parts) == 1:
                return parts[0]
            return (parts[0], parts[1]) if len(parts) == 2 else None
        if kind == "subscript_expression":
            return self._array_element(node, env)
        return None

    def _array_element(self, node: Node, env: Env) -> Vec | float | None:
        """`offsets[i]` of a `static const int2 offsets[] = { ... }`."""
        arg = node.child_by_field_name("argument")
        sym = self.model.resolve(arg) if arg is not None and arg.type == "identifier" else None
        if sym is None or sym.init is None or sym.init.type != "initializer_list":
            return None
        if sym.kind != "static_const" and not (sym.kind == "local" and "const" in sym.qualifiers):
            return None
        index = [c for c in node.named_children if not same(c, arg)]
        if len(index) != 1:
            return None
        inner = index[0].named_children if index[0].type == "subscript_argument_list" else [index[0]]
        i = self.value(inner[0], env) if len(inner) == 1 else None
        elements = [c for c in sym.init.named_children if c.type != "comment"]
        if not isinstance(i, float) or not i.is_integer() or not 0 <= i < len(elements):
            return None
        element = elements[int(i)]
        if element.type == "initializer_list":  # { {-1, -1}, {0, -1}, ... }
            parts = [self.value(c, env) for c in element.named_children]
            if len(parts) == 2:
                x, y = parts
                if isinstance(x, float) and isinstance(y, float):
                    return (x, y)
            return None
        return self.value(element, env)

    def loop_values(self, loop: Node) -> tuple[Symbol, list[float]] | None:
        """The variable of `for (i = A; i < B; i++ / i += C)` with constant A, B, C and its values."""
        header = for_header(loop)
        if header is None:
            return None
        var, start_node, cond, update = header
        sym = self.model.resolve(var) if var.type == "identifier" else None
        start = self.value(start_node, {})
        if sym is None or not isinstance(start, float):
            return None
        op = self.model.tree.node_text(cond.child_by_field_name("operator"))  # type: ignore[arg-type]
        left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        if left is None or right is None or self.model.resolve(unparen(left)) is not sym:
            return None
        bound = self.value(right, {})
        step = self._step(update, sym)
        if not isinstance(bound, float) or step is None or step == 0:
            return None
        values: list[float] = []
        v = start
        while len(values) <= MAX_LOOP_VALUES and _holds(op, v, bound):
            values.append(v)
            v += step
        if len(values) > MAX_LOOP_VALUES or any(
            is_written(self.model.tree, n)
            for n in self.model.tree.walk(loop.child_by_field_name("body") or loop)
            if n.type == "identifier" and self.model.resolve(n) is sym
        ):
            return None
        return sym, values

    def _step(self, update: Node, sym: Symbol) -> float | None:
        update = unparen(update)
        if update.type == "update_expression":
            arg = update.child_by_field_name("argument")
            op = self.model.tree.node_text(update.child_by_field_name("operator"))  # type: ignore[arg-type]
            if arg is None or self.model.resolve(unparen(arg)) is not sym:
                return None
            return 1.0 if op == "++" else -1.0
        if update.type == "assignment_expression":
            target, amount = update.child_by_field_name("left"), update.child_by_field_name("right")
            op = self.model.tree.node_text(update.child_by_field_name("operator"))  # type: ignore[arg-type]
            if target is None or amount is None or self.model.resolve(unparen(target)) is not sym:
                return None
            v = self.value(amount, {})
            if not isinstance(v, float):
                return None
            return v if op == "+=" else -v if op == "-=" else None
        return None

    # -- a fetch's coordinate -------------------------------------------------------------------

    def fetch_offsets(
        self, site: Node, method: str, kind: str, address: Node, extra: list[Node]
    ) -> tuple[Relative, set[Vec]] | None:
        """(what the coordinate `address` of the fetch at `site` is relative to, the constant
        offsets it takes in the loops around `site`); `method` and `kind` as `queries.Fetch`
        names them, `extra` the fetch's arguments after the address. None when the coordinate is
        not the thread index (or a coordinate moving one unit per thread) plus constant offsets."""
        if kind == "sample":
            if method not in ("Sample", "SampleLevel") or len(extra) > 1:
                return None  # an offset argument or a clamp: offsets in the texture's own texels
        else:
            if method not in ("Load", "[]"):
                return None
            if method == "Load" and len(extra) > 1:
                return None
            stripped = self.strip_level(address)
            if stripped is None:
                return None
            address = stripped
            if method == "Load" and extra:
                return self._with_offset_argument(site, address, extra[0])
        envs = self.environments(site, address)
        if envs is None:
            return None
        for base_node, term, sign in self._splits(address):
            base = self.base(base_node)
            if base is None:
                continue
            base_kind, unit = base
            offsets: set[Vec] = set()
            complete = True
            for env in envs:
                off = self._term_offset(term, env, base_kind, unit) if term is not None else (0.0, 0.0)
                if off is None:
                    complete = False
                    break
                offsets.add((sign * off[0], sign * off[1]))
            if complete:
                return (self.base_identity(base_node), base_kind, unit), offsets
        return None

    def strip_level(self, address: Node) -> Node | None:
        """The 2D coordinate of a `Load` address: `int3(p, 0)` -> p, a two-component `p` itself."""
        address = unparen(address)
        model = self.model
        name = call_name(model.tree, address) if address.type == "call_expression" else None
        if name is not None and model.lookup_type(name).cols == 3 and name not in model.functions:
            args = call_args(address)
            if len(args) == 2 and model.const_value(args[1]) == 0:
                return unparen(args[0])
            return None
        t = model.type_of(address)
        return address if t.cols == 2 or t.kind == "unknown" else None

    def _with_offset_argument(
        self, node: Node, address: Node, offset: Node
    ) -> tuple[Relative, set[Vec]] | None:
        if not self.texel_index(address):
            return None
        envs = self.environments(node, offset)
        if envs is None:
            return None
        offsets: set[Vec] = set()
        for env in envs:
            v = self.value(offset, env)
            if not isinstance(v, tuple):
                return None
            offsets.add(v)
        return (self.identity(address), "texel", None), offsets

    def environments(self, fetch: Node, address: Node) -> list[Env] | None:
        """One value binding per iteration of the constant loops around the fetch whose variables
        the address reads (directly or through locals)."""
        loops: list[tuple[Symbol, list[float]]] = []
        cur = fetch.parent
        while cur is not None and cur.type != "function_definition":
            if cur.type == "for_statement":
                found = self.loop_values(cur)
                if found is not None:
                    loops.append(found)
            cur = cur.parent
        used = self._symbols_read(address, 0)
        loops = [(s, v) for s, v in loops if id(s) in used]
        total = 1
        for _s, values in loops:
            total *= max(1, len(values))
        if total > MAX_COMBINATIONS:
            return None
        return [
            {id(s): v for (s, _), v in zip(loops, combo, strict=True)}
            for combo in itertools.product(*(values for _, values in loops))
        ]

    def _symbols_read(self, node: Node, depth: int) -> set[int]:
        out: set[int] = set()
        for n in self.model.tree.walk(node):
            if n.type != "identifier":
                continue
            sym = self.model.resolve(n)
            if sym is None:
                continue
            out.add(id(sym))
            if sym.kind == "local" and sym.init is not None and depth < FOLLOW:
                out |= self._symbols_read(sym.init, depth + 1)
        return out

    def _splits(self, address: Node) -> list[tuple[Node, Node | None, float]]:
        """Ways to read the address as base (+|-) term, then as the base alone."""
        node = self.origin(address)
        out: list[tuple[Node, Node | None, float]] = []
        if node.type == "binary_expression":
            op = self.model.tree.node_text(node.child_by_field_name("operator"))  # type: ignore[arg-type]
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and op in ("+", "-"):
                out.append((left, right, 1.0 if op == "+" else -1.0))
                if op == "+":
                    out.append((right, left, 1.0))
        out.append((node, None, 1.0))
        return out

    def _term_offset(self, term: Node, env: Env, kind: str, unit: Identity | None) -> Vec | None:
        """The offset in texels (or in `unit`s of a uv coordinate) that `term` adds."""
        if kind == "texel":
            v = self.value(term, env)
            return v if isinstance(v, tuple) else None
        node = self.origin(term)
        if node.type != "binary_expression":
            return None
        op = self.model.tree.node_text(node.child_by_field_name("operator"))  # type: ignore[arg-type]
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return None
        wanted = "*" if kind == "uv" else "/"
        if op != wanted:
            return None
        pairs = [(left, right)] if op == "/" else [(left, right), (right, left)]
        for k, u in pairs:
            if self.identity(u) == unit:
                v = self.value(k, env)
                if isinstance(v, tuple):
                    return v
                if isinstance(v, float) and v == 0:
                    return (0.0, 0.0)
        return None


def _neg(v: Vec | float) -> Vec | float:
    return (-v[0], -v[1]) if isinstance(v, tuple) else -v


def _componentwise(op: str, a: Vec | float | None, b: Vec | float | None) -> Vec | float | None:
    """`a op b` of scalars and two-component vectors (a scalar applies to both components)."""
    if a is None or b is None or op not in ("+", "-", "*", "/"):
        return None
    ax, ay = a if isinstance(a, tuple) else (a, a)
    bx, by = b if isinstance(b, tuple) else (b, b)
    if op == "/" and (bx == 0 or by == 0):
        return None
    if not isinstance(a, tuple) and not isinstance(b, tuple):
        return _apply(op, ax, bx)
    return (_apply(op, ax, bx), _apply(op, ay, by))


def _apply(op: str, p: float, q: float) -> float:
    if op == "+":
        return float(p + q)
    if op == "-":
        return float(p - q)
    if op == "*":
        return float(p * q)
    return float(p / q)


def _holds(op: str, v: float, bound: float) -> bool:
    checks = {"<": v < bound, "<=": v <= bound, ">": v > bound, ">=": v >= bound, "!=": v != bound}
    return checks.get(op, False)
