"""Register pressure in the editor: inlay hints near each entry's peak and a per-line hover.

Reads `hlsllint.pressure_report.analyse_model` (the report `hlsllint pressure` prints), run on the
parse and model the lint of the same version already built: one report per entry point with the
live VGPRs/SGPRs of every source line and the values live at the peak.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from hlsllint.config import Settings
from hlsllint.context import RuleContext
from hlsllint.pressure_report import analyse_model

log = logging.getLogger(__name__)

NEAR_PEAK = 0.85
"""Lines whose live VGPRs reach this fraction of the entry's peak get an inlay hint."""
MAX_HINTS_PER_ENTRY = 12


@dataclass(frozen=True)
class EntryLines:
    entry: str
    summary: str
    """One line: peak, occupancy and what limits it."""
    peak_row: int | None
    peak_values: str
    max_vgprs: int
    rows: dict[int, tuple[int, int]]
    """row -> (live VGPRs, live SGPRs) in the document."""


@dataclass(frozen=True)
class PressureView:
    path: str
    entries: tuple[EntryLines, ...]

    def hints(self, path: str) -> list[tuple[int, str, str]]:
        """(row, label, Markdown tooltip) for the lines near each entry's peak."""
        if path != self.path:
            return []
        out: dict[int, tuple[list[str], list[str]]] = {}
        for e in self.entries:
            if e.max_vgprs <= 0:
                continue
            threshold = math.ceil(e.max_vgprs * NEAR_PEAK)
            near = sorted(((v, r) for r, (v, _s) in e.rows.items() if v >= threshold), reverse=True)
            for v, row in near[:MAX_HINTS_PER_ENTRY]:
                labels, tips = out.setdefault(row, ([], []))
                peak = " (peak)" if row == e.peak_row else ""
                prefix = f"{e.entry}: " if len(self.entries) > 1 else ""
                labels.append(f"{prefix}{v} VGPR{peak}")
                tips.append(f"`{e.entry}`: {e.summary}")
        return [(row, " · ".join(labels), "\n\n".join(tips)) for row, (labels, tips) in sorted(out.items())]

    def hover(self, path: str, row: int) -> str | None:
        if path != self.path:
            return None
        parts = []
        for e in self.entries:
            counts = e.rows.get(row)
            if counts is None:
                continue
            text = f"**Live registers** in `{e.entry}`: {counts[0]} VGPRs, {counts[1]} SGPRs"
            if row == e.peak_row:
                text += f" (the peak)\n\nLive here: {e.peak_values}"
            parts.append(text + f"\n\n{e.summary}")
        return "\n\n---\n\n".join(parts) or None


def build_pressure_view(path: str, context: RuleContext, settings: Settings) -> PressureView | None:
    """The pressure view of a linted buffer, from the parse and model its lint already built
    (`context`); None when the analysis fails."""
    try:
        unit = analyse_model(path, context.pp, context.model, settings)
    except Exception:  # the pressure view is an extra: never let it break the server
        log.exception("pressure analysis failed for %s", path)
        return None
    entries = []
    for r in unit.reports:
        occ = r.occupancy
        values = ", ".join(
            f"`{v.name}` ({v.vgprs} VGPR)" if v.vgprs else f"`{v.name}` ({v.sgprs} SGPR)"
            for v in r.peak_values[:12]
        )
        summary = (
            f"peak {r.max_live_vgprs} VGPRs / {r.max_live_sgprs} SGPRs → {occ.waves_per_simd}/"
            f"{occ.max_waves} waves per SIMD on {r.target} wave{r.wave_size} (limited by {occ.limiter})"
        )
        rows = r.lines.get(unit.path, {})
        peak_row = r.peak_row if r.peak_path == unit.path else None
        entries.append(EntryLines(r.entry, summary, peak_row, values or "nothing", r.max_live_vgprs, rows))
    return PressureView(unit.path, tuple(entries))
