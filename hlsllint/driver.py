"""The driver: files → translation units → diagnostics (deduplicated, suppressed, sorted).

A header is analysed as part of the files that include it (its macros often come from the
includer); its findings are reported once, at the header's own lines. A header that no linted
file includes is linted on its own. Files with configured variants are analysed once per
variant. Units are linted in this process and, with `jobs` above one, in worker processes too
(`lint.py` lints one unit).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from hlsllint.cache import Cache, content_hash
from hlsllint.config import ConfigResolver, Settings, Variant
from hlsllint.diagnostics import Diagnostic
from hlsllint.discovery import discover, is_excluded
from hlsllint.includers import (
    direct_includes,
    headers_reached,
    includers_of,
    project_root,
    translation_units,
)
from hlsllint.lint import FileLoader, UnitResult, apply_suppressions, lint_unit, no_collection
from hlsllint.registry import all_rules
from hlsllint.remedies import IncludeSearch, include_help
from hlsllint.same_units import SameUnits
from hlsllint.source import SourceError, SourceFile

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess
    from multiprocessing.synchronize import Lock

STDIN = "-"

START_METHOD: Literal["fork", "spawn"] | None = "fork" if sys.platform == "linux" else None
"""How `-j N` starts its workers: forked on Linux, so that they inherit the imported rules and the
plan; elsewhere `multiprocessing`'s default (spawn on Windows and macOS), which pickles the plan."""


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
    cut_after: tuple[str, ...] = ()
    """The headers passed alone after which this includer's unit ended (`_Unit.stop_after`)."""


@dataclass
class LintResult:
    diagnostics: list[Diagnostic]
    sources: dict[str, SourceFile]
    files: list[str]
    errors: list[str]
    units: list[UnitInfo] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    """Files of `sources` whose text is not the one a unit's findings come from: a worker read
    them (`-j N`) before or after they changed. Fixes are never applied to them."""


@dataclass(frozen=True)
class _Unit:
    path: str
    settings: Settings
    variant: Variant | None
    stop_after: tuple[str, ...] = ()
    """For headers passed alone: those this includer includes, after which its unit ends."""


def _run_unit(unit: _Unit, loader: FileLoader, same: SameUnits | None = None) -> UnitResult:
    """Lint one unit of a run. The units of a run share one loader per process, so that a header
    is read and decoded once per run rather than once per unit, and the findings of the units
    linted so far (`same`).

    No cyclic garbage collection runs inside: a unit leaves no cyclic garbage
    (`tests/test_unit_lifetime.py`), and its objects live until its context is dropped here,
    so a collection in the middle would only walk them in vain (SpartanEngine `g_buffer`, a
    collection of 100,000 young objects every 100,000 made, 20-45 ms each, finding nothing)."""
    with no_collection():
        result = lint_unit(unit.path, unit.settings, unit.variant, loader, same, stop_after=unit.stop_after)
        result.deps = {os.path.normpath(p): content_hash(s) for p, s in result.sources.items()}
        result.sources = {}  # the main process has its own copies; don't pickle them back
        result.context = None
    return result


def _run_group(units: Sequence[_Unit], loader: FileLoader) -> list[UnitResult]:
    """Lint units in turn in one process (units whose main files have the same content: copies)."""
    same = SameUnits()
    return [_run_unit(u, loader, same) for u in units]


