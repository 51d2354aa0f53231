// One arm keeps 4 float4 live across a loop; the other keeps one.
Buffer<float4> src : register(t0);
RWStructuredBuffer<float4> dst : register(u0);
cbuffer Params : register(b0) { uint count; uint mode; };

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{
    float4 result;
    if (src[tid].w > 0.5)
    {
        float4 h0 = src[tid + 0 * 64];
        float4 h1 = src[tid + 1 * 64];
        float4 h2 = src[tid + 2 * 64];
        float4 h3 = src[tid + 3 * 64];
        for (uint i = 0; i < count; ++i)
        {
            h0 = h0 * src[tid + i + 0] + h1.yzwx;
            h1 = h1 * src[tid + i + 1] + h2.yzwx;
            h2 = h2 * src[tid + i + 2] + h3.yzwx;
            h3 = h3 * src[tid + i + 3] + h0.yzwx;
        }
        result = h0 + h1 + h2 + h3;
    }
    else
    {
        result = src[tid] * 2.0;
    }
    dst[tid] = result;
}
