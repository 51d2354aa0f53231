"""Regression tests for the parse + repair stage: one per HLSL construct the grammar misses."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator

import tree_sitter
import tree_sitter_hlsl

from hlsllint.semantic import build_model
from hlsllint.syntax import Node, SyntaxTree, language, parse
from hlsllint.syntax.grammar import _as_capsule


def clean(src: str) -> SyntaxTree:
    tree = parse(src)
    assert tree.unparsed == [], [tree.text[s:e] for s, e in tree.unparsed]
    return tree


def find(tree: SyntaxTree, type_: str, text: str | None = None) -> Node:
    for n in tree.walk():
        if n.type == type_ and (text is None or tree.node_text(n).startswith(text)):
            return n
    raise AssertionError(f"no {type_} node {text or ''}")


def nodes(tree: SyntaxTree, type_: str) -> list[Node]:
    return [n for n in tree.walk() if n.type == type_]


def test_the_grammar_loads_through_no_deprecated_api() -> None:
    """tree-sitter-hlsl 0.2 returns an int, which `tree_sitter.Language` warns about (and may
    stop taking): the grammar goes in as the capsule a newer binding would give."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = tree_sitter.Language(_as_capsule(tree_sitter_hlsl.language()))
    assert loaded == language()
    assert loaded.field_id_for_name("body") == language().field_id_for_name("body") is not None


def test_offsets_are_preserved() -> None:
    src = "cbuffer CB : register(b0) { float4 a : packoffset(c0); }\n[numthreads(1,1,1)] void f() {}"
    tree = clean(src)
    assert len(tree.normalized) == len(src)
    assert tree.node_text(find(tree, "field_identifier")) == "a"
    assert tree.node_text(find(tree, "type_identifier")) == "CB"


def test_cbuffer_with_register() -> None:
    tree = clean("cbuffer PerFrame : register(b1, space2) { float4x4 vp; float t; }\nfloat x;")
    block = find(tree, "struct_specifier")
    assert tree.block_kind(block) == "cbuffer"
    assert tree.node_text(block.child_by_field_name("name")) == "PerFrame"  # type: ignore[arg-type]
    reg = tree.register_of(block)
    assert reg is not None and (reg.slot, reg.space) == ("b1", "space2")
    members = [tree.node_text(n) for n in tree.walk(block) if n.type == "field_identifier"]
    assert members == ["vp", "t"]
    # The global after the cbuffer is still a declaration of its own.
    assert tree.node_text(find(tree, "declaration")) == "float x;"


def test_cbuffer_without_register_is_not_a_function() -> None:
    tree = clean("cbuffer CB { float4 a; };\ntbuffer TB { float b; }\n")
    assert nodes(tree, "function_definition") == []
    kinds = [tree.block_kind(n) for n in nodes(tree, "struct_specifier")]
    assert kinds == ["cbuffer", "tbuffer"]
    block = tree.block_of(nodes(tree, "struct_specifier")[1])
    assert block is not None and block.name == "TB" and block.synthetic_semicolon is not None


def test_packoffset() -> None:
    tree = clean("cbuffer CB { float4 a : packoffset(c0); float b : packoffset(c1.y); }")
    fields = nodes(tree, "field_declaration")
    assert [tree.packoffset_of(f).slot for f in fields] == ["c0", "c1.y"]  # type: ignore[union-attr]
    assert nodes(tree, "bitfield_clause") == []


def test_register_with_space_and_profile() -> None:
    tree = clean("Texture2D<float4> t : register(t0, space1);\nSamplerState s : register(ps_5_0, s3);")
    t_decl, s_decl = nodes(tree, "declaration")
    r = tree.register_of(t_decl)
    assert r is not None and (r.slot, r.space, r.profile) == ("t0", "space1", None)
    r = tree.register_of(s_decl)
    assert r is not None and (r.slot, r.profile) == ("s3", "ps_5_0")


def test_struct_member_semantic_is_not_a_bitfield() -> None:
    tree = clean("struct V { float4 p : SV_Position; float2 uv : TEXCOORD1; uint b : 4; };")
    f1, f2, f3 = nodes(tree, "field_declaration")
    sem = tree.semantic_of(f1)
    assert sem is not None and sem.name == "SV_Position"
    sem = tree.semantic_of(f2)
    assert sem is not None and (sem.base, sem.index) == ("TEXCOORD", 1)
    assert tree.semantic_of(f3) is None
    assert len(nodes(tree, "bitfield_clause")) == 1  # the real bitfield stays


