"""The driver: files → translation units → diagnostics (deduplicated, suppressed, sorted).

A header is analysed as part of the files that include it (its macros often come from the
includer); its findings are reported once, at the header's own lines. A header that no linted
file includes is linted on its own. Files with configured variants are analysed once per
variant.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace

from hlsllint import preprocess as pp_stage
from hlsllint.cache import Cache, content_hash
from hlsllint.checker import run_rules
from hlsllint.config import ConfigResolver, Settings, Variant
from hlsllint.context import AnalysisSettings, RuleContext
from hlsllint.diagnostics import Diagnostic, Severity
from hlsllint.discovery import discover, is_excluded
from hlsllint.includers import file_includes, includers_of
from hlsllint.noqa import Suppressions, parse_suppressions, unused_noqa
from hlsllint.registry import all_rules, rule_by_code
from hlsllint.rule import Rule
from hlsllint.same_units import Key, SameUnits
from hlsllint.source import SourceError, SourceFile
from hlsllint.syntax import SyntaxTree, parse

STDIN = "-"


def tune_gc() -> None:
    """Collect cyclic garbage less often: a lint allocates many short-lived acyclic objects, and
    the default thresholds spend about a quarter of a lint in the collector (bench/lsp_latency.py)."""
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


class FileLoader:
    """Reads and caches source files; `overrides` serves unsaved text (stdin, editor buffers)."""

    def __init__(self, overrides: Mapping[str, str] | None = None) -> None:
        self.overrides = {os.path.normpath(k): v for k, v in (overrides or {}).items()}
        self._cache: dict[str, SourceFile | SourceError] = {}

    def __call__(self, path: str) -> SourceFile:
        key = os.path.normpath(path)
        hit = self._cache.get(key)
        if hit is None:
            try:
                if key in self.overrides:
                    hit = SourceFile(path=path, text=self.overrides[key])
                else:
                    hit = SourceFile.read(path)
            except SourceError as e:
                hit = e
            self._cache[key] = hit
        if isinstance(hit, SourceError):
            raise hit
        return hit


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
) -> pp_stage.PreprocessResult:
    defines = settings.defines + (variant.defines if variant else ())
    include_dirs = (variant.include_dirs if variant else ()) + settings.include_dirs
    options = pp_stage.PreprocessOptions(defines=defines, include_dirs=include_dirs)
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
) -> UnitResult:
    """Lint one translation unit: `path` with its includes, under one define set. With `same`, a
    unit identical to one linted before takes that unit's findings (on its own paths)."""
    loader = loader or FileLoader()
    vname = variant.name if variant else None
    result = UnitResult()
    try:
        main = loader(path)
    except SourceError as e:
        fake = SourceFile(path=path, text="")
        result.diagnostics.append(_engine_diag("HL004", f"Cannot lint file: {e}", fake))
        return result
    budget = _Budget(settings.time_budget)
    try:
        with budget.alarm():
            complete = _lint_main(main, settings, variant, loader, result, budget, same)
        budget.enter("")
        result.timings = budget.timings
        if same is not None and complete is not None:  # within the budget to the end
            same.put(path, *complete)
    except BudgetExceeded:
        pp_stage.clear_cache()  # the lexer cache may hold a half-built entry
        if result.context is not None:
            result.diagnostics.extend(result.context.diagnostics)
        message = (
            f"analysis skipped after {settings.time_budget:g} s: {budget.stage} was still running "
            "(`time-budget`); findings from the rest of the analysis are missing"
        )
        result.diagnostics.append(_engine_diag("HL006", message, main, variant=vname))
        result.diagnostics = [d for d in result.diagnostics if settings.is_enabled(d.code, d.path)]
    return result


class BudgetExceeded(BaseException):
    """Raised when a unit's analysis runs past its time budget (a BaseException, so that the
    `except Exception` around rules does not take it for a crashing rule)."""


