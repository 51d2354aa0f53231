"""`hlsllint pressure --output-format html`: one self-contained page (no network) with a chart of
live VGPRs and SGPRs along the source lines, the target's occupancy steps, the peak, the values live
at each line on hover, and selectors for entry points and targets.

The page (`pressure_page.html`, package data) carries its data as JSON in a
`<script type="application/json">` element and draws the chart with a small inline script; styles
are inline too.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from importlib import resources
from typing import IO, Any

from hlsllint.analysis.occupancy import occupancy_steps
from hlsllint.pressure_report import EntryReport, UnitPressure
from hlsllint.source import SourceFile
from hlsllint.targets import TARGETS


def _section(
    src: SourceFile | None, path: str, rows: dict[int, tuple[int, int]], whole: bool
) -> dict[str, Any]:
    if src is None or (not rows and not whole):
        return {"path": path, "first": 0, "text": []}
    first, last = (1, src.line_count) if whole else (min(rows), max(rows))
    return {"path": path, "first": first, "text": [src.line(r) for r in range(first, last + 1)]}


def entry_data(unit: UnitPressure, rep: EntryReport) -> dict[str, Any]:
    """Everything the page shows about one entry point."""
    paths = sorted(rep.lines, key=lambda p: (p != rep.path, p))
    if rep.path not in paths:
        paths.insert(0, rep.path)
    sections = [_section(unit.pp.sources.get(p), p, rep.lines.get(p, {}), whole=p == rep.path) for p in paths]
    points = []
    for si, path in enumerate(paths):
        values = rep.line_values.get(path, {})
        for row, (v, s) in sorted(rep.lines.get(path, {}).items()):
            live = [[x.name, x.vgprs or x.sgprs, "vgpr" if x.vgprs else "sgpr"] for x in values.get(row, [])]
            points.append({"section": si, "row": row, "vgprs": v, "sgprs": s, "values": live})
    occ = rep.occupancy
    return {
        "id": f"{rep.path}::{rep.entry}",
        "path": rep.path,
        "entry": rep.entry,
        "stage": rep.stage,
        "target": rep.target,
        "wave": rep.wave_size,
        "group_threads": rep.group_threads,
        "lds_bytes": rep.lds_bytes,
        "max_live_vgprs": rep.max_live_vgprs,
        "max_live_sgprs": rep.max_live_sgprs,
        "waves_per_simd": occ.waves_per_simd,
        "max_waves": occ.max_waves,
        "limiter": occ.limiter,
        "incomplete": rep.incomplete,
        "blind": [[b.kind, b.name, b.path or "", b.row or 0] for b in rep.blind],
        "peak": {"section": paths.index(rep.peak_path), "row": rep.peak_row}
        if rep.peak_path in paths and rep.peak_row is not None
        else None,
        "sections": sections,
        "points": points,
    }


def page_data(units: Sequence[UnitPressure]) -> dict[str, Any]:
    targets = {
        f"{name} wave{wave}": {"target": name, "wave": wave, "steps": occupancy_steps(name, wave)}
        for name, t in TARGETS.items()
        for wave in t.wave_sizes
    }
    return {"entries": [entry_data(u, r) for u in units for r in u.reports], "targets": targets}


def print_pressure_html(units: Sequence[UnitPressure], out: IO[str]) -> None:
    data = json.dumps(page_data(units), separators=(",", ":")).replace("</", "<\\/")
    title = ", ".join(sorted({html.escape(r.entry) for u in units for r in u.reports})) or "no entry point"
    page = resources.files("hlsllint.output").joinpath("pressure_page.html").read_text(encoding="utf-8")
    out.write(page.replace("@TITLE@", title).replace("@DATA@", data))
