"""The syntax tree of a preprocessed unit: `parse` (normalise, then tree-sitter) and `SyntaxTree`
(see the package docstring for what the tree looks like after repair)."""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

import tree_sitter

from hlsllint.deadline import current
from hlsllint.syntax.annotations import (
    Annotations,
    Attribute,
    Block,
    Modifier,
    Register,
    Semantic,
)
from hlsllint.syntax.grammar import field_id, kind_names
from hlsllint.syntax.normalize import normalize
from hlsllint.syntax.reparse import parse_bytes, parse_reparsing, parse_reusing

Node = tree_sitter.Node

_QUALIFIER_TYPES = frozenset(
    {"qualifiers", "storage_class_specifier", "type_qualifier", "in", "out", "inout"}
)


_NAME = field_id("name")
_DECLARATOR = field_id("declarator")


def _walk(node: Node) -> Iterator[Node]:
    """`node` and every node below it, in document order (a tree cursor: the C library moves,
    Python only collects)."""
    cursor = node.walk()
    down = cursor.goto_first_child
    right = cursor.goto_next_sibling
    up = cursor.goto_parent
    while True:
        yield cursor.node  # type: ignore[misc]
        if down():
            continue
        while not right():
            if not up():  # back at `node`: the cursor cannot leave it
                return


def _all_nodes(node: Node) -> list[Node]:
    """`list(_walk(node))`, without a generator in the loop."""
    out: list[Node] = []
    add = out.append
    cursor = node.walk()
    down = cursor.goto_first_child
    right = cursor.goto_next_sibling
    up = cursor.goto_parent
    while True:
        add(cursor.node)  # type: ignore[arg-type]
        if down():
            continue
        while not right():
            if not up():
                return out


MAX_DEPTH: Final = 256
"""How deep the syntax tree may nest (levels below the root). Every later stage walks expressions
and statements recursively, and a compiled (mypyc) recursion has no `RecursionError`: 50,000
nested terms overflowed the C stack. Code nested deeper is taken out of the tree (blanked, the
rest parsed again) and reported (HL007). The production shaders of the corpus nest at most 35
levels, the compilers' test suites 65."""

_NOT_NEWLINE = re.compile(r"[^\n]")


@dataclass(frozen=True)
class TooDeep:
    """Code left out of the tree because it nests more than `MAX_DEPTH` levels deep."""

    span: tuple[int, int]
    """Code-point range of what was left out: the function definition (or top-level declaration)
    holding the deep code."""
    at: tuple[int, int]
    """Where the nesting passes the limit (the first line of that node)."""
    depth: int
    """The deepest level found there."""
    function: str | None
    """The name of the function left out (None for another declaration)."""


def _nodes_and_depth(root: Node) -> tuple[list[Node], list[tuple[Node, Node, int]]]:
    """Every node in document order, and where the tree nests deeper than `MAX_DEPTH`: (the node
    at depth `MAX_DEPTH + 1`, the outermost function definition around it or else its top-level
    ancestor, the deepest level below it), one per such node."""
    out: list[Node] = []
    add = out.append
    deep: list[tuple[Node, Node, int]] = []
    path: list[Node] = []  # the ancestors of the cursor's node, the root first
    deadline = current()
    cursor = root.walk()
    down = cursor.goto_first_child
    right = cursor.goto_next_sibling
    up = cursor.goto_parent
    node: Node = root
    depth = 0
    while True:
        deadline.tick()
        add(node)
        if depth > MAX_DEPTH:
            if depth == MAX_DEPTH + 1:
                deep.append((node, _holder(path), depth))
            elif depth > deep[-1][2]:
                deep[-1] = (deep[-1][0], deep[-1][1], depth)
        if down():
            path.append(node)
            depth += 1
            node = cursor.node  # type: ignore[assignment]
            continue
        while not right():
            if not up():
                return out, deep
            path.pop()
            depth -= 1
        node = cursor.node  # type: ignore[assignment]


INDEX_TABLE_RATIO: Final = 12
"""`SyntaxTree.index_of` finds a node by bisecting `nodes()` on their start bytes, each read
from its node (about 15 reads in an engine unit's 40,000 nodes), until it has been asked once
per this many nodes; then it makes the table of every node's start byte, which costs a read per
node (SpartanEngine: 1,230 asks per unit, 38,600 nodes, so most units never make it)."""


