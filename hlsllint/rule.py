"""The rule plugin API.

A rule is a subclass of `Rule` in its own module under `rules/` (installed as `hlsllint.rules`),
or registered by a third-party package under the entry-point group `hlsllint.rules`. Its class
attributes are its documentation: `hlsllint rule`, SARIF rule metadata and LSP hovers are all
generated from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from hlsllint.claims import measured_markdown
from hlsllint.diagnostics import FixAvailability, Severity

if TYPE_CHECKING:
    from hlsllint.context import RuleContext
    from hlsllint.syntax import Node


@dataclass(frozen=True)
class Option:
    """A rule option, set in the config under `[rule-options.<CODE>]` (`[tool.hlsllint.rule-options.<CODE>]`
    in `pyproject.toml`). A rule declares its options in `Rule.options` (name -> `Option`); the
    config's values are checked against `type` (`bool`, `int`, `float` or `str`; an integer is
    taken for a `float`), and `hlsllint rule` and docs/rules.md list them with `help`."""

    type: type
    default: Any
    help: str

    def check(self, value: object) -> Any:
        """`value` as this option's type, or None when it is not one (a `bool` is no number)."""
        if isinstance(value, bool) != (self.type is bool):
            return None
        if self.type is float and isinstance(value, int):
            return float(value)
        return value if isinstance(value, self.type) else None

    def type_name(self) -> str:
        """The type as the config spells it."""
        names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}
        return names.get(self.type, self.type.__name__)


class Rule:
    code: ClassVar[str]
    """`HL` followed by three digits."""
    name: ClassVar[str]
    """kebab-case name, e.g. `sign-for-sign-bit`."""
    summary: ClassVar[str]
    """One sentence: what the rule finds."""
    rationale: ClassVar[str]
    """Why it matters, with the source (article, figure) of the claim."""
    bad_example: ClassVar[str]
    """HLSL that the rule flags (tested)."""
    good_example: ClassVar[str]
    """HLSL that does the same job and that the rule leaves alone (tested)."""
    severity: ClassVar[Severity] = Severity.WARNING
    fix: ClassVar[FixAvailability] = FixAvailability.NONE
    fix_safety: ClassVar[str] = ""
    """When the fix is safe, and when it is only offered (unsafe)."""
    tags: ClassVar[tuple[str, ...]] = ()
    precision: ClassVar[str] = "high"
    """SARIF precision: very-high, high, medium or low."""
    references: ClassVar[tuple[str, ...]] = ()
    options: ClassVar[Mapping[str, Option]] = {}
    engine: ClassVar[bool] = False
    """True for findings the engine itself reports (HL000-HL005): the rule has no check."""
    reports_dead_code: ClassVar[bool] = False
    """True for findings that hold in code the compiler drops (an error it reports wherever it is).
    Other rules' findings inside dead code are not reported (`hlsllint.semantic.dead`)."""
    node_kinds: ClassVar[frozenset[str]] = frozenset()
    """Tree-sitter node types that `visit` receives. The driver walks each unit's tree once and
    hands every node of these types to every enabled rule that asked for it (see DEVELOPERS.md)."""
    function_local: ClassVar[bool] = False
    """True when what `visit` reports on the nodes of a function body depends on that function's
    text and the declarations it reads only (no entry point, no analysis, nothing the unit
    declares after it) and `visit` leaves nothing there for `check`, up to where a visit says
    otherwise with `ctx.needs_unit()`: the walk then skips its visits in a header function met
    before in the same state, takes the findings they gave then, and makes again only the
    visits that said they need the unit (`hlsllint.checker.FunctionFindings`), or, where the
    visit gave a fact (`ctx.needs_unit(fact)`), calls `replay` with it. False (entry-dependent)
    for a rule whose visits read entry points or analyses, or gather for `check`: it visits
    every header function in every unit."""

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        values = {k: o.default for k, o in self.options.items()}
        values.update(options or {})
        self.option_values: dict[str, Any] = values

    def visit(self, ctx: RuleContext, node: Node) -> None:
        """Called for each node whose type is in `node_kinds`, in document order, during the
        driver's single walk. `ctx.function` is the function whose body holds `node` (None at
        global scope); per-unit state goes in `ctx.scratch(...)`."""

    def replay(self, ctx: RuleContext, node: Node, fact: object) -> None:
        """The part of a `visit` of `node` that depends on the unit, from the `fact` the visit
        computed from the function alone and gave `ctx.needs_unit(fact)`: in a header function
        met before in the same state the walk calls this instead of `visit` (a function-local
        rule that gives facts defines it, and its `visit` ends by calling it). The fact may come
        from another unit: positions in it are relative (`ctx.tree.index_of(node)` plus an
        offset in `ctx.tree.nodes()`)."""
        raise NotImplementedError(f"{self.code} gave ctx.needs_unit a fact but defines no replay")

    def check(self, ctx: RuleContext) -> None:
        """Called once per unit after the walk: whole-unit questions (entry points, the
        analyses) and findings gathered by `visit`. Report with `ctx.report(...)`. Engine rules
        never run."""

    @classmethod
    def documentation(cls) -> str:
        """The rule's documentation as Markdown (used by `hlsllint rule`, SARIF and LSP hover)."""
        parts = [
            f"# {cls.name} ({cls.code})",
            "",
            f"**Default severity**: {cls.severity.value}  ",
            f"**Fix**: {cls.fix.value}",
            "",
            "## What it does",
            cls.summary.strip(),
            "",
            "## Why is this bad?",
            cls.rationale.strip(),
            "",
        ]
        if cls.bad_example.strip():
            parts += ["## Example", "```hlsl", cls.bad_example.strip("\n"), "```", ""]
        if cls.good_example.strip():
            parts += ["## Use instead", "```hlsl", cls.good_example.strip("\n"), "```", ""]
        measured = measured_markdown(cls.code, cls.bad_example, cls.good_example)
        if measured:
            parts += ["## Measured", measured, ""]
        if cls.fix_safety.strip():
            parts += ["## Fix safety", cls.fix_safety.strip(), ""]
        if cls.options:
            parts += ["## Options"]
            parts += [
                f"- `{k}` ({o.type.__name__}, default `{o.default!r}`): {o.help}"
                for k, o in cls.options.items()
            ]
            parts.append("")
        if cls.references:
            parts += ["## References"] + [f"- {r}" for r in cls.references] + [""]
        return "\n".join(parts)
