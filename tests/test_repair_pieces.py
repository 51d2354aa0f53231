"""A long text is repaired (normalised) in pieces, each piece's repair kept by its content for
the next text that holds it (the header chain every shader of an engine expands): the result is
the repair of the whole text, because a cut is kept only where neither piece's repair could
depend on the other's text (`normalize._joins`)."""

from __future__ import annotations

import itertools
import random

from hlsllint.syntax import normalize as nm
from hlsllint.syntax import parse, repair_passes
from hlsllint.syntax.annotations import Annotations

FRAGMENTS = [
    "cbuffer CB : register(b0) { float4 a; }",
    "cbuffer CB",
    "{",
    "float4 a : packoffset(c0);",
    "}",
    "};",
    "[numthreads(8, 8, 1)]",
    "void main(uint3 id : SV_DispatchThreadID)",
    "[unroll]",
    "for (int i = 0; i < 4; i++)",
    "[[vk::binding(0)]]",
    "struct S { float4 p : SV_Position; };",
    "float4 PS(float4 p : SV_Position) : SV_Target",
    "return x ? a : b;",
    "case 1:",
    "default:",
    "// comment",
    "  // indented comment",
    "\t// tab comment",
    "/* block",
    "end */",
    "/* open",
    "#define X 1",
    "  #endif",
    "#define L \\",
    "  continued",
    '"string \\',
    'still"',
    "'c'",
    "technique T < int a = 1; > { pass P { VertexShader = compile vs_2_0 VS(); } };",
    "technique T <",
    "> {",
    "SamplerState s[",
    "] { Filter = x; };",
    "SamplerState s { Filter = MIN; };",
    "sampler2D t = sampler_state { Texture = <tex>; };",
    "FFX_STATIC const float x = 1;",
    "FOO void f()",
    "FFX_UNROLL for (;;) {}",
    "META_CS(true)",
    "MACRO_A MACRO_B",
    "float sample = 1;",
    "linear float4 c;",
    "typedef row_major float4x4 M;",
    "point float p;",
    "float f = 1.#INF;",
    "x = (",
    ")",
    "y = a[",
    "];",
    ":",
    "SEM",
    ";",
    "a ? b",
    ": c;",
    "int a:",
    " SV_X;",
    "tbuffer T",
    "{ float t; }",
    "]",
    "[",
    "<",
    ">",
    "class C : B {",
    "é",
    "",
    "void f(float a : A, float b : register(t0))",
    "RWTexture2D<float4> t : register(u0, space1);",
    "[Attr] FOO_MACRO void g()",
    "groupshared float gs[64];",
    "} s : SV_X;",
    "indices uint3 tris[4]",
    "if (a) [branch] {",
    "} else [flatten] {",
    "do [loop] {",
    "} while (x);",
    "void GS(triangle float4 p[3])",
]


def _whole(text: str) -> tuple[str, Annotations]:
    sc, notes, _ = repair_passes.repair(text)
    return sc.apply(text), notes


def test_a_text_repaired_in_pieces_is_the_text_repaired_whole() -> None:
    """Random texts of the constructs the passes act on (and of the ones that make a pass look
    past a cut: an open comment, a cbuffer's brace in the next piece, brackets open across it,
    effect annotations, `//` runs), cut at random line starts: the pieces' repair, taken apart
    where every cut joins and merged where one does not, is the whole text's."""
    rng = random.Random(35)
    joined = 0
    for _ in range(2500):
        lines = [rng.choice(FRAGMENTS) for _ in range(rng.randint(2, 24))]
        if rng.random() < 0.4:
            lines = [
                rng.choice(["};", "}", "float a;", "x = 1;"]) if rng.random() < 0.4 else s for s in lines
            ]
        text = "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")
        if rng.random() < 0.2:
            text = text.replace("\n", "\r\n")
        starts = [i + 1 for i, ch in enumerate(text[:-1]) if ch == "\n"]
        if not starts:
            continue
        cuts = sorted(rng.sample(starts, rng.randint(1, min(len(starts), 6))))
        expected = _whole(text)
        assert nm._normalize_cut(text, cuts) == expected, (text, cuts)
        bounds = [0, *cuts, len(text)]
        pieces = [nm._Piece(text[a:b]) for a, b in itertools.pairwise(bounds)]
        if all(nm._joins(a, b) for a, b in itertools.pairwise(pieces)):
            joined += 1
            assert ("".join(p.normalized for p in pieces), nm._merged(pieces, bounds)) == expected
    assert joined > 150  # the texts cut where every cut joins, not only merged back


