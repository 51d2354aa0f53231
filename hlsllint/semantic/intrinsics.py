"""The intrinsic functions and resource methods of HLSL: result types and uniformity classes.

`INTRINSICS[name] = (result, uniformity)`:
- result: `same` (type of the first argument), `scalar` (its scalar element), `bool_shape` (bool of
  the first argument's shape), `uint_shape`, `int_shape`, `float_shape`, `half_shape`,
  `int16_shape`, `uint16_shape`, `bool`, `uint`, `uint2`, `uint4`, `uint64_t`, `int16_t4`,
  `uint16_t4`, `float`, `float3` (cross), `hitobject` (SER's `dx::HitObject`),
  `triangle_positions`, `void`.
- uniformity: `pure` (uniform when every argument is), `uniform` (always wave-uniform: reductions,
  WaveReadLaneFirst), `lane` (always per-lane: lane index, prefix ops, quad ops, derivatives),
  `readlane` (WaveReadLaneAt: uniform when the lane argument is), `effect` (no value, a side
  effect: barriers, clip, atomics).
"""

from __future__ import annotations

INTRINSICS: dict[str, tuple[str, str]] = {}


def _add(names: str, result: str, uniformity: str) -> None:
    for n in names.split():
        INTRINSICS[n] = (result, uniformity)


