"""Sums of products with a common factor, factored as the compiler factors them.

NIR's algebraic rule `~fadd(fmul(a, b), fmul(a, c)) -> fmul(a, fadd(b, c))` (inexact float
additions, any use count, `a` the same value in both products) rewrites a sum of two products
of one factor into the product of their sum, again and again down a chain of sums and into the
sum it made. When the products were computed early and kept for other uses (a texel scaled by
the exposure in its load helper, `c *= Exposure()`, fed to min/max and to a weighted sum
`lobe * b + lobe * d + ...`), the sum then reads the unscaled values, which stay live to it
beside the scaled ones (FidelityFX RCAS; regtruth: one 5-tap filter, presched_vgprs 32 scaled,
26 without the scaling).

`factor_sums` rewrites the lowered graph so: an addition whose operands are (through copies,
component picks and component writes) products of a factor the compiler sees as one value (the
same value, or values computed alike by the same source, as the inlined copies of
one helper: `passes.common_values` leaves values written more than once alone) reads the
products' other operands and the factor instead of the products. A product written into the
variable it scales (`c *= e`, `c.rgb *= e`) becomes a value of its own, so that the variable
keeps the unscaled value for the sum (the compiler's SSA form has both).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import networkx as nx

from hlsllint.analysis.ir import Instr, LoopRecord, Value, common_dominator, dominates, dominator_tree
from hlsllint.deadline import current
from hlsllint.semantic import types as T

_SPAN_FREE = frozenset({"load", "sample", "gather"})
MAX_KEY_DEPTH = 40
"""How deep `_Factoring.key` follows operands: a value further from the factor is itself."""

# A term of a sum, one component: ("leaf", value, component) read as it is; or ("mul", factors,
# inner): `factors` the factor's reads outermost first, each (key, value, component), `inner`
# the term they scale. An operand of a product: ("k", number) or ("v", value, component).
Term = tuple[Any, ...]
Factor = tuple[object, Value, int, Instr]
"""A factor's key, and where it is read: (key, value, component, the instruction reading it)."""


def factor_sums(
    g: nx.DiGraph,
    instrs: list[Instr],
    dropped: frozenset[Instr],
    loops: list[LoopRecord],
    new_value: Callable[[str, T.Type], Value],
    cache: dict[str, Any],
) -> int:
    """Rewrite the additions of products with a common factor (module docstring); returns how
    many were rewritten."""
    return _Factoring(g, instrs, dropped, loops, new_value, cache).run()


