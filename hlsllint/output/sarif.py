"""SARIF 2.1.0 output (`--output-format sarif`), shaped for GitHub code scanning.

- `tool.driver.rules` is generated from the rule metadata (the same documentation as
  `hlsllint rule`), so code scanning shows each rule's help with its bad/good example.
- Locations are URIs relative to `%SRCROOT%` (the git root, else the working folder), which
  `originalUriBaseIds` declares; a file outside it gets an absolute `file:` URI. Regions are
  1-based with an exclusive end column, counted in code points (`columnKind`).
- A rule's `help` holds plain text in `text` and the Markdown documentation in `markdown`.
- `partialFingerprints.primaryLocationLineHash` hashes the rule, the normalised text of the line
  and the occurrence of that pair in the file, so alerts survive unrelated lines moving.
- GitHub's upload limits (25,000 results per run, 10 MB) are respected: extra results are dropped
  with a message on stderr and a notification in the run's invocation.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import hlsllint
from hlsllint import __version__, rule_url
from hlsllint.diagnostics import Diagnostic, Fix, Severity
from hlsllint.discovery import git_checkout_of
from hlsllint.registry import all_rules
from hlsllint.rule import Rule
from hlsllint.source import Location, SourceFile

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/hlsllint/hlsllint"
MAX_RESULTS = 25_000
"""GitHub code scanning rejects runs with more results than this."""
MAX_BYTES = 10 * 1024 * 1024
"""GitHub's upload limit (it applies to the compressed file; we keep the plain file under it)."""
MAX_RELATED = 1_000

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


# -- paths -----------------------------------------------------------------------------------------


def repository_root(start: str | None = None) -> str:
    """The closest folder above `start` (default: the working folder) holding `.git`, else `start`."""
    here = os.path.abspath(start or os.getcwd())
    return git_checkout_of(here) or here


def relative_path(path: str, root: str) -> str:
    """`path` relative to `root` with `/` separators; never absolute."""
    try:
        rel = os.path.relpath(os.path.abspath(path), root)
    except ValueError:  # another drive on Windows
        rel = os.path.basename(path)
    if rel.startswith(".."):  # outside the repository: relative to the working folder instead
        try:
            rel = os.path.relpath(os.path.abspath(path))
        except ValueError:
            rel = os.path.basename(path)
    return rel.replace(os.sep, "/")


def relative_text(text: str, root: str) -> str:
    """A message (an internal error's traceback) with the absolute paths in it made relative as
    the results' URIs are: to the repository, else the working folder; hlsllint's own files to
    the folder they are imported from (`hlsllint/checker.py`, not the runner's site-packages)."""
    root = os.path.abspath(root)
    package = os.path.dirname(os.path.dirname(os.path.abspath(hlsllint.__file__)))
    imports = {os.path.abspath(p) for p in (package, *sys.path) if p}
    inside = [p for p in imports if p.startswith(root + os.sep)]
    outside = [p for p in imports - set(inside) if not (root + os.sep).startswith(p + os.sep)]
    for prefix in [
        *sorted(inside, key=len, reverse=True),
        root,
        os.getcwd(),
        *sorted(outside, key=len, reverse=True),
    ]:
        if prefix != os.path.dirname(prefix):  # not the file system's root
            text = text.replace(prefix + os.sep, "")
    return text


SRCROOT = "%SRCROOT%"
"""The base of every URI inside the repository, declared in the run's `originalUriBaseIds`."""


def _inside(path: str, root: str) -> str | None:
    """`path` relative to `root` with `/` separators, or None when it lies outside."""
    try:
        rel = os.path.relpath(os.path.abspath(path), root)
    except ValueError:  # another drive on Windows
        return None
    return None if rel == ".." or rel.startswith(".." + os.sep) else rel.replace(os.sep, "/")


def artifact_uri(path: str, root: str) -> str:
    """A URI relative to `root` (the %SRCROOT% base), or an absolute file URI outside it."""
    rel = _inside(path, root)
    if rel is None:
        return Path(os.path.abspath(path)).as_uri()
    return urllib.parse.quote(rel, safe="/._-~")


def artifact_location(path: str, root: str) -> dict[str, str]:
    uri = artifact_uri(path, root)
    return {"uri": uri} if uri.startswith("file:") else {"uri": uri, "uriBaseId": SRCROOT}


def root_uri(root: str) -> str:
    uri = Path(os.path.abspath(root)).as_uri()
    return uri if uri.endswith("/") else uri + "/"


# -- rules -----------------------------------------------------------------------------------------


