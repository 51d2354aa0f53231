"""HL107 oversized-interpolators."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from hlsllint.context import PendingEdit, RuleContext
from hlsllint.diagnostics import Applicability, FixAvailability
from hlsllint.rule import Option, Rule
from hlsllint.semantic import EntryPoint, Model, Symbol
from hlsllint.semantic import types as T
from hlsllint.semantic.queries import as_fetch, struct_node, uses_of
from hlsllint.syntax import Node
from hlsllint.syntax.queries import call_name, same, unparen_up

_OUTPUT_STAGES = frozenset({"vertex", "domain"})
_MIDDLE_STAGES = frozenset({"hull", "geometry", "domain"})
_INTERPOLATION = frozenset({"nointerpolation", "linear", "centroid", "noperspective", "sample"})
_VERTEX_IDS = frozenset({"SV_VERTEXID", "SV_INSTANCEID"})
_EFFECT_METHODS = frozenset({"Append", "Consume", "IncrementCounter", "DecrementCounter", "Store"})
_D3D9_OUTPUTS = frozenset({"POSITION", "POSITION0", "POSITIONT", "PSIZE", "PSIZE0", "FOG", "FOG0"})
"""Semantics that a D3D9 (`vs_2_0`/`vs_3_0`, effect file) vertex shader's output gives to the
rasteriser, as `SV_Position` does later: the position, point size and fog are not
interpolators, and deleting one removes the position."""


def _system_value(struct: T.Type, semantic: str | None, vulkan: bool = False) -> bool:
    """`SV_*`, or a D3D9 position/point size/fog in a struct without `SV_Position` (a struct
    with `SV_Position`, or with explicit Vulkan locations, uses `POSITION` as an ordinary
    attribute, as D3D10+ and SPIR-V do)."""
    if semantic is None:
        return True
    upper = semantic.upper()
    if upper.startswith("SV_"):
        return True
    has_sv_position = any((m.semantic or "").upper() == "SV_POSITION" for m in struct.members)
    return upper in _D3D9_OUTPUTS and not has_sv_position and not vulkan


def full_screen(ctx: RuleContext, entry: EntryPoint) -> bool:
    """A vertex shader that makes its vertices from `SV_VertexID` alone: no vertex-buffer input
    and no buffer or texture fetch (a full-screen triangle or quad of three or four vertices)."""
    if entry.stage != "vertex":
        return False
    semantics: list[str] = []
    for p in entry.function.params:
        if p.direction == "out":
            continue
        if p.type.kind == "struct":
            semantics += [(m.semantic or "").upper() for m in p.type.members]
        else:
            semantics.append((p.semantic or "").upper())
    if "SV_VERTEXID" not in semantics or not all(s in _VERTEX_IDS for s in semantics):
        return False
    body = entry.function.body
    return body is not None and not any(as_fetch(ctx.model, n) is not None for n in ctx.tree.walk(body))


def _may_have_effect(ctx: RuleContext, expr: Node) -> bool:
    """An assignment, `++`, atomic, append/counter/store or user function call inside `expr`."""
    for c in ctx.tree.walk(expr):
        if c.type in ("assignment_expression", "update_expression"):
            return True
        if c.type == "call_expression":
            name = call_name(ctx.tree, c)
            fn = c.child_by_field_name("function")
            method = (
                fn.child_by_field_name("field") if fn is not None and fn.type == "field_expression" else None
            )
            if name is not None and (name.startswith("Interlocked") or name in ctx.model.functions):
                return True
            if method is not None and ctx.node_text(method).startswith(tuple(_EFFECT_METHODS)):
                return True
    return False


def _line_span(ctx: RuleContext, node: Node | tuple[int, int]) -> tuple[int, int]:
    """The node's span, widened to its whole line(s) when nothing else is on them."""
    start, end = ctx.span(node)
    line_start = ctx.text.rfind("\n", 0, start) + 1
    line_end = ctx.text.find("\n", end)
    line_end = len(ctx.text) if line_end < 0 else line_end + 1
    before, after = ctx.text[line_start:start], ctx.text[end:line_end]
    if before.strip() or (after.strip() and not after.strip().startswith("//")):
        return start, end
    return line_start, line_end


