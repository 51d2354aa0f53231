"""`hlsllint config [KEY]` (every setting with its type, default and docs, from `config.OPTIONS`) and
`hlsllint check --show-settings FILE` (the settings one file gets, with where each came from)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
from pathlib import Path
from typing import IO, Any

from hlsllint.config import ConfigError, ConfigResolver, Settings, config_table
from hlsllint.config_options import OPTIONS

# Settings field -> config key, for the fields users set.
FIELDS = {key.replace("-", "_"): key for key in OPTIONS}


def run_config(args: argparse.Namespace, out: IO[str]) -> int:
    if args.key:
        option = OPTIONS.get(args.key)
        if option is None:
            raise ConfigError(f"unknown setting `{args.key}` (see `hlsllint config`)")
        if args.output_format == "json":
            out.write(json.dumps({"key": args.key, **dataclasses.asdict(option)}, indent=2) + "\n")
            return 0
        out.write(
            f"{args.key}\n\n{option.doc}\n\nType: {option.type}\nDefault: {option.default}\n"
            f"Example:\n    [tool.hlsllint]\n    {args.key} = {option.example}\n"
        )
        return 0
    if args.output_format == "json":
        data = {k: dataclasses.asdict(o) for k, o in OPTIONS.items()}
        out.write(json.dumps(data, indent=2) + "\n")
        return 0
    width = max(len(k) for k in OPTIONS)
    for key, option in OPTIONS.items():
        out.write(f"{key:<{width}}  {option.doc}\n")
    return 0


def _config_value(field: str, value: Any) -> Any:
    """A Settings field as the config file writes it (the inverse of `table_changes`)."""
    match field:
        case "per_file_ignores" | "rule_options":
            return {k: dict(v) if field == "rule_options" else list(v) for k, v in value}
        case "defines":
            return dict(value)
        case "variants":
            out: dict[str, list[dict[str, str]]] = {}
            for v in value:
                out.setdefault(v.glob, []).append(dict(v.defines))
            return out
    return list(value) if isinstance(value, tuple) else value


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def toml_value(value: Any) -> str:
    """One TOML value on one line (tables inline), for `key = value  # origin` lines: strings as
    JSON writes them unescaped beyond ASCII (its escapes are TOML's) and DEL escaped, which TOML
    forbids raw."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        items = [
            (k if _BARE_KEY.fullmatch(k) else toml_value(k)) + " = " + toml_value(v) for k, v in value.items()
        ]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    raise TypeError(f"no TOML form for {value!r}")


def show_settings(path: str, resolver: ConfigResolver, out: IO[str]) -> int:
    """Every setting of `path` and its origin: default, a config file, --config or a flag."""
    settings = resolver.for_path(path)
    defaults = Settings()
    config_keys: set[str] = set()
    if settings.config_path:
        table = config_table(Path(settings.config_path))
        config_keys = set(table or ())
    # Comments, then `key = value  # origin` lines: the whole output is TOML, and read back as a
    # config file it gives these settings.
    out.write(f"# Resolved settings for: {os.path.abspath(path)}\n")
    out.write(f"# Settings path: {settings.config_path or '(none: defaults)'}\n\n")
    cli = {f.removeprefix("cli_") for f in resolver.overrides} | {
        f.removeprefix("cli_")
        for f in ("cli_select", "cli_extend_select", "cli_ignore")
        if getattr(settings, f) not in (None, ())
    }
    for field, key in FIELDS.items():
        value = getattr(settings, field)
        if field in ("select", "extend_select", "ignore") and field in cli:
            value = getattr(settings, "cli_" + field)
        if field in cli:
            origin = "command line"
        elif field in resolver.inline:
            origin = "--config " + key
        elif key in config_keys:
            origin = settings.config_path or ""
        else:
            origin = "default" if value == getattr(defaults, field) else "derived"
        if value is None:  # wave-size, compile-commands: TOML has no null
            default = OPTIONS[key].default
            unset = f"# {key}: not set" + ("" if default == "none" else f", so {default}")
            out.write(f"{unset}  # {origin}\n")
        else:
            out.write(f"{key} = {toml_value(_config_value(field, value))}  # {origin}\n")
    return 0
