"""Writing files as an editor does: the report (`-o`), fixes (`--fix`) and `--add-noqa`.

- A path is written where it leads: through a symbolic link to the file behind it (the link
  stays), into a FIFO, a device or `/dev/stdout` in place (never replaced by a regular file);
  `-o -` is standard output.
- A regular file is written whole or not at all: the new content goes into a temporary file
  beside the real file (`.hlsllint-<pid>-<random>.tmp`, 0600 while it is written), which then
  takes the file's mode (and its owner, when root runs hlsllint) and is renamed over it. A new
  file gets the mode the umask gives (0666 & ~umask), as any editor's.
- A file with more than one hard link, or whose owner could not be kept, is written in place
  instead (renaming over it would split the links or change the owner). The trade-off: an
  in-place write is not atomic, so it happens only after the new content is complete, with the
  space reserved first (`posix_fallocate`: a full disk fails before a byte changes) and the old
  content written back if the write fails half-way. The same happens when the folder does not
  let us create the temporary file but the file itself may be written.
- A file without write permission (no write bits, even for root; or `os.access` says no) is left
  alone: `Refused`, as an editor asks before overwriting a read-only file.
- A file that changed on disk since it was read (its bytes are not those the fixes were made
  from) is not written: `Refused`, and the edit made meanwhile is kept.
- Temporary files are removed on every way out: errors, Ctrl-C, and SIGTERM while
  `signals_raise()` is active. One left by a killed run (SIGKILL) is removed by a later run
  writing into the same folder once its process is gone and it is a minute old.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import signal
import stat
import sys
import threading
import time
from collections.abc import Iterator

from hlsllint.files import kind_of, read_regular

STALE_SECONDS = 60.0
"""A temporary file of a dead process this old is removed by the next run writing beside it."""

_TEMP = re.compile(r"\.hlsllint-(\d+)-[A-Za-z0-9_-]+\.tmp")
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_DEV_STREAMS = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}


class Refused(Exception):
    """A file deliberately left alone (read-only, changed since it was read). The message names
    the file and is meant for users."""


class Terminated(BaseException):
    """SIGTERM (or SIGHUP) arrived while `signals_raise()` was active: raised so that `finally`
    blocks (temporary files) run before the process exits."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """While active (in the main thread), SIGTERM and SIGHUP raise `Terminated` instead of killing
    the process at once, so that a write in progress cleans up after itself."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, _frame: object) -> None:
        raise Terminated(signum)

    previous: dict[int, object] = {}
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None:
            previous[signum] = signal.signal(signum, handler)
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)  # type: ignore[arg-type]


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# -- temporary files -----------------------------------------------------------------------------


_cleaned: set[str] = set()


def remove_stale_temporaries(directory: str, now: float | None = None) -> list[str]:
    """Remove the temporary files a killed hlsllint left in `directory` (once per folder and
    process): those whose process is gone and that are older than `STALE_SECONDS`."""
    directory = os.path.abspath(directory)
    if directory in _cleaned and now is None:
        return []
    _cleaned.add(directory)
    now = time.time() if now is None else now
    removed: list[str] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        m = _TEMP.fullmatch(entry.name)
        if m is None or _alive(int(m.group(1))):
            continue
        with contextlib.suppress(OSError):
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(st.st_mode) and now - st.st_mtime > STALE_SECONDS:
                os.unlink(entry.path)
                removed.append(entry.path)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True  # another user's process, or we cannot tell: keep its file
    return True


def _create_temp(directory: str) -> tuple[int, str]:
    remove_stale_temporaries(directory)
    for _ in range(100):
        path = os.path.join(directory, f".hlsllint-{os.getpid()}-{secrets.token_hex(4)}.tmp")
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC | _BINARY, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def replace_private(target: str, data: bytes) -> None:
    """A file of hlsllint's own (a cache entry) written whole: a temporary file beside it (0600)
    renamed over it, so that readers see the old file or the new one. SIGTERM meanwhile removes
    the temporary file on its way out (`signals_raise`); one that a SIGKILL leaves is removed by
    a later run writing into the same folder (`remove_stale_temporaries`). Raises OSError."""
    with signals_raise():
        fd, tmp = _create_temp(os.path.dirname(target) or ".")
        try:
            try:
                _write_all(fd, data)
            finally:
                os.close(fd)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


# -- writing -------------------------------------------------------------------------------------


def write_report(path: str, data: bytes) -> None:
    """`-o PATH`: the report written where PATH leads. Raises OSError."""
    fd = 1 if path == "-" else own_descriptor(path)
    if fd is not None:
        _write_descriptor(fd, data)
        return
    try:
        st: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        with open(path, "wb") as f:  # a FIFO, a device, a terminal: written into, never replaced
            f.write(data)
        return
    real = os.path.realpath(path)
    if st is None:
        os.makedirs(os.path.dirname(real) or ".", exist_ok=True)
    _write_regular(real, path, data, st, expected=None)


