"""The one uniformity lattice: the holes issue 11 found (unknown calls, ray-tracing system values,
method receivers, out arguments, TraceRay payloads, unreachable code) and its two questions."""

from __future__ import annotations

from hlsllint.analysis import analyze
from hlsllint.analysis.local_uniformity import is_uniform
from hlsllint.semantic import Model, build_model
from hlsllint.syntax import parse


def model(text: str) -> Model:
    return build_model(parse(text))


def span_of(m: Model, text: str, nth: int = 0) -> tuple[int, int]:
    src = m.tree.text
    i = -1
    for _ in range(nth + 1):
        i = src.index(text, i + 1)
    return (i, i + len(text))


RAYGEN = """
RaytracingAccelerationStructure gScene : register(t0);
Buffer<float4> gLights : register(t2);
cbuffer CB : register(b0) { uint gLight; };
struct Payload { float4 color; uint hit; };
uint HashFn(uint a);


[shader("raygeneration")]
void RayGen()
{
    uint2 px = DispatchRaysIndex().xy;
    uint2 size = DispatchRaysDimensions().xy;
    float t = RayTCurrent();
    uint h = HashFn(7);
    uint f = 0;
    Fill(3, f);  // undeclared (a header not found): may write f
    float s, c;
    sincos(float(gLight), s, c);
    RayDesc ray;
    ray.Origin = float3(0, 0, 0);
    ray.Direction = float3(0, 0, 1);
    ray.TMin = 0;
    ray.TMax = 100;
    Payload p;
    p.hit = 0;
    TraceRay(gScene, 0, 0xff, 0, 1, 0, ray, p);
    float4 q = gLights[p.hit] + gLights[h] + gLights[f] + gLights[s] + gLights[px.x] + gLights[size.x] + t;
}
"""


def test_ray_tracing_values_unknown_calls_out_args_and_payloads() -> None:
    m = model(RAYGEN)
    a = analyze(m)
    assert a.uniform_at(span_of(m, "DispatchRaysIndex()")) is False
    assert a.uniform_at(span_of(m, "RayTCurrent()")) is False
    assert a.uniform_at(span_of(m, "DispatchRaysDimensions()")) is True
    assert a.uniform_at(span_of(m, "HashFn(7)")) is False  # unknown call, uniform argument
    for addr in ("p.hit", "f", "px.x", "h"):  # payload, out argument, system value, unknown call
        assert a.uniform_at(index_of(m, f"gLights[{addr}]")) is False, addr
    assert a.uniform_at(index_of(m, "gLights[s]")) is True  # sincos of a uniform value
    assert a.uniform_at(index_of(m, "gLights[size.x]")) is True


def index_of(m: Model, subscript: str) -> tuple[int, int]:
    """The span of the index inside the first `subscript` (`buf[i]` -> span of `i`)."""
    start, end = span_of(m, subscript)
    return (start + subscript.index("[") + 1, end - 1)


METHOD_AND_DEAD = """
Buffer<float4> gTable : register(t0);
RWBuffer<float4> gOut : register(u0);
cbuffer CB : register(b0) { uint gIndex; };
struct Surface { float2 uv; uint Slot() { return uint(uv.x * 16.0); } };

float4 PSMain(float2 uv : TEXCOORD0) : SV_Target
{
    Surface s;
    s.uv = uv;
    return gTable[s.Slot()];
}

[numthreads(64, 1, 1)]
void Early(uint3 id : SV_DispatchThreadID)
{
    gOut[id.x] = gTable[id.x];
    return;
    gOut[id.x] = gTable[gIndex + 1];
}
"""


def test_method_reads_receiver_and_unreachable_code_is_not_uniform() -> None:
    m = model(METHOD_AND_DEAD)
    a = analyze(m)
    assert a.uniform_at(span_of(m, "s.Slot()")) is False
    assert a.uniform_at(span_of(m, "gIndex + 1")) is False
    e = a.entry("PSMain")
    assert e is not None
    # the method is inlined: its body reads the receiver's member (`uv` is `s.uv`)
    slot = next(i for i in e.cfg.all_instrs() if i.span == span_of(m, "uv.x * 16.0"))
    assert {v.name for v in slot.reads} & {"s.uv"}


