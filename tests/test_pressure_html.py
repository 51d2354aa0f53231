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
from pathlib import Path
from typing import Any

import pytest

from hlsllint.analysis.occupancy import occupancy_steps, resolve_target
from hlsllint.commands.pressure import run_pressure
from hlsllint.config import ConfigResolver

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


def _open(browser: Any, shader: Path, tmp_path: Path) -> tuple[Any, dict[str, Any], list[str]]:
    page_path = tmp_path / "pressure.html"
    text = _pressure(shader, "html")
    page_path.write_text(text, encoding="utf-8")
    page = browser.new_page(viewport={"width": 1200, "height": 900})
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


def test_terminal_view_draws_a_bar_per_line(shader: Path) -> None:
    from hlsllint.output.pressure_text import bar

    assert bar(0, 40) == " " * 10
    assert bar(40, 40) == "█" * 10
    assert bar(20, 40) == "█████     "
    assert bar(1, 40) == "▎" + " " * 9
    text = _pressure(shader, "text")
    peak = next(line for line in text.splitlines() if "◀ peak" in line)
    assert "█" * 10 in peak
