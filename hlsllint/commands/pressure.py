"""`hlsllint pressure`: live registers per source line, the peak, and the occupancy it allows.

Finds the files, reads their settings and the build's variants, has each analysed
(`hlsllint.pressure_report`), prints the reports in the chosen format (`PRESSURE_FORMATS` in
`hlsllint.output`) and says how it went in the exit status.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Sequence
from typing import IO, Any

from hlsllint.config import ConfigResolver, Settings, Variant
from hlsllint.discovery import discover
from hlsllint.lint import FileLoader
from hlsllint.output import PRESSURE_FORMATS, pressure_printer
from hlsllint.pressure_report import UnitPressure, analyse_file
from hlsllint.source import SourceError
from hlsllint.targets import UnknownTarget


def run_pressure(
    paths: Sequence[str],
    resolver: ConfigResolver | None = None,
    *,
    entry: str | None = None,
    output_format: str = "text",
    target: str | None = None,
    wave: int | None = None,
    out: IO[str] | None = None,
) -> int:
    """`hlsllint pressure`. Exit status: 0 reports printed, 1 no (matching) entry point (or
    every file ran past the time budget), 2 a file could not be read or the target is unknown."""
    out = out or sys.stdout
    resolver = resolver or ConfigResolver()
    with_values = PRESSURE_FORMATS[output_format].values
    status = 0
    skipped = False  # a file's analysis ran past the time budget
    units: list[UnitPressure] = []
    files = [p for p in paths if os.path.exists(p) and not os.path.isdir(p)] + list(
        discover([p for p in paths if os.path.isdir(p)], resolver)
    )
    missing = [p for p in paths if not os.path.exists(p)]
    for p in missing:
        print(f"hlsllint: error: {p}: no such file or directory", file=sys.stderr)
        status = 2
    for path in files:
        settings = _settings(resolver, path, target, wave)
        # The build's compiles of the file (`--compile-commands`, `variants`): one report per
        # compile, with its defines, and only its -E entry point when it names one.
        built: list[Variant | None] = [v for v in settings.variants_for(path) if v.entry is not None]
        variants = built or [None]
        seen: set[tuple[str, str]] = set()
        for variant in variants:
            try:
                loader = FileLoader(resolver=resolver)
                unit = analyse_file(
                    path, settings, entry=entry, loader=loader, with_values=with_values, variant=variant
                )
            except SourceError as e:
                print(f"hlsllint: error: {path}: {e}", file=sys.stderr)
                status = 2
                break
            except UnknownTarget as e:
                print(f"hlsllint: error: {e}", file=sys.stderr)
                return 2
            for note in unit.left_out:
                print(f"hlsllint: {note}", file=sys.stderr)
                skipped |= "(HL006" in note
            unit.reports = [r for r in unit.reports if (r.entry, r.stage) not in seen]
            seen.update((r.entry, r.stage) for r in unit.reports)
            if unit.reports:
                units.append(unit)
    pressure_printer(output_format)(units, out)
    if not any(u.reports for u in units) and status == 0:
        if skipped:  # said above, file by file
            return 1
        what = f"entry point {entry!r}" if entry else "entry point"
        print(f"hlsllint: no {what} found in {', '.join(paths)}", file=sys.stderr)
        return 1
    return status


def _settings(resolver: ConfigResolver, path: str, target: str | None, wave: int | None) -> Settings:
    """The file's settings, with the target and wave size given as arguments over them."""
    settings = resolver.for_path(path)
    changes: dict[str, Any] = {}
    if target is not None:
        changes["target"] = target
    if wave is not None:
        changes["wave_size"] = wave
    return dataclasses.replace(settings, **changes) if changes else settings
