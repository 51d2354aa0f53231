"""Reusing the last version's CFG lowering in the next one (hlsllint/analysis/lowering_reuse.py):
the inlined bodies that lie before an edit are replayed, and every CFG is the one a fresh lowering
of the new text builds."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hlsllint.analysis.cfg import build_cfg
from hlsllint.analysis.ir import CFG, Instr, Value
from hlsllint.analysis.lowering_reuse import LoweringReuse
from hlsllint.config import ConfigResolver
from hlsllint.semantic.model import Model, build_model
from hlsllint.server.document_lint import lint_document, publishable
from hlsllint.server.incremental import prepare, relint, snapshot
from hlsllint.settings import AnalysisSettings
from hlsllint.syntax import parse

SOURCE = """\
cbuffer Frame : register(b0)
{
    float4 Tint;
    float Time;
};
StructuredBuffer<float4> Items : register(t0);
Texture2D<float4> Albedo : register(t1);
SamplerState Linear : register(s0);
static float Gain;

struct Light
{
    float3 dir;
    float power;
    float lit(float3 n) { return saturate(dot(n, dir)) * power; }
};

float wave(float x)
{
    return sin(x * Time) * Gain;
}

float3 swizzled(float4 v, float k)
{
    float2 t = v.yx * k;
    return float3(t, v.z) + wave(k);
}

float4 fetch(uint i, float2 uv)
{
    float4 a = Items[i];
    float4 b = Albedo.Sample(Linear, uv);
    for (int j = 0; j < 4; ++j)
        a += Items[i + j] * wave(float(j));
    return a * b * Tint;
}

