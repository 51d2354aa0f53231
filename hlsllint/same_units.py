"""Identical translation units of a run are analysed once: `SameUnits` keeps the findings of
the units linted so far by everything that reaches them (the lint driver asks it before the
analysis and tells it after)."""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace

from hlsllint import preprocess as pp_stage
from hlsllint.context import AnalysisSettings
from hlsllint.diagnostics import Diagnostic

Key = tuple[object, ...]


class SameUnits:
    """The findings of the units linted so far in one run, by everything that reaches them, so
    that a unit identical to an earlier one is not analysed again (engine samples carry copies of
    the same shaders).

    The key is taken after preprocessing, which every unit still does itself (its HL002-HL005
    findings, the files it read and the paths it probed are its own): the expanded text; its
    source map, each file named by its position in the unit's source list; each file's content
    and encoding; the included files; and what the analysis is told (its settings, the variant's
    name, the enabled rules and their options, the time budget). A unit with the same key takes
    the earlier unit's findings with every path moved to the file at the same position of its own
    list. The analysis sees paths only to name a file in a message (HL201 and HL204 print a
    header's base name): where a file's base name differs and a finding's text holds the earlier
    one, the unit is analysed afresh. Results with a crashed rule, or cut short by the time
    budget, are not kept."""

    def __init__(self) -> None:
        self._found: dict[Key, tuple[str, list[str], list[Diagnostic]]] = {}

    @staticmethod
    def key(
        pp: pp_stage.PreprocessResult,
        analysis: AnalysisSettings,
        variant: str | None,
        rules: Sequence[tuple[str, tuple[tuple[str, object], ...]]],
        time_budget: float,
    ) -> Key:
        """The key itself, not a digest of it: the texts' hashes are computed once per string
        and the dictionary compares keys for equality, so two units match only when identical."""
        index = {p: i for i, p in enumerate(pp.sources)}
        files = tuple((s.text, s.decode_errors, s.encoding) for s in pp.sources.values())
        segments = tuple(
            (s.out_start, s.out_end, index.get(s.path, s.path), s.src_start, s.src_end, s.verbatim)
            for s in pp.sourcemap.segments
        )
        included = tuple(index.get(p, p) for p in pp.included)
        told = repr((analysis, variant, rules, time_budget))  # rule options may hold lists
        return (pp.text, files, segments, included, told)

    @staticmethod
    def state_key(
        pp: pp_stage.PreprocessResult,
        main: str,
        analysis: AnalysisSettings,
        variant: str | None,
        rules: Sequence[tuple[str, tuple[tuple[str, object], ...]]],
        time_budget: float,
    ) -> Key:
        """The key of a unit cut after a header (`PreprocessOptions.stop_after`) by the state that
        header is analysed in, rather than by the whole unit: units whose cut texts differ only
        in the main file's comments and blanks (the licence block above the `#include`) share it.
        The main file's text counts by its tokens, each with whether a line break comes before it
        (a `#pragma` line ends there); the other files by their content and the segments of
        them the text holds; macro expansions by their text. Only the findings outside the main
        file are reused (`lint.py` keeps no other of such a unit)."""
        text = pp.text
        out = [pp_stage.segment_state(text, s, s.path == main) for s in pp.sourcemap.segments]
        files = tuple((p, f.text, f.decode_errors, f.encoding) for p, f in pp.sources.items() if p != main)
        included = tuple(p for p in pp.included if p != main)
        told = repr((analysis, variant, rules, time_budget))
        return ("state", tuple(out), files, included, told)

    def put(self, unit: str, key: Key, pp: pp_stage.PreprocessResult, found: list[Diagnostic]) -> None:
        self._found.setdefault(key, (unit, list(pp.sources), found))

    def get(self, key: Key, pp: pp_stage.PreprocessResult) -> tuple[str, list[Diagnostic]] | None:
        """(the earlier unit, its findings moved onto the files of `pp`), if there is one."""
        hit = self._found.get(key)
        if hit is None:
            return None
        unit, paths, found = hit
        to = dict(zip(paths, pp.sources, strict=True))
        names = {os.path.basename(a) for a, b in to.items() if os.path.basename(a) != os.path.basename(b)}
        if names and any(name in _text_of(d) for d in found for name in names):
            return None
        return unit, [_moved(d, to) for d in found]


def _text_of(d: Diagnostic) -> str:
    """Every text of a finding that a rule wrote (where a file's name could appear)."""
    fix = [d.fix.message, *(e.content for e in d.fix.edits)] if d.fix else []
    return "\0".join(
        [d.message, d.help or "", *d.notes, *(r.message for r in d.related), *fix, repr(d.extra)]
    )


def _moved(d: Diagnostic, to: Mapping[str, str]) -> Diagnostic:
    """A copy of `d` with every path it names replaced by `to[path]`."""
    fix = d.fix
    if fix is not None:
        fix = replace(fix, edits=tuple(replace(e, path=to[e.path]) for e in fix.edits))
    related = tuple(replace(r, path=to[r.path]) for r in d.related)
    return replace(d, path=to[d.path], fix=fix, related=related, extra=copy.deepcopy(d.extra))
