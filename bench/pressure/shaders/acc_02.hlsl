// 2 float4 accumulators live across a loop (8 values).
Buffer<float4> src : register(t0);
RWStructuredBuffer<float4> dst : register(u0);
cbuffer Params : register(b0) { uint count; uint stride; };

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{
    float4 a0 = src[tid + 0];
    float4 a1 = src[tid + 1];
    for (uint i = 0; i < count; ++i)
    {
        uint base = tid + i * stride;
        a0 = a0 * src[base + 0] + a1.yzwx;
        a1 = a1 * src[base + 1] + a0.yzwx;
    }
    dst[tid] = a0 + a1;
}
