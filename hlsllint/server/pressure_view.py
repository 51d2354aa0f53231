"""Register pressure in the editor: inlay hints near each entry's peak and a per-line hover.

Reads `hlsllint.pressure_report.analyse_model` (the report `hlsllint pressure` prints), run on the
parse and model the lint of the same version already built: one report per entry point with the
live VGPRs/SGPRs of every source line and the values live at the peak. After an incremental lint,
the entry points it analysed come from its analyses and the others from the last view
(`view_after_relint`).
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from hlsllint.analysis.occupancy import reachable_functions
from hlsllint.config import Settings
from hlsllint.context import RuleContext
from hlsllint.preprocess import PreprocessResult
from hlsllint.pressure_report import analyse_model
from hlsllint.semantic import Model
from hlsllint.semantic.symbols import EntryPoint
from hlsllint.syntax.queries import call_name

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
    helpers: tuple[Helper, ...] = ()
    """The functions the entry inlines that are defined in the document."""
    rows_of_entry: tuple[int, int] | None = None
    """The first and last row of the entry point's own definition in the document."""
    figures: dict[str, object] = field(default_factory=dict)
    """The entry's figures for the `hlsllint/pressure` request (JSON)."""

    def covers(self, row: int) -> bool:
        """Whether `row` lies in the entry point's definition or in a helper it inlines."""
        own = self.rows_of_entry is not None and self.rows_of_entry[0] <= row <= self.rows_of_entry[1]
        return own or any(h.first <= row <= h.last for h in self.helpers)

    def at_calls(self, helper: Helper) -> list[tuple[int, tuple[int, int]]]:
        """(call row, the entry's live registers there) for each call of `helper`: a call from
        another helper's line without instructions of its own takes that helper's figures."""
        out: list[tuple[int, tuple[int, int]]] = []
        seen = {helper.name}
        todo = [helper]
        while todo:
            h = todo.pop()
            for row in h.calls:
                counts = self.rows.get(row)
                if counts is not None:
                    out.append((row, counts))
                    continue
                outer = next((o for o in self.helpers if o.first <= row <= o.last), None)
                if outer is not None and outer.name not in seen:
                    seen.add(outer.name)
                    todo.append(outer)
        return sorted(set(out))


@dataclass(frozen=True)
class Helper:
    """A function an entry point calls (inlined into it), by rows of the document."""

    name: str
    first: int
    last: int
    calls: tuple[int, ...]
    """The rows of its calls inside the entry or another function the entry reaches."""


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
        """The live registers of each entry on the line; on a line of a helper the entry inlines,
        also the entry's figures at the helper's calls (so every line of its body answers)."""
        if path != self.path:
            return None
        parts = []
        for e in self.entries:
            counts = e.rows.get(row)
            helper = next((h for h in e.helpers if h.first <= row <= h.last), None)
            text = ""
            if counts is not None:
                text = f"**Live registers** in `{e.entry}`: {counts[0]} VGPRs, {counts[1]} SGPRs"
                if row == e.peak_row:
                    text += f" (the peak)\n\nLive here: {e.peak_values}"
            if helper is not None:
                calls = e.at_calls(helper)
                if calls:
                    where = ", ".join(f"line {r}: {v} VGPRs, {s} SGPRs" for r, (v, s) in calls[:4])
                    more = f" and {len(calls) - 4} more" if len(calls) > 4 else ""
                    prefix = f"**Live registers** in `{e.entry}` a" if not text else text + "\n\nA"
                    text = f"{prefix}t the call of `{helper.name}` ({where}{more})"
            if text:
                parts.append(text + f"\n\n{e.summary}")
        return "\n\n---\n\n".join(parts) or None


def helpers_of(pp: PreprocessResult, model: Model, entry: EntryPoint, path: str) -> tuple[Helper, ...]:
    """The functions `entry` reaches, other than its own, defined in `path`, with the rows (in
    `path`) of their calls from the functions it reaches."""
    reached = reachable_functions(model, entry)
    tree = model.tree
    calls: dict[str, list[int]] = {}
    for fn in reached:
        if fn.body is None:
            continue
        stack = [fn.body]
        while stack:
            node = stack.pop()
            if node.type == "call_expression":
                name = call_name(tree, node)
                if name is not None and name != fn.name:
                    row = _row(pp, tree.span(node), path)
                    if row is not None:
                        calls.setdefault(name, []).append(row)
            stack.extend(node.named_children)
    out = []
    for fn in reached:
        if fn is entry.function or fn.body is None:
            continue
        start, end = tree.span(fn.node)
        first, last = _row(pp, (start, start + 1), path), _row(pp, (max(start, end - 1), end), path)
        if first is None or last is None or last < first:
            continue
        out.append(Helper(fn.name, first, last, tuple(sorted(set(calls.get(fn.name, ()))))))
    return tuple(out)


def _row(pp: PreprocessResult, span: tuple[int, int], path: str) -> int | None:
    """The row in `path` where a span of the preprocessed text starts (None elsewhere)."""
    mapped = pp.sourcemap.map_range(span[0], max(span[1], span[0] + 1))
    src = pp.sources.get(mapped.path)
    if src is None or mapped.path != path:
        return None
    return src.location(mapped.start).row


