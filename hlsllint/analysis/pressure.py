"""Register pressure of one entry point: per instruction (`analyse_entry`, cached per model;
what the rules and `hlsllint pressure` read) and per source line (`pressure`)."""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import NamedTuple

from hlsllint.analysis.costs import CostModel
from hlsllint.analysis.ir import CFG, Span, Value
from hlsllint.analysis.liveness import Demand, register_demand
from hlsllint.analysis.occupancy import groupshared_bytes
from hlsllint.analysis.scheduling import scheduled_vgprs
from hlsllint.analysis.unit import EntryAnalysis, analyze
from hlsllint.analysis.value_classes import def_use
from hlsllint.semantic.model import Model
from hlsllint.semantic.symbols import EntryPoint
from hlsllint.targets import MAX_ADDRESSABLE_VGPRS, Target, resolve_target

VGPR_ERROR = 0.091
"""The estimate's measured median relative VGPR error on engine shaders it was never tuned on
(README, "Accuracy on engine shaders": navi21 wave64, held out, 9.1% overall and on entries of
at least 24 VGPRs). A finding that rests on fewer registers than this band could be wrong either
way; `error_band` gives it in registers."""


def error_band(vgprs: int) -> int:
    """The measured error of an estimate of `vgprs` VGPRs, in registers (at least 2)."""
    return max(2, math.ceil(vgprs * VGPR_ERROR))


@dataclass
class EntryPressure:
    entry: str
    stage: str
    max_live_vgprs: int
    max_live_sgprs: int
    peak_span: Span | None
    """The instruction where the most VGPRs are live (preprocessed-text span)."""
    peak_values: list[tuple[str, int, str]]
    """(name, registers, `vgpr`/`sgpr`) of the values live at the peak, largest first."""
    per_span: list[tuple[Span, int, int]]
    """(line span, peak live VGPRs, peak live SGPRs) for every line holding instructions,
    in text order. Lines of an inlined function hold the peak over its call sites."""
    lds_bytes: int
    group_size: tuple[int, int, int] | None
    wave_size: int
    truncated: bool = False


def _line_starts(text: str) -> list[int]:
    starts = [0]
    i = text.find("\n")
    while i != -1:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return starts


def lds_bytes(model: Model, entry: EntryPoint) -> int:
    """Bytes of the groupshared variables the entry point (or a function it calls) names."""
    return groupshared_bytes(model, analyze(model).groupshared(entry))


@dataclass(frozen=True)
class LiveValue:
    name: str
    vgprs: int
    sgprs: int = 0


class SpanCount(NamedTuple):
    """Live registers at one instruction (a named tuple: one is made per instruction)."""

    span: Span
    vgprs: int
    sgprs: int


_new_span_count = tuple.__new__
"""`SpanCount(span, vgprs, sgprs)` is `_new_span_count(SpanCount, (span, vgprs, sgprs))`
without the named tuple's `__new__`, a Python function that compiled code calls slowly."""


@dataclass
class EntryDemand:
    max_live_vgprs: int
    max_live_sgprs: int
    peak_span: Span | None
    peak_values: list[LiveValue]
    spans: list[SpanCount]
    """Live counts at every instruction (preprocessed-text spans)."""
    truncated: bool = False
    scratch: list[tuple[str, int]] = field(default_factory=list)
    """(name, bytes per lane) of the arrays too large for registers: they live in scratch memory."""
    spilled_vgprs: int = 0
    """Live VGPRs past the 256 a wave can address at the peak: the compiler spills them to
    scratch memory (`max_live_vgprs` never exceeds 256)."""
    spilled_sgprs: int = 0
    """Live SGPRs past the target's addressable SGPRs at the peak: the compiler spills them
    (`max_live_sgprs` never exceeds the limit)."""
    scheduled_vgprs: int = 0
    """The VGPRs ACO's scheduler is predicted to leave (`scheduling.scheduled_vgprs`): more
    than `max_live_vgprs` when it trades waves for memory latency, else the same. The
    occupancy estimate reads it; `max_live_vgprs` stays the demand before scheduling."""


@dataclass(frozen=True)
class Bounded:
    vgprs: int
    sgprs: int
    spilled_vgprs: int
    spilled_sgprs: int


def bound_registers(target: Target, wave_size: int, vgprs: int, sgprs: int) -> Bounded:
    """Live registers as the hardware can hold them.

    SGPRs past `target.sgpr_addressable` are spilled by the compiler (ACO parks them in lanes of
    a linear VGPR, which its pre-scheduling max-live does not count: regtruth, 120 uniform ints
    live at once: presched_vgprs 3, sgprs_used 106, spilled_sgprs 18); VGPRs past the 256 a wave
    can address are spilled to scratch memory. `wave_size` is kept for that VGPR cost's model.
    """
    del wave_size
    spilled_s = max(0, sgprs - target.sgpr_addressable)
    spilled_v = max(0, vgprs - MAX_ADDRESSABLE_VGPRS)
    return Bounded(vgprs - spilled_v, sgprs - spilled_s, spilled_v, spilled_s)


def _held(target: Target, vgprs: int, sgprs: int) -> tuple[int, int]:
    """(VGPRs, SGPRs) of `bound_registers`, without making its result (once per instruction's
    pair of counts)."""
    return min(vgprs, MAX_ADDRESSABLE_VGPRS), min(sgprs, target.sgpr_addressable)


