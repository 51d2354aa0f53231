"""Messages are short (ruff's shape): the problem and its measured detail on one line of at most
`MAX_MESSAGE` characters, the remedy and the explanation on `help:` and `note:` lines, which every
output carries."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest
from conftest import FIXTURES, lint_text, run_cli

from hlsllint.config import ConfigResolver, Settings
from hlsllint.driver import lint_paths
from hlsllint.lint import lint_unit
from hlsllint.registry import all_rules

MAX_MESSAGE = 120


def _fixture_findings() -> list[tuple[str, int, str, str]]:
    found = []
    for path in sorted(FIXTURES.rglob("*.hlsl")):
        result = lint_unit(str(path), Settings(select=("HL",)))
        assert not result.errors, result.errors
        found += [(d.path, d.start.row, d.code, d.message) for d in result.diagnostics]
    for rule in all_rules():
        if not rule.engine:
            found += [
                (f"{rule.code} bad_example", d.start.row, d.code, d.message)
                for d in lint_text(rule.bad_example)
            ]
    return found


def test_every_fixture_message_is_short() -> None:
    found = _fixture_findings()
    assert len({code for _p, _r, code, _m in found}) >= 17, "the fixtures exercise every rule"
    long = [f"{p}:{r}: {c} ({len(m)}) {m}" for p, r, c, m in found if len(m) > MAX_MESSAGE]
    assert not long, "\n".join(long)


# -- every output carries the help and the notes -----------------------------------------------

PRODUCT = "float f(float x, float y)\n{\n    return y * sign(x);\n}\n"
MESSAGE = "multiplying by `sign()` to apply a sign costs compares, selects and a multiply"
HELP = "select on the sign instead: `(x < 0 ? -y : y)`"
NOTE = "the select differs from the product only when the value is 0"
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-2.1.0.json").read_text(encoding="utf-8"))


@pytest.fixture
def product(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.hlsl").write_text(PRODUCT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check(capsys: pytest.CaptureFixture[str], fmt: str) -> str:
    args = ("check", "--no-cache", "--select", "HL105", "--output-format", fmt, "a.hlsl")
    code, out, _err = run_cli(capsys, *args)
    assert code == 1
    return out


def test_full_text_prints_help_and_notes_under_the_frame(
    product: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _check(capsys, "full").splitlines()
    assert lines[0] == f"a.hlsl:3:12: HL105 {MESSAGE}"
    caret = next(i for i, line in enumerate(lines) if "^" in line)
    assert lines[caret + 3 : caret + 5] == [f"  = help: {HELP}", f"  = note: {NOTE}"]
    concise = _check(capsys, "concise").splitlines()
    assert concise[0] == f"a.hlsl:3:12: HL105 {MESSAGE}"  # one line per finding


def test_json_has_help_and_notes(product: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (d,) = json.loads(_check(capsys, "json"))
    assert (d["message"], d["help"], d["notes"]) == (MESSAGE, HELP, [NOTE])
    (line,) = _check(capsys, "json-lines").splitlines()
    assert json.loads(line)["help"] == HELP


def test_sarif_message_text_holds_help_and_notes(product: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = json.loads(_check(capsys, "sarif"))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    (result,) = log["runs"][0]["results"]
    assert result["message"]["text"] == f"{MESSAGE}\nhelp: {HELP}\nnote: {NOTE}"


def test_line_formats_carry_help_and_notes(product: Path, capsys: pytest.CaptureFixture[str]) -> None:
    github = _check(capsys, "github")
    assert github.rstrip("\n").endswith(f"::{MESSAGE}%0Ahelp: {HELP}%0Anote: {NOTE}")
    (issue,) = json.loads(_check(capsys, "gitlab"))
    assert issue["description"] == f"HL105: {MESSAGE}"
    assert issue["content"]["body"] == f"help: {HELP}\n\nnote: {NOTE}"
    (item,) = json.loads(_check(capsys, "rdjson"))["diagnostics"]
    assert item["message"] == f"{MESSAGE}\nhelp: {HELP}\nnote: {NOTE}"
    failure = ElementTree.fromstring(_check(capsys, "junit")).find(".//failure")
    assert failure is not None and failure.text is not None
    assert failure.text.splitlines()[1:] == [f"help: {HELP}", f"note: {NOTE}"]


def test_help_and_notes_survive_the_cache(product: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for _ in range(2):  # the second run reads the findings back from the cache
        _code, out, _err = run_cli(capsys, "check", "--select", "HL105", "--output-format", "json", "a.hlsl")
        (d,) = json.loads(out)
        assert (d["help"], d["notes"]) == (HELP, [NOTE])


# -- every figure names the variant it was measured in -------------------------------------------

PEAK = """\
#ifndef EXTRA
#define EXTRA 0
#endif
Buffer<float4> gSrc : register(t0);
RWStructuredBuffer<float4> gDst : register(u0);
cbuffer Params : register(b0) { uint gCount; };

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint i = id.x;
    float4 a = gSrc[i], b = gSrc[i + 1], c = gSrc[i + 2], d = gSrc[i + 3], e = gSrc[i + 4];
    float4 f = gSrc[i + 5], g = gSrc[i + 6], h = gSrc[i + 7], k = gSrc[i + 8], l = gSrc[i + 9];
    float4 m = gSrc[i + 10], n = gSrc[i + 11], o = gSrc[i + 12], p = gSrc[i + 13], q = gSrc[i + 14];
    float4 r = gSrc[i + 15], s = gSrc[i + 16], t = gSrc[i + 17];