def _index_among(nodes: list[Node], at: int, wanted: int) -> int | None:
    """The position in `nodes` (in document order, so by start byte) of the node whose id is
    `wanted` and which starts at byte `at`: `index_of` without the start table."""
    lo = 0
    hi = len(nodes)
    while lo < hi:
        mid = (lo + hi) // 2
        if nodes[mid].start_byte < at:
            lo = mid + 1
        else:
            hi = mid
    while lo < len(nodes):
        n = nodes[lo]
        if n.start_byte != at:
            return None
        if n.id == wanted:
            return lo
        lo += 1
    return None


def _holder(path: list[Node]) -> Node:
    """What is left out around deep code: the outermost function definition on `path` (the
    ancestors of the deep node, the root first), else the root's child on it."""
    for n in path[1:]:
        if n.type == "function_definition":
            return n
    return path[1] if len(path) > 1 else path[0]


@dataclass
class SyntaxTree:
    text: str
    tree: tree_sitter.Tree
    unparsed: list[tuple[int, int]] = field(default_factory=list)
    """Code-point ranges of the text that the grammar could not read (reported as HL000)."""
    too_deep: list[TooDeep] = field(default_factory=list)
    """Code left out of the tree because it nests too deep (reported as HL007)."""
    annotations: Annotations = field(default_factory=Annotations)
    normalized: str = ""
    """The text the parser saw (same length as `text`)."""
    _byte_to_char: list[tuple[int, int]] | None = field(default=None, repr=False)
    _index: _AnnotationIndex | None = field(default=None, repr=False)
    _nodes: list[Node] | None = field(default=None, repr=False)
    _types: list[str] | None = field(default=None, repr=False)
    _by_type: dict[str, list[Node]] = field(default_factory=dict, repr=False)
    _kind_positions: dict[frozenset[str], list[int]] = field(default_factory=dict, repr=False)
    _starts: list[int] | None = field(default=None, repr=False)
    """The start bytes of `nodes()`, index for index (computed once `index_of` has been asked
    often enough to pay for it, `INDEX_TABLE_RATIO`)."""
    _asked: int = field(default=0, repr=False)
    """How often `index_of` was asked before the start table was made."""
    _ends: dict[int, list[int]] = field(default_factory=dict, repr=False)
    """Declarator end offsets per node id (semantics and registers are anchored there)."""

    @property
    def root(self) -> Node:
        return self.tree.root_node

    @property
    def ascii(self) -> bool:
        """Whether byte offsets of the tree are code-point offsets of the text (no non-ASCII
        character): then `text[node.start_byte : node.end_byte]` is `node_text(node)`."""
        return self._byte_to_char is None

    def char_offset(self, byte_offset: int) -> int:
        table = self._byte_to_char
        if not table:
            return byte_offset
        i = bisect.bisect_right(table, (byte_offset, 1 << 62)) - 1
        if i < 0:
            return byte_offset
        b, c = table[i]
        return c + (byte_offset - b)

    def span(self, node: Node) -> tuple[int, int]:
        if self._byte_to_char is None:  # ASCII text: a byte offset is a code-point offset
            return node.byte_range
        return self.char_offset(node.start_byte), self.char_offset(node.end_byte)

    def node_text(self, node: Node) -> str:
        if self._byte_to_char is None:
            return self.text[node.start_byte : node.end_byte]
        return self.text[self.char_offset(node.start_byte) : self.char_offset(node.end_byte)]

    def walk(self, node: Node | None = None) -> Iterator[Node]:
        """All nodes below `node` (default: the root), in document order.

        The whole-tree walk is computed once and shared by every rule of the unit."""
        if node is None:
            return iter(self.nodes())
        i = self.index_of(node)
        if i is None:  # not a node of this tree
            return _walk(node)
        return iter(self._nodes[i : i + node.descendant_count])  # type: ignore[index]

    def index_of(self, node: Node) -> int | None:
        """The position of `node` in `nodes()` (None for a node of another tree). Its subtree is
        the `node.descendant_count` nodes from there."""
        nodes = self.nodes()
        starts = self._starts
        if starts is None:
            self._asked += 1
            if self._asked * INDEX_TABLE_RATIO > len(nodes):
                starts = self._starts = [n.start_byte for n in nodes]
        # Document order is start order: look among the nodes that start where `node` does.
        at = node.start_byte
        wanted = node.id
        if starts is None:
            return _index_among(nodes, at, wanted)
        i = bisect.bisect_left(starts, at)
        while i < len(starts) and starts[i] == at:
            if nodes[i].id == wanted:
                return i
            i += 1
        return None

    def nodes(self) -> list[Node]:
        """Every node of the tree in document order (computed once)."""
        if self._nodes is None:
            self._nodes = _all_nodes(self.root)
        return self._nodes

    def node_types(self) -> list[str]:
        """The types of `nodes()`, index for index (computed once)."""
        if self._types is None:
            names = kind_names()
            size = len(names)
            types: list[str] = []
            add = types.append
            for n in self.nodes():
                kind = n.kind_id
                name = names[kind] if kind < size else None
                add(n.type if name is None else name)
            self._types = types
        return self._types

    def positions(self, kinds: frozenset[str]) -> list[int]:
        """The positions in `nodes()` of the nodes of these types, in order (once per set)."""
        found = self._kind_positions.get(kinds)
        if found is None:
            found = [i for i, t in enumerate(self.node_types()) if t in kinds]
            self._kind_positions[kinds] = found
        return found

    def nodes_of_type(self, *types: str) -> list[Node]:
        """Every node of the given types, in document order (each type indexed once per tree)."""
        index = self._by_type
        for t in types:
            if t not in index:
                index[t] = self._of_type(t)
        if len(types) == 1:
            return index[types[0]]
        found = [n for t in types for n in index[t]]
        found.sort(key=lambda n: n.start_byte)
        return found

    def _of_type(self, t: str) -> list[Node]:
        """The nodes of type `t` in document order: found by `list.index` over `node_types()`,
        which compares in C (a loop over the pairs cost about 100 instructions a node, compiled:
        SpartanEngine's units hold 40,000 each)."""
        nodes = self.nodes()
        types = self.node_types()
        found: list[Node] = []
        i = -1
        try:
            while True:
                i = types.index(t, i + 1)
                found.append(nodes[i])
        except ValueError:  # no more
            return found

    def in_unparsed(self, start: int, end: int) -> bool:
        return any(s < end and start < e for s, e in self.unparsed)

    # -- annotations ------------------------------------------------------------------------

    @property
    def index(self) -> _AnnotationIndex:
        if self._index is None:
            self._index = _AnnotationIndex(self.annotations)
        return self._index

    def attributes_of(self, node: Node) -> list[Attribute]:
        """Attributes written in front of `node` (outermost first), e.g. `numthreads`, `loop`."""
        found = list(self.index.attributes.get(self.span(node)[0], ()))
        if node.type in ("struct_specifier", "class_specifier"):
            # `struct [raypayload] Payload { ... }`: the attribute sits before the name.
            name = node.child_by_field_id(_NAME)
            if name is not None:
                found += self.index.attributes.get(self.span(name)[0], ())
        for c in node.children:
            # An attribute normalisation left in place (`for (...) [unroll] for (...)`: after `)` a
            # `[` could open a subscript) is an `hlsl_attribute` child at the node's start.
            if c.type == "hlsl_attribute":
                found.append(self._raw_attribute(c, node))
        return found

    def _raw_attribute(self, attr: Node, owner: Node) -> Attribute:
        span = self.span(attr)
        inner = self.node_text(attr).strip().strip("[]").strip()
        name, _, rest = inner.partition("(")
        args = tuple(a.strip() for a in rest.rstrip(")").split(",") if a.strip())
        return Attribute(name.strip(), args, span, self.span(owner)[0])

    def attribute(self, node: Node, name: str) -> Attribute | None:
        """The attribute `name` (case-insensitive) in front of `node`, if any."""
        lname = name.lower()
        return next((a for a in self.attributes_of(node) if a.name.lower() == lname), None)

    def may_have_annotations(self, node: Node) -> tuple[bool, bool]:
        """(semantics, bindings): whether `semantic_of` / `bindings_of` can find anything for
        `node` or any node inside it (False when no such annotation is anchored in its span)."""
        index = self.index
        start, end = self.span(node)
        return (
            _any_between(index.semantic_anchors, start, end),
            _any_between(index.register_anchors, start, end),
        )

    def semantic_of(self, node: Node) -> Semantic | None:
        index = self.index
        start, end = self.span(node)
        # Semantics are anchored at declarator ends, all inside the node: most nodes have none.
        if not _any_between(index.semantic_anchors, start, end):
            return None
        for end in self._declarator_ends(node):
            sem = index.semantics.get(end)
            if sem is not None:
                return sem
        return None

    def bindings_of(self, node: Node) -> list[Register]:
        index = self.index
        start, end = self.span(node)
        if not _any_between(index.register_anchors, start, end):
            return []
        for end in self._declarator_ends(node):
            regs = index.registers.get(end)
            if regs:
                return list(regs)
        return []

    def register_of(self, node: Node) -> Register | None:
        return next((r for r in self.bindings_of(node) if r.kind == "register"), None)

    def packoffset_of(self, node: Node) -> Register | None:
        return next((r for r in self.bindings_of(node) if r.kind == "packoffset"), None)

    def block_of(self, node: Node) -> Block | None:
        if node.type != "struct_specifier":
            return None
        return self.index.blocks.get(self.span(node)[0])

    def block_kind(self, node: Node) -> str | None:
        """ "cbuffer", "tbuffer", "struct", "class" or "interface" for such a node, else None."""
        block = self.block_of(node)
        if block is not None:
            return block.kind
        return {
            "struct_specifier": "struct",
            "class_specifier": "class",
            "interface_specifier": "interface",
        }.get(node.type)

    def is_synthetic(self, node: Node) -> bool:
        """True for the `;` that normalisation added after a cbuffer's closing brace."""
        return node.type == ";" and self.span(node)[0] in self.index.synthetic

    def modifiers_of(self, node: Node) -> list[str]:
        """Modifier words of a declaration, parameter, field or type descriptor, in order."""
        start, end = self.span(node)
        decl = node.child_by_field_id(_DECLARATOR)
        if decl is not None and node.type != "init_declarator":
            end = self.span(decl)[0]
        found: list[tuple[int, str]] = []
        plain = self._byte_to_char is None
        for child in node.children:
            cs = child.start_byte if plain else self.char_offset(child.start_byte)
            if cs >= end:
                break
            if child.type in _QUALIFIER_TYPES:
                found.append((cs, self.node_text(child)))
        index = self.index
        mods = index.modifiers
        i = bisect.bisect_left(index.modifier_starts, end) - 1
        norm = self.normalized
        while i >= 0:
            mod = mods[i]
            if mod.span[1] <= start and not _blank(norm, mod.span[1], start):
                break
            found.append((mod.span[0], mod.name))
            if mod.span[0] < start:
                start = mod.span[0]
            i -= 1
        found.sort()
        return [name for _, name in found]

    def _declarator_ends(self, node: Node) -> list[int]:
        found = self._ends.get(node.id)
        if found is None:
            found = self._ends[node.id] = self._compute_declarator_ends(node)
        return found

    def _compute_declarator_ends(self, node: Node) -> list[int]:
        ends = [self.span(node)[1]]
        kids: list[Node] = []
        if node.type == "struct_specifier":
            name = node.child_by_field_id(_NAME)
            if name is not None:
                kids.append(name)
        else:
            kids.extend(node.children_by_field_name("declarator"))
        for k in kids:
            if k.type == "init_declarator":
                inner = k.child_by_field_id(_DECLARATOR)
                if inner is not None:
                    k = inner
            ends.append(self.span(k)[1])
        return ends


