// A vertex shader with 8 float4 outputs.
cbuffer Camera : register(b0) { float4x4 world; float4x4 viewProj; };

struct VSIn { float4 pos : POSITION; float4 extra : TEXCOORD0; };
struct VSOut
{
    float4 pos : SV_Position;
    float4 t0 : TEXCOORD0;
    float4 t1 : TEXCOORD1;
    float4 t2 : TEXCOORD2;
    float4 t3 : TEXCOORD3;
    float4 t4 : TEXCOORD4;
    float4 t5 : TEXCOORD5;
    float4 t6 : TEXCOORD6;
    float4 t7 : TEXCOORD7;
};

VSOut main(VSIn v)
{
    VSOut o;
    o.pos = mul(viewProj, mul(world, v.pos));
    o.t0 = mul(world, v.pos + 0.0) * v.extra.x;
    o.t1 = mul(world, v.pos + 1.0) * v.extra.y;
    o.t2 = mul(world, v.pos + 2.0) * v.extra.z;
    o.t3 = mul(world, v.pos + 3.0) * v.extra.w;
    o.t4 = mul(world, v.pos + 4.0) * v.extra.x;
    o.t5 = mul(world, v.pos + 5.0) * v.extra.y;
    o.t6 = mul(world, v.pos + 6.0) * v.extra.z;
    o.t7 = mul(world, v.pos + 7.0) * v.extra.w;
    return o;
}
