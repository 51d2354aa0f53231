"""The content cache, parallel runs and shards give the same findings as a plain `-j 1` run."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import FIXTURES

from hlsllint import driver
from hlsllint.cache import Cache
from hlsllint.cli import main
from hlsllint.config import ConfigResolver
from hlsllint.diagnostics import Diagnostic
from hlsllint.driver import lint_paths
from hlsllint.progress import ProgressBar

HEADER = "float helper(float x) { return sign(x) < 0 ? -x : x; }\n"
USER = '#include "common.hlsli"\nfloat f{n}(float y) {{ return helper(y) + (sign(y) < 0); }}\n'
LONER = "float g(float x) { return (sign(x) < 0); }\n"


def _lint(paths: list[str], **kwargs: object) -> list[Diagnostic]:
    result = lint_paths(paths, ConfigResolver(), **kwargs)  # type: ignore[arg-type]
    assert not result.errors
    return result.diagnostics


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "common.hlsli").write_text(HEADER)
    for n in ("a", "b"):
        (src / f"{n}.hlsl").write_text(USER.format(n=n))
    (src / "c.hlsl").write_text(LONER)
    return src


def test_cached_results_equal_uncached(tmp_path: Path) -> None:
    plain = _lint([str(FIXTURES)], jobs=1)
    assert plain
    cache = Cache(tmp_path / "cache")
    cold = _lint([str(FIXTURES)], jobs=1, cache=cache)
    assert cache.hits == 0 and cache.misses > 0
    warm_cache = Cache(tmp_path / "cache")
    warm = _lint([str(FIXTURES)], jobs=1, cache=warm_cache)
    assert warm_cache.misses == 0 and warm_cache.hits == cache.misses
    assert plain == cold == warm
    assert (tmp_path / "cache" / ".gitignore").read_text().strip().endswith("*")


def test_corrupt_entries_are_ignored(tmp_path: Path, tree: Path) -> None:
    expected = _lint([str(tree)], jobs=1)
    _lint([str(tree)], jobs=1, cache=Cache(tmp_path / "cache"))
    entries = sorted((tmp_path / "cache").rglob("*.json"))
    assert len(entries) == 3  # one per unit: a.hlsl, b.hlsl, c.hlsl
    entries[0].write_bytes(entries[0].read_bytes()[:-20])  # truncated
    body = entries[1].read_bytes()
    entries[1].write_bytes(body.replace(b"HL", b"XX"))  # checksum no longer matches
    cache = Cache(tmp_path / "cache")
    assert _lint([str(tree)], jobs=1, cache=cache) == expected
    assert cache.misses == 2


def test_header_edit_invalidates_exactly_its_includers(tmp_path: Path, tree: Path) -> None:
    _lint([str(tree)], jobs=1, cache=Cache(tmp_path / "cache"))
    (tree / "common.hlsli").write_text(HEADER + "float more(float x) { return (sign(x) < 0); }\n")
    cache = Cache(tmp_path / "cache")
    edited = _lint([str(tree)], jobs=1, cache=cache)
    assert (cache.misses, cache.hits) == (2, 1)
    assert edited == _lint([str(tree)], jobs=1)
    assert any(d.path.endswith("common.hlsli") and d.start.row == 2 for d in edited)


def test_new_file_on_the_include_path_invalidates(tmp_path: Path, tree: Path) -> None:
    (tree / "d.hlsl").write_text('#include "later.hlsli"\nfloat d(float y) { return y; }\n')
    before = _lint([str(tree)], jobs=1, cache=Cache(tmp_path / "cache"))
    assert any(d.code == "HL002" for d in before)
    (tree / "later.hlsli").write_text(LONER)
    cache = Cache(tmp_path / "cache")
    after = _lint([str(tree / "d.hlsl")], jobs=1, cache=cache)
    assert cache.misses == 1 and not any(d.code == "HL002" for d in after)


def test_parallel_output_equals_serial() -> None:
    assert _lint([str(FIXTURES)], jobs=2) == _lint([str(FIXTURES)], jobs=1)


_linted_group = driver._run_group


def _group_by_pid(units: Sequence[object], loader: object) -> list[object]:
    """`_run_group`, noting which process linted each unit (module level: workers unpickle it)."""
    results = _linted_group(units, loader)  # type: ignore[arg-type]
    for r in results:
        r.timings["pid"] = os.getpid()
    return results  # type: ignore[return-value]


def test_the_main_process_lints_beside_its_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """With -j 2 this process takes the small groups and one worker the large ones; together
    they lint each unit once, and the findings are those of -j 1."""
    monkeypatch.setattr(driver, "_run_group", _group_by_pid)
    result = lint_paths([str(FIXTURES)], ConfigResolver(), jobs=2)
    by_pid = [u.timings["pid"] for u in result.units]
    assert os.getpid() in by_pid
    assert len(set(by_pid)) == 2
    assert result.diagnostics == _lint([str(FIXTURES)], jobs=1)


def _group_or_die(units: Sequence[object], loader: object) -> list[object]:
    """`_run_group`, except that a worker given `doomed.hlsl` is killed as the kernel's OOM
    killer would (and this process lints slowly, so that a worker takes the largest group)."""
    if os.getpid() != _MAIN_PID:
        if any(Path(u.path).name == "doomed.hlsl" for u in units):  # type: ignore[attr-defined]
            os.kill(os.getpid(), signal.SIGKILL)
    else:
        time.sleep(0.05)
    return _linted_group(units, loader)  # type: ignore[arg-type, return-value]


_MAIN_PID = os.getpid()


def test_a_dead_worker_costs_only_its_own_unit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed in the middle of a unit is reported as an error on that unit, and every
    other unit is still linted, as -j 1 lints it (it used to end the run with a traceback)."""
    for n in range(6):
        (tmp_path / f"f{n}.hlsl").write_text(LONER)
    (tmp_path / "doomed.hlsl").write_text(LONER + "// padding\n" * 2000)  # the largest: a worker's
    serial = _lint([str(tmp_path)], jobs=1)
    monkeypatch.setattr(driver, "_run_group", _group_or_die)
    result = lint_paths([str(tmp_path)], ConfigResolver(), jobs=2)
    assert len(result.errors) == 1
    assert "doomed.hlsl" in result.errors[0] and "SIGKILL" in result.errors[0]
    assert result.diagnostics == [d for d in serial if Path(d.path).name != "doomed.hlsl"]
    assert len({Path(d.path).name for d in result.diagnostics}) == 6


