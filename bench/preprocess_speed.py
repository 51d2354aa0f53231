"""Preprocess every shader file under a corpus folder; print files, lines/s and errors.

    python bench/preprocess_speed.py [CORPUS_DIR ...] [--pcpp] [--show N]

Lines are counted over every file a translation unit reads (main file + includes, as the
compiler would read them); `main lines/s` counts only the main files. Files with HL003 and
crashes are counted per file. `--pcpp` runs the same files through pcpp for comparison.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import os
import sys
import time
import traceback

from hlsllint.preprocess import PreprocessOptions, preprocess
from hlsllint.source import SourceError, SourceFile

EXTENSIONS = {
    ".hlsl", ".hlsli", ".h", ".fx", ".fxh", ".vert", ".frag", ".comp", ".geom", ".tesc", ".tese",
    ".rgen", ".rchit", ".rmiss", ".rahit", ".rint", ".rcall", ".mesh", ".task",
}  # fmt: skip

DEFAULT_CORPUS = [
    "/work/corpus/microsoft+DirectX-Graphics-Samples",
    "/work/corpus/GPUOpen-LibrariesAndSDKs+FidelityFX-SDK",
    "/work/corpus/sebbbi+perftest",
    "/work/corpus/SaschaWillems+Vulkan",
]


def shader_files(roots: list[str]) -> list[str]:
    found = []
    for root in roots:
        for dirpath, _dirs, files in os.walk(root):
            for f in sorted(files):
                if os.path.splitext(f)[1].lower() in EXTENSIONS:
                    found.append(os.path.join(dirpath, f))
    return sorted(found)


def run_hlsllint(files: list[str], show: int) -> None:
    cache: dict[str, SourceFile] = {}

    def loader(path: str) -> SourceFile:
        sf = cache.get(path)
        if sf is None:
            sf = cache[path] = SourceFile.read(path)
        return sf

    main_lines = total_lines = 0
    hl003_files = hl002_files = crashes = 0
    messages: collections.Counter[str] = collections.Counter()
    t0 = time.perf_counter()
    for path in files:
        try:
            main = loader(path)
        except SourceError:
            continue
        try:
            r = preprocess(main, PreprocessOptions(), loader)
        except Exception:
            crashes += 1
            if show:
                print(f"CRASH {path}\n{traceback.format_exc()}", file=sys.stderr)
            continue
        main_lines += main.line_count
        total_lines += sum(s.line_count for s in r.sources.values())
        codes = {d.code for d in r.diagnostics}
        hl003_files += "HL003" in codes
        hl002_files += "HL002" in codes
        for d in r.diagnostics:
            if d.code == "HL003":
                messages[d.message.split("'")[0][:60]] += 1
    dt = time.perf_counter() - t0
    print(
        f"hlsllint: {len(files)} files, {main_lines} main lines, {total_lines} lines with includes,"
        f" {dt:.2f}s, {main_lines / dt:,.0f} main lines/s, {total_lines / dt:,.0f} lines/s;"
        f" files with HL003: {hl003_files}, HL002: {hl002_files}, crashes: {crashes}"
    )
    for msg, n in messages.most_common(show):
        print(f"  {n:5d}  {msg}")


def run_pcpp(files: list[str], show: int) -> None:
    import pcpp  # type: ignore[import-untyped]

    class Quiet(pcpp.Preprocessor):  # type: ignore[misc]
        errors = 0

        def on_error(self, file: str, line: int, msg: str) -> None:
            self.errors += 1

        def on_include_not_found(self, *args: object) -> None:
            self.errors += 1
            raise pcpp.OutputDirective(pcpp.Action.IgnoreAndPassThrough)

    main_lines = err_files = crashes = 0
    t0 = time.perf_counter()
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        main_lines += text.count("\n") + 1
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                p = Quiet()
                p.parse(text, path)
                p.write(io.StringIO())
            err_files += p.errors > 0
        except Exception:
            crashes += 1
    dt = time.perf_counter() - t0
    print(
        f"pcpp: {len(files)} files, {main_lines} main lines, {dt:.2f}s,"
        f" {main_lines / dt:,.0f} main lines/s; files with errors: {err_files}, crashes: {crashes}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("roots", nargs="*", default=DEFAULT_CORPUS)
    ap.add_argument("--pcpp", action="store_true", help="also run pcpp on the same files")
    ap.add_argument("--show", type=int, default=0, help="print the N most common HL003 messages")
    ap.add_argument("--limit", type=int, default=0, help="only the first N files")
    args = ap.parse_args()
    files = shader_files(args.roots)
    if args.limit:
        files = files[: args.limit]
    run_hlsllint(files, args.show)
    if args.pcpp:
        run_pcpp(files, args.show)


if __name__ == "__main__":
    main()
