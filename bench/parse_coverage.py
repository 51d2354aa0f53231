"""Parse coverage of real shaders: how many files leave unparsed regions (HL000), and how fast.

    python bench/parse_coverage.py /work/corpus/*              # preprocess (if available) + repair
    python bench/parse_coverage.py --raw /work/corpus/*        # tree-sitter on the files as they are
    python bench/parse_coverage.py --no-repair /work/corpus/*  # preprocess, no repair
    python bench/parse_coverage.py --no-pp /work/corpus/*      # repair, no preprocessing

"misparsed" counts files whose tree has a known silently-wrong shape (a function defined inside
a function, a "type" named `while`/`cbuffer`..., a bitfield whose width is a name, leftover
`semantics`/`hlsl_attribute` nodes): those are wrong even without an ERROR node.

Each argument is a corpus folder; folders named `tests-*` are compiler test suites and are
reported separately from the production figure. Shader files are `.hlsl`, `.hlsli`, `.fx`,
`.fxh`, headers `.h` under a `gpu/` or `shaders/` folder (C++ headers elsewhere are skipped), and
HLSL in Vulkan-style stage files (`.vert`, `.frag`, `.comp`, ... as in SaschaWillems/Vulkan
`shaders/hlsl`).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

import tree_sitter

from hlsllint import preprocess as pp
from hlsllint.source import SourceError, SourceFile
from hlsllint.syntax import SyntaxTree, language, parse

SHADER_EXTS = {".hlsl", ".hlsli", ".fx", ".fxh"}
STAGE_EXTS = {
    ".vert", ".frag", ".comp", ".geom", ".tesc", ".tese", ".mesh", ".task",
    ".rgen", ".rchit", ".rmiss", ".rcall", ".rahit", ".rint",
}  # fmt: skip
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")


def shader_files(root: str) -> list[str]:
    out: list[str] = []
    for dirpath, _dirs, files in os.walk(root):
        rel = dirpath.replace(os.sep, "/").lower() + "/"
        for name in files:
            ext = os.path.splitext(name)[1].lower()
            if (
                ext in SHADER_EXTS
                or ext in STAGE_EXTS
                or (ext == ".h" and ("/gpu/" in rel or "shaders/" in rel))
            ):
                out.append(os.path.join(dirpath, name))
    return sorted(out)


def preprocessor_available() -> bool:
    return "placeholder" not in (pp.preprocess.__doc__ or "").lower()


@dataclass
class Stats:
    files: int = 0
    failed_reads: int = 0
    files_unparsed: int = 0
    files_misparsed: int = 0
    chars: int = 0
    unparsed_chars: int = 0
    lines: int = 0
    t_pre: float = 0.0
    t_full: float = 0.0
    t_floor: float = 0.0
    contexts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    worst: list[tuple[int, str]] = field(default_factory=list)

    def add(self, other: Stats) -> None:
        for name in ("files", "failed_reads", "files_unparsed", "files_misparsed", "chars",
                     "unparsed_chars"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("lines", "t_pre", "t_full", "t_floor"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.contexts.update(other.contexts)
        for k, v in other.examples.items():
            self.examples.setdefault(k, v)
        self.worst.extend(other.worst)


def context_key(text: str, start: int) -> str:
    """The first tokens of the line where an unparsed region starts."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    return " ".join(_TOKEN.findall(line)[:3]) or "<blank line>"


_STATEMENT_WORDS = {"while", "do", "switch", "if", "for", "return", "cbuffer", "tbuffer", "else"}


def misparsed(tree: SyntaxTree) -> bool:
    """Whether the tree has a shape that tree-sitter-hlsl produces for HLSL it misreads."""
    for n in tree.walk():
        t = n.type
        if t in ("semantics", "hlsl_attribute"):
            return True
        if t == "function_definition":
            parent = n.parent
            if parent is not None and parent.type == "compound_statement":
                return True
        if t in ("function_definition", "declaration"):
            ty = n.child_by_field_name("type")
            if ty is not None and tree.node_text(ty) in _STATEMENT_WORDS:
                return True
        if t == "bitfield_clause" and any(c.type == "identifier" for c in n.children):
            return True
    return False


