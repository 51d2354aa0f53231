"""HLSL types and their register footprint.

A `Type` is a small immutable value. `Type.components(sixteen_bit)` is its size in 32-bit
registers: `float4x3` is 12, `half3` is 3 (or 2 when 16-bit types are enabled, which packs two
16-bit values per register), `double` is 2, a struct is the sum of its members, an array is
length x element. Resources (`Texture2D<float4>`, `ByteAddressBuffer`, ...) and samplers are
handles: they take no VGPRs; `Resource.descriptor_sgprs` says how many SGPRs their descriptor
takes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

SCALARS = {
    # name: (canonical scalar, bits)
    "bool": ("bool", 32),
    "int": ("int", 32),
    "uint": ("uint", 32),
    "dword": ("uint", 32),
    "float": ("float", 32),
    "half": ("half", 16),
    "double": ("double", 64),
    "min16float": ("half", 16),
    "min10float": ("half", 16),
    "min16int": ("int16_t", 16),
    "min12int": ("int16_t", 16),
    "min16uint": ("uint16_t", 16),
    "float16_t": ("half", 16),
    "float32_t": ("float", 32),
    "float64_t": ("double", 64),
    "int16_t": ("int16_t", 16),
    "uint16_t": ("uint16_t", 16),
    "int32_t": ("int", 32),
    "uint32_t": ("uint", 32),
    "int64_t": ("int64_t", 64),
    "uint64_t": ("uint64_t", 64),
}
"""Scalar spellings. 16-bit types are 32-bit unless `enable_16bit_types` (the -enable-16bit-types
flag of DXC): `half` then is `float16_t` and packs two per register."""

FLOAT_SCALARS = frozenset({"float", "half", "double"})
INT_SCALARS = frozenset({"int", "uint", "int16_t", "uint16_t", "int64_t", "uint64_t"})

_NUMERIC_RE = re.compile(
    r"^(" + "|".join(sorted(SCALARS, key=len, reverse=True)) + r")([1-4])?(?:x([1-4]))?$"
)


@dataclass(frozen=True)
class Resource:
    """What kind of resource a handle is."""

    kind: str
    """Spelled base name: `Texture2D`, `RWStructuredBuffer`, `SamplerState`, ..."""
    typed: bool
    """Typed resources (textures, `Buffer<T>`) go through the texture unit; their loads land in
    VGPRs even at a wave-uniform address. Raw and structured buffers do not."""
    writable: bool
    category: str
    """`texture`, `buffer` (typed buffer), `raw`, `structured`, `constant`, `sampler`, `other`."""

    @property
    def descriptor_sgprs(self) -> int:
        """SGPRs for the descriptor (Aaltonen): image 8, buffer or sampler 4."""
        return 8 if self.category == "texture" else 4

    @property
    def is_texture(self) -> bool:
        return self.category == "texture"


_TEXTURES = {
    "Texture1D",
    "Texture1DArray",
    "Texture2D",
    "Texture2DArray",
    "Texture2DMS",
    "Texture2DMSArray",
    "Texture3D",
    "TextureCube",
    "TextureCubeArray",
    "Texture",
    "FeedbackTexture2D",
    "FeedbackTexture2DArray",
}
_RW_TEXTURES = {
    "RWTexture1D",
    "RWTexture1DArray",
    "RWTexture2D",
    "RWTexture2DArray",
    "RWTexture3D",
    "RasterizerOrderedTexture1D",
    "RasterizerOrderedTexture1DArray",
    "RasterizerOrderedTexture2D",
    "RasterizerOrderedTexture2DArray",
    "RasterizerOrderedTexture3D",
    "RWTexture2DMS",
    "RWTexture2DMSArray",
}


def resource_of(name: str) -> Resource | None:
    """The resource classification of a type's base name, or None for non-resources."""
    if name in _TEXTURES:
        return Resource(name, True, False, "texture")
    if name in _RW_TEXTURES:
        return Resource(name, True, True, "texture")
    if name in ("Buffer",):
        return Resource(name, True, False, "buffer")
    if name in ("RWBuffer", "RasterizerOrderedBuffer"):
        return Resource(name, True, True, "buffer")
    if name == "ByteAddressBuffer":
        return Resource(name, False, False, "raw")
    if name in ("RWByteAddressBuffer", "RasterizerOrderedByteAddressBuffer"):
        return Resource(name, False, True, "raw")
    if name == "StructuredBuffer":
        return Resource(name, False, False, "structured")
    if name in (
        "RWStructuredBuffer",
        "AppendStructuredBuffer",
        "ConsumeStructuredBuffer",
        "RasterizerOrderedStructuredBuffer",
    ):
        return Resource(name, False, True, "structured")
    if name in ("ConstantBuffer", "TextureBuffer"):
        return Resource(name, False, False, "constant")
    if name in (
        "SamplerState",
        "SamplerComparisonState",
        "sampler",
        "sampler2D",
        "sampler3D",
        "samplerCUBE",
        "sampler_state",
    ):
        return Resource(name, False, False, "sampler")
    if name in ("RaytracingAccelerationStructure",):
        return Resource(name, False, False, "other")
    if name.startswith("vk::SampledTexture"):  # SPIR-V's combined image sampler
        return Resource(name, True, False, "texture")
    return None


