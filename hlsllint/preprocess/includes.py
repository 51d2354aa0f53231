"""Finding and resolving `#include` directives (also used by the driver, without preprocessing)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

# Comments and string literals are matched (and skipped) so that an #include inside them is not
# taken; the directive itself must start its line.
_SCAN_RE = re.compile(
    r"""
    /\*.*?(?:\*/|\Z)
  | //(?:\\\r?\n|[^\r\n])*
  | "(?:\\.|[^"\\\r\n])*"?
  | ^[ \t]*\#[ \t]*include[ \t]*(?:"(?P<q>[^"\r\n]*)"|<(?P<a>[^>\r\n]*)>)
    """,
    re.VERBOSE | re.DOTALL | re.MULTILINE,
)


def scan_includes(text: str) -> list[tuple[str, bool, int, int]]:
    """Every `#include "x"` / `#include <x>` outside comments: (name, angled, start, end).

    Cheap and structural only: it does not evaluate `#if`, so both branches' includes are listed.
    `start`/`end` delimit the directive (from `#` to the closing delimiter).
    """
    found: list[tuple[str, bool, int, int]] = []
    if "include" not in text:
        return found
    for m in _SCAN_RE.finditer(text):
        q, a = m.group("q"), m.group("a")
        if q is None and a is None:
            continue
        start = text.index("#", m.start())
        found.append((q if q is not None else a, q is None, start, m.end()))
    return found


def _join(base: str, name: str) -> str:
    return os.path.normpath(os.path.join(base, name)) if base else os.path.normpath(name)


def resolve_include(
    name: str,
    includer: str,
    include_dirs: Sequence[str],
    angled: bool,
    exists: Callable[[str], bool] = os.path.isfile,
) -> str | None:
    """The path an include refers to, or None.

    `"x"` looks beside the including file first, then in the include dirs; `<x>` looks in the
    include dirs first, then beside the includer (DXC accepts both). Backslashes are separators.
    Paths are normalised and stay relative when the includer's path is relative.
    """
    if not name:
        return None
    if os.sep == "/" and "\\" in name:
        name = name.replace("\\", "/")
    if os.path.isabs(name):
        p = os.path.normpath(name)
        return p if exists(p) else None
    here = os.path.dirname(includer)
    candidates = [here, *include_dirs] if not angled else [*include_dirs, here]
    for base in candidates:
        p = _join(base, name)
        if exists(p):
            return p
    return None
