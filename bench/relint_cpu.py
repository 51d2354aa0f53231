"""CPU per editor edit: `time.process_time` around `incremental.relint`, in one process.

What an idle machine would see of `bench/lsp_latency.py`'s wall time (on the shared machine the
wall time is mostly waiting for a core). Lints the file from scratch, then makes the same probe
edit as lsp_latency (`--edit inline|newline` after `--line`), adding and removing it `--edits`
times; each relint's result is checked against a lint of the same text from scratch (`--verify`,
the default; `--no-verify` for a profile of relints only). `--profile OUT` writes a cProfile of
the relints alone (profile an editable install: cProfile sees a compiled function as one call).
`--stages` splits each relint's CPU (compiled or not) by running the stages of the blanked unit it
linted again, one by one: preprocess, parse, model, every entry point's CFG (replaying the last
version's lowering as the relint did), then over every entry point both uniformity questions,
liveness and the register pressure, and the rest of the lint (the rules, what they ask beyond
those); "incremental" is relint's own work around the lint.

    python bench/relint_cpu.py --file .../SpartanEngine/blit.hlsl --line 45 [--edits 20]
    python bench/relint_cpu.py --file .../SpartanEngine/g_buffer.hlsl --line 151 --profile g.prof
    python bench/relint_cpu.py --engines /work/corpus [--only g_buffer.hlsl]   # lsp_latency's ENGINES
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lsp_latency import ENGINES, PROBE, Edit, engine_config, resolver_for

from hlsllint import lint
from hlsllint.analysis import analyze
from hlsllint.analysis.lowering_reuse import LoweringReuse
from hlsllint.analysis.pressure import analyse_entry
from hlsllint.config import Settings, Variant
from hlsllint.lint import UnitResult, _preprocess, analysis_settings, tune_gc
from hlsllint.semantic.model import build_model
from hlsllint.server import incremental
from hlsllint.server.document_lint import lint_document, publishable
from hlsllint.syntax import parse

_LINT_UNIT = incremental.lint_unit
_calls: list[tuple[tuple[Any, ...], dict[str, Any], float]] = []


def _timed_lint_unit(*args: Any, **kwargs: Any) -> UnitResult:
    began = time.process_time()
    result = _LINT_UNIT(*args, **kwargs)
    _calls.append((args, kwargs, time.process_time() - began))
    return result


def _stages(
    path: str,
    settings: Settings,
    variant: Variant | None,
    loader: Any,
    previous: Any,
    lowering: LoweringReuse | None,
) -> dict[str, float]:
    """CPU of each stage of the unit `loader` gives, run one after another (`lowering`: made
    with the last version's, which the relint replayed from, as `previous`)."""
    out: dict[str, float] = {}
    clock = time.process_time
    began = clock()
    pp = _preprocess(loader(path), settings, variant, loader)
    out["preprocess"] = clock() - began
    began = clock()
    tree = parse(pp.text, previous=previous)
    out["parse"] = clock() - began
    began = clock()
    model = build_model(tree, analysis_settings(settings, variant))
    out["model"] = clock() - began
    if lowering is not None:
        model.memo["lowering.reuse"] = lowering
    unit = analyze(model)
    for entry in model.entry_points:
        ea = unit.entry(entry.name)
        assert ea is not None
        began = clock()
        _ = ea.cfg
        out[f"cfg {entry.name}"] = clock() - began
    for stage, ask in (
        ("uniformity (value, sgpr)", lambda ea: (ea.value_uniformity, ea.uniformity)),
        ("liveness", lambda ea: ea.liveness),
        ("pressure", lambda ea: analyse_entry(model, ea.entry)),
    ):
        began = clock()
        for entry in model.entry_points:
            ea = unit.entry(entry.name)
            assert ea is not None
            ask(ea)
        out[stage] = clock() - began
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--file")
    parser.add_argument("--line", type=int, help="1-based line after which the probe goes")
    parser.add_argument("--config", type=Path, help="with --file: its configuration file")
    parser.add_argument(
        "--engines", type=Path, metavar="CORPUS", help="the engine files of lsp_latency's ENGINES"
    )
    parser.add_argument("--only", action="append", help="with --engines: only these file names")
    parser.add_argument("--edit", choices=("inline", "newline"), default="inline")
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--verify", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--profile", help="write a cProfile of the relints here")
    parser.add_argument(
        "--reparse",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="parse each relint's unit from the last one's tree (--no-reparse: afresh, for an A/B)",
    )
    parser.add_argument("--time-budget", type=float, help="seconds per unit (default: the config's)")
    parser.add_argument(
        "--prepare",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="prepare the snapshot's blankings after the lint from scratch, as the server does"
        " in the background (not timed; --no-prepare: the first relint starts from nothing)",
    )
    parser.add_argument("--stages", action="store_true", help="split the CPU by stage (medians)")
    args = parser.parse_args()
    tune_gc()  # as the server does
    if args.engines is None:
        if args.file is None or args.line is None:
            parser.error("give --file and --line, or --engines")
        return bench(args.file, args.line, args, args.config)
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        for repo, name, line in ENGINES:
            if not args.only or name in args.only:
                root, config = engine_config(args.engines, repo, Path(tmp))
                status |= bench(str(root / name), line, args, config)
    return status


