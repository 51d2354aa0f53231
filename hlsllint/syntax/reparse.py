"""tree-sitter's parse of a normalised text, and its incremental parse from an earlier tree: the
editor's last version (`parse_reparsing`) or the unit this thread parsed last, when the two share
a long stretch such as an engine's header chain (`parse_reusing`); `STATS` counts both."""

from __future__ import annotations

import threading

import tree_sitter

from hlsllint.deadline import Deadline
from hlsllint.syntax.grammar import thread_parser

_local = threading.local()
"""This thread's last text and tree (`parse_reusing`)."""


class ParseStats:
    """How many parses of this process reused an earlier tree: the one passed as
    `parse(previous=...)` (`reparsed`), or the tree this thread parsed last, of another unit
    sharing a long stretch of text (`from_last_unit`, with the bytes they shared in
    `shared_bytes`)."""

    def __init__(self) -> None:
        self.reparsed = 0
        self.from_last_unit = 0
        self.shared_bytes = 0


STATS = ParseStats()


_CHUNK = 1 << 16


REUSE_MIN = 1 << 14
"""Bytes an earlier text must share with the next one (a long stretch of the same header chain,
as every shader of an engine expands), and half of the next one at least, for its tree to be
edited into the next parse (kajiya's units, a quarter shared, parsed 0.52 s afresh, 0.66 s so)."""


def parse_reparsing(
    old: bytes | None, old_tree: tree_sitter.Tree, data: bytes, deadline: Deadline
) -> tree_sitter.Tree:
    """`parse_bytes` from `old_tree`, the tree of the text `old` (the editor's last version, None
    when that tree cannot be reused), edited into `data`."""
    tree = None
    if old is not None:
        tree = _parse_edited(data, deadline, _edited(old, old_tree, data))
    if tree is None:
        return parse_bytes(data, deadline)
    STATS.reparsed += 1
    return tree


def _parse_edited(data: bytes, deadline: Deadline, old: tree_sitter.Tree) -> tree_sitter.Tree | None:
    """tree-sitter's incremental parse of `data` from `old` (an earlier tree edited into `data`'s
    coordinates); None when the result has errors, which a fresh parse must give instead (error
    recovery need not give the same tree for the same text when it starts from another)."""
    tree = parse_bytes(data, deadline, old)
    return None if tree.root_node.has_error else tree


def parse_reusing(data: bytes, deadline: Deadline) -> tree_sitter.Tree:
    """`parse_bytes`, starting from the tree this thread parsed last when the two texts share a
    long stretch (a translation unit's expansion is mostly the header chain every unit of an
    engine includes): the old tree is edited where the texts differ and tree-sitter reuses the
    subtrees of the rest (its incremental parse), so only what changed is parsed again. As with
    `parse(previous=...)`, a tree with errors, before or after, is parsed afresh. SpartanEngine,
    72 units, compiled: 3.5 s of parsing afresh against 2.2 s so (CPU, the fastest of three)."""
    previous: tuple[bytes, tree_sitter.Tree] | None = getattr(_local, "previous", None)
    _local.previous = None  # a stopped parse leaves nothing behind
    edited = None
    if previous is not None and not previous[1].root_node.has_error:
        edited = _edited_around(previous[0], previous[1], data)
    tree = _parse_edited(data, deadline, edited[0]) if edited is not None else None
    if edited is not None and tree is not None:
        STATS.from_last_unit += 1
        STATS.shared_bytes += edited[1]
    if tree is None:
        tree = parse_bytes(data, deadline)
    _local.previous = (data, tree)
    return tree


