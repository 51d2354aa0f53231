// 24 float accumulators live across a loop.
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u0);
cbuffer Params : register(b0) { uint count; uint stride; };

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{
    float s0 = src[tid * 24 + 0];
    float s1 = src[tid * 24 + 1];
    float s2 = src[tid * 24 + 2];
    float s3 = src[tid * 24 + 3];
    float s4 = src[tid * 24 + 4];
    float s5 = src[tid * 24 + 5];
    float s6 = src[tid * 24 + 6];
    float s7 = src[tid * 24 + 7];
    float s8 = src[tid * 24 + 8];
    float s9 = src[tid * 24 + 9];
    float s10 = src[tid * 24 + 10];
    float s11 = src[tid * 24 + 11];
    float s12 = src[tid * 24 + 12];
    float s13 = src[tid * 24 + 13];
    float s14 = src[tid * 24 + 14];
    float s15 = src[tid * 24 + 15];
    float s16 = src[tid * 24 + 16];
    float s17 = src[tid * 24 + 17];
    float s18 = src[tid * 24 + 18];
    float s19 = src[tid * 24 + 19];
    float s20 = src[tid * 24 + 20];
    float s21 = src[tid * 24 + 21];
    float s22 = src[tid * 24 + 22];
    float s23 = src[tid * 24 + 23];
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
        s13 = s13 * src[base + 13] + s16;
        s14 = s14 * src[base + 14] + s17;
        s15 = s15 * src[base + 15] + s18;
        s16 = s16 * src[base + 16] + s19;
        s17 = s17 * src[base + 17] + s20;
        s18 = s18 * src[base + 18] + s21;
        s19 = s19 * src[base + 19] + s22;
        s20 = s20 * src[base + 20] + s23;
        s21 = s21 * src[base + 21] + s0;
        s22 = s22 * src[base + 22] + s1;
        s23 = s23 * src[base + 23] + s2;
    }
    dst[tid] = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9 + s10 + s11 + s12 + s13 + s14 + s15 + s16 + s17 + s18 + s19 + s20 + s21 + s22 + s23;
}