class _Budget:
    """A per-unit time limit: checked between stages and rules, and enforced inside a long stage
    by SIGALRM where that is possible (the main thread of a process on a POSIX system)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.stage = "preprocessing and parsing"
        self.start = self._mark = time.monotonic()
        self.timings: dict[str, float] = {}

    def enter(self, stage: str) -> None:
        now = time.monotonic()
        self.timings[self.stage] = self.timings.get(self.stage, 0.0) + now - self._mark
        self._mark = now
        if self.seconds and now - self.start > self.seconds:
            raise BudgetExceeded
        self.stage = stage

    @contextlib.contextmanager
    def alarm(self) -> Iterator[None]:
        usable = (
            self.seconds > 0
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        )
        if not usable:
            yield
            return

        def on_alarm(_signum: int, _frame: object) -> None:
            raise BudgetExceeded

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
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
    budget: _Budget,
    same: SameUnits | None = None,
) -> tuple[Key, pp_stage.PreprocessResult, list[Diagnostic]] | None:
    """Lint into `result`; with `same`, returns what identical units may reuse (its key, the
    preprocessed unit and the findings of its analysis), if they may."""
    path = main.path
    vname = variant.name if variant else None
    pp = _preprocess(main, settings, variant, loader)
    result.sources = pp.sources
    result.missing = pp.missing
    for src in pp.sources.values():
        if src.decode_errors:
            result.diagnostics.append(
                _engine_diag(
                    "HL005",
                    f"File is not valid UTF-8: {src.decode_errors} byte(s) read as U+FFFD",
                    src,
                    variant=vname,
                )
            )
        elif src.encoding != "utf-8":
            message = "File is UTF-16: analysed, but --fix does not rewrite it; save it as UTF-8"
            result.diagnostics.append(_engine_diag("HL005", message, src, variant=vname))
    for d in pp.diagnostics:
        origin = pp.sources.get(d.path)
        if origin is not None:
            result.diagnostics.append(_engine_diag(d.code, d.message, origin, d.start, d.end, vname))
    analysis = analysis_settings(settings, variant)
    enabled = [
        (cls, tuple(sorted(settings.options_for(cls.code).items())))
        for cls in all_rules()
        if not cls.engine and settings.is_enabled(cls.code, path)
    ]
    key: Key = ()
    if same is not None:
        rule_set = [(cls.code, options) for cls, options in enabled]
        key = same.key(pp, analysis, vname, rule_set, settings.time_budget)
        earlier = same.get(key, pp)
        if earlier is not None:
            budget.enter("reusing the findings of an identical unit")
            result.same_as, found = earlier
            result.diagnostics.extend(found)
            result.diagnostics = [d for d in result.diagnostics if settings.is_enabled(d.code, d.path)]
            return None
    tree = parse(pp.text)
    ctx = RuleContext(pp=pp, tree=tree, settings=analysis, variant=vname)
    result.context = ctx
    budget.enter("the syntax check")
    front = len(result.diagnostics)  # what follows comes from the analysis of the expanded text
    for start, end in tree.unparsed:
        diag = ctx.make_diagnostic(
            "HL000",
            "unparsed-region",
            Severity.INFO,
            (start, max(end, start + 1)),
            "The grammar cannot read this code; rules skip it",
        )
        if diag is not None:
            result.diagnostics.append(diag)
    rules = [_rule_instance(cls, options) for cls, options in enabled]
    result.errors.extend(run_rules(ctx, rules, path, on_stage=budget.enter))
    result.context = None
    result.diagnostics.extend(ctx.diagnostics)
    found = result.diagnostics[front:]
    result.diagnostics = [d for d in result.diagnostics if settings.is_enabled(d.code, d.path)]
    result.context = ctx
    return (key, pp, found) if same is not None and not result.errors else None


# -- many files -------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnitInfo:
    """How one translation unit was linted (`--verbose`)."""

    path: str
    variant: str | None
    config: str | None
    cached: bool
    timings: dict[str, float]
    same_as: str | None = None
    """The earlier unit of the run with the same content, whose findings this unit took."""


@dataclass
class LintResult:
    diagnostics: list[Diagnostic]
    sources: dict[str, SourceFile]
    files: list[str]
    errors: list[str]
    units: list[UnitInfo] = field(default_factory=list)


@dataclass(frozen=True)
class _Unit:
    path: str
    settings: Settings
    variant: Variant | None


_WORKER_LOADER: FileLoader | None = None
"""The files of the run, read once per worker process (set by the pool's initializer)."""


def _init_worker(overrides: Mapping[str, str]) -> None:
    global _WORKER_LOADER
    _WORKER_LOADER = FileLoader(overrides)


def _run_unit(
    unit: _Unit,
    overrides: Mapping[str, str],
    loader: FileLoader | None = None,
    same: SameUnits | None = None,
) -> UnitResult:
    """Lint one unit of a run. The units of a run share one loader per process (`loader`, else the
    worker's), so that a header is read and decoded once per run rather than once per unit, and
    the findings of the units linted so far (`same`)."""
    loader = loader or _WORKER_LOADER or FileLoader(overrides)
    result = lint_unit(unit.path, unit.settings, unit.variant, loader, same)
    result.deps = {os.path.normpath(p): content_hash(s) for p, s in result.sources.items()}
    result.sources = {}  # the main process has its own copies; don't pickle them back
    result.context = None
    return result


def _run_group(units: Sequence[_Unit], overrides: Mapping[str, str]) -> list[UnitResult]:
    """Lint units in turn in one worker (units whose main files have the same content: copies)."""
    same = SameUnits()
    return [_run_unit(u, overrides, same=same) for u in units]


def _plan_units(
    files: list[str], resolver: ConfigResolver, loader: FileLoader, alone: frozenset[str] = frozenset()
) -> list[_Unit]:
    """Translation units: every file that no other linted file includes, once per variant. A file
    in `alone` (passed by name) that no linted file includes but other files of its project do is
    analysed through those includers instead (a header passed alone, as pre-commit does)."""
    includes = {f: file_includes(f, resolver, loader) for f in files}
    linted = set(files)
    included = {t for f, ts in includes.items() for t in ts if t != f and t in linted}
    roots = [f for f in files if f not in included]
    # Files reached only through include cycles get linted on their own too.
    reached: set[str] = set()
    stack = list(roots)
    while stack:
        f = stack.pop()
        if f in reached:
            continue
        reached.add(f)
        stack.extend(t for t in includes.get(f, ()) if t in linted)
    roots += [f for f in files if f not in reached]
    through = includers_of([f for f in roots if f in alone], resolver, loader) if alone else {}
    planned: list[str] = []
    for f in roots:
        planned += through.get(f) or [f]
    units: list[_Unit] = []
    for f in dict.fromkeys(planned):
        settings = resolver.for_path(f)
        variants: list[Variant | None] = list(settings.variants_for(f)) or [None]
        units.extend(_Unit(f, settings, v) for v in variants)
    return units


Progress = Callable[[int, int], None]
"""Called as units finish: (units done, units to lint)."""


def shard_units(units: Sequence[_Unit], shard: tuple[int, int], size: Callable[[str], int]) -> list[_Unit]:
    """Shard K of N (1-based): units dealt largest first to the least-loaded shard (ties: lowest
    index), so shards are balanced by size and the split depends only on the files."""
    k, n = shard
    by_size = sorted(range(len(units)), key=lambda i: (-size(units[i].path), units[i].path, i))
    loads = [0] * n
    mine: list[int] = []
    for i in by_size:
        target = min(range(n), key=lambda j: (loads[j], j))
        loads[target] += max(1, size(units[i].path))
        if target == k - 1:
            mine.append(i)
    return [units[i] for i in sorted(mine)]


def lint_paths(
    paths: Sequence[str],
    resolver: ConfigResolver,
    *,
    jobs: int | None = None,
    overrides: Mapping[str, str] | None = None,
    cache: Cache | None = None,
    shard: tuple[int, int] | None = None,
    progress: Progress | None = None,
) -> LintResult:
    """Lint files and folders. With `cache`, units whose files are unchanged are not re-linted;
    with `shard=(K, N)` only the K-th of N balanced parts of the units is linted (and reported)."""
    overrides = dict(overrides or {})
    loader = FileLoader(overrides)
    files = list(discover([p for p in paths if p not in overrides], resolver))
    files += [os.path.normpath(p) for p in overrides if os.path.normpath(p) not in files]
    alone = frozenset(os.path.normpath(p) for p in paths if p not in overrides and os.path.isfile(p))
    units = _plan_units(files, resolver, loader, alone)
    if shard is not None:
        units = shard_units(units, shard, lambda p: _size(loader, p))

    results: list[UnitResult | None] = [None] * len(units)
    keys: list[str] = []
    if cache is not None:
        cache.new_run()
        for i, u in enumerate(units):
            keys.append(cache.key(u.path, u.settings, u.variant))
            hit = cache.get(keys[i], loader)
            if hit is not None:
                results[i] = UnitResult(diagnostics=hit.diagnostics, deps=hit.deps)
    todo = [i for i, r in enumerate(results) if r is None]
    jobs = jobs or os.cpu_count() or 1
    for n, (i, done) in enumerate(_run_units(units, todo, overrides, jobs, loader), start=1):
        results[i] = done
        if cache is not None and _cacheable(done):
            cache.put(keys[i], done.diagnostics, done.deps, done.missing)
        if progress is not None:
            progress(n, len(todo))
    if cache is not None:
        cache.close()

    linted = set(files)
    covered: set[str] | None = None
    if shard is not None:  # what this shard's units cover: their own files and their includes
        covered = {u.path for u in units} | {p for r in results if r for p in r.deps}
        linted &= covered
    folders = [p for p in paths if p not in overrides and os.path.isdir(p)]
    scope = Scope(linted, folders, resolver, covered)
    errors = [e for r in results if r is not None for e in r.errors]
    found = [(u.path, d) for u, r in zip(units, results, strict=True) if r for d in r.diagnostics]
    diagnostics = merge_variants([(u, d) for u, d in found if scope.contains(d.path)])
    sources: dict[str, SourceFile] = {}
    for f in [*files, *(os.path.normpath(d.path) for d in diagnostics)]:
        if f not in sources and (f in linted or scope.contains(f)):
            with contextlib.suppress(SourceError):
                sources[f] = loader(f)
    diagnostics = apply_suppressions(diagnostics, sources, resolver)
    diagnostics.sort(key=Diagnostic.sort_key)
    fresh = set(todo)
    infos = [
        UnitInfo(
            u.path,
            u.variant.name if u.variant else None,
            u.settings.config_path,
            i not in fresh,
            r.timings if r is not None else {},
            r.same_as if r is not None else None,
        )
        for i, (u, r) in enumerate(zip(units, results, strict=True))
    ]
    return LintResult(diagnostics, sources, [f for f in files if f in linted], errors, infos)


def _run_units(
    units: Sequence[_Unit], todo: list[int], overrides: Mapping[str, str], jobs: int, loader: FileLoader
) -> Iterator[tuple[int, UnitResult]]:
    """(index, result) of each unit in `todo`, in the order they finish. A unit identical to one
    linted before in the same process takes its findings (`SameUnits`); with workers, units that
    look like copies (`_copies_key`) go to the same worker, so that they meet. Workers take the
    largest units first, so that one big shader does not start last and hold up the end of the
    run."""
    if jobs <= 1 or len(todo) <= 1:
        same = SameUnits()
        for i in todo:
            yield i, _run_unit(units[i], overrides, loader, same)
        return
    groups: dict[tuple[str | None, ...], list[int]] = {}
    for i in todo:
        groups.setdefault(_copies_key(loader, units[i]), []).append(i)
    ordered = sorted(groups.values(), key=lambda g: (-_size(loader, units[g[0]].path), g[0]))
    workers = min(jobs, len(ordered))
    # The rules are imported here, before the workers start: forked workers inherit them rather
    # than each importing them (a fixed cost of every worker, which held a small folder's -j 2
    # back: FidelityFX-SDK compiled, 0.52 s -> 0.38 s against 0.60 s at -j 1).
    all_rules()
    with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(overrides,)) as pool:
        futures = {pool.submit(_run_group, [units[i] for i in g], overrides): g for g in ordered}
        for future in as_completed(futures):
            yield from zip(futures[future], future.result(), strict=True)


