"""What to do about a setup problem: the engine's findings that come from a project the linter was
not told enough about get a `help:` line naming the `-I`, `-D` or include that would clear them.

- HL002 (include not found): the folders searched, and, when a file of that name lies under the
  linted folders or the project root (a bounded listing, made once per run), the `-I DIR` /
  `include-dirs` that finds it (`IncludeSearch`, `include_help`).
- HL003 on an `#error`: the macros whose values chose the branch it sits in (`error_help`).
- HL000 (unparsed region): an identifier of the region used like a macro call or a type that
  nothing defines (`undefined_name`).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
from collections.abc import Iterable, Sequence

from hlsllint.diagnostics import Diagnostic
from hlsllint.preprocess.lexer import ID, Directive, lexed
from hlsllint.source import SourceFile

MAX_LISTED_FILES = 50_000
"""Files listed per run when looking for a missing include (a home folder passed by mistake must
not take minutes)."""

_NOT_FOUND = re.compile(r"include file '(?P<name>.*)' not found")
_SHOWN = 3


def _shown(path: str) -> str:
    """`path` as the user would type it: relative to the working folder, unless that climbs out."""
    rel = os.path.relpath(path) if os.path.isabs(path) else os.path.normpath(path)
    if rel.startswith(".." + os.sep + ".." + os.sep) or rel == "..":
        rel = os.path.abspath(path)
    return rel.replace(os.sep, "/")


def _listed(items: Sequence[str]) -> str:
    more = f", +{len(items) - _SHOWN} more" if len(items) > _SHOWN else ""
    return ", ".join(f"`{x}`" for x in items[:_SHOWN]) + more


class IncludeSearch:
    """The files under some folders, by lower-case base name: listed once per folder and run,
    skipping hidden folders, at most `MAX_LISTED_FILES` files in all."""

    def __init__(self, limit: int = MAX_LISTED_FILES) -> None:
        self.limit = limit
        self.listed = 0
        self.cut = False
        self._roots: list[str] = []
        self._by_name: dict[str, list[str]] = {}
        self.advice: dict[tuple[object, ...], tuple[str, tuple[str, ...]]] = {}
        """`include_help`'s answers, by include name, includer folder, folders and config."""

    def _list(self, roots: Iterable[str]) -> None:
        for root in sorted({os.path.abspath(r) for r in roots}, key=len):
            if any(root == r or root.startswith(r.rstrip(os.sep) + os.sep) for r in self._roots):
                continue
            self._roots.append(root)
            for folder, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for f in files:
                    if self.listed >= self.limit:
                        self.cut = True
                        return
                    self.listed += 1
                    self._by_name.setdefault(f.lower(), []).append(os.path.join(folder, f))

    def holding(self, name: str, roots: Iterable[str]) -> tuple[list[str], list[str]]:
        """(folders DIR such that DIR/name is a file, files whose path ends with `name` but in
        another case) under `roots`."""
        self._list(roots)
        parts = [p for p in name.replace("\\", "/").split("/") if p and p != "."]
        if not parts or ".." in parts:
            return [], []
        tail = os.sep + os.sep.join(parts)
        exact: list[str] = []
        other_case: list[str] = []
        for path in self._by_name.get(parts[-1].lower(), []):
            if path.endswith(tail):
                exact.append(path[: -len(tail)] or os.sep)
            elif path.lower().endswith(tail.lower()):
                other_case.append(path)
        return sorted(set(exact)), sorted(other_case)


def include_help(
    d: Diagnostic,
    dirs: Sequence[str],
    search: IncludeSearch,
    roots: Sequence[str],
    config: tuple[str, str] | None = None,
) -> Diagnostic:
    """An HL002 finding with its help and notes: where the include was looked for, and the folder
    to add when a file of that name lies under `roots`. `config` is (config file, its folder),
    when a config applies: `include-dirs` are relative to its folder. The advice is worked out
    once per include name, includer folder, folders and config in `search` (a header missing
    an include is reported once per unit that includes it: 358 times for 14 places on an engine)."""
    m = _NOT_FOUND.fullmatch(d.message)
    if m is None or d.help is not None:
        return d
    name = m.group("name")
    includer = os.path.dirname(d.path) or "."
    key = (name, includer, tuple(dirs), tuple(roots), config)
    advice = search.advice.get(key)
    if advice is None:
        advice = search.advice[key] = _include_advice(name, includer, dirs, search, roots, config)
    help, notes = advice
    return dataclasses.replace(d, help=help, notes=(*d.notes, *notes))


