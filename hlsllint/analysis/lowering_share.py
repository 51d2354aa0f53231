"""Inlined bodies of header functions lowered in one unit, replayed in the later units of the
process that read the header in the same state (issue 24: every unit of an engine inlines the
same helpers of its common headers).

Within one lowering, a body is lowered once per argument shape and replayed from a `Template`
(`lowering_memo`); `lowering_reuse` takes the templates of a unit's last version in the editor.
Here the templates of the header functions a unit's entry points inline are kept for the process
(`SharedBodies`, which the checker keeps beside the rules' findings of those functions), and a
later unit's first call of the same body with arguments of the same shape replays one instead of
walking its syntax, when nothing the template depends on can differ:

- the function has the same key in both units among the function-local rules' header functions
  (`hlsllint.checker.FunctionFindings`: the same state, the expanded text before the cut after
  it, header files and macro expansions by their text, the includer's code by its tokens, the
  same settings and variant; no name the state's code spells declared after the cut), which the
  checker hands to the lowering (`UnitShare`, in the model's memo);
- the text the template depends on (`Shared.region`, from `Shared.lo`: the function, the functions it
  inlined, the symbols of its values, the globals it reads, every span it records) is the same
  text at the same distance from the function in both (`str.startswith` at the shifted offset),
  so spans move by the distance between the two functions' starts and symbols and functions are
  found at the moved byte ranges; both trees are ASCII (code points are bytes);
- the call binds its arguments in the same shape, by value (types by their members; constant
  arguments by parameter number; which parameters read a memory copy; whether an argument is a
  view of its value or a member loaded from memory, which the body may ask of its slots), and
  the cost model is the default one;
- the recording changed nothing of the lowerer that the template does not hold (`effects`: a
  member load noted for later reads, a memory copy, a view bound by a nested call): such a body
  is never shared;
- the globals and preloads it reads exist in the new lowering, with the same shapes.

A template's values get the new model's symbols; its types are the recording model's objects
(equal in value: the declarations read the same). A replayed body is what lowering the body gives
at that call (instructions, values, blocks, records, views), so the CFG is the one the unit's own
lowering builds.
"""

from __future__ import annotations

from typing import Any

from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel
from hlsllint.analysis.ir import Span, Value
from hlsllint.analysis.lowering_memo import LowererState, Recording, Template
from hlsllint.analysis.lowering_reuse import (
    Described,
    Fixed,
    FnId,
    Key,
    _fn_id,
    _portable_binding,
    _same_body,
    _type_key,
    describe,
    identities,
    rebind,
)
from hlsllint.semantic import types as T
from hlsllint.semantic.model import Model
from hlsllint.semantic.symbols import Function


class Shared:
    """A template of a header function's body as one unit lowered it, with what a later unit
    needs to take it (see the module docstring): offsets are the recording unit's."""

    def __init__(self, said: Described, start: int, lo: int, region: str) -> None:
        self.said = said
        """The template with its symbols, fixed values and callees said by the text."""
        self.start = start
        """Where the function starts in the recording unit's text."""
        self.lo = lo
        self.region = region
        """The recording unit's text from `lo` to the furthest offset the template depends on."""
        self.moved: tuple[int, Template] | None = None
        """The template with its spans moved by a distance, the last one asked."""


class SharedBodies:
    """The process's shared header bodies, by key (`UnitShare.key`)."""

    LIMIT = 20_000
    """Bodies kept at most (the table starts over past it)."""

    def __init__(self) -> None:
        self._found: dict[Key, Shared | None] = {}
        self.taken = 0
        """Bodies replayed from another unit's lowering."""
        self.stored = 0

    def clear(self) -> None:
        self._found.clear()
        self.taken = self.stored = 0

    def get(self, key: Key) -> Shared | None:
        return self._found.get(key)

    def __contains__(self, key: Key) -> bool:
        return key in self._found

    def put(self, key: Key, found: Shared | None) -> None:
        if len(self._found) >= self.LIMIT:
            self._found.clear()
        self._found[key] = found
        if found is not None:
            self.stored += 1


SHARE_LOWERING = True
"""Off: every unit lowers its header functions itself (the tests compare the two)."""


