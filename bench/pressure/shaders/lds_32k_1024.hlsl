// 32768 bytes of groupshared memory, 1024-thread groups.
groupshared float cache[8192];
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u0);

[numthreads(1024, 1, 1)]
void main(uint tid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    for (uint i = gi; i < 8192; i += 1024)
        cache[i] = src[tid + i];
    GroupMemoryBarrierWithGroupSync();
    float sum = 0;
    for (uint j = 0; j < 8; ++j)
        sum += cache[(gi * 7 + j * 13) % 8192];
    dst[tid] = sum;
}
