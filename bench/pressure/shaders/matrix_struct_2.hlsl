// 2 uniform 4x4 matrices from struct memory.
StructuredBuffer<float4> rows : register(t0);
StructuredBuffer<float4> points : register(t1);
RWStructuredBuffer<float4> dst : register(u0);
cbuffer Params : register(b0) { uint index; };

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{
    float4x4 m0 = float4x4(rows[(index + 0) * 4 + 0], rows[(index + 0) * 4 + 1], rows[(index + 0) * 4 + 2], rows[(index + 0) * 4 + 3]);
    float4x4 m1 = float4x4(rows[(index + 1) * 4 + 0], rows[(index + 1) * 4 + 1], rows[(index + 1) * 4 + 2], rows[(index + 1) * 4 + 3]);
    float4 p = points[tid];
    p = mul(m0, p);
    p = mul(m1, p);
    dst[tid] = p;
}
