"""Editor latency of `hlsllint server`: time from a `didChange` to the fresh `publishDiagnostics`.

Starts the real server over stdio (the same interpreter and installed `hlsllint` as this script),
opens a shader, then edits one line back and forth: a probe statement whose `sign(p) < 0` HL105
reports is appended to the line (`--edit inline`) or inserted as a new line after it (`--edit
newline`), then removed. Each edit waits for the diagnostics of exactly its version, and the
bench checks what arrived: the probe's HL105 present or absent as the text says, and every
published list equal to a from-scratch lint of the same text in this process (`lint_document`,
converted as the server converts). A run whose diagnostics are wrong fails (exit code 1) instead of
printing a fast figure.

The shader is a generated one (`--lines`, default 2,000: a main file and two headers it includes;
one entry point reaching four of its ~170 functions) or a real file (`--file`, includes read from
disk, `--line` the 1-based line after which the probe goes: a statement inside a function body;
`--config` a configuration file for it, as the editor's `configFile` setting names one), or the
engine files of `ENGINES` (`--engines CORPUS`: shaders over header chains of thousands of lines,
each with its engine set's include folders and defines from bench/pressure/engine_sets.json).
Edits are spaced beyond the debounce, as single edits after a pause are; a burst of keystrokes is
linted once, `debounceMs` after the last one. `HLSLLINT_LSP_INCREMENTAL=0` in the environment
times the server linting every version from scratch.

    python bench/lsp_latency.py [--edits 40] [--lines 2000] [--edit inline|newline]
    python bench/lsp_latency.py --file path/to/shader.hlsl --line 120 [--config hlsllint.toml]
    python bench/lsp_latency.py --engines /work/corpus [--only g_buffer.hlsl]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.lsp.client import LanguageClient
from pygls.workspace.position_codec import PositionCodec

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

SYNTHETIC_LINE = 18  # 1-based line of `return x < 0 ? 1.0 : 0.0;` in MAIN_HEAD (inside `probe`)
PROBE = "float hlsllint_probe = 0.5; hlsllint_probe = sign(hlsllint_probe) < 0 ? 1.0 : 0.0;"
PROBE_CODE = "HL105"
_CONVERTER = get_converter()

ENGINES: tuple[tuple[str, str, int], ...] = (
    # (engine set of bench/pressure/engine_sets.json, file under its root, line of the probe):
    # a small main file over a header chain of thousands of lines (the unit's size is printed).
    ("SpartanEngine", "blit.hlsl", 45),
    ("SpartanEngine", "motion_blur.hlsl", 647),
    ("SpartanEngine", "g_buffer.hlsl", 151),  # pixel shader main_ps: inlines ~200 functions
    ("WickedEngine", "objectPS_paintradius.hlsl", 19),
    ("RayTracingDenoiser", "REBLUR_Validation.cs.hlsl", 42),
)


def engine_config(corpus: Path, repo: str, folder: Path) -> tuple[Path, Path]:
    """The engine set's root folder and a configuration file (written in `folder`) with its
    include folders, defines and 16-bit types, as bench/pressure/engine.py lints it."""
    sets = json.loads((Path(__file__).parent / "pressure" / "engine_sets.json").read_text(encoding="utf-8"))
    spec = next(s for s in sets["sets"] if s["repo"] == repo)
    root = (corpus / spec["root"]).resolve()
    includes = [str((root / d).resolve()) for d in spec.get("includes", [])]
    lines = [f"include-dirs = {json.dumps(includes)}", f"defines = {json.dumps(spec.get('defines', []))}"]
    if spec.get("sixteen") in ("on", "off"):
        lines.append(f"enable-16bit-types = {'true' if spec['sixteen'] == 'on' else 'false'}")
    config = folder / f"{repo}.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root, config


def resolver_for(config: Path | None) -> Any:
    """The configuration the server uses (`configFile`, when given), for the in-process lints."""
    from hlsllint.config import ConfigResolver, load_config_file

    return ConfigResolver(forced=load_config_file(config) if config is not None else None)


def functions(prefix: str, count: int) -> str:
    return "".join(FUNCTION.format(name=f"{prefix}_{i}", digit=i % 10) for i in range(count))


def write_project(folder: Path, lines: int) -> Path:
    per_file = max(3, lines // 3 // FUNCTION.count("\n"))
    (folder / "common.hlsli").write_text(functions("common", per_file), encoding="utf-8")
    (folder / "lighting.hlsli").write_text(functions("lighting", per_file), encoding="utf-8")
    main = folder / "main.hlsl"
    main.write_text(MAIN_HEAD + functions("main", per_file) + MAIN_TAIL, encoding="utf-8")
    return main


class Edit:
    """The probe edit at the end of one line: its LSP change there and back, and the texts."""

    def __init__(self, text: str, line: int, kind: str) -> None:
        lines = text.split("\n")
        if not 1 <= line <= len(lines):
            raise SystemExit(f"--line {line}: the file has {len(lines)} lines")
        body = lines[line - 1].rstrip("\r")
        self.line = line - 1  # 0-based
        self.at = types.Position(line=self.line, character=len(body))
        if kind == "inline":
            self.inserted = " " + PROBE
            self.probe_line = self.line
            self.probe_char = len(body) + 1
            self.end = types.Position(line=self.line, character=len(body) + len(self.inserted))
        else:
            indent = body[: len(body) - len(body.lstrip())]
            self.inserted = "\n" + indent + PROBE
            self.probe_line = self.line + 1
            self.probe_char = len(indent)
            self.end = types.Position(line=self.line + 1, character=len(indent) + len(PROBE))
        cut = sum(len(s) + 1 for s in lines[: self.line]) + len(body)
        self.without = text
        self.with_probe = text[:cut] + self.inserted + text[cut:]

    def change(self, add: bool) -> types.TextDocumentContentChangePartial:
        if add:
            return types.TextDocumentContentChangePartial(
                range=types.Range(start=self.at, end=self.at), text=self.inserted
            )
        return types.TextDocumentContentChangePartial(range=types.Range(start=self.at, end=self.end), text="")

    def has_probe_finding(self, diags: Sequence[types.Diagnostic]) -> bool:
        return any(d.code == PROBE_CODE and d.range.start.line == self.probe_line for d in diags)


Hint = tuple[int, str, str]
"""An inlay hint as compared: (0-based line, label, tooltip)."""


@dataclasses.dataclass
class Measured:
    samples: list[float]
    """Seconds from each didChange to its version's publishDiagnostics."""
    received: dict[int, list[types.Diagnostic]]
    stats: dict[str, object]
    hint_samples: list[float] = dataclasses.field(default_factory=list)
    """Seconds from each didChange to the answer of the inlay-hint request sent after it."""
    hints: dict[int, list[Hint]] = dataclasses.field(default_factory=dict)


