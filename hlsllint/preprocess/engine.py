"""The preprocessor proper: directives, conditional groups and includes, over the macro expander
(`macros.py`).

Output (`output.py`): the text of every active, non-directive line is copied verbatim; a top-level macro
invocation is replaced by its expansion (one segment mapped to the invocation's range, followed
by as many line breaks as the invocation spanned, so later lines keep their row); directive lines
and inactive groups become blank lines; an included file's output is spliced in at its directive.

Headers once per distinct context: expanding an included file is recorded (`Expansion`) with
everything it read: the definition or absence of every name it could have looked up (the
identifiers of the files it read and of the macro bodies it expanded, pasted names, include
guards), whether each include target was already `#pragma once`d, included or on the include
stack, and what every include probe and file read found. The next inclusion of the same file
(same text, same include dirs), in this unit or a later one of the process, replays the record
when all of that is the same: its output and segments, diagnostics, macro definitions, `#pragma
once` and included files. Anything it cannot vouch for (`__COUNTER__`, limits, unreadable files)
is never recorded.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Sequence

from hlsllint.files import is_special
from hlsllint.preprocess.expansions import (
    EXPANSIONS,
    Diag,
    Expansion,
    Macro,
    drop_expansion,
    relative_segment,
    same_macro,
    store_expansion,
)
from hlsllint.preprocess.expression import ExpressionError, evaluate
from hlsllint.preprocess.includes import resolve_include
from hlsllint.preprocess.lexer import (
    ID,
    NUM,
    STR,
    Directive,
    LexedFile,
    Text,
    Token,
    lexed,
)
from hlsllint.preprocess.macros import (
    EMPTY,
    LimitError,
    MacroExpander,
    Reader,
    Tok,
    UnterminatedError,
    join_tokens,
)
from hlsllint.preprocess.output import Output
from hlsllint.source import SourceError, SourceFile

MAX_INCLUDE_DEPTH = 64
MAX_INCLUSIONS = 20_000
"""Files spliced into one translation unit (guards against exponential include trees)."""
MAX_TOTAL_TOKENS = 5_000_000
MAX_OUTPUT_CHARS = 64 * 1024 * 1024

_SPLICE = re.compile(r"\\(?:\r\n|\r|\n)")


_CONDITIONAL = frozenset(("if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif"))
_KNOWN = frozenset(
    (
        *_CONDITIONAL,
        "define",
        "undef",
        "include",
        "include_next",
        "import",
        "line",
        "pragma",
        "error",
        "warning",
        "",
    )
)


class _Cond:
    __slots__ = ("else_seen", "end", "parent_active", "start", "taken")

    def __init__(self, parent_active: bool, taken: bool, start: int, end: int) -> None:
        self.parent_active = parent_active
        self.taken = taken
        self.else_seen = False
        self.start = start
        self.end = end


class _Mark:
    """Where a recording started in each of the preprocessor's logs."""

    def __init__(self, pp: Preprocessor) -> None:
        self.files = len(pp._rec_files)
        self.names = len(pp._rec_names)
        self.writes = len(pp._rec_writes)
        self.paths = len(pp._rec_paths)
        self.once = len(pp._rec_once)
        self.incl = len(pp._rec_incl)
        self.io = len(pp._rec_io)
        self.sources = len(pp._rec_sources)
        self.depths = len(pp._rec_depths)
        self.bad = len(pp._rec_bad)
        self.diagnostics = len(pp.diagnostics)
        out = pp.out
        self.parts = len(out.parts)
        self.segs = len(out.segs)
        self.pos = out.pos
        self.last_end = out.segs[-1][1] if out.segs else None
        self.inclusions = pp._inclusions
        self.tokens = pp._total_tokens
        self.counter = pp._counter
        self.stack = len(pp._stack)

    def expansion(self, pp: Preprocessor) -> Expansion | None:
        """The recording from the mark to now, or None when it cannot be reused."""
        out = pp.out
        if len(pp._rec_bad) > self.bad or pp._counter != self.counter:
            return None
        if self.segs and out.segs[self.segs - 1][1] != self.last_end:
            return None  # its first segment merged with the includer's last one
        before: dict[str, Macro | None] = {}
        for name, old in pp._rec_writes[self.writes :]:
            before.setdefault(name, old)
        names = frozenset().union(
            *(lf.ids for lf in pp._rec_files[self.files :]), *pp._rec_names[self.names :]
        )
        macros = pp.macros
        defined: list[tuple[str, Macro]] = []
        undefined: list[str] = []
        for n in names:
            value = before[n] if n in before else macros.get(n)
            if value is None:
                undefined.append(n)
            else:
                defined.append((n, value))
        writes = tuple((n, macros.get(n)) for n in before)
        new_once = set(pp._rec_once[self.once :])
        new_incl = set(pp._rec_incl[self.incl :])
        once, incl, stack = pp._once, pp._included_set, pp._stack
        paths = tuple(
            (p, p in once and p not in new_once, p in incl and p not in new_incl, p in stack)
            for p in dict.fromkeys(pp._rec_paths[self.paths :])
        )
        depths = pp._rec_depths[self.depths :]
        return Expansion(
            defined=tuple(defined),
            undefined=frozenset(undefined),
            names=names,
            paths=paths,
            io=tuple(pp._rec_io[self.io :]),
            depth=max(depths) - self.stack if depths else -1,
            writes=writes,
            once=tuple(pp._rec_once[self.once :]),
            sources=tuple(pp._rec_sources[self.sources :]),
            diagnostics=tuple(pp.diagnostics[self.diagnostics :]),
            text="".join(out.parts[self.parts :]),
            segs=tuple(relative_segment(seg, self.pos) for seg in out.segs[self.segs :]),
            inclusions=pp._inclusions - self.inclusions,
            tokens=pp._total_tokens - self.tokens,
        )


