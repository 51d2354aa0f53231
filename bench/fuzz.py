"""Fuzz hlsllint end to end: mutated real shaders and hand-made hostile inputs through the CLI
(every output format parsed back), `hlsllint pressure`, `--fix` on a copy and the language server.

    nice python bench/fuzz.py /work/corpus --minutes 10 [--seed 1]

Seeds are the shader files under the corpus folder (never committed). Each case is linted in a
fresh temporary folder. Counted:
- crash: a traceback, a crashing rule, an exit code other than 0/1 (or 2 with a clean
  `hlsllint: error:` message), an LSP error response or a server that died;
- hang: a run past the per-file time budget plus start-up slack (`--hang-after`);
- invalid output: an output that does not parse back in its own format;
- fix violation: more HL000 (unparsed regions) after `--fix` than before, or a second `--fix`
  that still changes the file.
Failing cases are kept under `--keep` for replay.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import random
import re
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hlsllint.cli import main as cli_main
from hlsllint.output import FORMATS
from hlsllint.registry import all_rules

EXE = str(Path(sys.executable).with_name("hlsllint"))
EXTENSIONS = (".hlsl", ".hlsli", ".fx", ".fxh", ".comp", ".frag", ".vert")
TOKENS = [
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "#if 1\n",
    "#endif\n",
    "#else\n",
    "#define A A\n",
    '#include "x.hlsli"\n',
    '#include "case.hlsl"\n',
    "[numthreads(64,1,1)]",
    "[unroll]",
    "for(;;)",
    "switch(x){",
    "case 1:",
    "return",
    "groupshared float g[4096];",
    "\\\n",
    "/*",
    "*/",
    "//",
    '"',
    "'",
    "\x00",
    "\r",
    "\u2028",
    "\ufeff",
    "float4x4",
    "cbuffer",
    "struct S {",
    "template<typename T>",
    "#pragma once\n",
    "__LINE__",
    "##",
    "#",
    "0x",
    "1e999",
    "-2147483648",
    "SV_Target",
]


def hostile_cases() -> list[tuple[str, dict[str, bytes]]]:
    """Hand-made inputs: (name, files); the main file is case.hlsl."""
    depth = 3000
    cases: dict[str, dict[str, bytes]] = {
        "deep-parens": {
            "case.hlsl": f"float f(float x) {{ return {'(' * depth}x{')' * depth}; }}\n".encode()
        },
        "deep-blocks": {"case.hlsl": ("void f() " + "{" * depth + "}" * depth + "\n").encode()},
        "deep-if": {"case.hlsl": ("#if 1\n" * depth + "float a;\n" + "#endif\n" * depth).encode()},
        "unclosed": {"case.hlsl": ("void f() " + "{ if (x) " * 2000 + "\n").encode()},
        "macro-bomb": {
            "case.hlsl": (
                "#define A0 x x\n"
                + "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 40))
                + "float f() { return A39; }\n"
            ).encode()
        },
        "recursive-macro": {"case.hlsl": b"#define F(x) F(F(x))\n#define G G G\nfloat a = F(G);\n"},
        "include-cycle": {
            "case.hlsl": b'#include "a.hlsli"\nfloat m;\n',
            "a.hlsli": b'#include "b.hlsli"\nfloat a;\n',
            "b.hlsli": b'#include "a.hlsli"\n#include "case.hlsl"\nfloat b;\n',
        },
        "include-dot": {
            "case.hlsl": b'#include "."\n#include ".."\n#include "/"\nfloat f(float x){return x;}\n'
        },
        "huge-line": {"case.hlsl": ("float a = " + "1+" * 300_000 + "1;\n").encode()},
        "huge-switch": {
            "case.hlsl": (
                "float f(int x) { float r = 0; switch (x) {\n"
                + "".join(f"case {i}: r = {i}.0; break;\n" for i in range(30_000))
                + "} return r; }\n"
            ).encode()
        },
        "huge-array": {
            "case.hlsl": b"RWStructuredBuffer<float> o;\n[numthreads(64,1,1)]\n"
            b"void main(uint i : SV_DispatchThreadID)\n{ float a[1 << 30]; a[i] = 1; o[i] = a[i ^ 1]; }\n"
        },
        "cr-only": {"case.hlsl": b"// x\rfloat f(float x) { return sign(x) < 0; }\r"},
        "utf16": {"case.hlsl": "float f(float x) { return sign(x) < 0; }\n".encode("utf-16")},
        "nul": {"case.hlsl": b"float a;\x00\x01\x02"},
        "empty": {"case.hlsl": b""},
        "only-bom": {"case.hlsl": b"\xef\xbb\xbf"},
        "many-params": {
            "case.hlsl": (
                "float f(" + ",".join(f"float a{i}" for i in range(5000)) + ") { return a0; }\n"
            ).encode()
        },
        "long-ident": {"case.hlsl": ("float " + "a" * 200_000 + ";\n").encode()},
    }
    return list(cases.items())


def mutate(data: bytes, seeds: list[bytes], rng: random.Random) -> bytes:
    """One to four mutations: byte flips, cuts, splices from another seed, token insertions."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(("flip", "cut", "splice", "token", "token", "dup"))
        n = len(buf)
        pos = rng.randint(0, n) if n else 0
        if kind == "flip" and n:
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(n)
                buf[i] ^= 1 << rng.randrange(8)
        elif kind == "cut" and n:
            del buf[pos : pos + rng.randint(1, max(1, n // 4))]
        elif kind == "splice" and seeds:
            other = rng.choice(seeds)
            if other:
                a = rng.randrange(len(other))
                buf[pos:pos] = other[a : a + rng.randint(1, 2000)]
        elif kind == "dup" and n:
            a = rng.randrange(n)
            buf[pos:pos] = buf[a : a + rng.randint(1, 500)] * rng.randint(1, 20)
        else:
            buf[pos:pos] = rng.choice(TOKENS).encode("utf-8")
    return bytes(buf)


# -- grammar-aware cases -------------------------------------------------------------------------

COMPUTE = """\
RWStructuredBuffer<float4> Out : register(u0);
Texture2D<float4> Tex : register(t0);
SamplerState S : register(s0);
cbuffer C : register(b0) {{ uint n; float k; }}
{globals}
{attribute}
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{{
    float4 acc = Tex.SampleLevel(S, float2(id.xy) / 64.0, 0);
{body}
    Out[id.x] = acc;
}}
"""


def _nest(rng: random.Random, depth: int) -> str:
    """`depth` levels of one kind of nesting, as statements of `main`'s body."""
    kind = rng.choice(("if", "block", "for", "while", "paren", "ternary", "call", "index", "switch", "cast"))
    if kind == "if":
        return "if (acc.x > 0) {\n" * depth + "acc += 1;\n" + "}\n" * depth
    if kind == "block":
        return "{" * depth + "acc *= 2;" + "}" * depth
    if kind == "for":
        return "".join(f"for (uint i{d} = 0; i{d} < n; ++i{d}) " for d in range(depth)) + "acc += k;\n"
    if kind == "while":
        return "while (acc.x < k) {\n" * depth + "acc.x += 1;\n" + "}\n" * depth
    if kind == "paren":
        return f"acc.x = {'(' * depth}k{')' * depth};\n"
    if kind == "ternary":
        return "acc.x = " + "acc.y > 0 ? k : " * depth + "0;\n"
    if kind == "call":
        return "acc.x = " + "abs(" * depth + "k" + ")" * depth + ";\n"
    if kind == "index":
        return "acc.x = " + "Out[" * depth + "0" + "].x" * depth + ";\n"
    if kind == "switch":
        return "switch (gi) { case 0:\n" * depth + "acc += 1;\n" + "} \n" * depth
    return "acc = " + "(float4)" * depth + "k;\n"


def _macro_bomb(rng: random.Random) -> tuple[str, str]:
    """(directives, an expression using them) that expand exponentially or recursively."""
    kind = rng.choice(("double", "function", "paste", "recursive", "wide"))
    n = rng.randint(8, 48)
    if kind == "double":
        defs = "#define M0 k\n" + "".join(f"#define M{i} (M{i - 1} + M{i - 1})\n" for i in range(1, n))
        return defs, f"M{n - 1}"
    if kind == "function":
        defs = "#define F0(x) (x + x)\n" + "".join(
            f"#define F{i}(x) F{i - 1}(F{i - 1}(x))\n" for i in range(1, n)
        )
        return defs, f"F{n - 1}(k)"
    if kind == "paste":
        defs = "#define CAT(a, b) a##b\n#define X CAT(CAT(k, k), CAT(k, k))\n"
        return defs, "X" + " + X" * n
    if kind == "recursive":
        return "#define R(x) R(x) + x\n#define S S S\n#define T(x) T(T(x))\n", "R(k) + T(S)"
    return "#define W " + " + ".join(["k"] * n * 1000) + "\n", "W"


def _huge_literal(rng: random.Random) -> str:
    n = rng.choice((40, 400, 4000, 100_000))
    return rng.choice(
        (
            "1" * n,
            "1" + "0" * n + ".0",
            f"1e{'9' * min(n, 50)}",
            f"-1e-{'9' * min(n, 50)}",
            "0x" + "f" * n,
            "0" * n + "1",
            f"{'9' * n}u",
            f"1.{'5' * n}h",
            "18446744073709551616",
            "-9223372036854775809",
            "0x7fffffff + 0x7fffffff",
            "1.#INF",
            "'" + "a" * min(n, 4000) + "'",
        )
    )


DIRECTIVES = (
    "#if {e}",
    "#ifdef {m}",
    "#ifndef {m}",
    "#elif {e}",
    "#else",
    "#endif",
    "#define {m} {e}",
    "#define {m}(a, b) a ## b {e}",
    "#undef {m}",
    '#include "{m}.hlsli"',
    "#include <{m}>",
    "#include {m}",
    '#line {n} "{m}.hlsl"',
    "#line -1",
    "#pragma {m}",
    "#pragma pack_matrix(row_major)",
    "#error {m}",
    "#warning {e}",
    "# {n}",
    "#",
    "#{m}",
    "#if",
    "#elif",
    "#define",
    "#define {m}(",
    "#if defined({m}) && ({e}) / 0",
)
EXPRS = (
    "1",
    "0",
    "A",
    "A + 1",
    "(1",
    "1 / 0",
    "1 % 0",
    "defined A",
    "-2147483648 / -1",
    "A(1, 2)",
    "~0u >> 33",
)


def _directive_soup(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(5, 200)):
        template = rng.choice(DIRECTIVES)
        lines.append(
            template.format(
                e=rng.choice(EXPRS),
                m=rng.choice(("A", "B", "main", "float", "__LINE__")),
                n=rng.randint(-5, 1 << 40),
            )
        )
        if rng.random() < 0.3:
            lines.append(
                rng.choice(("float g;", "acc += 1;", "}", "{", "void f() {", "struct T { float a;", ""))
            )
    return "\n".join(lines) + "\n"


def _bad_arrays(rng: random.Random) -> tuple[str, str]:
    """(globals, body) declaring arrays of negative, zero, overflowing or non-constant size."""
    sizes = [
        "-1",
        "0",
        "-2147483648",
        "4294967296",
        "1 << 31",
        "0x7fffffff",
        "n",
        "k",
        "1.5",
        "-0",
        "(2 - 3)",
        "",
    ]
    globs, body = [], []
    for i in range(rng.randint(1, 6)):
        size = rng.choice(sizes)
        where = rng.choice(("groupshared float", "static const float", "float", "local"))
        if where == "local":
            body.append(f"    float a{i}[{size}]; a{i}[0] = 1; acc.x += a{i}[gi];")
        else:
            globs.append(f"{where} g{i}[{size}][{rng.choice(sizes)}];")
    return "\n".join(globs), "\n".join(body)


def _numthreads(rng: random.Random) -> str:
    args = rng.choice(
        (
            "0, 0, 0",
            "-1, 1, 1",
            "99999999999, 1, 1",
            "1024, 1024, 64",
            "64, 1",
            "",
            "64, 1, 1, 1",
            "1.5, 1, 1",
            '"64", 1, 1',
            "n, 1, 1",
            "0x7fffffff, 0x7fffffff, 0x7fffffff",
            "64,",
            "(64), (1), (1)",
            "A, B, C",
        )
    )
    return rng.choice(
        (f"[numthreads({args})]", f"[numthreads({args})][numthreads(8, 8, 1)]", f"[numthreads({args}")
    )


def grammar_case(rng: random.Random) -> tuple[str, dict[str, bytes]]:
    """A compute shader built around one to three grammar-aware hazards (name, files)."""
    globals_: list[str] = []
    body: list[str] = []
    attribute = "[numthreads(64, 1, 1)]"
    kinds = rng.sample(("nest", "macro", "literal", "soup", "array", "numthreads"), rng.randint(1, 3))
    for kind in kinds:
        if kind == "nest":
            depth = rng.choice((10, 30, 100, 300)) if rng.random() < 0.9 else rng.choice((1000, 3000, 20_000))
            body.append(_nest(rng, depth))
        elif kind == "macro":
            defs, use = _macro_bomb(rng)
            globals_.append(defs)
            body.append(f"    acc.x += {use};")
        elif kind == "literal":
            body.append(f"    acc.x += {_huge_literal(rng)};")
            if rng.random() < 0.5:
                globals_.append(f"static const float L[] = {{ {_huge_literal(rng)}, {_huge_literal(rng)} }};")
        elif kind == "soup":
            (globals_ if rng.random() < 0.5 else body).append(_directive_soup(rng))
        elif kind == "array":
            g, b = _bad_arrays(rng)
            globals_.append(g)
            body.append(b)
        else:
            attribute = _numthreads(rng)
    text = COMPUTE.format(globals="\n".join(globals_), attribute=attribute, body="\n".join(body))
    return "grammar-" + "+".join(kinds), {"case.hlsl": text.encode("utf-8")}


# -- output validators ---------------------------------------------------------------------------

_GITHUB = re.compile(r"^::(error|warning|notice)( [^:]*)?::")
_LOCATED = re.compile(r"^\S.*?:\d+:\d+: [A-Z]+\d+ ")


def _summary_or(pattern: re.Pattern[str]) -> Callable[[str], None]:
    def check(out: str) -> None:
        for line in out.splitlines():
            skip = line.startswith(("Found ", "[*]", "All checks", "No fixes", " ", "|", "="))
            if line.strip() and not skip and not pattern.match(line):
                raise ValueError(f"unexpected line: {line[:120]!r}")

    return check


def _every_line(out: str, pattern: re.Pattern[str]) -> None:
    for line in out.splitlines():
        if line.strip() and not pattern.match(line):
            raise ValueError(f"unexpected line: {line[:120]!r}")


def _json_lines(out: str) -> None:
    for line in out.splitlines():
        if line.strip():
            json.loads(line)


def _sarif(out: str) -> None:
    data = json.loads(out)
    if data.get("version") != "2.1.0" or not isinstance(data.get("runs"), list):
        raise ValueError("not SARIF 2.1.0")


VALIDATORS: dict[str, Callable[[str], None]] = {
    "json": lambda out: json.loads(out) if out.strip() else None,
    "json-lines": _json_lines,
    "sarif": _sarif,
    "github": lambda out: _every_line(out, _GITHUB),
    "concise": _summary_or(_LOCATED),
    "gitlab": lambda out: json.loads(out),
    "rdjson": lambda out: json.loads(out),
    "junit": lambda out: ET.fromstring(out) if out.strip() else None,
}


# -- running -------------------------------------------------------------------------------------


class Tally:
    def __init__(self, keep: Path | None) -> None:
        self.counts: Counter[str] = Counter()
        self.keep = keep
        self.examples: list[str] = []

    def fail(self, kind: str, case: str, folder: Path, detail: str) -> None:
        self.counts[kind] += 1
        note = f"{kind}: {case}: {detail.strip()[-400:]}"
        self.examples.append(note)
        print(note, file=sys.stderr)
        if self.keep is not None:
            target = self.keep / f"{kind}-{self.counts[kind]}-{case}"
            target.mkdir(parents=True, exist_ok=True)
            (target / "REASON.txt").write_text(note)
            with contextlib.suppress(OSError, shutil.Error):  # links are copied as links
                shutil.copytree(folder, target / "case", symlinks=True, dirs_exist_ok=True)


def run(
    args: list[str], cwd: Path, timeout: float, before: Callable[[], None] | None = None
) -> tuple[int | None, str, str, float]:
    """`hlsllint ARGS` in `cwd`, in a forked child of this process (the imports are already done,
    so a run costs the lint, not the start-up); None as the exit code when it ran past `timeout`.
    `before` runs first in the child (to drop privileges)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 70
            try:
                _die_with_parent()
                if before is not None:
                    before()
                os.chdir(cwd)
                os.dup2(out_f.fileno(), 1)
                os.dup2(err_f.fileno(), 2)
                code = cli_main(args)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 2
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        status = None
        clock = Stopwatch(pid, timeout)
        while not clock.past():
            done, raw = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(raw)
                break
            time.sleep(0.005)
        if status is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None, "", "", time.monotonic() - start
        out_f.seek(0)
        err_f.seek(0)
        out = out_f.read().decode("utf-8", "replace")
        err = err_f.read().decode("utf-8", "replace")
    return status, out, err, time.monotonic() - start


class Stopwatch:
    """When a run counts as hung: past `limit` seconds of processor time in its process (a
    machine shared with other jobs stretches the wall clock, not the work), or past ten times
    `limit` on the wall clock whatever it did (blocked on a FIFO, a lock, a pipe)."""

    def __init__(self, pid: int, limit: float) -> None:
        self.pid = pid
        self.limit = limit
        self.start = time.monotonic()
        self.cpu0 = self._cpu()

    def _cpu(self) -> float:
        """Processor seconds the process (and its reaped children) used so far, Linux only."""
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return 0.0
        return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")

    def past(self) -> bool:
        wall = time.monotonic() - self.start
        if wall < self.limit:
            return False
        return wall > 10 * self.limit or self._cpu() - self.cpu0 > self.limit


def crashed(code: int | None, err: str) -> bool:
    """Exit 2 is a crash unless it comes with a clean `hlsllint: error:` message (as `pressure`
    on an unreadable file); a traceback or a crashing rule always is."""
    if "Traceback" in err or "internal error" in err or "crashed" in err:
        return True
    return code not in (0, 1) and not (code == 2 and "hlsllint: error:" in err)


class Resident:
    """`hlsllint ARGS` run in process by one forked child, one run after another (the fast path:
    no fork per run). A run past its timeout, or one that kills the child, costs the child: a new
    one is forked for the next run. Process-wide state (caches, the plans) carries over from run
    to run, as in the language server."""

    def __init__(self) -> None:
        self.pid = 0
        self.runs = 0
        self._start()

    def _start(self) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        to_child_r, to_child_w = os.pipe()
        to_parent_r, to_parent_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: serves runs until its pipe closes; never returns
            os.close(to_child_w)
            os.close(to_parent_r)
            _die_with_parent()
            code = 0
            try:
                with os.fdopen(to_child_r, "rb") as requests, os.fdopen(to_parent_w, "wb") as replies:
                    while True:
                        head = requests.readline()
                        if not head:
                            break
                        args, cwd = json.loads(head)
                        reply = _run_here(args, cwd)
                        replies.write(json.dumps(reply).encode() + b"\n")
                        replies.flush()
            except BaseException:
                traceback.print_exc()
                code = 70
            os._exit(code)
        os.close(to_child_r)
        os.close(to_parent_w)
        self.pid = pid
        self.requests = os.fdopen(to_child_w, "wb")
        self.replies = os.fdopen(to_parent_r, "rb")

    def run(self, args: list[str], cwd: Path, timeout: float) -> tuple[int | None, str, str, float]:
        start = time.monotonic()
        self.runs += 1
        try:
            self.requests.write(json.dumps([args, str(cwd)]).encode() + b"\n")
            self.requests.flush()
        except BrokenPipeError:
            self._restart()
            return self.run(args, cwd, timeout)
        clock = Stopwatch(self.pid, timeout)
        ready: list[Any] = []
        while not ready and not clock.past():
            ready, _, _ = select.select([self.replies], [], [], 0.2)
        if not ready:  # a hang: the child goes, a fresh one takes the next run
            self._restart()
            return None, "", "", time.monotonic() - start
        line = self.replies.readline()
        if not line:  # the child died in the run (a crash in native code, os._exit)
            status = self._restart()
            return status, "", f"the resident process died: status {status}", time.monotonic() - start
        code, out, err = json.loads(line)
        return code, out, err, time.monotonic() - start

    def _restart(self) -> int:
        status = self.close()
        self._start()
        return status

    def close(self) -> int:
        with contextlib.suppress(OSError):
            self.requests.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        _, raw = os.waitpid(self.pid, 0)
        self.replies.close()
        return os.waitstatus_to_exitcode(raw)


def _run_here(args: list[str], cwd: str) -> tuple[int, str, str]:
    """`hlsllint ARGS` in `cwd` in this process: (exit code, stdout, stderr)."""
    here = os.getcwd()
    saved = os.dup(1), os.dup(2)
    code = 70
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        try:
            os.chdir(cwd)
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(out_f.fileno(), 1)
            os.dup2(err_f.fileno(), 2)
            try:
                code = cli_main(args)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 2
            except BaseException:
                traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            os.chdir(here)
        out_f.seek(0)
        err_f.seek(0)
        return code, out_f.read().decode("utf-8", "replace"), err_f.read().decode("utf-8", "replace")


def _die_with_parent() -> None:
    """A child of the fuzzer never outlives it (Linux)."""
    if sys.platform == "linux":
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG


BUDGET: list[str] = []
"""`--time-budget S` for every run, when the fuzzer is given one (`--time-budget`)."""

Runner = Callable[[list[str], Path, float], tuple[int | None, str, str, float]]
"""How a case runs `hlsllint ARGS`: `run` (a fork per run) or `Resident.run` (in process)."""


def check_case(
    name: str,
    folder: Path,
    tally: Tally,
    fmt: str,
    hang_after: float,
    runner: Runner = run,
    pressure: bool = True,
    fix: bool = True,
) -> None:
    """`check` in one output format (parsed back), then (when asked) `pressure` and `--fix`."""
    base = ["case.hlsl", "--no-cache", "-j", "1", *BUDGET]
    code, out, err, _ = runner([*base, "--output-format", fmt], folder, hang_after)
    if code is None:
        tally.fail("hang", name, folder, f"check --output-format {fmt}")
        return
    if crashed(code, err):
        tally.fail("crash", name, folder, f"check {fmt}: exit {code}: {err}")
        return
    validator = VALIDATORS.get(fmt)
    if validator is not None:
        try:
            validator(out)
        except (ValueError, ET.ParseError) as e:
            tally.fail("invalid", name, folder, f"{fmt}: {e}")
    tally.counts["cli runs"] += 1
    if pressure:
        code, out, err, _ = runner(
            ["pressure", "case.hlsl", "--output-format", "json", *BUDGET], folder, hang_after
        )
        if code is None:
            tally.fail("hang", name, folder, "pressure")
        elif crashed(code, err):
            tally.fail("crash", name, folder, f"pressure: exit {code}: {err}")
        else:
            try:
                json.loads(out) if out.strip() else None
            except ValueError as e:
                tally.fail("invalid", name, folder, f"pressure json: {e}")
        tally.counts["pressure runs"] += 1
    if fix:
        check_fix(name, folder, tally, hang_after, runner)


def _hl000(out: str) -> int | None:
    """The HL000 findings of a JSON report; None when it does not parse or the time budget cut
    the analysis short (HL006: a parse stopped part-way reports no HL000, so counts of two runs
    under a loaded machine's budget do not compare)."""
    try:
        found = json.loads(out) if out.strip() else []
    except ValueError:
        return None
    if any(d.get("code") == "HL006" for d in found):
        return None
    return sum(1 for d in found if d.get("code") == "HL000")


def check_fix(name: str, folder: Path, tally: Tally, hang_after: float, runner: Runner = run) -> None:
    copy = folder / "fixcopy"
    copy.mkdir()
    for f in folder.iterdir():
        if f.is_file():
            shutil.copy2(f, copy / f.name)
    lint = ["case.hlsl", "--no-cache", "-j", "1", "--output-format", "json", "--select", "ALL", *BUDGET]
    code, before_out, err, _ = runner(lint, copy, hang_after)
    before = _hl000(before_out)
    if code is None or before is None:
        return  # counted by the check above
    code, _, err, _ = runner(
        ["case.hlsl", "--no-cache", "-j", "1", "--fix", "--unsafe-fixes", *BUDGET], copy, hang_after
    )
    if code is None:
        tally.fail("hang", name, folder, "--fix")
        return
    if crashed(code, err):
        tally.fail("crash", name, folder, f"--fix: exit {code}: {err}")
        return
    code, after_out, err, _ = runner(lint, copy, hang_after)
    after = _hl000(after_out)
    if after is not None and after > before:
        tally.fail("fix-violation", name, folder, f"HL000 {before} -> {after} after --fix")
    once = (copy / "case.hlsl").read_bytes()
    runner(["case.hlsl", "--no-cache", "-j", "1", "--fix", "--unsafe-fixes", *BUDGET], copy, hang_after)
    if (copy / "case.hlsl").read_bytes() != once:
        tally.fail("fix-violation", name, folder, "a second --fix changed the file")
    tally.counts["fix runs"] += 1


# -- the file system -----------------------------------------------------------------------------

NOBODY = 65534
FIXABLE = "float f(float x)\n{\n    return sign(x) < 0 ? 1.0 : 2.0;\n}\n"
"""A shader with a safe fix (HL105: `sign(x) < 0` -> `x < 0`)."""


def _as_user(uid: int | None) -> Callable[[], None] | None:
    """What a forked run does first to run as `uid` (root reads and writes through permissions,
    so unreadable and read-only files mean nothing to it)."""
    if uid is None or os.geteuid() != 0:
        return None

    def drop() -> None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)

    return drop


def _leftovers(folder: Path) -> list[str]:
    """Temporary files a write left behind."""
    return [
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.name.endswith(".tmp") or ".hlsllint-" in p.name
    ]


def _open_up(folder: Path) -> None:
    """Let anyone read, write and enter the case's folder (runs may drop to `nobody`)."""
    for p in [folder, *folder.rglob("*")]:
        if not p.is_symlink():
            mode = 0o777 if p.is_dir() else 0o666
            with contextlib.suppress(OSError):
                os.chmod(p, mode)


def fs_case(rng: random.Random, folder: Path, tally: Tally, hang_after: float) -> str:
    """One file-system hazard, checked end to end through forked CLI runs (as `nobody` when this
    is root). Returns the case's name."""
    kind = rng.choice(("symlinks", "fifo", "unreadable", "readonly", "hardlink", "concurrent", "vanishing"))
    name = f"fs-{kind}"
    os.chmod(folder, 0o777)
    for parent in folder.parents:  # the temporary folder itself is private
        if parent == Path(tempfile.gettempdir()):
            break
        with contextlib.suppress(OSError):
            os.chmod(parent, 0o755 | (os.stat(parent).st_mode & 0o7777))
    (folder / "real.hlsl").write_text(FIXABLE)
    (folder / "other.hlsl").write_text(FIXABLE.replace("f(", "g("))
    sub = folder / "sub"
    sub.mkdir()
    (sub / "inner.hlsl").write_text('#include "../real.hlsl"\n' + FIXABLE.replace("f(", "h("))
    _open_up(folder)
    user = _as_user(NOBODY)
    fmt = rng.choice(sorted(VALIDATORS))
    check = ["--no-cache", "-j", str(rng.choice((1, 2))), "--output-format", fmt, *BUDGET]
    fix = ["--no-cache", "-j", "1", "--fix", *BUDGET]

    def lint(args: list[str], what: str) -> tuple[int, str, str] | None:
        code, out, err, _ = run(args, folder, hang_after, before=user)
        if code is None:
            tally.fail("hang", name, folder, what)
            return None
        if crashed(code, err):
            tally.fail("crash", name, folder, f"{what}: exit {code}: {err}")
            return None
        return code, out, err

    def validated(args: list[str], what: str) -> None:
        done = lint(args, what)
        if done is not None and done[0] == 2:  # a clean `hlsllint: error:`, but the run stopped
            tally.counts["fs: run stopped by an OS error"] += 1
            print(f"stopped: {name}: {what}: {done[2].strip()[-200:]}", file=sys.stderr)
            return
        if done is not None and fmt in VALIDATORS:
            try:
                VALIDATORS[fmt](done[1])
            except (ValueError, ET.ParseError) as e:
                tally.fail("invalid", name, folder, f"{what}: {fmt}: {e}")

    if kind == "symlinks":
        os.symlink("real.hlsl", folder / "link.hlsl")
        os.symlink("sub", folder / "dirlink")
        os.symlink("missing.hlsl", folder / "dangling.hlsl")
        os.symlink("loop2.hlsl", folder / "loop1.hlsl")
        os.symlink("loop1.hlsl", folder / "loop2.hlsl")
        os.symlink("..", sub / "up")
        os.symlink(".", sub / "self")
        validated([".", *check], "check . (symlinks)")
        validated(["link.hlsl", "loop1.hlsl", "dangling.hlsl", *check], "check links")
        lint(["link.hlsl", *fix], "--fix through a symlink")
        if not (folder / "link.hlsl").is_symlink():
            tally.fail("lost", name, folder, "--fix replaced a symlink by a file")
        elif "sign(x) < 0" in (folder / "real.hlsl").read_text():
            tally.counts["fs: symlink target not fixed"] += 1
    elif kind == "fifo":
        os.mkfifo(folder / "pipe.hlsl")
        os.chmod(folder / "pipe.hlsl", 0o666)
        validated([".", *check], "check . (a FIFO in it)")
        validated(["pipe.hlsl", "real.hlsl", *check], "check pipe.hlsl")
        lint(["pipe.hlsl", *fix], "--fix pipe.hlsl")
    elif kind == "unreadable":
        os.chmod(folder / "other.hlsl", 0)
        os.chmod(sub, 0)
        validated([".", *check], "check . (unreadable file and folder)")
        validated(["other.hlsl", "sub/inner.hlsl", *check], "check unreadable files")
        lint([".", *fix], "--fix . (unreadable)")
        os.chmod(sub, 0o777)
        os.chmod(folder / "other.hlsl", 0o666)
        if (folder / "other.hlsl").read_text() != FIXABLE.replace("f(", "g("):
            tally.fail("lost", name, folder, "an unreadable file changed")
    elif kind == "readonly":
        os.chmod(folder / "real.hlsl", 0o444)
        os.chmod(sub / "inner.hlsl", 0o444)
        os.chmod(sub, 0o555)
        lint([".", *fix], "--fix . (read-only file and folder)")
        os.chmod(sub, 0o777)
        if (sub / "inner.hlsl").read_text() != '#include "../real.hlsl"\n' + FIXABLE.replace("f(", "h("):
            tally.fail("lost", name, folder, "a file in a read-only folder changed")
        if (folder / "real.hlsl").read_text() != FIXABLE:
            tally.counts["fs: read-only file rewritten"] += 1
    elif kind == "hardlink":
        os.link(folder / "real.hlsl", folder / "twin.hlsl")
        lint(["real.hlsl", *fix], "--fix a hard-linked file")
        if os.stat(folder / "real.hlsl").st_ino != os.stat(folder / "twin.hlsl").st_ino:
            tally.counts["fs: hard link split by --fix"] += 1
    elif kind == "concurrent":
        _concurrent_fix(rng, folder, tally, name, hang_after, user)
    else:  # files that vanish, shrink or turn into folders while a folder is linted
        for i in range(40):
            (folder / f"v{i}.hlsl").write_text(FIXABLE.replace("f(", f"v{i}(") * rng.randint(1, 30))
        _open_up(folder)
        stop = threading.Event()

        def churn() -> None:
            while not stop.is_set():
                victim = folder / f"v{rng.randrange(40)}.hlsl"
                with contextlib.suppress(OSError):
                    action = rng.random()
                    if action < 0.3:
                        victim.unlink()
                    elif action < 0.5:
                        victim.write_bytes(b"")
                    elif action < 0.6:
                        victim.unlink()
                        victim.mkdir()
                    else:
                        if victim.is_dir():
                            victim.rmdir()
                        victim.write_text(FIXABLE)
                        os.chmod(victim, 0o666)
                time.sleep(0.001)

        mover = threading.Thread(target=churn)
        mover.start()
        try:
            validated([".", *check], "check . (files changing)")
            lint([".", *fix], "--fix . (files changing)")
        finally:
            stop.set()
            mover.join()
    left = _leftovers(folder)
    if left:
        tally.fail("lost", name, folder, f"temporary files left: {left[:5]}")
    return name


def _concurrent_fix(
    rng: random.Random,
    folder: Path,
    tally: Tally,
    name: str,
    hang_after: float,
    user: Callable[[], None] | None,
) -> None:
    """`--fix` while an editor appends lines to the same file: every line the editor wrote must be
    in the file afterwards (a fix may be skipped or applied, never written over an edit)."""
    target = folder / "real.hlsl"
    target.write_text(FIXABLE * rng.randint(1, 200))
    os.chmod(target, 0o666)
    written: list[str] = []
    stop = threading.Event()

    def editor() -> None:
        n = 0
        while not stop.is_set():
            line = f"// edit {n}\n"
            with contextlib.suppress(OSError), open(target, "a", encoding="utf-8") as f:
                f.write(line)
                written.append(line)
            n += 1
            time.sleep(rng.choice((0.0, 0.0005, 0.002)))

    thread = threading.Thread(target=editor)
    thread.start()
    try:
        code, _, err, _ = run(
            ["real.hlsl", "--no-cache", "-j", "1", "--fix"], folder, hang_after, before=user
        )
    finally:
        stop.set()
        thread.join()
    if code is None:
        tally.fail("hang", name, folder, "--fix during edits")
        return
    if crashed(code, err):
        tally.fail("crash", name, folder, f"--fix during edits: exit {code}: {err}")
        return
    text = target.read_text(encoding="utf-8", errors="replace")
    lost = [line for line in written if line not in text]
    if lost:
        tally.fail("lost", name, folder, f"{len(lost)} of {len(written)} edits lost by --fix: {lost[:3]}")
    tally.counts["fs: edits during --fix"] += len(written)


# -- the language server -------------------------------------------------------------------------


class Lsp:
    """A bare JSON-RPC client over the server's stdio."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            [EXE, "server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=root,
        )
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        stream = self.proc.stdout
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            self.inbox.put(json.loads(stream.read(length)))

    def send(self, method: str, params: Any, request: bool = False) -> int | None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        ident = None
        if request:
            self.next_id += 1
            ident = msg["id"] = self.next_id
        body = json.dumps(msg).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return ident

    def request(self, method: str, params: Any, timeout: float) -> dict[str, Any] | None:
        ident = self.send(method, params, request=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                msg = self.inbox.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if msg.get("id") == ident and "method" not in msg:
                return msg
            if "method" in msg and "id" in msg:  # a server->client request: answer it
                self._reply(msg["id"])
        return None

    def wait(self, wanted: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any] | None:
        """The next message `wanted` takes, answering the server's requests meanwhile."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                msg = self.inbox.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if wanted(msg):
                return msg
            if "method" in msg and "id" in msg:
                self._reply(msg["id"])
        return None

    def _reply(self, ident: Any) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": ident, "result": None}).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def close(self) -> None:
        try:
            self.request("shutdown", None, 5)
            self.send("exit", None)
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired, ValueError):
            self.proc.kill()


def lsp_session(seeds: list[bytes], rng: random.Random, tally: Tally, work: Path, hang_after: float) -> None:
    folder = work / "lsp"
    folder.mkdir()
    path = folder / "case.hlsl"
    text = rng.choice(seeds).decode("utf-8", "replace") if seeds else ""
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    lsp = Lsp(folder)
    try:
        init = lsp.request(
            "initialize",
            {
                "processId": None,
                "rootUri": folder.as_uri(),
                "capabilities": {},
                "initializationOptions": {"diagnosticMode": "push", "debounceMs": 0},
            },
            hang_after,
        )
        if init is None:  # no answer in time: a server that died, or one that starts too slowly
            kind = "crash" if lsp.proc.poll() is not None else "hang"
            tally.fail(kind, "lsp-initialize", folder, "no answer to initialize")
            return
        if "error" in init:
            tally.fail("crash", "lsp-initialize", folder, str(init))
            return
        lsp.send("initialized", {})
        lsp.send(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "hlsl", "version": 1, "text": text}},
        )
        for version in range(2, 2 + rng.randint(5, 15)):
            if rng.random() < 0.5 or not text:
                text = mutate(text.encode("utf-8"), seeds, rng).decode("utf-8", "replace")
                lsp.send(
                    "textDocument/didChange",
                    {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
                )
            else:  # an incremental edit at a random (possibly out-of-range) position
                line, char = rng.randint(0, text.count("\n") + 2), rng.randint(0, 200)
                rng_ = {
                    "start": {"line": line, "character": char},
                    "end": {"line": line, "character": char + rng.randint(0, 5)},
                }
                new = rng.choice(TOKENS)
                lsp.send(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"range": rng_, "text": new}],
                    },
                )
            pos = {"line": rng.randint(0, text.count("\n") + 1), "character": rng.randint(0, 80)}
            method, params = rng.choice(
                [
                    ("textDocument/hover", {"textDocument": {"uri": uri}, "position": pos}),
                    ("textDocument/diagnostic", {"textDocument": {"uri": uri}}),
                    (
                        "textDocument/inlayHint",
                        {
                            "textDocument": {"uri": uri},
                            "range": {"start": {"line": 0, "character": 0}, "end": pos},
                        },
                    ),
                    (
                        "textDocument/codeAction",
                        {
                            "textDocument": {"uri": uri},
                            "range": {"start": pos, "end": pos},
                            "context": {"diagnostics": []},
                        },
                    ),
                ]
            )
            reply = lsp.request(method, params, hang_after)
            tally.counts["lsp requests"] += 1
            if reply is None:
                kind = "crash" if lsp.proc.poll() is not None else "hang"
                tally.fail(
                    kind, f"lsp-{method.split('/')[-1]}", folder, f"no reply (text: {len(text)} chars)"
                )
                path.write_text(text, encoding="utf-8", errors="replace")
                return
            if "error" in reply:
                path.write_text(text, encoding="utf-8", errors="replace")
                tally.fail("crash", f"lsp-{method.split('/')[-1]}", folder, json.dumps(reply["error"])[:400])
            if rng.random() < 0.2 and not _bad_message(lsp, uri, rng, tally, folder, hang_after):
                return
    finally:
        lsp.close()
        shutil.rmtree(folder, ignore_errors=True)