class _IncludeScan:
    """The `#include` lines of a run's files, resolved under a unit's include folders (whatever
    the #if around them), scanned once per file and folder list."""

    def __init__(self, loader: FileLoader) -> None:
        self.loader = loader
        self._direct: dict[tuple[str, tuple[str, ...]], list[str | None]] = {}

    def direct(self, path: str, dirs: tuple[str, ...]) -> list[str | None]:
        """`includers.direct_includes`, once per file and folder list."""
        key = (path, dirs)
        found = self._direct.get(key)
        if found is None:
            found = self._direct[key] = direct_includes(path, dirs, self.loader)
        return found

    def resolved(self, path: str, dirs: tuple[str, ...]) -> set[str]:
        """The files `path` includes that resolve (`includers.file_includes`, through this memo)."""
        return {os.path.normpath(t) for t in self.direct(path, dirs) if t}

    def copies_key(self, unit: _Unit) -> tuple[str | None, ...]:
        """What copies of a unit share before it is preprocessed: the variant's name, the main
        file's text and the texts of the files it includes directly (a wrapper such as
        `#include "x.hlsli"` in many folders is a copy only where x.hlsli is one). A main file
        that cannot be read is a group of its own."""
        text = _text_or_none(self.loader, unit.path)
        if text is None:
            return (unit.path,)
        if unit.stop_after:  # headers' includers: together, to share the headers' states
            return (unit.variant.name if unit.variant else None, None)
        included = [_text_or_none(self.loader, t) if t else None for t in self.direct(unit.path, _dirs(unit))]
        return (unit.variant.name if unit.variant else None, text, *included)

    def reach_size(self, unit: _Unit) -> int:
        """The characters of a unit's main file and of every file it may include, directly or
        not: what its cost follows best before it is preprocessed (the main file's size alone
        misses a small file that includes large headers; `bench/worker_balance.py --order`)."""
        dirs = _dirs(unit)
        seen: set[str] = set()
        stack = [unit.path]
        while stack:
            path = os.path.normpath(stack.pop())
            if path not in seen:
                seen.add(path)
                stack.extend(t for t in self.direct(path, dirs) if t)
        return sum(_size(self.loader, p) for p in seen)


def _dirs(unit: _Unit) -> tuple[str, ...]:
    return (unit.variant.include_dirs if unit.variant else ()) + unit.settings.include_dirs


def _plan_units(
    files: list[str],
    resolver: ConfigResolver,
    loader: FileLoader,
    alone: frozenset[str] = frozenset(),
    scan: _IncludeScan | None = None,
) -> list[_Unit]:
    """Translation units: every file that no other linted file includes, once per variant. A file
    in `alone` (passed by name) that no linted file includes but other files of its project do is
    analysed through those includers instead (a header passed alone, as pre-commit does), each
    cut after the headers (`_Unit.stop_after`): the header in every state its includers give it,
    each state analysed once (`lint_unit`)."""
    scan = scan or _IncludeScan(loader)
    includes = {f: scan.resolved(f, resolver.for_path(f).include_dirs) for f in files}
    roots = translation_units(files, includes)
    # A header that cannot be read is linted on its own: its HL004 is its own, not its includers'.
    headers = [f for f in roots if f in alone and _text_or_none(loader, f) is not None]
    through = includers_of(headers, resolver, loader) if headers else {}
    whole = {f for f in roots if not through.get(f)}
    planned: dict[str, bool] = {}  # file -> whether its unit is cut after the headers passed alone
    for f in roots:
        for t in through.get(f) or [f]:
            # An includer linted whole (passed too) covers the headers already.
            planned.setdefault(t, t != f and t not in whole)
    passed = [f for f in files if f in alone]
    units: list[_Unit] = []
    for f, cut in planned.items():
        # Cut after every header passed alone that it may include (also through another passed
        # header, or beside it): the findings there are the ones its whole unit gave them.
        stop = tuple(headers_reached(f, passed, resolver, loader)) if cut else ()
        settings = resolver.for_path(f)
        variants: list[Variant | None] = list(settings.variants_for(f)) or [None]
        units.extend(_Unit(f, settings, v, stop) for v in variants)
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
    loader = FileLoader(overrides, resolver)
    files = list(discover([p for p in paths if p not in overrides], resolver))
    files += [os.path.normpath(p) for p in overrides if os.path.normpath(p) not in files]
    alone = frozenset(os.path.normpath(p) for p in paths if p not in overrides and os.path.isfile(p))
    scan = _IncludeScan(loader)  # planning's scans, which -j N's ordering reuses
    units = _plan_units(files, resolver, loader, alone, scan)
    if shard is not None:
        units = shard_units(units, shard, lambda p: _size(loader, p))

    results: list[UnitResult | None] = [None] * len(units)
    keys: list[str] = []
    if cache is not None:
        cache.new_run()
        for i, u in enumerate(units):
            keys.append(cache.key(u.path, u.settings, u.variant, u.stop_after))
            hit = cache.get(keys[i], loader)
            if hit is not None:
                results[i] = UnitResult(diagnostics=hit.diagnostics, deps=hit.deps)
    todo = [i for i, r in enumerate(results) if r is None]
    jobs = jobs or usable_cpus()
    for n, (i, done) in enumerate(_run_units(units, todo, jobs, scan), start=1):
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
    found = [(u, d) for u, r in zip(units, results, strict=True) if r for d in r.diagnostics]
    found = [(u, d) for u, d in found if scope.contains(d.path)]
    if any(d.code == "HL002" for _u, d in found):
        found = _include_help(found, paths, resolver)
    diagnostics = merge_variants([(u.path, d) for u, d in found])
    sources: dict[str, SourceFile] = {}
    for f in [*files, *(os.path.normpath(d.path) for d in diagnostics)]:
        if f not in sources and (f in linted or scope.contains(f)):
            with contextlib.suppress(SourceError):
                sources[f] = loader(f)
    stale = _stale(sources, results)
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
            u.stop_after,
        )
        for i, (u, r) in enumerate(zip(units, results, strict=True))
    ]
    return LintResult(diagnostics, sources, [f for f in files if f in linted], errors, infos, stale)


