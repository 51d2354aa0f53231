"""Sums an unrolled loop defers to a constant term (`deferred_sum_holds`, queried by
`liveness.register_demand`): a weight set to a literal, scaled (`w *= ...`) in every iteration
but those a branch on the counters alone skips (the centre tap of a 5x5 blur), and added to a
sum (`sum += w`), puts a constant into the sum's chain of additions. The compiler moves
constants to the start of such a chain (NIR's reassociation, to fold them), so the chain is
rebuilt where the constant is added: every earlier iteration's weight is held until that
iteration (regtruth: a 5x5 blur whose centre weight is 1.0, presched_vgprs 33; 25 when the
centre weight is computed too)."""

from __future__ import annotations

from hlsllint.analysis.ir import CFG, Dominance, Instr, LoopRecord, Value, dominance
from hlsllint.analysis.repeated_nests import Nest, nests_of
from hlsllint.analysis.unrolled import _counter_branches
from hlsllint.analysis.value_classes import DefUse
from hlsllint.deadline import current

_COMPARE = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "&&": lambda a, b: bool(a) and bool(b),
    "||": lambda a, b: bool(a) or bool(b),
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
}


def deferred_sum_holds(cfg: CFG, du: DefUse) -> list[tuple[frozenset[int], int]]:
    """Per unrolled loop nest, its blocks and the VGPRs held by the weights of the iterations
    before the first one whose weight is a constant, beyond the one the body counts.

    The sum is `acc += w` (floating point, one component) in a block every iteration runs; `w`
    is set to a literal in the nest before a branch whose condition the counters alone decide
    (`unrolled._counter_branches`), and changed only in one arm of it, each time by a product
    with itself (`w *= f`: the literal is not 0). The iterations that do not take that arm add
    the literal. With the first of them the k-th, the weights of the k before it are held
    until it: k - 1 beside the one the body counts."""
    found: list[tuple[frozenset[int], int]] = []
    nests = nests_of(cfg)
    if not nests:
        return found
    kept = cfg.kept_instrs()
    deadline = current()
    dom: Dominance | None = None
    for nest in nests:
        chain = sorted(nest.members, key=lambda lp: nest.depths[lp.span])
        if len({nest.depths[lp.span] for lp in chain}) != len(chain):
            continue
        decided = _counter_branches(cfg, du, nest.blocks)
        if not decided:
            continue
        if dom is None:
            dom = dominance(cfg.graph, cfg.entry, cfg.cache)
        most = 0
        for b in sorted(nest.blocks):
            for ins in kept.get(b, []):
                deadline.tick()
                k = _deferred(cfg, du, dom, nest, chain, decided, ins)
                if k is not None and k >= 2:
                    most += k - 1
        if most:
            found.append((nest.blocks, most))
    return found