def _apart(first: str, second: str) -> tuple[str, Annotations]:
    a, b = nm._Piece(first), nm._Piece(second)
    return a.normalized + b.normalized, nm._merged([a, b], [0, len(first), len(first + second)])


def test_a_cut_is_refused_where_a_piece_could_depend_on_the_other() -> None:
    """Each condition of a join, on a cut where repairing the two pieces apart would give
    another repair than the whole text's (or, for the `//` runs, another mask)."""
    cases = [
        # the cbuffer's `{` is in the second piece (no `;` between): the block is the second's
        ("float x;\ncbuffer CB\n}\n", "{ float4 a; }\n"),
        # a block comment left open runs into the second piece
        ("float a;\n/* open\n", "[numthreads(1, 1, 1)] void f() {}\n*/\n"),
        # the colon's declaration starts in the first piece (the `)` opens it): a label there
        ("case 1;\n", ") x : SEM;\n"),
        # the first piece ends in a name: the `[` after it is an index, not an attribute
        ("float a;\nx = y\n", "[unroll] = 1;\n"),
        # a technique's `<...>` annotations run into the second piece, its block with them
        ("float a;\ntechnique T < int b;\n}\n", "> { pass P { } };\n"),
    ]
    for first, second in cases:
        a, b = nm._Piece(first), nm._Piece(second)
        assert not nm._joins(a, b), (first, second)
        assert _apart(first, second) != _whole(first + second), (first, second)
        assert nm._normalize_cut(first + second, [len(first)]) == _whole(first + second)
    # a run of `//` lines goes on into the second piece's first line
    assert not nm._joins(nm._Piece("float a;\n// one\n"), nm._Piece("\t// two\nfloat b;\n"))
    assert nm._joins(nm._Piece("float a;\n// one\n"), nm._Piece("float b;\n// two\n"))
    # what joins: a piece ending after a `;` or `}` at the top level, outside comments
    good = (
        "cbuffer CB : register(b0) { float4 a; };\nfloat4 f(float4 p : SV_Position) : SV_Target\n{\n}\n",
        "[numthreads(8, 8, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {}\n",
    )
    assert nm._joins(nm._Piece(good[0]), nm._Piece(good[1]))
    assert _apart(*good) == _whole(good[0] + good[1])


def _header(n: int) -> str:
    parts = ["cbuffer Frame : register(b0) { float4x4 view; float time; };\n"]
    for i in range(n):
        parts.append(
            "[numthreads(8, 8, 1)]\n"
            f"void helper{i}(uint3 id : SV_DispatchThreadID, float2 uv : TEXCOORD{i % 8})\n"
            "{\n"
            f"    float4 acc = float4(uv, {i}.0, 1.0);\n"
            "    [unroll] for (uint k = 0; k < 4; ++k) { acc += sin(acc * k) * time; }\n"
            "}\n"
        )
    return "".join(parts)


def test_a_long_texts_pieces_are_kept_and_found_again_in_another_text_at_another_offset() -> None:
    """Two units' texts sharing a long header at different offsets: the cuts fall in the same
    places of the header (chosen by the text around each), so the second text finds the
    header's pieces already repaired; both repairs are the whole texts', and parse gives the
    annotations of a whole repair."""
    header = _header(400)
    first = "// a.hlsl\n#define A 1\n" + header + "float4 a : SV_Target;\n"
    second = "// b.hlsl: a longer lead\n#define B 2\nstatic float b;\n" + header + "void b() {}\n"
    assert len(first) > nm.PIECES_MIN
    lead = len(second) - len(header) - len("void b() {}\n")
    lead_a = len("// a.hlsl\n#define A 1\n")
    cuts_a = [c - lead_a for c in nm._cuts(first)]
    cuts_b = [c - lead for c in nm._cuts(second)]
    assert len(cuts_a) > 10 and cuts_a == cuts_b
    nm.clear_pieces()
    assert nm.normalize(first) == _whole(first)
    repaired, reused = nm.STATS.repaired, nm.STATS.reused
    assert nm.normalize(second) == _whole(second)
    assert nm.STATS.reused - reused >= len(cuts_b) - 1  # every piece but the first and the last
    assert nm.STATS.repaired - repaired <= 2
    assert parse(second).annotations == _whole(second)[1]