_add(
    "abs acos asin atan atan2 ceil clamp cos cosh degrees exp exp2 floor fmod frac lerp log log10 "
    "log2 mad max min normalize pow radians rcp reflect refract round rsqrt saturate sin sinh "
    "smoothstep sqrt step tan tanh trunc fma ldexp faceforward reversebits msad4 dst lit "
    "modf frexp nonuniformresourceindex NonUniformResourceIndex",
    "same",
    "pure",
)
D3D9_SAMPLERS = frozenset(
    f"tex{shape}{form}"
    for shape in ("1D", "2D", "3D", "CUBE")
    for form in ("", "bias", "grad", "lod", "proj")
)
"""D3D9's sampler functions (`tex2D(s, uv)`, `tex2Dlod(s, float4(uv, 0, mip))`), which DXC still
compiles in `ps_2_0`-style effect files and glslang reads: each is a texture sample, float4."""
_add(" ".join(sorted(D3D9_SAMPLERS)), "float4", "lane")
_add("sign", "int_shape", "pure")
_add("sincos", "void", "pure")  # its results are its out arguments
_add("select", "select", "pure")  # HLSL 2021: `select(cond, a, b)`, of the type of a and b
_add("and or", "bool_shape", "pure")  # HLSL 2021: component-wise && and ||
_add("dot length distance determinant", "scalar", "pure")
_add("all any", "bool", "pure")
_add("isnan isinf isfinite", "bool_shape", "pure")
_add("countbits firstbithigh firstbitlow asuint f32tof16", "uint_shape", "pure")
_add("asint", "int_shape", "pure")
_add("asfloat f16tof32", "float_shape", "pure")
_add("asdouble", "float_shape", "pure")
_add("cross", "float3", "pure")
_add("transpose", "same", "pure")
_add("noise", "float", "pure")
_add(
    "ddx ddy ddx_coarse ddy_coarse ddx_fine ddy_fine fwidth",
    "same",
    "lane",
)
_add("QuadReadAcrossX QuadReadAcrossY QuadReadAcrossDiagonal QuadReadLaneAt", "same", "lane")
_add("QuadAny QuadAll", "bool", "lane")
_add(
    "WaveActiveSum WaveActiveProduct WaveActiveMin WaveActiveMax WaveActiveBitAnd "
    "WaveActiveBitOr WaveActiveBitXor WaveReadLaneFirst",
    "same",
    "uniform",
)
_add("WaveActiveAllTrue WaveActiveAnyTrue WaveActiveAllEqual", "bool", "uniform")
_add("WaveActiveCountBits WaveGetLaneCount", "uint", "uniform")
_add("WaveActiveBallot", "uint4", "uniform")
_add("WaveReadLaneAt", "same", "readlane")
_add("WaveGetLaneIndex WavePrefixCountBits WaveMultiPrefixCountBits", "uint", "lane")
_add("WaveIsFirstLane", "bool", "lane")
_add(
    "WavePrefixSum WavePrefixProduct WaveMultiPrefixSum WaveMultiPrefixProduct "
    "WaveMultiPrefixBitAnd WaveMultiPrefixBitOr WaveMultiPrefixBitXor",
    "same",
    "lane",
)
_add("WaveMatch", "uint4", "lane")
_add(
    "GroupMemoryBarrier GroupMemoryBarrierWithGroupSync DeviceMemoryBarrier "
    "DeviceMemoryBarrierWithGroupSync AllMemoryBarrier AllMemoryBarrierWithGroupSync clip abort "
    "printf errorf InterlockedAdd InterlockedAnd InterlockedOr InterlockedXor InterlockedMin "
    "InterlockedMax InterlockedExchange InterlockedCompareExchange InterlockedCompareStore "
    "SetMeshOutputCounts DispatchMesh Process2DQuadTessFactorsAvg Process2DQuadTessFactorsMax "
    "ProcessTriTessFactorsAvg ProcessQuadTessFactorsAvg ProcessIsolineTessFactors",
    "void",
    "effect",
)
_add("EvaluateAttributeAtSample EvaluateAttributeSnapped EvaluateAttributeCentroid", "same", "lane")
# Ray tracing: the system values differ per ray (per lane), except the dispatch size.
_add("DispatchRaysIndex", "uint3", "lane")
_add("DispatchRaysDimensions", "uint3", "uniform")
_add("PrimitiveIndex InstanceIndex InstanceID GeometryIndex HitKind RayFlags", "uint", "lane")
_add("WorldRayOrigin WorldRayDirection ObjectRayOrigin ObjectRayDirection", "float3", "lane")
_add("RayTMin RayTCurrent", "float", "lane")
_add("ObjectToWorld ObjectToWorld3x4 WorldToObject WorldToObject3x4", "float3x4", "lane")
_add("ObjectToWorld4x3 WorldToObject4x3", "float4x3", "lane")
_add("ReportHit", "bool", "lane")
_add("ClusterID", "uint", "lane")  # SM 6.10 clustered geometry
_add("TriangleObjectPositions", "triangle_positions", "lane")  # SM 6.10
_add("GetAttributeAtVertex", "same", "lane")
_add("TraceRay CallShader IgnoreHit AcceptHitAndEndSearch", "void", "effect")

# Cooperative vectors and matrices (DXC's `__builtin_LinAlg_*`, behind `dx::linalg`): a matrix
# is spread over the wave's lanes, so what the builtins compute differs per lane; most write
# their first argument (`LINALG_WRITERS`), the `...To*` ones store to memory
_LINALG = "__builtin_LinAlg_"
LINALG_WRITERS = frozenset(
    _LINALG + n
    for n in [
        "FillMatrix",
        "MatrixLoadFromMemory",
        "MatrixLoadFromDescriptor",
        "MatrixGetElement",
        "MatrixSetElement",
        "MatrixVectorMultiply",
        "MatrixVectorMultiplyAdd",
        "Convert",
        "MatrixOuterProduct",
        "CopyConvertMatrix",
        "MatrixAccumulate",
        "MatrixMatrixMultiply",
        "MatrixMatrixMultiplyAccumulate",
    ]
)
"""LinAlg builtins whose first argument is their result (a matrix, vector or element)."""
_add(" ".join(sorted(LINALG_WRITERS)), "void", "effect")
_add(
    f"{_LINALG}MatrixStoreToMemory {_LINALG}MatrixAccumulateToMemory {_LINALG}MatrixStoreToDescriptor "
    f"{_LINALG}MatrixAccumulateToDescriptor {_LINALG}VectorAccumulateToDescriptor",
    "void",
    "effect",
)
_add(f"{_LINALG}MatrixLength {_LINALG}MatrixQueryAccumulatorLayout", "uint", "uniform")
_add(f"{_LINALG}MatrixGetCoordinate", "uint2", "lane")
# SPIR-V only (`vk::`): a group-shared variable's address, raw loads and stores through a
# device address (`vk::RawBufferLoad<T>(addr)` is of type T), the shader clock
_add("vk::GetGroupSharedAddress", "uint", "uniform")
_add("vk::RawBufferLoad", "uint", "pure")
_add("vk::RawBufferStore", "void", "effect")
_add("vk::ReadClock", "uint64_t", "uniform")
_add("dx::IsDebuggingEnabled", "bool", "uniform")

