"""`semantic.offsets`: the constant offsets a fetch coordinate takes around the thread id, the
query HL113 asks (and any rule may)."""

from __future__ import annotations

from hlsllint.context import AnalysisSettings
from hlsllint.semantic import build_model
from hlsllint.semantic.offsets import ThreadOffsets
from hlsllint.semantic.queries import as_fetch
from hlsllint.syntax import parse
from hlsllint.syntax.queries import is_written

SHADER = """
Texture2D<float> src : register(t0);
RWTexture2D<float> dst : register(u0);
static const int2 taps[3] = { {-1, 0}, {0, 0}, {2, 1} };
cbuffer C : register(b0) { float2 texel; };

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float sum = 0;
    for (int y = -1; y <= 1; y++)
        for (int x = -1; x <= 1; x += 2)
            sum += src[int2(id.xy) + int2(x, y)];
    for (int i = 0; i < 3; i++)
        sum += src.Load(int3(id.xy + taps[i], 0));
    int k = 2;
    sum += src[id.xy - int2(k, k * 2)];
    sum += src[id.xy * 2];
    sum += src[int2(sum, sum)];
    dst[id.xy] = sum;
}
"""


def _offsets() -> list[tuple[str, set[tuple[float, float]]] | None]:
    tree = parse(SHADER)
    model = build_model(tree, AnalysisSettings())
    (entry,) = model.entry_points
    reader = ThreadOffsets(model, entry, {})
    out: list[tuple[str, set[tuple[float, float]]] | None] = []
    for node in tree.walk(entry.function.body):
        fetch = as_fetch(model, node)
        if fetch is None or is_written(tree, node):
            continue  # not a fetch, or the store
        found = reader.fetch_offsets(node, fetch.method, fetch.kind, fetch.address[0], fetch.address[1:])
        out.append(None if found is None else (found[0][1], found[1]))
    return out


def test_offsets_around_the_thread_id() -> None:
    assert _offsets() == [
        ("texel", {(x, y) for x in (-1.0, 1.0) for y in (-1.0, 0.0, 1.0)}),  # constant loops
        ("texel", {(-1.0, 0.0), (0.0, 0.0), (2.0, 1.0)}),  # a constant table, `Load(int3(p, 0))`
        ("texel", {(-2.0, -4.0)}),  # a local set once, folded by the model's constants
        ("uv", {(0.0, 0.0)}),  # `id.xy * 2`: moves one unit of 2 per thread
        None,  # not relative to the thread id
    ]


def test_value_folds_vectors_with_loop_bindings() -> None:
    tree = parse(SHADER)
    model = build_model(tree, AnalysisSettings())
    (entry,) = model.entry_points
    reader = ThreadOffsets(model, entry, {})
    loops = [n for n in tree.walk(entry.function.body) if n.type == "for_statement"]
    found = reader.loop_values(loops[1])  # for (x = -1; x <= 1; x += 2)
    assert found is not None and found[1] == [-1.0, 1.0]
    found = reader.loop_values(loops[0])
    assert found is not None and found[1] == [-1.0, 0.0, 1.0]
