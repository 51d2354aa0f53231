"""Inlining calls of user functions, and replaying a body already lowered.

`InlineLowerer.inline` binds the arguments in the caller (a parameter the callee only reads is
the argument's registers, no copy), lowers the body in a new frame and writes the out/inout
arguments back; recursion and chains deeper than `MAX_INLINE_DEPTH` stay opaque calls
(`lowering_calls`). A body is lowered from its syntax once per argument shape and call path,
then replayed from a `Template` (`lowering_memo`).
"""

from __future__ import annotations

from typing import Any

from hlsllint.analysis.ir import Instr, LoopRecord, Value, with_parts
from hlsllint.analysis.lowering import MAX_INSTRUCTIONS, VARIABLE_KINDS, Frame, _flatten
from hlsllint.analysis.lowering_calls import CallLowerer
from hlsllint.analysis.lowering_memo import UNSET, Recording, Template
from hlsllint.semantic.constants import member_binding
from hlsllint.semantic.symbols import Function, Symbol
from hlsllint.syntax import Node
from hlsllint.syntax.fields import (
    F_ARGUMENT,
    F_ARGUMENTS,
    F_DECLARATOR,
    F_FIELD,
    F_FUNCTION,
    F_LEFT,
    F_OPERATOR,
    F_RIGHT,
    F_VALUE,
)
from hlsllint.syntax.queries import unparen

MAX_INLINE_DEPTH = 24


Const = int | float | bool
_STRUCT_DEPTH = 8
"""The deepest chain of calls and locals `_struct_consts` follows."""


