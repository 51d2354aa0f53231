// 4 uniform 4x4 matrices from raw memory.
ByteAddressBuffer rows : register(t0);
StructuredBuffer<float4> points : register(t1);
RWStructuredBuffer<float4> dst : register(u0);
cbuffer Params : register(b0) { uint index; };

[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID)
{
    float4x4 m0 = float4x4(asfloat(rows.Load4(((index + 0) * 4 + 0) * 16)), asfloat(rows.Load4(((index + 0) * 4 + 1) * 16)), asfloat(rows.Load4(((index + 0) * 4 + 2) * 16)), asfloat(rows.Load4(((index + 0) * 4 + 3) * 16)));
    float4x4 m1 = float4x4(asfloat(rows.Load4(((index + 1) * 4 + 0) * 16)), asfloat(rows.Load4(((index + 1) * 4 + 1) * 16)), asfloat(rows.Load4(((index + 1) * 4 + 2) * 16)), asfloat(rows.Load4(((index + 1) * 4 + 3) * 16)));
    float4x4 m2 = float4x4(asfloat(rows.Load4(((index + 2) * 4 + 0) * 16)), asfloat(rows.Load4(((index + 2) * 4 + 1) * 16)), asfloat(rows.Load4(((index + 2) * 4 + 2) * 16)), asfloat(rows.Load4(((index + 2) * 4 + 3) * 16)));
    float4x4 m3 = float4x4(asfloat(rows.Load4(((index + 3) * 4 + 0) * 16)), asfloat(rows.Load4(((index + 3) * 4 + 1) * 16)), asfloat(rows.Load4(((index + 3) * 4 + 2) * 16)), asfloat(rows.Load4(((index + 3) * 4 + 3) * 16)));
    float4 p = points[tid];
    p = mul(m0, p);
    p = mul(m1, p);
    p = mul(m2, p);
    p = mul(m3, p);
    dst[tid] = p;
}
