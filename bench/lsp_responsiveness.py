"""How the language server answers while one document is slow to analyse.

    python bench/lsp_responsiveness.py [--exe PATH/TO/hlsllint] [--slow nested|large|SHAPE] [--size N]

Opens a slow document (`nested`: 20,000 nested ifs; `large`: 40 entry points of 20 loops each;
or a shape of `tests/hostile.py`, `--size` deep, 50,000 by default: `ifs`, `terms`, `macro-terms`...),
then, while it is analysed:
- another document is opened: seconds until its diagnostics arrive;
- hovers on that other document, one after another: their latencies (p50, p95, max);
then waits for the slow document's diagnostics (seconds since it was opened, and their codes),
opens a fresh slow document, edits it a second later, and says how long the new
version's diagnostics take (the stale analysis is cancelled, not waited for). `--exe` picks the
build: an editable install runs pure Python, a wheel the compiled stages.
"""

from __future__ import annotations

import argparse
import json
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import hostile

BAD = "float f(float x)\n{\n    return sign(x) < 0 ? 1.0 : 2.0;\n}\n"


def nested(depth: int = 20_000) -> str:
    return "float f(float x)\n{\n" + "if (x > 0) {\n" * depth + "x += 1;\n" + "}\n" * depth + "return x;\n}\n"


def large(entries: int = 40, loops: int = 20) -> str:
    head = (
        "RWStructuredBuffer<float4> Out : register(u0);\nTexture2D<float4> Tex : register(t0);\n"
        "SamplerState S : register(s0);\ncbuffer C : register(b0) { uint n; }\n"
    )
    parts = [head]
    for e in range(entries):
        body = "\n".join(
            f"    for (uint i{j} = 0; i{j} < n; ++i{j}) {{"
            f" acc += Tex.SampleLevel(S, float2(i{j}, {e}) / 64.0, 0) * {j + 1}.0;"
            f" if (acc.x > {j}) acc.y += acc.z; }}"
            for j in range(loops)
        )
        parts.append(
            f"[numthreads(64, 1, 1)]\nvoid main{e}(uint3 id : SV_DispatchThreadID)\n{{\n"
            f"    float4 acc = 0;\n{body}\n    Out[id.x] = acc;\n}}\n"
        )
    return "".join(parts)


