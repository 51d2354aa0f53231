"""Groupshared reads the compiler pairs (`paired_read_holds`, queried by
`liveness.register_demand`): an unrolled loop that reads groupshared arrays at constant offsets
from one index (`cache[center + offsets[i]]`) has its reads of 32- and 64-bit elements paired
two by two (`ds_read2_b32`, `ds_read2_b64`: the addresses sorted, each with the next one), each
pair read where the first of the two is read, so the other element is held from there until its
own read."""

from __future__ import annotations

from hlsllint.analysis.ir import CFG, Dominance, Instr, Value, blocks_between, dominance
from hlsllint.analysis.repeated_nests import Nest, clobbers_shared, nests_of
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

    The compiler lays the groupshared variables out one after another and reads two 32-bit (or
    two 64-bit) words with one instruction when their addresses differ by a constant within
    reach (`PAIR_REACH`): the reads at constant offsets from one index (an unrolled loop's,
    and those before it with no store, atomic or barrier between) are sorted by address, the
    variables' words in turn, and paired with the next; each pair is read where the first of
    its two is needed, and the other word is held from there until its own read. A centre
    read before a 9-tap loop over color and depth pairs with its neighbour, and the last color
    tap with the first depth tap (regtruth: a 9-tap bilateral blur over groupshared color and
    depth, presched_vgprs 12, one iteration's values 7). 1-D variables of 32- or 64-bit
    elements indexed by one value plus a constant per iteration (the counters, tables read at
    them and literals); an element read twice is read once. A variable whose taps the loop reads
    out of address order (rings of taps from a table: MiniEngine's depth of field) is not
    followed."""
    found: list[tuple[frozenset[int], int]] = []
    nests = nests_of(cfg)
    if not nests:
        return found
    kept = cfg.kept_instrs()
    deadline = current()
    dom: Dominance | None = None
    for nest in nests:
        loads: list[Instr] = []
        for b in sorted(nest.blocks):
            for ins in kept.get(b, []):
                if _pairable(ins):
                    loads.append(ins)
        if len(loads) < 2:
            continue
        # the nest's loops, outermost first, as a chain (one loop per depth)
        chain = sorted(nest.members, key=lambda lp: nest.depths[lp.span])
        if len({nest.depths[lp.span] for lp in chain}) != len(chain):
            continue
        if any(not all(ins.block in lp.blocks for lp in chain) for ins in loads):
            continue  # a read in an outer loop's body only: not followed
        if dom is None:
            dom = dominance(cfg.graph, cfg.entry, cfg.cache)
        sizes = [lp.trip_count or 1 for lp in chain]
        trips = 1
        for n in sizes:
            trips *= n
        # per (index, element words): each word address's first read (time), and per variable
        # the times of its in-loop reads in address order
        first: dict[tuple[object, int], dict[int, int]] = {}
        order: dict[tuple[object, int, str], list[tuple[int, int]]] = {}
        time = 0
        for ins in _reads_before(cfg, kept, dom, nest):
            at = _offset(ins.reads[0], du, nest.blocks, {})
            if at is None or at[0] is None:
                continue
            time += 1
            shared = ins.detail["shared"]
            before = first.setdefault((at[0], shared[4]), {})
            before.setdefault(shared[3] + at[1] * shared[4], time - 1_000_000)  # ahead of the loop
        for k in range(trips):
            deadline.tick()
            digits: dict[object, int] = {}
            rest = k
            for lp, n in zip(reversed(chain), reversed(sizes), strict=True):
                digits[lp.span] = rest % n
                rest //= n
            for ins in loads:
                time += 1
                at = _offset(ins.reads[0], du, nest.blocks, digits)
                if at is None or at[0] is None:
                    continue
                shared = ins.detail["shared"]
                key = (at[0], shared[4])
                address = shared[3] + at[1] * shared[4]
                first.setdefault(key, {}).setdefault(address, time)
                order.setdefault((at[0], shared[4], shared[0]), []).append((address, time))
        out_of_order = set()
        for (base, words, _name), reads in order.items():
            times = [t for _a, t in sorted(reads)]
            if times != sorted(times) and times != sorted(times, reverse=True):
                out_of_order.add((base, words))  # rings of taps: not followed
        events: list[tuple[int, int]] = []  # (time, registers held from / freed at)
        for key, addresses in first.items():
            if key in out_of_order:
                continue
            words = key[1]
            ordered = sorted(addresses)
            i = 0
            while i + 1 < len(ordered):
                a, b = ordered[i], ordered[i + 1]
                if (b - a) > PAIR_REACH * words:
                    i += 1
                    continue
                ta, tb = sorted((addresses[a], addresses[b]))
                if tb > 0 and tb > ta:
                    events.append((max(ta, 0), words))
                    events.append((tb, -words))
                i += 2
        if not events:
            continue
        most = live = 0
        for _t, n in sorted(events):
            live += n
            most = max(most, live)
        if most:
            found.append((nest.blocks, most))
    return found


def _pairable(ins: Instr) -> bool:
    """A read of one 32- or 64-bit element of a 1-D groupshared array at one index value."""
    if ins.op != "lds_load" or ins.dest is None or len(ins.reads) != 1:
        return False
    shared = ins.detail.get("shared")
    return (
        isinstance(shared, tuple)
        and len(shared) == 5
        and shared[1] == ("[]",)
        and shared[4] in (1, 2)
        and ins.dest.width == shared[4]
    )


def _reads_before(cfg: CFG, kept: dict[int, list[Instr]], dom: Dominance, nest: Nest) -> list[Instr]:
    """The pairable groupshared reads before the nest (in blocks that dominate its first
    block) with no store, atomic or barrier after them on the way to it."""
    header = nest.root.header
    out: list[Instr] = []
    for b in sorted(kept):
        if b in nest.blocks or not dom.dominates(b, header):
            continue
        for ins in kept[b]:
            if clobbers_shared(ins):
                out = []
            elif _pairable(ins):
                out.append(ins)
    # a block between the last of them and the nest that does not dominate it may clobber too
    if out:
        last = out[-1].block
        for b in blocks_between(cfg, last, header):
            if b != last and b not in nest.blocks and any(clobbers_shared(x) for x in kept.get(b, [])):
                return []
    return out
