"""`hlsllint pressure` in a terminal: the summary first, then the code the entry point runs.

Per entry point: a summary (entry, stage, target and wave size, the VGPR and SGPR peaks and
their lines, waves per SIMD and what limits them, the values live at the VGPR peak by their
source names), then a code frame of the functions the entry point reaches, numbered as in
their files, with the live VGPRs/SGPRs of each line and a bar of the VGPRs (like RGA's live
register view, but on HLSL lines). What the entry point does not reach is folded into one
line per run (`… 120 lines not reached by main …`), and so is a long run of lines without
instructions inside it (comments, code compiled out).

Styled through rich on a terminal, plain text otherwise (a pipe, a file, `NO_COLOR`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import IO

from rich.console import Console
from rich.text import Text

from hlsllint.analysis.pressure import LiveValue
from hlsllint.pressure_report import EntryReport, UnitPressure
from hlsllint.source import SourceFile

GAP = 2
"""Runs of unreached lines up to this long are shown rather than folded."""
QUIET_RUN = 8
"""A run of this many lines or more without instructions inside reached code is folded."""
PEAK_VALUES = 8
"""Values listed by name at the peak (the rest are counted)."""
BAR_CELLS = 10
BLIND_PLACES = 8
"""Places listed under `estimate incomplete` (the rest are counted)."""
BLIND_KINDS = {
    "call": "call not resolved:",
    "intrinsic": "intrinsic not known:",
    "attribute": "attribute argument not evaluated:",
    "unparsed": "unparsed region",
    "truncated": "lowering cut short (instruction cap)",
}

LIMITERS = {
    "vgpr": "VGPRs",
    "sgpr": "SGPRs",
    "lds": "LDS",
    "group": "group size",
    "waves": "wave slots only",
}


def print_pressure_text(units: Sequence[UnitPressure], out: IO[str], *, color: bool | None = None) -> None:
    console = Console(
        file=out,
        highlight=False,
        soft_wrap=True,
        emoji=False,
        markup=False,
        force_terminal=color,
        no_color=color is False,
    )
    first = True
    for unit in units:
        for rep in unit.reports:
            if not first:
                console.print()
            first = False
            for line in summary(rep, unit.variant):
                console.print(line)
            console.print()
            for line in code_frame(unit, rep):
                console.print(line)


# -- the summary --------------------------------------------------------------------------------


def summary(rep: EntryReport, variant: str | None = None) -> list[Text]:
    occ = rep.occupancy
    group = ""
    if rep.group_threads:
        group = f", {rep.group_threads} thread{'s' if rep.group_threads != 1 else ''}/group"
    head = Text.assemble(
        (rep.entry, "bold cyan"),
        f" ({rep.stage}{group}) in ",
        (rep.path, "bold"),
        f", {rep.target} wave{rep.wave_size}",
    )
    if variant:
        head.append(f" [{variant}]", style="dim")
    lines = [head]

    vgpr_at = (rep.peak_path, rep.peak_row) if rep.peak_path and rep.peak_row is not None else None
    sgpr_at = _sgpr_peak(rep)
    peak = _label("peak")
    peak.append(f"{rep.max_live_vgprs} VGPRs", style="bold")
    if vgpr_at is not None and vgpr_at != sgpr_at:
        peak.append(f" at {vgpr_at[0]}:{vgpr_at[1]}")
    peak.append(", ")
    peak.append(f"{rep.max_live_sgprs} SGPRs", style="bold")
    if sgpr_at is not None:
        peak.append(f" at {sgpr_at[0]}:{sgpr_at[1]}")
    lines.append(peak)

    limit = LIMITERS.get(occ.limiter, occ.limiter)
    if occ.limiter == "group" and rep.group_threads:
        limit += f" ({rep.group_threads} threads)"
    allocated = [f"{occ.allocated_vgprs} VGPRs"]
    if occ.allocated_sgprs is not None:
        allocated.append(f"{occ.allocated_sgprs} SGPRs")
    if rep.lds_bytes:
        allocated.append(f"{rep.lds_bytes:,} bytes LDS per group")
    waves = _label("occupancy")
    waves.append(f"{occ.waves_per_simd} of {occ.max_waves} waves per SIMD", style="bold")
    by_demand = rep.demand_occupancy
    if by_demand is not None:
        waves.append(f" after scheduling; {by_demand.waves_per_simd} by demand")
    waves.append(f", limited by {limit} ({', '.join(allocated)} allocated)")
    lines.append(waves)
    if by_demand is not None:
        lost = by_demand.waves_per_simd - occ.waves_per_simd
        lines.append(
            Text(
                f"  {'':<13}ACO's scheduler is predicted to issue loads early, up to "
                f"{rep.scheduled_vgprs} VGPRs, and give up {lost} wave{'s' if lost > 1 else ''} "
                "for the latency"
            )
        )

    live = _label("live at peak")
    live.append(values_text(rep.peak_values))
    lines.append(live)
    lines.extend(blind_lines(rep))
    for name, size in rep.scratch:
        lines.append(
            Text(
                f"  {'scratch':<13}`{name}` ({size:,} bytes per lane) is too large for registers "
                "and lives in scratch memory (not counted as VGPRs)"
            )
        )
    return lines


def blind_lines(rep: EntryReport, limit: int = BLIND_PLACES) -> list[Text]:
    """`estimate incomplete: ...` and where each thing not seen is, when the estimate misses some
    of the entry point's code (the figures above are then a lower bound)."""
    if rep.complete:
        return []
    head = Text("  ")
    head.append(rep.incomplete, style="bold yellow")
    head.append(" (the figures above leave it out)")
    lines = [head]
    for b in rep.blind[:limit]:
        where = f"{b.path}:{b.row}" if b.path and b.row is not None else "?"
        what = BLIND_KINDS.get(b.kind, b.kind)
        name = f" `{b.name}`" if b.name else ""
        lines.append(Text(f"    {where}: {what}{name}", style="yellow"))
    if len(rep.blind) > limit:
        lines.append(Text(f"    … {len(rep.blind) - limit} more", style="yellow"))
    return lines


