"""Expression types: `Expressions.type_of(expr)` (literals, names, swizzles, subscripts, calls of
constructors, user functions, intrinsics and resource methods, operators, casts), on top of the
declared types (`Declarators`)."""

from __future__ import annotations

import re

from hlsllint.semantic import types as T
from hlsllint.semantic.declarators import Declarators
from hlsllint.semantic.intrinsics import (
    INTRINSICS,
    NODE_ARRAYS,
    NODE_RECORDS,
    RESOURCE_METHODS,
    object_base,
    object_method,
)
from hlsllint.semantic.symbols import Function
from hlsllint.settings import AnalysisSettings
from hlsllint.syntax import Node, SyntaxTree
from hlsllint.syntax.fields import (
    F_ALTERNATIVE,
    F_ARGUMENT,
    F_ARGUMENTS,
    F_CONSEQUENCE,
    F_FIELD,
    F_FUNCTION,
    F_INDICES,
    F_LEFT,
    F_NAME,
    F_OPERATOR,
    F_RIGHT,
    F_TYPE,
)

_SWIZZLE_RE = re.compile(r"^(?:[xyzw]{1,4}|[rgba]{1,4})$")
_MATRIX_SWIZZLE_RE = re.compile(r"^(?:_m[0-3][0-3])+$|^(?:_[1-4][1-4])+$")


