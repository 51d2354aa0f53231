"""Register-pressure accuracy on engine shaders, tuned and held out by whole repository.

    python bench/pressure/engine.py /work/corpus [--family navi21] [--wave 64] [--limit 40]
                                    [--limit 0 --beyond-sample]
                                    [--sets MiniEngine,RTXDI] [--worst 10] [--json OUT]

The sets (repository, files, entry point, defines, include folders, 16-bit types, tune or
held-out) are listed in engine_sets.json beside this script. The FidelityFX passes need the
SDK's headers, which the corpus folder lacks: they are exported (*.h, *.hlsl only) from the
SDK's git mirror (--ffx-git) into bench/pressure/cache/src (gitignored). Nothing from the corpus
is committed.

regtruth (RADV/ACO) results are cached per (family, wave, build flags, file content) in
bench/pressure/cache/; the estimate runs in-process. Printed for the tune and the held-out
repositories: median relative error of max-live VGPRs (hlsllint `max_live_vgprs` vs regtruth
`presched_vgprs`), the same among entries of >= 24 VGPRs, Spearman, occupancy exact and within
one step, the share of entries predicted two or more waves/SIMD below the truth, SGPR median
relative error (vs `presched_sgprs`) and the number of SGPR estimates above what a wave can
address; then by stage, by size (truth VGPRs) and by repository.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run  # noqa: E402
import truth  # noqa: E402
from run import estimate_waves, levels_apart, spearman  # noqa: E402

from hlsllint.analysis.occupancy import aco_scheduler_ceiling, driver_waves_per_simd, round_up  # noqa: E402
from hlsllint.config import Settings  # noqa: E402
from hlsllint.pressure_report import EntryReport, analyse_file  # noqa: E402
from hlsllint.targets import resolve_target  # noqa: E402

DEFAULT_LIMIT = 40
DEFAULT_FFX_GIT = "/work/.mirror/GPUOpen-LibrariesAndSDKs+FidelityFX-SDK/repo"
SETS = HERE / "engine_sets.json"
STAGE_GROUP = {"comp": "CS", "vert": "VS", "frag": "PS"}
SIZE_BUCKETS = ((0, 16, "<16"), (16, 32, "16-32"), (32, 64, "32-64"), (64, 10**9, ">64"))
# Done-when bar of issue 21 (held-out repositories, RDNA2 wave64); SGPRs keep issue 9's.
BAR = {
    "median_rel": 0.12,
    "median_rel_24": 0.12,
    "spearman": 0.93,
    "occ_exact": 0.88,
    "occ_within_one": 0.97,
    "two_below": 0.02,
    "missed": 0.03,
    "sgpr_median_rel": 0.25,
    "sgpr_over": 0,
}


@dataclass
class Pair(run.Pair):
    """A run.Pair that also knows its repository and the target's addressable SGPRs."""

    repo: str = ""
    sgpr_limit: int = 0
    demand_waves: int = 0
    """Waves from regtruth's own pre-scheduling VGPRs (the estimate's LDS and group size): what
    a VGPR estimate without error would predict."""
    scheduled_waves: int = 0
    """The same at ACO's scheduler ceiling (`aco_scheduler_ceiling`): the fewest waves the
    scheduler may trade down to."""
    variant: str = ""
    """The defines of the build that compiled this entry point (a set's `entries`), else empty."""
    est_demand_waves: int = 0
    """Waves from the estimate's own pre-scheduling VGPRs (before its scheduler prediction)."""


@dataclass(frozen=True)
class Build:
    """One compile of a shader file as the engine's build makes it: the entry points (name,
    stage) compiled from it with the same defines (`defines`: the build's own for this compile,
    added to the set's)."""

    file: Path
    entries: tuple[tuple[str, str], ...]
    defines: tuple[str, ...] = ()


@dataclass(frozen=True)
class Unit:
    """Files measured and estimated together: one regtruth call (cached per file) and one
    estimate per file, with the same defines. `entry` fixes one entry point of every file;
    `entries` lists the entry points of a build (else regtruth --auto finds them)."""

    files: list[Path]
    entry: tuple[str, str] | None
    defines: tuple[str, ...] = ()
    entries: tuple[tuple[str, str], ...] = ()