def build_pressure_view(
    path: str, context: RuleContext, settings: Settings, only: Collection[str] | None = None
) -> PressureView | None:
    """The pressure view of a linted buffer, from the parse and model its lint already built
    (`context`; the analyses its rules made serve again); None when the analysis fails. With
    `only`, the entry points of those names alone (`view_after_relint`)."""
    model = context.model
    chosen = [ep for ep in model.entry_points if only is None or ep.name in only]
    try:
        if only is None:
            reports = analyse_model(path, context.pp, model, settings).reports
        else:  # the reports of each name, in the entry points' order
            named = {
                name: iter(analyse_model(path, context.pp, model, settings, entry=name).reports)
                for name in dict.fromkeys(ep.name for ep in chosen)
            }
            reports = [next(named[ep.name]) for ep in chosen]
    except Exception:  # the pressure view is an extra: never let it break the server
        log.exception("pressure analysis failed for %s", path)
        return None
    entries = []
    for r, ep in zip(reports, chosen, strict=True):
        occ = r.occupancy
        values = ", ".join(
            f"`{v.name}` ({v.vgprs} VGPR)" if v.vgprs else f"`{v.name}` ({v.sgprs} SGPR)"
            for v in r.peak_values[:12]
        )
        summary = (
            f"peak {r.max_live_vgprs} VGPRs / {r.max_live_sgprs} SGPRs → {occ.waves_per_simd}/"
            f"{occ.max_waves} waves per SIMD on {r.target} wave{r.wave_size} (limited by {occ.limiter})"
        )
        if r.demand_occupancy is not None:
            summary += f" after scheduling; {r.demand_occupancy.waves_per_simd} by demand"
        if not r.complete:
            summary += f"; {r.incomplete} (not in these figures)"
        rows = r.lines.get(path, {})
        peak_row = r.peak_row if r.peak_path == path else None
        try:
            helpers = helpers_of(context.pp, model, ep, path)
        except Exception:  # an extra as well
            log.exception("helper rows failed for %s", path)
            helpers = ()
        start, end = model.tree.span(ep.function.node)
        first, last = (
            _row(context.pp, (start, start + 1), path),
            _row(context.pp, (max(start, end - 1), end), path),
        )
        figures: dict[str, object] = {
            "name": r.entry,
            "stage": r.stage,
            "target": r.target,
            "waveSize": r.wave_size,
            "vgprs": r.max_live_vgprs,
            "sgprs": r.max_live_sgprs,
            "waves": occ.waves_per_simd,
            "maxWaves": occ.max_waves,
            "limiter": occ.limiter,
            "peakLine": peak_row - 1 if peak_row is not None else None,
            "complete": r.complete,
            "incomplete": r.incomplete or None,
        }
        entries.append(
            EntryLines(
                r.entry,
                summary,
                peak_row,
                values or "nothing",
                r.max_live_vgprs,
                rows,
                helpers,
                (first, last) if first is not None and last is not None else None,
                figures,
            )
        )
    return PressureView(path, tuple(entries))


def view_after_relint(
    path: str,
    context: RuleContext | None,
    settings: Settings,
    last: PressureView,
    shift: Callable[[int], int | None],
    analysed: Collection[str],
) -> PressureView | None:
    """The pressure view after an incremental lint, without building the unit again: the entry
    points it analysed whole (`analysed`, every function each runs) from its `context`, whose
    analyses its rules already made; every other one from the `last` view of the text it was
    compared with, its rows moved (`shift`): the edit changed nothing such an entry point runs.
    None when that cannot be done (an entry point missing from `last`, two of one name, or one
    with a row the edit touched): then the unit is built afresh."""
    old = {e.entry: e for e in last.entries}
    names = [ep.name for ep in context.model.entry_points] if context is not None else list(old)
    if len(set(names)) != len(names) or len(old) != len(last.entries):
        return None  # entry points by name: one of each
    fresh: dict[str, EntryLines] = {}
    redo = [n for n in names if n in analysed]
    if redo:
        assert context is not None
        part = build_pressure_view(path, context, settings, only=frozenset(redo))
        if part is None or len(part.entries) != len(redo):
            return None
        fresh = {e.entry: e for e in part.entries}
    entries = []
    for name in names:
        got = fresh.get(name)
        if got is None:
            kept = old.get(name)
            got = _moved(kept, shift) if kept is not None else None
        if got is None:
            return None
        entries.append(got)
    return PressureView(path, tuple(entries))


def _moved(e: EntryLines, shift: Callable[[int], int | None]) -> EntryLines | None:
    """`e` with its rows where `shift` puts them; None when one of them has no place."""
    rows: dict[int, tuple[int, int]] = {}
    for row, counts in e.rows.items():
        at = shift(row)
        if at is None:
            return None
        rows[at] = counts
    peak = shift(e.peak_row) if e.peak_row is not None else None
    if e.peak_row is not None and peak is None:
        return None
    helpers = []
    for h in e.helpers:
        first, last, calls = shift(h.first), shift(h.last), [shift(r) for r in h.calls]
        if first is None or last is None or None in calls:
            return None
        helpers.append(Helper(h.name, first, last, tuple(r for r in calls if r is not None)))
    own = e.rows_of_entry
    if own is not None:
        first, last = shift(own[0]), shift(own[1])
        if first is None or last is None:
            return None
        own = (first, last)
    figures = dict(e.figures)
    if peak is not None:
        figures["peakLine"] = peak - 1
    return dataclasses.replace(
        e, peak_row=peak, rows=rows, helpers=tuple(helpers), rows_of_entry=own, figures=figures
    )
