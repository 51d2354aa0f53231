"""bench/coverage.py: per repository of a corpus, the share of calls resolved, attribute arguments
evaluated, foldable loop bounds folded and entry points with a complete estimate, and the names
most often left unresolved (no compiler needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "bench" / "coverage.py"

ENGINE_HEADER = """\
static const uint GROUP = 8;
float4 Shade(float4 c) { return c * 2; }
"""

SEEN = """\
#include "common/engine.hlsli"
RWStructuredBuffer<float4> dst;
cbuffer P { uint count; };
[numthreads(GROUP, GROUP, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float4 a = 0;
    for (int k = 0; k < 4; ++k) a += Shade(dst[i + k]);
    for (uint j = 0; j < count; ++j) a *= 0.5;
    dst[i] = a;
}
"""

BLIND = """\
#include "helpers.hlsli"
RWStructuredBuffer<float4> dst;
[numthreads(SIZE_FROM_A_MISSING_HEADER, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    dst[i] = Missing(dst[i]) + Missing(dst[i + 1]) + max(dst[i], 0) + Optional(dst[i]);
    dst[i] += Elsewhere(dst[i]) + undeclared.Load(i);
    FromHeader h;
    dst[i] += h.Run(i);
}
"""

HELPERS = """\
#if USE_OPTIONAL
float4 Optional(float4 c) { return c * 3; }
#endif
"""

ELSEWHERE = """\
float4 Elsewhere(float4 c) { return c * 4; }
"""


NO_NUMTHREADS = """\
RWStructuredBuffer<float4> dst;
void main(uint i : SV_DispatchThreadID) { dst[i] = 1; }
"""


def test_per_repository_table_and_unresolved_names(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "engine" / "shaders" / "common").mkdir(parents=True)
    (corpus / "engine" / "shaders" / "common" / "engine.hlsli").write_text(ENGINE_HEADER)
    (corpus / "engine" / "shaders" / "passes").mkdir()
    (corpus / "engine" / "shaders" / "passes" / "seen.hlsl").write_text(SEEN)
    (corpus / "sdk").mkdir()
    (corpus / "sdk" / "blind.hlsl").write_text(BLIND)
    (corpus / "sdk" / "helpers.hlsli").write_text(HELPERS)
    (corpus / "sdk" / "other.hlsli").write_text(ELSEWHERE)
    (corpus / "suite").mkdir()
    (corpus / "suite" / "basic.comp").write_text(NO_NUMTHREADS)
    out = subprocess.run(
        [sys.executable, str(SCRIPT), str(corpus), "--top", "6"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    # the engine's include is found in its shader root (auto include folders): all seen
    assert rows["engine"] == (
        "| engine | 2 | 100.0% (1/1) | 0 | 100.0% (1/1) | 100.0% (3/3) | 100.0% (1/1) | 100.0% (1/1) |"
    )
    # seven calls: one known intrinsic; a method of an object the unit declares with a type it
    # does not know (a miss); five whose callee the unit's sources do not define, counted
    # apart: `Missing` (no file of the repository defines it), `Optional` (only under an `#if`
    # not taken), `Elsewhere` (only a file the unit does not include) and a method of an object
    # no file declares; numthreads not evaluated
    # no file defines SIZE_FROM_A_MISSING_HEADER: the `[numthreads]` is counted apart too
    assert rows["sdk"] == ("| sdk | 3 | 50.0% (1/2) | 5 | – (+1 absent) | 66.7% (2/3) | – | 0.0% (0/1) |")
    assert "- sdk: `h.Run` 1" in out
    assert (
        "  - absent from the sources: `Missing` 2, `[numthreads(SIZE_FROM_A_MISSING_HEADER)]` 1, "
        "`Optional` 1, `Elsewhere` 1, `undeclared.Load` 1"
    ) in out
    assert "- engine: nothing unresolved" in out
    # a compute shader whose source has no `[numthreads]` at all (glslang's tests lean on its
    # 1x1x1 default) is blind, but counted apart: nothing was there for the front end to read
    assert "| suite | 1 | – | 0 | – (+1 absent) |" in rows["suite"]
    assert "  - absent from the sources: `[numthreads (not read)]` 1" in out
