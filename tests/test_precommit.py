"""The pre-commit hooks, end to end: the real `pre-commit` installs this project's committed HEAD
into its own virtualenv (from PyPI, ~30-60 s) and runs the hooks in a throw-away repository."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
    pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None, reason="pre-commit is not installed"),
]

BAD = "float f(float x)\n{\n    return sign(x) < 0 ? 1.0 : 2.0;\n}\n"
GOOD = "float f(float x)\n{\n    return x < 0 ? 1.0 : 2.0;\n}\n"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def pre_commit(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_hooks_fail_on_findings_and_pass_clean_code(tmp_path: Path) -> None:
    head = git(ROOT, "rev-parse", "HEAD")
    if subprocess.run(["git", "cat-file", "-e", f"{head}:.pre-commit-hooks.yaml"], cwd=ROOT).returncode:
        pytest.fail(".pre-commit-hooks.yaml is not committed at HEAD")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "config", "user.name", "test")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {head}\n"
        "    hooks:\n      - id: hlsllint\n      - id: hlsllint-fix\n",
        encoding="utf-8",
    )
    (repo / "bad.hlsl").write_text(BAD, encoding="utf-8")
    (repo / "good.hlsl").write_text(GOOD, encoding="utf-8")
    (repo / "notes.txt").write_text("sign(x) < 0\n", encoding="utf-8")
    # A vendored shader under `exclude`: named by pre-commit, left out by --force-exclude.
    (repo / "hlsllint.toml").write_text('extend-exclude = ["third_party/"]\n', encoding="utf-8")
    (repo / "third_party").mkdir()
    (repo / "third_party" / "vendor.hlsl").write_text(BAD, encoding="utf-8")
    for name in ("b1.hlsl", "b2.hlsl", "b3.hlsl"):
        (repo / name).write_text(BAD, encoding="utf-8")
    git(repo, "add", ".")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "VIRTUAL_ENV"))}
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    env.pop("HLSLLINT_COMPILE", None)  # the hook's install is pure Python by itself (setup.py)

    failed = pre_commit(repo, env, "hlsllint", "--files", "bad.hlsl", "notes.txt")
    output = failed.stdout + failed.stderr
    assert failed.returncode == 1, output
    assert "bad.hlsl:3:12: HL105" in output
    assert "notes.txt" not in output  # not a shader: the hook does not see it

    # require_serial: one hlsllint run for all the files (pre-commit would otherwise split them
    # over one process per core), so one summary that counts every finding.
    everything = pre_commit(repo, env, "hlsllint", "--all-files")
    output = everything.stdout + everything.stderr
    assert everything.returncode == 1, output
    assert "third_party" not in output
    assert sorted(re.findall(r"^(\S+\.hlsl):3:12: HL105", output, re.M)) == [
        "b1.hlsl",
        "b2.hlsl",
        "b3.hlsl",
        "bad.hlsl",
    ]
    assert re.findall(r"^Found .*", output, re.M) == ["Found 4 warnings."], output

    # pre-commit's own install of the hook compiled nothing (it took seconds, not minutes).
    (installed,) = (tmp_path / "pre-commit-home").glob("repo*/py_env-*/**/site-packages/hlsllint")
    assert (installed / "analysis" / "cfg.py").is_file()
    assert not [p.name for p in installed.rglob("*") if p.suffix in (".so", ".pyd")]

    passed = pre_commit(repo, env, "hlsllint", "--files", "good.hlsl", "third_party/vendor.hlsl")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout

    fixed = pre_commit(repo, env, "hlsllint-fix", "--files", "bad.hlsl")
    assert fixed.returncode == 1  # pre-commit fails a hook that modified files
    assert "files were modified by this hook" in fixed.stdout
    assert (repo / "bad.hlsl").read_text(encoding="utf-8") == GOOD