class Client:
    def __init__(self, exe: str, root: Path) -> None:
        self.proc = subprocess.Popen(
            [exe, "server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=root,
        )
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.published: dict[str, list[tuple[float, int | None, int]]] = {}
        self.codes: dict[str, list[str]] = {}
        """Per document: the codes of its last diagnostics."""
        self.replies: dict[int, dict[str, Any]] = {}
        self.cond = threading.Condition()
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
            msg = json.loads(stream.read(length))
            with self.cond:
                if msg.get("method") == "textDocument/publishDiagnostics":
                    p = msg["params"]
                    entry = (time.monotonic(), p.get("version"), len(p["diagnostics"]))
                    self.published.setdefault(p["uri"], []).append(entry)
                    self.codes[p["uri"]] = [str(d.get("code")) for d in p["diagnostics"]]
                elif "id" in msg and "method" not in msg:
                    self.replies[msg["id"]] = msg
                elif "id" in msg:
                    self._send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                self.cond.notify_all()

    def _send(self, msg: dict[str, Any]) -> None:
        body = json.dumps(msg).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any, timeout: float = 120) -> dict[str, Any]:
        self.next_id += 1
        ident = self.next_id
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        with self.cond:
            if not self.cond.wait_for(lambda: ident in self.replies, timeout):
                raise TimeoutError(method)
            return self.replies.pop(ident)

    def wait_published(self, uri: str, version: int, timeout: float = 300) -> float:
        with self.cond:
            ok = self.cond.wait_for(
                lambda: any(v == version for _, v, _ in self.published.get(uri, [])), timeout
            )
            if not ok:
                raise TimeoutError(uri)
            return next(t for t, v, _ in self.published[uri] if v == version)

    def open(self, path: Path, text: str, version: int = 1) -> str:
        uri = path.as_uri()
        doc = {"uri": uri, "languageId": "hlsl", "version": version, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": doc})
        return uri

    def done(self, uri: str, version: int = 1) -> bool:
        """Whether `version` of the document has its diagnostics."""
        with self.cond:
            return any(v == version for _, v, _ in self.published.get(uri, []))

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--exe", default=str(Path(sys.executable).with_name("hlsllint")))
    shapes = ("nested", "large", "macro-terms", *hostile.SHAPES)
    ap.add_argument("--slow", choices=shapes, default="large")
    ap.add_argument("--size", type=int, default=50_000, help="how deep a shape of tests/hostile.py is")
    ap.add_argument("--time-budget", type=float, default=10, help="the documents' budget (0: none)")
    ap.add_argument("--hover-seconds", type=float, default=5.0, help="how long to hover while it runs")
    args = ap.parse_args()
    if args.slow == "nested":
        slow_text = nested()
    elif args.slow == "large":
        slow_text = large()
    elif args.slow == "macro-terms":
        slow_text = hostile.macro_terms(args.size // 10_000 * 10_000)
    else:
        slow_text = hostile.SHAPES[args.slow](args.size)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "hlsllint.toml").write_text(f'select = ["HL"]\ntime-budget = {args.time_budget:g}\n')
        client = Client(args.exe, root)
        try:
            client.request("initialize", {
                "processId": None, "rootUri": root.as_uri(), "capabilities": {},
                "initializationOptions": {"diagnosticMode": "push", "debounceMs": 0},
            })  # fmt: skip
            client.notify("initialized", {})
            warm = client.open(root / "warm.hlsl", BAD)
            client.wait_published(warm, 1)
            slow = client.open(root / "slow.hlsl", slow_text)
            opened = time.monotonic()
            other = client.open(root / "other.hlsl", BAD.replace("f(", "g("))
            other_s = client.wait_published(other, 1) - opened
            hovers: list[float] = []
            hover = {"textDocument": {"uri": other}, "position": {"line": 2, "character": 14}}
            end = time.monotonic() + args.hover_seconds
            while time.monotonic() < end and not client.done(slow):
                began = time.monotonic()
                client.request("textDocument/hover", hover)
                hovers.append(time.monotonic() - began)
                time.sleep(0.02)
            still = not client.done(slow)
            slow_s = client.wait_published(slow, 1) - opened
            fresh = client.open(root / "stale.hlsl", slow_text)
            time.sleep(1.0)  # its analysis is under way
            edited = time.monotonic()
            change = {"textDocument": {"uri": fresh, "version": 2}, "contentChanges": [{"text": BAD}]}
            client.notify("textDocument/didChange", change)
            edit_s = client.wait_published(fresh, 2) - edited
            stats = client.request("workspace/executeCommand", {"command": "hlsllint.stats", "arguments": []})
        finally:
            client.close()
    result = {
        "exe": args.exe,
        "slow": args.slow if args.slow in ("nested", "large") else f"{args.slow} {args.size}",
        "time budget (s)": args.time_budget,
        "other document's diagnostics (s)": round(other_s, 3),
        "slow one still running then": still,
        "slow document's diagnostics (s)": round(slow_s, 3),
        "slow document's codes": client.codes.get(slow),
        "hovers": len(hovers),
        "hover p50 (ms)": round(statistics.median(hovers) * 1000, 1) if hovers else None,
        "hover p95 (ms)": round(statistics.quantiles(hovers, n=20, method="inclusive")[-1] * 1000, 1)
        if len(hovers) > 1
        else None,
        "hover max (ms)": round(max(hovers) * 1000, 1) if hovers else None,
        "edit to a slow document: new version's diagnostics (s)": round(edit_s, 3),
        "cancelled": (stats.get("result") or {}).get("cancelled"),
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
