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


LOOPS = """\
cbuffer P { uint count; float delta; };
RWStructuredBuffer<float> dst;
groupshared float lds[256];
static const uint TAPS = 4;
namespace Kernel { static const uint Width = 3; }
float Sum(uint first, uint n)
{
    float s = 0;
    for (uint i = first; i < n; i += 64) s += lds[i];
    return s;
}
float Taps(int radius)
{
    float s = 0;
    for (int r = -radius; r <= radius; ++r) s += dst[r + 8];
    return s;
}
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    float a = Sum(gi, 256) + Taps(2) + Taps(1);
    for (uint j = 1024; j > 0; j /= 2) a += dst[j];
    uint k;
    for (k = 2; k <= 2048; k <<= 1)
        for (uint m = k / 2; m > 0; m--) a += dst[m];
    for (uint t = 0; t < FROM_THE_BUILD; t++) a += t;
    for (uint v = 0; v < Absent::Count; v++) a += v;
    for (uint w = 0; w < Kernel::Width; w++) a += float(w);
    for (uint c = 0; c < count; c++) a += c;
    for (float phi = 0; phi < 6.28; phi += delta) a += phi;
    for (uint u = 0; u < TAPS; u++) { a += u; if (a > 3) u++; }
    dst[gi] = a;
}
"""


def test_loops_the_compiler_folds_and_why_the_others_are_not_foldable(tmp_path: Path) -> None:
    # Eleven loops: one bounded by a constant-buffer member and one stepped by one (run time, out
    # of the count); `Sum`'s
    # starts at the group index its one call passes (run time too, though a helper's
    # parameter); `Taps`' bound is a parameter every call passes a literal for, and the kernel
    # loop is a namespace's constant (both folded, the first in each inlined copy); the
    # others are not foldable, each for its reason (a scaled counter twice, `j /= 2` and
    # `k <<= 1`; a local set at run time: `m` starts at the enclosing loop's `k`; a constant no
    # file defines, twice; a counter written in the body). Before, all of them but `count`'s were
    # "foldable" and 1 of 10 folded (the kernel loop).
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "loops.hlsl").write_text(LOOPS)
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--repos", str(repo), "--top", "3"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    row = next(line for line in out.splitlines() if line.startswith("| repo "))
    assert row.split("|")[7].strip() == "100.0% (2/2)"
    assert (
        "  - loops not foldable: counter scaled (the compiler keeps the loop) 2, names a constant the "
        "unit does not define 2, names a local set at run time 1, counter written in the body 1"
    ) in out


PASS_BODY = """\
RWStructuredBuffer<float4> dst;
[numthreads(GROUP_X, 1, 1)]
void main(uint i : SV_DispatchThreadID) { dst[i] = 1; }
"""


def test_a_header_is_measured_through_its_includers(tmp_path: Path) -> None:
    # Two passes define the group size and include the body with the entry point (NRD's shape):
    # the header is not a unit of its own, as in `hlsllint check`, so its `[numthreads(GROUP_X)]`
    # is read in each includer's state and never alone, where GROUP_X is undefined.
    repo = tmp_path / "corpus" / "denoiser"
    (repo / "Include").mkdir(parents=True)
    (repo / "Source").mkdir()
    (repo / "Include" / "Pass.hlsli").write_text(PASS_BODY)
    for name, size in (("Wide", 16), ("Narrow", 8)):
        (repo / "Source" / f"{name}.cs.hlsl").write_text(f'#define GROUP_X {size}\n#include "Pass.hlsli"\n')
    out = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "corpus"), "--top", "6"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    assert rows["denoiser"] == (
        "| denoiser | 3 | – | 0 | 100.0% (2/2) | 100.0% (6/6) | – | 100.0% (2/2) |"
    ), out
