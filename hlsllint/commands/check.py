"""`hlsllint check`: lint, fix, report; `--watch`, `--add-noqa`, `--output-file`, `--verbose`."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from typing import IO, Any

from hlsllint.cache import Cache, default_cache_dir
from hlsllint.commands.noqa import add_noqa_all
from hlsllint.config import ConfigResolver
from hlsllint.diagnostics import Diagnostic, Severity
from hlsllint.discovery import discover, force_excluded
from hlsllint.driver import STDIN, LintResult, lint_paths
from hlsllint.fix import apply_fixes, parses_as_well, unified_diff
from hlsllint.output import FORMATS, printer
from hlsllint.progress import ProgressBar
from hlsllint.source import SourceFile
from hlsllint.writing import Refused, signals_raise, write_report, write_source

MAX_FIX_ITERATIONS = 10
MAX_REFUSED_SHOWN = 20
"""--add-noqa lists at most this many of the findings that cannot take a noqa comment."""
CLEAR_SCREEN = "\x1b[2J\x1b[H"
TERMINAL_FORMATS = ("full", "concise", "grouped")
"""The formats printed through rich (`output/text.py`), followed by the summary line."""


def run_check(args: argparse.Namespace, resolver: ConfigResolver) -> int:
    if args.watch:
        return watch(args, resolver)
    return check_once(args, resolver)


def check_once(args: argparse.Namespace, resolver: ConfigResolver) -> int:
    # As ruff: with --stdin-filename and no path, standard input is the only file (not also ".").
    paths = list(args.paths) or ([] if args.stdin_filename else ["."])
    overrides: dict[str, str] = {}
    stdin_name: str | None = None
    if STDIN in paths or args.stdin_filename:
        name = args.stdin_filename or STDIN
        paths = [p for p in paths if p != STDIN]
        data = sys.stdin.buffer.read()
        paths = [p for p in paths if os.path.normpath(p) != os.path.normpath(name)]
        if name != STDIN and force_excluded(name, resolver):
            # As ruff: an excluded --stdin-filename is not linted; --fix passes the text through.
            if args.fix:
                sys.stdout.write(SourceFile.from_bytes(name, data).text)
            if not paths:
                return 0
        else:
            stdin_name = name
            overrides[name] = SourceFile.from_bytes(name, data).text

    missing = [p for p in paths if _absent(p)]
    for p in missing:
        print(f"hlsllint: error: {p}: no such file or folder", file=sys.stderr)
    paths = [p for p in paths if p not in missing]
    if missing and not paths and not overrides:
        return 2

    if args.show_files:
        for f in discover(paths, resolver):
            print(f)
        return 0

    fix_mode = args.fix or args.diff
    cache = None if args.no_cache else Cache(args.cache_dir or default_cache_dir())
    with ProgressBar(not args.quiet and not args.watch) as bar:
        result = lint_paths(
            paths,
            resolver,
            jobs=args.jobs,
            overrides=overrides,
            cache=cache,
            shard=args.shard,
            progress=bar.update,
        )
    if not result.files and args.shard is None and not args.quiet:
        _no_files(paths, resolver)
    if args.verbose:
        _verbose(result)
    if args.add_noqa:
        return _add_noqa(result, stdin_name)
    original_sources = result.sources
    originals = {p: s.text for p, s in original_sources.items()}
    fixed = Counter[str]()
    if fix_mode:
        dropped: dict[tuple[str, int, str], Diagnostic] = {}
        moved: set[str] = set()  # changed on disk while a worker linted them
        for _ in range(MAX_FIX_ITERATIONS):
            moved.update(result.stale)
            texts = {p: s.text for p, s in result.sources.items() if s.writable and p not in moved}
            left_out: list[Diagnostic] = []
            changed = apply_fixes(texts, result.diagnostics, args.unsafe_fixes, parses_as_well, left_out)
            for d in left_out:
                dropped.setdefault((d.path, d.start_offset, d.code), d)
            if not changed:
                break
            for p, fixed_file in changed.items():
                overrides[p] = fixed_file.text
                fixed[p] += fixed_file.fixes
            result = lint_paths(
                paths, resolver, jobs=args.jobs, overrides=overrides, cache=cache, shard=args.shard
            )

        for p in sorted(moved):
            print(f"hlsllint: warning: {p}: changed while it was linted; fixes not applied", file=sys.stderr)
        for d in dropped.values():
            print(
                f"hlsllint: warning: {d.path}:{d.start.row}:{d.start.column}: the fix of {d.code} is not "
                "applied: the code would no longer parse",
                file=sys.stderr,
            )
    changed_paths = [p for p in overrides if p in originals and overrides[p] != originals[p]]
    if args.diff:
        for p in changed_paths:
            sys.stdout.write(unified_diff(p, originals[p], overrides[p]))
        if not args.quiet:
            n = sum(fixed.values())
            if changed_paths:
                print(f"\nWould fix {plural(n, 'finding')}{_hidden(result, args, ' ({})')}.", file=sys.stderr)
            elif _hidden(result, args):
                print(f"No fixes available{_hidden(result, args, ' ({})')}.", file=sys.stderr)
        return 2 if result.errors else (1 if changed_paths else 0)
    failed_write = False
    if args.fix:
        # Each file as it was read (its BOM kept), and the bytes it had then: a file edited on
        # disk since is not written.
        writes = {
            p: (original_sources[p].to_bytes(overrides[p]), original_sources[p].to_bytes())
            for p in changed_paths
            if p != stdin_name
        }
        unwritten, failed_write = write_sources(writes, "fixes")
        if unwritten:  # the report shows those files as they are on disk
            for p in unwritten:
                del overrides[p]
                del fixed[p]
            result = lint_paths(
                paths, resolver, jobs=args.jobs, overrides=overrides, cache=cache, shard=args.shard
            )
        if stdin_name is not None:
            sys.stdout.write(overrides.get(stdin_name, originals.get(stdin_name, "")))
            _report(args, result, fixed, stream=sys.stderr)
            return _exit_code(args, result, fixed, failed_write)

    failed_write = not _write_report(args, result, fixed) or failed_write
    return _exit_code(args, result, fixed, failed_write)


def _no_files(paths: list[str], resolver: ConfigResolver) -> None:
    """ruff's `No Python files found under the given path(s)`: a run that lints nothing says so."""
    where = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    extensions = ", ".join(resolver.for_path(os.path.join(paths[0] if paths else ".", "x")).extensions)
    print(
        f"hlsllint: warning: No HLSL files found under {where or 'the given paths'} "
        f"(extensions: {extensions}; see `hlsllint config extensions`)",
        file=sys.stderr,
    )


def write_sources(files: dict[str, tuple[bytes, bytes]], what: str) -> tuple[list[str], bool]:
    """Write each file's new bytes (given with the bytes it was read with); one that cannot be
    written is named on stderr and the others are written all the same. Returns the files not
    written and whether an OS error (rather than a read-only or changed file) was among them."""
    unwritten: list[str] = []
    failed = False
    with signals_raise():  # SIGTERM mid-write removes the temporary file on its way out
        for path, (data, before) in files.items():
            try:
                write_source(path, data, before)
            except Refused as e:
                print(f"hlsllint: warning: {e}; {what} not written", file=sys.stderr)
                unwritten.append(path)
            except OSError as e:
                why = e.strerror or str(e)
                print(f"hlsllint: error: write {path}: {why}; {what} not written", file=sys.stderr)
                unwritten.append(path)
                failed = True
    return unwritten, failed


def _exit_code(
    args: argparse.Namespace, result: LintResult, fixed: Counter[str], failed_write: bool = False
) -> int:
    if result.errors or failed_write:
        return 2
    if args.exit_non_zero_on_fix and sum(fixed.values()):
        return 1
    if args.exit_zero:
        return 0
    return 1 if any(d.severity.counts_for_exit for d in result.diagnostics) else 0


def _write_report(args: argparse.Namespace, result: LintResult, fixed: Counter[str]) -> bool:
    """The report on stdout, or in `--output-file` (a regular file written whole, atomically; a
    FIFO or a device written into). False when the file could not be written (said on stderr)."""
    if not args.output_file:
        _report(args, result, fixed, stream=sys.stdout)
        return True
    buffer = io.StringIO()
    _report(args, result, fixed, stream=buffer)
    try:
        with signals_raise():
            write_report(args.output_file, buffer.getvalue().encode("utf-8"))
    except (OSError, Refused) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        print(f"hlsllint: error: write {args.output_file}: {why}; the report is not written", file=sys.stderr)
        return False
    return True


def _report(args: argparse.Namespace, result: LintResult, fixed: Counter[str], stream: IO[str]) -> None:
    fmt = args.output_format or os.environ.get("HLSLLINT_OUTPUT_FORMAT") or "full"
    if fmt not in FORMATS:
        fmt = "full"
    for err in result.errors:
        print(f"hlsllint: error: {err}", file=sys.stderr)
    if args.statistics:
        _statistics(result, stream, fmt)
        return
    # The terminal formats print nothing without findings: skipping them then spares importing rich,
    # a tenth of the start-up of the commonest pre-commit run (clean files).
    if result.diagnostics or fmt not in TERMINAL_FORMATS:
        printer(fmt)(result.diagnostics, result.sources, stream, errors=result.errors)
    if fmt in TERMINAL_FORMATS and not args.quiet:
        _summary(result, fixed, args, stream)


def _statistics(result: LintResult, stream: IO[str], fmt: str) -> None:
    counts = Counter(d.code for d in result.diagnostics)
    names = {d.code: d.name for d in result.diagnostics}
    fixable = {d.code for d in result.diagnostics if d.fix is not None}
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if fmt in ("json", "json-lines"):
        data = [{"code": c, "name": names[c], "count": n, "fixable": c in fixable} for c, n in rows]
        stream.write(json.dumps(data, indent=2) + "\n")
        return
    for code, n in rows:
        mark = "[*]" if code in fixable else "   "
        stream.write(f"{n:>5}\t{code}\t{mark} {names[code]}\n")
    stream.write(f"{len(result.diagnostics):>5}\ttotal\n")


def severity_counts(result: LintResult) -> str:
    """`3 warnings, 1 error` (most severe first)."""
    counts = Counter(d.severity for d in result.diagnostics)
    parts = []
    for sev in (Severity.ERROR, Severity.WARNING, Severity.INFO):
        n = counts.get(sev, 0)
        if n:
            noun = {"error": "error", "warning": "warning", "info": "info finding"}[sev.value]
            parts.append(plural(n, noun))
    return ", ".join(parts)


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """`1 finding`, `2 findings`; `nouns` for an irregular plural (`1 hidden fix`, `2 hidden fixes`)."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


def _hidden(result: LintResult, args: argparse.Namespace, template: str = "{}") -> str:
    """`8 hidden fixes can be enabled with the `--unsafe-fixes` option` in `template`, or "" when
    no unsafe fix is held back."""
    if args.unsafe_fixes:
        return ""
    unsafe = sum(1 for d in result.diagnostics if d.fix and d.fix.applicability.value == "unsafe")
    if not unsafe:
        return ""
    hint = f"{plural(unsafe, 'hidden fix', 'hidden fixes')} can be enabled with the `--unsafe-fixes` option"
    return template.format(hint)


def _summary(result: LintResult, fixed: Counter[str], args: argparse.Namespace, stream: IO[str]) -> None:
    remaining = len(result.diagnostics)
    n_fixed = sum(fixed.values())
    if remaining == 0 and n_fixed == 0:
        stream.write("All checks passed!\n")
        return
    if n_fixed and remaining:
        stream.write(f"Fixed {n_fixed}; found {severity_counts(result)} remaining.\n")
    elif n_fixed:
        stream.write(f"Fixed {plural(n_fixed, 'finding')}; none remaining.\n")
    else:
        stream.write(f"Found {severity_counts(result)}.\n")
    safe = sum(1 for d in result.diagnostics if d.fix and d.fix.applicability.value == "safe")
    if safe and not args.fix:
        stream.write(f"[*] {safe} fixable with the `--fix` option{_hidden(result, args, ' ({})')}.\n")
    elif _hidden(result, args):
        stream.write(f"No fixes available{_hidden(result, args, ' ({})')}.\n")


def _verbose(result: LintResult) -> None:
    """Which config each unit used and where its time went (stderr, like ruff's --verbose)."""
    totals: defaultdict[str, float] = defaultdict(float)
    for u in result.units:
        what = u.path + (f" [{u.variant}]" if u.variant else "")
        if u.cut_after:
            what += " up to " + ", ".join(u.cut_after)
        config = u.config or "defaults (no config file)"
        if u.cached:
            print(f"hlsllint: {what}: config {config}; cached", file=sys.stderr)
            continue
        total = sum(u.timings.values())
        stages = ", ".join(f"{name} {t * 1000:.0f} ms" for name, t in u.timings.items())
        alike = "the same state of the header" if u.cut_after else "the same unit"
        same = f"; findings of {u.same_as}, {alike}" if u.same_as else ""
        print(f"hlsllint: {what}: config {config}; {total * 1000:.0f} ms ({stages}){same}", file=sys.stderr)
        for name, t in u.timings.items():
            totals[name.split(" (")[0]] += t
    if totals:
        top = ", ".join(f"{name} {t:.2f} s" for name, t in sorted(totals.items(), key=lambda kv: -kv[1])[:8])
        print(f"hlsllint: time per stage over {plural(len(result.units), 'unit')}: {top}", file=sys.stderr)


def _add_noqa(result: LintResult, stdin: str | None) -> int:
    added = add_noqa_all(result.sources, result.diagnostics, stdin=stdin)
    writes = {path: (data, added.originals[path]) for path, data in added.files.items()}
    unwritten, failed = write_sources(writes, "noqa comments")
    n = added.directives - sum(added.counts.get(p, 0) for p in unwritten)
    print(f"Added {plural(n, 'noqa directive')}.", file=sys.stderr)
    if added.refused:
        k = len(added.refused)
        print(f"{plural(k, 'finding')} cannot take a noqa comment:", file=sys.stderr)
        for d, why in added.refused[:MAX_REFUSED_SHOWN]:
            print(f"  {d.path}:{d.start.row}:{d.start.column}: {d.code} ({why})", file=sys.stderr)
        if k > MAX_REFUSED_SHOWN:
            print(f"  ... and {k - MAX_REFUSED_SHOWN} more", file=sys.stderr)
    return 2 if result.errors or failed else 0


# -- watch ----------------------------------------------------------------------------------------


def snapshot(paths: list[str], resolver: ConfigResolver) -> dict[str, float]:
    """Modification times of everything a run reads: the shaders and the config files."""
    found: dict[str, float] = {}
    files = list(discover(paths, resolver))
    configs = {resolver.for_path(f).config_path for f in files}
    for f in [*files, *(c for c in configs if c)]:
        try:
            found[f] = os.stat(f).st_mtime_ns / 1e9
        except OSError:
            continue
    return found


def changes(
    take: Callable[[], dict[str, float]], interval: float, sleep: Callable[[float], None] = time.sleep
) -> Iterator[None]:
    """Yields once at the start and then each time `take()` differs from the last snapshot."""
    last = take()
    yield
    while True:
        sleep(interval)
        now = take()
        if now != last:
            last = now
            yield


def watch(
    args: argparse.Namespace,
    resolver: ConfigResolver,
    *,
    interval: float = 0.5,
    runs: int | None = None,
    out: Any = None,
) -> int:
    """Lint, then lint again whenever a shader or a config file changes (Ctrl-C stops)."""
    out = out or sys.stdout
    paths = list(args.paths) or ["."]
    status = 0
    for n, _ in enumerate(changes(lambda: snapshot(paths, resolver), interval), start=1):
        if out.isatty():
            out.write(CLEAR_SCREEN)
        stamp = time.strftime("%H:%M:%S")
        out.write(f"[{stamp}] {'Starting linter in watch mode' if n == 1 else 'File change detected'}...\n")
        out.flush()
        status = check_once(args, resolver)
        sys.stdout.flush()
        if runs is not None and n >= runs:
            break
    return status


def _absent(path: str) -> bool:
    """Nothing at `path`. A path in a folder that may not be searched is there: its lint says
    why it cannot be read (HL004), not that it does not exist."""
    try:
        os.stat(path)
    except PermissionError:
        return False
    except (OSError, ValueError):
        return True
    return False
