"""Stage 1: the C preprocessor, with exact source mapping.

Interface (used by the pipeline; keep it stable):

    preprocess(main: SourceFile, options: PreprocessOptions, loader: Loader) -> PreprocessResult

`loader(path)` returns a SourceFile (or raises SourceError); the pipeline passes one that serves
unsaved editor buffers and caches files. The result's `text` is what the parser sees, `sourcemap`
maps every offset of it back to an original file, `diagnostics` are HL002/HL003-style problems.

Own implementation rather than pcpp, by measurement on the 1221 production corpus files
(`python bench/preprocess_speed.py --pcpp`): 6.3 s vs pcpp 46.0 s, no crashes for either, 0 of 92k
verbatim segments mismatching their source, while pcpp only keeps line markers (no columns).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from hlsllint.preprocess import lexer
from hlsllint.preprocess.engine import Preprocessor
from hlsllint.preprocess.expansions import clear_expansions
from hlsllint.preprocess.includes import resolve_include, scan_includes
from hlsllint.preprocess.sourcemap import MappedRange, Segment, SourceMap
from hlsllint.source import SourceFile

Loader = Callable[[str], SourceFile]
_LONE_CR = re.compile(r"\r(?!\n)")

__all__ = [
    "Loader",
    "MappedRange",
    "PPDiagnostic",
    "PreprocessOptions",
    "PreprocessResult",
    "Segment",
    "SourceMap",
    "clear_cache",
    "preprocess",
    "resolve_include",
    "scan_includes",
    "segment_state",
]


@dataclass(frozen=True)
class PreprocessOptions:
    defines: tuple[tuple[str, str], ...] = ()
    """(name, value) pairs, as -D NAME=VALUE; a bare -D NAME has the value "1"."""
    include_dirs: tuple[str, ...] = ()
    stop_after: tuple[str, ...] = ()
    """Headers after whose first expansions (all of them) the unit ends: the text that follows
    is left out."""


@dataclass(frozen=True)
class PPDiagnostic:
    code: str  # "HL002" include-not-found, "HL003" preprocessor-error
    message: str
    path: str
    start: int
    end: int


@dataclass
class PreprocessResult:
    text: str
    sourcemap: SourceMap
    diagnostics: list[PPDiagnostic] = field(default_factory=list)
    included: list[str] = field(default_factory=list)
    """Paths of every file that was included (transitively), in first-inclusion order."""
    sources: dict[str, SourceFile] = field(default_factory=dict)
    """Every file the expanded text maps into, the main file included."""
    missing: list[str] = field(default_factory=list)
    """Paths the include search probed and did not find (sorted)."""
    reused: int = 0
    """Header expansions taken from an earlier unit of this process instead of done again."""


def segment_state(text: str, s: Segment, own: bool) -> tuple[object, ...]:
    """What one segment of the expanded `text` gives a key of the unit's state (the text as the
    analysis reads it): the unit's own file (`own`) by its tokens, each with whether a line break
    comes before it, so that its comments and blanks do not count; another file's verbatim text
    by the range of that file it copies (the key holds the file's content apart); a macro
    expansion by its text."""
    if own:
        return ("main", lexer.token_layout(text, s.out_start, s.out_end))
    if s.verbatim:
        return ("file", s.path, s.src_start, s.src_end)
    return ("macro", s.path, s.src_start, s.src_end, text[s.out_start : s.out_end])


def clear_cache() -> None:
    """Forget this process's lexed files and recorded header expansions."""
    lexer.clear_cache()
    clear_expansions()


def preprocess(main: SourceFile, options: PreprocessOptions, loader: Loader) -> PreprocessResult:
    """Preprocess `main` (and its includes) into mapped text. Never raises on bad input."""
    pp = Preprocessor(loader, options.include_dirs, options.defines, options.stop_after)
    pp.run(main)
    text, sourcemap = pp.out.result(main.path)
    if "\r" in text:  # a lone CR ends a line; LF in its place keeps every offset
        text = _LONE_CR.sub("\n", text)
    sources = dict(pp.sources)
    sources[main.path] = main
    diagnostics = [PPDiagnostic(d.code, d.message, d.path, d.start, d.end) for d in pp.diagnostics]
    return PreprocessResult(
        text=text,
        sourcemap=sourcemap,
        diagnostics=diagnostics,
        included=list(pp.included),
        sources=sources,
        missing=sorted(pp.missing),
        reused=pp.replayed,
    )
