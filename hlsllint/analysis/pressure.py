"""Register pressure of one entry point, per source line, as a plain result."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from hlsllint.analysis.cfg import CFG, Span, build_cfg
from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel
from hlsllint.analysis.liveness import Demand, liveness, register_demand
from hlsllint.analysis.occupancy import entry_groupshared, groupshared_bytes
from hlsllint.analysis.uniformity import uniformity
from hlsllint.semantic.model import EntryPoint, Model


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


def lds_bytes(model: Model, cfg: CFG) -> int:
    """Bytes of the groupshared variables the entry point (or a function it calls) names."""
    return groupshared_bytes(model, entry_groupshared(model, cfg.entry_point))


def pressure_of(model: Model, cfg: CFG, demand: Demand, wave_size: int) -> EntryPressure:
    text = model.tree.text
    starts = _line_starts(text)
    per_line: dict[int, tuple[int, int]] = {}
    for ins, v in demand.vgprs.items():
        s = demand.sgprs[ins]
        line = bisect.bisect_right(starts, ins.span[0]) - 1
        pv, ps = per_line.get(line, (0, 0))
        per_line[line] = (max(pv, v), max(ps, s))
    per_span: list[tuple[Span, int, int]] = []
    for line in sorted(per_line):
        end = starts[line + 1] - 1 if line + 1 < len(starts) else len(text)
        v, s = per_line[line]
        per_span.append(((starts[line], end), v, s))
    peak_values = [(v.name, demand.costs[v], demand.classes[v]) for v in demand.peak_live]
    entry = cfg.entry_point
    return EntryPressure(
        entry.name,
        entry.stage,
        demand.peak_vgprs,
        demand.peak_sgprs,
        demand.peak_instr.span if demand.peak_instr is not None else None,
        peak_values,
        per_span,
        lds_bytes(model, cfg),
        entry.group_size,
        wave_size,
        cfg.truncated,
    )


def pressure(
    model: Model,
    entry: EntryPoint | str,
    wave_size: int | None = None,
    costs: CostModel = DEFAULT_COSTS,
) -> EntryPressure:
    """Live VGPRs/SGPRs of an entry point (wave size default: settings, else 64)."""
    ep = model.entry(entry) if isinstance(entry, str) else entry
    if ep is None:
        raise KeyError(f"no entry point {entry!r}")
    wave = wave_size or model.settings.wave_size or 64
    cfg = build_cfg(model, ep, costs)
    uni = uniformity(cfg)
    demand = register_demand(cfg, liveness(cfg), uni, wave, costs)
    return pressure_of(model, cfg, demand, wave)
