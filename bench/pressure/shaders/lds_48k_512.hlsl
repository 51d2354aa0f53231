// 49152 bytes of groupshared memory, 512-thread groups.
groupshared float cache[12288];
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u0);

[numthreads(512, 1, 1)]
void main(uint tid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    for (uint i = gi; i < 12288; i += 512)
        cache[i] = src[tid + i];
    GroupMemoryBarrierWithGroupSync();
    float sum = 0;
    for (uint j = 0; j < 8; ++j)
        sum += cache[(gi * 7 + j * 13) % 12288];
    dst[tid] = sum;
}
