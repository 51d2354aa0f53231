"""The estimate says when it is blind: every construct on an entry point's path that the front end
cannot resolve or evaluate is counted (`analysis.blind`), named in every pressure output, and the
register rules claim no occupancy on such an entry."""

from __future__ import annotations

import io
import json
from pathlib import Path

from conftest import lint_text
from hlsllint.rules.hl201_vgpr_occupancy import VgprOccupancy

from hlsllint.analysis import build_cfg
from hlsllint.analysis.blind import blind_spots
from hlsllint.analysis.uniformity import uniformity
from hlsllint.analysis.unit import analyze
from hlsllint.commands.pressure import run_pressure
from hlsllint.config import ConfigResolver, Settings
from hlsllint.output.pressure_html import page_data
from hlsllint.pressure_report import analyse_file
from hlsllint.semantic import build_model
from hlsllint.server.document_lint import unit_context
from hlsllint.server.pressure_view import build_pressure_view
from hlsllint.settings import AnalysisSettings
from hlsllint.syntax import parse

BLIND = """\
#include "engine_constants.hlsli"
Texture2D<float4> gTex[64] : register(t0);
RWTexture2D<float4> gOut : register(u0);

struct Surface
{
    float4 acc;
    void load(uint a, float3 o); // defined in the engine's header, not found
    float4 shade() { return acc * 2; }
};

[numthreads(GROUP_X * GROUP_Y, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Surface s;
    s.load(id.x, float3(id));
    float4 x = shadeFromHeader(s.shade());
    x += gTex[0].Foo(id.x).x;
    gOut[id.xy] = s.acc + x;
}

[numthreads(64, 1, 1)]
void clean(uint3 id : SV_DispatchThreadID)
{
    gOut[id.xy] = gTex[0][id.xy] * 2;
}
"""


def _model(text: str):  # type: ignore[no-untyped-def]
    return build_model(parse(text), AnalysisSettings())


def test_each_construct_not_seen_is_counted_and_named() -> None:
    model = _model(BLIND)
    main, clean = model.entry_points
    found = blind_spots(model, main)
    assert not found.complete
    assert found.names("call") == ["Surface::load", "shadeFromHeader"]
    assert found.names("intrinsic") == ["Texture2D::Foo"]
    assert found.names("attribute") == ["numthreads(GROUP_X * GROUP_Y)"]
    assert found.summary() == (
        "estimate incomplete: 2 calls not resolved (`Surface::load`, `shadeFromHeader`); "
        "1 intrinsic not known (`Texture2D::Foo`); "
        "1 attribute argument not evaluated (`numthreads(GROUP_X * GROUP_Y)`)"
    )
    assert blind_spots(model, clean).complete
    assert blind_spots(model, clean).summary() == ""


def test_a_group_size_not_evaluated_is_unknown_never_one_thread() -> None:
    main = _model(BLIND).entry_points[0]
    assert main.group_size is None
    assert main.threads_per_group is None


def test_an_unparsed_region_the_entry_reaches_is_counted_and_one_it_does_not_is_not() -> None:
    model = _model(
        "RWBuffer<float> o;\n"
        "float broken(float v) { return v @ 2; }\n"
        "float fine(float v) { return v * 2; }\n"
        "[numthreads(64, 1, 1)] void a(uint i : SV_DispatchThreadID) { o[i] = broken(i); }\n"
        "[numthreads(64, 1, 1)] void b(uint i : SV_DispatchThreadID) { o[i] = fine(i); }\n"
    )
    a, b = model.entry_points
    assert blind_spots(model, a).counts() == {"unparsed": 1}
    assert "1 unparsed region reached" in blind_spots(model, a).summary()
    assert blind_spots(model, b).complete


def test_calls_under_a_helper_inlined_twice_count_once_per_call_site() -> None:
    model = _model(
        "RWBuffer<float> o;\n"
        "float helper(float v) { return missing(v); }\n"
        "[numthreads(64, 1, 1)] void a(uint i : SV_DispatchThreadID) { o[i] = helper(i) + helper(i + 1); }\n"
    )
    found = blind_spots(model, model.entry_points[0])
    assert found.counts() == {"call": 1}
    assert found.names("call") == ["missing"]