@dataclass
class EngineSet:
    repo: str
    split: str
    root: Path
    files: list[Path]
    entry: tuple[str, str] | None
    defines: list[str] = field(default_factory=list)
    includes: list[Path] = field(default_factory=list)
    sixteen: str = "auto"
    stages: dict[Path, str] = field(default_factory=dict)
    file_defines: dict[Path, list[str]] = field(default_factory=dict)
    builds: list[Build] = field(default_factory=list)

    def units(self) -> list[Unit]:
        """What is measured together: each build of `entries` alone, else the files grouped by
        stage (`measure_groups`) and by the defines of their own (`define_groups`)."""
        if self.builds:
            return [Unit([b.file], None, b.defines, b.entries) for b in self.builds]
        return [
            Unit(files, entry, defines)
            for group, entry in self.measure_groups()
            for files, defines in self.define_groups(group)
        ]

    def measure_groups(self) -> list[tuple[list[Path], tuple[str, str] | None]]:
        """The files measured together and their (entry, stage): one group per stage when the
        stage comes from each file's name, else every file with the set's entry (or --auto)."""
        if not self.stages or self.entry is None:
            return [(self.files, self.entry)]
        name = self.entry[0]
        by_stage: dict[str, list[Path]] = {}
        for f in self.files:
            by_stage.setdefault(self.stages[f], []).append(f)
        return [(files, (name, stage)) for stage, files in sorted(by_stage.items())]

    def define_groups(self, files: list[Path]) -> list[tuple[list[Path], tuple[str, ...]]]:
        """`files` split by the defines the build adds for them alone (`file_defines`)."""
        by_defines: dict[tuple[str, ...], list[Path]] = {}
        for f in files:
            by_defines.setdefault(tuple(self.file_defines.get(f, ())), []).append(f)
        return [(fs, d) for d, fs in sorted(by_defines.items())]

    def regtruth_args(self, file_defines: Sequence[str] = ()) -> tuple[str, ...]:
        args: list[str] = []
        for d in [*self.defines, *file_defines]:
            args += ["-D", d]
        for i in self.includes:
            args += ["-I", str(i)]
        args += ["--16bit-types", self.sixteen]
        return tuple(args)

    def settings(
        self,
        family: str,
        wave: int | None,
        time_budget: float | None = None,
        file_defines: Sequence[str] = (),
    ) -> Settings:
        """hlsllint's settings for the set's build (`time_budget`: seconds per file, else the default;
        `file_defines`: the defines the build adds for one file)."""
        every = [*self.defines, *file_defines]
        defines = tuple((d.partition("=")[0], d.partition("=")[2] or "1") for d in every)
        settings = Settings(
            target=family,
            wave_size=wave,
            include_dirs=tuple(str(i) for i in self.includes),
            defines=defines,
            enable_16bit_types=self.sixteen == "on",
        )
        return settings if time_budget is None else replace(settings, time_budget=time_budget)


def export_ffx(git_dir: str) -> Path:
    """The FidelityFX SDK's shader sources (headers included), exported once into the cache."""
    dest = truth.CACHE / "src" / "FidelityFX-SDK"
    stamp = dest / ".exported"
    if stamp.is_file():
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    git = ["git", "--git-dir", git_dir]
    listing = subprocess.run(
        [*git, "ls-tree", "-r", "--name-only", "HEAD", "Kits/FidelityFX"],
        capture_output=True,
        text=True,
        check=True,
    )
    paths = [p for p in listing.stdout.splitlines() if p.endswith((".h", ".hlsl"))]
    archive = subprocess.run([*git, "archive", "HEAD", "--", *paths], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    stamp.write_text(git_dir)
    return dest


def aliased_root(repo: str, root: Path, aliases: dict[str, str]) -> Path:
    """A copy of `root` whose virtual include roots resolve (`"include_aliases": {"Flax": "."}`).

    FlaxEngine's shaders include `"./Flax/Common.hlsl"`: its build maps `Flax` to the shader
    folder. Compilers resolve `./` beside the including file, so the set is measured from a
    copy of its sources (in the gitignored cache) holding a `Flax` link to the copy itself;
    regtruth and the estimate read the same copy.
    """
    dest = truth.CACHE / "src" / "aliased" / repo
    for src in root.rglob("*"):
        if src.is_file() and src.suffix.lower() in truth.HEADER_SUFFIXES:
            out = dest / src.relative_to(root)
            if not out.is_file() or out.read_bytes() != src.read_bytes():
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, out)
    for name, target in aliases.items():  # "engine/shaders": "." makes dest/engine/shaders -> dest
        link = dest / name
        if not link.is_symlink():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(os.path.relpath(dest / target, link.parent), target_is_directory=True)
    return dest


