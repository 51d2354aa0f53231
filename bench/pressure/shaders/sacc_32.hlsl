// 32 float accumulators live across a loop.
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u0);
cbuffer Params : register(b0) { uint count; uint stride; };

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{
    float s0 = src[tid * 32 + 0];
    float s1 = src[tid * 32 + 1];
    float s2 = src[tid * 32 + 2];
    float s3 = src[tid * 32 + 3];
    float s4 = src[tid * 32 + 4];
    float s5 = src[tid * 32 + 5];
    float s6 = src[tid * 32 + 6];
    float s7 = src[tid * 32 + 7];
    float s8 = src[tid * 32 + 8];
    float s9 = src[tid * 32 + 9];
    float s10 = src[tid * 32 + 10];
    float s11 = src[tid * 32 + 11];
    float s12 = src[tid * 32 + 12];
    float s13 = src[tid * 32 + 13];
    float s14 = src[tid * 32 + 14];
    float s15 = src[tid * 32 + 15];
    float s16 = src[tid * 32 + 16];
    float s17 = src[tid * 32 + 17];
    float s18 = src[tid * 32 + 18];
    float s19 = src[tid * 32 + 19];
    float s20 = src[tid * 32 + 20];
    float s21 = src[tid * 32 + 21];
    float s22 = src[tid * 32 + 22];
    float s23 = src[tid * 32 + 23];
    float s24 = src[tid * 32 + 24];
    float s25 = src[tid * 32 + 25];
    float s26 = src[tid * 32 + 26];
    float s27 = src[tid * 32 + 27];
    float s28 = src[tid * 32 + 28];
    float s29 = src[tid * 32 + 29];
    float s30 = src[tid * 32 + 30];
    float s31 = src[tid * 32 + 31];
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
        s21 = s21 * src[base + 21] + s24;
        s22 = s22 * src[base + 22] + s25;
        s23 = s23 * src[base + 23] + s26;
        s24 = s24 * src[base + 24] + s27;
        s25 = s25 * src[base + 25] + s28;
        s26 = s26 * src[base + 26] + s29;
        s27 = s27 * src[base + 27] + s30;
        s28 = s28 * src[base + 28] + s31;
        s29 = s29 * src[base + 29] + s0;
        s30 = s30 * src[base + 30] + s1;
        s31 = s31 * src[base + 31] + s2;
    }
    dst[tid] = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9 + s10 + s11 + s12 + s13 + s14 + s15 + s16 + s17 + s18 + s19 + s20 + s21 + s22 + s23 + s24 + s25 + s26 + s27 + s28 + s29 + s30 + s31;
}