def test_known_intrinsics_constructors_and_methods_are_not_blind() -> None:
    model = _model(
        "Texture2D<float4> t; SamplerState s; RWBuffer<float4> o;\n"
        "struct P { float4 v; };\n"
        "[numthreads(64, 1, 1)] void a(uint i : SV_DispatchThreadID) {\n"
        "  float sn, cs; sincos(i, sn, cs); P p = (P)0; uint w, h; t.GetDimensions(w, h);\n"
        "  o[i] = mul(float4x4(1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1), t.SampleLevel(s, float2(sn, cs), 0))\n"
        "       + float4(WaveActiveSum(i), 0, 0, 0) + p.v + w;\n"
        "}\n"
    )
    assert blind_spots(model, model.entry_points[0]).complete


def _shader(tmp_path: Path) -> Path:
    f = tmp_path / "blind.hlsl"
    f.write_text(BLIND)
    return f


def _run(path: Path, fmt: str) -> str:
    out = io.StringIO()
    code = run_pressure([str(path)], ConfigResolver(), out=out, output_format=fmt)
    assert code == 0
    return out.getvalue()


def test_pressure_text_says_the_estimate_is_incomplete_and_where(tmp_path: Path) -> None:
    text = _run(_shader(tmp_path), "text")
    main, clean = text.split("\nclean (")
    assert "estimate incomplete: 2 calls not resolved (`Surface::load`, `shadeFromHeader`)" in main
    assert "blind.hlsl:16: call not resolved: `Surface::load`" in main
    assert "blind.hlsl:12: attribute argument not evaluated: `numthreads(GROUP_X * GROUP_Y)`" in main
    assert "incomplete" not in clean


def test_pressure_json_carries_completeness_and_each_place(tmp_path: Path) -> None:
    main, clean = json.loads(_run(_shader(tmp_path), "json"))
    assert main["complete"] is False
    assert main["incomplete"].startswith("estimate incomplete: 2 calls not resolved")
    assert main["group_threads"] is None
    spots = [(b["kind"], b["name"], b["row"]) for b in main["blind_spots"]]
    assert spots == [
        ("attribute", "numthreads(GROUP_X * GROUP_Y)", 12),
        ("call", "Surface::load", 16),
        ("call", "shadeFromHeader", 17),
        ("intrinsic", "Texture2D::Foo", 18),
    ]
    assert main["blind_spots"][0]["filename"].endswith("blind.hlsl")
    assert clean["complete"] is True and clean["incomplete"] is None and clean["blind_spots"] == []


def test_pressure_html_page_shows_the_incomplete_estimate(tmp_path: Path) -> None:
    page = _run(_shader(tmp_path), "html")
    assert 'id="incomplete"' in page and "drawIncomplete" in page
    unit = analyse_file(str(_shader(tmp_path)), Settings())
    main, clean = page_data([unit])["entries"]
    assert main["incomplete"].startswith("estimate incomplete: 2 calls not resolved")
    assert [b[:2] for b in main["blind"]][1] == ["call", "Surface::load"]
    assert clean["incomplete"] == "" and clean["blind"] == []


def test_editor_pressure_hover_and_request_say_the_estimate_is_incomplete(tmp_path: Path) -> None:
    path = str(_shader(tmp_path))
    settings = Settings()
    resolver = ConfigResolver()
    view = build_pressure_view(path, unit_context(path, BLIND, settings, resolver), settings)
    assert view is not None
    main, clean = view.entries
    assert "estimate incomplete: 2 calls not resolved (`Surface::load`" in main.summary
    assert main.figures["complete"] is False
    assert "incomplete" not in clean.summary and clean.figures["complete"] is True
    hover = view.hover(path, 19)  # `gOut[id.xy] = s.acc + x;`
    assert hover is not None and "estimate incomplete" in hover


HEAVY = VgprOccupancy.bad_example.replace("+ s + t;", "+ s + t@EXTRA@;")
"""HL201's own bad example (it fires), with a place to add an unresolved call."""


def test_register_rules_claim_no_occupancy_on_an_incomplete_estimate() -> None:
    assert "@EXTRA@" in HEAVY, "HL201's bad example no longer ends as this test expects"
    seen = lint_text(HEAVY.replace("@EXTRA@", ""), select=("HL201",))
    assert [d.code for d in seen] == ["HL201"]
    blind = lint_text(HEAVY.replace("@EXTRA@", " + fromMissingHeader(i)"), select=("HL2",))
    assert blind == []


