"""Build the corpus the README's figures were measured on, from bench/corpus.toml.

    python bench/fetch_corpus.py CORPUS                 # clone each repository (GitHub), take its shaders
    python bench/fetch_corpus.py CORPUS --mirror DIR    # or read local git directories instead
    python bench/fetch_corpus.py CORPUS --only Cauldron --only perftest

Each repository of the manifest is read at its pinned commit and the files its `include`
patterns match are written to CORPUS/<name>/ (with `strip` and `suffix` applied). A clone is
partial (`--filter=blob:none`): only the blobs of the files taken are downloaded. `--mirror DIR`
looks for `DIR/<owner>+<name>/repo` (bare, or with a `.git` inside) or `DIR/<owner>/<name>`
before cloning. The count of files taken is checked against the manifest's `files`, so a rerun
knows it has the same corpus. Nothing here is ever committed to hlsllint.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

MANIFEST = Path(__file__).with_name("corpus.toml")


@dataclass
class Repo:
    name: str
    repo: str
    commit: str
    include: list[str]
    split: str
    strip: str = ""
    suffix: str = ""
    files: int | None = None
    exclude: list[str] = field(default_factory=list)


def load_manifest(path: Path = MANIFEST) -> list[Repo]:
    with path.open("rb") as f:
        data = tomllib.load(f)
    return [Repo(**entry) for entry in data["repo"]]


def git(git_dir: Path, *args: str, input_: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], input=input_, capture_output=True, check=True
    ).stdout


def find_git_dir(repo: Repo, mirror: Path | None, clones: Path) -> Path:
    owner, name = repo.repo.split("/")
    candidates = []
    if mirror is not None:
        for base in (mirror / f"{owner}+{name}" / "repo", mirror / owner / name):
            candidates += [base / ".git", base]
    candidates.append(clones / f"{owner}+{name}.git")
    for c in candidates:
        if (c / "objects").is_dir() and _has_commit(c, repo.commit):
            return c
    target = clones / f"{owner}+{name}.git"
    if not target.exists():
        url = f"https://github.com/{repo.repo}.git"
        print(f"cloning {url} (partial: blobs on demand)", file=sys.stderr)
        subprocess.run(["git", "clone", "--bare", "--filter=blob:none", url, str(target)], check=True)
    if not _has_commit(target, repo.commit):
        git(target, "fetch", "--filter=blob:none", "origin", repo.commit)
    return target


def _has_commit(git_dir: Path, commit: str) -> bool:
    probe = subprocess.run(
        ["git", f"--git-dir={git_dir}", "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True
    )
    return probe.returncode == 0


def selected(repo: Repo, git_dir: Path) -> list[str]:
    names = git(git_dir, "ls-tree", "-r", "-z", "--name-only", repo.commit).decode().split("\0")
    spec = pathspec.GitIgnoreSpec.from_lines(repo.include)
    skip = pathspec.GitIgnoreSpec.from_lines(repo.exclude) if repo.exclude else None
    return sorted(n for n in names if n and spec.match_file(n) and not (skip and skip.match_file(n)))


def extract(repo: Repo, git_dir: Path, dest: Path) -> int:
    paths = selected(repo, git_dir)
    # One `cat-file --batch` reads every blob (a partial clone downloads the missing ones first).
    request = "".join(f"{repo.commit}:{p}\n" for p in paths).encode()
    out = git(git_dir, "cat-file", "--batch", input_=request)
    pos = 0
    for p in paths:
        header_end = out.index(b"\n", pos)
        header = out[pos:header_end].split()
        if header[-1] == b"missing":
            raise SystemExit(f"{repo.name}: {p} is missing from {git_dir}")
        size = int(header[2])
        body = out[header_end + 1 : header_end + 1 + size]
        pos = header_end + 1 + size + 1
        rel = p[len(repo.strip) :].lstrip("/") if repo.strip and p.startswith(repo.strip) else p
        target = dest / repo.name / (rel + repo.suffix)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
    return len(paths)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", type=Path, help="the folder to build (e.g. /work/corpus)")
    ap.add_argument("--mirror", type=Path, help="a folder of local git directories to read first")
    ap.add_argument("--clones", type=Path, help="where clones go (default: ~/.cache/hlsllint-corpus)")
    ap.add_argument("--only", action="append", help="a repository's name in the manifest (repeatable)")
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    args = ap.parse_args(argv)
    clones = args.clones or Path.home() / ".cache" / "hlsllint-corpus"
    clones.mkdir(parents=True, exist_ok=True)
    failed = 0
    for repo in load_manifest(args.manifest):
        if args.only and repo.name not in args.only:
            continue
        git_dir = find_git_dir(repo, args.mirror, clones)
        count = extract(repo, git_dir, args.corpus)
        verdict = "" if repo.files in (None, count) else f"  MISMATCH: the manifest says {repo.files}"
        failed += bool(verdict)
        print(f"{repo.name:<26} {repo.commit[:12]}  {count:>5} files  ({repo.split}){verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