def test_function_and_parameter_semantics() -> None:
    tree = clean("float4 main(float4 p : SV_Position, in float2 uv : TEXCOORD0) : SV_Target0 { return p; }")
    fn = find(tree, "function_definition")
    sem = tree.semantic_of(fn)
    assert sem is not None and sem.name == "SV_Target0"
    params = nodes(tree, "parameter_declaration")
    assert [tree.semantic_of(p).name for p in params] == ["SV_Position", "TEXCOORD0"]  # type: ignore[union-attr]
    assert nodes(tree, "semantics") == []


def test_global_semantic() -> None:
    tree = clean("float4 c : COLOR;")
    assert tree.semantic_of(find(tree, "declaration")).name == "COLOR"  # type: ignore[union-attr]


def test_ternary_and_case_colons_are_kept() -> None:
    tree = clean("int f(int x) { switch (x) { case A: x = B; break; default: x = 1; } return x ? a : b; }")
    assert tree.annotations.semantics == []
    assert len(nodes(tree, "conditional_expression")) == 1
    assert len(nodes(tree, "case_statement")) == 2


def test_stacked_attributes_on_function() -> None:
    tree = clean(
        "[RootSignature(RS)][numthreads(8, 4, 1)]\nvoid main() {}\n"
        '[shader("pixel")] float4 p() : SV_Target { return 0; }'
    )
    main, p = nodes(tree, "function_definition")
    attrs = tree.attributes_of(main)
    assert [a.name for a in attrs] == ["RootSignature", "numthreads"]
    assert attrs[1].args == ("8", "4", "1")
    shader = tree.attribute(p, "shader")
    assert shader is not None and shader.args == ('"pixel"',)
    assert nodes(tree, "hlsl_attribute") == []


def test_loop_attributes_on_statements() -> None:
    tree = clean(
        "void f() { [loop] while (x) { } [unroll] [loop] for (;;) {} [branch] switch (x) { }"
        " [loop] do { } while (x); [flatten] if (x) {} else [branch] if (y) {} }"
    )
    assert nodes(tree, "function_definition")[1:] == []
    w = find(tree, "while_statement")
    assert [a.name for a in tree.attributes_of(w)] == ["loop"]
    assert [a.name for a in tree.attributes_of(find(tree, "for_statement"))] == ["unroll", "loop"]
    assert [a.name for a in tree.attributes_of(find(tree, "switch_statement"))] == ["branch"]
    assert [a.name for a in tree.attributes_of(find(tree, "do_statement"))] == ["loop"]
    ifs = nodes(tree, "if_statement")
    assert [a.name for a in tree.attributes_of(ifs[0])] == ["flatten"]
    assert [a.name for a in tree.attributes_of(ifs[1])] == ["branch"]


def test_attribute_after_a_closing_parenthesis_still_applies() -> None:
    # `for (...) [unroll] for (...)`: after `)` the `[` could open a subscript, so the attribute
    # stays in the tree as an hlsl_attribute child; attributes_of still reports it.
    tree = parse("void f() { [unroll] for (int r = 0; r < 3; r++) [unroll] for (int c = 0; c < n; c++) { } }")
    outer, inner = nodes(tree, "for_statement")
    assert [a.name for a in tree.attributes_of(outer)] == ["unroll"]
    assert [a.name for a in tree.attributes_of(inner)] == ["unroll"]
    assert tree.attribute(inner, "loop") is None


def test_indexing_is_not_an_attribute() -> None:
    tree = clean("void f() { a[i][j] = b[0]; x = g()[1]; }")
    assert tree.annotations.attributes == []


def test_vulkan_double_bracket_attributes() -> None:
    tree = clean(
        "struct V { [[vk::location(0)]] float3 pos : POSITION0; };\n"
        "[[vk::binding(0, 1)]] Texture2D t : register(t0);"
    )
    field = find(tree, "field_declaration")
    assert [(a.name, a.args) for a in tree.attributes_of(field)] == [("vk::location", ("0",))]
    decl = find(tree, "declaration")
    attr = tree.attribute(decl, "vk::binding")
    assert attr is not None and attr.double and attr.args == ("0", "1")