@dataclass(frozen=True)
class Member:
    name: str
    type: Type
    semantic: str | None = None
    qualifiers: frozenset[str] = frozenset()
    """What the member's declaration says besides its type (`nointerpolation`, `centroid`,
    `precise`, ...)."""


@dataclass(frozen=True)
class Type:
    """An HLSL type.

    kind is one of `scalar`, `vector`, `matrix`, `array`, `struct`, `resource`, `void`, `unknown`.
    """

    kind: str
    name: str
    scalar: str = ""
    """Canonical scalar of numeric types (`float`, `half`, `int`, `uint`, `bool`, ...)."""
    rows: int = 1
    cols: int = 1
    """Vectors: cols is the length. Matrices: rows x cols (`float4x3` is 4 rows, 3 cols)."""
    element: Type | None = None
    """Arrays: the element type. Resources: the template argument (float4 of Texture2D<float4>)."""
    length: int | None = None
    """Arrays: the length when known."""
    members: tuple[Member, ...] = field(default=(), compare=False)
    resource: Resource | None = None

    # -- classification -------------------------------------------------------------------

    @property
    def is_numeric(self) -> bool:
        return self.kind in ("scalar", "vector", "matrix")

    @property
    def is_bool(self) -> bool:
        return self.is_numeric and self.scalar == "bool"

    @property
    def is_float(self) -> bool:
        return self.is_numeric and self.scalar in FLOAT_SCALARS

    @property
    def is_int(self) -> bool:
        return self.is_numeric and self.scalar in INT_SCALARS

    @property
    def is_resource(self) -> bool:
        return self.kind == "resource"

    @property
    def count(self) -> int:
        """Number of scalar elements of a numeric type (1 for others)."""
        return self.rows * self.cols if self.is_numeric else 1

    def member(self, name: str) -> Member | None:
        for m in self.members:
            if m.name == name:
                return m
        return None

    # -- size -----------------------------------------------------------------------------

    def components(self, sixteen_bit: bool = False) -> int:
        """Size in 32-bit registers (0 for resources and void)."""
        if self.is_numeric:
            bits = SCALARS.get(self.scalar, ("", 32))[1]
            n = self.count
            if bits == 64:
                return 2 * n
            if bits == 16 and sixteen_bit:
                return (n + 1) // 2
            return n
        if self.kind == "array":
            el = self.element.components(sixteen_bit) if self.element else 1
            return el * (self.length if self.length is not None else 1)
        if self.kind == "struct":
            return sum(m.type.components(sixteen_bit) for m in self.members)
        if self.kind == "unknown":
            return 1
        return 0

    def bytes(self, sixteen_bit: bool = False) -> int:
        """Size in bytes (groupshared accounting): 4 per 32-bit component."""
        if self.is_numeric:
            bits = SCALARS.get(self.scalar, ("", 32))[1]
            if bits == 16 and not sixteen_bit:
                bits = 32
            return self.count * bits // 8
        if self.kind == "array":
            el = self.element.bytes(sixteen_bit) if self.element else 4
            return el * (self.length if self.length is not None else 1)
        if self.kind == "struct":
            return sum(m.type.bytes(sixteen_bit) for m in self.members)
        return 4 * self.components(sixteen_bit)

    # -- derived types --------------------------------------------------------------------

    def with_shape(self, rows: int, cols: int) -> Type:
        """The numeric type with the same scalar and another shape."""
        return numeric(self.scalar or "float", rows, cols)

    @property
    def scalar_type(self) -> Type:
        return numeric(self.scalar or "float", 1, 1)

    @property
    def display_name(self) -> str:
        """The name to show a user: a struct without a name of its own (`struct { ... } x;`) has an
        internal one (`<anonymous@N>`), shown as `unnamed struct`."""
        return "unnamed struct" if self.name.startswith("<anonymous@") else self.name

    def __str__(self) -> str:
        return self.name


UNKNOWN = Type("unknown", "?")
VOID = Type("void", "void")


