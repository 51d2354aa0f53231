"""Inlined bodies lowered for the last version of a unit, replayed in the next one (the editor's
relint: `LoweringReuse`, handed from one lint of a document to the next by the server).

Within one lowering, a body is lowered once per argument shape and replayed from a `Template`
(`lowering_memo`). Here the templates of the last version's lowering of an entry point are kept,
and the next version's lowering of the same entry point replays one at the first call of that
body instead of walking its syntax, when nothing the template depends on can differ:

- the two expanded texts differ only inside the body of one function (a plain function, not a
  method; no declaration in that body that a unit lists: struct, typedef, cbuffer...), so every
  declaration of the unit reads the same, and the model resolves the text before the edit alike;
- everything the template holds or looked at lies before the first changed character: its
  function, the functions it inlined, the symbols of its values, the globals it reads, every
  span it records (`Portable.extent`);
- the same settings, cost model, entry point name, stage and group size. Spans are code points,
  symbols and functions are found by byte range: a byte offset is never below its character's
  code-point offset, so a byte range that ends before the prefix lies in it;
- the globals and preloads it reads exist in the new lowering (else the body is lowered again).

A template's values get the new model's symbols; its types are the last model's objects (equal in
value: the declarations read the same). A replayed body is what lowering the body gives at that
call (instructions, values, blocks, records, views), so the CFG is the one a fresh lint builds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel
from hlsllint.analysis.ir import Value, with_parts
from hlsllint.analysis.lowering_memo import LowererState, Reach, Recording, Template
from hlsllint.semantic import types as T
from hlsllint.semantic.constants import member_binding, member_of_binding
from hlsllint.semantic.model import Model
from hlsllint.semantic.symbols import EntryPoint, Function, Symbol
from hlsllint.settings import AnalysisSettings

Key = tuple[Any, ...]
FnId = tuple[str, int, int]
"""A function as the next version finds it: its name and the byte range of its definition."""

_DECLARES = re.compile(
    r"\b(struct|class|interface|typedef|namespace|cbuffer|tbuffer|template|technique\d*)\b"
)
"""Words of a body that may declare a name the unit lists (a struct local to a function)."""


class Portable:
    """A template of the last version, with what the next one needs to take it."""

    def __init__(self, said: Described, extent: int) -> None:
        self.said = said
        """The template with its symbols, fixed values and callees said by the text."""
        self.extent = extent
        """The furthest offset of the text it depends on (exclusive)."""


class _EntryKept:
    def __init__(
        self, stage: str, group: tuple[int, int, int] | None, templates: dict[Key, Portable]
    ) -> None:
        self.stage = stage
        self.group = group
        self.templates = templates


class Bridge:
    """How the new version's text relates to the last one's (computed once per model)."""

    def __init__(self, prefix: int, functions: dict[FnId, Function]) -> None:
        self.prefix = prefix
        """Characters both texts share from the start: templates that end before it are taken."""
        self.functions = functions


class LoweringReuse:
    """The lowering of one version of a unit, kept for the next (the server keeps one per open
    document, made with the last one as `previous`, which it drops once the lint is done)."""

    def __init__(self, previous: LoweringReuse | None = None) -> None:
        self.previous = previous
        self.text = ""
        self.settings: AnalysisSettings | None = None
        self.bodies: set[tuple[str, int, int, int]] = set()
        """(name, start, body start, body end) of the unit's plain functions."""
        self.entries: dict[str, _EntryKept] = {}
        self.taken = 0
        """Bodies replayed from `previous` (over every entry point)."""

    def bridge(self, model: Model) -> Bridge | None:
        found = model.memo.get("lowering.reuse.bridge")
        if isinstance(found, Bridge):
            return found
        if "lowering.reuse.bridge" in model.memo:
            return None
        made = _bridge(self.previous, model) if self.previous is not None else None
        model.memo["lowering.reuse.bridge"] = made
        return made

    def note_unit(self, model: Model) -> None:
        if self.settings is not None:
            return
        tree = model.tree
        self.text = tree.text
        self.settings = model.settings
        for fs in model.functions.values():
            for f in fs:
                if f.body is not None and f.owner is None:
                    b0, b1 = tree.span(f.body)
                    self.bodies.add((f.name, tree.span(f.node)[0], b0, b1))


def _common_prefix(a: str, b: str, step: int = 4096) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i : i + step] == b[i : i + step]:
        i += step
    i = min(i, n)
    hi = min(i + step, n)
    while i < hi and a[i] == b[i]:
        i += 1
    return i


def _common_suffix(a: str, b: str, limit: int, step: int = 4096) -> int:
    """Characters both texts share at their ends, at most `limit` (compared a slice at a time:
    the main file's code after the edit and the blanked unit's words are tens of thousands)."""
    n = 0
    la, lb = len(a), len(b)
    while n + step <= limit and a[la - n - step : la - n] == b[lb - n - step : lb - n]:
        n += step
    while n < limit and a[la - n - 1] == b[lb - n - 1]:
        n += 1
    return n