def test_unorm_snorm_template_arguments() -> None:
    tree = clean("RWTexture2D<unorm float4> u;\nBuffer<snorm float> b;")
    descs = nodes(tree, "type_descriptor")
    assert [tree.modifiers_of(d) for d in descs] == [["unorm"], ["snorm"]]


def test_mesh_shader_qualifiers() -> None:
    tree = clean(
        '[outputtopology("triangle")] [numthreads(64, 1, 1)]\n'
        "void ms(out indices uint3 t[64], out vertices V v[64], out primitives P pr[64],"
        " in payload Pay p) {}"
    )
    params = nodes(tree, "parameter_declaration")
    assert [tree.modifiers_of(p) for p in params] == [
        ["out", "indices"],
        ["out", "vertices"],
        ["out", "primitives"],
        ["in", "payload"],
    ]
    assert tree.node_text(params[0].child_by_field_name("type")) == "uint3"  # type: ignore[arg-type]


def test_geometry_shader_primitive_qualifiers() -> None:
    for prim in ("point", "line", "triangle", "lineadj", "triangleadj"):
        tree = clean(f"[maxvertexcount(3)] void gs({prim} VS input[3], inout TriangleStream<GS> os) {{}}")
        first = nodes(tree, "parameter_declaration")[0]
        assert tree.modifiers_of(first) == [prim]
        assert tree.node_text(first.child_by_field_name("type")) == "VS"  # type: ignore[arg-type]


def test_keywords_used_as_names() -> None:
    tree = clean(
        "float sample = 1; float line = 2; float point = sample + line;\n"
        "float4 g(float4 v) { return v.sample; }"
    )
    names = [tree.node_text(n) for n in nodes(tree, "identifier")]
    assert names[:4] == ["sample", "line", "point", "sample"]
    assert tree.modifiers_of(nodes(tree, "declaration")[0]) == []


def test_interpolation_modifiers() -> None:
    tree = clean(
        "struct PS { centroid float4 a : A; linear noperspective float b : B; sample float c : C;"
        " nointerpolation uint d : D; };\nprecise float e; groupshared float g[64];"
    )
    fields = nodes(tree, "field_declaration")
    assert [tree.modifiers_of(f) for f in fields] == [
        ["centroid"],
        ["linear", "noperspective"],
        ["sample"],
        ["nointerpolation"],
    ]
    decls = [d for d in nodes(tree, "declaration")]
    assert [tree.modifiers_of(d) for d in decls] == [["precise"], ["groupshared"]]


def test_typedef_with_modifiers() -> None:
    tree = clean("typedef precise float pf;\ntypedef vector<float, 4> f4;\ntypedef const uint cu;")
    assert len(nodes(tree, "type_definition")) == 3


def test_special_float_literals() -> None:
    tree = clean("static const float Inf = 1.#INF; static const float N = -1.#QNAN;")
    lits = [tree.node_text(n) for n in nodes(tree, "number_literal")]
    assert lits == ["1.#INF", "-1.#QNAN"]


def test_in_out_inout_parameters() -> None:
    tree = clean("void f(inout float a, out float b, in float c, uniform float d) {}")
    mods = [tree.modifiers_of(p) for p in nodes(tree, "parameter_declaration")]
    assert mods == [["inout"], ["out"], ["in"], ["uniform"]]


def test_templates_and_sm6_functions() -> None:
    tree = clean(
        "Texture2D<float4> t; ConstantBuffer<CB> cb : register(b0); StructuredBuffer<S> sb;\n"
        "template<typename T> T twice(T x) { return x + x; }"
    )
    assert len(nodes(tree, "template_type")) == 3
    assert len(nodes(tree, "template_declaration")) == 1


def test_unparsed_regions_are_reported() -> None:
    tree = parse("void f() { int x = ; }\nfloat ok;")
    assert tree.unparsed
    s, e = tree.unparsed[0]
    assert e > s
    assert tree.in_unparsed(s, e)
    assert not tree.in_unparsed(len(tree.text) - 3, len(tree.text))