class Expressions(Declarators):
    """The model typing expressions (see the module docstring)."""

    def __init__(self, tree: SyntaxTree, settings: AnalysisSettings) -> None:
        super().__init__(tree, settings)
        self._types: dict[int, T.Type] = {}
        self.method_names: dict[str, list[Function]] = {}
        """The structs' methods by their names without `Struct::`."""
        self._function_of: dict[int, Function] = {}
        """Node id of a function definition -> its `Function`."""
        self._callees: dict[int, Function | None] = {}
        self.open_overloads: dict[int, list[Function]] = {}
        """Call node id -> the overloads that fit a call whose argument types are unknown here
        (a template's parameters): the lowering picks among them by its values' types."""

    def type_of(self, node: Node | None) -> T.Type:
        """The type of an expression (UNKNOWN when it cannot be told)."""
        if node is None:
            return T.UNKNOWN
        cached = self._types.get(node.id)
        if cached is not None:
            return cached
        self._types[node.id] = T.UNKNOWN  # guards cycles through broken trees
        try:
            t = self._type_of(node)
        except RecursionError:
            t = T.UNKNOWN
        self._types[node.id] = t
        return t

    def _type_of(self, node: Node) -> T.Type:
        kind = node.type
        if kind == "number_literal":
            text = self._text(node).lower()
            if text.startswith("0x"):
                return T.UINT if "u" in text else T.INT
            if text.endswith("h"):
                return T.numeric("half")
            if any(c in text for c in ".e") or text.endswith("f"):
                return T.FLOAT
            if text.endswith(("u", "ul", "lu")):
                return T.UINT
            return T.INT
        if kind in ("true", "false"):
            return T.BOOL
        if kind == "identifier":
            sym = self.resolve(node)
            if sym is None:
                sym = self.globals.get(self._text(node))
            return sym.type if sym is not None else T.UNKNOWN
        if kind == "this":
            sym = self.resolve(node)
            return sym.type if sym is not None else T.UNKNOWN
        if kind == "qualified_identifier":  # `Tile::kSize`, `Ns::X` (namespaces flattened)
            name = "".join(self._text(node).split())
            sym = self.static_member(name) or self.globals.get(name.rpartition("::")[2])
            return sym.type if sym is not None else T.UNKNOWN
        if kind in ("parenthesized_expression", "condition_clause"):
            inner = [c for c in node.named_children if c.type != "comment"]
            return self.type_of(inner[-1]) if inner else T.UNKNOWN
        if kind == "field_expression":
            return self._field_type(node)
        if kind == "subscript_expression":
            overload = self.operator_method(node)
            if overload is not None:
                return overload.return_type
            return self._subscript_type(self.type_of(node.child_by_field_id(F_ARGUMENT)))
        if kind == "call_expression":
            return self._call_type(node)
        if kind == "binary_expression":
            overload = self.operator_method(node)
            if overload is not None:
                return overload.return_type
            op = self._text(node.child_by_field_id(F_OPERATOR))
            left = self.type_of(node.child_by_field_id(F_LEFT))
            right = self.type_of(node.child_by_field_id(F_RIGHT))
            common = T.common_type(left, right)
            if op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||"):
                if not common.is_numeric:
                    return T.BOOL
                return T.numeric("bool", common.rows, common.cols, matrix=common.kind == "matrix")
            if op in ("<<", ">>"):
                return left
            return common
        if kind == "unary_expression":
            overload = self.operator_method(node)
            if overload is not None:
                return overload.return_type
            op = self._text(node.child_by_field_id(F_OPERATOR))
            arg = self.type_of(node.child_by_field_id(F_ARGUMENT))
            if op == "!" and arg.is_numeric:
                return T.numeric("bool", arg.rows, arg.cols, matrix=arg.kind == "matrix")
            return arg
        if kind == "update_expression":
            return self.type_of(node.child_by_field_id(F_ARGUMENT))
        if kind == "assignment_expression":
            return self.type_of(node.child_by_field_id(F_LEFT))
        if kind == "conditional_expression":
            return T.common_type(
                self.type_of(node.child_by_field_id(F_CONSEQUENCE)),
                self.type_of(node.child_by_field_id(F_ALTERNATIVE)),
            )
        if kind == "cast_expression":
            return self.type_from_node(node.child_by_field_id(F_TYPE))
        if kind == "comma_expression":
            return self.type_of(node.child_by_field_id(F_RIGHT))
        return T.UNKNOWN

    def cast_call(self, node: Node | None) -> tuple[T.Type, Node] | None:
        """(type, operand) when `node` is a cast the grammar read as a call: `(float3x3)(x)`
        with a vector, matrix or struct type (`(float)(x)` parses as a cast). Followed by a
        member or element access (`(float3x3)(cam).view`), the cast applies to the access, as
        postfix operators bind tighter than a cast: `(float3x3)((cam).view)`."""
        if node is None or node.type != "call_expression":
            return None
        fn = node.child_by_field_id(F_FUNCTION)
        if fn is None or fn.type != "parenthesized_expression" or fn.named_child_count != 1:
            return None
        inner = fn.named_children[0]
        if inner.type not in ("identifier", "type_identifier", "primitive_type"):
            return None
        args_node = node.child_by_field_id(F_ARGUMENTS)
        args = [c for c in args_node.named_children if c.type != "comment"] if args_node else []
        if len(args) != 1 or self.resolve(inner) is not None:
            return None
        t = self.lookup_type(self._text(inner))
        if not (t.is_numeric or t.kind == "struct"):
            return None
        return t, args[0]

    def _field_type(self, node: Node) -> T.Type:
        cast = self.cast_call(node.child_by_field_id(F_ARGUMENT))
        if cast is not None:  # `(T)(x).f`: `(T)((x).f)`
            return cast[0]
        base = self.type_of(node.child_by_field_id(F_ARGUMENT))
        name = self._text(node.child_by_field_id(F_FIELD))
        if base.kind == "struct":
            m = base.member(name)
            return m.type if m else T.UNKNOWN
        if base.is_resource and base.resource is not None:
            if base.resource.category == "constant" and base.element is not None:
                m = base.element.member(name)
                return m.type if m else T.UNKNOWN
            if name in ("mips", "sample"):
                return T.Type("resource", f"{base.name}.{name}", element=base.element, resource=base.resource)
            return T.UNKNOWN
        if base.is_numeric:
            if _SWIZZLE_RE.match(name) and base.kind != "matrix":
                return base.with_shape(1, len(name))
            if _MATRIX_SWIZZLE_RE.match(name):
                n = name.count("_")
                return base.with_shape(1, n)
        return T.UNKNOWN

    def _subscript_type(self, base: T.Type) -> T.Type:
        if base.kind == "array":
            return base.element or T.UNKNOWN
        if base.kind == "matrix":
            return base.with_shape(1, base.cols)
        if base.kind == "vector":
            return base.scalar_type
        if base.is_resource:
            if base.name.endswith(".mips") or base.name.endswith(".sample"):
                # tex.mips[level] is indexed again with the coordinates
                return T.Type(
                    "resource",
                    base.name[: base.name.rfind(".")] + "[]",
                    element=base.element,
                    resource=base.resource,
                )
            if base.resource is not None and base.resource.category == "raw":
                return T.UINT
            return base.element or T.UNKNOWN
        if base.kind == "unknown":
            obj = object_base(base.name)
            if obj in NODE_RECORDS:  # `records[i]`: the i-th record
                return base.element or T.UNKNOWN
            if obj in NODE_ARRAYS:  # `outputs[i]`: one output node
                return T.object_type(NODE_ARRAYS[obj], base.element)
        return T.UNKNOWN

    def _call_type(self, node: Node) -> T.Type:
        fn = node.child_by_field_id(F_FUNCTION)
        args_node = node.child_by_field_id(F_ARGUMENTS)
        args = [c for c in args_node.named_children if c.type != "comment"] if args_node else []
        if fn is None:
            return T.UNKNOWN
        user = self.callee(node)
        if user is not None:
            if user.return_type.kind == "unknown":
                return self._deduced_return(user, args)
            return user.return_type
        if fn.type == "field_expression":
            obj = self.type_of(fn.child_by_field_id(F_ARGUMENT))
            method = self._text(fn.child_by_field_id(F_FIELD))
            return self.method_type(obj, method, args)
        if fn.type in ("template_function", "template_method"):
            name_node = fn.child_by_field_id(F_NAME)
            name = self._text(name_node)
            targs = fn.child_by_field_id(F_ARGUMENTS)
            if name in ("vector", "matrix") and targs is not None:  # `vector<float, 8>(...)`
                return self.template_numeric(name, list(targs.named_children))
            if targs is not None and targs.named_children:
                t = self.type_from_node(targs.named_children[0])
                if t.kind != "unknown":
                    return t
            return self.lookup_type(name)
        name = self._text(fn)
        inner = fn.named_children[-1] if fn.type == "qualified_identifier" and fn.named_children else None
        if inner is not None and inner.type == "template_function":
            # `vk::RawBufferLoad<S>(addr)`: a namespace's template intrinsic, of the type asked for
            name = name.partition("<")[0].strip()
            targs = inner.child_by_field_id(F_ARGUMENTS)
            spec_ = INTRINSICS.get(name)
            if spec_ is not None and spec_[0] != "void" and targs is not None and targs.named_children:
                t = self.type_from_node(targs.named_children[0])
                if t.kind != "unknown":
                    return t
        if fn.type in ("primitive_type", "type_identifier", "identifier"):
            ctor = self.lookup_type(name)
            if ctor.kind != "unknown" and (ctor.is_numeric or ctor.kind == "struct"):
                return ctor
        user = self.function(name, len(args))
        if user is not None:
            return user.return_type
        if name == "mul" and len(args) == 2:
            return mul_type(self.type_of(args[0]), self.type_of(args[1]))
        spec = INTRINSICS.get(name)
        if spec is None:
            return T.UNKNOWN
        first = self.type_of(args[0]) if args else T.FLOAT
        return intrinsic_result(spec[0], first, [self.type_of(a) for a in args])

    def _deduced_return(self, fn: Function, args: list[Node]) -> T.Type:
        """The return type of a function template returning one of its parameters' type
        (`template<typename T> T wrapper(T t)`): the argument's type, as DXC deduces it."""
        ret = fn.node.child_by_field_id(F_TYPE)
        spelled = self._text(ret).strip() if ret is not None else ""
        if not spelled:
            return fn.return_type
        for p, a in zip(fn.params, args, strict=False):
            decl = p.node.parent if p.node is not None else None
            t = decl.child_by_field_id(F_TYPE) if decl is not None else None
            if t is not None and self._text(t).strip() == spelled:
                return self.type_of(a)
        return fn.return_type

    # -- calls ------------------------------------------------------------------------------

    def callee(self, call: Node) -> Function | None:
        """The user function a call expression calls, resolved as DXC resolves it: a method of
        the object's struct (or of a struct it derives from), a method of the enclosing
        method's struct called without an object, `S::f` (a static method) or `N::f` (a
        namespace's function), a template function, and among overloads the one whose
        parameters fit the arguments' count (default arguments included) and types best.
        None for intrinsics, constructors and undeclared names."""
        key = call.id
        if key in self._callees:
            return self._callees[key]
        found = self._callee(call)
        self._callees[key] = found
        return found

    def _callee(self, call: Node) -> Function | None:
        fn = call.child_by_field_id(F_FUNCTION)
        if fn is None:
            return None
        if fn.type in ("template_function", "template_method"):
            fn = fn.child_by_field_id(F_NAME)
            if fn is None:
                return None
        kind = fn.type
        cands: list[Function] = []
        if kind == "identifier":
            name = self._text(fn)
            if name in self.method_names:
                owner = self._enclosing_owner(call)
                if owner is not None:
                    cands = self.methods_of(owner, name)
                    n = _argument_count(call)
                    if not any(len(f.params) >= n for f in cands):
                        cands = []  # `length(v)` in a struct with a `length()`: the intrinsic
            if not cands:
                cands = list(self.functions.get(name, ()))
        elif kind == "field_expression":
            field = fn.child_by_field_id(F_FIELD)
            name = self._text(field) if field is not None else ""
            if name in self.method_names:
                obj = self.type_of(fn.child_by_field_id(F_ARGUMENT))
                if obj.kind == "struct":
                    cands = self.methods_of(obj.name, name)
        elif kind == "qualified_identifier":
            name = "".join(self._text(fn).split())
            cands = list(self.functions.get(name, ()))
            if not cands:
                scope, _, last = name.rpartition("::")
                struct = self._struct_of_scope(scope)
                if struct is not None:
                    cands = self.methods_of(struct, last)
                if not cands:  # a namespace's function (namespaces are flattened)
                    cands = list(self.functions.get(last, ()))
        if not cands and "operator()" in self.method_names:
            t = self.type_of(fn)  # `f(x)` with `f` a struct value: its `operator()`
            if t.kind == "struct":
                cands = self.methods_of(t.name, "operator()")
        if not cands:
            return None
        return self._overload(cands, call)

    def operator_method(self, node: Node) -> Function | None:
        """The operator an expression on a struct value calls (HLSL 2021, a method of the
        struct's or of a struct it derives from): `a + b` calls `a`'s `operator+(b)`, `-a` its
        `operator-()`, `a[i]` its `operator[](i)`; chosen among overloads by the operands' types.
        None for built-in operators."""
        if not self.method_names:
            return None
        operands = operator_operands(self.tree, node)
        if operands is None:
            return None
        key = node.id
        if key in self._callees:
            return self._callees[key]
        found: Function | None = None
        obj, args, name = operands
        if name in self.method_names:
            t = self.type_of(obj)
            if t.kind == "struct":
                cands = [f for f in self.methods_of(t.name, name) if len(f.params) == len(args)]
                if cands:
                    found = self.best_overload(cands, [self.type_of(a) for a in args])
        self._callees[key] = found
        return found

    def _operator_calls(self, fn: Function) -> list[Function]:
        """The operator methods `fn`'s body calls (`operator_method`, and `operator()` of a
        struct value called as a function); none without any."""
        if fn.body is None or not any(n.startswith("operator") for n in self.method_names):
            return []
        out: list[Function] = []
        calls = "operator()" in self.method_names
        for n in self.tree.walk(fn.body):
            if n.type in OPERATOR_EXPRESSIONS:
                found = self.operator_method(n)
            elif calls and n.type == "call_expression":
                found = self.callee(n)
                found = found if found is not None and found.name.endswith("::operator()") else None
            else:
                continue
            if found is not None and found not in out:
                out.append(found)
        return out

    def called_functions(self, fn: Function) -> list[Function]:
        """Every function `fn`'s body may call (from `Function.calls`; every overload, and for
        a method called on an object every struct's method of that name; the operators its
        binary expressions on struct values call)."""
        out: list[Function] = self._operator_calls(fn)
        for name in sorted(fn.calls):
            if name.startswith("."):
                method = name[1:]
                out.extend(self.method_names.get(method, ()))
                continue
            found = self.functions.get(name)
            if found:
                out.extend(found)
                continue
            if fn.owner is not None and name in self.method_names:
                out.extend(self.methods_of(fn.owner, name))
            elif "::" in name:
                scope, _, last = name.rpartition("::")
                struct = self._struct_of_scope(scope)
                found = self.methods_of(struct, last) if struct is not None else []
                out.extend(found or self.functions.get(last, ()))
        return out

    def _struct_of_scope(self, scope: str) -> str | None:
        """The struct a call's scope names (`S`, `Ns::S`, `Outer::Inner`, `List<8>`), or None."""
        plain = "::".join(p.partition("<")[0] for p in scope.split("::"))  # `List<8>::empty()`
        t = self.lookup_type(plain)
        return t.name if t.kind == "struct" else None

    def methods_of(self, struct: str, name: str) -> list[Function]:
        """The methods `name` of a struct, else of the struct it derives from, and so on."""
        cur: str | None = struct
        for _ in range(16):
            if cur is None:
                break
            found = self.functions.get(f"{cur}::{name}")
            if found:
                return list(found)
            cur = self.struct_bases.get(cur)
        return []

    def _enclosing_owner(self, node: Node) -> str | None:
        """The struct of the method whose body holds `node`, or None."""
        cur = node.parent
        while cur is not None:
            if cur.type == "function_definition":
                fn = self._function_of.get(cur.id)
                return fn.owner if fn is not None else None
            cur = cur.parent
        return None

    def _overload(self, cands: list[Function], call: Node) -> Function:
        """The overload a call picks: by argument count (parameters with a default value may
        be left out), then by the arguments' types (exact first, then conversions)."""
        if len(cands) == 1:
            return cands[0]
        args_node = call.child_by_field_id(F_ARGUMENTS)
        args = [c for c in args_node.named_children if c.type != "comment"] if args_node else []
        n = len(args)
        fits = [f for f in cands if sum(1 for p in f.params if p.init is None) <= n <= len(f.params)]
        if not fits:
            return cands[0]
        if len(fits) == 1:
            return fits[0]
        types = [self.type_of(a) for a in args]
        if any(t.kind == "unknown" for t in types):
            # a template's parameter: each instance decides (the lowering knows the values)
            self.open_overloads[call.id] = fits
        return self.best_overload(fits, types)

    def best_overload(self, fits: list[Function], types: list[T.Type]) -> Function:
        """The overload whose parameter types are nearest the arguments' (the first on a tie)."""
        best = fits[0]
        best_cost = -1
        for f in fits:
            cost = 0
            for p, a in zip(f.params, types, strict=False):
                cost += _conversion_cost(a, p.type)
            if best_cost < 0 or cost < best_cost:
                best, best_cost = f, cost
        return best

    def method_type(self, obj: T.Type, method: str, args: list[Node]) -> T.Type:
        """The result type of a resource or object method call (`tex.Sample(s, uv)` -> float4,
        `buf.Load<float3>(a)` -> float3, `query.CommittedRayT()` -> float)."""
        spec = object_method(obj.name, method.partition("<")[0]) if obj.resource is None else None
        if spec is not None:
            if spec[0] == "element":
                return obj.element or T.numeric("float", 1, 4)
            if spec[0] in NODE_RECORDS:  # `GetThreadNodeOutputRecords(n)`: records of the element
                return T.object_type(spec[0], obj.element)
            if spec[0] == "template":  # `hit.GetAttributes<Attribs>()`
                targ = method.partition("<")[2].rpartition(">")[0]
                return self.lookup_type(targ) if targ else T.UNKNOWN
            return intrinsic_result(spec[0], T.UNKNOWN, [])
        method, _, targ = method.partition("<")
        if targ and obj.resource is not None and obj.resource.category == "raw":
            t = self.lookup_type(targ.rpartition(">")[0])  # `Load<float3>`: the type asked for
            return t if method.startswith("Load") else T.VOID
        kind = RESOURCE_METHODS.get(method)
        if obj.resource is None or kind is None:
            return T.UNKNOWN
        el = obj.element or T.numeric("float", 1, 4)
        if kind in ("sample", "load"):
            if obj.resource.category == "raw":
                n = method[-1]
                return T.numeric("uint", 1, int(n)) if n.isdigit() else T.UINT
            if method.startswith("SampleCmp"):
                return el.scalar_type
            return el
        if kind == "gather":
            return el.scalar_type.with_shape(1, 4) if el.is_numeric else T.numeric("float", 1, 4)
        if kind == "lod":
            return T.FLOAT
        if kind == "atomic" and method.endswith("Counter"):
            return T.UINT
        return T.VOID


