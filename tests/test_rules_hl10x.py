"""HL101-HL107: safe fixes are idempotent and leave a file that parses; rule options work."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES, lint_text

from hlsllint.config import Settings
from hlsllint.fix import apply_fixes
from hlsllint.lint import FileLoader, lint_unit

HLSLLINT = Path(sys.executable).with_name("hlsllint")


def _fix(path: Path, code: str) -> str:
    subprocess.run(
        [str(HLSLLINT), "check", "--fix", "--exit-zero", "-q", "--select", code, str(path)],
        check=True,
        capture_output=True,
    )
    return path.read_text(encoding="utf-8")


def _codes(path: Path, *codes: str) -> list[tuple[int, str]]:
    result = lint_unit(str(path), Settings(select=codes))
    return sorted((d.start.row, d.code) for d in result.diagnostics)


def test_hl104_safe_fix_is_idempotent_and_parses(tmp_path: Path) -> None:
    copy = tmp_path / "flags.hlsl"
    shutil.copy(FIXTURES / "HL104" / "bad_int_and_float_flags.hlsl", copy)
    once = _fix(copy, "HL104")
    assert "bool transparent" in once and "bool edge" in once and "bool lit" in once
    assert "int hit" in once, "the |= flag only has an unsafe fix"
    assert _fix(copy, "HL104") == once
    remaining = _codes(copy, "HL000", "HL104")
    assert remaining == [(13, "HL104")]


def test_hl107_budget_option() -> None:
    text = (FIXTURES / "HL107" / "good_packed_and_read.hlsl").read_text(encoding="utf-8")
    assert not [d for d in lint_text(text, select=("HL107",)) if d.code == "HL107"]
    over = lint_text(text, select=("HL107",), rule_options=(("HL107", (("max-slots", 3),)),))
    assert [d.message for d in over if d.code == "HL107"] == [
        "`VSOutput` takes 5 slots of interpolators, over the budget of 3"
    ]


def test_hl107_assume_unpacked_option() -> None:
    text = """\
struct VSOut { float4 pos : SV_Position; float2 a : TEXCOORD0; float2 b : TEXCOORD1; };
VSOut main(float4 p : POSITION) { VSOut o = (VSOut)0; o.pos = p; return o; }
"""
    assert not lint_text(text, select=("HL107",))
    found = lint_text(text, select=("HL107",), rule_options=(("HL107", (("assume-unpacked", True),)),))
    assert [(d.message, d.help) for d in found] == [
        (
            "`VSOut` declares 2 slots (one per member) for data that fits in 1 slot",
            "pack `a` + `b` in one float4",
        ),
    ]


def test_hl103_counts_bytes_by_packing_and_skips_single_matrices() -> None:
    from hlsllint.rules.hl103_affine_4x4_matrix import matrix_bytes

    assert matrix_bytes(4, 3, "constant", row_major=False) == 48  # three column registers
    assert matrix_bytes(4, 3, "constant", row_major=True) == 64  # four padded rows: no saving
    assert matrix_bytes(3, 4, "constant", row_major=True) == 48
    assert matrix_bytes(4, 3, "structured", row_major=False) == 48
    code = """\
cbuffer C : register(b0) { row_major float4x4 M[8]; float4x4 Single; };
float3 f(float3 p, uint i)
{
    return mul(float4(p, 1), M[i]).xyz + mul(float4(p, 1), Single).xyz;
}
"""
    found = lint_text(code, select=("HL103",))
    assert [d.start.row for d in found] == [1]
    message = found[0].message
    assert "512 bytes of constant data where 384 do" in message
    assert found[0].help == "declare them `column_major float4x3` (16 bytes less per matrix)"


def test_hl102_names_every_unused_component_and_the_lds_bytes() -> None:
    code = """\
RWStructuredBuffer<float2> gOut : register(u0);
groupshared half4 gA[8][8];
[numthreads(8, 8, 1)]
void main(uint3 t : SV_GroupThreadID)
{
    gA[t.y][t.x] = half4(t.x, t.y, 0, 1);
    GroupMemoryBarrierWithGroupSync();
    gOut[t.x] = gA[t.x][t.y].xy;
}
"""
    found = lint_text(code, select=("HL102",))
    assert [d.start.row for d in found] == [2]
    assert "`z`, `w` are never read" in found[0].message
    assert "512 of its 1,024 bytes of LDS" in found[0].message and "declare it half2" in str(found[0].help)
    # With 16-bit types a half takes two bytes.
    found = lint_text(code, select=("HL102",), enable_16bit_types=True)
    assert "256 of its 512 bytes of LDS" in found[0].message


def test_hl105_product_suggests_select_for_vectors_and_skips_masks() -> None:
    text = """\
