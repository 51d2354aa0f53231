"""HL106 unbatched-loop-fetch."""

from __future__ import annotations

from collections.abc import Callable

from hlsllint.analysis import analyze
from hlsllint.analysis.occupancy import occupancy, reachable_functions
from hlsllint.analysis.pressure import analyse_entry, lds_bytes
from hlsllint.context import RuleContext
from hlsllint.rule import Rule
from hlsllint.semantic import Model, Symbol
from hlsllint.semantic import types as T
from hlsllint.semantic.intrinsics import FETCH_KINDS, RESOURCE_METHODS
from hlsllint.semantic.loops import count, loop_header
from hlsllint.semantic.queries import Fetch, as_fetch, fetches_in
from hlsllint.syntax import Node
from hlsllint.syntax.queries import (
    LOOP_TYPES,
    call_args,
    call_name,
    for_header,
    is_written,
    lvalue_top,
    unparen_up,
)
from hlsllint.targets import resolve_target

_BRANCHES = frozenset({"if_statement", "conditional_expression", "switch_statement"})


def _inside(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _leaves_loop(node: Node, body: Node) -> bool:
    """True when `node` sits in a block of the loop body that ends in `break` or `return`: it runs
    at most once per loop, on the way out."""
    cur = node.parent
    while cur is not None and cur.id != body.id:
        if cur.type == "compound_statement":
            last = cur.named_children[-1] if cur.named_children else None
            if last is not None and last.type in ("break_statement", "return_statement"):
                return True
        cur = cur.parent
    return False


def _few_items(ctx: RuleContext, loop: Node, body: Node) -> bool:
    """The counter indexes a vector or an array of at most four items (cascades, lights of a
    small fixed set): the loop runs at most that many times."""
    header = for_header(loop)
    if header is None:
        return False
    sym = ctx.model.resolve(header.counter)
    if sym is None:
        return False
    for n in ctx.tree.walk(body):
        if n.type != "subscript_expression":
            continue
        idx = n.child_by_field_name("indices")
        parts = [c for c in idx.named_children if c.type != "comment"] if idx is not None else []
        if len(parts) != 1 or parts[0].type != "identifier" or ctx.model.resolve(parts[0]) is not sym:
            continue
        arg = n.child_by_field_name("argument")
        t = ctx.model.type_of(arg) if arg is not None else None
        if t is None:
            continue
        if (t.kind == "array" and t.length is not None and t.length <= 4) or (
            t.kind == "vector" and t.cols <= 4
        ):
            return True
    return False


def _exit_on_data(ctx: RuleContext, data: _LoopData, body: Node) -> bool:
    """A `break` or `return` of the loop under an `if` whose condition depends on a fetch of the
    loop. With few items (FlaxEngine's global SDF: four cascades sampled until one holds the
    surface, usually the first) unrolling fetches items the common case never needs; a long
    march (SSR steps) still gains from batching its steps."""
    for n in ctx.tree.walk(body):
        if n.type not in ("break_statement", "return_statement"):
            continue
        cur = n.parent
        while cur is not None and cur.id != body.id:
            if n.type == "break_statement" and (cur.type in LOOP_TYPES or cur.type == "switch_statement"):
                break  # the break of an inner loop or a switch
            if cur.type == "if_statement":
                cond = cur.child_by_field_name("condition")
                if cond is not None and data.expr_deps(cond):
                    return True
            cur = cur.parent
    return False


UNROLL_LIMIT = 128
"""The largest constant trip count the compiler unrolls. Measured with regtruth (RADV/ACO, Mesa
22.3; navi21 and polaris10): a loop of one buffer load or one `SampleLevel` per iteration is fully
unrolled at 16, 32, 64, 96 and 128 iterations (no branch left) and kept as a loop, with its
branch, from 129 (129, 256, 512), for `for` and `while` alike."""

_NOT_CONSTANT = -1


def _trip_count(ctx: RuleContext, loop: Node, *, any_unsigned_start: bool = False) -> int | None:
    """`for (i = A; i < B; i++ / i += C)` (`semantic.loops.loop_header`) with A, B and C
    compile-time constants (a specialization constant counts: the driver folds it): the number
    of iterations, `_NOT_CONSTANT` when it is not such a loop, None when constant but not
    counted. With `any_unsigned_start`, an unsigned start that is not constant (`i = GI`) counts
    as 0: the most iterations any thread runs."""
    model = ctx.model
    header = loop_header(model, loop)
    if header is None:
        return _NOT_CONSTANT
    unsigned_start = any_unsigned_start and model.type_of(header.start).scalar == "uint"
    if not _constant(ctx, header.start) and not unsigned_start:
        return _NOT_CONSTANT
    if not _constant(ctx, header.bound) or (header.amount is not None and not _constant(ctx, header.amount)):
        return _NOT_CONSTANT
    first, last = model.const_value(header.start), model.const_value(header.bound)
    if first is None and unsigned_start:
        first = 0
    step = header.step(model)
    if not _integer(first) or not _integer(last) or not step:
        return None
    assert isinstance(first, int) and isinstance(last, int)
    return count(first, last, header.op, step)


def _integer(value: int | float | bool | None) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _bound_undeclared(ctx: RuleContext, loop: Node) -> bool:
    """`i < Group::PerThread` where no declaration of the name was seen (an include not found,
    or an enum constant of a C++/HLSL shared header): nothing says the loop is dynamic."""
    cond = loop.child_by_field_name("condition") if loop.type == "for_statement" else None
    if cond is None or cond.type != "binary_expression":
        return False
    for side in (cond.child_by_field_name("left"), cond.child_by_field_name("right")):
        if side is None or side.type not in ("identifier", "qualified_identifier"):
            continue
        name = side
        while name.type == "qualified_identifier" and name.child_by_field_name("name") is not None:
            name = name.child_by_field_name("name")  # type: ignore[assignment]
        if ctx.model.resolve(name) is None and ctx.node_text(name) not in ctx.model.globals:
            return True
    return False


def _constant(ctx: RuleContext, node: Node) -> bool:
    return ctx.model.const_value(node) is not None or _spec_constant(ctx, node)


def _spec_constant(ctx: RuleContext, node: Node) -> bool:
    """A Vulkan specialization constant (`[[vk::constant_id(n)]] const int N = 8;`): the driver
    knows its value when it compiles the pipeline and unrolls as for a literal."""
    if node.type != "identifier":
        return False
    sym = ctx.model.resolve(node)
    if sym is None or sym.decl is None or sym.kind not in ("cbuffer_member", "static_const"):
        return False
    start = ctx.span(sym.decl)[0]
    line_start = ctx.text.rfind("\n", 0, start) + 1
    return "constant_id" in ctx.text[line_start : ctx.span(sym.decl)[1]]


class _LoopData:
    """Which fetches each variable written in a loop depends on (data or control)."""

    def __init__(self, ctx: RuleContext, loop: Node, fetches: list[Fetch]) -> None:
        self.ctx = ctx
        self.loop = loop
        self.fetch_index = {f.node.id: i for i, f in enumerate(fetches)}
        self.writes: dict[int, list[Node]] = {}
        self.symbols: dict[int, Symbol] = {}
        model: Model = ctx.model
        for n in ctx.tree.walk(loop):
            if n.type != "identifier":
                continue
            sym = model.resolve(n)
            if sym is None:
                continue
            if sym.node is not None and sym.node.id == n.id and sym.init is not None:
                self._add(sym, sym.init, n)
            elif is_written(ctx.tree, n):
                _site, parent = unparen_up(lvalue_top(n))
                assert parent is not None
                value = (
                    parent if parent.type != "assignment_expression" else parent.child_by_field_name("right")
                )
                self._add(sym, value or parent, n)
        self.deps: dict[int, set[int]] = {k: set() for k in self.writes}
        changed = True
        while changed:
            changed = False
            for key, values in self.writes.items():
                new: set[int] = set()
                for v in values:
                    new |= self.expr_deps(v)
                if not new <= self.deps[key]:
                    self.deps[key] |= new
                    changed = True

    def _add(self, sym: Symbol, value: Node, site: Node) -> None:
        self.writes.setdefault(id(sym), []).append(value)
        self.symbols[id(sym)] = sym
        # Control dependence: a write under a branch depends on the branch condition.
        cur = site.parent
        while cur is not None and cur.id != self.loop.id:
            if cur.type in _BRANCHES:
                cond = cur.child_by_field_name("condition")
                if cond is not None and not _inside(site, cond):
                    self.writes[id(sym)].append(cond)
            cur = cur.parent

    def expr_deps(self, node: Node) -> set[int]:
        out: set[int] = set()
        for n in self.ctx.tree.walk(node):
            idx = self.fetch_index.get(n.id)
            if idx is not None:
                out.add(idx)
            elif n.type == "identifier":
                sym = self.ctx.model.resolve(n)
                if sym is not None and id(sym) in self.deps:
                    out |= self.deps[id(sym)]
        return out

    def carried(self, node: Node, seen: set[int] | None = None) -> bool:
        """Does `node` read a variable declared outside the loop whose value depends on a fetch
        made in the loop (the next address waits for this iteration's data)?"""
        seen = seen if seen is not None else set()
        for n in self.ctx.tree.walk(node):
            if n.type != "identifier":
                continue
            sym = self.ctx.model.resolve(n)
            if sym is None or id(sym) not in self.writes or id(sym) in seen:
                continue
            if len(seen) >= 64:
                return True  # a chain of locals too long to follow: taken as carried (no finding)
            seen.add(id(sym))
            declared_inside = sym.node is not None and _inside(sym.node, self.loop)
            if not declared_inside and self.deps[id(sym)]:
                return True
            if declared_inside and any(self.carried(v, seen) for v in self.writes[id(sym)]):
                return True
        return False


def _short(ctx: RuleContext, node: Node, limit: int = 48) -> str:
    text = " ".join(ctx.node_text(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _why_dynamic(ctx: RuleContext, loop: Node) -> str:
    """What keeps the trip count from being a compile-time constant, for the message."""
    cond = loop.child_by_field_name("condition")
    if cond is None:
        return "no loop condition the compiler can count"
    var = ""
    if loop.type == "for_statement":
        init = loop.child_by_field_name("initializer")
        if init is not None and init.type == "declaration":
            init = next((c for c in init.named_children if c.type == "init_declarator"), init)
        decl = init.child_by_field_name("declarator") or init.child_by_field_name("left") if init else None
        var = ctx.node_text(decl) if decl is not None else ""
    written = (n for n in ctx.tree.walk(loop) if n.type == "identifier" and is_written(ctx.tree, n))
    counters = {ctx.node_text(n) for n in written}
    for n in ctx.tree.walk(cond):
        if n.type == "call_expression":
            return f"its bound comes from `{_short(ctx, n, 32)}` at run time"
        if n.type != "identifier" or ctx.node_text(n) in (var, *counters) or _constant(ctx, n):
            continue
        sym = ctx.model.resolve(n)
        if sym is None:
            continue
        if sym.kind == "cbuffer_member":
            return f"its bound `{sym.name}` is a constant-buffer value, known only at run time"
        if sym.kind == "param":
            return f"its bound `{sym.name}` is a parameter of `{sym.function}`"
        if sym.kind in ("local", "static", "groupshared"):
            return f"its bound `{sym.name}` is computed at run time"
    if loop.type == "for_statement" and var:
        init = loop.child_by_field_name("initializer")
        if init is not None and init.type == "declaration":
            init = next((c for c in init.named_children if c.type == "init_declarator"), init)
        start = init.child_by_field_name("value") or init.child_by_field_name("right") if init else None
        if start is not None and not _constant(ctx, start):
            return f"`{var}` starts at `{_short(ctx, start, 24)}`, known only at run time"
    return f"its condition `{_short(ctx, cond, 32)}` is not a compile-time constant"


def _status_of_fetch(ctx: RuleContext, cond: Node, fetches: list[Fetch]) -> bool:
    """The condition reads a variable that a fetch of the loop writes as an out argument
    (`tex.SampleLevel(s, uv, lod, 0, status)` ... `while (!CheckAccessFullyMapped(status))`)."""
    outs = {ctx.node_text(a) for f in fetches if f.node.type == "call_expression" for a in call_args(f.node)}
    checks = (n for n in ctx.tree.walk(cond) if call_name(ctx.tree, n) == "CheckAccessFullyMapped")
    return any(ctx.node_text(a) in outs for c in checks for a in call_args(c))


def _method_definition(ctx: RuleContext, call: Node) -> Node | None:
    """The body of the struct method that `obj.m(...)` calls (`Model.callee`)."""
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "field_expression":
        return None
    callee = ctx.model.callee(call)
    return callee.body if callee is not None else None


def _method_definition_calls(ctx: RuleContext, call: Node) -> bool:
    body = _method_definition(ctx, call)
    return body is not None and any(
        c.type == "call_expression" and call_name(ctx.tree, c) in ctx.model.functions
        for c in ctx.tree.walk(body)
    )


def _method_fetch(ctx: RuleContext, call: Node) -> Fetch | None:
    """`grid.at(p)` where the method `at` fetches from a texture or buffer (a global resource or
    one held by the struct): the call is the fetch, its arguments the address."""
    body = _method_definition(ctx, call)
    if body is None:
        return None
    for c in ctx.tree.walk(body):
        inner = as_fetch(ctx.model, c)
        if inner is None and c.type == "call_expression":
            fn = c.child_by_field_name("function")
            field = (
                fn.child_by_field_name("field") if fn is not None and fn.type == "field_expression" else None
            )
            method = ctx.node_text(field) if field is not None else ""
            if RESOURCE_METHODS.get(method) in FETCH_KINDS:
                return Fetch(call, T.UNKNOWN, method, str(RESOURCE_METHODS[method]), call_args(call))
        if inner is not None:
            return Fetch(call, inner.resource, inner.method, inner.kind, call_args(call))
    return None


def _method_fetches(ctx: RuleContext, body: Node) -> list[Fetch]:
    out: list[Fetch] = []
    stack = [body]
    while stack:
        n = stack.pop()
        if n.type == "call_expression":
            f = _method_fetch(ctx, n)
            if f is not None:
                out.append(f)
        stack.extend(c for c in n.children if c.type not in LOOP_TYPES)
    return out


class _DynamicLoops:
    """The rule's per-unit state: the analysis' loops of the unit (span -> (dynamic, trip
    count)), asked for on the first loop whose trip count the syntax cannot tell; and the
    occupancy note per entry point (`_hiding`)."""

    def __init__(self) -> None:
        self._loops: dict[tuple[int, int], tuple[bool, int | None]] | None = None
        self.hiding: dict[str, str | None] = {}
        """Entry point -> its occupancy note; None at full occupancy, "" when not estimated."""
        self.callees: dict[int, bool] = {}
        """Body id of a called function -> it fetches or calls a user function."""

    def of(self, ctx: RuleContext) -> dict[tuple[int, int], tuple[bool, int | None]]:
        if self._loops is None:
            try:
                self._loops = {lp.span: (lp.dynamic, lp.trip_count) for lp in analyze(ctx.model).loops()}
            except Exception:  # the analysis stage is optional here: fall back to the syntax
                self._loops = {}
        return self._loops


def _fetches_or_calls(ctx: RuleContext, body: Node) -> bool:
    """A function body that makes a fetch, or calls a user function (not followed)."""
    functions = ctx.model.functions
    return any(
        as_fetch(ctx.model, c) is not None
        or (c.type == "call_expression" and call_name(ctx.tree, c) in functions)
        for c in ctx.tree.walk(body)
    )


def _hiding(ctx: RuleContext) -> str | None:
    """The waves per SIMD that hide the wait, estimated for the configured target; None when every
    entry point that reaches the loop fits the most waves a SIMD holds: the other waves hide the
    wait then, and unrolling buys nothing."""
    target = resolve_target(ctx.settings.target)
    wave = target.wave_for(ctx.settings.wave_size)
    fn = ctx.function
    cache = ctx.scratch(_DynamicLoops).hiding
    model = ctx.model
    full = 0
    reached = 0
    for e in sorted(model.entry_points, key=lambda e: e.name):
        if e.stage not in ("compute", "pixel", "vertex") or fn is None:
            continue
        if not any(f is fn for f in reachable_functions(model, e)):
            continue
        reached += 1
        if e.name not in cache:
            try:
                demand = analyse_entry(model, e, wave)
                threads = e.threads_per_group if e.stage == "compute" else None
                lds = lds_bytes(model, e) if e.stage == "compute" else 0
                occ = occupancy(target, wave, demand.max_live_vgprs, demand.max_live_sgprs, lds, threads)
                note = (
                    f"only the other waves on the SIMD hide the wait: `{e.name}` fits ~{occ.waves_per_simd} "
                    f"of {occ.max_waves} wave{wave}s per SIMD on {target.name} (estimated)"
                )
                cache[e.name] = None if occ.waves_per_simd >= occ.max_waves else note
            except Exception:  # the estimate is optional here
                cache[e.name] = ""
        known = cache[e.name]
        if known is None:
            full += 1
        elif known:
            return known
    if reached and full == reached:
        return None
    return (
        f"only the other waves on the SIMD hide the wait: at most {target.max_waves} wave{wave}s on "
        f"{target.name}"
    )


class UnbatchedLoopFetch(Rule):
    code = "HL106"
    name = "unbatched-loop-fetch"
    summary = (
        "A loop the compiler keeps (a run-time trip count, `[loop]`, or a constant one above the "
        "128 iterations it unrolls) that issues a single texture or buffer fetch per iteration "
        "(or a chain of fetches each waiting for the previous one) and consumes the result in "
        "the same iteration, so every iteration waits for the full memory latency."
    )
    rationale = (
        "A loop that the compiler does not unroll runs its body one iteration at a time: the "
        "fetch is issued, the wave waits for it (hundreds of cycles for a texture miss; only the "
        "other waves resident on the SIMD can run meanwhile), uses the result, and only then "
        "issues the next fetch. Unrolling by hand by 2 to 4 and issuing the independent fetches "
        "back to back lets their latencies overlap. Pocol's blog article (section on batching "
        "texture fetches) retells NVIDIA's example of a screen-space reflection ray march on a "
        "GTX 1080: two fetches per iteration took the pass from 0.54 ms to 0.42 ms, and four to "
        "0.33 ms. Which loops stay loops was measured with regtruth (RADV/ACO, navi21 and "
        "polaris10): a constant trip count of up to 128 iterations with one fetch each is fully "
        "unrolled, 129 and more (256, 512) is kept with its branch, and a trip count from a "
        "constant buffer or a parameter is always kept. Fetches made by a struct method called "
        "in the loop and templated `Load<T>()` count as fetches. Bodies that already issue two "
        "or more independent fetches, or whose next address depends on the fetched data (sphere "
        "tracing, pointer chasing, binary search), are left alone. The message gives the "
        "estimated waves per SIMD of the entry point on the configured target: the fewer, the "
        "less of each wait is hidden. Where every entry point that runs the loop is estimated to "
        "fit all the waves a SIMD holds (16 on RDNA, 10 on GCN), the other waves hide the wait "
        "and nothing is reported."
    )
    bad_example = """\
Texture2D<float> depthTex : register(t0);
SamplerState pointClamp : register(s0);

float march(float2 uv, float2 dir, float z, int steps)
{
    float t = 0;
    [loop] for (int i = 0; i < steps; i++)
    {
        float d = depthTex.SampleLevel(pointClamp, uv + dir * t, 0);
        if (d < z - t)
            return t;
        t += 0.01;
    }
    return -1;
}
"""
    good_example = """\
Texture2D<float> depthTex : register(t0);
SamplerState pointClamp : register(s0);

float march(float2 uv, float2 dir, float z, int steps)
{
    float t = 0;
    [loop] for (int i = 0; i < steps; i += 2)
    {
        float d0 = depthTex.SampleLevel(pointClamp, uv + dir * t, 0);
        float d1 = depthTex.SampleLevel(pointClamp, uv + dir * (t + 0.01), 0);
        if (d0 < z - t)
            return t;
        if (d1 < z - t - 0.01)
            return t + 0.01;
        t += 0.02;
    }
    return -1;
}
"""
    tags = ("latency", "pocol")
    references = (
        "Pocol, シェーダ最適化 (shader optimisation notes), section テクスチャフェッチをバッチする "
        "(batching texture fetches), after NVIDIA's SSR ray-march measurements",
    )

    function_local = True
    """Nothing in a header's functions (reported where the header is linted itself); a loop of
    the main file's code asks `ctx.needs_unit()`."""
    node_kinds = LOOP_TYPES

    def visit(self, ctx: RuleContext, n: Node) -> None:
        # Reported in the main file only (a header's loops where the header is linted itself):
        # its includers do not analyse them again.
        if ctx.function is not None and ctx.in_main_file(n):
            ctx.needs_unit()  # the analysis' loops, the entry points' occupancy
            self._check_loop(ctx, n, ctx.scratch(_DynamicLoops))

    def _dynamic_reason(
        self, ctx: RuleContext, loop: Node, dynamic: _DynamicLoops
    ) -> Callable[[], str] | None:
        """Why the loop stays a loop at run time (made when a finding needs it), or None when
        the compiler unrolls it."""
        if ctx.tree.attribute(loop, "unroll") is not None:
            return None
        if ctx.tree.attribute(loop, "loop") is not None:
            return lambda: "marked `[loop]`"
        if _bound_undeclared(ctx, loop):
            return None  # the bound comes from a header that was not found: it may well be constant
        count = _trip_count(ctx, loop)
        if count == _NOT_CONSTANT:
            is_dynamic, analysed = dynamic.of(ctx).get(ctx.span(loop), (True, None))
            if is_dynamic:
                return lambda: _why_dynamic(ctx, loop)
            count = analysed  # folded by the analysis (a local set once, an inlined argument)
        if count is not None and count > UNROLL_LIMIT:
            return lambda: f"a constant {count} iterations: the compiler unrolls at most {UNROLL_LIMIT}"
        return None

    def _check_loop(self, ctx: RuleContext, loop: Node, dynamic: _DynamicLoops) -> None:
        body = loop.child_by_field_name("body")
        reason = self._dynamic_reason(ctx, loop, dynamic) if body is not None else None
        if body is None or reason is None:
            return
        fetches = fetches_in(ctx.model, body, skip_loops=True) + _method_fetches(ctx, body)
        fetches.sort(key=lambda f: f.node.start_byte)
        fetches = [f for f in fetches if not is_written(ctx.tree, f.node) and not _leaves_loop(f.node, body)]
        if not fetches or self._hidden_fetches(ctx, body) or self._has_barrier(ctx, body):
            return
        most = _trip_count(ctx, loop, any_unsigned_start=True)
        if most is not None and 0 <= most <= 2:
            return  # `for (i = GI; i < 100; i += 64)`: a cooperative fill, two iterations at most
        data = _LoopData(ctx, loop, fetches)
        if any(data.carried(a) for f in fetches for a in f.address):
            return  # the next address waits for this iteration's data: unrolling cannot batch
        cond = loop.child_by_field_name("condition")
        if cond is not None and (data.expr_deps(cond) or _status_of_fetch(ctx, cond, fetches)):
            return  # whether to go on depends on the data (or its residency status): a search
        if _few_items(ctx, loop, body) and _exit_on_data(ctx, data, body):
            return  # a search of a few items that stops on the fetched data
        if len(fetches) > 1:
            for i in range(1, len(fetches)):
                deps: set[int] = set()
                for a in fetches[i].address:
                    deps |= data.expr_deps(a)
                if i - 1 not in deps:
                    return  # at least two independent fetches already
        keyword = loop.children[0] if loop.children else loop
        first = f"`{_short(ctx, fetches[0].node, 36)}`"
        what = (
            f"{first} is fetched and used in the same iteration"
            if len(fetches) == 1
            else f"{len(fetches)} chained fetches, each waiting for the previous ({first}, ...)"
        )
        hiding = _hiding(ctx)
        if hiding is None:
            return  # full occupancy: the other waves hide each wait
        ctx.report(
            keyword,
            f"loop waits for memory every iteration: {what}",
            help="unroll by 2-4 and issue the independent fetches back to back",
            notes=[f"the compiler keeps the loop ({reason()})", hiding],
        )

    @staticmethod
    def _has_barrier(ctx: RuleContext, body: Node) -> bool:
        """A group barrier in the body: a cooperative tile loop, bound by the barrier's wait."""
        return any(
            n.type == "call_expression" and "Barrier" in (call_name(ctx.tree, n) or "")
            for n in ctx.tree.walk(body)
        )

    @staticmethod
    def _hidden_fetches(ctx: RuleContext, body: Node) -> bool:
        """Fetches the body makes that this rule cannot count: in nested loops or called
        functions."""
        model: Model = ctx.model
        callees = ctx.scratch(_DynamicLoops).callees
        # A nested loop without fetches has none in the loops inside it either: those are not
        # searched again.
        stack: list[tuple[Node, bool]] = [(body, False)]
        while stack:
            n, searched = stack.pop()
            if n.type in LOOP_TYPES and not searched:
                if fetches_in(ctx.model, n):
                    return True
                searched = True
            if n.type == "call_expression" and _method_definition(ctx, n) is not None:
                if _method_fetch(ctx, n) is None and _method_definition_calls(ctx, n):
                    return True  # a method calling other functions: not followed
            elif n.type == "call_expression":
                name = call_name(ctx.tree, n)
                fn = model.function(name) if name else None
                if fn is not None and fn.body is not None:
                    hides = callees.get(fn.body.id)
                    if hides is None:
                        hides = callees[fn.body.id] = _fetches_or_calls(ctx, fn.body)
                    if hides:
                        return True
            stack.extend((c, searched) for c in reversed(n.children))
        return False
