"""Write the calibration shader set (bench/pressure/shaders/*.hlsl).

Small shaders whose register demand is swept by one parameter, so that the estimate can be
checked for its slope as well as its level: accumulators kept live across a loop, texture
fetches issued before their use, matrices from typed/raw/constant memory, a heavy branch arm,
groupshared sizes with several group sizes, and vertex shaders with many outputs.

    python bench/pressure/make_shaders.py      # rewrites shaders/ (deterministic)
"""

from __future__ import annotations

from pathlib import Path

OUT = Path(__file__).resolve().parent / "shaders"


def accumulators(k: int) -> str:
    decl = "\n".join(f"    float4 a{j} = src[tid + {j}];" for j in range(k))
    body = "\n".join(f"        a{j} = a{j} * src[base + {j}] + a{(j + 1) % k}.yzwx;" for j in range(k))
    total = " + ".join(f"a{j}" for j in range(k))
    return f"""// {k} float4 accumulators live across a loop ({4 * k} values).
Buffer<float4> src : register(t0);
RWStructuredBuffer<float4> dst : register(u0);
cbuffer Params : register(b0) {{ uint count; uint stride; }};

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{{
{decl}
    for (uint i = 0; i < count; ++i)
    {{
        uint base = tid + i * stride;
{body}
    }}
    dst[tid] = {total};
}}
"""


def scalar_accumulators(k: int) -> str:
    decl = "\n".join(f"    float s{j} = src[tid * {k} + {j}];" for j in range(k))
    body = "\n".join(f"        s{j} = s{j} * src[base + {j}] + s{(j + 3) % k};" for j in range(k))
    total = " + ".join(f"s{j}" for j in range(k))
    return f"""// {k} float accumulators live across a loop.
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u0);
cbuffer Params : register(b0) {{ uint count; uint stride; }};

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{{
{decl}
    for (uint i = 0; i < count; ++i)
    {{
        uint base = (tid + i) * stride;
{body}
    }}
    dst[tid] = {total};
}}
"""


def textures(k: int) -> str:
    decls = "\n".join(f"Texture2D<float4> tex{j} : register(t{j});" for j in range(k))
    fetch = "\n".join(f"    float4 c{j} = tex{j}.Sample(smp, uv + float2({j} * 0.01, 0));" for j in range(k))
    combine = "\n".join(f"    r = r * c{j} + c{(j + 1) % k}.wzyx;" for j in range(k))
    return f"""// {k} texture samples fetched before they are combined.
{decls}
SamplerState smp : register(s0);

float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{{
{fetch}
    float4 r = 1;
{combine}
    return r;
}}
"""


MATRIX = {
    "typed": ("Buffer<float4> rows : register(t0);", "rows[index * 4 + {i}]"),
    "raw": ("ByteAddressBuffer rows : register(t0);", "asfloat(rows.Load4((index * 4 + {i}) * 16))"),
    "struct": ("StructuredBuffer<float4> rows : register(t0);", "rows[index * 4 + {i}]"),
    "cbuffer": ("cbuffer M : register(b1) { float4 mrows[64]; };", "mrows[index * 4 + {i}]"),
}


def matrix(kind: str, count: int) -> str:
    decl, load = MATRIX[kind]
    lines = []
    for m in range(count):
        rows = ", ".join(load.format(i=i).replace("index", f"(index + {m})") for i in range(4))
        lines.append(f"    float4x4 m{m} = float4x4({rows});")
    apply = "\n".join(f"    p = mul(m{m}, p);" for m in range(count))
    return f"""// {count} uniform 4x4 matrices from {kind} memory.
{decl}
StructuredBuffer<float4> points : register(t1);
RWStructuredBuffer<float4> dst : register(u0);
cbuffer Params : register(b0) {{ uint index; }};

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{{
{chr(10).join(lines)}
    float4 p = points[tid];
{apply}
    dst[tid] = p;
}}
"""


def heavy_branch(k: int) -> str:
    heavy_decl = "\n".join(f"        float4 h{j} = src[tid + {j} * 64];" for j in range(k))
    heavy_body = "\n".join(
        f"            h{j} = h{j} * src[tid + i + {j}] + h{(j + 1) % k}.yzwx;" for j in range(k)
    )
    heavy_sum = " + ".join(f"h{j}" for j in range(k))
    return f"""// One arm keeps {k} float4 live across a loop; the other keeps one.
Buffer<float4> src : register(t0);
RWStructuredBuffer<float4> dst : register(u0);
cbuffer Params : register(b0) {{ uint count; uint mode; }};

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{{
    float4 result;
    if (src[tid].w > 0.5)
    {{
{heavy_decl}
        for (uint i = 0; i < count; ++i)
        {{
{heavy_body}
        }}
        result = {heavy_sum};
    }}
    else
    {{
        result = src[tid] * 2.0;
    }}
    dst[tid] = result;
}}
"""


def groupshared(floats: int, threads: int) -> str:
    return f"""// {floats * 4} bytes of groupshared memory, {threads}-thread groups.
groupshared float cache[{floats}];
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u0);

[numthreads({threads}, 1, 1)]
void main(uint tid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{{
    for (uint i = gi; i < {floats}; i += {threads})
        cache[i] = src[tid + i];
    GroupMemoryBarrierWithGroupSync();
    float sum = 0;
    for (uint j = 0; j < 8; ++j)
        sum += cache[(gi * 7 + j * 13) % {floats}];
    dst[tid] = sum;
}}
"""


def vertex(k: int) -> str:
    outs = "\n".join(f"    float4 t{j} : TEXCOORD{j};" for j in range(k))
    sets = "\n".join(f"    o.t{j} = mul(world, v.pos + {j}.0) * v.extra.{'xyzw'[j % 4]};" for j in range(k))
    return f"""// A vertex shader with {k} float4 outputs.
cbuffer Camera : register(b0) {{ float4x4 world; float4x4 viewProj; }};

struct VSIn {{ float4 pos : POSITION; float4 extra : TEXCOORD0; }};
struct VSOut
{{
    float4 pos : SV_Position;
{outs}
}};

VSOut main(VSIn v)
{{
    VSOut o;
    o.pos = mul(viewProj, mul(world, v.pos));
{sets}
    return o;
}}
"""


def shaders() -> dict[str, str]:
    out: dict[str, str] = {}
    for k in (1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24):
        out[f"acc_{k:02d}.hlsl"] = accumulators(k)
    for k in (2, 4, 8, 16, 24, 32):
        out[f"sacc_{k:02d}.hlsl"] = scalar_accumulators(k)
    for k in (1, 2, 4, 6, 8, 12):
        out[f"tex_{k:02d}.hlsl"] = textures(k)
    for kind in MATRIX:
        for count in (1, 2, 4):
            out[f"matrix_{kind}_{count}.hlsl"] = matrix(kind, count)
    for k in (2, 4, 8, 12, 16):
        out[f"branch_{k:02d}.hlsl"] = heavy_branch(k)
    for floats, threads in (
        (1024, 64),
        (4096, 256),
        (8192, 1024),
        (6144, 256),
        (8192, 256),
        (2048, 1024),
        (12288, 512),
    ):
        out[f"lds_{floats * 4 // 1024:02d}k_{threads}.hlsl"] = groupshared(floats, threads)
    for k in (1, 4, 8, 12, 15):
        out[f"vs_out_{k:02d}.hlsl"] = vertex(k)
    return out


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob("*.hlsl"):
        old.unlink()
    for name, text in shaders().items():
        (OUT / name).write_text(text)
    print(f"wrote {len(shaders())} shaders to {OUT}")


if __name__ == "__main__":
    main()
