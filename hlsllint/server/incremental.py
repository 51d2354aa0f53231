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

import bisect
import contextlib
import dataclasses
import functools
import gc
import itertools
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hlsllint.analysis.lowering_reuse import LoweringReuse
from hlsllint.config import Settings, Variant
from hlsllint.context import RuleContext
from hlsllint.deadline import current
from hlsllint.diagnostics import Diagnostic, Edit, Fix, Related
from hlsllint.lint import FileLoader, lint_unit
from hlsllint.semantic.types import parse_numeric
from hlsllint.source import Location, SourceError, SourceFile
from hlsllint.syntax import Node, SyntaxTree
from hlsllint.syntax.queries import enclosing

IDENT = re.compile(r"[A-Za-z_]\w*")
_WORDS = "\n\n// "
"""What starts the comment at the end of a blanked unit (the last such text in it)."""
_NUMBER = re.compile(r"\d+")
CONTAINERS = ("namespace_definition", "struct_specifier", "class_specifier", "linkage_specification")


@dataclass(frozen=True)
class Func:
    """A top-level function definition of the unit, in source coordinates."""

    name: str
    path: str
    start: int
    """Where its region starts: its attributes and the comment above it belong to it."""
    end: int
    body: tuple[int, int] | None
    """The text between its braces; None when it is never blanked (always analysed)."""
    tokens: frozenset[str]
    """The top-level names its text (macros expanded) mentions."""
    words: frozenset[str] = frozenset()
    """Every identifier of its text, macros expanded."""
    whole: bool = False
    """Its whole region can go when it is not analysed (not an entry point, no directive in it);
    else only its body is blanked."""
    method: str = ""
    """A struct's method: its name as the model gives it (`Struct::name`); else empty."""
    methods: frozenset[str] | None = frozenset()
    """The methods its body calls, as the model resolves each call (`Struct::name`); None when
    a call of a method's name is not resolved (then it may call every method of that name)."""


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


@dataclass
class Relint:
    findings: list[Diagnostic]
    sources: dict[str, SourceFile]
    snapshot: Snapshot
    analysed: int
    """How many of the unit's functions were analysed again."""


def top_level_names(ctx: RuleContext) -> frozenset[str]:
    """The names that join functions: functions, globals, cbuffers and their members, types."""
    model = ctx.model
    # A typedef of a scalar, vector or matrix type joins nothing (engine headers give every
    # function such names); a struct type does (interpolators, arrays of structs).
    typedefs = {n for n, t in model.typedefs.items() if t.kind not in ("scalar", "vector", "matrix")}
    names = set(model.globals) | set(model.structs) | typedefs | set(model.functions)
    for cb in model.cbuffers:
        names.add(cb.name)
        names.update(m.name for m in cb.members)
    # Methods and namespace functions: what calls them mentions their names.
    for held in _held_functions(ctx).values():
        names.update(n for m in held if (n := _function_name(ctx, m)))
    return frozenset(names)


def entry_names(ctx: RuleContext) -> list[str]:
    return [e.name for e in ctx.model.entry_points]


def writable_globals(ctx: RuleContext) -> frozenset[str]:
    """The globals a function may write (anything but constants, cbuffer members and read-only
    resources, arrays of them included): through them one function's body can change another's
    findings without a call between them."""
    out = set()
    for name, sym in ctx.model.globals.items():
        if sym.kind in ("cbuffer_member", "static_const"):
            continue
        t: Any = sym.type
        while t is not None and t.kind == "array":
            t = t.element
        if sym.kind == "resource" and t is not None and t.resource is not None and not t.resource.writable:
            continue
        out.add(name)
    return frozenset(out)


