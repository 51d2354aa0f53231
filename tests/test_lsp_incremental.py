"""The editor's incremental lint (hlsllint/server/incremental.py): after every edit, what it
publishes equals a lint of the new text from scratch."""

from __future__ import annotations

import contextlib
import gc
import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES

from hlsllint.config import ConfigResolver
from hlsllint.deadline import Cancelled, Deadline, active
from hlsllint.lint import hold_collection
from hlsllint.server import incremental
from hlsllint.server.document_lint import lint_document, publishable
from hlsllint.server.incremental import Snapshot, prepare, relint, snapshot

HEADER = """\
float3 shade(float3 n, float3 l)
{
    float ndl = saturate(dot(n, l));
    return ndl * float3(1, 1, 1);
}

float unused_helper(float x)
{
    return sign(x) < 0 ? 0.0 : x;
}
"""

MAIN = """\
#include "lib.hlsli"
#define SCALE 2.0

cbuffer Constants : register(b0)
{
    float4x4 ViewProj;
    float Exposure;
};

RWTexture2D<float4> Output : register(u0);
Texture2D<float4> Input : register(t0);
SamplerState Linear : register(s0);
groupshared float4 Tile[64];

float probe(float x)
{
    return x < 0 ? 1.0 : 0.0;
}

float lonely(float y)
{
    float z = y * SCALE;
    return sign(z) == 0 ? 1.0 : z;
}

float4 blur(uint i)
{
    float4 sum = 0;
    for (int k = 0; k < 8; ++k)
        sum += Input.Load(int3(i + k, 0, 0));
    return sum / 8.0;
}

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    Tile[gi] = Input.SampleLevel(Linear, float2(id.xy) / 64.0, 0);
    GroupMemoryBarrierWithGroupSync();
    float3 c = shade(Tile[gi].xyz, float3(0, 1, 0)) * Exposure;
    Output[id.xy] = float4(c * probe(c.x), 1.0) + blur(gi);
}

float4 ps(float4 pos : SV_Position) : SV_Target
{
    float v = lonely(pos.x);
    return float4(v, v * v, sign(pos.y) * pos.x, 1.0);
}
"""

PIECES = [" ", "\n", "1", "x", " + 1.0", "sign(c.x) < 0 ? 1.0 : 0.0", ";", "(", ")", "{", "}", "k", "\n    "]
STATEMENTS = [
    "    float q = 1.0;\n",
    "    float s = sign(q) < 0 ? 1.0 : 0.0;\n",
    "    float t = sign(q) * (q + q * 2.0);\n",
    "    if (q > 0) q = 0.5;\n",
    "    for (int j = 0; j < 4; ++j) q += 1.0;\n",
]


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "hlsllint.toml").write_text('select = ["HL"]\n', encoding="utf-8")
    (tmp_path / "lib.hlsli").write_text(HEADER, encoding="utf-8")
    return tmp_path


def _edit(rng: random.Random, text: str, snap: Snapshot) -> str:
    """A random small edit of the text, mostly inside a function body (of the last snapshot)."""
    bodies = [f.body for f in snap.functions if f.path == snap.path and f.body is not None]
    if bodies and rng.random() < 0.9:
        start, end = rng.choice(bodies)
        at = min(len(text), rng.randint(start, end))
    else:
        at = rng.randint(0, len(text))
    if rng.random() < 0.5:  # a whole statement at the start of a line
        at = text.rfind("\n", 0, at) + 1
        return text[:at] + rng.choice(STATEMENTS) + text[at:]
    if rng.random() < 0.4:
        return text[:at] + text[min(len(text), at + rng.randint(1, 6)) :]
    return text[:at] + rng.choice(PIECES) + text[at:]


def _walk(path: str, text: str, steps: int, seed: int, views: list[int] | None = None) -> tuple[int, int]:
    """Edit `text` `steps` times as the server would (an edit is often undone by the next, as
    typing is corrected, nearly always when it broke the syntax); every result must equal a
    fresh lint. Returns (incremental results,
    from-scratch results). With `views`, each incremental result's pressure view (made from its
    analyses and the last view, as the server's inlay hints are) must equal a fresh lint's too;
    `views` gets how many were so made, and how many needed the unit built again."""
    resolver = ConfigResolver()
    settings = resolver.for_path(path)
    rng = random.Random(seed)
    done = lint_document(path, text, resolver, settings)
    assert done.context is not None
    snap = snapshot(done.context, path, text, settings, None, done.findings)
    assert snap is not None
    last = snap
    history = [text]
    incremental = full = 0
    if views is not None:
        from hlsllint.server.pressure_view import build_pressure_view, view_after_relint

        viewed = {text: build_pressure_view(path, done.context, settings)}
        views[:] = [0, 0]
    for _ in range(steps):
        if len(history) > 1 and rng.random() < (0.4 if snap is not None else 0.9):
            history.pop()
        else:
            history.append(_edit(rng, history[-1], last))
        text = history[-1]
        fresh = lint_document(path, text, resolver, settings)
        again = relint(snap, text) if snap is not None else None
        if again is None:
            full += 1
            assert fresh.context is not None
            snap = snapshot(fresh.context, path, text, settings, None, fresh.findings)
        else:
            incremental += 1
            assert publishable(again.findings, path, text, resolver) == fresh.diagnostics, text
            snap = again.snapshot
        if views is not None:
            assert fresh.context is not None
            want = build_pressure_view(path, fresh.context, settings)
            basis = viewed.get(again.basis) if again is not None else None
            made = None
            if again is not None and basis is not None:
                made = view_after_relint(path, again.context, settings, basis, again.shift, again.entries)
                assert made is None or made == want, text
            views[0 if made is not None else 1] += 1
            viewed[text] = want
        last = snap or last
    return incremental, full


