"""Compile-time constants the compiler folds (navi21 wave64, regtruth presched_vgprs)."""

from __future__ import annotations

from hlsllint.analysis.pressure import EntryDemand, analyse_entry
from hlsllint.context import AnalysisSettings
from hlsllint.semantic import build_model
from hlsllint.syntax import parse


def demand(text: str, entry: str = "main") -> EntryDemand:
    m = build_model(parse(text), AnalysisSettings())
    e = m.entry(entry)
    assert e is not None
    return analyse_entry(m, e, 64)


def test_intrinsics_of_constants_are_folded() -> None:
    # exp, sqrt, sin, lerp and max of literals are compile-time constants: the compiler folds them
    # into the instructions that read them. regtruth: presched_vgprs 10, presched_sgprs 13.
    # Left uniform values: 8 more VGPRs (or, before, 8 more SGPRs).
    d = demand(
        """
cbuffer C : register(b0) { uint n; };
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint id : SV_DispatchThreadID)
{
    float k0 = exp(-0.5);
    float k1 = sqrt(2.0);
    float k2 = sin(0.3);
    float k3 = lerp(1.0, 3.0, 0.25);
    float4 k = float4(k0, k1, k2, k3) * max(k0, 0.1);
    float4 acc = 0;
    for (uint i = id; i < n; i += 64) acc += o[i] * k + float4(k3, k2, k1, k0);
    o[id] = acc;
}
"""
    )
    assert 8 <= d.max_live_vgprs <= 12
    assert not {v.name for v in d.peak_values} & {"k", "k0", "k1", "k2", "k3"}
