"""Plans: how a function definition was read and its body resolved, kept per process to read an
identical definition in a later unit without walking it (shared headers repeat the same functions
in most units). The data only: `hlsllint.semantic.functions` records and replays definitions,
`hlsllint.semantic.scopes` bodies."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

from hlsllint.semantic import types as T
from hlsllint.semantic.symbols import Symbol
from hlsllint.syntax import Node, SyntaxTree

OP_DECLARE, OP_CALL, OP_FREE, OP_LOCAL, OP_PARAM, OP_MEMBER = range(6)
"""The steps of a body's resolution: (OP_DECLARE, declaration, skeleton or None), (OP_CALL, name),
and references: (OP_FREE, identifier, name) looked up in the unit's globals and functions,
(OP_LOCAL, identifier, declaration step, symbol), (OP_PARAM, identifier, parameter) and, in a
method, (OP_MEMBER, identifier, name) looked up among its struct's members (`this` for the object).
Nodes are positions in `nodes()` relative to the body's."""


ParamSkeleton = tuple[int, int, str, str | None, str | None, frozenset[str], str]
"""A parameter as its own text declares it: name node, default value or -1, name, semantic,
register, qualifiers, direction."""

Define = tuple[str, str | None, tuple[tuple[int, ParamSkeleton | None], ...], int]
"""A function definition as its own text declares it: name, return semantic, parameters
(position, skeleton or None to declare it anew), body or -1."""

NO_FUNCTION: Define = ("", None, (), -1)
"""The plan of a definition that declares no function (no declarator or no name)."""


@dataclass(eq=False)
class FunctionPlan:
    """How a function definition was read and its body resolved, to read an identical one
    (same text as written and as parsed, same node types, same annotations) without walking it.

    What comes from the definition's own text and annotations is kept: names, parameters'
    semantics, registers, qualifiers and directions, which names of the body are bound to which
    parameter or local (block scopes are a matter of the text alone), the calls, per local
    declaration its names, initialisers, semantics and qualifiers. What the unit decides is done
    again on replay: every type is looked up, every free name is looked up among the unit's
    globals and functions, attributes are read anew, and a declaration with array declarators
    (whose sizes are constants of the unit) or several names in a parameter is declared anew.
    Nodes are positions in `nodes()` relative to the definition's (the body's in `body`)."""

    types: list[str]
    notes: tuple[Any, ...]
    define: Define | None = None
    body: list[tuple[Any, ...]] | None = None
    """The body's resolution steps (see `OP_DECLARE`)."""
    scope: frozenset[str] | None = None
    """A method's: the names its struct's members (and `this`) gave its body when the steps were
    recorded. Whether a name of the body is a member or a global is the struct's to say, which
    may read otherwise in another unit: the steps are replayed only under the same names."""
    calls: tuple[str, ...] = ()
    """What the body calls (`Function.calls`), in the order the steps add them."""
    free: frozenset[str] = frozenset()
    """The names the body looks up among the unit's globals and functions (`OP_FREE`)."""
    late: bool = False
    """Whether the body may be resolved late (`Scopes._resolve_late`), when something first asks
    about it: every local it declares has a type named by one word (`float4`, `Light`), which
    reads the same whenever it is looked up once the declarations are read, and no array
    declarator (its size is folded) nor anything else the steps do not describe."""

    def fits(self, types: list[str], start: int, count: int, notes: tuple[Any, ...]) -> bool:
        return (
            self.define is not None
            and len(self.types) == count
            and self.notes == notes
            and types[start : start + count] == self.types
        )


class Recording:
    """The steps of one body's walk, as they happen (see `FunctionPlan`)."""

    def __init__(self, base: int, params: list[Symbol], members: dict[str, Symbol] | None = None) -> None:
        self.base = base
        self.ops: list[tuple[Any, ...]] = []
        self.params = {id(p): k for k, p in enumerate(params)}
        self.members = {id(s): name for name, s in members.items()} if members is not None else {}
        """A method's: id(member symbol, or `this`) -> the name its body sees it by."""
        self.locals: dict[int, tuple[int, int]] = {}
        self.declarations = 0
        self.ok = True
        """False when a step could not be recorded: no plan is kept."""
        self.late = True
        """Whether every declaration was one a late resolution reads the same (`FunctionPlan.late`)."""

    def bound(self, at: int, sym: Symbol) -> None:
        """A name found in the scopes: a parameter or a local of this body, or a member of its struct."""
        k = self.params.get(id(sym))
        if k is not None:
            self.ops.append((OP_PARAM, at - self.base, k))
            return
        local = self.locals.get(id(sym))
        if local is not None:
            self.ops.append((OP_LOCAL, at - self.base, *local))
            return
        member = self.members.get(id(sym))
        if member is None:
            self.ok = False
            return
        self.ops.append((OP_MEMBER, at - self.base, member))

    def declaration(self, tree: SyntaxTree, at: int, declared: list[Symbol], arrays: bool) -> None:
        number = self.declarations
        self.declarations += 1
        for k, sym in enumerate(declared):
            self.locals[id(sym)] = (number, k)
        skeleton: tuple[tuple[tuple[int, int, str, str | None, str | None], ...], frozenset[str]] | None = (
            None
        )
        if not skeleton_kinds_late(tree, at):
            self.late = False
        if not arrays:
            entries = []
            for sym in declared:
                name_at = tree.index_of(sym.node) if sym.node is not None else None
                init_at = tree.index_of(sym.init) if sym.init is not None else -1
                if name_at is None or init_at is None or sym.type is not declared[0].type:
                    break
                rel_init = init_at - self.base if init_at >= 0 else -1
                entries.append((name_at - self.base, rel_init, sym.name, sym.semantic, sym.register))
            else:
                quals = declared[0].qualifiers if declared else frozenset()
                skeleton = (tuple(entries), quals)
        if skeleton is None:
            self.late = False
        self.ops.append((OP_DECLARE, at - self.base, skeleton))