float4 main_ps(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{
    Gain = 2.0;
    Light l;
    l.dir = normalize(float3(uv, 1.0));
    l.power = Time;
    float4 c = fetch(uint(pos.x), uv);
    float k = pos.y * 2.0;
    float3 s = swizzled(c, k);
    float3 again = swizzled(c, k);  // the same expressions of the same values: merged but for `v.yx`
    return float4(s * again * l.lit(c.xyz), 1.0);
}

[numthreads(8, 8, 1)]
void main_cs(uint3 id : SV_DispatchThreadID)
{
    float4 c = fetch(id.x, float2(id.xy));
    Gain = c.x;
    float3 s = swizzled(c, wave(c.y));
}
"""

ANCHOR = "    float4 c = fetch(uint(pos.x), uv);\n"
EDIT = "    l.power = l.power * 0.5;\n"


def _lower(text: str, previous: LoweringReuse | None) -> tuple[Model, LoweringReuse, dict[str, CFG]]:
    model = build_model(parse(text), AnalysisSettings())
    reuse = LoweringReuse(previous)
    model.memo["lowering.reuse"] = reuse
    cfgs = {e.name: build_cfg(model, e) for e in model.entry_points}
    reuse.previous = None
    return model, reuse, cfgs


def _shape(cfg: CFG) -> list[Any]:
    """Everything of a CFG that the analyses read, values numbered by first use, symbols by
    identity (a reused body must hold the new model's symbols)."""
    ids: dict[int, tuple[Any, ...]] = {}

    def v(x: Value | None) -> int | None:
        if x is None:
            return None
        if id(x) not in ids:
            sym = id(x.symbol) if x.symbol else 0
            ids[id(x)] = (len(ids), x.name, x.width, x.kind, x.reg_class, x.type, sym)
        return ids[id(x)][0]

    def what(x: Instr | Value | None) -> Any:
        return ("I", x.op, x.span) if isinstance(x, Instr) else v(x)

    out: list[Any] = []
    g = cfg.graph
    for b in sorted(g.nodes):
        out.append(("block", b, tuple(sorted(g.successors(b)))))
        for ins in g.nodes[b]["instrs"]:
            detail = tuple(sorted((k, repr(x)) for k, x in ins.detail.items()))
            reads = tuple(v(r) for r in ins.reads)
            out.append((ins.op, v(ins.dest), reads, ins.span, ins.rule, detail, ins in cfg.dead))
    loops = cfg.loops
    out.append(
        [(lp.span, lp.kind, lp.header, sorted(lp.blocks), lp.attributes, lp.trip_count) for lp in loops]
    )
    out.append([(sp, [what(x) for x in xs]) for sp, xs in cfg.expr.items()])
    out.append(list(ids.values()))
    out.append((cfg.truncated, sorted(cfg.unreachable), cfg.preloaded_vgprs, cfg.exit))
    return out


def _same_as_fresh(model: Model, cfgs: dict[str, CFG]) -> None:
    model.memo.pop("lowering.reuse")
    for e in model.entry_points:
        assert _shape(cfgs[e.name]) == _shape(build_cfg(model, e)), e.name


def test_an_edit_in_an_entry_replays_the_bodies_before_it_from_the_last_version() -> None:
    _, first, cfgs = _lower(SOURCE, None)
    assert all(c.reused == 0 for c in cfgs.values())
    edited = SOURCE.replace(ANCHOR, EDIT + ANCHOR, 1)
    model, second, cfgs = _lower(edited, first)
    # fetch, swizzled, wave (each shape once) and the method come from the last version, in both
    # entry points (main_cs lies after the edit, but what it inlines does not)
    assert cfgs["main_ps"].reused >= 3
    assert cfgs["main_cs"].reused >= 2
    assert second.taken == cfgs["main_ps"].reused + cfgs["main_cs"].reused
    _same_as_fresh(model, cfgs)
    # and back: the version after takes what this one kept
    model, _, cfgs = _lower(SOURCE, second)
    assert cfgs["main_ps"].reused >= 3
    _same_as_fresh(model, cfgs)


def test_a_body_after_the_edit_or_calling_the_edited_function_is_lowered_again() -> None:
    _, first, _ = _lower(SOURCE, None)
    # an edit in `wave`: every body that inlines it is lowered again, the method is not
    edited = SOURCE.replace("return sin(x * Time) * Gain;", "return cos(x * Time) * Gain;", 1)
    model, _, cfgs = _lower(edited, first)
    assert cfgs["main_ps"].reused == 1  # Light::lit only
    _same_as_fresh(model, cfgs)


def test_an_edit_that_may_declare_a_name_of_the_unit_reuses_nothing() -> None:
    _, first, _ = _lower(SOURCE, None)
    edited = SOURCE.replace(ANCHOR, "    struct Local { float a; };\n" + ANCHOR, 1)
    model, _, cfgs = _lower(edited, first)
    assert all(c.reused == 0 for c in cfgs.values())
    _same_as_fresh(model, cfgs)


def test_a_text_with_characters_past_ascii_is_reused_alike() -> None:
    text = "// \u00a9 the authors, \u00b5s timings\n" + SOURCE
    _, first, _ = _lower(text, None)
    model, _, cfgs = _lower(text.replace(ANCHOR, EDIT + ANCHOR, 1), first)
    assert not model.tree.ascii
    assert cfgs["main_ps"].reused >= 3
    _same_as_fresh(model, cfgs)


def test_other_settings_reuse_nothing() -> None:
    _, first, _ = _lower(SOURCE, None)
    model = build_model(parse(SOURCE), AnalysisSettings(wave_size=32))
    model.memo["lowering.reuse"] = LoweringReuse(first)
    assert all(build_cfg(model, e).reused == 0 for e in model.entry_points)


def test_the_editor_replays_the_last_relints_lowering(tmp_path: Path) -> None:
    path = os.path.normpath(str(tmp_path / "shader.hlsl"))
    Path(path).write_text(SOURCE, encoding="utf-8")
    resolver = ConfigResolver()
    settings = resolver.for_path(path)
    done = lint_document(path, SOURCE, resolver, settings)
    assert done.context is not None
    snap = snapshot(done.context, path, SOURCE, settings, None, done.findings)
    assert snap is not None and snap.lowering is None  # a lint from scratch keeps none
    edited = SOURCE.replace(ANCHOR, EDIT + ANCHOR, 1)
    taken = []
    for text in (edited, SOURCE, edited):
        again = relint(snap, text)
        assert again is not None
        fresh = lint_document(path, text, resolver).diagnostics
        assert publishable(again.findings, path, text, resolver) == fresh
        snap = again.snapshot
        assert snap.lowering is not None and snap.lowering.previous is None
        taken.append(snap.lowering.taken)
    assert taken[0] == 0 and taken[1] > 0 and taken[2] > 0


def test_a_prepared_snapshot_replays_the_first_edit_and_each_blanking_from_its_own(tmp_path: Path) -> None:
    """`prepare` lints the text of a lint from scratch blanked as an edit in each group of the
    document's functions blanks it: the first edit replays the header's bodies (it replayed
    none: the lint from scratch's unit is not blanked), and an edit in another entry point's
    group starts from that group's basis, not from the last relint's, blanked otherwise."""
    cut = SOURCE.index("float4 main_ps(")
    (tmp_path / "lib.hlsli").write_text(SOURCE[:cut], encoding="utf-8")
    main = '#include "lib.hlsli"\n' + SOURCE[cut:]
    path = os.path.normpath(str(tmp_path / "shader.hlsl"))
    Path(path).write_text(main, encoding="utf-8")
    resolver = ConfigResolver()
    settings = resolver.for_path(path)
    done = lint_document(path, main, resolver, settings)
    assert done.context is not None
    snap = snapshot(done.context, path, main, settings, None, done.findings)
    assert snap is not None and not snap.prepared
    assert prepare(snap) == len(snap.prepared) == 2  # main_ps's group and main_cs's
    assert prepare(snap) == 0  # prepared already
    in_ps = main.replace(ANCHOR, EDIT + ANCHOR, 1)
    in_cs = main.replace("    Gain = c.x;\n", "    Gain = c.x * 0.5;\n", 1)
    assert in_cs != main
    taken = []
    for text in (in_ps, main, in_cs):
        again = relint(snap, text)
        assert again is not None
        assert (
            publishable(again.findings, path, text, resolver)
            == lint_document(path, text, resolver).diagnostics
        )
        snap = again.snapshot
        assert snap.lowering is not None
        taken.append(snap.lowering.taken)
    assert all(n > 0 for n in taken), taken
    assert len(snap.prepared) == 2  # each blanking's latest basis, the last relint's among them
