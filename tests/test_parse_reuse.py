"""The parse of a unit starts from the tree of the one before when their texts share a long
stretch (the header chain every shader of an engine includes): the tree is the one a fresh parse
gives, and a text that shares too little is parsed afresh."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from hlsllint.syntax import SyntaxTree, parse, reparse


def _header(n: int = 120, changed: int = -1) -> str:
    parts = ["// Common header, shared by every shader: résumé of the helpers (non-ASCII on purpose)\n"]
    parts.append("cbuffer Frame : register(b0) { float4x4 view; float time; };\n")
    for i in range(n):
        name = f"helper{i}" if i != changed else f"renamed{i}"
        parts.append(
            f"float4 {name}(float2 uv : TEXCOORD0, uint idx)\n"
            "{\n"
            f"    float4 acc = float4(uv, {i}.0, 1.0);\n"
            "    [unroll] for (uint k = 0; k < 4; ++k) { acc += sin(acc * k) * time; }\n"
            "    return acc;\n"
            "}\n"
        )
    return "".join(parts)


def _unit(preamble: str, header: str, body: str) -> str:
    return preamble + header + body


def _fresh(text: str) -> SyntaxTree:
    """A parse on a new thread, which has no earlier tree to start from."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(parse, text).result()


def _same(a: SyntaxTree, b: SyntaxTree) -> None:
    assert str(a.root) == str(b.root)
    assert [(n.type, n.byte_range, n.start_point) for n in a.nodes()] == [
        (n.type, n.byte_range, n.start_point) for n in b.nodes()
    ]
    assert a.unparsed == b.unparsed
    assert a.annotations == b.annotations


def test_a_unit_sharing_the_header_chain_reuses_the_last_tree_and_gets_a_fresh_parses_tree() -> None:
    header = _header()
    first = _unit("// a.hlsl\n#define A 1\n", header, "[numthreads(8, 8, 1)] void a() {}\n")
    second = _unit(
        "// b.hlsl: a longer preamble\n#define B 2\n#define C 3\n",
        header,
        "RWTexture2D<float4> o;\n[numthreads(64, 1, 1)]\nvoid b(uint3 id : SV_DispatchThreadID)\n"
        "{ o[id.xy] = helper3(id.xy, 0); }\n",
    )
    parse(first)
    before = (reparse.STATS.from_last_unit, reparse.STATS.shared_bytes)
    reused = parse(second)
    assert reparse.STATS.from_last_unit == before[0] + 1
    assert reparse.STATS.shared_bytes - before[1] >= len(header.encode("utf-8"))
    _same(reused, _fresh(second))
    last = reused.nodes_of_type("function_definition")[-1]
    assert reused.node_text(last).startswith("void b(")
    assert [a.name for a in reused.attributes_of(last)] == ["numthreads"]


def test_a_changed_header_is_parsed_where_it_changed() -> None:
    first = _unit("// a.hlsl\n", _header(n=240), "void a() {}\n")
    second = _unit("// b.hlsl\n", _header(n=240, changed=60), "void b() { int k = 1; }\n")
    parse(first)
    before = reparse.STATS.from_last_unit
    reused = parse(second)
    assert reparse.STATS.from_last_unit == before + 1
    _same(reused, _fresh(second))
    names = [reused.node_text(n) for n in reused.nodes_of_type("identifier")]
    assert "renamed60" in names and "helper60" not in names


def test_a_tree_with_errors_is_parsed_afresh() -> None:
    """Error recovery need not give the same tree when it starts from another: neither a text
    that parses with errors nor the text after it starts from such a tree."""
    header = _header()
    parse(_unit("// a.hlsl\n", header, "void a() {}\n"))
    before = reparse.STATS.from_last_unit
    broken_text = _unit("// b.hlsl\n", header, "void b() { int broken = ; }\n")
    broken = parse(broken_text)
    assert broken.unparsed
    _same(broken, _fresh(broken_text))
    after_text = _unit("// c.hlsl\n", header, "void c() {}\n")
    _same(parse(after_text), _fresh(after_text))
    assert reparse.STATS.from_last_unit == before


def test_a_text_sharing_too_little_is_parsed_afresh() -> None:
    parse(_unit("// a.hlsl\n", _header(), "void a() {}\n"))
    before = reparse.STATS.from_last_unit
    other = _unit("// another engine\n", _header(n=2), "void c() {}\n")
    assert len(other.encode("utf-8")) < reparse.REUSE_MIN
    _same(parse(other), _fresh(other))
    assert reparse.STATS.from_last_unit == before


def test_the_earlier_tree_is_left_as_it_was() -> None:
    header = _header()
    first_text = _unit("// a.hlsl\n", header, "void a() {}\n")
    first = parse(first_text)
    shape = str(first.root)
    parse(_unit("// b.hlsl, other lines before the header\n\n\n", header, "void b() { return; }\n"))
    assert str(first.root) == shape
    _same(first, _fresh(first_text))


def test_a_text_sharing_less_than_half_is_parsed_afresh() -> None:
    header = _header()
    parse(_unit("// a.hlsl\n", header, "void a() {}\n"))
    before = reparse.STATS.from_last_unit
    own = "".join(f"float own{i}(float x) {{ return x * {i}.0; }}\n" for i in range(2 * len(header) // 40))
    text = _unit("// b.hlsl\n", header, own)
    assert len(header.encode("utf-8")) >= reparse.REUSE_MIN
    assert 2 * len(header) < len(text)
    _same(parse(text), _fresh(text))
    assert reparse.STATS.from_last_unit == before