def rule_descriptor(rule: type[Rule]) -> dict[str, Any]:
    doc = rule.documentation()
    full = " ".join(rule.rationale.split()) or " ".join(rule.summary.split())
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": " ".join(rule.summary.split())},
        "fullDescription": {"text": full},
        "help": {"text": plain_text(doc), "markdown": doc},
        "helpUri": rule_url(rule.code),
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": list(rule.tags), "precision": rule.precision},
    }


def plain_text(markdown: str) -> str:
    """Markdown as plain text (SARIF's `help.text`, for viewers that do not render Markdown): the
    words without markup, code blocks indented, list items dashed, tables in aligned columns."""
    from markdown_it import MarkdownIt  # only for SARIF: not imported by other runs

    out: list[str] = []
    table: list[list[str]] = []
    row: list[str] | None = None
    in_item = 0
    for tok in MarkdownIt("commonmark").enable("table").parse(markdown):
        match tok.type:
            case "inline":
                text = _inline_text(tok.children or [])
                if row is not None:
                    row.append(text)
                else:
                    out.append(("- " if in_item else "") + text)
            case "fence" | "code_block":
                out += [("    " + line).rstrip() for line in tok.content.rstrip("\n").split("\n")] + [""]
            case "list_item_open":
                in_item += 1
            case "list_item_close":
                in_item -= 1
            case "tr_open":
                row = []
            case "tr_close":
                table.append(row or [])
                row = None
            case "table_close":
                widths = [max(len(r[i]) for r in table if i < len(r)) for i in range(max(map(len, table)))]
                out += [
                    "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip() for r in table
                ]
                out.append("")
                table = []
            case "heading_close" | "paragraph_close" | "bullet_list_close" | "ordered_list_close":
                if not tok.hidden:
                    out.append("")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def _inline_text(children: Sequence[Any]) -> str:
    parts: list[str] = []
    href = ""
    start = 0
    for c in children:
        if c.type in ("text", "code_inline", "html_inline", "image"):
            parts.append(c.content)
        elif c.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif c.type == "link_open":
            href = str(c.attrs.get("href", ""))
            start = len(parts)
        elif c.type == "link_close" and href and href != "".join(parts[start:]):
            parts.append(f" ({href})")
    return "".join(parts)


def _unknown_rule_descriptor(d: Diagnostic) -> dict[str, Any]:
    """A finding whose rule is not registered (should not happen; keep the log valid anyway)."""
    return {
        "id": d.code,
        "name": d.name,
        "shortDescription": {"text": d.name},
        "helpUri": rule_url(d.code),
        "defaultConfiguration": {"level": LEVELS[d.severity]},
    }


# -- results ---------------------------------------------------------------------------------------


def region(start: Location, end: Location) -> dict[str, int]:
    return {
        "startLine": start.row,
        "startColumn": start.column,
        "endLine": end.row,
        "endColumn": end.column,
    }


def _physical(path: str, start: Location, end: Location, root: str) -> dict[str, Any]:
    return {
        "artifactLocation": artifact_location(path, root),
        "region": region(start, end),
    }


def line_hash(code: str, line: str) -> str:
    normalised = " ".join(line.split())
    return hashlib.sha256(f"{code}\0{normalised}".encode()).hexdigest()[:16]


def _fix(fix: Fix, root: str) -> dict[str, Any]:
    by_path: dict[str, list[dict[str, Any]]] = {}
    for e in fix.edits:
        by_path.setdefault(e.path, []).append(
            {
                "deletedRegion": region(e.start_location, e.end_location),
                "insertedContent": {"text": e.content},
            }
        )
    return {
        "description": {"text": fix.message},
        "artifactChanges": [
            {"artifactLocation": artifact_location(p, root), "replacements": reps}
            for p, reps in by_path.items()
        ],
        "properties": {"applicability": fix.applicability.value},
    }


def _result(d: Diagnostic, rule_index: int, fingerprint: str, root: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": LEVELS[d.severity],
        "message": {"text": d.long_message()},
        "locations": [{"physicalLocation": _physical(d.path, d.start, d.end, root)}],
        "partialFingerprints": {"primaryLocationLineHash": fingerprint},
    }
    if d.related:
        result["relatedLocations"] = [
            {
                "id": i,
                "physicalLocation": _physical(r.path, r.start, r.end, root),
                "message": {"text": r.message},
            }
            for i, r in enumerate(d.related[:MAX_RELATED])
        ]
    if d.fix is not None and d.fix.edits:
        result["fixes"] = [_fix(d.fix, root)]
    if d.variant:
        result["properties"] = {"variant": d.variant}
    return result