def prelude_root(
    repo: str, root: Path, prelude: str, pattern: str, text: str | None = None, folder: str = "."
) -> Path:
    """A copy of `root` whose shaders (the files `pattern` picks) start with `#include "prelude"`.

    Some engines' shader compilers put a header of their own before every source: Diligent's
    prepends HLSLDefinitions.fxh (NormalizedDeviceXYToTexUV, F3NDC_XYZ_TO_UVD_SCALE, ...), which
    the shaders use without including it. The set is measured from a copy (in the gitignored
    cache) where each shader includes it first, `prelude` being a path under an include folder
    of the set; headers are copied unchanged. regtruth and the estimate read the same copy.
    With `text`, the prelude is that text, written as `prelude` under `folder` (an include
    folder of the set, relative to `root`) of the copy: a declaration the engine's compiler
    does not need but regtruth's front end does (the FidelityFX 16-bit build's
    `asfloat16(1.0)`, which DXC takes as a half literal and Slang calls ambiguous).
    """
    dest = truth.CACHE / "src" / "prelude" / repo
    if text is not None:
        out = dest / folder / prelude
        if not out.is_file() or out.read_text() != text:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text)
    shaders = set(root.glob(pattern))
    for src in root.rglob("*"):
        if not src.is_file():
            continue
        data = src.read_bytes()
        if src in shaders:
            data = f'#include "{prelude}"\n'.encode() + data.removeprefix(b"\xef\xbb\xbf")
        out = dest / src.relative_to(root)
        if not out.is_file() or out.read_bytes() != data:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
    return dest


def stage_of(name: str, by_token: dict[str, str]) -> str | None:
    """The stage a file's name carries (`objectPS_prepass.hlsl` -> "frag" with {"PS": "frag"}).

    WickedEngine names a shader after its stage: the token ends the name or comes before a
    `_variant` (`vRectLightPS`, `generateMIPChain2DCS_float4`, `objectVS_prepass`). The last
    such token counts; a name with none has no stage. ShaderMake's convention (RBDOOM-3-BFG)
    puts it between dots instead, `interaction.ps.hlsl` with {"ps": "frag"}: a dotted part that
    is a token wins.
    """
    stem, *dotted = name.split(".")
    for part in reversed(dotted[:-1]):
        if part in by_token:
            return by_token[part]
    tokens = "|".join(re.escape(t) for t in by_token)
    found = re.findall(rf"({tokens})(?=_|$)", stem) if tokens else []
    return by_token[found[-1]] if found else None


def sample(files: list[Path], limit: int | None) -> list[Path]:
    """A stable sample: the `limit` files whose path hashes lowest (all of them without a limit)."""
    if not limit or len(files) <= limit:
        return files
    return sorted(files, key=lambda f: hashlib.sha1(f.as_posix().encode()).digest())[:limit]


def load_sets(
    corpus: Path,
    ffx_git: str,
    chosen: set[str] | None,
    limit: int | None,
    *,
    beyond: bool = False,
    spec_path: Path = SETS,
) -> list[EngineSet]:
    """The sets of `spec_path` (engine_sets.json): their files, build and sample.

    A set's files are the ones `glob` picks, or the paths `files` lists (the shaders a build
    names one by one, e.g. kajiya's compute passes among its headers, all named `.hlsl`).
    A set's sample is `every` k-th of its files in path order (its own rule; --limit does not
    cut it) or else the --limit files whose path hashes lowest. `stage_from_name` (with `entry`)
    keeps the files whose name carries a stage token and measures each in that stage.
    """
    spec = json.loads(spec_path.read_text())
    out: list[EngineSet] = []
    for s in spec["sets"]:
        if chosen and s["repo"] not in chosen:
            continue
        base = export_ffx(ffx_git) if s.get("source") == "ffx" else corpus
        root = base / s["root"]
        if s.get("include_aliases"):
            root = aliased_root(s["repo"], root, s["include_aliases"])
        if s.get("prelude"):
            folder = s.get("includes", ["."])[0]
            root = prelude_root(s["repo"], root, s["prelude"], s["glob"], s.get("prelude_text"), folder)
        includes = [root / i for i in s.get("includes", [])]
        if s.get("generated_headers"):
            includes.append(generated_headers(s["repo"], s["generated_headers"]))
        builds = [build_of(root, b) for b in s.get("entries", [])]
        listed: list[str] = s.get("files", []) or sorted(
            {b.file.relative_to(root).as_posix() for b in builds}
        )
        found = sorted(root / f for f in listed) if listed else sorted(root.glob(s["glob"]))
        by_token: dict[str, str] = s.get("stage_from_name", {})
        stages = {f: st for f in found if (st := stage_of(f.name, by_token))} if by_token else {}
        if by_token:
            found = [f for f in found if f in stages]
        every = int(s.get("every", 0))
        if beyond:  # the files the default sample leaves out (never looked at while modelling)
            picked = set(found[::every] if every else sample(found, DEFAULT_LIMIT))
            found = [f for f in found if f not in picked]
            files = sample(found, limit)
        else:
            files = found[::every] if every else sample(found, limit)
        out.append(
            EngineSet(
                repo=s["repo"],
                split=s["split"],
                root=root,
                files=files,
                entry=(s["entry"], s.get("stage", "")) if "entry" in s else None,
                defines=list(s.get("defines", [])),
                includes=includes,
                sixteen=s.get("sixteen", "auto"),
                stages={f: stages[f] for f in files if f in stages},
                file_defines={root / k: list(v) for k, v in s.get("file_defines", {}).items()},
                builds=[b for b in builds if b.file in files],
            )
        )
    return out


