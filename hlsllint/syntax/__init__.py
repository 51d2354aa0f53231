"""Stage 2: parse the preprocessed text with tree-sitter-hlsl, after repair.

Interface (used by the semantic model and rules; keep it stable):

    parse(text: str) -> SyntaxTree

Offsets exposed by SyntaxTree are code-point offsets into `text` (the preprocessed text), never
tree-sitter byte offsets: use `tree.span(node)`.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

import tree_sitter
import tree_sitter_hlsl

Node = tree_sitter.Node


@cache
def language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_hlsl.language())


@dataclass
class SyntaxTree:
    text: str
    tree: tree_sitter.Tree
    unparsed: list[tuple[int, int]] = field(default_factory=list)
    """Code-point ranges of the text that the grammar could not read (reported as HL000)."""
    _byte_to_char: list[tuple[int, int]] | None = field(default=None, repr=False)

    @property
    def root(self) -> Node:
        return self.tree.root_node

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
        return self.char_offset(node.start_byte), self.char_offset(node.end_byte)

    def node_text(self, node: Node) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def walk(self, node: Node | None = None) -> Iterator[Node]:
        """All nodes below `node` (default: the root), in document order."""
        stack = [node or self.root]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))

    def in_unparsed(self, start: int, end: int) -> bool:
        return any(s < end and start < e for s, e in self.unparsed)


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


def parse(text: str) -> SyntaxTree:
    parser = tree_sitter.Parser(language())
    tree = parser.parse(text.encode("utf-8"))
    st = SyntaxTree(text=text, tree=tree, _byte_to_char=_byte_table(text))
    st.unparsed = _error_regions(st)
    return st


def _error_regions(st: SyntaxTree) -> list[tuple[int, int]]:
    regions: list[tuple[int, int]] = []
    if not st.root.has_error:
        return regions
    stack = [st.root]
    while stack:
        n = stack.pop()
        if not n.has_error:
            continue
        if n.is_error or n.is_missing:
            regions.append(st.span(n))
            continue
        stack.extend(n.children)
    regions.sort()
    return regions