def _bridge(prev: LoweringReuse, model: Model) -> Bridge | None:
    tree = model.tree
    if prev.settings is None or prev.settings != model.settings:
        return None
    old, new = prev.text, tree.text
    a = _common_prefix(old, new)
    functions: dict[FnId, Function] = {}
    for fs in model.functions.values():
        for f in fs:
            start, end = f.node.byte_range
            functions[(f.name, start, end)] = f
    if a < len(old) or a < len(new):
        s = _common_suffix(old, new, min(len(old), len(new)) - a)
        old_end, new_end = len(old) - s, len(new) - s
        delta = len(new) - len(old)
        inside = None
        b0 = b1 = 0
        for f in functions.values():
            if f.body is not None:
                b0, b1 = tree.span(f.body)
                if b0 < a and new_end < b1:
                    inside = f
                    break
        if inside is None or inside.owner is not None:
            return None
        start = tree.span(inside.node)[0]
        if (inside.name, start, b0, b1 - delta) not in prev.bodies or old_end >= b1 - delta:
            return None  # the last version did not hold the edit inside that body
        if _DECLARES.search(new, b0, b1) or _DECLARES.search(old, b0, b1 - delta):
            return None
    return Bridge(a, functions)


def _type_key(t: T.Type, memo: dict[int, tuple[T.Type, Key]], depth: int = 0) -> Key:
    """`t` by value, struct members included (`Type` equality leaves them out)."""
    found = memo.get(id(t))
    if found is not None and found[0] is t:
        return found[1]
    element = _type_key(t.element, memo, depth + 1) if t.element is not None and depth < 16 else None
    members: Key = ()
    if depth < 16:
        members = tuple((m.name, _type_key(m.type, memo, depth + 1), m.semantic) for m in t.members)
    key = (t.kind, t.name, t.scalar, t.rows, t.cols, element, t.length, t.resource, members)
    memo[id(t)] = (t, key)
    return key


def _fn_id(fn: Function) -> FnId:
    start, end = fn.node.byte_range
    return (fn.name, start, end)


def _portable_binding(key: int, index: dict[int, int]) -> int:
    """A binding's key (`Frame.consts`) by parameter number, not by object: a parameter's
    number, or for a member of a struct parameter (`member_binding`) the member's key of
    that number."""
    member = member_of_binding(key)
    if member is None:
        return index.get(key, -1)
    return member_binding(index.get(member[0], -1) + 1, member[1])


class EntryReuse:
    """One entry point's lowering: takes the last version's templates (with a `Bridge`) and keeps
    its own for the next version."""

    def __init__(self, owner: LoweringReuse, bridge: Bridge | None, old: dict[Key, Portable] | None) -> None:
        self.owner = owner
        self.bridge = bridge
        self.old = old
        self.types: dict[int, tuple[T.Type, Key]] = {}

    def portable_key(self, fn: Function, slots: list[Value], key: Key) -> Key:
        """`key` (`_template_key`) with the function and types by value, not by object."""
        _fn, _shape, last, bound, copies, typed = key
        index = {id(p): i for i, p in enumerate(fn.params)}
        first: dict[int, int] = {}
        shape = []
        for v in slots:
            alias = first.setdefault(id(v), len(first))
            typed = _type_key(v.type, self.types)
            shape.append((alias, v.kind, v.reg_class, v.width, typed, len(v.parts or ())))
        consts = tuple(sorted((_portable_binding(k, index), n, c) for k, n, c in bound))
        # no memory copy at all is no parameter one (`_template_key` leaves the tuple out)
        copied = copies if copies else tuple(False for _ in fn.params)
        return (_fn_id(fn), tuple(shape), last, consts, copied, typed)

    def take(self, lw: LowererState, m: Model, pkey: Key) -> Template | None:
        """The last version's template for `pkey`, in this lowering's terms, if it may be taken."""
        if self.old is None or self.bridge is None:
            return None
        p = self.old.get(pkey)
        if p is None or p.extent > self.bridge.prefix:
            return None
        out = rebind(lw, m, self.bridge.functions, p.said, p.said.body, 0)
        if out is None:
            return None
        self.owner.taken += 1
        return out

    def keep(
        self,
        lw: LowererState,
        m: Model,
        entry: EntryPoint,
        templates: dict[Key, Template | Recording | None],
        portable_keys: dict[Key, Key],
        preloads: dict[str, Value],
    ) -> None:
        """Keep this lowering's templates for the next version (before the passes change its
        instructions)."""
        owner = self.owner
        owner.note_unit(m)
        by_id, this_of, fixed_of = identities((f for fs in m.functions.values() for f in fs), lw, preloads)
        kept: dict[Key, Portable] = {}
        for key, found in templates.items():
            pkey = portable_keys.get(key)
            if pkey is None or found is None:
                continue
            tpl: Template | None
            if isinstance(found, Recording):
                tpl = found.template(lw) if found.end is not None else None
            else:
                tpl = found
            if tpl is not None:
                p = _portable(tpl, pkey[0], by_id, this_of, fixed_of)
                if p is not None:
                    kept[pkey] = p
        if self.old is not None and self.bridge is not None:
            # what the last version kept and this lowering did not reach (a body inlined only
            # inside one it replayed) holds for the next version too: it reads as it did
            prefix = self.bridge.prefix
            for pkey, p in self.old.items():
                if p.extent <= prefix:
                    kept.setdefault(pkey, p)
        owner.entries[entry.function.name] = _EntryKept(entry.stage, entry.group_size, kept)