def build_of(root: Path, spec: dict[str, Any]) -> Build:
    """A build of `entries`: {"file", "stage", "entry": a name or a list of names, "defines"}."""
    names = [spec["entry"]] if isinstance(spec["entry"], str) else list(spec["entry"])
    return Build(
        root / spec["file"], tuple((n, spec["stage"]) for n in names), tuple(spec.get("defines", ()))
    )


def generated_headers(repo: str, names: Sequence[str]) -> Path:
    """An include folder (in the gitignored cache) holding the headers an engine's compiler
    makes up for each compile, as empty files.

    Intel's Vanilla (XeGTAO) serves `MagicMacrosMagicFile.h` from its include handler: the
    compile's macros written as `#define`s. The set passes those macros as defines, so the
    header itself is empty; regtruth and the estimate find it in this folder. Its path is the
    cache's resolved one: regtruth's cache key holds the `-I` folders, and worktrees share the
    cache through a link, so every worktree names the folder alike and reuses the figures.
    """
    dest = truth.CACHE.resolve() / "src" / "generated" / repo
    for name in names:
        out = dest / name
        if not out.is_file():
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text("")
    return dest


def estimate(
    es: EngineSet, unit: Unit, family: str, wave: int | None, time_budget: float | None = None
) -> tuple[dict[str, list[EntryReport]], float]:
    """hlsllint's reports for the files of `unit`, built with its defines."""
    out: dict[str, list[EntryReport]] = {}
    t0 = time.perf_counter()
    for f in unit.files:
        settings = es.settings(family, wave, time_budget, unit.defines)
        try:
            out[str(f)] = analyse_file(str(f), settings).reports
        except Exception as e:  # counted as unmatched
            print(f"  estimate failed on {f}: {type(e).__name__}: {e}", file=sys.stderr)
    return out, time.perf_counter() - t0


def waves_at(rep: EntryReport, family: str, wave: int, vgprs: int) -> int:
    """The driver's waves per SIMD at `vgprs` (rounded to the granule), with the entry's
    estimated LDS and group size."""
    t = resolve_target(family)
    allocated = round_up(max(vgprs, 1), t.vgpr_granule[wave])
    return driver_waves_per_simd(t, wave, allocated, None, rep.lds_bytes, rep.group_threads)


