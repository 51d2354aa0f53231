"""`hlsllint pressure --output-format html`: a self-contained page, checked in a real browser.

The browser tests drive Debian's `chromium` with Playwright; they are skipped, with the reason,
where either is missing (`apt-get install chromium` and `pip install playwright`).
"""

from __future__ import annotations

import io
import json
import re
import shutil
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from hlsllint.analysis.occupancy import occupancy_steps
from hlsllint.commands.pressure import run_pressure
from hlsllint.config import ConfigResolver
from hlsllint.targets import resolve_target

SHADER = """\
Buffer<float4> src : register(t0);
RWStructuredBuffer<float4> dst : register(u0);
cbuffer P : register(b0) { uint count; };

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float4 a = src[i], b = src[i + 1], c = src[i + 2], d = src[i + 3];
    for (uint j = 0; j < count; ++j)
    {
        a = a * b + c; b = b * c + d; c = c * d + a; d = d * a + b;
    }
    dst[i] = a + b + c + d;
}

[numthreads(256, 1, 1)]
void copy(uint i : SV_DispatchThreadID)
{
    dst[i] = src[i];
}
"""

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _pressure(path: Path, fmt: str) -> str:
    out = io.StringIO()
    assert run_pressure([str(path)], ConfigResolver(), output_format=fmt, out=out) == 0
    return out.getvalue()


@pytest.fixture
def shader(tmp_path: Path) -> Path:
    path = tmp_path / "loop.hlsl"
    path.write_text(SHADER, encoding="utf-8")
    return path


def _page_data(page: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
    assert m is not None
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def test_page_is_self_contained(shader: Path) -> None:
    page = _pressure(shader, "html")
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"<(script|img|iframe)[^>]*\bsrc=|<link\b|@import|url\(", page)
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", page)


def test_page_data_matches_the_json_report(shader: Path) -> None:
    report = {r["entry"]: r for r in json.loads(_pressure(shader, "json"))}
    data = _page_data(_pressure(shader, "html"))
    entries = {e["entry"]: e for e in data["entries"]}
    assert set(entries) == {"main", "copy"}
    main = entries["main"]
    assert main["max_live_vgprs"] == report["main"]["max_live_vgprs"]
    assert main["peak"]["row"] == report["main"]["peak"]["row"]
    rows = {p["row"]: p["vgprs"] for p in main["points"]}
    assert rows == {int(r): c["vgprs"] for r, c in report["main"]["lines"].items()}
    peak_point = next(p for p in main["points"] if p["row"] == main["peak"]["row"])
    assert {v[0] for v in peak_point["values"]} >= {"a", "b", "c", "d"}
    assert all(v[1] > 0 for v in peak_point["values"])


def test_occupancy_steps_follow_the_target_tables() -> None:
    steps = occupancy_steps("rdna2", 64)
    assert steps[0] == (32, 16) and steps[-1] == (256, 2)
    assert (64, 8) in steps and (128, 4) in steps
    gcn = occupancy_steps("gcn", 64)
    assert gcn[0] == (24, 10) and (84, 3) in gcn
    assert resolve_target("rdna3").name in {s.split()[0] for s in _target_keys()}


def _target_keys() -> list[str]:
    from hlsllint.output.pressure_html import page_data

    return list(page_data([])["targets"])


# -- in a real browser --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("no chromium on PATH (Debian: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=args)
        yield b
        b.close()


def _open(
    browser: Any, shader: Path, tmp_path: Path, width: int = 1200, height: int = 900
) -> tuple[Any, dict[str, Any], list[str]]:
    page_path = tmp_path / "pressure.html"
    text = _pressure(shader, "html")
    page_path.write_text(text, encoding="utf-8")
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_path.as_uri())
    return page, _page_data(text), errors


def test_chart_has_a_point_per_line_and_the_peak_where_the_json_says(
    browser: Any, shader: Path, tmp_path: Path
) -> None:
    page, data, errors = _open(browser, shader, tmp_path)
    main = next(e for e in data["entries"] if e["entry"] == "main")
    page.select_option("#entry", str(data["entries"].index(main)))
    assert page.locator("#chart circle.pt").count() == len(main["points"])
    assert page.locator("#chart #peak").get_attribute("data-row") == str(main["peak"]["row"])
    assert page.locator("#source tr.peak").get_attribute("data-row") == str(main["peak"]["row"])
    assert errors == []
    page.close()


def test_hovering_a_line_lists_the_values_live_there(browser: Any, shader: Path, tmp_path: Path) -> None:
    page, data, errors = _open(browser, shader, tmp_path)
    main = next(e for e in data["entries"] if e["entry"] == "main")
    page.select_option("#entry", str(data["entries"].index(main)))
    page.hover("#source tr.peak td.code")
    tip = page.locator("#tip")
    assert tip.is_visible()
    text = tip.inner_text()
    assert f"{main['max_live_vgprs']} VGPRs" in text
    for name in ("a", "b", "c", "d"):
        assert re.search(rf"^{name}\s+4 VGPR$", text, re.M), text
    page.mouse.move(1, 1)
    assert not tip.is_visible()
    assert errors == []
    page.close()


def test_target_selector_redraws_the_occupancy(browser: Any, shader: Path, tmp_path: Path) -> None:
    page, data, _ = _open(browser, shader, tmp_path)
    main = next(e for e in data["entries"] if e["entry"] == "main")
    page.select_option("#entry", str(data["entries"].index(main)))
    page.select_option("#target", "gcn wave64")
    steps = occupancy_steps("gcn", 64)
    waves = max(w for most, w in steps if main["max_live_vgprs"] <= most)
    assert page.locator("#summary").get_attribute("data-waves") == str(waves)
    labels = page.locator("#chart .steplabel").all_text_contents()
    assert any(label.endswith(f"{waves} waves") for label in labels)
    page.close()


