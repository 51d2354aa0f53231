"""The time budget and cancellation are a deadline the stages check inside their own loops
(`hlsllint.deadline`), not only between stages: they hold on a thread where SIGALRM cannot run.

The lints here stop while the preprocessor is between two lines of the main file: the loader
serving its include is where the test waits (for the clock, or for another thread's cancel),
so nothing depends on how fast the machine is."""

from __future__ import annotations

import inspect
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import pytest

from hlsllint import deadline
from hlsllint.config import Settings
from hlsllint.deadline import BudgetExceeded, Cancelled, Deadline
from hlsllint.lint import FileLoader, lint_unit
from hlsllint.source import SourceFile

MAIN = '#include "b.hlsli"\n#error after the include\nfloat f(float x) { return sign(x) < 0; }\n'
FILES = {"main.hlsl": MAIN, "b.hlsli": "float b;\n"}


class _WaitingLoader(FileLoader):
    """Serves `b.hlsli` only once `ready()` says so (the preprocessor is inside its main loop)."""

    def __init__(self, ready: threading.Event | None = None) -> None:
        super().__init__(FILES)
        self.reached = threading.Event()
        self.ready = ready

    def __call__(self, path: str) -> SourceFile:
        if path.endswith("b.hlsli") and not self.reached.is_set():
            self.reached.set()
            if self.ready is not None:
                assert self.ready.wait(60)
            else:  # wait for the unit's own deadline to pass
                while not deadline.current().expired():
                    time.sleep(0.005)
        return super().__call__(path)


def _start(settings: Settings, loader: FileLoader, token: Deadline | None) -> Callable[[], list[object]]:
    """Lint main.hlsl on a thread of its own; the function returned waits for its outcome."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(lint_unit("main.hlsl", settings, loader=loader, deadline=token))
        except BaseException as e:
            outcome.append(e)

    worker = threading.Thread(target=run)
    worker.start()

    def wait() -> list[object]:
        worker.join(120)
        assert not worker.is_alive()
        return outcome

    return wait


def test_the_time_budget_stops_the_preprocessor_between_two_lines_on_a_worker_thread() -> None:
    # A worker thread has no SIGALRM: before, the unit ran to its end and then reported HL006,
    # with the `#error` after the include among its findings.
    (result,) = _start(Settings(time_budget=0.05), _WaitingLoader(), None)()
    assert not isinstance(result, BaseException), result
    codes = [d.code for d in result.diagnostics]  # type: ignore[attr-defined]
    assert codes == ["HL006"]
    message = result.diagnostics[0].message  # type: ignore[attr-defined]
    assert message.startswith("analysis skipped after 0.05 s: preprocessing and parsing was still running")


def test_a_lint_cancelled_from_another_thread_stops_and_says_so() -> None:
    cancelled = threading.Event()
    loader = _WaitingLoader(cancelled)
    token = Deadline(0)  # no time limit: only the cancel stops it
    wait = _start(Settings(), loader, token)
    assert loader.reached.wait(60)
    token.cancel()
    cancelled.set()
    outcome = wait()
    assert len(outcome) == 1 and isinstance(outcome[0], Cancelled)
    # Nothing half-built is left behind: the same unit linted again gets every finding.
    again = lint_unit("main.hlsl", Settings(), loader=FileLoader(FILES))
    assert sorted(d.code for d in again.diagnostics) == ["HL003", "HL105"]


def test_a_token_cancelled_or_expired_raises_at_the_next_check() -> None:
    token = Deadline(0)
    token.tick()
    token.check()
    assert token.remaining() == float("inf") and not token.expired()
    token.cancel()
    with pytest.raises(Cancelled):
        token.tick()  # the cancel flag is read at every tick
    late = Deadline(1e-9)
    while not late.expired():
        pass
    with pytest.raises(BudgetExceeded):
        late.check()
    with pytest.raises(BudgetExceeded):
        for _ in range(deadline.TICKS):
            late.tick()


def test_the_active_token_is_per_thread() -> None:
    token = Deadline(0)
    seen: list[Deadline] = []
    with deadline.active(token):
        assert deadline.current() is token
        other = threading.Thread(target=lambda: seen.append(deadline.current()))
        other.start()
        other.join()
    assert seen and seen[0] is not token
    assert deadline.current() is not token


def test_lint_unit_still_reports_in_the_main_thread(tmp_path: Path) -> None:
    path = tmp_path / "a.hlsl"
    path.write_text("float f(float x) { return sign(x) < 0; }\n")
    result = lint_unit(str(path), Settings(time_budget=30))
    assert [d.code for d in result.diagnostics] == ["HL105"]


def test_tree_sitter_stops_part_way_and_the_next_parse_starts_afresh() -> None:
    from hlsllint.syntax.reparse import parse_bytes
    from hlsllint.syntax.tree import parse

    big = "".join(f"float f{k}(float x) {{ return x * {k}; }}\n" for k in range(2000)).encode()
    token = Deadline(0)
    token.cancel()
    with pytest.raises(Cancelled):
        parse_bytes(big, token)  # tree-sitter's progress hook says stop
    tree = parse("float g(float x) { return sign(x) < 0; }\n")
    assert not tree.unparsed and [n.type for n in tree.root.named_children] == ["function_definition"]


def test_every_check_is_a_point_where_another_thread_may_take_the_gil() -> None:
    """A compiled stage never gives up the GIL by itself (the interpreter hands it over only where
    it runs bytecode): each check enters `handover.let_others_run`, an interpreted function, so
    a slow analysis on a worker thread of the language server does not hold up its requests."""
    from hlsllint import handover

    entered: list[str] = []

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        if event == "call" and frame.f_code is handover.let_others_run.__code__:
            entered.append(event)

    token = Deadline(0)
    sys.setprofile(profile)
    try:
        token.check()
        token.due()
        for _ in range(deadline.TICKS):
            token.tick()
    finally:
        sys.setprofile(None)
    assert len(entered) == 3
    assert inspect.isfunction(handover.let_others_run), "interpreted, never compiled"


def test_another_thread_runs_during_a_compiled_parse_and_can_cancel_it() -> None:
    """While tree-sitter parses (a compiled call with compiled hooks, in the wheel), a thread that
    wants the GIL gets it at the parse's next check: here it cancels the parse part way. (The
    compiled build held the GIL to the end of the parse, which then returned a tree.)"""
    from hlsllint.syntax.reparse import parse_bytes

    # Long enough (about a second to parse whole) that the other thread, woken late on a
    # loaded machine, still finds the parse running; cancelled, it takes a few tens of ms.
    big = "".join(f"float f{k}(float x) {{ return x * {k}; }}\n" for k in range(80000)).encode()
    token = Deadline(0)
    go = threading.Event()

    def cancel() -> None:
        assert go.wait(60)
        token.cancel()  # runs only once this thread has the GIL

    other = threading.Thread(target=cancel)
    other.start()
    interval = sys.getswitchinterval()
    # The other thread asks for the GIL after 50 ms: by then this one is inside the parse.
    sys.setswitchinterval(0.05)
    try:
        go.set()
        with pytest.raises(Cancelled):
            parse_bytes(big, token)
    finally:
        sys.setswitchinterval(interval)
        other.join()