async def measure(
    main: Path,
    edit: Edit,
    edits: int,
    pause: float,
    profile: str | None = None,
    config: Path | None = None,
    hints: float | None = None,
) -> Measured:
    """With `hints` (seconds), an inlay-hint request for the whole document follows each
    didChange (and the open) after that delay, as an editor showing inlay hints sends one."""
    client = LanguageClient("lsp-latency-bench", "1")
    arrived: dict[int, float] = {}
    received: dict[int, list[types.Diagnostic]] = {}
    event = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None and params.version not in arrived:
            arrived[params.version] = time.perf_counter()
            received[params.version] = list(params.diagnostics)
            event.set()

    profiler = ["-m", "cProfile", "-o", profile] if profile else []
    # -P: the server imports the installed hlsllint, as this script does, never a source tree
    # that happens to be the working directory.
    await client.start_io(sys.executable, "-P", *profiler, "-m", "hlsllint", "server")
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=main.parent.as_uri(),
            initialization_options={"diagnosticMode": "push"}
            | ({"configFile": str(config)} if config is not None else {}),
        )
    )
    client.initialized(types.InitializedParams())
    uri = main.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="hlsl", version=1, text=edit.without)
        )
    )

    async def wait_for(version: int) -> float:
        while version not in arrived:
            event.clear()
            await asyncio.wait_for(event.wait(), 60)
        return arrived[version]

    whole = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=10**6, character=0)
    )
    got_hints: dict[int, list[Hint]] = {}

    async def ask_hints(version: int, delay: float) -> float:
        await asyncio.sleep(delay)
        answer = await client.text_document_inlay_hint_async(
            types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=uri), range=whole)
        )
        got_hints[version] = [
            (
                h.position.line,
                str(h.label),
                h.tooltip.value if isinstance(h.tooltip, types.MarkupContent) else str(h.tooltip),
            )
            for h in answer or []
        ]
        return time.perf_counter()

    if hints is not None:
        await ask_hints(1, 0.0)
    await wait_for(1)
    # After its lint from scratch the server prepares the document's first edits in the
    # background (a newer edit cancels that): wait until it has, as a user reads before typing.
    while True:
        idle = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="hlsllint.stats")
        )
        busy = [*idle.get("running", []), *idle.get("preparing", [])] if isinstance(idle, dict) else []
        if uri not in busy and urllib.parse.unquote(uri) not in busy:
            break
        await asyncio.sleep(0.05)
    samples = []
    hint_samples = []
    for i in range(edits):
        version = i + 2
        await asyncio.sleep(pause)
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[edit.change(add=i % 2 == 0)],
            )
        )
        asked = asyncio.ensure_future(ask_hints(version, hints)) if hints is not None else None
        samples.append((await wait_for(version)) - sent)
        if asked is not None:
            hint_samples.append((await asked) - sent)
    stats = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="hlsllint.stats"))
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return Measured(samples, received, stats if isinstance(stats, dict) else {}, hint_samples, got_hints)