def structure(
    ctx: RuleContext, names: frozenset[str], wanted: list[bool] | None = None
) -> tuple[list[Func], list[Func]] | None:
    """The unit's top-level functions (and, as never-blanked entries, other top-level code that
    holds functions or mentions one), and its other top-level declarations (with the names they
    mention). None when a function cannot be placed in a file. With `wanted`, only the functions
    it marks (by position) get their words, names and calls; the others only their places (a
    relint checks where the blanked ones are, and keeps what it knew of them)."""
    tree, sm = ctx.tree, ctx.pp.sourcemap
    text = tree.text
    functions = set(ctx.model.functions)
    out: list[Func] = []
    decls: list[Func] = []
    held = _held_functions(ctx)
    calls = _method_calls(ctx)
    comments = sorted(tree.span(c) for c in tree.nodes_of_type("comment"))
    prev_end = 0
    for node in tree.root.children:
        s, e = tree.span(node)
        if not node.is_named:  # the `;` after a struct: not a function's to blank
            prev_end = e
            continue
        if node.type == "function_definition":
            lead = text[prev_end:s]
            own = prev_end + len(lead) - len(lead.lstrip())
            detail = wanted is None or (len(out) < len(wanted) and wanted[len(out)])
            f = _function(ctx, node, own, s, e, names, calls, comments, detail)
            if f is None:
                return None
            out.append(f)
        elif node.type != "comment":
            methods = held.get(node.id, [])
            holds = bool(methods)
            bodies: list[tuple[int, int]] = []
            if holds:
                # Each method (or namespace function) is a function of its own, blanked when
                # nothing analysed calls it; the struct mentions what the rest of it does.
                for m in methods:
                    ms, me = tree.span(m)
                    detail = wanted is None or (len(out) < len(wanted) and wanted[len(out)])
                    f = _function(ctx, m, ms, ms, me, names, calls, comments, detail)
                    if f is None:
                        return None
                    out.append(f)
                    bodies.append((ms, me))
            pieces, at = [], s
            for bs, be in bodies:
                pieces.append((at, bs))
                at = be
            pieces.append((at, e))
            words = set(IDENT.findall(" ".join(text[a:b] for a, b in pieces)))
            code: set[str] = set()
            for a, b in pieces:
                code |= _code_words(text, comments, a, b)
            path, start, _ = sm.map_offset(s)
            epath, end, _ = sm.map_offset(max(s, e - 1))
            stop = end + 1 if epath == path else start
            entry = Func("", path, start, stop, None, frozenset(code & names), frozenset(words))
            (out if holds or code & functions else decls).append(entry)
        prev_end = e
    # Source text that two functions share (a header included twice) is never blanked.
    spans = sorted((f.path, f.start, f.end, i) for i, f in enumerate(out) if f.body is not None)
    for (p1, _s1, e1, i), (p2, s2, _e2, j) in itertools.pairwise(spans):
        if p1 == p2 and s2 < e1:
            out[i] = dataclasses.replace(out[i], body=None)
            out[j] = dataclasses.replace(out[j], body=None)
    return out, decls


def _held_functions(ctx: RuleContext) -> dict[int, list[Node]]:
    """The function definitions each top-level struct or namespace holds (by the holder's node
    id), in order; from the tree's index rather than a walk of every struct."""
    out: dict[int, list[Node]] = {}
    for fn in ctx.tree.nodes_of_type("function_definition"):
        top, parent = fn, fn.parent
        while parent is not None and parent.type != "translation_unit":
            top, parent = parent, parent.parent
        if top is not fn and top.type in CONTAINERS:
            out.setdefault(top.id, []).append(fn)
    return out


def _function_name(ctx: RuleContext, node: Node) -> str:
    declarator = node.child_by_field_name("declarator")
    inner = declarator.child_by_field_name("declarator") if declarator is not None else None
    if inner is not None and inner.type in ("identifier", "field_identifier"):
        return ctx.tree.node_text(inner)
    return ""


