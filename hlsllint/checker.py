"""One traversal, many rules: walk a unit's tree once and dispatch each node to the rules that
subscribed to its type (`Rule.node_kinds`), then give every rule its whole-unit `check`.

A rule that raises is dropped for the rest of the unit and reported as an internal error; the
others keep running.

The findings of function-local rules (`Rule.function_local`) in a function of the unit's headers
are kept per process by the function's state (`FunctionFindings`): a later unit (or a later
edit) that meets the same function in the same state takes them without visiting its body.
"""

from __future__ import annotations

import bisect
import copy
import functools
import itertools
import re
import string
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from hlsllint.analysis.lowering_share import SharedBodies, UnitShare
from hlsllint.context import RuleContext
from hlsllint.deadline import current
from hlsllint.diagnostics import Diagnostic
from hlsllint.preprocess import segment_state
from hlsllint.rule import Rule
from hlsllint.semantic import Function
from hlsllint.source import SourceFile
from hlsllint.syntax import Node

__all__ = ["FUNCTIONS", "SHARE_FUNCTIONS", "FunctionFindings", "Recorded", "run_rules"]

Key = tuple[object, ...]


def _crash(rule: Rule, path: str) -> str:
    return f"rule {rule.code} ({rule.name}) crashed on {path}:\n{traceback.format_exc(limit=-3)}"


def _no_stage(_stage: str) -> None:
    pass


_Visit = Callable[[RuleContext, Node], None]

# Each found where a word starts (`_at_words`): a leading `\b` would keep the regex engine from
# skipping ahead to the keyword's letters, trying the whole pattern at every offset instead.
_TYPE_NAMES = re.compile(r"(?:struct|class|interface|namespace|enum)\s+(?:class\s+)?([A-Za-z_]\w*)")
_TYPEDEF = re.compile(r"typedef\b([^;]*)")
_ENUM_BODY = re.compile(r"enum\b[^{;]*\{([^}]*)\}")
_WORD = re.compile(r"[A-Za-z_]\w*")
_COMMENT_OR_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_ASCII_WORD_CHARS = frozenset(string.ascii_letters + string.digits + "_")
_OTHER_TO_SPACE = str.maketrans({chr(c): " " for c in range(128) if chr(c) not in _ASCII_WORD_CHARS})
"""`str.translate` table: an ASCII character that `\\w` does not match becomes a space."""


Again = tuple[int, str, object]
"""A visit that said it needs the unit (`RuleContext.needs_unit`): its place, its rule and the
fact it gave (None: every unit visits the node again; else every unit calls the rule's `replay`
with it)."""


class Recorded:
    """What the function-local rules gave in one header function: each finding with the place of
    the visit that made it (the node's index in the walk, from the function's body), and the
    visits that said they need the unit (`Again`), which every unit makes again or replays."""

    def __init__(self, found: list[tuple[int, Diagnostic]], again: list[Again]) -> None:
        self.found = found
        self.again = again


