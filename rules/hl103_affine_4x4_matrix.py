"""HL103 affine-4x4-matrix."""

from __future__ import annotations

from dataclasses import dataclass, field

from hlsllint.context import RuleContext
from hlsllint.rule import Rule
from hlsllint.semantic import Model, Symbol
from hlsllint.semantic import types as T
from hlsllint.semantic.queries import declared_symbols, functions, struct_node, uses_of
from hlsllint.syntax import Node
from hlsllint.syntax.queries import call_args, call_name, is_assignment_target, same, swizzle_of, unparen_up


@dataclass
class _UnitState:
    """What the walk gathers for `check`: per struct, how its 4x4 members are read through
    arrays of the struct (None once the struct is used some other way), and the holders' sizes."""

    member_uses: dict[str, dict[str, list[Node]] | None] = field(default_factory=dict)
    holders: dict[str, tuple[str, int | None, str]] = field(default_factory=dict)
    """struct name -> (holder name, element count or None, storage `constant`/`structured`)."""
    copied: set[str] = field(default_factory=set)
    """Structs held by a local that is named or used (a copy: the struct's members are then not
    followed), as the walk found the locals' declarations."""


# How a use reads the matrix.
ROW = "row"  # mul(v, M) with the result's w dropped: the fourth column is never needed
COL = "col"  # mul(M, v) with the result's w dropped: the fourth row is never needed
CAST = "cast"  # (float3x3)M: neither
WRITE = "write"


def _struct_of(sym: Symbol | None) -> T.Type | None:
    """The struct a constant-buffer member or `ConstantBuffer<S>` holds, or a struct variable's."""
    if sym is None:
        return None
    t = sym.type
    if t.is_resource and t.resource is not None and t.resource.category == "constant":
        t = t.element or T.UNKNOWN
    return t if t.kind == "struct" else None


def _discards_w(ctx: RuleContext, expr: Node) -> bool:
    """True when only the first three components of the vector `expr` are read."""
    sw = swizzle_of(ctx.tree, expr)
    if sw is not None:
        return not any(c in "wa" for c in sw)
    site, parent = unparen_up(expr)
    model: Model = ctx.model
    if parent is None:
        return False
    if parent.type == "init_declarator" and same(parent.child_by_field_name("value"), site):
        target = parent.child_by_field_name("declarator")
        sym = model.resolve(target) if target is not None and target.type == "identifier" else None
        return sym is not None and sym.type.kind in ("vector", "scalar") and sym.type.count <= 3
    if parent.type == "assignment_expression" and same(parent.child_by_field_name("right"), site):
        op = parent.child_by_field_name("operator")
        left_type = model.type_of(parent.child_by_field_name("left"))
        return (
            (op is None or op.type == "=") and left_type.kind in ("vector", "scalar") and left_type.count <= 3
        )
    return False


def _blended_kind(ctx: RuleContext, use: Node, depth: int) -> str | None:
    """A matrix blended into a local (`skin = B[i] * w.x + B[j] * w.y`, `skin += B[i] * w`):
    the kind of every use of that local, or None when one needs the whole matrix."""
    model: Model = ctx.model
    site, parent = unparen_up(use)
    while parent is not None and parent.type == "binary_expression":
        op = parent.child_by_field_name("operator")
        if op is None or ctx.node_text(op) not in ("*", "+") or model.type_of(parent).kind != "matrix":
            return None
        site, parent = unparen_up(parent)
    target = None
    if (
        parent is not None
        and parent.type == "init_declarator"
        and same(parent.child_by_field_name("value"), site)
    ):
        target = parent.child_by_field_name("declarator")
    elif parent is not None and parent.type == "assignment_expression":
        op = parent.child_by_field_name("operator")
        if same(parent.child_by_field_name("right"), site) and (
            op is None or ctx.node_text(op) in ("=", "+=")
        ):
            target = parent.child_by_field_name("left")
    if target is None or target.type != "identifier" or same(site, use):
        return None  # not blended: a plain copy is not followed
    sym = model.resolve(target)
    if sym is None or sym.kind != "local" or sym.type.kind != "matrix":
        return None
    kinds: set[str] = set()
    for local_use in uses_of(ctx.model, sym):
        if is_assignment_target(local_use) is not None:
            continue
        kind = _use_kind(ctx, local_use, depth + 1)
        if kind is None or kind == WRITE:
            return None
        kinds.add(kind)
    if not kinds or {ROW, COL} <= kinds:
        return None
    return ROW if ROW in kinds else COL if COL in kinds else CAST


