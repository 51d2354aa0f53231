"""HL113 neighbourhood-without-groupshared."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from hlsllint.analysis import analyze
from hlsllint.analysis.occupancy import reachable_functions
from hlsllint.context import RuleContext
from hlsllint.diagnostics import Severity
from hlsllint.rule import Rule
from hlsllint.semantic import EntryPoint, Model, Symbol
from hlsllint.semantic.queries import as_fetch, unwritten
from hlsllint.syntax import Node
from hlsllint.syntax.queries import call_args, call_name, for_header, is_written, same, unparen

_THREAD_SEMANTICS = frozenset({"SV_DISPATCHTHREADID", "SV_GROUPTHREADID"})
_CASTS = frozenset(
    {"int", "int2", "uint", "uint2", "float", "float2", "half2", "min16float2", "min16int2", "min16uint2"}
)
_MIN_TEXELS = 8
_TILE_RESOLUTION = re.compile(r"(?i)tile")
"""A resource named for tiles (`gTileMaxVelocity`, `TileClassification`): one texel per 8×8 or
16×16 tile of the screen, so a pass over it runs 64-256 times fewer threads than a full-screen
one and staging its neighbourhood saves next to nothing."""
_MAX_LOOP_VALUES = 64
_MAX_COMBINATIONS = 4096
_FOLLOW = 6

Vec = tuple[float, float]
Env = dict[int, float]
"""id(loop variable symbol) -> its value in one iteration."""


@dataclass
class _Unit:
    """Per-unit state: call sites of each function, and the findings already reported."""

    calls: dict[str, list[Node]] = field(default_factory=dict)
    reported: set[tuple[int, int]] = field(default_factory=set)
    in_body: dict[int, list[Node]] = field(default_factory=dict)
    """Body node id -> its calls and subscripts in document order (`_Seen.in_body`)."""


@dataclass
class _Seen:
    """What the driver's walk handed to `visit`, in document order: every call, and per function
    body (by node id) its calls and subscripts (the fetch candidates)."""

    calls: list[Node] = field(default_factory=list)
    in_body: dict[int, list[Node]] = field(default_factory=dict)


class _Reader:
    """Reads addresses of one entry point: where a value comes from, and constant offsets."""

    def __init__(self, model: Model, entry: EntryPoint, unit: _Unit) -> None:
        self.model = model
        self.entry = entry
        self.unit = unit
        self.loop_vars: dict[int, list[float]] = {}

    # -- where a value comes from ---------------------------------------------------------------

    def origin(self, node: Node) -> Node:
        """Follow locals assigned once (at their declaration) and parameters of helpers with one
        call site back to the expression that defines the value."""
        for _ in range(_FOLLOW):
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
        sites = self.unit.calls.get(sym.function, [])
        if len(sites) != 1:
            return None
        index = next((i for i, p in enumerate(fn.params) if p is sym), -1)
        args = call_args(sites[0])
        return args[index] if 0 <= index < len(args) else None

    def identity(self, node: Node) -> tuple[str, int, int]:
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

    def base_identity(self, node: Node) -> tuple[str, int, int]:
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
        while node.type == "field_expression":
            arg = node.child_by_field_name("argument")
            if arg is None:
                return False
            node = unparen(arg)
        if node.type != "identifier":
            return False
        sym = self.model.resolve(node)
        return (
            sym is not None
            and sym.kind == "param"
            and sym.function == self.entry.name
            and (sym.semantic or "").upper() in _THREAD_SEMANTICS
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

    def base(self, node: Node) -> tuple[str, tuple[str, int, int] | None] | None:
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
        variables' values."""
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
            return _binop(op, a, b)
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
            if len(parts) == 2 and all(isinstance(p, float) for p in parts):
                return (float(parts[0]), float(parts[1]))  # type: ignore[arg-type]
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
        while len(values) <= _MAX_LOOP_VALUES and _holds(op, v, bound):
            values.append(v)
            v += step
        if len(values) > _MAX_LOOP_VALUES or any(
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


def _neg(v: Vec | float) -> Vec | float:
    return (-v[0], -v[1]) if isinstance(v, tuple) else -v


def _binop(op: str, a: Vec | float | None, b: Vec | float | None) -> Vec | float | None:
    if a is None or b is None or op not in ("+", "-", "*", "/"):
        return None
    ax, ay = a if isinstance(a, tuple) else (a, a)
    bx, by = b if isinstance(b, tuple) else (b, b)
    if op == "/" and (bx == 0 or by == 0):
        return None
    fn = {
        "+": lambda p, q: p + q,
        "-": lambda p, q: p - q,
        "*": lambda p, q: p * q,
        "/": lambda p, q: p / q,
    }[op]
    if not isinstance(a, tuple) and not isinstance(b, tuple):
        return float(fn(ax, bx))
    return (float(fn(ax, bx)), float(fn(ay, by)))


def _holds(op: str, v: float, bound: float) -> bool:
    checks = {"<": v < bound, "<=": v <= bound, ">": v > bound, ">=": v >= bound, "!=": v != bound}
    return checks.get(op, False)


@dataclass
class _Group:
    resource: str
    first: Node
    offsets: set[Vec] = field(default_factory=set)


def overhead(width: int, height: int, border_x: int, border_y: int) -> float:
    """Extra loads of staging a W×H tile plus its border: ((W+bx)(H+by) − WH) / WH."""
    tile = width * height
    return ((width + border_x) * (height + border_y) - tile) / tile


class NeighbourhoodWithoutGroupshared(Rule):
    code = "HL113"
    name = "neighbourhood-without-groupshared"
    summary = (
        "A compute shader whose threads each fetch eight or more texels of one resource at constant "
        "offsets around their own coordinate (a 3×3 or larger neighbourhood, written out or in "
        "constant loops), with no groupshared memory in the shader."
    )
    rationale = (
        "When every thread reads a 3×3 neighbourhood around its own texel, the neighbouring threads "
        "of the group read the same texels again: inside the group each texel is fetched by up to "
        "nine threads (25 for 5×5). The texture cache absorbs part of it, but each fetch still costs "
        "a texture instruction, address work and cache bandwidth. Loading the group's tile plus its "
        "border into groupshared memory once (one or a few loads per thread), a barrier, then "
        "reading the neighbourhood from LDS, fetches each texel once per group: the extra loads are "
        "only the border, ((W+2r)(H+2r) − WH)/WH for a W×H group and radius r: 56% for 8×8 with a "
        "one-texel border, 27% for 16×16, against 800% (nine loads per texel) without staging. The "
        "message computes it from the shader's `[numthreads]` and its actual neighbourhood. Sparse "
        "taps (fewer than eight), offsets scaled by a runtime step (à-trous filters, whose taps "
        "do not overlap between neighbours), coordinates that do not move one texel per thread (a "
        "2× downsample), shaders that already use groupshared memory and passes over a "
        "tile-resolution resource (named for tiles, one texel per 8×8 or 16×16 screen tile: 64 "
        "to 256 times fewer threads than a full-screen pass, so little to gain) are left alone. The "
        "saving is in texture fetches, not instructions: compiled with regtruth (navi21, wave64) "
        "the example below issues 9 `image_load`s per thread in 44 instructions, the staged "
        "version one or two per thread (100 for the group's 64 threads) in 60 instructions with "
        "512 bytes of LDS, both at 16 VGPRs and 16 waves/SIMD. Staging adds a barrier and LDS, "
        "which can lower occupancy: measure before and after."
    )
    bad_example = """\
Texture2D<float> src : register(t0);
RWTexture2D<float> dst : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float sum = 0;
    [unroll] for (int y = -1; y <= 1; y++)
        [unroll] for (int x = -1; x <= 1; x++)
            sum += src[int2(id.xy) + int2(x, y)];
    dst[id.xy] = sum / 9;
}
"""
    good_example = """\
Texture2D<float> src : register(t0);
RWTexture2D<float> dst : register(u0);

groupshared float tile[10][10];

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 gtid : SV_GroupThreadID, uint3 gid : SV_GroupID)
{
    int2 origin = int2(gid.xy * 8) - 1;
    for (uint i = gtid.y * 8 + gtid.x; i < 100; i += 64)
        tile[i / 10][i % 10] = src[origin + int2(i % 10, i / 10)];
    GroupMemoryBarrierWithGroupSync();
    float sum = 0;
    [unroll] for (int y = 0; y < 3; y++)
        [unroll] for (int x = 0; x < 3; x++)
            sum += tile[gtid.y + y][gtid.x + x];
    dst[id.xy] = sum / 9;
}
"""
    severity = Severity.INFO
    tags = ("memory", "compute", "groupshared")
    references = (
        "AMD GPUOpen, compute shader tiling: stage the tile plus its apron in LDS (the border "
        "overhead is ((W+2r)(H+2r) − WH)/WH)",
        "Microsoft docs: groupshared and GroupMemoryBarrierWithGroupSync",
    )

    node_kinds = frozenset({"call_expression", "subscript_expression"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        seen = ctx.scratch(_Seen)
        if node.type == "call_expression":
            seen.calls.append(node)
        fn = ctx.function
        if fn is not None and fn.body is not None:
            seen.in_body.setdefault(fn.body.id, []).append(node)

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        seen = ctx.scratch(_Seen)
        unit = _Unit(in_body=seen.in_body)
        indexed = False
        for entry in model.entry_points:
            if entry.stage != "compute" or entry.group_size is None or analyze(model).groupshared(entry):
                continue
            attr = entry.function.attribute("numthreads")
            if attr is None or not all(isinstance(a, int) for a in attr.args[:2]):
                continue  # the group size could not be read (a constant of a header not found)
            if entry.group_size[0] * entry.group_size[1] < 2:
                continue  # one thread per group: nothing to share
            if not indexed:  # the call sites of each function, once an entry point needs them
                indexed = True
                for call in seen.calls:
                    name = call_name(model.tree, call)
                    if name and name in model.functions:
                        unit.calls.setdefault(name, []).append(call)
            reader = _Reader(model, entry, unit)
            groups: dict[tuple[object, ...], _Group] = {}
            for fn in reachable_functions(model, entry):
                if fn.body is not None:
                    self._collect(ctx, reader, seen.in_body.get(fn.body.id, []), groups)
            for group in groups.values():
                self._report(ctx, entry, unit, group)

    def _collect(
        self, ctx: RuleContext, reader: _Reader, nodes: list[Node], groups: dict[tuple[object, ...], _Group]
    ) -> None:
        """The fetches among a function's calls and subscripts `nodes`, grouped by what they read."""
        model = ctx.model
        for node in nodes:
            if node.type == "call_expression" and as_fetch(model, node) is None:
                for obj, method, kind, address, extra in self._helper_fetches(reader, node):
                    found = self._offsets(reader, node, method, kind, address, extra)
                    self._add(ctx, reader, groups, node, obj, found)
                continue
            fetch = as_fetch(model, node)
            if fetch is None or fetch.kind == "gather" or not fetch.address or is_written(model.tree, node):
                continue
            target = _object(node)
            if target is None:
                continue
            found = self._offsets(reader, node, fetch.method, fetch.kind, fetch.address[0], fetch.address[1:])
            self._add(ctx, reader, groups, node, target, found)

    @staticmethod
    def _add(
        ctx: RuleContext,
        reader: _Reader,
        groups: dict[tuple[object, ...], _Group],
        site: Node,
        obj: Node,
        found: tuple[tuple[object, ...], set[Vec]] | None,
    ) -> None:
        if found is None:
            return
        key_base, offsets = found
        key = (reader.identity(obj), *key_base)
        group = groups.setdefault(key, _Group(ctx.node_text(obj), site))
        group.offsets |= offsets

    @staticmethod
    def _helper_fetches(reader: _Reader, call: Node) -> list[tuple[Node, str, str, Node, list[Node]]]:
        """`LoadColor(p + int2(1, 0))` where `LoadColor(int2 q)` returns `tex[q]`: the fetches the
        helper makes at one of its parameters, with the call's argument as their address."""
        model = reader.model
        name = call_name(model.tree, call)
        overloads = model.functions.get(name or "", [])
        body = overloads[0].body if len(overloads) == 1 else None
        if body is None:
            return []
        fn = overloads[0]
        args = call_args(call)
        out: list[tuple[Node, str, str, Node, list[Node]]] = []
        for node in reader.unit.in_body.get(body.id, []):  # the helper's calls and subscripts
            fetch = as_fetch(model, node)
            if fetch is None or not fetch.address or fetch.kind == "gather" or is_written(model.tree, node):
                continue  # not a fetch, or a store `rw[p] = ...`
            address = fetch.address[0]
            if fetch.kind == "load":
                stripped = NeighbourhoodWithoutGroupshared._strip_level(reader, address)
                if stripped is None:
                    continue
                address = stripped
            address = unparen(address)
            sym = model.resolve(address) if address.type == "identifier" else None
            index = next((i for i, p in enumerate(fn.params) if p is sym), -1)
            obj = _object(node)
            if sym is None or not 0 <= index < len(args) or obj is None or not unwritten(model, sym):
                continue
            if fetch.address[1:]:
                continue  # an offset or level argument of the helper's own
            out.append((obj, fetch.method, fetch.kind, args[index], []))
        return out

    def _offsets(
        self, reader: _Reader, site: Node, method: str, kind: str, address: Node, extra: list[Node]
    ) -> tuple[tuple[object, ...], set[Vec]] | None:
        """(what the coordinate is relative to, the constant offsets it takes)."""
        if kind == "sample":
            if method not in ("Sample", "SampleLevel") or len(extra) > 1:
                return None  # an offset argument or a clamp: offsets in the texture's own texels
        else:
            if method not in ("Load", "[]"):
                return None
            if method == "Load" and len(extra) > 1:
                return None
            stripped = self._strip_level(reader, address)
            if stripped is None:
                return None
            address = stripped
            if method == "Load" and extra:
                return self._with_offset_argument(reader, site, address, extra[0])
        envs = self._environments(reader, site, address)
        if envs is None:
            return None
        for base_node, term, sign in self._splits(reader, address):
            base = reader.base(base_node)
            if base is None:
                continue
            base_kind, unit = base
            offsets: set[Vec] = set()
            for env in envs:
                off = (
                    self._term_offset(reader, term, env, base_kind, unit) if term is not None else (0.0, 0.0)
                )
                if off is None:
                    break
                offsets.add((sign * off[0], sign * off[1]))
            else:
                return (reader.base_identity(base_node), base_kind, unit), offsets
        return None

    @staticmethod
    def _strip_level(reader: _Reader, address: Node) -> Node | None:
        """`int3(p, 0)` of `Load` -> p."""
        address = unparen(address)
        name = call_name(reader.model.tree, address) if address.type == "call_expression" else None
        if (
            name is not None
            and reader.model.lookup_type(name).cols == 3
            and name not in reader.model.functions
        ):
            args = call_args(address)
            if len(args) == 2 and reader.model.const_value(args[1]) == 0:
                return unparen(args[0])
            return None
        t = reader.model.type_of(address)
        return address if t.cols == 2 or t.kind == "unknown" else None

    def _with_offset_argument(
        self, reader: _Reader, node: Node, address: Node, offset: Node
    ) -> tuple[tuple[object, ...], set[Vec]] | None:
        if not reader.texel_index(address):
            return None
        envs = self._environments(reader, node, offset)
        if envs is None:
            return None
        offsets: set[Vec] = set()
        for env in envs:
            v = reader.value(offset, env)
            if not isinstance(v, tuple):
                return None
            offsets.add(v)
        return (reader.identity(address), "texel", None), offsets

    def _environments(self, reader: _Reader, fetch: Node, address: Node) -> list[Env] | None:
        """One value binding per iteration of the constant loops around the fetch whose variables
        the address reads (directly or through locals)."""
        loops: list[tuple[Symbol, list[float]]] = []
        cur = fetch.parent
        while cur is not None and cur.type != "function_definition":
            if cur.type == "for_statement":
                found = reader.loop_values(cur)
                if found is not None:
                    loops.append(found)
            cur = cur.parent
        used = self._symbols_read(reader, address)
        loops = [(s, v) for s, v in loops if id(s) in used]
        total = 1
        for _s, values in loops:
            total *= max(1, len(values))
        if total > _MAX_COMBINATIONS:
            return None
        return [
            {id(s): v for (s, _), v in zip(loops, combo, strict=True)}
            for combo in itertools.product(*(values for _, values in loops))
        ]

    @staticmethod
    def _symbols_read(reader: _Reader, node: Node, depth: int = 0) -> set[int]:
        out: set[int] = set()
        for n in reader.model.tree.walk(node):
            if n.type != "identifier":
                continue
            sym = reader.model.resolve(n)
            if sym is None:
                continue
            out.add(id(sym))
            if sym.kind == "local" and sym.init is not None and depth < _FOLLOW:
                out |= NeighbourhoodWithoutGroupshared._symbols_read(reader, sym.init, depth + 1)
        return out

    @staticmethod
    def _splits(reader: _Reader, address: Node) -> list[tuple[Node, Node | None, float]]:
        """Ways to read the address as base (+|-) term, then as the base alone."""
        node = reader.origin(address)
        out: list[tuple[Node, Node | None, float]] = []
        if node.type == "binary_expression":
            op = reader.model.tree.node_text(node.child_by_field_name("operator"))  # type: ignore[arg-type]
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and op in ("+", "-"):
                out.append((left, right, 1.0 if op == "+" else -1.0))
                if op == "+":
                    out.append((right, left, 1.0))
        out.append((node, None, 1.0))
        return out

    @staticmethod
    def _term_offset(
        reader: _Reader, term: Node, env: Env, kind: str, unit: tuple[str, int, int] | None
    ) -> Vec | None:
        """The offset in texels (or in `unit`s of a uv coordinate) that `term` adds."""
        if kind == "texel":
            v = reader.value(term, env)
            return v if isinstance(v, tuple) else None
        node = reader.origin(term)
        if node.type != "binary_expression":
            return None
        op = reader.model.tree.node_text(node.child_by_field_name("operator"))  # type: ignore[arg-type]
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return None
        wanted = "*" if kind == "uv" else "/"
        if op != wanted:
            return None
        pairs = [(left, right)] if op == "/" else [(left, right), (right, left)]
        for k, u in pairs:
            if reader.identity(u) == unit:
                v = reader.value(k, env)
                if isinstance(v, tuple):
                    return v
                if isinstance(v, float) and v == 0:
                    return (0.0, 0.0)
        return None

    def _report(self, ctx: RuleContext, entry: EntryPoint, unit: _Unit, group: _Group) -> None:
        offsets = group.offsets
        if len(offsets) < _MIN_TEXELS:
            return
        xs = [o[0] for o in offsets]
        ys = [o[1] for o in offsets]
        if not all(float(v).is_integer() for v in xs + ys):
            return
        border_x, border_y = int(max(xs) - min(xs)), int(max(ys) - min(ys))
        if border_x < 2 or border_y < 2:
            return  # not a 3×3 or larger neighbourhood (a line of taps, a separable pass)
        if _TILE_RESOLUTION.search(group.resource):
            return  # a tile-resolution pass (one texel per screen tile): little to gain
        key = (group.first.start_byte, group.first.end_byte)
        if key in unit.reported:
            return
        unit.reported.add(key)
        assert entry.group_size is not None
        width, height, _depth = entry.group_size
        extra = overhead(width, height, border_x, border_y)
        radius = max(border_x, border_y) / 2
        shape = f"{border_x + 1}×{border_y + 1}"
        square = border_x == border_y and radius.is_integer()
        r = f"radius {radius:g}" if square else f"border {border_x}×{border_y}"
        ctx.report(
            group.first,
            f"each thread of `{entry.name}` fetches a {shape} neighbourhood of `{group.resource}` "
            f"({len(offsets)} texels) with no groupshared staging",
            help=(
                f"stage the {width}×{height} group's {width + border_x}×{height + border_y} tile with its "
                f"border in groupshared memory: each texel loaded once, {100 * extra:.0f}% extra loads "
                "for the border"
            ),
            notes=[
                f"the taps lie around the thread's own coordinate ({r}): a texel is fetched by up "
                f"to {len(offsets)} threads"
            ],
        )


def _object(node: Node) -> Node | None:
    """The resource expression of a fetch (`tex` of `tex.Load(...)` or `tex[...]`)."""
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        return fn.child_by_field_name("argument") if fn is not None else None
    return node.child_by_field_name("argument")