def test_two_questions_and_rules_agree_with_the_analysis() -> None:
    m = model("""
cbuffer CB { uint index; };
Buffer<float4> data;
RWBuffer<float4> outp;
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float4 t = data[index];
    outp[id.x] = data[uint(t.x)] + data[id.x];
}""")
    a = analyze(m)
    load = span_of(m, "data[index]")
    assert a.uniform_at(load) is True  # the same value in every lane
    assert a.uniform_at(load, question="sgpr") is False  # but held in VGPRs
    node = m.tree.root.descendant_for_byte_range(*_bytes(m, index_of(m, "data[uint(t.x)]")))
    assert node is not None and is_uniform(m, node)
    node = m.tree.root.descendant_for_byte_range(*_bytes(m, index_of(m, "data[id.x]")))
    assert node is not None and not is_uniform(m, node)


def _bytes(m: Model, span: tuple[int, int]) -> tuple[int, int]:
    text = m.tree.text
    return (len(text[: span[0]].encode()), len(text[: span[1]].encode()))


def test_sgpr_answer_continued_from_the_value_answer_is_the_one_from_scratch() -> None:
    """Once the "value" question is answered, the "sgpr" one starts from it: a typed load at a
    uniform address is uniform data but per-lane in registers, and what it feeds (a branch on it
    and the variables that branch merges) follows; the answer equals one computed alone."""
    from hlsllint.analysis import build_cfg, uniformity

    src = """
Buffer<float4> gData : register(t0);
RWStructuredBuffer<float4> gOut : register(u0);
cbuffer CB : register(b0) { uint gIndex; };
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID)
{
    float4 row = gData[group.x];
    float k = 0;
    if (row.x > 0) { k = 2; }
    float4 lane = gData[id.x];
    gOut[id.x] = row * k + lane + gIndex;
}"""
    m = model(src)

    def answer(u: object) -> tuple[object, ...]:
        assert hasattr(u, "divergent")
        return (
            sorted(v.id for v in u.divergent),
            sorted((i.block, i.span) for i in u.divergent_instrs),
            sorted(u.divergent_branches),
            sorted(u.divergent_blocks.items()),
        )

    alone = uniformity(build_cfg(m, m.entry_points[0]))
    cfg = build_cfg(m, m.entry_points[0])
    value = uniformity(cfg, "value")
    continued = uniformity(cfg)
    assert answer(continued) == answer(alone)
    row = {v.id for v in cfg.values if v.name == "row"}
    k = {v.id for v in cfg.values if v.name == "k"}
    assert row and k
    assert not row & {v.id for v in value.divergent} and not k & {v.id for v in value.divergent}
    assert row <= {v.id for v in continued.divergent} and k <= {v.id for v in continued.divergent}
    assert continued.divergent_branches and not value.divergent_branches


def test_one_dominator_tree_serves_the_passes_and_the_analyses() -> None:
    """Value numbering and uniformity both need the CFG's dominator tree; it is computed once
    and kept with the CFG (the passes change no edge), equal to networkx's, and so is its
    numbering for dominance questions (`ir.dominance`)."""
    import networkx as nx

    from hlsllint.analysis import build_cfg, uniformity

    src = """
Buffer<float4> gData : register(t0);
RWStructuredBuffer<float4> gOut : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 a = gData[id.x] * 2.0;
    float k = 0;
    if (a.x > 0) { k = a.y * 3.0; }
    float4 b = gData[id.x] * 2.0;
    gOut[id.x] = a + b + k;
}"""
    m = model(src)
    cfg = build_cfg(m, m.entry_points[0])
    kept = cfg.cache.get("idom")
    assert kept == nx.immediate_dominators(cfg.graph, cfg.entry)  # value numbering's, kept
    uni = uniformity(cfg, "value")
    assert cfg.cache["idom"] is kept  # the analysis asked for it: the same one
    assert cfg.cache["uniformity_index"].dom is cfg.cache["dominance"]  # numbered once, from it
    assert any(v.name == "k" for v in uni.divergent)


