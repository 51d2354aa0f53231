"""What an entry point's estimate cannot see: every construct on the entry's path that the front
end did not resolve or evaluate.

`blind_spots(model, entry) -> Blindness`, kept in the model's memo per entry point:

* `call`: a call the lowering left opaque (`lowering_calls` marks it `blind` in the instruction's
  detail): an undeclared function or one declared without a body (a header not found), a method
  of a struct (`Surface::load`), a qualified or templated name, a recursive call;
* `intrinsic`: an HLSL intrinsic or object method the front end does not model
  (`Texture2D::Foo`, a method of an object from a header not found);
* `attribute`: an argument of an attribute the estimate reads that did not evaluate to a number
  (`[numthreads(A * B, 1, 1)]` with `A` from a header not found: the group size is then
  unknown, never one thread);
* `unparsed`: a region the parser could not read inside a function the entry reaches;
* `truncated`: the lowering stopped early (the instruction cap).

A blind spot's cost is not in the estimate: the figures are then a lower bound of the real
demand at best, and the register rules (HL201-HL204) do not claim an occupancy.
"""

from __future__ import annotations

from dataclasses import dataclass

from hlsllint.analysis.occupancy import reachable_functions
from hlsllint.analysis.unit import EntryAnalysis, analyze
from hlsllint.semantic.model import Model
from hlsllint.semantic.symbols import EntryPoint

Span = tuple[int, int]

GROUP_ATTRIBUTES = ("numthreads",)
"""Attributes whose arguments the estimate reads (the group size)."""

SHOWN_NAMES = 3
"""Names listed in a summary before `...`."""


@dataclass(frozen=True)
class BlindSpot:
    kind: str
    """`call`, `intrinsic`, `attribute`, `unparsed` or `truncated`."""
    name: str
    """What is not seen: the callee (`Surface::load`), the attribute and argument
    (`numthreads: A * B`), or "" for an unparsed region."""
    span: Span
    """Where (preprocessed-text code points)."""


@dataclass(frozen=True)
class Blindness:
    spots: tuple[BlindSpot, ...] = ()

    @property
    def complete(self) -> bool:
        return not self.spots

    def of_kind(self, kind: str) -> list[BlindSpot]:
        return [s for s in self.spots if s.kind == kind]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for s in self.spots:
            out[s.kind] = out.get(s.kind, 0) + 1
        return out

    def names(self, kind: str) -> list[str]:
        """The distinct names of one kind, in order of first appearance."""
        seen: dict[str, None] = {}
        for s in self.spots:
            if s.kind == kind and s.name:
                seen.setdefault(s.name, None)
        return list(seen)

    def parts(self) -> list[str]:
        """One phrase per kind: `3 calls not resolved (`Surface::load`, `f`, ...)`."""
        out: list[str] = []
        for kind, one, many in _PHRASES:
            n = len(self.of_kind(kind))
            if not n:
                continue
            phrase = f"{n} {one if n == 1 else many}"
            names = self.names(kind)
            if names:
                shown = ", ".join(f"`{x}`" for x in names[:SHOWN_NAMES])
                phrase += f" ({shown}{', ...' if len(names) > SHOWN_NAMES else ''})"
            out.append(phrase)
        return out

    def summary(self) -> str:
        """`estimate incomplete: 3 calls not resolved (`Surface::load`, ...)`, or "" when complete."""
        if self.complete:
            return ""
        return "estimate incomplete: " + "; ".join(self.parts())


_PHRASES = (
    ("call", "call not resolved", "calls not resolved"),
    ("intrinsic", "intrinsic not known", "intrinsics not known"),
    ("attribute", "attribute argument not evaluated", "attribute arguments not evaluated"),
    ("unparsed", "unparsed region reached", "unparsed regions reached"),
    ("truncated", "lowering cut short", "lowerings cut short"),
)


def blind_spots(model: Model, entry: EntryPoint) -> Blindness:
    """What the entry point's estimate does not see (see the module docstring); once per entry
    point and model."""
    memo: dict[str, Blindness] = model.memo.setdefault("blind", {})
    found = memo.get(entry.name)
    if found is not None:
        return found
    ea = analyze(model).entry(entry.name)
    if ea is None or ea.entry is not entry:
        ea = EntryAnalysis(model, entry)
    cfg = ea.cfg
    tree = model.tree
    spots: list[BlindSpot] = []
    seen: set[tuple[str, Span]] = set()
    for ins in cfg.all_instrs():
        blind = ins.detail.get("blind")
        if blind is None:
            continue
        kind, name = blind
        key = (str(kind), ins.span)
        if key in seen:  # one call site, inlined more than once
            continue
        seen.add(key)
        spots.append(BlindSpot(str(kind), str(name), ins.span))
    if entry.stage == "compute" and entry.function.attribute("numthreads") is None:
        # a compute shader has one (DXC requires it): the front end did not read it (an unknown
        # macro before it, `META_CS(...)`), so the group size is unknown
        spots.append(BlindSpot("attribute", "numthreads (not read)", tree.span(entry.function.node)))
    for attr in entry.function.attributes:
        if attr.name.lower() not in GROUP_ATTRIBUTES:
            continue
        for arg in attr.args:
            if not isinstance(arg, int) or isinstance(arg, bool):
                spots.append(BlindSpot("attribute", f"{attr.name}({str(arg).strip()})", attr.span))
    if tree.unparsed:
        for fn in reachable_functions(model, entry):
            start, end = tree.span(fn.node)
            for s, e in tree.unparsed:
                if s < end and start < e:
                    spots.append(BlindSpot("unparsed", "", (s, e)))
    if cfg.truncated:
        spots.append(BlindSpot("truncated", "", tree.span(entry.function.node)))
    spots.sort(key=lambda s: (s.span, s.kind))
    result = memo[entry.name] = Blindness(tuple(spots))
    return result


def estimate_incomplete(model: Model, entry: EntryPoint) -> bool:
    """Whether the front end left part of the entry's path out of its estimate: the register
    rules then claim no occupancy (`INCOMPLETE_RATIONALE`)."""
    return not blind_spots(model, entry).complete


INCOMPLETE_RATIONALE = (
    " An entry point whose estimate is incomplete (a call the front end cannot resolve, an "
    "intrinsic it does not know, a `numthreads` argument it cannot evaluate or an unparsed "
    "region on its path: `hlsllint pressure` lists them under *estimate incomplete*) gets no "
    "occupancy finding: the code left out of the figure could move it either way."
)
"""The policy HL201-HL204 share, said in each rule's rationale."""