def _include_advice(
    name: str,
    includer: str,
    dirs: Sequence[str],
    search: IncludeSearch,
    roots: Sequence[str],
    config: tuple[str, str] | None,
) -> tuple[str, tuple[str, ...]]:
    searched = [_shown(includer), *(_shown(x) for x in dirs)]
    notes = [f"looked beside the includer ({_listed(searched[:1])})"]
    if dirs:
        notes[0] += f" and in the include folders {_listed(searched[1:])}"
    found, other_case = search.holding(name, roots)
    found = sorted(found, key=lambda f: (_distance(includer, f), f))
    config_file = "hlsllint.toml" if config is None else _shown(config[0])
    where = f"`include-dirs` in {config_file}"
    if found:
        folder = found[0]
        entry = (os.path.relpath(folder, config[1]) if config is not None else _shown(folder)).replace(
            os.sep, "/"
        )
        setting = (
            f'add "{entry}" to {where}' if dirs else f'set `include-dirs = ["{entry}"]` in {config_file}'
        )
        help = f"pass `-I {shlex.quote(_shown(folder))}`, or {setting}"
        if len(found) > 1:
            also = [_shown(f) for f in found[1 : 1 + _SHOWN]] + found[1 + _SHOWN :]  # the rest: counted
            notes.append(f"`{name}` is also under {_listed(also)}")
    elif other_case:
        help = (
            f"the file on disk differs only in case (`{_shown(other_case[0])}`): match the `#include` to it"
        )
    else:
        help = f"pass the folder that holds it with `-I DIR`, or add it to {where}"
        cut = f" (the first {search.listed:,} files)" if search.cut else ""
        notes.append(f"no file named `{name}` under {_listed([_shown(r) for r in roots])}{cut}")
    return help, tuple(notes)


def _distance(a: str, b: str) -> int:
    """Folders between `a` and `b` (the nearest candidate is suggested first)."""
    try:
        rel = os.path.relpath(os.path.abspath(b), os.path.abspath(a))
    except ValueError:
        return 1 << 20
    return len([p for p in rel.split(os.sep) if p and p != "."])


# -- #error ------------------------------------------------------------------------------------------

_CONDITIONS = frozenset(("if", "ifdef", "ifndef", "elif", "elifdef", "elifndef"))


def error_help(src: SourceFile, at: int) -> tuple[str, list[str]] | None:
    """(help, notes) for the `#error` whose `#` is at offset `at` of `src`, when it sits in a
    conditional branch whose conditions name macros: defining them picks another branch."""
    lf = lexed(src.path, src.text)
    stack: list[list[Directive]] = []  # the open groups: their #if and the #elif/#else after it
    for c in lf.chunks:
        if not isinstance(c, Directive):
            continue
        if c.hash >= at:
            break
        if c.name in ("if", "ifdef", "ifndef"):
            stack.append([c])
        elif c.name in ("elif", "elifdef", "elifndef", "else") and stack:
            stack[-1].append(c)
        elif c.name == "endif" and stack:
            stack.pop()
    if not stack:
        return None
    branch = stack[-1]
    names: list[str] = []
    for c in branch:
        if c.name in _CONDITIONS:
            for t in lf.tokens[c.lo : c.hi]:
                if t.kind == ID and t.text != "defined" and t.text not in names:
                    names.append(t.text)
    if not names:
        return None
    macros = ", ".join(f"`{n}`" for n in names[:4]) + (", ..." if len(names) > 4 else "")
    one_of = "one of " if branch[-1].name == "else" and len(names) > 1 else ""
    help = (
        f"define {one_of}{macros} as the build does: `-D {names[0]}=...` on the command line, "
        "`[defines]` in the config, or one `[variants]` entry per configuration"
    )
    if branch[-1].name == "else":
        where = f"in the `#else` of `{_directive(src, branch[0])}`"
    else:
        where = f"under `{_directive(src, branch[-1])}`"
        if len(branch) > 1:
            where += " (the conditions before it being false)"
    return help, [f"the `#error` is {where}: the defines the linter was given chose this branch"]


def _directive(src: SourceFile, c: Directive) -> str:
    shown = " ".join(src.text[c.hash : c.end].split())
    return shown if len(shown) <= 60 else shown[:57] + "..."


# -- unparsed regions -----------------------------------------------------------------------------------

_MACRO_LIKE = re.compile(r"\b([A-Z_][A-Z0-9_]*[A-Z][A-Z0-9_]*)\b(?=\s*(\(|[A-Za-z_]))")
"""An upper-case name (a macro, by convention) followed by `(` (used like a macro call) or by a
name (used like a type)."""


def undefined_name(text: str, start: int, end: int, sources: Iterable[SourceFile]) -> str | None:
    """The first upper-case name on the lines of `text[start:end]` (preprocessed text) used like
    a macro call or a type that nothing defines: the unit declares no struct, typedef or function
    of that name, and none of its files `#define`s it (a defined macro would have been
    expanded). Read from the text: the semantic model is the rules' to build."""
    lo = text.rfind("\n", 0, start) + 1
    hi = text.find("\n", end)
    line = text[lo : hi if hi >= 0 else len(text)]
    for m in _MACRO_LIKE.finditer(line):
        name = m.group(1)
        declared = (
            rf"\b(?:struct|class|interface|typedef)\b[^;{{]*\b{name}\b|\b\w+(?:<[^<>;]*>)?\s+{name}\s*\("
        )
        if re.search(declared, text):
            continue
        define = re.compile(rf"#\s*define\s+{name}\b")
        if any(name in s.text and define.search(s.text) for s in sources):
            continue
        return name
    return None
