// One arm keeps 2 float4 live across a loop; the other keeps one.
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
        for (uint i = 0; i < count; ++i)
        {
            h0 = h0 * src[tid + i + 0] + h1.yzwx;
            h1 = h1 * src[tid + i + 1] + h0.yzwx;
        }
        result = h0 + h1;
    }
    else
    {
        result = src[tid] * 2.0;
    }
    dst[tid] = result;
}