def _label(name: str) -> Text:
    return Text(f"  {name:<13}")


def values_text(values: Sequence[LiveValue], limit: int = PEAK_VALUES) -> str:
    parts = []
    for v in values[:limit]:
        width = f"{v.vgprs} VGPR" if v.vgprs else f"{v.sgprs} SGPR"
        parts.append(f"{v.name} ({width}{'s' if (v.vgprs or v.sgprs) != 1 else ''})")
    if len(values) > limit:
        parts.append(f"… {len(values) - limit} more")
    return ", ".join(parts) if parts else "(none)"


def _sgpr_peak(rep: EntryReport) -> tuple[str, int] | None:
    """The first line (the entry's file first) with the most live SGPRs."""
    best: tuple[str, int] | None = None
    most = 0
    for path in _paths(rep, ()):
        for row, (_, sgprs) in sorted(rep.lines.get(path, {}).items()):
            if sgprs > most:
                best, most = (path, row), sgprs
    return best


# -- the code frame -----------------------------------------------------------------------------


_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(value: int, most: int, cells: int = BAR_CELLS) -> str:
    """A compact horizontal bar, `cells` characters wide, of value / most in eighths of a cell."""
    eighths = round(max(0, min(value, most)) * cells * 8 / max(most, 1))
    full, part = divmod(eighths, 8)
    return ("█" * full + (_EIGHTHS[part] if part else "")).ljust(cells)


def _paths(rep: EntryReport, included: Sequence[str]) -> list[str]:
    """The entry's file first, then the others it reaches in inclusion order."""
    paths = set(rep.lines) | set(rep.reached)
    order = {p: i for i, p in enumerate(included)}
    rest = sorted(paths - {rep.path}, key=lambda p: (order.get(p, len(order)), p))
    return ([rep.path] if rep.path in paths else []) + rest