def bench(file: str, line: int, args: argparse.Namespace, config: Path | None) -> int:
    path = os.path.normpath(os.path.abspath(file))
    text = Path(path).read_text(encoding="utf-8")
    edit = Edit(text, line, args.edit)
    assert PROBE in edit.with_probe
    resolver = resolver_for(config)
    settings = resolver.for_path(path)
    if args.time_budget is not None:
        settings = dataclasses.replace(settings, time_budget=args.time_budget)
    began = time.process_time()
    done = lint_document(path, text, resolver, settings)
    cold = time.process_time() - began
    if done.context is None:
        print("the file did not lint", file=sys.stderr)
        return 1
    snap = incremental.snapshot(done.context, path, text, settings, None, done.findings)
    if snap is None:
        print("no snapshot: the file is always linted from scratch", file=sys.stderr)
        return 1
    prepare = getattr(incremental, "prepare", None)  # older builds have none
    prepared = ""
    if args.prepare and prepare is not None:
        # What the server does once the lint from scratch is published, in the background.
        began = time.process_time()
        count = prepare(snap)
        prepared = f"; {count} blankings prepared after it in {(time.process_time() - began) * 1000:.0f} ms"
    profiler = cProfile.Profile() if args.profile else None
    samples: list[float] = []
    stages: dict[str, list[float]] = {}
    if args.stages:
        incremental.lint_unit = _timed_lint_unit  # type: ignore[assignment]
    analysed = 0
    replayed: list[tuple[int, int]] = []
    """Per edit with --stages: bodies the stages' CFGs replayed, and the relint's."""
    wrong = 0
    freed: list[float] = []
    again: Any = None
    for i in range(args.edits):
        new = edit.with_probe if i % 2 == 0 else edit.without
        if profiler is not None:
            profiler.enable()
        if not args.reparse:
            snap.tree = None
            for basis in getattr(snap, "prepared", {}).values():
                basis.tree = None
        previous = getattr(snap, "tree", None)  # None before the incremental re-parse
        last_lowering = getattr(snap, "lowering", None)  # None before the lowering's replay
        # The server frees the last result (its model and analyses) and lets the garbage
        # collector run again after it has published the new diagnostics (`hold_collection`,
        # in `lint` or, in older builds, `incremental`; the oldest have none): here after the
        # edit is timed, and timed apart.
        last, again = again, None
        hold = getattr(lint, "hold_collection", None) or getattr(incremental, "hold_collection", None)
        release = hold() if hold is not None else None
        began = time.process_time()
        again = incremental.relint(snap, new)
        spent = time.process_time() - began
        began = time.process_time()
        del last
        if release is not None:
            release()
        _ = [[] for _ in range(1000)]  # a collection that is due runs now
        freed.append((time.process_time() - began) * 1000)
        if profiler is not None:
            profiler.disable()
        if again is None:
            print(f"edit {i}: linted from scratch ({incremental.last_reason})", file=sys.stderr)
            return 1
        samples.append(spent * 1000)
        started = getattr(again, "started", None)  # the basis the relint chose, where it chooses
        if started is not None:
            previous, last_lowering = started.tree, started.lowering
        if args.stages:
            (upath, usettings, uvariant, loader), _, linted = _calls.pop()
            rerun = LoweringReuse(last_lowering)
            with lint.no_collection():  # as in the relint
                split = _stages(upath, usettings, uvariant, loader, previous, rerun)
            relint_lowering = getattr(again.snapshot, "lowering", None)
            replayed.append((rerun.taken, relint_lowering.taken if relint_lowering is not None else 0))
            split["rules (the rest)"] = linted - sum(split.values())
            split["incremental"] = spent - linted
            for k, v in split.items():
                stages.setdefault(k, []).append(v * 1000)
        analysed = again.analysed
        snap = again.snapshot
        if args.verify:
            fresh = lint_document(path, new, resolver, settings)
            if publishable(again.findings, path, new, resolver) != fresh.diagnostics:
                wrong += 1
    if profiler is not None:
        profiler.dump_stats(args.profile)
    first = samples[0]
    samples.sort()
    p95 = samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]
    print(
        f"{Path(path).name}:{line} {args.edit}: relint CPU median {statistics.median(samples):.1f} ms,"
        f" p95 {p95:.1f} ms over {len(samples)} edits; {analysed} of {len(snap.functions)} functions"
        f" analysed; from scratch {cold * 1000:.0f} ms{prepared}, the first relint after it {first:.1f} ms"
        + (f"; {wrong} results differ from a fresh lint" if wrong else "")
        + ("; every result equals a fresh lint" if args.verify and not wrong else "")
        + f"; freeing the last result and collecting after it (not timed): median"
        f" {statistics.median(freed):.1f} ms, p95 {sorted(freed)[round(0.95 * (len(freed) - 1))]:.1f} ms"
    )
    for k, v in stages.items():
        print(f"  {k}: {statistics.median(v):.1f} ms (the first relint {v[0]:.1f} ms)")
    if replayed:
        print(
            "  bodies replayed per edit (the stages' CFGs / the relint's): "
            + ", ".join(f"{a}/{b}" for a, b in replayed)
        )
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