class StructPlan:
    """How a struct definition was read, to read an identical one (same text as written and as
    parsed, same node types, same annotations, same name and enclosing struct) without walking
    it: where each field's type node lies and the type it named, where each method lies, its
    type and how deep it nests. Only a struct whose reading depends on nothing of the unit but
    its fields' types is planned: no base struct, no static member, no array (sizes are constants
    of the unit), no struct defined in it, nothing found wrong with it. On replay each field's
    type is looked up in the unit: when every one is what it was, the struct is the same type
    (the one recorded, equal in value); else it is read anew. Nodes are positions in `nodes()`
    relative to the struct's."""

    def __init__(
        self,
        types: list[str],
        notes: tuple[Any, ...],
        fields: list[tuple[int, T.Type]],
        methods: list[int],
        result: T.Type,
        nesting: int,
    ) -> None:
        self.types = types
        self.notes = notes
        self.fields = fields
        """(position of a field declaration's type node or -1 for none, the type it named)."""
        self.methods = methods
        self.result = result
        self.nesting = nesting

    def fits(self, types: list[str], start: int, count: int, notes: tuple[Any, ...]) -> bool:
        return len(self.types) == count and self.notes == notes and types[start : start + count] == self.types


_LATE_TYPE_KINDS = frozenset({"primitive_type", "type_identifier"})


def skeleton_kinds_late(tree: SyntaxTree, at: int) -> bool:
    """Whether the declaration at `nodes()[at]` names its type by one word (`_LATE_TYPE_KINDS`)."""
    t = tree.nodes()[at].child_by_field_name("type")
    return t is not None and t.type in _LATE_TYPE_KINDS


STRUCT_PLANS: dict[tuple[str, str, str], StructPlan] = {}
"""Struct definition text (as written, as parsed) and its name (`Outer::Inner` in another
struct) -> how it was read, for every unit of the process."""
STRUCT_STATS = {"replayed": 0, "walked": 0}
"""Struct definitions read from a plan and walked (for the tests)."""

PLANS: dict[tuple[str, str, str], FunctionPlan] = {}
"""Function definition text (as written, as parsed) and the struct whose body holds it ("" for a
function outside any) -> how it was read, for every unit of the process (shared headers repeat
the same functions and methods in most units)."""
STATS = {"replayed": 0, "walked": 0, "late": 0, "resolved_late": 0}
"""Function bodies resolved by replaying a plan and by walking them, left to resolve late and
resolved so afterwards (for the tests)."""
PLAN_LIMIT = 2048
USE_PLANS = True
"""Whether function definitions seen before are replayed from their plans (tests compare)."""
LATE_BODIES = True
"""Whether a body replayed from a plan that allows it (`FunctionPlan.late`) is resolved only when
something first asks about it (tests compare)."""


def notes_in(tree: SyntaxTree, node: Node) -> tuple[Any, ...]:
    """The annotations inside a function definition that reading it consults (semantics,
    registers, modifier words), relative to its start: a plan fits only the same ones."""
    start, end = tree.span(node)
    index = tree.index
    found: list[Any] = []
    anchors = index.semantic_anchors
    i = bisect.bisect_left(anchors, start)
    while i < len(anchors) and anchors[i] <= end:
        found.append(("s", anchors[i] - start, index.semantics[anchors[i]].name))
        i += 1
    anchors = index.register_anchors
    i = bisect.bisect_left(anchors, start)
    while i < len(anchors) and anchors[i] <= end:
        regs = index.registers[anchors[i]]
        found.append(("r", anchors[i] - start, tuple((r.kind, r.slot, r.space, r.profile) for r in regs)))
        i += 1
    mods = index.modifiers
    i = bisect.bisect_left(index.modifier_starts, start)
    while i < len(mods) and mods[i].span[0] <= end:
        m = mods[i]
        found.append(("m", m.span[0] - start, m.span[1] - start, m.name))
        i += 1
    return tuple(found)