def _method_calls(ctx: RuleContext) -> dict[int, tuple[str, frozenset[str] | None]]:
    """Per function definition (node id) of the unit that is a method or calls one: its name
    as a method (`Struct::name`, else empty), and the methods its body calls as the model
    resolves the calls (None when one is not resolved). Engine headers give methods of many
    structs one name (`init`, `create`): by name alone, an edit calling one reaches them all."""
    model = ctx.model
    methods = {f.node.id: f.name for fs in model.functions.values() for f in fs if f.owner is not None}
    method_names = {n.rpartition("::")[2] for n in methods.values()}
    found: dict[int, set[str] | None] = {}
    if method_names:
        for call in ctx.tree.nodes_of_type("call_expression"):
            target = call.child_by_field_name("function")
            if target is None:
                continue
            words = IDENT.findall(ctx.tree.node_text(target))
            if not words or words[-1] not in method_names:
                continue
            fn = enclosing(call, _FUNCTION_DEFINITION)
            if fn is None:
                continue
            callee = model.callee(call)
            have = found.setdefault(fn.id, set())
            if callee is None:
                found[fn.id] = None
            elif callee.owner is not None and have is not None:
                have.add(callee.name)
    out: dict[int, tuple[str, frozenset[str] | None]] = {}
    for key in methods.keys() | found.keys():
        called = found.get(key, set())
        out[key] = (methods.get(key, ""), frozenset(called) if called is not None else None)
    return out


_FUNCTION_DEFINITION = frozenset({"function_definition"})


def _code_words(text: str, comments: list[tuple[int, int]], start: int, end: int) -> set[str]:
    """The identifiers of `text[start:end]` outside comments (`comments`: the unit's comment
    spans, in order): a comment naming a function (`// the main view`) joins nothing."""
    out: set[str] = set()
    at = start
    for k in range(bisect.bisect_left(comments, (start, start)), len(comments)):
        cs, ce = comments[k]
        if cs >= end:
            break
        out.update(IDENT.findall(text[at:cs]))
        at = max(at, ce)
    if at < end:
        out.update(IDENT.findall(text[at:end]))
    return out


def _function(
    ctx: RuleContext,
    node: Node,
    own: int,
    s: int,
    e: int,
    names: frozenset[str],
    calls: dict[int, tuple[str, frozenset[str] | None]],
    comments: list[tuple[int, int]],
    detail: bool = True,
) -> Func | None:
    tree, sm = ctx.tree, ctx.pp.sourcemap
    words = frozenset(IDENT.findall(tree.text[own:e])) if detail else frozenset()
    code = _code_words(tree.text, comments, own, e) if detail else set()
    name = _function_name(ctx, node)
    path, start, _ = sm.map_offset(s)
    opath, ostart, _ = sm.map_offset(own)
    if opath == path and ostart <= start:
        start = ostart
    src = ctx.source(path)
    if src is None:
        return None
    body_node = node.child_by_field_name("body")
    body: tuple[int, int] | None = None
    epath, end, _ = sm.map_offset(max(s, e - 1))
    end = end + 1 if epath == path else start
    if body_node is not None and name:
        bs, be = tree.span(body_node)
        p1, o1, v1 = sm.map_offset(bs)
        p2, o2, v2 = sm.map_offset(be - 1)
        if (
            v1
            and v2
            and p1 == p2 == path
            and o1 < o2
            and src.text[o1 : o1 + 1] == "{"
            and src.text[o2 : o2 + 1] == "}"
            and _blankable(src.text, o1 + 1, o2)
        ):
            body = (o1 + 1, o2)
            end = max(end, o2 + 1)
    entry = any(ep.function.node.id == node.id for ep in ctx.model.entry_points)
    top = node.parent is not None and node.parent.type == "translation_unit"
    whole = body is not None and top and not entry and "#" not in src.text[start:end]
    method, methods = calls.get(node.id, ("", frozenset())) if detail else ("", frozenset())
    return Func(name, path, start, end, body, frozenset(code & names), words, whole, method, methods)


_CONDITIONAL = re.compile(r"[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b[^\n]*")