# `[[vk::location(1)]] [[vk::offset(4)]]` (whitespace after each) just before a member.
_ATTRIBUTES_BEFORE = re.compile(r"(?:\[\[(?:[^\[\]]|\[[^\[\]]*\])*\]\]\s*)+\Z")


def _member_span(ctx: RuleContext, decl: Node) -> tuple[int, int]:
    """A member's declaration with the `[[...]]` attributes written before it, which the syntax
    tree leaves out of the node: deleting the member without them leaves code that does not compile."""
    start, end = ctx.span(decl)
    window = max(0, start - 512)
    m = _ATTRIBUTES_BEFORE.search(ctx.text[window:start])
    return _line_span(ctx, (window + m.start() if m else start, end))


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


def packing(attrs: list[_Attribute]) -> list[list[tuple[str, int]]]:
    """Slots when rows are packed first-fit decreasing, never splitting a vector: each slot as
    the (member, components) rows it holds."""
    out: list[list[tuple[str, int]]] = []
    groups: dict[tuple[str, ...], list[tuple[str, int]]] = {}
    for a in attrs:
        groups.setdefault(a.group, []).extend((a.name, w) for w in a.widths)
    for rows in groups.values():
        bins: list[list[tuple[str, int]]] = []
        for row in sorted(rows, key=lambda r: -r[1]):
            for slot in bins:
                if sum(w for _n, w in slot) + row[1] <= 4:
                    slot.append(row)
                    break
            else:
                bins.append([row])
        out += bins
    return out


def packed_slots(attrs: list[_Attribute]) -> int:
    return len(packing(attrs))


def _slots(n: int) -> str:
    return f"{n} slot" if n == 1 else f"{n} slots"


def _pack_advice(attrs: list[_Attribute]) -> str:
    """`pack `Fade` into `Normal`'s slot, `UV0` and `UV1` into one float4`: the slots that
    gather rows of more than one member."""
    parts = []
    for slot in packing(attrs):
        names = list(dict.fromkeys(n for n, _w in slot))
        if len(names) > 1:
            width = sum(w for _n, w in slot)
            parts.append(" + ".join(f"`{n}`" for n in names) + f" in one float{width if width > 1 else ''}")
    return ", ".join(parts)


def _method_reads(ctx: RuleContext, struct: T.Type, method: str) -> set[str] | None:
    """The members of `struct` that its method `method` names (`uv`, `this.uv`), or None when
    the method is not found in the struct's declaration."""
    node = struct_node(ctx.model, struct.name)
    body = node.child_by_field_name("body") if node is not None else None
    members = {m.name for m in struct.members}
    for child in body.named_children if body is not None else []:
        if child.type != "function_definition":
            continue
        declarator = child.child_by_field_name("declarator")
        name = declarator.child_by_field_name("declarator") if declarator is not None else None
        if name is None or ctx.node_text(name) != method:
            continue
        found = child.child_by_field_name("body")
        if found is None:
            return None
        return {
            ctx.node_text(n)
            for n in ctx.tree.walk(found)
            if n.type in ("identifier", "field_identifier") and ctx.node_text(n) in members
        }
    return None


def _read_in_another_variant(ctx: RuleContext, member: str) -> bool:
    """`.member` read more often in the unit's source files than in this variant's
    preprocessed text: some `#if`/`#elif` branch left out of this variant reads it."""
    pattern = re.compile(r"\.\s*" + re.escape(member) + r"\b(?!\s*=[^=])")
    here = len(pattern.findall(ctx.text))
    return sum(len(pattern.findall(src.text)) for src in ctx.pp.sources.values()) > here


def _passed_whole_in_another_variant(ctx: RuleContext, param: str) -> bool:
    """The input parameter passed whole to a call (`getSurface(input)`) more often in the
    unit's source files than in this variant's preprocessed text: an `#if`/`#elif` branch left
    out of this variant hands the struct to a function that may read any member (an engine's
    deferred pixel shader beside a forward one, both named `mainPS`)."""
    pattern = re.compile(r"[(,]\s*" + re.escape(param) + r"\s*[,)]")
    here = len(pattern.findall(ctx.text))
    return sum(len(pattern.findall(src.text)) for src in ctx.pp.sources.values()) > here


