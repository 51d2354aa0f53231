"""Macro definitions, preprocessor diagnostics, and recorded header expansions.

A header's expansion is recorded with every question it asked of the state it was entered
in (`Expansion`) and kept per process, per (path, text, include dirs), so that the next
include of the header under the same answers replays it instead of expanding it again
(`engine.Preprocessor` records and replays; this module holds what is kept).
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from hlsllint.preprocess.lexer import Token


@dataclass(frozen=True)
class Macro:
    name: str
    params: tuple[str, ...] | None
    """None for an object-like macro."""
    variadic: bool
    body: tuple[Token, ...]
    path: str = ""
    start: int = 0
    builtin: bool = False
    ids: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    """The identifiers of the body (the names its expansion can look up)."""


def same_macro(a: Macro | None, b: Macro | None) -> bool:
    """Whether two definitions expand alike (where they were written does not matter)."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    if a.params != b.params or a.variadic != b.variadic or a.builtin != b.builtin:
        return False
    if len(a.body) != len(b.body):
        return False
    return all(
        x.kind == y.kind and x.text == y.text and x.ws == y.ws for x, y in zip(a.body, b.body, strict=True)
    )


@dataclass(frozen=True)
class Diag:
    code: str
    message: str
    path: str
    start: int
    end: int


@dataclass(frozen=True, eq=False)
class Expansion:
    """What expanding one header did, and everything that made it come out that way.

    Reused when the current state gives the same answer to every question the expansion asked:
    the definition (or absence) of every name it could have looked up (a superset: the
    identifiers of every file it read and of every macro body it expanded, pasted names and
    include guards), whether each include target was already `#pragma once`d, included, or on
    the include stack, and what every include probe and file read found.
    """

    defined: tuple[tuple[str, Macro], ...]
    """Names it could look up that were macros when the header was entered, and their definitions."""
    undefined: frozenset[str]
    """Names it could look up that were not macros then."""
    names: frozenset[str]
    paths: tuple[tuple[str, bool, bool, bool], ...]
    """Include targets consulted: (path, in `_once`, included already, on the stack) on entry."""
    io: tuple[tuple[str, bool | str], ...]
    depth: int
    """The deepest include-stack check, relative to the stack on entry (-1: none)."""
    # What it did:
    writes: tuple[tuple[str, Macro | None], ...]
    """Macros it defined (or undefined: None), with their definitions at its end."""
    once: tuple[str, ...]
    sources: tuple[str, ...]
    diagnostics: tuple[Diag, ...]
    text: str
    segs: tuple[tuple[int, int, str, int, int, str], ...]
    """Output segments, offsets relative to the start of `text`."""
    inclusions: int
    tokens: int


def relative_segment(seg: list[Any], base: int) -> tuple[int, int, str, int, int, str]:
    a, b, p, s, e, k = seg
    return a - base, b - base, p, s, e, k


EXPANSIONS: OrderedDict[tuple[str, str, tuple[str, ...]], list[Expansion]] = OrderedDict()
"""Recorded header expansions, per (path, text, include dirs), most recently used last."""
_CONTEXTS_PER_FILE = 8
"""Different expansions kept per header (the macro states it is included under)."""
_EXPANSION_BUDGET = 48_000_000
"""Rough bound on what the recorded expansions hold (text characters, plus a few dozen per
segment, name and probe); the least recently used headers go first."""
_expansions_size = 0


def _cost(exp: Expansion) -> int:
    size = len(exp.segs) + len(exp.defined) + len(exp.undefined) + len(exp.io) + len(exp.paths)
    return len(exp.text) + 48 * size


def store_expansion(key: tuple[str, str, tuple[str, ...]], exp: Expansion) -> None:
    global _expansions_size
    entries = EXPANSIONS.setdefault(key, [])
    entries.insert(0, exp)
    _expansions_size += _cost(exp)
    for old in entries[_CONTEXTS_PER_FILE:]:
        _expansions_size -= _cost(old)
    del entries[_CONTEXTS_PER_FILE:]
    with contextlib.suppress(KeyError):  # another thread's store may have evicted it
        EXPANSIONS.move_to_end(key)
    while _expansions_size > _EXPANSION_BUDGET and len(EXPANSIONS) > 1:
        _, evicted = EXPANSIONS.popitem(last=False)
        _expansions_size -= sum(_cost(e) for e in evicted)


def drop_expansion(key: tuple[str, str, tuple[str, ...]], exp: Expansion) -> None:
    global _expansions_size
    entries = EXPANSIONS.get(key, [])
    for i, e in enumerate(entries):
        if e is exp:
            del entries[i]
            _expansions_size -= _cost(exp)
            return


def clear_expansions() -> None:
    global _expansions_size
    EXPANSIONS.clear()
    _expansions_size = 0
