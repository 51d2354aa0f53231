// 1 uniform 4x4 matrices from raw memory.
ByteAddressBuffer rows : register(t0);
StructuredBuffer<float4> points : register(t1);
RWStructuredBuffer<float4> dst : register(u0);
cbuffer Params : register(b0) { uint index; };

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{
    float4x4 m0 = float4x4(asfloat(rows.Load4(((index + 0) * 4 + 0) * 16)), asfloat(rows.Load4(((index + 0) * 4 + 1) * 16)), asfloat(rows.Load4(((index + 0) * 4 + 2) * 16)), asfloat(rows.Load4(((index + 0) * 4 + 3) * 16)));
    float4 p = points[tid];
    p = mul(m0, p);
    dst[tid] = p;
}
