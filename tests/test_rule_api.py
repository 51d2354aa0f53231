"""The rule API a third-party rule is written against (DEVELOPERS.md, "The rule API"): a rule
installed as a package with an `hlsllint.rules` entry point, using only `Rule`, `Option`,
`RuleContext` and the documented stage queries, runs as a built-in one does; and rule options
are typed (a wrong type, an unknown option and a correct value, each from a config file)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_cli as run

from hlsllint.registry import all_rules, rule_by_code

PLUGIN = """
from collections.abc import Mapping
from typing import ClassVar

from hlsllint.context import RuleContext
from hlsllint.rule import Option, Rule
from hlsllint.semantic.loops import trip_count
from hlsllint.semantic.offsets import ThreadOffsets
from hlsllint.semantic.queries import as_fetch
from hlsllint.syntax import Node
from hlsllint.syntax.queries import is_written


class LongLoop(Rule):
    code = "XY200"
    name = "xy-long-loop"
    summary = "A `for` loop of more constant iterations than `max-trips`, or a wide neighbourhood."
    rationale = "For the tests: a third-party rule written against the public rule API only."
    bad_example = ""
    good_example = ""
    options: ClassVar[Mapping[str, Option]] = {
        "max-trips": Option(int, 8, "the most iterations a loop may have"),
        "taps": Option(bool, False, "also report each fetch's offsets around the thread id"),
    }
    node_kinds = frozenset({"for_statement", "subscript_expression"})

    def visit(self, ctx: RuleContext, node: Node) -> None:
        if ctx.function is not None and ctx.in_main_file(node):
            ctx.scratch(list).append(node)

    def check(self, ctx: RuleContext) -> None:
        limit = self.option_values["max-trips"]
        seen = ctx.scratch(list)
        for loop in seen:
            found = trip_count(ctx.model, loop) if loop.type == "for_statement" else None
            if found is not None and found[1] > limit:
                counter, trips = found
                ctx.report(
                    loop.children[0],
                    f"`{ctx.node_text(counter)}` runs {trips} times",
                    help="split the loop",
                    notes=[f"more than {limit}"],
                )
        if not self.option_values["taps"]:
            return
        for entry in ctx.model.entry_points:
            reader = ThreadOffsets(ctx.model, entry, {})
            for node in seen:
                fetch = as_fetch(ctx.model, node)
                if fetch is None or not fetch.address or is_written(ctx.tree, node):
                    continue
                found = reader.fetch_offsets(node, fetch.method, fetch.kind, fetch.address[0], [])
                if found is not None:
                    ctx.report(
                        node,
                        f"{len(found[1])} taps around the thread id",
                        related=[(ctx.entry_anchor(entry), f"`{entry.name}`")],
                    )
"""

SHADER = """\
Texture2D<float> src : register(t0);
RWTexture2D<float> dst : register(u0);
static const int N = 4;

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int k = 2;
    float sum = 0;
    for (int i = 0; i < N * k * 2; i++)
        sum += src[int2(id.xy) + int2(i - 8, 0)] * i;
    for (int y = -1; y <= 1; y++)
        sum += src[int2(id.xy) + int2(0, y)];
    dst[id.xy] = sum;
}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A third-party rule package installed on sys.path, registered under `hlsllint.rules` as a
    `pip install` would register it, and a project with one shader."""
    site = tmp_path / "site"
    info = site / "xy_api_rules-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: xy-api-rules\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[hlsllint.rules]\nxy = xy_api_rules\n")
    (site / "xy_api_rules.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(site))
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.hlsl").write_text(SHADER)
    monkeypatch.chdir(project)
    all_rules.cache_clear()
    rule_by_code.cache_clear()
    yield project
    monkeypatch.undo()
    all_rules.cache_clear()
    rule_by_code.cache_clear()


def _findings(capsys: pytest.CaptureFixture[str], *args: str) -> list[tuple[str, int, str]]:
    code, out, err = run(capsys, "a.hlsl", "--no-cache", "-j", "1", "--output-format", "json", *args)
    assert code in (0, 1), err
    return [(d["code"], d["location"]["row"], d["message"]) for d in json.loads(out)]


def test_a_third_party_rule_on_the_public_api_runs(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "XY200" in rule_by_code()
    # `N * k * 2`: a static const and a local set once, folded by the model's constants.
    assert _findings(capsys, "--select", "XY200") == [("XY200", 10, "`i` runs 16 times")]
    (project / "hlsllint.toml").write_text("[rule-options.XY200]\ntaps = true\n")
    assert sorted(_findings(capsys, "--select", "XY200")) == [
        ("XY200", 10, "`i` runs 16 times"),
        ("XY200", 11, "16 taps around the thread id"),  # `i - 8` for the 16 values of `i`
        ("XY200", 13, "3 taps around the thread id"),
    ]
    code, out, _ = run(capsys, "rule", "XY200")
    assert code == 0
    assert "- `max-trips` (int, default `8`): the most iterations a loop may have" in out


def test_a_correct_option_takes_effect(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "hlsllint.toml").write_text("[rule-options.XY200]\nmax-trips = 16\n")
    assert _findings(capsys, "--select", "XY200") == []
    (project / "hlsllint.toml").write_text("[rule-options.HL201]\nmin-occupancy = 1\n")  # an integer
    code, out, err = run(capsys, "--show-settings", "a.hlsl")
    assert code == 0 and "min-occupancy = 1.0" in out, err


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            '[rule-options.XY200]\nmax-trips = "16"\n',
            '`rule-options.XY200.max-trips` must be an integer, not string `"16"`',
        ),
        ("[rule-options.XY200]\nmax-trips = 1.5\n", "must be an integer, not float `1.5`"),
        ("[rule-options.XY200]\ntaps = 1\n", "`rule-options.XY200.taps` must be a boolean, not integer `1`"),
        ("[rule-options.HL201]\nmin-occupancy = true\n", "must be a number, not boolean `true`"),
        (
            "[rule-options.XY200]\nmax-trip = 4\n",
            "`rule-options.XY200.max-trip`: unknown option of XY200 (did you mean `max-trips`?)",
        ),
        (
            "[rule-options.XY200]\nlimit = 4\n",
            "unknown option of XY200 (its options: `max-trips`, `taps`)",
        ),
        ("[rule-options.HL105]\nlimit = 4\n", "unknown option of HL105 (it takes no options)"),
    ],
)
def test_a_broken_option_is_a_clear_error(
    project: Path, capsys: pytest.CaptureFixture[str], toml: str, message: str
) -> None:
    (project / "hlsllint.toml").write_text(toml)
    code, out, err = run(capsys, "a.hlsl", "--no-cache")
    assert code == 2 and "All checks passed" not in out
    assert f"{project / 'hlsllint.toml'}: " in err and message in err, err


def test_every_option_default_has_its_declared_type() -> None:
    for rule in all_rules():
        for name, option in rule.options.items():
            assert option.check(option.default) == option.default, (rule.code, name)
