"""Where a compiled loop lets other threads run: an interpreted call. Never compiled (`setup.py`).

CPython hands the GIL from a thread that holds it to one that waits for it only where the holder
runs bytecode: the waiting thread asks after `sys.getswitchinterval()` seconds, and the holder
gives way at the next function entry or loop it interprets. A compiled (mypyc) stage runs none: a
slow analysis on a worker thread of the language server held the GIL for seconds, and hovers and
other documents waited for it. `hlsllint.deadline`'s checks, which every long loop of the
stages reaches every few microseconds, call `let_others_run`, a Python function: entering it is
such a point (an empty call, about 50 ns, where nobody waits).
"""

from __future__ import annotations


def let_others_run() -> None:
    """Give the GIL to a thread that has asked for it (entering this interpreted function does)."""
