"""`passes.unread_writes`: the writes no later read sees, found in rounds (each round's dropped
writes free what only they read), against a plain statement of those rounds on random graphs,
and on shaders."""

from __future__ import annotations

import random

import networkx as nx

from hlsllint.analysis import build_cfg
from hlsllint.analysis.ir import CFG, Instr, Value
from hlsllint.analysis.passes import MAX_UNREAD_ROUNDS, ROOT_OPS, dead_instructions, unread_writes
from hlsllint.context import AnalysisSettings
from hlsllint.semantic import build_model
from hlsllint.semantic.symbols import EntryPoint
from hlsllint.syntax import parse


def plain_dead(instrs: list[Instr]) -> frozenset[Instr]:
    """Dead code as `dead_instructions` states it: what no side effect, control flow or what
    it keeps reads, a hold kept with the instruction after it."""
    attached: dict[Instr, list[Instr]] = {}
    pending: list[Instr] = []
    for ins in instrs:
        if ins.op == "hold":
            pending.append(ins)
        elif pending:
            attached[ins], pending = pending, []
    kept = {
        i for i in instrs if (i.dest is None and i.op != "hold") or i.op in ROOT_OPS or i.rule == "effect"
    }
    while True:
        needed = {r for i in kept for r in i.reads}
        more = {i for i in instrs if i.dest in needed} | {h for i in kept for h in attached.get(i, ())}
        if more <= kept:
            return frozenset(i for i in instrs if i not in kept)
        kept |= more


def rounds(cfg: CFG) -> tuple[frozenset[Instr], int]:
    """The rounds as the pass states them, each over every instruction left: a liveness of the
    values written more than once; the writes of them nothing live after them reads (not
    counting what the round's dropped writes read later in the block) and, if there are any,
    dead code over what is left. Returns the instructions found and the rounds that found some."""
    dead = set(cfg.dead)
    found: set[Instr] = set()
    blocks = list(cfg.graph.nodes)
    finding = 0
    for _ in range(MAX_UNREAD_ROUNDS):
        kept = {b: [i for i in cfg.instrs(b) if i not in dead] for b in blocks}
        writes: dict[Value, int] = {}
        for instrs in kept.values():
            for ins in instrs:
                if ins.dest is not None:
                    writes[ins.dest] = writes.get(ins.dest, 0) + 1
        followed = {v for v, n in writes.items() if n > 1}
        if not followed:
            break
        live_in: dict[int, set[Value]] = {b: set() for b in blocks}
        changed = True
        while changed:
            changed = False
            for b in blocks:
                cur = set().union(*(live_in[s] for s in cfg.graph.successors(b)))
                for ins in reversed(kept[b]):
                    if ins.dest in followed:
                        cur.discard(ins.dest)
                    cur |= {r for r in ins.reads if r in followed}
                if cur != live_in[b]:
                    live_in[b] = cur
                    changed = True
        fresh: set[Instr] = set()
        for b in blocks:
            cur = set().union(*(live_in[s] for s in cfg.graph.successors(b)))
            for ins in reversed(kept[b]):
                if ins.dest in followed:
                    if ins.dest not in cur and ins.op not in ROOT_OPS | {"undef"} and ins.rule != "effect":
                        fresh.add(ins)
                        continue
                    cur.discard(ins.dest)
                cur |= {r for r in ins.reads if r in followed}
        if not fresh:
            break
        finding += 1
        dead |= fresh
        found |= fresh
        swept = plain_dead([i for b in blocks for i in kept[b] if i not in dead])
        dead |= swept
        found |= swept
    return frozenset(found), finding


def an_entry_point() -> EntryPoint:
    m = build_model(parse("[numthreads(1, 1, 1)] void main() {}"), AnalysisSettings())
    return m.entry_points[0]


