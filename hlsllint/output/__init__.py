"""Printers over the one diagnostics model. None of them looks at the syntax tree."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import IO, Protocol

from hlsllint.diagnostics import Diagnostic
from hlsllint.source import SourceFile


class Printer(Protocol):
    def __call__(
        self, diagnostics: Sequence[Diagnostic], sources: Mapping[str, SourceFile], out: IO[str]
    ) -> None: ...


# format name -> (module, function)
FORMATS: dict[str, tuple[str, str]] = {
    "full": ("hlsllint.output.text", "print_full"),
    "concise": ("hlsllint.output.text", "print_concise"),
    "json": ("hlsllint.output.json", "print_json"),
    "json-lines": ("hlsllint.output.json", "print_json_lines"),
    "sarif": ("hlsllint.output.sarif", "print_sarif"),
    "github": ("hlsllint.output.github", "print_github"),
}


def printer(name: str) -> Printer:
    module, func = FORMATS[name]
    fn: Printer = getattr(importlib.import_module(module), func)
    return fn
