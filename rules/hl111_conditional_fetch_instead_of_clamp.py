"""HL111 conditional-fetch-instead-of-clamp."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hlsllint.analysis.local_uniformity import is_uniform
from hlsllint.context import RuleContext
from hlsllint.rule import Rule
from hlsllint.semantic import Model, Symbol
from hlsllint.semantic.intrinsics import INTRINSICS
from hlsllint.semantic.loops import unrolled
from hlsllint.semantic.queries import Fetch, as_fetch, fetches_in, uses_of
from hlsllint.syntax import Node
from hlsllint.syntax.queries import LOOP_TYPES, call_args, call_name, is_written, unparen

_COMPARISONS = frozenset({"<", "<=", ">", ">="})
_BOUND_NAME = re.compile(r"(dim|size|width|height|res|extent|count|max|min|bound)", re.IGNORECASE)
_STORES = re.compile(r"^(Store[0-9]?|Interlocked\w*|Append|Consume|IncrementCounter|DecrementCounter)$")
_BOUNDS_HELPER = re.compile(r"(?i)(within|in)_?bounds|in_?range|inside|on_?screen")
_BRANCHING = frozenset({"if_statement", "switch_statement", "conditional_expression", "case_statement"})
_JUMPS = frozenset({"return_statement", "break_statement", "continue_statement", "goto_statement"})
_MAX_STATEMENTS = 4
"""A guarded branch of at most this many statements is the fetch and its accumulation; more is
"an expensive computation" the branch rightly skips."""


@dataclass
class _Candidate:
    test: Node
    fetch: Fetch
    unrolled_loop: bool
    function: int
    skips: bool = False
    """The test skips the rest of the loop body (`if (outside) continue;`)."""


@dataclass
class _State:
    candidates: list[_Candidate] = field(default_factory=list)


def _condition(node: Node) -> Node | None:
    cond = node.child_by_field_name("condition")
    if cond is not None and cond.type == "condition_clause":
        inner = [c for c in cond.named_children if c.type != "comment"]
        cond = inner[-1] if inner else None
    return unparen(cond) if cond is not None else None


class _BoundsTest:
    """Is a condition only a bounds test of coordinates against 0 and constant or uniform limits
    (`all(q >= 0) && all(q < dims)`, `x > 0`, `inside`)? `tested` collects the variables tested."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.tested: set[int] = set()
        self.names: set[str] = set()
        self.subst: dict[int, Node] = {}

    def check(self, node: Node, depth: int = 0) -> bool:
        node = unparen(node)
        kind = node.type
        text = self.model.tree.node_text
        if kind == "binary_expression":
            op = text(node.child_by_field_name("operator") or node)
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None:
                return False
            if op in ("&&", "||", "&", "|"):
                return self.check(left, depth) and self.check(right, depth)
            if op in _COMPARISONS:
                return self._comparison(left, right)
            return False
        if kind == "unary_expression":
            arg = node.child_by_field_name("argument")
            return text(node).lstrip().startswith("!") and arg is not None and self.check(arg, depth)
        name = call_name(self.model.tree, node) if kind == "call_expression" else None
        if name in ("all", "any"):
            args = call_args(node)
            return len(args) == 1 and self.check(args[0], depth)
        if name is not None and depth < 2:
            return self._helper(node, name, depth)
        if kind == "identifier" and depth < 2:
            sym = self.model.resolve(node)
            if sym is None or sym.kind != "local" or sym.init is None:
                return False
            if any(is_written(self.model.tree, u) for u in uses_of(self.model, sym)):
                return False
            return self.check(sym.init, depth + 1)
        return False

    def _helper(self, call: Node, name: str, depth: int) -> bool:
        """`IsWithinBounds(p, dims)`: a helper whose body is `return <bounds test of its
        parameters>;`, read with the call's arguments in place of the parameters."""
        fn = self.model.function(name, len(call_args(call)))
        args = call_args(call)
        if (fn is None or fn.body is None) and _BOUNDS_HELPER.search(name) and len(args) >= 2:
            # A helper whose header was not found, named as a bounds test: its first argument is
            # the coordinate, the others the limits.
            if not all(self._bound(a) for a in args[1:]) or self._bound(args[0]):
                return False
            names = self._variables(args[0])
            self.tested |= {id(v) for v in names if isinstance(v, Symbol)}
            self.names |= {v for v in names if isinstance(v, str)}
            return bool(names)
        if fn is None or fn.body is None:
            return False
        body = [c for c in fn.body.named_children if c.type != "comment"]
        if len(body) != 1 or body[0].type != "return_statement" or not body[0].named_children:
            return False
        if len(args) != len(fn.params):
            return False
        saved = dict(self.subst)
        self.subst.update({id(p): a for p, a in zip(fn.params, args, strict=True)})
        try:
            return self.check(body[0].named_children[0], depth + 1)
        finally:
            self.subst = saved

    def _param_arg(self, node: Node) -> Node | None:
        """The call argument that stands for `node` (a helper's parameter, or its member)."""
        base = node
        while base.type == "field_expression":
            arg = base.child_by_field_name("argument")
            if arg is None:
                return None
            base = arg
        if base.type != "identifier":
            return None
        sym = self.model.resolve(base)
        return self.subst.get(id(sym)) if sym is not None else None

    def _comparison(self, left: Node, right: Node) -> bool:
        for coord, bound in ((left, right), (right, left)):
            if self._bound(bound) and not self._bound(coord):
                names = self._variables(coord)
                if names:
                    self.tested |= {id(s) for s in names if isinstance(s, Symbol)}
                    self.names |= {s for s in names if isinstance(s, str)}
                    return True
        return False

    def _bound(self, node: Node) -> bool:
        model = self.model
        arg = self._param_arg(node)
        if arg is not None:
            return self._bound(arg)
        if model.const_value(node) is not None or _literal_vector(model, node):
            return True
        if any(n.type == "call_expression" and as_fetch(model, n) is not None for n in model.tree.walk(node)):
            return False
        if is_uniform(model, node):
            return True
        return bool(_BOUND_NAME.search(model.tree.node_text(node)))

    def _variables(self, node: Node) -> list[Symbol | str]:
        out: list[Symbol | str] = []
        for n in self.model.tree.walk(node):
            if n.type == "identifier":
                sym = self.model.resolve(n)
                arg = self.subst.get(id(sym)) if sym is not None else None
                if arg is not None:
                    saved, self.subst = self.subst, {}
                    out += self._variables(arg)
                    self.subst = saved
                elif sym is not None and sym.kind in ("local", "param"):
                    out.append(sym)
                elif sym is None:
                    out.append(self.model.tree.node_text(n))
        return out