class Preprocessor(MacroExpander):
    """Directives, conditional groups and includes over the macro expander: one translation unit
    (`run`), its output in `out`."""

    def __init__(
        self,
        loader: Callable[[str], SourceFile],
        include_dirs: Sequence[str] = (),
        defines: Sequence[tuple[str, str]] = (),
        stop_after: Sequence[str] = (),
    ) -> None:
        self.loader = loader
        self.include_dirs = tuple(include_dirs)
        super().__init__()
        self.stop_after = {_absolute(p) for p in stop_after}
        """The headers (absolute, normalised) not expanded yet of those after whose first
        expansions the unit ends: the state headers passed alone are analysed in (`lint.py`);
        empty for a whole unit."""
        self.stopped = False
        self.sources: dict[str, SourceFile] = {}
        self.included: list[str] = []
        self.missing: set[str] = set()
        """Paths an include search probed and found absent (a file created there changes the unit)."""
        self._included_set: set[str] = set()
        self._once: set[str] = set()
        self._loaded: dict[str, SourceFile] = {}
        self._stack: list[str] = []
        self._inclusions = 0
        self._total_tokens = 0
        self.out = Output()
        # What the expansion of a header reads and does, for Expansion (appended as it happens;
        # a recording is a slice of each list, so recordings nest; `MacroExpander` keeps the
        # names it looks up, the definitions it changes and the reasons not to reuse it).
        self._rec_files: list[LexedFile] = []
        """Files read (their identifiers are names the expansion may have looked up)."""
        self._rec_paths: list[str] = []
        """Include targets whose #pragma once / included / on-the-stack state was consulted."""
        self._rec_once: list[str] = []
        self._rec_incl: list[str] = []
        """Paths newly added to `_once` and `_included_set`."""
        self._rec_io: list[tuple[str, bool | str]] = []
        """Include probes (path, found) and files read (path, text), in order."""
        self._rec_sources: list[str] = []
        """Include targets added to `sources`, in order."""
        self._rec_depths: list[int] = []
        """Include-stack depths at which nesting was checked."""
        self.replayed = 0
        """Header expansions reused from the process-wide cache (for tests and benches)."""
        for name, value in defines:
            self.define_from_text(f"{name} {value}", "<command line>")

    # -- files --------------------------------------------------------------------------------

    def run(self, main: SourceFile) -> None:
        self.sources[main.path] = main
        self._stack.append(main.path)
        self._process(main)
        self._stack.pop()

    def _process(self, sf: SourceFile) -> None:
        lf = lexed(sf.path, sf.text)
        self._rec_files.append(lf)
        if lf.pragma_once and sf.path not in self._once:
            self._once.add(sf.path)
            self._rec_once.append(sf.path)
        path, text, toks = sf.path, sf.text, lf.tokens
        out = self.out
        saved = (self._cur_path, self._cur_lexed, self._cur_offset)
        self._cur_path, self._cur_lexed = path, lf
        conds: list[_Cond] = []
        active = True
        cursor = 0
        deadline = self.deadline
        for c in lf.chunks:
            deadline.tick()
            if self.stopped:
                return
            if isinstance(c, Text):
                if active:
                    out.verbatim(path, text, cursor, c.start)
                    self._text(lf, path, c)
                else:
                    out.blank(path, text, cursor, c.end)
                cursor = c.end
                continue
            if active:
                out.verbatim(path, text, cursor, c.start)
            else:
                out.blank(path, text, cursor, c.start)
            self._cur_offset = c.hash
            name = c.name
            if name in _CONDITIONAL:
                active = self._conditional(lf, c, conds, active)
            elif active:
                if name in ("include", "include_next", "import"):
                    self._include(lf, sf, c)
                elif name == "define":
                    err = self._define(toks, c.lo, c.hi, path, c.start)
                    if err:
                        self._error(err, c.hash, c.end)
                elif name == "undef":
                    if c.lo < c.hi and toks[c.lo].kind == ID:
                        self._rec_writes.append((toks[c.lo].text, self.macros.get(toks[c.lo].text)))
                        self.macros.pop(toks[c.lo].text, None)
                    else:
                        self._error("macro name missing in #undef", c.hash, c.end)
                elif name == "error":
                    self._error(f"#error {text[c.name_end : c.end].strip()}", c.hash, c.end)
                elif name not in _KNOWN and not name.isdigit():
                    self._error(f"unknown directive '#{name}'", c.hash, c.end)
            out.blank(path, text, c.hash, c.end)
            cursor = c.end
        if self.stopped:
            return
        if active:
            out.verbatim(path, text, cursor, len(text))
        else:
            out.blank(path, text, cursor, len(text))
        for cond in conds:
            self._error("unterminated conditional directive", cond.start, cond.end)
        self._cur_path, self._cur_lexed, self._cur_offset = saved

    def _text(self, lf: LexedFile, path: str, c: Text) -> None:
        toks, text, macros, out = lf.tokens, lf.text, self.macros, self.out
        pos = c.start
        i = c.lo
        hi = c.hi
        deadline = self.deadline
        while i < hi:
            deadline.tick()
            t = toks[i]
            if t.kind != ID or t.text not in macros:
                i += 1
                continue
            m = macros[t.text]
            if m.params is not None and not (i + 1 < hi and toks[i + 1].text == "("):
                i += 1
                continue
            self._cur_offset = t.start
            reader = Reader([Tok(t.kind, t.text, t.ws, EMPTY)], toks, i + 1, hi)
            reader.end = t.end
            self._budget = 0
            try:
                result = self._expand(reader)
            # each clause names its exception apart: mypyc types a name by its first binding
            except UnterminatedError as unterminated:
                self._error(f"unterminated invocation of macro '{unterminated.name}'", t.start, t.end)
                i += 1
                continue
            except (LimitError, RecursionError) as limit:
                self._rec_bad.append("limit")
                self._error(f"{limit or 'macro expansion too deep'}; not expanded", t.start, t.end)
                i += 1
                continue
            self._total_tokens += self._budget
            end = reader.end
            out.verbatim(path, text, pos, t.start)
            gen = join_tokens(result) + "\n" * text.count("\n", t.start, end)
            out.generated(path, gen, t.start, end)
            pos = end
            i = reader.pos
            if self._total_tokens > MAX_TOTAL_TOKENS or out.pos > MAX_OUTPUT_CHARS:
                self._rec_bad.append("limit")
                self._error("translation unit too large: macro expansion stopped", t.start, end)
                self.macros.clear()
                macros = self.macros
        out.verbatim(path, text, pos, c.end)

    def _expand_directive(self, lf: LexedFile, lo: int, hi: int) -> list[Tok]:
        toks = [Tok(t.kind, t.text, t.ws, EMPTY) for t in lf.tokens[lo:hi]]
        self._budget = 0
        return self._expand(Reader(list(reversed(toks))))

    def _conditional(self, lf: LexedFile, c: Directive, conds: list[_Cond], active: bool) -> bool:
        name = c.name
        if name in ("if", "ifdef", "ifndef"):
            cond = _Cond(active, True, c.hash, c.end)
            conds.append(cond)
            if not active:
                return False
            cond.taken = self._condition(lf, c)
            return cond.taken
        if not conds:
            self._error(f"#{name} without #if", c.hash, c.end)
            return active
        cond = conds[-1]
        if name == "endif":
            conds.pop()
            return cond.parent_active
        if cond.else_seen:
            self._error(f"#{name} after #else", c.hash, c.end)
            return False
        if name == "else":
            cond.else_seen = True
            taken = cond.parent_active and not cond.taken
            cond.taken = True
            return taken
        # elif / elifdef / elifndef
        if not cond.parent_active or cond.taken:
            return False
        cond.taken = self._condition(lf, c)
        return cond.taken

    def _condition(self, lf: LexedFile, c: Directive) -> bool:
        toks = lf.tokens
        name = c.name
        if name in ("ifdef", "ifndef", "elifdef", "elifndef"):
            if c.lo >= c.hi or toks[c.lo].kind != ID:
                self._error(f"macro name missing in #{name}", c.hash, c.end)
                return False
            defined = toks[c.lo].text in self.macros
            return defined if name in ("ifdef", "elifdef") else not defined
        items = self._replace_defined([Tok(t.kind, t.text, t.ws, EMPTY) for t in toks[c.lo : c.hi]])
        if items is None:
            self._error("'defined' needs a macro name", c.hash, c.end)
            return False
        try:
            self._budget = 0
            self._in_if = True
            expanded = self._expand(Reader(list(reversed(items))))
            # `defined` coming out of a macro (e.g. `#define HAS(x) defined(x)`): accepted as GCC does.
            again = self._replace_defined(expanded)
            if again is None:
                self._error("'defined' needs a macro name", c.hash, c.end)
                return False
            plain = [Token(t.kind, t.text, 0, 0, t.ws) for t in again]
            return evaluate(plain) != 0
        except UnterminatedError as unterminated:  # (names apart, as in `_text`)
            self._error(f"unterminated invocation of macro '{unterminated.name}' in #{name}", c.hash, c.end)
        except LimitError as limit:
            self._error(f"{limit} in #{name}", c.hash, c.end)
        except ExpressionError as bad:
            self._error(str(bad), c.hash, c.end)
        except RecursionError:
            self._rec_bad.append("limit")
            self._error(f"#{name} expression nested too deeply", c.hash, c.end)
        finally:
            self._in_if = False
        return False

    def _replace_defined(self, toks: list[Tok]) -> list[Tok] | None:
        """`defined X` / `defined(X)` replaced by 1 or 0; None when malformed."""
        out: list[Tok] = []
        k, n = 0, len(toks)
        while k < n:
            t = toks[k]
            k += 1
            if t.kind != ID or t.text != "defined":
                out.append(t)
                continue
            if k < n and toks[k].kind == ID:
                target = toks[k].text
                k += 1
            elif k + 2 < n and toks[k].text == "(" and toks[k + 1].kind == ID and toks[k + 2].text == ")":
                target = toks[k + 1].text
                k += 3
            else:
                return None
            out.append(Tok(NUM, "1" if target in self.macros else "0", t.ws, EMPTY))
        return out

    def _include_name(self, lf: LexedFile, c: Directive) -> tuple[str, bool] | None:
        toks = lf.tokens
        if c.lo >= c.hi:
            return None
        first = toks[c.lo]
        if first.kind == STR and first.text.startswith('"'):
            return first.text[1:-1], False
        if first.text == "<":
            for k in range(c.lo + 1, c.hi):
                if toks[k].text in (">", ">>", ">=", ">>="):
                    return lf.text[first.end : toks[k].start], True
            return None
        try:
            expanded = self._expand_directive(lf, c.lo, c.hi)
        except (UnterminatedError, LimitError, RecursionError):
            self._rec_bad.append("limit")
            return None
        if expanded and expanded[0].kind == STR and expanded[0].text.startswith('"'):
            return expanded[0].text[1:-1], False
        if expanded and expanded[0].text == "<" and expanded[-1].text == ">":
            return join_tokens(expanded[1:-1]), True
        return None

    def _exists(self, p: str) -> bool:
        """A file on disk, or one the loader can serve (e.g. an unsaved editor buffer). A FIFO,
        a device or a socket exists too (the compilers would open it): reading it fails, and
        the include says why, rather than that it was not found."""
        if p in self.sources or p in self._loaded or os.path.isfile(p):
            self._rec_io.append((p, True))
            return True
        try:
            self._loaded[p] = self.loader(p)
        except Exception:
            if is_special(p):
                self._rec_io.append((p, True))
                return True
            self.missing.add(p)
            self._rec_io.append((p, False))
            return False
        self._rec_io.append((p, True))
        return True

    def _read(self, resolved: str) -> SourceFile | SourceError:
        """The file an include resolved to (recorded: a reused expansion checks it is unchanged)."""
        sf = self.sources.get(resolved) or self._loaded.get(resolved)
        if sf is None:
            try:
                sf = self.loader(resolved)
            except SourceError as e:
                return e
        self._rec_io.append((resolved, sf.text))
        return sf

    def _add_source(self, resolved: str, sf: SourceFile) -> None:
        self.sources.setdefault(sf.path, sf)
        self.sources.setdefault(resolved, sf)
        self._rec_sources.append(resolved)
        if resolved not in self._included_set:
            self._included_set.add(resolved)
            self.included.append(resolved)
            self._rec_incl.append(resolved)

    # -- reusing the expansion of a header --------------------------------------------------------

    def _expand_file(self, sf: SourceFile) -> None:
        """`_process(sf)` for an included file, reusing an earlier expansion of the same file
        (in this or another unit of the process) when everything it read is the same here."""
        key = (sf.path, sf.text, self.include_dirs)
        inside = _absolute(sf.path) if self.stop_after else ""
        for exp in list(EXPANSIONS.get(key, ())):
            if inside and self._reads_stop(exp, inside):
                continue  # it expands a header the unit stops after: expanded afresh, to see it
            ok = self._replay(exp)
            if ok is None:
                continue
            if ok:
                with contextlib.suppress(KeyError):
                    EXPANSIONS.move_to_end(key)
                return
            drop_expansion(key, exp)  # a file it read has changed
            break
        mark = _Mark(self)
        self._process(sf)
        recorded = mark.expansion(self)
        if recorded is not None:
            store_expansion(key, recorded)

    def _reads_stop(self, exp: Expansion, own: str) -> bool:
        """Whether a recorded expansion (of the file `own`) reads a header the unit stops after
        other than itself (a header re-including itself under a guard reads itself)."""
        stop = self.stop_after
        for path, seen in exp.io:
            if not isinstance(seen, bool):
                full = _absolute(path)
                if full != own and full in stop:
                    return True
        return False

    def _replay(self, exp: Expansion) -> bool | None:
        """Apply a recorded expansion if it fits the current state: None when it does not (and
        nothing was done), False when a file it read differs (the include probes and reads done
        while checking are the ones a fresh expansion starts with), True when applied."""
        macros = self.macros
        if not macros.keys().isdisjoint(exp.undefined):
            return None
        for name, value in exp.defined:
            if not same_macro(macros.get(name), value):
                return None
        once, incl, stack = self._once, self._included_set, self._stack
        for path, in_once, in_incl, on_stack in exp.paths:
            if (path in once) != in_once or (path in incl) != in_incl or (path in stack) != on_stack:
                return None
        out = self.out
        if (
            self._inclusions + exp.inclusions > MAX_INCLUSIONS
            or out.pos + len(exp.text) > MAX_OUTPUT_CHARS
            or self._total_tokens + exp.tokens > MAX_TOTAL_TOKENS
            or len(stack) + exp.depth > MAX_INCLUDE_DEPTH
            or (out.segs and exp.segs and out.segs[-1][2] == exp.segs[0][2])
        ):
            return None
        files: dict[str, SourceFile] = {}
        for path, seen in exp.io:
            if isinstance(seen, bool):
                if self._exists(path) != seen:
                    return False
                continue
            sf = self._read(path)
            if isinstance(sf, SourceError) or (sf.text is not seen and sf.text != seen):
                return False
            files[path] = sf
        # Everything the expansion read is the same: do what it did.
        for name, final in exp.writes:
            self._rec_writes.append((name, macros.get(name)))
            if final is None:
                macros.pop(name, None)
            else:
                macros[name] = final
        for path in exp.once:
            if path not in once:
                once.add(path)
                self._rec_once.append(path)
        for path in exp.sources:
            self._add_source(path, files[path])
        self.diagnostics.extend(exp.diagnostics)
        base = out.pos
        out.parts.append(exp.text)
        out.segs.extend([a + base, b + base, p, s, e, k] for a, b, p, s, e, k in exp.segs)
        out.pos += len(exp.text)
        self._inclusions += exp.inclusions
        self._total_tokens += exp.tokens
        self._rec_names.append(exp.names)
        self._rec_paths.extend(p for p, _, _, _ in exp.paths)
        if exp.depth >= 0:
            self._rec_depths.append(len(stack) + exp.depth)
        self.replayed += 1
        return True

    def _include(self, lf: LexedFile, includer: SourceFile, c: Directive) -> None:
        parsed = self._include_name(lf, c)
        if parsed is None:
            self._error('#include expects "FILENAME" or <FILENAME>', c.hash, c.end)
            return
        name, angled = parsed
        name = _SPLICE.sub("", name)  # a backslash-newline inside the name is spliced out
        resolved = resolve_include(name, includer.path, self.include_dirs, angled, self._exists)
        if resolved is None:
            self.diagnostics.append(
                Diag("HL002", f"include file '{name}' not found", includer.path, c.hash, c.end)
            )
            return
        self._rec_paths.append(resolved)
        if resolved in self._once:
            return
        sf = self._read(resolved)
        self.deadline.check()  # reading a file may have taken long
        if isinstance(sf, SourceError):
            self._rec_bad.append("unreadable")
            self._error(f"cannot read include file '{name}': {sf}", c.hash, c.end)
            return
        target = lexed(sf.path, sf.text)
        if target.guard is not None:
            self._rec_names.append(frozenset((target.guard,)))
            if target.guard in self.macros:
                return
        if target.pragma_once and resolved in self._included_set:
            return
        if resolved in self._stack:
            self._error(f"#include cycle: '{name}' includes itself", c.hash, c.end)
            return
        self._rec_depths.append(len(self._stack))
        if len(self._stack) > MAX_INCLUDE_DEPTH:
            self._rec_bad.append("limit")
            self._error(f"#include nested deeper than {MAX_INCLUDE_DEPTH}", c.hash, c.end)
            return
        self._inclusions += 1
        if self._inclusions > MAX_INCLUSIONS or self.out.pos > MAX_OUTPUT_CHARS:
            self._rec_bad.append("limit")
            self._error("translation unit too large: #include skipped", c.hash, c.end)
            return
        self._add_source(resolved, sf)
        self._stack.append(resolved)
        self._expand_file(sf)
        self._stack.pop()
        if target.open_comment:
            # Close a comment left open by the header so it does not swallow the includer's text.
            self._error(f"unterminated comment in '{name}'", c.hash, c.end)
            self.out.generated(includer.path, "*/", c.hash, c.end)
        if self.stop_after:
            self.stop_after.discard(_absolute(resolved))
            if not self.stop_after:
                # The last header is expanded: the unit ends here. What encloses it is not recorded.
                self.stopped = True
                self._rec_bad.append("stopped")


def _absolute(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))