def test_spawned_workers_give_the_serial_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows and macOS start workers by spawning a fresh interpreter, not by forking: the plan
    and the settings travel pickled, and the findings are still those of -j 1."""
    monkeypatch.setattr(driver, "START_METHOD", "spawn")
    result = lint_paths([str(FIXTURES / "HL105"), str(FIXTURES / "HL104")], ConfigResolver(), jobs=2)
    assert not result.errors
    assert result.diagnostics == _lint([str(FIXTURES / "HL105"), str(FIXTURES / "HL104")], jobs=1)
    assert result.diagnostics


def test_union_of_shards_is_the_full_run() -> None:
    full = _lint([str(FIXTURES)], jobs=1)
    keys = set()
    files: list[str] = []
    for k in (1, 2, 3):
        result = lint_paths([str(FIXTURES)], ConfigResolver(), jobs=1, shard=(k, 3))
        keys |= {d.key() for d in result.diagnostics}
        files += result.files
        assert result.files  # every shard gets work
    assert keys == {d.key() for d in full}
    assert len(files) == len(set(files))
    again = lint_paths([str(FIXTURES)], ConfigResolver(), jobs=1, shard=(2, 3))
    assert again.files == lint_paths([str(FIXTURES)], ConfigResolver(), jobs=1, shard=(2, 3)).files


def test_cli_writes_only_the_cache_dir(
    tmp_path: Path, tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HLSLLINT_CACHE_DIR", raising=False)
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    assert main([str(tree), "--output-format", "concise"]) == 1
    first = capsys.readouterr().out
    assert main([str(tree), "--output-format", "concise"]) == 1
    assert capsys.readouterr().out == first
    written = {p for p in tmp_path.rglob("*") if before.get(p) != p.stat().st_mtime_ns}
    assert written and all(p.relative_to(tmp_path).parts[0] == ".hlsllint_cache" for p in written)
    assert main([str(tree), "--no-cache", "--cache-dir", str(tmp_path / "other")]) == 1
    assert not (tmp_path / "other").exists()
    monkeypatch.setenv("HLSLLINT_CACHE_DIR", str(tmp_path / "env"))
    main([str(tree)])
    assert (tmp_path / "env" / ".gitignore").exists()
    assert sorted(p.name for p in tree.iterdir()) == ["a.hlsl", "b.hlsl", "c.hlsl", "common.hlsli"]


def test_fix_relints_fixed_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "m.hlsl"
    f.write_text("float3 g(float3 n, float s) { return n * sign(s); }\n")
    args = [str(f), "--cache-dir", str(tmp_path / "cache")]
    main(args)
    main([*args, "--fix", "--unsafe-fixes"])
    assert f.read_text() == "float3 g(float3 n, float s) { return (s < 0 ? -n : n); }\n"
    capsys.readouterr()
    main([*args, "--output-format", "concise"])
    assert "HL1" not in capsys.readouterr().out


def test_bad_shard_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main([".", "--shard", "3/2"])
    assert e.value.code == 2


def test_unwritable_cache_dir_still_lints(tmp_path: Path, tree: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    assert _lint([str(tree)], jobs=1, cache=Cache(blocker / "cache")) == _lint([str(tree)], jobs=1)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal_and_not_quiet() -> None:
    for enabled, stream, drawn in (
        (True, _Terminal(), True),
        (False, _Terminal(), False),
        (True, io.StringIO(), False),
    ):
        with ProgressBar(enabled, stream) as bar:
            for n in range(1, 51):
                bar.update(n, 50)
        assert bool(stream.getvalue()) == drawn
    small = _Terminal()
    with ProgressBar(True, small) as bar:
        bar.update(1, 3)  # too short a run for a bar
    assert small.getvalue() == ""


def test_default_jobs_follow_the_processors_this_process_may_use() -> None:
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("no CPU affinity on this system")
    allowed = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {min(allowed)})
        assert driver.usable_cpus() == 1
    finally:
        os.sched_setaffinity(0, allowed)
    assert driver.usable_cpus() == len(allowed)


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if ".tmp" in p.name)


def test_sigterm_during_a_cache_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    # The cache wrote its entries through `tempfile.mkstemp` outside the window where SIGTERM
    # raises: a run terminated mid-write died there and left `.tmp-*` (a full entry) behind.
    (tmp_path / "a.hlsl").write_text("float f(float x) { return sign(x) < 0; }\n")
    script = (
        "import os, signal, sys\n"
        "from hlsllint.cli import main\n"
        "real = os.replace\n"
        "def replace(a, b):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    return real(a, b)\n"
        "os.replace = replace\n"
        "sys.exit(main(['a.hlsl', '-j', '1', '--cache-dir', 'cache']))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr
    assert "Traceback" not in proc.stderr
    assert _temporaries(tmp_path / "cache") == []


def test_a_temporary_file_a_killed_run_left_in_the_cache_is_removed_by_a_later_run(tmp_path: Path) -> None:
    (tmp_path / "a.hlsl").write_text("float f(float x) { return sign(x) < 0; }\n")

    def run() -> None:
        cmd = [sys.executable, "-m", "hlsllint", "a.hlsl", "-j", "1", "--cache-dir", "cache"]
        proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
        assert proc.returncode == 1, proc.stderr

    run()
    (entry,) = (tmp_path / "cache").rglob("*.json")
    entry.unlink()  # the killed run never finished it
    # What a SIGKILL leaves: the temporary file of a process that is gone, a few minutes old.
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    assert gone.wait() == 0
    left = entry.parent / f".hlsllint-{gone.pid}-0badf00d.tmp"
    left.write_bytes(entry.name.encode())
    old = time.time() - 120
    os.utime(left, (old, old))
    run()
    assert _temporaries(tmp_path / "cache") == [] and entry.exists()