def _edited_around(old: bytes, old_tree: tree_sitter.Tree, new: bytes) -> tuple[tree_sitter.Tree, int] | None:
    """A copy of `old_tree` (the tree of `old`) edited into `new`'s coordinates around the
    longest stretch the two texts share, and how many bytes they share; None when that is less
    than `REUSE_MIN` or than half of `new`.

    The texts are taken as `P H S` and `P' H S'` (the main file's lines up to its first include,
    the header chain, the rest): `H` is found from one 64-byte probe of `old` looked up in `new`,
    a few kilobytes past their common prefix, and grown both ways; a probe that lands elsewhere
    only finds less to share."""
    prefix = _shared_prefix(old, 0, new, 0)
    best = (prefix, prefix, 0)  # start in old, start in new, length
    for distance in (256, 2048, 16384):
        probe = prefix + distance
        if probe + 64 > len(old):
            break
        found = new.find(old[probe : probe + 64], prefix)
        if found < 0:
            continue
        back = _shared_suffix(old, probe, new, found, min(probe, found) - prefix)
        length = back + _shared_prefix(old, probe, new, found)
        if length > best[2]:
            best = (probe - back, found - back, length)
        if 2 * best[2] > len(new):
            break
    old_start, new_start, length = best
    old_end, new_end = old_start + length, new_start + length
    suffix = _shared_suffix(old, len(old), new, len(new), min(len(old) - old_end, len(new) - new_end))
    if length == 0:  # no middle: one edit between the common prefix and the common suffix
        suffix = _shared_suffix(old, len(old), new, len(new), min(len(old), len(new)) - prefix)
    shared = prefix + length + suffix
    if shared < REUSE_MIN or 2 * shared < len(new):  # less is parsed faster afresh
        return None
    tree = old_tree.copy()  # the old tree stays as it is: another unit's SyntaxTree holds it
    if length == 0:
        _edit(tree, old, new, prefix, len(old) - suffix, len(new) - suffix)
        return tree, shared
    _edit(tree, old, new, prefix, old_start, new_start)
    # The text is now new[:new_end] + old[old_end:]: replace what follows the shared stretch.
    start = _point(new, new_end)
    tree.edit(
        start_byte=new_end,
        old_end_byte=new_end + (len(old) - suffix - old_end),
        new_end_byte=len(new) - suffix,
        start_point=start,
        old_end_point=_advance(start, old[old_end : len(old) - suffix]),
        new_end_point=_point(new, len(new) - suffix),
    )
    return tree, shared


def _edit(tree: tree_sitter.Tree, old: bytes, new: bytes, start: int, old_end: int, new_end: int) -> None:
    """`old[start:old_end]` (`old[:start]` is `new[:start]`) became `new[start:new_end]`."""
    tree.edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=_point(new, start),
        old_end_point=_point(old, old_end),
        new_end_point=_point(new, new_end),
    )


def _advance(point: tuple[int, int], chunk: bytes) -> tuple[int, int]:
    """The point after `chunk` written at `point`."""
    rows = chunk.count(b"\n")
    if rows:
        return point[0] + rows, len(chunk) - chunk.rfind(b"\n") - 1
    return point[0], point[1] + len(chunk)


def _shared_prefix(a: bytes, a0: int, b: bytes, b0: int) -> int:
    """The largest n with `a[a0:a0 + n] == b[b0:b0 + n]` (slices compared in C, the length
    found by galloping and bisection)."""
    hi = min(len(a) - a0, len(b) - b0)
    lo = 0
    step = 64
    while lo < hi:
        n = min(hi, lo + step)
        if a[a0 + lo : a0 + n] != b[b0 + lo : b0 + n]:
            hi = n - 1
            break
        lo = n
        step *= 2
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[a0 + lo : a0 + mid] == b[b0 + lo : b0 + mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _shared_suffix(a: bytes, a1: int, b: bytes, b1: int, limit: int) -> int:
    """The largest n <= `limit` with `a[a1 - n:a1] == b[b1 - n:b1]`."""
    lo, hi = 0, max(0, min(limit, a1, b1))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[a1 - mid : a1] == b[b1 - mid : b1]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def parse_bytes(data: bytes, deadline: Deadline, old: tree_sitter.Tree | None = None) -> tree_sitter.Tree:
    """tree-sitter's parse (reusing `old`, edited to `data`'s text, when given), stopped when
    `deadline` is due (its progress hook is asked every hundred bytes or so, at no measurable
    cost: 1 MB, 1.24 s either way)."""
    parser = thread_parser()

    def read(offset: int, _point: tree_sitter.Point) -> bytes:
        return data[offset : offset + _CHUNK]

    def stop(_offset: int, _has_error: bool) -> bool:
        return deadline.due()

    try:
        if old is None:
            return parser.parse(read, progress_callback=stop)
        return parser.parse(read, old_tree=old, progress_callback=stop)
    except ValueError:  # stopped: the next parse must start afresh
        parser.reset()
        deadline.check()
        raise


def _edited(old: bytes, old_tree: tree_sitter.Tree, data: bytes) -> tree_sitter.Tree:
    """A copy of `old_tree` (the tree of `old`) told that its text became `data`: one replaced
    range, from the first byte that differs to the last (the common prefix and suffix, which may
    not overlap)."""
    start = _shared_prefix(old, 0, data, 0)
    suffix = _shared_suffix(old, len(old), data, len(data), min(len(old), len(data)) - start)
    tree = old_tree.copy()
    _edit(tree, old, data, start, len(old) - suffix, len(data) - suffix)
    return tree


def _point(data: bytes, offset: int) -> tuple[int, int]:
    """tree-sitter's (row, byte column) of a byte offset."""
    return data.count(b"\n", 0, offset), offset - (data.rfind(b"\n", 0, offset) + 1)
