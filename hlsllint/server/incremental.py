"""Re-linting an edited document: analyse what the edit can change, reuse the rest.

The last lint of a document leaves a `Snapshot`: its text, its findings (before `noqa`), the
files its unit read, and the unit's top-level functions: where each sits in its file and which
top-level names (functions, globals, cbuffer members, types) its text mentions.

An edit inside one function body of the document (no `#` in the removed or inserted text; in
that body at most conditional directives, `#if` ... `#endif`, which stay when it is blanked) can
only change the findings of the functions the edit reaches (`affected`): the edited one, the
functions calling it up to their entry points, everything those call, and the functions sharing
a global one of them may write. Every other function body of the unit, in the document and in
its headers, is blanked (spaces, lines kept, so every offset and line stays where it was; a
function that is not an entry point and that no code left names goes whole) and the unit is
linted again; the blanked functions keep the findings they had, moved by the edit (a header's are never
published). An engine header of thousands of lines that every function reads through one
cbuffer is so left out but for what the edited function calls. A finding on a top-level
declaration goes with the functions that mention the names it declares. The identifiers of
blanked bodies (macros expanded) go in a comment at the end of the text, so that rules naming a
fresh variable see the unit's words. When the edit adds or removes lines, a function whose
findings quote a number that could be a moved line is analysed again too (rules name a peak or a
loop by its line in their messages).

Anything this cannot vouch for is linted from scratch instead (`None`): code the grammar cannot
read (its error recovery need not stay inside one function), the edit outside a single body, a
directive, comment or string delimiter at the edit, a header changed on disk or an include now
found, several variants, the blanked unit's functions or entry points not the expected ones, an edited
body that now calls a function or touches a global the analysis left out, a crash or a time
budget, a finding on a declaration that names both analysed and reused functions
and differs from the reused one, or a fix that writes an identifier absent from the text (a fresh
name, chosen across the unit).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from dataclasses import dataclass
from typing import Any

from hlsllint.analysis.lowering_reuse import LoweringReuse
from hlsllint.config import Settings, Variant
from hlsllint.context import RuleContext
from hlsllint.deadline import current
from hlsllint.diagnostics import Diagnostic, Edit, Fix, Related
from hlsllint.lint import FileLoader, UnitResult, lint_unit, no_collection
from hlsllint.semantic.types import parse_numeric
from hlsllint.server.unit_functions import (
    IDENT,
    Func,
    StructureMemo,
    affected,
    declared,
    entry_names,
    goes_whole,
    held_functions,
    structure,
    structure_memo,
    top_level_names,
    writable_globals,
)
from hlsllint.source import Location, SourceError, SourceFile
from hlsllint.syntax import SyntaxTree

_WORDS = "\n\n// "
"""What starts the comment at the end of a blanked unit (the last such text in it)."""
_NUMBER = re.compile(r"\d+")


@dataclass
class Snapshot:
    """What the last lint of a document leaves for the next edit."""

    path: str
    text: str
    settings: Settings
    variant: Variant | None
    functions: list[Func]
    names: frozenset[str]
    unit_text: str
    """The unit's expanded text."""
    files: dict[str, SourceFile]
    """The unit's other files, as read."""
    missing: tuple[str, ...]
    findings: list[Diagnostic]
    """The document's findings before `noqa` (once each)."""
    entries: list[str] = dataclasses.field(default_factory=list)
    """The unit's entry points, in order."""
    decls: list[Func] = dataclasses.field(default_factory=list)
    """The document's other top-level declarations."""
    shared: frozenset[str] = frozenset()
    """The globals through which one function can change what another sees (written ones:
    statics, groupshared, writable resources; see `writable_globals`)."""
    tree: SyntaxTree | None = None
    """The last relint's tree of its blanked unit: the next one's, blanked alike but for the
    edit, is parsed again only where it differs (not kept from a lint from scratch, whose text
    is not blanked)."""
    lowering: LoweringReuse | None = None
    """The last relint's CFG lowering: the next one replays the inlined bodies that lie before
    the edit and read nothing it changed (`hlsllint.analysis.lowering_reuse`)."""
    prepared: dict[tuple[bool, ...], Basis] = dataclasses.field(default_factory=dict)
    """Per blanking (which functions are analysed, as `affected` marks them), the latest tree and
    lowering of a unit blanked so (a relint's, or `prepare`'s): a relint whose edit blanks the
    unit as one of them did starts from it (the tree of a unit blanked otherwise shares little
    with it, and a lowering none: the bodies around the edit differ). The last relint's is there
    too, under its own blanking; at most `PREPARED` of them."""


