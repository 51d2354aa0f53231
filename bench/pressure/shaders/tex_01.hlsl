// 1 texture samples fetched before they are combined.
Texture2D<float4> tex0 : register(t0);
SamplerState smp : register(s0);

float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{
    float4 c0 = tex0.Sample(smp, uv + float2(0 * 0.01, 0));
    float4 r = 1;
    r = r * c0 + c0.wzyx;
    return r;
}
