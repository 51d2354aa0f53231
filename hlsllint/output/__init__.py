"""Printers over the one diagnostics model, and over the register-pressure report
(`hlsllint.pressure_report`). None of them looks at the syntax tree; they only print."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import IO, TYPE_CHECKING, NamedTuple, Protocol

from hlsllint.diagnostics import Diagnostic
from hlsllint.source import SourceFile

if TYPE_CHECKING:  # the report's module imports the analysis: not at start-up
    from hlsllint.pressure_report import UnitPressure


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


# -- `hlsllint pressure` ------------------------------------------------------------------------


class PressurePrinter(Protocol):
    def __call__(self, units: Sequence[UnitPressure], out: IO[str]) -> None:
        """Print the reports of every unit's entry points."""


class PressureFormat(NamedTuple):
    module: str
    function: str
    values: bool = False
    """The printer lists the values live at every line (an extra pass over each entry point)."""


PRESSURE_FORMATS: dict[str, PressureFormat] = {
    "text": PressureFormat("hlsllint.output.pressure_text", "print_pressure_text"),
    "json": PressureFormat("hlsllint.output.pressure_json", "print_pressure_json"),
    "html": PressureFormat("hlsllint.output.pressure_html", "print_pressure_html", values=True),
}


def pressure_printer(name: str) -> PressurePrinter:
    fmt = PRESSURE_FORMATS[name]
    fn: PressurePrinter = getattr(importlib.import_module(fmt.module), fmt.function)
    return fn
