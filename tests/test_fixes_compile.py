"""A fix never turns a compiling shader into one that does not compile.

For every rule that offers fixes, each of its fixtures (and its documentation's bad example) where
the rule fires with an applicable fix is compiled with Slang (tests/slang_compile.py) before any
fix, after each fix on its own (safe and unsafe), and after `--fix` and `--fix --unsafe-fixes`
(every fix, linted again and fixed until nothing is left, as the CLI does).
Each source is compiled for the entry points hlsllint finds in it (to SPIR-V); a source without
one is type-checked. Skipped where Slang is missing; a source that does not compile before any fix is
skipped with Slang's first error.
"""

from __future__ import annotations

import difflib
import functools

import pytest
from conftest import FIXTURES
from slang_compile import CompileResult, slang_compiler, slang_missing_reason

from hlsllint.commands.check import MAX_FIX_ITERATIONS
from hlsllint.config import Settings
from hlsllint.diagnostics import Diagnostic, FixAvailability
from hlsllint.fix import applicable, apply_fixes
from hlsllint.lint import FileLoader, UnitResult, lint_unit
from hlsllint.registry import all_rules

FIXING_RULES = [r for r in all_rules() if r.fix is not FixAvailability.NONE and not r.engine]


@functools.cache
def _lint(code: str, path: str, text: str) -> UnitResult:
    return lint_unit(path, Settings(select=(code,)), loader=FileLoader({path: text}))


def _fixable(code: str, path: str, text: str) -> list[Diagnostic]:
    """The findings of `code` in `path` whose fix --fix or --unsafe-fixes would apply."""
    return [
        d
        for d in _lint(code, path, text).diagnostics
        if d.code == code and applicable(d, unsafe=True) and all(e.path == path for e in d.fix.edits)  # type: ignore[union-attr]
    ]


def _sources() -> list[tuple[str, str]]:
    """(rule code, source) pairs: each fixture of a fixing rule, and the rule's bad example."""
    out = []
    for rule in FIXING_RULES:
        out += [
            (rule.code, f"fixtures/{rule.code}/{f.name}")
            for f in sorted((FIXTURES / rule.code).glob("*.hlsl"))
        ]
        out.append((rule.code, f"{rule.code}.bad_example"))
    return out


def _read(code: str, source: str) -> tuple[str, str]:
    """(path given to the linter and the compiler, text) of a source named by `_sources`."""
    if source.endswith(".bad_example"):
        rule = next(r for r in FIXING_RULES if r.code == code)
        return f"{code}_bad_example.hlsl", rule.bad_example
    path = FIXTURES.parent / source
    return str(path), path.read_text(encoding="utf-8")


def _cases() -> list[tuple[str, str]]:
    """The sources where the rule fires with a fix (the others have nothing to check)."""
    return [(code, source) for code, source in _sources() if _fixable(code, *_read(code, source))]


CASES = _cases()


def test_every_fixing_rule_has_a_fixture_where_its_fix_applies() -> None:
    covered = {code for code, source in CASES if source.startswith("fixtures/")}
    assert FIXING_RULES
    assert covered == {r.code for r in FIXING_RULES}


def _entries(code: str, path: str, text: str) -> list[tuple[str, str]]:
    context = _lint(code, path, text).context
    assert context is not None
    return [(e.name, e.stage) for e in context.model.entry_points]


def _fix_to_fixpoint(code: str, path: str, text: str, unsafe: bool) -> str:
    for _ in range(MAX_FIX_ITERATIONS):
        changed = apply_fixes({path: text}, _lint(code, path, text).diagnostics, unsafe)
        if path not in changed:
            break
        text = changed[path].text
    return text


def _first_error(result: CompileResult) -> str:
    lines = [line for line in result.errors.splitlines() if line.strip()]
    return " ".join(lines[:1] + [line.strip() for line in lines[1:2]])


@pytest.mark.parametrize(("code", "source"), CASES)
def test_fixes_keep_the_source_compiling(code: str, source: str) -> None:
    compiler = slang_compiler()
    if compiler is None:
        pytest.skip(slang_missing_reason())
    path, text = _read(code, source)
    entries = _entries(code, path, text)
    before = compiler.compile(text, path, entries)
    if not before.ok:
        pytest.skip(f"{source} does not compile before any fix: {_first_error(before)}")

    versions: dict[str, str] = {}
    for d in _fixable(code, path, text):
        assert d.fix is not None
        fixed = apply_fixes({path: text}, [d], unsafe=True)
        assert path in fixed, f"line {d.start.row}: the fix changed nothing"
        versions[f"line {d.start.row} ({d.fix.applicability}): {d.fix.message}"] = fixed[path].text
    # What `--fix` and `--fix --unsafe-fixes` write: every fix, linted again until none is left.
    for label, unsafe in (("--fix", False), ("--fix --unsafe-fixes", True)):
        after = _fix_to_fixpoint(code, path, text, unsafe)
        if after != text and after not in versions.values():
            versions[label] = after
    failures = []
    for label, after in versions.items():
        result = compiler.compile(after, path, entries)
        if not result.ok:
            diff = "".join(
                difflib.unified_diff(
                    text.splitlines(keepends=True), after.splitlines(keepends=True), source, "fixed", n=1
                )
            )
            failures.append(f"{label}\n{diff}{result.errors}")
    assert not failures, (
        f"{len(failures)} of {len(versions)} fixed versions of {source} do not compile:\n\n"
        + ("\n\n".join(failures))
    )


def test_the_compile_check_catches_a_broken_fix() -> None:
    """The compiler used above rejects what DXC (HLSL 2021) rejects: a vector ternary condition."""
    compiler = slang_compiler()
    if compiler is None:
        pytest.skip(slang_missing_reason())
    good = "float2 f(float2 x, float2 y) { return select(x < 0, -y, y); }\n"
    entry = "[numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { f(id.xy, 1); }\n"
    assert compiler.compile(good + entry, "ok.hlsl", [("main", "compute")]).ok
    bad = compiler.compile(good.replace("select(x < 0, -y, y)", "x < 0 ? -y : y"), "bad.hlsl")
    assert not bad.ok and "E30056" in bad.errors
    assert not compiler.compile("float f() { return undeclared; }\n", "undeclared.hlsl").ok
