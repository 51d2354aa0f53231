"""HL108 barrier-in-divergent-flow."""

from __future__ import annotations

from dataclasses import dataclass, field

from hlsllint.analysis.local_uniformity import is_uniform, local_uniform
from hlsllint.context import RuleContext
from hlsllint.diagnostics import Severity
from hlsllint.rule import Rule
from hlsllint.semantic.model import Model
from hlsllint.syntax import Node
from hlsllint.syntax.queries import LOOP_TYPES, call_name, enclosing, same

BARRIERS = frozenset(
    {
        "GroupMemoryBarrierWithGroupSync",
        "DeviceMemoryBarrierWithGroupSync",
        "AllMemoryBarrierWithGroupSync",
    }
)
_JUMPS = frozenset({"return_statement", "break_statement", "continue_statement"})
_BRANCHES = frozenset({"if_statement", "switch_statement", "conditional_expression", *LOOP_TYPES})
_FUNCTION = "function_definition"


def condition_of(node: Node) -> Node | None:
    """The expression an if/switch/loop/`?:` branches on (None for `for (;;)`)."""
    cond = node.child_by_field_name("condition")
    if cond is not None and cond.type == "condition_clause":
        inner = [c for c in cond.named_children if c.type != "comment"]
        cond = inner[-1] if inner else None
    if cond is not None and cond.type == "parenthesized_expression" and cond.named_child_count == 1:
        cond = cond.named_children[0]
    return cond


_DISPATCH_CONSTANT = frozenset({"WaveGetLaneCount"})
"""Wave intrinsics whose value is fixed for the whole dispatch: the wave size does not change
between the waves of a group (`WaveGetLaneCount() == 64` is a test of the hardware, not of the
wave)."""


def _wave_only(model: Model, cond: Node) -> Node | None:
    """A wave intrinsic in `cond`: the same in one wave, but not across the waves of a group."""
    stack = [cond]
    while stack:
        node = stack.pop()
        name = call_name(model.tree, node) if node.type == "call_expression" else None
        if name is not None and name.startswith("Wave") and name not in _DISPATCH_CONSTANT:
            return node
        stack.extend(node.named_children)
    return None


def group_uniform(model: Model, node: Node) -> bool:
    """Is `node` the same for every thread of the group? The uniformity analysis first; then a
    local reading for what it cannot see: a local whose every assignment is uniform (a loop
    counter after an early return the analysis tainted), and groupshared memory read at a
    uniform index (after a barrier every thread reads the same value)."""
    if is_uniform(model, node) or local_uniform(model, node, set()):
        return True
    kind = node.type
    if kind == "identifier":
        sym = model.resolve(node)
        return sym is not None and sym.kind == "groupshared"
    if kind == "subscript_expression":
        arg = node.child_by_field_name("argument")
        index = [c for c in node.named_children if not same(c, arg) and c.type != "comment"]
        return arg is not None and group_uniform(model, arg) and all(group_uniform(model, i) for i in index)
    if kind in (
        "parenthesized_expression",
        "binary_expression",
        "unary_expression",
        "subscript_argument_list",
    ):
        return all(group_uniform(model, c) for c in node.named_children if c.type != "comment")
    if kind == "field_expression":
        arg = node.child_by_field_name("argument")
        return arg is not None and group_uniform(model, arg)
    return False


def divergent_part(model: Model, cond: Node) -> Node | None:
    """The operand of `cond` that differs between the threads of a group, else None."""
    wave = _wave_only(model, cond)
    if wave is not None:
        return wave
    if group_uniform(model, cond):
        return None
    # Name the smallest per-lane operand (the left-most first).
    node = cond
    while node.type not in ("field_expression", "call_expression", "subscript_expression"):
        inner = next(
            (
                c
                for c in node.named_children
                if c.type not in ("comment", "field_identifier", "argument_list")
                and not group_uniform(model, c)
            ),
            None,
        )
        if inner is None:
            return node
        node = inner
    return node


