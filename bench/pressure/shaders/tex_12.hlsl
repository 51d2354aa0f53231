// 12 texture samples fetched before they are combined.
Texture2D<float4> tex0 : register(t0);
Texture2D<float4> tex1 : register(t1);
Texture2D<float4> tex2 : register(t2);
Texture2D<float4> tex3 : register(t3);
Texture2D<float4> tex4 : register(t4);
Texture2D<float4> tex5 : register(t5);
Texture2D<float4> tex6 : register(t6);
Texture2D<float4> tex7 : register(t7);
Texture2D<float4> tex8 : register(t8);
Texture2D<float4> tex9 : register(t9);
Texture2D<float4> tex10 : register(t10);
Texture2D<float4> tex11 : register(t11);
SamplerState smp : register(s0);

float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{
    float4 c0 = tex0.Sample(smp, uv + float2(0 * 0.01, 0));
    float4 c1 = tex1.Sample(smp, uv + float2(1 * 0.01, 0));
    float4 c2 = tex2.Sample(smp, uv + float2(2 * 0.01, 0));
    float4 c3 = tex3.Sample(smp, uv + float2(3 * 0.01, 0));
    float4 c4 = tex4.Sample(smp, uv + float2(4 * 0.01, 0));
    float4 c5 = tex5.Sample(smp, uv + float2(5 * 0.01, 0));
    float4 c6 = tex6.Sample(smp, uv + float2(6 * 0.01, 0));
    float4 c7 = tex7.Sample(smp, uv + float2(7 * 0.01, 0));
    float4 c8 = tex8.Sample(smp, uv + float2(8 * 0.01, 0));
    float4 c9 = tex9.Sample(smp, uv + float2(9 * 0.01, 0));
    float4 c10 = tex10.Sample(smp, uv + float2(10 * 0.01, 0));
    float4 c11 = tex11.Sample(smp, uv + float2(11 * 0.01, 0));
    float4 r = 1;
    r = r * c0 + c1.wzyx;
    r = r * c1 + c2.wzyx;
    r = r * c2 + c3.wzyx;
    r = r * c3 + c4.wzyx;
    r = r * c4 + c5.wzyx;
    r = r * c5 + c6.wzyx;
    r = r * c6 + c7.wzyx;
    r = r * c7 + c8.wzyx;
    r = r * c8 + c9.wzyx;
    r = r * c9 + c10.wzyx;
    r = r * c10 + c11.wzyx;
    r = r * c11 + c0.wzyx;
    return r;
}
