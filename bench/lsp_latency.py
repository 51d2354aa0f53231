"""Editor latency of `hlsllint server`: time from a `didChange` to the fresh `publishDiagnostics`.

Generates a ~2,000-line shader (a main file and two headers it includes) in a temporary folder,
starts the real server over stdio, opens the main file, then edits one line back and forth
(`sign(x) < 0` <-> `x < 0`: the finding appears and disappears) and waits for the diagnostics of
each new version. Edits are spaced beyond the debounce, as single edits after a pause are; a
burst of keystrokes is linted once, `debounceMs` after the last one.

    python bench/lsp_latency.py [--edits 40] [--lines 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

FUNCTION = """\
float3 {name}(float3 n, float3 l, float3 v, float rough)
{{
    float3 h = normalize(l + v);
    float ndl = saturate(dot(n, l));
    float ndh = saturate(dot(n, h));
    float a = rough * rough;
    float d = a / (3.14159 * pow(ndh * ndh * (a - 1.0) + 1.0, 2.0));
    if (ndl <= 0.0)
        return float3(0, 0, 0);
    return d * ndl * float3(0.{digit}, 0.5, 1.0);
}}

"""

MAIN_HEAD = """\
#include "common.hlsli"
#include "lighting.hlsli"

cbuffer Constants : register(b0)
{
    float4x4 ViewProj;
    float3 CameraPos;
    float Roughness;
};

Texture2D<float4> Albedo : register(t0);
Texture2D<float4> Normals : register(t1);
RWTexture2D<float4> Output : register(u0);
SamplerState Linear : register(s0);

float probe(float x)
{
    return x < 0 ? 1.0 : 0.0;
}

"""

MAIN_TAIL = """\
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float2 uv = (float2(id.xy) + 0.5) / 1024.0;
    float3 n = normalize(Normals.SampleLevel(Linear, uv, 0).xyz * 2.0 - 1.0);
    float3 albedo = Albedo.SampleLevel(Linear, uv, 0).rgb;
    float3 v = normalize(CameraPos - float3(uv, 0));
    float3 l = normalize(float3(0.3, 0.8, 0.5));
    float3 c = common_0(n, l, v, Roughness) + lighting_1(n, l, v, Roughness) + main_2(n, l, v, Roughness);
    Output[id.xy] = float4(albedo * c * probe(n.x), 1.0);
}
"""

EDIT_LINE = 17  # 0-based line of `return x < 0 ? 1.0 : 0.0;` in MAIN_HEAD


def functions(prefix: str, count: int) -> str:
    return "".join(FUNCTION.format(name=f"{prefix}_{i}", digit=i % 10) for i in range(count))


def write_project(folder: Path, lines: int) -> Path:
    per_file = max(3, lines // 3 // FUNCTION.count("\n"))
    (folder / "common.hlsli").write_text(functions("common", per_file), encoding="utf-8")
    (folder / "lighting.hlsli").write_text(functions("lighting", per_file), encoding="utf-8")
    main = folder / "main.hlsl"
    main.write_text(MAIN_HEAD + functions("main", per_file) + MAIN_TAIL, encoding="utf-8")
    return main


async def measure(main: Path, edits: int, pause: float, profile: str | None = None) -> list[float]:
    client = LanguageClient("lsp-latency-bench", "1")
    arrived: dict[int, float] = {}
    event = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            arrived[params.version] = time.perf_counter()
            event.set()

    profiler = ["-m", "cProfile", "-o", profile] if profile else []
    await client.start_io(sys.executable, *profiler, "-m", "hlsllint", "server")
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=main.parent.as_uri(),
            initialization_options={"diagnosticMode": "push"},
        )
    )
    client.initialized(types.InitializedParams())
    uri = main.as_uri()
    text = main.read_text(encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="hlsl", version=1, text=text)
        )
    )

    async def wait_for(version: int) -> float:
        while version not in arrived:
            event.clear()
            await asyncio.wait_for(event.wait(), 30)
        return arrived[version]

    await wait_for(1)
    samples = []
    for i in range(edits):
        version = i + 2
        old, new = ("x < 0", "sign(x) < 0") if i % 2 == 0 else ("sign(x) < 0", "x < 0")
        start = types.Position(line=EDIT_LINE, character=11)
        end = types.Position(line=EDIT_LINE, character=11 + len(old))
        await asyncio.sleep(pause)
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(range=types.Range(start=start, end=end), text=new)
                ],
            )
        )
        samples.append((await wait_for(version)) - sent)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return samples


def lint_time(main: Path, runs: int = 8) -> float:
    """Median milliseconds of `lint_unit` on the same shader in this process (the server's floor)."""
    from hlsllint.config import ConfigResolver
    from hlsllint.lint import FileLoader, lint_unit

    text = main.read_text(encoding="utf-8")
    settings = ConfigResolver().for_path(str(main))
    times = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        lint_unit(str(main), settings, None, FileLoader({str(main): text}))
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--pause", type=float, default=0.35, help="seconds between edits (> the debounce)")
    parser.add_argument("--profile", metavar="PATH", help="run the server under cProfile, stats to PATH")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        main_file = write_project(Path(tmp), args.lines)
        total = sum(len(p.read_text().splitlines()) for p in Path(tmp).iterdir())
        samples = asyncio.run(measure(main_file, args.edits, args.pause, args.profile))
        floor = lint_time(main_file)
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    print(f"shader: {total} lines in 3 files; {len(ms)} edits")
    print(f"didChange -> publishDiagnostics: median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms")
    print(f"lint_unit alone, in process: median {floor:.1f} ms")


if __name__ == "__main__":
    main()
