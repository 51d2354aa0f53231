"""Time build_model + CFG + uniformity + liveness on a large generated shader, and (optionally)
on every entry point of a corpus folder.

    python bench/analysis_speed.py [CORPUS_DIR]

The generated shader has ~2,000 lines: many helper functions with loops, branches, texture
and buffer reads, all called from one compute entry point (so everything is inlined).
"""

from __future__ import annotations

import os
import sys
import time

from hlsllint.analysis import build_cfg, liveness, register_demand, uniformity
from hlsllint.context import AnalysisSettings
from hlsllint.semantic import build_model
from hlsllint.syntax import parse

HELPER = """
float4 helper{i}(float2 uv, uint idx)
{{
    float4 acc = 0;
    float w = uv.x * {i}.0 + uv.y;
    for (uint k = 0; k < count; k++)
    {{
        float4 t = tex.SampleLevel(samp, uv + k * 0.01, 0);
        if (t.w > threshold)
        {{
            acc += t * w;
            w *= 0.5;
        }}
        else
        {{
            acc -= buf[idx + k] * 0.25;
        }}
    }}
    uint r = raw.Load(idx * 4);
    acc.x += asfloat(r) + tile[idx & 63];
    return acc;
}}
"""

HEADER = """
cbuffer CB : register(b0) { uint count; float threshold; float4x4 xform; };
Texture2D<float4> tex : register(t0);
Buffer<float4> buf : register(t1);
ByteAddressBuffer raw : register(t2);
RWTexture2D<float4> outTex : register(u0);
SamplerState samp : register(s0);
groupshared float tile[64];
"""


def generated(n_helpers: int = 80) -> str:
    parts = [HEADER]
    parts += [HELPER.format(i=i) for i in range(n_helpers)]
    body = ["[numthreads(8, 8, 1)]", "void main(uint3 id : SV_DispatchThreadID, "
            "uint gi : SV_GroupIndex)", "{", "    float2 uv = id.xy / 512.0;",
            "    tile[gi] = uv.x;", "    GroupMemoryBarrierWithGroupSync();",
            "    float4 total = 0;"]  # fmt: skip
    body += [f"    total += helper{i}(uv, gi);" for i in range(n_helpers)]
    body += ["    outTex[id.xy] = mul(xform, total);", "}"]
    parts.append("\n".join(body))
    return "\n".join(parts)


def analyse(text: str) -> tuple[int, int, float, float]:
    t0 = time.perf_counter()
    model = build_model(parse(text), AnalysisSettings())
    t1 = time.perf_counter()
    n_instr = 0
    for e in model.entry_points:
        cfg = build_cfg(model, e)
        uni = uniformity(cfg)
        register_demand(cfg, liveness(cfg), uni, 64)
        n_instr += len(cfg.all_instrs())
    t2 = time.perf_counter()
    return len(model.entry_points), n_instr, t1 - t0, t2 - t1


def main() -> None:
    text = generated()
    lines = text.count("\n") + 1
    best = None
    for _ in range(3):
        r = analyse(text)
        best = r if best is None or r[2] + r[3] < best[2] + best[3] else best
    assert best is not None
    entries, n, tm, ta = best
    print(f"generated: {lines} lines, {entries} entry, {n} instructions: "
          f"parse+model {tm * 1000:.0f} ms, cfg+uniformity+liveness {ta * 1000:.0f} ms")  # fmt: skip
    if len(sys.argv) > 1:
        total = [0, 0, 0.0, 0.0]
        worst = (0.0, "")
        for root, _, files in os.walk(sys.argv[1]):
            for f in files:
                if not f.endswith((".hlsl", ".hlsli", ".fx", ".vert", ".frag", ".comp")):
                    continue
                path = os.path.join(root, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    r = analyse(fh.read())
                for i in range(4):
                    total[i] += r[i]
                if r[2] + r[3] > worst[0]:
                    worst = (r[2] + r[3], path)
        print(
            f"corpus: {total[0]} entries, {total[1]} instructions: model {total[2]:.2f} s, "
            f"analyses {total[3]:.2f} s; slowest file {worst[0] * 1000:.0f} ms {worst[1]}"
        )


if __name__ == "__main__":
    main()
