"""`hlsllint config [KEY]` (every setting with its type, default and docs, from `config.OPTIONS`) and
`hlsllint check --show-settings FILE` (the settings one file gets, with where each came from)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
from pathlib import Path
from typing import IO, Any

from hlsllint.config import OPTIONS, ConfigError, ConfigResolver, Settings, config_table

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


def _value(value: Any) -> str:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return json.dumps(dataclasses.asdict(value))
    if isinstance(value, tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return json.dumps(value) if isinstance(value, str | bool | int | float) or value is None else repr(value)


def show_settings(path: str, resolver: ConfigResolver, out: IO[str]) -> int:
    """Every setting of `path` and its origin: default, a config file, --config or a flag."""
    settings = resolver.for_path(path)
    defaults = Settings()
    config_keys: set[str] = set()
    if settings.config_path:
        table = config_table(Path(settings.config_path))
        config_keys = set(table or ())
    out.write(f"Resolved settings for: {os.path.abspath(path)}\n")
    out.write(f"Settings path: {settings.config_path or '(none: defaults)'}\n\n")
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
        out.write(f"{key} = {_value(value)}  # {origin}\n")
    return 0
