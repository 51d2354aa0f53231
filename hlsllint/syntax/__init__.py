"""Stage 2: parse the preprocessed text with tree-sitter-hlsl, after repair.

Interface (used by the semantic model and rules; keep it stable):

    parse(text: str) -> SyntaxTree

Offsets exposed by SyntaxTree are code-point offsets into `text` (the preprocessed text), never
tree-sitter byte offsets: use `tree.span(node)` and `tree.node_text(node)` (never `node.text`,
which shows the normalised text the parser saw).

How the repair works
--------------------
Before parsing, `normalize.normalize` rewrites the text with same-length replacements (every
kept token keeps its offset) and records what it took out as *annotations* (`annotations`); the
passes and what each one rewrites are in `repair_passes` (its docstring), the analysis copy of
the text they scan in `scanner`. The tree therefore has canonical, plain-C shapes:

- no `hlsl_attribute` nodes: attributes are annotations, `tree.attributes_of(node)` gives those
  written in front of a function_definition, declaration, field_declaration, if/for/while/do/
  switch statement... (`[loop] while (x) {}` is a `while_statement`);
- no `semantics` nodes and no `bitfield_clause` for semantics: `tree.semantic_of(node)` for a
  parameter_declaration, field_declaration, declaration (first declarator), declarator, or a
  function_definition / function_declarator (the return-value semantic);
- `register(...)`/`packoffset(...)` bindings: `tree.register_of(node)`, `tree.packoffset_of(node)`,
  `tree.bindings_of(node)` (all of them) for the same nodes, and for a cbuffer's struct_specifier;
- `cbuffer Name : register(b0) { float4 a; }` is a top-level `struct_specifier` (name
  `type_identifier`, body `field_declaration_list` of `field_declaration`s) followed by `;`;
  `tree.block_kind(node)` says "cbuffer", "tbuffer" or "struct" (`tree.block_of(node)` gives the
  `Block` annotation with the name and the synthetic `;` position);
- `tree.modifiers_of(node)`: the modifier words of a declaration, parameter or type descriptor
  (`in`, `out`, `inout`, `static`, `const`, `groupshared`, `precise`, `nointerpolation`,
  `unorm`, `triangle`, `indices`, ...), whether the grammar kept them or normalisation removed
  them.

Everything the grammar still cannot read is listed in `tree.unparsed` (code-point ranges, a
MISSING node counts as one character) so that rules skip it; the driver reports it as HL000.

A long text (a unit's expansion, its header chain first) is repaired in pieces, each piece's
repair kept by its content for the next unit that holds it (`normalize._piece`); a text is cut
only where no pass over either piece looks past the cut, so the repair is the whole text's.
"""

from hlsllint.syntax.annotations import Annotations, Attribute, Block, Modifier, Register, Semantic
from hlsllint.syntax.grammar import field_id, language
from hlsllint.syntax.tree import Node, SyntaxTree, parse

__all__ = [
    "Annotations",
    "Attribute",
    "Block",
    "Modifier",
    "Node",
    "Register",
    "Semantic",
    "SyntaxTree",
    "field_id",
    "language",
    "parse",
]