@dataclass
class Basis:
    """What a relint starts from: the tree of an earlier blanked unit (parsed again only where
    the new one differs) and its lowering (replayed where the bridge allows). Either may be None."""

    tree: SyntaxTree | None
    lowering: LoweringReuse | None
    structure: StructureMemo | None = None
    """What the relint's structure pass found in that unit (`unit_functions.StructureMemo`)."""


PREPARED = 4
"""Blankings whose latest basis a snapshot keeps (`Snapshot.prepared`)."""


@dataclass(frozen=True)
class RowShift:
    """Where a row (1-based) of the last text is in the new one: the edit replaced the text
    between rows `first` and `last`, which now end `delta` rows further down. A row the edit
    touches is nowhere (None) unless the edit removed and inserted no line break."""

    first: int
    last: int
    delta: int
    same_lines: bool

    def __call__(self, row: int) -> int | None:
        if self.same_lines or row < self.first:
            return row
        return row + self.delta if row > self.last else None


NO_SHIFT = RowShift(0, 0, 0, True)


@dataclass
class Relint:
    findings: list[Diagnostic]
    sources: dict[str, SourceFile]
    snapshot: Snapshot
    analysed: int
    """How many of the unit's functions were analysed again."""
    context: RuleContext | None = None
    """The blanked unit's parse, model and analyses (None when nothing was linted again)."""
    entries: frozenset[str] = frozenset()
    """The entry points `context` holds whole (each one and all it runs analysed again): their
    analyses are a fresh lint's; the others' bodies may be blanked there, and did not change."""
    basis: str = ""
    """The last text (the snapshot's) this one was compared with."""
    shift: RowShift = NO_SHIFT
    """Where the rows of `basis` are in the new text."""
    started: Basis | None = None
    """The tree and lowering the lint started from (`Snapshot.prepared`)."""


def snapshot(
    ctx: RuleContext,
    path: str,
    text: str,
    settings: Settings,
    variant: Variant | None,
    findings: list[Diagnostic],
) -> Snapshot | None:
    if any("__COUNTER__" in src.text for src in ctx.pp.sources.values()):
        return None  # its value depends on every earlier use in the unit
    if ctx.tree.unparsed or ctx.tree.too_deep or any(d.code == "HL006" for d in findings):
        return None  # the grammar's error recovery need not stay inside one function; a partial run
    held = held_functions(ctx)
    names = top_level_names(ctx, held)
    found = structure(ctx, names, held=held)
    if found is None:
        return None
    functions, decls = found
    files = {os.path.normpath(p): s for p, s in ctx.pp.sources.items() if os.path.normpath(p) != path}
    return Snapshot(
        path,
        text,
        settings,
        variant,
        functions,
        names,
        ctx.tree.text,
        files,
        tuple(ctx.pp.missing),
        list(findings),
        entry_names(ctx),
        [d for d in decls if d.path == path],
        writable_globals(ctx),
    )


@dataclass(frozen=True)
class _Change:
    """The edit as one replaced range of the document: old [start, old_end) -> new [start, new_end)."""

    start: int
    old_end: int
    new_end: int

    @property
    def delta(self) -> int:
        return self.new_end - self.old_end


def _diff(old: str, new: str) -> _Change:
    p = _common_prefix(old, new)
    s = _common_prefix(old[p:][::-1], new[p:][::-1])
    return _Change(p, len(old) - s, len(new) - s)


