"""Configuration: `[tool.hlsllint]` in pyproject.toml, or hlsllint.toml / .hlsllint.toml.

As in ruff, the config file closest to a linted file wins (no merging between files), and the
command line beats any file. Paths in a config file are relative to the file's folder.
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from hlsllint.builds import BuildError, load_build_entries
from hlsllint.config_options import DEFAULT_EXCLUDE, DEFAULT_EXTENSIONS, OPTIONS
from hlsllint.files import read_regular, special_kind
from hlsllint.registry import find_rule, suggestion, unknown_selector
from hlsllint.settings import AnalysisSettings
from hlsllint.source import MAX_FILE_BYTES
from hlsllint.targets import TARGET_NAMES, UnknownTarget, WaveSizeError, resolve_settings

CONFIG_NAMES = (".hlsllint.toml", "hlsllint.toml", "pyproject.toml")


class ConfigError(Exception):
    """A broken configuration. The message names the file and the key."""


class ConfigUnreadable(ConfigError):
    """A config file that could not be read (its permissions, or its folder's). One met while
    looking for a file's settings is skipped with a warning; one named on the command line is an
    error."""


@dataclass(frozen=True)
class Variant:
    glob: str
    name: str
    defines: tuple[tuple[str, str], ...]
    entry: str | None = None
    """The entry point the build compiles (`-E`): the only one analysed in this variant."""
    stage: str | None = None
    """The stage of the target profile (`-T cs_6_6` -> compute)."""
    include_dirs: tuple[str, ...] = ()
    enable_16bit_types: bool | None = None


def build_variants(database: str, path: str) -> list[Variant]:
    """The variants of `path` that a compilation database (or command-line file) describes."""
    by_file = _build_index(os.path.abspath(database))
    return by_file.get(os.path.normcase(os.path.abspath(path)), [])


@functools.cache
def _build_index(database: str) -> dict[str, list[Variant]]:
    try:
        entries = load_build_entries(database)
    except BuildError as e:
        raise ConfigError(str(e)) from e
    out: dict[str, list[Variant]] = {}
    for b in entries:
        key = os.path.normcase(os.path.abspath(b.file))
        variant = Variant(
            glob=b.file,
            name=b.name,
            defines=b.predefined() + b.defines,
            entry=b.entry,
            stage=b.stage,
            include_dirs=b.include_dirs,
            enable_16bit_types=b.enable_16bit_types or None,
        )
        if variant not in out.setdefault(key, []):
            out[key].append(variant)
    return out


@dataclass(frozen=True)
class Settings:
    root: str = "."
    """Folder that relative paths and globs of the config are resolved against."""
    config_path: str | None = None
    select: tuple[str, ...] = ("HL",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    force_exclude: bool = field(default=False, repr=False)
    """Apply `exclude` to paths named on the command line too (pre-commit passes each file). Not in
    the repr, which keys the cache: it decides which files are linted, not their findings."""
    extensions: tuple[str, ...] = DEFAULT_EXTENSIONS
    include_dirs: tuple[str, ...] = ()
    defines: tuple[tuple[str, str], ...] = ()
    variants: tuple[Variant, ...] = ()
    target: str = "rdna2"
    wave_size: int | None = None
    enable_16bit_types: bool = False
    compile_commands: str | None = None
    """A compilation database or a file of DXC command lines: one analysed variant per entry."""
    time_budget: float = 10.0
    """Seconds of analysis per translation unit before it stops with HL006 (0: no limit)."""
    max_file_size: float = MAX_FILE_BYTES / (1024 * 1024)
    """MiB: a larger shader or header is not read (HL004; 0: no limit)."""
    entry_points: tuple[str, ...] = ()
    """Function names that are entry points wherever a file defines them (after the attributes and
    semantics that mark an entry point, before the name heuristics)."""
    rule_options: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    cli_select: tuple[str, ...] | None = None
    """Command-line --select: replaces the file's selection."""
    cli_extend_select: tuple[str, ...] = ()
    cli_ignore: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # The target and wave size are resolved once, here: a chip name or alias becomes the
        # target's name, and a wave size the target does not run is an error wherever the two
        # come from (a config file, `--config`, the flags, the editor), never a silent wave64.
        try:
            name, _ = resolve_settings(self.target, self.wave_size)
        except (UnknownTarget, WaveSizeError) as e:
            raise ConfigError(str(e)) from None
        if name != self.target:
            object.__setattr__(self, "target", name)

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_size * 1024 * 1024)

    @property
    def analysis(self) -> AnalysisSettings:
        return AnalysisSettings(
            self.target, self.wave_size, self.enable_16bit_types, entry_points=self.entry_points
        )

    def options_for(self, code: str) -> dict[str, Any]:
        for c, opts in self.rule_options:
            if c == code:
                return dict(opts)
        return {}

    # -- rule selection (ruff's semantics: the most specific prefix wins; ignore wins ties) --

    def is_enabled(self, code: str, path: str | None = None) -> bool:
        """The file's selection, then the command line's on top, then per-file-ignores."""
        if self.cli_select is not None:
            enabled = _decide(code, self.cli_select + self.cli_extend_select, self.cli_ignore)
        else:
            enabled = _decide(code, self.select + self.extend_select, self.ignore)
            sel = _longest_prefix(code, self.cli_extend_select)
            ign = _longest_prefix(code, self.cli_ignore)
            if sel or ign:
                enabled = sel > ign
        return enabled and not _longest_prefix(code, self.ignores_for(path))

    def ignores_for(self, path: str | None) -> tuple[str, ...]:
        if path is None or not self.per_file_ignores:
            return ()
        rel = relative_to(path, self.root)
        out: list[str] = []
        for pattern, codes in self.per_file_ignores:
            if fnmatch(rel, pattern) or fnmatch(os.path.basename(path), pattern):
                out.extend(codes)
        return tuple(out)

    def variants_for(self, path: str) -> list[Variant]:
        rel = relative_to(path, self.root)
        found = [v for v in self.variants if fnmatch(rel, v.glob) or fnmatch(os.path.basename(path), v.glob)]
        if self.compile_commands:
            found += build_variants(self.compile_commands, path)
        return found