class Scope:
    """Where findings are reported (ruff's rule for files): the linted files, and every file
    under a folder that was passed (a header with an extension that is not linted on its own,
    such as `.h`), minus excluded ones. A header that is only included is analysed but its
    findings are not reported unless it is in scope."""

    def __init__(
        self,
        linted: set[str],
        folders: Sequence[str],
        resolver: ConfigResolver,
        covered: set[str] | None = None,
    ) -> None:
        self.linted = {os.path.abspath(p) for p in linted}
        self.covered = None if covered is None else {os.path.abspath(p) for p in covered}
        self.folders = [os.path.abspath(f).rstrip(os.sep) + os.sep for f in folders]
        self.resolver = resolver
        self._memo: dict[str, bool] = {}

    def contains(self, path: str) -> bool:
        full = os.path.abspath(path)
        hit = self._memo.get(full)
        if hit is None:
            hit = full in self.linted or (
                any(full.startswith(f) for f in self.folders)
                and (self.covered is None or full in self.covered)
                and not any(
                    is_excluded(d, self.resolver.for_path(full), is_dir=True)
                    for d in _parents(full, self.folders)
                )
                and not is_excluded(full, self.resolver.for_path(full))
            )
            self._memo[full] = hit
        return hit


def _parents(path: str, folders: Sequence[str]) -> list[str]:
    """The folders between a passed folder and `path`."""
    top = next(f for f in folders if path.startswith(f))
    out = []
    d = os.path.dirname(path)
    while len(d) + 1 > len(top):
        out.append(d)
        d = os.path.dirname(d)
    return out


