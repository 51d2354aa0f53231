"""Stage 4: per-entry analyses (functions on graphs returning plain results).

    build_cfg(model, entry) -> CFG              inline + lower to instructions in a DiGraph
    uniformity(cfg) -> Uniformity              wave-uniform (SGPR) vs per-lane (VGPR) values
    liveness(cfg) -> LiveSets                  backward liveness over the blocks
    register_demand(cfg, live, uni, wave) -> Demand   live VGPRs/SGPRs per instruction
    loop_info(cfg) -> list[LoopInfo]           dynamic loops and the fetches in them
    pressure(model, entry, wave_size) -> EntryPressure   all of the above, per source line

The coefficients of the pressure model are in `hlsllint.analysis.costs.CostModel`.

For rules, `analyze(model)` (computed once per model and cached on it) answers
by syntax, in preprocessed-text spans (`ctx.span(node)`):

    a = analyze(ctx.model)
    a.uniform_at(span)            # True/False: wave-uniform in every entry reaching it; None:
                                  # no entry point lowers that expression (or it is not one)
    a.uniform_at(span, "main")    # in one entry point
    a.loops()                     # LoopInfo of every entry (deduplicated by span)
    a.loop_at(span)               # the innermost loop around a span, or None
    a.fetch_at(span)              # the fetch instructions (sample/gather/load) of a call span
    a.entry("main")               # EntryAnalysis: cfg, uniformity, liveness, loops (each once)
"""

from __future__ import annotations

from hlsllint.analysis.cfg import build_cfg
from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel
from hlsllint.analysis.ir import CFG, Instr, Value
from hlsllint.analysis.liveness import Demand, LiveSets, liveness, register_demand
from hlsllint.analysis.loops import LoopInfo, loop_info
from hlsllint.analysis.pressure import EntryPressure, pressure
from hlsllint.analysis.uniformity import Uniformity, uniformity
from hlsllint.analysis.unit import EntryAnalysis, UnitAnalysis, analyze

__all__ = [
    "CFG",
    "DEFAULT_COSTS",
    "CostModel",
    "Demand",
    "EntryAnalysis",
    "EntryPressure",
    "Instr",
    "LiveSets",
    "LoopInfo",
    "Uniformity",
    "UnitAnalysis",
    "Value",
    "analyze",
    "build_cfg",
    "liveness",
    "loop_info",
    "pressure",
    "register_demand",
    "uniformity",
]