class _Factoring:
    def __init__(
        self,
        g: nx.DiGraph,
        instrs: list[Instr],
        dropped: frozenset[Instr],
        loops: list[LoopRecord],
        new_value: Callable[[str, T.Type], Value],
        cache: dict[str, Any],
    ) -> None:
        self.g = g
        self.new_value = new_value
        self.cache = cache
        self.loops = loops
        self.live = [i for i in instrs if i not in dropped]
        self.defs: dict[Value, list[Instr]] = {}
        self.readers: dict[Value, list[Instr]] = {}
        self.where: dict[Instr, int] = {}  # instruction -> its place in its block
        node_data: dict[int, dict[str, Any]] = g._node
        for b in g.nodes:
            block: list[Instr] = node_data[b]["instrs"]  # typed: mypyc (DEVELOPERS.md)
            for i, ins in enumerate(block):
                self.where[ins] = i
        for ins in self.live:
            if ins.dest is not None:
                self.defs.setdefault(ins.dest, []).append(ins)
            for r in ins.reads:
                self.readers.setdefault(r, []).append(ins)
        self.keys: dict[tuple[int, int], object] = {}
        self.busy: set[tuple[int, int]] = set()
        self.tops: dict[frozenset[int], int | None] = {}
        """The nearest common dominator of a set of definitions' blocks."""
        self.scaled: dict[Instr, list[list[Factor]]] = {}
        """A rewritten addition -> per component, the factors its result is the product of."""
        self.splits: dict[Value, Instr] = {}

    # -- what reaches a read -------------------------------------------------------------
    def reaching(self, v: Value, reader: Instr) -> Instr | None:
        """The definition of `v` that `reader` reads: its only one, else the last before the
        reader in the reader's block, else outside loops the last of the nearest block
        dominating the reader that writes `v`, when every other write of `v` comes before it
        (blocks dominating it) or after the reader (blocks it dominates). None: several may
        reach the reader."""
        ds = self.defs.get(v)
        if not ds:
            return None
        if len(ds) == 1:
            return ds[0]
        at = self.where.get(reader, -1)
        best: Instr | None = None
        for d in ds:
            if (
                d.block == reader.block
                and self.where.get(d, -1) < at
                and (best is None or self.where[d] > self.where[best])
            ):
                best = d
        if best is not None:
            return best
        if self._in_loop(reader.block):
            return None
        idom = dominator_tree(self.g, 0, self.cache)
        blocks = {d.block for d in ds}
        b = reader.block
        for _ in range(100000):
            up = idom.get(b)
            if up is None or up == b:
                return None
            b = up
            if b in blocks:
                break
        else:
            return None
        if self._in_loop(b):
            return None
        cand = max((d for d in ds if d.block == b), key=lambda d: self.where.get(d, -1))
        for d in ds:  # every other write comes before it, or after the reader
            if (
                d.block != b
                and not dominates(idom, d.block, b)
                and not dominates(idom, reader.block, d.block)
            ):
                return None
        return cand

    def _in_loop(self, b: int) -> bool:
        return any(b in lp.blocks for lp in self.loops)

    # -- values the compiler sees as one -------------------------------------------------
    def key(self, v: Value, reader: Instr, depth: int = 0) -> object:
        """A key equal for two values the compiler computes alike (value numbering after SSA):
        the same value, or values defined by the same source operations of values with equal
        keys (the inlined copies of one helper), a value written more than once by the same
        definitions under the same branch conditions."""
        if depth > MAX_KEY_DEPTH:
            return ("id", id(v))
        d = self.reaching(v, reader)
        ds = self.defs.get(v, [])
        if d is None and len(ds) > 1:
            memo = (id(v), -1)
            if memo in self.keys:
                return self.keys[memo]
            if memo in self.busy:
                return ("id", id(v))
            self.busy.add(memo)
            conds = [self.conditions(x, ds, depth + 1) for x in ds]
            k: object = ("phi", tuple(self.def_key(x, depth + 1) for x in ds), tuple(conds))
            self.busy.discard(memo)
            self.keys[memo] = k
            return k
        if d is None:
            return ("id", id(v))
        return self.def_key(d, depth + 1)

    def conditions(self, d: Instr, ds: list[Instr], depth: int) -> tuple[object, ...]:
        """The branches that decide whether `d` (one of the definitions `ds` of a value) is the
        one read: those ending the blocks from its block's dominator up to the definitions'
        common dominator, that one included."""
        idom = dominator_tree(self.g, 0, self.cache)
        blocks = frozenset(x.block for x in ds)
        top = self.tops.get(blocks, -1)
        if top == -1:  # asked once per definition of the value: made once
            top = self.tops[blocks] = common_dominator(idom, set(blocks))
        out: list[object] = []
        b = d.block
        for _ in range(64):
            if b == top or top is None:
                break
            up = idom.get(b)
            if up is None or up == b:
                break
            b = up
            block: list[Instr] = self.g._node[b]["instrs"]
            if block and block[-1].op == "branch":
                last = block[-1]
                out.append(tuple(self.key(r, last, depth) for r in last.reads))
        return tuple(out)

    def def_key(self, d: Instr, depth: int) -> object:
        memo = (id(d), 0)
        found = self.keys.get(memo)
        if found is not None:
            return found
        if memo in self.busy:
            return ("id", id(d))
        self.busy.add(memo)
        op = d.op
        detail = d.detail
        k: object
        if op == "copy" and len(d.reads) == 1 and d.dest is not None and d.reads[0].width == d.dest.width:
            sels = detail.get("sels")
            inner = self.key(d.reads[0], d, depth)
            k = inner if sels is None or _identity(sels, d.dest.width) else ("pick", sels, inner)
        elif op == "descriptor" and d.dest is not None:
            k = ("desc", d.dest.name, d.dest.width)
        elif op in ("alu", "intrinsic", "copy", "cbload") or op in _SPAN_FREE:
            if op in _SPAN_FREE:
                res = d.reads[0].type.resource if d.reads else None
                if res is None or res.writable:
                    k = ("id", id(d))
                    self.busy.discard(memo)
                    self.keys[memo] = k
                    return k
                where: object = detail.get("method")
            elif op == "cbload" and (detail.get("sig") or detail.get("cb_member")) is not None:
                where = detail.get("sig") or detail.get("cb_member")
            else:
                where = d.span
            k = (
                op,
                where,
                detail.get("opr"),
                detail.get("copr"),
                detail.get("name"),
                detail.get("ops"),
                detail.get("set"),
                detail.get("member"),
                tuple(self.key(r, d, depth) for r in d.reads),
            )
        else:
            k = ("id", id(d))
        self.busy.discard(memo)
        self.keys[memo] = k
        return k

    # -- terms ---------------------------------------------------------------------------
    def term(self, v: Value, comp: int, reader: Instr, depth: int = 0) -> Term:
        """Component `comp` of `v` as `reader` reads it: a product (through copies, component
        picks and component writes) or a value read as it is."""
        leaf: Term = ("leaf", v, comp)
        cur, c, at = v, comp, reader
        through: Value | None = None  # a component write passed through (`c.rgb *= e`)
        for _ in range(16):
            d = self.reaching(cur, at)
            if d is None:
                return leaf
            if d in self.scaled:
                facs = self.scaled[d][c] if c < len(self.scaled[d]) else None
                if not facs:
                    return leaf
                return ("mul", facs, leaf)
            op = d.op
            if op == "copy" and len(d.reads) == 1:
                sels = d.detail.get("sels")
                nc = _pick(sels[0] if sels else None, c)
                if nc is None:
                    return leaf
                cur, c, at = d.reads[0], nc, d
                continue
            if op == "alu" and "set" in d.detail and len(d.reads) == 2 and d.dest is not None:
                written = d.detail["set"]
                if c in written:
                    through = d.dest
                    cur, c, at = d.reads[1], list(written).index(c), d
                    continue
                cur, at = d.reads[0], d
                continue
            if op != "alu" or (d.detail.get("opr") != "*" and d.detail.get("copr") != "*"):
                return leaf
            ops = d.detail.get("ops")
            if d.dest is None or not _is_float(d.dest.type) or ops is None or len(ops) != 2:
                return leaf
            operands: list[Term] = []
            i = 0
            for o in ops:
                if o[0] == "k":
                    nums = o[1]
                    operands.append(("k", nums[0] if len(nums) == 1 else nums[c] if c < len(nums) else None))
                    continue
                if i >= len(d.reads):
                    return leaf
                r = d.reads[i]
                i += 1
                rc = _pick(o, c)
                if rc is None or self._folded(r, rc, d):
                    return leaf
                rd = self.defs.get(r, [])
                # the variable the product is written back into (`c *= e`): its own value
                split = len(rd) != 1 and (r is d.dest or r is through)
                if split and not self._splittable(r, d, through):
                    return leaf
                operands.append(("v", r, rc, d, split))
            if len(operands) != 2 or i != len(d.reads):
                return leaf
            return ("prod", operands, leaf, depth)
        return leaf

    def _folded(self, v: Value, comp: int, reader: Instr) -> bool:
        """Whether component `comp` of `v` as `reader` reads it is no run-time factor: a
        compile-time constant of a constructor (`float4(e.xxx, 1)`: `x * 1` is `x`), or a
        select (`x * (c ? 1 : 0)`, which the compiler makes a select of `x`)."""
        cur, c, at = v, comp, reader
        for _ in range(16):
            d = self.reaching(cur, at)
            if d is None:
                return False
            if d.op == "copy" and len(d.reads) == 1:
                sels = d.detail.get("sels")
                nc = _pick(sels[0] if sels else None, c)
                if nc is None:
                    return False
                cur, c, at = d.reads[0], nc, d
                continue
            if d.op != "alu":
                return False
            if d.detail.get("select"):
                return True
            ops = d.detail.get("ops")
            if "name" not in d.detail or "opr" in d.detail or ops is None:
                return False
            base = 0
            for o in ops:
                n = len(o[1]) if o[0] == "k" else (len(o[1]) if o[1] is not None else int(o[3]))
                if base <= c < base + n:
                    return bool(o[0] == "k")
                base += n
            return False
        return False

    def _splittable(self, v: Value, d: Instr, through: Value | None) -> bool:
        """Whether the variable `v`, written twice, its second write (`w`: the product `d`, or
        the component write of it) reading it, can keep its first value while the second write
        becomes a value of its own: every read of `v` is in the second write's block, none
        in a loop that the first write is outside of."""
        ds = self.defs.get(v, [])
        if len(ds) != 2:
            return False
        w = next((x for x in ds if v in x.reads and x.block == d.block), None)
        if w is None or (w is not d and through is not v):
            return False
        first = ds[0] if ds[1] is w else ds[1]
        if first is w or (first.block == w.block and self.where.get(first, -1) > self.where.get(w, -1)):
            return False
        for r in self.readers.get(v, []):
            if r.block != w.block:
                return False
        # in a loop, a read before the second write may see the last iteration's
        return first.block == w.block or not any(w.block in lp.blocks for lp in self.loops)

    def factor(self, p: Term, q: Term, depth: int) -> tuple[list[Factor], list[Term]] | None:
        """The factors `p + q` is the product of, and the terms left to add (None: no common
        factor)."""
        pf = self._factors(p)
        qf = self._factors(q)
        for kp, fp, rest_p in pf:
            for kq, _fq, rest_q in qf:
                if kp != kq:
                    continue
                inner = self._inner(rest_p, rest_q, depth + 1)
                facs = [] if fp is None else [fp]
                if inner is None:
                    return facs, [rest_p, rest_q]
                return facs + inner[0], inner[1]
        return None

    def _inner(self, p: Term, q: Term, depth: int) -> tuple[list[Factor], list[Term]] | None:
        if depth > 8:
            return None
        return self.factor(self._expand(p), self._expand(q), depth)

    def _expand(self, t: Term) -> Term:
        if t[0] == "v":
            return self.term(t[1], t[2], t[3])
        return t

    def _factors(self, t: Term) -> list[tuple[object, Factor | None, Term]]:
        """(key, the factor's read or None for a constant, what it scales) per factor of `t`."""
        out: list[tuple[object, Factor | None, Term]] = []
        if t[0] == "mul":
            facs, leaf = t[1], t[2]
            rest: Term = ("mul", facs[1:], leaf) if len(facs) > 1 else leaf
            out.append((facs[0][0], facs[0], rest))
        elif t[0] == "prod":
            a, b = t[1]
            for x, y in ((a, b), (b, a)):
                if x[0] == "k":
                    # a constant factor is left alone: the operands are read at the sum either
                    # way, and the products of an inlined helper stay its instructions
                    continue
                else:
                    k = ("v", self.key(x[1], x[3]), x[2])
                    out.append((k, (k, x[1], x[2], x[3]), y))
        return out

    # -- the rewrite ---------------------------------------------------------------------
    def run(self) -> int:
        deadline = current()
        done = 0
        for ins in self.live:
            deadline.tick()
            if ins.op != "alu" or ins.detail.get("opr") != "+" or ins.dest is None or len(ins.reads) != 2:
                continue
            ops = ins.detail.get("ops")
            if ops is None or len(ops) != 2 or ops[0][0] != "v" or ops[1][0] != "v":
                continue
            if not _is_float(ins.dest.type) or ins.dest.parts is not None:
                continue
            if self._rewrite(ins, ops):
                done += 1
        return done

    def _rewrite(self, ins: Instr, ops: tuple[Any, ...]) -> bool:
        d = ins.dest
        assert d is not None
        per: list[tuple[list[Factor], list[Term]]] = []
        for c in range(d.width):
            terms: list[Term] = []
            for o, r in zip(ops, ins.reads, strict=True):
                rc = _pick(o, c)
                if rc is None:
                    return False
                terms.append(self.term(r, rc, ins))
            found = self.factor(terms[0], terms[1], 0)
            if found is None or (not found[0] and all(t[0] == "leaf" for t in found[1])):
                return False
            per.append(found)
        # one shape for every component: the same values read, component by component
        shape = [(len(f), len(t)) for f, t in per]
        if any(s != shape[0] for s in shape):
            return False
        reads: list[tuple[Value, list[int], Instr | None, bool]] = []
        n_f, n_t = shape[0]
        for j in range(n_t):
            col = [per[c][1][j] for c in range(d.width)]
            got = self._column([self._leaf(t) for t in col])
            if got is None:
                return False
            reads.append(got)
        for j in range(n_f):
            got = self._column([(*per[c][0][j][1:4], False) for c in range(d.width)])
            if got is None:
                return False
            reads.append(got)
        # a variable written more than once is read here as where it was read before
        for v, _comps, at, split in reads:
            if at is not None and not split and len(self.defs.get(v, [])) > 1:
                was = self.reaching(v, at)
                if was is None or was is not self.reaching(v, ins):
                    return False
        # the variables written back that now keep their unscaled value
        for v, _comps, at, split in reads:
            if at is not None and split:
                self._split(v, at)
        new_ops: list[tuple[object, ...]] = []
        for v, comps, _at, _split in reads:
            scalar = v.type.scalar if v.type.kind in ("scalar", "vector") else "float"
            if len(set(comps)) == 1 and d.width > 1:
                new_ops.append(("v", (comps[0],), scalar, 1, True))
            else:
                new_ops.append(("v", tuple(comps), scalar, len(comps), True))
        ins.reads = [x[0] for x in reads]
        detail = {k: x for k, x in ins.detail.items() if k != "merge"}
        detail["ops"] = tuple(new_ops)
        detail["factored"] = True
        ins.detail = detail
        for x in reads:
            self.readers.setdefault(x[0], []).append(ins)
        self.scaled[ins] = [[(f[0], f[1], f[2], ins) for f in per[c][0]] for c in range(d.width)]
        return True

    def _leaf(self, t: Term) -> tuple[Value, int, Instr | None, bool] | None:
        """What a term left to add reads: (value, component, the instruction that read it
        before, whether it is a variable written back scaled)."""
        if t[0] == "leaf":
            return t[1], t[2], None, False
        if t[0] == "v":
            return t[1], t[2], t[3], bool(t[4])
        if t[0] in ("mul", "prod"):
            leaf = t[2]
            return leaf[1], leaf[2], None, False
        return None

    def _column(
        self, col: list[tuple[Value, int, Instr | None, bool] | None]
    ) -> tuple[Value, list[int], Instr | None, bool] | None:
        first = col[0]
        if first is None:
            return None
        comps: list[int] = []
        for x in col:
            if x is None or x[0] is not first[0]:
                return None
            comps.append(x[1])
        return first[0], comps, first[2], first[3]

    def _split(self, v: Value, at: Instr) -> None:
        """The second write of `v` (after `at`, the product reading it, or `at` itself)
        becomes a value of its own; the reads after it read that."""
        if v in self.splits:
            return
        ds = self.defs.get(v, [])
        w = next((x for x in ds if v in x.reads and x.block == at.block), None)
        if w is None:
            return
        nv = self.new_value(v.name, v.type)
        w.dest = nv
        self.splits[v] = w
        pos = self.where[w]
        moved: list[Instr] = []
        for r in self.readers.get(v, []):
            if r.block == w.block and self.where.get(r, -1) > pos:
                r.reads = [nv if x is v else x for x in r.reads]
                moved.append(r)
        self.defs[v] = [x for x in ds if x is not w]
        self.defs[nv] = [w]
        self.readers[v] = [r for r in self.readers.get(v, []) if r not in moved]
        self.readers[nv] = moved


def _pick(o: Any, c: int) -> int | None:
    """The component of an operand's value read for component `c` of the result (`o`: an
    `ops`/`sels` operand, None for the value itself)."""
    if o is None:
        return c
    if o[0] != "v":
        return None
    sel = o[1]
    if sel is None:
        return c if o[3] == 0 or c < o[3] else None
    if len(sel) == 1:
        return int(sel[0])
    return int(sel[c]) if c < len(sel) else None


def _identity(sels: Any, width: int) -> bool:
    if len(sels) != 1 or sels[0] is None:
        return len(sels) == 1
    o = sels[0]
    return o[1] is None or tuple(o[1]) == tuple(range(width))


def _is_float(t: T.Type) -> bool:
    return t.kind in ("scalar", "vector") and t.is_float
