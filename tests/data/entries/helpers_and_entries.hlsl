// Entry-point selection, hand-checked: the entries are those the comments name; every other
// function is a helper that `hlsllint pressure` must not report.
struct VSOut
{
    float4 pos : SV_Position;
    float2 uv : TEXCOORD0;
};

Texture2D<float4> gTex : register(t0);
SamplerState gSmp : register(s0);
RWStructuredBuffer<float4> gOut : register(u0);

// Helper: takes the interpolants (SV_Position inside) but returns an unlabelled value.
float4 Shade(VSOut v)
{
    return gTex.Sample(gSmp, v.uv);
}

// Helper: out parameters without semantics, never called in this file.
void Unpack(VSOut v, out float3 albedo, out float rough)
{
    float4 t = gTex.Sample(gSmp, v.uv);
    albedo = t.rgb;
    rough = t.a;
}

// Entry (pixel): void, only an SV_Position input (a depth-only / alpha-test pass).
void AlphaTestPS(VSOut v)
{
    clip(Shade(v).a - 0.5);
}

// Entry (vertex): SV_VertexID input, struct result.
VSOut FullscreenVS(uint id : SV_VertexID)
{
    VSOut o;
    o.uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(o.uv * float2(2, -2) + float2(-1, 1), 0, 1);
    return o;
}

// Entry (pixel): shader-model-3 style result semantic.
float4 LegacyPS(float2 uv : TEXCOORD0) : COLOR0
{
    return gTex.Sample(gSmp, uv);
}

// Entry (compute): SV_DispatchThreadID although [numthreads] comes from a macro the file lacks.
void ClearCS(uint3 id : SV_DispatchThreadID)
{
    gOut[id.x] = 0;
}