def code_frame(unit: UnitPressure, rep: EntryReport) -> Iterator[Text]:
    paths = [p for p in _paths(rep, unit.pp.included) if p in unit.pp.sources]
    shown = {p: _layout(unit.pp.sources[p], rep.lines.get(p, {}), rep.reached.get(p, [])) for p in paths}
    rows = [r for items in shown.values() for kind, r, _ in items if kind == "line"]
    width = len(str(max(rows, default=1)))
    most = max([rep.max_live_vgprs, *(v for p in paths for v, _ in rep.lines.get(p, {}).values())], default=1)
    gutter = " " * (5 + 1 + 4 + 1 + BAR_CELLS + 1)  # VGPRs, SGPRs, the bar
    for n, path in enumerate(paths):
        head = Text(f"{'VGPR':>5} {'SGPR':>4} {'':{BAR_CELLS}} " if n == 0 else gutter, style="dim")
        head.append(f"{'':>{width}} ┌─ ", style="dim")
        head.append(path, style="bold")
        yield head
        src = unit.pp.sources[path]
        counts = rep.lines.get(path, {})
        for kind, row, count in shown[path]:
            if kind != "line":
                what = f"not reached by {rep.entry}" if kind == "unreached" else "without instructions"
                line = Text(gutter + f"{'⋮':>{width}} │ ", style="dim")
                line.append(f"… {count} line{'s' if count != 1 else ''} {what} …", style="dim italic")
                yield line
                continue
            yield _row(rep, path, row, src.line(row), counts.get(row), width, most, gutter)


def _row(
    rep: EntryReport,
    path: str,
    row: int,
    code: str,
    counts: tuple[int, int] | None,
    width: int,
    most: int,
    gutter: str,
) -> Text:
    is_peak = rep.peak_path == path and rep.peak_row == row
    if counts is None:
        line = Text(gutter)
    else:
        v, s = counts
        line = Text(f"{v:5d} {s:4d} ")
        line.append(bar(v, most), style="red" if v * 4 >= most * 3 else "magenta")
        line.append(" ")
    line.append(f"{row:>{width}} │ ", style="blue")
    style = "bold red" if is_peak else ("yellow" if counts and counts[0] * 4 >= most * 3 else "")
    line.append(code, style=style)
    if is_peak:
        line.append("  ◀ peak", style="bold red")
    return line


def _layout(
    src: SourceFile, counts: dict[int, tuple[int, int]], reached: Sequence[tuple[int, int]]
) -> list[tuple[str, int, int]]:
    """The file as ("line", row, 0) for each shown row and ("unreached" | "quiet", first row,
    count) for each folded run; empty when the entry point neither reaches nor runs any of it."""
    last = src.line_count
    if last > 1 and not src.line(last):  # the empty "line" after a final line break
        last -= 1
    inside: set[int] = set()
    heads: set[int] = set()
    for first, end in reached:
        inside.update(range(first, end + 1))
        heads.add(first)
    if not inside and not counts:
        return []
    shown = inside | set(counts)
    # Fill short gaps (a blank line between two functions, a file's first lines): no fold saves
    # a line there.
    rows = [0, *sorted(shown), last + 1]
    for a, b in pairwise(rows):
        if 1 < b - a <= GAP + 1:
            shown.update(range(a + 1, b))
    out: list[tuple[str, int, int]] = []
    row = 1
    while row <= last:
        if row not in shown:
            end = row
            while end + 1 <= last and end + 1 not in shown:
                end += 1
            out.append(("unreached", row, end - row + 1))
            row = end + 1
            continue
        # A long run of reached rows without instructions (not a function's first row).
        end = row
        while end <= last and end in shown and end not in counts and end not in heads:
            end += 1
        if end - row >= QUIET_RUN:
            out.append(("quiet", row, end - row))
            row = end
            continue
        out.append(("line", row, 0))
        row += 1
    return out