def _common_prefix(a: str, b: str, step: int = 4096) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i : i + step] == b[i : i + step]:
        i += step
    stop = min(i + step, n)
    while i < stop and a[i] == b[i]:
        i += 1
    return min(i, n)


last_reason = ""
"""Why the last `relint` gave up (for the log, tests and the bench)."""


def _give_up(reason: str) -> Relint | None:
    global last_reason
    last_reason = reason
    return None


def relint(snap: Snapshot, text: str) -> Relint | None:
    """Lint the document's new `text` by analysing only what the edit can change; None when
    a from-scratch lint is needed (see the module docstring).

    The cyclic garbage collector waits until the lint's objects are gone: they live until it
    returns (then reference counting frees them), so a collection in the middle only walks them
    all in vain (SpartanEngine `g_buffer`, whose CFG inlines 214 functions: one collection of
    50-70 ms on every edit)."""
    with no_collection():
        return _relint(snap, text)


def _relint(snap: Snapshot, text: str) -> Relint | None:
    path = snap.path
    if text == snap.text:  # back to the last text that could serve (a typo undone)
        same = _current_files(snap)
        if same is None:
            return _give_up("an included file changed or appeared")
        sources = {**same, path: SourceFile(path=path, text=text)}
        return Relint(list(snap.findings), sources, snap, 0, basis=snap.text)
    change = _diff(snap.text, text)
    removed, inserted = snap.text[change.start : change.old_end], text[change.start : change.new_end]
    if _risky(snap.text, change.start, change.old_end) or _risky(text, change.start, change.new_end):
        return _give_up("a directive, comment or string delimiter at the edit")
    edited = [
        i
        for i, f in enumerate(snap.functions)
        if f.path == path and f.body is not None and f.body[0] <= change.start and change.old_end <= f.body[1]
    ]
    if len(edited) != 1:
        return _give_up("the edit is not inside one function body")
    files = _current_files(snap)
    if files is None:
        return _give_up("an included file changed or appeared")
    old_src, new_src = SourceFile(path=path, text=snap.text), SourceFile(path=path, text=text)
    lines_moved = removed.count("\n") != inserted.count("\n")
    seeds = set(edited)
    if lines_moved:
        # Lines below the edit moved: a function whose findings quote a number that may be one
        # of those lines (rules name peaks and loops by line) is analysed again.
        row = old_src.location(change.start).row
        for dg in snap.findings:
            i = _owner(snap.functions, path, dg.start_offset)
            if i is not None and _quotes_row_from(dg, row):
                seeds.add(i)
    # The names the edit types may call functions or write globals the old body did not: every
    # identifier the new text has at the edit, whole (a letter typed or deleted completes one).
    typed = frozenset(IDENT.findall(_words_at(text, change.start, change.new_end))) & snap.names
    doc_names = declared(snap.decls)
    units = frozenset(snap.entries)
    dirty, followed = affected(snap.functions, seeds, path, snap.shared, doc_names, typed, units)
    goes = goes_whole(snap.functions, dirty)
    key = tuple(dirty)
    basis = snap.prepared.get(key) or Basis(snap.tree, snap.lowering)
    result, lowering = _lint_blanked(snap, text, files, dirty, goes, change, basis)
    ctx = result.context
    if ctx is None or result.errors or any(d.code == "HL006" for d in result.diagnostics):
        return _give_up("a crash or the time budget")
    if ctx.tree.unparsed or ctx.tree.too_deep:
        return _give_up("code the grammar cannot read, or nested too deep to analyse")
    # The blanked unit must hold the same functions at the same places (else the edit changed
    # more than one body), with the same entry points.
    held = held_functions(ctx)
    names = top_level_names(ctx, held)
    kept = [i for i in range(len(snap.functions)) if not goes[i]]
    memo = structure_memo(ctx, names)
    shaped = structure(ctx, names, [dirty[i] for i in kept], held, basis.structure, memo)
    if shaped is None:
        return _give_up("a function cannot be placed")
    now = shaped[0]
    if len(now) != len(kept) or entry_names(ctx) != snap.entries:
        return _give_up("the functions or entry points are not the expected ones")
    gone = {f.name for f, g in zip(snap.functions, goes, strict=True) if g}
    if names - snap.names:
        return _give_up("the top-level names changed")
    # A name declared inside a blanked body (a struct local to a function, which the model
    # lists with the unit's) goes with it: fine when no code left in the unit names it (the
    # blanked bodies' words are the comment at its end).
    code = ctx.tree.text[: ctx.tree.text.rfind(_WORDS)]
    if any(holds_word(code, n) for n in snap.names - names - gone):
        return _give_up("the top-level names changed")
    functions = [_moved_func(f, change, path) for f in snap.functions]
    for i, new in zip(kept, now, strict=True):
        expected = functions[i]
        if (new.name, new.path, new.start, new.end) != (
            expected.name,
            expected.path,
            expected.start,
            expected.end,
        ):
            return _give_up("a function moved")
        if (new.body is None) != (expected.body is None) or (dirty[i] and new.body != expected.body):
            return _give_up("a function body moved")
        if dirty[i]:
            functions[i] = new
    # The edited body may now call a function left out (blanked), or touch a global a function
    # left out shares (a macro expanded): the closure above did not see those.
    outside: set[str] = set()
    outside_methods: set[str] = set()
    for f, d in zip(snap.functions, dirty, strict=True):
        if not d:
            if f.method:
                outside_methods.add(f.method)
            elif f.name:
                outside.add(f.name)
    method_names = {m.rpartition("::")[2] for m in outside_methods}
    for i in kept:
        if not followed[i]:
            continue
        f = functions[i]
        calls = f.methods
        if f.tokens & outside or (f.tokens & method_names if calls is None else calls & outside_methods):
            return _give_up("the edit reaches a function or global left out")
    # What the analysed functions' new text shares with the functions left out: the closure of
    # the new text stays within the one analysed (a global the edit now writes, shared with a
    # function left out that an entry point runs with the edited one).
    # (Only when an analysed function's names or calls changed: else it is the same closure.)
    if any(
        (f.tokens, f.methods, f.method) != (old.tokens, old.methods, old.method)
        for f, old, d in zip(functions, snap.functions, dirty, strict=True)
        if d
    ):
        again, _ = affected(functions, seeds, path, snap.shared, doc_names, typed, units)
        if any(a and not d for a, d in zip(again, dirty, strict=True)):
            return _give_up("the edit reaches a function or global left out")

    # Findings: the analysed functions' from this run, the others' moved from the last one.

    found: list[Diagnostic] = []
    reused: list[Diagnostic] = []
    old_global: list[Diagnostic] = []
    new_global: list[Diagnostic] = []
    decls = [_moved_func(d, change, path) for d in snap.decls]
    users: dict[str, set[int]] = {}
    for fs in (snap.functions, functions):
        for i, f in enumerate(fs):
            for t in f.tokens:
                users.setdefault(t, set()).add(i)

    def side(fs: list[Func], ds: list[Func], offset: int) -> bool | None:
        """Is a finding at `offset` the analysed part's (True), the reused part's (False), or
        either's (None: a declaration that analysed and reused functions name, or none)?"""
        i = _owner(fs, path, offset)
        if i is not None:
            return dirty[i]
        k = _owner(ds, path, offset)
        if k is None:
            return None
        joined = {dirty[j] for n in ds[k].tokens for j in users.get(n, ())}
        if joined == {True}:
            return True
        return False if joined == {False} else None

    for dg in snap.findings:
        where = side(snap.functions, snap.decls, dg.start_offset)
        if where is None:
            old_global.append(_move(dg, change, old_src, new_src))
        elif not where:
            reused.append(_move(dg, change, old_src, new_src))
    seen: set[tuple[str, str, int, int, str]] = set()
    for dg in result.diagnostics:
        if os.path.normpath(dg.path) != path or dg.key() in seen:
            continue
        seen.add(dg.key())
        where = side(functions, decls, dg.start_offset)
        if where is None:
            new_global.append(dg)
        elif where:
            found.append(dg)
    if sorted(old_global, key=_order) != sorted(new_global, key=_order):
        return _give_up("a finding outside the functions changed")
    found += new_global + reused
    # A name a fix writes that the text does not hold may be made up across the unit (a fresh
    # variable): reused fixes must not write one the old text lacked, new ones one it lacks.
    fixes = [(dg, wrote) for dg in found if (wrote := _fresh_names(dg))]
    if fixes:
        reused_ids = {id(dg) for dg in reused}
        for dg, wrote in fixes:
            texts = (ctx.tree.text, snap.unit_text) if id(dg) in reused_ids else (ctx.tree.text,)
            if not all(holds_word(t, w) for t in texts for w in wrote):
                return _give_up("a fix writes a name made up across the unit")
    found.sort(key=_order)
    sources = dict(files)
    sources[path] = new_src
    prepared = {k: b for k, b in snap.prepared.items() if k != key}
    prepared[key] = Basis(ctx.tree, lowering, memo)
    _trim(prepared)
    fresh = Snapshot(
        path,
        text,
        snap.settings,
        snap.variant,
        functions,
        snap.names,
        ctx.tree.text,
        files,
        snap.missing,
        found,
        snap.entries,
        decls,
        snap.shared,
        ctx.tree,
        lowering,
        prepared,
    )
    # The entry points analysed whole: each one and every function it may run there again.
    whole = frozenset(
        name
        for name in snap.entries
        if (own := [i for i, f in enumerate(snap.functions) if f.name == name and not f.method])
        and all(dirty[i] and followed[i] for i in own)
    )
    shift = RowShift(
        old_src.location(change.start).row,
        old_src.location(change.old_end).row,
        inserted.count("\n") - removed.count("\n"),
        "\n" not in removed and "\n" not in inserted,
    )
    return Relint(found, sources, fresh, sum(dirty), ctx, whole, snap.text, shift, basis)