def _bad_message(
    lsp: Lsp, uri: str, rng: random.Random, tally: Tally, folder: Path, hang_after: float
) -> bool:
    """A message the server cannot serve: bad params, an unknown method, a body that is not JSON.
    The answer must be the JSON-RPC error for it (never silence, never an internal error).
    False when the server is gone or hangs."""
    bad: list[tuple[str, Any, int]] = [
        ("textDocument/hover", {"textDocument": {"uri": uri}}, -32602),
        ("textDocument/hover", rng.choice((42, None, [], "x")), -32602),
        ("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": None, "context": {}}, -32602),
        ("textDocument/inlayHint", {"textDocument": {}, "range": {"start": {"line": -1}}}, -32602),
        ("textDocument/diagnostic", {"textDocument": None}, -32602),
        ("hlsllint/noSuchMethod", {}, -32601),
    ]
    if rng.random() < 0.25:  # not JSON: answered with id null
        body = rng.choice((b"{", b"\xff\xfe", b"[" * 50_000, b'{"jsonrpc": "2.0", "id": 1, "method":'))
        assert lsp.proc.stdin is not None
        lsp.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        lsp.proc.stdin.flush()
        method, expected = "parse-error", -32700
        reply = lsp.wait(lambda m: "error" in m and m.get("id") is None and "method" not in m, hang_after)
    else:
        method, params, expected = rng.choice(bad)
        reply = lsp.request(method, params, hang_after)
    tally.counts["lsp bad messages"] += 1
    if reply is None:
        kind = "crash" if lsp.proc.poll() is not None else "hang"
        tally.fail(kind, f"lsp-bad-{method.split('/')[-1]}", folder, "no answer to a bad message")
        return False
    code = reply.get("error", {}).get("code")
    if code != expected:
        tally.fail(
            "invalid", f"lsp-bad-{method.split('/')[-1]}", folder, f"expected {expected}: {reply}"[:400]
        )
    return True


