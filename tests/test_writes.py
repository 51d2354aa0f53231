"""`-o`, `--fix` and `--add-noqa` write as an editor does: into what the path leads to, keeping
mode, owner and hard links, leaving read-only and meanwhile-edited files alone, cleaning up their
temporary files however the run ends, and saying what failed in one line (exit 2)."""

from __future__ import annotations

import os
import resource
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hlsllint import deadline, driver
from hlsllint.cli import main
from hlsllint.commands import check
from hlsllint.context import PendingEdit, RuleContext
from hlsllint.lint import FileLoader
from hlsllint.source import SourceFile

BAD = "float f(float x) { return sign(x) < 0; }\n"
FIXED = "float f(float x) { return x < 0; }\n"
ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.hlsl").write_text(BAD)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-cache", "-j", "1"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def run_cli(
    *args: str, preexec: Callable[[], None] | None = None, code: str = ""
) -> subprocess.CompletedProcess[str]:
    """The command line in a process of its own (`code` runs first, in that process)."""
    script = f"import sys\n{code}\nfrom hlsllint.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    return subprocess.run(
        [sys.executable, "-c", script, *args, "--no-cache", "-j", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=preexec,
    )


def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob(".hlsllint-*.tmp"))


# -- -o ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_a_new_report_gets_the_umasks_mode(
    folder: Path, capsys: pytest.CaptureFixture[str], umask: int
) -> None:
    """New reports were 0600 whatever the umask."""
    old = os.umask(umask)
    try:
        code, _, _ = run(capsys, "a.hlsl", "-o", "report.txt")
    finally:
        os.umask(old)
    assert code == 1
    assert stat.S_IMODE((folder / "report.txt").stat().st_mode) == 0o666 & ~umask
    assert "HL105" in (folder / "report.txt").read_text()


def test_an_existing_report_keeps_its_mode_and_links(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "out").mkdir()
    (folder / "out" / "report.txt").write_text("old\n")
    (folder / "out" / "report.txt").chmod(0o640)
    (folder / "latest.txt").symlink_to(folder / "out" / "report.txt")
    run(capsys, "a.hlsl", "-o", "latest.txt")
    assert (folder / "latest.txt").is_symlink()
    assert "HL105" in (folder / "out" / "report.txt").read_text()
    assert stat.S_IMODE((folder / "out" / "report.txt").stat().st_mode) == 0o640