def pair_up(
    es: EngineSet,
    records: list[dict[str, Any]],
    estimates: dict[str, list[EntryReport]],
    family: str,
    variant: Sequence[str] = (),
) -> tuple[list[Pair], dict[str, int]]:
    """Each regtruth record with the estimate of its entry point (`variant`: the defines of the
    build that made both, kept on the pair: one entry point may be built more than once)."""
    limit = resolve_target(family).sgpr_addressable
    pairs: list[Pair] = []
    counts = {"truth_ok": 0, "truth_failed": 0, "unmatched": 0}
    for rec in records:
        if "error" in rec:
            counts["truth_failed"] += 1
            continue
        counts["truth_ok"] += 1
        match = [r for r in estimates.get(str(rec["file"]), []) if r.entry == rec["entry"]]
        if not match:
            counts["unmatched"] += 1
            continue
        rep, wave = match[0], int(rec["wave"])
        est_waves = estimate_waves(rep, family, wave)
        demand = int(rec["presched_vgprs"])
        target = resolve_target(family)

        pairs.append(
            Pair(
                repo=es.repo,
                split=es.split,
                file=str(rec["file"]),
                entry=str(rec["entry"]),
                stage=STAGE_GROUP.get(str(rec["stage"]), "other"),
                truth_vgprs=int(rec["presched_vgprs"]),
                truth_sgprs=int(rec["presched_sgprs"]),
                truth_waves=int(rec["waves_per_simd"]),
                est_vgprs=rep.max_live_vgprs,
                est_sgprs=rep.max_live_sgprs,
                est_waves=est_waves,
                levels_apart=levels_apart(family, wave, est_waves, int(rec["waves_per_simd"])),
                sgpr_limit=limit,
                demand_waves=waves_at(rep, family, wave, demand),
                scheduled_waves=waves_at(rep, family, wave, aco_scheduler_ceiling(target, wave, demand)),
                est_demand_waves=waves_at(rep, family, wave, rep.max_live_vgprs),
                variant=" ".join(variant),
            )
        )
    return pairs, counts


def _median_rel(est: Sequence[int], tru: Sequence[int]) -> float:
    if not est:
        return float("nan")
    return statistics.median(abs(e - t) / max(t, 1) for e, t in zip(est, tru, strict=True))


def summarize(pairs: list[Pair]) -> dict[str, float]:
    if not pairs:
        return {"n": 0}
    big = [p for p in pairs if p.truth_vgprs >= 24]
    return {
        "n": len(pairs),
        "median_rel": _median_rel([p.est_vgprs for p in pairs], [p.truth_vgprs for p in pairs]),
        "median_bias": statistics.median(p.est_vgprs - p.truth_vgprs for p in pairs),
        "n_24": len(big),
        "median_rel_24": _median_rel([p.est_vgprs for p in big], [p.truth_vgprs for p in big]),
        "spearman": spearman([p.est_vgprs for p in pairs], [p.truth_vgprs for p in pairs]),
        "occ_exact": sum(p.est_waves == p.truth_waves for p in pairs) / len(pairs),
        "occ_within_one": sum(p.levels_apart <= 1 for p in pairs) / len(pairs),
        "two_below": sum(p.est_waves <= p.truth_waves - 2 for p in pairs) / len(pairs),
        # missed pressure: the estimate is below two thirds of what the compiler needs
        "missed": sum(3 * p.est_vgprs < 2 * p.truth_vgprs for p in pairs) / len(pairs),
        "sgpr_median_rel": _median_rel([p.est_sgprs for p in pairs], [p.truth_sgprs for p in pairs]),
        "sgpr_over": sum(p.est_sgprs > p.sgpr_limit for p in pairs),
        "sgpr_max": max(p.est_sgprs for p in pairs),
    }


PCT_KEYS = (
    "median_rel",
    "median_rel_24",
    "occ_exact",
    "occ_within_one",
    "two_below",
    "missed",
    "sgpr_median_rel",
)
HEADER = (
    f"{'':22s} {'n':>4s} {'VGPR rel':>8s} {'bias':>5s} {'n>=24':>5s} {'rel>=24':>7s} {'Spearman':>8s} "
    f"{'occ ex':>6s} {'occ +-1':>7s} {'2 below':>7s} {'missed':>6s} "
    f"{'SGPR rel':>8s} {'SGPR>lim':>8s} {'SGPR max':>8s}"
)


