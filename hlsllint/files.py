"""Reading files that may be anything: only regular files are read, and only up to a limit.

A path a run meets (a shader in a tree, an `#include`, a cache entry, a config file, a
compilation database, a `.gitignore`) may be a FIFO, a device, a socket or a folder: reading one
would hang (a FIFO nobody writes) or never end (`/dev/zero`). `read_regular` checks the kind
before it opens the file and again on the open descriptor (the path may change in between; the
open itself cannot block, as it is non-blocking), and reads no more than the limit.
"""

from __future__ import annotations

import os
import stat

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)


class UnfitFile(OSError):
    """A file that was not read: not a regular file, or over the size limit. An `OSError`, so
    that code that skips unreadable files skips these too; `str()` is the message for users."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.filename = path
        self.message = message

    def __str__(self) -> str:
        return self.message


def kind_of(mode: int) -> str:
    """What a file is, in words (`stat.S_IFMT` of its mode)."""
    if stat.S_ISREG(mode):
        return "regular file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISLNK(mode):
        return "symbolic link"
    return "special file"


def megabytes(size: int) -> str:
    """A file's size for a message: `5.2 MB`, or `2,742 bytes` below a megabyte."""
    return f"{size / 1e6:.1f} MB" if size >= 1_000_000 else f"{size:,} bytes"


def _check(path: str, st: os.stat_result, max_bytes: int | None, setting: str) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise UnfitFile(path, f"not a regular file: {kind_of(st.st_mode)}, {st.st_size} bytes")
    check_size(path, st.st_size, max_bytes, setting)


def check_size(path: str, size: int, max_bytes: int | None, setting: str = "") -> None:
    """Raise `UnfitFile` when `size` bytes are over `max_bytes` (None or 0: no limit): for text
    that does not come from a file (an editor's unsaved buffer) as for a file."""
    if max_bytes and size > max_bytes:
        raise UnfitFile(path, _too_large(size, max_bytes, setting))


def _too_large(size: int, max_bytes: int, setting: str) -> str:
    limit = f"{round(max_bytes / (1024 * 1024), 3):g} MiB"
    where = f" (`{setting}`)" if setting else ""
    return f"file is {megabytes(size)}, over the {limit} limit{where}"


def read_regular(path: str, max_bytes: int | None = None, setting: str = "") -> bytes:
    """The bytes of a regular file. Raises `UnfitFile` for anything else (a FIFO, a device, a
    socket, a folder) or for a file of more than `max_bytes` (None or 0: no limit; `setting`
    names the setting that sets it), and `OSError` when it cannot be read."""
    _check(path, os.stat(path), max_bytes, setting)
    fd = os.open(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC | _BINARY)
    try:
        st = os.fstat(fd)
        _check(path, st, max_bytes, setting)  # the path may have been replaced since the stat
        if _NONBLOCK:
            os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(max_bytes + 1) if max_bytes else f.read()
    finally:
        os.close(fd)
    if max_bytes and len(data) > max_bytes:  # it grew while we read it
        raise UnfitFile(path, _too_large(len(data), max_bytes, setting))
    return data


def special_kind(path: str) -> str | None:
    """What a path is when it exists and is neither a regular file nor a folder (following
    links): "FIFO", "character device", ...; else None."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else kind_of(mode)


def is_special(path: str) -> bool:
    """True for a path that exists and is neither a regular file nor a folder (following links)."""
    return special_kind(path) is not None
