"""Every output of the analysis stage on real shaders, for changes that must not change them, and
the analyses' own time.

    python bench/analysis_golden.py dump OUT FOLDER...   # all outputs as text (diff two dumps)
    python bench/analysis_golden.py hash OUT FOLDER...   # one md5 per entry point (whole corpus)
    python bench/analysis_golden.py time FOLDER...       # CPU seconds per analysis, best of 3

Units are planned and preprocessed as a lint plans them (default settings, shader extensions of
bench/lint_speed.py). Per entry point the dump holds the CFG (values, blocks, instructions,
edges, loops, expression records), both uniformity questions, live sets, register demand at
wave64 and wave32 (per instruction, peak, classes, live values), `analyse_entry`, `pressure`,
loops and groupshared bytes. Values and instructions are written by number, so a dump also
tells a change of numbering or order. `time` builds the models first and times only the
analyses (CFG, uniformity "sgpr" and "value", liveness, register demand, groupshared), each
cache emptied between rounds; run it back to back with the tree it is compared with.
"""

from __future__ import annotations

import gc
import hashlib
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from lint_speed import STAGE_EXTS, shader_files

from hlsllint.analysis import analyze
from hlsllint.analysis.cfg import build_cfg
from hlsllint.analysis.liveness import liveness, register_demand
from hlsllint.analysis.occupancy import entry_groupshared
from hlsllint.analysis.pressure import analyse_entry, lds_bytes, pressure
from hlsllint.analysis.uniformity import uniformity
from hlsllint.config import ConfigResolver, Settings
from hlsllint.context import RuleContext
from hlsllint.driver import _plan_units
from hlsllint.lint import FileLoader, analysis_settings, front_end, tune_gc
from hlsllint.semantic import EntryPoint, Model


def models(folders: list[str]) -> list[tuple[str, Model]]:
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS))
    loader = FileLoader()
    out = []
    for unit in _plan_units(shader_files(folders), resolver, loader):
        pp, tree = front_end(loader(unit.path), unit.settings, unit.variant, loader)
        ctx = RuleContext(pp=pp, tree=tree, settings=analysis_settings(unit.settings, unit.variant))
        out.append((unit.path, ctx.model))
    return out


