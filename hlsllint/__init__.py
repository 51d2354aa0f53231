"""hlsllint: a static-analysis linter for HLSL shaders."""

from __future__ import annotations

import os as _os
import sys as _sys
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:
    from collections.abc import Sequence as _Sequence
    from importlib.machinery import ModuleSpec as _ModuleSpec

__version__ = "0.9.0"
"""The one place the version is written: pyproject.toml reads it (`[tool.setuptools.dynamic]`), so
that importing hlsllint needs no `importlib.metadata` (about 17 ms of every run's start-up)."""

DOCS_URL = "https://github.com/hlsllint/hlsllint/blob/main/docs/rules.md"


def rule_url(code: str) -> str:
    """Where a rule's documentation lives (used by JSON, SARIF and the LSP server)."""
    return f"{DOCS_URL}#{code.lower()}"


class _CheckoutRules:
    """Finds `hlsllint.rules` in the top-level `rules/` folder of a source checkout.

    An install maps `rules/` to `hlsllint.rules` (pyproject.toml, `package-dir`). Run from a
    checkout (`python -m pytest` or `python -m hlsllint` put the working folder first on
    `sys.path`), `hlsllint` is the checkout's own folder, which has no `rules` subpackage: this
    finder, placed last on `sys.meta_path`, maps it as the install does. An editable install's
    finder, earlier on the path, answers first; an installed wheel never gets here.
    """

    folder = ""

    @classmethod
    def find_spec(
        cls, name: str, path: _Sequence[str] | None = None, target: object = None
    ) -> _ModuleSpec | None:
        if name != "hlsllint.rules":
            return None
        from importlib.util import spec_from_file_location

        init = _os.path.join(cls.folder, "__init__.py")
        return spec_from_file_location(name, init, submodule_search_locations=[cls.folder])


def _map_checkout_rules() -> None:
    package = _os.path.dirname(_os.path.abspath(__file__))
    if _os.path.isdir(_os.path.join(package, "rules")):
        return  # installed: the rules are a subpackage
    checkout = _os.path.dirname(package)
    rules = _os.path.join(checkout, "rules")
    if _os.path.isfile(_os.path.join(rules, "__init__.py")) and _os.path.isfile(
        _os.path.join(checkout, "pyproject.toml")
    ):
        _CheckoutRules.folder = rules
        if _CheckoutRules not in _sys.meta_path:
            _sys.meta_path.append(_CheckoutRules)


_map_checkout_rules()