def _lint_blanked(
    snap: Snapshot,
    text: str,
    files: dict[str, SourceFile],
    dirty: list[bool],
    goes: list[bool],
    change: _Change,
    basis: Basis,
) -> tuple[UnitResult, LoweringReuse]:
    """Lint the unit of the document's `text` (the snapshot's but for `change`) with every body
    of a function not `dirty` blanked (the whole function where it `goes`), from `basis`."""
    path = snap.path
    # The blanked unit: every clean function body emptied, its words kept in a comment at the end.
    blanks: dict[str, list[tuple[int, int]]] = {}
    for f, d, g in zip(snap.functions, dirty, goes, strict=True):
        if not d and f.body is not None:
            blanks.setdefault(f.path, []).append((f.start, f.end) if g else f.body)
    overrides = {
        p: _blank(t, tuple(_moved(s, change) if p == path else s for s in blanks.get(p, [])))
        for p, t in [(path, text), *((p, src.text) for p, src in files.items())]
    }
    kept_words: set[str] = set()
    for f, d in zip(snap.functions, dirty, strict=True):
        if not d:
            kept_words |= f.words
    overrides[path] += _WORDS + " ".join(sorted(kept_words)) + "\n"
    # The caller's token (its time budget, and its cancel when a newer version comes), not a
    # fresh one of the settings' budget that nothing can cancel.
    lowering = LoweringReuse(basis.lowering)
    result = lint_unit(
        path,
        snap.settings,
        snap.variant,
        FileLoader(overrides),
        deadline=current(),
        previous=basis.tree,
        lowering=lowering,
    )
    lowering.previous = None  # only the last version's is kept
    return result, lowering


