"""Lowering calls that stay calls: intrinsics, constructors, resource methods, and functions
that cannot be inlined (no body, undeclared, recursive or too deep).

`CallLowerer.call` sends a call of a user function with a body to `inline`
(`lowering_inline`); every other call becomes one instruction with the uniformity rule of its
kind, and the out/inout arguments it may write are stored to.
"""

from __future__ import annotations

from hlsllint.analysis.ir import Value
from hlsllint.analysis.lowering import OUT_INTRINSICS, VARIABLE_KINDS
from hlsllint.analysis.lowering_access import AccessLowerer
from hlsllint.analysis.lowering_expr import swizzle_components
from hlsllint.semantic import types as T
from hlsllint.semantic.intrinsics import (
    D3D9_SAMPLERS,
    HLSL_INTRINSIC_NAMES,
    INTRINSICS,
    LINALG_WRITERS,
    MEMORY_OBJECTS,
    NOT_CALLS,
    OBJECT_METHODS,
    OBJECT_TYPE_METHODS,
    OBJECT_WRITERS,
    RAY_PAYLOAD_WRITERS,
    RESOURCE_METHODS,
    object_base,
    object_method,
)
from hlsllint.semantic.symbols import Function
from hlsllint.syntax import Node
from hlsllint.syntax.fields import F_ARGUMENT, F_ARGUMENTS, F_FIELD, F_FUNCTION, F_NAME
from hlsllint.syntax.queries import unparen