def _deferred(
    cfg: CFG,
    du: DefUse,
    dom: Dominance,
    nest: Nest,
    chain: list[LoopRecord],
    decided: set[int],
    ins: Instr,
) -> int | None:
    """For a sum `acc += w` of the shape `deferred_sum_holds` follows, the index of the first
    iteration that adds the literal; None otherwise."""
    total = ins.dest
    if ins.op != "alu" or ins.detail.get("copr") != "+" or len(ins.reads) != 2 or total is None:
        return None
    if total.width != 1 or total.type is None or not total.type.is_float:
        return None
    w, acc = ins.reads
    if w is acc or w.width != 1 or w.type is None or not w.type.is_float:
        return None
    if not _only_summed(acc, du, nest):
        return None
    defs = [d for d in du.defs.get(w, []) if d.block in nest.blocks]
    literal = [d for d in defs if d.op == "copy" and not d.reads]
    if len(literal) != 1:
        return None
    lit = literal[0]
    if not dom.dominates(lit.block, ins.block):
        return None
    if lit.block == ins.block:
        return None  # no branch between
    here = cfg.kept_instrs().get(ins.block, [])
    at = next(i for i, x in enumerate(here) if x is ins)
    if any(x.dest is w for x in here[:at]):
        return None  # set again before the sum in every iteration
    scaled = [
        d for d in defs if d is not lit and d.block != ins.block and not dom.dominates(ins.block, d.block)
    ]
    if not scaled:
        return None
    for d in scaled:
        if d.op != "alu" or d.detail.get("copr") != "*" or w not in d.reads:
            return None
    # the counter-decided branch with every scaling in one arm
    for h in decided:
        if not (dom.dominates(lit.block, h) and dom.dominates(h, ins.block)):
            continue
        succs = list(cfg.graph.successors(h))
        if len(succs) != 2:
            continue
        arm = next(
            (
                i
                for i, s in enumerate(succs)
                if all(dom.dominates(s, d.block) for d in scaled) and list(cfg.graph.predecessors(s)) == [h]
            ),
            None,
        )
        if arm is None:
            continue
        cond = kept_branch(cfg, h)
        if cond is None:
            return None
        sizes = [lp.trip_count or 1 for lp in chain]
        trips = 1
        for n in sizes:
            trips *= n
        for k in range(trips):
            digits: dict[object, int] = {}
            rest = k
            for lp, n in zip(reversed(chain), reversed(sizes), strict=True):
                digits[lp.span] = rest % n
                rest //= n
            value = _evaluate(cond, du, nest.blocks, digits, 0)
            if value is None:
                return None
            # the first successor is the `then` arm, taken when the condition holds
            taken = 0 if value else 1
            if taken != arm:
                return k
        return None
    return None


def _only_summed(acc: Value, du: DefUse, nest: Nest) -> bool:
    """Whether the nest reads the sum `acc` only to add to it (`acc += x`, a component's
    `acc.x += x` and its write back): a partial sum read for anything else is kept as it is,
    and the chain is not rebuilt (regtruth: the same blur reading `sum.x` in every tap, 25)."""
    for r in du.readers.get(acc, []):
        if r.block not in nest.blocks:
            continue
        if r.op != "alu" or len(r.reads) != 2:
            return False
        if r.detail.get("copr") == "+" and r.reads[1] is acc and r.reads[0] is not acc:
            continue  # `acc += x`: x first, the sum second
        if "set" in r.detail and r.dest is acc and r.reads[0] is acc and r.reads[1] is not acc:
            continue  # the component written back
        return False
    return True


def kept_branch(cfg: CFG, block: int) -> Value | None:
    """The condition the branch ending `block` reads."""
    instrs = cfg.kept_instrs().get(block)
    if not instrs or instrs[-1].op != "branch" or len(instrs[-1].reads) != 1:
        return None
    return instrs[-1].reads[0]


def _evaluate(
    v: Value, du: DefUse, blocks: frozenset[int], digits: dict[object, int], depth: int
) -> int | float | bool | None:
    """`v` in the unrolled iteration `digits` (each loop's counter by its span), computed from
    the counters, tables read at them and literals; None when it is not."""
    ds = du.defs.get(v, [])
    if len(ds) != 1 or depth > 16 or ds[0].block not in blocks:
        return None
    ins = ds[0]
    detail = ins.detail
    rows = detail.get("rows")
    if rows is not None:
        k = digits.get(detail.get("loop"))
        if k is None or k >= len(rows) or len(rows[k]) != 1:
            return None
        n = rows[k][0]
        return n if isinstance(n, (int, float)) else None
    if ins.op != "alu":
        return None
    opr = detail.get("opr")
    ops = detail.get("ops")
    if not isinstance(ops, tuple):
        return None
    args: list[int | float | bool] = []
    i = 0
    for o in ops:
        if o[0] == "k":
            if len(o[1]) != 1 or not isinstance(o[1][0], (int, float)):
                return None
            args.append(o[1][0])
        else:
            if i >= len(ins.reads):
                return None
            a = _evaluate(ins.reads[i], du, blocks, digits, depth + 1)
            i += 1
            if a is None:
                return None
            args.append(a)
    if opr == "u!" and len(args) == 1:
        return not args[0]
    f = _COMPARE.get(opr) if isinstance(opr, str) else None
    if f is None or len(args) != 2:
        return None
    result: int | float | bool = f(args[0], args[1])
    return result
