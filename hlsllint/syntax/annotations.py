"""What the repair takes out of a text for tree-sitter, and where it was (`normalize`): attributes,
semantics, bindings, modifiers, `cbuffer` blocks, disguised names and effect-file state."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Span = tuple[int, int]


@dataclass(frozen=True)
class Attribute:
    """`[name(args)]` or `[[ns::name(args)]]`; applies to the node that starts at `anchor`."""

    name: str
    args: tuple[str, ...]
    """The arguments as written, split at top-level commas and stripped (strings keep quotes)."""
    span: Span
    anchor: int
    double: bool = False
    """True for the C++11 / Vulkan form `[[...]]`."""
    macro: bool = False
    """True for an unexpanded macro in front of a statement, guessed to be an attribute."""


@dataclass(frozen=True)
class Semantic:
    """`: NAME` after a declarator that ends at `anchor`."""

    name: str
    span: Span
    anchor: int

    @property
    def base(self) -> str:
        """The semantic without its trailing index, upper-cased: `TEXCOORD3` -> `TEXCOORD`."""
        return self.name.rstrip("0123456789").upper()

    @property
    def index(self) -> int:
        digits = self.name[len(self.name.rstrip("0123456789")) :]
        return int(digits) if digits else 0


@dataclass(frozen=True)
class Register:
    """`: register([profile,] slot [, space])` or `: packoffset(slot)` after `anchor`."""

    kind: Literal["register", "packoffset", "read", "write"]
    slot: str
    """`b0`, `t3`, `u1`, `s0` for registers; `c1.x` for packoffset; for the payload access
    qualifiers `read(...)`/`write(...)` the stages as written, comma-separated."""
    space: str | None
    profile: str | None
    span: Span
    anchor: int


@dataclass(frozen=True)
class Modifier:
    """An HLSL modifier word removed from the text (e.g. `unorm`, `triangle`, `indices`)."""

    name: str
    span: Span
    macro: bool = False
    """True for an unexpanded macro guessed to be a qualifier (`FFX_GROUPSHARED`, `FFX_STATIC`)."""


@dataclass(frozen=True)
class Block:
    """A `cbuffer`/`tbuffer` rewritten to a struct; the struct_specifier starts at `anchor`."""

    kind: Literal["cbuffer", "tbuffer"]
    name: str
    span: Span
    """From the keyword to the closing brace (inclusive)."""
    anchor: int
    synthetic_semicolon: int | None
    """Offset of the character turned into `;` after the closing brace, if any."""


@dataclass
class Annotations:
    attributes: list[Attribute] = field(default_factory=list)
    semantics: list[Semantic] = field(default_factory=list)
    registers: list[Register] = field(default_factory=list)
    modifiers: list[Modifier] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    renamed: list[Span] = field(default_factory=list)
    """Spans of names that collide with HLSL keywords and were disguised for the parser."""
    effects: list[Span] = field(default_factory=list)
    """Effect-file state, blanked (it holds no shader code): `technique` blocks and the bodies of
    `sampler_state { ... }` and `SamplerState s { ... }` state objects."""