def random_cfg(rng: random.Random, entry: EntryPoint, holds: bool) -> CFG:
    """Blocks in a chain with random forward and backward edges (loops), instructions over a
    few variables written many times, some temporaries, stores and exports reading them, and
    some instructions dropped already (merged ones and the dead code they leave)."""
    n_blocks = rng.randint(2, 9)
    g = nx.DiGraph()
    g.add_nodes_from(range(n_blocks))
    for b in range(n_blocks - 1):
        g.add_edge(b, b + 1)
    for _ in range(rng.randint(0, n_blocks)):
        g.add_edge(rng.randrange(n_blocks - 1), rng.randrange(1, n_blocks))
    values = [Value(i, f"v{i}", 1, rng.choice(["var", "var", "temp"])) for i in range(rng.randint(2, 8))]
    every: list[Instr] = []
    for b in range(n_blocks):
        instrs: list[Instr] = []
        for _ in range(rng.randint(0, 7)):
            reads = rng.sample(values, rng.randint(0, min(2, len(values))))
            kind = rng.random()
            if kind < 0.08:
                ins = Instr("store", None, reads, (0, 0), block=b)
            elif kind < 0.12:
                ins = Instr("undef", rng.choice(values), [], (0, 0), block=b)
            elif kind < 0.15:
                ins = Instr("atomic", rng.choice(values), reads, (0, 0), block=b)
            elif kind < 0.18:
                ins = Instr("intrinsic", rng.choice(values), reads, (0, 0), "effect", block=b)
            elif kind < 0.24 and holds:
                ins = Instr("hold", None, reads, (0, 0), block=b)
            else:
                ins = Instr(rng.choice(["alu", "copy", "load"]), rng.choice(values), reads, (0, 0), block=b)
            instrs.append(ins)
        if g.out_degree(b) > 1:
            instrs.append(Instr("branch", None, [rng.choice(values)], (0, 0), block=b))
        if b == n_blocks - 1:
            instrs.append(Instr("export", None, rng.sample(values, 1), (0, 0), block=b))
        g.nodes[b]["instrs"] = instrs
        every.extend(instrs)
    merged = frozenset(i for i in every if i.dest is not None and rng.random() < 0.1)
    dead = dead_instructions(every)
    assert dead == plain_dead(every)
    return CFG(entry, g, 0, n_blocks - 1, values, [], {}, "compute", dead=dead | merged)


def test_the_rounds_on_random_graphs_with_loops_and_holds() -> None:
    entry = an_entry_point()
    rng = random.Random(24)
    by_rounds: dict[int, int] = {}
    for case in range(600):
        cfg = random_cfg(rng, entry, holds=case % 3 == 0)
        expected, finding = rounds(cfg)
        assert unread_writes(cfg) == expected, f"case {case}"
        by_rounds[finding] = by_rounds.get(finding, 0) + 1
    # the graphs exercise rounds beyond the first (values whose readers a round dropped)
    assert sum(n for r, n in by_rounds.items() if r >= 3) >= 10, by_rounds


def dead_ops(src: str, name: str) -> list[str]:
    m = build_model(parse(src), AnalysisSettings())
    cfg = build_cfg(m, m.entry_points[0])
    return [
        i.op
        for b in cfg.graph.nodes
        for i in cfg.instrs(b)
        if i in cfg.dead and i.dest is not None and i.dest.name == name
    ]


def test_a_chain_of_writes_only_read_by_overwritten_writes_is_dead() -> None:
    # `w = v` is overwritten before any read (round 1: liveness still counted its read of
    # `v` out of the first block); then the load into `v`, which only it read, is
    # overwritten before any read too (round 2), and its load is dead code.
    src = """
StructuredBuffer<float4> src : register(t0);
float4 main(float4 x : TEXCOORD0) : SV_Target {
    float4 v = src[asuint(x.x)];
    float4 w = x;
    if (x.w > 0) {
        w = v;
        w = src[asuint(x.y)];
    }
    v = src[asuint(x.z)];
    return v + w;
}"""
    m = build_model(parse(src), AnalysisSettings())
    cfg = build_cfg(m, m.entry_points[0])
    loads = [i for b in cfg.graph.nodes for i in cfg.instrs(b) if i.op == "load"]
    assert len(loads) == 3 and [i in cfg.dead for i in loads] == [True, False, False]
    assert "copy" in dead_ops(src, "w")


def test_a_write_in_a_loop_overwritten_on_every_path_is_dead_and_the_sum_is_not() -> None:
    src = """
StructuredBuffer<float4> src : register(t0);
cbuffer C : register(b0) { uint n; }
float4 main(float4 x : TEXCOORD0) : SV_Target {
    float4 sum = 0;
    float4 t = 0;
    [loop] for (uint i = 0; i < n; ++i) {
        t = src[i];
        t = src[i + 64] * x;
        sum += t;
    }
    return sum;
}"""
    m = build_model(parse(src), AnalysisSettings())
    cfg = build_cfg(m, m.entry_points[0])
    loads = [i for b in cfg.graph.nodes for i in cfg.instrs(b) if i.op == "load"]
    assert len(loads) == 2 and [i in cfg.dead for i in loads] == [True, False]
    assert not dead_ops(src, "sum")
