"""The unit's top-level functions as the editor's incremental lint sees them (`Func`: where each
sits in its file, the top-level names its text mentions, the methods it calls) and what an edit
inside one of them reaches (`affected`); `hlsllint.server.incremental` blanks the rest."""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import re
from dataclasses import dataclass
from typing import Any

from hlsllint.context import RuleContext
from hlsllint.preprocess.sourcemap import Segment
from hlsllint.syntax import Node
from hlsllint.syntax.queries import enclosing

IDENT = re.compile(r"[A-Za-z_]\w*")
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
    """Every identifier of its text, macros expanded (of a function or never-blanked code: a
    declaration's, which nothing reads, are not collected)."""
    whole: bool = False
    """Its whole region can go when it is not analysed (not an entry point, no directive in it);
    else only its body is blanked."""
    method: str = ""
    """A struct's method: its name as the model gives it (`Struct::name`); else empty."""
    methods: frozenset[str] | None = frozenset()
    """The methods its body calls, as the model resolves each call (`Struct::name`); None when
    a call of a method's name is not resolved (then it may call every method of that name)."""


def top_level_names(ctx: RuleContext, held: dict[int, list[Node]] | None = None) -> frozenset[str]:
    """The names that join functions: functions, globals, cbuffers and their members, types
    (`held`: `held_functions(ctx)`, when the caller has it)."""
    model = ctx.model
    # A typedef of a scalar, vector or matrix type joins nothing (engine headers give every
    # function such names); a struct type does (interpolators, arrays of structs).
    typedefs = {n for n, t in model.typedefs.items() if t.kind not in ("scalar", "vector", "matrix")}
    names = set(model.globals) | set(model.structs) | typedefs | set(model.functions)
    for cb in model.cbuffers:
        names.add(cb.name)
        names.update(m.name for m in cb.members)
    # Methods and namespace functions: what calls them mentions their names.
    for methods in (held if held is not None else held_functions(ctx)).values():
        names.update(n for m in methods if (n := _function_name(ctx, m)))
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


class StructureMemo:
    """What `structure` found per top-level node of one blanked unit, for the next relint's:
    where the two expanded texts (and the source maps) agree, a node found there again at the
    same place gives the same functions and declarations, read once (WickedEngine's unit: 2,000
    top-level nodes, most of a relint's own work)."""

    def __init__(
        self, text: str, segments: list[Segment], names: frozenset[str], functions: frozenset[str]
    ) -> None:
        self.text = text
        self.segments = segments
        self.names = names
        self.functions = functions
        self.nodes: dict[tuple[int, int, int, str], tuple[list[Func], list[Func], tuple[bool, ...]]] = {}
        """Per node (the end of the code before it, its span, its type): the functions it gave
        (none of them read in detail; a struct or namespace gives its methods, then itself,
        whose entry does not depend on what is wanted), its declarations, and for a function
        whether it was an entry point."""

    def agrees(self, text: str, segments: list[Segment]) -> int:
        """Up to which offset `text` reads as this unit's text, mapped to the same files alike
        (the source maps' segments agree up to the end of the last one both share)."""
        limit = _common_prefix(self.text, text)
        old = self.segments
        n = min(len(old), len(segments))
        i, step = 0, 64
        while i + step <= n and old[i : i + step] == segments[i : i + step]:
            i += step
        while i < n and old[i] == segments[i]:
            i += 1
        if i < len(old) or i < len(segments):
            limit = min(limit, old[i - 1].out_end if i > 0 else 0)
        return limit


def _common_prefix(a: str, b: str, step: int = 4096) -> int:
    n = min(len(a), len(b))
    i = 0
    while i + step <= n and a[i : i + step] == b[i : i + step]:
        i += step
    while i < n and a[i] == b[i]:
        i += 1
    return i


