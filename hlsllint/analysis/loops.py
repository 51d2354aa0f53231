"""Loops of an entry point: dynamic or not, and the fetches in their bodies."""

from __future__ import annotations

from dataclasses import dataclass

from hlsllint.analysis.ir import CFG, Instr, Span


@dataclass
class LoopInfo:
    span: Span
    """The loop statement (from its keyword; attributes in front are not included)."""
    kind: str
    """`for`, `while` or `do`."""
    attributes: tuple[str, ...]
    """Lower-cased attribute names written in front (`loop`, `unroll`, `fastopt`, ...)."""
    trip_count: int | None
    """The compile-time trip count, when the compiler can tell it."""
    dynamic: bool
    """True when the loop really loops at run time: `[loop]`, or a trip count that is not a
    compile-time constant."""
    fetches: list[Instr]
    """Texture and buffer reads in the body (ops `sample`, `gather`, `load`; inlined calls
    included); `instr.detail` has `typed`, `resource`, `method`, and `instr.span` the call."""
    blocks: frozenset[int]
    depth: int
    """1 for an outermost loop."""


def loop_info(cfg: CFG) -> list[LoopInfo]:
    out: list[LoopInfo] = []
    for rec in cfg.loops:
        fetches = [i for b in sorted(rec.blocks) for i in cfg.instrs(b) if i.is_fetch]
        depth = 1 + sum(1 for other in cfg.loops if other is not rec and rec.blocks < other.blocks)
        out.append(
            LoopInfo(
                rec.span, rec.kind, rec.attributes, rec.trip_count, rec.dynamic, fetches, rec.blocks, depth
            )
        )
    return out