def _use_kind(ctx: RuleContext, use: Node, depth: int = 0) -> str | None:
    """ROW, COL, CAST or WRITE for a use that leaves the fourth column or row unused, else None."""
    model: Model = ctx.model
    if is_assignment_target(use) == "=":
        return WRITE
    site, parent = unparen_up(use)
    if parent is None:
        return None
    if parent.type in ("binary_expression", "init_declarator", "assignment_expression"):
        return _blended_kind(ctx, use, depth) if depth < 2 else None
    if parent.type == "cast_expression":
        t = model.type_from_node(parent.child_by_field_name("type"))
        if t.kind == "matrix" and t.rows <= 3 and t.cols <= 3:
            return CAST
        return None
    if parent.type != "argument_list" or parent.parent is None:
        return None
    call = parent.parent
    if call_name(ctx.tree, call) != "mul":
        return None
    args = call_args(call)
    if len(args) != 2:
        return None
    if same(args[1], site) and model.type_of(args[0]).kind == "vector":
        kind = ROW
    elif same(args[0], site) and model.type_of(args[1]).kind == "vector":
        kind = COL
    else:
        return None
    return kind if _discards_w(ctx, call) else None


def matrix_bytes(rows: int, cols: int, storage: str, row_major: bool) -> int:
    """Bytes of one matrix in an array: in constant-buffer layout each column (`column_major`,
    HLSL's default) or row (`row_major`) takes a 16-byte register; structured buffers pack tightly."""
    if storage == "structured":
        return rows * cols * 4
    return (rows if row_major else cols) * 16


def _smaller(kinds: set[str], scalar: str, storage: str, row_major: bool) -> tuple[str, int] | None:
    """The declaration that holds what is read in the fewest bytes; None when nothing is saved."""
    rows, cols = (3, 3) if kinds == {CAST} else (4, 3) if ROW in kinds else (3, 4)
    options = [(row_major, "row_major " if row_major else "")]
    if storage == "constant":
        options.append((not row_major, "column_major " if row_major else "row_major "))
    best: tuple[str, int] | None = None
    for packing, prefix in options:
        size = matrix_bytes(rows, cols, storage, packing)
        if size < matrix_bytes(4, 4, storage, row_major) and (best is None or size < best[1]):
            best = (f"{prefix}{scalar}{rows}x{cols}", size)
    return best