float4 main(float4 c : COLOR0, float2 off : TEXCOORD0, float d : TEXCOORD1) : SV_Target
{
    float2 v = sign(off) * off.yx;
    float s = d * sign(d - 0.5);
    float4 mask = sign(c.a) * c + sign(saturate(d)) * c + sign(length(off)) * c;
    return mask + float4(v, s, 0);
}
"""
    found = [d.long_message() for d in lint_text(text, select=("HL105",))]
    assert len(found) == 2, found
    assert "`select(off < 0, -off.yx, off.yx)`" in found[0]
    assert "`(d - 0.5 < 0 ? -d : d)`" in found[1]


def test_hl105_product_binds_a_long_operand_once_and_never_duplicates_it() -> None:
    text = """\
float4 main(float4 c : COLOR0, float magnitude : TEXCOORD0) : SV_Target
{
    float a = c.x * sign(c.y - c.z) + sign(c.w) * (c.x + c.y);
    if (c.x > 0)
        c.xyz = sign(c.w) * normalize(c.xyz);
    for (int i = 0; sign(c.y) * (c.x + i) < 4.0; i++)
        c.y += magnitude;
    return c + a;
}
"""
    found = lint_text(text, select=("HL105",))
    assert [d.start.row for d in found] == [3, 3, 5, 6]
    fixes = [d.fix.edits if d.fix else () for d in found]
    assert [e.content for e in fixes[0]] == ["(c.y - c.z < 0 ? -c.x : c.x)"]  # a member access: written twice
    # `magnitude` is taken (a parameter): the first binding is `magnitude2`, the next `magnitude3`.
    decl, use = (e.content for e in fixes[1])
    assert decl == "const float magnitude2 = c.x + c.y;\n    " and fixes[1][0].start == fixes[1][0].end
    assert use == "(c.w < 0 ? -magnitude2 : magnitude2)" and "c.x + c.y" not in use
    # No block around the `if` body: the statement is wrapped in one with the binding.
    [wrapped] = [e.content for e in fixes[2]]
    assert wrapped == (
        "{ const float3 magnitude3 = normalize(c.xyz); c.xyz = (c.w < 0 ? -magnitude3 : magnitude3); }"
    )
    assert fixes[3] == ()  # a loop's condition: no place to bind, and no duplicating fix
    assert "(c.y < 0 ? -(c.x + i) : (c.x + i))" in str(found[3].help)


def test_hl101_message_counts_components_read_and_says_why_uniform() -> None:
    src = """
Buffer<float4> gTable : register(t0);
RWBuffer<float4> gOut : register(u0);
cbuffer P { uint gCount; };
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID)
{
    float x = 0;
    for (uint i = 0; i < gCount; ++i)
        x += gTable[group.x * 8 + i].x;
    gOut[id.x] = x;
}
[numthreads(1, 1, 1)]
void one(uint3 group : SV_GroupID)
{
    for (uint i = 0; i < gCount; ++i)
        gOut[group.x] += gTable[group.x + i];
}
"""
    found = lint_text(src, ("HL101",))
    assert len(found) == 1  # the one-thread group has no other lanes
    assert found[0].notes == ("the address is wave-uniform (from `SV_GroupID`; `i`)",)
    assert "filling 1 VGPR per lane" in found[0].message
    assert "StructuredBuffer or ByteAddressBuffer" in str(found[0].help)  # a typed buffer


def test_hl101_one_off_uniform_loads_and_invariant_loop_loads_are_silent() -> None:
    """The compiler scalarises a one-off uniform load itself (v_readfirstlane; regtruth 7 vs 6
    VGPRs): only a loop that walks a uniform list, one element per iteration, is reported."""
    src = """
