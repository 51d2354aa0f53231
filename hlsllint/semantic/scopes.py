"""Scopes: every identifier of every function body resolved to its `Symbol` (locals follow block
scopes, then globals and functions), the uses of each symbol indexed, and what each body calls.
A body seen before (in any unit of the process) is resolved by replaying its plan
(`hlsllint.semantic.plans`), else walked and recorded. On top of the function definitions
(`Functions`)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from hlsllint.semantic import plans
from hlsllint.semantic import types as T
from hlsllint.semantic.functions import Functions
from hlsllint.semantic.plans import OP_CALL, OP_DECLARE, OP_FREE, OP_LOCAL, OP_MEMBER, OP_PARAM, Recording
from hlsllint.semantic.symbols import Function, Symbol
from hlsllint.settings import AnalysisSettings
from hlsllint.syntax import Node, SyntaxTree
from hlsllint.syntax.fields import F_FIELD, F_NAME, F_SIZE, F_TYPE


class Scopes(Functions):
    """The model resolving function bodies (see the module docstring)."""

    def __init__(self, tree: SyntaxTree, settings: AnalysisSettings) -> None:
        super().__init__(tree, settings)
        self._function_symbols: dict[str, Symbol] = {}
        self._pending_uses: list[tuple[int, Node, Symbol]] = []
        """The uses found in the body being resolved: (start byte, identifier, symbol)."""
        self._recording: Recording | None = None
        """While a body is walked: its steps, for its function's plan."""
        self._free: dict[str, Symbol | None] = {}
        """While the bodies are resolved: name -> `_lookup(name, ())` (globals and functions do
        not change then)."""
        self._positions: list[int] = []
        """While a body is walked: the positions in `nodes()` of its nodes of `_RESOLVE_KINDS`."""
        self._later_starts: list[int] = []
        """The bodies left for later (`_resolve_bodies`), by start byte in ascending order, ..."""
        self._later: list[Function | None] = []
        """... their functions (None once resolved), ..."""
        self._later_names: dict[str, list[int]] = {}
        """... the names free in them or their struct's members they mention -> their places
        above, ..."""
        self._later_params: dict[int, int] = {}
        """... and id(parameter or `this`) -> the place of its function above."""
        self._body_starts: list[int] = []
        """When bodies are left for later: the start byte of every resolved or deferred body,
        ascending, ..."""
        self._body_order: list[int] = []
        """... and its function's place in the order `_resolve_bodies` goes through them (the
        order of each symbol's uses)."""
        self._unordered: set[int] = set()
        """id(symbol) whose uses got those of a body resolved later appended: sorted when asked."""

    def _resolve_bodies(self) -> None:
        """Resolve every function's body and index the uses found (in document order per
        function), once the top-level declarations are read: a body may use any global or
        function.

        A body that would be replayed from its plan and whose replay changes nothing but its own
        references, uses and calls (no struct defined in it, no array declared in it: an array
        size may be a problem the model reports) is left for later (`DEFER_BODIES`): its calls
        are taken from the plan, and it is replayed when something asks about it (`resolve` of
        an identifier in it, `uses_of` a name it mentions), exactly as here."""
        defer = DEFER_BODIES and plans.USE_PLANS and not self._struct_in_a_body()
        later: list[tuple[int, int, Function]] = []
        order = 0
        for overloads in self.functions.values():
            for f in overloads:
                order += 1
                if defer and f.body is not None and self._deferrable(f):
                    later.append((f.body.start_byte, order, f))
                    continue
                self._pending_uses = []
                self._resolve_body(f)
                self._pending_uses.sort(key=lambda u: u[0])
                for _start, node, sym in self._pending_uses:
                    self._uses.setdefault(id(sym), []).append(node)
        self._pending_uses = []
        for name in self.functions:
            self._function_symbols.setdefault(name, Symbol(name, "function", T.UNKNOWN))
        if not later:
            self._free = {}
            return
        later.sort(key=lambda x: x[0])
        for k, (start, _order, f) in enumerate(later):
            self._later_starts.append(start)
            self._later.append(f)
            planned = self._plans[id(f)][0]
            for name in _plan_names(planned):
                self._later_names.setdefault(name, []).append(k)
            for p in f.params:
                self._later_params[id(p)] = k
            if f.this is not None:
                self._later_params[id(f.this)] = k
        self._deferred = len(later)
        plans.STATS["deferred"] += len(later)
        bodies: list[tuple[int, int]] = []
        order = 0
        for overloads in self.functions.values():
            for f in overloads:
                order += 1
                if f.body is not None:
                    bodies.append((f.body.start_byte, order))
        bodies.sort()
        self._body_starts = [b[0] for b in bodies]
        self._body_order = [b[1] for b in bodies]

    def _struct_in_a_body(self) -> bool:
        """Whether a function body holds a struct specifier (a local `struct S { ... }`): resolving
        it may add to the unit's structs, so no body of the unit waits (a body resolved later
        would see it). Known per plan once; a body without one is looked through (it is walked
        anyway)."""
        tree = self.tree
        types = tree.node_types()
        for overloads in self.functions.values():
            for f in overloads:
                if f.body is None:
                    continue
                planned = self._plans.get(id(f))
                if planned is not None and planned[0].body is not None:
                    if _plan_has_struct(planned[0], f.body.descendant_count):
                        return True
                    continue
                at = tree.index_of(f.body)
                if at is not None and not _STRUCTS.isdisjoint(types[at : at + f.body.descendant_count]):
                    return True
        return False

    def _deferrable(self, fn: Function) -> bool:
        """Whether `fn`'s body can wait (see `_resolve_bodies`); if so its calls are noted."""
        planned = self._plans.get(id(fn))
        if planned is None or fn.body is None:
            return False
        plan = planned[0]
        ops = plan.body
        if ops is None or not _plan_deferrable(plan, fn.body.descendant_count):
            return False
        if fn.owner is not None:
            outer = set(self.member_symbols(fn.owner))
            if fn.this is not None:
                outer.add("this")
            if plan.scope is None or plan.scope != frozenset(outer):
                return False
        if self.tree.index_of(fn.body) is None:
            return False
        calls = fn.calls
        for name in _plan_calls(plan):
            calls.add(name)
        return True

    def _resolve_deferred(self, byte_range: tuple[int, int]) -> Symbol | None:
        k = bisect.bisect_right(self._later_starts, byte_range[0]) - 1
        if k >= 0:
            fn = self._later[k]
            if fn is not None and fn.body is not None and byte_range[0] < fn.body.end_byte:
                self._resolve_later(k)
        return self._refs.get(byte_range)

    def uses(self, sym: Symbol) -> list[Node]:
        """The identifiers in function bodies that refer to `sym` (`queries.uses_of`): the bodies
        left for later that may hold one are resolved first."""
        key = id(sym)
        if self._deferred:
            k = self._later_params.get(key)
            if k is not None:
                if self._later[k] is not None:
                    self._resolve_later(k)
            elif sym.kind != "local" and sym.kind != "param":  # not of a body left for later
                places = self._later_names.get(sym.name)
                if places is not None:
                    for k in places:
                        if self._later[k] is not None:
                            self._resolve_later(k)
        found = self._uses.get(key)
        if found is None:
            return []
        if key in self._unordered:
            self._unordered.discard(key)
            starts = self._body_starts
            order = self._body_order
            found.sort(key=lambda n: (order[bisect.bisect_right(starts, n.start_byte) - 1], n.start_byte))
        return found

    def resolve_all(self) -> None:
        """Resolve every body left for later (for comparisons with a model resolved at once)."""
        for k in range(len(self._later)):
            if self._later[k] is not None:
                self._resolve_later(k)

    def _resolve_later(self, k: int) -> None:
        """Resolve the body left for later at place `k`, as `_resolve_bodies` would have: the
        constants evaluated as they are while the model is built (no memo, no locals known to
        keep their value, no bindings), whatever evaluation in progress asked."""
        fn = self._later[k]
        if fn is None:
            return
        self._later[k] = None  # first: what its replay asks of its own body is not asked again
        self._deferred -= 1
        plans.STATS["later"] += 1
        pending = self._pending_uses
        consts = self._consts
        guard = self._const_guard
        reach = self._reach
        bindings = self._bindings
        self._pending_uses = []
        self._consts = None
        self._const_guard = set()
        self._reach = 0
        self._bindings = None
        try:
            self._resolve_body(fn)
            found = self._pending_uses
            found.sort(key=lambda u: u[0])
            uses = self._uses
            unordered = self._unordered
            for _start, node, sym in found:
                key = id(sym)
                known = uses.get(key)
                if known is None:
                    uses[key] = [node]
                else:
                    unordered.add(key)
                    known.append(node)
        finally:
            self._pending_uses = pending
            self._consts = consts
            self._const_guard = guard
            self._reach = reach
            self._bindings = bindings
        if not self._deferred:
            self._free = {}
            self._later_names = {}
            self._later_params = {}

    def _resolve_body(self, fn: Function) -> None:
        """Resolve every identifier of a body, following block scopes.

        A body whose function was seen before (in any unit of this process) with the same text,
        parse and annotations is resolved by replaying the recorded steps (`FunctionPlan`);
        otherwise it is walked, and the walk recorded."""
        if fn.body is None:
            return
        tree = self.tree
        start = tree.index_of(fn.body)
        if start is None:
            return
        outer: dict[str, Symbol] | None = None
        if fn.owner is not None:  # a method: its struct's members, then `this`, then its parameters
            outer = dict(self.member_symbols(fn.owner))
            if fn.this is not None:
                outer["this"] = fn.this
        planned = self._plans.get(id(fn))
        recorded = planned[0].body if planned is not None else None
        if planned is not None and recorded is not None:
            scope = planned[0].scope
            if outer is None or (scope is not None and scope == frozenset(outer)):
                plans.STATS["replayed"] += 1
                self._replay(fn, recorded, start, outer)
                return
            planned = None  # a method whose struct reads otherwise here: walked, not recorded
        plans.STATS["walked"] += 1
        rec = self._recording = Recording(start, fn.params, outer) if planned is not None else None
        # The positions of the nodes the walk looks at, in this body only.
        kinds = _RESOLVE_KINDS
        self._positions = [
            i
            for i, t in enumerate(tree.node_types()[start : start + fn.body.descendant_count], start)
            if t in kinds
        ]
        scopes: list[dict[str, Symbol]] = [{p.name: p for p in fn.params}]
        if outer is not None:
            scopes.insert(0, outer)
        try:
            self._resolve_range(fn, scopes, start)
        finally:
            self._recording = None
            self._positions = []
        if planned is not None and rec is not None and rec.ok:
            planned[0].body = rec.ops
            planned[0].scope = frozenset(outer) if outer is not None else None

    def _replay(
        self, fn: Function, ops: list[tuple[Any, ...]], base: int, outer: dict[str, Symbol] | None
    ) -> None:
        """Resolve a body by the recorded steps of an identical one: the same declarations
        (their types looked up here), references, uses and calls, in the same order. `outer`:
        a method's members and `this`, by the names its body sees."""
        nodes = self.tree.nodes()
        refs = self._refs
        uses = self._pending_uses
        lookup = self._lookup
        free = self._free
        params = fn.params
        declared: list[list[Symbol]] = []
        deadline = self.deadline
        for op in ops:
            deadline.tick()
            code = op[0]
            if code == OP_DECLARE:
                decl = nodes[base + op[1]]
                skeleton = op[2]
                if skeleton is None:
                    declared.append(self.declare(decl, "local", function=fn.name))
                    continue
                entries, quals = skeleton
                t = self.type_from_node(decl.child_by_field_id(F_TYPE))
                syms: list[Symbol] = []
                for rel_name, rel_init, name, semantic, register in entries:
                    node = nodes[base + rel_name]
                    init = nodes[base + rel_init] if rel_init >= 0 else None
                    sym = Symbol(
                        name,
                        "local",
                        t,
                        node,
                        decl,
                        semantic,
                        register,
                        init=init,
                        qualifiers=quals,
                        function=fn.name,
                    )
                    refs[node.byte_range] = sym
                    syms.append(sym)
                declared.append(syms)
            elif code == OP_CALL:
                fn.calls.add(op[1])
            else:
                node = nodes[base + op[1]]
                found: Symbol | None
                if code == OP_FREE:
                    if op[2] in free:
                        found = free[op[2]]
                    else:
                        found = free[op[2]] = lookup(op[2], ())
                elif code == OP_LOCAL:
                    found = declared[op[2]][op[3]]
                elif code == OP_PARAM:
                    found = params[op[2]]
                else:  # OP_MEMBER
                    found = outer.get(op[2]) if outer is not None else None
                if found is not None:
                    r = node.byte_range
                    refs[r] = found
                    if found.node is None or found.node.id != node.id:
                        uses.append((r[0], node, found))

    def _resolve_range(self, fn: Function, scopes: list[dict[str, Symbol]], first: int) -> None:
        """Resolve the identifiers of the subtree at `nodes()[first]` (its run of
        `descendant_count` nodes in document order) under `scopes`: a declaration's names are
        seen after it, a block's names until its end, initialisers and array sizes of a
        declaration after the names it declares."""
        tree = self.tree
        nodes = tree.nodes()
        types = tree.node_types()
        text = tree.text
        plain = tree.ascii
        refs = self._refs
        uses = self._pending_uses
        lookup = self._lookup
        rec = self._recording
        free = self._free
        # Only the nodes of these kinds matter: visit their positions, in document order.
        positions = self._positions
        count = len(positions)
        ends: list[int] = []  # where the scopes opened in this run close
        stop = first + nodes[first].descendant_count
        j = bisect.bisect_left(positions, first)
        deadline = self.deadline
        while j < count:
            deadline.tick()
            i = positions[j]
            if i >= stop:
                break
            while ends and i >= ends[-1]:
                ends.pop()
                scopes.pop()
            j += 1
            kind = types[i]
            if kind == "identifier" or kind == "this":
                node = nodes[i]
                s, e = node.start_byte, node.end_byte
                name = text[s:e] if plain else tree.node_text(node)
                for scope in reversed(scopes):
                    sym = scope.get(name)
                    if sym is not None:
                        if rec is not None:
                            rec.bound(i, sym)
                        break
                else:
                    if name in free:
                        sym = free[name]
                    else:
                        sym = free[name] = lookup(name, ())
                    if rec is not None:
                        rec.ops.append((OP_FREE, i - rec.base, name))
                if sym is not None:
                    refs[(s, e)] = sym
                    if sym.node is None or sym.node.id != node.id:
                        uses.append((s, node, sym))
                size = node.descendant_count
                if size > 1:  # not a leaf: what is below is not looked at
                    j = bisect.bisect_left(positions, i + size, j)
            elif kind == "declaration":
                node = nodes[i]
                if node.child_by_field_id(F_TYPE) is not None:
                    self._resolve_declaration(fn, scopes, node, i)
                    j = bisect.bisect_left(positions, i + node.descendant_count, j)
            elif kind == "array_declarator":
                pass
            elif kind == "call_expression":
                # What the body calls: the identifiers whose parent is a call (the callee); a
                # method's name (`.name`), a qualified or template function's name.
                for c in nodes[i].named_children:
                    callee = _callee_name(tree, c)
                    if callee:
                        fn.calls.add(callee)
                        if rec is not None:
                            rec.ops.append((OP_CALL, callee))
            else:  # a block scope
                ends.append(i + nodes[i].descendant_count)
                scopes.append({})
        for _ in ends:
            scopes.pop()

    def _resolve_declaration(
        self, fn: Function, scopes: list[dict[str, Symbol]], decl: Node, at: int
    ) -> None:
        """Declare a local declaration's names, then resolve its array sizes (last first) and
        initialisers (last first), in that order. `at` is the declaration's position in
        `nodes()`."""
        tree = self.tree
        then: list[Node] = []
        declared = self.declare(decl, "local", function=fn.name)
        for sym in declared:
            scopes[-1][sym.name] = sym
            if sym.init is not None:
                then.append(sym.init)
        # Array sizes: only when an array declarator lies inside the declaration at all.
        arrays = self._has_array_declarator(at, at + decl.descendant_count)
        if self._recording is not None:
            self._recording.declaration(tree, at, declared, arrays)
        if arrays:
            for c in decl.named_children:
                if c.type == "array_declarator" or c.type == "init_declarator":
                    for inner in tree.walk(c):
                        if inner.type == "array_declarator":
                            size = inner.child_by_field_id(F_SIZE)
                            if size is not None:
                                then.append(size)
        for node in reversed(then):
            first = tree.index_of(node)
            if first is not None:
                self._resolve_range(fn, scopes, first)

    def _has_array_declarator(self, first: int, stop: int) -> bool:
        """Whether `nodes()[first:stop]` holds an `array_declarator` (they are among the
        positions that resolving visits)."""
        positions = self._positions
        types = self.tree.node_types()
        j = bisect.bisect_left(positions, first)
        while j < len(positions):
            i = positions[j]
            if i >= stop:
                return False
            if types[i] == "array_declarator":
                return True
            j += 1
        return False

    def _lookup(self, name: str, scopes: Sequence[dict[str, Symbol]]) -> Symbol | None:
        for scope in reversed(scopes):
            sym = scope.get(name)
            if sym is not None:
                return sym
        sym = self.globals.get(name)
        if sym is not None:
            return sym
        if name in self.functions:
            fs = self._function_symbols.get(name)
            if fs is None:
                fs = Symbol(name, "function", T.UNKNOWN)
                self._function_symbols[name] = fs
            return fs
        return None


