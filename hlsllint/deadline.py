"""The time limit and the cancellation of one analysis: a token every stage checks, compiled loops
included.

A signal handler (SIGALRM) never runs inside a long loop of a compiled (mypyc) stage, and cannot
run on a thread other than the main one; so the stages check a token themselves. It is a leaf
module: the compiled stages import it, and it is compiled with them (`setup.py`), so a check is a
native call.

The API:

- `Deadline(seconds)` makes a token: it expires `seconds` from now (`0`: never; it can still be
  cancelled). `token.cancel()`, from any thread, makes the stages stop at their next check;
  `token.cancelled` and `token.expired()` tell (`token.due()`: either), `token.remaining()` says
  how long is left.
- `with active(token):` makes `token` the one the stages of this thread check (tokens are per
  thread: an analysis on a worker thread does not stop one on another thread). `current()` is the
  active token of this thread (a fresh one that never expires when none is active).
- The stages call `token.tick()` once per step of their loops (a count; the clock is read every
  `TICKS` steps, and the cancel flag at every one) or `token.check()` where a step is long. Both
  raise `Cancelled` once the token is cancelled and `BudgetExceeded` once it has expired.
  A stage takes `current()` once (when it is built, or where a walk starts), not per step.
- Every check lets a thread waiting for the GIL run (`hlsllint.handover`): a compiled stage on
  a worker thread of the language server does not hold up its requests.
- Both exceptions derive from `Stop`, a `BaseException`: the `except Exception` that keeps a
  crashing rule from taking the run down does not catch them. `lint.lint_unit` reports
  `BudgetExceeded` as HL006 and lets `Cancelled` out (after dropping the caches a stop can leave
  half-built), for the caller that cancelled to drop the result.

    token = Deadline(10.0)
    result = lint_unit(path, settings, variant, loader, deadline=token)  # on a worker thread
    token.cancel()  # on another thread: that lint_unit raises Cancelled within a few milliseconds
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Final

from hlsllint.handover import let_others_run

TICKS: Final = 64
"""Steps between two readings of the clock (a step is at most some microseconds of work)."""

_NEVER: Final = float("inf")


class Stop(BaseException):
    """An analysis stopped from outside (its time ran out or it was cancelled)."""


class BudgetExceeded(Stop):
    """Raised when a unit's analysis runs past its time budget (a BaseException, so that the
    `except Exception` around rules does not take it for a crashing rule)."""


class Cancelled(Stop):
    """Raised when the token of an analysis was cancelled (another thread no longer wants it)."""


class Deadline:
    """A time limit and a cancel flag (see the module docstring)."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds if seconds > 0 else _NEVER
        """The `time.monotonic()` past which the token has expired."""
        self.cancelled = False
        self._left = TICKS

    def cancel(self) -> None:
        """Stop the analysis checking this token (safe from any thread)."""
        self.cancelled = True

    def expired(self) -> bool:
        return time.monotonic() > self.at

    def remaining(self) -> float:
        """Seconds left (infinite when the token has no time limit)."""
        return self.at - time.monotonic()

    def due(self) -> bool:
        """Whether the analysis must stop (cancelled or expired), without raising: for a
        library's own cancel hook (tree-sitter's parse). Lets other threads run first."""
        let_others_run()
        return self.cancelled or time.monotonic() > self.at

    def check(self) -> None:
        """Raise `Cancelled` or `BudgetExceeded` when the analysis must stop. Lets other threads
        run first (`hlsllint.handover`: compiled code never gives up the GIL by itself)."""
        let_others_run()
        if self.cancelled:
            raise Cancelled
        if time.monotonic() > self.at:
            raise BudgetExceeded

    def tick(self) -> None:
        """One step of a loop: `check()` every `TICKS` steps (and the cancel flag at each)."""
        left = self._left - 1
        if left > 0 and not self.cancelled:
            self._left = left
            return
        self._left = TICKS
        self.check()


_local = threading.local()


def current() -> Deadline:
    """The token of the analysis running on this thread (one that never stops when none is)."""
    token = getattr(_local, "token", None)
    if isinstance(token, Deadline):
        return token
    return Deadline()


@contextlib.contextmanager
def active(token: Deadline) -> Iterator[Deadline]:
    """Make `token` the one this thread's stages check, for the `with` block."""
    previous = getattr(_local, "token", None)
    _local.token = token
    try:
        yield token
    finally:
        _local.token = previous