def _decide(code: str, select: Sequence[str], ignore: Sequence[str]) -> bool:
    sel = _longest_prefix(code, select)
    return sel > 0 and sel > _longest_prefix(code, ignore)


def _longest_prefix(code: str, prefixes: Sequence[str]) -> int:
    best = 0
    for p in prefixes:
        p = p.upper()
        if p == "ALL":
            best = max(best, 1)
        elif code.startswith(p):
            best = max(best, len(p) + 1)
    return best


def relative_to(path: str, root: str) -> str:
    try:
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    except ValueError:
        return path
    return rel.replace(os.sep, "/")


# -- reading files -------------------------------------------------------------------------------


def config_table(path: Path) -> dict[str, Any] | None:
    """The hlsllint table of a config file, or None when the file has none (pyproject)."""
    try:
        data = tomllib.loads(read_regular(str(path)).decode("utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from e
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 ({e.reason} at byte {e.start})") from e
    except OSError as e:
        raise ConfigUnreadable(f"{path}: cannot read: {e.strerror or e}") from e
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        table = tool.get("hlsllint") if isinstance(tool, dict) else None
        if table is None:
            return None
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: [tool.hlsllint] must be a table")
        return table
    return data


def _strings(path: Path, key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: `{key}` must be a list of strings")
    return tuple(value)


def _rule_codes(path: Path, key: str, value: Any) -> tuple[str, ...]:
    """Rule codes or prefixes (`HL105`, `HL1`, `ALL`), each selecting at least one known rule."""
    codes = _strings(path, key, value)
    for code in codes:
        unknown = unknown_selector(code)
        if unknown is not None:
            raise ConfigError(f"{path}: `{key}`: {unknown}")
    return codes


def _defines(path: Path, key: str, value: Any) -> tuple[tuple[str, str], ...]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(parse_define(v) for v in value)
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            if isinstance(v, bool):
                v = "1" if v else "0"
            if not isinstance(v, str | int | float):
                raise ConfigError(f"{path}: `{key}.{k}` must be a string or a number")
            out.append((k, str(v)))
        return tuple(out)
    raise ConfigError(f'{path}: `{key}` must be a table of NAME = value or a list of "NAME=value"')


def parse_define(text: str) -> tuple[str, str]:
    name, _, value = text.partition("=")
    return (name.strip(), value if "=" in text else "1")


def _enum(path: Path, key: str, value: Any, allowed: Sequence[Any]) -> Any:
    if value not in allowed:
        choices = ", ".join(str(a) for a in allowed)
        raise ConfigError(f"{path}: `{key}` must be one of {choices} (got {value!r})")
    return value


def settings_from_table(path: Path, table: Mapping[str, Any]) -> Settings:
    """Validate a config table. Unknown keys and wrong types are errors naming the key."""
    return replace(Settings(root=str(path.parent), config_path=str(path)), **table_changes(path, table))


def table_changes(path: Path, table: Mapping[str, Any]) -> dict[str, Any]:
    """The Settings fields a config table sets (paths relative to the table's folder)."""
    root = str(path.parent)
    changes: dict[str, Any] = {}
    for key, value in table.items():
        match key:
            case "select" | "extend-select" | "ignore":
                changes[key.replace("-", "_")] = _rule_codes(path, key, value)
            case "exclude" | "extend-exclude":
                changes[key.replace("-", "_")] = _strings(path, key, value)
            case "extensions":
                exts = _strings(path, key, value)
                changes["extensions"] = tuple(e if e.startswith(".") else "." + e for e in exts)
            case "entry-points":
                changes["entry_points"] = _strings(path, key, value)
            case "include-dirs":
                dirs = _strings(path, key, value)
                changes["include_dirs"] = tuple(os.path.normpath(os.path.join(root, d)) for d in dirs)
            case "defines":
                changes["defines"] = _defines(path, key, value)
            case "per-file-ignores":
                if not isinstance(value, dict):
                    raise ConfigError(f"{path}: `per-file-ignores` must be a table of glob = [codes]")
                changes["per_file_ignores"] = tuple(
                    (glob, _rule_codes(path, f"per-file-ignores.{glob}", codes))
                    for glob, codes in value.items()
                )
            case "variants":
                changes["variants"] = _variants(path, value)
            case "target":
                if not isinstance(value, str):
                    raise ConfigError(f"{path}: `target` must be a target name, alias or chip name")
                try:
                    changes["target"], _ = resolve_settings(value, None)
                except UnknownTarget:
                    names = ", ".join(TARGET_NAMES)
                    raise ConfigError(
                        f"{path}: `target` must be one of {names}, an alias (gfx9, gfx1030, ...) or a "
                        f"chip name (navi21, ...; docs/targets.md) (got {value!r})"
                    ) from None
            case "wave-size":
                changes["wave_size"] = _enum(path, key, value, (32, 64))
            case "force-exclude":
                if not isinstance(value, bool):
                    raise ConfigError(f"{path}: `force-exclude` must be true or false")
                changes["force_exclude"] = value
            case "enable-16bit-types":
                if not isinstance(value, bool):
                    raise ConfigError(f"{path}: `enable-16bit-types` must be true or false")
                changes["enable_16bit_types"] = value
            case "compile-commands":
                if not isinstance(value, str):
                    raise ConfigError(f"{path}: `compile-commands` must be a path")
                db = os.path.normpath(os.path.join(root, value))
                if not os.path.exists(db):
                    raise ConfigError(f"{path}: `compile-commands`: {db} not found")
                changes["compile_commands"] = db
            case "time-budget":
                if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                    raise ConfigError(f"{path}: `time-budget` must be a number of seconds (0: no limit)")
                changes["time_budget"] = float(value)
            case "max-file-size":
                if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                    raise ConfigError(f"{path}: `max-file-size` must be a number of MiB (0: no limit)")
                changes["max_file_size"] = float(value)
            case "rule-options":
                if not isinstance(value, dict):
                    raise ConfigError(f"{path}: `rule-options` must be a table of rule code = table")
                opts = []
                for code, table_ in value.items():
                    rule = find_rule(code)
                    if rule is None:
                        raise ConfigError(f"{path}: `rule-options.{code}`: unknown rule{suggestion(code)}")
                    if not isinstance(table_, dict):
                        raise ConfigError(f"{path}: `rule-options.{code}` must be a table")
                    values = []
                    for k, v in table_.items():
                        opt = rule.options.get(k)
                        if opt is None:
                            raise ConfigError(
                                f"{path}: `rule-options.{code}.{k}`: unknown option of {rule.code}"
                                + _option_suggestion(k, list(rule.options))
                            )
                        checked = opt.check(v)
                        if checked is None:
                            raise ConfigError(
                                f"{path}: `rule-options.{code}.{k}` must be {opt.type_name()}, "
                                f"not {_toml_kind(v)} `{_toml_text(v)}`"
                            )
                        values.append((k, checked))
                    opts.append((rule.code, tuple(values)))
                changes["rule_options"] = tuple(opts)
            case _:
                raise ConfigError(f"{path}: unknown key `{key}` (see `hlsllint config`)")
    if "wave_size" in changes and "target" in changes:
        try:
            resolve_settings(changes["target"], changes["wave_size"])
        except WaveSizeError as e:
            raise ConfigError(f"{path}: `wave-size = {changes['wave_size']}`: {e}") from None
    return changes


def _variants(path: Path, value: Any) -> tuple[Variant, ...]:
    """`variants = { "glob" = [ {NAME = "1"}, {NAME = "0"} ] }`: one analysis per define set."""
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: `variants` must be a table of glob = [define tables]")
    out = []
    for glob, sets in value.items():
        if not isinstance(sets, list) or not all(isinstance(d, dict) for d in sets):
            raise ConfigError(f"{path}: `variants.{glob}` must be a list of define tables")
        for i, d in enumerate(sets):
            defines = _defines(path, f"variants.{glob}[{i}]", d)
            name = ",".join(f"{k}={v}" for k, v in defines) or f"{glob}#{i}"
            out.append(Variant(glob, name, defines))
    return tuple(out)


def load_config_file(path: str | Path) -> Settings:
    p = Path(path)
    if not p.exists() or p.is_dir():
        raise ConfigError(f"{p}: config file not found")
    table = config_table(p)
    if table is None:
        if p.name == "pyproject.toml":
            return Settings(root=str(p.parent), config_path=str(p))
        table = {}
    return settings_from_table(p, table)


@functools.cache
def warn_once(message: str) -> None:
    """`hlsllint: warning: MESSAGE` on stderr, once per run."""
    print(f"hlsllint: warning: {message}", file=sys.stderr)


@dataclass
class ConfigResolver:
    """Finds the settings for each file: the closest config file, then the CLI overrides."""

    overrides: Mapping[str, Any] = field(default_factory=dict)
    forced: Settings | None = None
    inline: Mapping[str, Any] = field(default_factory=dict)
    """Settings fields from `--config KEY=VALUE`: above every config file, below the flags."""
    _by_dir: dict[str, Settings] = field(default_factory=dict)

    def for_path(self, path: str) -> Settings:
        if self.forced is not None:
            return self._apply(self.forced)
        directory = os.path.dirname(os.path.abspath(path))
        return self._apply(self._for_dir(directory))

    def _for_dir(self, directory: str) -> Settings:
        cached = self._by_dir.get(directory)
        if cached is not None:
            return cached
        found: Settings | None = None
        for name in CONFIG_NAMES:
            candidate = Path(directory) / name
            kind = special_kind(str(candidate))
            if kind is not None:  # a FIFO or a device: reading it could hang
                warn_once(f"{candidate}: not a regular file: {kind}; skipped")
                continue
            try:
                if not candidate.is_file():
                    continue
                table = config_table(candidate)
            except (OSError, ConfigUnreadable) as e:
                # Its permissions or its folder's (which would deny every name alike): the
                # settings above apply, and the files here are read, or reported, as usual.
                reason = (
                    e if isinstance(e, ConfigUnreadable) else f"{candidate}: cannot read: {e.strerror or e}"
                )
                warn_once(f"{reason}; skipped")
                break
            if table is not None:
                found = settings_from_table(candidate, table)
                break
        if found is None:
            parent = os.path.dirname(directory)
            found = self._for_dir(parent) if parent != directory else Settings(root=os.getcwd())
        self._by_dir[directory] = found
        return found

    def _apply(self, s: Settings) -> Settings:
        if self.inline:
            s = replace(s, **self.inline)
        if not self.overrides:
            return s
        changes = dict(self.overrides)
        for key in ("select", "extend_select", "ignore"):
            if key in changes:
                changes["cli_" + key] = tuple(changes.pop(key))
        if "defines" in changes:
            changes["defines"] = s.defines + tuple(changes["defines"])
        if "include_dirs" in changes:
            changes["include_dirs"] = tuple(changes["include_dirs"]) + s.include_dirs
        return replace(s, **changes)


def parse_inline(text: str) -> dict[str, Any]:
    """`--config KEY=VALUE` (TOML, as ruff): `wave-size=32`, `select=["HL1"]`, `target=rdna3`."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"--config {text!r}: expected a config file or KEY=VALUE")
    if key not in OPTIONS:
        raise ConfigError(f"--config {text!r}: unknown key `{key}` (see `hlsllint config`)")
    try:
        table = tomllib.loads(f"{key} = {value.strip()}")
    except tomllib.TOMLDecodeError:
        try:  # a bare word: target=rdna3
            table = tomllib.loads(f"{key} = {json.dumps(value.strip())}")
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"--config {text!r}: {e}") from e
    return table


def _option_suggestion(key: str, known: list[str]) -> str:
    """` (did you mean `min-gap`?)`, or the rule's options when none is close."""
    close = difflib.get_close_matches(key, known, n=2)
    if close:
        return " (did you mean " + " or ".join(f"`{c}`" for c in close) + "?)"
    if not known:
        return " (it takes no options)"
    return " (its options: " + ", ".join(f"`{k}`" for k in known) + ")"


def _toml_kind(value: object) -> str:
    """What a TOML value is, in TOML's words."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return "date/time"


def _toml_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
