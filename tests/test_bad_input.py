"""Bad input gets a clear per-file message and the run goes on: no crash, no hang."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

import pytest

from hlsllint.cli import main

BAD = "float f(float x) { return sign(x) < 0; }\n"


def lint(capsys: pytest.CaptureFixture[str], *paths: str) -> tuple[int, list[dict[str, object]]]:
    code = main([*paths, "--output-format", "json", "-j", "1"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, json.loads(out)


def codes_by_file(data: list[dict[str, object]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for d in data:
        out.setdefault(Path(str(d["filename"])).name, []).append(str(d["code"]))
    return out


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.hlsl").write_text(BAD)
    return tmp_path


def test_binary_file(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "bin.hlsl").write_bytes(b"\x00\x01\x02DXBC" * 100)
    code, data = lint(capsys, ".")
    found = codes_by_file(data)
    assert found["bin.hlsl"] == ["HL004"] and found["ok.hlsl"] == ["HL105"]
    assert "binary" in str(next(d["message"] for d in data if d["code"] == "HL004"))
    assert code == 1


def test_unreadable_file(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "link.hlsl").symlink_to(folder / "missing-target.hlsl")  # dangling: cannot be read
    _, data = lint(capsys, ".")
    found = codes_by_file(data)
    assert found["link.hlsl"] == ["HL004"] and found["ok.hlsl"] == ["HL105"]


def test_empty_file(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "empty.hlsl").write_text("")
    code, data = lint(capsys, "empty.hlsl")
    assert code == 0 and data == []


def test_non_utf8_is_decoded_with_replacement_and_said(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "latin1.hlsl").write_bytes("// caf\xe9\n".encode("latin-1") + BAD.encode())
    _, data = lint(capsys, "latin1.hlsl")
    assert sorted(codes_by_file(data)["latin1.hlsl"]) == ["HL005", "HL105"]
    hl105 = next(d for d in data if d["code"] == "HL105")
    assert hl105["location"] == {"row": 2, "column": 27}


def test_non_utf8_file_is_never_rewritten(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = "// caf\xe9\n".encode("latin-1") + BAD.encode()
    (folder / "latin1.hlsl").write_bytes(raw)
    main(["latin1.hlsl", "--fix"])
    capsys.readouterr()
    assert (folder / "latin1.hlsl").read_bytes() == raw


def test_bom_and_crlf_positions(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "crlf.hlsl").write_bytes(b"\xef\xbb\xbf// x\r\n" + BAD.replace("\n", "\r\n").encode())
    _, data = lint(capsys, "crlf.hlsl")
    assert [(d["location"], d["end_location"]) for d in data] == [
        ({"row": 2, "column": 27}, {"row": 2, "column": 38})
    ]


def test_huge_file_is_skipped_with_a_message(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "huge.hlsl").write_text("float a;\n" * (10 * 1024 * 1024 // 9 + 1))
    _, data = lint(capsys, ".")
    found = codes_by_file(data)
    assert found["huge.hlsl"] == ["HL004"] and found["ok.hlsl"] == ["HL105"]
    assert "MiB limit" in str(next(d["message"] for d in data if d["code"] == "HL004"))


def test_deep_nesting(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    depth = 1000
    body = "x = " + "(" * depth + "x" + ")" * depth + ";\n"
    blocks = "{" * depth + "x = sign(x) < 0;" + "}" * depth
    ifs = "#if 1\n" * depth + "float g;\n" + "#endif\n" * depth
    (folder / "deep.hlsl").write_text(ifs + "float f(float x)\n{\n" + body + blocks + "\nreturn x;\n}\n")
    code, data = lint(capsys, "deep.hlsl")
    assert code == 1
    # 1,000 nested blocks: past the 256 levels the analysis follows, `f` is left out (HL007).
    assert [d["code"] for d in data] == ["HL007"] and "function `f` is not analysed" in str(
        data[0]["message"]
    )


def test_include_cycle(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "a.hlsli").write_text('#include "b.hlsli"\nfloat a;\n')
    (folder / "b.hlsli").write_text('#include "a.hlsli"\nfloat b;\n')
    (folder / "main.hlsl").write_text('#include "a.hlsli"\n' + BAD)
    _, data = lint(capsys, ".")
    found = codes_by_file(data)
    assert found["main.hlsl"] == ["HL105"]
    assert "HL003" in found.get("a.hlsli", []) + found.get("b.hlsli", [])


def test_unparsable_code_is_info_and_rest_is_analysed(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "broken.hlsl").write_text("float f(float x) { return x +* ; }\n" + BAD.replace("f(", "g("))
    _code, data = lint(capsys, "broken.hlsl")
    found = codes_by_file(data)["broken.hlsl"]
    assert "HL000" in found and "HL105" in found
    assert next(d for d in data if d["code"] == "HL000")["severity"] == "info"


def test_only_info_findings_exit_0(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "broken.hlsl").write_text("float f(float x) { return x +* ; }\n")
    code, data = lint(capsys, "broken.hlsl")
    assert [d["code"] for d in data] == ["HL000"] and code == 0


def test_header_findings_are_reported_once_at_the_header(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "common.hlsli").write_text("bool neg(float x) { return sign(x) < 0; }\n")
    for i in range(3):
        (folder / f"user{i}.hlsl").write_text('#include "common.hlsli"\nfloat u;\n')
    (folder / "ok.hlsl").unlink()
    _, data = lint(capsys, ".")
    assert [(Path(str(d["filename"])).name, d["location"]["row"]) for d in data] == [("common.hlsli", 1)]


def test_header_nobody_includes_is_linted_alone(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "lonely.hlsli").write_text(BAD)
    _, data = lint(capsys, ".")
    assert sorted(codes_by_file(data)) == ["lonely.hlsli", "ok.hlsl"]


def test_cr_only_line_endings_are_line_breaks(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "cr.hlsl").write_bytes(("// x\r" + BAD.replace("\n", "\r")).encode())
    _, data = lint(capsys, "cr.hlsl")
    assert [(d["code"], d["location"]) for d in data] == [("HL105", {"row": 2, "column": 27})]
    main(["cr.hlsl", "--fix"])
    capsys.readouterr()
    assert (folder / "cr.hlsl").read_bytes() == b"// x\rfloat f(float x) { return x < 0; }\r"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_with_bom_is_decoded_and_never_rewritten(
    folder: Path, capsys: pytest.CaptureFixture[str], encoding: str
) -> None:
    raw = ("\ufeff// x\r\n" + BAD).encode(encoding)
    (folder / "wide.hlsl").write_bytes(raw)
    _, data = lint(capsys, "wide.hlsl")
    assert [(d["code"], d["location"]["row"]) for d in data] == [("HL005", 1), ("HL105", 2)]
    assert "UTF-16" in str(data[0]["message"]) and "binary" not in str(data[0]["message"])
    main(["wide.hlsl", "--fix"])
    capsys.readouterr()
    assert (folder / "wide.hlsl").read_bytes() == raw


def test_huge_local_array_is_scratch_not_registers(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kernel = (
        "RWStructuredBuffer<float> o;\n[numthreads(64,1,1)]\nvoid main(uint i : SV_DispatchThreadID)\n"
        "{\n    float a[SIZE];\n    a[i] = 1;\n    o[i] = a[i ^ 1];\n}\n"
    )
    (folder / "huge.hlsl").write_text(kernel.replace("SIZE", "1 << 30"))
    (folder / "small.hlsl").write_text(kernel.replace("SIZE", "16"))
    assert main(["pressure", "huge.hlsl", "small.hlsl", "--output-format", "json"]) == 0
    huge, small = json.loads(capsys.readouterr().out)
    assert huge["max_live_vgprs"] < 8 and huge["waves_per_simd"] == 16
    assert huge["scratch"] == [{"name": "a", "bytes_per_lane": 4 << 30}]
    assert small["scratch"] == [] and small["max_live_vgprs"] >= 16
    main(["pressure", "huge.hlsl"])
    assert "lives in scratch memory" in capsys.readouterr().out
    _, data = lint(capsys, "huge.hlsl")
    # No occupancy finding for an array that lives in scratch; HL110 says where it lives.
    assert [d["code"] for d in data] == ["HL110"]
    assert "4,294,967,296 bytes per lane) is written at a run-time index" in str(data[0]["message"])


def test_a_huge_array_only_dead_code_uses_is_not_said_to_live_in_scratch(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `a` is filled and read, but what is read reaches no output: the compiler drops it all
    (folder / "dead.hlsl").write_text(
        "RWStructuredBuffer<float> o;\n[numthreads(64,1,1)]\nvoid main(uint i : SV_DispatchThreadID)\n"
        "{\n    float a[100];\n    a[i] = 1;\n    float unused = a[i ^ 1];\n    o[i] = 2;\n}\n"
    )
    assert main(["pressure", "dead.hlsl", "--output-format", "json"]) == 0
    (dead,) = json.loads(capsys.readouterr().out)
    assert dead["scratch"] == []
    main(["pressure", "dead.hlsl"])
    assert "scratch memory" not in capsys.readouterr().out


def test_time_budget_skips_the_slow_file_and_goes_on(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = "".join(f"case {i}: r = {i}.0; break;\n" for i in range(3000))
    (folder / "gen").mkdir()
    (folder / "gen" / "switch.hlsl").write_text(
        f"float f(int x) {{ float r = 0; switch (x) {{\n{cases}}} return r; }}\n"
    )
    (folder / "gen" / "hlsllint.toml").write_text("time-budget = 0.001\n")
    _, data = lint(capsys, ".")
    skipped = [d for d in data if d["code"] == "HL006"]
    assert [Path(str(d["filename"])).name for d in skipped] == ["switch.hlsl"]
    assert str(skipped[0]["message"]).startswith("analysis skipped after 0.001 s: ")
    assert len(str(skipped[0]["message"])) <= 120 and "`time-budget`" in str(skipped[0]["help"])
    assert codes_by_file(data)["ok.hlsl"] == ["HL105"]
    (folder / "gen" / "hlsllint.toml").write_text("time-budget = 0\n")
    _, data = lint(capsys, ".")
    assert codes_by_file(data) == {"ok.hlsl": ["HL105"]}


def test_header_in_scope_rule(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "inc").mkdir()
    (folder / "inc" / "math.h").write_text("bool neg(float x) { return sign(x) < 0; }\n")
    (folder / "main.hlsl").write_text('#include "inc/math.h"\nfloat u;\n')
    # The folder is passed: the header under it is in scope although `.h` is not linted alone.
    _, data = lint(capsys, ".")
    assert codes_by_file(data) == {"math.h": ["HL105"], "ok.hlsl": ["HL105"]}
    # Only the includer is passed: the header is analysed but out of scope (as ruff: only what
    # was asked for is reported).
    _, data = lint(capsys, "main.hlsl")
    assert data == []


def test_header_passed_alone_is_analysed_through_its_includers(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "common.hlsli").write_text("#ifdef FAST\nbool neg(float x) { return sign(x) < 0; }\n#endif\n")
    (folder / "fast.hlsl").write_text('#define FAST\n#include "common.hlsli"\n')
    (folder / "plain.hlsl").write_text('#include "common.hlsli"\n')
    # No project (no config, no git checkout): the header is linted on its own.
    _, data = lint(capsys, "common.hlsli")
    assert data == []
    (folder / "hlsllint.toml").write_text("")
    _, alone = lint(capsys, "common.hlsli")
    _, full = lint(capsys, ".")
    assert [(d["code"], d["location"]["row"]) for d in alone] == [("HL105", 2)]  # type: ignore[index]
    assert [d for d in full if str(d["filename"]).endswith("common.hlsli")] == alone


def test_same_header_line_under_several_includers_is_one_finding(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "ok.hlsl").unlink()
    (folder / "common.hlsli").write_text("bool neg(T x) { return sign(x) < 0; }\n")
    for t in ("float", "half", "double"):
        (folder / f"use_{t}.hlsl").write_text(f'#define T {t}\n#include "common.hlsli"\n')
    _, data = lint(capsys, ".")
    assert [(Path(str(d["filename"])).name, d["code"]) for d in data] == [("common.hlsli", "HL105")]
    assert data[0]["variant"] == "via use_double.hlsl, via use_float.hlsl, via use_half.hlsl"


def test_line_splice_in_an_include_name_keeps_one_line_per_finding(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found by bench/fuzz.py: the name was printed with its newline, breaking line formats.
    (folder / "splice.hlsl").write_text('#include "f\\\nx/missing.hlsli"\n' + BAD)
    main(["splice.hlsl", "--output-format", "concise", "--no-cache"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "splice.hlsl:1:1: HL002 include file 'fx/missing.hlsli' not found"
    assert lines[1].startswith("splice.hlsl:3:27: HL105 ")


def test_a_name_holding_line_separators_stays_on_its_finding_line(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An include name may hold any character but a quote and CR/LF, such as NEL or U+2028,
    which `str.splitlines` (and so many a log reader) breaks a line at: the one-line formats keep
    one finding per line (`bench/fuzz.py` found this)."""
    (folder / "odd.hlsl").write_text('#include "a\x85b.hlsl"\n#include "c\u2028d.hlsl"\n' + BAD)
    main(["odd.hlsl", "--output-format", "concise", "-j", "1", "--no-cache"])
    out, _ = capsys.readouterr()
    lines = [line for line in out.splitlines() if line.startswith("odd.hlsl:")]
    assert [line.split()[1] for line in lines] == ["HL002", "HL002", "HL105"]
    assert "'a b.hlsl' not found" in lines[0] and "'c d.hlsl' not found" in lines[1]


