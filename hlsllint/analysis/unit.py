"""The analyses of a unit, computed once and looked up: per entry point the CFG, uniformity,
liveness and loops (each built on first use and kept), and the rule-facing queries by syntax span
over every entry (`analyze(model)`, cached on the model)."""

from __future__ import annotations

from hlsllint.analysis.cfg import build_cfg
from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel
from hlsllint.analysis.ir import CFG, Instr, Span
from hlsllint.analysis.liveness import LiveSets, liveness
from hlsllint.analysis.loops import LoopInfo, loop_info
from hlsllint.analysis.occupancy import entry_groupshared
from hlsllint.analysis.uniformity import Question, Uniformity, uniformity
from hlsllint.semantic.model import EntryPoint, Model, Symbol


class EntryAnalysis:
    """The analyses of one entry point, computed on first use."""

    def __init__(self, model: Model, entry: EntryPoint, costs: CostModel = DEFAULT_COSTS) -> None:
        self.model = model
        self.entry = entry
        self.costs = costs
        # Each analysis is computed on first use (plain attributes rather than `cached_property`,
        # which a class compiled by mypyc cannot keep).
        self._cfg: CFG | None = None
        self._uniformity: Uniformity | None = None
        self._value_uniformity: Uniformity | None = None
        self._liveness: LiveSets | None = None
        self._loops: list[LoopInfo] | None = None

    @property
    def cfg(self) -> CFG:
        if self._cfg is None:
            self._cfg = build_cfg(self.model, self.entry, self.costs)
        return self._cfg

    @property
    def uniformity(self) -> Uniformity:
        if self._uniformity is None:
            self._uniformity = uniformity(self.cfg)
        return self._uniformity

    @property
    def value_uniformity(self) -> Uniformity:
        """Same value in every lane (the rules' question; `uniformity` is "held in SGPRs")."""
        if self._value_uniformity is None:
            self._value_uniformity = uniformity(self.cfg, "value")
        return self._value_uniformity

    @property
    def liveness(self) -> LiveSets:
        if self._liveness is None:
            self._liveness = liveness(self.cfg)
        return self._liveness

    @property
    def loops(self) -> list[LoopInfo]:
        if self._loops is None:
            self._loops = loop_info(self.cfg)
        return self._loops

    def uniform_at(self, span: Span, question: Question = "value") -> bool | None:
        """Is the expression at `span` uniform: the same value in every lane (`"value"`) or held
        in SGPRs (`"sgpr"`)? None when this entry does not lower it; False in unreachable code."""
        found = self.cfg.expr.get(span)
        if not found:
            return None
        uni = self.value_uniformity if question == "value" else self.uniformity
        for what in found:
            if isinstance(what, Instr):
                if not uni.is_uniform_instr(what):
                    return False
            elif not uni.is_uniform(what):
                return False
        return True


class UnitAnalysis:
    """Rule-facing queries over every entry point of a unit (see the module docstring)."""

    def __init__(self, model: Model, costs: CostModel = DEFAULT_COSTS) -> None:
        self.model = model
        self.entries = {e.name: EntryAnalysis(model, e, costs) for e in model.entry_points}
        self._groupshared: dict[int, list[Symbol]] = {}

    def entry(self, name: str) -> EntryAnalysis | None:
        return self.entries.get(name)

    def _selected(self, entry: str | None) -> list[EntryAnalysis]:
        if entry is None:
            return list(self.entries.values())
        e = self.entries.get(entry)
        return [e] if e is not None else []

    def uniform_at(self, span: Span, entry: str | None = None, question: Question = "value") -> bool | None:
        answers = [a.uniform_at(span, question) for a in self._selected(entry)]
        known = [x for x in answers if x is not None]
        if not known:
            return None
        return all(known)

    def loops(self, entry: str | None = None) -> list[LoopInfo]:
        seen: dict[Span, LoopInfo] = {}
        for a in self._selected(entry):
            for loop in a.loops:
                prev = seen.get(loop.span)
                if prev is None or (loop.dynamic and not prev.dynamic):
                    seen[loop.span] = loop
        return sorted(seen.values(), key=lambda x: x.span)

    def loop_at(self, span: Span, entry: str | None = None) -> LoopInfo | None:
        inside = [lp for lp in self.loops(entry) if lp.span[0] <= span[0] and span[1] <= lp.span[1]]
        return max(inside, key=lambda lp: lp.span[0], default=None)

    def groupshared(self, entry: EntryPoint) -> list[Symbol]:
        """The groupshared variables that the entry point (or a function it calls) names, in
        declaration order (`occupancy.entry_groupshared`, once per entry)."""
        found = self._groupshared.get(id(entry))
        if found is None:
            found = self._groupshared[id(entry)] = entry_groupshared(self.model, entry)
        return found

    def fetch_at(self, span: Span, entry: str | None = None) -> list[Instr]:
        out = []
        for a in self._selected(entry):
            for what in a.cfg.expr.get(span, []):
                if isinstance(what, Instr) and what.is_fetch:
                    out.append(what)
        return out


def analyze(model: Model, costs: CostModel = DEFAULT_COSTS) -> UnitAnalysis:
    """The rule-facing analysis of a unit; cached on the model for the default costs."""
    if costs is DEFAULT_COSTS:
        cached = model.memo.get("analysis")
        if isinstance(cached, UnitAnalysis):
            return cached
        result = model.memo["analysis"] = UnitAnalysis(model, costs)
        return result
    return UnitAnalysis(model, costs)
