"""Where live ranges start and end: writes no read sees (navi21 wave64, regtruth
presched_vgprs)."""

from __future__ import annotations

from conftest import demand

from hlsllint.analysis import build_cfg
from hlsllint.context import AnalysisSettings
from hlsllint.semantic import build_model
from hlsllint.syntax import parse

# A struct of six loaded float4 is passed `inout` to a helper whose loop touches only two of
# its members; the caller reads the others only before the call.
INOUT_STRUCT = """
StructuredBuffer<float4> src : register(t0);
RWStructuredBuffer<float4> outp : register(u0);
struct Shade
{
    float4 m0; float4 m1; float4 m2; float4 m3; float4 m4; float4 m5;
    float3 n;
    float4 acc;
};
void gather(inout Shade s, uint count)
{
    for (uint i = 0; i < count; ++i)
    {
        float4 l = src[i];
        s.acc += max(dot(s.n, l.xyz), 0) * l.wzyx;
    }
}
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Shade s;
    s.m0 = src[id.x * 6]; s.m1 = src[id.x * 6 + 1]; s.m2 = src[id.x * 6 + 2];
    s.m3 = src[id.x * 6 + 3]; s.m4 = src[id.x * 6 + 4]; s.m5 = src[id.x * 6 + 5];
    float4 mix = s.m0 * s.m1 + s.m2 * s.m3 + s.m4 * s.m5;
    s.n = normalize(mix.xyz) * mix.w;
    s.acc = 0;
    gather(s, id.y);
    outp[id.x] = s.acc;
}
"""


def test_members_an_inout_call_copies_back_unread_are_not_live_across_it() -> None:
    # The call copies every member in and back out; no one reads m0..m5 after it, so the
    # copies back are dead and the members die at the mix. regtruth: presched_vgprs 25 (the
    # six loads together). Each member held across the helper's loop for its copy back: 35.
    assert demand(INOUT_STRUCT).max_live_vgprs <= 30


def test_a_write_every_path_overwrites_before_a_read_is_dead_code() -> None:
    src = """
StructuredBuffer<float4> src : register(t0);
float4 main(float4 x : TEXCOORD0) : SV_Target {
    float4 v = src[asuint(x.x)] * x;
    float4 w = v;
    v = src[asuint(x.y)];
    return v + w;
}"""
    m = build_model(parse(src), AnalysisSettings())
    cfg = build_cfg(m, m.entry_points[0])
    loads = [i for b in cfg.graph.nodes for i in cfg.instrs(b) if i.op == "load"]
    assert len(loads) == 2 and not any(i in cfg.dead for i in loads)  # both loads are read
    src_dead = src.replace("float4 w = v;", "float4 w = x;")
    m = build_model(parse(src_dead), AnalysisSettings())
    cfg = build_cfg(m, m.entry_points[0])
    writes = [i for b in cfg.graph.nodes for i in cfg.instrs(b) if i.dest is not None and i.dest.name == "v"]
    first, second = [i for i in writes if i.op != "undef"][:2]
    assert first in cfg.dead and second not in cfg.dead
    # what only the overwritten value read is dead too: the first load
    loads = [i for b in cfg.graph.nodes for i in cfg.instrs(b) if i.op == "load"]
    assert sum(i in cfg.dead for i in loads) == 1


def test_live_in_is_the_least_solution_taking_the_blocks_in_postorder() -> None:
    # `backward_live_in` takes the next block first in postorder (its successors before it, but
    # for back edges): the least solution of `in = use | (out & ~defs)` whatever the order, with
    # fewer blocks taken than the blocks' own order from the end gave (g_buffer's main_ps: 6,436
    # for its 1,003 blocks). Random uses and definitions over a CFG with nested loops and
    # branches, against a plain round-robin solution.
    import random

    from hlsllint.analysis.ir import backward_live_in

    src = """
Texture2D<float4> T : register(t0);
RWTexture2D<float4> O : register(u0);
cbuffer C : register(b0) { uint N; uint M; };
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 acc = T[id.xy];
    for (uint i = 0; i < N; ++i)
    {
        float4 t = T[id.xy + uint2(i, 0)];
        if (t.x > 0.5)
        {
            for (uint j = 0; j < M; ++j)
            {
                float4 u = T[id.xy + uint2(i, j)];
                if (u.y > 0.5) acc.xyz += u.xyz; else acc.x -= u.z;
                if (u.z > 0.25) break;
            }
        }
        else if (t.y > 0.5) acc.y += t.w;
        else acc.z += t.x;
    }
    O[id.xy] = acc;
}
"""
    m = build_model(parse(src), AnalysisSettings())
    cfg = build_cfg(m, m.entry_points[0])
    succs = cfg.successors()
    rng = random.Random(7)
    for _ in range(20):
        use = {b: rng.getrandbits(24) & rng.getrandbits(24) for b in succs}
        defs = {b: rng.getrandbits(24) for b in succs}
        want = {b: 0 for b in succs}
        changed = True
        while changed:
            changed = False
            for b in succs:
                out = 0
                for s in succs[b]:
                    out |= want[s]
                new = use[b] | (out & ~defs[b])
                if new != want[b]:
                    want[b], changed = new, True
        cfg.cache.pop("live_in_taken", None)
        got = backward_live_in(cfg, use, defs, sorted(use))
        assert {b: got.get(b, 0) for b in succs} == want
        assert cfg.cache["live_in_taken"] < 3 * len(succs)