def merge_variants(found: Sequence[tuple[str, Diagnostic]], most: int = 3) -> list[Diagnostic]:
    """One finding per place and code: the same line seen under several variants or includers
    (a header) is reported once, naming the variants (or includers) that saw it; its message is
    the first unit's (units are in file order)."""
    groups: dict[tuple[str, str, int, int], list[tuple[str, Diagnostic]]] = {}
    for unit_path, d in found:
        key = (os.path.normpath(d.path), d.code, d.start.row, d.start.column)
        groups.setdefault(key, []).append((unit_path, d))
    out = []
    for group in groups.values():
        first = group[0][1]
        labels = list(dict.fromkeys(_label(u, d) for u, d in group))
        named = [x for x in labels if x]
        if len(labels) > 1 or first.variant:
            shown = named[:most] + ([f"+{len(named) - most} more"] if len(named) > most else [])
            first = dataclasses.replace(first, variant=", ".join(shown))
        out.append(first)
    return out


def _label(unit_path: str, d: Diagnostic) -> str:
    if d.variant:
        return d.variant
    if os.path.normpath(unit_path) != os.path.normpath(d.path):
        return f"via {os.path.basename(unit_path)}"
    return ""


def _cacheable(result: UnitResult) -> bool:
    """Results that depend on more than the files (a crash, a time budget) are not stored."""
    return not result.errors and not any(d.code == "HL006" for d in result.diagnostics)


def _copies_key(loader: FileLoader, unit: _Unit) -> tuple[str | None, ...]:
    """What copies of a unit share before it is preprocessed: the variant's name, the main file's
    text and the texts of the files it includes directly (a wrapper such as `#include "x.hlsli"`
    in many folders is a copy only where x.hlsli is one). A main file that cannot be read is a
    group of its own."""
    text = _text_or_none(loader, unit.path)
    if text is None:
        return (unit.path,)
    dirs = (unit.variant.include_dirs if unit.variant else ()) + unit.settings.include_dirs
    targets = [
        pp_stage.resolve_include(n, unit.path, dirs, angled)
        for n, angled, _, _ in pp_stage.scan_includes(text)
    ]
    included = [_text_or_none(loader, t) if t else None for t in targets]
    return (unit.variant.name if unit.variant else None, text, *included)


def _text_or_none(loader: FileLoader, path: str) -> str | None:
    try:
        return loader(path).text
    except SourceError:
        return None


def _size(loader: FileLoader, path: str) -> int:
    try:
        return len(loader(path).text)
    except SourceError:
        return 0


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