def test_the_report_goes_into_fifos_devices_and_standard_output(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`-o /dev/null` (as root) replaced the device with a regular file; `-o /dev/stdout`
    replaced the link and printed nothing. Tested on look-alikes made here, not the real ones."""
    code, out, _ = run(capsys, "a.hlsl", "-o", "-", "--output-format", "concise")
    assert code == 1 and out.startswith("a.hlsl:1:27: HL105")
    assert not (folder / "-").exists()
    if os.path.exists("/proc/self/fd"):
        (folder / "stdout").symlink_to("/proc/self/fd/1")
        code, out, _ = run(capsys, "a.hlsl", "-o", "stdout", "--output-format", "concise")
        assert code == 1 and out.startswith("a.hlsl:1:27: HL105")
        assert (folder / "stdout").is_symlink()
    os.mkfifo(folder / "pipe")
    reader = os.open(folder / "pipe", os.O_RDONLY | os.O_NONBLOCK)  # a reader, so the writer opens
    try:
        proc = run_cli("a.hlsl", "-o", "pipe", "--output-format", "concise")
        assert proc.returncode == 1, proc.stderr
        assert os.read(reader, 65536).decode().startswith("a.hlsl:1:27: HL105")
    finally:
        os.close(reader)
    assert stat.S_ISFIFO((folder / "pipe").stat().st_mode)
    if ROOT:
        os.mknod(folder / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        code, _, _ = run(capsys, "a.hlsl", "-o", "null")
        assert code == 1 and stat.S_ISCHR((folder / "null").stat().st_mode)


def test_a_report_that_cannot_be_written_is_one_line_and_exit_2(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`-o` into a folder that cannot be made (or is read-only) was a traceback with exit 1."""
    (folder / "file").write_text("")
    code, _, err = run(capsys, "a.hlsl", "-o", "file/report.txt")
    assert code == 2
    assert err == "hlsllint: error: write file/report.txt: Not a directory; the report is not written\n"


@pytest.mark.skipif(ROOT, reason="root may write into a read-only folder")
def test_a_report_in_a_read_only_folder(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "ro").mkdir()
    (folder / "ro").chmod(0o555)
    code, _, err = run(capsys, "a.hlsl", "-o", "ro/report.txt")
    assert code == 2 and err.startswith("hlsllint: error: write ro/report.txt: Permission denied")


# -- --fix ---------------------------------------------------------------------------------------


def test_fix_writes_the_file_behind_a_symlink(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The link was replaced by a fixed copy and the real file left unfixed."""
    (folder / "real").mkdir()
    (folder / "a.hlsl").rename(folder / "real" / "a.hlsl")
    (folder / "link.hlsl").symlink_to(Path("real") / "a.hlsl")
    code, _, _ = run(capsys, "link.hlsl", "--fix")
    assert code == 0
    assert (folder / "link.hlsl").is_symlink()
    assert (folder / "real" / "a.hlsl").read_text() == FIXED


def test_fix_keeps_hard_links_and_mode(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A hard-linked file was split in two: the other name kept the unfixed text."""
    (folder / "other").mkdir()
    os.link(folder / "a.hlsl", folder / "other" / "same.hlsl")
    (folder / "a.hlsl").chmod(0o664)
    inode = (folder / "a.hlsl").stat().st_ino
    code, _, _ = run(capsys, "a.hlsl", "--fix")
    assert code == 0
    st = (folder / "a.hlsl").stat()
    assert (st.st_ino, st.st_nlink, stat.S_IMODE(st.st_mode)) == (inode, 2, 0o664)
    assert (folder / "other" / "same.hlsl").read_text() == FIXED


@pytest.mark.skipif(not ROOT, reason="only root may give a file to another user")
def test_fix_as_root_keeps_the_owner(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.chown(folder / "a.hlsl", 65534, 65534)
    run(capsys, "a.hlsl", "--fix")
    st = (folder / "a.hlsl").stat()
    assert (st.st_uid, st.st_gid) == (65534, 65534) and (folder / "a.hlsl").read_text() == FIXED


def test_fix_leaves_a_read_only_file_alone_even_as_root(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 0444 file was rewritten; the others are fixed and the report shows what is on disk."""
    (folder / "b.hlsl").write_text(BAD)
    (folder / "a.hlsl").chmod(0o444)
    code, out, err = run(capsys, "a.hlsl", "b.hlsl", "--fix", "--output-format", "concise")
    assert (folder / "a.hlsl").read_text() == BAD and (folder / "b.hlsl").read_text() == FIXED
    assert err == "hlsllint: warning: a.hlsl is read-only; fixes not written\n"
    assert out.splitlines()[0].startswith("a.hlsl:1:27: HL105")
    assert "Fixed 1; found 1 warning remaining." in out
    assert code == 1


def test_fix_does_not_overwrite_an_edit_saved_during_the_run(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit saved while the run was linting (1.5 s in) was overwritten by the fixed text made
    from the old one. The edit is saved here between the read and the write."""
    edited = "// saved by the editor meanwhile\n" + BAD
    apply_fixes = check.apply_fixes

    def and_save_an_edit(*args: object, **kwargs: object) -> object:
        (folder / "a.hlsl").write_text(edited)
        return apply_fixes(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(check, "apply_fixes", and_save_an_edit)
    code, out, err = run(capsys, "a.hlsl", "--fix", "--output-format", "concise")
    assert (folder / "a.hlsl").read_text() == edited
    assert err == "hlsllint: warning: a.hlsl changed on disk since it was read; fixes not written\n"
    assert out.startswith("a.hlsl:2:27: HL105")  # the report is of the file as it is now
    assert code == 1 and temporaries(folder) == []


def _small_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))  # Python ignores SIGXFSZ: EFBIG


def test_a_failed_write_stops_neither_the_other_files_nor_the_report(folder: Path) -> None:
    """A write that failed (here: past the file size limit) ended the run half-way in a
    traceback, with the files after it unfixed and no report."""
    big = "// " + "x" * 2000 + "\n" + BAD
    (folder / "a.hlsl").write_text(big)
    (folder / "b.hlsl").write_text(BAD)
    proc = run_cli("a.hlsl", "b.hlsl", "--fix", "--output-format", "concise", preexec=_small_file_limit)
    assert proc.stderr == "hlsllint: error: write a.hlsl: File too large; fixes not written\n"
    assert (folder / "a.hlsl").read_text() == big and (folder / "b.hlsl").read_text() == FIXED
    assert proc.stdout.startswith("a.hlsl:2:27: HL105")
    assert "Fixed 1; found 1 warning remaining." in proc.stdout
    assert proc.returncode == 2 and temporaries(folder) == []


def test_add_noqa_does_not_overwrite_an_edit_either(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hlsllint.commands import noqa

    add_noqa_all = noqa.add_noqa_all

    def and_save_an_edit(*args: object, **kwargs: object) -> noqa.Added:
        (folder / "a.hlsl").write_text("// edited\n" + BAD)
        return add_noqa_all(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(check, "add_noqa_all", and_save_an_edit)
    code, _, err = run(capsys, "a.hlsl", "--add-noqa")
    assert (folder / "a.hlsl").read_text() == "// edited\n" + BAD
    assert "a.hlsl changed on disk since it was read; noqa comments not written" in err
    assert "Added 0 noqa directives." in err and code == 0


@pytest.mark.parametrize("encoding", ["utf-32-le", "utf-32-be"])
def test_add_noqa_keeps_a_utf32_file_utf32(
    folder: Path, capsys: pytest.CaptureFixture[str], encoding: str
) -> None:
    (folder / "a.hlsl").write_bytes(("\ufeff" + BAD).encode(encoding))
    run(capsys, "a.hlsl", "--add-noqa")
    text = (folder / "a.hlsl").read_bytes().decode(encoding)
    assert text == "\ufeff" + BAD.rstrip("\n") + "  // noqa: HL005, HL105\n"


# -- errors and signals --------------------------------------------------------------------------


def test_out_of_memory_during_discovery_is_one_line(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A MemoryError while walking the tree was a traceback with exit 1 (the code for findings)."""

    def walk(*_args: object) -> list[str]:
        raise MemoryError

    monkeypatch.setattr(driver, "discover", walk)
    code, out, err = run(capsys, ".")
    assert (code, out, err) == (2, "", "hlsllint: error: out of memory\n")


def test_an_os_error_anywhere_is_one_line_and_exit_2(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def walk(*_args: object) -> list[str]:
        raise PermissionError(13, "Permission denied", "shaders/private")

    monkeypatch.setattr(driver, "discover", walk)
    code, _, err = run(capsys, ".")
    assert (code, err) == (2, "hlsllint: error: shaders/private: Permission denied\n")


def test_sigterm_while_writing_leaves_no_temporary_file(folder: Path) -> None:
    """A kill during the write phase left `.hlsllint-*.tmp` (0600, full copies) for good."""
    (folder / "b.hlsl").write_text(BAD)
    terminate_at_first_fsync = (
        "import os, signal\n"
        "fsync = os.fsync\n"
        "def kill_then_fsync(fd):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    fsync(fd)\n"
        "os.fsync = kill_then_fsync\n"
    )
    proc = run_cli("a.hlsl", "b.hlsl", "--fix", code=terminate_at_first_fsync)
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr
    assert "Traceback" not in proc.stderr
    assert temporaries(folder) == []
    assert {(folder / n).read_text() for n in ("a.hlsl", "b.hlsl")} <= {BAD, FIXED}


def test_a_killed_runs_temporary_files_are_removed_by_the_next(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    old = time.time() - 120
    stale = folder / f".hlsllint-{dead.pid}-1a2b3c4d.tmp"
    fresh = folder / f".hlsllint-{dead.pid}-5e6f7a8b.tmp"  # its run may be writing still
    mine = folder / f".hlsllint-{os.getpid()}-9c0d1e2f.tmp"  # a live process's
    for p in (stale, fresh, mine):
        p.write_text(BAD)
    os.utime(stale, (old, old))
    os.utime(mine, (old, old))
    code, _, _ = run(capsys, "a.hlsl", "--fix")
    assert code == 0 and (folder / "a.hlsl").read_text() == FIXED
    assert temporaries(folder) == sorted([fresh.name, mine.name])
    from hlsllint.writing import remove_stale_temporaries

    assert remove_stale_temporaries(str(folder), now=time.time() + 120) == [str(fresh)]


def test_a_fix_that_would_break_the_parse_is_left_out_and_said(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `--fix --unsafe-fixes` left 46 HL000 in a fuzz case where there were none: a fix's result is
    # parsed before it is kept, and one that leaves code the grammar cannot read is not applied.
    (folder / "a.hlsl").write_text(BAD + BAD.replace("f(", "g("))
    report = RuleContext.report

    def breaking(self: RuleContext, target: Any, message: str, **kw: Any) -> Any:
        fix = kw.get("fix")
        if fix is not None and fix[2][0].span[0] < len(BAD):  # the fix in f(): with a stray `{`
            what, applicability, edits = fix
            kw["fix"] = (what, applicability, [PendingEdit(e.span, e.content + " {") for e in edits])
        return report(self, target, message, **kw)

    monkeypatch.setattr(RuleContext, "report", breaking)
    assert main(["a.hlsl", "--fix", "--no-cache", "-j", "1", "--output-format", "concise"]) == 1
    _, err = capsys.readouterr()
    assert (
        err
        == "hlsllint: warning: a.hlsl:1:27: the fix of HL105 is not applied: the code would no longer parse\n"
    )
    # The other finding's fix is applied.
    assert (folder / "a.hlsl").read_text() == BAD + FIXED.replace("f(", "g(")


class _WorkerReadsAfterAnEdit(FileLoader):
    """A run's loader. In a `-j 2` worker (another process) `h.hlsli` is read as it is after an
    edit (a line added at its top); the main process lints its own unit only once a worker has
    read, so that the unit including `h.hlsli` is the worker's."""

    main_pid = os.getpid()
    read: Path

    def __call__(self, path: str) -> SourceFile:
        if os.getpid() != self.main_pid:
            self.read.touch()
            if path.endswith("h.hlsli"):
                return SourceFile(path=path, text="// a line added meanwhile\n" + BAD)
        elif path.endswith("small.hlsli") and deadline_token_active():
            waited = 0.0
            while not self.read.exists() and waited < 20:
                time.sleep(0.01)
                waited += 0.01
        return super().__call__(path)


def deadline_token_active() -> bool:
    """Whether a unit is being linted on this thread (its deadline is active), not planned."""
    return getattr(deadline._local, "token", None) is not None


def test_fixes_are_not_applied_to_a_text_other_than_the_one_linted(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # With -j N a worker reads the files itself, the main process applies the fixes to its own
    # read: a header edited in between had the worker's offsets applied to the other text.
    (folder / "h.hlsli").write_text(BAD)
    (folder / "big.hlsl").write_text('#include "h.hlsli"\n' + "// padding\n" * 200)
    (folder / "small.hlsli").write_text("float s;\n")
    (folder / "small.hlsl").write_text('#include "small.hlsli"\n')
    _WorkerReadsAfterAnEdit.read = folder / "worker-read"
    monkeypatch.setattr(driver, "FileLoader", _WorkerReadsAfterAnEdit)
    main([".", "--fix", "--no-cache", "-j", "2", "--output-format", "concise"])
    _, err = capsys.readouterr()
    assert (folder / "worker-read").exists()
    assert "hlsllint: warning: h.hlsli: changed while it was linted; fixes not applied\n" in err
    assert (folder / "h.hlsli").read_text() == BAD