def test_non_ascii_text_keeps_offsets() -> None:
    src = "// héllo wörld\n[numthreads(1,1,1)] void main() { float é1 = 0; }"
    tree = clean(src)
    fn = find(tree, "function_definition")
    assert tree.node_text(fn).startswith("void main()")
    assert tree.attribute(fn, "numthreads") is not None


def test_unexpanded_qualifier_macros() -> None:
    tree = clean(
        "FFX_STATIC const FfxFloat32 K = 1.0f;\nFFX_GROUPSHARED FfxUInt32 counter;\n"
        "FFX_PREFER_WAVE64\n[numthreads(64, 1, 1)]\nvoid CS(FFX_PARAMETER_IN FfxInt32 i : SV_GroupIndex)"
        " { FFX_UNROLL for (int j = 0; j < 4; ++j) {} }\nMY_TYPE plain;"
    )
    k, counter, plain = nodes(tree, "declaration")[:2] + nodes(tree, "declaration")[-1:]
    assert tree.modifiers_of(k) == ["FFX_STATIC", "const"]
    assert tree.modifiers_of(counter) == ["FFX_GROUPSHARED"]
    assert tree.modifiers_of(plain) == []
    fn = find(tree, "function_definition")
    assert tree.attribute(fn, "numthreads") is not None
    param = find(tree, "parameter_declaration")
    assert tree.modifiers_of(param) == ["FFX_PARAMETER_IN"]
    assert tree.semantic_of(param).name == "SV_GroupIndex"  # type: ignore[union-attr]
    loop = find(tree, "for_statement")
    attr = tree.attributes_of(loop)[0]
    assert attr.name == "FFX_UNROLL" and attr.macro


def test_cbuffer_closing_brace_before_comment() -> None:
    tree = clean("cbuffer cb0 : register(b0)\r\n{\r\n    float2 d;\r\n}\r\n\r\n// The end\r\nfloat x;")
    block = tree.block_of(find(tree, "struct_specifier"))
    assert block is not None
    assert tree.text[block.synthetic_semicolon or 0] == "\r"
    assert tree.node_text(find(tree, "comment")).rstrip() == "// The end"


def test_attributes_on_parameters_and_structs() -> None:
    tree = clean(
        "struct [raypayload] Payload { float4 c : read(caller, closesthit) : write(miss); };\n"
        '[Shader("node")] [NodeLaunch("broadcasting")] [NumThreads(1, 1, 1)]\n'
        "void n([MaxRecords(4)] NodeOutput<R> o, [NodeArraySize(2)] NodeOutputArray<R> a) {}"
    )
    s = find(tree, "struct_specifier")
    assert [a.name for a in tree.attributes_of(s)] == ["raypayload"]
    field = find(tree, "field_declaration")
    assert [(r.kind, r.slot) for r in tree.bindings_of(field)] == [
        ("read", "caller,closesthit"),
        ("write", "miss"),
    ]
    p1, p2 = nodes(tree, "parameter_declaration")
    assert tree.attribute(p1, "MaxRecords").args == ("4",)  # type: ignore[union-attr]
    assert tree.attribute(p2, "NodeArraySize") is not None


def test_matrix_orientation_in_template_arguments() -> None:
    tree = clean("StructuredBuffer<row_major float4x4> m; row_major float3x3 r;")
    assert tree.modifiers_of(find(tree, "type_descriptor")) == ["row_major"]
    assert tree.modifiers_of(nodes(tree, "declaration")[1]) == ["row_major"]


def _reference_walk(node: Node) -> list[Node]:
    out = [node]
    for c in node.children:
        out += _reference_walk(c)
    return out


def test_walks_are_document_order_and_stay_inside_the_node() -> None:
    src = "struct S { float a; };\nfloat f(S s) { if (s.a > 0) { return s.a * 2; } return 1; }\nint y;"
    tree = parse(src)
    everything = _reference_walk(tree.root)
    assert [n.id for n in tree.nodes()] == [n.id for n in everything]
    assert tree.node_types() == [n.type for n in everything]
    body = find(tree, "compound_statement")
    inside = list(tree.walk(body))
    assert [n.id for n in inside] == [n.id for n in _reference_walk(body)]
    assert len(inside) == body.descendant_count
    assert not any(n.type == "primitive_type" and tree.node_text(n) == "int" for n in inside)


