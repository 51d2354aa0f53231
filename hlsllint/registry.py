"""Finding rules: the built-in modules of `hlsllint.rules` plus the `hlsllint.rules` entry points."""

from __future__ import annotations

import difflib
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


def unknown_selector(selector: str) -> str | None:
    """Why `selector` selects no rule (None when it is `ALL`, a code, or a prefix of one): what
    `--select`, `ignore` and the other keys that take codes say of a typo (`HL1O5`) or of another
    tool's code (`E501`), instead of silently switching the rules off."""
    key = selector.strip().upper()
    codes = rule_by_code()
    if key == "ALL" or (key and any(c.startswith(key) for c in codes)):
        return None
    return f"unknown rule code `{selector}`" + suggestion(key)


def suggestion(key: str) -> str:
    """` (did you mean `HL105`?)`, or a pointer to the list of rules when nothing is close."""
    close = close_codes(key)
    if close:
        return " (did you mean " + " or ".join(f"`{c}`" for c in close) + "?)"
    return " (see `hlsllint rule --all`)"


def close_codes(key: str) -> list[str]:
    """The known codes or prefixes closest to a mistyped one (difflib's ratio, 0.6 at least)."""
    key = key.strip().upper()
    if not key:
        return []
    # The codes, and their prefixes as long as the key: `HL1O5` -> HL105, `HL9` -> HL109.
    codes = rule_by_code()
    candidates = sorted({*codes, *(c[: len(key)] for c in codes)})
    scored = [(difflib.SequenceMatcher(None, key, c).ratio(), c) for c in candidates]
    best = max(score for score, _ in scored)
    return [c for score, c in scored if score == best][:3] if best >= 0.6 else []
