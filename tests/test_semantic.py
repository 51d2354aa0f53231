"""The semantic model: declarations, types, entry points, scopes and expression types."""

from __future__ import annotations

from hlsllint.context import AnalysisSettings
from hlsllint.semantic import Model, build_model
from hlsllint.semantic.types import parse_numeric, resource_of
from hlsllint.syntax import Node, parse

SHADER = """
cbuffer Frame : register(b0) { float4x4 viewProj; float time; };
struct VSOut { float4 pos : SV_Position; float2 uv : TEXCOORD0; };
typedef float3 Color;
Texture2D<float4> albedo : register(t0);
Buffer<float4> lights;
ByteAddressBuffer raw;
StructuredBuffer<VSOut> verts;
SamplerState samp;
groupshared float tile[64];
static const uint COUNT = 4 * 2;

float helper(in float x, out float y, inout float3 z) { y = x; z = z * 2; return x; }

[numthreads(8, COUNT, 1)]
void cs(uint3 id : SV_DispatchThreadID) {
    float a = id.x;
    { float a = 2.0; tile[0] = a; }
    tile[1] = a;
}

VSOut vs(uint vid : SV_VertexID) {
    VSOut o;
    o.pos = mul(float4(vid, 0, 0, 1), viewProj);
    o.uv = o.pos.xy;
    return o;
}

float4 ps(VSOut i) : SV_Target {
    Color c = albedo.Sample(samp, i.uv).rgb;
    uint4 r = raw.Load4(0);
    return float4(c * time, lights[r.x].w);
}
"""


def model(text: str, **settings: object) -> Model:
    return build_model(parse(text), AnalysisSettings(**settings))  # type: ignore[arg-type]


def find(m: Model, text: str, kind: str | None = None) -> Node:
    """The first node whose text is `text` (and type `kind`)."""
    for n in m.tree.walk():
        if m.tree.node_text(n) == text and (kind is None or n.type == kind):
            return n
    raise AssertionError(f"no node {text!r}")


def test_type_sizes() -> None:
    assert parse_numeric("float4x3").components() == 12  # type: ignore[union-attr]
    assert parse_numeric("half3").components() == 3  # type: ignore[union-attr]
    assert parse_numeric("half3").components(sixteen_bit=True) == 2  # type: ignore[union-attr]
    assert parse_numeric("double2").components() == 4  # type: ignore[union-attr]
    assert parse_numeric("bool").components() == 1  # type: ignore[union-attr]
    assert parse_numeric("floaty") is None


def test_resource_classification() -> None:
    assert resource_of("Texture2D").typed and resource_of("Texture2D").descriptor_sgprs == 8  # type: ignore[union-attr]
    assert resource_of("Buffer").typed and resource_of("Buffer").descriptor_sgprs == 4  # type: ignore[union-attr]
    assert not resource_of("ByteAddressBuffer").typed  # type: ignore[union-attr]
    assert resource_of("RWStructuredBuffer").writable  # type: ignore[union-attr]
    assert resource_of("float4") is None


def test_declarations() -> None:
    m = model(SHADER)
    assert [x.name for x in m.structs["VSOut"].members] == ["pos", "uv"]
    assert m.structs["VSOut"].members[0].semantic == "SV_Position"
    assert m.structs["VSOut"].components() == 6
    assert m.typedefs["Color"].name == "float3"
    frame = next(c for c in m.cbuffers if c.name == "Frame")
    assert [s.name for s in frame.members] == ["viewProj", "time"]
    assert frame.register == "b0"
    assert m.globals["viewProj"].kind == "cbuffer_member"
    assert m.globals["albedo"].kind == "resource" and m.globals["albedo"].register == "t0"
    assert m.globals["albedo"].type.element is not None
    assert m.globals["tile"].kind == "groupshared" and m.groupshared_bytes == 256
    assert m.globals["COUNT"].kind == "static_const"
    assert m.const_value(m.globals["COUNT"].init) == 8


def test_functions_and_entry_points() -> None:
    m = model(SHADER)
    helper = m.function("helper")
    assert helper is not None
    assert [p.direction for p in helper.params] == ["in", "out", "inout"]
    stages = {e.name: (e.stage, e.group_size) for e in m.entry_points}
    assert stages == {"cs": ("compute", (8, 8, 1)), "vs": ("vertex", None), "ps": ("pixel", None)}
    cs = m.function("cs")
    assert cs is not None and cs.params[0].semantic == "SV_DispatchThreadID"
    ps = m.function("ps")
    assert ps is not None and ps.return_semantic == "SV_Target"


def test_scopes() -> None:
    m = model(SHADER)
    uses = [n for n in m.tree.walk() if n.type == "identifier" and m.tree.node_text(n) == "a"]
    syms = [m.resolve(n) for n in uses]
    # declaration a, shadowing a, use of inner a, use of outer a
    assert syms[0] is not None and syms[0] is syms[3]
    assert syms[1] is syms[2] and syms[1] is not syms[0]
    assert syms[0].kind == "local"


