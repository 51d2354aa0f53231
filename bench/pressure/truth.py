"""Register truth from regtruth (Mesa RADV/ACO), cached per file content.

`measure(files, family, wave)` returns every regtruth record (one per entry point) for the files,
running regtruth only on files whose cached result is missing or stale. The cache lives in
bench/pressure/cache/ (gitignored), one JSON file per (family, wave, file content).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CACHE = HERE / "cache"


def find_regtruth(explicit: str | None = None) -> Path:
    candidates = [explicit, os.environ.get("REGTRUTH")]
    candidates += [
        str(REPO.parent / "regtruth" / "regtruth.py"),
        str(REPO.parent.parent / "regtruth" / "regtruth.py"),
        str(REPO.parent / "shared" / "tools" / "regtruth" / "regtruth.py"),
    ]
    for c in candidates:
        if c and Path(c).is_file():
            return Path(c)
    sys.exit("regtruth.py not found: pass --regtruth PATH or set $REGTRUTH")


HEADER_SUFFIXES = (".h", ".hlsl", ".hlsli", ".fxh", ".inc", ".shader", ".ush", ".usf")


@functools.cache
def _folder_digest(folder: Path, recursive: bool) -> str:
    """A digest of the sources a compile may include from `folder` (names and contents)."""
    h = hashlib.sha256()
    found = folder.rglob("*") if recursive else folder.glob("*")
    for f in sorted(p for p in found if p.suffix.lower() in HEADER_SUFFIXES and p.is_file()):
        h.update(f.as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:12]


def _key(path: Path, family: str, wave: int | None, extra: tuple[str, ...] = ()) -> Path:
    """The cache file of one source's records.

    Keyed by the file's content and by what it may include: the sources beside it and in every
    `-I` folder. A header that appears, changes or goes away (a corpus refreshed, an include root
    added) therefore measures again instead of reusing a failure or a figure of other code.
    """
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:20]
    includes = [Path(extra[i + 1]) for i, a in enumerate(extra[:-1]) if a == "-I"]
    deps = _folder_digest(path.parent.resolve(), False) + "".join(
        _folder_digest(d.resolve(), True) for d in includes
    )
    name = hashlib.sha256("\0".join((str(path), *extra, deps)).encode()).hexdigest()[:8]
    return CACHE / f"{family}-w{wave or 'default'}" / f"{name}-{digest}.json"


def measure(
    files: list[Path],
    family: str,
    wave: int | None,
    *,
    regtruth: Path,
    jobs: int = 2,
    frontend: str = "auto",
    timeout: int = 120,
    extra: tuple[str, ...] = (),
    entry: tuple[str, str] | None = None,
    entries: Sequence[tuple[str, str]] = (),
) -> list[dict[str, object]]:
    """regtruth records for every entry point of `files` (cached).

    `extra` is passed to regtruth as is (-D, -I, --16bit-types) and is part of the cache key;
    `entry` = (name, stage) measures that entry point of every file instead of `--auto`;
    `entries` measures each of these (name, stage) of every file (and is part of the key).
    """
    records: list[dict[str, object]] = []
    missing: list[Path] = []
    keyed = (*extra, "--entries", *(f"{n}:{s}" for n, s in entries)) if entries else extra
    for f in files:
        key = _key(f, family, wave, keyed)
        if key.is_file():
            records.extend(json.loads(key.read_text())["results"])
        else:
            missing.append(f)
    if not missing:
        return records
    print(f"regtruth: measuring {len(missing)} files on {family} (wave {wave or 'default'})", file=sys.stderr)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as lst:
        suffixes = [f" {n} {s}" for n, s in entries] or [f" {entry[0]} {entry[1]}" if entry else ""]
        lst.write("".join(f"{f}{suffix}\n" for f in missing for suffix in suffixes))
    cmd = [
        sys.executable,
        str(regtruth),
        "--list",
        lst.name,
        *([] if entry or entries else ["--auto"]),
        "-j",
        str(jobs),
        "--family",
        family,
        "--frontend",
        frontend,
        "--timeout",
        str(timeout),
    ]
    if wave:
        cmd += ["--wave", str(wave)]
    cmd += list(extra)
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    os.unlink(lst.name)
    by_file: dict[str, list[dict[str, object]]] = {str(f): [] for f in missing}
    for line in proc.stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        rec = json.loads(line)
        by_file.setdefault(str(rec.get("file")), []).append(rec)
    for f in missing:
        results = by_file.get(str(f), [])
        key = _key(f, family, wave, keyed)
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_text(json.dumps({"file": str(f), "results": results}, indent=1))
        records.extend(results)
    return records