def structure(
    ctx: RuleContext,
    names: frozenset[str],
    wanted: list[bool] | None = None,
    held: dict[int, list[Node]] | None = None,
    memo: StructureMemo | None = None,
    keep: StructureMemo | None = None,
) -> tuple[list[Func], list[Func]] | None:
    """The unit's top-level functions (and, as never-blanked entries, other top-level code that
    holds functions or mentions one), and its other top-level declarations (with the names they
    mention; not their words, which nothing reads). None when a function cannot be placed in a
    file. With `wanted`, only the functions it marks (by position) get their words, names and
    calls; the others only their places (a relint checks where the blanked ones are, and keeps
    what it knew of them). `held`: `held_functions(ctx)`, when the caller has it. `memo`: what
    an earlier unit gave (a node that lies where both units read alike, and none of whose
    functions is wanted, gives what it gave then); `keep`: filled with what this one gives."""
    tree, sm = ctx.tree, ctx.pp.sourcemap
    text = tree.text
    functions = set(ctx.model.functions)
    out: list[Func] = []
    decls: list[Func] = []
    if held is None:
        held = held_functions(ctx)
    entries = {ep.function.node.id for ep in ctx.model.entry_points}
    calls = _method_calls(ctx)
    comments = sorted(tree.span(c) for c in tree.nodes_of_type("comment"))
    limit = 0
    if memo is not None and memo.names == names and memo.functions == functions:
        limit = memo.agrees(text, sm.segments)
    prev_end = 0
    for node in tree.root.children:
        s, e = tree.span(node)
        if not node.is_named:  # the `;` after a struct: not a function's to blank
            prev_end = e
            continue
        if node.type == "comment":
            prev_end = e
            continue
        key = (prev_end, s, e, node.type)
        first_out, first_decl = len(out), len(decls)
        if e <= limit and memo is not None:
            earlier = memo.nodes.get(key)
            if earlier is not None:
                got, declared_there, were_entries = earlier
                top = node.type == "function_definition"
                fns = len(got) if top else max(0, len(got) - 1)  # a holder's own entry comes last
                if (
                    wanted is not None
                    and len(out) + len(got) <= len(wanted)
                    and not any(wanted[len(out) : len(out) + fns])
                    and (not top or (node.id in entries,) == were_entries)
                ):
                    out += got
                    decls += declared_there
                    STATS.reused += 1
                    if keep is not None:
                        keep.nodes[key] = earlier
                    prev_end = e
                    continue
        if node.type == "function_definition":
            lead = text[prev_end:s]
            own = prev_end + len(lead) - len(lead.lstrip())
            detail = wanted is None or (len(out) < len(wanted) and wanted[len(out)])
            f = _function(ctx, node, own, s, e, names, calls, comments, entries, detail)
            if f is None:
                return None
            out.append(f)
        else:
            methods = held.get(node.id, [])
            holds = bool(methods)
            bodies: list[tuple[int, int]] = []
            if holds:
                # Each method (or namespace function) is a function of its own, blanked when
                # nothing analysed calls it; the struct mentions what the rest of it does.
                for m in methods:
                    ms, me = tree.span(m)
                    detail = wanted is None or (len(out) < len(wanted) and wanted[len(out)])
                    f = _function(ctx, m, ms, ms, me, names, calls, comments, entries, detail)
                    if f is None:
                        return None
                    out.append(f)
                    bodies.append((ms, me))
            pieces, at = [], s
            for bs, be in bodies:
                pieces.append((at, bs))
                at = be
            pieces.append((at, e))
            code: set[str] = set()
            for a, b in pieces:
                code |= _code_words(text, comments, a, b)
            path, start, _ = sm.map_offset(s)
            epath, end, _ = sm.map_offset(max(s, e - 1))
            stop = end + 1 if epath == path else start
            if holds or code & functions:
                words = frozenset(IDENT.findall(" ".join(text[a:b] for a, b in pieces)))
                out.append(Func("", path, start, stop, None, frozenset(code & names), words))
            else:
                decls.append(Func("", path, start, stop, None, frozenset(code & names)))
        fns = len(out) - first_out if node.type == "function_definition" else max(0, len(out) - first_out - 1)
        if keep is not None and (wanted is None or not any(wanted[first_out : first_out + fns])):
            keep.nodes[key] = (
                out[first_out:],
                decls[first_decl:],
                (node.id in entries,) if node.type == "function_definition" else (),
            )
        prev_end = e
    # Source text that two functions share (a header included twice) is never blanked.
    spans = sorted((f.path, f.start, f.end, i) for i, f in enumerate(out) if f.body is not None)
    for (p1, _s1, e1, i), (p2, s2, _e2, j) in itertools.pairwise(spans):
        if p1 == p2 and s2 < e1:
            out[i] = dataclasses.replace(out[i], body=None)
            out[j] = dataclasses.replace(out[j], body=None)
    return out, decls


