"""HL107 oversized-interpolators."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from hlsllint.rules._common import in_main_file, struct_node, unparen_up, uses_of

from hlsllint.context import RuleContext
from hlsllint.rule import Option, Rule
from hlsllint.semantic import EntryPoint, Model
from hlsllint.semantic import types as T
from hlsllint.syntax import Node

_OUTPUT_STAGES = frozenset({"vertex", "domain"})
_MIDDLE_STAGES = frozenset({"hull", "geometry", "domain"})
_INTERPOLATION = frozenset({"nointerpolation", "linear", "centroid", "noperspective", "sample"})


@dataclass
class _Attribute:
    name: str
    semantic: str
    slots: int
    widths: list[int]
    """Components of each row it occupies."""
    group: tuple[str, ...]
    """Rows of different interpolation modes (or int vs float) never share a slot."""


def _rows(t: T.Type) -> list[int]:
    """The rows of a signature element: one per vector, matrix row or array element."""
    if t.kind == "array" and t.element is not None:
        return _rows(t.element) * (t.length or 1)
    if t.kind == "matrix":
        return [t.cols] * t.rows
    if t.is_numeric:
        return [t.cols]
    return [4]


def packed_slots(attrs: list[_Attribute]) -> int:
    """Slots when rows are packed first-fit decreasing, never splitting a vector."""
    total = 0
    groups: dict[tuple[str, ...], list[int]] = {}
    for a in attrs:
        groups.setdefault(a.group, []).extend(a.widths)
    for widths in groups.values():
        bins: list[int] = []
        for w in sorted(widths, reverse=True):
            for i, used in enumerate(bins):
                if used + w <= 4:
                    bins[i] += w
                    break
            else:
                bins.append(w)
        total += len(bins)
    return total


class OversizedInterpolators(Rule):
    code = "HL107"
    name = "oversized-interpolators"
    summary = (
        "A stage-output / pixel-input struct that takes more attribute slots than its contents "
        "need, carries attributes the pixel shader never reads, or exceeds a slot budget."
    )
    rationale = (
        "Every attribute a vertex shader exports costs export bandwidth, parameter-cache space "
        "and, in the pixel shader, interpolation work and LDS for the interpolants; the count of "
        "attribute slots, not the bytes in them, is what the hardware pays for. Pocol's blog "
        "article on shader optimisation (section on reducing vertex attributes) shows the fix: "
        "four `float2 TEXCOORD0..3` become two `float4` that each carry two UV sets, the same data "
        "in half the slots, and in his experience packing the interpolators of a model shader "
        "this way saved about 1 ms per frame; attributes the pixel shader does not use should "
        "be removed first. Elements with explicit Vulkan locations (`[[vk::location(n)]]`) take "
        "one location each and are never packed together by the compiler, so the packing check "
        "applies to them (set `assume-unpacked` for other SPIR-V builds); the D3D signature "
        "packer already shares rows between small elements. System values (`SV_*`) take no "
        "interpolator slot."
    )
    bad_example = """\
struct VSOut
{
    float4 pos : SV_Position;
    [[vk::location(0)]] float2 uv0 : TEXCOORD0;
    [[vk::location(1)]] float2 uv1 : TEXCOORD1;
};

VSOut VSMain(float3 p : POSITION, float4 uv : TEXCOORD0)
{
    VSOut o;
    o.pos = float4(p, 1);
    o.uv0 = uv.xy;
    o.uv1 = uv.zw;
    return o;
}
"""
    good_example = """\
struct VSOut
{
    float4 pos : SV_Position;
    [[vk::location(0)]] float4 uv01 : TEXCOORD0;
};