class UnitShare:
    """What one unit's lowerings need to share header bodies: the function-local rules' key of
    each header function's body (`FunctionFindings.unit_keys`: node id -> (state, place)), set in
    the model's memo by the checker before a rule asks for an analysis."""

    def __init__(self, keys: dict[int, tuple[Any, ...]], store: SharedBodies) -> None:
        self.keys = keys
        self.store = store
        self.types: dict[int, tuple[T.Type, Key]] = {}
        self._functions: dict[FnId, Function] | None = None

    def functions(self, m: Model) -> dict[FnId, Function]:
        found = self._functions
        if found is None:
            found = self._functions = {}
            for fs in m.functions.values():
                for f in fs:
                    found[_fn_id(f)] = f
        return found

    def key(
        self,
        lw: LowererState,
        fn: Function,
        slots: list[Value],
        key: Key,
        bound_views: set[Value],
        member_load: dict[int, Any],
    ) -> Key | None:
        """The process-wide key of a call of `fn` whose lowering key is `key` (`_template_key`),
        or None when `fn` is not a header function the rules share."""
        body = fn.body
        if body is None:
            return None
        state = self.keys.get(body.id)
        if state is None:
            return None
        _fn, _shape, last, bound, copies, typed = key
        index = {id(p): i for i, p in enumerate(fn.params)}
        first: dict[int, int] = {}
        shape = []
        types = self.types
        for v in slots:
            alias = first.setdefault(id(v), len(first))
            tk = _type_key(v.type, types)
            shape.append(
                (
                    alias,
                    v.kind,
                    v.reg_class,
                    v.width,
                    tk,
                    len(v.parts or ()),
                    v in bound_views,
                    v.id in member_load,
                )
            )
        consts = tuple(sorted((_portable_binding(k, index), n, c) for k, n, c in bound))
        copied = copies if copies else tuple(False for _ in fn.params)
        return (state, tuple(shape), last, consts, copied, typed)

    def take(self, lw: LowererState, m: Model, skey: Key, fn: Function) -> Template | None:
        """The shared template for `skey`, in this lowering's terms, if it may be taken."""
        p = self.store.get(skey)
        if p is None:
            return None
        start = fn.node.byte_range[0]
        d = start - p.start
        if not m.tree.text.startswith(p.region, p.lo + d):
            return None
        out = rebind(lw, m, self.functions(m), p.said, _moved(p, d), d)
        if out is None:
            return None
        self.store.taken += 1
        return out

    def keep(
        self,
        lw: LowererState,
        m: Model,
        templates: dict[Key, Template | Recording | None],
        pending: dict[Key, tuple[Key, Function]],
        preloads: dict[str, Value],
    ) -> None:
        """Keep this lowering's templates of shared bodies that the process has not kept yet
        (before the passes change its instructions)."""
        store = self.store
        todo = [(key, skey, fn) for key, (skey, fn) in pending.items() if skey not in store]
        if not todo:
            return
        by_id, this_of, fixed_of = identities(self.functions(m).values(), lw, preloads)
        text = m.tree.text
        for key, skey, fn in todo:
            if skey in store:  # two keys of this lowering alike for the process
                continue
            found = templates.get(key)
            tpl: Template | None
            if isinstance(found, Recording):
                tpl = found.template(lw) if found.end is not None else None
            else:
                tpl = found
            made = _shared(tpl, fn, text, by_id, this_of, fixed_of) if tpl is not None else None
            store.put(skey, made)


def _shared(
    tpl: Template,
    fn: Function,
    text: str,
    by_id: dict[int, FnId],
    this_of: dict[int, FnId],
    fixed_of: dict[int, Fixed],
) -> Shared | None:
    start, end = fn.node.byte_range
    d = describe(tpl, start, end, by_id, this_of, fixed_of)
    if d is None:
        return None
    lo, hi = d.lo, d.hi
    for ins in tpl.instrs:
        detail = ins[6]
        if detail:
            for name, x in detail.items():
                if name in _PLAIN_DETAILS:
                    continue
                spans = _detail_spans(name, x)
                if spans is None:
                    return None  # a value of this lowering (a texel's `splat`), or not known
                for sp in spans:
                    lo, hi = min(lo, sp[0]), max(hi, sp[1])
    return Shared(d, start, lo, text[lo:hi])


_PLAIN_DETAILS = frozenset(
    {
        "blind",
        "cb_member",
        "copr",
        "cw",
        "declared",
        "element_first",
        "keep_old",
        "kept_select",
        "lanes",
        "member",
        "merge",
        "method",
        "name",
        "opr",
        "ops",
        "picks",
        "resource",
        "rows",
        "select",
        "semantic",
        "sels",
        "set",
        "shared",
        "sig",
        "typed",
        "unary",
    }
)
"""An instruction's details that hold no offset of the text and no object of the lowering (names,
constants, component selections). Any detail not here nor in `_detail_spans` keeps its body from
being shared (a texel store's `splat`, the value it stores)."""


def _detail_spans(name: str, x: Any) -> list[Span] | None:
    """The spans a detail holds (moved with the body), or None when it is not one of those."""
    if name in ("at", "loop"):  # `memory_member`'s first use, an unrolled loop
        return [x]
    if name == "element_read":  # the unrolled loops around a split array's element
        return list(x)
    if name == "element":  # (those loops, the iterations writing the element)
        return list(x[0])
    return None


def _moved_detail(detail: dict[str, Any], d: int) -> dict[str, Any]:
    out = dict(detail)
    for name, x in detail.items():
        if name in ("at", "loop"):
            out[name] = _move(x, d)
        elif name == "element_read":
            out[name] = tuple(_move(sp, d) for sp in x)
        elif name == "element":
            out[name] = (tuple(_move(sp, d) for sp in x[0]), *x[1:])
    return out


def _move(span: Span, d: int) -> Span:
    return (span[0] + d, span[1] + d)


def _moved(p: Shared, d: int) -> Template:
    """`p`'s template with every span moved by `d`."""
    tpl = p.said.body
    if d == 0:
        return tpl
    last = p.moved
    if last is not None and last[0] == d:
        return last[1]
    out = _same_body(tpl)
    instrs: list[tuple[int, str, int, list[int], Span, str, dict[str, Any]]] = []
    for code, op, dest, reads, span, rule, detail in tpl.instrs:
        if detail and not _PLAIN_DETAILS.issuperset(detail):
            detail = _moved_detail(detail, d)
        instrs.append((code, op, dest, reads, (span[0] + d, span[1] + d), rule, detail))
    out.instrs = instrs
    out.records = [(_move(span, d), at, r) for span, at, r in tpl.records]
    out.loops = [(_move(span, d), kind, h, bs, attrs, trip) for span, kind, h, bs, attrs, trip in tpl.loops]
    out.views = [_move(sp, d) for sp in tpl.views]
    out.values = tpl.values
    p.moved = (d, out)
    return out


def unit_share(model: Model, costs: CostModel, replay: bool) -> UnitShare | None:
    """The unit's sharing of header bodies, when the checker set it up and it may be used."""
    if not SHARE_LOWERING or not replay or costs is not DEFAULT_COSTS or not model.tree.ascii:
        return None
    found = model.memo.get("lowering.share")
    return found if isinstance(found, UnitShare) else None
