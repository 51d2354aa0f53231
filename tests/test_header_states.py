"""A header passed alone (as pre-commit passes a changed header) is analysed once per state its
includers give it: each includer's unit ends after the header (`PreprocessOptions.stop_after`),
and includers whose cut units differ only in the main file's comments and blanks share one
analysis (`SameUnits.state_key`). Whatever the header reads decides the state: an edit to the
header, or a define of an includer, changes its findings, cached or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlsllint.cache import Cache
from hlsllint.config import ConfigResolver
from hlsllint.driver import LintResult, lint_paths
from hlsllint.lint import FileLoader
from hlsllint.preprocess import PreprocessOptions, preprocess

# HL105 fires on `sign(x) < 0`: one finding only where FAST is defined, one whatever T is.
HEADER = (
    "#ifdef FAST\nbool Neg(float x) { return sign(x) < 0; }\n#endif\nbool Pos(T x) { return sign(x) > 0; }\n"
)
ENTRY = "float4 main() : SV_Target { return 0; }\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "hlsllint.toml").write_text("")  # a project: the header's includers are found
    (tmp_path / "common.hlsli").write_text(HEADER)
    for i in range(4):  # four includers, one state: a licence above, an entry point below
        licence = f"/* licence of shader {i} */\n" + "// more\n" * i
        (tmp_path / f"fast{i}.hlsl").write_text(
            licence + '#define FAST\n#define T float\n#include "common.hlsli"\n' + ENTRY
        )
    (tmp_path / "plain.hlsl").write_text('#define T half\n#include "common.hlsli"\n' + ENTRY)
    return tmp_path


def _lint(paths: list[Path], cache: Cache | None = None, jobs: int = 1) -> LintResult:
    result = lint_paths([str(p) for p in paths], ConfigResolver(), jobs=jobs, cache=cache)
    assert not result.errors, result.errors
    return result


def _found(result: LintResult) -> list[tuple[str, int, str | None]]:
    return [(d.code, d.start.row, d.variant) for d in result.diagnostics]


def _analysed(result: LintResult) -> list[str]:
    """The units analysed (not cached, not reusing an earlier unit's findings)."""
    return sorted(Path(u.path).name for u in result.units if not u.cached and u.same_as is None)


VIA_ALL = "via fast0.hlsl, via fast1.hlsl, via fast2.hlsl, +2 more"
VIA_FAST = "via fast0.hlsl, via fast1.hlsl, via fast2.hlsl, +1 more"


def test_header_alone_is_analysed_once_per_state(project: Path) -> None:
    alone = _lint([project / "common.hlsli"])
    # Four includers give the header one state, plain.hlsl another: two analyses.
    assert _analysed(alone) == ["fast0.hlsl", "plain.hlsl"]
    assert _found(alone) == [("HL105", 2, VIA_FAST), ("HL105", 4, VIA_ALL)]
    # The same findings, labels and all, as the whole folder gives at the header.
    whole = _lint([project])
    assert [
        f for f, d in zip(_found(whole), whole.diagnostics, strict=True) if d.path.endswith("common.hlsli")
    ] == (_found(alone))


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_define_of_an_includer_is_part_of_the_state(project: Path, jobs: int) -> None:
    (project / "fast3.hlsl").write_text('#define T float\n#include "common.hlsli"\n' + ENTRY)  # no FAST
    result = _lint([project / "common.hlsli"], jobs=jobs)
    via_three = "via fast0.hlsl, via fast1.hlsl, via fast2.hlsl"
    assert _found(result) == [("HL105", 2, via_three), ("HL105", 4, VIA_ALL)]
    if jobs == 1:
        assert _analysed(result) == ["fast0.hlsl", "fast3.hlsl", "plain.hlsl"]


def test_cached_header_states_follow_edits_of_the_header_and_of_a_define(
    project: Path, tmp_path: Path
) -> None:
    cache_dir = tmp_path / "cache"
    header = project / "common.hlsli"
    assert _found(_lint([header], Cache(cache_dir))) == [("HL105", 2, VIA_FAST), ("HL105", 4, VIA_ALL)]
    warm = _lint([header], Cache(cache_dir))
    assert _analysed(warm) == []
    assert _found(warm) == [("HL105", 2, VIA_FAST), ("HL105", 4, VIA_ALL)]
    # The header changes: every state is analysed again, and the finding moves with the edit.
    header.write_text("\n" + HEADER)
    edited = _lint([header], Cache(cache_dir))
    assert _analysed(edited) == ["fast0.hlsl", "plain.hlsl"]
    assert _found(edited) == [("HL105", 3, VIA_FAST), ("HL105", 5, VIA_ALL)]
    # An includer stops defining FAST: the header's findings under it change.
    fast0 = project / "fast0.hlsl"
    fast0.write_text(fast0.read_text().replace("#define FAST\n", ""))
    redefined = _lint([header], Cache(cache_dir))
    assert _analysed(redefined) == ["fast0.hlsl"]
    via_rest = "via fast1.hlsl, via fast2.hlsl, via fast3.hlsl"
    assert _found(redefined) == [("HL105", 3, via_rest), ("HL105", 5, VIA_ALL)]


def test_a_whole_includer_passed_too_is_linted_whole(project: Path) -> None:
    (project / "mid.hlsli").write_text('#include "common.hlsli"\n')
    (project / "top.hlsl").write_text(
        '#define FAST\n#define T float\n#include "mid.hlsli"\nbool M(float y) { return sign(y) < 0; }\n'
    )
    result = _lint([project / "common.hlsli", project / "top.hlsl"])
    # top.hlsl includes the header through mid.hlsli: linted whole, its own finding kept.
    assert [(Path(d.path).name, d.start.row) for d in result.diagnostics] == [
        ("common.hlsli", 2),
        ("common.hlsli", 4),
        ("top.hlsl", 4),
    ]
    units = {Path(u.path).name for u in result.units}
    assert "top.hlsl" in units and "mid.hlsli" not in units


def test_preprocess_stops_after_the_header_even_where_an_expansion_was_recorded(tmp_path: Path) -> None:
    (tmp_path / "h.hlsli").write_text("float InH;\n")
    (tmp_path / "mid.hlsli").write_text('float BeforeH;\n#include "h.hlsli"\nfloat AfterH;\n')
    (tmp_path / "main.hlsl").write_text('#include "mid.hlsli"\nfloat InMain;\n#if 1\n')
    loader = FileLoader()
    main = loader(str(tmp_path / "main.hlsl"))
    whole = preprocess(main, PreprocessOptions(), loader)  # records mid.hlsli's whole expansion
    assert "AfterH" in whole.text and "InMain" in whole.text
    cut = preprocess(main, PreprocessOptions(stop_after=(str(tmp_path / "h.hlsli"),)), loader)
    assert "BeforeH" in cut.text and "InH" in cut.text
    assert "AfterH" not in cut.text and "InMain" not in cut.text
    assert not cut.diagnostics  # the unterminated #if of the main file is never reached
    again = preprocess(main, PreprocessOptions(), loader)  # nothing of the cut unit was recorded
    assert again.text == whole.text


def test_headers_passed_together_cut_each_includer_once_after_the_last(project: Path) -> None:
    (project / "other.hlsli").write_text("bool Other(float z) { return sign(z) < 0; }\n")
    (project / "both.hlsl").write_text(
        '#define T float\n#include "other.hlsli"\n#include "common.hlsli"\n' + ENTRY
    )
    (project / "late.hlsl").write_text(
        '#include "other.hlsli"\nfloat Late;\n#define T int\n#include "common.hlsli"\n'
    )
    result = _lint([project / "common.hlsli", project / "other.hlsli"])
    cut = {Path(u.path).name: [Path(h).name for h in u.cut_after] for u in result.units}
    # One unit per includer, as when each was linted whole, cut after the last header it includes.
    assert cut == {
        "both.hlsl": ["common.hlsli", "other.hlsli"],
        **{f"fast{i}.hlsl": ["common.hlsli"] for i in range(4)},
        "late.hlsl": ["common.hlsli", "other.hlsli"],
        "plain.hlsl": ["common.hlsli"],
    }
    labels = {(Path(d.path).name, d.start.row): d.variant for d in result.diagnostics}
    assert labels == {
        ("common.hlsli", 2): VIA_FAST,
        ("common.hlsli", 4): "via both.hlsl, via fast0.hlsl, via fast1.hlsl, +4 more",
        ("other.hlsli", 1): "via both.hlsl, via late.hlsl",
    }
