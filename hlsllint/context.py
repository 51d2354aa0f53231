"""What a rule sees: one translation unit (a file with its includes, for one define set).

Rules report in coordinates of the preprocessed text (tree-sitter nodes or code-point spans);
the context maps them back to original files, drops findings inside unparsed regions and dead
code (`hlsllint.semantic.dead`), and keeps a fix only when every edit lands on verbatim text of
one file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from hlsllint.analysis.lowering_reuse import LoweringReuse
from hlsllint.diagnostics import Applicability, Diagnostic, Edit, Fix, Related
from hlsllint.preprocess import PreprocessResult
from hlsllint.semantic import EntryPoint, Function, Model, build_model
from hlsllint.semantic.dead import dead_code
from hlsllint.settings import AnalysisSettings
from hlsllint.source import SourceFile
from hlsllint.syntax import Node, SyntaxTree

if TYPE_CHECKING:
    from hlsllint.rule import Rule

__all__ = ["AnalysisSettings", "PendingEdit", "RuleContext", "Span"]

Span = tuple[int, int]
_T = TypeVar("_T")


@dataclass(frozen=True)
class PendingEdit:
    span: Span
    content: str


@dataclass
class RuleContext:
    pp: PreprocessResult
    tree: SyntaxTree
    settings: AnalysisSettings = field(default_factory=AnalysisSettings)
    variant: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    rule: Rule | None = None
    function: Function | None = None
    """During the driver's walk: the function whose body holds the visited node (None outside)."""
    path: str | None = None
    """The unit's own file (not a header it includes), when known."""
    lowering: LoweringReuse | None = None
    """The editor's lowering of the unit's last version, to reuse, and where this one's goes
    (`hlsllint.analysis.lowering_reuse`)."""
    needs_unit_asked: bool = False
    """Set by `needs_unit()` (the walk reads and resets it around a function-local rule's visit)."""
    unit_fact: object = None
    """The fact the last `needs_unit(fact)` gave (None: the visit is made again)."""
    _scratch: dict[str, Any] = field(default_factory=dict, repr=False)
    _model: Model | None = field(default=None, repr=False)

    def scratch(self, factory: Callable[[], _T]) -> _T:
        """The running rule's per-unit state, made by `factory()` on first use (shared by its
        `visit` calls and its `check`)."""
        assert self.rule is not None, "scratch() is called from a rule"
        found = self._scratch.get(self.rule.code)
        if found is None:
            found = self._scratch[self.rule.code] = factory()
        return found

    def needs_unit(self, fact: object = None) -> None:
        """Said by the `visit` of a `function_local` rule before it reads more than the function
        and the declarations before it (an entry point's analysis, the unit's later code, what
        its earlier visits left in `scratch`): what this visit finds is then the unit's own, and
        in a header function met before in the same state (`hlsllint.checker.FunctionFindings`)
        the walk visits this node again instead of taking the findings of the earlier unit.
        What the visit did before saying so must depend on the function only.

        With a `fact`, what the visit computed from the function alone (plain immutable data:
        ints, strings, tuples of them, no node, symbol or type of the unit), the walk calls the
        rule's `replay(ctx, node, fact)` there instead of visiting again: the visit does the rest
        by calling `replay` itself, so that every unit does the same (HL101: the places of a
        loop's load's address and loop conditions, whose uniformity each unit asks). Said once
        per visit."""
        self.needs_unit_asked = True
        self.unit_fact = fact

    @property
    def text(self) -> str:
        return self.tree.text

    @property
    def model(self) -> Model:
        """The semantic model of the unit (structs, globals, functions, entry points, types),
        built on first use. Not a `functools.cached_property`: on Python 3.11 its lock is one per
        class, so a slow unit's model being built on one thread held up every other unit's on the
        others (the language server analyses documents on threads of their own)."""
        if self._model is None:
            model = build_model(self.tree, self.settings)
            if self.lowering is not None:
                model.memo["lowering.reuse"] = self.lowering
            self._model = model
        return self._model

    @property
    def built_model(self) -> Model | None:
        """The semantic model if a rule has built it, else None (never builds it)."""
        return self._model

    # -- helpers for rules --------------------------------------------------------------------

    def span(self, target: Node | Span) -> Span:
        if isinstance(target, tuple):
            return target
        return self.tree.span(target)

    def node_text(self, node: Node) -> str:
        return self.tree.node_text(node)

    def in_main_file(self, node: Node) -> bool:
        """True when `node` comes from the unit's main file (not an included header): the file
        its first character maps to, as `report` maps it. Only the segment of that character is
        looked up (`map_range` also walks every segment the node covers, thousands for a function
        of an engine's header: 3% of a cold lint of SpartanEngine went there, pure Python)."""
        seg = self.pp.sourcemap.segment_at(self.span(node)[0])
        return seg is not None and seg.path not in self.pp.included

    def entry_anchor(self, entry: EntryPoint) -> Span:
        """The entry point's name in its definition (where a finding about the whole entry
        goes)."""
        node: Node = entry.function.node
        for child in node.named_children:
            if child.type == "function_declarator":
                for part in child.named_children:
                    if part.type in ("identifier", "field_identifier", "qualified_identifier"):
                        return self.span(part)
                return self.span(child)
        return self.span(node)

    def row_of(self, span: Span) -> tuple[str, int] | None:
        """(path, 1-based row) of a span of the preprocessed text in its original file."""
        mapped = self.pp.sourcemap.map_range(span[0], max(span[1], span[0] + 1))
        src = self.source(mapped.path)
        if src is None:
            return None
        return mapped.path, src.location(mapped.start).row

    def edit(self, target: Node | Span, content: str) -> PendingEdit:
        return PendingEdit(self.span(target), content)

    def report(
        self,
        target: Node | Span,
        message: str,
        *,
        fix: tuple[str, Applicability, list[PendingEdit]] | None = None,
        related: list[tuple[Node | Span, str]] | None = None,
        extra: dict[str, object] | None = None,
        help: str | None = None,
        notes: list[str] | tuple[str, ...] = (),
    ) -> Diagnostic | None:
        """Report a finding of the running rule at `target` (a node or a span of the text): a
        short `message` (the problem and its measured detail, about 120 characters at most), what
        to do about it in `help` and the why in `notes` (ruff's `help:` and `note:` lines)."""
        assert self.rule is not None, "report() is called from a rule's check()"
        start, end = self.span(target)
        if self.tree.in_unparsed(start, end):
            return None
        if not self.rule.reports_dead_code and self.in_dead_code(start, end):
            return None  # code the compiler drops costs nothing
        diag = self.make_diagnostic(
            self.rule.code, self.rule.name, self.rule.severity, (start, end), message, help=help, notes=notes
        )
        if diag is None:
            return None
        if fix is not None:
            diag.fix = self._map_fix(*fix)
        if related:
            diag.related = tuple(r for r in (self._related(t, m) for t, m in related) if r)
        if extra:
            diag.extra.update(extra)
        self.diagnostics.append(diag)
        return diag

    def in_dead_code(self, start: int, end: int) -> bool:
        """Is `start..end` code the compiler drops (`hlsllint.semantic.dead`)? A function no entry
        point reaches is dead only in the unit's own file (`path`): in a header, another includer
        may call it."""
        model = self.model
        dead = dead_code(model)
        if dead.in_statements(model, start, end):
            return True
        if self.path is None or self.pp.sourcemap.map_range(start, end).path != self.path:
            return False
        return dead.in_unreached(model, start, end)

    # -- mapping ------------------------------------------------------------------------------

    def source(self, path: str) -> SourceFile | None:
        return self.pp.sources.get(path)

    def make_diagnostic(
        self,
        code: str,
        name: str,
        severity: Any,
        span: Span,
        message: str,
        *,
        help: str | None = None,
        notes: list[str] | tuple[str, ...] = (),
    ) -> Diagnostic | None:
        mapped = self.pp.sourcemap.map_range(*span)
        src = self.source(mapped.path)
        if src is None:
            return None
        return Diagnostic(
            code=code,
            name=name,
            message=message,
            severity=severity,
            path=mapped.path,
            start_offset=mapped.start,
            end_offset=mapped.end,
            start=src.location(mapped.start),
            end=src.location(mapped.end),
            variant=self.variant,
            help=help,
            notes=tuple(notes),
        )

    def _related(self, target: Node | Span, message: str) -> Related | None:
        mapped = self.pp.sourcemap.map_range(*self.span(target))
        src = self.source(mapped.path)
        if src is None:
            return None
        return Related(mapped.path, src.location(mapped.start), src.location(mapped.end), message)

    def _map_fix(self, message: str, applicability: Applicability, edits: list[PendingEdit]) -> Fix | None:
        out: list[Edit] = []
        for e in edits:
            mapped = self.pp.sourcemap.map_range(*e.span)
            src = self.source(mapped.path)
            # An edit is only safe to write back when it covers verbatim text of one file.
            if src is None or not (mapped.exact or e.span[0] == e.span[1]):
                return None
            if src.text[mapped.start : mapped.end] != self.text[e.span[0] : e.span[1]]:
                return None
            out.append(
                Edit(
                    mapped.path,
                    mapped.start,
                    mapped.end,
                    e.content,
                    src.location(mapped.start),
                    src.location(mapped.end),
                )
            )
        return Fix(message, applicability, tuple(out))