def analyse_entry(
    model: Model, entry: EntryPoint, wave_size: int | None = None, costs: CostModel | None = None
) -> EntryDemand:
    """Register demand of one entry point per instruction (cached per model, entry and wave).

    Built on the analysis stage (`hlsllint.analysis.analyze`: CFG, uniformity, liveness,
    register demand); kept per instruction so that rules can compare regions of the code.
    """
    if wave_size is None:
        wave_size = resolve_target(model.settings.target).wave_for(model.settings.wave_size)
    per_model: dict[tuple[str, int], EntryDemand] | None = None
    if costs is not None:  # calibration runs: nothing cached
        ea = EntryAnalysis(model, entry, costs)
    else:
        per_model = model.memo.setdefault("pressure", {})
        key = (entry.name, wave_size)
        if key in per_model:
            return per_model[key]
        found = analyze(model).entry(entry.name)
        ea = found if found is not None and found.entry is entry else EntryAnalysis(model, entry)
    demand = register_demand(ea.cfg, ea.liveness, ea.uniformity, wave_size, ea.costs)
    target = resolve_target(model.settings.target)
    spans: list[SpanCount] = []
    append = spans.append
    # the same (VGPR, SGPR) counts recur at many instructions: bound each pair once
    bounds: dict[tuple[int, int], tuple[int, int]] = {}
    # `vgprs` and `sgprs` hold the same instructions in the same order
    for (ins, n), s in zip(demand.vgprs.items(), demand.sgprs.values(), strict=True):
        counts = (n, s)
        pair = bounds.get(counts)
        if pair is None:
            pair = bounds[counts] = _held(target, n, s)
        append(_new_span_count(SpanCount, (ins.span, pair[0], pair[1])))
    peak = demand.peak_instr.span if demand.peak_instr is not None else None
    bounded = bound_registers(target, wave_size, demand.peak_vgprs, demand.peak_sgprs)
    max_vgprs = max((v for v, _ in bounds.values()), default=bounded.vgprs)
    result = EntryDemand(
        max_live_vgprs=max_vgprs,
        max_live_sgprs=max((s for _, s in bounds.values()), default=bounded.sgprs),
        peak_span=peak,
        peak_values=_live_values(demand, demand.peak_live),
        spans=spans,
        truncated=ea.cfg.truncated,
        scratch=_scratch_arrays(ea.cfg, demand),
        spilled_vgprs=bounded.spilled_vgprs,
        spilled_sgprs=bounded.spilled_sgprs,
        scheduled_vgprs=scheduled_vgprs(ea.cfg, demand, target, wave_size, max_vgprs),
    )
    if per_model is not None:
        per_model[(entry.name, wave_size)] = result
    return result


def _scratch_arrays(cfg: CFG, demand: Demand) -> list[tuple[str, int]]:
    """(name, bytes per lane) of the arrays forced to scratch memory (their class, read off the
    classes) that an instruction the compiler keeps reads or writes: an array whose every use is
    dead code is not in memory either."""
    du = def_use(cfg)
    used = {v for v, cls in demand.classes.items() if cls == "scratch" and (v in du.defs or v in du.readers)}
    return sorted({(v.name, 4 * v.width) for v in used})


def _live_values(demand: Demand, live: list[Value]) -> list[LiveValue]:
    values = []
    for v in live:
        if demand.classes.get(v) == "scratch":
            continue
        size = demand.costs.get(v, v.width)
        if size == 0:
            continue  # a compile-time constant folded into its uses
        values.append(
            LiveValue(v.name, size, 0) if demand.classes.get(v) == "vgpr" else LiveValue(v.name, 0, size)
        )
    return sorted(values, key=lambda v: (-v.vgprs, -v.sgprs, v.name))


def live_values_per_instruction(
    model: Model, entry: EntryPoint, wave_size: int
) -> list[tuple[Span, list[LiveValue]]]:
    """The values live at every instruction (preprocessed-text spans), for views that list them
    (the HTML pressure page). Not cached: it keeps a list per instruction."""
    found = analyze(model).entry(entry.name)
    ea = found if found is not None and found.entry is entry else EntryAnalysis(model, entry)
    demand = register_demand(ea.cfg, ea.liveness, ea.uniformity, wave_size, ea.costs, record_live=True)
    return [(ins.span, _live_values(demand, live)) for ins, live in demand.live_at.items()]


def pressure(
    model: Model,
    entry: EntryPoint | str,
    wave_size: int | None = None,
    costs: CostModel | None = None,
) -> EntryPressure:
    """Live VGPRs/SGPRs of an entry point per source line (wave size default: settings, else 64)."""
    ep = model.entry(entry) if isinstance(entry, str) else entry
    if ep is None:
        raise KeyError(f"no entry point {entry!r}")
    wave = wave_size or model.settings.wave_size or 64
    demand = analyse_entry(model, ep, wave, costs)
    text = model.tree.text
    starts = _line_starts(text)
    per_line: dict[int, tuple[int, int]] = {}
    for sc in demand.spans:
        line = bisect.bisect_right(starts, sc.span[0]) - 1
        pv, ps = per_line.get(line, (0, 0))
        per_line[line] = (max(pv, sc.vgprs), max(ps, sc.sgprs))
    per_span: list[tuple[Span, int, int]] = []
    for line in sorted(per_line):
        end = starts[line + 1] - 1 if line + 1 < len(starts) else len(text)
        v, s = per_line[line]
        per_span.append(((starts[line], end), v, s))
    peak_values = [
        (v.name, v.vgprs, "vgpr") if v.vgprs else (v.name, v.sgprs, "sgpr") for v in demand.peak_values
    ]
    return EntryPressure(
        ep.name,
        ep.stage,
        demand.max_live_vgprs,
        demand.max_live_sgprs,
        demand.peak_span,
        peak_values,
        per_span,
        lds_bytes(model, ep),
        ep.group_size,
        wave,
        demand.truncated,
    )