def _argument_count(call: Node) -> int:
    args = call.child_by_field_id(F_ARGUMENTS)
    return len([c for c in args.named_children if c.type != "comment"]) if args is not None else 0


def _conversion_cost(arg: T.Type, param: T.Type) -> int:
    """How far an argument's type is from a parameter's (0: the same type)."""
    if arg.kind == "unknown" or param.kind == "unknown":
        return 1
    if arg.kind == "struct" or param.kind == "struct":
        return 0 if arg.name == param.name else 100
    if arg.kind != param.kind and not (arg.is_numeric and param.is_numeric):
        return 50
    cost = 0
    if arg.scalar != param.scalar:
        cost += 1 if (arg.scalar in ("float", "half")) == (param.scalar in ("float", "half")) else 2
    if arg.count != param.count:
        cost += 4 if arg.count == 1 else 8  # a splat, else a truncation
    return cost


def mul_type(a: T.Type, b: T.Type) -> T.Type:
    """HLSL `mul(a, b)`: vector x matrix -> row vector, matrix x vector -> column vector, ..."""
    scalar = T.common_type(a, b).scalar or "float"
    if a.kind == "matrix" and b.kind == "matrix":
        return T.numeric(scalar, a.rows, b.cols, matrix=True)
    if a.kind == "matrix" and b.kind in ("vector", "scalar"):
        return T.numeric(scalar, 1, a.rows) if b.kind == "vector" else a
    if a.kind == "vector" and b.kind == "matrix":
        return T.numeric(scalar, 1, b.cols)
    if a.kind == "vector" and b.kind == "vector":
        return T.numeric(scalar)
    return T.common_type(a, b)