VSOut VSMain(float3 p : POSITION, float4 uv : TEXCOORD0)
{
    VSOut o;
    o.pos = float4(p, 1);
    o.uv01 = uv;
    return o;
}
"""
    tags = ("interpolators", "pocol")
    references = (
        "Pocol, シェーダ最適化 (shader optimisation notes), section 頂点アトリビュートを減らす "
        "(reducing vertex attributes)",
    )
    options: ClassVar[Mapping[str, Option]] = {
        "max-slots": Option(int, 0, "report structs using more interpolator slots than this (0: off)"),
        "assume-unpacked": Option(
            bool, False, "check packing for every struct, not only those with explicit vk::location"
        ),
    }

    def check(self, ctx: RuleContext) -> None:
        model: Model = ctx.model
        outputs: dict[str, list[EntryPoint]] = {}
        inputs: dict[str, list[EntryPoint]] = {}
        middle = any(e.stage in _MIDDLE_STAGES - {"domain"} for e in model.entry_points)
        for e in model.entry_points:
            fn = e.function
            if e.stage in _OUTPUT_STAGES:
                if fn.return_type.kind == "struct":
                    outputs.setdefault(fn.return_type.name, []).append(e)
                for p in fn.params:
                    if p.direction == "out" and p.type.kind == "struct":
                        outputs.setdefault(p.type.name, []).append(e)
            if e.stage == "pixel":
                for p in fn.params:
                    if p.direction == "in" and p.type.kind == "struct":
                        inputs.setdefault(p.type.name, []).append(e)
        for name in sorted(set(outputs) | set(inputs)):
            struct = model.structs.get(name)
            node = struct_node(ctx, name)
            if struct is None or node is None or not in_main_file(ctx, node):
                continue
            unused = []
            if name in outputs and name in inputs and not middle:
                unused = self._unread(ctx, model, name, struct, inputs[name])
            self._report(ctx, node, struct, unused)

    def _attributes(self, ctx: RuleContext, node: Node, struct: T.Type) -> list[_Attribute]:
        fields: dict[str, Node] = {}
        body = node.child_by_field_name("body")
        for fd in body.named_children if body is not None else []:
            if fd.type != "field_declaration":
                continue
            for c in ctx.tree.walk(fd):
                if c.type == "field_identifier":
                    fields[ctx.node_text(c)] = fd
        out = []
        for m in struct.members:
            if m.semantic is None or m.semantic.upper().startswith("SV_"):
                continue
            field = fields.get(m.name)
            if field is not None and "vk::builtin" in self._field_text(ctx, field):
                continue  # a SPIR-V built-in (PointSize, ...): not an interpolator
            mods: tuple[str, ...] = ()
            if field is not None:
                mods = tuple(sorted(w for w in ctx.tree.modifiers_of(field) if w in _INTERPOLATION))
            is_int = m.type.is_int or (m.type.element is not None and m.type.element.is_int)
            rows = _rows(m.type)
            out.append(_Attribute(m.name, m.semantic, len(rows), rows, (*mods, "int" if is_int else "float")))
        return out

    @staticmethod
    def _field_text(ctx: RuleContext, fd: Node) -> str:
        """The field's text with the attributes written in front of it."""
        start, end = ctx.span(fd)
        line_start = ctx.text.rfind("\n", 0, start) + 1
        return ctx.text[line_start:end]

    def _report(self, ctx: RuleContext, node: Node, struct: T.Type, unused: list[str]) -> None:
        attrs = self._attributes(ctx, node, struct)
        if not attrs:
            return
        slots = sum(a.slots for a in attrs)
        packed = packed_slots(attrs)
        unpacked = self.option_values["assume-unpacked"] or "vk::location" in ctx.node_text(node)
        budget = int(self.option_values["max-slots"])
        parts: list[str] = []
        if unpacked and packed < slots:
            parts.append(f"{slots} slots; packs into {packed}")
        if unused:
            parts.append("; ".join(unused))
        used = slots if unpacked else packed
        if budget and used > budget:
            parts.append(f"{used} slots over the budget of {budget}")
        if not parts:
            return
        if not parts[0][0].isdigit():
            parts.insert(0, f"{used} slots")
        name = node.child_by_field_name("name")
        ctx.report(name or node, f"Interpolators of `{struct.name}`: " + "; ".join(parts))

    def _unread(
        self, ctx: RuleContext, model: Model, name: str, struct: T.Type, readers: list[EntryPoint]
    ) -> list[str]:
        read: set[str] = set()
        for e in readers:
            for p in e.function.params:
                if p.type.name != name or p.direction != "in":
                    continue
                for use in uses_of(ctx, p):
                    _site, parent = unparen_up(use)
                    field = parent.child_by_field_name("field") if parent is not None else None
                    if parent is None or parent.type != "field_expression" or field is None:
                        return []  # the struct is used whole: every member may be read
                    read.add(ctx.node_text(field))
        who = ", ".join(sorted({e.name for e in readers}))
        unread = [
            m.semantic
            for m in struct.members
            if m.semantic and not m.semantic.upper().startswith("SV_") and m.name not in read
        ]
        return [f"{', '.join(unread)} unused by {who}"] if unread else []