NESTED_BRANCHES = """
Texture2D<float4> T : register(t0);
RWTexture2D<float4> O : register(u0);
cbuffer C : register(b0) { uint N; uint M; };
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 acc = T[id.xy];
    float4 far = T[id.xy + 7];
    for (uint i = 0; i < N; ++i)
    {
        float4 t = T[id.xy + uint2(i, 0)];
        if (t.x > 0.5)
        {
            for (uint j = 0; j < M; ++j)
            {
                float4 u = T[id.xy + uint2(i, j)];
                if (u.y > 0.5) acc.xyz += u.xyz * far.y; else acc.x -= u.z;
                if (u.z > 0.25) break;
            }
        }
        else if (t.y > 0.5) acc.y += t.w + far.x;
        else acc.z += t.x;
    }
    O[id.xy] = acc + far.z;
}
"""


def test_dominance_by_numbering_answers_as_the_dominator_chain() -> None:
    # `ir.Dominance` numbers the dominator tree once (on entry and exit of a depth-first walk)
    # and answers "does a dominate b" by comparing numbers, where `ir.dominates` walks up the
    # tree from b for every question: the same answers, for every pair of blocks of a CFG with
    # nested loops and branches, of random graphs (blocks no path reaches included), and of a
    # tree that leaves its entry out.
    import random

    import networkx as nx

    from hlsllint.analysis.ir import Dominance, dominates, dominator_tree

    m = build_model(parse(NESTED_BRANCHES), AnalysisSettings())
    cfg = build_cfg(m, m.entry_points[0])
    graphs: list[tuple[nx.DiGraph, int]] = [(cfg.graph, cfg.entry)]
    rng = random.Random(11)
    for _ in range(30):
        g = nx.DiGraph()
        n = rng.randint(2, 40)
        g.add_nodes_from(range(n))
        for a in range(n):
            for _ in range(rng.randint(0, 3)):
                g.add_edge(a, rng.randrange(n))
        graphs.append((g, 0))
    for g, entry in graphs:
        idom = dominator_tree(g, entry, {})
        blocks = [*g.nodes, -5]
        for tree in (idom, {b: up for b, up in idom.items() if b != entry}):
            dom = Dominance(tree)
            for a in blocks:
                for b in blocks:
                    assert dom.dominates(a, b) == dominates(tree, a, b), (a, b)


def test_the_dominators_are_networkx_s_in_its_order_compiled() -> None:
    # `ir.immediate_dominators` computes what `networkx.immediate_dominators` does (the CFG's
    # dominators, and from its reverse the post-dominators, on every edit), in the same order:
    # random graphs with self loops, blocks no path reaches and entries without predecessors,
    # forwards and reversed.
    import random

    import networkx as nx

    from hlsllint.analysis.ir import dominator_tree, immediate_dominators
    from hlsllint.analysis.uniformity import post_dominators

    m = build_model(parse(NESTED_BRANCHES), AnalysisSettings())
    cfg = build_cfg(m, m.entry_points[0])
    assert list(dominator_tree(cfg.graph, cfg.entry, {}).items()) == list(
        nx.immediate_dominators(cfg.graph, cfg.entry).items()
    )
    rev = dict(nx.immediate_dominators(cfg.graph.reverse(copy=False), cfg.exit))
    rev[cfg.exit] = cfg.exit
    assert list(post_dominators(cfg).items()) == list(rev.items())
    rng = random.Random(5)
    for _ in range(400):
        g = nx.DiGraph()
        g.add_nodes_from(rng.sample(range(60), rng.randint(1, 25)))
        nodes = list(g.nodes)
        for _ in range(rng.randint(0, 3 * len(nodes))):
            g.add_edge(rng.choice(nodes), rng.choice(nodes))
        start = rng.choice(nodes)
        want = nx.immediate_dominators(g, start)
        assert list(immediate_dominators(g._succ, g._pred, start).items()) == list(want.items())
        want = nx.immediate_dominators(g.reverse(copy=False), start)
        assert list(immediate_dominators(g._pred, g._succ, start).items()) == list(want.items())