Texture2D<float> gExposure : register(t0);
Buffer<float4> gTable : register(t1);
RWBuffer<float4> gOut : register(u0);
cbuffer P { uint gCount; uint gRow; };
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID)
{
    float4 acc = gTable[group.x] * gExposure[uint2(0, 0)];
    for (uint i = 0; i < gCount; ++i)
        acc += gTable[gRow] * i;                 // the same element every iteration
    for (uint j = 0; j < id.x; ++j)
        acc += gTable[j];                        // lanes leave the loop at different times
    gOut[id.x] = acc;
}
"""
    assert lint_text(src, ("HL101",)) == []
    texture_list = src.replace("acc += gTable[gRow] * i;", "acc += gExposure.Load(int3(i, 0, 0));")
    (d,) = lint_text(texture_list, ("HL101",))
    assert "`WaveReadLaneAt`" in str(d.help) and "StructuredBuffer" not in d.long_message()


def test_hl104_float_flags_tested_or_selecting_but_not_weights_alone() -> None:
    src = """
Texture2D<float> gDepth : register(t0);
SamplerState gS : register(s0);
float4 main(float2 uv : TEXCOORD0, float ref : TEXCOORD1, float4 c : COLOR0) : SV_Target
{
    float d = gDepth.Sample(gS, uv);
    float shadowed = d < ref ? 1.0f : 0.0f;
    float lit = step(ref, d);
    float weight = step(ref, d);
    float both = saturate(sign(d - ref));
    if (shadowed != 0)
        c.rgb *= 0.5;
    c = lerp(c, 0, lit);
    c *= weight;
    c *= both;
    if (both > 0.5)
        c.a = 1;
    return c;
}
"""
    found = {d.message.split("`")[1]: d for d in lint_text(src, ("HL104",))}
    assert sorted(found) == ["both", "lit", "shadowed"], "a weight never tested is a real float"
    assert "is only tested" in found["shadowed"].message
    assert "only selects between two values" in found["lit"].message
    assert "tested and used as a 0/1 weight" in found["both"].message
    assert all("readability" in d.long_message() and "SGPR" not in d.long_message() for d in found.values())
    assert all(d.help == "declare it `bool` to say it is a flag" for d in found.values())
    fixes = {name: d.fix for name, d in found.items()}
    assert fixes["shadowed"] is not None and fixes["shadowed"].applicability.value == "safe"
    assert fixes["lit"] is not None and fixes["lit"].applicability.value == "unsafe"


HL107_PAIR = """\
struct VSOut
{
    float4 pos : SV_Position;
    float2 uv : TEXCOORD0;
    float4 debug : TEXCOORD1;
};
"""
HL107_SHADERS = """\
VSOut VSMain(float3 p : POSITION, float2 uv : TEXCOORD0)
{
    VSOut o;
    o.pos = float4(p, 1);
    o.uv = uv;
    o.debug = float4(p, 1);
    return o;
}
float4 PSMain(VSOut i) : SV_Target { return float4(i.uv, 0, 1); }
"""


def test_hl107_unread_member_on_its_line_with_a_fix_only_for_a_local_struct() -> None:
    local = lint_text(HL107_PAIR + HL107_SHADERS, select=("HL107",))
    assert [(d.start.row, d.code) for d in local] == [(5, "HL107")]
    assert "`debug` (TEXCOORD1) of `VSOut` is never read by `PSMain`" in local[0].message
    fix = local[0].fix
    assert fix is not None and fix.applicability.value == "unsafe"
    assert len(fix.edits) == 2 and all(e.content == "" for e in fix.edits)  # the member and its write

    # A header's struct serves every file that includes it (SpartanEngine's `gbuffer_vertex`:
    # the depth pre-pass reads its UV only, the G-buffer pass its normal and tangent too), so
    # one includer's pixel shader leaving a member unread says nothing about the others.
    files = {"main.hlsl": '#include "io.hlsli"\n' + HL107_SHADERS, "io.hlsli": HL107_PAIR}
    result = lint_unit("main.hlsl", Settings(select=("HL107",)), loader=FileLoader(files))
    assert not [d for d in result.diagnostics if d.code == "HL107"]
    files = {
        "main.hlsl": (FIXTURES / "HL107" / "good_header_struct_of_many_passes.hlsl").read_text(
            encoding="utf-8"
        ),
        "shared_vertex_out.hlsli": (FIXTURES / "HL107" / "shared_vertex_out.hlsli").read_text(
            encoding="utf-8"
        ),
    }
    result = lint_unit("main.hlsl", Settings(select=("HL107",)), loader=FileLoader(files))
    assert not [d for d in result.diagnostics if d.code == "HL107"]


def test_hl107_removal_takes_the_members_vulkan_attributes_with_it() -> None:
    attributes = "    [[vk::location(1)]] [[vk::offset(0)]]\n"
    pair = HL107_PAIR.replace("    float4 debug", attributes + "    float4 debug").replace(
        "    float2 uv : TEXCOORD0;", "    [[vk::location(0)]] float2 uv : TEXCOORD0;"
    )
    text = pair + HL107_SHADERS
    [found] = lint_text(text, select=("HL107",))
    fixed = apply_fixes({"snippet.hlsl": text}, [found], unsafe=True)["snippet.hlsl"].text
    assert "debug" not in fixed and "vk::location(1)" not in fixed and "offset" not in fixed
    assert "    [[vk::location(0)]] float2 uv : TEXCOORD0;\n};" in fixed


def test_hl107_full_screen_pass_is_silent_and_singular_slot() -> None:
    struct = """\
