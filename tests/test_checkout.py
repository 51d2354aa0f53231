"""Working from a clone: the README's quick start is what CI runs, `python -m pytest` and
`python -m hlsllint` work in the source tree, and the tests refuse an installed copy that is not
the checkout's."""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, stale_sources


def quick_start() -> list[str]:
    """The commands of the README's first code block (its quick start), comments dropped."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```sh\n(.*?)```", readme, re.S)
    assert match is not None
    return [line.split(" #")[0].strip() for line in match.group(1).splitlines() if line.strip()]


def test_ci_runs_the_readme_quick_start_as_written() -> None:
    commands = quick_start()
    assert len(commands) == 2
    assert commands[0].startswith("python3 -m venv .venv && ") and "fixtures/" in commands[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # Each step of each command, in order (the lint's expected exit 1 is allowed around it).
    position = 0
    for command in commands:
        for step in command.split(" && "):
            found = ci.find(step, position)
            assert found >= 0, f"{step!r} is not in .ci/run after the previous README step"
            position = found + len(step)


def _python_without_the_install(tmp_path: Path) -> Path:
    """A Python that sees this environment's packages but not an installed hlsllint's finder (an
    editable install maps `hlsllint.rules` wherever `hlsllint` comes from) and not hlsllint from
    site-packages first: what a clone with only the dependencies installed has."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / ("python.exe" if os.name == "nt" else "python")
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # A folder named in a .pth file is on sys.path, but the .pth files inside it are not run.
    (Path(purelib) / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")
    return python


def test_python_m_pytest_and_hlsllint_in_the_source_tree(tmp_path: Path) -> None:
    python = _python_without_the_install(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["HLSLLINT_CACHE_DIR"] = str(tmp_path / "cache")
    collected = subprocess.run(
        [str(python), "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert collected.returncode == 0, collected.stdout[-2000:] + collected.stderr[-2000:]
    assert "tests/test_rules_meta.py:" in collected.stdout
    linted = subprocess.run(
        [str(python), "-m", "hlsllint", "--no-cache", "fixtures/HL105"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert linted.returncode == 1, linted.stderr  # the bad fixtures' findings
    assert "HL105" in linted.stdout


def _checkout_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "checkout"
    for folder in ("hlsllint", "rules"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    return copy


def test_stale_sources_names_what_the_install_lacks(tmp_path: Path) -> None:
    copy = _checkout_copy(tmp_path)
    assert stale_sources(copy) == []
    rule = next((copy / "rules").glob("hl105_*.py"))
    rule.write_text(rule.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    (copy / "hlsllint" / "output" / "new_printer.py").write_text("", encoding="utf-8")
    assert stale_sources(copy) == ["hlsllint/output/new_printer.py", f"rules/{rule.name}"]


def test_pytest_refuses_an_installed_copy_that_is_not_the_checkout(tmp_path: Path) -> None:
    # An "installed" hlsllint whose rule is older than the checkout's, first on the path.
    site_dir = tmp_path / "site"
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "hlsllint", site_dir / "hlsllint", ignore=skip)
    shutil.copytree(ROOT / "rules", site_dir / "hlsllint" / "rules", ignore=skip)
    old = next((site_dir / "hlsllint" / "rules").glob("hl105_*.py"))
    old.write_text(old.read_text(encoding="utf-8") + "\n# installed last week\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(site_dir), "HLSLLINT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("HLSLLINT_TEST_ANY_INSTALL", None)
    test_file = str(ROOT / "tests" / "test_docs.py")
    args = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", test_file]
    refused = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 4, refused.stdout + refused.stderr
    assert f"is not this checkout's: rules/{old.name} differ" in refused.stderr
    assert "pip install" in refused.stderr
    env["HLSLLINT_TEST_ANY_INSTALL"] = "1"
    anyway = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert anyway.returncode == 0, anyway.stdout + anyway.stderr