def test_nodes_of_type_in_document_order() -> None:
    tree = parse("float f() { float a = 1; if (a > 0) { a = 2; } return a; }")
    assert [tree.node_text(n) for n in tree.nodes_of_type("number_literal")] == ["1", "0", "2"]
    mixed = tree.nodes_of_type("return_statement", "if_statement")
    assert [n.type for n in mixed] == ["if_statement", "return_statement"]
    assert tree.nodes_of_type("no_such_type") == []


def test_spans_of_non_ascii_text_are_code_points() -> None:
    src = "// é ü\nfloat é_x; float b : TEXCOORD0;"
    tree = parse(src)
    assert not tree.ascii
    b = next(n for n in tree.nodes_of_type("identifier") if tree.node_text(n) == "b")
    start, end = tree.span(b)
    assert src[start:end] == "b" and start == src.index("b :")
    decl = next(n for n in tree.nodes_of_type("declaration") if tree.node_text(n).startswith("float b"))
    sem = tree.semantic_of(decl)
    assert sem is not None and sem.name == "TEXCOORD0"
    assert parse("float b : TEXCOORD0;").ascii


def test_cbuffer_scan_finds_what_the_pattern_finds() -> None:
    import importlib

    normalize_module = importlib.import_module("hlsllint.syntax.repair_passes")
    samples = [
        b"cbuffer A : register(b0) { float4 x; };",
        b"xcbuffer tbuffer B { }",
        b"ccbuffer cbuffer Z {}",
        b"cbuffercbuffer X",
        b"tbuffer\n\tT{} buffer y cbuffer",
        b"cbuffer",
        b"",
        b"RWBuffer<float> b; cbuffer  _c1 {}",
    ]
    for text in samples:
        buf = bytearray(text)
        expected = [(m.span(), m.groups()) for m in normalize_module._BUFFER.finditer(buf)]
        assert [(m.span(), m.groups()) for m in normalize_module._buffer_matches(buf)] == expected


def test_word_scans_find_what_the_patterns_find() -> None:
    """`_matches_at_words` gives what `finditer` gives for the modifier and effect patterns, also
    when each match's block is blanked while the scan goes on (as `_effects` blanks one)."""
    import importlib

    normalize_module = importlib.import_module("hlsllint.syntax.repair_passes")
    samples = [
        b"linear sample lineadj triangleadj xline line_ linecenter center lineadjx lineadj",
        b"sampler sample\tcentroid payload indices vertices primitives unorm float4 x; snorm",
        b"line",
        b"",
        b"technique T { pass P { SamplerState s { A = B; } } } SamplerState t { Filter = X; }",
        b"xSamplerState s {} SamplerState  s[2] {} = sampler_state{ } technique11 T < string a = 1; > { }",
        b"techniquex { } technique10{ } RasterizerState r {} BlendStateX b {} DepthStencilState d",
    ]

    def scan(
        matches: Iterator[re.Match[bytes]], buf: bytearray, blank: bool
    ) -> list[tuple[tuple[int, int], bytes]]:
        out = []
        for m in matches:
            out.append((m.span(), m.group()))
            if blank:  # blank up to the block's end, past the match
                close = buf.find(b"}", m.end())
                end = len(buf) if close < 0 else close + 1
                buf[m.start() : end] = b" " * (end - m.start())
        return out

    for pattern, words in (
        (normalize_module._MODIFIER, normalize_module._MODIFIER_WORDS),
        (normalize_module._EFFECT, normalize_module._EFFECT_WORDS),
    ):
        for text in samples:
            for blank in (False, True):
                old, new = bytearray(text), bytearray(text)
                expected = scan(pattern.finditer(old), old, blank)
                assert scan(normalize_module._matches_at_words(pattern, new, words), new, blank) == expected
                assert new == old


