"""The content cache: one translation unit's findings, reused while nothing that reaches it changed.

An entry is found by the unit's identity (its path, the settings and variant that apply to it, and
hlsllint's own code) and is valid while every file the unit read still has the same content hash
and every path its include search probed in vain is still absent. Editing a header therefore
invalidates exactly the units that include it.

Entries are JSON files under `<cache dir>/v1/`, written atomically (temporary file + rename) so
concurrent runs never see half an entry (a temporary file is removed on SIGTERM too, and one
that a SIGKILL left by a later run: `writing.replace_private`); an entry that does not parse, or
whose checksum does not match, is ignored. The folder is pruned (oldest first) when it grows past `MAX_BYTES`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hlsllint import __version__
from hlsllint.diagnostics import Applicability, Diagnostic, Edit, Fix, Related, Severity
from hlsllint.files import read_regular
from hlsllint.source import Location, SourceError, SourceFile
from hlsllint.writing import replace_private

DEFAULT_DIR = ".hlsllint_cache"
ENV_DIR = "HLSLLINT_CACHE_DIR"
MAX_BYTES = 256 * 1024 * 1024
FORMAT = "v1"


def content_hash(source: SourceFile) -> str:
    data = source.text.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=16).hexdigest() + f":{source.decode_errors}"


def _code_fingerprint() -> str:
    """hlsllint's version and the state of its own files (code, data tables, rule plugins): editing
    an installed or checked-out hlsllint invalidates the cache."""
    import hlsllint
    import hlsllint.rules

    h = hashlib.blake2b(__version__.encode(), digest_size=16)
    for pkg in (hlsllint, hlsllint.rules):
        for root in sorted(str(p) for p in pkg.__path__):
            for path in sorted(Path(root).rglob("*")):
                if "__pycache__" in path.parts or not path.is_file():
                    continue
                with contextlib.suppress(OSError):
                    st = path.stat()
                    h.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def default_cache_dir() -> str:
    return os.environ.get(ENV_DIR) or DEFAULT_DIR


@dataclass
class CachedUnit:
    diagnostics: list[Diagnostic]
    deps: dict[str, str]
    """Every file the unit read → its content hash."""
    missing: list[str] = field(default_factory=list)


class Cache:
    """A folder of per-unit results. Never raises on a broken or unwritable folder."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.entries = self.directory / FORMAT
        self._code = _code_fingerprint()
        self._hashes: dict[str, str | None] = {}
        self.hits = 0
        self.misses = 0
        self._wrote = False
        self._usable = True

    def new_run(self) -> None:
        """Forget the content hashes seen so far (files or unsaved overrides may have changed)."""
        self._hashes.clear()

    # -- keys ------------------------------------------------------------------------------------

    def key(self, path: str, settings: object, variant: object, stop_after: tuple[str, ...] = ()) -> str:
        # The path as given and the working folder: findings carry paths as the run spells them.
        ident = f"{self._code}\0{os.getcwd()}\0{path}\0{settings!r}\0{variant!r}"
        if stop_after:  # the unit cut after headers passed alone
            ident += "\0stop=" + "\0".join(stop_after)
        return hashlib.blake2b(ident.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()

    def _file_hash(self, path: str, loader: Callable[[str], SourceFile]) -> str | None:
        if path not in self._hashes:
            try:
                self._hashes[path] = content_hash(loader(path))
            except SourceError:
                self._hashes[path] = None
        return self._hashes[path]

    # -- read ------------------------------------------------------------------------------------

    def get(self, key: str, loader: Callable[[str], SourceFile]) -> CachedUnit | None:
        """The unit's findings if the entry exists, is intact and every dependency is unchanged."""
        entry = self._load(key)
        if entry is None or not self._still_valid(entry, loader):
            self.misses += 1
            return None
        self.hits += 1
        with contextlib.suppress(OSError):
            os.utime(self._path(key))  # keeps recently used entries through pruning
        return entry

    def entry(self, key: str) -> CachedUnit | None:
        """The stored entry as it is (not checked against the files)."""
        return self._load(key)

    def _still_valid(self, entry: CachedUnit, loader: Callable[[str], SourceFile]) -> bool:
        for path, digest in entry.deps.items():
            if self._file_hash(path, loader) != digest:
                return False
        return not any(os.path.exists(p) for p in entry.missing)

    def _path(self, key: str) -> Path:
        return self.entries / key[:2] / f"{key}.json"

    def _load(self, key: str) -> CachedUnit | None:
        try:
            raw = read_regular(str(self._path(key)))  # a FIFO in the folder must not hang the run
        except OSError:
            return None
        try:
            checksum, _, body = raw.partition(b"\n")
            if hashlib.blake2b(body, digest_size=16).hexdigest().encode() != checksum:
                return None
            data = json.loads(body)
            return CachedUnit(
                diagnostics=[_diag_from(d) for d in data["diagnostics"]],
                deps={str(k): str(v) for k, v in data["deps"].items()},
                missing=[str(p) for p in data["missing"]],
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    # -- write -----------------------------------------------------------------------------------

    def put(
        self,
        key: str,
        diagnostics: Iterable[Diagnostic],
        deps: Mapping[str, str],
        missing: Iterable[str],
    ) -> None:
        if not self._usable or not deps:
            return
        entry = {
            "diagnostics": [_diag_to(d) for d in diagnostics],
            "deps": dict(deps),
            "missing": list(missing),
        }
        try:
            body = json.dumps(entry, separators=(",", ":")).encode()
        except (TypeError, ValueError):  # a rule's `extra` that JSON cannot hold: don't store
            return
        checksum = hashlib.blake2b(body, digest_size=16).hexdigest().encode()
        target = self._path(key)
        try:
            self._ensure_folder()
            target.parent.mkdir(exist_ok=True)
            self._write(target, checksum + b"\n" + body)
            self._wrote = True
        except OSError:
            self._usable = False  # read-only or full disk: lint on without a cache

    def _ensure_folder(self) -> None:
        self.entries.mkdir(parents=True, exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            self._write(ignore, b"# Created by hlsllint automatically.\n*\n")

    @staticmethod
    def _write(target: Path, data: bytes) -> None:
        """Through a temporary file and a rename: readers see the old file or the new one, and
        no temporary file outlives the run (`writing.replace_private`)."""
        replace_private(str(target), data)

    def close(self, max_bytes: int = MAX_BYTES) -> None:
        """Prune the oldest entries when the folder outgrew `max_bytes` (to 80% of it)."""
        if not self._wrote:
            return
        files: list[tuple[float, int, Path]] = []
        with contextlib.suppress(OSError):
            for p in self.entries.glob("*/*.json"):
                with contextlib.suppress(OSError):
                    st = p.stat()
                    files.append((st.st_mtime, st.st_size, p))
        total = sum(size for _, size, _ in files)
        if total <= max_bytes:
            return
        for _, size, p in sorted(files, key=lambda t: (t[0], str(t[2]))):
            with contextlib.suppress(OSError):
                p.unlink()
                total -= size
            if total <= max_bytes * 0.8:
                break


# -- diagnostics as JSON ---------------------------------------------------------------------------


def _loc(loc: Location) -> list[int]:
    return [loc.row, loc.column]


def _loc_from(v: Any) -> Location:
    return Location(int(v[0]), int(v[1]))


def _diag_to(d: Diagnostic) -> dict[str, Any]:
    out: dict[str, Any] = {
        "code": d.code,
        "name": d.name,
        "message": d.message,
        "severity": d.severity.value,
        "path": d.path,
        "offsets": [d.start_offset, d.end_offset],
        "start": _loc(d.start),
        "end": _loc(d.end),
        "variant": d.variant,
        "extra": d.extra,
        "related": [[r.path, _loc(r.start), _loc(r.end), r.message] for r in d.related],
        "help": d.help,
        "notes": list(d.notes),
    }
    if d.fix is not None:
        out["fix"] = {
            "message": d.fix.message,
            "applicability": d.fix.applicability.value,
            "edits": [
                [e.path, e.start, e.end, e.content, _loc(e.start_location), _loc(e.end_location)]
                for e in d.fix.edits
            ],
        }
    return out


def _diag_from(v: dict[str, Any]) -> Diagnostic:
    fix = None
    if "fix" in v:
        f = v["fix"]
        fix = Fix(
            message=str(f["message"]),
            applicability=Applicability(f["applicability"]),
            edits=tuple(
                Edit(str(p), int(s), int(e), str(c), _loc_from(sl), _loc_from(el))
                for p, s, e, c, sl, el in f["edits"]
            ),
        )
    if not isinstance(v["extra"], dict):
        raise TypeError("extra")
    return Diagnostic(
        code=str(v["code"]),
        name=str(v["name"]),
        message=str(v["message"]),
        severity=Severity(v["severity"]),
        path=str(v["path"]),
        start_offset=int(v["offsets"][0]),
        end_offset=int(v["offsets"][1]),
        start=_loc_from(v["start"]),
        end=_loc_from(v["end"]),
        fix=fix,
        related=tuple(Related(str(p), _loc_from(s), _loc_from(e), str(m)) for p, s, e, m in v["related"]),
        variant=None if v["variant"] is None else str(v["variant"]),
        extra=v["extra"],
        help=None if v["help"] is None else str(v["help"]),
        notes=tuple(str(n) for n in v["notes"]),
    )