def _blankable(text: str, start: int, end: int) -> bool:
    """Whether a body's text can be blanked but for its directives: none, or only conditional
    ones (`#if` ... `#endif`, each on a line of its own), which the blanking keeps, so that the
    same branches stay active (an entry point whose signature differs per variant holds an
    `#endif` in its body). No block comment or line splice, which could hide or make a
    directive line."""
    if "#" not in text[start:end]:
        return True
    if "/*" in text[start:end] or "\\" in text[start:end]:
        return False
    at = text.find("#", start, end)
    while at >= 0:
        line = text.rfind("\n", 0, at) + 1
        stop = text.find("\n", at)
        stop = len(text) if stop < 0 else stop
        if line < start or stop > end or _CONDITIONAL.fullmatch(text, line, stop) is None:
            return False
        at = text.find("#", stop, end)
    return True


def affected(
    functions: list[Func],
    seeds: set[int],
    path: str,
    shared: frozenset[str],
    doc_names: frozenset[str],
    typed: frozenset[str] = frozenset(),
) -> tuple[list[bool], list[bool]]:
    """Which functions an edit of the `seeds` (in the document at `path`) makes analyse again:
    whose findings may change, and those whose bodies the analysis of those needs.

    - What an analysed function calls (its body is inlined), and every function that writes or
      reads a global it mentions that one function can change for another (`shared`).
    - Up from a function whose findings are published (the document's, or one naming a
      declaration of the document): every function that calls it, up to the entry points whose
      analyses find them; the document's other top-level code (struct methods, initialisers)
      with every function that mentions a name it mentions.
    - The document's top-level code that is never blanked (it holds functions, or a directive
      its body cannot lose) with what it calls. Such code of a header is there (counted as
      analysed) but what it calls is not, unless a path above reaches it: no published finding
      depends on it (the relint keeps the signatures it calls, `_goes`).

    A header function that no such path reaches keeps its last findings, which are never
    published anyway; it is blanked, and its entry points with it.

    Returns which functions are there whole, and which of them were followed (all but header
    code that is never blanked and that no path reaches)."""
    by_name: dict[str, list[int]] = {}
    mentions: dict[str, list[int]] = {}
    for i, f in enumerate(functions):
        if f.name:
            by_name.setdefault(f.name, []).append(i)
        for t in f.tokens:
            mentions.setdefault(t, []).append(i)
    dirty = [False] * len(functions)
    up = [False] * len(functions)
    followed = [False] * len(functions)
    # (function, upward, follow its calls and globals)
    work: list[tuple[int, bool, bool]] = [(i, True, True) for i in seeds]
    work += [(i, f.path == path, f.path == path) for i, f in enumerate(functions) if f.body is None]
    while work:
        i, upward, follow = work.pop()
        f = functions[i]
        upward = upward or f.path == path or bool(f.tokens & doc_names)
        follow = follow or upward
        if dirty[i] and (up[i] or not upward) and (followed[i] or not follow):
            continue
        dirty[i] = True
        up[i] = up[i] or upward
        if not follow:
            continue
        followed[i] = True
        calls = f.methods
        for t in f.tokens:
            # A method of a struct only where the body calls that one (as the model resolved it).
            work.extend(
                (j, False, True)
                for j in by_name.get(t, ())
                if calls is None or not functions[j].method or functions[j].method in calls
            )
            if t in shared:
                work.extend((j, False, True) for j in mentions.get(t, ()))
        if i in seeds:  # what the edit typed may call any function of that name
            work.extend((j, False, True) for t in typed for j in by_name.get(t, ()))
        if upward:
            if f.body is None and f.path == path:
                callers = [j for t in f.tokens for j in mentions.get(t, ())]
            else:
                callers = [
                    j for j in (mentions.get(f.name, []) if f.name else []) if _may_call(functions[j], f)
                ]
            work.extend((j, True, True) for j in callers)
    return dirty, followed


def _may_call(caller: Func, f: Func) -> bool:
    """Whether `caller`, which mentions `f`'s name, may call it."""
    calls = caller.methods
    return not f.method or calls is None or f.method in calls