def test_lds_occupancy_is_not_claimed_for_a_group_size_not_evaluated() -> None:
    shader = (
        "groupshared float4 tile[1536];\nRWStructuredBuffer<float4> output;\n"
        "[numthreads(@SIZE@, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex, uint3 id : SV_DispatchThreadID)\n"
        "{ tile[gi] = output[id.x]; GroupMemoryBarrierWithGroupSync();\n"
        "  output[id.x] = tile[(gi + 1) % 1536]; }\n"
    )
    assert [d.code for d in lint_text(shader.replace("@SIZE@", "256"), select=("HL202",))] == ["HL202"]
    assert lint_text(shader.replace("@SIZE@", "GROUP_SIZE"), select=("HL2",)) == []


def test_rule_metadata_documents_the_policy() -> None:
    from hlsllint.registry import find_rule

    for code in ("HL201", "HL202", "HL203", "HL204"):
        rule = find_rule(code)
        assert rule is not None
        assert "estimate is incomplete" in rule.rationale, code


def test_casts_read_as_calls_stream_methods_and_static_asserts_are_named_fairly() -> None:
    model = _model(
        "struct GSOut { float4 p : SV_Position; };\n"
        "[maxvertexcount(3)]\n"
        "void gs(point float4 v[1] : POSITION, inout TriangleStream<GSOut> outStream) {\n"
        '  _Static_assert(1, "x");\n'
        "  GSOut o; o.p = v[0] * (float)(v[0].x + 1);\n"
        "  outStream.Append(o); outStream.RestartStrip();\n"
        "}\n"
    )
    found = blind_spots(model, model.entry_points[0])
    assert found.complete  # a stream output's methods are modelled (an export, no value)


RAY_QUERY = """\
RaytracingAccelerationStructure scene;
ByteAddressBuffer raw;
RWByteAddressBuffer rw;
[[vk::input_attachment_index(0)]] SubpassInput<float4> previous;
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    RayQuery<RAY_FLAG_CULL_NON_OPAQUE> q;
    RayDesc ray; ray.Origin = float3(id); ray.Direction = float3(0, 0, 1); ray.TMin = 0; ray.TMax = 1e9;
    q.TraceRayInline(scene, RAY_FLAG_NONE, 0xff, ray);
    while (q.Proceed())
        if (q.CandidateType() == CANDIDATE_NON_OPAQUE_TRIANGLE) q.CommitNonOpaqueTriangleHit();
    float t = q.CommittedStatus() == COMMITTED_TRIANGLE_HIT ? q.CommittedRayT() : -1;
    float2 bary = q.CommittedTriangleBarycentrics();
    float3 n = raw.Load<float3>(id.x * 12);
    rw.Store<float3>(id.x * 12, n * t + bary.x + q.CommittedInstanceID());
    Barrier(GROUP_SHARED_MEMORY, GROUP_SYNC);
    rw.Store(0, dot4add_u8packed(id.x, id.y, 0) + (CheckAccessFullyMapped(id.z) ? 1 : 0));
}
float4 ps(float4 p : SV_Position) : SV_Target { return previous.SubpassLoad() * 2; }
"""


def test_ray_queries_templated_raw_loads_and_newer_intrinsics_are_seen() -> None:
    # RayQuery's methods, `Load<T>`/`Store<T>` of raw buffers, a subpass input's load and the
    # SM 6.x intrinsics (`Barrier`, `dot4add_u8packed`, `CheckAccessFullyMapped`) are modelled,
    # with their result types: the estimate is complete
    model = _model(RAY_QUERY)
    main, ps = model.entry_points
    assert blind_spots(model, main).summary() == ""
    assert blind_spots(model, ps).summary() == ""
    calls = {model.tree.node_text(n): n for n in model.tree.walk() if n.type == "call_expression"}
    assert model.type_of(calls["q.CommittedRayT()"]).name == "float"
    assert model.type_of(calls["q.CommittedTriangleBarycentrics()"]).name == "float2"
    assert model.type_of(calls["q.Proceed()"]).name == "bool"
    assert model.type_of(calls["raw.Load<float3>(id.x * 12)"]).name == "float3"
    assert model.type_of(calls["previous.SubpassLoad()"]).name == "float4"
    # a method of an object whose type the unit does not declare is still named
    other = _model(
        "RWBuffer<float> o;\n[numthreads(64, 1, 1)] void m(uint i : SV_DispatchThreadID)"
        " { o[i] = fromHeader.Proceed(); }\n"
    )
    assert blind_spots(other, other.entry_points[0]).names("intrinsic") == ["fromHeader.Proceed"]