class FunctionFindings:
    """The findings of function-local rules (`Rule.function_local`) in the functions of a unit's
    headers, by the state each function is read in, for every unit of the process (a shared
    header's functions come back in most units, and in every edit of one).

    A function's state is the expanded text before a cut at or after its end: the cuts are where
    the main file's text follows a header's (after `#include "common.hlsl"`, before the next
    `#include` or the main file's own code) and the end of the last header. The state holds the
    header files' contents and the parts of them the text holds, macro expansions by their text,
    the main file's code by its tokens (its comments and blanks do not count, as in
    `SameUnits.state_key`), and what the rules are told (`told`). What comes after the cut can
    change what the text's names mean (a later overload, a redefined global, a header calling
    a function its includer defines): a state is not shared by a unit that declares after the
    cut a name the state's code spells (a comment's words do not count). So every unit that
    includes `common.hlsl` first shares its functions, whatever it includes next. A function's
    key is its state's number and its place among the unit's function bodies. Only functions whose text comes
    from a header, outside any region the grammar could not read, are shared, and only their
    findings that lie in headers.

    How to key and query (what `run_rules` does; a caller with a unit of its own does the same):

        keys = FUNCTIONS.unit_keys(ctx, main_path, told)   # body node id -> key, once per unit
        found = FUNCTIONS.get(keys[fn.body.id])            # a copy of what was recorded, or None
        FUNCTIONS.put(key, Recorded(findings, again))      # after visiting the body once

    `told` is what the rules are told besides the unit (`run_rules` passes the settings, the
    variant and the function-local rules with their options). `hits` and `stores` count what
    was reused and kept, `revisits` and `replays` the visits that said they need the unit made
    again and replayed from their facts in functions taken so (tests observe them)."""

    LIMIT = 50_000
    """Functions kept at most (the table starts over past it)."""

    def __init__(self) -> None:
        self._states: dict[Key, int] = {}
        self._numbers = itertools.count()
        self._words: dict[int, frozenset[str]] = {}
        """A state's words: every name its text's code holds (`code_words`)."""
        self._pieces: dict[str, tuple[frozenset[str], bool]] = {}
        """The words of a piece of a state's text, one file's text after another's (`_words_of`),
        and whether the state's words may be its words and the rest's (`_clean_end`)."""
        self._found: dict[Key, Recorded] = {}
        self.lowering = SharedBodies()
        """The CFG lowering's bodies of these functions, by their keys (`lowering_share`)."""
        self.hits = 0
        self.stores = 0
        self.revisits = 0
        self.replays = 0

    def clear(self) -> None:
        self._states.clear()
        self._words.clear()
        self._pieces.clear()
        self._found.clear()
        self.lowering.clear()
        self.hits = self.stores = self.revisits = self.replays = 0

    def get(self, key: Key) -> Recorded | None:
        found = self._found.get(key)
        if found is None:
            return None
        self.hits += 1
        return Recorded([(at, copy.deepcopy(d)) for at, d in found.found], found.again)

    def put(self, key: Key, found: Recorded) -> None:
        if len(self._found) >= self.LIMIT:
            self._found.clear()
        self._found[key] = Recorded([(at, copy.deepcopy(d)) for at, d in found.found], list(found.again))
        self.stores += 1

    def unit_keys(self, ctx: RuleContext, main: str, told: str) -> dict[int, Key]:
        """The key of each function of the unit's headers that can be shared (see the class),
        by the id of its body node."""
        pp = ctx.pp
        tree = ctx.tree
        text = pp.text
        included = set(pp.included)
        end = header_end(ctx)
        if end <= 0:
            return {}
        # The state's parts, and the cuts: where the main file's text follows a header's, and
        # the end of the last header (offset, parts and header files before it).
        parts: list[tuple[Any, ...]] = []
        paths: list[str] = []
        seen: set[str] = set()
        cuts: list[tuple[int, int, int]] = []
        splits: list[int] = []  # where one file's text follows another's
        at = 0
        in_header = False
        last_path = ""
        for s in pp.sourcemap.segments:
            if s.out_start >= end:
                break
            if s.path != last_path:
                splits.append(s.out_start)
                last_path = s.path
            header = s.path in included
            if in_header and not header:
                cuts.append((s.out_start, len(parts), len(paths)))
            if s.out_start > at:
                parts.append(("gap", text[at : s.out_start]))
            if header and s.path not in seen:
                seen.add(s.path)
                paths.append(s.path)
            parts.append(segment_state(text, s, not header))
            in_header = header
            at = s.out_end
        cuts.append((end, len(parts), len(paths)))
        bodies: list[tuple[int, int, Function]] = []
        for overloads in ctx.model.functions.values():
            for f in overloads:
                start, stop = tree.span(f.node)
                bodies.append((start, stop, f))
        bodies.sort(key=lambda b: b[0])
        declared = _declarations(ctx, cuts[0][0], bodies)
        # Where the unparsed regions end at most, over those that start before each of them.
        unparsed = sorted(tree.unparsed)
        unparsed_starts = [r[0] for r in unparsed]
        reach = list(itertools.accumulate((r[1] for r in unparsed), max))
        states: list[int | None] = []
        keys: dict[int, Key] = {}
        sourcemap = pp.sourcemap
        j = 0
        ordinal = -1
        for start, stop, f in bodies:
            body = f.body
            if body is None:
                continue
            ordinal += 1
            if stop > end:
                break
            while cuts[j][0] < stop:
                j += 1
            while len(states) <= j:
                cut, n_parts, n_paths = cuts[len(states)]
                files = [pp.sources.get(p) for p in paths[:n_paths]]
                state_key = (
                    tuple(parts[:n_parts]),
                    tuple(_file(src, p) for src, p in zip(files, paths[:n_paths], strict=True)),
                    told,
                )
                states.append(self._state(state_key, text, cut, declared, splits))
            state = states[j]
            if state is None:
                continue
            k = bisect.bisect_left(unparsed_starts, stop)
            if k > 0 and reach[k - 1] > start:
                continue  # the grammar could not read part of it
            seg = sourcemap.segment_at(start)
            if seg is None or seg.path not in included:
                continue
            keys[body.id] = (state, ordinal)
        return keys

    def _state(
        self, key: Key, text: str, cut: int, declared: list[tuple[int, str]], splits: list[int]
    ) -> int | None:
        """The number of the state `key` (`text` before `cut`), or None when a name declared
        after `cut` is a word of that text's code (then it could change what the text's names
        mean). Words in comments do not count (a header's `// vertex attribute unpackers` and
        an includer's `struct vertex`); words in strings do."""
        state = self._states.get(key)
        if state is None:
            state = self._states[key] = next(self._numbers)  # not len(): threads (the server)
            self._words[state] = self._words_of(text, cut, splits)
        words = self._words[state]
        for at, name in declared:
            if at >= cut and name in words:
                return None
        return state

    def _words_of(self, text: str, cut: int, splits: list[int]) -> frozenset[str]:
        """`code_words(text[:cut])`, from the words of its pieces, split where one file's text
        follows another's (`splits`), each piece's kept for the states that hold it too (an
        engine's states share its common headers' text). A piece ends a piece of its own only
        where its words and the rest's are the whole's (`_clean_end`); else it runs on to the
        next split."""
        words: set[str] = set()
        start = 0
        pieces = self._pieces
        for p in [*splits, cut]:
            if p <= start or p > cut:
                continue
            piece = text[start:p]
            found = pieces.get(piece)
            if found is None:
                if len(pieces) >= 4096:
                    pieces.clear()
                code = _code(piece)
                found = pieces[piece] = (_words_in(code), _clean_end(piece, code))
            if p < cut and not found[1]:
                continue
            words |= found[0]
            start = p
        return frozenset(words)