@cache
def numeric(scalar: str, rows: int = 1, cols: int = 1, *, matrix: bool = False) -> Type:
    """`numeric("float", 1, 4)` is float4; `numeric("float", 4, 4, matrix=True)` is float4x4."""
    if matrix:
        return Type("matrix", f"{scalar}{rows}x{cols}", scalar, rows, cols)
    if rows == 1 and cols == 1:
        return Type("scalar", scalar, scalar)
    if rows == 1:
        return Type("vector", f"{scalar}{cols}", scalar, 1, cols)
    return Type("matrix", f"{scalar}{rows}x{cols}", scalar, rows, cols)


FLOAT = numeric("float")
INT = numeric("int")
UINT = numeric("uint")
BOOL = numeric("bool")


@cache
def parse_numeric(name: str) -> Type | None:
    """`float4` -> vector, `half3x3` -> matrix, `uint` -> scalar; None when not numeric. The
    bare `matrix` and `vector` keywords are `float4x4` and `float4`."""
    if name == "matrix":
        return numeric("float", 4, 4, matrix=True)
    if name == "vector":
        return numeric("float", 1, 4)
    m = _NUMERIC_RE.match(name)
    if not m:
        return None
    scalar = SCALARS[m.group(1)][0]
    if m.group(3):
        return numeric(scalar, int(m.group(2) or 1), int(m.group(3)), matrix=True)
    if m.group(2):
        return numeric(scalar, 1, int(m.group(2)))
    return numeric(scalar)


def array_of(element: Type, length: int | None) -> Type:
    return Type(
        "array",
        f"{element.name}[{'' if length is None else length}]",
        element=element,
        length=length,
    )


def resource_type(name: str, element: Type | None) -> Type:
    res = resource_of(name)
    spelled = f"{name}<{element.name}>" if element is not None else name
    if element is None and res is not None and res.category in ("texture", "buffer"):
        element = numeric("float", 1, 4)  # `Texture2D` alone means Texture2D<float4>
    return Type("resource", spelled, element=element, resource=res)


def struct_type(name: str, members: tuple[Member, ...]) -> Type:
    return Type("struct", name, members=members)


def same_type(a: Type, b: Type) -> bool:
    """Whether two types are the same in every part, a struct's members included (`==` leaves
    them out: two structs of one name are equal)."""
    if a is b:
        return True
    if a != b or len(a.members) != len(b.members):
        return False
    for x, y in zip(a.members, b.members, strict=True):
        if x.name != y.name or x.semantic != y.semantic or x.qualifiers != y.qualifiers:
            return False
        if not same_type(x.type, y.type):
            return False
    if a.element is not None and b.element is not None:
        return same_type(a.element, b.element)
    return True


def common_type(a: Type, b: Type) -> Type:
    """The type of a binary arithmetic expression on a and b (HLSL's promotion, simplified)."""
    if not a.is_numeric:
        return b if b.is_numeric else a
    if not b.is_numeric:
        return a
    rank = [
        "bool",
        "int16_t",
        "uint16_t",
        "int",
        "uint",
        "int64_t",
        "uint64_t",
        "half",
        "float",
        "double",
    ]
    ra = rank.index(a.scalar) if a.scalar in rank else 8
    rb = rank.index(b.scalar) if b.scalar in rank else 8
    scalar = a.scalar if ra >= rb else b.scalar
    # Shape: scalars broadcast; otherwise the smaller shape (truncation) wins.
    if a.count == 1 and b.count > 1:
        shape_src = b
    elif b.count == 1:
        shape_src = a
    else:
        shape_src = a if a.count <= b.count else b
    return numeric(scalar, shape_src.rows, shape_src.cols, matrix=shape_src.kind == "matrix")


def object_type(name: str, element: Type | None = None) -> Type:
    """An HLSL object that is neither a resource nor a struct (`dx::HitObject`,
    `ThreadNodeOutputRecords<R>`): its methods are looked up by its name."""
    spelled = f"{name}<{element.name}>" if element is not None else name
    return Type("unknown", spelled, element=element)


_F3 = numeric("float", 1, 3)
BUILTIN_STRUCTS: dict[str, Type] = {
    "RayDesc": struct_type(
        "RayDesc",
        (Member("Origin", _F3), Member("TMin", FLOAT), Member("Direction", _F3), Member("TMax", FLOAT)),
    ),
    "BuiltInTriangleIntersectionAttributes": struct_type(
        "BuiltInTriangleIntersectionAttributes", (Member("barycentrics", numeric("float", 1, 2)),)
    ),
    "BuiltInTrianglePositions": struct_type(
        "BuiltInTrianglePositions", (Member("p0", _F3), Member("p1", _F3), Member("p2", _F3))
    ),
}
"""The structs HLSL declares (ray tracing's `RayDesc` and triangle hit attributes)."""