def test_expression_types() -> None:
    m = model(SHADER)
    assert str(m.type_of(find(m, "albedo.Sample(samp, i.uv)"))) == "float4"
    assert str(m.type_of(find(m, "albedo.Sample(samp, i.uv).rgb"))) == "float3"
    assert str(m.type_of(find(m, "raw.Load4(0)"))) == "uint4"
    assert str(m.type_of(find(m, "lights[r.x]"))) == "float4"
    assert str(m.type_of(find(m, "mul(float4(vid, 0, 0, 1), viewProj)"))) == "float4"
    assert str(m.type_of(find(m, "c * time"))) == "float3"
    assert str(m.type_of(find(m, "o.pos.xy"))) == "float2"
    assert str(m.type_of(find(m, "id.x", "field_expression"))) == "uint"


def test_shader_attribute_stage() -> None:
    m = model('[shader("raygeneration")] void rg() {}\nvoid unused() {}')
    assert [(e.name, e.stage) for e in m.entry_points] == [("rg", "raygeneration")]


def test_broken_source_does_not_crash() -> None:
    m = model("float4 main( : SV_Target { return foo(; } struct { int")
    assert isinstance(m.entry_points, list)
    m = model("void f() { g(); } void g() { f(); }")
    assert m.entry_points == []


def test_namespace_qualified_constants_are_constant() -> None:
    m = model(
        "namespace Outer { namespace Group { static const uint PerThread = 10; } }\n"
        "namespace Kernel { static const int Width = 3; }\n"
        "uint dynamicCount;\n"
        "void f() { uint a = Outer::Group::PerThread; int b = Kernel::Width; uint c = dynamicCount; }\n"
    )
    values = {}
    for decl in m.tree.nodes_of_type("init_declarator"):
        value = decl.child_by_field_name("value")
        if value is not None and value.type != "number_literal":
            values[m.tree.node_text(value)] = m.const_value(value)
    assert values == {"Outer::Group::PerThread": 10, "Kernel::Width": 3, "dynamicCount": None}


def test_local_array_sizes_and_initialisers_resolve() -> None:
    """Resolving a body looks inside a local declaration only for its initialisers and the sizes
    of its array declarators: both resolve, with the declaration's own names already declared."""
    m = model(
        "static const int N = 2;\n"
        "void f(int k) {\n"
        "    const int M = 3;\n"
        "    float a[M] = { k, k, k };\n"
        "    float b[N], c = b[k];\n"
        "    int d = M + k, e[d];\n"
        "}\n"
    )
    ids = [n for n in m.tree.walk() if n.type == "identifier"]

    def sym(name: str, nth: int) -> object:
        found = [n for n in ids if m.tree.node_text(n) == name]
        return m.resolve(found[nth])

    local_m, param_k, glob_n = sym("M", 0), sym("k", 0), m.globals["N"]
    assert sym("M", 1) is local_m and sym("M", 2) is local_m  # a[M], d = M + k
    assert [sym("k", i) for i in range(1, 6)] == [param_k] * 5
    assert sym("N", 1) is glob_n  # b[N]
    assert sym("b", 1) is sym("b", 0) and sym("d", 1) is sym("d", 0)  # c = b[k], e[d]
    assert str(m.resolve(find(m, "b", "identifier")).type) == "float[2]"  # type: ignore[union-attr]


def test_const_value_folds_locals_set_once_and_function_style_casts() -> None:
    """`int k = 2;` never written again is the constant 2, as the compiler folds it; a local
    written later, passed to a user function or a method, or an out argument of an intrinsic is
    not. `int(N) / 2` of a static const folds like `(int)N / 2`."""
    m = model(
        """\
static const float N = 9.0;
void bump(inout int v) { v += 1; }
void f(float x)
{
    int k = 2;
    int a = 1; a++;
    int b = 1; bump(b);
    float c = 1; float s; sincos(x, s, c);
    uint w = 4, h = 4;
    Texture2D<float> t;
    t.GetDimensions(w, h);
    int r = int(N) / 2;
    float use = k + a + b + c + w + r + s;
}
"""
    )
    values: dict[str, object] = {}
    for n in m.tree.walk(m.tree.root):
        if n.type == "identifier" and m.tree.node_text(n) in ("k", "a", "b", "c", "w", "r"):
            parent = n.parent
            if parent is not None and parent.type == "binary_expression":
                values[m.tree.node_text(n)] = m.const_value(n)
    assert values == {"k": 2, "a": None, "b": None, "c": None, "w": None, "r": 4}


SCOPED_GROUPS = """
namespace Kernel { static const uint Width = 8; }
struct Tile { static const uint kSize = 16; float4 value; uint size() { return kSize; } };
struct Pass { struct Group { static const uint Height = 4; }; };
static const uint A = 2, B = 3;
RWBuffer<float> o;
[numthreads(Kernel::Width, Tile::kSize / 4, A * B)]
void a(uint3 id : SV_DispatchThreadID) { Tile t; o[id.x] = Tile::kSize + t.size(); }
[numthreads(Pass::Group::Height, (1 + 1) * 2, uint(32) >> 4)]
void b(uint3 id : SV_DispatchThreadID) { o[id.x] = 1; }
[numthreads(16 / 2, (uint)Kernel::Width, A > B ? 1 : 2)]
void c(uint3 id : SV_DispatchThreadID) { o[id.x] = 1; }
"""


