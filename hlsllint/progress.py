"""A progress bar for long runs, drawn on stderr only when it is a terminal."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

MIN_UNITS = 40
"""Fewer units than this finish too fast for a bar to help."""


class ProgressBar:
    """Use as a context manager and pass `update` to `lint_paths(progress=...)`."""

    def __init__(self, enabled: bool, stream: TextIO | None = None) -> None:
        stream = stream or sys.stderr
        self.enabled = enabled and stream.isatty()
        self._stream = stream
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def update(self, done: int, total: int) -> None:
        if not self.enabled or total < MIN_UNITS:
            return
        if self._bar is None:
            # Imported here, not at the top: most runs draw no bar (rich.progress costs ~25 ms of start-up).
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._bar = Progress(
                TextColumn("hlsllint"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=Console(file=self._stream),
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("lint", total=total)
        assert self._task is not None
        self._bar.update(self._task, completed=done, total=total)

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