def _code(text: str) -> str:
    """`text` with its comments blanked (strings kept whole)."""
    return _COMMENT_OR_STRING.sub(_blank_comment, text)


def _clean_end(piece: str, code: str) -> bool:
    """Whether `code_words(piece + rest)` is `code_words(piece) | code_words(rest)` whatever the
    rest (`code` is `_code(piece)`): the piece ends a line that no backslash continues (so no
    string, `//` comment or word runs on past it) and no `/*` of it was left unclosed (which the
    rest could close: a `/*` left in the code; one kept in a string only splits less)."""
    return piece.endswith("\n") and not piece.endswith("\\\n") and "/*" not in code


def code_words(text: str) -> frozenset[str]:
    """The names `text` spells outside its comments (a string's words count: it is kept whole,
    so that a `//` in a string is no comment): `_WORD.findall` of its code. In ASCII code, where
    `\\w` is `[A-Za-z0-9_]`, that is each run of those characters from its first letter or `_`
    on, which `str.translate` and `str.split` give in about two thirds of the instructions."""
    return _words_in(_code(text))


def _words_in(code: str) -> frozenset[str]:
    """The names `code` (comments blanked) spells: `_WORD.findall(code)`."""
    if not code.isascii():
        return frozenset(_WORD.findall(code))
    runs = set(code.translate(_OTHER_TO_SPACE).split())
    return frozenset(word for word in (run.lstrip(string.digits) for run in runs) if word)


def _blank_comment(m: re.Match[str]) -> str:
    found = m.group(0)
    return found if found.startswith('"') else " "


FUNCTIONS = FunctionFindings()
"""The process's findings of header functions (the lint and the language server share it)."""
SHARE_FUNCTIONS = True
"""Whether `run_rules` reuses them (tests compare the two)."""


def header_end(ctx: RuleContext) -> int:
    """Where the text of the unit's last header ends in the expanded text (0: no header)."""
    included = set(ctx.pp.included)
    end = 0
    for s in ctx.pp.sourcemap.segments:
        if s.path in included:
            end = s.out_end
    return end


def _file(src: SourceFile | None, path: str) -> tuple[str, str, int, str]:
    if src is None:
        return (path, "", 0, "")
    return (path, src.text, src.decode_errors, src.encoding)


