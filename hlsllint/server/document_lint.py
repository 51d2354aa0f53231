"""One open document linted from scratch (`lint_document`), the analysis a newer version makes
stale (`Analysis`), and the result the server keeps and publishes (`Outcome`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from lsprotocol import types

from hlsllint.config import ConfigResolver, Settings, Variant
from hlsllint.context import RuleContext
from hlsllint.deadline import Deadline
from hlsllint.diagnostics import Diagnostic
from hlsllint.lint import FileLoader, analysis_settings, apply_suppressions, front_end, lint_unit
from hlsllint.server.convert import Positions
from hlsllint.server.incremental import Relint
from hlsllint.source import SourceFile


class Analysis:
    """The analysis of one version of one document, which a newer version makes stale: `cancel`
    (from the event loop) stops it at the stages' next check (`hlsllint.deadline`). Each unit it
    lints has a token of its own, with the unit's time budget."""

    def __init__(self, version: int | None, preparing: bool = False) -> None:
        self.version = version
        self.preparing = preparing
        """It prepares the document's next edits (`incremental.prepare`) and makes no outcome."""
        self.cancelled = False
        self._tokens: list[Deadline] = []

    def cancel(self) -> None:
        self.cancelled = True  # before the tokens are read: `token` sees one or the other
        for token in list(self._tokens):
            token.cancel()

    def token(self, seconds: float) -> Deadline:
        """A token for one unit of this analysis: `seconds` of budget, cancelled with it."""
        token = Deadline(seconds)
        self._tokens.append(token)
        if self.cancelled:
            token.cancel()
        return token


@dataclass
class Outcome:
    """The result of linting one version of one open document."""

    uri: str
    version: int | None
    generation: int
    path: str
    source: SourceFile
    diagnostics: list[Diagnostic]
    items: list[types.Diagnostic]
    positions: Positions
    sources: dict[str, SourceFile] = field(default_factory=dict)
    context: RuleContext | None = None
    """The parse and model of the (first) unit linted, reused by the pressure view."""
    messages: list[tuple[types.MessageType, str]] = field(default_factory=list)
    """Messages for the client (sent from the event loop, not the worker thread)."""
    settings: Settings | None = None
    relint: Relint | None = None
    """The incremental lint that made it (then `context` is None): the pressure view takes the
    entry points it analysed from it, the others from the last view."""
    release: Callable[[], None] | None = None
    """Lets the garbage collector run again (held off by an incremental lint until its
    diagnostics are out: `lint.hold_collection`)."""

    @property
    def result_id(self) -> str:
        return f"{self.generation}:{self.version}"


@dataclass
class DocumentLint:
    """A from-scratch lint of one document's text (every variant of its unit)."""

    diagnostics: list[Diagnostic]
    """What the editor is sent: the document's own findings, once each across variants, after
    `noqa` (with HL001), sorted."""
    findings: list[Diagnostic]
    """The same before `noqa`."""
    sources: dict[str, SourceFile]
    context: RuleContext | None
    """The parse and model of the (first) unit linted, reused by the pressure view."""
    messages: list[tuple[types.MessageType, str]]
    """Internal errors for the client."""
    relint: Relint | None = None
    """The incremental lint that made it, if one did."""
    release: Callable[[], None] | None = None
    """Lets the garbage collector run again (`Outcome.release`)."""


def lint_document(
    path: str,
    text: str,
    resolver: ConfigResolver,
    settings: Settings | None = None,
    analysis: Analysis | None = None,
) -> DocumentLint:
    """Lint the unsaved `text` of the document at `path` from scratch (its includes from disk).
    Each unit gets its time budget; `analysis.cancel()` stops them (`Cancelled` is raised)."""
    settings = settings or resolver.for_path(path)
    loader = FileLoader({path: text}, resolver, limit_overrides=True)  # includes up to `max-file-size`
    done = DocumentLint([], [], {}, None, [])
    seen: set[tuple[str, str, int, int, str]] = set()
    variants: list[Variant | None] = [*settings.variants_for(path)] or [None]
    for variant in variants:
        token = analysis.token(settings.time_budget) if analysis is not None else None
        result = lint_unit(path, settings, variant, loader, deadline=token)
        done.sources.update(result.sources)
        if done.context is None:
            done.context = result.context
        for err in result.errors:
            first = err.splitlines()[0]
            done.messages.append((types.MessageType.Warning, f"hlsllint: {first} (see the log)"))
            done.messages.append((types.MessageType.Log, err))
        for d in result.diagnostics:
            if os.path.normpath(d.path) == path and d.key() not in seen:
                seen.add(d.key())
                done.findings.append(d)
    done.diagnostics = publishable(done.findings, path, text, resolver)
    return done


def publishable(
    findings: list[Diagnostic], path: str, text: str, resolver: ConfigResolver
) -> list[Diagnostic]:
    """The document's findings after its `noqa` comments (unused ones reported as HL001), sorted
    by place, then message."""
    found = apply_suppressions(list(findings), {path: SourceFile(path=path, text=text)}, resolver)
    # Findings at one place (HL202 names each entry point at the groupshared declaration) in an
    # order that does not depend on how the unit was analysed.
    found.sort(key=lambda d: (*d.sort_key(), d.end.row, d.end.column, d.message, repr(d)))
    return found


def unit_context(path: str, text: str, settings: Settings, resolver: ConfigResolver) -> RuleContext:
    """The parse of the document's (first) unit, for the pressure view, without running rules."""
    variants: list[Variant | None] = [*settings.variants_for(path)] or [None]
    variant = variants[0]
    loader = FileLoader({path: text}, resolver)
    pp, tree = front_end(loader(path), settings, variant, loader)
    return RuleContext(
        pp=pp,
        tree=tree,
        settings=analysis_settings(settings, variant),
        variant=variant.name if variant else None,
        path=path,
    )


def pressure_html(path: str, text: str, settings: Settings, resolver: ConfigResolver) -> str:
    """The HTML pressure page of the unsaved `text` of `path` (its includes from disk)."""
    import io

    from hlsllint.output import pressure_printer
    from hlsllint.pressure_report import analyse_file

    loader = FileLoader({path: text}, resolver=resolver)
    unit = analyse_file(path, settings, loader=loader, with_values=True)
    out = io.StringIO()
    pressure_printer("html")([unit], out)
    return out.getvalue()
