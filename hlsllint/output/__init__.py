"""Printers over the one diagnostics model. None of them looks at the syntax tree."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import IO, Protocol

from hlsllint.diagnostics import Diagnostic
from hlsllint.source import SourceFile


class Printer(Protocol):
    def __call__(
        self,
        diagnostics: Sequence[Diagnostic],
        sources: Mapping[str, SourceFile],
        out: IO[str],
        errors: Sequence[str] = (),
    ) -> None:
        """Print the findings; `errors` are the run's internal errors (a crashing rule)."""


# format name -> (module, function)
FORMATS: dict[str, tuple[str, str]] = {
    "full": ("hlsllint.output.text", "print_full"),
    "concise": ("hlsllint.output.text", "print_concise"),
    "json": ("hlsllint.output.json", "print_json"),
    "json-lines": ("hlsllint.output.json", "print_json_lines"),
    "sarif": ("hlsllint.output.sarif", "print_sarif"),
    "github": ("hlsllint.output.github", "print_github"),
    "gitlab": ("hlsllint.output.gitlab", "print_gitlab"),
    "junit": ("hlsllint.output.junit", "print_junit"),
    "rdjson": ("hlsllint.output.rdjson", "print_rdjson"),
    "pylint": ("hlsllint.output.pylint", "print_pylint"),
    "grouped": ("hlsllint.output.text", "print_grouped"),
}


def printer(name: str) -> Printer:
    module, func = FORMATS[name]
    fn: Printer = getattr(importlib.import_module(module), func)
    return fn