class OversizedInterpolators(Rule):
    code = "HL107"
    name = "oversized-interpolators"
    summary = (
        "A stage-output / pixel-input struct that declares more attribute slots than its contents "
        "need, a pixel-shader input member no entry point reads, or a struct over a slot budget."
    )
    rationale = (
        "Every attribute a vertex shader exports costs export bandwidth, parameter-cache space "
        "and, in the pixel shader, interpolation work; the count of attribute slots (four "
        "components each), not the bytes in them, is what the hardware pays for. Pocol's blog "
        "article on shader optimisation (section on reducing vertex attributes) shows the fix: "
        "four `float2 TEXCOORD0..3` become two `float4` that each carry two UV sets, and reports "
        "about 1 ms per frame saved on a model shader; attributes the pixel shader does not "
        "read should be removed first. What the real compiler does limits the claim: RADV/ACO "
        "compiles the bad and good examples below to the same code (same registers and "
        "instructions, one `exp param0` each; `docs/claims.md`) because it links the vertex and "
        "pixel shaders of a pipeline, packs their varyings and drops the ones the pixel shader "
        "never reads. The declared slot count matters where the stages are built separately "
        "(pipeline libraries, drivers or APIs without link-time packing), and an unread input "
        "is dead interface either way. Elements with explicit Vulkan locations "
        "(`[[vk::location(n)]]`) take one location each, so the packing check applies to them "
        "(set `assume-unpacked` for other SPIR-V builds); the D3D signature packer already shares "
        "rows between small elements. System values (`SV_*`) take no interpolator slot. A "
        "full-screen pass (a vertex shader that makes three or four vertices from `SV_VertexID`, "
        "with no vertex-buffer input and no fetch) interpolates for a few vertices only and is "
        "left alone. A member counts as read when any `#if`/`#elif` branch of the file reads "
        "it (the variant linted may leave that branch out) and when a method of the input "
        "struct reads it (`input.GetUV()`); in a D3D9 effect (`vs_2_0`, no `SV_Position`) the "
        "vertex shader's `POSITION`, `PSIZE` and `FOG` outputs go to the rasteriser, not to the "
        "pixel shader, and are never reported or removed."
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
    fix = FixAvailability.SOMETIMES
    fix_safety = (
        "Removing an unread pixel-shader input is offered only when the struct is declared in "
        "the linted file (not an include) and no entry point of the file reads the member; the "
        "fix also deletes the statements that only write it (`o.debug = ...;`) and is not "
        "offered when the member is used any other way or the written value has an effect. It "
        "is unsafe: shaders in other files may share the struct, and the removal changes the "
        "vertex shader's output signature, which a separately compiled pixel shader must match."
    )
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

    function_local = True
    """Up to a struct member access, which `visit` keeps for `check` (weighing the entry points'
    inputs and outputs): the access's struct and member, which the function alone gives, are its
    fact (`ctx.needs_unit(fact)`), and `replay` keeps the unit's node under them, so a header
    function's accesses are typed once per header state."""
    node_kinds = frozenset({"field_expression"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        """Gather every `x.member` access by the struct type of `x` (for the unread-member fix)."""
        arg = node.child_by_field_name("argument")
        field = node.child_by_field_name("field")
        if arg is None or field is None:
            return
        t = ctx.model.type_of(arg)
        if t.kind == "struct":
            fact = (t.name, ctx.node_text(field))
            ctx.needs_unit(fact)
            self.replay(ctx, node, fact)

    def replay(self, ctx: RuleContext, node: Node, fact: object) -> None:
        """Keep the access `node` under its (struct, member) `fact` for `check`."""
        assert isinstance(fact, tuple)
        accesses: dict[tuple[str, str], list[Node]] = ctx.scratch(dict)
        accesses.setdefault(fact, []).append(node)

    def check(self, ctx: RuleContext) -> None:
        model: Model = ctx.model
        outputs: dict[str, list[EntryPoint]] = {}
        inputs: dict[str, list[tuple[EntryPoint, Symbol]]] = {}
        for e in model.entry_points:
            fn = e.function
            if e.stage in _OUTPUT_STAGES:
                if fn.return_type.kind == "struct":
                    outputs.setdefault(fn.return_type.name, []).append(e)
                for p in fn.params:
                    if p.direction == "out" and p.type.kind == "struct":
                        outputs.setdefault(p.type.name, []).append(e)
            for p in fn.params:
                if p.direction in ("in", "inout") and p.type.kind == "struct":
                    inputs.setdefault(p.type.name, []).append((e, p))
        pixel = {n: [ep for ep in eps if ep[0].stage == "pixel"] for n, eps in inputs.items()}
        for name in sorted(set(outputs) | {n for n, eps in pixel.items() if eps}):
            struct = model.structs.get(name)
            node = struct_node(ctx.model, name)
            if struct is None or node is None:
                continue
            makers = outputs.get(name, [])
            if makers and all(full_screen(ctx, e) for e in makers):
                continue  # a full-screen pass: a handful of vertices, nothing to save
            if ctx.in_main_file(node):
                self._report_struct(ctx, node, struct)
            # Unread inputs of this file's own struct: when the producer is in this unit, or the
            # struct has explicit Vulkan locations (inputs match outputs by location, so the pixel
            # shader may drop one). A D3D struct whose producer is elsewhere is a layout contract
            # with that shader's output signature, and a header's struct serves every file that
            # includes it (SpartanEngine's `gbuffer_vertex`: the depth pre-pass reads its UV
            # only, the G-buffer pass the normal and tangent too).
            own = ctx.in_main_file(node)
            own_locations = own and "vk::location" in ctx.node_text(node)
            if own and pixel.get(name) and (makers or own_locations):
                self._report_unread(ctx, node, struct, pixel[name], inputs[name])

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
            if _system_value(struct, m.semantic, "vk::location" in ctx.node_text(node)):
                continue
            field = fields.get(m.name)
            if field is not None and "vk::builtin" in self._field_text(ctx, field):
                continue  # a SPIR-V built-in (PointSize, ...): not an interpolator
            mods: tuple[str, ...] = ()
            if field is not None:
                mods = tuple(sorted(w for w in ctx.tree.modifiers_of(field) if w in _INTERPOLATION))
            is_int = m.type.is_int or (m.type.element is not None and m.type.element.is_int)
            rows = _rows(m.type)
            out.append(
                _Attribute(m.name, m.semantic or "", len(rows), rows, (*mods, "int" if is_int else "float"))
            )
        return out

    @staticmethod
    def _field_text(ctx: RuleContext, fd: Node) -> str:
        """The field's text with the attributes written in front of it."""
        start, end = ctx.span(fd)
        line_start = ctx.text.rfind("\n", 0, start) + 1
        return ctx.text[line_start:end]

    def _report_struct(self, ctx: RuleContext, node: Node, struct: T.Type) -> None:
        attrs = self._attributes(ctx, node, struct)
        if not attrs:
            return
        slots = sum(a.slots for a in attrs)
        packed = packed_slots(attrs)
        unpacked = self.option_values["assume-unpacked"] or "vk::location" in ctx.node_text(node)
        budget = int(self.option_values["max-slots"])
        used = slots if unpacked else packed
        name = node.child_by_field_name("name") or node
        if unpacked and packed < slots:
            message = (
                f"`{struct.name}` declares {_slots(slots)} (one per member) for data that fits in "
                f"{_slots(packed)}"
            )
            if budget and used > budget:
                message += f", over the budget of {budget}"
            ctx.report(
                name,
                message,
                help=f"pack {_pack_advice(attrs)}",
                notes=[
                    "a driver that links the stages, as RADV does, packs them itself; separately "
                    "built stages keep one slot per location"
                ],
            )
        elif budget and used > budget:
            ctx.report(
                name, f"`{struct.name}` takes {_slots(used)} of interpolators, over the budget of {budget}"
            )

    def _report_unread(
        self,
        ctx: RuleContext,
        node: Node,
        struct: T.Type,
        readers: list[tuple[EntryPoint, Symbol]],
        every_input: list[tuple[EntryPoint, Symbol]],
    ) -> None:
        """A member no entry point taking the struct reads: reported on its declaration for the
        pixel shaders (in this file) that leave it unread."""
        reads: dict[str, set[str] | None] = {}
        for e, p in every_input:
            got = self._fields_read(ctx, p)
            prev = reads.get(e.name, set())
            reads[e.name] = None if got is None or prev is None else prev | got
        if any(r is None for r in reads.values()):
            return  # the struct is passed whole somewhere: any member may be read
        if any(_passed_whole_in_another_variant(ctx, p.name) for _e, p in every_input):
            return  # passed whole under an `#if`/`#elif` branch this variant leaves out
        mains = sorted({e.name for e, _p in readers if ctx.in_main_file(e.function.node)})
        if not mains:
            return
        fields = self._field_nodes(ctx, node)
        local = ctx.in_main_file(node)
        for m in struct.members:
            if (
                _system_value(struct, m.semantic, "vk::location" in ctx.node_text(node))
                or m.name not in fields
            ):
                continue
            if any(m.name in (r or set()) for r in reads.values()):
                continue
            if _read_in_another_variant(ctx, m.name):
                continue  # read under an `#if`/`#elif` branch this variant leaves out
            decl, ident = fields[m.name]
            if "vk::builtin" in self._field_text(ctx, decl):
                continue
            who = ", ".join(f"`{n}`" for n in mains)
            fix = self._removal(ctx, struct.name, m.name, decl) if local else None
            ctx.report(
                ident,
                f"`{m.name}` ({m.semantic}) of `{struct.name}` is never read by {who}",
                help="remove it (or stop writing it)",
                notes=[
                    "a driver that links the stages drops it; one that does not exports and "
                    "interpolates it for nothing"
                ],
                fix=fix,
            )

    def _fields_read(self, ctx: RuleContext, p: Symbol) -> set[str] | None:
        """The members of parameter `p` its function reads, or None when it is used whole. A
        method called on it (`input.GetUVs()`) reads the members its body names."""
        read: set[str] = set()
        for use in uses_of(ctx.model, p):
            _site, parent = unparen_up(use)
            field = parent.child_by_field_name("field") if parent is not None else None
            if parent is None or parent.type != "field_expression" or field is None:
                return None
            name = ctx.node_text(field)
            call = parent.parent
            if (
                call is not None
                and call.type == "call_expression"
                and same(call.child_by_field_name("function"), parent)
            ):
                names = _method_reads(ctx, p.type, name)
                if names is None:
                    return None
                read |= names
                continue
            read.add(name)
        return read

    def _field_nodes(self, ctx: RuleContext, node: Node) -> dict[str, tuple[Node, Node]]:
        """Member name -> (its field declaration, its identifier)."""
        out: dict[str, tuple[Node, Node]] = {}
        body = node.child_by_field_name("body")
        for fd in body.named_children if body is not None else []:
            if fd.type != "field_declaration":
                continue
            for c in ctx.tree.walk(fd):
                if c.type == "field_identifier":
                    out[ctx.node_text(c)] = (fd, c)
        return out

    def _removal(
        self, ctx: RuleContext, struct: str, member: str, decl: Node
    ) -> tuple[str, Applicability, list[PendingEdit]] | None:
        """Delete the member's declaration and every statement that only writes it (`o.m = x;`),
        or nothing when it is used any other way (the result would not compile)."""
        if sum(1 for c in ctx.tree.walk(decl) if c.type == "field_identifier") != 1:
            return None  # `float2 a : A, b : B;`
        edits = [ctx.edit(_member_span(ctx, decl), "")]
        accesses: dict[tuple[str, str], list[Node]] = ctx.scratch(dict)
        for access in accesses.get((struct, member), []):
            site, parent = unparen_up(access)
            stmt = parent.parent if parent is not None else None
            if (
                parent is None
                or parent.type != "assignment_expression"
                or not same(parent.child_by_field_name("left"), site)
                or stmt is None
                or stmt.type != "expression_statement"
            ):
                return None
            right = parent.child_by_field_name("right")
            if right is not None and _may_have_effect(ctx, right):
                return None
            edits.append(ctx.edit(_line_span(ctx, stmt), ""))
        return (
            f"Remove `{member}` from `{struct}` and the statements that write it",
            Applicability.UNSAFE,
            edits,
        )
