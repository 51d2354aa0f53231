"""The command line, shaped after ruff's: `hlsllint [check] PATH...`, `hlsllint rule`, ...

Exit codes: 0 no findings, 1 findings, 2 bad usage, bad config or an internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hlsllint import __version__
from hlsllint.config import (
    ConfigError,
    ConfigResolver,
    build_variants,
    load_config_file,
    parse_define,
    parse_inline,
    table_changes,
)
from hlsllint.output import FORMATS, PRESSURE_FORMATS
from hlsllint.registry import RegistryError, unknown_selector
from hlsllint.targets import TARGET_NAMES, UnknownTarget, WaveSizeError, resolve_settings, resolve_target
from hlsllint.writing import Terminated

COMMANDS = ("check", "rule", "pressure", "config", "server")


def _codes(values: list[str] | None) -> list[str]:
    out: list[str] = []
    for v in values or []:
        out.extend(c.strip().upper() for c in v.split(",") if c.strip())
    return out


def _target(value: str) -> str:
    """`--target`: the target's name, from a name, alias or chip name."""
    try:
        return resolve_target(value).name
    except UnknownTarget as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _add_config_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config",
        action="append",
        metavar="PATH | KEY=VALUE",
        help="a config file to use for every file (no discovery), or one setting in TOML "
        "(`--config wave-size=32`, `--config 'select=[\"HL1\"]'`); may be repeated",
    )
    p.add_argument("-D", dest="defines", action="append", metavar="NAME[=VALUE]", help="define a macro")
    p.add_argument("-I", dest="include_dirs", action="append", metavar="DIR", help="add an include folder")
    p.add_argument(
        "--target",
        type=_target,
        metavar="NAME",
        help="AMD target for the pressure model: a target (" + ", ".join(TARGET_NAMES) + "), an alias "
        "(gfx9, gfx1030, ...) or a chip name (navi21, ...); default rdna2",
    )
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
    check.add_argument(
        "--force-exclude",
        action="store_true",
        default=None,
        help="apply `exclude` to paths named on the command line too (as pre-commit passes them)",
    )
    check.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=None,
        help="processes that lint at once, this one included (default: all cores)",
    )
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
    check.add_argument("-v", "--verbose", action="store_true", help="config and time per stage of each file")
    check.add_argument("-w", "--watch", action="store_true", help="lint again whenever a file changes")
    check.add_argument("--add-noqa", action="store_true", help="add `// noqa: CODE` to every finding's line")
    check.add_argument("-o", "--output-file", metavar="PATH", help="write the report to this file")
    check.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="exit 1 when fixes were applied",
    )
    check.add_argument("--show-settings", metavar="FILE", help="print the settings FILE gets and where from")
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
        choices=sorted(PRESSURE_FORMATS),
        default="text",
        help="html: one self-contained page with a chart of live registers per line",
    )
    _add_config_args(pressure)

    config = sub.add_parser("config", help="list the settings, or document one")
    config.add_argument("key", nargs="?", help="a setting, e.g. wave-size")
    config.add_argument("--output-format", choices=("text", "json"), default="text")

    sub.add_parser("server", help="run the language server (LSP over stdio)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0] not in COMMANDS and args_list[0] not in ("-h", "--help", "--version")):
        args_list.insert(0, "check")
    args = build_parser().parse_args(args_list)
    try:
        if args.command == "rule":
            # Imported here, not at the top, as are the other commands' modules: `--version`, `rule`
            # and `config` then start without the lint pipeline (start-up cost).
            from hlsllint.commands.rule import run_rule

            return run_rule(args)
        if args.command == "config":
            from hlsllint.commands.config import run_config

            return run_config(args, sys.stdout)
        from hlsllint.commands.check import run_check
        from hlsllint.commands.config import show_settings
        from hlsllint.lint import tune_gc

        tune_gc()
        if args.command == "server":
            from hlsllint.server import serve

            return serve()
        resolver = _resolver(args)
        if args.command == "pressure":
            from hlsllint.commands.pressure import run_pressure

            return run_pressure(args.paths, resolver, entry=args.entry, output_format=args.output_format)
        if args.show_settings:
            return show_settings(args.show_settings, resolver, sys.stdout)
        return run_check(args, resolver)
    except (ConfigError, RegistryError) as e:
        print(f"hlsllint: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Terminated as e:  # SIGTERM while writing: the temporary file is gone
        return 128 + e.signum
    except BrokenPipeError:  # `hlsllint ... | head`
        sys.stderr.close()
        return 0
    except OSError as e:  # one line, never a traceback
        what = f"{e.filename}: {e.strerror or e}" if e.filename else str(e)
        print(f"hlsllint: error: {what}", file=sys.stderr)
        return 2
    except MemoryError:
        print("hlsllint: error: out of memory", file=sys.stderr)
        return 2


def _resolver(args: argparse.Namespace) -> ConfigResolver:
    overrides: dict[str, Any] = {}
    for key in ("select", "extend_select", "ignore"):
        value = getattr(args, key, None)
        if value:
            overrides[key] = tuple(_codes(value))
            for code in overrides[key]:
                unknown = unknown_selector(code)
                if unknown is not None:
                    raise ConfigError(f"--{key.replace('_', '-')}: {unknown}")
    if args.defines:
        overrides["defines"] = tuple(parse_define(d) for d in args.defines)
    if args.include_dirs:
        overrides["include_dirs"] = tuple(os.path.normpath(d) for d in args.include_dirs)
    target, wave = getattr(args, "target", None), getattr(args, "wave_size", None)
    if target is not None and wave is not None:
        try:
            resolve_settings(target, wave)
        except WaveSizeError as e:
            raise ConfigError(f"--target {target} --wave-size {wave}: {e}") from None
    for key in ("target", "wave_size", "enable_16bit_types", "time_budget", "force_exclude"):
        if getattr(args, key, None) is not None:
            overrides[key] = getattr(args, key)
    if getattr(args, "compile_commands", None):
        database = os.path.abspath(args.compile_commands)
        if not os.path.exists(database):
            raise ConfigError(f"{args.compile_commands}: compilation database not found")
        build_variants(database, database)  # read it now: a broken file is a usage error
        overrides["compile_commands"] = database
    files = [c for c in args.config or () if "=" not in c or os.path.isfile(c)]
    if len(files) > 1:
        raise ConfigError(f"--config: one config file at most (got {', '.join(files)})")
    inline: dict[str, Any] = {}
    for item in args.config or ():
        if item not in files:
            inline.update(parse_inline(item))
    forced = load_config_file(files[0]) if files else None
    changes = table_changes(Path(os.getcwd()) / "--config", inline) if inline else {}
    resolver = ConfigResolver(overrides=overrides, forced=forced, inline=changes)
    return resolver