def fingerprints(diagnostics: Sequence[Diagnostic], sources: Mapping[str, SourceFile]) -> list[str]:
    """`hash:occurrence` per diagnostic: the occurrence counts equal (rule, line text) pairs in a file."""
    seen: dict[tuple[str, str], int] = {}
    out = []
    for d in diagnostics:
        src = sources.get(d.path) or sources.get(os.path.normpath(d.path))
        text = src.line(d.start.row) if src is not None else ""
        h = line_hash(d.code, text)
        key = (os.path.normpath(d.path), h)
        seen[key] = seen.get(key, 0) + 1
        out.append(f"{h}:{seen[key]}")
    return out


# -- the log ---------------------------------------------------------------------------------------


def sarif_log(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, SourceFile],
    *,
    root: str | None = None,
    max_results: int | None = None,
    max_bytes: int | None = None,
    errors: Sequence[str] = (),
) -> tuple[dict[str, Any], str | None]:
    """The SARIF log as a dict, and a message when results had to be dropped to fit the limits.

    `errors` (a crashing rule) and files that could not be read (HL004) make the invocation
    unsuccessful, each with a `toolExecutionNotifications` entry; an analysis stopped by the time
    budget (HL006) is a warning notification."""
    root = root or repository_root()
    max_results = MAX_RESULTS if max_results is None else max_results
    max_bytes = MAX_BYTES if max_bytes is None else max_bytes
    ordered = sorted(diagnostics, key=Diagnostic.sort_key)
    rules = [rule_descriptor(r) for r in all_rules()]
    index = {r["id"]: i for i, r in enumerate(rules)}
    for d in ordered:
        if d.code not in index:
            index[d.code] = len(rules)
            rules.append(_unknown_rule_descriptor(d))
    prints = fingerprints(ordered, sources)
    results = [_result(d, index[d.code], fp, root) for d, fp in zip(ordered, prints, strict=True)]

    problems = execution_notifications(ordered, errors, root)

    def build(kept: list[dict[str, Any]], note: str | None) -> dict[str, Any]:
        invocation: dict[str, Any] = {"executionSuccessful": not any(n["level"] == "error" for n in problems)}
        notes = list(problems)
        if note:
            notes.append({"level": "warning", "message": {"text": note}, "descriptor": {"id": "truncated"}})
        if notes:
            invocation["toolExecutionNotifications"] = notes
        return {
            "$schema": SCHEMA_URI,
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {
                        "driver": {
                            "name": "hlsllint",
                            "version": __version__,
                            "semanticVersion": __version__,
                            "informationUri": INFORMATION_URI,
                            "rules": rules,
                        }
                    },
                    "invocations": [invocation],
                    "originalUriBaseIds": {SRCROOT: {"uri": root_uri(root)}},
                    "columnKind": "unicodeCodePoints",
                    "results": kept,
                }
            ],
        }

    def note_for(kept: int) -> str:
        return (
            f"hlsllint: SARIF output truncated to {kept} of {len(results)} results "
            f"(GitHub code scanning accepts at most {max_results} results and {max_bytes} bytes per run)"
        )

    keep = min(len(results), max_results)
    note = note_for(keep) if keep < len(results) else None
    log = build(results[:keep], note)
    size = len(dumps(log).encode())
    while size > max_bytes and keep > 0:
        keep = max(0, min(keep - 1, int(keep * max_bytes / size * 0.95)))
        note = note_for(keep)
        log = build(results[:keep], note)
        size = len(dumps(log).encode())
    return log, note


UNREADABLE = "HL004"
SKIPPED = "HL006"


def execution_notifications(
    diagnostics: Sequence[Diagnostic], errors: Sequence[str], root: str
) -> list[dict[str, Any]]:
    """What went wrong while running: internal errors, unreadable files, skipped analyses."""
    notes: list[dict[str, Any]] = [
        {
            "level": "error",
            "message": {"text": relative_text(e, root)},
            "descriptor": {"id": "internal-error"},
        }
        for e in errors
    ]
    for d in diagnostics:
        if d.code in (UNREADABLE, SKIPPED):
            notes.append(
                {
                    "level": "error" if d.code == UNREADABLE else "warning",
                    "message": {"text": d.message},
                    "descriptor": {"id": d.code},
                    "locations": [{"physicalLocation": _physical(d.path, d.start, d.end, root)}],
                }
            )
    return notes


def dumps(log: dict[str, Any]) -> str:
    return json.dumps(log, indent=2, ensure_ascii=False)


def print_sarif(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, SourceFile],
    out: IO[str],
    errors: Sequence[str] = (),
) -> None:
    log, note = sarif_log(diagnostics, sources, errors=errors)
    if note:
        print(note, file=sys.stderr)
    out.write(dumps(log) + "\n")