_NEUTRAL_ZERO_ASSIGN = frozenset({"+=", "-=", "|=", "^="})
_LINEAR_OPS = frozenset({"+", "-", "*"})


def _zero(model: Model, node: Node) -> bool:
    """A constant 0 (`0`, `0.0`, `float4(0, 0, 0, 0)`)."""
    node = unparen(node)
    value = model.const_value(node)
    if value is not None:
        return value == 0
    return _literal_vector(model, node) and all(model.const_value(a) == 0 for a in call_args(node))


def zero_is_neutral(model: Model, fetch: Node) -> bool:
    """Is 0 (what an out-of-bounds `Load` returns) the neutral value of what the fetch feeds:
    a sum (`acc += w * tex.Load(q)`) or the arm of `inside ? tex[q] : 0`? Not a min/max, a depth
    search or anything stored first (`d = min(d, tex[q])`: a 0 would win every min)."""
    cur = fetch.parent
    while cur is not None:
        kind = cur.type
        if kind == "conditional_expression":
            then, other = cur.child_by_field_name("consequence"), cur.child_by_field_name("alternative")
            arm = other if then is not None and then.start_byte <= fetch.start_byte < then.end_byte else then
            return arm is not None and _zero(model, arm)
        if kind == "assignment_expression":
            op = cur.child_by_field_name("operator")
            text = model.tree.node_text(op) if op is not None else ""
            if text == "=":  # `left = tex[q]` where `left` starts at 0: outside, it stays 0
                left = cur.child_by_field_name("left")
                sym = model.resolve(left) if left is not None and left.type == "identifier" else None
                return sym is not None and sym.init is not None and _zero(model, sym.init)
            return text in _NEUTRAL_ZERO_ASSIGN
        if kind == "binary_expression":
            op = cur.child_by_field_name("operator")
            if op is None or model.tree.node_text(op) not in _LINEAR_OPS:
                return False
        elif kind not in ("parenthesized_expression", "field_expression", "cast_expression"):
            return False  # a call (min, max, a helper), a declaration, a comparison
        cur = cur.parent
    return False