Fixed = tuple[str, str, int, int, int]
"""A value the lowering holds before any body (a global's part, a preloaded value): the global's
name, kind and byte range and the part's number, or ("", the preload's name, 0, 0, 0)."""


def identities(
    functions: Iterable[Function], lw: LowererState, preloads: dict[str, Value]
) -> tuple[dict[int, FnId], dict[int, FnId], dict[int, Fixed]]:
    """The ids a template holds objects of this lowering by, mapped to what names them in the
    text: each function (`by_id`), the function whose `this` a symbol is (`this_of`), and each
    fixed value (`fixed_of`)."""
    by_id: dict[int, FnId] = {}
    this_of: dict[int, FnId] = {}
    for f in functions:
        fid = _fn_id(f)
        by_id[id(f)] = fid
        if f.this is not None:
            this_of[id(f.this)] = fid
    fixed_of: dict[int, Fixed] = {}
    for name, v in preloads.items():
        fixed_of[id(v)] = ("", name, 0, 0, 0)
    for sym, vals in lw.globals_env.items():
        if sym.node is None:
            continue
        start, end = sym.node.byte_range
        for i, v in enumerate(with_parts(vals, [])):
            fixed_of.setdefault(id(v), (sym.name, sym.kind, start, end, i))
    return by_id, this_of, fixed_of


class Described:
    """A template's objects of the lowering said by the text that names them, and the extent of
    the text it reads (`lo`..`hi`, from the function's own range; instruction details aside)."""

    __slots__ = ("body", "calls", "fixed", "hi", "lo", "shapes", "symbols")

    def __init__(
        self,
        body: Template,
        symbols: list[tuple[str, str, int, int] | None],
        fixed: list[Fixed],
        shapes: list[tuple[str, int, str, str | None]],
        calls: list[FnId],
        lo: int,
        hi: int,
    ) -> None:
        self.body = body
        self.symbols = symbols
        self.fixed = fixed
        self.shapes = shapes
        self.calls = calls
        self.lo = lo
        self.hi = hi


def describe(
    tpl: Template,
    lo: int,
    hi: int,
    by_id: dict[int, FnId],
    this_of: dict[int, FnId],
    fixed_of: dict[int, Fixed],
) -> Described | None:
    """`tpl` with its symbols, fixed values and callees said by the text (None when one is an
    object the tables do not name), `lo`..`hi` widened to every span it holds."""
    symbols: list[tuple[str, str, int, int] | None] = []
    values: list[tuple[str, int, str, T.Type, Symbol | None, str | None, list[int] | None]] = []
    for spec in tpl.values:
        values.append((spec[0], spec[1], spec[2], spec[3], None, spec[5], spec[6]))
        sym = spec[4]
        if sym is None:
            symbols.append(None)
        elif sym.node is not None:
            start, end = sym.node.byte_range
            symbols.append((sym.name, sym.kind, start, end))
            lo, hi = min(lo, start), max(hi, end)
        else:
            owner = this_of.get(id(sym))
            if owner is None:
                return None
            symbols.append(("this", owner[0], owner[1], owner[2]))
            lo, hi = min(lo, owner[1]), max(hi, owner[2])
    fixed: list[Fixed] = []
    shapes: list[tuple[str, int, str, str | None]] = []
    for v in tpl.fixed:
        said = fixed_of.get(id(v))
        if said is None:
            return None
        fixed.append(said)
        shapes.append((v.name, v.width, v.kind, v.reg_class))
        if said[0]:
            lo, hi = min(lo, said[2]), max(hi, said[3])
    calls: list[FnId] = []
    for i in tpl.reach.calls:
        called = by_id.get(i)
        if called is None:
            return None
        calls.append(called)
        lo, hi = min(lo, called[1]), max(hi, called[2])
    for ins in tpl.instrs:
        lo, hi = min(lo, ins[4][0]), max(hi, ins[4][1])
    for rec in tpl.records:
        lo, hi = min(lo, rec[0][0]), max(hi, rec[0][1])
    for loop in tpl.loops:
        lo, hi = min(lo, loop[0][0]), max(hi, loop[0][1])
    for sp in tpl.views:
        lo, hi = min(lo, sp[0]), max(hi, sp[1])
    bare = _same_body(tpl)
    bare.values = values
    return Described(bare, symbols, fixed, shapes, calls, lo, hi)


