"""`hlsllint pressure` in a terminal: live registers per source line, the peak, and the
occupancy it allows.

The view is the source with a gutter of live VGPR/SGPR counts per line (like RGA's live
register view, but on HLSL lines), the peak line with the values live there, and the occupancy
with what limits it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

from hlsllint.analysis.pressure import LiveValue
from hlsllint.pressure_report import EntryReport, UnitPressure
from hlsllint.source import SourceFile


def _values_text(values: Sequence[LiveValue], limit: int = 8) -> str:
    parts = []
    for v in values[:limit]:
        width = f"{v.vgprs} VGPR" if v.vgprs else f"{v.sgprs} SGPR"
        parts.append(f"{v.name} ({width})")
    if len(values) > limit:
        parts.append(f"... {len(values) - limit} more")
    return ", ".join(parts) if parts else "(none)"


def print_pressure_text(units: Sequence[UnitPressure], out: IO[str], *, color: bool | None = None) -> None:
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
