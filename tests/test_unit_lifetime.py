"""A unit's model, tree and analyses die with its result (the per-model caches hold them weakly)."""

from __future__ import annotations

import gc
import weakref

from hlsllint.config import Settings
from hlsllint.lint import FileLoader, lint_unit

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


def test_a_linted_unit_is_freed_with_its_result() -> None:
    path = "lifetime.hlsl"
    result = lint_unit(path, Settings(select=("HL",)), loader=FileLoader({path: SHADER}))
    assert result.context is not None
    model = result.context.model
    assert model.entry_points, "the analyses ran on an entry point"
    model_ref = weakref.ref(model)
    tree_ref = weakref.ref(result.context.tree)
    del model, result
    gc.collect()
    assert model_ref() is None
    assert tree_ref() is None