def own_descriptor(path: str) -> int | None:
    """The descriptor of this process that `path` leads to: `/dev/stdout`, `/dev/fd/3`,
    `/proc/self/fd/1` or a link to one of them. Such a path is written through the descriptor:
    reopening it would truncate the file a shell opened for us (`>>` included), and renaming over
    what it resolves to would replace that file."""
    own = re.compile(rf"/(?:proc/(?:self|{os.getpid()})/fd|dev/fd)/(\d+)")
    p = os.path.abspath(path)
    for _ in range(40):  # as many links as the kernel follows
        m = own.fullmatch(p)
        if m is not None:
            return int(m.group(1))
        if p in _DEV_STREAMS:
            return _DEV_STREAMS[p]
        try:
            target = os.readlink(p)
        except (OSError, ValueError):
            return None
        p = os.path.normpath(os.path.join(os.path.dirname(p), target))
    return None


def _write_descriptor(fd: int, data: bytes) -> None:
    streams = {1: sys.stdout, 2: sys.stderr}
    stream = streams.get(fd)
    if stream is not None:  # through Python's stream: what it buffered goes first
        stream.flush()
        binary = getattr(stream, "buffer", None)
        if binary is not None:
            binary.write(data)
            binary.flush()
        else:
            stream.write(data.decode("utf-8"))
            stream.flush()
        return
    _write_all(fd, data)


def write_source(path: str, data: bytes, expected: bytes | None) -> None:
    """`--fix` / `--add-noqa`: `data` into the existing file at `path` (the file behind a link).
    `expected` is the content the edits were made from: if the file no longer holds it, nothing
    is written (`Refused`). Raises `Refused` or OSError."""
    real = os.path.realpath(path)
    st = os.stat(real)
    if not stat.S_ISREG(st.st_mode):
        raise Refused(f"{path} is a {kind_of(st.st_mode)}, not a regular file")
    _write_regular(real, path, data, st, expected)


def _check_writable(path: str, real: str, st: os.stat_result) -> None:
    if not st.st_mode & 0o222:
        raise Refused(f"{path} is read-only")
    if not os.access(real, os.W_OK):
        raise Refused(f"{path} may not be written by this user")


def _check_unchanged(path: str, real: str, expected: bytes | None) -> bytes | None:
    """The file's bytes now (when `expected` is known), refusing when they are not `expected`."""
    if expected is None:
        return None
    try:
        now = read_regular(real)
    except FileNotFoundError:
        raise Refused(f"{path} was removed since it was read") from None
    if now != expected:
        raise Refused(f"{path} changed on disk since it was read")
    return now


def _write_regular(
    real: str, path: str, data: bytes, st: os.stat_result | None, expected: bytes | None
) -> None:
    if st is not None:
        _check_writable(path, real, st)
        if st.st_nlink > 1:
            _write_in_place(real, data, _check_unchanged(path, real, expected))
            return
    try:
        fd, tmp = _create_temp(os.path.dirname(real) or ".")
    except PermissionError:
        if st is None:
            raise
        # The folder is read-only but the file may be written: in place, as editors fall back to.
        _write_in_place(real, data, _check_unchanged(path, real, expected))
        return
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
            if st is None:
                mode = 0o666 & ~current_umask()
            else:
                mode = stat.S_IMODE(st.st_mode)
                if not _keep_owner(fd, st):
                    os.close(fd)
                    fd = -1
                    _write_in_place(real, data, _check_unchanged(path, real, expected))
                    return
            if hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
        finally:
            if fd >= 0:
                os.close(fd)
        _check_unchanged(path, real, expected)  # the closest to the rename we can check
        os.replace(tmp, real)
        tmp = ""
    finally:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _keep_owner(fd: int, st: os.stat_result) -> bool:
    """Give the temporary file the owner and group of the file it replaces; False when that is
    not allowed (then the file is written in place, keeping them)."""
    if not hasattr(os, "fchown"):
        return True
    mine = os.fstat(fd)
    if (mine.st_uid, mine.st_gid) == (st.st_uid, st.st_gid):
        return True
    try:
        os.fchown(fd, st.st_uid, st.st_gid)
    except PermissionError:
        return False
    return True


def _write_in_place(real: str, data: bytes, before: bytes | None) -> None:
    fd = os.open(real, os.O_WRONLY | _CLOEXEC | _BINARY)
    try:
        if hasattr(os, "posix_fallocate") and data:
            try:
                os.posix_fallocate(fd, 0, len(data))  # a full disk fails here, before a byte changes
            except OSError as e:
                if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                    raise
        try:
            _write_all(fd, data)
            os.ftruncate(fd, len(data))
            os.fsync(fd)
        except BaseException:
            if before is not None:  # put the old content back
                with contextlib.suppress(OSError):
                    os.lseek(fd, 0, os.SEEK_SET)
                    _write_all(fd, before)
                    os.ftruncate(fd, len(before))
            raise
    finally:
        os.close(fd)
