"""Groupshared reads the compiler pairs (`paired_read_holds`, queried by
`liveness.register_demand`): an unrolled loop that reads a groupshared array at constant offsets
from one index (`cache[center + offsets[i]]`) has its reads of 32- and 64-bit elements paired
two by two (`ds_read2_b32`, `ds_read2_b64`: the offsets sorted, each with the next one), each
pair read where the first of the two is read, so the other element is held from there until its
own iteration reads it."""

from __future__ import annotations

from hlsllint.analysis.ir import CFG, Instr, Value
from hlsllint.analysis.repeated_nests import _nests
from hlsllint.analysis.value_classes import DefUse
from hlsllint.deadline import current

PAIR_REACH = 255
"""The farthest two reads of one pair are apart, in elements of 32 bits (`ds_read2_b32`'s 8-bit
offsets)."""


def _offset(
    v: Value, du: DefUse, blocks: frozenset[int], digits: dict[object, int], depth: int = 0
) -> tuple[object, int] | None:
    """`v` in one unrolled iteration (`digits`: each counter's iteration, by its loop) as (what
    it adds a constant to, the constant): a value set once before the loop is itself plus 0, a
    read of a table or counter its number, `a + k` and `a - k` of them; None otherwise."""
    ds = du.defs.get(v, [])
    if len(ds) != 1 or depth > 16:
        return None
    ins = ds[0]
    if ins.block not in blocks:
        return (("x", v.id), 0)
    detail = ins.detail
    rows = detail.get("rows")
    if rows is not None:
        k = digits.get(detail.get("loop"))
        if k is None or k >= len(rows):
            return None
        n = rows[k][0] if v.width == 1 and len(rows[k]) == 1 else None
        if not isinstance(n, int) or isinstance(n, bool):
            return None
        return (None, n)
    if ins.op == "copy" and len(ins.reads) == 1 and v.width == 1:
        return _offset(ins.reads[0], du, blocks, digits, depth + 1)
    merge = detail.get("merge")
    if ins.op == "alu" and isinstance(merge, tuple) and merge and merge[0] == "cast" and len(ins.reads) == 1:
        return _offset(ins.reads[0], du, blocks, digits, depth + 1)
    opr = detail.get("opr")
    ops = detail.get("ops")
    if ins.op != "alu" or opr not in ("+", "-") or v.width != 1:
        return None
    if not isinstance(ops, tuple) or len(ops) != 2:
        return None
    terms: list[tuple[object, int]] = []
    i = 0
    for o in ops:
        if o[0] == "k":
            k = o[1][0] if len(o[1]) == 1 else None
            if not isinstance(k, int) or isinstance(k, bool):
                return None
            terms.append((None, k))
        else:
            if i >= len(ins.reads):
                return None
            t = _offset(ins.reads[i], du, blocks, digits, depth + 1)
            i += 1
            if t is None:
                return None
            terms.append(t)
    (ba, ka), (bb, kb) = terms
    if opr == "-":
        if bb is not None:
            return None
        return (ba, ka - kb)
    if ba is not None and bb is not None:
        return None
    return (ba if ba is not None else bb, ka + kb)


def paired_read_holds(cfg: CFG, du: DefUse) -> list[tuple[frozenset[int], int]]:
    """Per unrolled loop nest, its blocks and the most VGPRs held at once by groupshared
    elements read ahead with their pair's first element.

    The compiler reads two 32-bit (or two 64-bit) elements of groupshared memory with one
    instruction when their addresses differ by a constant within reach (`PAIR_REACH`): the
    reads of an unrolled loop at constant offsets from one index are sorted by offset and paired
    with the next, and each pair is read where the first of its two elements is needed. The
    other element is held from there until the iteration that reads it (regtruth: a 9-tap
    bilateral blur over groupshared color and depth, presched_vgprs 14, one iteration's
    values 9; MiniEngine's DoF rings, whose tables pair taps read far apart, 21 against 15).
    A 1-D array of 32- or 64-bit elements indexed by one value plus a constant per iteration
    (the counters, tables read at them and literals); an element read twice is read once."""
    found: list[tuple[frozenset[int], int]] = []
    nests = _nests(cfg)
    if not nests:
        return found
    kept = cfg.kept_instrs()
    deadline = current()
    for nest in nests:
        loads: list[Instr] = []
        for b in sorted(nest.blocks):
            for ins in kept.get(b, []):
                if ins.op != "lds_load" or ins.dest is None or len(ins.reads) != 1:
                    continue
                shared = ins.detail.get("shared")
                if not shared or shared[1] != ("[]",) or ins.dest.width not in (1, 2):
                    continue
                loads.append(ins)
        if len(loads) < 2:
            continue
        # the nest's loops, outermost first, as a chain (one loop per depth)
        chain = sorted(nest.members, key=lambda lp: nest.depths[lp.span])
        if len({nest.depths[lp.span] for lp in chain}) != len(chain):
            continue
        sizes = [lp.trip_count or 1 for lp in chain]
        trips = 1
        for n in sizes:
            trips *= n
        # per (array, base): each offset's first read (time) and the element's registers
        first: dict[tuple[object, object], dict[int, int]] = {}
        width: dict[tuple[object, object], int] = {}
        time = 0
        ok = True
        for k in range(trips):
            deadline.tick()
            digits: dict[object, int] = {}
            rest = k
            for lp, n in zip(reversed(chain), reversed(sizes), strict=True):
                digits[lp.span] = rest % n
                rest //= n
            for ins in loads:
                time += 1
                block_loops = [lp for lp in chain if ins.block in lp.blocks]
                if len(block_loops) != len(chain):
                    ok = False  # a read in an outer loop's body only: not followed
                    break
                at = _offset(ins.reads[0], du, nest.blocks, digits)
                if at is None or at[0] is None:
                    continue
                shared = ins.detail["shared"]
                assert ins.dest is not None
                key = (shared[0], at[0])
                width[key] = ins.dest.width
                first.setdefault(key, {}).setdefault(at[1], time)
            if not ok:
                break
        if not ok:
            continue
        events: list[tuple[int, int]] = []  # (time, +registers from / -registers after)
        for key, offsets in first.items():
            dwords = width[key]
            order = sorted(offsets)
            times = [offsets[o] for o in order]
            if times != sorted(times) and times != sorted(times, reverse=True):
                # a table that reads far-apart offsets in turn (rings of taps): which reads
                # the compiler pairs then is not followed here
                continue
            i = 0
            while i + 1 < len(order):
                a, b = order[i], order[i + 1]
                if (b - a) * dwords > PAIR_REACH:
                    i += 1
                    continue
                ta, tb = sorted((offsets[a], offsets[b]))
                if tb > ta:
                    events.append((ta, dwords))
                    events.append((tb, -dwords))
                i += 2
        if not events:
            continue
        most = live = 0
        for _t, n in sorted(events, key=lambda e: (e[0], e[1])):
            live += n
            most = max(most, live)
        if most:
            found.append((nest.blocks, most))
    return found
