"""Thin adapters for the rules HL101-HL107, which predate the stage modules: each name forwards
to the stage that owns the logic, taking the rule's `RuleContext` instead of the tree or model.

New rules import from the stages directly:
- `hlsllint.syntax.queries`: tree shape (parentheses, assignment targets, conditions, calls).
- `hlsllint.semantic.queries`: uses and writes of symbols, resource fetches, struct definitions.
- `hlsllint.analysis.local_uniformity`: `is_uniform` (the analysis, else a local fallback).
- `RuleContext.in_main_file(node)`.
"""

from __future__ import annotations

from hlsllint.analysis import local_uniformity
from hlsllint.context import RuleContext
from hlsllint.semantic import Symbol, queries
from hlsllint.semantic.queries import Fetch, functions
from hlsllint.syntax import Node
from hlsllint.syntax import queries as syntax
from hlsllint.syntax.queries import (
    ASSIGN_OPS,
    LOOP_TYPES,
    SWIZZLE_RE,
    call_args,
    enclosing,
    is_assignment_target,
    is_condition,
    loop_of,
    lvalue_top,
    same,
    unparen,
    unparen_up,
)

__all__ = [
    "ASSIGN_OPS",
    "LOOP_TYPES",
    "SWIZZLE_RE",
    "Fetch",
    "as_fetch",
    "assignments",
    "call_args",
    "call_name",
    "enclosing",
    "fetches_in",
    "functions",
    "in_main_file",
    "is_assignment_target",
    "is_condition",
    "is_uniform",
    "is_written",
    "local_uniform",
    "loop_of",
    "lvalue_top",
    "same",
    "struct_node",
    "swizzle_of",
    "unparen",
    "unparen_up",
    "uses_of",
]


def call_name(ctx: RuleContext, call: Node) -> str | None:
    return syntax.call_name(ctx.tree, call)


def is_written(ctx: RuleContext, node: Node) -> bool:
    return syntax.is_written(ctx.tree, node)


def swizzle_of(ctx: RuleContext, node: Node) -> str | None:
    return syntax.swizzle_of(ctx.tree, node)


def uses_of(ctx: RuleContext, sym: Symbol) -> list[Node]:
    return queries.uses_of(ctx.model, sym)


def struct_node(ctx: RuleContext, name: str) -> Node | None:
    return queries.struct_node(ctx.model, name)


def in_main_file(ctx: RuleContext, node: Node) -> bool:
    return ctx.in_main_file(node)


def as_fetch(ctx: RuleContext, node: Node) -> Fetch | None:
    return queries.as_fetch(ctx.model, node)


def fetches_in(ctx: RuleContext, root: Node, *, skip_loops: bool = False) -> list[Fetch]:
    return queries.fetches_in(ctx.model, root, skip_loops=skip_loops)


def assignments(ctx: RuleContext, sym: Symbol) -> list[tuple[str, Node | None, Node]] | None:
    return queries.assignments(ctx.model, sym)


def is_uniform(ctx: RuleContext, node: Node) -> bool:
    return local_uniformity.is_uniform(ctx.model, node)


def local_uniform(ctx: RuleContext, node: Node, seen: set[int]) -> bool:
    return local_uniformity.local_uniform(ctx.model, node, seen)
