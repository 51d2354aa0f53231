"""HL109 partial-wave-group."""

from __future__ import annotations

import math

from hlsllint.analysis.occupancy import reachable_functions
from hlsllint.context import RuleContext
from hlsllint.diagnostics import Severity
from hlsllint.rule import Rule
from hlsllint.semantic import EntryPoint, Model
from hlsllint.semantic.queries import uses_of
from hlsllint.syntax.queries import call_name
from hlsllint.targets import UnknownTarget, resolve_target

_STAGES = ("compute", "mesh", "amplification")
# D3D12 limits: compute groups up to 1024 threads (x, y <= 1024, z <= 64); mesh and
# amplification groups up to 128 threads.
_MAX_THREADS = {"compute": 1024, "mesh": 128, "amplification": 128}
_MAX_DIMS = (1024, 1024, 64)
# Inputs that tell groups apart: without them the shader is dispatched as a single group.
_PER_GROUP = frozenset({"SV_DISPATCHTHREADID", "SV_GROUPID"})


def invalid_size(stage: str, dims: tuple[float, float, float]) -> str | None:
    """Why `[numthreads(x, y, z)]` is not a valid group size for `stage`, else None."""
    for axis, d in zip("xyz", dims, strict=True):
        if isinstance(d, float) and not d.is_integer():
            return f"`{axis}` = {d:g} is not an integer"
        if d == 0:
            return f"`{axis}` is zero"
        if d < 0:
            return f"`{axis}` = {d:g} is negative"
    for axis, d, most in zip("xyz", dims, _MAX_DIMS, strict=True):
        if d > most:
            return f"`{axis}` = {d:g} exceeds {most}"
    total = int(dims[0] * dims[1] * dims[2])
    limit = _MAX_THREADS.get(stage, 1024)
    if total > limit:
        return f"{total} threads exceed the {stage} limit of {limit}"
    return None


_THREAD_INDEX = frozenset({"SV_DISPATCHTHREADID", "SV_GROUPTHREADID", "SV_GROUPINDEX"})


def _wave_operation(model: Model, entry: EntryPoint) -> str | None:
    """A `Wave*`/`Quad*` intrinsic in the entry's body or a function it calls (the first, by
    name): with a group smaller than a wave the group is the wave, so a ballot packs one bit
    per thread of the group; a bigger group changes what it computes. A library's pass (a
    shadow denoiser's tile mask) keeps its ballot in a helper the entry point calls."""
    for fn in reachable_functions(model, entry):
        if fn.body is None:
            continue
        for n in model.tree.walk(fn.body):
            if n.type == "call_expression":
                name = call_name(model.tree, n) or ""
                if name.startswith(("Wave", "Quad")) and name not in ("WaveGetLaneCount",):
                    return name
    return None


def _one_thread_per_item(model: Model, entry: EntryPoint, threads: int) -> bool:
    """The thread index picks one element of a fixed set no bigger than the group (a cascade,
    a light of four): `gCascades[id.x]` with `float4x4 gCascades[4]` in a 4-thread group is a
    setup job dispatched as one group, one thread per item."""
    todo = [p for p in entry.function.params if (p.semantic or "").upper() in _THREAD_INDEX]
    followed = 0
    while todo:
        sym = todo.pop()
        for use in uses_of(model, sym):
            node = use.parent
            while node is not None and node.type in ("field_expression", "parenthesized_expression"):
                node = node.parent
            if node is not None and node.type == "init_declarator" and followed < 8:
                # `uint lod = id.x;`: the index under another name (SpartanEngine grass args)
                name = node.child_by_field_name("declarator")
                alias = model.resolve(name) if name is not None else None
                if alias is not None and alias.kind == "local" and alias.type.is_int:
                    followed += 1
                    todo.append(alias)
                continue
            if node is None or node.type != "subscript_argument_list" or node.parent is None:
                continue
            array = node.parent.child_by_field_name("argument")
            t = model.type_of(array) if array is not None else None
            if t is not None and t.kind == "array" and t.length is not None and t.length <= threads:
                return True
    return False


def _number(a: object) -> bool:
    return isinstance(a, int | float) and not isinstance(a, bool) and math.isfinite(a)


