"""`hlsllint pressure`: live registers per source line, the peak, and the occupancy it allows.

The text view is the source with a gutter of live VGPR/SGPR counts per line (like RGA's live
register view, but on HLSL lines), the peak line with the values live there, and the occupancy
with what limits it. The JSON view has one object per entry point.

Analysis results come in preprocessed-text coordinates; they are mapped back to original files
and rows with the unit's source map, the same way diagnostics are.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from hlsllint.analysis.occupancy import Occupancy, UnknownTarget, occupancy, resolve_target
from hlsllint.analysis.pressure import (
    LiveValue,
    SpanCount,
    analyse_entry,
    lds_bytes,
    live_values_per_instruction,
)
from hlsllint.output.pressure_html import render_html
from hlsllint.source import SourceError, SourceFile

if TYPE_CHECKING:
    from hlsllint.analysis.costs import CostModel
    from hlsllint.config import ConfigResolver, Settings
    from hlsllint.preprocess import PreprocessResult
    from hlsllint.semantic import Model

Span = tuple[int, int]


# -- per-entry report in original-file coordinates ----------------------------------------------


@dataclass
class EntryReport:
    path: str
    entry: str
    stage: str
    target: str
    wave_size: int
    group_threads: int | None
    lds_bytes: int
    max_live_vgprs: int
    max_live_sgprs: int
    occupancy: Occupancy
    peak_path: str | None
    peak_row: int | None
    peak_values: list[LiveValue]
    scratch: list[tuple[str, int]] = field(default_factory=list)
    """(name, bytes per lane) of the arrays that live in scratch memory, not in registers."""
    lines: dict[str, dict[int, tuple[int, int]]] = field(default_factory=dict)
    """path -> row -> (live VGPRs, live SGPRs): the most live at any analysed point on the row."""
    line_values: dict[str, dict[int, list[LiveValue]]] = field(default_factory=dict)
    """path -> row -> the values live at the row's busiest instruction (only for views that
    list them: `analyse_model(..., with_values=True)`)."""

    def to_json(self) -> dict[str, Any]:
        occ = self.occupancy
        main_lines = self.lines.get(self.path, {})
        return {
            "filename": os.path.abspath(self.path),
            "entry": self.entry,
            "stage": self.stage,
            "target": self.target,
            "wave_size": self.wave_size,
            "group_threads": self.group_threads,
            "lds_bytes": self.lds_bytes,
            "max_live_vgprs": self.max_live_vgprs,
            "max_live_sgprs": self.max_live_sgprs,
            "allocated_vgprs": occ.allocated_vgprs,
            "allocated_sgprs": occ.allocated_sgprs,
            "waves_per_simd": occ.waves_per_simd,
            "max_waves_per_simd": occ.max_waves,
            "limiter": occ.limiter,
            "groups_per_cu": occ.groups_per_cu,
            "peak": {
                "filename": os.path.abspath(self.peak_path) if self.peak_path else None,
                "row": self.peak_row,
                "values": [{"name": v.name, "vgprs": v.vgprs, "sgprs": v.sgprs} for v in self.peak_values],
            },
            "scratch": [{"name": n, "bytes_per_lane": b} for n, b in self.scratch],
            "lines": {str(r): {"vgprs": v, "sgprs": s} for r, (v, s) in sorted(main_lines.items())},
            "included_lines": {
                os.path.abspath(p): {str(r): {"vgprs": v, "sgprs": s} for r, (v, s) in sorted(rows.items())}
                for p, rows in sorted(self.lines.items())
                if p != self.path
            },
        }


def map_rows(pp: PreprocessResult, spans: Sequence[SpanCount]) -> dict[str, dict[int, tuple[int, int]]]:
    """Counts per original (path, row): the maximum over the spans that start on the row."""
    out: dict[str, dict[int, tuple[int, int]]] = {}
    for sc in spans:
        start, end = sc.span
        mapped = pp.sourcemap.map_range(start, max(end, start + 1))
        src = pp.sources.get(mapped.path)
        if src is None:
            continue
        row = src.location(mapped.start).row
        rows = out.setdefault(mapped.path, {})
        v, s = rows.get(row, (0, 0))
        rows[row] = (max(v, sc.vgprs), max(s, sc.sgprs))
    return out


def map_row_values(
    pp: PreprocessResult, spans: Sequence[tuple[Span, list[LiveValue]]]
) -> dict[str, dict[int, list[LiveValue]]]:
    """Per original (path, row): the values live at the row's instruction with the most VGPRs."""
    out: dict[str, dict[int, list[LiveValue]]] = {}
    for span, values in spans:
        path, row = _map_point(pp, span)
        if path is None or row is None:
            continue
        rows = out.setdefault(path, {})
        if row not in rows or sum(v.vgprs for v in values) > sum(v.vgprs for v in rows[row]):
            rows[row] = values
    return out