struct Out
{
    float4 pos : SV_Position;
    [[vk::location(0)]] float a : TEXCOORD0;
    [[vk::location(1)]] float b : TEXCOORD1;
};
"""
    full = struct + "Out main(uint id : SV_VertexID) { Out o = (Out)0; o.pos = id; return o; }\n"
    assert not lint_text(full, select=("HL107",))
    mesh = struct + "Out main(float4 p : POSITION) { Out o = (Out)0; o.pos = p; return o; }\n"
    found = lint_text(mesh, select=("HL107",))
    (d,) = found
    assert d.message == "`Out` declares 2 slots (one per member) for data that fits in 1 slot"
    over = lint_text(mesh, select=("HL107",), rule_options=(("HL107", (("max-slots", 1),)),))
    assert "fits in 1 slot, over the budget of 1" in over[0].message


def test_hl106_constant_loops_above_the_unroll_limit_and_per_target_message() -> None:
    from hlsllint.rules.hl106_unbatched_loop_fetch import UNROLL_LIMIT

    assert UNROLL_LIMIT == 128  # regtruth: 128 iterations unrolled, 129 kept as a loop
    loops = {
        "uint i = 0; i <= 128; i++": True,  # 129 iterations
        "uint i = 0; i < 128; i++": False,
        "int i = 255; i >= 0; i--": True,  # 256
        "uint i = 0; i < 512; i += 4": False,  # 128
        "uint i = 0; 300 > i; i += 2": True,  # 150
    }
    for header, fires in loops.items():
        # The 16 KiB tile holds the shader at 2 of 16 waves: below full occupancy, where it speaks.
        src = f"""
Texture2D<float4> gTex : register(t0);
RWStructuredBuffer<float4> gOut : register(u0);
groupshared float4 gTile[1024];
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{{
    float4 acc = 0;
    for ({header})
        acc += gTex.Load(int3(id.x, i, 0));
    gTile[gi * 16] = acc;
    GroupMemoryBarrierWithGroupSync();
    gOut[id.x] = gTile[(gi * 16 + 16) % 1024];
}}
"""
        found = lint_text(src, ("HL106",))
        assert bool(found) == fires, header
        if fires:
            assert "the compiler unrolls at most 128" in found[0].long_message()
            assert "`gTex.Load(int3(id.x, i, 0))`" in found[0].message
    text = (FIXTURES / "HL106" / "bad_single_fetch_loops.hlsl").read_text(encoding="utf-8")
    rdna = [d.long_message() for d in lint_text(text, ("HL106",), target="rdna2")]
    gcn = [d.long_message() for d in lint_text(text, ("HL106",), target="gcn")]
    assert "of 16 wave64s per SIMD on rdna2" in rdna[0] and "of 10 wave64s per SIMD on gcn" in gcn[0]
    assert "marked `[loop]`" in rdna[0]
    assert "`numSteps` is a constant-buffer value" in rdna[1]
    assert "`itemCount` is a constant-buffer value" in rdna[2]


def test_hl106_is_silent_at_full_occupancy() -> None:
    # One kept loop with one fetch per iteration; with a 16 KiB groupshared tile the entry fits
    # 2 of 16 waves per SIMD, without it all 16: then the other waves hide each wait.
    loop = """