def _stale(sources: Mapping[str, SourceFile], results: Sequence[UnitResult | None]) -> list[str]:
    """The files whose text here is not the one a unit read (its content hash in the unit's
    deps): a worker process reads the files itself, so a file edited meanwhile differs."""
    hashes: dict[str, str] = {}
    stale: set[str] = set()
    for r in results:
        for path, digest in (r.deps if r is not None else {}).items():
            source = sources.get(path)
            if source is None or path in stale:
                continue
            if path not in hashes:
                hashes[path] = content_hash(source)
            if hashes[path] != digest:
                stale.add(path)
    return sorted(stale)


def usable_cpus() -> int:
    """The processors this process may run on (`taskset`, a container's cpuset), which
    `os.cpu_count()` ignores: the default `-j`."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _run_units(
    units: Sequence[_Unit], todo: list[int], jobs: int, scan: _IncludeScan
) -> Iterator[tuple[int, UnitResult]]:
    """(index, result) of each unit in `todo`, in the order they finish. A unit identical to one
    linted before in the same process takes its findings (`SameUnits`); with `jobs` above one,
    units that look like copies (`_IncludeScan.copies_key`) form a group, linted in one process
    so that they meet.

    `jobs` counts this process: it lints too, beside `jobs - 1` workers. The workers take the
    groups largest first (`_IncludeScan.reach_size`), so that one big shader does not start
    last and hold up the end of the run; this process takes them from the other end, smallest
    first (`_run_groups`). The two meet in the middle: nothing waits for a worker to start, and
    no process is left idle competing for a core with the others."""
    loader = scan.loader
    if jobs > 1 and len(todo) > 1:
        groups: dict[tuple[str | None, ...], list[int]] = {}
        for i in todo:
            groups.setdefault(scan.copies_key(units[i]), []).append(i)
        cost = {g[0]: scan.reach_size(units[g[0]]) for g in groups.values()}  # copies cost little
        ordered = sorted(groups.values(), key=lambda g: (-cost[g[0]], g[0]))
        if len(ordered) > 1:
            yield from _run_groups(units, ordered, min(jobs, len(ordered)) - 1, loader)
            return
    same = SameUnits()
    for i in todo:
        yield i, _run_unit(units[i], loader, same)


def _run_groups(
    units: Sequence[_Unit],
    ordered: list[list[int]],
    workers: int,
    loader: FileLoader,
) -> Iterator[tuple[int, UnitResult]]:
    """`_run_units` with `workers` worker processes and this one.

    The groups sit in one list that every process knows (forked workers inherit it) and two
    shared indices bound what is left of it: a worker takes the group at the front, this
    process the one at the back, under one lock. A worker sends each group's results down its
    own pipe, which this process reads between its groups and at the end. Nothing feeds the
    workers, so no thread of this process has to win the interpreter lock from the linting for
    a worker to go on. A worker that dies (killed, out of memory, a crash in native code) costs
    the findings of the group it held, which this process reports as an error, and no more: the
    groups it had not taken are linted by the others. A worker never outlives this process
    (`_outlive_no_parent`): killed with it, it would otherwise lint on and block for ever on a
    full pipe that nobody reads."""
    import multiprocessing
    from multiprocessing.connection import wait

    # The rules are imported here, before the workers start: forked workers inherit them rather
    # than each importing them (a fixed cost of every worker, which held a small folder's -j 2
    # back: FidelityFX-SDK compiled, 0.52 s -> 0.38 s against 0.60 s at -j 1).
    all_rules()
    ctx = multiprocessing.get_context(START_METHOD)
    plan = [[units[i] for i in g] for g in ordered]
    lock = ctx.Lock()
    bounds = ctx.RawArray("l", [0, len(plan)])  # [next group for a worker, one past this process's next]
    holding = ctx.RawArray("l", [-1] * workers)  # the group each worker took last
    procs: list[BaseProcess] = []
    pipes: dict[Connection, int] = {}
    forked = ctx.get_start_method() == "fork"
    try:
        for w in range(workers):
            reader, writer = ctx.Pipe(duplex=False)
            # A forked worker inherits this process's read ends (its own pipe's among them): it
            # closes them, so that a write to a pipe nobody reads any more fails.
            inherited = [*pipes, reader] if forked else []
            proc = ctx.Process(
                target=_worker,
                args=(
                    w,
                    writer,
                    inherited,
                    os.getpid(),
                    plan,
                    loader.overrides,
                    loader.resolver,
                    lock,
                    bounds,
                    holding,
                ),
                name=f"hlsllint-worker-{w}",
                daemon=True,
            )
            proc.start()
            writer.close()  # the worker's end: its death closes the pipe
            procs.append(proc)
            pipes[reader] = w
        reported: set[int] = set()  # groups the workers sent

        def ready(timeout: float | None) -> list[Connection]:
            """The pipes with results, or at their end, waiting up to `timeout` for one."""
            found = set(wait(list(pipes), timeout))
            return [conn for conn in pipes if conn in found]

        def receive(conns: list[Connection]) -> Iterator[tuple[int, UnitResult]]:
            for conn in conns:
                try:
                    k, results = conn.recv()
                except EOFError:  # the worker is gone: its last group has no results
                    w = pipes.pop(conn)
                    k = holding[w]
                    if k >= 0 and k not in reported:
                        reported.add(k)
                        yield from zip(ordered[k], _lost(plan[k], procs[w]), strict=True)
                    continue
                reported.add(k)
                yield from zip(ordered[k], results, strict=True)

        while True:
            with lock:
                k = bounds[1] - 1
                if k < bounds[0]:
                    break
                bounds[1] = k
            results = _run_group(plan[k], loader)
            yield from zip(ordered[k], results, strict=True)
            yield from receive(ready(0.0))
        while pipes:
            yield from receive(ready(None))
    finally:
        for worker in procs:
            if worker.is_alive():
                worker.terminate()  # interrupted (Ctrl-C): the workers stop with this process
            worker.join()


def _worker(
    w: int,
    conn: Connection,
    inherited: list[Connection],
    parent: int,
    plan: list[list[_Unit]],
    overrides: Mapping[str, str],
    resolver: ConfigResolver | None,
    lock: Lock,
    bounds: Any,
    holding: Any,
) -> None:
    """A worker process of `_run_groups`: lints the groups at the front of the plan until the
    processes meet, sending each group's results; its pipe closes when it ends. It ends too when
    the main process is gone (`_outlive_no_parent`)."""
    _outlive_no_parent(parent)
    for other in inherited:
        other.close()
    loader = FileLoader(overrides, resolver)  # the run's files, read once in this process
    try:
        while True:
            while not lock.acquire(timeout=_PARENT_CHECK_SECONDS):
                if not _parent_alive(parent):  # it died holding the lock
                    return
            try:
                k = bounds[0]
                if k >= bounds[1]:
                    return
                bounds[0] = k + 1
                holding[w] = k
            finally:
                lock.release()
            if not _parent_alive(parent):
                return
            conn.send((k, _run_group(plan[k], loader)))
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group: the main process reports it
        return
    except (BrokenPipeError, ConnectionResetError):  # nobody reads the results: the run is over
        return
    finally:
        conn.close()


_PARENT_CHECK_SECONDS = 0.5
"""How often a worker waiting for the plan's lock checks that the main process is still there."""

PR_SET_PDEATHSIG = 1


def _outlive_no_parent(parent: int) -> None:
    """Make this worker die with the main process `parent`. On Linux the kernel kills it when
    the main process dies (`prctl(PR_SET_PDEATHSIG, SIGKILL)`); if the main process died before
    that took effect, this process has been handed to another parent already and exits now.
    Elsewhere the worker notices between groups (`_parent_alive`), and a result it sends to a
    dead main process fails (it holds no read end of its pipe)."""
    if sys.platform == "linux":
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if not _parent_alive(parent):
        os._exit(1)


def _parent_alive(parent: int) -> bool:
    """Whether the main process that started this worker is still running."""
    if os.getppid() != parent and sys.platform != "win32":  # handed to another parent: orphaned
        return False
    import multiprocessing

    there = multiprocessing.parent_process()
    return there is None or there.is_alive()


def _lost(group: list[_Unit], proc: BaseProcess) -> list[UnitResult]:
    """What a group has to show when the worker linting it died: an error naming the unit."""
    proc.join()
    code = proc.exitcode
    how = f"exited with code {code}"
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            how = f"was killed by {signal.Signals(-code).name}"
    copies = f" (and {len(group) - 1} copies of it)" if len(group) > 1 else ""
    error = f"{group[0].path}{copies}: the worker process linting it {how}; its findings are missing"
    return [UnitResult(errors=[error] if i == 0 else []) for i in range(len(group))]


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
    """One finding per place, code and text: the same finding seen under several variants or
    includers (a header) is reported once, naming the variants (or includers) that saw it.
    Findings whose texts differ there (figures that depend on the includer's or the variant's
    defines: registers, occupancy) stay apart, each naming its own, so that no figure is shown
    for a variant it was not measured in. A finding seen through an includer always names it,
    even alone: its figures are the includer's, not the file's own (`hlsllint pressure FILE`)."""
    groups: dict[tuple[str, str, int, int, str], list[tuple[str, Diagnostic]]] = {}
    seen: set[tuple[str, str | None, str, str, int, int]] = set()
    for unit_path, d in found:
        place = (unit_path, d.variant, os.path.normpath(d.path), d.code, d.start.row, d.start.column)
        if place in seen:
            continue  # one unit's findings are one per place and code: its first
        seen.add(place)
        text = "\0".join([d.long_message(), *(r.message for r in d.related)])
        key = (os.path.normpath(d.path), d.code, d.start.row, d.start.column, text)
        groups.setdefault(key, []).append((unit_path, d))
    out = []
    for group in groups.values():
        first = group[0][1]
        named = [x for x in dict.fromkeys(_label(u, d) for u, d in group) if x]
        if named:
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


def _include_help(
    found: list[tuple[_Unit, Diagnostic]], paths: Sequence[str], resolver: ConfigResolver
) -> list[tuple[_Unit, Diagnostic]]:
    """HL002 findings with where their include was looked for and, when a file of that name lies
    under the linted folders or the unit's project, the `-I` that finds it. Added after the cache,
    not kept in it: the answer depends on files the unit never read."""
    search = IncludeSearch()
    passed = [p if os.path.isdir(p) else os.path.dirname(p) or "." for p in paths if os.path.exists(p)]
    out = []
    for u, d in found:
        if d.code == "HL002":
            root = project_root(u.path, resolver)
            roots = passed + ([root] if root else [])
            s = u.settings
            config = (s.config_path, s.root) if s.config_path else None
            d = include_help(d, _dirs(u), search, roots, config)
        out.append((u, d))
    return out


def _cacheable(result: UnitResult) -> bool:
    """Results that depend on more than the files (a crash, a time budget) are not stored."""
    return not result.errors and not any(d.code == "HL006" for d in result.diagnostics)


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