class CallLowerer(AccessLowerer):
    """Calls of intrinsics, constructors and resource methods, and calls left opaque."""

    def call(self, node: Node) -> Value | None:
        fn = node.child_by_field_id(F_FUNCTION)
        args_node = node.child_by_field_id(F_ARGUMENTS)
        args = [c for c in args_node.named_children if c.type != "comment"] if args_node else []
        if fn is not None and fn.type == "field_expression":
            obj = fn.child_by_field_id(F_ARGUMENT)
            obj_t = self.m.type_of(obj)
            method = self.text(fn.child_by_field_id(F_FIELD) or fn).partition("<")[0].strip()
            if obj_t.resource is not None and method in RESOURCE_METHODS:
                return self.method(node, obj, obj_t, method, args)  # `Load<float3>` too
            spec_ = object_method(obj_t.name, method) if obj_t.resource is None else None
            if spec_ is not None and obj is not None:
                return self.object_method(node, obj, method, spec_, args)
        name = self.text(fn) if fn is not None else ""
        if fn is not None and fn.type in ("template_function",):
            name = self.text(fn.child_by_field_id(F_NAME) or fn)
        elif "<" in name and name.partition("<")[0].strip() in INTRINSICS:
            name = name.partition("<")[0].strip()  # `vk::RawBufferLoad<S>`
        user = self.m.callee(node)
        open_overloads = self.m.open_overloads.get(node.id) if user is not None else None
        if open_overloads is not None:
            user = self.m.best_overload(open_overloads, [self._arg_type(a) for a in args])
        if user is None and fn is not None and fn.type == "field_expression":
            user = self._instantiated_method(fn, args)
        if user is not None and user.body is not None:
            on_object = fn is not None and fn.type == "field_expression"
            obj = fn.child_by_field_id(F_ARGUMENT) if fn is not None and on_object else None
            if user.name.endswith("::operator()") and self.m.type_of(fn).kind == "struct":
                obj = fn  # `f(x)` with `f` a struct value: `f.operator()(x)`
            return self.inline(node, user, args, obj)
        spec = INTRINSICS.get(name)
        if name in D3D9_SAMPLERS and args and user is None:
            return self.d3d9_sample(node, name, args)
        if spec is not None and spec[1] == "effect":
            reads = [self.expr_(a) for a in args]
            ins = self.emit("intrinsic", None, reads, node, rule="effect", name=name)
            if name.startswith("Interlocked") and len(args) >= 3:
                out = self.emit("atomic", None, [], node, rule="lane")
                self.store_to(args[-1], out, node)
            elif name in RAY_PAYLOAD_WRITERS and args:
                payload = self.temp(args[-1])
                self.store_to(
                    args[-1], self.emit("alu", payload, reads, node, rule="lane"), node, partial=False
                )
            elif name in LINALG_WRITERS and args:  # the result is the first argument
                out = self.emit("alu", self.temp(args[0]), reads, node, rule="lane")
                self.store_to(args[0], out, node, partial=False)
            elif name == "clip":
                ins.op = "discard"
            self.record(node, None)
            return None
        reads = [self.expr_(a) for a in args]
        if fn is not None and fn.type == "field_expression":  # a method reads its object
            reads.insert(0, self.expr_(fn.child_by_field_id(F_ARGUMENT)))
        rule = self._call_rule(fn, name, spec)
        blind = self._blind(fn, name, spec, rule)
        t = self.m.type_of(node)
        if t.kind == "void":
            if blind is not None:
                self.emit("call", None, reads, node, rule="effect", blind=blind)
            else:
                self.emit("call", None, reads, node, rule="effect")
            self._write_out_args(node, name, args, reads, rule)
            return None
        d = self.temp(node, t)
        lanes = self._constructor_lanes(fn, name, t, args, reads) if spec is None else None
        extra: dict[str, object] = {"lanes": lanes} if lanes is not None else {}
        if lanes is not None:
            picks = self._constructor_picks(args, reads, lanes)
            if picks is not None:
                extra["picks"] = picks
        if blind is not None:
            extra["blind"] = blind
        elif (
            rule == "pure"
            and (spec is not None or lanes is not None)
            and fn is not None
            and self.costs.records_components
        ):
            ops = self.operand_components(args, reads) if fn.type != "field_expression" else None
            if ops is not None:  # for value numbering by component
                extra["ops"] = ops
        if (
            self.costs.component_liveness
            and rule == "pure"
            and blind is None
            and args
            and len(reads) == len(args)
            and None not in reads
            and name not in OUT_INTRINSICS
            and (fn is None or fn.type != "field_expression")
        ):
            # every argument a run-time value: one value wherever written (`merge`), as the
            # compiler's value numbering has it; the arguments' accesses tell a part from the
            # whole (`v.xy` from `v`)
            extra["merge"] = ("call", name, tuple(self.access_path(a) for a in args))
        self.emit_expr("intrinsic" if spec else "alu", d, reads, node, rule=rule, name=name, **extra)
        self._write_out_args(node, name, args, reads, rule)
        if name in RAY_PAYLOAD_WRITERS and args:  # `dx::HitObject::TraceRay(..., payload)`
            traced = self.emit("alu", self.temp(args[-1]), reads, node, rule="lane")
            self.store_to(args[-1], traced, node, partial=False)
        return d

    def object_method(
        self, node: Node, obj: Node, method: str, spec: tuple[str, str], args: list[Node]
    ) -> Value | None:
        """A method of a ray query, a stream output or a subpass input (`OBJECT_TYPE_METHODS`):
        it reads the object and its arguments; a ray query's `TraceRayInline`, `Proceed`, ...
        write the query's state (live from the trace to its last read)."""
        if method == "Get" and object_base(self.m.type_of(obj).name) in MEMORY_OBJECTS:
            return self.record_load(node, obj, args)
        reads = [self.expr_(obj), *(self.expr_(a) for a in args)]
        result, rule = spec
        d: Value | None = None
        if result == "void":
            self.emit("intrinsic", None, reads, node, rule=rule, name=method)
        else:
            d = self.temp(node)
            self.emit_expr("intrinsic", d, reads, node, rule=rule, name=method)
        if method in OBJECT_WRITERS:
            state = self.emit("alu", self.temp(obj), reads, node, rule="lane")
            self.store_to(obj, state, node, partial=False)
        if d is None:
            self.record(node, None)
        return d

    def d3d9_sample(self, node: Node, name: str, args: list[Node]) -> Value:
        """`tex2D(s, uv)` and its kin: a sample of the texture bound to sampler `s`, as
        `Texture2D.Sample` is (the coordinates, bias, gradients or lod are its operands)."""
        reads = [self.expr_(a) for a in args]
        d = self.temp(node)
        self.emit_expr(
            "sample", d, reads, node, rule="lane", typed=True, resource=self._res_name(args[0]), method=name
        )
        return d

    def _instantiated_method(self, fn: Node, args: list[Node]) -> Function | None:
        """The method `obj.name(...)` calls when `obj` is a parameter of a template's type
        (`Remap remap`, `remap.remap(v)`): the method of the struct this inlined copy was
        passed (`Frame.arg_types`), chosen among its overloads by the arguments; None when
        the object is not such a parameter or the struct has no such method."""
        obj = fn.child_by_field_id(F_ARGUMENT)
        field = fn.child_by_field_id(F_FIELD)
        if obj is None or field is None or obj.type != "identifier" or not self.frames:
            return None
        sym = self.m.resolve(obj)
        if sym is None or sym.type.kind != "unknown":
            return None
        t = self.sym_type(sym)  # a template's parameter: the struct this copy was passed
        if t.kind != "struct":
            return None
        n = len(args)
        cands = [
            f
            for f in self.m.methods_of(t.name, self.text(field))
            if len(f.params) >= n and sum(1 for p in f.params if p.init is None) <= n
        ]
        if not cands:
            return None
        return self.m.best_overload(cands, [self._arg_type(a) for a in args])

    def _arg_type(self, a: Node) -> T.Type:
        """An argument's type, from the value it is bound to in this inlined copy when its
        declared type is a template's parameter."""
        t = self.m.type_of(a)
        if t.kind == "unknown" and a.type == "identifier":
            sym = self.m.resolve(a)
            bound = self.sym_type(sym) if sym is not None else t
            if bound.kind == "struct":
                return bound
            if sym is not None and sym.kind in VARIABLE_KINDS and self.frames:
                vals = self.frames[-1].env.get(sym)
                if vals is not None and len(vals) == 1:
                    return vals[0].type
        return t

    def _constructor_lanes(
        self, fn: Node | None, name: str, t: T.Type, args: list[Node], reads: list[Value | None]
    ) -> tuple[int, ...] | None:
        """Where the components of a vector or matrix constructor come from: one entry per
        argument, its component count, negative when the argument is a compile-time constant
        (`float4(luma, 0, 0, 0)` is (1, -1, -1, -1)). None when it is not a constructor or an
        argument is neither a plain value nor a constant."""
        if fn is None or fn.type not in ("primitive_type", "type_identifier", "identifier"):
            return None
        if t.kind not in ("vector", "matrix") or not self.m.lookup_type(name).is_numeric:
            return None
        lanes: list[int] = []
        for a, r in zip(args, reads, strict=True):
            n = self.m.type_of(a).count
            if r is None:
                if self.const_value(a) is None:
                    return None
                lanes.append(-n)
            elif r.parts is not None:
                return None
            else:
                lanes.append(n)
        return tuple(lanes) if sum(abs(n) for n in lanes) == t.count else None

    def _constructor_picks(
        self, args: list[Node], reads: list[Value | None], lanes: tuple[int, ...]
    ) -> tuple[tuple[int, ...] | None, ...] | None:
        """For a constructor with `lanes`: per operand that is a value (a positive lane count),
        the components of that value it takes when it is a swizzle of a wider value (`p.z` of
        a `uint3` is (2,): the IR reads the whole of `p`), else None. None when no operand is
        such a swizzle."""
        picks: list[tuple[int, ...] | None] = []
        found = False
        for a, r, n in zip(args, reads, lanes, strict=True):
            if n < 0 or r is None:
                continue
            comps: tuple[int, ...] | None = None
            node = unparen(a)
            if node.type == "field_expression" and r.width > n:
                comps = swizzle_components(self.text(node.child_by_field_id(F_FIELD) or node))
                if comps is not None and (len(comps) != n or max(comps) >= r.width):
                    comps = None
            found = found or comps is not None
            picks.append(comps)
        return tuple(picks) if found else None

    def _call_rule(self, fn: Node | None, name: str, spec: tuple[str, str] | None) -> str:
        """The uniformity rule of a call that is not inlined: an intrinsic's class; `mul` and
        constructors are pure; anything else (an undeclared or body-less function, a method of a
        struct) is per-lane: nothing says it returns the same value in every lane."""
        if spec is not None:
            return spec[1]
        if name == "mul":
            return "pure"
        if fn is not None and fn.type in ("primitive_type", "type_identifier", "identifier"):
            ctor = self.m.lookup_type(name)
            if ctor.is_numeric or ctor.kind == "struct":
                return "pure"
        if fn is not None and fn.type == "template_function" and name in ("vector", "matrix"):
            return "pure"  # `vector<float, 8>(...)`: a constructor
        if fn is not None and name in OBJECT_TYPE_METHODS:
            return "pure"  # `dx::HitObject()`: an empty object
        return "lane"

    def _blind(
        self, fn: Node | None, name: str, spec: tuple[str, str] | None, rule: str
    ) -> tuple[str, str] | None:
        """(`call` or `intrinsic`, name) for a call the estimate cannot see into (`analysis.blind`):
        not an intrinsic it models, `mul`, a constructor or an intrinsic with out parameters."""
        if spec is not None or rule == "pure" or name in OUT_INTRINSICS or name in NOT_CALLS:
            return None
        if fn is not None and fn.type == "parenthesized_expression":
            t = self.m.lookup_type(name.strip("() \t"))
            if t.is_numeric or t.kind == "struct":
                return None  # `(uint)(a + b)` read as a call: a cast
        if fn is not None and fn.type == "field_expression":
            obj_t = self.m.type_of(fn.child_by_field_id(F_ARGUMENT))
            method = self.text(fn.child_by_field_id(F_FIELD) or fn)
            if obj_t.resource is not None:
                return ("intrinsic", f"{obj_t.resource.kind}::{method}")
            if obj_t.kind == "struct" and obj_t.name:
                return ("call", f"{obj_t.name}::{method}")
            if obj_t.kind != "unknown" and obj_t.name:
                return ("intrinsic", f"{obj_t.name}::{method}")
            if method in OBJECT_METHODS:  # a stream, ray query or subpass input's method
                return ("intrinsic", name)
            return ("call", name)
        if name in HLSL_INTRINSIC_NAMES:
            return ("intrinsic", name)
        return ("call", name or "?")

    def _write_out_args(
        self, node: Node, name: str, args: list[Node], reads: list[Value | None], rule: str
    ) -> None:
        """out/inout arguments of a call that is not inlined are written: by the call's own
        uniformity for the intrinsics with outputs (`sincos`, `modf`...), per lane otherwise."""
        for i, a in enumerate(args):
            if a.type not in ("identifier", "field_expression", "subscript_expression"):
                continue
            fn = node.child_by_field_id(F_FUNCTION)
            if fn is None or fn.type != "identifier" or name.startswith("Interlocked"):
                continue  # struct methods: parameters unknown here; atomics are handled above
            unknown = rule == "lane" and name not in INTRINSICS and name not in self.m.functions
            if not unknown and not self._may_write_arg(node, i):
                continue  # an undeclared function (a header not found) may write any argument
            out_rule = "pure" if name in OUT_INTRINSICS else rule
            written = self.emit("alu", self.temp(a), reads, node, rule=out_rule)
            self.store_to(a, written, node, partial=False)

    def _query(
        self, node: Node, rv: Value | None, res: T.Resource, method: str, args: list[Node]
    ) -> Value | None:
        """`GetDimensions` writes each output argument with a value of its own (the size is
        read from the descriptor at run time: never a compile-time constant); a mip level
        passed first (`t.GetDimensions(mip, w, h, levels)`) is read. `GetSamplePosition`
        returns its value."""
        reads: list[Value | None] = [rv]
        outs = args
        if method == "GetDimensions" and len(args) == _query_dims(res.kind) + 2:
            reads.append(self.expr_(args[0]))
            outs = args[1:]
        elif method != "GetDimensions":
            reads.extend(self.expr_(a) for a in args)
            outs = []
        for a in outs:
            ins = self.emit("query", self.temp(a), reads, node, rule="pure")
            self.store_to(a, ins, node, partial=False)
        t = self.m.type_of(node)
        if t.kind in ("void", "unknown"):
            if not outs:
                self.emit("query", None, reads, node, rule="pure")
            return None
        return self.emit("query", self.temp(node, t), reads, node, rule="pure").dest

    def method(
        self, node: Node, obj: Node | None, obj_t: T.Type, method: str, args: list[Node]
    ) -> Value | None:
        res = obj_t.resource
        assert res is not None
        access = RESOURCE_METHODS[method]
        rv = self.expr_(obj)
        reads = [rv, *(self.expr_(a) for a in args)]
        name = self._res_name(obj)
        sels = self.read_components([None, *args], reads)
        if access in ("sample", "gather", "load"):
            rule = "lane" if access != "load" else self._load_rule(res)
            t = self.m.type_of(node)
            if access == "load" and t.kind == "struct" and t.members:
                agg = self.member_loads(
                    node, t, "load", reads, rule, typed=res.typed, resource=name, method=method
                )
                self.record(node, agg)
                return agg
            d = self.temp(node)
            ins = self.emit_expr(
                access, d, reads, node, rule=rule, typed=res.typed, resource=name, method=method, **sels
            )
            return d
        if access == "lod":
            d = self.temp(node)
            ins = self.emit_expr(
                "sample", d, reads, node, rule="lane", typed=True, resource=name, method=method, **sels
            )
            return d
        if access == "query":
            return self._query(node, rv, res, method, args)
        op = "store" if access == "store" else "atomic"
        ins = self.emit(op, None, reads, node, rule="lane", resource=name, method=method, **sels)
        if access == "atomic" and method.startswith("Interlocked") and len(args) >= 3:
            self.store_to(args[-1], self.emit("atomic", None, [], node, rule="lane"), node)
        t = self.m.type_of(node)
        if t.kind not in ("void", "unknown"):
            d = self.temp(node, t)
            ins.dest = d
            return d
        return None


_QUERY_DIMS = {
    "Texture1D": 1,
    "Texture1DArray": 2,
    "Texture2D": 2,
    "Texture2DArray": 3,
    "Texture3D": 3,
    "TextureCube": 2,
    "TextureCubeArray": 3,
}


def _query_dims(kind: str) -> int:
    """How many sizes `GetDimensions` writes for a texture with mips (`kind`), without the mip
    count: a call with two more arguments takes a mip level first. -1 for other resources."""
    return _QUERY_DIMS.get(kind, -1)