def row(label: str, s: dict[str, float], *, bar: bool = False) -> str:
    if not s.get("n"):
        return f"{label:22s}    0"

    def mark(key: str, value: str) -> str:
        if not bar:
            return value
        v, b = s[key], BAR[key]
        ok = (
            v <= b
            if key in ("median_rel", "median_rel_24", "two_below", "missed", "sgpr_median_rel", "sgpr_over")
            else v >= b
        )
        return value + ("" if ok else "!")

    pct = {k: f"{s[k]:.1%}" for k in PCT_KEYS}
    cols = [
        f"{label:22s}",
        f"{int(s['n']):4d}",
        f"{mark('median_rel', pct['median_rel']):>8s}",
        f"{s['median_bias']:+5.0f}",
        f"{int(s['n_24']):5d}",
        f"{mark('median_rel_24', pct['median_rel_24']):>7s}",
        f"{mark('spearman', format(s['spearman'], '.3f')):>8s}",
        f"{mark('occ_exact', pct['occ_exact']):>6s}",
        f"{mark('occ_within_one', pct['occ_within_one']):>7s}",
        f"{mark('two_below', pct['two_below']):>7s}",
        f"{mark('missed', pct['missed']):>6s}",
        f"{mark('sgpr_median_rel', pct['sgpr_median_rel']):>8s}",
        f"{mark('sgpr_over', str(int(s['sgpr_over']))):>8s}",
        f"{int(s['sgpr_max']):8d}",
    ]
    return " ".join(cols)


def breakdown(title: str, pairs: list[Pair], key: Callable[[Pair], str], order: Sequence[str]) -> list[str]:
    lines = [f"  by {title}:"]
    for k in order:
        chosen = [p for p in pairs if key(p) == k]
        if chosen:
            lines.append("    " + row(k, summarize(chosen)))
    return lines


def size_of(p: Pair) -> str:
    return next(label for lo, hi, label in SIZE_BUCKETS if lo <= p.truth_vgprs < hi)


def occupancy_ceiling(pairs: list[Pair]) -> str:
    """How much of the occupancy error is the VGPR estimate's: the occupancy that regtruth's own
    pre-scheduling VGPRs give through the same formula, and how often regtruth's occupancy lies
    in ACO's scheduler window (between that and what the scheduler's ceiling leaves)."""
    n = len(pairs)
    exact = sum(p.demand_waves == p.truth_waves for p in pairs) / n
    inside = sum(p.scheduled_waves <= p.truth_waves <= p.demand_waves for p in pairs) / n
    traded = sum(p.truth_waves < p.demand_waves for p in pairs) / n
    return (
        f"occupancy from regtruth's own presched VGPRs: exact {exact:.1%}; regtruth below it "
        f"(ACO's scheduler traded waves) {traded:.1%}; inside the scheduler's window {inside:.1%}"
    )


MISS_CLASSES = ("VGPR under", "VGPR over", "trade missed", "trade called")


def miss_class(p: Pair) -> str | None:
    """Why an entry's estimated occupancy differs from regtruth's, or None when it does not:
    the estimate's VGPRs fall in another occupancy class than regtruth's pre-scheduling VGPRs
    (`VGPR under`: more waves, `VGPR over`: fewer), or they fall in the same class and the
    difference is ACO's scheduler (`trade missed`: regtruth gave up waves the estimate kept;
    `trade called`: the estimate gave up waves regtruth kept, or more of them)."""
    if p.est_waves == p.truth_waves:
        return None
    if p.est_demand_waves > p.demand_waves:
        return "VGPR under"
    if p.est_demand_waves < p.demand_waves:
        return "VGPR over"
    return "trade missed" if p.est_waves > p.truth_waves else "trade called"


def misses(pairs: list[Pair]) -> str:
    """The occupancy misses by class, each with how many are two or more occupancy steps off
    (steps, not waves: the "2 below" column counts waves)."""
    parts = []
    for c in MISS_CLASSES:
        chosen = [p for p in pairs if miss_class(p) == c]
        far = sum(abs(p.levels_apart) >= 2 for p in chosen)
        parts.append(f"{c} {len(chosen)} ({far} two or more steps off)")
    wrong = sum(miss_class(p) is not None for p in pairs)
    return f"occupancy misses {wrong} of {len(pairs)}: " + ", ".join(parts)


