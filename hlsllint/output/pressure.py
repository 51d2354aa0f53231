"""`hlsllint pressure`: live registers per source line, the peak, and the occupancy it allows.

The text view is the source with a gutter of live VGPR/SGPR counts per line (like RGA's live
register view, but on HLSL lines), the peak line with the values live there, and the occupancy
with what limits it. The JSON view has one object per entry point.

The report itself (entries, per-line figures mapped back to source) is assembled in
`hlsllint.pressure_report`; this module only prints it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Sequence
from typing import IO, Any

from hlsllint.analysis.occupancy import UnknownTarget
from hlsllint.analysis.pressure import LiveValue
from hlsllint.config import ConfigResolver, Variant
from hlsllint.discovery import discover
from hlsllint.output.pressure_html import render_html
from hlsllint.pressure_report import (
    EntryReport,
    UnitPressure,
    analyse_file,
    analyse_model,
    estimate_file,
    map_row_values,
    map_rows,
)
from hlsllint.source import SourceError, SourceFile

__all__ = [
    "EntryReport",
    "UnitPressure",
    "analyse_file",
    "analyse_model",
    "bar",
    "estimate_file",
    "map_row_values",
    "map_rows",
    "render_json",
    "render_text",
    "report_json",
    "run_pressure",
]


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
        "limiter": occ.limiter,
        "groups_per_cu": occ.groups_per_cu,
        "peak": {
            "filename": os.path.abspath(rep.peak_path) if rep.peak_path else None,
            "row": rep.peak_row,
            "values": [{"name": v.name, "vgprs": v.vgprs, "sgprs": v.sgprs} for v in rep.peak_values],
        },
        "scratch": [{"name": n, "bytes_per_lane": b} for n, b in rep.scratch],
        "lines": {str(r): {"vgprs": v, "sgprs": s} for r, (v, s) in sorted(main_lines.items())},
        "included_lines": {
            os.path.abspath(p): {str(r): {"vgprs": v, "sgprs": s} for r, (v, s) in sorted(rows.items())}
            for p, rows in sorted(rep.lines.items())
            if p != rep.path
        },
    }


# -- rendering ----------------------------------------------------------------------------------


def _values_text(values: Sequence[LiveValue], limit: int = 8) -> str:
    parts = []
    for v in values[:limit]:
        width = f"{v.vgprs} VGPR" if v.vgprs else f"{v.sgprs} SGPR"
        parts.append(f"{v.name} ({width})")
    if len(values) > limit:
        parts.append(f"... {len(values) - limit} more")
    return ", ".join(parts) if parts else "(none)"


def render_text(units: Sequence[UnitPressure], out: IO[str], *, color: bool | None = None) -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console(
        file=out,
        highlight=False,
        soft_wrap=True,
        force_terminal=color,
        no_color=color is False,
        width=200,
    )
    for unit in units:
        for rep in unit.reports:
            occ = rep.occupancy
            group = f", {rep.group_threads} threads/group" if rep.group_threads else ""
            console.print(
                f"[bold]{escape(rep.path)}[/bold] [cyan]{escape(rep.entry)}[/cyan] "
                f"({rep.stage}{group}) on {rep.target} wave{rep.wave_size}"
            )
            console.print("[dim]  VGPR  SGPR            │[/dim]")
            for path in sorted(rep.lines, key=lambda p: (p != rep.path, p)):
                rows = rep.lines[path]
                src = unit.pp.sources.get(path)
                if src is None or not rows:
                    continue
                if path != rep.path:
                    console.print(f"[dim]  ── {escape(path)}[/dim]")
                _render_rows(console, src, rows, rep, path)
            console.print(
                f"  max live: [bold]{rep.max_live_vgprs}[/bold] VGPRs, {rep.max_live_sgprs} SGPRs"
                + (f", {rep.lds_bytes} bytes LDS" if rep.lds_bytes else "")
            )
            if rep.peak_row is not None:
                where = f"{rep.peak_path}:{rep.peak_row}"
                console.print(f"  peak at {escape(where)}: {escape(_values_text(rep.peak_values))}")
            for name, size in rep.scratch:
                console.print(
                    f"  scratch: `{escape(name)}` ({size:,} bytes per lane) is too large for registers "
                    "and lives in scratch memory (not counted as VGPRs)"
                )
            sg = f", {occ.allocated_sgprs} SGPRs" if occ.allocated_sgprs is not None else ""
            console.print(
                f"  occupancy: {occ.allocated_vgprs} VGPRs allocated{sg} -> "
                f"[bold]{occ.waves_per_simd}[/bold] of {occ.max_waves} waves per SIMD "
                f"(limited by {occ.limiter})"
            )
            console.print("")


_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(value: int, most: int, cells: int = 10) -> str:
    """A compact horizontal bar, `cells` characters wide, of value / most in eighths of a cell."""
    eighths = round(max(0, min(value, most)) * cells * 8 / max(most, 1))
    full, part = divmod(eighths, 8)
    return ("█" * full + (_EIGHTHS[part] if part else "")).ljust(cells)


def _render_rows(
    console: Any, src: SourceFile, rows: dict[int, tuple[int, int]], rep: EntryReport, path: str
) -> None:
    from rich.markup import escape

    first, last = min(rows), max(rows)
    width = max(rows.values(), key=lambda c: c[0])[0] if rows else 0
    most = max(rep.max_live_vgprs, width, 1)
    for row in range(first, last + 1):
        line = src.line(row)
        counts = rows.get(row)
        is_peak = rep.peak_path == path and rep.peak_row == row
        gutter = " " * 23 if counts is None else f"{counts[0]:6d} {counts[1]:5d} {bar(counts[0], most)}"
        style = "bold red" if is_peak else ("yellow" if counts and counts[0] * 4 >= width * 3 else "")
        mark = "  [bold red]◀ peak[/bold red]" if is_peak else ""
        text = f"{gutter} │ {escape(line)}"
        console.print(f"[{style}]{text}[/{style}]{mark}" if style else f"{text}{mark}")


def render_json(units: Sequence[UnitPressure], out: IO[str]) -> None:
    json.dump([report_json(rep) for u in units for rep in u.reports], out, indent=2)
    out.write("\n")


# -- the command --------------------------------------------------------------------------------


def run_pressure(
    paths: Sequence[str],
    resolver: ConfigResolver | None = None,
    *,
    entry: str | None = None,
    output_format: str = "text",
    target: str | None = None,
    wave: int | None = None,
    out: IO[str] | None = None,
) -> int:
    """`hlsllint pressure`. Exit status: 0 reports printed, 1 no (matching) entry point,
    2 a file could not be read or the target is unknown."""
    out = out or sys.stdout
    resolver = resolver or ConfigResolver()
    status = 0
    units: list[UnitPressure] = []
    files = [p for p in paths if os.path.isfile(p)] + list(
        discover([p for p in paths if os.path.isdir(p)], resolver)
    )
    missing = [p for p in paths if not os.path.exists(p)]
    for p in missing:
        print(f"hlsllint: error: {p}: no such file or directory", file=sys.stderr)
        status = 2
    for path in files:
        settings = resolver.for_path(path)
        changes: dict[str, Any] = {}
        if target is not None:
            changes["target"] = target
        if wave is not None:
            changes["wave_size"] = wave
        if changes:
            settings = dataclasses.replace(settings, **changes)
        # The build's compiles of the file (`--compile-commands`, `variants`): one report per
        # compile, with its defines, and only its -E entry point when it names one.
        built: list[Variant | None] = [v for v in settings.variants_for(path) if v.entry is not None]
        variants = built or [None]
        seen: set[tuple[str, str]] = set()
        for variant in variants:
            try:
                unit = analyse_file(
                    path, settings, entry=entry, with_values=output_format == "html", variant=variant
                )
            except SourceError as e:
                print(f"hlsllint: error: {path}: {e}", file=sys.stderr)
                status = 2
                break
            except UnknownTarget as e:
                print(f"hlsllint: error: {e}", file=sys.stderr)
                return 2
            unit.reports = [r for r in unit.reports if (r.entry, r.stage) not in seen]
            seen.update((r.entry, r.stage) for r in unit.reports)
            if unit.reports:
                units.append(unit)
    if output_format == "json":
        render_json(units, out)
    elif output_format == "html":
        render_html(units, out)
    else:
        render_text(units, out)
    if not any(u.reports for u in units) and status == 0:
        what = f"entry point {entry!r}" if entry else "entry point"
        print(f"hlsllint: no {what} found in {', '.join(paths)}", file=sys.stderr)
        return 1
    return status