class Affine4x4Matrix(Rule):
    code = "HL103"
    name = "affine-4x4-matrix"
    summary = (
        "An array or buffer of `float4x4` whose every use is an affine transform that drops the "
        "fourth output component (`mul(float4(p, 1), Bones[i]).xyz`, `(float3x3)M`): as `float4x3` "
        "(or `float3x4`) each matrix takes 48 bytes instead of 64."
    )
    rationale = (
        "Only a projection needs a whole 4×4 matrix; for an affine transform (world, bones, "
        "instances, normals) the fourth column is (0, 0, 0, 1), and when the result's `w` is dropped "
        "it is never read. The articles (Aaltonen, GPUOpen, section *Unneeded data*) count this as "
        "four registers saved; today's compilers disagree: measured with Mesa RADV/ACO (navi21), a "
        "vertex shader with a constant-buffer `float4x4` used affinely and the same shader with a "
        "`float4x3` compile to the same code (10 VGPRs, 18 SGPRs before scheduling, 74 "
        "instructions), because only the elements that are read are loaded. What a 4×4 still costs "
        "is memory: 64 bytes per matrix where 48 hold everything read. That matters for arrays and "
        "buffers of matrices (bone palettes, instance transforms): a quarter of the constant or "
        "buffer data, uploaded every frame and fetched through the caches. A single matrix costs 16 "
        "bytes and is not reported. In a constant buffer each column (the default `column_major` "
        "packing) or row (`row_major`) takes a 16-byte register, so the saving needs the packing "
        "that drops a whole register: `float4x3` column-major, or `row_major float3x4`; a "
        "`row_major float4x3` is still 64 bytes."
    )
    bad_example = """\
cbuffer Skinning : register(b0)
{
    float4x4 Bones[64];
};

float3 skin(float3 p, uint bone)
{
    return mul(float4(p, 1), Bones[bone]).xyz;
}
"""
    good_example = """\
cbuffer Skinning : register(b0)
{
    float4x3 Bones[64];
};

float3 skin(float3 p, uint bone)
{
    return mul(float4(p, 1), Bones[bone]);
}
"""
    tags = ("memory", "constant-data", "aaltonen")
    references = (
        "Sebastian Aaltonen, Optimizing GPU occupancy and resource usage with large thread groups "
        "(GPUOpen), section Unneeded data",
    )

    function_local = True
    """Up to a local that holds a struct, which `visit` keeps for `check` (weighing every read of
    the unit's struct holders): the structs such locals copy, which the function alone gives,
    are its fact (`ctx.needs_unit(fact)`), and `replay` notes them for the unit's `check`, so a
    header function's declarations are read once per header state."""
    node_kinds = frozenset({"declaration"})

    def visit(self, ctx: RuleContext, decl: Node) -> None:
        if ctx.function is None:
            return
        copied: list[str] = []
        for n, sym in declared_symbols(ctx.model, decl):
            struct = _struct_holder(sym)[0] if sym.kind == "local" else None
            # A local of a struct type copies it (its members are not followed) when its name is
            # an identifier or it is used (what `check` would meet of it).
            if struct is not None and (n.type == "identifier" or uses_of(ctx.model, sym)):
                copied.append(struct.name)
        if copied:
            fact = tuple(copied)
            ctx.needs_unit(fact)
            self.replay(ctx, decl, fact)

    def replay(self, ctx: RuleContext, node: Node, fact: object) -> None:
        """Note the structs the locals of declaration `node` copy (`fact`) for `check`."""
        assert isinstance(fact, tuple)
        ctx.scratch(_UnitState).copied.update(fact)

    def check(self, ctx: RuleContext) -> None:
        model: Model = ctx.model
        for sym in model.globals.values():
            held = _held_matrices(sym)
            if held is not None:
                self._check_holder(ctx, sym, *held)
        state = ctx.scratch(_UnitState)
        for n, sym in self._struct_reads(ctx):
            self._note_member_use(ctx, n, sym, state)
        for name in state.copied:  # a copy in a local: not followed
            state.member_uses[name] = None
        self._check_struct_members(ctx, state)

    @staticmethod
    def _struct_reads(ctx: RuleContext) -> list[tuple[Node, Symbol]]:
        """Every name in a function body that refers to a holder of a struct (a constant-buffer
        array or StructuredBuffer of structs, or a struct global or parameter), in document
        order: the holders' and parameters' uses (the model's use index). The locals' are the
        copies `visit` noted."""
        model: Model = ctx.model
        found: list[tuple[Node, Symbol]] = []
        symbols = [sym for sym in model.globals.values() if _struct_holder(sym)[0] is not None]
        symbols += [p for fn in functions(model) for p in fn.params if _struct_holder(p)[0] is not None]
        # Only the structs defined in the main file are judged (`_check_struct_members`): the
        # uses of the others' holders are not looked up (a header function's body need not be
        # resolved for them).
        judged: dict[str, bool] = {}
        for sym in symbols:
            struct = _struct_holder(sym)[0]
            assert struct is not None
            name = struct.name
            if name not in judged:
                node = struct_node(model, name)
                judged[name] = node is not None and ctx.in_main_file(node)
            if not judged[name]:
                continue
            found += [(use, sym) for use in uses_of(ctx.model, sym)]
        found.sort(key=lambda pair: pair[0].start_byte)
        return found

    @staticmethod
    def _note_member_use(ctx: RuleContext, n: Node, sym: Symbol, state: _UnitState) -> None:
        """Record how an array of structs (constant-buffer array, StructuredBuffer<S>) reads its
        members: `items[i].world`."""
        struct, count, storage = _struct_holder(sym)
        uses = state.member_uses
        if struct is None or uses.get(struct.name, {}) is None:
            return
        if sym.kind not in ("cbuffer_member", "resource"):
            uses[struct.name] = None  # a copy in a local or parameter: not followed
            return
        element = _element_of(ctx, n)
        parent = element.parent if element is not None else None
        field_node = parent.child_by_field_name("field") if parent is not None else None
        if element is None or parent is None or parent.type != "field_expression" or field_node is None:
            uses[struct.name] = None  # the struct is used whole
            return
        state.holders.setdefault(struct.name, (sym.name, count, storage))
        table = uses.setdefault(struct.name, {})
        assert table is not None
        table.setdefault(ctx.node_text(field_node), []).append(parent)

    def _check_struct_members(self, ctx: RuleContext, state: _UnitState) -> None:
        model: Model = ctx.model
        for struct_name, members in sorted((k, v) for k, v in state.member_uses.items() if v is not None):
            struct_type = model.structs.get(struct_name)
            node = struct_node(ctx.model, struct_name)
            holder = state.holders.get(struct_name)
            if struct_type is None or node is None or holder is None or not ctx.in_main_file(node):
                continue
            for member in struct_type.members:
                if not _is_4x4(member.type):
                    continue
                decl = next(
                    (
                        c
                        for c in ctx.tree.walk(node)
                        if c.type == "field_identifier" and ctx.node_text(c) == member.name
                    ),
                    None,
                )
                row_major = decl is not None and "row_major" in ctx.node_text(decl.parent or decl)
                if decl is not None:
                    what = f"`{holder[0]}[i].{member.name}`"
                    self._judge(
                        ctx, decl, what, member.type, members.get(member.name, []), holder[1:], row_major
                    )

    def _check_holder(
        self, ctx: RuleContext, sym: Symbol, t: T.Type, count: int | None, storage: str
    ) -> None:
        if sym.node is None or not ctx.in_main_file(sym.node):
            return
        elements = []
        for use in uses_of(ctx.model, sym):
            element = _element_of(ctx, use)
            if element is None:
                return  # the array is used whole (passed on, copied): not followed
            elements.append(element)
        row_major = "row_major" in sym.qualifiers
        self._judge(ctx, sym.node, f"`{sym.name}`", t, elements, (count, storage), row_major)

    def _judge(
        self,
        ctx: RuleContext,
        at: Node,
        what: str,
        t: T.Type,
        uses: list[Node],
        holder: tuple[int | None, str],
        row_major: bool,
    ) -> None:
        kinds: set[str] = set()
        for use in uses:
            kind = _use_kind(ctx, use)
            if kind is None:
                return
            kinds.add(kind)
        reads = kinds - {WRITE}
        if not reads or {ROW, COL} <= reads:
            return
        count, storage = holder
        old = matrix_bytes(4, 4, storage, row_major)
        better = _smaller(reads, t.scalar, storage, row_major)
        if better is None:
            return
        spelled, new = better
        where = "constant data" if storage == "constant" else "buffer data"
        if count:
            size = f"{count * old:,} bytes of {where} where {count * new:,} do"
        else:
            size = f"{old} bytes per buffer element where {new} do"
        ctx.report(
            at,
            f"{what} holds {t.name} matrices only used as affine transforms: {size}",
            help=f"declare them `{spelled}` ({old - new} bytes less per matrix)",
            notes=[
                "every use drops the `w` of the result",
                "registers do not change (only the elements read are loaded)",
            ],
        )


