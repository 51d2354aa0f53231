// 8 float accumulators live across a loop.
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u0);
cbuffer Params : register(b0) { uint count; uint stride; };

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{
    float s0 = src[tid * 8 + 0];
    float s1 = src[tid * 8 + 1];
    float s2 = src[tid * 8 + 2];
    float s3 = src[tid * 8 + 3];
    float s4 = src[tid * 8 + 4];
    float s5 = src[tid * 8 + 5];
    float s6 = src[tid * 8 + 6];
    float s7 = src[tid * 8 + 7];
    for (uint i = 0; i < count; ++i)
    {
        uint base = (tid + i) * stride;
        s0 = s0 * src[base + 0] + s3;
        s1 = s1 * src[base + 1] + s4;
        s2 = s2 * src[base + 2] + s5;
        s3 = s3 * src[base + 3] + s6;
        s4 = s4 * src[base + 4] + s7;
        s5 = s5 * src[base + 5] + s0;
        s6 = s6 * src[base + 6] + s1;
        s7 = s7 * src[base + 7] + s2;
    }
    dst[tid] = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
}