def structure_memo(ctx: RuleContext, names: frozenset[str]) -> StructureMemo:
    """An empty memo of `ctx`'s unit, for `structure(keep=...)`."""
    return StructureMemo(ctx.tree.text, ctx.pp.sourcemap.segments, names, frozenset(ctx.model.functions))


def held_functions(ctx: RuleContext) -> dict[int, list[Node]]:
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


def _code_words(text: str, comments: list[tuple[int, int]], start: int, end: int) -> frozenset[str]:
    """The identifiers of `text[start:end]` outside comments (`comments`: the unit's comment
    spans, in order): a comment naming a function (`// the main view`) joins nothing. Cached by
    that text and where its comments lie in it: every relint reads the same header declarations
    again (WickedEngine's unit: 600 of them, most of the relint's own work)."""
    k = bisect.bisect_left(comments, (start, start))
    inside: list[tuple[int, int]] = []
    while k < len(comments) and comments[k][0] < end:
        cs, ce = comments[k]
        inside.append((cs - start, ce - start))
        k += 1
    key = (text[start:end], tuple(inside))
    found = _CODE_WORDS.get(key)
    if found is None:
        STATS.code_words += 1
        out: set[str] = set()
        at = start
        for cs, ce in inside:
            out.update(IDENT.findall(text, at, start + cs))
            at = max(at, start + ce)
        if at < end:
            out.update(IDENT.findall(text, at, end))
        found = frozenset(out)
        if len(_CODE_WORDS) >= _CACHED:
            _CODE_WORDS.clear()
        _CODE_WORDS[key] = found
    return found


def _identifiers(text: str) -> frozenset[str]:
    """`IDENT.findall(text)` as a set, cached (a function's whole text, for `Func.words`)."""
    found = _IDENTIFIERS.get(text)
    if found is None:
        found = frozenset(IDENT.findall(text))
        if len(_IDENTIFIERS) >= _CACHED:
            _IDENTIFIERS.clear()
        _IDENTIFIERS[text] = found
    return found


class StructureStats:
    """How many texts `_code_words` read (a cached one is not counted again), and how many
    top-level nodes `structure` took from a memo."""

    def __init__(self) -> None:
        self.code_words = 0
        self.reused = 0


STATS = StructureStats()
_CACHED = 20_000
"""Entries each cache holds at most (then it starts again)."""
_CODE_WORDS: dict[tuple[str, tuple[tuple[int, int], ...]], frozenset[str]] = {}
_IDENTIFIERS: dict[str, frozenset[str]] = {}


def _function(
    ctx: RuleContext,
    node: Node,
    own: int,
    s: int,
    e: int,
    names: frozenset[str],
    calls: dict[int, tuple[str, frozenset[str] | None]],
    comments: list[tuple[int, int]],
    entries: set[int],
    detail: bool = True,
) -> Func | None:
    tree, sm = ctx.tree, ctx.pp.sourcemap
    words = _identifiers(tree.text[own:e]) if detail else frozenset()
    code = _code_words(tree.text, comments, own, e) if detail else frozenset()
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
    top = node.parent is not None and node.parent.type == "translation_unit"
    whole = body is not None and top and node.id not in entries and src.text.find("#", start, end) < 0
    method, methods = calls.get(node.id, ("", frozenset())) if detail else ("", frozenset())
    return Func(name, path, start, end, body, frozenset(code & names), words, whole, method, methods)


_CONDITIONAL = re.compile(r"[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b[^\n]*")