class _AnnotationIndex:
    def __init__(self, notes: Annotations) -> None:
        self.attributes: dict[int, list[Attribute]] = defaultdict(list)
        for a in notes.attributes:
            self.attributes[a.anchor].append(a)
        self.semantics: dict[int, Semantic] = {s.anchor: s for s in reversed(notes.semantics)}
        self.registers: dict[int, list[Register]] = defaultdict(list)
        for r in notes.registers:
            self.registers[r.anchor].append(r)
        self.blocks: dict[int, Block] = {b.anchor: b for b in notes.blocks}
        self.synthetic = {b.synthetic_semicolon for b in notes.blocks if b.synthetic_semicolon is not None}
        self.modifiers: list[Modifier] = sorted(notes.modifiers, key=lambda m: m.span)
        self.modifier_starts = [m.span[0] for m in self.modifiers]
        self.semantic_anchors = sorted(self.semantics)
        self.register_anchors = sorted(a for a, regs in self.registers.items() if regs)


def _blank(text: str, start: int, end: int) -> bool:
    """`not text[start:end].strip()`, without copying a long stretch when its end is not blank."""
    near = max(start, end - 64)
    return not text[near:end].strip() and (near == start or not text[start:near].strip())


def _any_between(anchors: list[int], start: int, end: int) -> bool:
    """Whether the sorted `anchors` hold an offset in [start, end]."""
    i = bisect.bisect_left(anchors, start)
    return i < len(anchors) and anchors[i] <= end


