"""The release: a tag v* builds the sdist and compiled wheels (cibuildwheel) and publishes them by
trusted publishing. GitHub Actions cannot run here, so the workflow is read and checked; the
version the tag names is the package's and has its changelog entry."""

from __future__ import annotations

import re
import tomllib
from typing import Any

import yaml
from conftest import ROOT

import hlsllint

WORKFLOW = ROOT / ".github" / "workflows" / "wheels.yml"


def workflow() -> dict[Any, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def steps_using(job: dict[str, Any], action: str) -> list[dict[str, Any]]:
    return [s for s in job["steps"] if str(s.get("uses", "")).startswith(f"{action}@")]


def test_the_workflow_runs_on_version_tags_only() -> None:
    data = workflow()
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` key as true
    assert set(triggers) <= {"push", "workflow_dispatch"}
    assert triggers["push"] == {"tags": ["v*"]}


def test_wheels_for_linux_macos_and_windows_and_an_sdist() -> None:
    jobs = workflow()["jobs"]
    wheels = jobs["wheels"]
    assert wheels["runs-on"] == "${{ matrix.os }}"
    systems = wheels["strategy"]["matrix"]["os"]
    assert {os.split("-")[0] for os in systems} == {"ubuntu", "macos", "windows"}
    assert len(steps_using(wheels, "pypa/cibuildwheel")) == 1
    assert any("wheelhouse/" in s.get("with", {}).get("path", "") for s in wheels["steps"])
    assert any("build --sdist" in s.get("run", "") for s in jobs["sdist"]["steps"])


def test_publishing_is_trusted_and_waits_for_every_build() -> None:
    publish = workflow()["jobs"]["publish"]
    assert set(publish["needs"]) == {"sdist", "wheels"}
    assert publish["permissions"] == {"id-token": "write"}
    assert "refs/tags/v" in publish["if"]  # a manual run builds, never publishes
    (step,) = steps_using(publish, "pypa/gh-action-pypi-publish")
    assert not step.get("with", {}).get("password")  # no token: trusted publishing
    download = steps_using(publish, "actions/download-artifact")
    assert download and download[0]["with"]["path"] == "dist"


def test_cibuildwheel_checks_that_a_wheel_is_compiled() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    cibw = config["tool"]["cibuildwheel"]
    commands = " && ".join(cibw["test-command"])
    assert "hlsllint.analysis.cfg" in commands and "endswith('.py')" in commands
    assert "hlsllint " in commands


def test_the_version_has_a_changelog_entry() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(hlsllint.__version__)}\] - \d{{4}}-\d\d-\d\d$", changelog, re.M)
    assert f"[{hlsllint.__version__}]: https://" in changelog