RAY_PAYLOAD_WRITERS = frozenset(
    {
        "TraceRay",
        "CallShader",
        "dx::HitObject::TraceRay",
        "HitObject::TraceRay",
        "dx::HitObject::Invoke",
        "HitObject::Invoke",
    }
)
"""Intrinsics whose last argument (the payload or callable data) is written, per lane."""

_add("GetRenderTargetSampleCount", "uint", "uniform")
_add("GetRenderTargetSamplePosition", "float", "pure")
_add("GetRemainingRecursionLevels", "uint", "uniform")
_add("CheckAccessFullyMapped", "bool", "pure")
_add("IsHelperLane", "bool", "lane")
_add("dot4add_u8packed pack_u8 pack_s8 pack_clamp_u8 pack_clamp_s8", "uint", "pure")
_add("dot4add_i8packed", "int", "pure")
_add("dot2add", "float", "pure")
_add("unpack_u8u32", "uint4", "pure")
_add("unpack_s8s32", "int4", "pure")
_add("unpack_u8u16", "uint16_t4", "pure")
_add("unpack_s8s16", "int16_t4", "pure")
_add("asfloat16", "half_shape", "pure")
_add("asint16", "int16_shape", "pure")
_add("asuint16", "uint16_shape", "pure")
_add("isnormal", "bool_shape", "pure")
# SM 6.8: the wave's index in its group and the group's wave count, the same in every lane
_add("GetGroupWaveIndex GetGroupWaveCount", "uint", "uniform")
# SM 6.9 shader execution reordering (`dx::`): the factories make a hit object per lane
# (`TraceRay` and `Invoke` write the payload, their last argument); reordering moves lanes
_add(
    "dx::HitObject::MakeMiss dx::HitObject::MakeNop dx::HitObject::TraceRay "
    "dx::HitObject::FromRayQuery HitObject::MakeMiss HitObject::MakeNop HitObject::TraceRay "
    "HitObject::FromRayQuery",
    "hitobject",
    "lane",
)
_add(
    "dx::HitObject::Invoke HitObject::Invoke dx::MaybeReorderThread MaybeReorderThread",
    "void",
    "effect",
)
_add("D3DCOLORtoUBYTE4", "int4", "pure")
_add("EvaluateAttributeAtCentroid", "same", "lane")
_add(
    "Barrier InterlockedCompareExchangeFloatBitwise InterlockedCompareStoreFloatBitwise "
    "Process2DQuadTessFactorsMin ProcessQuadTessFactorsMax ProcessQuadTessFactorsMin "
    "ProcessTriTessFactorsMax ProcessTriTessFactorsMin",
    "void",
    "effect",
)