def _byte_table(text: str) -> list[tuple[int, int]] | None:
    """Anchor points (byte offset, char offset) after every non-ASCII character."""
    if text.isascii():
        return None
    table = [(0, 0)]
    b = 0
    for i, ch in enumerate(text):
        n = len(ch.encode("utf-8"))
        b += n
        if n > 1:
            table.append((b, i + 1))
    return table


def parse(text: str, *, repair: bool = True, previous: SyntaxTree | None = None) -> SyntaxTree:
    """Parse `text`; with `repair=False` the text goes to tree-sitter as it is (for benches).

    Code nested more than `MAX_DEPTH` levels deep is left out: the function (or top-level
    declaration) holding it is blanked and the text parsed again (`SyntaxTree.too_deep`).

    `previous`, the tree of an earlier version of the text (the editor's last one), lets
    tree-sitter parse again only what changed: the one range between the two normalised texts'
    common prefix and suffix (so nothing the source map says needs to be right). The tree is the
    one a fresh parse gives; a tree with errors, before or after, is parsed afresh instead (error
    recovery need not give the same tree for the same text when it starts from another).
    Without `previous`, the tree this thread parsed last is the earlier tree when the two texts
    share a long stretch (`parse_reusing`: the header chain of an engine's units)."""
    deadline = current()
    if repair:
        normalized, notes = normalize(text)
    else:
        normalized, notes = text, Annotations()
    left_out: list[TooDeep] = []
    for attempt in range(5):  # the fifth parses a blank text at worst
        deadline.check()
        data = normalized.encode("utf-8")
        if attempt > 0:
            tree = parse_bytes(data, deadline)
        elif previous is None:
            tree = parse_reusing(data, deadline)
        else:
            reusable = not previous.too_deep and not previous.root.has_error
            old = previous.normalized.encode("utf-8") if reusable else None
            tree = parse_reparsing(old, previous.tree, data, deadline)
        st = SyntaxTree(
            text=text,
            tree=tree,
            annotations=notes,
            normalized=normalized,
            _byte_to_char=_byte_table(normalized),
        )
        nodes, deep = _nodes_and_depth(st.root)
        if not deep:
            break
        found = _too_deep(st, deep, whole=attempt >= 3)
        left_out.extend(found)
        normalized = _blanked(normalized, [d.span for d in found])
    st._nodes = nodes
    st.too_deep = sorted(left_out, key=lambda d: d.span)
    st.unparsed = _error_regions(st)
    return st


