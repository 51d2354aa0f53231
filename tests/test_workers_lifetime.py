"""`-j N` workers never outlive the run: killed with the main process, they go too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")

HLSLLINT = str(Path(sys.executable).with_name("hlsllint"))


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name, or None once the process is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _running(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"  # a zombie has exited; nobody reaps it yet


def test_workers_die_with_a_killed_main_process(tmp_path: Path) -> None:
    """SIGKILL the main process of a `-j 2` run in the middle of linting: its worker goes within
    seconds (it used to lint on, then block for ever writing results into a pipe nobody read)."""
    for n in range(10):  # different files (copies would be one group, linted in one process)
        many = "".join(f"float g{j}(float x) {{ return (sign(x) < 0) + {n}; }}\n" for j in range(100))
        (tmp_path / f"f{n}.hlsl").write_text(many)
    run = subprocess.Popen(
        [HLSLLINT, "check", "--no-cache", "-j", "2", "-q", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while not workers and run.poll() is None and time.monotonic() < deadline:
            workers = _children(run.pid)
            time.sleep(0.02)
        assert workers, "the run started no worker"
        time.sleep(0.5)  # the worker is linting
        assert run.poll() is None, "the run ended before it could be killed"
        run.send_signal(signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 3
        while any(_running(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [w for w in workers if _running(w)]
    finally:
        for w in workers:
            if _running(w):
                os.kill(w, signal.SIGKILL)
        if run.poll() is None:
            run.kill()
            run.wait()
