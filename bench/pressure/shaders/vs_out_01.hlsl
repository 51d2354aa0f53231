// A vertex shader with 1 float4 outputs.
cbuffer Camera : register(b0) { float4x4 world; float4x4 viewProj; };

struct VSIn { float4 pos : POSITION; float4 extra : TEXCOORD0; };
struct VSOut
{
    float4 pos : SV_Position;
    float4 t0 : TEXCOORD0;
};

VSOut main(VSIn v)
{
    VSOut o;
    o.pos = mul(viewProj, mul(world, v.pos));
    o.t0 = mul(world, v.pos + 0.0) * v.extra.x;
    return o;
}
