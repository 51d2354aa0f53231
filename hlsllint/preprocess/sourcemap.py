"""Mapping from the preprocessed (expanded) text back to original files.

The expanded text is a concatenation of segments. A *verbatim* segment is a run of characters
copied one-to-one from an original file; a *macro* segment is text produced by a macro expansion
and maps, as a whole, to the invocation's range in the file where the macro was used.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple


class Segment(NamedTuple):
    """A named tuple: a unit has thousands, and a tuple is made several times faster than a
    frozen dataclass."""

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
        self.segments = sorted(segments, key=itemgetter(0))
        self._starts = [s.out_start for s in self.segments]

    @classmethod
    def identity(cls, path: str, length: int) -> SourceMap:
        return cls([Segment(0, length, path, 0, length, True)])

    def _index_at(self, out_offset: int) -> int:
        """Index of the segment holding `out_offset` (an offset at a boundary belongs to the
        segment that starts there; the end of the text belongs to the last segment)."""
        if not self.segments:
            raise ValueError("empty source map")
        i = bisect.bisect_right(self._starts, out_offset) - 1
        if i < 0:
            return 0
        # Skip empty segments and gaps (neither is produced by the preprocessor).
        while out_offset >= self.segments[i].out_end and i + 1 < len(self.segments):
            i += 1
        return i

    def segment_at(self, out_offset: int) -> Segment | None:
        if not self.segments:
            return None
        return self.segments[self._index_at(out_offset)]

    def map_offset(self, out_offset: int) -> tuple[str, int, bool]:
        """(path, offset, verbatim) of one offset of the expanded text."""
        seg = self.segments[self._index_at(out_offset)]
        if seg.verbatim:
            delta = min(max(0, out_offset - seg.out_start), seg.src_end - seg.src_start)
            return seg.path, seg.src_start + delta, True
        return seg.path, seg.src_start, False

    def map_range(self, out_start: int, out_end: int) -> MappedRange:
        """The original range of `text[out_start:out_end]`.

        Macro text maps to the whole invocation; a range that leaves the file it starts in (it
        crosses an #include) is clamped to that file's part.
        """
        i = self._index_at(out_start)
        j = self._index_at(max(out_start, out_end - 1))
        first, last = self.segments[i], self.segments[j]
        if first.verbatim:
            start = first.src_start + min(
                max(0, out_start - first.out_start), first.src_end - first.src_start
            )
        else:
            start = first.src_start
        if last.path != first.path:
            return MappedRange(first.path, start, max(start, first.src_end), False)
        if out_end <= out_start:
            end = start if first.verbatim else first.src_end
        elif last.verbatim:
            end = last.src_start + min(out_end - last.out_start, last.src_end - last.src_start)
        else:
            end = last.src_end
        exact = True
        for k in range(i, j + 1):
            seg = self.segments[k]
            if not seg.verbatim or seg.path != first.path:
                exact = False
                break
            if k > i and self.segments[k - 1].src_end != seg.src_start:
                exact = False
                break
        return MappedRange(first.path, start, max(start, end), exact)
