"""bench/fetch_corpus.py builds the benchmark corpus from bench/corpus.toml: pinned commits, the
files the patterns pick, suffixes, and a count check that tells a rerun it has the same corpus."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "bench" / "fetch_corpus.py"


def _git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(cwd), "PATH": "/usr/bin:/bin"}  # fmt: skip
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout


def _mirror(tmp_path: Path) -> tuple[Path, str, str]:
    """A local repository laid out as `--mirror` expects, with two commits."""
    work = tmp_path / "mirror" / "acme+shaders" / "repo"
    work.mkdir(parents=True)
    _git(work, "init", "-q")
    (work / "src").mkdir()
    (work / "src" / "a.hlsl").write_text("float4 main() : SV_Target { return 1; }\n")
    (work / "src" / "b.hlsli").write_text("#define B 1\n")
    (work / "src" / "tool.cpp").write_text("int main() {}\n")
    (work / "glsl").mkdir()
    (work / "glsl" / "x.frag").write_text("float4 main() : SV_Target { return 0; }\n")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "one")
    first = _git(work, "rev-parse", "HEAD").strip()
    (work / "src" / "c.hlsl").write_text("// added later\n")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "two")
    return tmp_path / "mirror", first, _git(work, "rev-parse", "HEAD").strip()


def _manifest(tmp_path: Path, commit: str, files: int) -> Path:
    path = tmp_path / "corpus.toml"
    path.write_text(
        f'[[repo]]\nname = "Shaders"\nrepo = "acme/shaders"\ncommit = "{commit}"\n'
        f'include = ["*.hlsl", "*.hlsli"]\nsplit = "tune"\nfiles = {files}\n\n'
        f'[[repo]]\nname = "Glsl"\nrepo = "acme/shaders"\ncommit = "{commit}"\n'
        f'include = ["glsl/*.frag"]\nstrip = "glsl"\nsuffix = ".hlsl"\nsplit = "held-out"\n'
    )
    return path


def _fetch(tmp_path: Path, manifest: Path, mirror: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "corpus"), "--mirror", str(mirror),
         "--clones", str(tmp_path / "clones"), "--manifest", str(manifest)],
        capture_output=True, text=True,
    )  # fmt: skip


def test_the_pinned_commit_and_patterns_decide_the_files(tmp_path: Path) -> None:
    mirror, first, _second = _mirror(tmp_path)
    run = _fetch(tmp_path, _manifest(tmp_path, first, 2), mirror)
    assert run.returncode == 0, run.stderr
    corpus = tmp_path / "corpus"
    taken = sorted(str(p.relative_to(corpus)) for p in corpus.rglob("*") if p.is_file())
    # c.hlsl came after the pinned commit, tool.cpp matches no pattern; glsl/ is stripped and suffixed.
    assert taken == ["Glsl/x.frag.hlsl", "Shaders/src/a.hlsl", "Shaders/src/b.hlsli"]
    assert (corpus / "Shaders/src/a.hlsl").read_text().startswith("float4 main()")
    assert not (tmp_path / "clones" / "acme+shaders.git").exists()  # the mirror served it: no clone


def test_a_count_that_differs_from_the_manifest_fails(tmp_path: Path) -> None:
    mirror, _first, second = _mirror(tmp_path)
    run = _fetch(tmp_path, _manifest(tmp_path, second, 2), mirror)  # the second commit has 3 files
    assert run.returncode == 1
    assert "MISMATCH: the manifest says 2" in run.stdout


def test_the_shipped_manifest_pins_every_repository() -> None:
    with (REPO / "bench" / "corpus.toml").open("rb") as f:
        repos = tomllib.load(f)["repo"]
    names = [r["name"] for r in repos]
    assert len(names) == len(set(names))
    for r in repos:
        assert re.fullmatch(r"[0-9a-f]{40}", r["commit"]), r["name"]
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", r["repo"]), r["name"]
        assert r["split"] in {"tune", "held-out", "robustness"}, r["name"]
        assert isinstance(r["files"], int) and r["files"] > 0, r["name"]
