// 4096 bytes of groupshared memory, 64-thread groups.
groupshared float cache[1024];
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u0);

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    for (uint i = gi; i < 1024; i += 64)
        cache[i] = src[tid + i];
    GroupMemoryBarrierWithGroupSync();
    float sum = 0;
    for (uint j = 0; j < 8; ++j)
        sum += cache[(gi * 7 + j * 13) % 1024];
    dst[tid] = sum;
}