# Values loaded one a line and all kept to the end: the live VGPRs climb through every occupancy
# step of the chart, up to its right edge.
RAMP = (
    "Buffer<float4> src : register(t0);\nRWStructuredBuffer<float4> dst : register(u0);\n\n"
    "[numthreads(64, 1, 1)]\nvoid main(uint i : SV_DispatchThreadID)\n{\n"
    + "".join(f"    float4 v{k} = src[i + {k}];\n" for k in range(24))
    + "    dst[i] = "
    + " + ".join(f"v{k}" for k in range(24))
    + ";\n}\n"
)


@pytest.fixture
def ramp(tmp_path: Path) -> Path:
    # A long path: the tooltip's first line names the file.
    folder = tmp_path / "a_folder_with_a_rather_long_name" / "and_another_one_below_it"
    folder.mkdir(parents=True)
    path = folder / "ramp_of_live_values.hlsl"
    path.write_text(RAMP, encoding="utf-8")
    return path


def _inside(box: dict[str, float], width: int, height: int) -> bool:
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= width
        and box["y"] + box["height"] <= height
    )


def test_tooltip_stays_inside_the_viewport(browser: Any, ramp: Path, tmp_path: Path) -> None:
    width, height = 900, 600
    page, _, errors = _open(browser, ramp, tmp_path, width, height)
    tip = page.locator("#tip")
    # The chart's last point, at the right edge.
    last = page.locator("#chart circle.pt").last.bounding_box()
    page.mouse.move(last["x"] + last["width"] / 2, last["y"] + last["height"] / 2)
    assert tip.is_visible()
    box = tip.bounding_box()
    assert _inside(box, width, height), box
    # A source line at the bottom right corner of the window.
    rows = [r.bounding_box() for r in page.locator("#source tr.has").all()]
    low = max((b for b in rows if b and b["y"] + b["height"] <= height), key=lambda b: b["y"])
    page.mouse.move(width - 3, low["y"] + low["height"] / 2)
    assert tip.is_visible()
    box = tip.bounding_box()
    assert _inside(box, width, height), box
    assert tip.evaluate("t => t.scrollWidth <= t.clientWidth && t.scrollHeight <= t.clientHeight")
    assert errors == []
    page.close()


def _crosses(box: dict[str, float], a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether the segment a-b passes through the rectangle (sampled finely along the segment)."""
    x0, y0, x1, y1 = box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]
    steps = max(2, int(max(abs(b[0] - a[0]), abs(b[1] - a[1]))))
    for k in range(steps + 1):
        x = a[0] + (b[0] - a[0]) * k / steps
        y = a[1] + (b[1] - a[1]) * k / steps
        if x0 <= x <= x1 and y0 <= y <= y1:
            return True
    return False


def test_occupancy_labels_keep_off_the_curve(browser: Any, ramp: Path, tmp_path: Path) -> None:
    page, data, errors = _open(browser, ramp, tmp_path)
    checked = 0
    for target in data["targets"]:
        page.select_option("#target", target)
        labels = [x.bounding_box() for x in page.locator("#chart .steplabel").all()]
        points = [c.bounding_box() for c in page.locator("#chart circle.pt").all()]
        centres = [(p["x"] + p["width"] / 2, p["y"] + p["height"] / 2) for p in points]
        for label in labels:
            for p in points:
                apart = (
                    p["x"] > label["x"] + label["width"]
                    or label["x"] > p["x"] + p["width"]
                    or p["y"] > label["y"] + label["height"]
                    or label["y"] > p["y"] + p["height"]
                )
                assert apart, (target, label, p)
            for a, b in pairwise(centres):
                assert not _crosses(label, a, b), (target, label, a, b)
            checked += 1
    assert checked >= 2 * len(data["targets"])
    assert errors == []
    page.close()


def test_terminal_view_draws_a_bar_per_line(shader: Path) -> None:
    from hlsllint.output.pressure_text import bar

    assert bar(0, 40) == " " * 10
    assert bar(40, 40) == "█" * 10
    assert bar(20, 40) == "█████     "
    assert bar(1, 40) == "▎" + " " * 9
    text = _pressure(shader, "text")
    peak = next(line for line in text.splitlines() if "◀ peak" in line)
    assert "█" * 10 in peak


def test_an_incomplete_estimate_is_said_above_the_chart(browser: Any, tmp_path: Path) -> None:
    blind = tmp_path / "blind.hlsl"
    blind.write_text(SHADER.replace("dst[i] = src[i];", "dst[i] = src[i] + notDeclared(i);"))
    page, data, errors = _open(browser, blind, tmp_path)
    copy = next(e for e in data["entries"] if e["entry"] == "copy")
    page.select_option("#entry", str(data["entries"].index(copy)))
    box = page.locator("#incomplete")
    assert box.is_visible()
    assert "estimate incomplete: 1 call not resolved (`notDeclared`)" in box.inner_text()
    assert "blind.hlsl:19: call notDeclared" in box.inner_text()
    main = next(e for e in data["entries"] if e["entry"] == "main")
    page.select_option("#entry", str(data["entries"].index(main)))
    assert not box.is_visible()
    assert errors == []
    page.close()
