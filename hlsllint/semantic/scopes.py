"""Scopes: every identifier of every function body resolved to its `Symbol` (locals follow block
scopes, then globals and functions), the uses of each symbol indexed, and what each body calls.
A body seen before (in any unit of the process) is resolved by replaying its plan
(`hlsllint.semantic.plans`), else walked and recorded; a replayed body whose plan allows it is
resolved only when something asks about it (`_resolve_bodies`: most of a shared header's
functions are called by no entry point of a unit, and nothing asks about them). On top of the
function definitions (`Functions`)."""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from typing import Any

from hlsllint.semantic import plans
from hlsllint.semantic import types as T
from hlsllint.semantic.functions import Functions
from hlsllint.semantic.plans import OP_CALL, OP_DECLARE, OP_FREE, OP_LOCAL, OP_PARAM, Recording
from hlsllint.semantic.symbols import Function, Symbol
from hlsllint.settings import AnalysisSettings
from hlsllint.syntax import Node, SyntaxTree
from hlsllint.syntax.fields import F_DECLARATOR, F_FIELD, F_NAME, F_SIZE, F_TYPE


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
        self._late: list[tuple[int, int, Function, frozenset[str]]] = []
        """The bodies left to resolve late (`_resolve_late`): (start byte, end byte, function,
        the names it looks up among the globals and functions), by start; `_late_starts` holds
        their starts."""
        self._use_order: tuple[list[int], list[int]] | None = None
        """The bodies' starts in order and the place of each one's function among the model's
        functions (`_use_key`)."""
        self._body_uses: dict[int, list[tuple[int, Node, Symbol]]] = {}
        """id(function) -> the uses its body's resolution found, in document order (while bodies
        are left to resolve late: `_uses` is made again from them in the functions' order)."""
        self._late_symbols: dict[str, Symbol] = {}
        self._late_free: dict[str, Symbol | None] = {}
        """What `_function_symbols` and `_free` were while the bodies were resolved, for the ones
        resolved late."""

    def _resolve_bodies(self) -> None:
        """Resolve every function's body and index the uses found (in document order per
        function), once the top-level declarations are read: a body may use any global or
        function.

        A body replayed from a plan that allows it (`FunctionPlan.late`: a shared header's
        functions, most of which no entry point of the unit calls) is left to resolve when
        something first asks about it: an identifier in it (`resolve`), or the uses of a symbol
        other than a local (`uses_of_symbol`: the bodies that may use it). What it calls is
        noted now (the entry points are found from it). Once a body defines a struct (a local
        `struct` declaration, which the model adds to its structs), no body after it is left
        late, and those left before it are resolved at the end (a type they name could read
        otherwise later)."""
        late: list[tuple[int, int, Function, frozenset[str]]] = []
        body_uses = self._body_uses
        may_defer = plans.LATE_BODIES and plans.USE_PLANS
        structs_before = self.struct_definitions
        for overloads in self.functions.values():
            for f in overloads:
                body = f.body
                if may_defer and body is not None and f.owner is None:
                    planned = self._plans.get(id(f))
                    if planned is not None and planned[0].late and planned[0].body is not None:
                        calls = f.calls
                        for name in planned[0].calls:
                            calls.add(name)
                        late.append((body.start_byte, body.end_byte, f, planned[0].free))
                        plans.STATS["late"] += 1
                        continue
                self._pending_uses = []
                self._resolve_body(f)
                if self.struct_definitions != structs_before:
                    may_defer = False  # a body defined a struct: the rest read after it
                pending = self._pending_uses
                pending.sort(key=lambda u: u[0])
                body_uses[id(f)] = pending
                for _start, node, sym in pending:
                    self._uses.setdefault(id(sym), []).append(node)
        self._pending_uses = []
        if late:
            late.sort(key=lambda b: b[0])
            self._late = late
            self._late_starts = [b[0] for b in late]
            self._late_symbols = dict(self._function_symbols)
            self._late_free = self._free
            self._late_lock = threading.RLock()
        else:
            self._body_uses = {}
        self._free = {}
        for name in self.functions:
            self._function_symbols[name] = Symbol(name, "function", T.UNKNOWN)
        if late and self.struct_definitions != structs_before:
            self._resolve_all_late()

    def _resolve_late(self, byte_range: tuple[int, int]) -> Symbol | None:
        """`resolve` of the identifier at `byte_range`, once the body holding it, if left to
        resolve late, is resolved (one thread at a time: the language server's share a model)."""
        with self._late_lock:
            found = self._refs.get(byte_range)
            if found is not None:
                return found
            starts = self._late_starts
            i = bisect.bisect_right(starts, byte_range[0]) - 1
            if i < 0 or byte_range[1] > self._late[i][1]:
                return None
            self._resolve_late_at(i)
            return self._refs.get(byte_range)

    def _resolve_late_at(self, i: int) -> None:
        """Resolve the `i`th body left to resolve late. The uses it finds go at the end of their
        symbols' lists, which `uses_of_symbol` puts in order again when asked (`_dirty_uses`)."""
        f = self._late[i][2]
        del self._late_starts[i]
        del self._late[i]
        uses = self._uses
        dirty = self._dirty_uses
        for _start, node, sym in self._resolve_one_late(f):
            uses.setdefault(id(sym), []).append(node)
            if sym.kind != "local":  # a local's uses are all in this body
                dirty.add(id(sym))

    def _complete_uses(self, sym: Symbol) -> None:
        """Resolve the bodies left to resolve late that may use `sym`, a symbol other than a
        local (a parameter: its function's; another: those that look up its name among the
        globals and functions), and put its uses in the order resolving every body with the
        model gives (the functions' order, then the text's)."""
        with self._late_lock:
            late = self._late
            if late:
                kind = sym.kind
                if kind == "param":
                    wanted = [b[2] for b in late if b[2].name == sym.function]
                elif kind == "member":
                    wanted = []  # only a method's body names a member bare (not left late)
                else:
                    name = sym.name
                    wanted = [b[2] for b in late if name in b[3]]
                for f in wanted:
                    for i, b in enumerate(self._late):
                        if b[2] is f:
                            self._resolve_late_at(i)
                            break
            key = id(sym)
            if key in self._dirty_uses:
                self._dirty_uses.discard(key)
                found = self._uses.get(key)
                if found:
                    found.sort(key=self._use_key)

    def _use_key(self, node: Node) -> tuple[int, int]:
        """Where a use comes when every body is resolved with the model: the place of its
        function among the model's functions, then its offset."""
        order = self._use_order
        if order is None:
            bodies: list[tuple[int, int]] = []
            k = 0
            for overloads in self.functions.values():
                for f in overloads:
                    if f.body is not None:
                        bodies.append((f.body.start_byte, k))
                    k += 1
            bodies.sort()
            order = self._use_order = ([b[0] for b in bodies], [b[1] for b in bodies])
        at = node.start_byte
        i = bisect.bisect_right(order[0], at) - 1
        return (order[1][i] if i >= 0 else -1, at)

    def _resolve_one_late(self, f: Function) -> list[tuple[int, Node, Symbol]]:
        """Resolve a body left to resolve late as `_resolve_bodies` would have: its plan's
        steps, with the function symbols and lookups of then. Its uses, in document order."""
        plans.STATS["resolved_late"] += 1
        uses: list[tuple[int, Node, Symbol]] = []
        planned = self._plans.get(id(f))
        body = f.body
        start = self.tree.index_of(body) if body is not None else None
        if planned is not None and planned[0].body is not None and start is not None:
            plans.STATS["replayed"] += 1
            self._replay(f, planned[0].body, start, None, uses, self._late_free, self._late_symbols)
        uses.sort(key=lambda u: u[0])
        self._body_uses[id(f)] = uses
        return uses

    def _resolve_all_late(self) -> None:
        """Resolve every body left to resolve late, and index the uses again in the functions'
        order (as if every body had been resolved with the model)."""
        with self._late_lock:
            if not self._late_starts and not self._dirty_uses:
                return
            left = {id(b[2]) for b in self._late}
            self._late = []
            self._late_starts = []
            uses: dict[int, list[Node]] = {}
            body_uses = self._body_uses
            for overloads in self.functions.values():
                for f in overloads:
                    found = body_uses.get(id(f))
                    if found is None:
                        if id(f) not in left:
                            continue
                        found = self._resolve_one_late(f)
                    for _start, node, sym in found:
                        uses.setdefault(id(sym), []).append(node)
            self._uses = uses
            self._body_uses = {}
            self._dirty_uses = set()

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
                self._replay(
                    fn, recorded, start, outer, self._pending_uses, self._free, self._function_symbols
                )
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
            planned[0].calls = tuple(dict.fromkeys(op[1] for op in rec.ops if op[0] == OP_CALL))
            planned[0].free = frozenset(op[2] for op in rec.ops if op[0] == OP_FREE)
            planned[0].late = rec.late and outer is None

    def _replay(
        self,
        fn: Function,
        ops: list[tuple[Any, ...]],
        base: int,
        outer: dict[str, Symbol] | None,
        uses: list[tuple[int, Node, Symbol]],
        free: dict[str, Symbol | None],
        symbols: dict[str, Symbol],
    ) -> None:
        """Resolve a body by the recorded steps of an identical one: the same declarations
        (their types looked up here), references, uses and calls, in the same order. `outer`:
        a method's members and `this`, by the names its body sees."""
        nodes = self.tree.nodes()
        refs = self._refs
        lookup = self._lookup_free
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
                        found = free[op[2]] = lookup(op[2], symbols)
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
        declaration after the names it declares (sizes naming only earlier declarations
        before them)."""
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
        initialisers (last first), in that order; but sizes that name only earlier declarations
        are resolved before the names are declared, as the declared types fold them:
        `static const uint N = 27; float4 s[N];` in a body is 27 elements only when `N` is
        resolved by then. `at` is the declaration's position in `nodes()`."""
        tree = self.tree
        then: list[Node] = []
        # Array sizes: only when an array declarator lies inside the declaration at all.
        arrays = self._has_array_declarator(at, at + decl.descendant_count)
        sizes: list[Node] = []
        if arrays:
            for c in decl.named_children:
                if c.type == "array_declarator" or c.type == "init_declarator":
                    for inner in tree.walk(c):
                        if inner.type == "array_declarator":
                            size = inner.child_by_field_id(F_SIZE)
                            if size is not None:
                                sizes.append(size)
            own = _declared_names(tree, decl)
            if not any(
                n.type == "identifier" and tree.node_text(n) in own for size in sizes for n in tree.walk(size)
            ):
                for node in reversed(sizes):
                    first = tree.index_of(node)
                    if first is not None:
                        self._resolve_range(fn, scopes, first)
                sizes = []
        declared = self.declare(decl, "local", function=fn.name)
        for sym in declared:
            scopes[-1][sym.name] = sym
            if sym.init is not None:
                then.append(sym.init)
        if self._recording is not None:
            self._recording.declaration(tree, at, declared, arrays)
        then.extend(sizes)
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

    def _lookup_free(self, name: str, symbols: dict[str, Symbol]) -> Symbol | None:
        """`_lookup(name, ())` with the function symbols `symbols`."""
        sym = self.globals.get(name)
        if sym is not None:
            return sym
        if name in self.functions:
            fs = symbols.get(name)
            if fs is None:
                fs = symbols.setdefault(name, Symbol(name, "function", T.UNKNOWN))
            return fs
        return None

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


def _declared_names(tree: SyntaxTree, decl: Node) -> set[str]:
    """The names a declaration declares (the identifier under each declarator)."""
    names: set[str] = set()
    for i, child in enumerate(decl.children):
        if decl.field_name_for_child(i) != "declarator":
            continue
        cur: Node | None = child
        while cur is not None and cur.type != "identifier":
            cur = cur.child_by_field_id(F_DECLARATOR)
        if cur is not None:
            names.add(tree.node_text(cur))
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
