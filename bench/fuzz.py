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
import json
import os
import queue
import random
import re
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
            shutil.copytree(folder, target, dirs_exist_ok=True)
            (target / "REASON.txt").write_text(note)


def run(args: list[str], cwd: Path, timeout: float) -> tuple[int | None, str, str, float]:
    """`hlsllint ARGS` in `cwd`, in a forked child of this process (the imports are already done,
    so a run costs the lint, not the start-up); None as the exit code when it ran past `timeout`."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 70
            try:
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
        while time.monotonic() - start < timeout:
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


def crashed(code: int | None, err: str) -> bool:
    """Exit 2 is a crash unless it comes with a clean `hlsllint: error:` message (as `pressure`
    on an unreadable file); a traceback or a crashing rule always is."""
    if "Traceback" in err or "internal error" in err or "crashed" in err:
        return True
    return code not in (0, 1) and not (code == 2 and "hlsllint: error:" in err)


def check_case(name: str, folder: Path, tally: Tally, fmt: str, hang_after: float) -> None:
    base = ["case.hlsl", "--no-cache", "-j", "1"]
    code, out, err, _ = run([*base, "--output-format", fmt], folder, hang_after)
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

    code, out, err, _ = run(["pressure", "case.hlsl", "--output-format", "json"], folder, hang_after)
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
    check_fix(name, folder, tally, hang_after)


def _hl000(out: str) -> int | None:
    try:
        return sum(1 for d in json.loads(out) if d.get("code") == "HL000") if out.strip() else 0
    except ValueError:
        return None


def check_fix(name: str, folder: Path, tally: Tally, hang_after: float) -> None:
    copy = folder / "fixcopy"
    copy.mkdir()
    for f in folder.iterdir():
        if f.is_file():
            shutil.copy2(f, copy / f.name)
    lint = ["case.hlsl", "--no-cache", "-j", "1", "--output-format", "json", "--select", "ALL"]
    code, before_out, err, _ = run(lint, copy, hang_after)
    before = _hl000(before_out)
    if code is None or before is None:
        return  # counted by the check above
    code, _, err, _ = run(["case.hlsl", "--no-cache", "-j", "1", "--fix", "--unsafe-fixes"], copy, hang_after)
    if code is None:
        tally.fail("hang", name, folder, "--fix")
        return
    if crashed(code, err):
        tally.fail("crash", name, folder, f"--fix: exit {code}: {err}")
        return
    code, after_out, err, _ = run(lint, copy, hang_after)
    after = _hl000(after_out)
    if after is not None and after > before:
        tally.fail("fix-violation", name, folder, f"HL000 {before} -> {after} after --fix")
    once = (copy / "case.hlsl").read_bytes()
    run(["case.hlsl", "--no-cache", "-j", "1", "--fix", "--unsafe-fixes"], copy, hang_after)
    if (copy / "case.hlsl").read_bytes() != once:
        tally.fail("fix-violation", name, folder, "a second --fix changed the file")
    tally.counts["fix runs"] += 1


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
    finally:
        lsp.close()
        shutil.rmtree(folder, ignore_errors=True)


def load_seeds(corpus: Path, limit: int, rng: random.Random) -> list[bytes]:
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
        if len(data) < 200_000:
            out.append(data)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", type=Path, help="folder of real shaders (seeds; never committed)")
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", type=int, default=400, help="how many corpus files to mutate")
    ap.add_argument("--hang-after", type=float, default=40, help="seconds (time budget 10 s + start-up)")
    ap.add_argument("--keep", type=Path, help="copy failing cases here")
    ap.add_argument("--verbose", action="store_true", help="print each case's time")
    ap.add_argument("--lsp-every", type=int, default=10, help="an LSP session every N cases")
    args = ap.parse_args()
    all_rules()  # load the plugins once, before the forks
    rng = random.Random(args.seed)
    seeds = load_seeds(args.corpus, args.seeds, rng)
    tally = Tally(args.keep)
    formats = sorted(FORMATS)
    deadline = time.monotonic() + args.minutes * 60
    hostile = hostile_cases()
    cases = 0
    with tempfile.TemporaryDirectory(prefix="hlsllint-fuzz-") as tmp:
        work = Path(tmp)
        while time.monotonic() < deadline:
            folder = work / f"case{cases}"
            folder.mkdir()
            # hostile inputs first (each once per output format), then mutations of real shaders
            if cases < len(hostile):
                name, files = hostile[cases]
            else:
                name, files = f"mutant{cases}", {"case.hlsl": mutate(rng.choice(seeds), seeds, rng)}
                if rng.random() < 0.2:  # with a mutated header it includes
                    files["case.hlsl"] = b'#include "inc.hlsli"\n' + files["case.hlsl"]
                    files["inc.hlsli"] = mutate(rng.choice(seeds), seeds, rng)
            for fname, data in files.items():
                (folder / fname).write_bytes(data)
            began = time.monotonic()
            check_case(name, folder, tally, formats[cases % len(formats)], args.hang_after)
            if args.verbose:
                print(f"{name}: {time.monotonic() - began:.1f} s", file=sys.stderr)
            cases += 1
            if cases % args.lsp_every == 0:
                lsp_session(seeds, rng, tally, work, args.hang_after)
            shutil.rmtree(folder, ignore_errors=True)
    tally.counts["cases"] = cases
    summary = {k: tally.counts[k] for k in ("crash", "hang", "invalid", "fix-violation")}
    summary.update({k: v for k, v in tally.counts.items() if k not in summary})
    print(json.dumps(summary, indent=1))
    return 1 if any(tally.counts[k] for k in ("crash", "hang", "invalid", "fix-violation")) else 0


if __name__ == "__main__":
    sys.exit(main())
