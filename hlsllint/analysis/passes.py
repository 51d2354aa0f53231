"""Passes over a lowered control-flow graph, run once before analysis: stage inputs moved to
their first use, and the instructions no side effect depends on (dead code)."""

from __future__ import annotations

import networkx as nx

from hlsllint.analysis.ir import Instr, Value

ROOT_OPS = frozenset({"preload", "store", "lds_store", "atomic", "export", "discard", "branch", "query"})
"""Instructions kept whatever reads their result: side effects, control flow, and what the
hardware preloads (those registers are filled when the wave starts). A stage input no one reads
is neither interpolated nor fetched."""


def sink_inputs(g: nx.DiGraph, instrs: list[Instr]) -> None:
    """Move each stage input's definition to just before its first use when every use is in
    one block: interpolants are interpolated, and thread IDs computed, where they are needed
    (only the preloaded registers, barycentrics or local IDs, are live from the start)."""
    readers: dict[Value, set[int]] = {}
    for ins in instrs:
        for r in ins.reads:
            readers.setdefault(r, set()).add(ins.block)
    for ins in instrs:
        if ins.op != "input" or ins.dest is None:
            continue
        blocks = readers.get(ins.dest)
        if not blocks or len(blocks) != 1:
            continue
        (target,) = blocks
        src: list[Instr] = g.nodes[ins.block]["instrs"]
        dst: list[Instr] = g.nodes[target]["instrs"]
        src.remove(ins)
        at = next(i for i, x in enumerate(dst) if ins.dest in x.reads)
        dst.insert(at, ins)
        ins.block = target


def dead_instructions(instrs: list[Instr]) -> frozenset[Instr]:
    """Instructions no side effect depends on (aggressive dead-code elimination on values:
    unused struct members, loads whose result is never read, computations only feeding them)."""
    defs: dict[Value, list[Instr]] = {}
    for ins in instrs:
        if ins.dest is not None:
            defs.setdefault(ins.dest, []).append(ins)
    work = [i for i in instrs if i.dest is None or i.op in ROOT_OPS or i.rule == "effect"]
    kept: set[Instr] = set()
    needed: set[Value] = set()
    while work:
        ins = work.pop()
        if ins in kept:
            continue
        kept.add(ins)
        for r in ins.reads:
            if r not in needed:
                needed.add(r)
                work.extend(defs.get(r, ()))
    return frozenset(i for i in instrs if i not in kept)