def idle_lanes(threads: int, wave: int) -> tuple[int, int]:
    """(waves per group, idle lanes in its last wave)."""
    waves = -(-threads // wave)
    return waves, waves * wave - threads


class PartialWaveGroup(Rule):
    code = "HL109"
    name = "partial-wave-group"
    summary = (
        "`[numthreads]` whose thread count is not a multiple of the target's wave size (or is "
        "smaller than one wave), and group sizes the API rejects."
    )
    rationale = (
        "A thread group runs as whole waves: 64 lanes on GCN and by default on RDNA here (32 with "
        "`wave-size = 32`). A group whose size is not a multiple of the wave leaves lanes of its last "
        "wave idle for the whole dispatch: `[numthreads(12, 12, 1)]` is 144 threads, three wave64s "
        "with 48 of their 192 lanes idle (25%), and an 8×4 group fills half a wave64. Those lanes "
        "still take a wave slot and registers. The AMD occupancy articles recommend 64–256 threads "
        "per group (a multiple of 64) when the shader needs no groupshared memory. A one-thread "
        "group, and a group smaller than a wave that reads neither `SV_DispatchThreadID` nor "
        "`SV_GroupID` (one group, a deliberately small setup job), are left alone, as is a small "
        "group whose thread index picks one item of a fixed set no bigger than the group (four "
        "threads, one per shadow cascade) and a group smaller than a wave that uses wave "
        "operations (a 32-thread group whose `WaveActiveBitOr` packs one bit per thread: on "
        "wave64 it runs in half a wave, and 64 threads would change what the ballot holds), "
        "as is a group of several waves less than a sixteenth idle (124 threads, one per "
        "triangle of a meshlet: 4 of 128 lanes, and rounding up to 128 adds nothing to do); "
        "mesh and "
        "amplification groups are only checked for validity (their wave size is the driver's). "
        "Sizes the API rejects (a zero dimension, `x` or `y` above 1024, `z` above 64, more "
        "than 1024 threads in compute or 128 "
        "in mesh/amplification shaders) are reported as errors of their own."
    )
    bad_example = """\
RWTexture2D<float4> dst;

[numthreads(12, 12, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    dst[id.xy] = 0;
}
"""
    good_example = """\
RWTexture2D<float4> dst;

[numthreads(16, 16, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    dst[id.xy] = 0;
}
"""
    tags = ("occupancy", "compute")
    references = (
        "Sebastian Aaltonen, Optimizing GPU occupancy and resource usage with large thread groups (GPUOpen)",
        "D3D12 numthreads limits (Microsoft docs: numthreads)",
    )

    def check(self, ctx: RuleContext) -> None:
        try:
            target = resolve_target(ctx.settings.target)
        except UnknownTarget:
            return
        wave = target.wave_for(ctx.settings.wave_size)
        for entry in ctx.model.entry_points:
            if entry.stage not in _STAGES:
                continue
            attr = entry.function.attribute("numthreads")
            if attr is None or len(attr.args) != 3 or not all(_number(a) for a in attr.args):
                continue  # a size the model could not fold to numbers
            numbers = (float(attr.args[0]), float(attr.args[1]), float(attr.args[2]))
            why = invalid_size(entry.stage, numbers)
            if why is not None:
                shown = "[numthreads(" + ", ".join(f"{a:g}" for a in numbers) + ")]"
                diag = ctx.report(
                    attr.span,
                    f"`{shown}` on `{entry.name}` is not a valid group size: {why}",
                    notes=("the analyses take the group size as unknown",),
                )
                if diag is not None:
                    diag.severity = Severity.ERROR
                continue
            dims = (int(numbers[0]), int(numbers[1]), int(numbers[2]))
            shown = f"[numthreads({dims[0]}, {dims[1]}, {dims[2]})]"
            threads = dims[0] * dims[1] * dims[2]
            if entry.stage != "compute" or threads == 1 or threads % wave == 0:
                continue  # mesh/amplification wave sizes are the driver's choice: not claimed
            if entry.function.return_type.name != "void":
                continue  # `[numthreads]` on a helper: not what the compiler dispatches
            semantics = {(p.semantic or "").upper() for p in entry.function.params}
            if threads < wave and not semantics & _PER_GROUP:
                continue  # one group, indexed within it only: a deliberately small job
            if (
                threads < wave
                and "SV_GROUPID" not in semantics
                and _one_thread_per_item(ctx.model, entry, threads)
            ):
                continue  # one thread per item of a small fixed set (cascades): a setup job
            if threads < wave and _wave_operation(ctx.model, entry) is not None:
                continue  # its wave operations see the group as the wave: a bigger one breaks them
            waves, idle = idle_lanes(threads, wave)
            if threads > wave and idle * 16 < waves * wave:
                continue  # under a sixteenth idle: one thread per item of a fixed-size batch
            if threads < wave:
                what = f"{threads} threads fill {threads} of one wave{wave}'s {wave} lanes"
            else:
                what = (
                    f"{threads} threads run as {waves} wave{wave}s with {idle} of {waves * wave} lanes idle"
                )
            ctx.report(
                attr.span,
                f"`{shown}` on `{entry.name}`: {what} ({100 * idle // (waves * wave)}% idle)",
                help=f"use a multiple of {wave} threads",
            )
