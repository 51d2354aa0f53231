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