class InlineLowerer(CallLowerer):
    """Calls of user functions with a body, inlined."""

    def stmt(self, node: Node | None) -> None:
        """Lower a statement (`lowering_stmt.StmtLowerer`)."""
        raise NotImplementedError

    # -- inlined calls --------------------------------------------------------------------

    def inline(self, node: Node, fn: Function, args: list[Node], obj: Node | None = None) -> Value | None:
        active = [f.fn for f in self.frames]
        deep = len(self.frames) > MAX_INLINE_DEPTH
        for rec in self.recordings:  # what the bodies being recorded read of the call path
            reach = rec.reach
            reach.calls.add(id(fn))
            reach.deepest = max(reach.deepest, len(self.frames) - reach.depth)
            reach.cut = reach.cut or deep
        if fn in active or deep:
            self.truncated = self.truncated or fn in active
            reads = [self.expr_(a) for a in args]
            if obj is not None:
                reads.insert(0, self.expr_(obj))
            d = self.temp(node, fn.return_type) if fn.return_type.kind != "void" else None
            self.emit("call", d, reads, node, rule="lane", blind=("call", fn.name))
            self._write_out_args(node, fn.name, args, reads, "lane")
            return d
        ret = None
        if fn.return_type.kind == "struct" and fn.return_type.members:
            ret = self.member_values(fn.name, fn.return_type, "var", None)
        elif fn.return_type.kind not in ("void",):
            ret = [self.value(f"{fn.name}()", fn.return_type, "var")]
        frame = Frame(fn, ret, -1)
        this_vals: list[Value] | None = None
        this_lvalue: Node | None = None
        if fn.this is not None:  # the object, in the caller's frame
            this_vals, this_lvalue = self._bind_this(fn.this, obj)
        # evaluate arguments in the caller
        arg_vals: list[tuple[Symbol, Node | None]] = []
        for i, p in enumerate(fn.params):
            arg_vals.append((p, args[i] if i < len(args) else p.init))
            a = arg_vals[-1][1]
            if p.type.kind == "unknown" and a is not None:
                at = self._arg_type(a)  # in the caller: a template's parameter, instantiated
                if at.kind == "struct":
                    frame.arg_types[p] = at
        bound: list[tuple[list[Value], Node | None]] = []
        aliases: dict[Symbol, Value] = {}
        for p, a in arg_vals:
            alias = self._caller_elements(p, a) if p.direction in ("out", "inout") else None
            if alias is not None:  # resolved in the caller's frame
                aliases[p] = alias
            if p.direction == "out" or a is None:
                bound.append(([], a))
                continue
            if p.direction == "in" and p.type.kind == "scalar" and not self._param_written(fn, p):
                c = self.const_value(a)  # in the caller's copy: its own constants bound
                if c is not None:
                    frame.consts[id(p)] = c
            elif p.direction == "in" and p.type.kind == "struct" and not self._param_written(fn, p):
                # a struct built from constants (`Settings::make_default().with_radius(1)`):
                # its constant members are bound as a scalar parameter is
                names = [m.name for m in p.type.members]
                for name, c in (self._struct_consts(a, 0) or {}).items():
                    if name in names:
                        frame.consts[member_binding(id(p), names.index(name))] = c
            srcs = self._struct_values(a)
            v = self.expr_(a) if srcs is None else None
            if v is not None and v.parts is not None:
                srcs = list(v.parts)
            bound.append((srcs or ([v] if v is not None else []), a))
        exit_b = self.new_block()
        frame.exit = exit_b
        self.frames.append(frame)
        if fn.this is not None and this_vals is not None and fn.owner is not None:
            # the method reads and writes the object's own member values (the caller sees
            # the writes); a member's name in the body is that member of the object
            frame.env[fn.this] = this_vals
            members = self.m.member_symbols(fn.owner)
            for m, v in zip(fn.this.type.members, this_vals, strict=False):
                msym = members.get(m.name)
                if msym is not None:  # a struct member: its own members' values
                    nested = v.parts is not None and m.type.kind == "struct"
                    frame.env[msym] = list(v.parts or ()) if nested else [v]
        aliased: set[Symbol] = set()
        for (p, _a), (srcs, _) in zip(arg_vals, bound, strict=True):
            alias = aliases.get(p)
            if alias is not None:
                frame.env[p] = [alias]  # the callee writes the caller's elements themselves
                aliased.add(p)
                continue
            if p.direction == "out":
                for d in _flatten(self.var(p)):  # written by the callee, perhaps a part at a time
                    self.emit("undef", d, [], node, rule="uniform")
                continue
            if self.memory_copies.pop(p, None) is not None:
                self.effects += 1
            if p.direction == "in" and srcs and not self._param_written(fn, p):
                pt = self.sym_type(p)  # a template's parameter: the struct it was passed
                n_values = len(pt.members) if pt.kind == "struct" and pt.members else 1
                if len(srcs) == n_values:
                    # a parameter the callee only reads is the argument's registers (no copy)
                    frame.env[p] = list(srcs)
                    if n_values == 1 and _a is not None:
                        sel = self._selection(_a)
                        if sel is not None and sel != tuple(range(len(sel))):
                            self.bound_views.add(srcs[0])  # `f(v.yx)`: a view of the value
                            self.effects += 1
                    loads = self._memory_copy_of(_a)
                    if loads is not None:  # and reads memory where the argument would
                        self.memory_copies[p] = loads
                        self.effects += 1
                    continue
                if p.type.kind == "array" and n_values == 1:
                    # an array the caller holds as one value per element: the callee reads
                    # those elements (one by one, or all of them at a run-time index), no copy
                    if self._split_array(p) and len(srcs) == p.type.length:
                        frame.env[p] = list(srcs)
                    else:
                        whole = self.value(p.name, p.type, "temp", p)
                        whole.parts = list(srcs)
                        frame.env[p] = [whole]
                    continue
            dests = self.var(p)
            for i, d in enumerate(dests):
                if i < len(srcs):
                    self.copy_into(d, srcs[i], node)
        self._body(fn, frame)
        self.edge(self.block, exit_b)
        self.block = exit_b
        outs = [
            (p, a, list(frame.env.get(p, [])))
            for p, a in arg_vals
            if p.direction in ("out", "inout") and p not in aliased
        ]
        self.frames.pop()
        if this_lvalue is not None and this_vals and self._this_written(fn):
            # a method that writes an object that is not a variable (`items[i].update()`)
            ins = self.emit("copy", self.temp(this_lvalue), list(this_vals), node)
            self.store_to(this_lvalue, ins, node, partial=False)
        for _p, a, vals in outs:
            targets = self._struct_values(a) if a is not None else None
            if targets is None and a is not None and a.type == "identifier":
                sym = self.m.resolve(a)
                if sym is not None and sym.kind in VARIABLE_KINDS:
                    targets = self.var(sym)
            if targets is None and a is not None and a.type == "field_expression":
                mv = self.member_lvalue(a)  # a struct member of a variable (`out.geo`)
                if mv is not None and mv.parts is not None:
                    targets = list(mv.parts)
            written_whole = len(vals) > 1 or (len(vals) == 1 and vals[0].parts is not None)
            if targets is not None and len(targets) == len(vals) and written_whole:
                for d, v in zip(targets, vals, strict=True):  # member by member, element by element
                    self.copy_into(d, v, node)
                continue
            if a is not None and vals:
                # the value written back (a temporary the store renames or copies from)
                ins = self.emit("copy", self.temp(a), list(vals), node)
                self.store_to(a, ins, node, partial=False)
        if ret is None:
            return None
        if len(ret) == 1:
            self.record(node, ret[0])
            return ret[0]
        agg = self.aggregate(node, fn.return_type, list(ret))
        self.record(node, agg)
        return agg

    def _bind_this(self, this: Symbol, obj: Node | None) -> tuple[list[Value], Node | None]:
        """The values of the object a method is called on (one per member of the method's
        struct, a derived struct's leading ones for a base's method) and, when the object is
        an element or member rather than a variable, that expression (written back if the
        method writes its object). `obj` None: the caller's own object (a method calling a
        method of its struct without naming an object)."""
        t = this.type
        n = len(t.members) if t.kind == "struct" else 0
        vals: list[Value] | None = None
        lvalue: Node | None = None
        if obj is None:
            cur = self.frames[-1].fn if self.frames else None
            if cur is not None and cur.this is not None:
                vals = self.var(cur.this)
        else:
            vals = self._struct_values(obj)
            if vals is None and obj.type == "field_expression":
                mv = self.member_lvalue(obj)  # a struct member of a variable: its own values
                if mv is not None and mv.parts is not None:
                    vals = list(mv.parts)
            if vals is None:
                v = self.expr_(obj)
                if v is not None:
                    vals = list(v.parts) if v.parts is not None else [v]
                if obj.type in ("field_expression", "subscript_expression"):
                    lvalue = obj
        if n == 0:
            return [], None
        if vals is None or len(vals) < n:
            return self.member_values("this", t, "var", this), None
        return list(vals[:n]), lvalue

    def _memory_copy_of(self, arg: Node | None) -> dict[str, Instr] | None:
        """The member loads of the memory copy (`memory_copies`) an argument names, if any."""
        if arg is None or arg.type != "identifier" or not self.memory_copies:
            return None
        sym = self.m.resolve(arg)
        return self.memory_copies.get(sym) if sym is not None else None

    def _this_written(self, fn: Function) -> bool:
        """Does a method write its object (a member, `this`, or by calling a method of its
        struct that does)?"""
        this = fn.this
        if this is None or fn.body is None or fn.owner is None:
            return False
        key = (id(fn), this)
        found = self._written.get(key)
        if found is not None:
            return found
        self._written[key] = False  # recursion
        _whole, in_part = self._written_in(fn.body)
        written = this in in_part or any(m in in_part for m in self.m.member_symbols(fn.owner).values())
        if not written:
            for name in fn.calls:
                method = name[1:] if name.startswith(".") else name
                if method in self.m.method_names:
                    for callee in self.m.methods_of(fn.owner, method):
                        if self._this_written(callee):
                            written = True
        self._written[key] = written
        return written

    def _caller_elements(self, p: Symbol, arg: Node | None) -> Value | None:
        """For an out/inout array parameter the callee indexes at run time, passed an array the
        caller holds as one value per element: those elements, as one value (`Value.parts`)."""
        if arg is None or arg.type != "identifier" or p.type.kind != "array" or self._split_array(p):
            return None
        sym = self.m.resolve(arg)
        if sym is None or sym.kind not in VARIABLE_KINDS:
            return None
        targets = self.var(sym)
        if len(targets) < 2 or len(targets) != p.type.length:
            return None
        whole = self.value(p.name, p.type, "temp", p)
        whole.parts = list(targets)
        return whole

    def _struct_consts(self, node: Node | None, depth: int) -> dict[str, int | float | bool] | None:
        """The members of a struct-valued expression that are compile-time constants, in this
        inlined copy: a struct parameter's bound members, a local set once from such an
        expression, or a call of a static method or of a method on such a value whose body
        only declares a struct, sets its members and returns it (`S res; res.k = 1; return
        res;`, `S res = this; res.k = v; return res;`), folded with the call's constant
        arguments. None when it is none of these."""
        node = unparen(node) if node is not None else None
        if node is None or depth > _STRUCT_DEPTH:
            return None
        if node.type == "identifier":
            sym = self.m.resolve(node)
            if sym is None:
                return None
            if sym.kind == "param" and self.frames and sym.type.kind == "struct":
                names = [m.name for m in sym.type.members]
                consts = self.frames[-1].consts
                out: dict[str, int | float | bool] = {}
                for i, name in enumerate(names):
                    key = member_binding(id(sym), i)
                    if key in consts:
                        out[name] = consts[key]
                return out
            once = sym.kind == "local" and ("const" in sym.qualifiers or self.m.never_written(sym))
            if once and sym.init is not None and sym.init.type != "initializer_list":
                return self._struct_consts(sym.init, depth + 1)
            return None
        if node.type != "call_expression":
            return None
        fn = self.m.callee(node)
        if fn is None or fn.body is None:
            return None
        args_node = node.child_by_field_id(F_ARGUMENTS)
        args = [c for c in args_node.named_children if c.type != "comment"] if args_node else []
        this: dict[str, int | float | bool] | None = None
        callee = node.child_by_field_id(F_FUNCTION)
        if fn.this is not None:
            if callee is None or callee.type != "field_expression":
                return None
            this = self._struct_consts(callee.child_by_field_id(F_ARGUMENT), depth + 1)
            if this is None:
                return None
        bindings: dict[int, int | float | bool] = {}
        for i, p in enumerate(fn.params):
            a = args[i] if i < len(args) else p.init
            if p.type.kind == "scalar" and a is not None:
                c = self.const_value(a)
                if c is not None:
                    bindings[id(p)] = c
        return self._returned_consts(fn, this, bindings)

    def _returned_consts(
        self,
        fn: Function,
        this: dict[str, int | float | bool] | None,
        bindings: dict[int, int | float | bool],
    ) -> dict[str, int | float | bool] | None:
        """`_struct_consts` of what `fn` returns, when its body only declares a struct, sets its
        members and returns it (`this`: the object's constant members; `bindings`: the
        constant scalar arguments)."""
        body = fn.body
        assert body is not None
        tree = self.m.tree
        local: Node | None = None
        members: dict[str, int | float | bool] = {}
        for st in body.named_children:
            if st.type == "comment":
                continue
            if st.type == "declaration" and local is None:
                decl = st.child_by_field_id(F_DECLARATOR)
                if decl is None:
                    return None
                if decl.type == "init_declarator":
                    value = decl.child_by_field_id(F_VALUE)
                    if value is None or value.type != "this" or this is None:
                        return None
                    members = dict(this)
                    decl = decl.child_by_field_id(F_DECLARATOR)
                if decl is None or decl.type != "identifier":
                    return None
                local = decl
                continue
            if st.type == "expression_statement" and local is not None:
                e = st.named_children[0] if st.named_children else None
                if e is None or e.type != "assignment_expression":
                    return None
                left = e.child_by_field_id(F_LEFT)
                if tree.node_text(e.child_by_field_id(F_OPERATOR) or e) != "=" or left is None:
                    return None
                target = left.child_by_field_id(F_ARGUMENT) if left.type == "field_expression" else None
                field = left.child_by_field_id(F_FIELD) if left.type == "field_expression" else None
                if target is None or field is None or tree.node_text(target) != tree.node_text(local):
                    return None
                c = self.m.const_value_with(e.child_by_field_id(F_RIGHT), bindings)
                name = tree.node_text(field)
                if c is None:
                    members.pop(name, None)
                else:
                    members[name] = c
                continue
            if st.type == "return_statement" and local is not None:
                r = st.named_children[0] if st.named_children else None
                ok = r is not None and r.type == "identifier" and tree.node_text(r) == tree.node_text(local)
                return members if ok else None
            return None
        return None

    def _param_written(self, fn: Function, p: Symbol) -> bool:
        """Does `fn`'s body write `p` or a part of it (a member, an element, a swizzle)?"""
        key = (id(fn), p)
        found = self._written.get(key)
        if found is None:
            found = self._written[key] = fn.body is not None and self._writes(fn.body, p, parts=True)
        return found

    # -- inlined bodies, lowered once and replayed ------------------------------------------

    def _body(self, fn: Function, frame: Frame) -> None:
        """Lower an inlined function's body. The first lowering is noted (`Recording`); a later
        call of the function with arguments bound in the same shape (`_template_key`), on a call
        path that cuts the same calls (`Reach`), replays it as a `Template` (the same
        instructions, values, blocks and records, in the same order) instead of walking the
        syntax tree again."""
        slots = self._slots(fn, frame) if self.replay else None
        if slots is None:
            self.stmt(fn.body)
            return
        key = self._template_key(fn, slots)
        found = self.templates.get(key, UNSET)
        reuse = self.reuse
        if reuse is not None and found is UNSET:
            pkey = self.portable_keys[key] = reuse.portable_key(fn, slots, key)
            taken = reuse.take(self, self.m, pkey)
            if taken is not None and self._fits(taken):
                self.templates[key] = taken  # as the recording a fresh lowering makes here
                self._replay_fitting(taken, slots, frame.exit)
                self.reused += 1
                return
        share = self.share
        if share is not None and found is UNSET:
            skey = share.key(self, fn, slots, key, self.bound_views, self.member_load)
            if skey is not None:
                self.share_pending[key] = (skey, fn)
                taken = share.take(self, self.m, skey, fn)
                if taken is not None and self._fits(taken):
                    self.templates[key] = taken  # as the recording this lowering makes here
                    self._replay_fitting(taken, slots, frame.exit)
                    self.shared += 1
                    return
        if isinstance(found, Recording):
            found = self.templates[key] = found.template(self)
        if isinstance(found, Template) and self._fits(found):
            self._replay_fitting(found, slots, frame.exit)
            self.replayed += 1
            if share is not None and key in self.effectful:
                self.effects += 1  # what its recording changed, this replay does not
            return
        if found is not UNSET:
            self.stmt(fn.body)
            return
        rec = Recording(self, slots, frame.exit, len(self.frames))
        self.recordings.append(rec)
        effects = self.effects
        try:
            self.stmt(fn.body)
        finally:
            self.recordings.pop()
        self.templates[key] = rec if rec.close(self) else None
        if share is not None and self.effects != effects:
            self.effectful.add(key)  # it changed what later lowering reads: not shared
            self.share_pending.pop(key, None)

    def _fits(self, tpl: Template) -> bool:
        """May `tpl` be replayed here (the instruction cap, and a call path that cuts the same
        calls)?"""
        if self.n_instrs + len(tpl.instrs) > MAX_INSTRUCTIONS or self.truncated:
            return False
        path = {id(f.fn) for f in self.frames[:-1]}
        return tpl.reach.fits(path, len(self.frames), MAX_INLINE_DEPTH)

    def _replay_fitting(self, tpl: Template, slots: list[Value], exit_block: int) -> None:
        reach = tpl.reach
        for rec in self.recordings:  # the replayed body's calls are the recorded body's
            outer = rec.reach
            outer.calls |= reach.calls
            outer.deepest = max(outer.deepest, len(self.frames) - outer.depth + reach.deepest)
            outer.cut = outer.cut or reach.cut
        self._replay(tpl, slots, exit_block)

    def _slots(self, fn: Function, frame: Frame) -> list[Value] | None:
        """The values a body reads from its call site: the parameters' (and their parts) and the
        return values. None when one is also a global's or a preload (a replay could not tell
        which of the two a use stands for)."""
        out: list[Value] = []
        params = fn.params if fn.this is None else [fn.this, *fn.params]
        for p in params:
            with_parts(frame.env.get(p, ()), out)
        with_parts(frame.ret or (), out)
        if self.globals_env or self.preloads:
            fixed = self._fixed_values()
            if any(id(v) in fixed for v in out):
                return None
        return out

    def _fixed_values(self) -> set[int]:
        """Values that are the same objects at every call site: globals' and preloads."""
        fixed = {id(v) for v in self.preloads.values()}
        for vals in self.globals_env.values():
            for v in with_parts(vals, []):
                fixed.add(id(v))
        return fixed

    def _template_key(self, fn: Function, slots: list[Value]) -> tuple[Any, ...]:
        first: dict[int, int] = {}
        shape = []
        for v in slots:
            alias = first.setdefault(id(v), len(first))
            shape.append((alias, v.kind, v.reg_class, v.width, id(v.type), len(v.parts or ())))
        # `_define` renames the instruction that computed its source when it is the block's last:
        # which slot, if any, the call site's last instruction defines
        blk = self.blocks[self.block]
        last = first.get(id(blk[-1].dest), -1) if blk else -1
        consts = self.frames[-1].consts  # the callee's frame: a copy per constant argument
        bound = tuple(sorted((k, type(v).__name__, v) for k, v in consts.items())) if consts else ()
        # a parameter reading memory where it is used (`memory_copies`) lowers differently
        copies = tuple(p in self.memory_copies for p in fn.params) if self.memory_copies else ()
        # a template's parameter instantiated with a struct: its methods are that struct's
        typed = tuple([t.name for t in self.frames[-1].arg_types.values()])
        return (id(fn), tuple(shape), last, bound, copies, typed)

    def _replay(self, tpl: Template, slots: list[Value], exit_block: int) -> None:
        values = self.values
        base = len(values)
        lookup = [
            Value(base + i, name, width, kind, t, sym, reg_class)
            for i, (name, width, kind, t, sym, reg_class, _parts) in enumerate(tpl.values)
        ]
        values.extend(lookup)
        lookup.extend(slots)
        lookup.extend(tpl.fixed)
        for v, spec in zip(values[base:], tpl.values, strict=True):
            if spec[6] is not None:
                v.parts = [lookup[r] for r in spec[6]]
        refs: list[Value | None] = list(lookup)
        refs.append(None)  # reference -1: no value
        blocks = self.blocks
        first = len(blocks)
        blocks.extend([] for _ in range(tpl.n_blocks))
        bmap = [*range(first, first + tpl.n_blocks), self.block, exit_block]
        made: list[Instr] = []
        get = lookup.__getitem__
        deadline = self.deadline
        for code, op, dest, reads, span, rule, detail in tpl.instrs:
            deadline.tick()
            b = bmap[code]
            ins = Instr(op, refs[dest], list(map(get, reads)), span, rule, dict(detail) if detail else {}, b)
            blocks[b].append(ins)
            made.append(ins)
        self.edges.extend((bmap[x], bmap[y]) for x, y in tpl.edges)
        for span, kind, header, loop_blocks, attrs, trip in tpl.loops:
            self.loops.append(
                LoopRecord(span, kind, bmap[header], frozenset(bmap[x] for x in loop_blocks), attrs, trip)
            )
        expr = self.expr
        log = self.record_log if self.recordings else None
        for span, at, r in tpl.records:
            item: Instr | Value | None = made[at] if at >= 0 else refs[r]
            found = expr.get(span)
            if found is None:
                expr[span] = [item]
            else:
                found.append(item)
            if log is not None:
                log.append((span, item))
        self.n_instrs += len(made)
        self.block = bmap[tpl.end_block]
        if tpl.views:  # noted again for a body first lowered in an earlier version of the unit
            self.view_spans.update(tpl.views)
            if self.recordings:
                self.view_log.extend(tpl.views)
