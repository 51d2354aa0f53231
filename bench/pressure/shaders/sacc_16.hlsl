// 16 float accumulators live across a loop.
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u0);
cbuffer Params : register(b0) { uint count; uint stride; };

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{
    float s0 = src[tid * 16 + 0];
    float s1 = src[tid * 16 + 1];
    float s2 = src[tid * 16 + 2];
    float s3 = src[tid * 16 + 3];
    float s4 = src[tid * 16 + 4];
    float s5 = src[tid * 16 + 5];
    float s6 = src[tid * 16 + 6];
    float s7 = src[tid * 16 + 7];
    float s8 = src[tid * 16 + 8];
    float s9 = src[tid * 16 + 9];
    float s10 = src[tid * 16 + 10];
    float s11 = src[tid * 16 + 11];
    float s12 = src[tid * 16 + 12];
    float s13 = src[tid * 16 + 13];
    float s14 = src[tid * 16 + 14];
    float s15 = src[tid * 16 + 15];
    for (uint i = 0; i < count; ++i)
    {
        uint base = (tid + i) * stride;
        s0 = s0 * src[base + 0] + s3;
        s1 = s1 * src[base + 1] + s4;
        s2 = s2 * src[base + 2] + s5;
        s3 = s3 * src[base + 3] + s6;
        s4 = s4 * src[base + 4] + s7;
        s5 = s5 * src[base + 5] + s8;
        s6 = s6 * src[base + 6] + s9;
        s7 = s7 * src[base + 7] + s10;
        s8 = s8 * src[base + 8] + s11;
        s9 = s9 * src[base + 9] + s12;
        s10 = s10 * src[base + 10] + s13;
        s11 = s11 * src[base + 11] + s14;
        s12 = s12 * src[base + 12] + s15;
        s13 = s13 * src[base + 13] + s0;
        s14 = s14 * src[base + 14] + s1;
        s15 = s15 * src[base + 15] + s2;
    }
    dst[tid] = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9 + s10 + s11 + s12 + s13 + s14 + s15;
}