def _main_snapshot(folder: Path) -> tuple[str, ConfigResolver, Snapshot]:
    """MAIN linted whole, and the snapshot an incremental lint starts from."""
    path = os.path.normpath(str(folder / "main.hlsl"))
    resolver = ConfigResolver()
    settings = resolver.for_path(path)
    done = lint_document(path, MAIN, resolver, settings)
    assert done.context is not None
    snap = snapshot(done.context, path, MAIN, settings, None, done.findings)
    assert snap is not None
    return path, resolver, snap


# An edit inside `lonely`, which only `ps` reaches.
EDITED = MAIN.replace("    return sign(z) == 0", "    z = z * 0.5;\n    return sign(z) == 0", 1)


def test_edits_in_one_body_reanalyse_only_its_group(folder: Path) -> None:
    path, resolver, snap = _main_snapshot(folder)
    # `lonely` is reached from `ps` only: main, probe, blur and the header's shade are not analysed.
    text = EDITED
    again = relint(snap, text)
    assert again is not None
    assert again.analysed == 2  # lonely and ps
    assert (
        publishable(again.findings, path, text, resolver) == lint_document(path, text, resolver).diagnostics
    )
    # An edit in `probe` re-analyses main's group (and the header's helpers it calls).
    at = MAIN.index("return x < 0")
    text = MAIN[:at] + "return sign(x) < 0 ? 1.0 : 0.0; " + MAIN[at:]
    again = relint(snap, text)
    assert again is not None
    codes = [d.code for d in publishable(again.findings, path, text, resolver)]
    assert codes == [d.code for d in lint_document(path, text, resolver).diagnostics]
    assert codes.count("HL105") == 3  # the new one, `lonely`'s and `ps`'s (reused)
    # An edit outside any body (a global) is linted from scratch.
    assert relint(snap, MAIN.replace("float Exposure;", "float Exposure; float Gain;")) is None
    # So is a directive typed into a body.
    assert relint(snap, MAIN.replace("float z = y * SCALE;", "#define Q 1\n    float z = y * SCALE;")) is None


def test_random_edits_equal_a_fresh_lint(folder: Path) -> None:
    path = os.path.normpath(str(folder / "main.hlsl"))
    incremental, full = _walk(path, MAIN, 40, seed=7)
    assert incremental >= 10, (incremental, full)  # the incremental path is exercised


@pytest.mark.parametrize(
    "fixture",
    [
        "HL105/bad_long_operands.hlsl",
        "HL201/bad_many_accumulators.hlsl",
        "HL204/bad_loop_carried_value.hlsl",
        "HL107/bad_unused_by_pixel.hlsl",
        "HL113/bad_neighbourhoods.hlsl",
        "HL101/bad_uniform_typed_loads.hlsl",
    ],
)
def test_random_edits_of_fixtures_equal_a_fresh_lint(folder: Path, fixture: str) -> None:
    source = FIXTURES / fixture
    if not source.exists():
        pytest.skip(f"{fixture} is gone")
    path = os.path.normpath(str(folder / source.name))
    _walk(path, source.read_text(encoding="utf-8"), 6, seed=len(fixture))


@pytest.mark.parametrize("seed", [2, 5])
def test_pressure_views_after_relints_equal_a_fresh_lint(folder: Path, seed: int) -> None:
    """The editor's inlay hints and hover after an incremental lint come from its analyses (the
    entry points it analysed whole) and the last view (the others, rows moved), not from the
    unit built again: equal to a fresh lint's view after every edit of a random walk."""
    path = os.path.normpath(str(folder / "main.hlsl"))
    views: list[int] = []
    incremental, _ = _walk(path, MAIN, 30, seed, views)
    assert views[0] == incremental >= 8, views  # every incremental result had its view made so


@pytest.mark.parametrize("fixture", ["HL201/bad_many_accumulators.hlsl", "HL113/bad_neighbourhoods.hlsl"])
def test_pressure_views_of_fixtures_after_relints_equal_a_fresh_lint(folder: Path, fixture: str) -> None:
    source = FIXTURES / fixture
    if not source.exists():
        pytest.skip(f"{fixture} is gone")
    path = os.path.normpath(str(folder / source.name))
    views: list[int] = []
    incremental, _ = _walk(path, source.read_text(encoding="utf-8"), 12, 3, views)
    assert views[0] == incremental > 0, views


