"""HL110 dynamic-local-array-index."""

from __future__ import annotations

from dataclasses import dataclass, field

from hlsllint.analysis import analyze
from hlsllint.context import RuleContext
from hlsllint.rule import Rule
from hlsllint.semantic import Model, Symbol
from hlsllint.semantic.intrinsics import INTRINSICS
from hlsllint.semantic.loops import is_var, trip_count, unrolled
from hlsllint.semantic.queries import uses_of
from hlsllint.syntax import Node
from hlsllint.syntax.queries import LOOP_TYPES, call_args, call_name, is_written, lvalue_top, same, unparen_up

SMALL_REGISTERS = 4
"""An array of at most this many registers is left alone: indexed at run time it costs a few
selects (regtruth, navi21 wave64: two `float[3]`, or `float[4]`, filled and read back at a loop
counter took 3 VGPRs and 6-11 instructions more than the same code unrolled to constant
indices; `float[8]` 3 VGPRs and no instructions more, `float[16]` fewer instructions)."""
SCRATCH_BYTES = 256
"""RADV moves a function-local array past 256 bytes per lane to scratch memory (regtruth:
`float4 a[16]` stayed in VGPRs, `float4 a[17]` took 17,408 bytes of scratch per wave64)."""

_OPERATORS = frozenset(
    {
        "parenthesized_expression",
        "binary_expression",
        "unary_expression",
        "cast_expression",
        "conditional_expression",
        "comma_expression",
    }
)
_BRANCHES = frozenset({"if_statement", "switch_statement", "conditional_expression"})
_CALLABLE_DEPTH = 3
_MAX_FOLLOWED = 64
"""Locals followed through their assignments for one index (the walk recurses along the chain)."""
_REMEDY = (
    "read the values where they come from (a buffer, groupshared memory) at that index, or make "
    "the index a compile-time constant"
)


def _dead(ctx: RuleContext, sym: Symbol) -> bool:
    """Is every use of the array dead code in every entry point that reaches it (the compiler
    drops it: no memory, no registers)? Not when the analysis cannot say."""
    try:
        return analyze(ctx.model).kept(sym) is False
    except Exception:  # the analysis stage is optional here: report from the syntax
        return False


class _Unknown(Exception):
    """The index cannot be judged here (a helper's parameter with no call site in the unit)."""


@dataclass
class _State:
    reported: set[int] = field(default_factory=set)
    calls: dict[str, list[Node]] | None = None
    constant_arrays: dict[int, bool] = field(default_factory=dict)
    pure: dict[tuple[int, int], bool] = field(default_factory=dict)
    """(body id, depth) -> `_pure` of that helper body (asked once per helper, not per call)."""


