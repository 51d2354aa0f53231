"""The analyses of a unit, computed once and looked up: per entry point the CFG, uniformity,
liveness and loops (each built on first use and kept), and the rule-facing queries by syntax span
over every entry (`analyze(model)`, whose results are kept in the model's memo)."""

from __future__ import annotations

from hlsllint.analysis.cfg import build_cfg
from hlsllint.analysis.costs import DEFAULT_COSTS, CostModel
from hlsllint.analysis.ir import CFG, Instr, Span
from hlsllint.analysis.liveness import LiveSets, liveness
from hlsllint.analysis.loops import LoopInfo, loop_info
from hlsllint.analysis.occupancy import entry_groupshared
from hlsllint.analysis.uniformity import Question, Uniformity, uniformity
from hlsllint.analysis.value_classes import def_use
from hlsllint.semantic.model import Model
from hlsllint.semantic.symbols import EntryPoint, Symbol


class _EntryResults:
    """The analyses of one entry point computed so far (plain attributes rather than
    `cached_property`, which a class compiled by mypyc cannot keep). Kept in the model's memo,
    so it holds no reference to the model: a reference back would make a cycle that only the
    garbage collector can free, and a unit's whole model and analyses with it."""

    def __init__(self) -> None:
        self.cfg: CFG | None = None
        self.uniformity: Uniformity | None = None
        self.value_uniformity: Uniformity | None = None
        self.liveness: LiveSets | None = None
        self.loops: list[LoopInfo] | None = None


class EntryAnalysis:
    """The analyses of one entry point, computed on first use (into `results`, shared by every
    `EntryAnalysis` of the entry that `analyze` makes)."""

    def __init__(
        self,
        model: Model,
        entry: EntryPoint,
        costs: CostModel = DEFAULT_COSTS,
        results: _EntryResults | None = None,
    ) -> None:
        self.model = model
        self.entry = entry
        self.costs = costs
        self._results = results if results is not None else _EntryResults()

    @property
    def cfg(self) -> CFG:
        r = self._results
        if r.cfg is None:
            r.cfg = build_cfg(self.model, self.entry, self.costs)
        return r.cfg

    @property
    def uniformity(self) -> Uniformity:
        r = self._results
        if r.uniformity is None:
            r.uniformity = uniformity(self.cfg)
        return r.uniformity

    @property
    def value_uniformity(self) -> Uniformity:
        """Same value in every lane (the rules' question; `uniformity` is "held in SGPRs")."""
        r = self._results
        if r.value_uniformity is None:
            r.value_uniformity = uniformity(self.cfg, "value")
        return r.value_uniformity

    @property
    def liveness(self) -> LiveSets:
        r = self._results
        if r.liveness is None:
            r.liveness = liveness(self.cfg)
        return r.liveness

    @property
    def loops(self) -> list[LoopInfo]:
        r = self._results
        if r.loops is None:
            r.loops = loop_info(self.cfg)
        return r.loops

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


class _UnitResults:
    """What `UnitAnalysis` computed for a unit (kept in the model's memo, see `_EntryResults`)."""

    def __init__(self) -> None:
        self.entries: dict[str, _EntryResults] = {}
        self.groupshared: dict[int, list[Symbol]] = {}
        self.kept_symbols: dict[int, bool] | None = None

    def entry(self, name: str) -> _EntryResults:
        found = self.entries.get(name)
        if found is None:
            found = self.entries[name] = _EntryResults()
        return found


class UnitAnalysis:
    """Rule-facing queries over every entry point of a unit (see the module docstring)."""

    def __init__(
        self, model: Model, costs: CostModel = DEFAULT_COSTS, results: _UnitResults | None = None
    ) -> None:
        self.model = model
        r = results if results is not None else _UnitResults()
        self.entries = {e.name: EntryAnalysis(model, e, costs, r.entry(e.name)) for e in model.entry_points}
        self._groupshared = r.groupshared
        self._results = r

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

    def kept(self, sym: Symbol) -> bool | None:
        """Does an instruction the compiler keeps, in some entry point, read or write a value of
        the variable `sym`? False when the entry points lower it only in dead code (its values
        reach no output), None when none lowers it (a function no entry point reaches, or an
        analysis that gave up: nothing is known)."""
        r = self._results
        if r.kept_symbols is None:
            found: dict[int, bool] = {}
            for a in self.entries.values():
                cfg = a.cfg
                for v in cfg.values:
                    if v.symbol is not None:
                        found.setdefault(id(v.symbol), False)
                du = def_use(cfg)  # the kept instructions' definitions and reads
                for kept in (du.defs, du.readers):
                    for v in kept:
                        if v.symbol is not None:
                            found[id(v.symbol)] = True
            r.kept_symbols = found
        return r.kept_symbols.get(id(sym))

    def fetch_at(self, span: Span, entry: str | None = None) -> list[Instr]:
        out = []
        for a in self._selected(entry):
            for what in a.cfg.expr.get(span, []):
                if isinstance(what, Instr) and what.is_fetch:
                    out.append(what)
        return out


def analyze(model: Model, costs: CostModel = DEFAULT_COSTS) -> UnitAnalysis:
    """The rule-facing analysis of a unit; for the default costs, what it computes is kept in the
    model's memo (every call answers from the same results)."""
    if costs is DEFAULT_COSTS:
        results = model.memo.get("analysis")
        if not isinstance(results, _UnitResults):
            results = model.memo["analysis"] = _UnitResults()
        return UnitAnalysis(model, costs, results)
    return UnitAnalysis(model, costs)