def _trim(prepared: dict[tuple[bool, ...], Basis]) -> None:
    """The latest `PREPARED` bases (a dict keeps its keys in the order they were set)."""
    while len(prepared) > PREPARED:
        del prepared[next(iter(prepared))]


PREPARE_CANDIDATES = 32
"""Functions of the document whose edits' blankings `prepare` works out (entry points first)."""


def prepare(snap: Snapshot, limit: int = PREPARED) -> int:
    """Make the first relint of an edit start as the later ones do: lint the snapshot's own text
    blanked as an edit in a function of the document would blank it, for the blankings most of
    its functions share (at most `limit`; the document's entry points' first), and keep each
    one's tree and lowering (`Snapshot.prepared`). The server runs it once a lint from scratch
    is published, in the background (a newer edit cancels it: `Cancelled` is raised; what was
    prepared stays). Without it the first edit after a lint from scratch parsed its blanked
    unit whole and replayed no lowering (that lint's unit is not blanked), and lexed, modelled
    and keyed for the rules the blanked headers, new to every cache (SpartanEngine `g_buffer`:
    440 against 340 ms of CPU for the later edits). Returns how many blankings it prepared."""
    with no_collection():
        return _prepare(snap, limit)


def _prepare(snap: Snapshot, limit: int) -> int:
    path = snap.path
    files = _current_files(snap)
    if files is None:
        return 0
    doc_names = declared(snap.decls)
    units = frozenset(snap.entries)
    own = [i for i, f in enumerate(snap.functions) if f.path == path and f.body is not None]
    own.sort(key=lambda i: snap.functions[i].name not in units or bool(snap.functions[i].method))
    shared_by: dict[tuple[bool, ...], int] = {}
    for i in own[:PREPARE_CANDIDATES]:
        dirty, _ = affected(snap.functions, {i}, path, snap.shared, doc_names, frozenset(), units)
        key = tuple(dirty)
        shared_by[key] = shared_by.get(key, 0) + 1
    made = 0
    for key in sorted(shared_by, key=lambda k: -shared_by[k])[:limit]:
        if key in snap.prepared:
            continue
        dirty = list(key)
        goes = goes_whole(snap.functions, dirty)
        result, lowering = _lint_blanked(
            snap, snap.text, files, dirty, goes, _Change(0, 0, 0), Basis(None, None)
        )
        ctx = result.context
        if ctx is None or result.errors or ctx.tree.unparsed or ctx.tree.too_deep:
            continue
        # what the relint's structure pass will find in the same places
        held = held_functions(ctx)
        names = top_level_names(ctx, held)
        memo = structure_memo(ctx, names)
        wanted = [d for d, g in zip(dirty, goes, strict=True) if not g]
        placed = structure(ctx, names, wanted, held, None, memo) is not None
        snap.prepared[key] = Basis(ctx.tree, lowering, memo if placed else None)
        made += 1
    _trim(snap.prepared)
    return made