def _goes(functions: list[Func], dirty: list[bool]) -> list[bool]:
    """Which functions the blanked unit leaves out whole: those not analysed that can go
    (`Func.whole`) and that no code left in it names (code there but not followed by
    `affected` still calls them: their bodies are blanked, their signatures stay, so that the
    calls resolve as before)."""
    called = {t for f, d in zip(functions, dirty, strict=True) if d or f.body is None for t in f.tokens}
    return [not d and f.whole and f.name not in called for f, d in zip(functions, dirty, strict=True)]


def _declared(decls: list[Func]) -> frozenset[str]:
    out: set[str] = set()
    for d in decls:
        out |= d.tokens
    return frozenset(out)


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
    names = top_level_names(ctx)
    found = structure(ctx, names)
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
    with _no_collection():
        return _relint(snap, text)


_collection_lock = threading.Lock()
_collection_holds = 0


@contextlib.contextmanager
def _no_collection() -> Iterator[None]:
    """No cyclic garbage collection inside (nor in the other threads meanwhile: the collector is
    the process's); it comes back when the last thread inside leaves."""
    global _collection_holds
    with _collection_lock:
        _collection_holds += 1
        gc.disable()
    try:
        yield
    finally:
        with _collection_lock:
            _collection_holds -= 1
            if _collection_holds == 0:
                gc.enable()


def _relint(snap: Snapshot, text: str) -> Relint | None:
    path = snap.path
    if text == snap.text:  # back to the last text that could serve (a typo undone)
        same = _current_files(snap)
        if same is None:
            return _give_up("an included file changed or appeared")
        return Relint(list(snap.findings), {**same, path: SourceFile(path=path, text=text)}, snap, 0)
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
    # The names the edit types may call functions or write globals the old body did not.
    typed = frozenset(IDENT.findall(inserted)) & snap.names
    dirty, followed = affected(snap.functions, seeds, path, snap.shared, _declared(snap.decls), typed)
    goes = _goes(snap.functions, dirty)

    # The blanked unit: every clean function body emptied, its words kept in a comment at the end.
    blanks: dict[str, list[tuple[int, int]]] = {}
    for f, d, g in zip(snap.functions, dirty, goes, strict=True):
        if not d and f.body is not None:
            blanks.setdefault(f.path, []).append((f.start, f.end) if g else f.body)
    overrides = {
        p: _blank(src.text, tuple(_moved(s, change) if p == path else s for s in blanks.get(p, [])))
        for p, src in [(path, new_src), *files.items()]
    }
    kept_words: set[str] = set()
    for f, d in zip(snap.functions, dirty, strict=True):
        if not d:
            kept_words |= f.words
    overrides[path] += _WORDS + " ".join(sorted(kept_words)) + "\n"
    # The caller's token (its time budget, and its cancel when a newer version comes), not a
    # fresh one of the settings' budget that nothing can cancel.
    lowering = LoweringReuse(snap.lowering)
    result = lint_unit(
        path,
        snap.settings,
        snap.variant,
        FileLoader(overrides),
        deadline=current(),
        previous=snap.tree,
        lowering=lowering,
    )
    lowering.previous = None  # only the last version's is kept
    ctx = result.context
    if ctx is None or result.errors or any(d.code == "HL006" for d in result.diagnostics):
        return _give_up("a crash or the time budget")
    if ctx.tree.unparsed or ctx.tree.too_deep:
        return _give_up("code the grammar cannot read, or nested too deep to analyse")
    # The blanked unit must hold the same functions at the same places (else the edit changed
    # more than one body), with the same entry points.
    names = top_level_names(ctx)
    kept = [i for i in range(len(snap.functions)) if not goes[i]]
    shaped = structure(ctx, names, [dirty[i] for i in kept])
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
            outside |= f.tokens & snap.shared
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
    )
    return Relint(found, sources, fresh, sum(dirty))


def _owner(functions: list[Func], path: str, offset: int) -> int | None:
    """The function of `path` whose region holds `offset`."""
    for i, f in enumerate(functions):
        if f.path == path and f.start <= offset < max(f.end, f.start + 1):
            return i
    return None


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
