"""The register-pressure report of a unit, assembled once beside the lint driver: which entry
points, their peaks and occupancy, and their per-line live VGPR/SGPR figures mapped back to
original files and rows (with the unit's source map, as diagnostics are). `hlsllint pressure`'s
printers (`PRESSURE_FORMATS` in `hlsllint.output`) and the editor's pressure view
(`hlsllint.server.pressure_view`) only read it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hlsllint import preprocess as pp_stage
from hlsllint.analysis.blind import Blindness, blind_spots
from hlsllint.analysis.costs import CostModel
from hlsllint.analysis.occupancy import Occupancy, occupancy, reachable_functions
from hlsllint.analysis.pressure import (
    LiveValue,
    SpanCount,
    analyse_entry,
    lds_bytes,
    live_values_per_instruction,
)
from hlsllint.config import Settings, Variant
from hlsllint.deadline import BudgetExceeded, Cancelled, Deadline, active
from hlsllint.lint import Budget, FileLoader, analysis_settings, front_end
from hlsllint.preprocess import PreprocessResult
from hlsllint.preprocess.sourcemap import SourceMap
from hlsllint.semantic import Model, build_model
from hlsllint.semantic.symbols import EntryPoint
from hlsllint.targets import resolve_target

Span = tuple[int, int]


# -- per-entry report in original-file coordinates ----------------------------------------------


@dataclass(frozen=True)
class BlindPlace:
    """One construct the estimate does not see (`analysis.blind.BlindSpot`), in its file."""

    kind: str
    """`call`, `intrinsic`, `attribute`, `unparsed` or `truncated`."""
    name: str
    path: str | None
    row: int | None


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
    reached: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    """path -> (first row, last row) of each function definition the entry point reaches (its
    own and every function it calls, directly or not), in row order."""
    blindness: Blindness = field(default_factory=Blindness)
    """What the estimate does not see on the entry's path (`analysis.blind`)."""
    blind: list[BlindPlace] = field(default_factory=list)
    """The same, each in its original file and row."""
    scheduled_vgprs: int = 0
    """The VGPRs ACO's scheduler is predicted to leave (`analysis.scheduling`), which
    `occupancy` is computed from; `max_live_vgprs` is the demand before scheduling."""
    demand_occupancy: Occupancy | None = None
    """The occupancy `max_live_vgprs` alone would allow, when the scheduler is predicted to
    trade some of it for memory latency (more waves than `occupancy`); else None."""

    @property
    def complete(self) -> bool:
        return self.blindness.complete

    @property
    def incomplete(self) -> str:
        """`estimate incomplete: 3 calls not resolved (`Surface::load`, ...)`, or ""."""
        return self.blindness.summary()


def map_rows(pp: PreprocessResult, spans: Sequence[SpanCount]) -> dict[str, dict[int, tuple[int, int]]]:
    """Counts per original (path, row): the maximum over the spans that start on the row."""
    # An engine pixel shader's 7,658 instructions have 1,954 spans: each is mapped once.
    most: dict[Span, tuple[int, int]] = {}
    for sc in spans:
        got = most.get(sc.span)
        most[sc.span] = (
            (sc.vgprs, sc.sgprs) if got is None else (max(got[0], sc.vgprs), max(got[1], sc.sgprs))
        )
    out: dict[str, dict[int, tuple[int, int]]] = {}
    for (start, end), (vgprs, sgprs) in most.items():
        mapped = pp.sourcemap.map_range(start, max(end, start + 1))
        src = pp.sources.get(mapped.path)
        if src is None:
            continue
        row = src.location(mapped.start).row
        rows = out.setdefault(mapped.path, {})
        v, s = rows.get(row, (0, 0))
        rows[row] = (max(v, vgprs), max(s, sgprs))
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


