"""The one diagnostics model. Every output format (text, JSON, SARIF, GitHub, LSP) prints these."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

from hlsllint.source import Location


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def counts_for_exit(self) -> bool:
        """Informational findings (e.g. HL000 unparsed-region) never fail a run."""
        return self is not Severity.INFO


class Applicability(StrEnum):
    """ruff's fix applicability: safe fixes apply with --fix, unsafe ones need --unsafe-fixes."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY = "display"  # shown as a suggestion only, never applied


class FixAvailability(StrEnum):
    """What a rule declares about its fixes (documentation)."""

    NONE = "none"
    SOMETIMES = "sometimes"
    ALWAYS = "always"


@dataclass(frozen=True)
class Edit:
    """Replace text[start:end] of `path` (code-point offsets into the original file) by `content`."""

    path: str
    start: int
    end: int
    content: str
    start_location: Location
    end_location: Location


@dataclass(frozen=True)
class Fix:
    message: str
    applicability: Applicability
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Related:
    path: str
    start: Location
    end: Location
    message: str


_LINE_BREAKS = re.compile(r"[ \t]*[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+[ \t]*")
"""What `str.splitlines` breaks a line at, with the blanks around it (a name from the source, such
as an include's, may hold any of them)."""


def _one_line(text: str) -> str:
    return _LINE_BREAKS.sub(" ", text) if _LINE_BREAKS.search(text) else text


@dataclass
class Diagnostic:
    code: str
    name: str
    message: str
    severity: Severity
    path: str
    start_offset: int
    end_offset: int
    start: Location
    end: Location
    fix: Fix | None = None
    related: tuple[Related, ...] = ()
    variant: str | None = None
    """Name of the define set (variant) the finding was seen in, when variants are configured."""
    extra: dict[str, object] = field(default_factory=dict)
    """Rule-specific data (e.g. pressure figures) that some outputs may show."""
    help: str | None = None
    """What to do about it, one sentence (ruff's `help:` line under the code frame). The message
    itself stays short (about 120 characters at most): the problem and its measured detail."""
    notes: tuple[str, ...] = ()
    """Why, and the figures behind it (`note:` lines): what the message has no room for."""

    def __post_init__(self) -> None:
        # One line per finding in every line-oriented format: code quoted across lines is joined.
        self.message = _one_line(self.message)
        if self.help is not None:
            self.help = _one_line(self.help)
        if any(_LINE_BREAKS.search(n) for n in self.notes):
            self.notes = tuple(_one_line(n) for n in self.notes)

    def details(self) -> list[str]:
        """The `help: ...` and `note: ...` lines, in the order the text output prints them."""
        return ([f"help: {self.help}"] if self.help else []) + [f"note: {n}" for n in self.notes]

    def long_message(self, separator: str = "\n") -> str:
        """The message with its help and notes, for formats that have one text per finding."""
        return separator.join([self.message, *self.details()])

    @property
    def noqa_row(self) -> int:
        return self.start.row

    def key(self) -> tuple[str, str, int, int, str]:
        """Identity used to report a finding once when a header is seen from many includers."""
        return (self.path, self.code, self.start_offset, self.end_offset, self.message)

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.start.row, self.start.column, self.code)