def test_a_view_after_a_relint_keeps_the_entry_point_the_edit_does_not_run(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit in `lonely` (which `ps` alone runs, a line added): `ps`'s figures come from the
    incremental lint, `main`'s from the last view with its rows moved down; nothing is built
    again (no unit linted, preprocessed or parsed) and the view equals a fresh lint's."""
    from hlsllint.server import document_lint
    from hlsllint.server.pressure_view import build_pressure_view, view_after_relint

    path, resolver, snap = _main_snapshot(folder)
    settings = snap.settings
    first = lint_document(path, MAIN, resolver, settings)
    assert first.context is not None
    last = build_pressure_view(path, first.context, settings)
    assert last is not None
    again = relint(snap, EDITED)
    assert again is not None and again.basis == MAIN
    assert again.entries == {"ps"}
    built: list[object] = []
    for module, name in [
        (document_lint, "front_end"),
        (document_lint, "lint_unit"),
        (incremental, "lint_unit"),
    ]:
        monkeypatch.setattr(module, name, lambda *a, **k: built.append(a))
    view = view_after_relint(path, again.context, settings, last, again.shift, again.entries)
    monkeypatch.undo()
    assert built == []
    fresh = lint_document(path, EDITED, resolver, settings)
    assert fresh.context is not None
    assert view is not None and view == build_pressure_view(path, fresh.context, settings)
    main = next(e for e in view.entries if e.entry == "main")
    old_main = next(e for e in last.entries if e.entry == "main")
    assert main.peak_row == (old_main.peak_row or 0) + 1  # `main` lies below the added line


def test_a_name_the_edit_completes_reaches_the_function_it_now_calls(folder: Path) -> None:
    """`loney(pos.x)` calls nothing (`lonely` goes from the blanked unit: no code names it); one
    typed letter makes it `lonely`, which must be analysed (its HL105) though the letter alone
    is no name of the unit."""
    path = os.path.normpath(str(folder / "main.hlsl"))
    resolver = ConfigResolver()
    settings = resolver.for_path(path)
    typo = MAIN.replace("float v = lonely(pos.x);", "float v = loney(pos.x);")
    done = lint_document(path, typo, resolver, settings)
    assert done.context is not None
    snap = snapshot(done.context, path, typo, settings, None, done.findings)
    assert snap is not None
    again = relint(snap, MAIN)
    fresh = lint_document(path, MAIN, resolver, settings).diagnostics
    assert any(d.code == "HL105" and "sign(z) == 0" in d.message for d in fresh)
    assert again is None or publishable(again.findings, path, MAIN, resolver) == fresh


def test_findings_at_one_place_are_published_in_one_order(folder: Path) -> None:
    """HL202 reports each entry point at the same declaration: the order must not depend on
    which part of the unit was analysed again."""
    from hlsllint.diagnostics import Diagnostic, Severity
    from hlsllint.source import Location

    path = os.path.normpath(str(folder / "main.hlsl"))

    def at_decl(entry: str) -> Diagnostic:
        return Diagnostic(
            "HL202", "lds-occupancy", f"`{entry}`: groupshared", Severity.WARNING, path, 0, 5,
            Location(1, 1), Location(1, 6),
        )  # fmt: skip

    a, b = at_decl("A"), at_decl("B")
    resolver = ConfigResolver()
    assert publishable([b, a], path, MAIN, resolver) == publishable([a, b], path, MAIN, resolver) == [a, b]


def test_a_cancel_reaches_an_incremental_lint(folder: Path) -> None:
    """An edit made stale by a newer one stops an incremental lint too (it used to analyse under
    a token of its own, with the settings' budget, that no cancel reached)."""
    _, _, snap = _main_snapshot(folder)
    text = EDITED
    token = Deadline(0)
    token.cancel()
    with pytest.raises(Cancelled), active(token):
        relint(snap, text)
    again = relint(snap, text)  # not cancelled: as before
    assert again is not None and again.analysed == 2


def _engine_header(count: int) -> str:
    """An engine-style header: a frame cbuffer and samplers every helper reads, a struct with
    methods, a struct closed by `;` right before a helper, a static global one helper writes and
    another reads, groupshared memory, a vertex entry point of its own, and `count` helpers that
    call one another."""
    parts = [
        "cbuffer FrameBuffer : register(b0)\n{\n    float4x4 view_projection;\n    float3 camera;\n"
        "    float delta_time;\n};\n",
        "SamplerState samplers[4] : register(s0);\nTexture2D<float4> tex : register(t0);\n",
        "RWTexture2D<float4> tex_uav : register(u0);\nstatic float frame_scale = 1.0;\n",
        "groupshared float4 shared_tile[64];\n",
        "struct Surface\n{\n    float3 albedo;\n    float roughness;\n"
        "    float3 tinted(float3 c) { return albedo * c * frame_scale; }\n};\n",
        "struct Analysis\n{\n    float curvature;\n    float flow;\n};\n",
    ]
    for i in range(count):
        callee = f"helper_{i - 1}(x * 0.5, uv)" if i % 3 else "x"
        parts.append(
            f"// helper {i}: a comment that belongs to it\n"
            f"float helper_{i}(float x, float2 uv)\n{{\n"
            f"    float y = {callee} + camera.x * delta_time;\n"
            f"    float4 t = tex.SampleLevel(samplers[{i % 4}], uv, 0);\n"
            f"    for (int k = 0; k < {2 + i % 5}; ++k)\n        y += t[k % 4] * {i}.5;\n"
            f"    return sign(y) < 0 ? 0.0 : y;\n}}\n"
        )
    parts.append("void set_scale(float s)\n{\n    frame_scale = s * delta_time;\n}\n")
    parts.append(
        "float4 transform_vs(float3 p : POSITION) : SV_Position\n{\n"
        "    return mul(view_projection, float4(p * helper_1(p.x, p.xy), 1.0));\n}\n"
    )
    return "\n".join(parts)


ENGINE_MAIN = """\
#include "engine.hlsli"

struct Blend
{
    float weight;
    float apply(float a, float b) { return lerp(a, b, saturate(weight * delta_time)); }
};

float probe(float x)
{
    return x < 0 ? 1.0 : 0.0;
}

float shade(Surface s, float2 uv)
{
    float3 c = s.tinted(float3(uv, 1.0));
    return helper_4(c.x, uv) + probe(c.y);
}

[numthreads(8, 8, 1)]
void main_cs(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    float2 uv = (id.xy + 0.5) / 64.0;
    Surface s;
    s.albedo = tex_uav[id.xy].rgb;
    s.roughness = 0.5;
    shared_tile[gi] = float4(s.albedo, 1.0);
    GroupMemoryBarrierWithGroupSync();
    float v = shade(s, uv) + shared_tile[(gi + 1) % 64].x;
    tex_uav[id.xy] = float4(v, v * frame_scale, helper_2(v, uv), 1.0);
}

float4 main_ps(float4 pos : SV_Position) : SV_Target
{
    set_scale(pos.x);
    Blend b;
    b.weight = pos.z;
    return float4(probe(pos.y), helper_0(pos.x, pos.xy), b.apply(pos.x, pos.y), 1.0);
}
"""


def test_edits_below_an_engine_header_analyse_what_the_edit_reaches(folder: Path) -> None:
    """A header of many helpers that every function reads through one cbuffer and one sampler
    array: an edit in the main file (in a function or a struct's method) re-analyses what the
    edited function reaches (its callers up to their entry points, its callees, the methods
    they call), not the header's other helpers, methods and entry points, and every result
    equals a fresh lint."""
    (folder / "engine.hlsli").write_text(_engine_header(45), encoding="utf-8")
    path = os.path.normpath(str(folder / "engine_main.hlsl"))
    resolver = ConfigResolver()
    settings = resolver.for_path(path)
    done = lint_document(path, ENGINE_MAIN, resolver, settings)
    assert done.context is not None
    snap = snapshot(done.context, path, ENGINE_MAIN, settings, None, done.findings)
    assert snap is not None
    total = len(snap.functions)
    edits = [
        ENGINE_MAIN.replace(
            "s.roughness = 0.5;", "s.roughness = 0.5; float q = sign(v0) < 0 ? 1.0 : q;"
        ).replace("float2 uv = (id.xy", "float v0 = 1.0; float2 uv = (id.xy"),
        ENGINE_MAIN.replace("return x < 0 ?", "x = x * 2.0;\n    return x < 0 ?"),
        ENGINE_MAIN.replace("set_scale(pos.x);", "set_scale(pos.x * 2.0);"),
        ENGINE_MAIN.replace("helper_4(c.x, uv)", "helper_4(c.x, uv) + helper_40(c.z, uv)"),
        ENGINE_MAIN.replace("saturate(weight * delta_time)", "sign(weight) < 0 ? 0.0 : weight"),
    ]
    for text in edits:
        assert text != ENGINE_MAIN
        again = relint(snap, text)
        assert again is not None, text
        assert again.analysed < total // 3, (again.analysed, total)
        fresh = lint_document(path, text, resolver, settings)
        assert publishable(again.findings, path, text, resolver) == fresh.diagnostics, text
    incremental, full = _walk(path, ENGINE_MAIN, 10, seed=24)
    assert incremental >= 2, (incremental, full)


def test_a_function_left_out_keeps_the_semicolon_of_the_struct_before_it(folder: Path) -> None:
    """A function left out of the analysis goes whole, from the end of the code before it: the
    `;` closing a struct above it is not its own (blanking it made the struct swallow the next
    declaration, and every edit was linted from scratch)."""
    (folder / "lib.hlsli").write_text(
        "struct Pair\n{\n    float a;\n    float b;\n};\n\n"
        "float unreached(float v)\n{\n    return v * 2.0;\n}\n\n"
        "struct Other\n{\n    float c;\n};\n",
        encoding="utf-8",
    )
    path, resolver, snap = _main_snapshot(folder)
    again = relint(snap, EDITED)
    assert again is not None
    fresh = lint_document(path, EDITED, resolver)
    assert publishable(again.findings, path, EDITED, resolver) == fresh.diagnostics


def test_a_fix_writing_a_built_in_type_is_reused(folder: Path) -> None:
    """HL104's fix writes `bool2`, a word the text need not hold: it is a type, not a fresh name
    made up across the unit, so an edit elsewhere still reuses the finding (it used to make
    every edit of such a file a lint from scratch)."""
    flags = (
        "float2 flagged(float2 a, float2 b)\n{\n    float2 pick = step(0.25, b);\n"
        "    return lerp(a, b * 2.0, pick);\n}\n\n"
    )
    text = MAIN.replace("float4 blur(uint i)", flags + "float4 blur(uint i)").replace(
        "+ blur(gi);", "+ blur(gi) * flagged(c.xy, c.yz).x;"
    )
    path = os.path.normpath(str(folder / "main.hlsl"))
    resolver = ConfigResolver()
    settings = resolver.for_path(path)
    done = lint_document(path, text, resolver, settings)
    assert done.context is not None
    assert any(d.code == "HL104" and d.fix is not None for d in done.findings)
    snap = snapshot(done.context, path, text, settings, None, done.findings)
    assert snap is not None
    edited = text.replace("    float z = y * SCALE;", "    float z = y * SCALE * 0.5;")
    again = relint(snap, edited)
    assert again is not None
    fresh = lint_document(path, edited, resolver)
    assert publishable(again.findings, path, edited, resolver) == fresh.diagnostics


def test_an_edit_after_an_incremental_lint_parses_again_only_what_changed(folder: Path) -> None:
    """The blanked unit of an edit is the last one's but for the edit: its tree is parsed from
    the last relint's (tree-sitter's incremental parse), and the findings still equal a fresh
    lint's. A lint from scratch leaves no tree to start from (its unit is not blanked)."""
    from hlsllint.syntax.reparse import STATS

    path, resolver, snap = _main_snapshot(folder)
    assert snap.tree is None
    texts = [EDITED, EDITED.replace("z = z * 0.5;", "z = z * 0.25;"), MAIN]
    before = STATS.reparsed
    for i, text in enumerate(texts):
        again = relint(snap, text)
        assert again is not None, text
        assert again.snapshot.tree is not None
        assert STATS.reparsed - before == i  # the first starts from a lint from scratch
        fresh = lint_document(path, text, resolver)
        assert publishable(again.findings, path, text, resolver) == fresh.diagnostics, text
        snap = again.snapshot


def test_a_word_is_found_where_the_identifier_pattern_finds_it() -> None:
    """Whether a fix writes a name the unit holds is asked of the name, not of every identifier
    of the 200,000-character unit: the answer is findall's, digits, underscores, letters that
    are not ASCII and the text's ends included."""
    from hlsllint.server.incremental import IDENT, holds_word

    rng = random.Random(3)
    alphabet = ["a", "b", "_", "1", "é", " ", "(", ".", "ab", "b1"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        words = set(IDENT.findall(text))
        for name in ("a", "b", "ab", "_", "b1", "a_b", "_a"):
            assert holds_word(text, name) == (name in words), (text, name)


@contextlib.contextmanager
def collections_started() -> Iterator[list[int]]:
    """The generations of the cyclic garbage collections that start inside the block."""
    started: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        yield started
    finally:
        gc.callbacks.remove(seen)


def test_no_garbage_collection_walks_an_incremental_lint_midway(folder: Path) -> None:
    """The objects of a relint live until it returns (and the analyses it hands the pressure
    view after): a cyclic collection in the middle only walks them in vain (50-70 ms an edit on
    an engine pixel shader), so none runs inside; the collector is on again afterwards. (The
    first collection after it walks what it keeps: the server holds it off until the
    publication, `hold_collection`, as here.)"""
    _, _, snap = _main_snapshot(folder)
    assert gc.isenabled()
    release = hold_collection()
    try:
        with collections_started() as started:
            again = relint(snap, EDITED)
    finally:
        release()
    assert again is not None
    assert started == []
    assert gc.isenabled()


def test_the_collector_waits_for_the_publication_of_a_held_relint(folder: Path) -> None:
    """The server holds the garbage collector off from an incremental lint to the publication
    of its diagnostics (the lint's objects, kept for the pressure view, would be walked by the
    next collection first): the relint's own hold does not end it, the server's release does
    (once; a second call changes nothing)."""
    _, _, snap = _main_snapshot(folder)
    assert gc.isenabled()
    release = hold_collection()
    try:
        with collections_started() as started:
            again = relint(snap, EDITED)
            assert again is not None and again.context is not None  # kept for the pressure view
            assert not gc.isenabled()
            garbage = [[] for _ in range(200_000)]  # past any threshold: still no collection
            del garbage
        assert started == []
    finally:
        release()
    assert gc.isenabled()
    other = hold_collection()
    release()  # already released: does not end the other hold
    assert not gc.isenabled()
    other()
    assert gc.isenabled()


VARIANT_HEADER = """\
cbuffer Frame : register(b0)
{
    float frame_time;
    float frame_scale;
};

float header_curve(float a)
{
    return a * a + frame_time;
}

float header_mode(float a)
{
#define HEADER_BIAS 1.0
    return header_curve(a) + HEADER_BIAS;
}
"""

PAIR_HEADER = """float header_pair(float a)
{
    struct LocalPair
    {
        float first;
        float second;
    } p;
    p.first = a;
    p.second = a * 2.0;
    return p.first + p.second;
}
"""

VARIANT_MAIN = """\
#include "variant.hlsli"

#ifdef SKINNED
float4 main_vs(float4 p : POSITION, float4 w : BLENDWEIGHT) : SV_Position
{
    p *= w.x;
#else
float4 main_vs(float4 p : POSITION) : SV_Position
{
#endif
    return p * header_mode(frame_scale);
}

float4 main_ps(float4 pos : SV_Position) : SV_Target
{
    float v = pos.x * frame_scale;
    return float4(v, v * 0.5, 0.0, 1.0);
}
"""

PROBE = "float q = 0.5; q = sign(q) < 0 ? 1.0 : 0.0; v += q;"


def _variant_snapshot(folder: Path, header: str, main: str) -> tuple[str, ConfigResolver, Snapshot]:
    (folder / "variant.hlsli").write_text(header, encoding="utf-8")
    path = os.path.normpath(str(folder / "variant_main.hlsl"))
    resolver = ConfigResolver()
    done = lint_document(path, main, resolver, resolver.for_path(path))
    assert done.context is not None
    snap = snapshot(done.context, path, main, resolver.for_path(path), None, done.findings)
    assert snap is not None
    return path, resolver, snap


def _probe_there_and_back(path: str, resolver: ConfigResolver, snap: Snapshot, main: str) -> list[int]:
    """Type the HL105 probe into `main_ps` and take it out again, each relint from the last one's
    snapshot: both must equal a fresh lint (the probe's finding comes, then goes: a stale result
    fails). Returns how many functions each relint analysed."""
    anchor = "    return float4(v, v * 0.5"
    probed = main.replace(anchor, f"    {PROBE}\n{anchor}", 1)
    analysed = []
    for text, probe in ((probed, True), (main, False)):
        again = relint(snap, text)
        assert again is not None, incremental.last_reason
        fresh = lint_document(path, text, resolver).diagnostics
        assert publishable(again.findings, path, text, resolver) == fresh
        assert any(d.code == "HL105" for d in fresh) == probe
        analysed.append(again.analysed)
        snap = again.snapshot
    return analysed


def test_a_struct_declared_in_a_header_body_does_not_stop_a_relint(folder: Path) -> None:
    """A struct local to a header function (WickedEngine's `draw_line`) goes with the body when
    it is blanked: no code left names it, so the edit is still linted incrementally (every edit
    of such a file was linted from scratch: 'the top-level names changed')."""
    header = VARIANT_HEADER + PAIR_HEADER
    main = VARIANT_MAIN.replace("return float4(v,", "v += header_pair(v) * 0.0;\n    return float4(v,")
    path, resolver, snap = _variant_snapshot(folder, header, VARIANT_MAIN)
    _probe_there_and_back(path, resolver, snap, VARIANT_MAIN)
    # An edit in the function that calls it analyses it (and the struct) again.
    path, resolver, snap = _variant_snapshot(folder, header, main)
    _probe_there_and_back(path, resolver, snap, main)


def test_an_entry_point_with_conditional_directives_in_its_body_is_left_out(folder: Path) -> None:
    """An entry point whose signature differs per variant holds an `#endif` in its body: the body
    is blanked but for its directive lines, so an edit in another entry point does not analyse
    it (it was never blanked, and everything it mentions was analysed with it)."""
    path, resolver, snap = _variant_snapshot(folder, VARIANT_HEADER, VARIANT_MAIN)
    vs = next(f for f in snap.functions if f.name == "main_vs")
    assert vs.body is not None and "#endif" in VARIANT_MAIN[vs.body[0] : vs.body[1]]
    # main_ps, and header_mode, which is always there (its body holds a #define)
    assert _probe_there_and_back(path, resolver, snap, VARIANT_MAIN) == [2, 2]
    # An edit in main_vs itself, between its directives, still equals a fresh lint.
    text = VARIANT_MAIN.replace("    return p * header_mode", "    p.y += 1.0;\n    return p * header_mode")
    again = relint(snap, text)
    assert again is not None, incremental.last_reason
    fresh = lint_document(path, text, resolver).diagnostics
    assert publishable(again.findings, path, text, resolver) == fresh


def test_header_code_never_blanked_does_not_pull_in_what_it_calls(folder: Path) -> None:
    """Header code that is never blanked (a body holding a #define) and that no analysed function
    reaches is there, but what it calls is not analysed with it: its callee keeps its signature
    with an empty body (header_curve was analysed after every edit below the header)."""
    main = VARIANT_MAIN.replace("p * header_mode(frame_scale)", "p")
    path, resolver, snap = _variant_snapshot(folder, VARIANT_HEADER, main)
    assert _probe_there_and_back(path, resolver, snap, main) == [2, 2]  # main_ps, header_mode


METHODS_HEADER = """\
float far_helper(float a)
{
    return a * 3.0;
}

struct Light
{
    float power;
    float init(float p) { power = p; return power; }
};

struct Probe
{
    float weight;
    // main_ps does not call this: a comment naming a function joins nothing
    float init(float w) { weight = far_helper(w); return weight; }
};
"""

METHODS_MAIN = """\
#include "variant.hlsli"

float4 main_ps(float4 pos : SV_Position) : SV_Target
{
    Light light;
    float v = light.init(pos.x);
    return float4(v, v * 0.5, 0.0, 1.0);
}
"""


def test_a_method_call_reaches_the_method_it_calls_not_every_one_of_its_name(folder: Path) -> None:
    """Engine headers give methods of many structs one name (`init`): an edit calling
    `Light::init` analyses that method, not `Probe::init` and what it calls (by name alone it
    reached them all); nor does a comment naming the edited function make its holder a caller."""
    path, resolver, snap = _variant_snapshot(folder, METHODS_HEADER, METHODS_MAIN)
    # main_ps, Light::init and the two structs (always there: they hold methods)
    assert _probe_there_and_back(path, resolver, snap, METHODS_MAIN) == [4, 4]
    assert {f.method for f in snap.functions if f.name == "init"} == {"Light::init", "Probe::init"}


TWO_ENTRIES = """\
static float frame_scale = 1.0;
RWTexture2D<float4> Output : register(u0);
Texture2D<float4> Input : register(t0);

float compute_side(float x)
{
    frame_scale = x;
    return x < 0 ? 1.0 : 0.0;
}

float pixel_side(float y)
{
    float z = y * frame_scale;
    return sign(z) < 0 ? 1.0 : 0.0;
}

[numthreads(8, 8, 1)]
void main_cs(uint3 id : SV_DispatchThreadID)
{
    float v = compute_side(Input[id.xy].x);
    Output[id.xy] = float4(v * frame_scale, 0.0, 0.0, 1.0);
}

float4 main_ps(float4 pos : SV_Position) : SV_Target
{
    frame_scale = pos.z;
    float v = pixel_side(pos.y);
    return float4(v, sign(pos.x) < 0 ? 1.0 : 0.0, frame_scale, 1.0);
}
"""


def test_an_edit_one_entry_point_runs_keeps_the_other_though_both_write_a_static(folder: Path) -> None:
    """Both entry points write and read the static `frame_scale`, but each is a program of its
    own: an edit in `compute_side`, which only `main_cs` runs, analyses `main_cs` and its callee
    again and keeps `main_ps` (blanked, with its findings) and `pixel_side`; every result equals
    a fresh lint. (Before, the static joined the two: all four were analysed.)"""
    path = os.path.normpath(str(folder / "two.hlsl"))
    resolver = ConfigResolver()
    settings = resolver.for_path(path)
    done = lint_document(path, TWO_ENTRIES, resolver, settings)
    assert done.context is not None
    snap = snapshot(done.context, path, TWO_ENTRIES, settings, None, done.findings)
    assert snap is not None
    kept = [d for d in done.findings if d.start_offset > TWO_ENTRIES.index("float pixel_side")]
    assert [d.code for d in kept] == ["HL105", "HL105"]  # pixel_side's and main_ps's, kept below
    edits = [
        TWO_ENTRIES.replace("return x < 0 ?", "x = x * 2.0;\n    return sign(x) < 0 ?"),
        TWO_ENTRIES.replace("    frame_scale = x;", "    frame_scale = x * 0.5;"),
        TWO_ENTRIES.replace(
            "    frame_scale = x;", "    float w = sign(x) < 0 ? 1.0 : 0.0;\n    frame_scale = x;"
        ),
    ]
    for text in edits:
        again = relint(snap, text)
        assert again is not None, incremental.last_reason
        assert again.analysed == 2  # compute_side and main_cs
        body = again.snapshot.unit_text
        assert "pixel_side(pos.y)" not in body[: body.rfind("\n\n// ")]  # main_ps blanked
        assert (
            sum(d.code == "HL105" and d.start_offset > text.index("float pixel_side") for d in again.findings)
            == 2
        )
        fresh = lint_document(path, text, resolver, settings)
        assert publishable(again.findings, path, text, resolver) == fresh.diagnostics, text
    # An edit in main_ps analyses main_ps and pixel_side, and keeps main_cs.
    text = TWO_ENTRIES.replace("    frame_scale = pos.z;", "    frame_scale = pos.z * 2.0;")
    again = relint(snap, text)
    assert again is not None and again.analysed == 2, incremental.last_reason
    fresh = lint_document(path, text, resolver, settings)
    assert publishable(again.findings, path, text, resolver) == fresh.diagnostics
    incremental_runs, full = _walk(path, TWO_ENTRIES, 30, seed=29)
    assert incremental_runs >= 8, (incremental_runs, full)


def test_an_edit_whose_macro_now_writes_a_shared_global_is_checked_by_its_new_text(folder: Path) -> None:
    """The analysed part is chosen from the old text; the new text's names (a macro expanded)
    are checked against it: an edit that now writes a static which a function no entry point
    runs also reads is linted from scratch, and the next edit that does not goes on."""
    extra = (
        "static float other_scale = 2.0;\n#define OTHER other_scale\n"
        "float unreached_reader(float a)\n{\n    return a * other_scale;\n}\n\n"
    )
    text = extra + TWO_ENTRIES
    path = os.path.normpath(str(folder / "two.hlsl"))
    resolver = ConfigResolver()
    settings = resolver.for_path(path)
    done = lint_document(path, text, resolver, settings)
    assert done.context is not None
    snap = snapshot(done.context, path, text, settings, None, done.findings)
    assert snap is not None
    assert relint(snap, text.replace("    frame_scale = x;", "    OTHER = x;")) is None
    assert incremental.last_reason == "the edit reaches a function or global left out"
    edited = text.replace("    frame_scale = x;", "    frame_scale = x * 3.0;")
    again = relint(snap, edited)
    assert again is not None and again.analysed == 2, incremental.last_reason
    assert (
        publishable(again.findings, path, edited, resolver)
        == lint_document(path, edited, resolver).diagnostics
    )


def test_the_words_of_unchanged_declarations_are_read_once(folder: Path) -> None:
    """A relint reads the top-level names each declaration of the unit mentions (comments left
    out): an engine's headers give hundreds, the same every edit, read once and cached by their
    text and where its comments lie; the words are those of the text read afresh."""
    from hlsllint.server import unit_functions as uf

    (folder / "engine.hlsli").write_text(_engine_header(12), encoding="utf-8")
    path = os.path.normpath(str(folder / "engine_main.hlsl"))
    resolver = ConfigResolver()
    settings = resolver.for_path(path)
    done = lint_document(path, ENGINE_MAIN, resolver, settings)
    assert done.context is not None
    ctx = done.context
    held = uf.held_functions(ctx)
    names = uf.top_level_names(ctx, held)
    first = uf.structure(ctx, names, held=held)
    before = uf.STATS.code_words
    assert uf.structure(ctx, names, held=held) == first
    assert uf.STATS.code_words == before  # every declaration's and function's words were cached
    text = "int a; /* b c */ float d; // e\nint f /* g */;\n"
    comments = [(7, 16), (26, 30), (37, 44)]
    rng = random.Random(5)
    for _ in range(200):
        start = rng.randrange(len(text))
        end = rng.randrange(start, len(text) + 1)
        at, want = start, set()
        for cs, ce in comments:
            if cs >= start and cs < end:
                want.update(uf.IDENT.findall(text[at:cs]))
                at = max(at, ce)
        if at < end:
            want.update(uf.IDENT.findall(text[at:end]))
        assert uf._code_words(text, comments, start, end) == want, (start, end)


def test_the_structure_of_a_relint_takes_what_an_earlier_unit_read_alike(folder: Path) -> None:
    """A relint's structure pass takes the functions and declarations of the top-level nodes
    that lie where its unit reads as its basis's (the text and the source map alike) from the
    basis's pass, unless a function of the node is wanted in detail: the same result as
    reading every node again, whatever is wanted."""
    from hlsllint.server import unit_functions as uf

    (folder / "engine.hlsli").write_text(_engine_header(12), encoding="utf-8")
    path = os.path.normpath(str(folder / "engine_main.hlsl"))
    resolver = ConfigResolver()
    settings = resolver.for_path(path)
    done = lint_document(path, ENGINE_MAIN, resolver, settings)
    assert done.context is not None
    snap = snapshot(done.context, path, ENGINE_MAIN, settings, None, done.findings)
    assert snap is not None and prepare(snap) > 0
    text = ENGINE_MAIN.replace("set_scale(pos.x);", "set_scale(pos.x * 2.0);")
    before = uf.STATS.reused
    again = relint(snap, text)
    assert again is not None and again.context is not None
    assert uf.STATS.reused - before >= 6  # the header's declarations
    assert (
        publishable(again.findings, path, text, resolver) == lint_document(path, text, resolver).diagnostics
    )
    memo = again.started.structure if again.started is not None else None
    assert memo is not None
    ctx = again.context
    held = uf.held_functions(ctx)
    names = uf.top_level_names(ctx, held)
    placed = uf.structure(ctx, names, [False] * 10_000, held)
    assert placed is not None
    count = len(placed[0])
    rng = random.Random(7)
    for trial in range(6):
        wanted = [trial > 0 and rng.random() < 0.2 for _ in range(count)]
        keep = uf.structure_memo(ctx, names)
        assert uf.structure(ctx, names, wanted, held, memo, keep) == uf.structure(ctx, names, wanted, held)