def intrinsic_result(rule: str, first: T.Type, args: list[T.Type]) -> T.Type:
    if rule == "select":
        return T.common_type(args[1], args[2]) if len(args) == 3 else T.UNKNOWN
    if rule == "same":
        if len(args) > 1 and first.count == 1:
            for a in args[1:]:
                if a.count > 1:
                    return T.common_type(first, a)
        return first
    if rule == "scalar":
        return first.scalar_type if first.is_numeric else T.FLOAT
    shapes = {
        "bool_shape": "bool",
        "uint_shape": "uint",
        "int_shape": "int",
        "float_shape": "float",
        "half_shape": "half",
        "int16_shape": "int16_t",
        "uint16_shape": "uint16_t",
    }
    if rule in shapes:
        if not first.is_numeric:
            return T.numeric(shapes[rule])
        return T.numeric(shapes[rule], first.rows, first.cols, matrix=first.kind == "matrix")
    fixed = {
        "bool": T.BOOL,
        "uint": T.UINT,
        "uint3": T.numeric("uint", 1, 3),
        "uint4": T.numeric("uint", 1, 4),
        "int": T.INT,
        "int4": T.numeric("int", 1, 4),
        "uint16_t4": T.numeric("uint16_t", 1, 4),
        "uint2": T.numeric("uint", 1, 2),
        "uint64_t": T.numeric("uint64_t"),
        "int16_t4": T.numeric("int16_t", 1, 4),
        "hitobject": T.object_type("dx::HitObject"),
        "triangle_positions": T.BUILTIN_STRUCTS["BuiltInTrianglePositions"],
        "float2": T.numeric("float", 1, 2),
        "float": T.FLOAT,
        "float3x4": T.numeric("float", 3, 4, matrix=True),
        "float4x3": T.numeric("float", 4, 3, matrix=True),
        "float3": T.numeric("float", 1, 3),
        "float4": T.numeric("float", 1, 4),
        "void": T.VOID,
    }
    return fixed.get(rule, T.UNKNOWN)