DEFER_BODIES = True
"""Whether bodies replayed from plans wait until something asks about them (tests compare)."""

_NOT_DEFERRED = frozenset({"array_declarator", "struct_specifier", "class_specifier", "sizeof_expression"})
"""A body holding one of these is resolved at once (see `Scopes._resolve_bodies`)."""


_STRUCTS = frozenset({"struct_specifier", "class_specifier"})


def _plan_has_struct(plan: plans.FunctionPlan, count: int) -> bool:
    """Whether the body of `plan` (`count` nodes) holds a struct specifier."""
    known = plan.has_struct
    if known is None:
        define = plan.define
        rel = define[3] if define is not None else -1
        known = rel >= 0 and not _STRUCTS.isdisjoint(plan.types[rel : rel + count])
        plan.has_struct = known
    return known


def _plan_deferrable(plan: plans.FunctionPlan, count: int) -> bool:
    """Whether a body replayed from `plan` (`count` nodes) can wait (see `_resolve_bodies`)."""
    known = plan.deferrable
    if known is None:
        define = plan.define
        rel = define[3] if define is not None else -1
        known = rel >= 0 and _NOT_DEFERRED.isdisjoint(plan.types[rel : rel + count])
        plan.deferrable = known
    return known


def _plan_calls(plan: plans.FunctionPlan) -> list[str]:
    """The names a body replayed from `plan` calls, in the order the replay notes them."""
    calls = plan.calls
    if calls is None:
        calls = plan.calls = [op[1] for op in plan.body or () if op[0] == OP_CALL]
    return calls


