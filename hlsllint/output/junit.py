"""JUnit XML (`--output-format junit`), for CI test reporters: one test suite per file, one failing
test case per finding (a passing one, with the finding in `<system-out>`, for an info finding, which
fails no run); a run without findings is one passing case. Internal errors (a crashing rule) are
`<error>` cases."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import IO

from hlsllint.diagnostics import Diagnostic
from hlsllint.source import SourceFile


def junit_tree(diagnostics: Sequence[Diagnostic], errors: Sequence[str] = ()) -> ET.Element:
    root = ET.Element("testsuites", name="hlsllint")
    by_path: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_path.setdefault(d.path, []).append(d)
    failures = 0
    for path, found in by_path.items():
        failing = sum(1 for d in found if d.severity.counts_for_exit)
        failures += failing
        suite = ET.SubElement(root, "testsuite", name=path, tests=str(len(found)), failures=str(failing))
        suite.set("errors", "0")
        for d in found:
            case = ET.SubElement(
                suite,
                "testcase",
                name=f"{d.code} {d.name} ({d.start.row}:{d.start.column})",
                classname=f"hlsllint.{d.code}",
                file=path,
                line=str(d.start.row),
            )
            text = "\n".join(
                [
                    f"{path}:{d.start.row}:{d.start.column}: {d.code} {d.message}"
                    + (f" [{d.variant}]" if d.variant else ""),
                    *d.details(),
                ]
            )
            if d.severity.counts_for_exit:
                failure = ET.SubElement(case, "failure", message=d.message, type=d.severity.value)
                failure.text = text
            else:  # an info finding (HL000) fails no run, so it fails no test: a passing case
                ET.SubElement(case, "system-out").text = text
    if errors:
        suite = ET.SubElement(root, "testsuite", name="hlsllint", tests=str(len(errors)), failures="0")
        suite.set("errors", str(len(errors)))
        for i, e in enumerate(errors, start=1):
            case = ET.SubElement(suite, "testcase", name=f"internal error {i}", classname="hlsllint")
            ET.SubElement(case, "error", message=e)
    if not by_path and not errors:
        suite = ET.SubElement(root, "testsuite", name="hlsllint", tests="1", failures="0")
        suite.set("errors", "0")
        ET.SubElement(suite, "testcase", name="no findings", classname="hlsllint")
    total = sum(len(v) for v in by_path.values())
    root.set("tests", str(max(total + len(errors), 1)))
    root.set("failures", str(failures))
    root.set("errors", str(len(errors)))
    return root


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_chars(text: str) -> str:
    """`text` with the characters XML 1.0 does not allow (control characters such as a stray
    0x0F from a file, lone surrogates) written as `\\xNN` / `\\uNNNN`."""
    if _NOT_XML.search(text) is None:
        return text
    return _NOT_XML.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


def print_junit(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, SourceFile],
    out: IO[str],
    errors: Sequence[str] = (),
) -> None:
    root = junit_tree(diagnostics, errors)
    for element in root.iter():  # what XML 1.0 cannot hold, even escaped, is spelt out
        if element.text:
            element.text = _xml_chars(element.text)
        for key, value in element.attrib.items():
            element.set(key, _xml_chars(value))
    tree = ET.ElementTree(root)
    ET.indent(tree)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    tree.write(out, encoding="unicode")
    out.write("\n")