OPERATOR_EXPRESSIONS = frozenset({"binary_expression", "unary_expression", "subscript_expression"})
"""The expressions a struct's operator method can implement (HLSL 2021 has no assignment,
compound-assignment or increment operators: they would need references)."""


def operator_operands(tree: SyntaxTree, node: Node) -> tuple[Node | None, list[Node], str] | None:
    """The object, the other operands and the operator method's name of an expression that may
    call one (`a + b` -> (a, [b], "operator+"), `-a` -> (a, [], "operator-"), `a[i, j]` -> (a,
    [i, j], "operator[]")), or None for any other expression."""
    kind = node.type
    if kind == "subscript_expression":
        idx = node.child_by_field_id(F_INDICES)
        if idx is None:
            args: list[Node] = []
        elif idx.type == "subscript_argument_list":
            args = [c for c in idx.named_children if c.type != "comment"]
        else:
            args = [idx]
        return node.child_by_field_id(F_ARGUMENT), args, "operator[]"
    op = node.child_by_field_id(F_OPERATOR)
    if op is None:
        return None
    name = f"operator{tree.node_text(op)}"
    if kind == "binary_expression":
        right = node.child_by_field_id(F_RIGHT)
        return node.child_by_field_id(F_LEFT), [right] if right is not None else [], name
    if kind == "unary_expression":
        return node.child_by_field_id(F_ARGUMENT), [], name
    return None