class _Index:
    """Is an index expression a compile-time constant once constant loops are unrolled and
    helpers inlined? `dynamic(node)` names the part that is not, else None."""

    def __init__(self, ctx: RuleContext, state: _State) -> None:
        self.ctx = ctx
        self.model = ctx.model
        self.state = state
        self.why: dict[int, str] = {}

    def dynamic(self, node: Node, seen: frozenset[int] = frozenset(), depth: int = 0) -> Node | None:
        model = self.model
        if model.const_value(node) is not None:
            return None
        kind = node.type
        if kind in _OPERATORS:
            for c in node.named_children:
                if c.type in ("comment", "type_descriptor"):
                    continue
                part = self.dynamic(c, seen, depth)
                if part is not None:
                    return part
            return None
        if kind == "call_expression":
            name = call_name(model.tree, node)
            spec = INTRINSICS.get(name or "")
            pure = (spec is not None and spec[1] == "pure") or (
                name is not None and model.lookup_type(name).is_numeric
            )
            if not pure:
                return node
            for a in call_args(node):
                part = self.dynamic(a, seen, depth)
                if part is not None:
                    return part
            return None
        if kind == "subscript_expression":
            root = node.child_by_field_name("argument")
            sym = model.resolve(root) if root is not None and root.type == "identifier" else None
            found = _access(node)
            if sym is None or sym.kind != "static_const" or found is None:
                return node
            for i in found[1]:
                part = self.dynamic(i, seen, depth)
                if part is not None:
                    return part
            return None
        if kind == "update_expression":  # `stack[n++]`: n's writes decide
            arg = node.child_by_field_name("argument")
            return node if arg is None else self.dynamic(arg, seen, depth)
        if kind == "field_expression":  # a swizzle or member of a local
            arg = node.child_by_field_name("argument")
            if arg is None or model.type_of(arg).kind not in ("vector", "struct", "matrix"):
                return node
            part = self.dynamic(arg, seen, depth)
            if part is not None and same(part, arg):
                if part.id in self.why:
                    self.why[node.id] = self.why[part.id]
                return node  # name `id.x`, not `id`
            return part
        if kind != "identifier":
            return node
        sym = model.resolve(node)
        loop = self._counter_loop(node)
        if loop is not None:
            return self._counter(node, loop)
        if sym is None:
            raise _Unknown  # a name from a header that was not found, or a leaked counter
        if id(sym) in seen:
            return None  # around a cycle (n = n + 1): the other writes decide
        if len(seen) >= _MAX_FOLLOWED:
            raise _Unknown  # a chain of locals too long to follow (`a2 = a1; a1 = a0; ...`)
        if sym.kind == "param":
            return self._param(node, sym, seen | {id(sym)}, depth)
        if sym.kind != "local":
            return node
        return self._local(node, sym, seen | {id(sym)}, depth)

    def _counter(self, node: Node, loop: Node) -> Node | None:
        model = self.model
        found = trip_count(model, loop)
        attrs = {a.name.lower() for a in model.tree.attributes_of(loop)}
        if found is None:
            cond = loop.child_by_field_name("condition")
            if cond is not None and any(
                n.type == "identifier"
                and model.resolve(n) is None
                and model.tree.node_text(n) not in model.globals
                and not is_var(model, n, node)
                for n in model.tree.walk(cond)
            ):
                raise _Unknown  # the bound comes from a header that was not found
            self.why[node.id] = "the counter of a loop whose trip count is not a compile-time constant"
            return node
        if "loop" in attrs:
            self.why[node.id] = "the counter of a `[loop]` loop, which the compiler keeps"
            return node
        verdict = unrolled(model, loop)
        if verdict is None:
            raise _Unknown  # unrolled or not depending on the body
        if not verdict:
            self.why[node.id] = f"the counter of a {found[1]}-iteration loop, more than the compiler unrolls"
            return node
        return None

    def _local(self, node: Node, sym: Symbol, seen: frozenset[int], depth: int) -> Node | None:
        model = self.model
        # A local whose every write is constant, made in straight-line code or unrolled loops.
        writes: list[tuple[Node | None, Node]] = []
        if sym.init is not None and sym.node is not None:
            writes.append((sym.init, sym.node))
        for use in uses_of(model, sym):
            if not is_written(model.tree, use):
                continue
            top = lvalue_top(use)
            site, parent = unparen_up(top)
            if parent is None:
                return node
            if parent.type == "update_expression":
                writes.append((None, parent))
            elif parent.type == "assignment_expression":
                writes.append((parent.child_by_field_name("right"), parent))
            else:
                return node
        if not writes:
            return node
        scope = _declaring_block(sym.node) if sym.node is not None else None
        for value, site in writes:
            if value is not None and self.dynamic(value, seen, depth) is not None:
                return node
            if self._under_dynamic_control(site, seen, depth, scope):
                self.why[node.id] = "written under a run-time condition or in a loop the compiler keeps"
                return node
        return None

    def _under_dynamic_control(
        self, site: Node, seen: frozenset[int], depth: int, scope: Node | None = None
    ) -> bool:
        """A branch on a run-time condition, or a loop the compiler keeps, around `site` inside
        `scope` (the block declaring the variable written: what encloses the declaration too
        encloses every use, and a counter declared inside a per-thread `if` is constant there)."""
        cur, child = site.parent, site
        while cur is not None and cur.type != "function_definition" and not same(cur, scope):
            if cur.type in _BRANCHES:
                cond = cur.child_by_field_name("condition")
                if cond is not None and not same(cond, child) and self.dynamic(cond, seen, depth) is not None:
                    return True
            elif cur.type in LOOP_TYPES and same(cur.child_by_field_name("body"), child):
                verdict = unrolled(self.model, cur)
                if verdict is None:
                    raise _Unknown
                if not verdict:
                    return True
            child, cur = cur, cur.parent
        return False

    def _counter_loop(self, node: Node) -> Node | None:
        """The `for` loop around `node` whose initializer sets the variable `node` names."""
        cur = node.parent
        while cur is not None and cur.type != "function_definition":
            if cur.type == "for_statement":
                init = cur.child_by_field_name("initializer")
                if init is not None and init.type == "declaration":
                    init = next((c for c in init.named_children if c.type == "init_declarator"), init)
                var = (
                    init.child_by_field_name("declarator") or init.child_by_field_name("left")
                    if init is not None
                    else None
                )
                if var is not None and is_var(self.model, node, var):
                    return cur
            cur = cur.parent
        return None

    def _param(self, node: Node, sym: Symbol, seen: frozenset[int], depth: int) -> Node | None:
        model = self.model
        fn = model.function(sym.function or "")
        if fn is None or any(e.function is fn for e in model.entry_points):
            return node
        if sym.direction != "in" or any(is_written(model.tree, u) for u in uses_of(model, sym)):
            return node
        index = next((i for i, p in enumerate(fn.params) if p is sym), None)
        sites = self._calls(fn.name)
        if index is None or depth >= _CALLABLE_DEPTH:
            return node
        if not sites:
            raise _Unknown
        for call in sites:
            args = call_args(call)
            if index >= len(args):
                return node
            if self.dynamic(args[index], seen, depth + 1) is not None:
                self.why[node.id] = f"a parameter of `{fn.name}` given a run-time value by a caller"
                return node
        return None

    def _calls(self, name: str) -> list[Node]:
        """The calls of the function `name` in the unit: only the bodies that call it are read."""
        calls = self.state.calls if self.state.calls is not None else {}
        self.state.calls = calls
        found = calls.get(name)
        if found is None:
            tree = self.model.tree
            found = []
            for fns in self.model.functions.values():
                for f in fns:
                    if f.body is None or name not in f.calls:
                        continue
                    found += [
                        n
                        for n in tree.walk(f.body)
                        if n.type == "call_expression" and call_name(tree, n) == name
                    ]
            calls[name] = found
        return found


