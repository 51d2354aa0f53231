// One arm keeps 16 float4 live across a loop; the other keeps one.
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
        float4 h8 = src[tid + 8 * 64];
        float4 h9 = src[tid + 9 * 64];
        float4 h10 = src[tid + 10 * 64];
        float4 h11 = src[tid + 11 * 64];
        float4 h12 = src[tid + 12 * 64];
        float4 h13 = src[tid + 13 * 64];
        float4 h14 = src[tid + 14 * 64];
        float4 h15 = src[tid + 15 * 64];
        for (uint i = 0; i < count; ++i)
        {
            h0 = h0 * src[tid + i + 0] + h1.yzwx;
            h1 = h1 * src[tid + i + 1] + h2.yzwx;
            h2 = h2 * src[tid + i + 2] + h3.yzwx;
            h3 = h3 * src[tid + i + 3] + h4.yzwx;
            h4 = h4 * src[tid + i + 4] + h5.yzwx;
            h5 = h5 * src[tid + i + 5] + h6.yzwx;
            h6 = h6 * src[tid + i + 6] + h7.yzwx;
            h7 = h7 * src[tid + i + 7] + h8.yzwx;
            h8 = h8 * src[tid + i + 8] + h9.yzwx;
            h9 = h9 * src[tid + i + 9] + h10.yzwx;
            h10 = h10 * src[tid + i + 10] + h11.yzwx;
            h11 = h11 * src[tid + i + 11] + h12.yzwx;
            h12 = h12 * src[tid + i + 12] + h13.yzwx;
            h13 = h13 * src[tid + i + 13] + h14.yzwx;
            h14 = h14 * src[tid + i + 14] + h15.yzwx;
            h15 = h15 * src[tid + i + 15] + h0.yzwx;
        }
        result = h0 + h1 + h2 + h3 + h4 + h5 + h6 + h7 + h8 + h9 + h10 + h11 + h12 + h13 + h14 + h15;
    }
    else
    {
        result = src[tid] * 2.0;
    }
    dst[tid] = result;
}