def dump_entry(w: Callable[[str], Any], m: Model, e: EntryPoint) -> None:
    ea = analyze(m).entry(e.name)
    if ea is None or ea.entry is not e:
        w(f"  (entry {e.name} not analysed by name)\n")
        return
    cfg = ea.cfg
    w(f"  trunc={cfg.truncated} exit={cfg.exit} pre={cfg.preloaded_vgprs} {sorted(cfg.unreachable)}\n")
    for v in cfg.values:
        parts = [p.id for p in v.parts] if v.parts is not None else None
        sym = v.symbol.name if v.symbol else None
        w(f"  V{v.id} {v.name!r} w{v.width} {v.kind} {v.type} {v.reg_class} {sym} {parts}\n")
    idx: dict[Any, int] = {}
    for b in sorted(cfg.graph.nodes):
        w(f"  B{b} -> {sorted(cfg.graph.successors(b))}\n")
        for ins in cfg.instrs(b):
            idx[ins] = len(idx)
            dest = ins.dest.id if ins.dest is not None else None
            detail = sorted((k, str(x)) for k, x in ins.detail.items())
            reads = [r.id for r in ins.reads]
            w(f"    I{idx[ins]} {ins.op} {dest} <- {reads} {ins.span} {ins.rule} {detail} b{ins.block}")
            w(f" dead={ins in cfg.dead}\n")
    for lp in cfg.loops:
        w(f"  loop {lp.span} {lp.kind} h{lp.header} {sorted(lp.blocks)} {lp.attributes} {lp.trip_count}\n")

    def what(x: Any) -> str:
        if x is None:
            return "None"
        return f"I{idx.get(x, '?')}" if hasattr(x, "op") else f"%{x.id}"

    for span in sorted(cfg.expr):
        found = [what(x) for x in cfg.expr[span]]
        w(f"  E{span} {found} u={ea.uniform_at(span)} s={ea.uniform_at(span, 'sgpr')}\n")
    for q, u in (("sgpr", ea.uniformity), ("value", ea.value_uniformity)):
        div = sorted(v.id for v in u.divergent)
        di = sorted(idx.get(i, -1) for i in u.divergent_instrs)
        w(f"  U{q} {div} {di} {sorted(u.divergent_branches)} {sorted(u.divergent_blocks.items())}\n")
    live = ea.liveness
    for b in sorted(live.live_in):
        w(f"  L{b} {sorted(v.id for v in live.live_in[b])} {sorted(v.id for v in live.live_out[b])}\n")
    for wave in (64, 32):
        d = register_demand(cfg, live, ea.uniformity, wave, ea.costs, record_live=True)
        w(f"  D{wave} {d.peak_vgprs}/{d.peak_sgprs} at {what(d.peak_instr)} {[v.id for v in d.peak_live]}\n")
        w(f"   {[(idx.get(i), n, d.sgprs[i]) for i, n in d.vgprs.items()]}\n")
        w(f"   {[(v.id, c, d.costs[v]) for v, c in d.classes.items()]}\n")
        w(f"   {[(idx.get(i), [v.id for v in vals]) for i, vals in d.live_at.items()]}\n")
        ed = analyse_entry(m, e, wave)
        w(f"   AE {ed.max_live_vgprs} {ed.max_live_sgprs} {ed.peak_span} {ed.peak_values} {ed.truncated}")
        w(f" {ed.scratch} {ed.spilled_vgprs} {ed.spilled_sgprs} {ed.spans}\n")
        p = pressure(m, e, wave)
        w(f"   P {p.per_span} {p.lds_bytes}\n")
    for li in ea.loops:
        w(f"  LI {li.span} {li.dynamic} {li.depth} {[idx.get(i) for i in li.fetches]}\n")
    w(f"  GS {[s.name for s in entry_groupshared(m, e)]} {lds_bytes(m, e)}\n")


def dump(out: str, folders: list[str], hashed: bool) -> None:
    with open(out, "w") as f:
        for path, m in models(folders):
            f.write(f"UNIT {path}\n")
            for e in m.entry_points:
                f.write(f" ENTRY {e.name} {e.stage}\n")
                buf: list[str] = []
                try:
                    dump_entry(buf.append, m, e)
                except Exception as ex:
                    buf.append(f"  EXC {type(ex).__name__} {ex}\n")
                text = "".join(buf)
                f.write(f"  md5 {hashlib.md5(text.encode()).hexdigest()}\n" if hashed else text)
            loops = [(lp.span, lp.dynamic, lp.trip_count) for lp in analyze(m).loops()]
            f.write(f" LOOPS {loops}\n")


def timing(folders: list[str], rounds: int = 3) -> None:

    ms = models(folders)
    best: dict[str, float] = {}
    for _ in range(rounds):
        for _path, m in ms:
            m.memo.clear()
        gc.collect()
        t = dict.fromkeys(["cfg", "uniformity", "value_uniformity", "liveness", "demand", "groupshared"], 0.0)
        clock = time.process_time
        for _path, m in ms:
            for e in m.entry_points:
                a = clock()
                cfg = build_cfg(m, e)
                b = clock()
                uni = uniformity(cfg)
                c = clock()
                uniformity(cfg, "value")
                d = clock()
                live = liveness(cfg)
                f = clock()
                register_demand(cfg, live, uni, 64)
                g = clock()
                entry_groupshared(m, e)
                h = clock()
                for key, dt in zip(t, (b - a, c - b, d - c, f - d, g - f, h - g), strict=True):
                    t[key] += dt
        for key, v in t.items():
            best[key] = min(best.get(key, 1e9), v)
    print("  ".join(f"{k} {v:.3f}" for k, v in best.items()), f" total {sum(best.values()):.3f} s")


def main() -> None:
    tune_gc()
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd in ("dump", "hash"):
        dump(args[0], args[1:], hashed=cmd == "hash")
    elif cmd == "time":
        timing(args)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