RESOURCE_METHODS: dict[str, str] = {
    # method: kind of access
    "Sample": "sample",
    "SampleLevel": "sample",
    "SampleBias": "sample",
    "SampleGrad": "sample",
    "SampleCmp": "sample",
    "SampleCmpLevelZero": "sample",
    "SampleCmpLevel": "sample",
    "SampleCmpBias": "sample",
    "SampleCmpGrad": "sample",
    "Gather": "gather",
    "GatherRed": "gather",
    "GatherGreen": "gather",
    "GatherBlue": "gather",
    "GatherAlpha": "gather",
    "GatherCmp": "gather",
    "GatherCmpRed": "gather",
    "GatherCmpGreen": "gather",
    "GatherCmpBlue": "gather",
    "GatherCmpAlpha": "gather",
    "Load": "load",
    "Load2": "load",
    "Load3": "load",
    "Load4": "load",
    "Consume": "load",
    "CalculateLevelOfDetail": "lod",
    "CalculateLevelOfDetailUnclamped": "lod",
    "GetDimensions": "query",
    "GetSamplePosition": "query",
    "Store": "store",
    "Store2": "store",
    "Store3": "store",
    "Store4": "store",
    "Append": "store",
    "IncrementCounter": "atomic",
    "DecrementCounter": "atomic",
    "InterlockedAdd": "atomic",
    "InterlockedAnd": "atomic",
    "InterlockedOr": "atomic",
    "InterlockedXor": "atomic",
    "InterlockedMin": "atomic",
    "InterlockedMax": "atomic",
    "InterlockedExchange": "atomic",
    "InterlockedCompareExchange": "atomic",
    "InterlockedCompareStore": "atomic",
    "GatherRaw": "gather",
    "InterlockedAdd64": "atomic",
    "InterlockedAnd64": "atomic",
    "InterlockedOr64": "atomic",
    "InterlockedXor64": "atomic",
    "InterlockedMin64": "atomic",
    "InterlockedMax64": "atomic",
    "InterlockedExchange64": "atomic",
    "InterlockedCompareExchange64": "atomic",
    "InterlockedCompareStore64": "atomic",
    "InterlockedExchangeFloat": "atomic",
    "InterlockedCompareExchangeFloatBitwise": "atomic",
    "InterlockedCompareStoreFloatBitwise": "atomic",
    "WriteSamplerFeedback": "store",
    "WriteSamplerFeedbackBias": "store",
    "WriteSamplerFeedbackLevel": "store",
    "WriteSamplerFeedbackGrad": "store",
}
"""Resource methods and their access kind: `sample`, `gather`, `load`, `lod`, `query`, `store`,
`atomic`. Fetches (memory reads through the texture or buffer path) are sample, gather and load."""

FETCH_KINDS = frozenset({"sample", "gather", "load"})

