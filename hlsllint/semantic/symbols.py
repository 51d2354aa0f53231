"""The values a semantic model is made of: declared names (`Symbol`), function definitions
(`Function`) with their attributes (`Attribute`), constant buffers (`CBuffer`) and entry points
(`EntryPoint`). Plain data: `hlsllint.semantic.model` makes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hlsllint.semantic import types as T
from hlsllint.syntax import Node

Span = tuple[int, int]


class Symbol:
    """A declared name. Compared by identity: two locals named `i` are two symbols. A plain class
    with its own `__init__` rather than a dataclass: a compiled dataclass keeps the `__init__`
    that `dataclasses` generates in Python, and a unit declares thousands of symbols."""

    name: str
    kind: str
    """`resource`, `cbuffer_member`, `groupshared`, `static_const`, `static`, `param`, `local`,
    `function`."""
    type: T.Type
    node: Node | None
    """The identifier that declares it (None for built-ins)."""
    decl: Node | None
    """The whole declaration (or parameter, or function definition)."""
    semantic: str | None
    register: str | None
    container: str | None
    """Constant-buffer members: the buffer's name (`$Globals` for plain globals)."""
    init: Node | None
    direction: str
    """Parameters: `in`, `out` or `inout`."""
    qualifiers: frozenset[str]
    function: str | None
    """Parameters and locals: the function they belong to."""

    def __init__(
        self,
        name: str,
        kind: str,
        type: T.Type,
        node: Node | None = None,
        decl: Node | None = None,
        semantic: str | None = None,
        register: str | None = None,
        container: str | None = None,
        init: Node | None = None,
        direction: str = "in",
        qualifiers: frozenset[str] = frozenset(),
        function: str | None = None,
    ) -> None:
        self.name = name
        self.kind = kind
        self.type = type
        self.node = node
        self.decl = decl
        self.semantic = semantic
        self.register = register
        self.container = container
        self.init = init
        self.direction = direction
        self.qualifiers = qualifiers
        self.function = function

    @property
    def is_uniform_storage(self) -> bool:
        """Values whose storage is wave-uniform: constants, cbuffer members, resources."""
        return self.kind in ("cbuffer_member", "static_const", "resource", "function")

    def __repr__(self) -> str:
        return f"Symbol({self.kind} {self.type} {self.name})"


@dataclass(frozen=True)
class Attribute:
    name: str
    args: tuple[Any, ...]
    """Arguments: ints/floats when constant, strings for string literals, else the text."""
    span: Span


@dataclass(eq=False)
class CBuffer:
    name: str
    kind: str
    """`cbuffer`, `tbuffer`, `ConstantBuffer` or `$Globals`."""
    register: str | None
    members: list[Symbol]
    node: Node | None


@dataclass(eq=False)
class Function:
    name: str
    node: Node
    params: list[Symbol]
    return_type: T.Type
    return_semantic: str | None
    attributes: list[Attribute]
    body: Node | None
    calls: set[str] = field(default_factory=set)
    owner: str | None = None
    """Methods: the struct that declares them (the name is `Struct::method`)."""
    this: Symbol | None = None
    """Methods that are not static: the object they are called on (an inout parameter of the
    struct's type, named `this`; the struct's members in the body are its members)."""

    def attribute(self, name: str) -> Attribute | None:
        low = name.lower()
        for a in self.attributes:
            if a.name.lower() == low:
                return a
        return None


@dataclass(eq=False)
class EntryPoint:
    function: Function
    stage: str
    """`compute`, `pixel`, `vertex`, `hull`, `domain`, `geometry`, `mesh`, `amplification`,
    or a ray-tracing stage name from `[shader("...")]`."""
    group_size: tuple[int, int, int] | None = None

    @property
    def name(self) -> str:
        return self.function.name

    @property
    def threads_per_group(self) -> int | None:
        if self.group_size is None:
            return None
        x, y, z = self.group_size
        return x * y * z
