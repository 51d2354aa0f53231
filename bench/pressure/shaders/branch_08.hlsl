// One arm keeps 8 float4 live across a loop; the other keeps one.
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
        float4 h4 = src[tid + 4 * 64];
        float4 h5 = src[tid + 5 * 64];
        float4 h6 = src[tid + 6 * 64];
        float4 h7 = src[tid + 7 * 64];
        for (uint i = 0; i < count; ++i)
        {
            h0 = h0 * src[tid + i + 0] + h1.yzwx;
            h1 = h1 * src[tid + i + 1] + h2.yzwx;
            h2 = h2 * src[tid + i + 2] + h3.yzwx;
            h3 = h3 * src[tid + i + 3] + h4.yzwx;
            h4 = h4 * src[tid + i + 4] + h5.yzwx;
            h5 = h5 * src[tid + i + 5] + h6.yzwx;
            h6 = h6 * src[tid + i + 6] + h7.yzwx;
            h7 = h7 * src[tid + i + 7] + h0.yzwx;
        }
        result = h0 + h1 + h2 + h3 + h4 + h5 + h6 + h7;
    }
    else
    {
        result = src[tid] * 2.0;
    }
    dst[tid] = result;
}
