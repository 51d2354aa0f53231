"""Mapping from the preprocessed (expanded) text back to original files.

The expanded text is a concatenation of segments. A *verbatim* segment is a run of characters
copied one-to-one from an original file; a *macro* segment is text produced by a macro expansion
and maps, as a whole, to the invocation's range in the file where the macro was used.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass


@dataclass(frozen=True)
class Segment:
    out_start: int
    out_end: int
    path: str
    src_start: int
    src_end: int
    verbatim: bool


@dataclass(frozen=True)
class MappedRange:
    path: str
    start: int
    end: int
    exact: bool
    """True when the whole range is verbatim text of one file: edits there can be written back."""


class SourceMap:
    def __init__(self, segments: list[Segment]) -> None:
        self.segments = sorted(segments, key=lambda s: s.out_start)
        self._starts = [s.out_start for s in self.segments]

    @classmethod
    def identity(cls, path: str, length: int) -> SourceMap:
        return cls([Segment(0, length, path, 0, length, True)])

    def segment_at(self, out_offset: int) -> Segment | None:
        i = bisect.bisect_right(self._starts, out_offset) - 1
        if i < 0:
            return None
        seg = self.segments[i]
        if out_offset >= seg.out_end and not (out_offset == seg.out_end and i == len(self.segments) - 1):
            # In a gap (should not happen) or exactly at the end of a segment: use the next one.
            if i + 1 < len(self.segments):
                return self.segments[i + 1]
        return seg

    def map_offset(self, out_offset: int) -> tuple[str, int, bool]:
        seg = self.segment_at(out_offset)
        if seg is None:
            raise ValueError("empty source map")
        if seg.verbatim:
            return seg.path, seg.src_start + min(out_offset - seg.out_start, seg.src_end - seg.src_start), True
        return seg.path, seg.src_start, False

    def map_range(self, out_start: int, out_end: int) -> MappedRange:
        first = self.segment_at(out_start)
        if first is None:
            raise ValueError("empty source map")
        last = self.segment_at(max(out_start, out_end - 1))
        assert last is not None
        start = (
            first.src_start + (out_start - first.out_start) if first.verbatim else first.src_start
        )
        if last.path != first.path:
            # The range crosses an #include boundary: clamp it to the file it starts in.
            end = first.src_end if first.verbatim else first.src_end
            return MappedRange(first.path, start, max(start, end), False)
        if last.verbatim:
            end = last.src_start + (max(out_start, out_end - 1) - last.out_start) + (1 if out_end > out_start else 0)
        else:
            end = last.src_end
        exact = first is last and first.verbatim
        if not exact and first.verbatim and last.verbatim:
            # Several verbatim segments of one file: exact if they are contiguous in the source.
            i, j = self.segments.index(first), self.segments.index(last)
            run = self.segments[i : j + 1]
            exact = all(
                s.verbatim and s.path == first.path for s in run
            ) and all(a.src_end == b.src_start and a.out_end == b.out_start for a, b in zip(run, run[1:], strict=False))
        return MappedRange(first.path, start, max(start, end), exact)
