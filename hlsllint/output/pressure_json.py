"""`hlsllint pressure --output-format json`: one object per entry point."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import IO, Any

from hlsllint.pressure_report import EntryReport, UnitPressure


def report_json(rep: EntryReport) -> dict[str, Any]:
    """The JSON object of one entry's report."""
    occ = rep.occupancy
    main_lines = rep.lines.get(rep.path, {})
    return {
        "filename": os.path.abspath(rep.path),
        "entry": rep.entry,
        "stage": rep.stage,
        "target": rep.target,
        "wave_size": rep.wave_size,
        "group_threads": rep.group_threads,
        "lds_bytes": rep.lds_bytes,
        "max_live_vgprs": rep.max_live_vgprs,
        "max_live_sgprs": rep.max_live_sgprs,
        "allocated_vgprs": occ.allocated_vgprs,
        "allocated_sgprs": occ.allocated_sgprs,
        "waves_per_simd": occ.waves_per_simd,
        "max_waves_per_simd": occ.max_waves,
        "scheduled_vgprs": rep.scheduled_vgprs,
        "demand_waves_per_simd": (
            rep.demand_occupancy.waves_per_simd if rep.demand_occupancy is not None else occ.waves_per_simd
        ),
        "limiter": occ.limiter,
        "groups_per_cu": occ.groups_per_cu,
        "peak": {
            "filename": os.path.abspath(rep.peak_path) if rep.peak_path else None,
            "row": rep.peak_row,
            "values": [{"name": v.name, "vgprs": v.vgprs, "sgprs": v.sgprs} for v in rep.peak_values],
        },
        "scratch": [{"name": n, "bytes_per_lane": b} for n, b in rep.scratch],
        "complete": rep.complete,
        "incomplete": rep.incomplete or None,
        "blind_spots": [
            {
                "kind": b.kind,
                "name": b.name,
                "filename": os.path.abspath(b.path) if b.path else None,
                "row": b.row,
            }
            for b in rep.blind
        ],
        "lines": {str(r): {"vgprs": v, "sgprs": s} for r, (v, s) in sorted(main_lines.items())},
        "included_lines": {
            os.path.abspath(p): {str(r): {"vgprs": v, "sgprs": s} for r, (v, s) in sorted(rows.items())}
            for p, rows in sorted(rep.lines.items())
            if p != rep.path
        },
    }


def print_pressure_json(units: Sequence[UnitPressure], out: IO[str]) -> None:
    json.dump([report_json(rep) for u in units for rep in u.reports], out, indent=2)
    out.write("\n")
