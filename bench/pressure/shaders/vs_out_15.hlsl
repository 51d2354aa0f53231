// A vertex shader with 15 float4 outputs.
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
    float4 t8 : TEXCOORD8;
    float4 t9 : TEXCOORD9;
    float4 t10 : TEXCOORD10;
    float4 t11 : TEXCOORD11;
    float4 t12 : TEXCOORD12;
    float4 t13 : TEXCOORD13;
    float4 t14 : TEXCOORD14;
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
    o.t8 = mul(world, v.pos + 8.0) * v.extra.x;
    o.t9 = mul(world, v.pos + 9.0) * v.extra.y;
    o.t10 = mul(world, v.pos + 10.0) * v.extra.z;
    o.t11 = mul(world, v.pos + 11.0) * v.extra.w;
    o.t12 = mul(world, v.pos + 12.0) * v.extra.x;
    o.t13 = mul(world, v.pos + 13.0) * v.extra.y;
    o.t14 = mul(world, v.pos + 14.0) * v.extra.z;
    return o;
}