def _plan_names(plan: plans.FunctionPlan) -> list[str]:
    """The names a body replayed from `plan` looks up among the unit's globals and functions or
    its struct's members (a use of anything but its own parameters and locals is one of them)."""
    names = plan.names
    if names is None:
        found = {op[2] for op in plan.body or () if op[0] == OP_FREE or op[0] == OP_MEMBER}
        names = plan.names = sorted(found)
    return names


def _callee_name(tree: SyntaxTree, c: Node) -> str:
    """What `Function.calls` notes of a call's function child: an identifier's name, a
    qualified name (`S::create`), a template function's name, `.name` for a method called on
    an object; "" for anything else (arguments)."""
    kind = c.type
    if kind == "template_function" or kind == "template_method":
        name = c.child_by_field_id(F_NAME)
        if name is None:
            return ""
        c = name
        kind = c.type
    if kind == "identifier":
        return tree.node_text(c)
    if kind == "qualified_identifier":
        return "".join(tree.node_text(c).split())
    if kind == "field_expression":
        field = c.child_by_field_id(F_FIELD)
        return "." + tree.node_text(field) if field is not None else ""
    return ""


_SCOPE_NODES = frozenset(
    {
        "compound_statement",
        "for_statement",
        "while_statement",
        "do_statement",
        "if_statement",
        "switch_statement",
        "case_statement",
    }
)
"""Nodes that open a block scope for the names declared inside them."""

_RESOLVE_KINDS = _SCOPE_NODES | {"identifier", "this", "declaration", "call_expression", "array_declarator"}
"""What resolving a body looks at (everything else is only walked through; array declarators
are only listed, for `_has_array_declarator`)."""