def test_the_bit_set_of_value_numbers_is_made_once_per_block() -> None:
    # The liveness gathers a block's upward-exposed uses and definitions as value numbers and
    # makes each bit set once (`liveness.bits_of`), not a bit tested and set per operand in a
    # number as wide as every value; the same sets as the sum of their bits.
    import random

    from hlsllint.analysis.liveness import bits_of

    rng = random.Random(7)
    for size in (1, 8, 9, 100, 12000):
        for count in (0, 1, 2, 3, 50):
            numbers = rng.sample(range(size), min(count, size))
            assert bits_of(numbers) == sum(1 << i for i in numbers)


def test_the_liveness_by_component_takes_the_blocks_in_postorder() -> None:
    # The backward liveness by component is the least fixed point of each block's walk
    # whatever the order; taken first in postorder (after its successors but for back edges)
    # a sweep settles what it reaches (a sweep more per loop level), and each block's
    # instructions that touch no tracked vector are skipped once for all. Ten SpartanEngine
    # files (g_buffer, light and every twelfth): 4,630 walks for their CFGs' 3,245 blocks,
    # where the blocks' order from the end took 16,627. Against a round-robin solution of the
    # same walks.
    from hlsllint.analysis.component_liveness import _component_liveness

    m = build_model(parse(NESTED_BRANCHES), AnalysisSettings())
    cfg = build_cfg(m, m.entry_points[0])
    comps = _component_liveness(cfg, cfg.component_reads, list(cfg.values))
    assert comps is not None
    kept = cfg.kept_instrs()
    succs = cfg.successors()
    want_in = {b: 0 for b in kept}
    changed = True
    while changed:
        changed = False
        for b in kept:
            out = 0
            for s in succs[b]:
                out |= want_in[s]
            new = comps.walk(kept[b], out)
            if new != want_in[b]:
                want_in[b], changed = new, True
    want_out = {b: 0 for b in kept}
    for b in kept:
        for s in succs[b]:
            want_out[b] |= want_in[s]
    assert comps.live_out == want_out
    assert any(comps.live_out.values())
    assert comps.walks < 3 * len(kept)


def test_dead_registers_counted_from_the_last_block_are_counted_afresh() -> None:
    # `register_demand` counts each block's starting dead registers (components of live vectors
    # no later read takes, or constant) from the last block's start, again only for the
    # vectors whose bits differ (`dead_registers_from`): the same count as `dead_registers` over
    # every live vector, for random live and constant components taken in turn, with
    # components computed alike and constant components of some vectors.
    import random

    from hlsllint.analysis.component_liveness import _component_liveness

    m = build_model(parse(NESTED_BRANCHES), AnalysisSettings())
    cfg = build_cfg(m, m.entry_points[0])
    comps = _component_liveness(cfg, cfg.component_reads, list(cfg.values))
    assert comps is not None
    vectors = list(comps.base)
    comps.alike = {v: (0, 0, 1, 1)[: v.width] for v in vectors[::2] if v.width >= 2}
    comps.constant = {v: 1 << (v.width - 1) for v in vectors[1::3]}
    index = {v: i for i, v in enumerate(cfg.values)}
    vsize = [v.width for v in cfg.values]
    rng = random.Random(5)
    n = len(comps.owner)
    start = (0, 0, 0)
    counted = 0
    for _ in range(200):
        bits, kbits = start[0], start[1]
        for _ in range(rng.randint(0, 6)):
            bits ^= 1 << rng.randrange(n)
            kbits ^= (1 << rng.randrange(n)) if rng.random() < 0.3 else 0
        if rng.random() < 0.1:
            bits, kbits = rng.getrandbits(n), rng.getrandbits(n)
        ded = comps.dead_registers_from(start, bits, vsize, index, kbits)
        assert ded == comps.dead_registers(bits, vsize, index, kbits)
        start = (bits, kbits, ded)
        counted += ded > 0
    assert counted > 50  # not a run of empty sets