def _is_4x4(t: T.Type) -> bool:
    return t.kind == "matrix" and t.rows == 4 and t.cols == 4 and t.is_float


def _held_matrices(sym: Symbol) -> tuple[T.Type, int | None, str] | None:
    """(matrix type, count, storage) of a constant-buffer array of 4x4 matrices or a read-only
    StructuredBuffer<float4x4>."""
    t = sym.type
    if sym.kind == "cbuffer_member" and t.kind == "array" and t.element is not None and _is_4x4(t.element):
        return t.element, t.length, "constant"
    res = t.resource
    if (
        sym.kind == "resource"
        and res is not None
        and res.category == "structured"
        and not res.writable
        and t.element is not None
        and _is_4x4(t.element)
    ):
        return t.element, None, "structured"
    return None


def _struct_holder(sym: Symbol) -> tuple[T.Type | None, int | None, str]:
    """The struct an array-like holder keeps (cbuffer array of S, StructuredBuffer<S>)."""
    t = sym.type
    element = t.element
    is_struct = element is not None and element.kind == "struct"
    if sym.kind == "cbuffer_member" and t.kind == "array" and is_struct:
        return element, t.length, "constant"
    res = t.resource
    structured = res is not None and res.category == "structured" and not res.writable
    if sym.kind == "resource" and structured and is_struct:
        return element, None, "structured"
    if sym.kind in ("local", "param", "static") and t.kind == "struct":
        return t, None, ""
    return None, None, ""


def _element_of(ctx: RuleContext, use: Node) -> Node | None:
    """The element expression `a[i]` or `buf.Load(i)` that a use of the holder `a` reads."""
    site, parent = unparen_up(use)
    if parent is None:
        return None
    if parent.type == "subscript_expression" and same(parent.child_by_field_name("argument"), site):
        return parent
    if parent.type == "field_expression" and parent.parent is not None:
        field_node = parent.child_by_field_name("field")
        call = parent.parent
        if (
            field_node is not None
            and ctx.node_text(field_node) == "Load"
            and call.type == "call_expression"
            and same(call.child_by_field_name("function"), parent)
        ):
            return call
    return None
