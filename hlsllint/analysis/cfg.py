"""Lowering one entry point to a control-flow graph of simple instructions.

`build_cfg(model, entry) -> CFG`. Every call is inlined (recursion and very deep call chains are
cut and treated as opaque calls). Each instruction defines at most one `Value` and reads others;
its `span` is the code-point span of the expression or statement in the preprocessed text.

Values: named variables (`kind="var"`, redefined by every assignment: the IR is not SSA; a
struct variable is split into one value per member), expression temporaries (`temp`, defined
once), stage inputs (`input`), preloaded hardware registers (`preload`) and resource
descriptors (`resource`). Literals and compile-time constants produce no value.

Blocks are the nodes of `CFG.graph` (a networkx DiGraph); `graph.nodes[b]["instrs"]` is the
block's instruction list. A block ending in a conditional branch has an instruction with
`op="branch"` whose reads hold the condition. Loops are recorded in `CFG.loops` (`LoopRecord`:
blocks, header, attributes, constant trip count when the compiler can tell it). Constant-trip
`[unroll]` loops are *not* expanded: liveness is the same for every iteration, so one copy of the
body gives the same peak, but for what the iterations compute alike and the compiler computes once
(`unrolled.unrolled_holds`, from the rows a read of the counter, or of a table at it,
records); the scheduler's interleaving of unrolled iterations is not modelled.

This module lowers the entry point itself (preloaded registers, stage inputs, outputs) and
finishes the graph (the blocks the entry reaches, then `passes`). The syntax in between is
lowered by a chain of classes, one module each: `lowering` (the state and building blocks)
<- `lowering_expr` (expressions) <- `lowering_access` (element accesses, loads of memory,
stores) <- `lowering_calls` (intrinsics, resource methods, opaque calls) <- `lowering_inline`
(inlined calls, replayed bodies) <- `lowering_stmt` (statements, control flow) <- `_Lowerer` here.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

import networkx as nx

from hlsllint.analysis.component_liveness import component_maps, component_reads
from hlsllint.analysis.components import number_components
from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel
from hlsllint.analysis.factored_sums import factor_sums
from hlsllint.analysis.ir import CFG, Instr, LoopRecord, Value
from hlsllint.analysis.lowering import MAX_STRUCT_DEPTH, Frame, _flatten
from hlsllint.analysis.lowering_stmt import StmtLowerer
from hlsllint.analysis.passes import (
    common_values,
    dead_instructions,
    forward_copies,
    sink_constant_loads,
    sink_inputs,
    unread_writes,
)
from hlsllint.semantic import types as T
from hlsllint.semantic.intrinsics import NODE_UNIFORM, object_base
from hlsllint.semantic.model import Model
from hlsllint.semantic.symbols import EntryPoint
from hlsllint.targets import resolve_target

UNIFORM_INPUTS = frozenset({"SV_GROUPID", "SV_VIEWID"})
PRELOADED_INPUTS = {
    "SV_GROUPTHREADID": "local_invocation_id",
    "SV_VERTEXID": "vertex_id",
    "SV_INSTANCEID": "instance_id",
}
"""System values that are exactly registers the hardware preloads (no instruction computes them)."""


def _integral(t: T.Type) -> bool:
    """An integer or bool input: the rasterizer never interpolates it (it is flat)."""
    elem = t.element if t.kind == "array" and t.element is not None else t
    return elem.is_int or elem.is_bool


class _Lowerer(StmtLowerer):
    """The entry point's lowering, from its inputs to the finished CFG."""

    # -- entry ----------------------------------------------------------------------------

    def lower_entry(self) -> CFG:
        fn = self.entry_point.function
        stage = self.entry_point.stage
        exit_block = -1  # set below
        frame = Frame(fn, None, exit_block)
        self.frames.append(frame)
        preloads = list(self.costs.preloads.get(stage, ()))
        if stage == "vertex":
            family = resolve_target(self.m.settings.target).family
            extra = self.costs.vs_input_vgprs.get(family, 2) - 2
            if extra > 0:  # the other system values the hardware loads into a vertex wave
                preloads.append(("vs_system_inputs", extra, "vgpr"))
        self.preloaded_vgprs = sum(w for _, w, cls in preloads if cls == "vgpr")
        group = self.entry_point.group_size
        for name, width, cls in preloads:
            if name == "local_invocation_id" and group is not None:
                # the wave starts with all three, but a 1-D group's y and z are 0: only the
                # dimensions the group has stay live
                width = max(1, sum(1 for d in group if d > 1))
            v = Value(len(self.values), name, width, "preload", T.UNKNOWN, None, cls)
            self.values.append(v)
            self.preloads[name] = v
            self.emit("preload", v, [], fn.node, rule="uniform" if cls == "sgpr" else "lane")
        for p in fn.params:
            if p.direction == "out":
                continue
            alias = self.preloads.get(PRELOADED_INPUTS.get((p.semantic or "").upper(), ""))
            if alias is not None and p.type.kind != "struct":
                frame.env[p] = [alias]  # the preloaded registers themselves, not a copy
                continue
            flat = "nointerpolation" in p.qualifiers
            for v, (sem, flat_v) in zip(
                _flatten(self.var(p)), self._semantics(p.type, p.semantic, flat), strict=False
            ):
                rule = "uniform" if (sem or "").upper() in UNIFORM_INPUTS else "lane"
                if "uniform" in p.qualifiers or object_base(p.type.name) in NODE_UNIFORM:
                    # a work-graph node's input shared by the group, its outputs
                    rule = "uniform"
                srcs = self._input_sources(sem, flat_v)
                self.emit("input", v, srcs, p.node or fn.node, rule=rule, semantic=sem)
        ret = (
            [self.value(f"{fn.name}.return", fn.return_type, "var")]
            if (fn.return_type.kind not in ("void", "unknown"))
            else None
        )
        if ret and fn.return_type.kind == "struct":
            ret = self.member_values("return", fn.return_type, "var", None)
        frame.ret = ret
        exit_b = self.new_block()
        frame.exit = exit_b
        if fn.body is not None:
            self.stmt(fn.body)
        self.edge(self.block, exit_b)
        self.block = exit_b
        outs: list[Value | None] = list(ret or [])
        for p in fn.params:
            if p.direction in ("out", "inout"):
                outs.extend(self.var(p))
        self.emit("export", None, outs, fn.node)
        if self.reuse is not None and not self.truncated:  # before the passes change instructions
            self.reuse.keep(self, self.m, self.entry_point, self.templates, self.portable_keys, self.preloads)
        if self.share is not None and self.share_pending and not self.truncated:
            self.share.keep(self, self.m, self.templates, self.share_pending, self.preloads)
        self._place_loop_carried()
        return self.finish(exit_b)

    def _place_loop_carried(self) -> None:
        """Values the compiler carries from one iteration of a loop to the next although the
        source gives them none: a variable is one register across iterations, undefined only
        before the loop (a phi of undef and its last value at the loop's header).
        - The selects of early returns (`StmtLowerer.return_`) read the return value's value
          before: in a loop, the previous iteration's (an `undef` at the end of each block
          entering the innermost loop around it); outside any loop, nothing (the selects are
          dropped).
        - A local declared without a value inside a loop (`float4 r; if (c) r = ...; acc += r;`)
          is undefined before the loop, not at its declaration: a path that reads it without
          writing it reads the previous iteration's value (regtruth: 24 presched VGPRs, 20 with
          `float4 r = 0;`). Only a variable written whole: one written a part at a time keeps
          its undefined parts apart (the compiler's components are registers of their own)."""
        blocks = self.blocks
        saves: list[tuple[int, Instr]] = []
        selects: list[tuple[int, Instr]] = []
        declared: list[tuple[int, Instr]] = []
        for b, instrs in enumerate(blocks):
            for ins in instrs:
                detail = ins.detail
                if detail:
                    if ins.op == "alu" and "keep_old" in detail:
                        saves.append((b, ins))
                    elif ins.op == "alu" and "kept_select" in detail:
                        selects.append((b, ins))
                    elif ins.op == "undef" and "declared" in detail:
                        declared.append((b, ins))
        if not saves and not declared:
            return
        loops = [loop for loop in self.loops if loop.trip_count != 1]  # one iteration: no loop
        entering: dict[int, list[int]] = {}

        dropped: set[Value] = set()
        gone: dict[int, set[Instr]] = {}
        for b, ins in saves:
            old = ins.reads[0]
            pre = self._loop_entries(b, loops, entering)
            if pre is None:
                if ins.dest is not None:
                    dropped.add(ins.dest)
                gone.setdefault(b, set()).add(ins)
                continue
            for a in pre:
                blocks[a].append(Instr("undef", old, [], ins.span, "uniform", {}, a))
        if dropped:  # and the selects reading them (a select may be in a later block)
            for b, ins in selects:
                if any(r in dropped for r in ins.reads):
                    gone.setdefault(b, set()).add(ins)
            for b, drop in gone.items():
                blocks[b] = [x for x in blocks[b] if x not in drop]
        if not declared:
            return
        wanted = {ins.dest for _b, ins in declared if ins.dest is not None}
        partial: set[Value] = set()
        for instrs in blocks:
            for ins in instrs:
                d = ins.dest
                if d in wanted and ins.op != "undef" and ("set" in ins.detail or d in ins.reads):
                    partial.add(d)
        for b, ins in declared:
            d = ins.dest
            if d is None or d in partial or d.type.kind not in ("scalar", "vector"):
                continue
            pre = self._loop_entries(b, loops, entering)
            if pre is None:
                continue
            blocks[b] = [x for x in blocks[b] if x is not ins]
            for a in pre:
                blocks[a].append(Instr("undef", d, [], ins.span, "uniform", {}, a))

    def _loop_entries(
        self, b: int, loops: list[LoopRecord], entering: dict[int, list[int]]
    ) -> list[int] | None:
        """The blocks entering the innermost of `loops` around block `b` (None outside them);
        `entering` keeps them by header."""
        inner = None
        for loop in loops:
            if b in loop.blocks and (inner is None or len(loop.blocks) < len(inner.blocks)):
                inner = loop
        if inner is None:
            return None
        pre = entering.get(inner.header)
        if pre is None:
            blocks_in = inner.blocks
            pre = entering[inner.header] = [
                a for a, h in self.edges if h == inner.header and a not in blocks_in
            ]
        return pre

    def _semantics(
        self, t: T.Type, semantic: str | None, flat: bool, depth: int = 0
    ) -> list[tuple[str | None, bool]]:
        """The semantic of each value of a parameter (of each member of a struct, nested ones
        member by member, as `member_values` makes them), and whether it is flat: declared
        `nointerpolation` (the parameter, the member or a struct holding it) or an integer or
        bool, which is never interpolated."""
        if t.kind == "struct" and t.members:
            out: list[tuple[str | None, bool]] = []
            for m in t.members:
                flat_m = flat or "nointerpolation" in m.qualifiers
                if m.type.kind == "struct" and m.type.members and depth < MAX_STRUCT_DEPTH:
                    out.extend(self._semantics(m.type, m.semantic, flat_m, depth + 1))
                else:
                    out.append((m.semantic, flat_m or _integral(m.type)))
            return out
        return [(semantic, flat or _integral(t))]

    def _input_sources(self, sem: str | None, flat: bool = False) -> list[Value | None]:
        s = (sem or "").upper()
        pre = self.preloads
        if s in ("SV_DISPATCHTHREADID",):
            return [pre.get("local_invocation_id"), pre.get("workgroup_id")]
        if s in ("SV_GROUPTHREADID", "SV_GROUPINDEX"):
            return [pre.get("local_invocation_id")]
        if s == "SV_GROUPID":
            return [pre.get("workgroup_id")]
        if s in ("SV_VERTEXID",):
            return [pre.get("vertex_id")]
        if s in ("SV_INSTANCEID",):
            return [pre.get("instance_id")]
        if self.entry_point.stage == "pixel" and not s.startswith("SV_"):
            if flat:  # read from the parameter cache as it is (v_interp_mov): no barycentrics
                # (regtruth: a flat float4 or uint read after two samples, 8 VGPRs, as without it)
                return [pre.get("prim_mask")]
            return [pre.get("barycentrics"), pre.get("prim_mask")]
        if self.entry_point.stage == "vertex" and not s.startswith("SV_"):
            return [pre.get("vertex_id")]
        return []

    # -- the finished graph ---------------------------------------------------------------

    def finish(self, exit_b: int) -> CFG:
        """The graph of the blocks the entry reaches (in block order, then the exit block if
        no path reaches it, with no instructions), and the passes over it."""
        blocks = self.blocks
        n = len(blocks)
        succ: list[list[int]] = [[] for _ in range(n)]
        for a, b in self.edges:
            if not (0 <= a < n and 0 <= b < n):  # a block that was never made (cut short)
                return self._finish_unnumbered(exit_b)
            succ[a].append(b)
        seen = [False] * n
        seen[0] = True
        stack = [0]
        while stack:
            for b in succ[stack.pop()]:
                if not seen[b]:
                    seen[b] = True
                    stack.append(b)
        live = [b for b in range(n) if seen[b]]
        dead = [b for b in range(n) if not seen[b]]
        g = self.g
        # The graph's own dictionaries filled as `add_nodes_from(live)`, `set_node_attributes`
        # and `add_edges_from` of the edges from reached blocks fill them (the same order, one
        # attribute dictionary shared by an edge's two entries), without their interpreted
        # loops (g_buffer's 4 CFGs: 19M instructions; two of WickedEngine's 12: 45M). The graph
        # is new: networkx's cache of derived views is empty.
        node: dict[int, dict[str, Any]] = g._node
        g_succ: dict[int, dict[int, dict[str, Any]]] = g._succ
        g_pred: dict[int, dict[int, dict[str, Any]]] = g._pred
        for b in live:
            node[b] = {"instrs": blocks[b]}
            g_succ[b] = {}
            g_pred[b] = {}
        for a, b in self.edges:
            if seen[a]:
                out = g_succ[a]
                if b not in out:
                    data: dict[str, Any] = {}
                    out[b] = data
                    g_pred[b][a] = data
        if not (0 <= exit_b < n and seen[exit_b]):
            g.add_node(exit_b, instrs=[])
        for loop in self.loops:
            loop.blocks = frozenset(b for b in loop.blocks if seen[b])
        instrs = list(chain.from_iterable(blocks[b] for b in live))
        return self._passes(exit_b, instrs, dead)

    def _finish_unnumbered(self, exit_b: int) -> CFG:
        """`finish` through networkx alone, for edges to blocks that do not exist."""
        self.g.add_nodes_from((b, {"instrs": instrs}) for b, instrs in enumerate(self.blocks))
        self.g.add_edges_from(self.edges)
        reachable = nx.descendants(self.g, 0) | {0}
        dead = [b for b in self.g.nodes if b not in reachable]
        self.g.remove_nodes_from(dead)
        if exit_b not in self.g:
            self.g.add_node(exit_b, instrs=[])
        for loop in self.loops:
            loop.blocks = frozenset(b for b in loop.blocks if b in reachable)
        instrs = [ins for b in self.g.nodes for ins in self.g.nodes[b]["instrs"]]
        return self._passes(exit_b, instrs, dead)

    def _extract_value(self, name: str, t: T.Type) -> Value:
        """A value for `components.number_components`' extracts."""
        return self.value(name, t, "temp")

    def _passes(self, exit_b: int, instrs: list[Instr], dead: list[int]) -> CFG:
        sink_inputs(self.g, instrs)
        expr = self.expr
        viewed = {x for sp in self.view_spans for x in expr.get(sp, ()) if isinstance(x, Value)}
        kept: dict[str, Any] = {}  # the dominator tree, for the passes and the CFG's analyses
        merged = common_values(self.g, 0, instrs, viewed, kept, self.bound_views)
        merged |= sink_constant_loads(self.g, 0, instrs, merged, self.loops, kept)
        merged |= forward_copies(self.g, merged)
        if self.costs.factor_sums and self.costs.component_liveness:
            factor_sums(self.g, instrs, merged, self.loops, self._extract_value, kept)
        shared: dict[Value, tuple[int, int]] = {}
        if self.costs.number_components:
            numbering = number_components(
                self.g,
                0,
                instrs,
                merged,
                self._extract_value,
                viewed,
                self.bound_views,
                hold_shared=self.costs.hold_shared_components,
                cache=kept,
            )
            if numbering.dropped:
                merged |= numbering.dropped
            if numbering.extracts:  # extracts and holds inserted
                instrs = [ins for b in self.g.nodes for ins in self.g.nodes[b]["instrs"]]
            for v, n in numbering.shared.items():
                shared[v] = (n, numbering.constant.get(v, 0))
            for v, n in numbering.constant.items():
                if v not in shared:
                    shared[v] = (0, n)
        cfg = CFG(
            self.entry_point,
            self.g,
            0,
            exit_b,
            self.values,
            self.loops,
            self.expr,
            self.entry_point.stage,
            self.truncated,
            frozenset(dead),
            self.preloaded_vgprs,
            dead_instructions(instrs) | merged,
            self.replayed,
            self.reused,
            shared_components=shared,
        )
        cfg.views = frozenset(viewed)
        cfg.bound_views = frozenset(self.bound_views)
        if self.costs.component_liveness:
            cfg.component_reads = component_reads(instrs, self.bound_views)
            cfg.component_maps = component_maps(instrs, self.bound_views)
        cfg.cache.update(kept)
        unread = unread_writes(cfg)
        if unread:
            cfg.dead = cfg.dead | unread
            cfg.cache.clear()
            cfg.cache.update(kept)  # the graph's edges stay
        return cfg


def build_cfg(
    model: Model, entry: EntryPoint, costs: CostModel = DEFAULT_COSTS, *, replay: bool = True
) -> CFG:
    """Inline and lower one entry point (see the module docstring). `replay=False` walks every
    inlined body's syntax afresh (the tests compare the two)."""
    lowerer = _Lowerer(model, entry, costs, replay)
    try:
        return lowerer.lower_entry()
    except RecursionError:
        lowerer.truncated = True
        return lowerer.finish(lowerer.frames[0].exit if lowerer.frames else 0)