def _owner(functions: list[Func], path: str, offset: int) -> int | None:
    """The function of `path` whose region holds `offset`."""
    for i, f in enumerate(functions):
        if f.path == path and f.start <= offset < max(f.end, f.start + 1):
            return i
    return None


def _words_at(text: str, start: int, end: int) -> str:
    """`text[start:end]` widened to the whole identifiers it touches."""
    while start > 0 and _word_char(text[start - 1]):
        start -= 1
    while end < len(text) and _word_char(text[end]):
        end += 1
    return text[start:end]


def _quotes_row_from(d: Diagnostic, row: int) -> bool:
    return any(int(n) >= row for n in _NUMBER.findall(d.long_message() + repr(d.extra)))


def _risky(text: str, start: int, end: int) -> bool:
    """A directive, a comment or string delimiter or a line splice in or at the edges of the
    edited text (these can change code outside the edited body)."""
    window = text[max(0, start - 1) : end + 1]
    return any(t in window for t in ("#", "/*", "*/", "//", '"', "'", "\\"))


def _order(d: Diagnostic) -> tuple[Any, ...]:
    return (d.start_offset, d.end_offset, d.code, d.message, repr(d))


def holds_word(text: str, name: str) -> bool:
    """Whether `name` is one of the identifiers of `text` as `IDENT.findall` reads them (the
    first letter or `_` of a run of word characters starts one), without reading every one of
    them: the unit is 200,000 characters, findall over it 5 ms an edit."""
    size = len(name)
    i = text.find(name)
    while i >= 0:
        end = i + size
        if end >= len(text) or not _word_char(text[end]):
            k = i
            while k > 0 and _word_char(text[k - 1]) and not _ident_start(text[k - 1]):
                k -= 1
            if k == 0 or not _word_char(text[k - 1]):
                return True
        i = text.find(name, i + 1)
    return False


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"  # what `\w` matches