def _map_point(pp: PreprocessResult, span: Span | None) -> tuple[str | None, int | None]:
    if span is None:
        return None, None
    mapped = pp.sourcemap.map_range(span[0], max(span[1], span[0] + 1))
    src = pp.sources.get(mapped.path)
    if src is None:
        return None, None
    return mapped.path, src.location(mapped.start).row


@dataclass
class UnitPressure:
    path: str
    pp: PreprocessResult
    reports: list[EntryReport]


def analyse_file(
    path: str,
    settings: Settings,
    *,
    entry: str | None = None,
    loader: Any = None,
    costs: CostModel | None = None,
    with_values: bool = False,
) -> UnitPressure:
    """Preprocess, parse, model and analyse `path`; one report per (selected) entry point."""
    from hlsllint.lint import FileLoader, front_end
    from hlsllint.semantic import build_model

    load = loader or FileLoader()
    main = load(path)
    pp, tree = front_end(main, settings, None, load)
    return analyse_model(
        main.path,
        pp,
        build_model(tree, settings.analysis),
        settings,
        entry=entry,
        costs=costs,
        with_values=with_values,
    )


def analyse_model(
    path: str,
    pp: PreprocessResult,
    model: Model,
    settings: Settings,
    *,
    entry: str | None = None,
    costs: CostModel | None = None,
    with_values: bool = False,
) -> UnitPressure:
    """One report per (selected) entry point of an already built model."""
    target = resolve_target(settings.target)
    wave = target.wave_for(settings.wave_size)
    reports: list[EntryReport] = []
    for ep in model.entry_points:
        if entry is not None and ep.name != entry:
            continue
        result = analyse_entry(model, ep, wave, costs)
        lds = lds_bytes(model, ep) if ep.stage == "compute" else 0
        threads = ep.threads_per_group if ep.stage == "compute" else None
        occ = occupancy(target, wave, result.max_live_vgprs, result.max_live_sgprs, lds, threads)
        peak_path, peak_row = _map_point(pp, result.peak_span)
        reports.append(
            EntryReport(
                path=path,
                entry=ep.name,
                stage=ep.stage,
                target=target.name,
                wave_size=wave,
                group_threads=threads,
                lds_bytes=lds,
                max_live_vgprs=result.max_live_vgprs,
                max_live_sgprs=result.max_live_sgprs,
                occupancy=occ,
                peak_path=peak_path,
                peak_row=peak_row,
                peak_values=result.peak_values,
                scratch=result.scratch,
                lines=map_rows(pp, result.spans),
                line_values=(
                    map_row_values(pp, live_values_per_instruction(model, ep, wave)) if with_values else {}
                ),
            )
        )
    return UnitPressure(path, pp, reports)


def estimate_file(
    path: str,
    *,
    target: str = "rdna2",
    wave: int | None = None,
    settings: Settings | None = None,
    costs: CostModel | None = None,
) -> list[EntryReport]:
    """Reports for every entry point of `path` (used by bench/pressure)."""
    from hlsllint.config import Settings

    base = settings or Settings()
    base = dataclasses.replace(base, target=target, wave_size=wave)
    return analyse_file(path, base, costs=costs).reports


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
    json.dump([rep.to_json() for u in units for rep in u.reports], out, indent=2)
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
    from hlsllint.config import ConfigResolver
    from hlsllint.discovery import discover

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
        try:
            unit = analyse_file(path, settings, entry=entry, with_values=output_format == "html")
        except SourceError as e:
            print(f"hlsllint: error: {path}: {e}", file=sys.stderr)
            status = 2
            continue
        except UnknownTarget as e:
            print(f"hlsllint: error: {e}", file=sys.stderr)
            return 2
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