def report(pairs: list[Pair], repos: Sequence[str]) -> list[str]:
    lines = ["    " + HEADER]
    for split in ("tune", "held-out"):
        lines.append("    " + row(split.upper(), summarize([p for p in pairs if p.split == split]), bar=True))
    lines.append("    " + row("ALL", summarize(pairs)))
    for split in ("tune", "held-out"):
        chosen = [p for p in pairs if p.split == split]
        if chosen:
            lines.append(f"  {split}: " + occupancy_ceiling(chosen))
            lines.append(f"  {split}: " + misses(chosen))
    for split in ("tune", "held-out"):
        chosen = [p for p in pairs if p.split == split]
        lines.append(f"  -- {split} --")
        lines += breakdown("stage", chosen, lambda p: p.stage, ("VS", "PS", "CS", "other"))
        lines += breakdown("size (truth VGPRs)", chosen, size_of, [b[2] for b in SIZE_BUCKETS])
        lines += breakdown("repository", chosen, lambda p: p.repo, repos)
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("corpus", type=Path, help="folder holding the engine repositories (e.g. /work/corpus)")
    ap.add_argument("--family", default="navi21", help="RADV chip (navi21 = RDNA2, gfx1100 = RDNA3, ...)")
    ap.add_argument("--wave", type=int, choices=(32, 64), default=64)
    ap.add_argument("--sets", help="comma-separated repositories of engine_sets.json (default: all)")
    ap.add_argument(
        "--limit", type=int, default=DEFAULT_LIMIT, help="files per set, a stable sample (0: all)"
    )
    ap.add_argument(
        "--beyond-sample",
        action="store_true",
        help="only the files the default sample leaves out (with --limit 0: all of them)",
    )
    ap.add_argument("--ffx-git", default=DEFAULT_FFX_GIT, help="git dir of the FidelityFX SDK")
    ap.add_argument("--regtruth", help="path to regtruth.py (default: $REGTRUTH, ../regtruth)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--truth-only", action="store_true", help="fill the regtruth cache and stop")
    ap.add_argument(
        "--time-budget",
        type=float,
        help="seconds hlsllint may spend per file (default: its own, 10 s of wall clock: on a busy "
        "machine a large file runs out of it and its entries go unmatched)",
    )
    ap.add_argument("--worst", type=int, default=0, help="list the N largest VGPR errors")
    ap.add_argument("--json", type=Path, help="write every pair and the summaries here")
    args = ap.parse_args(argv)

    chosen = set(args.sets.split(",")) if args.sets else None
    sets = load_sets(args.corpus, args.ffx_git, chosen, args.limit or None, beyond=args.beyond_sample)
    regtruth = truth.find_regtruth(args.regtruth)
    print(
        f"== {args.family} ({resolve_target(args.family).name}) wave {args.wave}, "
        f"limit {args.limit} files/set =="
    )
    pairs: list[Pair] = []
    total_time = 0.0
    for es in sets:
        measured: list[tuple[Unit, list[dict[str, Any]]]] = []
        for unit in es.units():
            records = truth.measure(
                unit.files,
                args.family,
                args.wave,
                regtruth=regtruth,
                jobs=args.jobs,
                extra=es.regtruth_args(unit.defines),
                entry=unit.entry,
                entries=unit.entries,
            )
            measured.append((unit, records))
        if args.truth_only:
            n = sum(len(r) for _, r in measured)
            print(f"  {es.repo:18s} files {len(es.files):4d}  regtruth records {n}")
            continue
        got: list[Pair] = []
        counts = {"truth_ok": 0, "truth_failed": 0, "unmatched": 0}
        elapsed = 0.0
        for unit, records in measured:
            estimates, seconds = estimate(es, unit, args.family, args.wave, args.time_budget)
            elapsed += seconds
            variant = unit.defines if es.builds else ()
            unit_pairs, unit_counts = pair_up(es, records, estimates, args.family, variant)
            got += unit_pairs
            counts = {k: counts[k] + unit_counts[k] for k in counts}
        pairs += got
        total_time += elapsed
        print(
            f"  {es.repo:18s} {es.split:8s} files {len(es.files):4d}  regtruth ok {counts['truth_ok']:4d} "
            f"failed {counts['truth_failed']:4d}  unmatched {counts['unmatched']:3d}  paired {len(got):4d}  "
            f"estimate {elapsed:.1f}s"
        )
    if args.truth_only:
        return 0
    print(f"  estimate time {total_time:.1f}s; '!' marks a miss of issue 21's bar (held-out rows)")
    for line in report(pairs, [es.repo for es in sets]):
        print(line)
    if args.worst:
        print("  worst:")
        for p in sorted(pairs, key=lambda p: -abs(p.est_vgprs - p.truth_vgprs))[: args.worst]:
            print(
                f"    {p.est_vgprs:4d} vs {p.truth_vgprs:4d}  waves {p.est_waves}/{p.truth_waves}  "
                f"[{p.repo}] {p.file}:{p.entry}"
            )
    if args.json:
        summary = {s: summarize([p for p in pairs if p.split == s]) for s in ("tune", "held-out")}
        args.json.write_text(json.dumps({"pairs": [p.__dict__ for p in pairs], "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