def _declaring_block(decl: Node) -> Node | None:
    """The compound statement (or function) a local's declaration lies in."""
    cur = decl.parent
    while cur is not None and cur.type not in ("compound_statement", "function_definition"):
        cur = cur.parent
    return cur


def _access(node: Node) -> tuple[Node, list[Node]] | None:
    """(root identifier, index expressions) of the outermost subscript chain `a[i][j]`."""
    indices: list[Node] = []
    cur = node
    while cur.type == "subscript_expression":
        arg = cur.child_by_field_name("argument")
        idx = cur.child_by_field_name("indices") or next(
            (c for c in cur.named_children if c.type == "subscript_argument_list"), None
        )
        if arg is None or idx is None:
            return None
        indices = [c for c in idx.named_children if c.type != "comment"] + indices
        cur = arg
    if cur.type != "identifier":
        return None
    return cur, indices


class DynamicLocalArrayIndex(Rule):
    code = "HL110"
    name = "dynamic-local-array-index"
    summary = (
        "A function-local array of run-time values read or written at an index that is not a "
        "compile-time constant once the compiler has unrolled its constant loops."
    )
    rationale = (
        "GPUs have no indexable register file per lane: a local array lives in VGPRs only while "
        "every index is known at compile time. Indexed at a run-time value (a thread ID, a "
        "constant-buffer value, the counter of a loop the compiler keeps), the whole array stays "
        "live and every access becomes a chain of compares and selects over all its elements, or, "
        "past 256 bytes per lane, the array moves to scratch memory (a memory round trip per "
        "access). Measured with regtruth (RADV/ACO, navi21 wave64): eight float4 taps read back "
        "at a per-lane offset took 48 VGPRs, 184 instructions and 10 waves/SIMD, against 24 VGPRs, "
        "42 instructions and 16 waves/SIMD reading the buffer directly; `float4 a[17]` (272 bytes) "
        "took 17,408 bytes of scratch per wave. Counters of constant loops of up to 32 iterations "
        "are constant indices (the compiler unrolls them); above 128 iterations the loop is kept "
        "and its counter is a run-time index; in between it depends on the body, and such an "
        "index is not reported. A "
        "local array whose elements are all literals, never written at a run-time index, is "
        "folded into constant data and is not reported, nor is an array whose every use is dead "
        "code (what it computes reaches no output, so the compiler drops it)."
    )
    bad_example = """\
StructuredBuffer<float4> samples : register(t0);
RWStructuredBuffer<float4> result : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 taps[8];
    for (uint i = 0; i < 8; i++)
        taps[i] = samples[id.x * 8 + i];
    float4 acc = 0;
    for (uint j = 0; j < 4; j++)
        acc += taps[(id.x + j * 3) & 7];
    result[id.x] = acc;
}
"""
    good_example = """\
StructuredBuffer<float4> samples : register(t0);
RWStructuredBuffer<float4> result : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 acc = 0;
    for (uint j = 0; j < 4; j++)
        acc += samples[id.x * 8 + ((id.x + j * 3) & 7)];
    result[id.x] = acc;
}
"""
    tags = ("registers", "occupancy")
    references = (
        "AMD GPUOpen, Occupancy explained: VGPR usage limits waves per SIMD, and registers "
        "spilled to memory cost far more than registers",
        "Measured with regtruth (Mesa RADV/ACO): local arrays past 256 bytes per lane go to scratch",
    )

    function_local = True
    """Up to finding a large local array indexed (what the index is asks `ctx.needs_unit()`)."""
    node_kinds = frozenset({"subscript_expression"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        if ctx.function is None:
            return
        site, parent = unparen_up(node)
        if (
            parent is not None
            and parent.type == "subscript_expression"
            and same(parent.child_by_field_name("argument"), site)
        ):
            return  # the outer subscript of `a[i][j]` is visited
        found = _access(node)
        if found is None:
            return
        root, indices = found
        model = ctx.model
        sym = model.resolve(root)
        if sym is None or sym.kind != "local" or sym.type.kind != "array":
            return
        el = sym.type.element
        if (
            el is not None
            and el.kind != "unknown"
            and sym.type.length is not None
            and sym.type.components(ctx.settings.enable_16bit_types) <= SMALL_REGISTERS
        ):
            return  # a few selects: little to gain
        # What follows reads the unit: the arrays reported already, the callers of a helper
        # (`_Index._param`) and the entry points, the analysis of what the compiler keeps.
        ctx.needs_unit()
        state = ctx.scratch(_State)
        if id(sym) in state.reported:
            return
        index = _Index(ctx, state)
        try:
            part, culprit = next(
                ((i, p) for i in indices if (p := index.dynamic(i)) is not None), (None, None)
            )
        except _Unknown:
            return
        if part is None or culprit is None:
            return
        if not is_written(ctx.tree, node) and self._constant_array(ctx, sym, index, state):
            return
        if _dead(ctx, sym):
            return
        state.reported.add(id(sym))
        message, notes = self._message(ctx, node, sym, culprit, index.why.get(culprit.id))
        ctx.report(
            node,
            message,
            related=[(sym.node, "the array")] if sym.node is not None else None,
            help=_REMEDY,
            notes=notes,
        )

    @staticmethod
    def _message(
        ctx: RuleContext, node: Node, sym: Symbol, culprit: Node, why: str | None
    ) -> tuple[str, list[str]]:
        """The message and its notes (what makes the index a run-time value, what it costs)."""
        el = sym.type.element
        length = sym.type.length
        verb = "written" if is_written(ctx.tree, node) else "read"
        culprit_text = " ".join(ctx.node_text(culprit).split())
        if len(culprit_text) > 24:
            culprit_text = culprit_text[:21] + "..."
        notes = [f"`{culprit_text}` is {why}"] if why else []
        if el is None or el.kind == "unknown" or length is None:
            notes.append(
                "the compiler keeps the whole array live and selects through it on every access, "
                f"or moves it to scratch memory past {SCRATCH_BYTES} bytes per lane"
            )
            return f"local array `{sym.name}` is {verb} at a run-time index (`{culprit_text}`)", notes
        regs = sym.type.components(ctx.settings.enable_16bit_types)
        nbytes = 4 * regs
        if nbytes > SCRATCH_BYTES:
            size = f"{nbytes:,} bytes per lane"
            notes.append(
                f"past {SCRATCH_BYTES} bytes per lane the array lives in scratch memory, a memory "
                "round trip per access"
            )
        else:
            size = f"{regs} registers per lane"
            notes.append(
                f"the compiler keeps all {regs} registers of the array live and selects through "
                "them on every access"
            )
        shape = f"{length} × {el.display_name}, {size}"
        return f"local array `{sym.name}` ({shape}) is {verb} at a run-time index (`{culprit_text}`)", notes

    @staticmethod
    def _constant_array(ctx: RuleContext, sym: Symbol, index: _Index, state: _State) -> bool:
        """Every element is a literal and no write uses a run-time index: folded by the compiler."""
        known = state.constant_arrays.get(id(sym))
        if known is not None:
            return known
        model = ctx.model
        # Initialised with literals, or filled element by element with literals at constant
        # indices (`colors[0] = float3(0, 0, 1); ...`): either way a table the compiler folds.
        result = sym.init is None or all(_literal(model, leaf, state.pure) for leaf in _leaves(sym.init))
        written = sym.init is not None
        if result:
            for use in uses_of(model, sym):
                if not is_written(ctx.tree, use):
                    continue
                written = True
                top = lvalue_top(use)
                _site, parent = unparen_up(top)
                if parent is None or parent.type != "assignment_expression":
                    result = False
                    break
                value = parent.child_by_field_name("right")
                found = _access(top) if top.type == "subscript_expression" else None
                try:
                    if (
                        found is None
                        or any(index.dynamic(i) is not None for i in found[1])
                        or value is None
                        or not _literal(model, value, state.pure)
                    ):
                        result = False
                        break
                except _Unknown:
                    result = False
                    break
        result = result and written
        state.constant_arrays[id(sym)] = result
        return result


def _leaves(init: Node) -> list[Node]:
    """The scalar or vector expressions of an initializer (`{ {1, 2}, float2(3, 4) }`)."""
    if init.type != "initializer_list":
        return [init]
    out: list[Node] = []
    for c in init.named_children:
        if c.type != "comment":
            out += _leaves(c)
    return out


def _literal(model: Model, node: Node, pure: dict[tuple[int, int], bool]) -> bool:
    """A compile-time constant value: arithmetic on literals, or a vector/matrix constructor of
    them (`float3(1, 0, 0)`)."""
    if model.const_value(node) is not None:
        return True
    if node.type == "parenthesized_expression":
        return all(_literal(model, c, pure) for c in node.named_children if c.type != "comment")
    if node.type == "unary_expression":
        arg = node.child_by_field_name("argument")
        return arg is not None and _literal(model, arg, pure)
    if node.type == "call_expression":
        name = call_name(model.tree, node)
        if name is None or not all(_literal(model, a, pure) for a in call_args(node)):
            return False
        spec = INTRINSICS.get(name)
        if model.lookup_type(name).is_numeric or (spec is not None and spec[1] == "pure"):
            return True
        fn = model.function(name)
        return fn is not None and _pure(model, fn.body, pure)
    return node.type == "initializer_list" and all(_literal(model, c, pure) for c in _leaves(node))


def _pure(model: Model, body: Node | None, memo: dict[tuple[int, int], bool], depth: int = 0) -> bool:
    """A helper body that reads only its parameters, locals and constants (no resource,
    constant buffer, groupshared or global variable; calls only intrinsics and such helpers):
    with constant arguments the compiler folds its result."""
    if body is None or depth > 4:
        return False
    key = (body.id, depth)
    known = memo.get(key)
    if known is None:
        known = memo[key] = _pure_body(model, body, memo, depth)
    return known


def _pure_body(model: Model, body: Node, memo: dict[tuple[int, int], bool], depth: int) -> bool:
    for n in model.tree.walk(body):
        if n.type == "identifier":
            sym = model.resolve(n)
            if sym is not None and sym.kind not in ("param", "local", "static_const", "function"):
                return False
        elif n.type == "call_expression":
            name = call_name(model.tree, n)
            if name is None:
                return False
            spec = INTRINSICS.get(name)
            if model.lookup_type(name).is_numeric or (spec is not None and spec[1] == "pure"):
                continue
            fn = model.function(name)
            if fn is None or not _pure(model, fn.body, memo, depth + 1):
                return False
    return True