def test_a_subpass_input_without_element_type_loads_float4() -> None:
    # `SubpassInput` with no template argument is `SubpassInput<float4>` (Vulkan-Samples writes it
    # that way): its load is seen, with a float4 result, not an unknown intrinsic
    model = _model(
        "[[vk::input_attachment_index(0)]] SubpassInput color;\n"
        "[[vk::input_attachment_index(1)]] SubpassInputMS depth;\n"
        "float4 main() : SV_Target { return color.SubpassLoad() + depth.SubpassLoad(0).x; }\n"
    )
    (entry,) = model.entry_points
    assert blind_spots(model, entry).summary() == ""
    calls = {model.tree.node_text(n): n for n in model.tree.walk() if n.type == "call_expression"}
    assert model.type_of(calls["color.SubpassLoad()"]).name == "float4"
    assert model.type_of(calls["depth.SubpassLoad(0)"]).name == "float4"


def test_d3d9_sampler_functions_are_texture_samples() -> None:
    # `tex2D(s, uv)`, `tex2Dlod(s, float4(uv, 0, mip))`, ... of D3D9-style shaders (glslang's tests
    # read them) are samples returning float4, not unknown intrinsics
    model = _model(
        "sampler2D s2; samplerCUBE sc;\n"
        "float4 main(float2 uv : TEXCOORD0) : COLOR0 {\n"
        "    return tex2D(s2, uv) + tex2Dlod(s2, float4(uv, 0, 1))\n"
        "        + texCUBE(sc, uv.xyx) + tex2Dbias(s2, uv.xyxy);\n"
        "}\n"
    )
    (entry,) = model.entry_points
    assert blind_spots(model, entry).summary() == ""
    calls = {model.tree.node_text(n): n for n in model.tree.walk() if n.type == "call_expression"}
    assert model.type_of(calls["tex2D(s2, uv)"]).name == "float4"
    assert model.type_of(calls["texCUBE(sc, uv.xyx)"]).name == "float4"
    cfg = build_cfg(model, entry)
    samples = [i.detail.get("method") for b in cfg.graph.nodes for i in cfg.instrs(b) if i.op == "sample"]
    assert sorted(samples) == ["tex2D", "tex2Dbias", "tex2Dlod", "texCUBE"]


def test_a_compute_entry_whose_numthreads_was_not_read_is_blind() -> None:
    # DXC requires [numthreads] on a compute shader: the front end missed it (an unknown macro
    # line before it, as FlaxEngine's `META_CS(true, AUTO)`), so the group size is unknown
    model = _model("RWBuffer<float> o;\nvoid CS_Main(uint i : SV_DispatchThreadID) { o[i] = i; }\n")
    (entry,) = model.entry_points
    assert entry.stage == "compute" and entry.group_size is None
    assert blind_spots(model, entry).names("attribute") == ["numthreads (not read)"]
    good = _model(
        "RWBuffer<float> o;\n[numthreads(64, 1, 1)] void m(uint i : SV_DispatchThreadID) { o[i] = i; }\n"
    )
    assert blind_spots(good, good.entry_points[0]).complete


def test_a_group_size_of_scoped_constants_or_after_a_macro_line_is_seen() -> None:
    # `[numthreads(Ns::X, Struct::kSize / 2, 1)]`, and an attribute followed by a macro a
    # header not found would define (`FFX_..._EMBED_ROOTSIG_CONTENT`): the estimate is complete
    # once they evaluate; an argument naming nothing the unit declares still says so
    text = (
        "namespace Ns { static const uint X = 8; }\n"
        "struct Tile { static const uint kSize = 16; };\n"
        "RWBuffer<float> o;\n"
        "[numthreads(Ns::X, Tile::kSize / 2, 1)]\nEMBED_ROOTSIG_CONTENT\n"
        "void a(uint3 id : SV_DispatchThreadID) { o[id.x] = 1; }\n"
        "[numthreads(Ns::Y, 1, 1)]\nvoid b(uint3 id : SV_DispatchThreadID) { o[id.x] = 1; }\n"
    )
    model = _model(text)
    a, b = model.entry_points
    assert a.threads_per_group == 64 and blind_spots(model, a).summary() == ""
    assert blind_spots(model, b).summary() == (
        "estimate incomplete: 1 attribute argument not evaluated (`numthreads(Ns::Y)`)"
    )