class BarrierInDivergentFlow(Rule):
    code = "HL108"
    name = "barrier-in-divergent-flow"
    summary = (
        "A `*WithGroupSync` barrier reached under per-thread control flow: inside an `if`, loop, "
        "`switch` or `?:` whose condition differs between the group's threads, or after an early "
        "`return`/`break`/`continue` that only some threads take."
    )
    rationale = (
        "`GroupMemoryBarrierWithGroupSync` (and the `Device`/`All` variants) waits until every "
        "thread of the group has reached it. Threads that branch around it never arrive, so the "
        "others wait for them: the HLSL specification leaves this undefined, and depending on the "
        "GPU and driver the group hangs, deadlocks the device or silently reads stale groupshared "
        "data. On AMD GCN/RDNA the barrier is `s_barrier`, which counts waves, not threads: a wave "
        "whose lanes partly skipped it still arrives, so the bug can hide on one vendor and hang on "
        "another. Conditions on values that are the same for the whole group (`SV_GroupID`, "
        "constant-buffer members, literals, loop counters over them) are fine; a `Wave*` intrinsic "
        "is the same within one wave only, not across the waves of a group, so it does not make a "
        "condition safe, except `WaveGetLaneCount()`: the wave size is fixed for the dispatch, "
        "so a test such as `WaveGetLaneCount() == 64` takes the same branch in every wave."
    )
    bad_example = """\
groupshared float tile[64];
Texture2D<float> src;
RWTexture2D<float> dst;

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    float v = src[id.xy];
    if (v > 0)
    {
        tile[gi] = v;
        GroupMemoryBarrierWithGroupSync();
        v = tile[63 - gi];
    }
    dst[id.xy] = v;
}
"""
    good_example = """\
groupshared float tile[64];
Texture2D<float> src;
RWTexture2D<float> dst;

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    float v = src[id.xy];
    tile[gi] = v;
    GroupMemoryBarrierWithGroupSync();
    if (v > 0)
        v = tile[63 - gi];
    dst[id.xy] = v;
}
"""
    severity = Severity.ERROR
    tags = ("correctness", "compute")
    references = (
        "HLSL intrinsic GroupMemoryBarrierWithGroupSync (Microsoft docs): all threads of the group "
        "must reach the call",
        "AMD RDNA ISA reference: S_BARRIER synchronises the waves of a work-group",
    )
    function_local = True
    """Up to a barrier or a jump, which `visit` keeps for `check` (asking the uniformity of the
    branches around the barrier): it asks `ctx.needs_unit()` first."""
    node_kinds = frozenset({"call_expression", *_JUMPS})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        fn = ctx.function
        if fn is None or fn.body is None:
            return
        if node.type in _JUMPS:
            ctx.needs_unit()
            ctx.scratch(_Seen).jumps.setdefault(fn.body.id, []).append(node)
        elif call_name(ctx.tree, node) in BARRIERS:
            ctx.needs_unit()
            ctx.scratch(_Seen).barriers.append((node, fn.body.id))

    def check(self, ctx: RuleContext) -> None:
        # After the walk: a barrier is judged with the jumps of its whole function, later ones too.
        seen = ctx.scratch(_Seen)
        for node, body in seen.barriers:
            self._barrier(ctx, node, seen.jumps.get(body, []))

    def _barrier(self, ctx: RuleContext, node: Node, jumps: list[Node]) -> None:
        name = call_name(ctx.tree, node)
        model = ctx.model
        jump = self._earlier_jump(model, node, jumps)
        found = jump[:2] if jump is not None else self._enclosing_branch(model, node)
        if found is None:
            return
        statement, part = found
        why = f"`{ctx.node_text(part)}` differs between the group's threads"
        if part.type == "call_expression" and (call_name(ctx.tree, part) or "").startswith("Wave"):
            why = f"`{ctx.node_text(part)}` is the same within a wave only, not across the group"
        advice = "move the barrier out of the branch"
        if jump is not None and jump[2].type == "return_statement":
            # The barrier is in no branch: the threads that returned are the ones missing.
            advice = (
                "don't return early: restructure so that every thread reaches the barrier (guard "
                "the work around it with the condition instead)"
            )
        ctx.report(
            node,
            f"`{name}` is reached under per-thread control flow: the group can hang",
            help=advice,
            notes=[f"{why}: threads that skip the barrier never arrive"],
            related=[(statement, "the per-thread branch")],
        )

    def _enclosing_branch(self, model: Model, call: Node) -> tuple[Node, Node] | None:
        cur = call.parent
        child = call
        while cur is not None and cur.type != _FUNCTION:
            if cur.type in _BRANCHES:
                cond = condition_of(cur)
                if cond is not None and not same(cond, child) and not _contains(cond, call):
                    part = divergent_part(model, cond)
                    if part is not None:
                        return cur, part
            child, cur = cur, cur.parent
        return None

    def _earlier_jump(
        self, model: Model, call: Node, in_function: list[Node]
    ) -> tuple[Node, Node, Node] | None:
        """A return/break/continue before the barrier taken only by some threads (`in_function`:
        the jumps of the barrier's function, in document order): its branch, the per-thread part
        of the branch's condition, and the jump."""
        if enclosing(call, frozenset({_FUNCTION})) is None:
            return None
        loops = [lp for lp in _ancestors(call) if lp.type in LOOP_TYPES]
        jumps = [
            node
            for node in in_function
            if node.start_byte < call.start_byte or any(_contains(lp, node) for lp in loops)
        ]
        for jump in jumps:
            if jump.type != "return_statement":
                loop = enclosing(jump, LOOP_TYPES | {"switch_statement"})
                # break/continue only matter when the barrier is inside the loop they leave
                if loop is None or loop.type == "switch_statement" or not _contains(loop, call):
                    continue
            found = self._enclosing_branch(model, jump)
            if found is not None:
                return (*found, jump)
        return None


@dataclass
class _Seen:
    """What the driver's walk handed to `visit`: the barrier calls (with their function's body
    id) and every function's jump statements, in document order."""

    barriers: list[tuple[Node, int]] = field(default_factory=list)
    jumps: dict[int, list[Node]] = field(default_factory=dict)


def _ancestors(node: Node) -> list[Node]:
    out = []
    cur = node.parent
    while cur is not None:
        out.append(cur)
        cur = cur.parent
    return out


def _contains(outer: Node, inner: Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte
