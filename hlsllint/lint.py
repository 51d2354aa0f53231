"""Linting one translation unit: preprocess (with the unit's defines), parse, analyse, run the
rules, and the findings of the engine itself (unreadable files, a time budget run out). The
driver (`driver.py`) plans the units of a run and lints them, here or in worker processes.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from hlsllint import preprocess as pp_stage
from hlsllint import remedies
from hlsllint.analysis.lowering_reuse import LoweringReuse
from hlsllint.checker import run_rules
from hlsllint.config import ConfigError, ConfigResolver, Settings, Variant
from hlsllint.context import AnalysisSettings, RuleContext
from hlsllint.deadline import BudgetExceeded, Cancelled, Deadline, active
from hlsllint.diagnostics import Diagnostic, Severity
from hlsllint.files import UnfitFile, check_size
from hlsllint.noqa import Suppressions, parse_suppressions, unused_noqa
from hlsllint.registry import all_rules, rule_by_code
from hlsllint.rule import Rule
from hlsllint.same_units import Key, SameUnits
from hlsllint.source import MAX_FILE_BYTES, SourceError, SourceFile
from hlsllint.syntax import SyntaxTree, parse
from hlsllint.syntax.tree import MAX_DEPTH


def tune_gc() -> None:
    """Collect cyclic garbage less often: a lint allocates many short-lived acyclic objects, and
    the default thresholds spend about a quarter of a lint in the collector (bench/lsp_latency.py)."""
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


_collection_lock = threading.Lock()
_collection_holds = 0


@contextlib.contextmanager
def no_collection() -> Iterator[None]:
    """No cyclic garbage collection inside (nor in the other threads meanwhile: the collector is
    the process's); it comes back when the last thread inside leaves."""
    release = hold_collection()
    try:
        yield
    finally:
        release()


def hold_collection() -> Callable[[], None]:
    """No cyclic garbage collection until the function returned is called (once; from any
    thread; further calls do nothing) and every other hold is released. The server holds it
    from an incremental lint to the publication of its diagnostics: the lint's objects, kept
    for the pressure view, are walked by the next collection (50-200 ms on an engine shader),
    which so comes after the diagnostics instead of before."""
    global _collection_holds
    with _collection_lock:
        _collection_holds += 1
        gc.disable()
    held = [True]

    def release() -> None:
        global _collection_holds
        with _collection_lock:
            if not held:
                return
            held.clear()
            _collection_holds -= 1
            if _collection_holds == 0:
                gc.enable()

    return release


@dataclass(frozen=True)
class _Unreadable:
    """Why a path could not be read (the loader's cache keeps this, not the exception)."""

    message: str


class FileLoader:
    """Reads and caches source files; `overrides` serves unsaved text (stdin, editor buffers).
    A file larger than the `max-file-size` of its settings (`resolver`; else the default) is an
    error, as is anything but a regular file; with `limit_overrides`, so is unsaved text of more
    bytes (in UTF-8) than that (the language server's buffers)."""

    def __init__(
        self,
        overrides: Mapping[str, str] | None = None,
        resolver: ConfigResolver | None = None,
        limit_overrides: bool = False,
    ) -> None:
        self.overrides = {os.path.normpath(k): v for k, v in (overrides or {}).items()}
        self.resolver = resolver
        self.limit_overrides = limit_overrides
        self._cache: dict[str, SourceFile | _Unreadable] = {}

    def max_bytes(self, path: str) -> int:
        if self.resolver is None:
            return MAX_FILE_BYTES
        try:
            return self.resolver.for_path(path).max_file_bytes
        except ConfigError:  # reported where the file is linted; an include keeps the default
            return MAX_FILE_BYTES

    def __call__(self, path: str) -> SourceFile:
        key = os.path.normpath(path)
        hit = self._cache.get(key)
        if hit is None:
            try:
                if key in self.overrides:
                    text = self.overrides[key]
                    if self.limit_overrides:
                        check_override(path, text, self.max_bytes(path))
                    hit = SourceFile(path=path, text=text)
                else:
                    hit = SourceFile.read(path, self.max_bytes(path))
            except SourceError as e:
                hit = _Unreadable(str(e))
            self._cache[key] = hit
        if isinstance(hit, _Unreadable):
            # A fresh error each time: a cached exception object would carry the traceback of
            # its latest raise, whose frames hold that unit's whole call stack (its tree, model
            # and analyses). A run that probed a missing include in every unit kept every unit
            # alive that way (SpartanEngine at -j 1: 2.3 GiB).
            raise SourceError(hit.message)
        return hit


def check_override(path: str, text: str, max_bytes: int) -> None:
    """Raise `SourceError` when unsaved `text` is over `max_bytes` (0: no limit) in UTF-8, as
    reading it from a file would."""
    if max_bytes and len(text) * 4 > max_bytes:  # else it cannot be over, whatever it holds
        try:
            check_size(path, len(text.encode("utf-8", "surrogatepass")), max_bytes, "max-file-size")
        except UnfitFile as e:
            raise SourceError(str(e)) from e


@dataclass
class UnitResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Internal errors (a crashing rule): reported on stderr, exit code 2."""
    sources: dict[str, SourceFile] = field(default_factory=dict)
    context: RuleContext | None = None
    """The unit's parse and semantic model (in process only: the LSP's pressure view reuses it)."""
    missing: list[str] = field(default_factory=list)
    """Paths the include search probed in vain (for the cache)."""
    deps: dict[str, str] = field(default_factory=dict)
    """Every file the unit read → its content hash (filled by the driver, for the cache)."""
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds spent per stage (preprocessing and parsing, the rules' walk, each rule...)."""
    same_as: str | None = None
    """The earlier unit of the run whose findings this one reused (see `SameUnits`)."""


_RULES: dict[tuple[str, tuple[tuple[str, object], ...]], Rule] = {}


def _rule_instance(cls: type[Rule], options: tuple[tuple[str, object], ...]) -> Rule:
    """One instance per rule and option set per process."""
    key = (cls.code, options)
    if key not in _RULES:
        _RULES[key] = cls(dict(options))
    return _RULES[key]


def _engine_diag(
    code: str,
    message: str,
    source: SourceFile,
    start: int = 0,
    end: int = 0,
    variant: str | None = None,
    help: str | None = None,
    notes: list[str] | tuple[str, ...] = (),
) -> Diagnostic:
    cls = rule_by_code().get(code)
    name = cls.name if cls else code
    severity = cls.severity if cls else Severity.WARNING
    return Diagnostic(
        code=code,
        name=name,
        message=message,
        severity=severity,
        path=source.path,
        start_offset=start,
        end_offset=end,
        start=source.location(start),
        end=source.location(end),
        variant=variant,
        help=help,
        notes=tuple(notes),
    )


def front_end(
    main: SourceFile,
    settings: Settings,
    variant: Variant | None,
    loader: Callable[[str], SourceFile],
) -> tuple[pp_stage.PreprocessResult, SyntaxTree]:
    """Preprocess (with the settings' and the variant's defines) and parse one unit."""
    pp = _preprocess(main, settings, variant, loader)
    return pp, parse(pp.text)


def _preprocess(
    main: SourceFile,
    settings: Settings,
    variant: Variant | None,
    loader: Callable[[str], SourceFile],
    stop_after: tuple[str, ...] = (),
) -> pp_stage.PreprocessResult:
    defines = settings.defines + (variant.defines if variant else ())
    include_dirs = (variant.include_dirs if variant else ()) + settings.include_dirs
    options = pp_stage.PreprocessOptions(defines=defines, include_dirs=include_dirs, stop_after=stop_after)
    pp = pp_stage.preprocess(main, options, loader)
    pp.sources.setdefault(main.path, main)
    return pp


def analysis_settings(settings: Settings, variant: Variant | None) -> AnalysisSettings:
    """The analysis settings of one unit: the config's, with what the variant's build says."""
    base = settings.analysis
    if variant is None:
        return base
    sixteen = variant.enable_16bit_types
    return replace(
        base,
        entry=variant.entry,
        stage=variant.stage,
        enable_16bit_types=base.enable_16bit_types if sixteen is None else sixteen,
    )


def lint_unit(
    path: str,
    settings: Settings,
    variant: Variant | None = None,
    loader: Callable[[str], SourceFile] | None = None,
    same: SameUnits | None = None,
    deadline: Deadline | None = None,
    stop_after: tuple[str, ...] = (),
    previous: SyntaxTree | None = None,
    lowering: LoweringReuse | None = None,
) -> UnitResult:
    """Lint one translation unit: `path` with its includes, under one define set. With `same`, a
    unit identical to one linted before takes that unit's findings (on its own paths).

    With `stop_after` (headers `path` includes), the unit ends where the last of those headers'
    first expansions does: the headers are analysed in the state `path` gives them, and only
    findings outside `path` itself are kept. With `same`, such units that give the headers the
    same state (`SameUnits.state_key`) are analysed once.

    Every stage checks `deadline` (by default one of `settings.time_budget` seconds from now): past
    it the analysis stops with HL006; cancelled (`deadline.cancel()`, from another thread), it
    stops and `Cancelled` is raised.

    `previous`, the tree of an earlier version of the unit (the editor's last lint), is parsed
    again only where the text changed (`parse`); `lowering` keeps this version's CFG lowering for
    the next and replays what it may of the last one's (`hlsllint.analysis.lowering_reuse`)."""
    loader = loader or FileLoader()
    vname = variant.name if variant else None
    result = UnitResult()
    try:
        main = loader(path)
    except SourceError as e:
        fake = SourceFile(path=path, text="")
        result.diagnostics.append(_engine_diag("HL004", f"Cannot lint file: {e}", fake))
        return result
    all_rules()  # imported before the clock starts: the first unit of a process does not pay it
    token = Deadline(settings.time_budget) if deadline is None else deadline
    budget = Budget(token)
    try:
        with active(token), budget.alarm():
            complete = _lint_main(
                main, settings, variant, loader, result, budget, same, stop_after, previous, lowering
            )
        budget.enter("")
        result.timings = budget.timings
        if same is not None and complete is not None:  # within the budget to the end
            same.put(path, *complete)
    except Cancelled:
        pp_stage.clear_cache()  # the lexer cache may hold a half-built entry
        raise
    except BudgetExceeded:
        pp_stage.clear_cache()  # the lexer cache may hold a half-built entry
        if result.context is not None:
            result.diagnostics.extend(result.context.diagnostics)
        message = f"analysis skipped after {token.seconds:g} s: {budget.stage} was still running"
        result.diagnostics.append(
            _engine_diag(
                "HL006",
                message,
                main,
                variant=vname,
                help="raise `time-budget` (seconds of analysis per file; 0: no limit) to analyse it whole",
                notes=["findings from the rest of the analysis are missing"],
            )
        )
        result.diagnostics = [d for d in result.diagnostics if settings.is_enabled(d.code, d.path)]
    if stop_after:  # the main file is cut short: what is found there is not its own
        result.diagnostics = [d for d in result.diagnostics if d.path != main.path]
    return result


_ALARM_GRACE = 0.5
"""Seconds past the deadline before SIGALRM stops a stage that does not check it."""


class Budget:
    """A unit's stages, timed, under its deadline: checked between stages and rules, inside the
    stages' loops (`hlsllint.deadline`), and, for the rules' own Python code, by SIGALRM where that
    is possible (the main thread of a process on a POSIX system)."""

    def __init__(self, token: Deadline) -> None:
        self.token = token
        self.stage = "preprocessing and parsing"
        self._mark = time.monotonic()
        self.timings: dict[str, float] = {}

    def enter(self, stage: str) -> None:
        now = time.monotonic()
        self.timings[self.stage] = self.timings.get(self.stage, 0.0) + now - self._mark
        self._mark = now
        self.token.check()
        self.stage = stage

    @contextlib.contextmanager
    def alarm(self) -> Iterator[None]:
        left = self.token.remaining()
        usable = (
            0 < left < float("inf")
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        )
        if not usable:
            yield
            return

        def on_alarm(_signum: int, _frame: object) -> None:
            raise BudgetExceeded

        previous = signal.signal(signal.SIGALRM, on_alarm)
        # Half a second after the deadline: the stages stop at it themselves, the alarm is for
        # code that does not check it (a rule's own loops).
        signal.setitimer(signal.ITIMER_REAL, left + _ALARM_GRACE)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _lint_main(
    main: SourceFile,
    settings: Settings,
    variant: Variant | None,
    loader: Callable[[str], SourceFile],
    result: UnitResult,
    budget: Budget,
    same: SameUnits | None = None,
    stop_after: tuple[str, ...] = (),
    previous: SyntaxTree | None = None,
    lowering: LoweringReuse | None = None,
) -> tuple[Key, pp_stage.PreprocessResult, list[Diagnostic]] | None:
    """Lint into `result`; with `same`, returns what identical units may reuse (its key, the
    preprocessed unit and the findings of its analysis), if they may."""
    path = main.path
    vname = variant.name if variant else None
    pp = _preprocess(main, settings, variant, loader, stop_after)
    result.sources = pp.sources
    result.missing = pp.missing
    for src in pp.sources.values():
        if src.decode_errors:
            at = src.first_decode_error  # the first byte that is not UTF-8
            result.diagnostics.append(
                _engine_diag(
                    "HL005",
                    f"File is not valid UTF-8: {src.decode_errors} byte(s) read as U+FFFD",
                    src,
                    at,
                    at + 1,
                    variant=vname,
                    help="save the file as UTF-8 (the first byte that is not is here)",
                )
            )
        elif src.encoding != "utf-8":
            name = src.encoding.upper()
            message = f"File is {name}: analysed, but --fix does not rewrite it; save it as UTF-8"
            result.diagnostics.append(_engine_diag("HL005", message, src, variant=vname))
    for d in pp.diagnostics:
        origin = pp.sources.get(d.path)
        if origin is not None:
            said = remedies.error_help(origin, d.start) if d.message.startswith("#error") else None
            help, notes = said if said is not None else (None, [])
            result.diagnostics.append(
                _engine_diag(d.code, d.message, origin, d.start, d.end, vname, help, notes)
            )
    analysis = analysis_settings(settings, variant)
    enabled = [
        (cls, tuple(sorted(settings.options_for(cls.code).items())))
        for cls in all_rules()
        if not cls.engine and settings.is_enabled(cls.code, path)
    ]
    key: Key = ()
    if same is not None:
        rule_set = [(cls.code, options) for cls, options in enabled]
        if stop_after:
            key = same.state_key(pp, path, analysis, vname, rule_set, settings.time_budget)
        else:
            key = same.key(pp, analysis, vname, rule_set, settings.time_budget)
        earlier = same.get(key, pp)
        if earlier is not None:
            budget.enter("reusing the findings of an identical unit")
            result.same_as, found = earlier
            result.diagnostics.extend(found)
            result.diagnostics = [d for d in result.diagnostics if settings.is_enabled(d.code, d.path)]
            return None
    tree = parse(pp.text, previous=previous)
    ctx = RuleContext(pp=pp, tree=tree, settings=analysis, variant=vname, path=path, lowering=lowering)
    result.context = ctx
    budget.enter("the syntax check")
    front = len(result.diagnostics)  # what follows comes from the analysis of the expanded text
    for start, end in tree.unparsed:
        diag = _unparsed(ctx, start, end)
        if diag is not None:
            result.diagnostics.append(diag)
    for deep in tree.too_deep:
        what = f"function `{deep.function}`" if deep.function else "the declaration holding it"
        message = (
            f"code nested {deep.depth:,} levels deep (the analysis follows {MAX_DEPTH}): "
            f"{what} is not analysed"
        )
        diag = ctx.make_diagnostic("HL007", "nesting-too-deep", Severity.WARNING, deep.at, message)
        if diag is not None:
            result.diagnostics.append(diag)
    rules = [_rule_instance(cls, options) for cls, options in enabled]
    result.errors.extend(run_rules(ctx, rules, path, on_stage=budget.enter))
    built = ctx.built_model
    if built is not None:  # a rule asked for it: what it found wrong
        for span, (code, message) in sorted(built.problems.items()):
            cls = rule_by_code().get(code)
            if cls is None or not cls.engine or ctx.tree.in_unparsed(*span):
                continue  # a checked rule's (HL008) reports them itself
            diag = ctx.make_diagnostic(code, cls.name, cls.severity, span, message)
            if diag is not None:
                result.diagnostics.append(diag)
    result.context = None
    result.diagnostics.extend(ctx.diagnostics)
    found = result.diagnostics[front:]
    result.diagnostics = [d for d in result.diagnostics if settings.is_enabled(d.code, d.path)]
    result.context = ctx
    return (key, pp, found) if same is not None and not result.errors else None


def _unparsed(ctx: RuleContext, start: int, end: int) -> Diagnostic | None:
    """HL000 for a region the grammar cannot read, naming the undefined macro behind it when a
    name of its lines is used like a macro call or a type that nothing defines."""
    span = (start, max(end, start + 1))
    name = remedies.undefined_name(ctx.text, span[0], span[1], ctx.pp.sources.values())
    if name is None:
        return ctx.make_diagnostic(
            "HL000",
            "unparsed-region",
            Severity.INFO,
            span,
            "The grammar cannot read this code; rules skip it",
        )
    return ctx.make_diagnostic(
        "HL000",
        "unparsed-region",
        Severity.INFO,
        span,
        f"The grammar cannot read this code: `{name}` is not defined",
        help=f"pass the include folder (`-I DIR`) of the header that defines `{name}`, or define it (`-D`)",
        notes=["rules skip the code the grammar cannot read"],
    )


def apply_suppressions(
    diagnostics: list[Diagnostic], sources: Mapping[str, SourceFile], resolver: ConfigResolver
) -> list[Diagnostic]:
    """Drop what `noqa` suppresses, then report unused directives (HL001)."""
    sups: dict[str, Suppressions] = {p: parse_suppressions(s) for p, s in sources.items()}
    kept = []
    for d in diagnostics:
        sup = sups.get(os.path.normpath(d.path))
        if sup is None or not sup.suppresses(d):
            kept.append(d)
    known = set(rule_by_code())
    for path, sup in sups.items():
        if not sup.lines or not resolver.for_path(path).is_enabled("HL001", path):
            continue
        for d in unused_noqa(sources[path], sup, known):
            if not (sup.file_codes is not None and (not sup.file_codes or "HL001" in sup.file_codes)):
                kept.append(d)
    return kept
