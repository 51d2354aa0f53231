"""Findings the engine reports itself (no check): parse coverage, suppressions, preprocessing, I/O.

They are rules all the same: they have codes users select and ignore, and documentation.
"""

from __future__ import annotations

from hlsllint.diagnostics import FixAvailability, Severity
from hlsllint.rule import Rule


class UnparsedRegion(Rule):
    code = "HL000"
    name = "unparsed-region"
    summary = "Code that the grammar cannot read, even after preprocessing and repair."
    rationale = (
        "hlsllint analyses a syntax tree. Where the tree-sitter grammar cannot read a region (an "
        "unusual extension, a macro trick, a typo), the rules skip that region instead of guessing, "
        "and this informational finding says where. It never changes the exit code. If the code "
        "compiles with DXC, the region is a gap in hlsllint: please report it with the snippet."
    )
    bad_example = ""
    good_example = ""
    severity = Severity.INFO
    engine = True
    tags = ("parser",)


class UnusedNoqa(Rule):
    code = "HL001"
    name = "unused-noqa"
    summary = "A `// noqa` directive (or a code listed in it) that suppresses nothing."
    rationale = (
        "Suppressions outlive the findings they were written for. A stale `noqa` hides the next, "
        "unrelated finding on the same line; removing it keeps suppressions honest."
    )
    bad_example = "float x = 1.0; // noqa: HL105\n"
    good_example = "float x = 1.0;\n"
    fix = FixAvailability.ALWAYS
    fix_safety = "Removing an unused code (or the whole comment when no code is left) is safe."
    engine = True
    tags = ("suppression",)


class IncludeNotFound(Rule):
    code = "HL002"
    name = "include-not-found"
    summary = "An `#include` that cannot be found in the including file's folder or the include dirs."
    rationale = (
        "Without the header, macros and declarations it provides are unknown and the analysis of "
        "the file is incomplete. Add the folder with `-I` or `include-dirs` in the config."
    )
    bad_example = ""
    good_example = ""
    engine = True
    tags = ("preprocessor",)


class PreprocessorError(Rule):
    code = "HL003"
    name = "preprocessor-error"
    summary = "`#error`, a malformed directive or expression, an include cycle or runaway expansion."
    rationale = (
        "The preprocessor could not process this part of the file as written; the analysis goes "
        "on with what it could read. `#error` often means a define the build sets is missing: pass "
        "it with `-D` or `defines`/`variants` in the config."
    )
    bad_example = ""
    good_example = ""
    engine = True
    tags = ("preprocessor",)


class UnreadableFile(Rule):
    code = "HL004"
    name = "unreadable-file"
    summary = "A file that cannot be linted: unreadable, binary, or over the size limit."
    rationale = (
        "The file was skipped and the run goes on with the other files. Files with NUL bytes are "
        "treated as binary, and files over 4 MiB are not read (they are generated data, not "
        "shaders); permissions and missing files are reported with the system's reason."
    )
    bad_example = ""
    good_example = ""
    severity = Severity.ERROR
    engine = True
    tags = ("io",)


class NonUtf8File(Rule):
    code = "HL005"
    name = "non-utf8-file"
    summary = "A file that is not valid UTF-8 (invalid bytes were read as U+FFFD) or is UTF-16."
    rationale = (
        "The file is linted, but `--fix` never rewrites it, because writing it back would change "
        "the bytes that were not valid UTF-8 (or the file's encoding). Save it as UTF-8."
    )
    bad_example = ""
    good_example = ""
    engine = True
    tags = ("io",)


class AnalysisBudget(Rule):
    code = "HL006"
    name = "analysis-time-budget"
    summary = "A file whose analysis ran past the per-file time budget; the rest of it was skipped."
    rationale = (
        "A pathological file (generated code, a huge `switch`, a macro bomb) must not hold up the "
        "run: past `time-budget` seconds (default 10) the analysis of that file stops, the findings "
        "already made are kept, and the run goes on with the other files. Raise `time-budget` in "
        "the config for a file that is slow but legitimate; 0 turns the budget off."
    )
    bad_example = ""
    good_example = ""
    engine = True
    tags = ("io",)


class NestingTooDeep(Rule):
    code = "HL007"
    name = "nesting-too-deep"
    summary = (
        "Code nested deeper than the analysis follows (an expression or statements hundreds of "
        "levels deep); the function holding it is not analysed."
    )
    rationale = (
        "Every stage walks expressions and statements level by level, and a level costs stack. "
        "Past 256 levels of the syntax tree (an expression of thousands of terms, thousands of "
        "nested `if`s or parentheses, usually generated or hostile code) the function holding it "
        "(or the top-level declaration, outside functions) is left out of the analysis, the "
        "finding says where and how deep, and the rest of the file is analysed as usual. The "
        "production shaders measured nest at most 35 levels. Split the expression (a running sum "
        "in a loop or in steps) if the code is real."
    )
    bad_example = ""
    good_example = ""
    engine = True
    tags = ("parser",)