_HLSL_NAMES = """
    abort abs acos all AllMemoryBarrier AllMemoryBarrierWithGroupSync and any asdouble asfloat
    asfloat16 asin asint asint16 asuint asuint16 atan atan2 Barrier ceil CheckAccessFullyMapped
    clamp clip cos cosh countbits cross D3DCOLORtoUBYTE4 ddx ddx_coarse ddx_fine ddy ddy_coarse
    ddy_fine degrees determinant GetGroupWaveCount GetGroupWaveIndex isnormal DeviceMemoryBarrier
    DeviceMemoryBarrierWithGroupSync distance
    dot dot2add dot4add_i8packed dot4add_u8packed dst errorf EvaluateAttributeAtCentroid
    EvaluateAttributeAtSample EvaluateAttributeCentroid EvaluateAttributeSnapped exp exp2
    f16tof32 f32tof16 faceforward firstbithigh firstbitlow floor fma fmod frac frexp fwidth
    GetAttributeAtVertex GetRemainingRecursionLevels GetRenderTargetSampleCount
    GetRenderTargetSamplePosition GroupMemoryBarrier GroupMemoryBarrierWithGroupSync
    InterlockedAdd InterlockedAnd InterlockedCompareExchange InterlockedCompareExchangeFloatBitwise
    InterlockedCompareStore InterlockedCompareStoreFloatBitwise InterlockedExchange InterlockedMax
    InterlockedMin InterlockedOr InterlockedXor isfinite IsHelperLane isinf isnan ldexp length
    lerp lit log log10 log2 mad max min modf msad4 mul noise NonUniformResourceIndex normalize or
    pack_clamp_s8 pack_clamp_u8 pack_s8 pack_u8 pow printf Process2DQuadTessFactorsAvg
    Process2DQuadTessFactorsMax Process2DQuadTessFactorsMin ProcessIsolineTessFactors
    ProcessQuadTessFactorsAvg ProcessQuadTessFactorsMax ProcessQuadTessFactorsMin
    ProcessTriTessFactorsAvg ProcessTriTessFactorsMax ProcessTriTessFactorsMin
    QuadAll QuadAny QuadReadAcrossDiagonal QuadReadAcrossX QuadReadAcrossY QuadReadLaneAt
    radians rcp reflect refract reversebits round rsqrt saturate select sign sin sincos sinh
    smoothstep sqrt step tan tanh tex1D tex1Dbias tex1Dgrad tex1Dlod tex1Dproj tex2D tex2Dbias
    tex2Dgrad tex2Dlod tex2Dproj tex3D tex3Dbias tex3Dgrad tex3Dlod tex3Dproj texCUBE texCUBEbias
    texCUBEgrad texCUBElod texCUBEproj transpose trunc unpack_s8s16 unpack_s8s32 unpack_u8u16
    unpack_u8u32 WaveActiveAllEqual WaveActiveAllTrue WaveActiveAnyTrue WaveActiveBallot
    WaveActiveBitAnd WaveActiveBitOr WaveActiveBitXor WaveActiveCountBits WaveActiveMax
    WaveActiveMin WaveActiveProduct WaveActiveSum WaveGetLaneCount WaveGetLaneIndex
    WaveIsFirstLane WaveMatch WaveMultiPrefixBitAnd WaveMultiPrefixBitOr WaveMultiPrefixBitXor
    WaveMultiPrefixCountBits WaveMultiPrefixProduct WaveMultiPrefixSum WavePrefixCountBits
    WavePrefixProduct WavePrefixSum WaveReadLaneAt WaveReadLaneFirst
"""
HLSL_INTRINSIC_NAMES = frozenset(_HLSL_NAMES.split())
"""Every intrinsic function HLSL defines (the D3D docs' list, shader model 6.x included): a call
of one that `INTRINSICS` does not model is an intrinsic the estimate does not know, not an
unresolved call of the user's."""

OBJECT_METHODS = frozenset(
    [
        "Append",
        "RestartStrip",
        "SubpassLoad",
        "TraceRayInline",
        "Proceed",
        "Abort",
        "CommittedStatus",
        "CommittedRayT",
        "CommittedTriangleBarycentrics",
        "CommittedInstanceIndex",
        "CommittedPrimitiveIndex",
        "CandidateType",
        "CandidateTriangleRayT",
        "CandidateTriangleBarycentrics",
        "CommitNonOpaqueTriangleHit",
        "CommitProceduralPrimitiveHit",
        "GatherRaw",
        "Load64",
        "Store64",
        "InterlockedCompareExchange64",
        "InterlockedAdd64",
        "WriteSamplerFeedback",
        "WriteSamplerFeedbackLevel",
    ]
)
"""Methods of HLSL's objects other than textures and buffers (stream outputs, ray queries, subpass
inputs) and newer resource methods: a call of one on an object whose type the model does not
know is an intrinsic the estimate does not model, not a call of the user's."""

OBJECT_TYPE_METHODS: dict[str, dict[str, tuple[str, str]]] = {}
"""Methods of HLSL's objects that are neither textures nor buffers, by the object type's base
name: `(result, uniformity)` as in `INTRINSICS` (`element`: the object's template argument).
A ray query's state, its stream's output and a subpass input's pixel differ per lane."""