#if EXTRA
    float4 u = gSrc[i + 18], w = gSrc[i + 19], x = gSrc[i + 20];
#endif
    for (uint j = 0; j < gCount; ++j)
    {
        a = a * b + c; b = b * c + d; c = c * d + e; d = d * e + f; e = e * f + g; f = f * g + h;
        g = g * h + k; h = h * k + l; k = k * l + m; l = l * m + n; m = m * n + o; n = n * o + p;
        o = o * p + q; p = p * q + r; q = q * r + s; r = r * s + t; s = s * t + a; t = t * a + b;
#if EXTRA
        u = u * a + t; w = w * u + b; x = x * w + c;
#endif
    }
    float4 sum = a + b + c + d + e + f + g + h + k + l + m + n + o + p + q + r + s + t;
#if EXTRA
    sum += u + w + x;
#endif
    gDst[i] = sum;
}
"""


def test_figures_of_different_includers_are_not_merged_and_each_names_its_includer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A shader that other files include with their own #defines is analysed through them: its
    HL201 figures are theirs. Each figure names the includer it was measured through, and two
    includers' different figures are two findings, not one message labelled with both."""
    (tmp_path / "hlsllint.toml").write_text('select = ["HL201"]\n', encoding="utf-8")
    (tmp_path / "shader.hlsl").write_text(PEAK, encoding="utf-8")
    (tmp_path / "big.hlsl").write_text('#define EXTRA 1\n#include "shader.hlsl"\n', encoding="utf-8")
    (tmp_path / "plain.hlsl").write_text('#define EXTRA 0\n#include "shader.hlsl"\n', encoding="utf-8")
    found = lint_paths([str(tmp_path)], ConfigResolver()).diagnostics
    assert [(d.start.row, d.variant) for d in found] == [(9, "via big.hlsl"), (9, "via plain.hlsl")]
    big, plain = (d.message for d in found)
    assert big != plain and "peaks at ~85 VGPRs" in big and "peaks at ~73 VGPRs" in plain
    # One includer: its figures still say whose they are.
    (tmp_path / "plain.hlsl").unlink()
    (d,) = lint_paths([str(tmp_path)], ConfigResolver()).diagnostics
    assert d.variant == "via big.hlsl"
    code, out, _err = run_cli(capsys, "check", "--no-cache", "--output-format", "concise", str(tmp_path))
    assert code == 1 and out.splitlines()[0].endswith("5 of 16 wave64s per SIMD on rdna2 [via big.hlsl]")