def _blankable(text: str, start: int, end: int) -> bool:
    """Whether a body's text can be blanked but for its directives: none, or only conditional
    ones (`#if` ... `#endif`, each on a line of its own), which the blanking keeps, so that the
    same branches stay active (an entry point whose signature differs per variant holds an
    `#endif` in its body). No block comment or line splice, which could hide or make a
    directive line."""
    at = text.find("#", start, end)
    if at < 0:
        return True
    if text.find("/*", start, end) >= 0 or text.find("\\", start, end) >= 0:
        return False
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
    entries: frozenset[str] | None = None,
) -> tuple[list[bool], list[bool]]:
    """Which functions an edit of the `seeds` (in the document at `path`) makes analyse again:
    whose findings may change, and those whose bodies the analysis of those needs.

    - What an analysed function calls (its body is inlined), and every function that writes or
      reads a global it mentions that one function can change for another (`shared`). With the
      unit's `entries` (names), only into functions that an entry point running a seed may run
      (`entry_reach`; they are analysed anyway, as that entry point's callees) or that no entry
      point runs (everywhere when none runs a seed): an entry point is a program of its own (its
      statics and groupshared memory its own; no analysis follows a resource written by one into
      another), so an edit the vertex shader does not reach keeps it, its analyses and its
      findings, though the pixel shader writes a static that it reads too.
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
    reach = entry_reach(functions, entries) if entries is not None else None
    changed: frozenset[int] = frozenset()
    if reach is not None:
        changed = frozenset().union(*(reach[i] for i in seeds))
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
                work.extend(
                    (j, False, True)
                    for j in mentions.get(t, ())
                    if reach is None or _together(reach, changed, j)
                )
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


def entry_reach(functions: list[Func], entries: frozenset[str]) -> list[frozenset[int]]:
    """Per function, the entry points (their functions' positions) that may run it: what each
    entry function calls, as `affected` follows calls (a method where the model resolved a call
    to it). Top-level code that is not a function (a static's initialiser calling one) runs in
    every entry point, and so does what it calls."""
    by_name: dict[str, list[int]] = {}
    for i, f in enumerate(functions):
        if f.name:
            by_name.setdefault(f.name, []).append(i)
    roots = [i for i, f in enumerate(functions) if f.name in entries and not f.method]
    everywhere = frozenset(roots)
    found: list[set[int]] = [set() for _ in functions]
    starts = [([r], frozenset((r,))) for r in roots]
    starts.append(([i for i, f in enumerate(functions) if not f.name], everywhere))
    for start, tags in starts:
        stack = list(start)
        seen: set[int] = set()
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            found[i] |= tags
            f = functions[i]
            calls = f.methods
            for t in f.tokens:
                stack.extend(
                    j
                    for j in by_name.get(t, ())
                    if calls is None or not functions[j].method or functions[j].method in calls
                )
    return [frozenset(x) for x in found]


def _together(reach: list[frozenset[int]], changed: frozenset[int], j: int) -> bool:
    """Whether a shared global may carry the edit to what function `j` sees: an entry point
    whose program changed (`changed`) may run `j`, or no entry point runs `j`, or none runs the
    edit (nothing known: as without entries)."""
    return not changed or not reach[j] or bool(reach[j] & changed)


def _may_call(caller: Func, f: Func) -> bool:
    """Whether `caller`, which mentions `f`'s name, may call it."""
    calls = caller.methods
    return not f.method or calls is None or f.method in calls


def goes_whole(functions: list[Func], dirty: list[bool]) -> list[bool]:
    """Which functions the blanked unit leaves out whole: those not analysed that can go
    (`Func.whole`) and that no code left in it names (code there but not followed by
    `affected` still calls them: their bodies are blanked, their signatures stay, so that the
    calls resolve as before)."""
    called = {t for f, d in zip(functions, dirty, strict=True) if d or f.body is None for t in f.tokens}
    return [not d and f.whole and f.name not in called for f, d in zip(functions, dirty, strict=True)]


def declared(decls: list[Func]) -> frozenset[str]:
    out: set[str] = set()
    for d in decls:
        out |= d.tokens
    return frozenset(out)
