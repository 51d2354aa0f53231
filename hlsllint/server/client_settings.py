"""The editor's settings (`initializationOptions`, `workspace/didChangeConfiguration`): the keys
the server reads, and the configuration they give (`resolver_for`)."""

from __future__ import annotations

import os
from typing import Any

from lsprotocol import types

from hlsllint.config import ConfigError, ConfigResolver, load_config_file, parse_define
from hlsllint.targets import UnknownTarget, WaveSizeError, resolve_settings, resolve_target


def resolver_for(options: dict[str, Any], root: str | None) -> tuple[ConfigResolver, list[str]]:
    """The configuration with the editor's settings on top, as the command line's flags are
    (`--config FILE`, `--target`, `--wave-size`, `-D`); what does not fit is left out and said."""
    errors: list[str] = []
    overrides: dict[str, Any] = {}
    target = options.get("target")
    if target not in (None, ""):
        try:
            if not isinstance(target, str):
                raise UnknownTarget(f"unknown target {target!r}")
            overrides["target"] = resolve_target(target).name  # a chip name or alias too
        except UnknownTarget as e:
            errors.append(f"setting target: {e}")
    wave = options.get("waveSize")
    if wave not in (None, 0, ""):
        if wave in (32, 64) and not isinstance(wave, bool):
            overrides["wave_size"] = wave
        else:
            errors.append(f"setting waveSize: {wave!r} is not 32 or 64")
    if "target" in overrides and "wave_size" in overrides:
        try:
            resolve_settings(overrides["target"], overrides["wave_size"])
        except WaveSizeError as e:
            errors.append(f"setting waveSize: {e}")
            del overrides["wave_size"]
    defines = options.get("defines")
    if defines:
        if isinstance(defines, list) and all(isinstance(d, str) and d.strip() for d in defines):
            overrides["defines"] = tuple(parse_define(d.strip()) for d in defines)
        else:
            errors.append(f"setting defines: expected a list of NAME or NAME=VALUE, got {defines!r}")
    forced = None
    config_file = options.get("configFile")
    if config_file not in (None, ""):
        if not isinstance(config_file, str):
            errors.append(f"setting configFile: expected a path, got {config_file!r}")
        else:
            path = os.path.join(root or os.getcwd(), os.path.expanduser(config_file))
            try:
                if not os.path.isfile(path):
                    raise ConfigError(f"{path}: config file not found")
                forced = load_config_file(path)
            except ConfigError as e:
                errors.append(f"setting configFile: {e}")
    return ConfigResolver(overrides=overrides, forced=forced), errors


def settings_from(value: Any) -> dict[str, Any] | None:
    """The server's keys of the `hlsllint` section of what an editor sends as its settings (or of
    the section itself): an editor's own keys (VS Code's `path`) do not count as a change."""
    if isinstance(value, dict) and isinstance(value.get("hlsllint"), dict):
        value = value["hlsllint"]
    if isinstance(value, dict):
        return {k: value[k] for k in OPTION_KEYS if k in value}
    return None


OPTION_KEYS = ("target", "waveSize", "configFile", "defines")


def request_param(params: Any, key: str, field_name: str) -> Any:
    """`params[key][field_name]` of a custom request (pygls hands it over as an object)."""
    part = getattr(params, key, None) if not isinstance(params, dict) else params.get(key)
    if isinstance(part, dict):
        return part.get(field_name)
    return getattr(part, field_name, None)


def init_option(params: types.InitializeParams, key: str) -> Any:
    options = params.initialization_options
    return options.get(key) if isinstance(options, dict) else None