def test_newer_resource_methods_are_seen() -> None:
    # SM 6.6-6.7: GatherRaw, 64-bit and float atomics; sampler feedback (a store)
    model = _model(
        "Texture2D<uint> t; SamplerState s; RWByteAddressBuffer b;\n"
        "FeedbackTexture2D<SAMPLER_FEEDBACK_MIN_MIP> fb; Texture2D<float4> c;\n"
        "[numthreads(64, 1, 1)] void m(uint3 id : SV_DispatchThreadID) {\n"
        "  uint4 g = t.GatherRaw(s, float2(id.xy));\n"
        "  uint64_t old; b.InterlockedAdd64(0, g.x, old);\n"
        "  b.InterlockedCompareExchange64(8, 0, g.y, old);\n"
        "  fb.WriteSamplerFeedback(c, s, float2(id.xy));\n"
        "  b.Store(16, (uint)old);\n"
        "}\n"
    )
    assert blind_spots(model, model.entry_points[0]).summary() == ""


WORK_GRAPH = """\
struct Launch { uint2 grid : SV_DispatchGrid; float4 color; uint count; };
struct Item { float3 pos; uint id; };
RWBuffer<float4> o;
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(64, 1, 1)] [NumThreads(64, 1, 1)]
void broadcast(DispatchNodeInputRecord<Launch> input, uint tid : SV_DispatchThreadID,
               [MaxRecords(64)] NodeOutput<Item> child, [MaxRecords(4)] EmptyNodeOutput done,
               [MaxRecords(2)] NodeOutputArray<Item> many)
{
    ThreadNodeOutputRecords<Item> rec = child.GetThreadNodeOutputRecords(1);
    rec.Get().pos = input.Get().color.xyz * tid;
    rec.OutputComplete();
    GroupNodeOutputRecords<Item> g = many[1].GetGroupNodeOutputRecords(2);
    g[0].id = input.Get().count;
    g.Get(1).pos = float3(1, 2, 3);
    g.OutputComplete();
    if (done.IsValid()) done.GroupIncrementOutputCount(1);
    o[tid] = input.Get().color + GetGroupWaveIndex();
}
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(32, 1, 1)]
void coalesce([MaxRecords(8)] GroupNodeInputRecords<Item> inputs, uint i : SV_GroupIndex)
{
    if (i < inputs.Count()) o[i] = float4(inputs[i].pos + inputs.Get(0).pos, 1);
}
[Shader("node")] [NodeLaunch("thread")]
void thread(RWThreadNodeInputRecord<Item> r)
{
    r.Get().id += 1;
    o[r.Get().id] = float4(r.Get().pos, 1);
}
"""


def _instrs(model, entry: str, op: str):  # type: ignore[no-untyped-def]
    cfg = analyze(model).entry(entry).cfg  # type: ignore[union-attr]
    return cfg, [i for i in cfg.all_instrs() if i.op == op and i.detail.get("method") == "Get"]


def test_work_graph_records_are_loads_and_stores_uniform_as_their_launch() -> None:
    # SM 6.8 work graphs: a record read (`input.Get().color`, `inputs[i]`) is a load of the
    # members used, a write into an output record a store; the output objects' methods have
    # their result types; broadcasting and coalescing inputs are the group's, a thread's own
    model = _model(WORK_GRAPH)
    for e in model.entry_points:
        assert blind_spots(model, e).summary() == "", e.name
    calls = {
        model.tree.node_text(n): n
        for n in model.tree.walk()
        if n.type in ("call_expression", "subscript_expression")
    }
    assert model.type_of(calls["input.Get()"]).name == "Launch"
    assert model.type_of(calls["child.GetThreadNodeOutputRecords(1)"]).name == "ThreadNodeOutputRecords<Item>"
    assert model.type_of(calls["many[1]"]).name == "NodeOutput<Item>"
    assert model.type_of(calls["g[0]"]).name == "Item"
    assert model.type_of(calls["inputs.Count()"]).name == "uint"
    assert model.type_of(calls["done.IsValid()"]).name == "bool"
    cfg, loads = _instrs(model, "broadcast", "load")
    u = uniformity(cfg, "value")
    assert loads and all(u.is_uniform_instr(i) for i in loads)  # the dispatch's one record
    _cfg, stores = _instrs(model, "broadcast", "store")
    assert len(stores) == 3  # rec.Get().pos, g[0].id, g.Get(1).pos
    cfg, loads = _instrs(model, "coalesce", "load")
    u = uniformity(cfg, "value")
    by_text = {model.tree.text[i.span[0] : i.span[1]] for i in loads if not u.is_uniform_instr(i)}
    assert by_text == {"inputs[i]"}  # `inputs.Get(0)` is the group's
    cfg, loads = _instrs(model, "thread", "load")
    u = uniformity(cfg, "value")
    assert loads and not any(u.is_uniform_instr(i) for i in loads)
    assert len(_instrs(model, "thread", "store")[1]) == 1  # `r.Get().id += 1`