def reference(main: Path, text: str, config: Path | None = None) -> list[types.Diagnostic]:
    """What a from-scratch lint of `text` publishes (the server's conversion, UTF-16 positions)."""
    from hlsllint.server.convert import Positions, to_lsp
    from hlsllint.server.document_lint import lint_document
    from hlsllint.source import SourceFile

    path = os.path.normpath(str(main))
    resolver = resolver_for(config)
    # No time budget: on a loaded machine the reference itself must not stop at HL006.
    settings = dataclasses.replace(resolver.for_path(path), time_budget=0)
    done = lint_document(path, text, resolver, settings)
    pos = Positions(SourceFile(path=path, text=text), PositionCodec(types.PositionEncodingKind.Utf16))
    return [to_lsp(d, pos, done.sources) for d in done.diagnostics]


def reference_hints(main: Path, text: str, config: Path | None = None) -> list[Hint]:
    """The inlay hints of a pressure view of `text` built from scratch (as the server answers,
    UTF-16 positions at the end of each line)."""
    from hlsllint.server.document_lint import unit_context
    from hlsllint.server.pressure_view import build_pressure_view

    path = os.path.normpath(str(main))
    resolver = resolver_for(config)
    settings = dataclasses.replace(resolver.for_path(path), time_budget=0)
    view = build_pressure_view(path, unit_context(path, text, settings, resolver), settings)
    return [(row - 1, label, tip) for row, label, tip in (view.hints(path) if view else [])]


def _wire(diags: Sequence[types.Diagnostic | None]) -> object:
    """Diagnostics as sent (JSON values): what arrives holds tuples where a list was sent."""
    return [_CONVERTER.unstructure(d) for d in diags]


def check(
    edit: Edit, main: Path, received: dict[int, list[types.Diagnostic]], config: Path | None = None
) -> list[str]:
    """What is wrong with the published diagnostics (empty when every version is right)."""
    problems = []
    expected = {
        False: reference(main, edit.without, config),
        True: reference(main, edit.with_probe, config),
    }
    if not any(edit.has_probe_finding(d) for d in [expected[True]]):
        problems.append(f"a fresh lint does not report {PROBE_CODE} on the probe: the edit tests nothing")
    for version, diags in sorted(received.items()):
        probe = version % 2 == 0  # version 1 is the original text, even versions add the probe
        if edit.has_probe_finding(diags) != probe:
            state = "missing" if probe else "stale"
            problems.append(f"version {version}: the probe's {PROBE_CODE} is {state}")
        want = expected[probe]
        if _wire(diags) != _wire(want):
            first = next(
                ((a, b) for a, b in itertools.zip_longest(diags, want) if _wire([a]) != _wire([b])),
                (None, None),
            )
            problems.append(
                f"version {version}: {len(diags)} diagnostics published, a fresh lint has "
                f"{len(expected[probe])}; first difference: published {first[0]}, fresh {first[1]}"
            )
    return problems


def lint_time(main: Path, edit: Edit, runs: int = 8, config: Path | None = None) -> float:
    """Median milliseconds of a from-scratch lint of the edited text in this process (each run
    a text not seen before, as an edited buffer is)."""
    from hlsllint.lint import tune_gc
    from hlsllint.server.document_lint import lint_document

    tune_gc()  # as the server does
    path = os.path.normpath(str(main))
    times = []
    for i in range(runs + 1):
        # A text this process has not linted yet (the lexer caches files by content).
        text = (edit.with_probe if i % 2 else edit.without) + f"\n// run {i}\n"
        start = time.perf_counter()
        lint_document(path, text, resolver_for(config))
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times[1:])