def measure(root: str, use_pp: bool, repair: bool) -> Stats:
    st = Stats()
    parser = tree_sitter.Parser(language())
    use_pp = use_pp and preprocessor_available()
    for path in shader_files(root):
        try:
            src = SourceFile.read(path)
        except SourceError:
            st.failed_reads += 1
            continue
        text = src.text
        if use_pp:
            t0 = time.perf_counter()
            opts = pp.PreprocessOptions(include_dirs=(os.path.dirname(path),))
            try:
                text = pp.preprocess(src, opts, SourceFile.read).text
            except Exception as e:  # a crash in the preprocessor is a finding of its own
                print(f"preprocess crashed on {path}: {e!r}", file=sys.stderr)
            st.t_pre += time.perf_counter() - t0
        t0 = time.perf_counter()
        parser.parse(text.encode("utf-8"))
        t1 = time.perf_counter()
        tree = parse(text, repair=repair)
        t2 = time.perf_counter()
        st.t_floor += t1 - t0
        st.t_full += t2 - t1
        st.files += 1
        st.chars += len(text)
        st.lines += text.count("\n") + 1
        if misparsed(tree):
            st.files_misparsed += 1
        if tree.unparsed:
            st.files_unparsed += 1
            bad = sum(e - s for s, e in tree.unparsed)
            st.unparsed_chars += bad
            st.worst.append((bad, path))
            for s, _e in tree.unparsed:
                key = context_key(text, s)
                st.contexts[key] += 1
                if key not in st.examples:
                    row = text.count("\n", 0, s) + 1
                    st.examples[key] = f"{os.path.relpath(path, root)}:{row}"
    return st


def row(name: str, st: Stats) -> str:
    share = 100.0 * st.files_unparsed / st.files if st.files else 0.0
    bshare = 100.0 * st.unparsed_chars / st.chars if st.chars else 0.0
    full = st.lines / st.t_full if st.t_full else 0.0
    floor = st.lines / st.t_floor if st.t_floor else 0.0
    mis = 100.0 * st.files_misparsed / st.files if st.files else 0.0
    return (
        f"| {name} | {st.files} | {st.files_unparsed} ({share:.1f}%) | {bshare:.2f}% "
        f"| {st.files_misparsed} ({mis:.1f}%) | {full:,.0f} | {floor:,.0f} |"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("dirs", nargs="+", help="corpus folders (tests-* = compiler test suites)")
    ap.add_argument("--raw", action="store_true", help="no preprocessing, no repair")
    ap.add_argument("--no-pp", action="store_true", help="do not preprocess")
    ap.add_argument("--no-repair", action="store_true", help="do not repair")
    ap.add_argument("--top", type=int, default=25, help="error contexts to list")
    args = ap.parse_args(argv)
    use_pp = not (args.raw or args.no_pp) and preprocessor_available()
    repair = not (args.raw or args.no_repair)
    print(f"preprocessed: {use_pp}; repaired: {repair}\n")
    print("| corpus | files | files with HL000 | unparsed chars | misparsed files "
          "| lines/s parse() | lines/s tree-sitter only |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|")
    production = Stats()
    suites = Stats()
    for d in args.dirs:
        if not os.path.isdir(d):
            continue
        st = measure(d, use_pp, repair)
        name = os.path.basename(os.path.normpath(d))
        print(row(name, st))
        (suites if name.startswith("tests-") else production).add(st)
    print(row("**production**", production))
    if suites.files:
        print(row("compiler test suites", suites))
    for title, st in (("production", production), ("compiler test suites", suites)):
        if not st.contexts:
            continue
        print(f"\nTop error contexts ({title}; first tokens of the line, count, example):")
        for key, n in st.contexts.most_common(args.top):
            print(f"  {n:5d}  {key!r:40}  {st.examples[key]}")
        print(f"\nFiles with most unparsed chars ({title}):")
        for bad, path in sorted(st.worst, reverse=True)[:10]:
            print(f"  {bad:7d}  {path}")
    if production.t_pre:
        print(f"\npreprocess time (production): {production.t_pre:.2f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
