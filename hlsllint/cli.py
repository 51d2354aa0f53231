"""The command line, shaped after ruff's: `hlsllint [check] PATH...`, `hlsllint rule`, ...

Exit codes: 0 no findings, 1 findings, 2 bad usage, bad config or an internal error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

from hlsllint import __version__
from hlsllint.cache import Cache, default_cache_dir
from hlsllint.config import (
    TARGETS,
    ConfigError,
    ConfigResolver,
    build_variants,
    load_config_file,
    parse_define,
)
from hlsllint.fix import apply_fixes, unified_diff, write_atomic
from hlsllint.lint import STDIN, LintResult, lint_paths, tune_gc
from hlsllint.output import FORMATS, printer
from hlsllint.progress import ProgressBar
from hlsllint.registry import RegistryError, all_rules, find_rule
from hlsllint.source import SourceFile

COMMANDS = ("check", "rule", "pressure", "server")
MAX_FIX_ITERATIONS = 10


def _codes(values: list[str] | None) -> list[str]:
    out: list[str] = []
    for v in values or []:
        out.extend(c.strip().upper() for c in v.split(",") if c.strip())
    return out


def _add_config_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="PATH", help="use this config file for every file (no discovery)")
    p.add_argument("-D", dest="defines", action="append", metavar="NAME[=VALUE]", help="define a macro")
    p.add_argument("-I", dest="include_dirs", action="append", metavar="DIR", help="add an include folder")
    p.add_argument("--target", choices=TARGETS, help="AMD target for the pressure model (default rdna2)")
    p.add_argument("--wave-size", "--wave", dest="wave_size", type=int, choices=(32, 64))
    p.add_argument(
        "--enable-16bit-types",
        action="store_true",
        default=None,
        help="16-bit types pack two per register (as DXC -enable-16bit-types)",
    )
    p.add_argument(
        "--compile-commands",
        metavar="PATH",
        help="compile_commands.json or a file of dxc/fxc/slangc/glslangValidator command lines: "
        "each compile of a file is analysed as one variant (its -D, -I, -T stage and -E entry)",
    )
    p.add_argument(
        "--time-budget",
        type=float,
        metavar="SECONDS",
        help="stop analysing a file after this long and report HL006 (default 10; 0: no limit)",
    )


def _shard(text: str) -> tuple[int, int]:
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise argparse.ArgumentTypeError(f"expected K/N with 1 <= K <= N, got `{text}`")
    return int(k), int(n)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hlsllint",
        description="A linter for HLSL shaders: register pressure, occupancy and memory latency.",
    )
    parser.add_argument("--version", action="version", version=f"hlsllint {__version__}")
    sub = parser.add_subparsers(dest="command")

    check = sub.add_parser("check", help="lint files and folders (the default command)")
    check.add_argument("paths", nargs="*", default=[], help="files or folders (default: .); - for stdin")
    check.add_argument("--select", action="append", metavar="CODES", help="rule codes or prefixes to enable")
    check.add_argument("--extend-select", action="append", metavar="CODES")
    check.add_argument("--ignore", action="append", metavar="CODES")
    check.add_argument("--output-format", choices=sorted(FORMATS), default=None)
    check.add_argument("--statistics", action="store_true", help="count findings per rule")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--show-files", action="store_true", help="list the files that would be linted")
    check.add_argument("-j", "--jobs", type=int, default=None, help="parallel workers (default: all cores)")
    check.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    check.add_argument(
        "--cache-dir", metavar="DIR", help="cache folder (default: $HLSLLINT_CACHE_DIR or .hlsllint_cache)"
    )
    check.add_argument("--shard", type=_shard, metavar="K/N", help="lint only part K of N (balanced by size)")
    check.add_argument("--fix", action="store_true", help="apply safe fixes")
    check.add_argument("--unsafe-fixes", action="store_true", help="also apply unsafe fixes")
    check.add_argument("--diff", action="store_true", help="show the fixes as a diff; write nothing")
    check.add_argument("--stdin-filename", metavar="NAME", help="lint standard input as this file")
    check.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    _add_config_args(check)

    rule = sub.add_parser("rule", help="show a rule's documentation")
    rule.add_argument("code", nargs="?", help="code (HL105) or name (sign-for-sign-bit)")
    rule.add_argument("--all", action="store_true", help="list every rule")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")

    pressure = sub.add_parser("pressure", help="live VGPR/SGPR per source line and occupancy")
    pressure.add_argument("paths", nargs="+")
    pressure.add_argument("--entry", help="only this entry point")
    pressure.add_argument(
        "--output-format",
        choices=("text", "json", "html"),
        default="text",
        help="html: one self-contained page with a chart of live registers per line",
    )
    _add_config_args(pressure)

    sub.add_parser("server", help="run the language server (LSP over stdio)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0] not in COMMANDS and args_list[0] not in ("-h", "--help", "--version")):
        args_list.insert(0, "check")
    args = build_parser().parse_args(args_list)
    tune_gc()
    try:
        if args.command == "rule":
            return _cmd_rule(args)
        if args.command == "server":
            from hlsllint.server import serve

            return serve()
        resolver = _resolver(args)
        if args.command == "pressure":
            from hlsllint.output.pressure import run_pressure

            return run_pressure(args.paths, resolver, entry=args.entry, output_format=args.output_format)
        return _cmd_check(args, resolver)
    except (ConfigError, RegistryError) as e:
        print(f"hlsllint: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `hlsllint ... | head`
        sys.stderr.close()
        return 0


def _resolver(args: argparse.Namespace) -> ConfigResolver:
    overrides: dict[str, Any] = {}
    for key in ("select", "extend_select", "ignore"):
        value = getattr(args, key, None)
        if value:
            overrides[key] = tuple(_codes(value))
    if args.defines:
        overrides["defines"] = tuple(parse_define(d) for d in args.defines)
    if args.include_dirs:
        overrides["include_dirs"] = tuple(os.path.normpath(d) for d in args.include_dirs)
    for key in ("target", "wave_size", "enable_16bit_types", "time_budget"):
        if getattr(args, key, None) is not None:
            overrides[key] = getattr(args, key)
    if getattr(args, "compile_commands", None):
        database = os.path.abspath(args.compile_commands)
        if not os.path.isfile(database):
            raise ConfigError(f"{args.compile_commands}: compilation database not found")
        build_variants(database, database)  # read it now: a broken file is a usage error
        overrides["compile_commands"] = database
    forced = load_config_file(args.config) if args.config else None
    resolver = ConfigResolver(overrides=overrides, forced=forced)
    return resolver


def _cmd_rule(args: argparse.Namespace) -> int:
    rules = all_rules()
    if args.all or not args.code:
        if args.output_format == "json":
            print(json.dumps([_rule_json(r) for r in rules], indent=2))
        else:
            for r in rules:
                fix = " [*]" if r.fix.value != "none" else ""
                print(
                    f"{r.code}  {r.name:<28} {r.severity.value:<8}{fix}  {r.summary.strip().splitlines()[0]}"
                )
        return 0
    rule = find_rule(args.code)
    if rule is None:
        print(
            f"hlsllint: error: unknown rule `{args.code}` (see `hlsllint rule --all`)",
            file=sys.stderr,
        )
        return 2
    if args.output_format == "json":
        print(json.dumps(_rule_json(rule), indent=2))
    else:
        print(rule.documentation())
    return 0


def _rule_json(r: Any) -> dict[str, Any]:
    return {
        "code": r.code,
        "name": r.name,
        "summary": r.summary.strip(),
        "severity": r.severity.value,
        "fix": r.fix.value,
        "tags": list(r.tags),
        "explanation": r.documentation(),
    }


def _cmd_check(args: argparse.Namespace, resolver: ConfigResolver) -> int:
    paths = list(args.paths) or ["."]
    overrides: dict[str, str] = {}
    if STDIN in paths or args.stdin_filename:
        name = args.stdin_filename or STDIN
        paths = [p for p in paths if p != STDIN]
        data = sys.stdin.buffer.read()
        overrides[name] = SourceFile.from_bytes(name, data).text
        paths = [p for p in paths if os.path.normpath(p) != os.path.normpath(name)]

    missing = [p for p in paths if not os.path.exists(p)]
    for p in missing:
        print(f"hlsllint: error: {p}: no such file or folder", file=sys.stderr)
    paths = [p for p in paths if p not in missing]
    if missing and not paths and not overrides:
        return 2

    if args.show_files:
        from hlsllint.discovery import discover

        for f in discover(paths, resolver):
            print(f)
        return 0

    fix_mode = args.fix or args.diff
    cache = None if args.no_cache else Cache(args.cache_dir or default_cache_dir())
    with ProgressBar(not args.quiet) as bar:
        result = lint_paths(
            paths,
            resolver,
            jobs=args.jobs,
            overrides=overrides,
            cache=cache,
            shard=args.shard,
            progress=bar.update,
        )
    original_sources = result.sources
    originals = {p: s.text for p, s in original_sources.items()}
    fixed = Counter[str]()
    if fix_mode:
        for _ in range(MAX_FIX_ITERATIONS):
            texts = {p: s.text for p, s in result.sources.items() if s.writable}
            changed = apply_fixes(texts, result.diagnostics, args.unsafe_fixes)
            if not changed:
                break
            for p, fixed_file in changed.items():
                overrides[p] = fixed_file.text
                fixed[p] += fixed_file.fixes
            result = lint_paths(
                paths, resolver, jobs=args.jobs, overrides=overrides, cache=cache, shard=args.shard
            )

    changed_paths = [p for p in overrides if p in originals and overrides[p] != originals[p]]
    if args.diff:
        for p in changed_paths:
            sys.stdout.write(unified_diff(p, originals[p], overrides[p]))
        if not args.quiet and changed_paths:
            n = sum(fixed.values())
            print(f"\nWould fix {n} error{'s' if n != 1 else ''}.", file=sys.stderr)
        return 2 if result.errors else (1 if changed_paths else 0)
    if args.fix:
        for p in changed_paths:
            if p == STDIN or p == args.stdin_filename:
                continue
            src = original_sources.get(p)  # keeps the BOM of the file on disk
            write_atomic(p, (src or SourceFile(p, "")).to_bytes(overrides[p]))
        if args.stdin_filename or STDIN in overrides:
            name = args.stdin_filename or STDIN
            sys.stdout.write(overrides.get(name, originals.get(name, "")))
            _report(args, result, fixed, stream=sys.stderr)
            return _exit_code(args, result)

    _report(args, result, fixed, stream=sys.stdout)
    return _exit_code(args, result)


def _exit_code(args: argparse.Namespace, result: LintResult) -> int:
    if result.errors:
        return 2
    if args.exit_zero:
        return 0
    return 1 if any(d.severity.counts_for_exit for d in result.diagnostics) else 0


def _report(args: argparse.Namespace, result: LintResult, fixed: Counter[str], stream: Any) -> None:
    fmt = args.output_format or os.environ.get("HLSLLINT_OUTPUT_FORMAT") or "full"
    if fmt not in FORMATS:
        fmt = "full"
    for err in result.errors:
        print(f"hlsllint: error: {err}", file=sys.stderr)
    if args.statistics:
        _statistics(result, stream, fmt)
        return
    printer(fmt)(result.diagnostics, result.sources, stream)
    if fmt in ("full", "concise") and not args.quiet:
        _summary(result, fixed, args, stream)


def _statistics(result: LintResult, stream: Any, fmt: str) -> None:
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


def _summary(result: LintResult, fixed: Counter[str], args: argparse.Namespace, stream: Any) -> None:
    remaining = len(result.diagnostics)
    n_fixed = sum(fixed.values())
    if remaining == 0 and n_fixed == 0:
        stream.write("All checks passed!\n")
        return
    if n_fixed:
        stream.write(
            f"Found {remaining + n_fixed} error{'s' if remaining + n_fixed != 1 else ''} "
            f"({n_fixed} fixed, {remaining} remaining).\n"
        )
    else:
        stream.write(f"Found {remaining} error{'s' if remaining != 1 else ''}.\n")
    safe = sum(1 for d in result.diagnostics if d.fix and d.fix.applicability.value == "safe")
    unsafe = sum(1 for d in result.diagnostics if d.fix and d.fix.applicability.value == "unsafe")
    if safe and not args.fix:
        stream.write(f"[*] {safe} fixable with the `--fix` option")
        stream.write(
            f" ({unsafe} hidden fixes can be enabled with the `--unsafe-fixes` option).\n"
            if unsafe and not args.unsafe_fixes
            else ".\n"
        )
    elif unsafe and not args.unsafe_fixes:
        stream.write(
            f"No fixes available ({unsafe} hidden fixes can be enabled with the `--unsafe-fixes` option).\n"
        )
