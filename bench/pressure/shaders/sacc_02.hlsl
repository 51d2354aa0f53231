// 2 float accumulators live across a loop.
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u0);
cbuffer Params : register(b0) { uint count; uint stride; };

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{
    float s0 = src[tid * 2 + 0];
    float s1 = src[tid * 2 + 1];
    for (uint i = 0; i < count; ++i)
    {
        uint base = (tid + i) * stride;
        s0 = s0 * src[base + 0] + s1;
        s1 = s1 * src[base + 1] + s0;
    }
    dst[tid] = s0 + s1;
}
