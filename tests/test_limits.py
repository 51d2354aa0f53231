"""Depth is bounded everywhere, compiled stages included (a mypyc recursion has no
`RecursionError`: 50,000 nested terms were a segmentation fault): code nested too deep is left out
of the analysis with a finding (HL007), chains of locals and of structs are followed only so far,
and the rest of the file is analysed as usual. The inputs come from `hostile.py`; the full sizes
are timed by `bench/deep_nesting.py`."""

from __future__ import annotations

import json
from pathlib import Path

import hostile
import pytest
from conftest import lint_text

from hlsllint.analysis.local_uniformity import local_uniform
from hlsllint.cli import main
from hlsllint.semantic import build_model
from hlsllint.syntax import parse

OTHER = (
    "RWStructuredBuffer<float> gNeg : register(u7); "
    "[numthreads(64, 1, 1)] void neg(uint i : SV_DispatchThreadID) { gNeg[i] = sign(gNeg[i]) < 0; }\n"
)
"""An entry point with a finding (HL105), on one line beside the deep one: it is still analysed
(an entry point of its own: a helper no entry point calls is dead code, with no finding)."""


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, object]]]:
    code = main([*args, "--output-format", "json", "--no-cache"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "crashed" not in err, err
    return code, json.loads(out)


@pytest.mark.parametrize("shape", ["terms", "parens", "ifs", "blocks", "calls"])
def test_code_nested_too_deep_is_left_out_with_a_finding(shape: str) -> None:
    found = lint_text(OTHER + hostile.SHAPES[shape](3000))
    assert sorted(d.code for d in found) == ["HL007", "HL105"]
    deep = next(d for d in found if d.code == "HL007")
    assert deep.start.row == (7 if shape == "calls" else 6)  # the line of the deep code
    assert deep.severity.value == "warning"
    assert "(the analysis follows 256): function `main` is not analysed" in deep.message
    assert deep.message.startswith(("code nested 3,0", "code nested 6,0"))  # a call is 2 levels


@pytest.mark.parametrize(
    ("shape", "n"), [("terms", 250), ("parens", 250), ("ifs", 248), ("blocks", 248), ("calls", 124)]
)
def test_code_nested_just_within_the_limit_is_analysed(shape: str, n: int) -> None:
    gen = hostile.SHAPES[shape]
    # Two levels more and the tree nests past 256 (HL007). Within it every rule runs (pressure and
    # occupancy over the entry point's CFG included), none crashes (lint_text asserts that) and
    # nothing is left out.
    assert [d.code for d in lint_text(OTHER + gen(n))] == ["HL105"]
    assert "HL007" in [d.code for d in lint_text(OTHER + gen(n + 2))]


def test_a_small_file_of_50_000_terms_lints_in_a_folder_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # 247 bytes of macros; compiled, the analysis of `main` overflowed the C stack, and at -j 2
    # a file this small is linted in the main process: the whole run died (exit 139).
    monkeypatch.chdir(tmp_path)
    (tmp_path / "terms.hlsl").write_text(hostile.macro_terms(50_000))
    assert (tmp_path / "terms.hlsl").stat().st_size < 250
    (tmp_path / "ok.hlsl").write_text(OTHER)
    code, data = _json(capsys, ".", "-j", "2")
    assert sorted((Path(str(d["filename"])).name, d["code"]) for d in data) == [
        ("ok.hlsl", "HL105"),
        ("terms.hlsl", "HL007"),
    ]
    assert code == 1
    code, _ = _json(capsys, ".", "-j", "2", "--exit-zero")
    assert code == 0


def test_an_if_directive_nested_too_deep_is_a_preprocessor_error() -> None:
    found = lint_text(hostile.if_directive(50_000) + OTHER)
    assert sorted(d.code for d in found) == ["HL003", "HL105"]
    assert "#if expression nested more than 128 deep" in next(d.message for d in found if d.code == "HL003")
    assert [d.code for d in lint_text(hostile.if_directive(100))] == []


def test_structs_nested_too_deep_are_of_unknown_type_past_the_limit() -> None:
    found = lint_text(hostile.struct_chain(200) + OTHER)
    deep = [d for d in found if d.code == "HL007"]
    # Each run of 64 levels ends in a member of unknown type, and nesting starts again from it.
    assert [d.start.row for d in deep] == [65, 129, 193]
    assert deep[0].message == (
        "struct `S64` nests types more than 64 deep (member `a`): the member's type is taken as unknown"
    )
    assert [d.code for d in found if d.code != "HL007"] == ["HL105"]


def test_a_long_chain_of_locals_is_followed_only_so_far() -> None:
    # Local uniformity follows a local through its assignments, recursively: 3,000 locals each
    # computed from the one before recursed 3,000 deep (a RecursionError in pure Python, the C
    # stack compiled). It stops at 64 and answers "per-lane", the conservative answer.
    tree = parse(hostile.local_chain(3000).replace("float a0 = o[i];", "float a0 = 1;"))
    model = build_model(tree)
    last = tree.nodes_of_type("identifier")[-1]
    assert tree.node_text(last) == "a2999"
    assert local_uniform(model, last, set()) is False
    # A chain within the limit is followed to its end, a literal: uniform.
    near = next(
        n
        for n in tree.nodes_of_type("identifier")
        if tree.node_text(n) == "a10" and n.parent is not None and n.parent.type == "binary_expression"
    )
    assert local_uniform(model, near, set()) is True


def test_the_pressure_command_says_what_it_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "terms.hlsl"
    path.write_text(hostile.macro_terms(50_000))
    assert main(["pressure", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:8: function `main` is not analysed: code nested 50,005 levels deep (HL007)" in err


def test_a_chain_of_locals_is_folded_once_per_local_with_the_same_answers() -> None:
    # Each local's value was folded again from the start, up to 64 levels, for every use: 32
    # evaluations per local of a chain (968,416 for 10,000 locals). Memoised with how deep each
    # went, a chain asked in document order costs a few per local, and every answer is the one a
    # fresh model gives (within 64 levels the value, past them unknown).
    text = hostile.local_chain(300).replace("float a0 = o[i];", "float a0 = 1;")
    tree = parse(text)
    model = build_model(tree)
    inits = [n for n in tree.nodes_of_type("binary_expression") if tree.node_text(n).endswith(" * 2")]
    assert len(inits) == 299
    before = model.folds
    values = [model.const_value(n) for n in inits]
    assert model.folds - before <= 4 * len(inits)
    assert values[:32] == [2**k for k in range(1, 33)] and set(values[32:]) == {None}
    # The same answers asked in another order, and one by one of fresh models.
    again = build_model(parse(text))
    nodes = [
        n for n in again.tree.nodes_of_type("binary_expression") if again.tree.node_text(n).endswith(" * 2")
    ]
    assert [again.const_value(n) for n in reversed(nodes)] == values[::-1]
    for k in (0, 31, 32, 33, 150):
        fresh = build_model(parse(text))
        node = [
            n
            for n in fresh.tree.nodes_of_type("binary_expression")
            if fresh.tree.node_text(n).endswith(" * 2")
        ][k]
        assert fresh.const_value(node) == values[k]