def _too_deep(st: SyntaxTree, deep: list[tuple[Node, Node, int]], whole: bool) -> list[TooDeep]:
    """What to leave out for the deep places `_nodes_and_depth` found, one per holder (the
    whole text when `whole`: the last resort if blanking holders did not make the tree shallow)."""
    found: dict[tuple[int, int], TooDeep] = {}
    size = len(st.text)
    for node, holder, depth in deep:
        start, end = st.span(node)
        line_end = st.text.find("\n", start, min(end, start + 120))
        at = (start, line_end if line_end > start else max(min(end, start + 120), start + 1))
        span = (0, size) if whole else st.span(holder)
        name = _function_name(st, holder) if holder.type == "function_definition" and not whole else None
        known = found.get(span)
        if known is None or depth > known.depth:
            found[span] = TooDeep(span, known.at if known is not None else at, depth, name)
    return list(found.values())


def _function_name(st: SyntaxTree, fn: Node) -> str | None:
    cur: Node | None = fn.child_by_field_id(_DECLARATOR)
    for _ in range(8):
        if cur is None:
            return None
        if cur.type in ("identifier", "field_identifier", "qualified_identifier", "operator_name"):
            return st.node_text(cur)
        cur = cur.child_by_field_id(_DECLARATOR)
    return None


def _blanked(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with every character of `spans` but line breaks made a space."""
    parts: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if end <= pos:
            continue
        start = max(start, pos)
        parts.append(text[pos:start])
        parts.append(_NOT_NEWLINE.sub(" ", text[start:end]))
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def _error_regions(st: SyntaxTree) -> list[tuple[int, int]]:
    regions: list[tuple[int, int]] = []
    if not st.root.has_error:
        return regions
    size = len(st.text)
    # A cbuffer closed by `}` with no room for the `;` normalisation wants: tree-sitter inserts
    # a MISSING `;` there and the tree is right, so that is not an unparsed region.
    block_ends = {b.span[1] for b in st.annotations.blocks}
    stack = [st.root]
    while stack:
        n = stack.pop()
        if not n.has_error:
            continue
        if n.is_missing and n.type == ";" and st.span(n)[0] in block_ends:
            continue
        if n.is_error or n.is_missing:
            start, end = st.span(n)
            if end <= start:  # a MISSING node: make it one character wide
                start, end = (start, start + 1) if start < size else (max(0, size - 1), size)
            regions.append((start, end))
            continue
        stack.extend(n.children)
    regions.sort()
    merged: list[tuple[int, int]] = []
    for s, e in regions:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged
