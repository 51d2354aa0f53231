"""Every config key users can set, documented once (type, default, what it does, an example):
`hlsllint config` prints this table, `config.table_changes` reads these keys (a test checks that the
two agree), and the defaults of the file discovery that the table shows."""

from __future__ import annotations

import json
from dataclasses import dataclass

from hlsllint.source import MAX_FILE_BYTES
from hlsllint.targets import TARGET_NAMES

DEFAULT_EXTENSIONS = (".hlsl", ".hlsli", ".fx", ".fxh")
DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "node_modules",
    "build",
    "dist",
    "__pycache__",
)


@dataclass(frozen=True)
class Option:
    """One config key: its type as users write it, its default and what it does."""

    type: str
    default: str
    doc: str
    example: str


OPTIONS: dict[str, Option] = {
    "select": Option(
        "list of codes or prefixes",
        '["HL"]',
        "Rules to enable; `ALL` enables every rule.",
        '["HL1", "HL201"]',
    ),
    "extend-select": Option(
        "list of codes or prefixes", "[]", "Rules to enable on top of `select`.", '["HL2"]'
    ),
    "ignore": Option(
        "list of codes or prefixes",
        "[]",
        "Rules to disable. The most specific prefix wins; on a tie, `ignore` wins.",
        '["HL104"]',
    ),
    "per-file-ignores": Option(
        "table of glob = list of codes",
        "{}",
        "Rules to disable in files matching a glob.",
        '{ "legacy/*" = ["HL105"] }',
    ),
    "exclude": Option(
        "list of globs",
        json.dumps(list(DEFAULT_EXCLUDE)),
        "Files and folders never linted (gitignore-style; .gitignore is honoured too).",
        '["third_party/"]',
    ),
    "extend-exclude": Option("list of globs", "[]", "Globs excluded on top of `exclude`.", '["generated/"]'),
    "force-exclude": Option(
        "bool",
        "false",
        "Apply `exclude` and `extend-exclude` to files and folders named on the command line too, "
        "as pre-commit names each staged file (the `--force-exclude` flag).",
        "true",
    ),
    "extensions": Option(
        "list of file extensions",
        json.dumps(list(DEFAULT_EXTENSIONS)),
        "Which files in a folder are shaders.",
        '[".hlsl", ".hlsli", ".vert", ".frag"]',
    ),
    "include-dirs": Option(
        "list of folders",
        "[]",
        "Folders searched by `#include` (as DXC -I), relative to the config file.",
        '["include"]',
    ),
    "defines": Option(
        'table of NAME = value, or list of "NAME=value"',
        "{}",
        "Macros defined for every file (as DXC -D).",
        "{ USE_SHADOWS = 1 }",
    ),
    "variants": Option(
        "table of glob = list of define tables",
        "{}",
        "Analyse matching files once per define set.",
        '{ "uber_*.hlsl" = [{ SHADOWS = "0" }, { SHADOWS = "1" }] }',
    ),
    "target": Option(
        "one of " + ", ".join(TARGET_NAMES) + ", an alias (gfx9, gfx1030, ...) or a chip name (navi21, ...)",
        '"rdna2"',
        "The AMD generation the pressure model and occupancy use (docs/targets.md lists every "
        "name, alias and chip).",
        '"navi21"',
    ),
    "wave-size": Option(
        "32 or 64",
        "the target's default (64)",
        "Wave size for pressure and occupancy; one the target does not run (32 on GCN) is an error.",
        "32",
    ),
    "enable-16bit-types": Option(
        "bool", "false", "16-bit types pack two per register (as DXC -enable-16bit-types).", "true"
    ),
    "compile-commands": Option(
        "path",
        "none",
        "compile_commands.json or a file of dxc/fxc/slangc/glslangValidator command lines: each "
        "compile of a file is analysed as one variant (its -D, -I, -T stage and -E entry).",
        '"compile_commands.json"',
    ),
    "time-budget": Option(
        "seconds", "10", "Stop analysing a file after this long and report HL006 (0: no limit).", "30"
    ),
    "max-file-size": Option(
        "MiB",
        str(MAX_FILE_BYTES // (1024 * 1024)),
        "Shaders and headers larger than this are not read (HL004 names the file and its size; "
        "0: no limit). Only regular files are read: a FIFO, a device or a socket is skipped, "
        "whatever its name.",
        "16",
    ),
    "entry-points": Option(
        "list of function names",
        "[]",
        "Functions that are entry points wherever a file defines them. Without it (and without a "
        "build's -E) entry points are the functions with `[numthreads]`, `[shader(...)]` or a "
        "stage attribute, a semantic on the return or an `SV_` parameter, and otherwise the "
        "functions named like entry points (`main`, `*Main`, `VS`, `PSMain`, ...) that nothing calls.",
        '["GBufferPS", "ShadowVS"]',
    ),
    "rule-options": Option(
        "table of rule code = table of options",
        "{}",
        "Options of individual rules (see `hlsllint rule CODE`).",
        "{ HL107 = { max-slots = 8 } }",
    ),
}
"""Every config key, documented once: `hlsllint config` prints it, `table_changes` reads these keys
(a test checks that the two agree, using each key's example)."""
