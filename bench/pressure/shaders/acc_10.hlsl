// 10 float4 accumulators live across a loop (40 values).
Buffer<float4> src : register(t0);
RWStructuredBuffer<float4> dst : register(u0);
cbuffer Params : register(b0) { uint count; uint stride; };

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{
    float4 a0 = src[tid + 0];
    float4 a1 = src[tid + 1];
    float4 a2 = src[tid + 2];
    float4 a3 = src[tid + 3];
    float4 a4 = src[tid + 4];
    float4 a5 = src[tid + 5];
    float4 a6 = src[tid + 6];
    float4 a7 = src[tid + 7];
    float4 a8 = src[tid + 8];
    float4 a9 = src[tid + 9];
    for (uint i = 0; i < count; ++i)
    {
        uint base = tid + i * stride;
        a0 = a0 * src[base + 0] + a1.yzwx;
        a1 = a1 * src[base + 1] + a2.yzwx;
        a2 = a2 * src[base + 2] + a3.yzwx;
        a3 = a3 * src[base + 3] + a4.yzwx;
        a4 = a4 * src[base + 4] + a5.yzwx;
        a5 = a5 * src[base + 5] + a6.yzwx;
        a6 = a6 * src[base + 6] + a7.yzwx;
        a7 = a7 * src[base + 7] + a8.yzwx;
        a8 = a8 * src[base + 8] + a9.yzwx;
        a9 = a9 * src[base + 9] + a0.yzwx;
    }
    dst[tid] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9;
}
