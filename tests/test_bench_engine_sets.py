"""bench/pressure/engine.py: how a set of engine_sets.json picks its files, their stage and its
sample (no compiler needed). WickedEngine names each shader after its stage (`fooCS.hlsl`,
`objectPS_prepass.hlsl`, entry `main`), and its held-out sample is every k-th such file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PRESSURE = REPO / "bench" / "pressure"

PROBE = """\
import json, sys
sys.path.insert(0, sys.argv[1])
import engine
from pathlib import Path
corpus, spec, beyond = Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4] == "1"
names = json.loads(sys.argv[5])
out = {"stage_of": {n: engine.stage_of(n, {"CS": "comp", "PS": "frag", "VS": "vert"}) for n in names}}
for es in engine.load_sets(corpus, "", None, 40, beyond=beyond, spec_path=spec):
    out[es.repo] = {
        "files": [f.name for f in es.files],
        "groups": [[[f.name for f in fs], list(e) if e else None] for fs, e in es.measure_groups()],
    }
print(json.dumps(out))
"""

SHADER_NAMES = [
    "aCS.hlsl",
    "bPS_prepass.hlsl",
    "cVS.hlsl",
    "dCS_float4.hlsl",
    "eHS.hlsl",
    "fPS.hlsl",
    "gMS_simple.hlsl",
    "hVS_alphatest.hlsl",
    "iCS.hlsl",
]


def _probe(tmp_path: Path, sets: list[dict[str, Any]], *, beyond: bool = False, names: Any = ()) -> Any:
    """What load_sets makes of `sets` over a small corpus (run apart: engine.py imports `run`)."""
    corpus = tmp_path / "corpus"
    (corpus / "Engine").mkdir(parents=True, exist_ok=True)
    for n in SHADER_NAMES:
        (corpus / "Engine" / n).write_text("[numthreads(1, 1, 1)] void main() {}\n")
    spec = tmp_path / "sets.json"
    spec.write_text(json.dumps({"sets": sets}))
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            PROBE,
            str(PRESSURE),
            str(corpus),
            str(spec),
            str(int(beyond)),
            json.dumps(list(names)),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout)


def test_stage_comes_from_the_token_that_ends_the_name_or_precedes_a_variant(tmp_path: Path) -> None:
    names = [
        "vRectLightPS.hlsl",
        "objectPS_prepass_depthonly.hlsl",
        "depthoffield_neighborhoodMaxCOCCS.hlsl",
        "generateMIPChain2DCS_float4.hlsl",
        "fft_512x512_c2c_CS.hlsl",
        "emittedparticleVS_shadow.hlsl",
        "objectGS_voxelizer.hlsl",
        "rtreflectionLIB.hlsl",
        "PSVS_helperCS.hlsl",
        "CSSetup.hlsl",
    ]
    got = _probe(tmp_path, [], names=names)["stage_of"]
    assert got == {
        "vRectLightPS.hlsl": "frag",
        "objectPS_prepass_depthonly.hlsl": "frag",
        "depthoffield_neighborhoodMaxCOCCS.hlsl": "comp",
        "generateMIPChain2DCS_float4.hlsl": "comp",
        "fft_512x512_c2c_CS.hlsl": "comp",
        "emittedparticleVS_shadow.hlsl": "vert",
        "objectGS_voxelizer.hlsl": None,
        "rtreflectionLIB.hlsl": None,
        "PSVS_helperCS.hlsl": "comp",
        "CSSetup.hlsl": None,
    }


def test_stage_comes_from_a_dotted_part_of_the_name_as_shadermake_names_it(tmp_path: Path) -> None:
    """RBDOOM-3-BFG's shaders.cfg names each file `name.<stage>.hlsl` (ShaderMake's -T stage)."""
    names = ["interaction.ps.hlsl", "builtin.taa.cs.hlsl", "depth.vs.hlsl", "global_inc.hlsl",
             "SMAA.inc.hlsl", "vertbuffershaders.hlsl", "fooCS.vs.hlsl"]  # fmt: skip
    probe = PROBE.replace(
        '{"CS": "comp", "PS": "frag", "VS": "vert"}',
        '{"cs": "comp", "ps": "frag", "vs": "vert", "CS": "comp"}',
    )
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    spec = tmp_path / "sets.json"
    spec.write_text(json.dumps({"sets": []}))
    proc = subprocess.run(
        [sys.executable, "-c", probe, str(PRESSURE), str(corpus), str(spec), "0", json.dumps(names)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(proc.stdout)["stage_of"] == {
        "interaction.ps.hlsl": "frag",
        "builtin.taa.cs.hlsl": "comp",
        "depth.vs.hlsl": "vert",
        "global_inc.hlsl": None,
        "SMAA.inc.hlsl": None,
        "vertbuffershaders.hlsl": None,
        "fooCS.vs.hlsl": "vert",  # the dotted part wins over a token in the stem
    }


def test_stage_from_name_keeps_named_files_and_measures_each_stage_with_the_entry(tmp_path: Path) -> None:
    got = _probe(
        tmp_path,
        [
            {
                "repo": "Engine",
                "split": "held-out",
                "root": "Engine",
                "glob": "*.hlsl",
                "entry": "main",
                "stage_from_name": {"CS": "comp", "PS": "frag", "VS": "vert"},
            }
        ],
    )["Engine"]
    # eHS / gMS have no CS/PS/VS token: left out; 7 files is under --limit 40, so all are kept
    assert got["files"] == ["aCS.hlsl", "bPS_prepass.hlsl", "cVS.hlsl", "dCS_float4.hlsl", "fPS.hlsl",
                            "hVS_alphatest.hlsl", "iCS.hlsl"]  # fmt: skip
    assert got["groups"] == [
        [["aCS.hlsl", "dCS_float4.hlsl", "iCS.hlsl"], ["main", "comp"]],
        [["bPS_prepass.hlsl", "fPS.hlsl"], ["main", "frag"]],
        [["cVS.hlsl", "hVS_alphatest.hlsl"], ["main", "vert"]],
    ]


def test_every_kth_file_is_the_sample_and_beyond_sample_is_the_rest(tmp_path: Path) -> None:
    spec = [
        {
            "repo": "Engine",
            "split": "held-out",
            "root": "Engine",
            "glob": "*.hlsl",
            "entry": "main",
            "stage_from_name": {"CS": "comp", "PS": "frag", "VS": "vert"},
            "every": 3,
        }
    ]
    picked = _probe(tmp_path, spec)["Engine"]["files"]
    assert picked == ["aCS.hlsl", "dCS_float4.hlsl", "iCS.hlsl"]  # 1st, 4th, 7th of the 7 named files
    rest = _probe(tmp_path, spec, beyond=True)["Engine"]["files"]
    assert sorted(rest) == ["bPS_prepass.hlsl", "cVS.hlsl", "fPS.hlsl", "hVS_alphatest.hlsl"]


def test_a_set_without_stage_from_name_keeps_one_group_and_the_hash_sample(tmp_path: Path) -> None:
    plain = {"repo": "Engine", "split": "tune", "root": "Engine", "glob": "*.hlsl"}
    got = _probe(tmp_path, [plain])["Engine"]
    assert sorted(got["files"]) == sorted(SHADER_NAMES)
    assert got["groups"] == [[got["files"], None]]


def test_a_set_can_list_its_files_as_the_build_names_them(tmp_path: Path) -> None:
    """kajiya's renderer names each compute pass in its Rust code, and its headers are `.hlsl`
    files beside them: no glob tells them apart, so the set lists the passes (`files`), in
    place of a glob, and samples them in path order like any set."""
    sub = tmp_path / "corpus" / "Engine" / "sub"
    sub.mkdir(parents=True)
    (sub / "pass.hlsl").write_text("[numthreads(8, 8, 1)] void main() {}\n")
    listed = ["sub/pass.hlsl", "iCS.hlsl", "cVS.hlsl", "bPS_prepass.hlsl"]
    one = {"repo": "Engine", "split": "held-out", "root": "Engine", "files": listed}
    one |= {"entry": "main", "stage": "comp"}
    got = _probe(tmp_path, [one | {"every": 1}])["Engine"]
    # path order, and no file but the listed ones
    assert got["files"] == ["bPS_prepass.hlsl", "cVS.hlsl", "iCS.hlsl", "pass.hlsl"]
    assert got["groups"] == [[got["files"], ["main", "comp"]]]
    assert _probe(tmp_path, [one | {"every": 2}])["Engine"]["files"] == ["bPS_prepass.hlsl", "iCS.hlsl"]


BUDGET_PROBE = """\
import sys
sys.path.insert(0, sys.argv[1])
import engine
from pathlib import Path
es = engine.EngineSet("E", "held-out", Path("."), [], ("main", "comp"), defines=["A=2", "B"])
print(es.settings("navi21", 64).time_budget, es.settings("navi21", 64, 120.0).time_budget)
print(es.settings("navi21", 64, 120.0).defines)
"""


def test_time_budget_reaches_the_estimate_settings() -> None:
    """hlsllint's 10 s budget is wall clock: on a busy machine a large file's entries went
    unmatched (WickedEngine's visibility_shadeCS); --time-budget lifts it for the bench."""
    proc = subprocess.run(
        [sys.executable, "-c", BUDGET_PROBE, str(PRESSURE)], capture_output=True, text=True, check=True
    )
    assert proc.stdout.splitlines() == ["10.0 120.0", "(('A', '2'), ('B', '1'))"]


PRELUDE_PROBE = """\
import json, sys
sys.path.insert(0, sys.argv[1])
import engine, truth
from pathlib import Path
truth.CACHE = Path(sys.argv[4])
(es,) = engine.load_sets(Path(sys.argv[2]), "", None, 40, spec_path=Path(sys.argv[3]))
print(json.dumps({
    "root": str(es.root),
    "files": {str(f.relative_to(es.root)): f.read_text() for f in es.files},
    "includes": [str(i.relative_to(es.root)) for i in es.includes],
    "header": (es.root / "inc" / "common.fxh").read_text(),
}))
"""


def test_a_prelude_is_included_first_by_every_shader_of_the_set_in_a_cached_copy(tmp_path: Path) -> None:
    """Diligent's compiler puts HLSLDefinitions.fxh before every source; DiligentFX's shaders call
    its functions without including it, so the set is measured from a copy that includes it."""
    root = tmp_path / "corpus" / "Fx"
    (root / "pass").mkdir(parents=True)
    (root / "inc").mkdir()
    (root / "Core").mkdir()
    (root / "Core" / "Defs.fxh").write_text("#define NDC_MIN_Z 0.0\n")
    (root / "inc" / "common.fxh").write_text("float f() { return NDC_MIN_Z; }\n")
    (root / "pass" / "a.fx").write_bytes(b'\xef\xbb\xbf#include "common.fxh"\n')
    spec = tmp_path / "sets.json"
    fx = {"repo": "Fx", "split": "held-out", "root": "Fx", "glob": "**/*.fx", "includes": [".", "inc"]}
    spec.write_text(json.dumps({"sets": [{**fx, "prelude": "Core/Defs.fxh", "every": 1}]}))
    cache = tmp_path / "cache"
    proc = subprocess.run(
        [sys.executable, "-c", PRELUDE_PROBE, str(PRESSURE), str(tmp_path / "corpus"), str(spec), str(cache)],
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(proc.stdout)
    assert got["root"] == str(cache / "src" / "prelude" / "Fx")
    # the shader includes the prelude first (its byte-order mark dropped); headers are unchanged
    assert got["files"] == {"pass/a.fx": '#include "Core/Defs.fxh"\n#include "common.fxh"\n'}
    assert got["header"] == "float f() { return NDC_MIN_Z; }\n"
    assert got["includes"] == [".", "inc"]
    assert (root / "pass" / "a.fx").read_bytes().startswith(b"\xef\xbb\xbf#include")  # corpus untouched


def test_a_prelude_given_as_text_is_written_into_the_sets_first_include_folder(tmp_path: Path) -> None:
    """The FidelityFX 16-bit build's headers call `asfloat16(1.0)`, which DXC takes and Slang
    (regtruth's front end) does not: the set gives Slang the overload as a prelude of its own
    text, written into the copy's first include folder, where every pass's first line finds it."""
    root = tmp_path / "corpus" / "Fx"
    (root / "pass").mkdir(parents=True)
    (root / "inc").mkdir()
    (root / "inc" / "common.fxh").write_text("float f() { return 1.0; }\n")
    (root / "pass" / "a.fx").write_text('#include "common.fxh"\n')
    spec = tmp_path / "sets.json"
    fx = {
        "repo": "Fx",
        "split": "tune",
        "root": "Fx",
        "glob": "**/*.fx",
        "includes": ["inc", "."],
        "every": 1,
    }
    text = "half asfloat16(float x) { return half(x); }\n"
    spec.write_text(json.dumps({"sets": [{**fx, "prelude": "pre.h", "prelude_text": text}]}))
    cache = tmp_path / "cache"
    proc = subprocess.run(
        [sys.executable, "-c", PRELUDE_PROBE, str(PRESSURE), str(tmp_path / "corpus"), str(spec), str(cache)],
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(proc.stdout)
    assert got["files"] == {"pass/a.fx": '#include "pre.h"\n#include "common.fxh"\n'}
    assert (cache / "src" / "prelude" / "Fx" / "inc" / "pre.h").read_text() == text
    assert not (root / "inc" / "pre.h").exists()  # corpus untouched


FILE_DEFINES_PROBE = """\
import json, sys
sys.path.insert(0, sys.argv[1])
import engine
from pathlib import Path
(es,) = engine.load_sets(Path(sys.argv[2]), "", None, 40, spec_path=Path(sys.argv[3]))
print(json.dumps({
    "groups": [[[f.name for f in fs], list(d)] for fs, d in es.define_groups(es.files)],
    "regtruth": list(es.regtruth_args(es.file_defines.get(es.root / "iCS.hlsl", ()))),
    "settings": [list(d) for d in es.settings("navi21", 64, None, ["T=32"]).defines],
}))
"""


def test_file_defines_are_added_for_their_file_alone_in_regtruth_and_the_estimate(tmp_path: Path) -> None:
    """Diligent passes THREAD_GROUP_SIZE per pass (16 for the scattering precomputation, 128 for
    RefineSampleLocations): one file of a set can be built with defines of its own."""
    _probe(tmp_path, [])  # writes the small corpus
    spec = tmp_path / "fd.json"
    one = {"repo": "Engine", "split": "held-out", "root": "Engine", "glob": "*CS*.hlsl", "every": 1}
    one |= {"defines": ["A=1"], "file_defines": {"iCS.hlsl": ["T=128"]}}
    spec.write_text(json.dumps({"sets": [one]}))
    proc = subprocess.run(
        [sys.executable, "-c", FILE_DEFINES_PROBE, str(PRESSURE), str(tmp_path / "corpus"), str(spec)],
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(proc.stdout)
    assert got["groups"] == [[["aCS.hlsl", "dCS_float4.hlsl"], []], [["iCS.hlsl"], ["T=128"]]]
    assert got["regtruth"] == ["-D", "A=1", "-D", "T=128", "--16bit-types", "auto"]
    assert got["settings"] == [["A", "1"], ["T", "32"]]


CEILING_PROBE = """\
import sys
sys.path.insert(0, sys.argv[1])
import engine
from pathlib import Path
from hlsllint.pressure_report import analyse_file
shader = Path(sys.argv[2])
es = engine.EngineSet("E", "tune", shader.parent, [shader], ("main", "comp"))
reports = {str(shader): analyse_file(str(shader), es.settings("navi21", 64)).reports}
# regtruth navi21 wave64, NRD's REBLUR_DiffuseDirectionalOcclusion_TemporalAccumulation: presched
# 49 VGPRs, allocated 64, 8 waves
rec = {"file": str(shader), "entry": "main", "stage": "comp", "wave": 64, "presched_vgprs": 49,
       "presched_sgprs": 20, "waves_per_simd": 8}
pairs, _ = engine.pair_up(es, [rec], reports, "navi21")
print(pairs[0].demand_waves, pairs[0].scheduled_waves)
print(engine.occupancy_ceiling(pairs))
print(engine.misses(pairs))
"""


def test_occupancy_ceiling_separates_the_vgpr_estimate_from_acos_scheduler(tmp_path: Path) -> None:
    """The bench says what a VGPR estimate without error would score: regtruth's own 49
    pre-scheduling VGPRs give 9 waves, ACO's scheduler aims at 8 (62 VGPRs) and allocates 64."""
    shader = tmp_path / "s.hlsl"
    shader.write_text(
        "RWBuffer<float> o; [numthreads(128, 1, 1)] void main(uint i : SV_DispatchThreadID) { o[i] = 1; }\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", CEILING_PROBE, str(PRESSURE), str(shader)],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = proc.stdout.splitlines()
    assert lines[0] == "9 8"
    assert "exact 0.0%" in lines[1]
    assert "traded waves) 100.0%" in lines[1]
    assert "inside the scheduler's window 100.0%" in lines[1]
    # the estimate of this one-store shader needs few VGPRs (16 waves by its demand), so the miss
    # is the VGPR estimate's, not the scheduler's
    assert lines[2].startswith("occupancy misses 1 of 1: VGPR under 1 (1 two or more steps off), VGPR over 0")
    assert "trade missed 0" in lines[2]


def test_an_occupancy_miss_is_classed_by_where_it_comes_from() -> None:
    """Same VGPR class and regtruth traded waves: the scheduler's miss; another class: the VGPR
    estimate's, in its direction."""
    sys.path.insert(0, str(PRESSURE))
    import engine

    def pair(est: int, truth: int, demand: int, est_demand: int) -> engine.Pair:
        base = {"file": "f", "entry": "main", "stage": "CS", "split": "tune", "levels_apart": 1}
        counts = {"truth_vgprs": 0, "truth_sgprs": 0, "est_vgprs": 0, "est_sgprs": 0}
        return engine.Pair(
            **base,
            **counts,
            est_waves=est,
            truth_waves=truth,
            demand_waves=demand,
            est_demand_waves=est_demand,
        )

    assert engine.miss_class(pair(12, 12, 16, 12)) is None
    assert engine.miss_class(pair(16, 12, 16, 16)) == "trade missed"
    assert engine.miss_class(pair(10, 12, 16, 16)) == "trade called"
    assert engine.miss_class(pair(16, 12, 12, 16)) == "VGPR under"
    assert engine.miss_class(pair(9, 12, 12, 9)) == "VGPR over"


FAKE_REGTRUTH = """\
import json, sys
args = sys.argv[1:]
with open(sys.argv[0] + ".log", "a") as log:
    log.write(json.dumps(args) + "\\n")
lines = open(args[args.index("--list") + 1]).read().splitlines()
wide = "WIDE=1" in args
for line in lines:
    path, entry, stage = line.split()
    rec = {"file": path, "entry": entry, "stage": stage, "wave": 64}
    rec |= {"presched_vgprs": 20 if wide else 4, "presched_sgprs": 12, "waves_per_simd": 16}
    print(json.dumps(rec))
"""

BUILDS_PROBE = """\
import json, sys
sys.path.insert(0, sys.argv[1])
import engine, truth
from pathlib import Path
truth.CACHE = Path(sys.argv[4])
load = engine.load_sets
engine.load_sets = lambda *a, **k: load(*a, **k, spec_path=Path(sys.argv[3]))
for _ in range(2):  # the second run reads the cache
    engine.main([sys.argv[2], "--sets", "Vanilla", "--regtruth", sys.argv[5], "--json", sys.argv[6]])
"""

BUILDS_SHADER = """\
#include "MagicMacros.h"
StructuredBuffer<float4> b : register(t0);
RWStructuredBuffer<float4> o : register(u0);
[numthreads(64, 1, 1)] void CSA(uint i : SV_DispatchThreadID) {
#if WIDE
    float4 x = b[i], y = b[i + 64], z = b[i + 128], w = b[i + 192];
    o[i] = x * y + z * w;
#else
    o[i] = 0;
#endif
}
[numthreads(64, 1, 1)] void CSB(uint i : SV_DispatchThreadID) { o[i] = 1; }
"""


def test_entries_build_each_compile_with_its_own_defines_in_regtruth_and_the_estimate(tmp_path: Path) -> None:
    """Intel's Vanilla (XeGTAO) compiles entry points one by one, each with macros of its own, and
    builds some entry points twice with other macros (CSFarBlur for each DOF_BLUR_TYPE): a set's
    `entries` lists those compiles, and each is measured and estimated with its defines. Vanilla's
    include handler serves `MagicMacrosMagicFile.h` (the macros as #defines): `generated_headers`
    serves it empty from the cache."""
    root = tmp_path / "corpus" / "Vanilla"
    root.mkdir(parents=True)
    (root / "fx.hlsl").write_text(BUILDS_SHADER)
    (root / "header.hlsl").write_text("float unused() { return 0; }\n")
    spec = tmp_path / "sets.json"
    builds = [
        {"file": "fx.hlsl", "stage": "comp", "entry": ["CSA", "CSB"]},
        {"file": "fx.hlsl", "stage": "comp", "entry": "CSA", "defines": ["WIDE=1"]},
    ]
    one = {"repo": "Vanilla", "split": "held-out", "root": "Vanilla", "every": 1, "defines": ["G=1"]}
    one |= {"generated_headers": ["MagicMacros.h"], "entries": builds}
    spec.write_text(json.dumps({"sets": [one]}))
    fake = tmp_path / "regtruth.py"
    fake.write_text(FAKE_REGTRUTH)
    cache, out = tmp_path / "cache", tmp_path / "pairs.json"
    argv = [str(PRESSURE), str(tmp_path / "corpus"), str(spec), str(cache), str(fake), str(out)]
    subprocess.run([sys.executable, "-c", BUILDS_PROBE, *argv], capture_output=True, text=True, check=True)
    calls = [json.loads(line) for line in (tmp_path / "regtruth.py.log").read_text().splitlines()]
    generated = cache.resolve() / "src" / "generated" / "Vanilla"
    assert (generated / "MagicMacros.h").read_text() == ""
    # one regtruth call per compile (none on the second run: cached, keyed by the entry points),
    # the entry points named (no --auto), the compile's defines after the set's
    assert len(calls) == 2
    assert all("--auto" not in c and c[c.index("-I") + 1] == str(generated) for c in calls)
    assert [[c[i + 1] for i, a in enumerate(c) if a == "-D"] for c in calls] == [["G=1"], ["G=1", "WIDE=1"]]
    pairs = json.loads(out.read_text())["pairs"]
    got = sorted((p["entry"], p["variant"], p["truth_vgprs"]) for p in pairs)
    assert got == [("CSA", "", 4), ("CSA", "WIDE=1", 20), ("CSB", "", 4)]
    est = {(p["entry"], p["variant"]): p["est_vgprs"] for p in pairs}
    assert est[("CSA", "WIDE=1")] > est[("CSA", "")]  # the estimate saw WIDE=1 too
