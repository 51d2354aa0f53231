"""bench/relint_cpu.py --stages: the stages it runs again for an edit build the CFGs as the relint
did, replaying the last version's lowering (before, they lowered every body afresh, so the CFG's
stage counted the replayed bodies' lowering and the rest of the lint came out negative)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from test_lowering_reuse import ANCHOR, EDIT, SOURCE

from hlsllint.analysis.lowering_reuse import LoweringReuse
from hlsllint.config import ConfigResolver
from hlsllint.server import incremental
from hlsllint.server.document_lint import lint_document

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import relint_cpu


def test_the_stages_replay_the_last_versions_lowering_as_the_relint_does(tmp_path: Path) -> None:
    path = os.path.normpath(str(tmp_path / "shader.hlsl"))
    Path(path).write_text(SOURCE, encoding="utf-8")
    resolver = ConfigResolver()
    settings = resolver.for_path(path)
    done = lint_document(path, SOURCE, resolver, settings)
    assert done.context is not None
    snap = incremental.snapshot(done.context, path, SOURCE, settings, None, done.findings)
    assert snap is not None
    edited = SOURCE.replace(ANCHOR, EDIT + ANCHOR, 1)
    first = incremental.relint(snap, edited)  # the first relint: no lowering to replay yet
    assert first is not None and first.snapshot.lowering is not None
    last = first.snapshot
    calls = []
    original = incremental.lint_unit

    def recorded(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(args)
        return original(*args, **kwargs)

    incremental.lint_unit = recorded  # type: ignore[assignment]
    try:
        again = incremental.relint(last, SOURCE)
    finally:
        incremental.lint_unit = original  # type: ignore[assignment]
    assert again is not None and again.snapshot.lowering is not None
    assert again.snapshot.lowering.taken > 0
    ((upath, usettings, uvariant, loader),) = calls
    rerun = LoweringReuse(last.lowering)
    split = relint_cpu._stages(upath, usettings, uvariant, loader, last.tree, rerun)
    assert rerun.taken == again.snapshot.lowering.taken
    assert {"cfg main_ps", "uniformity (value, sgpr)", "liveness", "pressure"} <= set(split)
    assert all(v >= 0 for v in split.values())