SER = """\
RaytracingAccelerationStructure scene;
RWTexture2D<float4> o;
struct Payload { float4 color; };
struct Attribs { float2 bary; };
[shader("raygeneration")]
void rg()
{
    RayDesc ray; ray.Origin = float3(DispatchRaysIndex()); ray.Direction = float3(0, 0, 1);
    ray.TMin = 0; ray.TMax = 1e9;
    Payload p = (Payload)0;
    dx::HitObject hit = dx::HitObject::TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    dx::MaybeReorderThread(hit);
    dx::HitObject miss = dx::HitObject::MakeMiss(RAY_FLAG_NONE, 0, ray);
    float t = hit.IsHit() ? hit.GetRayTCurrent() : 0;
    Attribs a = hit.GetAttributes<Attribs>();
    dx::HitObject::Invoke(hit, p);
    o[DispatchRaysIndex().xy] = p.color * t + a.bary.x + hit.GetWorldRayOrigin().x + miss.GetInstanceIndex();
}
"""


def test_shader_execution_reordering_is_seen_with_its_result_types() -> None:
    # SM 6.9 SER: `dx::HitObject`'s factories, methods and `dx::MaybeReorderThread`
    model = _model(SER)
    assert blind_spots(model, model.entry_points[0]).summary() == ""
    calls = {model.tree.node_text(n): n for n in model.tree.walk() if n.type == "call_expression"}
    assert model.type_of(calls["dx::HitObject::MakeMiss(RAY_FLAG_NONE, 0, ray)"]).name == "dx::HitObject"
    assert model.type_of(calls["hit.IsHit()"]).name == "bool"
    assert model.type_of(calls["hit.GetRayTCurrent()"]).name == "float"
    assert model.type_of(calls["hit.GetAttributes<Attribs>()"]).name == "Attribs"
    assert model.type_of(calls["hit.GetWorldRayOrigin()"]).name == "float3"


NEWEST = """\
RWStructuredBuffer<float4> o;
RWByteAddressBuffer raw;
groupshared float shared[64];
using Mat = __builtin_LinAlgMatrix [[__LinAlgMatrix_Attributes(9, 4, 4, 0, 1)]];
struct S { float4 v; };
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    uint wave = GetGroupWaveIndex() + GetGroupWaveCount();
    half h = asfloat16(uint16_t(i));
    int16_t4 bytes = unpack_s8s16(pack_u8(uint4(i, 1, 2, 3)));
    bool3 n = isnormal(float3(i, 0, 1));
    vector<float, 8> wide = vector<float, 8>(1, 2, 3, 4, 5, 6, 7, i);
    Mat m;
    __builtin_LinAlg_FillMatrix(m, 1.0);
    __builtin_LinAlg_MatrixLoadFromDescriptor(m, raw, 0, 16, 0, 256);
    float e;
    __builtin_LinAlg_MatrixGetElement(e, m, 0);
    __builtin_LinAlg_MatrixStoreToMemory(m, shared, 0, 4, 0);
    uint len = __builtin_LinAlg_MatrixLength(m);
    uint2 at = __builtin_LinAlg_MatrixGetCoordinate(m, 1);
    vk::BufferPointer<S> p = vk::RawBufferLoad<vk::BufferPointer<S> >(raw.Load2(0));
    p.Get().v.x = e;
    o[i] = float4(wave, h, bytes.x + n.x + at.y, wide[7] + len) + p.Get().v;
}
"""