def _object(types: str, methods: str, result: str, uniformity: str) -> None:
    for t in types.split():
        table = OBJECT_TYPE_METHODS.setdefault(t, {})
        for m in methods.split():
            table[m] = (result, uniformity)


_object(
    "RayQuery",
    "TraceRayInline Abort CommitNonOpaqueTriangleHit CommitProceduralPrimitiveHit",
    "void",
    "effect",
)
_object("RayQuery", "Proceed", "bool", "lane")
_object(
    "RayQuery",
    "CandidateProceduralPrimitiveNonOpaque CandidateTriangleFrontFace CommittedTriangleFrontFace",
    "bool",
    "lane",
)
_object(
    "RayQuery",
    "CandidateType CommittedStatus RayFlags CandidateInstanceIndex CommittedInstanceIndex "
    "CandidateInstanceID CommittedInstanceID CandidateInstanceContributionToHitGroupIndex "
    "CommittedInstanceContributionToHitGroupIndex CandidateGeometryIndex CommittedGeometryIndex "
    "CandidatePrimitiveIndex CommittedPrimitiveIndex",
    "uint",
    "lane",
)
_object("RayQuery", "CandidateClusterID CommittedClusterID", "uint", "lane")
_object(
    "RayQuery",
    "CandidateTriangleObjectPositions CommittedTriangleObjectPositions",
    "triangle_positions",
    "lane",
)
_object("RayQuery", "RayTMin CandidateTriangleRayT CommittedRayT", "float", "lane")
_object("RayQuery", "CandidateTriangleBarycentrics CommittedTriangleBarycentrics", "float2", "lane")
_object(
    "RayQuery",
    "WorldRayOrigin WorldRayDirection CandidateObjectRayOrigin CandidateObjectRayDirection "
    "CommittedObjectRayOrigin CommittedObjectRayDirection",
    "float3",
    "lane",
)
_object(
    "RayQuery",
    "CandidateObjectToWorld3x4 CandidateWorldToObject3x4 CommittedObjectToWorld3x4 CommittedWorldToObject3x4",
    "float3x4",
    "lane",
)
_object(
    "RayQuery",
    "CandidateObjectToWorld4x3 CandidateWorldToObject4x3 CommittedObjectToWorld4x3 CommittedWorldToObject4x3",
    "float4x3",
    "lane",
)
_HIT = "HitObject dx::HitObject"
_object(_HIT, "IsHit IsMiss IsNop", "bool", "lane")
_object(
    _HIT,
    "GetRayFlags GetHitKind GetInstanceIndex GetInstanceID GetGeometryIndex GetPrimitiveIndex "
    "GetShaderTableIndex LoadLocalRootTableConstant GetClusterID",
    "uint",
    "lane",
)
_object(_HIT, "GetRayTMin GetRayTCurrent", "float", "lane")
_object(
    _HIT,
    "GetWorldRayOrigin GetWorldRayDirection GetObjectRayOrigin GetObjectRayDirection",
    "float3",
    "lane",
)
_object(_HIT, "GetObjectToWorld3x4 GetWorldToObject3x4", "float3x4", "lane")
_object(_HIT, "GetObjectToWorld4x3 GetWorldToObject4x3", "float4x3", "lane")
_object(_HIT, "GetAttributes", "template", "lane")
_object(_HIT, "TriangleObjectPositions", "triangle_positions", "lane")  # `hit.GetAttributes<Attribs>()`
_object(_HIT, "SetShaderTableIndex", "void", "effect")

