// 4 uniform 4x4 matrices from cbuffer memory.
cbuffer M : register(b1) { float4 mrows[64]; };
StructuredBuffer<float4> points : register(t1);
RWStructuredBuffer<float4> dst : register(u0);
cbuffer Params : register(b0) { uint index; };

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{
    float4x4 m0 = float4x4(mrows[(index + 0) * 4 + 0], mrows[(index + 0) * 4 + 1], mrows[(index + 0) * 4 + 2], mrows[(index + 0) * 4 + 3]);
    float4x4 m1 = float4x4(mrows[(index + 1) * 4 + 0], mrows[(index + 1) * 4 + 1], mrows[(index + 1) * 4 + 2], mrows[(index + 1) * 4 + 3]);
    float4x4 m2 = float4x4(mrows[(index + 2) * 4 + 0], mrows[(index + 2) * 4 + 1], mrows[(index + 2) * 4 + 2], mrows[(index + 2) * 4 + 3]);
    float4x4 m3 = float4x4(mrows[(index + 3) * 4 + 0], mrows[(index + 3) * 4 + 1], mrows[(index + 3) * 4 + 2], mrows[(index + 3) * 4 + 3]);
    float4 p = points[tid];
    p = mul(m0, p);
    p = mul(m1, p);
    p = mul(m2, p);
    p = mul(m3, p);
    dst[tid] = p;
}
