"""What the register/occupancy rules (HL201-HL204) share: where a finding about an entry point
goes, and which entry points are too small for occupancy to matter."""

from __future__ import annotations

from hlsllint.analysis.blind import blind_spots
from hlsllint.context import RuleContext
from hlsllint.semantic import EntryPoint, Model
from hlsllint.semantic import types as T
from hlsllint.syntax import Node

Span = tuple[int, int]

_GRID_SEMANTICS = frozenset({"SV_DISPATCHTHREADID", "SV_GROUPID"})


def entry_anchor(ctx: RuleContext, entry: EntryPoint) -> Span:
    """The entry point's name in its definition (where a finding about the whole entry goes)."""
    node: Node = entry.function.node
    for child in node.named_children:
        if child.type == "function_declarator":
            for part in child.named_children:
                if part.type in ("identifier", "field_identifier", "qualified_identifier"):
                    return ctx.span(part)
            return ctx.span(child)
    return ctx.span(node)


def _semantics(t: T.Type, sem: str | None, out: set[str]) -> None:
    if sem:
        out.add(sem.upper())
    if t.kind == "struct":
        for m in t.members:
            _semantics(m.type, m.semantic, out)


def input_semantics(entry: EntryPoint) -> set[str]:
    """The (upper-case) semantics of the entry's inputs, struct members included."""
    out: set[str] = set()
    for p in entry.function.params:
        _semantics(p.type, p.semantic, out)
    return out


def too_small_to_fill(entry: EntryPoint, wave: int) -> str | None:
    """Why occupancy does not matter for this compute entry point, or None when it may.

    A one-thread group, or a group smaller than a wave in a shader that never reads
    `SV_DispatchThreadID`/`SV_GroupID` (so each group does the same work: a setup job run as one
    group), leaves a SIMD mostly idle whatever the registers: there are not enough waves to hide
    latency with, so a warning about how many could be resident helps no one.
    """
    if entry.stage != "compute":
        return None
    threads = entry.threads_per_group
    if threads is None:
        return None
    if threads == 1:
        return "one-thread groups"
    if threads < wave and not input_semantics(entry) & _GRID_SEMANTICS:
        return f"a single {threads}-thread group"
    return None


def row_of(ctx: RuleContext, span: Span) -> tuple[str, int] | None:
    """(path, 1-based row) of a span of the preprocessed text in its original file."""
    mapped = ctx.pp.sourcemap.map_range(span[0], max(span[1], span[0] + 1))
    src = ctx.source(mapped.path)
    if src is None:
        return None
    return mapped.path, src.location(mapped.start).row


INCOMPLETE_RATIONALE = (
    " An entry point whose estimate is incomplete (a call the front end cannot resolve, an "
    "intrinsic it does not know, a `numthreads` argument it cannot evaluate or an unparsed "
    "region on its path: `hlsllint pressure` lists them under *estimate incomplete*) gets no "
    "occupancy finding: the code left out of the figure could move it either way."
)
"""The policy HL201-HL204 share, said in each rule's rationale."""


def estimate_incomplete(model: Model, entry: EntryPoint) -> bool:
    """Whether the front end left part of the entry's path out of its estimate
    (`analysis.blind`): the register rules then claim no occupancy."""
    return not blind_spots(model, entry).complete