# SM 6.8 work graphs. A record object's `Get()`, `Get(i)` and `[i]` read the record in memory
# (a load of each member used) and a write to a member of one is a store (`NODE_RECORDS`); how
# uniform a record is depends on its object: a broadcasting (`Dispatch`) or coalescing
# (`Group`) input record and group output records are shared by the group (uniform when the
# index is), a thread's records are its own (the entry's parameters say which, `NODE_UNIFORM`).
_INPUT_RECORDS = (
    "DispatchNodeInputRecord RWDispatchNodeInputRecord GroupNodeInputRecords "
    "RWGroupNodeInputRecords ThreadNodeInputRecord RWThreadNodeInputRecord"
)
_OUTPUT_RECORDS = "GroupNodeOutputRecords ThreadNodeOutputRecords"
_object(f"{_INPUT_RECORDS} {_OUTPUT_RECORDS}", "Get", "element", "pure")
_object("GroupNodeInputRecords RWGroupNodeInputRecords EmptyNodeInput", "Count", "uint", "pure")
_object(_OUTPUT_RECORDS, "OutputComplete", "void", "effect")
_object("RWDispatchNodeInputRecord", "FinishedCrossGroupSharing", "bool", "uniform")
_object("NodeOutput EmptyNodeOutput NodeOutputArray EmptyNodeOutputArray", "IsValid", "bool", "pure")
_object(
    "NodeOutput EmptyNodeOutput", "ThreadIncrementOutputCount GroupIncrementOutputCount", "void", "effect"
)
_object("NodeOutput", "GetThreadNodeOutputRecords", "ThreadNodeOutputRecords", "lane")
_object("NodeOutput", "GetGroupNodeOutputRecords", "GroupNodeOutputRecords", "pure")

_object("vk::BufferPointer", "Get", "element", "pure")
NODE_RECORDS = frozenset(f"{_INPUT_RECORDS} {_OUTPUT_RECORDS}".split())
"""Work-graph record objects: `Get()`/`Get(i)`/`[i]` is the record in memory."""
MEMORY_OBJECTS = NODE_RECORDS | {"vk::BufferPointer"}
"""Objects whose `Get()` is memory (loaded, or stored to when written): work-graph records and
SPIR-V's buffer pointers (`vk::BufferPointer<T>`)."""
NODE_ARRAYS = {"NodeOutputArray": "NodeOutput", "EmptyNodeOutputArray": "EmptyNodeOutput"}
"""Work-graph output arrays: `outputs[i]` is one output of the element type."""
NODE_UNIFORM = frozenset(
    [
        "DispatchNodeInputRecord",
        "RWDispatchNodeInputRecord",
        "GroupNodeInputRecords",
        "RWGroupNodeInputRecords",
        "EmptyNodeInput",
        "NodeOutput",
        "NodeOutputArray",
        "EmptyNodeOutput",
        "EmptyNodeOutputArray",
    ]
)
"""Node entry parameters the same in every lane of the group (DXC: a broadcasting or coalescing
launch's input, every output node); a `ThreadNodeInputRecord` is the lane's own."""

_object("PointStream LineStream TriangleStream", "Append RestartStrip", "void", "effect")
_object("SubpassInput SubpassInputMS", "SubpassLoad", "element", "lane")

OBJECT_WRITERS = frozenset(
    {
        "TraceRayInline",
        "Proceed",
        "Abort",
        "CommitNonOpaqueTriangleHit",
        "CommitProceduralPrimitiveHit",
        "SetShaderTableIndex",
    }
)
"""Object methods that change the object's state (a ray query's): the object is written."""


def object_base(type_name: str) -> str:
    """The base name of an object type: `RayQuery` of `RayQuery<F>`."""
    return type_name.partition("<")[0].strip()


def object_method(type_name: str, method: str) -> tuple[str, str] | None:
    """`(result, uniformity)` of a method of an object type (`RayQuery<F>`, `TriangleStream<V>`,
    `SubpassInput<float4>`, `dx::HitObject`, `NodeOutput<R>`), or None."""
    table = OBJECT_TYPE_METHODS.get(object_base(type_name))
    return table.get(method) if table is not None else None


NOT_CALLS = frozenset(
    {"_Static_assert", "static_assert", "vk::ext_execution_mode", "vk::ext_execution_mode_id"}
)
"""Declarations that the grammar reads as calls: no code."""