def _declarations(
    ctx: RuleContext, start: int, functions: list[tuple[int, int, Function]]
) -> list[tuple[int, str]]:
    """(offset, name) of the declarations from offset `start` of the expanded text on: functions,
    globals, constant buffers, and the names of types, typedefs and enumerators as the text
    spells them (in comments too: more names only share less)."""
    model = ctx.model
    tree = ctx.tree
    out: list[tuple[int, str]] = []
    for at, _stop, f in functions:
        if at >= start:
            out.extend((at, part) for part in f.name.split("::"))
    for table in (model.globals, model.static_members):
        for sym in table.values():
            node = sym.node if sym.node is not None else sym.decl
            if node is not None:
                at = tree.span(node)[0]
                if at >= start:
                    out.extend((at, part) for part in sym.name.split("::"))
    for cb in model.cbuffers:
        if cb.node is not None:
            at = tree.span(cb.node)[0]
            if at >= start:
                out.append((at, cb.name))
    text = ctx.pp.text
    out.extend((m.start(), m.group(1)) for m in _at_words(_TYPE_NAMES, text, start))
    for m in _at_words(_TYPEDEF, text, start):
        for part in m.group(1).split(","):
            words = _WORD.findall(part.split("[")[0])
            if words:
                out.append((m.start(), words[-1]))
    for m in _at_words(_ENUM_BODY, text, start):
        for part in m.group(1).split(","):
            words = _WORD.findall(part)
            if words:
                out.append((m.start(), words[0]))
    return out


def _at_words(pattern: re.Pattern[str], text: str, start: int) -> list[re.Match[str]]:
    """The matches `pattern.finditer(text, start)` would give with a `\\b` in front of it (the
    pattern starts with a word character): a match that a word character precedes is passed
    over and the search goes on from its next offset."""
    out: list[re.Match[str]] = []
    at = start
    while True:
        m = pattern.search(text, at)
        if m is None:
            return out
        first = m.start()
        if first > 0:
            before = text[first - 1]
            if before.isalnum() or before == "_":
                at = first + 1
                continue
        out.append(m)
        at = m.end() if m.end() > first else first + 1


def _told(ctx: RuleContext, local: Sequence[Rule]) -> str:
    """What the function-local rules are told besides the unit (part of a function's state)."""
    rules = [(r.code, sorted(r.option_values.items())) for r in local]
    return repr((ctx.settings, ctx.variant, rules))


def _in_headers(d: Diagnostic, included: set[str]) -> bool:
    """Does every place `d` names lie in a header (which its state fixes)?"""
    if d.path not in included or any(r.path not in included for r in d.related):
        return False
    return d.fix is None or all(e.path in included for e in d.fix.edits)


def _visit(
    ctx: RuleContext,
    rule: Rule,
    visit: _Visit,
    node: Node,
    path: str,
    failed: set[str],
    errors: list[str],
    *tables: dict[str, tuple[tuple[Rule, _Visit], ...]],
) -> None:
    ctx.rule = rule
    try:
        visit(ctx, node)
    except Exception:  # a rule bug must not take the run down
        failed.add(rule.code)
        errors.append(_crash(rule, path))
        for table in tables:  # no more visits for it
            for k, subs in table.items():
                table[k] = tuple(s for s in subs if s[0].code not in failed)


def _keep(
    key: Key,
    found: list[tuple[int, Diagnostic]],
    again: list[Again],
    failed: set[str],
    included: set[str],
) -> None:
    """Keep what a header function's visits recorded, unless a function-local rule crashed or a
    finding names a place outside the headers (which the state does not fix)."""
    if not failed and all(_in_headers(d, included) for _at, d in found):
        FUNCTIONS.put(key, Recorded(found, again))