# -- what is not a regular file, or is too large ------------------------------------------------


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The real command line in a process of its own: a run that hangs fails the test."""
    return subprocess.run(
        [sys.executable, "-m", "hlsllint", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def json_run(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    proc = run_cli(*args, "--output-format", "json", "-j", "1", "--no-cache")
    assert "Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def messages_by_file(data: list[dict[str, Any]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for d in data:
        out.setdefault(Path(str(d["filename"])).name, []).append(f"{d['code']} {d['message']}")
    return out


def test_fifos_devices_and_sockets_in_a_tree_are_skipped_with_their_kind(folder: Path) -> None:
    """A FIFO named .hlsl hung the run for good; a .hlsli link to /dev/zero ended in a MemoryError
    traceback; a socket could not be opened. Each is one HL004 naming what it is."""
    os.mkfifo(folder / "pipe.hlsl")
    (folder / "zero.hlsli").symlink_to("/dev/zero")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind("sock.fx")  # relative: a socket's path is short
    try:
        code, data, _ = json_run(".")
    finally:
        sock.close()
    assert messages_by_file(data) == {
        "ok.hlsl": [next(m for m in messages_by_file(data)["ok.hlsl"])],
        "pipe.hlsl": ["HL004 Cannot lint file: not a regular file: FIFO, 0 bytes"],
        "sock.fx": ["HL004 Cannot lint file: not a regular file: socket, 0 bytes"],
        "zero.hlsli": ["HL004 Cannot lint file: not a regular file: character device, 0 bytes"],
    }
    assert codes_by_file(data)["ok.hlsl"] == ["HL105"] and code == 1


def test_a_device_or_fifo_named_on_the_command_line_is_not_a_clean_run(folder: Path) -> None:
    """`hlsllint /dev/zero` said "All checks passed!"."""
    os.mkfifo(folder / "pipe.hlsl")
    for path in ("/dev/zero", "pipe.hlsl"):
        code, data, _ = json_run(path)
        assert [d["code"] for d in data] == ["HL004"] and code == 1
        assert "not a regular file" in str(data[0]["message"])
    proc = run_cli("pressure", "/dev/zero")
    assert proc.returncode == 2 and "not a regular file: character device" in proc.stderr


def test_including_a_device_or_a_fifo_names_it(folder: Path) -> None:
    """`#include "/dev/zero"` read 7.6 GB before the time budget stopped it; a FIFO hung."""
    os.mkfifo(folder / "pipe.hlsli")
    (folder / "main.hlsl").write_text('#include "/dev/zero"\n#include "pipe.hlsli"\n' + BAD)
    code, data, _ = json_run("main.hlsl")
    assert [(d["code"], d["location"]["row"], d["message"]) for d in data] == [
        ("HL003", 1, "cannot read include file '/dev/zero': not a regular file: character device, 0 bytes"),
        ("HL003", 2, "cannot read include file 'pipe.hlsli': not a regular file: FIFO, 0 bytes"),
        ("HL105", 3, next(str(d["message"]) for d in data if d["code"] == "HL105")),
    ]
    assert code == 1


def test_a_fifo_in_the_cache_folder_is_ignored(folder: Path) -> None:
    first = run_cli(".", "--cache-dir", "cache", "-j", "1", "--output-format", "concise")
    (entry,) = (folder / "cache").rglob("*.json")
    entry.unlink()
    os.mkfifo(entry)
    again = run_cli(".", "--cache-dir", "cache", "-j", "1", "--output-format", "concise")
    assert again.returncode == first.returncode == 1 and again.stdout == first.stdout


def test_fifos_for_config_gitignore_and_compile_commands_do_not_hang(folder: Path) -> None:
    (folder / "sub").mkdir()
    (folder / "sub" / "a.hlsl").write_text(BAD)
    os.mkfifo(folder / "sub" / "hlsllint.toml")
    os.mkfifo(folder / "sub" / ".gitignore")
    (folder / "hlsllint.toml").write_text('ignore = ["HL105"]\n')
    code, data, err = json_run("sub")
    # The FIFO is skipped, with a word: the config above applies.
    assert "sub/hlsllint.toml: not a regular file: FIFO; skipped" in err
    assert data == [] and code == 0
    os.mkfifo(folder / "build.txt")
    proc = run_cli("ok.hlsl", "--compile-commands", "build.txt")
    assert proc.returncode == 2 and "build.txt: cannot read: not a regular file: FIFO" in proc.stderr
    proc = run_cli("ok.hlsl", "--config", "sub/hlsllint.toml")
    assert proc.returncode == 2 and "not a regular file: FIFO" in proc.stderr


def test_max_file_size_is_a_setting(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "big.hlsl").write_text("float a;\n" * 300 + BAD)
    (folder / "user.hlsl").write_text('#include "big.hlsl"\n')
    (folder / "hlsllint.toml").write_text("max-file-size = 0.002\n")  # 2,097 bytes
    _, data = lint(capsys, "big.hlsl", "ok.hlsl")
    assert codes_by_file(data) == {"big.hlsl": ["HL004"], "ok.hlsl": ["HL105"]}
    message = "Cannot lint file: file is 2,741 bytes, over the 0.002 MiB limit (`max-file-size`)"
    assert data[0]["message"] == message
    _, data = lint(capsys, "user.hlsl", "--config", "max-file-size=0.001")
    assert [d["code"] for d in data] == ["HL003"] and "over the 0.001 MiB limit" in str(data[0]["message"])
    _, data = lint(capsys, "big.hlsl", "--config", "max-file-size=0")  # no limit
    assert codes_by_file(data) == {"big.hlsl": ["HL105"]}
    main(["config", "max-file-size"])
    assert "Default: 4\n" in capsys.readouterr().out


@pytest.mark.parametrize("encoding", ["utf-32-le", "utf-32-be"])
def test_utf32_with_bom_is_decoded_and_never_rewritten(
    folder: Path, capsys: pytest.CaptureFixture[str], encoding: str
) -> None:
    """A UTF-32 LE file was taken for UTF-16 (its BOM starts with UTF-16's): 24 HL000."""
    raw = ("\ufeff// x\r\n" + BAD).encode(encoding)
    (folder / "wide.hlsl").write_bytes(raw)
    _, data = lint(capsys, "wide.hlsl")
    assert [(d["code"], d["location"]["row"]) for d in data] == [("HL005", 1), ("HL105", 2)]
    assert "UTF-32" in str(data[0]["message"])
    main(["wide.hlsl", "--fix"])
    capsys.readouterr()
    assert (folder / "wide.hlsl").read_bytes() == raw


def test_one_file_under_several_spellings_is_linted_once(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`a.hlsl` and its absolute path, or a link to it in the tree: "Fixed 10" for 5 fixes."""
    (folder / "sub").mkdir()
    (folder / "sub" / "link.hlsl").symlink_to(folder / "ok.hlsl")
    _, data = lint(capsys, "ok.hlsl", str(folder / "ok.hlsl"), "sub")
    assert [(os.path.relpath(str(d["filename"])), d["code"]) for d in data] == [("ok.hlsl", "HL105")]
    _, data = lint(capsys, ".")
    assert [(os.path.relpath(str(d["filename"])), d["code"]) for d in data] == [("ok.hlsl", "HL105")]


INVALID = "RWStructuredBuffer<float> o;\n[numthreads(64, 1, 1)]\nvoid main(uint i : SV_DispatchThreadID)\n"


def test_a_negative_array_size_is_a_finding_not_a_crash(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # HL201, HL203 and HL204 crashed on it (IndexError): exit 2 even with --exit-zero.
    (folder / "neg.hlsl").write_text(INVALID + "{ float b[-1]; o[i] = b[0]; }\n")
    code = main(["neg.hlsl", "--output-format", "json", "-j", "1", "--exit-zero", "--no-cache"])
    out, err = capsys.readouterr()
    assert "crashed" not in err and code == 0
    assert [(d["code"], d["message"], d["location"]) for d in json.loads(out)] == [
        (
            "HL008",
            "array size `-1` is not positive",
            {"row": 4, "column": 11},
        )
    ]


def test_constants_out_of_range_are_findings_not_crashes(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `float a[1e999]` took the whole run down (OverflowError converting infinity to an int).
    body = (
        "{ float a[1e999]; vector<float, 1e999> v = 0; float c[0]; int n = 1e30; c[0] = n;\n"
        "  o[i] = a[i] + v.x + c[0]; }\n"
    )
    (folder / "range.hlsl").write_text(INVALID + body)
    code, data = lint(capsys, "range.hlsl", "--select", "HL008")
    assert code == 1
    assert [d["message"] for d in data] == [
        "`1e999` overflows float (largest 3.40282e+38): it is infinity",
        "`1e999` overflows float (largest 3.40282e+38): it is infinity",
        "array size `0` is zero",
        "`1e30` (1e+30) does not fit in int: the conversion is undefined",
    ]


def test_a_crashing_rule_is_exit_2_even_with_exit_zero(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # As ruff: an internal error is exit 2 whatever `--exit-zero` says; the other rules still run.
    from hlsllint.rules.hl105_sign_for_sign_bit import SignForSignBit

    def boom(self: object, ctx: object, node: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(SignForSignBit, "visit", boom)
    (folder / "neg.hlsl").write_text(INVALID + "{ float b[-1]; o[i] = b[0]; }\n")
    code = main(["neg.hlsl", "ok.hlsl", "--output-format", "json", "-j", "1", "--exit-zero", "--no-cache"])
    out, err = capsys.readouterr()
    assert code == 2 and "rule HL105 (sign-for-sign-bit) crashed" in err
    assert [d["code"] for d in json.loads(out)] == ["HL008"]


NOBODY = 65534


def _as_a_user(folder: Path, *args: str) -> tuple[int, list[dict[str, Any]], str]:
    """`hlsllint ARGS` run in `folder` by a forked child as a user whom permissions bind (root
    reads a file of mode 000): its exit code, JSON findings and stderr."""
    argv = [*args, "--no-cache", "-j", "1", "--output-format", "json"]
    with tempfile.TemporaryDirectory() as scratch:  # the imports of a run, while /root may be read
        (Path(scratch) / "sub").mkdir()
        (Path(scratch) / "sub" / "a.hlsl").write_text(BAD)
        with (
            contextlib.chdir(scratch),
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
        ):
            main([".", *argv[len(args) :]])
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns to pytest
        status = 3
        try:
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            os.chdir(folder)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(argv)
            os.write(write, json.dumps([code, out.getvalue(), err.getvalue()]).encode())
            status = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    assert status == 0 and data
    code, out, err = json.loads(data)
    return code, json.loads(out), err


def test_an_unreadable_config_file_or_folder_is_skipped_with_a_word() -> None:
    """`check .` stopped at `hlsllint: error: sub/.hlsllint.toml: cannot read: Permission denied`
    (exit 2, nothing linted) for a config file of mode 000 or one in a folder of mode 000; the
    file is skipped with one line naming it, and the settings above it apply."""
    folder = Path(tempfile.mkdtemp())
    try:
        (folder / "ok.hlsl").write_text(BAD)
        for sub in ("sub", "locked"):
            (folder / sub).mkdir()
            (folder / sub / "b.hlsl").write_text(BAD)
            (folder / sub / ".hlsllint.toml").write_text('ignore = ["HL105"]\n')
        for path in (folder, folder / "ok.hlsl", folder / "sub", folder / "sub" / "b.hlsl"):
            path.chmod(path.stat().st_mode | 0o755)  # another user may read it
        (folder / "sub" / ".hlsllint.toml").chmod(0)
        (folder / "locked").chmod(0)
        code, data, err = _as_a_user(folder, ".")
        assert err.splitlines() == [
            f"hlsllint: warning: {folder}/locked/.hlsllint.toml: cannot read: Permission denied; skipped",
            f"hlsllint: warning: {folder}/sub/.hlsllint.toml: cannot read: Permission denied; skipped",
            "hlsllint: warning: ./locked: cannot list the folder: Permission denied; "
            "its files are not linted",
        ]
        found = {(os.path.relpath(str(d["filename"]), folder), str(d["code"])) for d in data}
        assert found == {("ok.hlsl", "HL105"), ("sub/b.hlsl", "HL105")} and code == 1
        # Named on the command line, a file of the locked folder is one HL004.
        code, data, err = _as_a_user(folder, "locked/b.hlsl", "ok.hlsl")
        found = {(os.path.relpath(str(d["filename"]), folder), str(d["code"])) for d in data}
        assert found == {("locked/b.hlsl", "HL004"), ("ok.hlsl", "HL105")} and code == 1, err
        assert "Permission denied" in str(next(d["message"] for d in data if d["code"] == "HL004"))
    finally:
        (folder / "locked").chmod(0o755)
        shutil.rmtree(folder)