def test_numthreads_of_scoped_names_static_members_and_expressions() -> None:
    # as DXC evaluates them: a namespace's constant, a struct's static const member (of a
    # nested struct too), arithmetic, casts and `?:` of constants
    m = model(SCOPED_GROUPS)
    groups = {e.name: e.threads_per_group for e in m.entry_points}
    assert groups == {"a": 8 * 4 * 6, "b": 4 * 4 * 2, "c": 8 * 8 * 2}
    nt = m.entry("a").function.attribute("numthreads")  # type: ignore[union-attr]
    assert nt is not None and nt.args == (8, 4, 6)


def test_a_static_member_is_no_part_of_a_struct_value_and_folds_where_used() -> None:
    m = model(SCOPED_GROUPS)
    tile = m.structs["Tile"]
    assert [x.name for x in tile.members] == ["value"]
    assert tile.bytes(False) == 16
    a = m.entry("a")
    assert a is not None
    use = next(n for n in m.tree.walk(a.function.body) if n.type == "qualified_identifier")
    assert m.const_value(use) == 16 and m.type_of(use).name == "uint"
    size = m.functions["Tile::size"][0]
    ret = next(n for n in m.tree.walk(size.body) if n.type == "identifier")
    assert m.const_value(ret) == 16  # unqualified in the struct's own method


def test_an_attribute_argument_that_names_no_constant_stays_text() -> None:
    m = model("[numthreads(SIZE_FROM_A_HEADER, 2 * N, 1)] void a(uint3 id : SV_DispatchThreadID) {}")
    nt = m.entry("a").function.attribute("numthreads")  # type: ignore[union-attr]
    assert nt is not None and nt.args == ("SIZE_FROM_A_HEADER", "2 * N", 1)
    assert m.entry("a").threads_per_group is None  # type: ignore[union-attr]


FOLDED_INTRINSIC_GROUPS = """
static const uint InitialStep = 128;
static const int Lanes = clamp(96, 32, 64);
RWStructuredBuffer<float> o;
[numthreads(max(InitialStep, 32), 1, 1)] void a(uint i : SV_DispatchThreadID) { o[i] = 1; }
[numthreads(Lanes, abs(-2), min(4, 2))] void b(uint i : SV_DispatchThreadID) { o[i] = 2; }
"""


def test_numthreads_folds_min_max_abs_and_clamp_of_constants() -> None:
    # DiligentFX's RefineSampleLocations: `#define THREAD_GROUP_SIZE max(INITIAL_SAMPLE_STEP, 32)`,
    # expanded in `[numthreads]`. DXC folds the intrinsics (a: 128 threads; b: 64 x 2 x 2).
    m = model(FOLDED_INTRINSIC_GROUPS)
    assert {e.name: e.threads_per_group for e in m.entry_points} == {"a": 128, "b": 64 * 2 * 2}
    b = m.entry("b")
    assert b is not None and b.function.attribute("numthreads").args == (64, 2, 2)  # type: ignore[union-attr]
    half = m.const_text("max(0.25, 0.5) + clamp(-1, 0.0, 2)")
    assert half == 0.5 and isinstance(half, float)


def test_sqrt_and_rsqrt_of_constants_fold_to_floats() -> None:
    # NRD's Poisson table: `float3(-0.25 * sqrt(2.0), 0.25 * sqrt(2.0), 0.5)`; the compiler folds
    # the roots (a float even of an int); the root of a negative number is NaN, not folded.
    m = model("static const float k = -0.25 * sqrt(2.0);\nstatic const float r = rsqrt(4);\n")
    k, r = m.globals["k"], m.globals["r"]
    assert k.init is not None and m.const_value(k.init) == -0.25 * 2.0**0.5
    assert r.init is not None and m.const_value(r.init) == 0.5
    assert m.const_text("sqrt(-1.0)") is None and m.const_text("rsqrt(0.0)") is None
    assert m.const_text("sqrt(9) + 1") == 4.0


def test_a_user_function_named_like_an_intrinsic_is_not_folded() -> None:
    m = model("float max(float a, float b) { return a; }\nstatic const float k = max(1, 2);\n")
    k = m.globals["k"]
    assert k.init is not None and m.const_value(k.init) is None


def test_a_local_array_sized_by_an_earlier_local_constant() -> None:
    # The size is folded when the declaration is read: its names must be resolved by then, in
    # a walked body and in a replayed one (the second model replays the first's plan).
    text = "float f() { static const uint N = 3; const int M = N + 1; float a[N][M]; return a[0][0]; }"
    for _ in range(2):
        m = model(text)
        decl = next(n for n in m.tree.walk() if n.type == "identifier" and m.tree.node_text(n) == "a")
        sym = m.resolve(decl)
        assert sym is not None and str(sym.type) == "float[3][4]"