def test_the_reachability_table_is_one_pass_over_the_strong_components() -> None:
    """The blocks each block reaches (`uniformity.reachable_bits`) are taken from one pass over
    the graph's strongly connected components, each finished after those it reaches: the same
    sets as networkx's descendants (and the block itself), on random graphs with cycles,
    self-loops and blocks nothing reaches."""
    import random

    import networkx as nx

    from hlsllint.analysis.uniformity import reachable_bits

    rng = random.Random(3)
    for _ in range(60):
        n = rng.randint(1, 50)
        g = nx.DiGraph()
        g.add_nodes_from(rng.sample(range(100), n))
        nodes = list(g.nodes)
        for a in nodes:
            for _ in range(rng.randint(0, 3)):
                g.add_edge(a, rng.choice(nodes))
        succs = {b: list(g.succ[b]) for b in nodes}
        bits = {b: i for i, b in enumerate(succs)}
        found = reachable_bits(succs, bits)
        assert list(found) == nodes
        for b in nodes:
            want = {b} | nx.descendants(g, b)
            assert {x for x, i in bits.items() if found[b] >> i & 1} == want


def test_the_blocks_after_every_join_come_from_one_reachability_table() -> None:
    """Where lanes that took different sides of a per-lane branch meet again, and every block
    after, is read off one table per CFG: the blocks each block reaches (itself included), a
    set held as an int's bits, made once for every branch. It equals networkx's descendants,
    and the variables merged after nested per-lane branches in a loop are per-lane, while one
    set in a branch and read only below that setting is not."""
    import networkx as nx

    from hlsllint.analysis import build_cfg, uniformity
    from hlsllint.analysis.uniformity import post_dominators

    src = """
Buffer<float4> gData : register(t0);
RWStructuredBuffer<float4> gOut : register(u0);
cbuffer CB : register(b0) { uint gCount; float gScale; };
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float sum = 0;
    float picked = 1;
    [loop] for (uint i = 0; i < gCount; i++)
    {
        if (id.x > i) {
            if (id.y > 2) { sum += 1; } else { sum += 2; }
            float once = gScale * 3.0;
            gOut[i] = once;
        }
        picked = picked * 2;
    }
    if (id.x == 7) { picked = 5; }
    gOut[id.x] = sum + picked;
}"""
    m = model(src)
    cfg = build_cfg(m, m.entry_points[0])
    uni = uniformity(cfg, "value")
    index = cfg.cache["uniformity_index"]
    assert index.reach is not None
    made = index.reach
    uniformity(cfg)  # the other question: the same table
    assert index.reach is made
    for block, reached in made.items():
        want = {block} | nx.descendants(cfg.graph, block)
        assert {b for b, bit in index.bits.items() if (reached >> bit) & 1} == want
    names = {v.name for v in uni.divergent}
    assert {"sum", "picked"} <= names
    assert "once" not in names
    # Every block reaches the exit here: the post-dominators are the reversed graph's dominators
    # from the exit, as with a sink before it.
    rev = nx.DiGraph([(b, a) for a, b in cfg.graph.edges])
    rev.add_edge(-1, cfg.exit)
    with_sink = nx.immediate_dominators(rev, -1)
    assert post_dominators(cfg) == {b: cfg.exit if d == -1 else d for b, d in with_sink.items()}
    _meetings_are_as_defined(cfg)
    # One side never leaves its loop: the post-dominator is not where two sides meet, so the
    # sides are walked.
    m = model(
        src.replace("if (id.x == 7) { picked = 5; }", "if (id.x == 7) { while (true) { gOut[0] = 1; } }")
    )
    looping = build_cfg(m, m.entry_points[0])
    uniformity(looping, "value")
    _meetings_are_as_defined(looping)


def _meetings_are_as_defined(cfg: object) -> None:
    """Each branch's meetings and what follows them (`_after_joins`), by their definition:
    blocks two sides reach before the post-dominator (or it), and every block after one."""
    import networkx as nx

    from hlsllint.analysis.ir import CFG
    from hlsllint.analysis.uniformity import post_dominators

    assert isinstance(cfg, CFG)
    index = cfg.cache["uniformity_index"]
    succs = cfg.successors()
    ipdom = post_dominators(cfg)
    assert index.branches
    for branch in index.branches:
        stop = ipdom.get(branch, cfg.exit)
        sides: dict[int, int] = {}
        for s in set(succs[branch]):
            seen: set[int] = set()
            stack = [s]
            while stack:
                x = stack.pop()
                if x not in seen:
                    seen.add(x)
                    if x != stop:
                        stack.extend(succs[x])
            for x in seen:
                sides[x] = sides.get(x, 0) + 1
        meetings = {x for x, n in sides.items() if n > 1}
        after = meetings.union(*(nx.descendants(cfg.graph, x) for x in meetings))
        got = index._after_joins(cfg, branch)
        assert {b for b, bit in index.bits.items() if (got >> bit) & 1} == after