Texture2D<float4> gTex : register(t0);
RWStructuredBuffer<float4> gOut : register(u0);
cbuffer P : register(b0) { uint count; };
groupshared float4 gTile[1024];
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    float4 acc = 0;
    for (uint i = 0; i < count; i++)
        acc += gTex.Load(int3(id.x, i, 0));
    STORE
}
"""
    tiled = (
        "gTile[gi * 16] = acc; GroupMemoryBarrierWithGroupSync(); gOut[id.x] = gTile[(gi * 16 + 16) % 1024];"
    )
    (low,) = lint_text(loop.replace("STORE", tiled), ("HL106",))
    assert "`main` fits ~2 of 16 wave64s per SIMD on rdna2" in low.long_message()
    assert lint_text(loop.replace("STORE", "gOut[id.x] = acc;"), ("HL106",)) == []
    # gcn holds 10 waves per SIMD: the light shader fits them all there too
    assert lint_text(loop.replace("STORE", "gOut[id.x] = acc;"), ("HL106",), target="gcn") == []
    # A function no entry point reaches has no estimate: it is still reported.
    helper = loop.replace(
        "[numthreads(64, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)",
        "float4 helper(uint3 id)",
    )
    (unknown,) = lint_text(helper.replace("STORE", "return acc;"), ("HL106",))
    assert "at most 16 wave64s on rdna2" in unknown.long_message()


def test_hl101_counts_the_components_read_from_the_local_that_holds_the_load() -> None:
    src = """
Buffer<float4> gTable : register(t0);
RWBuffer<float4> gOut : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID)
{
    float4 acc = 0;
    for (uint i = 0; i < 4 * group.y; i += 4)
    {
        float4 row = gTable[group.x + i];
        float4 col = gTable[group.x + i + 1];
        float4 whole = gTable[group.x + i + 2];
        float4 later;
        later = gTable[group.x + i + 3];
        later.w = 0;
        acc += row.x + col.rg.xyxy * id.x + whole * 2 + later.b;
    }
    gOut[id.x] = acc;
}
"""
    counts = [d.message.split("filling ")[1].split(" per lane")[0] for d in lint_text(src, ("HL101",))]
    # regtruth: `row.x` alone compiles to buffer_load_format_x, the whole float4 to _xyzw
    assert counts == ["1 VGPR", "2 VGPRs", "4 VGPRs", "1 VGPR"]


def test_hl107_d3d9_position_variants_and_methods_are_read() -> None:
    """A D3D9 effect's `POSITION` output is the position (never removed); a member read under
    an `#if`/`#elif` branch, or through a method of the input struct, is read."""
    from conftest import FIXTURES

    from hlsllint.config import Settings
    from hlsllint.lint import lint_unit

    for name in ("good_d3d9_effect_position.hlsl", "good_read_in_variants_and_methods.hlsl"):
        assert not lint_unit(str(FIXTURES / "HL107" / name), Settings(select=("HL107",))).diagnostics, name
    near = lint_unit(
        str(FIXTURES / "HL107" / "bad_position_beside_sv_position.hlsl"), Settings(select=("HL107",))
    )
    assert [d.message.split(" ")[0] for d in near.diagnostics] == ["`world`", "`debug`"]


def test_hl105_sign_kept_in_a_variable_or_applied_with_times_equals() -> None:
    """`float s = sign(w); v * s` and `v *= sign(x)` apply a sign as `v * sign(w)` does; a kept
    sign whose 0 is used (`1 - s`) is needed as a value."""
    from conftest import FIXTURES

    from hlsllint.config import Settings
    from hlsllint.lint import lint_unit

    bad = lint_unit(str(FIXTURES / "HL105" / "bad_sign_kept_or_scaled.hlsl"), Settings(select=("HL105",)))
    assert [d.start.row for d in bad.diagnostics] == [11, 21]
    assert "kept in `handedness`, only multiplied in" in bad.diagnostics[0].message
    assert "multiplied in with `*=`" in bad.diagnostics[1].message
    good = lint_unit(str(FIXTURES / "HL105" / "good_sign_kept.hlsl"), Settings(select=("HL105",)))
    assert not good.diagnostics


def test_hl103_matrix_keyword_and_blended_bone_palettes() -> None:
    """`matrix` is float4x4; a palette blended by weights into a local that is only used
    affinely is reported, one whose blend is applied whole is not."""
    from conftest import FIXTURES

    from hlsllint.config import Settings
    from hlsllint.lint import lint_unit

    bad = lint_unit(str(FIXTURES / "HL103" / "bad_matrix_palette_blended.hlsl"), Settings(select=("HL103",)))
    (d,) = bad.diagnostics
    assert "`gBones` holds float4x4 matrices" in d.message and "4,096 bytes" in d.message
    good = lint_unit(str(FIXTURES / "HL103" / "good_blended_palette_whole.hlsl"), Settings(select=("HL103",)))
    assert not good.diagnostics


def test_hl107_vulkan_position_is_an_attribute() -> None:
    """A `POSITION0` member with an explicit Vulkan location is an attribute, not the D3D9
    position (SaschaWillems/Vulkan `hdr/gbuffer.frag.hlsl`)."""
    src = """
