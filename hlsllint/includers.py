"""Who includes whom: the include graph of the linted files and, for a header passed alone, of
the whole project, so that the header is analysed in the context of the files that include it.

A header's macros, types and even stage often come from its includers; pre-commit passes only
the files that changed, so a changed header would otherwise be analysed without them. The
project's graph is built once per project root and run (a regex scan of `#include` lines, not a
preprocess).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping

from hlsllint import preprocess as pp_stage
from hlsllint.config import ConfigResolver
from hlsllint.discovery import discover, git_checkout_of
from hlsllint.source import SourceError, SourceFile

Loader = Callable[[str], SourceFile]


def direct_includes(path: str, dirs: tuple[str, ...], loader: Loader) -> list[str | None]:
    """The files `path` names in `#include` lines (whatever the #if around them), in order,
    resolved under the include folders `dirs`; None where a name does not resolve."""
    try:
        text = loader(path).text
    except SourceError:
        return []
    return [
        pp_stage.resolve_include(n, path, dirs, angled) for n, angled, _s, _e in pp_stage.scan_includes(text)
    ]


def file_includes(path: str, resolver: ConfigResolver, loader: Loader) -> set[str]:
    """The files `path` names in `#include` lines that resolve (whatever the #if around them)."""
    targets = direct_includes(path, resolver.for_path(path).include_dirs, loader)
    return {os.path.normpath(t) for t in targets if t is not None}


def translation_units(files: list[str], includes: Mapping[str, Iterable[str]]) -> list[str]:
    """The files of `files` that are units of their own: those no other of them includes (through
    `includes`, file -> the files it includes), in order, then those reached only through include
    cycles. A file the others include is a header, seen through its includers."""
    linted = set(files)
    included = {t for f, ts in includes.items() for t in ts if t != f and t in linted}
    roots = [f for f in files if f not in included]
    reached: set[str] = set()
    stack = list(roots)
    while stack:
        f = stack.pop()
        if f in reached:
            continue
        reached.add(f)
        stack.extend(t for t in includes.get(f, ()) if t in linted)
    return roots + [f for f in files if f not in reached]


class IncludeGraph:
    def __init__(self, includes: dict[str, set[str]]) -> None:
        self.includes = includes
        self.included_by: dict[str, set[str]] = {}
        for f, targets in includes.items():
            for t in targets:
                if t != f:
                    self.included_by.setdefault(t, set()).add(f)

    def top_includers(self, header: str) -> list[str]:
        """The files that include `header` (directly or not) and that nothing else includes."""
        seen = {header}
        stack = [header]
        tops: set[str] = set()
        while stack:
            f = stack.pop()
            parents = self.included_by.get(f, set())
            if not parents and f != header:
                tops.add(f)
            for p in parents - seen:
                seen.add(p)
                stack.append(p)
        return sorted(tops)


_PROJECTS: dict[tuple[str, int], IncludeGraph] = {}


def project_graph(root: str, resolver: ConfigResolver, loader: Loader) -> IncludeGraph:
    """The include graph of every lintable file under `root` (once per root and resolver)."""
    key = (os.path.abspath(root), id(resolver))
    graph = _PROJECTS.get(key)
    if graph is None:
        files = discover([root], resolver)
        graph = IncludeGraph({f: file_includes(f, resolver, loader) for f in files})
        _PROJECTS.clear()  # one project per run; don't keep old resolvers' graphs alive
        _PROJECTS[key] = graph
    return graph


def includers_of(headers: Iterable[str], resolver: ConfigResolver, loader: Loader) -> dict[str, list[str]]:
    """For each header passed alone: the top-level files under its project root that include it
    (empty when nothing does: the header is then linted on its own)."""
    out: dict[str, list[str]] = {}
    for h in headers:
        root = project_root(h, resolver)
        if root is None:
            out[h] = []
            continue
        graph = project_graph(root, resolver, loader)
        tops = graph.top_includers(os.path.normpath(os.path.abspath(h)))
        out[h] = tops if os.path.isabs(h) else [os.path.relpath(t) for t in tops]
    return out


def headers_reached(
    includer: str, headers: Iterable[str], resolver: ConfigResolver, loader: Loader
) -> list[str]:
    """The `headers` that `includer` includes, directly or not, by its project's include graph
    (whatever the #if around the `#include` lines), in the order given."""
    root = project_root(includer, resolver)
    if root is None:
        return []
    graph = project_graph(root, resolver, loader)
    seen: set[str] = set()
    stack = [os.path.normpath(os.path.abspath(includer))]
    while stack:
        f = stack.pop()
        if f not in seen:
            seen.add(f)
            stack.extend(graph.includes.get(f, ()))
    return [h for h in headers if os.path.normpath(os.path.abspath(h)) in seen]


def project_root(path: str, resolver: ConfigResolver) -> str | None:
    """The folder of the config file that applies to `path`, else of the enclosing git checkout,
    else None (no project: a file passed alone is linted alone)."""
    settings = resolver.for_path(path)
    if settings.config_path is not None and _is_under(path, settings.root):
        return settings.root
    return git_checkout_of(os.path.dirname(os.path.abspath(path)))


def _is_under(path: str, folder: str) -> bool:
    a, b = os.path.abspath(path), os.path.abspath(folder)
    return a == b or a.startswith(b.rstrip(os.sep) + os.sep)
