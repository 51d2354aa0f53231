"""Stage 3: the semantic model of a translation unit.

    build_model(tree: SyntaxTree, settings: AnalysisSettings) -> Model

`Model` (see `hlsllint.semantic.model`; the values it holds are in `hlsllint.semantic.symbols`)
holds structs, typedefs, globals (resources, cbuffer members, groupshared, static const),
cbuffers, functions, entry points (stage, group size), a symbol lookup
(`model.resolve(identifier_node)`) and expression typing (`model.type_of(node)`).
Types and their register sizes are in `hlsllint.semantic.types`; intrinsics and resource methods
in `hlsllint.semantic.intrinsics`.
"""

from __future__ import annotations

from hlsllint.semantic.model import Model, build_model
from hlsllint.semantic.symbols import Attribute, CBuffer, EntryPoint, Function, Symbol
from hlsllint.semantic.types import Member, Resource, Type

__all__ = [
    "Attribute",
    "CBuffer",
    "EntryPoint",
    "Function",
    "Member",
    "Model",
    "Resource",
    "Symbol",
    "Type",
    "build_model",
]