def _ident_start(c: str) -> bool:
    return c == "_" or ("a" <= c <= "z") or ("A" <= c <= "Z")


def _fresh_names(d: Diagnostic) -> set[str]:
    """The identifiers a finding's fix writes (a fix that declares a variable names it so that
    no identifier of the unit, and no other fix of the unit, uses the name: that depends on the
    whole unit, in order)."""
    out: set[str] = set()
    if d.fix is not None:
        for e in d.fix.edits:
            # A built-in type a fix writes (`bool2` for a float2 of 0s and 1s) is nobody's name.
            out.update(w for w in IDENT.findall(e.content) if parse_numeric(w) is None)
    return out


def _current_files(snap: Snapshot) -> dict[str, SourceFile] | None:
    """The unit's other files, when none changed on disk and no missing include appeared."""
    for p in snap.missing:
        if os.path.exists(p):
            return None
    for p, old in snap.files.items():
        try:
            now = SourceFile.read(p)
        except SourceError:
            return None
        if now.text != old.text:
            return None
    return snap.files


@functools.lru_cache(maxsize=64)
def _blank(text: str, spans: tuple[tuple[int, int], ...]) -> str:
    """`text` with each span's characters but line breaks replaced by spaces, and the lines of
    conditional directives kept (`_blankable`; a header gets the same spans edit after edit:
    cached)."""
    out: list[str] = []
    pos = 0
    for s, e in sorted(spans):
        out.append(text[pos:s])
        out.append("\n".join(line if "#" in line else " " * len(line) for line in text[s:e].split("\n")))
        pos = e
    out.append(text[pos:])
    return "".join(out)


def _moved(span: tuple[int, int], change: _Change) -> tuple[int, int]:
    return _at(span[0], change), _at(span[1], change)


def _at(offset: int, change: _Change) -> int:
    """Where an offset of the old text is in the new one (the edit's own text stretches)."""
    return offset + change.delta if offset >= change.old_end else offset


def _moved_func(f: Func, change: _Change, path: str) -> Func:
    if f.path != path:
        return f
    body = _moved(f.body, change) if f.body is not None else None
    return dataclasses.replace(f, start=_at(f.start, change), end=_at(f.end, change), body=body)


def _move(d: Diagnostic, change: _Change, old: SourceFile, new: SourceFile) -> Diagnostic:
    """A finding of the old text placed in the new one (the edit lies outside it)."""
    if change.delta == 0 and old.text.count("\n") == new.text.count("\n"):
        return d
    path = old.path

    def loc(location: Location) -> Location:
        row = min(max(location.row, 1), len(old.line_starts))
        offset = old.line_starts[row - 1] + location.column - 1
        return new.location(_at(offset, change))

    fix = d.fix
    if fix is not None:
        edits = tuple(
            Edit(
                e.path,
                _at(e.start, change),
                _at(e.end, change),
                e.content,
                loc(e.start_location),
                loc(e.end_location),
            )
            if os.path.normpath(e.path) == path
            else e
            for e in fix.edits
        )
        fix = Fix(fix.message, fix.applicability, edits)
    related = tuple(
        Related(r.path, loc(r.start), loc(r.end), r.message) if os.path.normpath(r.path) == path else r
        for r in d.related
    )
    start, end = _at(d.start_offset, change), _at(d.end_offset, change)
    return dataclasses.replace(
        d,
        start_offset=start,
        end_offset=end,
        start=new.location(start),
        end=new.location(end),
        fix=fix,
        related=related,
    )