def reached_rows(pp: PreprocessResult, model: Model, entry: EntryPoint) -> dict[str, list[tuple[int, int]]]:
    """The original rows of the function definitions `entry` reaches (every overload of a name it
    calls), per file."""
    out: dict[str, list[tuple[int, int]]] = {}
    for fn in reachable_functions(model, entry):
        start, end = model.tree.span(fn.node)
        start = min([start, *(a.span[0] for a in fn.attributes)])  # `[numthreads(...)]` above it
        mapped = pp.sourcemap.map_range(start, max(end, start + 1))
        src = pp.sources.get(mapped.path)
        if src is None:
            continue
        first = src.location(mapped.start).row
        last = src.location(max(mapped.start, mapped.end - 1)).row
        out.setdefault(mapped.path, []).append((first, last))
    return {path: sorted(set(ranges)) for path, ranges in out.items()}


@dataclass
class UnitPressure:
    path: str
    pp: PreprocessResult
    reports: list[EntryReport]
    variant: str | None = None
    """The name of the build's compile (define set) the unit was analysed with, if any."""
    left_out: list[str] = field(default_factory=list)
    """What the analysis left out, said for a person (code nested too deep to analyse: HL007)."""


def analyse_file(
    path: str,
    settings: Settings,
    *,
    entry: str | None = None,
    loader: Any = None,
    costs: CostModel | None = None,
    with_values: bool = False,
    variant: Variant | None = None,
    deadline: Deadline | None = None,
) -> UnitPressure:
    """Preprocess, parse, model and analyse `path`; one report per (selected) entry point.

    With a `variant` (one compile of the file in the build's database, or a configured define
    set), its defines and include folders apply, and its `-E` entry, when it names one, is the
    only entry point, with the stage of its profile.

    Every stage checks `deadline` (by default one of `settings.time_budget` seconds from now), as
    `lint_unit` has them: past it the unit has no reports and `left_out` says which stage was still
    running (HL006); cancelled, `Cancelled` is raised."""
    load = loader or FileLoader()
    main = load(path)
    token = Deadline(settings.time_budget) if deadline is None else deadline
    budget = Budget(token)
    try:
        with active(token), budget.alarm():
            pp, tree = front_end(main, settings, variant, load)
            budget.enter("the semantic model")
            model = build_model(tree, analysis_settings(settings, variant))
            budget.enter("the register analysis")
            unit = analyse_model(
                main.path, pp, model, settings, entry=entry, costs=costs, with_values=with_values
            )
            budget.enter("")
    except Cancelled:
        pp_stage.clear_cache()  # the lexer cache may hold a half-built entry
        raise
    except BudgetExceeded:
        pp_stage.clear_cache()
        unit = UnitPressure(main.path, PreprocessResult("", SourceMap([]), sources={main.path: main}), [])
        unit.variant = variant.name if variant else None
        unit.left_out.append(
            f"{main.path}:1: analysis skipped after {token.seconds:g} s: {budget.stage} was still running "
            "(HL006; raise `time-budget` to analyse it whole)"
        )
        return unit
    unit.variant = variant.name if variant else None
    for deep in tree.too_deep:
        what = f"function `{deep.function}`" if deep.function else "a declaration"
        where = pp.sourcemap.map_range(*deep.at)
        row = pp.sources[where.path].location(where.start).row if where.path in pp.sources else 0
        unit.left_out.append(
            f"{where.path}:{row}: {what} is not analysed: code nested {deep.depth:,} levels deep (HL007)"
        )
    return unit


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
        by_demand: Occupancy | None = None
        if result.scheduled_vgprs > result.max_live_vgprs:
            scheduled = occupancy(target, wave, result.scheduled_vgprs, result.max_live_sgprs, lds, threads)
            if scheduled.waves_per_simd < occ.waves_per_simd:
                occ, by_demand = scheduled, occ
        peak_path, peak_row = _map_point(pp, result.peak_span)
        blindness = blind_spots(model, ep)
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
                scheduled_vgprs=max(result.scheduled_vgprs, result.max_live_vgprs),
                demand_occupancy=by_demand,
                peak_path=peak_path,
                peak_row=peak_row,
                peak_values=result.peak_values,
                scratch=result.scratch,
                lines=map_rows(pp, result.spans),
                reached=reached_rows(pp, model, ep),
                blindness=blindness,
                blind=[BlindPlace(b.kind, b.name, *_map_point(pp, b.span)) for b in blindness.spots],
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
    base = settings or Settings()
    base = dataclasses.replace(base, target=target, wave_size=wave)
    return analyse_file(path, base, costs=costs).reports
