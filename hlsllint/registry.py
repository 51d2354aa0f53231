"""Finding rules: the built-in modules of `hlsllint.rules` plus the `hlsllint.rules` entry points."""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import cache

from hlsllint.rule import Rule

CODE_RE = re.compile(r"^[A-Z]{1,4}[0-9]{3}$")


class RegistryError(Exception):
    pass


def _rules_in_module(module: object) -> list[type[Rule]]:
    found = []
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, Rule)
            and value is not Rule
            and "code" in value.__dict__
        ):
            found.append(value)
    return found


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every known rule class, sorted by code."""
    # Imported here, not at the top: commands that never load the rules (`config`, `--version`)
    # skip importlib.metadata and the email package it pulls in (start-up cost).
    from importlib.metadata import entry_points

    import hlsllint.rules as builtin

    classes: dict[str, type[Rule]] = {}
    for info in pkgutil.iter_modules(builtin.__path__):
        module = importlib.import_module(f"hlsllint.rules.{info.name}")
        for cls in _rules_in_module(module):
            classes[cls.code] = cls
    for ep in entry_points(group="hlsllint.rules"):
        loaded = ep.load()
        candidates = [loaded] if isinstance(loaded, type) else _rules_in_module(loaded)
        for cls in candidates:
            if cls.code in classes and classes[cls.code] is not cls:
                raise RegistryError(f"plugin {ep.name!r}: rule code {cls.code} is already taken")
            classes[cls.code] = cls
    return tuple(classes[c] for c in sorted(classes))


@cache
def rule_by_code() -> dict[str, type[Rule]]:
    return {r.code: r for r in all_rules()}


def find_rule(code_or_name: str) -> type[Rule] | None:
    key = code_or_name.strip()
    for r in all_rules():
        if r.code == key.upper() or r.name == key.lower():
            return r
    return None
