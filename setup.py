"""The build's one dynamic part: the analysis pipeline compiled to C with mypyc.

A wheel (`pip install .`) carries the stages a lint spends its time in (preprocessing, syntax,
semantic model, analyses) compiled by mypyc, beside their Python sources. Everything else in
the project's metadata is in pyproject.toml.

- An editable install (`pip install -e .`) stays pure Python, so that an edited module takes
  effect at once (a compiled module next to its source would shadow it).
- `HLSLLINT_COMPILE=0` builds pure Python.
- Without a working C compiler the extensions are skipped and the wheel is pure Python: the
  compiled and the pure modules behave the same, only the speed differs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import Extension, setup

COMPILED_PACKAGES = ("preprocess", "syntax", "semantic", "analysis")
"""The packages of `hlsllint/` whose modules are compiled (their `__init__` modules stay Python:
they only re-export)."""
COMPILED_MODULES = ("checker.py", "deadline.py")
"""Modules of `hlsllint/` itself that are compiled: the walk that dispatches nodes to the rules, and
the deadline every stage checks (a native call from the compiled loops)."""


def compiled_modules() -> list[str]:
    root = Path(__file__).parent / "hlsllint"
    in_packages = [
        path
        for package in COMPILED_PACKAGES
        for path in (root / package).glob("*.py")
        if path.name != "__init__.py"
    ]
    return sorted(
        str(path.relative_to(root.parent)) for path in [*in_packages, *(root / m for m in COMPILED_MODULES)]
    )


def ext_modules() -> list[Extension]:
    if os.environ.get("HLSLLINT_COMPILE", "1") == "0" or "bdist_wheel" not in sys.argv:
        return []  # editable installs, sdists and metadata queries
    from mypyc.build import mypycify

    extensions = mypycify(compiled_modules(), opt_level="3", debug_level="0")
    for ext in extensions:
        ext.optional = True  # no compiler: the build goes on, pure Python
    return extensions


setup(ext_modules=ext_modules())
