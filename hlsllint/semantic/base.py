"""The tables a semantic model fills (structs, typedefs, globals, cbuffers, functions, entry points,
references) and the lookups over them: `ModelBase`, the first of the classes `Model` is made of
(see `hlsllint.semantic.model`)."""

from __future__ import annotations

from typing import Any

from hlsllint.deadline import Deadline
from hlsllint.semantic import types as T
from hlsllint.semantic.intrinsics import OBJECT_TYPE_METHODS
from hlsllint.semantic.symbols import CBuffer, EntryPoint, Function, Symbol
from hlsllint.settings import AnalysisSettings
from hlsllint.syntax import Node, SyntaxTree


class ModelBase:
    """What a unit declares and the lookups over it (see `hlsllint.semantic.model`)."""

    def __init__(self, tree: SyntaxTree, settings: AnalysisSettings) -> None:
        self.tree = tree
        self.settings = settings
        self.deadline = Deadline()
        """While `build` runs, the unit's deadline (`hlsllint.deadline`): its walks check it. A
        model outlives its lint (the language server reuses it), so afterwards one that never
        stops: what a later stage asks of the model, that stage checks its own deadline for."""
        self._source = tree.text
        self._plain = tree.ascii
        """When the text is ASCII a node's text is `_source[start_byte:end_byte]`."""
        self.structs: dict[str, T.Type] = {}
        self.typedefs: dict[str, T.Type] = {}
        self.globals: dict[str, Symbol] = {}
        self.static_members: dict[str, Symbol] = {}
        """A struct's static members by scoped name (`Tile::kSize`; a nested struct's
        `Inner::kSize`): no part of the struct's values."""
        self.cbuffers: list[CBuffer] = []
        self.functions: dict[str, list[Function]] = {}
        self.entry_points: list[EntryPoint] = []
        self._refs: dict[tuple[int, int], Symbol] = {}
        self._late_starts: list[int] = []
        """Where the bodies left to resolve late start (`Scopes._resolve_bodies`), in order."""
        self._dirty_uses: set[int] = set()
        self._late_lock: Any = None
        """While bodies are left to resolve late: the lock of resolving them (`threading.RLock`)."""
        """id(symbol) of the symbols whose uses a body resolved late added out of order."""
        self.memo: dict[str, Any] = {}
        """Where the later stages keep what they computed once for this unit (the analyses,
        per-node answers), each under its own key; it goes away with the model."""
        self.problems: dict[tuple[int, int], tuple[str, str]] = {}
        """What the model found wrong with the code it read, by span of the text: (the engine's
        code, message), e.g. a struct nested too deep (HL007); `lint` reports them."""
        self._uses: dict[int, list[Node]] = {}
        """id(symbol) -> the identifiers in function bodies that refer to it (its declaration
        excluded), in document order per function; filled while the bodies are resolved
        (`hlsllint.semantic.queries.uses_of`)."""

    # -- queries ----------------------------------------------------------------------------

    @property
    def sixteen_bit(self) -> bool:
        return self.settings.enable_16bit_types

    def resolve(self, node: Node) -> Symbol | None:
        """The symbol an identifier (use or declaration) refers to."""
        r = node.byte_range
        found = self._refs.get(r)
        if found is None and self._late_starts:
            return self._resolve_late(r)
        return found

    def resolve_range(self, byte_range: tuple[int, int]) -> Symbol | None:
        """`resolve` of the identifier at `byte_range`."""
        found = self._refs.get(byte_range)
        if found is None and self._late_starts:
            return self._resolve_late(byte_range)
        return found

    def uses_of_symbol(self, sym: Symbol) -> list[Node]:
        """The identifiers in function bodies that refer to `sym` (its declaration excluded), in
        document order per function (`hlsllint.semantic.queries.uses_of`). A local's are all in
        its own body, resolved when it was declared; any other symbol's need every body."""
        lock = self._late_lock
        if lock is None:
            return self._uses.get(id(sym), [])
        with lock:  # another thread may be resolving a body late
            if (self._late_starts or self._dirty_uses) and sym.kind != "local":
                self._complete_uses(sym)
            return self._uses.get(id(sym), [])

    def resolve_every_body(self) -> None:
        """Resolve the bodies left to resolve late now (what a walk over `_refs` needs)."""
        if self._late_starts or self._dirty_uses:
            self._resolve_all_late()

    def _resolve_late(self, byte_range: tuple[int, int]) -> Symbol | None:
        """`Scopes._resolve_late`: resolve the body holding `byte_range` if it was left to
        resolve late, then look it up."""
        raise NotImplementedError

    def _complete_uses(self, sym: Symbol) -> None:
        """`Scopes._complete_uses`: resolve the bodies left to resolve late that may use `sym`
        and put its uses in order."""
        raise NotImplementedError

    def _resolve_all_late(self) -> None:
        """`Scopes._resolve_all_late`: resolve every body left to resolve late."""
        raise NotImplementedError

    def function(self, name: str, nargs: int | None = None) -> Function | None:
        """The definition of `name` (the overload with `nargs` parameters when there are many)."""
        overloads = self.functions.get(name)
        if not overloads:
            return None
        if nargs is not None and len(overloads) > 1:
            for f in overloads:
                if len(f.params) == nargs:
                    return f
        return overloads[0]

    def entry(self, name: str) -> EntryPoint | None:
        for e in self.entry_points:
            if e.name == name:
                return e
        return None

    @property
    def groupshared(self) -> list[Symbol]:
        return [s for s in self.globals.values() if s.kind == "groupshared"]

    @property
    def groupshared_bytes(self) -> int:
        return sum(s.type.bytes(self.sixteen_bit) for s in self.groupshared)

    def lookup_type(self, name: str) -> T.Type:
        name = name.strip()
        if name in self.typedefs:
            return self.typedefs[name]
        if name in self.structs:
            return self.structs[name]
        if "::" in name:  # `SH::L1`, `SH::L1::Packed`: namespaces are flattened, nested structs
            parts = [p.strip() for p in name.split("::")]  # are known as `Outer::Inner`
            for i in range(1, len(parts)):
                scoped = "::".join(parts[i:])
                if scoped in self.typedefs:
                    return self.typedefs[scoped]
                if scoped in self.structs:
                    return self.structs[scoped]
        num = T.parse_numeric(name)
        if num is not None:
            return num
        if name == "void":
            return T.VOID
        if name in ("unsigned int", "unsigned"):
            return T.UINT
        if T.resource_of(name) is not None:
            return T.resource_type(name, None)
        if name in OBJECT_TYPE_METHODS:  # `SubpassInput` with its default element, `RayQuery`
            return T.Type("unknown", name)
        return T.BUILTIN_STRUCTS.get(name, T.UNKNOWN)

    def _text(self, node: Node | None) -> str:
        if node is None:
            return ""
        if self._plain:
            return self._source[node.start_byte : node.end_byte]
        return self.tree.node_text(node)

    def block_kind(self, node: Node) -> str | None:
        return self.tree.block_kind(node)

    def type_of(self, node: Node | None) -> T.Type:
        """The type of an expression: `Expressions.type_of` (`sizeof(x)` folds to the size of
        x's type, so constants ask for types too)."""
        raise NotImplementedError

    def type_from_node(self, node: Node | None) -> T.Type:
        """The type named by a type node: `Declarators.type_from_node` (a type may name constants,
        `vector<float, N>`, and a constant may cast to a type, so the two layers call each other)."""
        raise NotImplementedError
