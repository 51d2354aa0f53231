"""The preprocessor's output as it is written: the expanded text in pieces and the segments that
map it back to the files (`sourcemap.SourceMap`)."""

from __future__ import annotations

from hlsllint.preprocess.sourcemap import Segment, SourceMap


class Output:
    """The expanded text and its segments; adjacent pieces are merged when they continue."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        # [out_start, out_end, path, src_start, src_end, kind] with kind "v", "m" or "b" (blank)
        self.segs: list[list[object]] = []
        self.pos = 0

    def verbatim(self, path: str, text: str, s: int, e: int) -> None:
        if e <= s:
            return
        self.parts.append(text[s:e])
        segs = self.segs
        if segs:
            last = segs[-1]
            if last[5] == "v" and last[4] == s and last[2] == path:
                last[1] = self.pos + e - s
                last[4] = e
                self.pos += e - s
                return
        segs.append([self.pos, self.pos + e - s, path, s, e, "v"])
        self.pos += e - s

    def generated(self, path: str, out: str, s: int, e: int) -> None:
        if not out:
            return
        self.parts.append(out)
        self.segs.append([self.pos, self.pos + len(out), path, s, e, "m"])
        self.pos += len(out)

    def blank(self, path: str, text: str, s: int, e: int) -> None:
        n = text.count("\n", s, e) if e > s else 0
        if n == 0:
            return
        self.parts.append("\n" * n)
        segs = self.segs
        if segs:
            last = segs[-1]
            if last[5] == "b" and last[2] == path and last[4] == s and last[1] == self.pos:
                last[1] = self.pos + n
                last[4] = e
                self.pos += n
                return
        segs.append([self.pos, self.pos + n, path, s, e, "b"])
        self.pos += n

    def result(self, main_path: str) -> tuple[str, SourceMap]:
        if not self.segs:
            return "", SourceMap([Segment(0, 0, main_path, 0, 0, True)])
        new = tuple.__new__
        segments = [new(Segment, (a, b, p, s, e, k == "v")) for a, b, p, s, e, k in self.segs]
        return "".join(self.parts), SourceMap(segments)
