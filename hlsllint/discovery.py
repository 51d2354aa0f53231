"""Which files to lint: paths from the command line, walked recursively, minus ignored ones."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING

from hlsllint.config import ConfigResolver, Settings, relative_to, warn_once
from hlsllint.files import read_regular

if TYPE_CHECKING:
    from pathspec import PathSpec


def _spec(lines: Iterable[str]) -> PathSpec:
    # Imported here, not at the top: a run on named files (pre-commit, an editor) matches no
    # pattern and skips pathspec's import (start-up cost).
    import pathspec

    return pathspec.PathSpec.from_lines("gitignore", lines)


@cache
def _gitignore(directory: str) -> PathSpec | None:
    path = os.path.join(directory, ".gitignore")
    try:
        data = read_regular(path)  # not a FIFO or a device named .gitignore
    except OSError:
        return None
    return _spec(data.decode("utf-8", errors="replace").splitlines())


@cache
def _exclude_spec(patterns: tuple[str, ...]) -> PathSpec:
    return _spec(patterns)


def is_gitignored(path: str, is_dir: bool = False) -> bool:
    """True when a .gitignore in this folder or a parent folder (up to the git root) ignores it."""
    path = os.path.abspath(path)
    directory = os.path.dirname(path)
    while True:
        spec = _gitignore(directory)
        if spec is not None:
            rel = os.path.relpath(path, directory).replace(os.sep, "/")
            if spec.match_file(rel + ("/" if is_dir else "")):
                return True
        if os.path.isdir(os.path.join(directory, ".git")):
            return False
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent


def git_checkout_of(path: str) -> str | None:
    """The closest folder at or above `path` that holds `.git`, or None outside a checkout."""
    folder = os.path.abspath(path)
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def is_excluded(path: str, settings: Settings, is_dir: bool = False) -> bool:
    patterns = settings.exclude + settings.extend_exclude
    if not patterns:
        return False
    rel = relative_to(path, settings.root)
    if rel.startswith(".."):
        rel = os.path.basename(path)
    spec = _exclude_spec(patterns)
    return spec.match_file(rel + ("/" if is_dir else "")) or spec.match_file(os.path.basename(path))


def force_excluded(path: str, resolver: ConfigResolver) -> bool:
    """With `force-exclude` (ruff's), a path named on the command line is left out when it, or a
    folder above it inside its config's root, matches `exclude` / `extend-exclude`."""
    full = os.path.abspath(path)
    is_dir = os.path.isdir(full)
    settings = resolver.for_path(os.path.join(full, "x") if is_dir else full)
    if not settings.force_exclude:
        return False
    if is_excluded(full, settings, is_dir=is_dir):
        return True
    root = os.path.abspath(settings.root)
    folder = os.path.dirname(full)
    while folder != root and folder.startswith(root.rstrip(os.sep) + os.sep):
        if is_excluded(folder, resolver.for_path(os.path.join(folder, "x")), is_dir=True):
            return True
        folder = os.path.dirname(folder)
    return False


def _identity(path: str) -> tuple[int, int] | str:
    """What makes two paths one file: its device and inode (a symbolic link, `x/../a.hlsl` and
    an absolute spelling are the file they lead to), else the normalised path."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return os.path.normpath(path)
    return (st.st_dev, st.st_ino)


def _unlisted(e: OSError) -> None:
    """A folder of the walk that cannot be listed (its permissions): said, and the walk goes on."""
    warn_once(f"{e.filename}: cannot list the folder: {e.strerror or e}; its files are not linted")


def discover(paths: Sequence[str], resolver: ConfigResolver) -> Iterator[str]:
    """Files to lint, in a stable order, each once however it is spelt (the first spelling
    met). Explicitly named files are linted (as ruff) unless `force-exclude` applies `exclude` to
    them too, whatever they are: what is not a regular file (a FIFO, a device) gets its HL004
    when it is read, as in a folder."""
    seen: set[tuple[int, int] | str] = set()
    for root in paths:
        if os.path.exists(root) and force_excluded(root, resolver):
            continue
        if not os.path.isdir(root):
            key = os.path.normpath(root)
            ident = _identity(key)
            if ident not in seen:
                seen.add(ident)
                yield key
            continue
        for dirpath, dirnames, filenames in os.walk(root, onerror=_unlisted):
            dirnames.sort()
            kept = []
            for d in dirnames:
                full = os.path.join(dirpath, d)
                if d.startswith(".") and d not in (".",):
                    continue
                if is_excluded(full, resolver.for_path(os.path.join(full, "x")), is_dir=True):
                    continue
                if is_gitignored(full, is_dir=True):
                    continue
                kept.append(d)
            dirnames[:] = kept
            for name in sorted(filenames):
                full = os.path.normpath(os.path.join(dirpath, name))
                settings = resolver.for_path(full)
                if not name.lower().endswith(settings.extensions):
                    continue
                if is_excluded(full, settings) or is_gitignored(full):
                    continue
                ident = _identity(full)
                if ident in seen:
                    continue
                seen.add(ident)
                yield full