def test_newest_intrinsics_linear_algebra_and_long_vectors_are_seen() -> None:
    # SM 6.8-6.9 intrinsics, the cooperative-matrix builtins (their first argument is their
    # result), `vector<T, N>(...)` constructors of long vectors and SPIR-V buffer pointers
    model = _model(NEWEST)
    assert blind_spots(model, model.entry_points[0]).summary() == ""
    calls = {model.tree.node_text(n): n for n in model.tree.walk() if n.type == "call_expression"}
    assert model.type_of(calls["asfloat16(uint16_t(i))"]).name == "half"
    assert model.type_of(calls["unpack_s8s16(pack_u8(uint4(i, 1, 2, 3)))"]).name == "int16_t4"
    assert model.type_of(calls["isnormal(float3(i, 0, 1))"]).name == "bool3"
    wide = model.type_of(calls["vector<float, 8>(1, 2, 3, 4, 5, 6, 7, i)"])
    assert (wide.kind, wide.count) == ("vector", 8)
    assert model.type_of(calls["__builtin_LinAlg_MatrixGetCoordinate(m, 1)"]).name == "uint2"
    assert model.type_of(calls["p.Get()"]).name == "S"
    cfg = analyze(model).entry("main").cfg  # type: ignore[union-attr]
    u = uniformity(cfg, "value")
    wave = next(i for i in cfg.all_instrs() if i.detail.get("name") == "GetGroupWaveIndex")
    assert u.is_uniform_instr(wave)  # the wave's index in its group: the same in every lane
    stores = [i for i in cfg.all_instrs() if i.op == "store" and i.detail.get("method") == "Get"]
    assert len(stores) == 1  # `p.Get().v.x = e` writes memory


def test_exported_library_functions_are_resolved_and_inlined() -> None:
    # `export` (a DXIL library's exported function, `[noinline] export void f()` too) is a
    # function definition like any other: calls of it resolve and its body is costed
    model = _model(
        "RWBuffer<float> o;\n"
        "export float scale(float x) { return x * 3; }\n"
        "[noinline] export void store(uint i) { o[i] = scale(i); }\n"
        "[numthreads(64, 1, 1)] void main(uint i : SV_DispatchThreadID) { store(i); }\n"
    )
    (entry,) = model.entry_points
    assert entry.name == "main"
    assert blind_spots(model, entry).summary() == ""
    calls = {model.tree.node_text(n): n for n in model.tree.walk() if n.type == "call_expression"}
    assert model.type_of(calls["scale(i)"]).name == "float"


def test_clustered_geometry_intrinsics_are_seen() -> None:
    # SM 6.10: `ClusterID()`, `TriangleObjectPositions()` and their ray-query forms
    model = _model(
        "RWBuffer<float> o;\n"
        '[shader("closesthit")] void hit(inout float4 p, BuiltInTriangleIntersectionAttributes a) {\n'
        "  BuiltInTrianglePositions t = TriangleObjectPositions();\n"
        "  p = float4(t.p0 + t.p2, ClusterID());\n"
        "}\n"
    )
    assert blind_spots(model, model.entry_points[0]).summary() == ""
    calls = {model.tree.node_text(n): n for n in model.tree.walk() if n.type == "call_expression"}
    assert model.type_of(calls["TriangleObjectPositions()"]).name == "BuiltInTrianglePositions"


def test_a_template_returning_its_parameter_type_has_the_argument_type() -> None:
    # `template<typename T> T wrapper(T t)`: DXC deduces T from the argument, so a method of
    # the result (`wrapper(input).Get()`) is the argument type's method
    model = _model(
        "struct Item { float3 pos; };\nRWBuffer<float> o;\n"
        "template<typename T> T wrapper(T t) { return t; }\n"
        '[Shader("node")] [NodeLaunch("thread")]\n'
        "void n(ThreadNodeInputRecord<Item> input) { o[0] = wrapper(input).Get().pos.x + wrapper(2.0); }\n"
    )
    assert blind_spots(model, model.entry_points[0]).summary() == ""
    calls = {model.tree.node_text(n): n for n in model.tree.walk() if n.type == "call_expression"}
    assert model.type_of(calls["wrapper(input)"]).name == "ThreadNodeInputRecord<Item>"
    assert model.type_of(calls["wrapper(2.0)"]).name == "float"