def rebind(
    lw: LowererState, m: Model, functions: dict[FnId, Function], said: Described, body: Template, d: int
) -> Template | None:
    """`body` (`said`'s template, its spans where this text has them) with the symbols, fixed
    values and callees `said` names taken from this lowering and model, the text having moved by
    `d` since; None when one of them is not here as it was."""
    values: list[tuple[str, int, str, T.Type, Symbol | None, str | None, list[int] | None]] = []
    for spec, named in zip(said.body.values, said.symbols, strict=True):
        sym: Symbol | None = None
        if named is not None:
            sym = _symbol(m, functions, (named[0], named[1], named[2] + d, named[3] + d))
            if sym is None:
                return None
        values.append((spec[0], spec[1], spec[2], spec[3], sym, spec[5], spec[6]))
    fixed: list[Value] = []
    for name, kind, start, end, at in said.fixed:
        v = _fixed(lw, m, name, kind, start + d, end + d, at)
        if v is None:
            return None
        fixed.append(v)
    for shape, v in zip(said.shapes, fixed, strict=True):
        if shape != (v.name, v.width, v.kind, v.reg_class):
            return None
    calls: set[int] = set()
    for name, start, end in said.calls:
        f = functions.get((name, start + d, end + d))
        if f is None:
            return None
        calls.add(id(f))
    out = _same_body(body)
    out.values = values
    out.fixed = fixed
    out.reach.calls = calls
    return out


def _portable(
    tpl: Template,
    fid: FnId,
    by_id: dict[int, FnId],
    this_of: dict[int, FnId],
    fixed_of: dict[int, Fixed],
) -> Portable | None:
    d = describe(tpl, fid[1], fid[2], by_id, this_of, fixed_of)
    if d is None:
        return None
    extent = d.hi
    for ins in tpl.instrs:
        at = ins[6].get("at") if ins[6] else None
        if at is not None:
            extent = max(extent, at[1])
    return Portable(d, extent)


def _same_body(tpl: Template) -> Template:
    """A template of `tpl`'s body (slots, blocks, instructions, loops, records, views) and reach
    depth; its values, fixed values and the reach's calls are the caller's to set."""
    out = Template()
    out.n_slots = tpl.n_slots
    out.n_blocks = tpl.n_blocks
    out.instrs = tpl.instrs
    out.edges = tpl.edges
    out.loops = tpl.loops
    out.records = tpl.records
    out.views = tpl.views
    out.end_block = tpl.end_block
    out.reach = Reach(tpl.reach.depth)
    out.reach.deepest = tpl.reach.deepest
    out.reach.cut = tpl.reach.cut
    return out


def _symbol(m: Model, functions: dict[FnId, Function], said: tuple[str, str, int, int]) -> Symbol | None:
    name, kind, start, end = said
    if name == "this":
        f = functions.get((kind, start, end))
        return f.this if f is not None else None
    sym = m.resolve_range((start, end))
    if sym is None or sym.name != name or sym.kind != kind:
        return None
    return sym


def _fixed(lw: LowererState, m: Model, name: str, kind: str, start: int, end: int, at: int) -> Value | None:
    if not name:  # a preload, `kind` its name
        return lw.preloads.get(kind)
    sym = m.resolve_range((start, end))
    if sym is None or sym.name != name or sym.kind != kind:
        return None
    vals = lw.globals_env.get(sym)
    if vals is None:
        return None
    flat = with_parts(vals, [])
    return flat[at] if at < len(flat) else None


def entry_reuse(model: Model, entry: EntryPoint, costs: CostModel) -> EntryReuse | None:
    """The reuse of `entry`'s lowering when the editor asked for it (the model's memo holds a
    `LoweringReuse`): with the last version's templates when they may be taken."""
    owner = model.memo.get("lowering.reuse")
    if not isinstance(owner, LoweringReuse) or costs is not DEFAULT_COSTS:
        return None
    old: dict[Key, Portable] | None = None
    prev = owner.previous
    bridge = owner.bridge(model) if prev is not None else None
    if prev is not None and bridge is not None:
        kept = prev.entries.get(entry.function.name)
        if kept is not None and kept.stage == entry.stage and kept.group == entry.group_size:
            old = kept.templates
    return EntryReuse(owner, bridge, old)