def run_rules(
    ctx: RuleContext,
    rules: Sequence[Rule],
    path: str,
    on_stage: Callable[[str], None] = _no_stage,
) -> list[str]:
    """Run `rules` over the unit of `ctx`; returns the internal errors (crashed rules).

    `on_stage(name)` is told before the walk and before each rule's `check` (the driver's time
    budget raises from it).

    In a body of a header function met before in the same state (`FunctionFindings`), the
    function-local rules are not visited, but where one said it needs the unit
    (`RuleContext.needs_unit`): their findings there are taken from `FUNCTIONS`, each at the
    place of the visit that made it, and where a visit gave a fact the rule's `replay` is called
    with it instead of visiting again."""
    errors: list[str] = []
    failed: set[str] = set()
    lists: dict[str, list[tuple[Rule, _Visit]]] = {}
    for rule in rules:
        for kind in rule.node_kinds:
            lists.setdefault(kind, []).append((rule, rule.visit))
    dispatch = {kind: tuple(subs) for kind, subs in lists.items()}
    if dispatch:
        on_stage("the rules' walk (" + ", ".join(r.code for r in rules if r.node_kinds) + ")")
        bodies: dict[int, Function] = {}
        for overloads in ctx.model.functions.values():
            for f in overloads:
                if f.body is not None:
                    bodies[f.body.id] = f
        body_types = {f.body.type for f in bodies.values() if f.body is not None}
        local = [r for r in rules if r.function_local and r.node_kinds]
        local_codes = {r.code for r in local}
        local_visits: dict[str, tuple[Rule, _Visit]] = {r.code: (r, r.visit) for r in local}
        keys: dict[int, Key] = {}
        if SHARE_FUNCTIONS and local and ctx.pp.included:
            keys = FUNCTIONS.unit_keys(ctx, path, _told(ctx, local))
            if keys:  # the lowering shares these functions' bodies with the other units too
                ctx.model.memo["lowering.share"] = UnitShare(keys, FUNCTIONS.lowering)
        included = set(ctx.pp.included)
        rest = {k: tuple(s for s in subs if s[0].code not in local_codes) for k, subs in dispatch.items()}
        table = dispatch
        # The header function being recorded or replayed: its key, the walk's index of its body
        # and where the body ends (-1: none); recording, what it records; replaying, what it
        # takes (findings by place, the next one `taken`) and the visits it makes again.
        shared: Key = ()
        shared_start = -1
        shared_end = -1
        recording = False
        found_at: list[tuple[int, Diagnostic]] = []
        again_at: list[Again] = []
        taken = 0
        again: dict[int, list[tuple[str, object]]] = {}
        nodes = ctx.tree.nodes()
        # The function of a node is that of the innermost body around it; a body's subtree is
        # the run of `descendant_count` nodes that starts at it in document order.
        fn: Function | None = None
        fn_end = len(nodes)
        outer: list[tuple[Function | None, int]] = []
        deadline = current()
        for i, kind in enumerate(ctx.tree.node_types()):
            deadline.tick()
            if 0 <= shared_end <= i:
                if recording:
                    _keep(shared, found_at, again_at, failed & local_codes, included)
                shared_end = -1
                recording = False
                table = dispatch
            while i >= fn_end:
                fn, fn_end = outer.pop()
            if kind in body_types:
                node = nodes[i]
                inner = bodies.get(node.id)
                if inner is not None:
                    outer.append((fn, fn_end))
                    fn, fn_end = inner, i + node.descendant_count
                    key = keys.get(node.id) if shared_end < 0 else None
                    if key is not None:
                        shared = key
                        shared_start = i
                        shared_end = fn_end
                        earlier = FUNCTIONS.get(key)
                        if earlier is not None:
                            found_at = earlier.found
                            taken = 0
                            again = {}
                            for at, code, fact in earlier.again:
                                again.setdefault(at, []).append((code, fact))
                            table = rest
                        else:
                            recording = True
                            found_at = []
                            again_at = []
            place = i - shared_start
            if shared_end >= 0 and not recording:  # replaying
                while taken < len(found_at) and found_at[taken][0] <= place:
                    ctx.diagnostics.append(found_at[taken][1])
                    taken += 1
                codes = again.get(place)
                if codes is not None:
                    ctx.function = fn
                    for code, fact in codes:
                        if code not in failed:
                            again_rule, again_visit = local_visits[code]
                            if fact is None:
                                FUNCTIONS.revisits += 1
                            else:  # the rule's `replay` with the fact, in place of its visit
                                FUNCTIONS.replays += 1
                                again_visit = functools.partial(again_rule.replay, fact=fact)
                            node = nodes[i]
                            _visit(ctx, again_rule, again_visit, node, path, failed, errors, dispatch, rest)
            subscribers = table.get(kind)
            if subscribers:
                node = nodes[i]
                ctx.function = fn
                for rule, visit in subscribers:
                    if recording and rule.code in local_codes:
                        before = len(ctx.diagnostics)
                        ctx.needs_unit_asked = False  # `needs_unit` sets `unit_fact` too
                        _visit(ctx, rule, visit, node, path, failed, errors, dispatch, rest)
                        if ctx.needs_unit_asked:
                            again_at.append((place, rule.code, ctx.unit_fact))
                        else:
                            found_at += [(place, d) for d in ctx.diagnostics[before:]]
                    else:
                        _visit(ctx, rule, visit, node, path, failed, errors, dispatch, rest)
        if shared_end >= 0 and recording:  # a body that ends the unit
            _keep(shared, found_at, again_at, failed & local_codes, included)
        ctx.function = None
    for rule in rules:
        if rule.code in failed:
            continue
        on_stage(f"rule {rule.code} ({rule.name})")
        ctx.rule = rule
        try:
            rule.check(ctx)
        except Exception:  # a rule bug must not take the run down
            errors.append(_crash(rule, path))
    ctx.rule = None
    # Findings grouped by rule, in rule order, as if each rule had run on its own.
    order = {rule.code: i for i, rule in enumerate(rules)}
    ctx.diagnostics.sort(key=lambda d: order.get(d.code, -1))
    return errors