def run(
    main_file: Path | None, line: int, args: argparse.Namespace, config: Path | None = None
) -> tuple[str, bool]:
    """Bench one shader (the generated one when `main_file` is None): its report, and whether
    every published version was right."""
    with tempfile.TemporaryDirectory() as tmp:
        if main_file is None:
            main_file = write_project(Path(tmp), args.lines)
            name = "generated shader"
        else:
            name = main_file.name
        edit = Edit(main_file.read_text(encoding="utf-8"), line, args.edit)
        got = asyncio.run(measure(main_file, edit, args.edits, args.pause, args.profile, config, args.hints))
        samples, received, stats = got.samples, got.received, got.stats
        problems = check(edit, main_file, received, config)
        if args.hints is not None:
            want = {
                p: reference_hints(main_file, edit.with_probe if p else edit.without, config)
                for p in (False, True)
            }
            for version, hints in sorted(got.hints.items()):
                if hints != want[version % 2 == 0]:
                    problems.append(f"version {version}: the inlay hints differ from a fresh view's")
        floor = lint_time(main_file, edit, config=config)
        total, files = unit_size(main_file, config)
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    out = [
        f"{name}: {total} lines in {files} files; {len(ms)} {args.edit} edits at line {line}",
        f"didChange -> publishDiagnostics: median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms",
        f"a from-scratch lint of the document, in process: median {floor:.1f} ms",
    ]
    fallback = f" (last fallback: {stats.get('lastFallback')})" if stats.get("lastFallback") else ""
    out.append(
        f"server: {stats.get('relints')} incremental lints, {stats.get('fullLints')} from scratch"
        f" (the open included){fallback}"
        + (f"; {stats['prepared']} blankings prepared after the open" if "prepared" in stats else "")
    )
    lint_ms = stats.get("lintMs")
    if isinstance(lint_ms, list) and len(lint_ms) > 1:
        own = statistics.median(lint_ms[1:])
        out.append(f"server: the lint itself (worker thread, edits only): median {own:.1f} ms")
    if got.hint_samples:
        hs = sorted(s * 1000 for s in got.hint_samples)
        hp95 = hs[min(len(hs) - 1, round(0.95 * (len(hs) - 1)))]
        out.append(
            f"didChange -> inlay hints ({args.hints * 1000:.0f} ms after it): median"
            f" {statistics.median(hs):.1f} ms, p95 {hp95:.1f} ms; the server built the unit again for"
            f" {stats.get('pressureUnits', '?')} views, reused the last one for"
            f" {stats.get('pressureReused', '?')}"
        )
    if problems:
        out.append("\n  ".join([f"WRONG DIAGNOSTICS ({len(problems)}):", *problems[:10]]))
    else:
        out.append(f"checked: all {len(received)} versions published exactly a fresh lint's diagnostics")
    return "\n".join(out), not problems


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--lines", type=int, default=2000, help="size of the generated shader")
    parser.add_argument("--file", type=Path, help="a real shader instead of the generated one")
    parser.add_argument("--line", type=int, help="with --file: the probe goes after this line (1-based)")
    parser.add_argument("--config", type=Path, help="with --file: the configuration file the server is given")
    parser.add_argument(
        "--engines", type=Path, metavar="CORPUS", help="bench the engine files of ENGINES under CORPUS"
    )
    parser.add_argument("--only", action="append", help="with --engines: only these file names")
    parser.add_argument("--edit", choices=("inline", "newline"), default="inline")
    parser.add_argument("--pause", type=float, default=0.35, help="seconds between edits (> the debounce)")
    parser.add_argument("--profile", metavar="PATH", help="run the server under cProfile, stats to PATH")
    parser.add_argument(
        "--hints",
        type=float,
        metavar="SECONDS",
        nargs="?",
        const=0.05,
        help="ask for inlay hints this long after each change, as an editor showing them does (default 0.05)",
    )
    args = parser.parse_args()
    right = True
    if args.engines is not None:
        with tempfile.TemporaryDirectory() as tmp:
            for repo, name, line in ENGINES:
                if args.only and name not in args.only:
                    continue
                root, config = engine_config(args.engines, repo, Path(tmp))
                report, ok = run(root / name, line, args, config)
                print(f"[{repo}] {report}", flush=True)
                right = right and ok
    elif args.file is not None:
        if args.line is None:
            parser.error("--file needs --line")
        report, right = run(args.file.resolve(), args.line, args, args.config)
        print(report)
    else:
        report, right = run(None, SYNTHETIC_LINE, args)
        print(report)
    if not right:
        sys.exit(1)


def unit_size(main: Path, config: Path | None = None) -> tuple[int, int]:
    """Lines and files of the translation unit (the file and what it includes)."""
    from hlsllint.lint import FileLoader, front_end

    loader = FileLoader()
    pp, _tree = front_end(loader(str(main)), resolver_for(config).for_path(str(main)), None, loader)
    return sum(s.text.count("\n") for s in pp.sources.values()), len(pp.sources)


if __name__ == "__main__":
    main()