_THREADED_PARSES = """
import sys, threading
from hlsllint.syntax import parse

def shader(k):
    body = "\\n".join(f"    for (uint i{j} = 0; i{j} < n; ++i{j}) acc += T.SampleLevel(S, i{j} / 64.0, {k});"
                      for j in range(300))
    return f"float4 main{k}() : SV_Target {{\\n    float4 acc = 0;\\n{body}\\n    return acc;\\n}}\\n"

texts = [shader(k) for k in range(4)]
alone = [str(parse(t).root) for t in texts]
threaded = [None] * len(texts)

def work(k):
    for _ in range(3):
        threaded[k] = str(parse(texts[k]).root)

sys.setswitchinterval(1e-6)  # hand the interpreter over as often as possible
threads = [threading.Thread(target=work, args=(k,)) for k in range(len(texts))]
for t in threads: t.start()
for t in threads: t.join()
assert threaded == alone, "a tree parsed on a thread differs from the same text parsed alone"
print("ok")
"""


def test_parses_on_several_threads_at_once_are_each_right() -> None:
    """The language server parses documents on several threads. A parser's hooks run Python, so
    threads interleave mid-parse; with one parser shared between them the process died of
    SIGSEGV (run in a child process so that a crash is a failure, not a dead test run)."""
    import subprocess
    import sys

    run = [sys.executable, "-c", _THREADED_PARSES]
    done = subprocess.run(run, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.strip() == "ok"


def test_an_attribute_after_unexpanded_macro_lines_still_applies() -> None:
    # Engine headers not found leave macros in front of the entry's attributes or between them
    # and the function: `FFX_..._EMBED_ROOTSIG_CONTENT`, Flax's `META_CS(true, FEATURE_LEVEL_SM5)`.
    tree = parse(
        "[numthreads(8, 8, 1)]\nEMBED_ROOTSIG_CONTENT\nvoid a() {}\n"
        "META_CS(true, FEATURE_LEVEL_SM5)\nMETA_PERMUTATION_1(A=1)\n[numthreads(4, 4, 4)]\nvoid b() {}\n"
        "PREFER_WAVE64\n[numthreads(64, 1, 1)]\nvoid c() {}\n"
    )
    a, b, c = nodes(tree, "function_definition")
    for fn, args in ((a, ("8", "8", "1")), (b, ("4", "4", "4")), (c, ("64", "1", "1"))):
        nt = tree.attribute(fn, "numthreads")
        assert nt is not None and nt.args == args, tree.node_text(fn)


def test_a_call_of_a_lower_case_function_before_brackets_is_no_attribute() -> None:
    tree = parse("void f() { x = g(a)[1]; h(a); [unroll] for (;;) {} }")
    assert [a.name for a in tree.annotations.attributes] == ["unroll"]


EFFECT_FILE = """\
Texture2D tex;
texture diffuseTex;
SamplerState linearSampler { Filter = MIN_MAG_MIP_LINEAR; AddressU = Wrap; };
sampler2D diffuseSampler = sampler_state { Texture = <diffuseTex>; MinFilter = LINEAR; };
float4 PS(float2 uv : TEXCOORD0) : COLOR0 {
    return tex.Sample(linearSampler, uv) + tex2D(diffuseSampler, uv);
}
float4 VS(float4 p : POSITION) : POSITION { return p; }
technique T0 { pass P0 { VertexShader = compile vs_2_0 VS(); PixelShader = compile ps_2_0 PS(); } }
technique11 T1 < string name = "t"; > { pass P0 { SetPixelShader(CompileShader(ps_5_0, PS())); } };
"""


def test_effect_state_and_techniques_hold_no_code_and_are_read_as_such() -> None:
    # D3D9/D3D10 effect files: the grammar reads neither a technique block nor the body of a
    # state object (it made `linearSampler` a function); both hold no shader code
    tree = clean(EFFECT_FILE)
    functions = [
        tree.node_text(f.child_by_field_name("declarator")).partition("(")[0]
        for f in nodes(tree, "function_definition")
    ]  # type: ignore[arg-type]
    assert functions == ["PS", "VS"]
    declared = [tree.node_text(d).split()[1] for d in nodes(tree, "declaration")]
    assert declared == ["tex;", "diffuseTex;", "linearSampler", "diffuseSampler"]
    assert len(tree.annotations.effects) == 4
    model = build_model(tree)
    assert {e.name: e.stage for e in model.entry_points} == {"PS": "pixel", "VS": "vertex"}
    # a word `technique` or `SamplerState` used in code is left alone
    tree = clean(
        "float technique = 1;\nSamplerState s;\nfloat4 f(float x : X) : SV_Target { return technique * x; }\n"
    )
    assert tree.annotations.effects == []


def _shape(tree: SyntaxTree) -> list[tuple[str, int, int, bool]]:
    return [(n.type, n.start_byte, n.end_byte, n.is_missing) for n in tree.walk()]


def test_a_parse_from_the_last_tree_is_the_tree_a_fresh_parse_gives() -> None:
    """The editor parses each version of a unit from the tree of the one before (`previous`):
    only the changed range is parsed again, and the tree (every node, its range and kind, the
    unparsed regions) is the one a fresh parse gives, also across edits that break the syntax,
    mend it, or write characters of several bytes."""
    import random

    from conftest import FIXTURES

    from hlsllint.syntax.reparse import STATS

    pieces = [" ", "\n", "x", "1.0", ";", "(", ")", "{", "}", "float q = 1.0;", "é", "// c\n", "/*", "*/"]
    rng = random.Random(7)
    paths = sorted(FIXTURES.glob("HL1*/bad_*.hlsl"))[:12]
    assert paths
    before = STATS.reparsed
    for path in paths:
        history = [path.read_text(encoding="utf-8")]
        last = parse(history[0])
        for _ in range(16):
            text = history[-1]
            if len(history) > 1 and rng.random() < 0.5:  # undone, as a broken edit mostly is
                history.pop()
            elif rng.random() < 0.3:
                at = rng.randint(0, len(text))
                history.append(text[:at] + text[min(len(text), at + rng.randint(1, 5)) :])
            else:
                at = rng.randint(0, len(text))
                history.append(text[:at] + rng.choice(pieces) + text[at:])
            text = history[-1]
            again = parse(text, previous=last)
            fresh = parse(text)
            assert _shape(again) == _shape(fresh), (path.name, text)
            assert str(again.root) == str(fresh.root)
            assert again.unparsed == fresh.unparsed
            last = again
    assert STATS.reparsed - before >= 40  # most edits leave a tree without errors


def test_index_of_bisects_the_nodes_until_it_is_asked_often_enough_for_a_table() -> None:
    """`index_of` finds a node among the nodes that start where it does by bisecting the node
    list itself (no table of every node's start): the same position as the table gives, for
    every node of a tree, and the table is made only once it has been asked once per
    `INDEX_TABLE_RATIO` nodes."""
    from hlsllint.syntax import tree as tree_module

    src = "struct S { float a; };\n" + "".join(
        f"float f{i}(float x) {{ return x * {i}.0 + (x > 0 ? x : -x); }}\n" for i in range(40)
    )
    st = parse(src)
    nodes = st.nodes()
    ratio = tree_module.INDEX_TABLE_RATIO
    asks = len(nodes) // ratio
    for k in range(asks):
        assert st.index_of(nodes[k * ratio]) == k * ratio
    assert st._starts is None  # not asked often enough for the table yet
    other = parse("float g() { return 1.0; }").root
    assert st.index_of(other.child(0)) is None  # a node of another tree
    assert st._starts is not None  # the table now
    table = parse(src)
    table._starts = [n.start_byte for n in table.nodes()]
    found = [st.index_of(n) for n in nodes]
    assert found == list(range(len(nodes)))
    bisected = [tree_module._index_among(nodes, n.start_byte, n.id) for n in nodes]
    assert bisected == found
    assert [table.index_of(n) for n in table.nodes()] == found


def test_node_types_are_the_nodes_types_one_string_per_type() -> None:
    """`node_types()` names each node by its kind id (the grammar's names, one string object per
    type for every tree): what `node.type` says, error and missing nodes included."""
    src = "float f(float x) { return x +; }\nstruct S { float a }\n"
    src += "[numthreads(8, 1, 1)] void main() { f(1.0) }\n"
    st = parse(src)
    assert st.root.has_error
    assert st.node_types() == [n.type for n in st.nodes()]
    assert "ERROR" in st.node_types()
    other = parse("float g() { return 1.0; }")
    assert other.node_types()[1] is st.node_types()[1]  # the same `function_definition` string
