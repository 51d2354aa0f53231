"""A unit's model, tree and analyses die with its result (what the analyses keep is kept on the model)."""

from __future__ import annotations

import gc
import sys

from hlsllint.analysis import analyze
from hlsllint.analysis.ir import CFG
from hlsllint.analysis.pressure import analyse_entry
from hlsllint.config import Settings
from hlsllint.lint import FileLoader, lint_unit
from hlsllint.semantic import Model
from hlsllint.syntax import SyntaxTree

SHADER = """
RWTexture2D<float4> Out : register(u0);
Texture2D<float4> In : register(t0);
float Scale(float x) { return x * 2.0; }
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float4 v = In[id.xy];
    if (v.x > 0.5) { v *= Scale(v.y); }
    Out[id.xy] = v;
}
"""


def _alive(cls: type) -> int:
    """Objects of `cls` alive in the process (counted through the collector: an object of a
    class compiled by mypyc takes no weak reference)."""
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is cls)


def test_a_linted_unit_is_freed_with_its_result() -> None:
    path = "lifetime.hlsl"
    models, trees = _alive(Model), _alive(SyntaxTree)
    result = lint_unit(path, Settings(select=("HL",)), loader=FileLoader({path: SHADER}))
    assert result.context is not None
    model = result.context.model
    assert model.entry_points, "the analyses ran on an entry point"
    assert analyze(model).entry(model.entry_points[0].name).cfg is not None
    assert (_alive(Model), _alive(SyntaxTree)) == (models + 1, trees + 1)
    del model, result
    assert (_alive(Model), _alive(SyntaxTree)) == (models, trees)


def _tracked(cls: type) -> int:
    """Objects of `cls` the collector tracks, without collecting first: garbage in a reference
    cycle is still counted, what reference counting freed is not."""
    return sum(1 for o in gc.get_objects() if type(o) is cls)


def test_a_linted_unit_is_freed_without_the_collector() -> None:
    """No reference cycle holds a unit (the analyses kept in the model's memo, the indexes kept in
    a CFG's cache): each would leave the whole unit for the collector to find and free."""
    path = "lifetime.hlsl"
    gc.collect()
    gc.disable()
    try:
        before = (_tracked(Model), _tracked(SyntaxTree), _tracked(CFG))
        result = lint_unit(path, Settings(select=("HL",)), loader=FileLoader({path: SHADER}))
        assert result.context is not None
        model = result.context.model
        ea = analyze(model).entry(model.entry_points[0].name)
        assert ea is not None and ea.uniformity is not None and ea.value_uniformity is not None
        assert ea.liveness is not None and ea.loops is not None
        assert (_tracked(Model), _tracked(CFG)) == (before[0] + 1, before[2] + 1)
        del model, result, ea
        assert (_tracked(Model), _tracked(SyntaxTree), _tracked(CFG)) == before
    finally:
        gc.enable()


def test_a_unit_that_misses_an_include_is_freed_too() -> None:
    """The loader caches an unreadable path for the whole run. It used to cache the exception
    itself, which carried the traceback of its latest raise, and so the frames, tree and model of
    the unit that probed it last: every unit that missed an include stayed alive (SpartanEngine at
    `-j 1` grew to 2.3 GiB)."""
    loader = FileLoader({"a.hlsl": '#include "missing.hlsli"\n' + SHADER})
    before = (_alive(Model), _alive(SyntaxTree))
    for path in ("a.hlsl", "a.hlsl"):  # the second read of the missing include comes from the cache
        result = lint_unit(path, Settings(select=("HL",)), loader=loader)
        assert any(d.code == "HL002" for d in result.diagnostics)
        del result
    assert (_alive(Model), _alive(SyntaxTree)) == before


UNROLLED_NEST = """
Texture2D<float> depthTex : register(t0);
Texture2D<float> aoTex : register(t1);
SamplerState samp : register(s0);
cbuffer Cam : register(b0) { float4 viewport; float2 proj; };
float linearZ(float d) { return proj.y / (d - proj.x); }
float4 main(float4 pos : SV_Position) : SV_Target0
{
    float center = linearZ(depthTex.Load(int3(pos.xy, 0)));
    int2 base = int2(0.5 * floor(pos.xy));
    float sum = 0.0;
    for (int x = -1; x <= 1; x++)
    {
        for (int y = -1; y <= 1; y++)
        {
            int2 at = base + int2(x, y);
            float2 uv = (float2(at) + 0.5) * viewport.zw;
            float z = linearZ(depthTex.SampleLevel(samp, uv, 0.0));
            sum += aoTex.Load(int3(at, 0)) * exp(-abs(z - center));
        }
    }
    return sum;
}
"""


def test_a_linted_unit_leaves_no_cyclic_garbage() -> None:
    """Nothing a lint makes and drops is in a reference cycle, the analyses' working state
    included (the values held across unrolled iterations, `unrolled.unrolled_holds`,
    followed a nested function that called itself: each such nest left the entry point's
    instructions and values to the collector, 31,000 objects of an engine pixel shader's cold
    lint and a full collection every few lints of the editor)."""
    path = "nest.hlsl"

    def lint() -> None:
        result = lint_unit(path, Settings(select=("HL",)), loader=FileLoader({path: UNROLLED_NEST}))
        assert result.context is not None
        model = result.context.model
        ea = analyze(model).entry("main")
        assert ea is not None and ea.liveness is not None
        assert analyse_entry(model, model.entry_points[0], 64).max_live_vgprs > 0

    lint()  # what a first lint loads once (rules, entry points' metadata)
    gc.collect()
    gc.disable()
    try:
        lint()
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_no_collection_walks_a_unit_of_a_run_midway() -> None:
    """A run lints each unit with the cyclic collector held off (it would only walk the unit's
    live objects: there is no garbage to find), and turns it on again after the unit's
    context is dropped; a hold of the caller's (the language server's) stays in force."""
    from hlsllint.driver import _run_unit, _Unit
    from hlsllint.lint import hold_collection

    path = "nest.hlsl"
    loader = FileLoader({path: UNROLLED_NEST})
    unit = _Unit(path, Settings(select=("HL",)), None)
    started: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        """Collections that start inside `lint_unit` (not in the caller after it)."""
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_name != "lint_unit":
            frame = frame.f_back
        if phase == "start" and frame is not None:
            started.append(info["generation"])

    thresholds = gc.get_threshold()
    gc.set_threshold(50)  # a collection every 50 objects made, were it on
    gc.callbacks.append(seen)
    try:
        result = _run_unit(unit, loader)
        assert result.context is None and not any(d.code == "HL006" for d in result.diagnostics)
        assert started == []
        assert gc.isenabled()
        release = hold_collection()
        _run_unit(unit, loader)
        assert not gc.isenabled()
        release()
        assert gc.isenabled()
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)