struct VSOutput
{
[[vk::location(0)]] float3 Normal : NORMAL0;
[[vk::location(1)]] float3 Pos : POSITION0;
};
struct VSIn { [[vk::location(0)]] float3 p : POSITION0; };
VSOutput VSMain(VSIn i) { VSOutput o; o.Normal = i.p; o.Pos = i.p; return o; }
float4 main(VSOutput input) : SV_TARGET { return float4(input.Normal, 1); }
"""
    found = [d.message for d in lint_text(src, ("HL107",))]
    assert any(m.startswith("`Pos` (POSITION0)") for m in found), found


def test_hl105_header_fix_names_are_the_same_in_every_includer() -> None:
    """The local a fix binds is named from the enclosing function, not the unit: an includer
    with its own `magnitude` or an earlier finding no longer renames the header's fix, so the
    driver reports the header's finding once (RTXPT MathHelpers.hlsli: three copies)."""
    header = (
        "float3 decode(float2 p)\n{\n    float d = 1 - abs(p.x);\n"
        "    return float3(p, sign(d) * (1 - d * d));\n}\n"
    )
    other = (
        "float other(float a, float b)\n{\n    float magnitude = a;\n"
        "    return sign(b) * (magnitude + 1);\n}\n"
    )
    shader = "float4 main(float2 uv : TEXCOORD0) : SV_Target { return float4(decode(uv), 1); }\n"
    fixes = []
    for prefix in ("", other):
        files = {"main.hlsl": prefix + '#include "oct.hlsli"\n' + shader, "oct.hlsli": header}
        result = lint_unit("main.hlsl", Settings(select=("HL105",)), loader=FileLoader(files))
        (found,) = [d for d in result.diagnostics if d.path == "oct.hlsli"]
        assert found.fix is not None
        fixes.append([e.content for e in found.fix.edits])
    assert fixes[0] == fixes[1] and "magnitude" in fixes[0][0]


_NINE = """\
[[vk::binding(0, 0)]] Texture2D t : register(t0);
struct VSOut
{
    float4 pos : SV_Position;
    float2 uv0 : TEXCOORD0;
    float2 uv1 : TEXCOORD1;
    float fog : TEXCOORD2;
    float3 normal : NORMAL;
    float3 tangent : TANGENT;
    float3 toEye : TEXCOORD3;
    float slope : TEXCOORD4;
    float2 screen : TEXCOORD5;
    float depth : TEXCOORD6;
};
VSOut main(float4 p : POSITION)
{
    VSOut o = (VSOut)0;
    o.pos = p; o.uv0 = p.xy; o.uv1 = p.zw; o.fog = p.x; o.normal = p.xyz; o.tangent = p.yzw;
    o.toEye = p.zyx; o.slope = p.y; o.screen = p.yx; o.depth = p.z;
    return o;
}
"""


def test_hl107_is_silent_on_unpacked_members_that_the_compiler_packs() -> None:
    """Issue 22 listed nine interpolator slots where five would do as a miss. Measured, it costs
    nothing on either path: DXC's DXIL packer shares rows itself, and regtruth (RADV, navi21)
    compiles the SPIR-V nine-member VS/PS pair and its packed form to the same 4 param exports,
    24 VGPRs and 65 VS instructions. A finding would claim a saving that does not exist, so HL107
    reports unread members only (every member here is written and read)."""
    assert not lint_text(_NINE, select=("HL107",))
    assert not lint_text(_NINE.replace("[[vk::binding(0, 0)]] ", ""), select=("HL107",))