def load_seeds(corpus: Path, limit: int, rng: random.Random, max_bytes: int = 200_000) -> list[bytes]:
    files = sorted(
        p for p in corpus.rglob("*") if p.suffix.lower() in EXTENSIONS and p.is_file() and not p.is_symlink()
    )
    rng.shuffle(files)
    out = []
    for p in files[:limit]:
        try:
            data = p.read_bytes()
        except OSError:
            continue
        if len(data) < max_bytes:
            out.append(data)
    return out


MODES = ("hostile", "grammar", "mutant", "fs", "lsp")
WEIGHTS = {"grammar": 50, "mutant": 45, "fs": 3}
"""How often each random mode comes up (hostile cases run once each, first; an LSP session
every `--lsp-every` cases)."""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", type=Path, help="folder of real shaders (seeds; never committed)")
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--cases", type=int, default=0, help="stop after this many cases (0: --minutes decides)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", type=int, default=400, help="how many corpus files to mutate")
    ap.add_argument("--max-seed-bytes", type=int, default=200_000, help="skip larger corpus files")
    ap.add_argument("--hang-after", type=float, default=40, help="seconds (time budget 10 s + start-up)")
    ap.add_argument("--keep", type=Path, help="copy failing cases here")
    ap.add_argument("--verbose", action="store_true", help="print each case's time")
    ap.add_argument("--lsp-every", type=int, default=10, help="an LSP session every N cases")
    ap.add_argument("--modes", default=",".join(MODES), help=f"which of {','.join(MODES)} to run")
    ap.add_argument(
        "--in-process",
        action="store_true",
        help="run check/pressure/--fix of hostile, grammar and mutant cases in one resident process "
        "(fast; the file-system and LSP modes always run in their own processes)",
    )
    ap.add_argument(
        "--time-budget", type=float, help="pass `--time-budget S` to every run (default: hlsllint's)"
    )
    ap.add_argument("--pressure-every", type=int, default=1, help="`pressure` on every Nth case")
    ap.add_argument("--fix-every", type=int, default=1, help="`--fix` on every Nth case")
    args = ap.parse_args()
    modes = set(args.modes.split(","))
    if args.time_budget is not None:
        BUDGET[:] = ["--time-budget", f"{args.time_budget:g}"]
    if modes - set(MODES):
        ap.error(f"unknown modes: {sorted(modes - set(MODES))}")
    all_rules()  # load the plugins once, before the forks
    _warm_up()
    rng = random.Random(args.seed)
    seeds = load_seeds(args.corpus, args.seeds, rng, args.max_seed_bytes)
    tally = Tally(args.keep)
    formats = sorted(FORMATS)
    deadline = time.monotonic() + args.minutes * 60
    hostile = hostile_cases() if "hostile" in modes else []
    weighted = [m for m in WEIGHTS if m in modes and (m != "mutant" or seeds)]
    resident = Resident() if args.in_process else None
    runner: Runner = resident.run if resident is not None else run
    cases = 0
    began_all = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="hlsllint-fuzz-") as tmp:
            work = Path(tmp)
            while time.monotonic() < deadline and (not args.cases or cases < args.cases):
                folder = work / f"case{cases}"
                folder.mkdir()
                began = time.monotonic()
                # hostile inputs first, then the random modes
                mode = "hostile" if cases < len(hostile) else None
                if mode is None and weighted:
                    mode = rng.choices(weighted, [WEIGHTS[m] for m in weighted])[0]
                if mode is None:
                    name = "none"
                elif mode == "fs":
                    name = fs_case(rng, folder, tally, args.hang_after)
                else:
                    if mode == "hostile":
                        name, files = hostile[cases]
                    elif mode == "grammar":
                        name, files = grammar_case(rng)
                    else:
                        name, files = f"mutant{cases}", {"case.hlsl": mutate(rng.choice(seeds), seeds, rng)}
                        if rng.random() < 0.2:  # with a mutated header it includes
                            files["case.hlsl"] = b'#include "inc.hlsli"\n' + files["case.hlsl"]
                            files["inc.hlsli"] = mutate(rng.choice(seeds), seeds, rng)
                    for fname, data in files.items():
                        (folder / fname).write_bytes(data)
                    check_case(
                        name,
                        folder,
                        tally,
                        formats[cases % len(formats)],
                        args.hang_after,
                        runner,
                        pressure=cases % args.pressure_every == 0,
                        fix=cases % args.fix_every == 0,
                    )
                if mode is not None:
                    tally.counts[f"cases: {mode}"] += 1
                if args.verbose:
                    print(f"{name}: {time.monotonic() - began:.2f} s", file=sys.stderr)
                cases += 1
                if "lsp" in modes and cases % args.lsp_every == 0:
                    lsp_session(seeds, rng, tally, work, args.hang_after * 5)  # wall clock: slack for load
                    tally.counts["cases: lsp"] += 1
                _rmtree(folder)
    finally:
        if resident is not None:
            resident.close()
    tally.counts["seconds"] = round(time.monotonic() - began_all)
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    tally.counts["cpu seconds"] = round(me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime)
    summary = {k: tally.counts[k] for k in FAILURES}
    summary.update({k: v for k, v in sorted(tally.counts.items()) if k not in summary})
    print(json.dumps(summary, indent=1))
    return 1 if any(tally.counts[k] for k in FAILURES) else 0


FAILURES = ("crash", "hang", "invalid", "fix-violation", "lost")


def _warm_up() -> None:
    """Run the CLI here in every way a case runs it, before any fork: what a run imports late
    (multiprocessing for -j, an output format's modules) is then imported already. A run that
    drops to `nobody` could not read this interpreter's standard library when it lives in a
    private folder (/root)."""
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(2):
            Path(tmp, f"w{n}.hlsl").write_text(FIXABLE.replace("f(", f"w{n}("))
        runs = [[".", "--no-cache", "-j", "2", "--output-format", fmt] for fmt in sorted(FORMATS)]
        runs += [
            [".", "--no-cache", "--statistics"],
            ["w0.hlsl", "--no-cache", "--fix", "--unsafe-fixes"],
            ["pressure", "w1.hlsl", "--output-format", "json"],
            ["pressure", "w1.hlsl"],
        ]
        for args in runs:
            _run_here(args, tmp)


def _rmtree(folder: Path) -> None:
    """Remove a case's folder, whatever its modes (a case may leave it read-only)."""
    for p in [folder, *folder.rglob("*")] if folder.exists() else []:
        if not p.is_symlink() and p.is_dir():
            with contextlib.suppress(OSError):
                os.chmod(p, 0o777)
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