def _reduction(model: Model, fetch: Node) -> tuple[str | None, str | None]:
    """(`min`/`max`, the variable it accumulates in) when the fetch feeds `m = min(m, f(v))`."""
    reduce: str | None = None
    cur = fetch.parent
    while cur is not None and cur.type not in ("expression_statement", "compound_statement"):
        if cur.type == "call_expression" and reduce is None:
            name = call_name(model.tree, cur)
            if name not in ("min", "max"):
                return None, None
            reduce = name
        if cur.type == "assignment_expression":
            left = cur.child_by_field_name("left")
            op = cur.child_by_field_name("operator")
            if left is None or op is None or model.tree.node_text(op) != "=":
                return reduce, None
            return reduce, model.tree.node_text(left)
        cur = cur.parent
    return reduce, None


def _literal_vector(model: Model, node: Node) -> bool:
    if node.type != "call_expression":
        return False
    name = call_name(model.tree, node)
    return (
        name is not None
        and model.lookup_type(name).is_numeric
        and all(model.const_value(a) is not None for a in call_args(node))
    )


class ConditionalFetchInsteadOfClamp(Rule):
    code = "HL111"
    name = "conditional-fetch-instead-of-clamp"
    summary = (
        "A texture or buffer fetch made only inside a bounds test of its coordinate (`if (all(q >= "
        "0) && all(q < dims)) acc += tex.Load(...)`, `inside ? tex[q] : 0`) in an unrolled loop or "
        "a neighbourhood filter."
    )
    rationale = (
        "A filter that tests every tap against the image bounds and fetches only inside them turns "
        "each tap into its own branch. The compiler cannot issue the fetches of the neighbourhood "
        "together: each one is made, waited for and used before the next branch. Clamping the "
        "coordinate, fetching unconditionally and keeping the test as a select on the fetched "
        "value (`acc += inside ? v : 0`, `m = inside ? min(m, v) : m`) lets all the fetches be "
        "in flight at once and gives the same result; clamping alone does not (each tap outside "
        "would read a border texel: a box filter's sum changes at the border). For `Load` and "
        "`[]` feeding a sum, where 0 is the neutral value, dropping the test and relying on "
        "out-of-bounds reads returning 0 (D3D's rule; Vulkan with robustImageAccess2) is "
        "offered too; never for a min/max, a depth search or a distance minimum, where a 0 "
        "would win. Measured with regtruth (RADV/ACO, navi21 wave64; latency and throughput are "
        "ACO's cycle estimates) on a 3×3 sum (`for y, x in -1..1 { int2 p = px + int2(x, y); if "
        "(all(p >= 0) && all(p < size)) acc += tex.Load(int3(p, 0)); }`): guarded, 18 branches "
        "and 9 loads each waited for alone (`s_waitcnt vmcnt(0)` after each), 270 instructions, "
        "latency 3431, 16 VGPRs; the same with `if (outside) continue;`, 279 instructions; "
        "clamped with the select, 1 branch and the 9 loads in flight together, 173 instructions, "
        "latency 1315, 32 VGPRs (16 waves/SIMD either way); relying on out-of-bounds zeros, 66 "
        "instructions. A max in place of the sum: 280 guarded, 177 clamped with the select. On "
        "the 5×5 example below the select costs instructions: 375 guarded (25 branches, 25 "
        "waits, latency 6861) against 431 clamped with the select (no branch, 4 waits, latency "
        "3679), and ACO's throughput estimate rises from 429 to 588 cycles: the gain is the "
        "latency of the chain of waits, which matters most where few waves hide it. In a "
        "loop the compiler keeps (a run-time trip count) both versions fetch once per iteration "
        "and measured the same (69 and 71 instructions), so only unrolled loops and straight-line "
        "filters with two or more guarded fetches are reported. A bounds test nested in another "
        "branch of the loop body (a cooperative tile load's row test) is left alone: that branch "
        "splits the loop anyway (measured: clamping inside it still left 4 branches and 4 waits "
        "for 4 loads). A branch that guards a store or a larger computation than the fetch and "
        "its accumulation, or that has an `else`, is left alone too."
    )
    bad_example = """\
Texture2D<float4> src : register(t0);
RWTexture2D<float4> dst : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int2 dims;
    src.GetDimensions(dims.x, dims.y);
    float4 acc = 0;
    for (int y = -2; y <= 2; y++)
    {
        for (int x = -2; x <= 2; x++)
        {
            int2 q = int2(id.xy) + int2(x, y);
            if (all(q >= 0) && all(q < dims))
                acc += src.Load(int3(q, 0));
        }
    }
    dst[id.xy] = acc / 25;
}
"""
    good_example = """\
Texture2D<float4> src : register(t0);
RWTexture2D<float4> dst : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int2 dims;
    src.GetDimensions(dims.x, dims.y);
    float4 acc = 0;
    for (int y = -2; y <= 2; y++)
    {
        for (int x = -2; x <= 2; x++)
        {
            int2 q = int2(id.xy) + int2(x, y);
            bool inside = all(q >= 0) && all(q < dims);
            float4 v = src.Load(int3(clamp(q, 0, dims - 1), 0));
            acc += inside ? v : 0;
        }
    }
    dst[id.xy] = acc / 25;
}
"""
    tags = ("latency", "branches")
    references = (
        "Pocol, シェーダ最適化 (shader optimisation notes), retelling NVIDIA's Peak-Performance-"
        "Percentage analysis: for a texture load under a condition that is almost always true "
        "(`if (idx < maxidx) loadData(idx)`), force the load and clamp the coordinate",
        "D3D11/12 functional specification: out-of-bounds `Load` from a texture or typed buffer returns 0",
        "AMD RDNA ISA reference: memory instructions are counted by `s_waitcnt vmcnt`; loads in "
        "one basic block can be in flight together",
    )

    function_local = True
    """Up to a guarded branch holding a fetch (the bounds test and what follows ask
    `ctx.needs_unit()`)."""
    node_kinds = frozenset({"if_statement", "conditional_expression"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        if ctx.function is None:
            return
        model = ctx.model
        cond = _condition(node)
        if cond is None:
            return
        guarded = self._guarded(ctx, node)
        skips = guarded is None and node.type == "if_statement"
        if skips:
            guarded = self._after_continue(node)
        if not guarded:
            return
        # A branch without a fetch, or with more than a fetch and its accumulation, is settled
        # before the condition is read as a bounds test (which asks uniformity questions).
        fetches = [f for g in guarded for f in fetches_in(model, g)]
        if not fetches or not self._light(ctx, guarded):
            return
        ctx.needs_unit()  # the bounds test asks the entry points' uniformity; the candidates go to check
        test = _BoundsTest(model)
        if not test.check(cond):
            return
        fetch = next((f for f in fetches if self._addresses(ctx, f, test)), None)
        if fetch is None:
            return
        loop = node.parent
        while loop is not None and loop.type not in LOOP_TYPES and loop.type != "function_definition":
            if loop.type in _BRANCHING:
                return  # another branch splits the code anyway (measured: no batching either way)
            loop = loop.parent
        in_loop = loop is not None and loop.type in LOOP_TYPES
        if in_loop and loop is not None and unrolled(model, loop) is not True:
            return  # a loop the compiler keeps fetches once per iteration either way (measured)
        state = ctx.scratch(_State)
        if skips and not in_loop:
            return
        state.candidates.append(_Candidate(cond, fetch, in_loop, ctx.function.node.id, skips))

    def check(self, ctx: RuleContext) -> None:
        state = ctx.scratch(_State)
        straight: dict[int, int] = {}
        for c in state.candidates:
            if not c.unrolled_loop:
                straight[c.function] = straight.get(c.function, 0) + 1
        for c in state.candidates:
            if not c.unrolled_loop and straight[c.function] < 2:
                continue  # one guarded fetch in straight-line code: nothing to batch it with
            where = "an unrolled loop" if c.unrolled_loop else "a neighbourhood of guarded fetches"
            neutral = zero_is_neutral(ctx.model, c.fetch.node)
            reduce, kept = _reduction(ctx.model, c.fetch.node)
            if neutral:
                select = "inside ? v : 0"
            elif reduce and kept:
                select = f"{kept} = inside ? {reduce}({kept}, v) : {kept}"
            else:
                select = "inside ? v : <what stays outside>"
            help = (
                "clamp the coordinate, fetch unconditionally and keep the test as a select on the "
                f"fetched value (`{select}`)"
            )
            if c.fetch.method in ("Load", "[]") and neutral:
                help += (
                    "; or drop the test and rely on out-of-bounds reads returning 0 (D3D; Vulkan "
                    "with robustImageAccess2), the neutral value of this sum"
                )
            elif reduce:
                help += (
                    f"; clamping alone is enough when the taps cover a whole rectangle around the "
                    f"pixel (a repeated border texel does not change a {reduce}); not on "
                    f"out-of-bounds reads returning 0 (0 is not the neutral value of a {reduce})"
                )
            else:
                help += "; an out-of-bounds read's 0 is not neutral here"
            alone = (
                []
                if reduce
                else ["clamping alone is not the same: each tap outside would read a border texel"]
            )
            fetched = _short(ctx.node_text(c.fetch.node))
            message = (
                f"`{fetched}` is fetched only past this bounds test's `continue`, in {where}"
                if c.skips
                else f"`{fetched}` is fetched only inside this bounds test, in {where}"
            )
            test = _short(ctx.node_text(c.test), 60)
            ctx.report(
                c.test,
                message,
                related=[(c.fetch.node, "the guarded fetch")],
                help=help,
                notes=[
                    f"the fetch is skipped when `{test}` holds"
                    if c.skips
                    else f"the fetch happens only when `{test}` holds",
                    "every guarded fetch is its own branch and is waited for before the next",
                    *alone,
                    "regtruth, 3×3 sum: guarded, 18 branches and 9 loads each waited for alone, "
                    "270 instructions, latency ~3400 cycles; clamped with a select, the loads in "
                    "flight together, 173 instructions, ~1300 cycles",
                ],
            )

    @staticmethod
    def _after_continue(node: Node) -> list[Node] | None:
        """`if (outside) continue;` as a statement of a loop's body: the statements after it,
        which run only when the test fails."""
        if node.child_by_field_name("alternative") is not None:
            return None
        then = node.child_by_field_name("consequence")
        if then is not None and then.type == "compound_statement":
            inner = [c for c in then.named_children if c.type != "comment"]
            then = inner[0] if len(inner) == 1 else None
        body = node.parent
        if (
            then is None
            or then.type != "continue_statement"
            or body is None
            or body.type != "compound_statement"
            or body.parent is None
            or body.parent.type not in LOOP_TYPES
        ):
            return None
        rest = [c for c in body.named_children if c.start_byte >= node.end_byte and c.type != "comment"]
        return rest or None

    @staticmethod
    def _guarded(ctx: RuleContext, node: Node) -> list[Node] | None:
        """The branch that holds the fetch: an `if` without `else`, or the arm of `c ? f : 0`
        whose other arm is a constant."""
        if node.type == "if_statement":
            if node.child_by_field_name("alternative") is not None:
                return None
            then = node.child_by_field_name("consequence")
            if then is None or then.type == "continue_statement":
                return None
            inner = [c for c in then.named_children if c.type != "comment"]
            if (
                then.type == "compound_statement"
                and len(inner) == 1
                and inner[0].type == "continue_statement"
            ):
                return None
            return [then]
        then, other = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
        if then is None or other is None:
            return None
        model = ctx.model
        for arm, rest in ((then, other), (other, then)):
            rest = unparen(rest)
            if model.const_value(rest) is not None or _literal_vector(model, rest):
                return [arm]
        return None

    @staticmethod
    def _addresses(ctx: RuleContext, fetch: Fetch, test: _BoundsTest) -> bool:
        """The fetch's address reads a variable the condition tests."""
        model = ctx.model
        for a in fetch.address:
            for n in ctx.tree.walk(a):
                if n.type != "identifier":
                    continue
                sym = model.resolve(n)
                if (sym is not None and id(sym) in test.tested) or (
                    sym is None and ctx.node_text(n) in test.names
                ):
                    return True
        return False

    @staticmethod
    def _light(ctx: RuleContext, guarded: list[Node]) -> bool:
        """Only fetches and their accumulation: no store, atomic, jump, loop or call of a user
        function, and a few statements at most."""
        model = ctx.model
        statements = 0
        for n in (n for g in guarded for n in ctx.tree.walk(g)):
            kind = n.type
            if kind in LOOP_TYPES or kind in _JUMPS or kind == "discard_statement":
                return False
            if kind in ("expression_statement", "declaration"):
                statements += 1
            if kind == "call_expression":
                fn = n.child_by_field_name("function")
                if fn is not None and fn.type == "field_expression":
                    method = ctx.node_text(fn.child_by_field_name("field") or fn)
                    if _STORES.match(method):
                        return False
                    continue
                name = call_name(ctx.tree, n) or ""
                if name.startswith("Interlocked") or (
                    name in model.functions
                    and name not in INTRINSICS
                    and not model.lookup_type(name).is_numeric
                ):
                    return False
            if kind == "assignment_expression":
                left = n.child_by_field_name("left")
                while left is not None and left.type in ("subscript_expression", "field_expression"):
                    left = left.child_by_field_name("argument")
                if left is not None and model.type_of(left).is_resource:
                    return False  # a store to a UAV
        return statements <= _MAX_STATEMENTS


def _short(text: str, limit: int = 40) -> str:
    """Code quoted in a message, on one line and cut at `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
