"""One md5 per translation unit of what the front end gives the rest of the lint, to show that a
change to preprocessing or parsing leaves it identical:

    python bench/front_end_identity.py /tmp/before.txt /work/corpus/DirectX-Graphics-Samples ...
    python bench/front_end_identity.py /tmp/after.txt ... && cmp /tmp/before.txt /tmp/after.txt

Units are planned and run as a cold `-j 1` lint runs them (each folder on its own, in order, one
process, one file loader, the process-wide lexer and header-expansion stores kept
between units). Per unit it hashes the expanded text, every source-map segment, the
preprocessor's diagnostics, included files, sources (path, text, encoding facts) and missing
probes, then the normalised text, every annotation, the unparsed regions and every node of the
tree (type, byte range, field name, missing/error flags). `--fresh` forgets the stores before each
unit (then no header expansion is replayed: the result must be the same). `--time` prints the
seconds spent in the front end (preprocess + parse) per folder.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lint_speed import STAGE_EXTS, shader_files

from hlsllint import preprocess as pp_stage
from hlsllint.config import ConfigResolver, Settings
from hlsllint.driver import _plan_units
from hlsllint.lint import FileLoader, front_end, tune_gc
from hlsllint.syntax import SyntaxTree


def _tree_digest(tree: SyntaxTree, h: hashlib._Hash) -> None:
    cursor = tree.root.walk()
    while True:
        n = cursor.node
        assert n is not None
        h.update(
            f"{n.type}|{n.start_byte}|{n.end_byte}|{cursor.field_name}|{n.is_missing}|{n.is_error}\n".encode()
        )
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def unit_digest(pp: pp_stage.PreprocessResult, tree: SyntaxTree) -> str:
    h = hashlib.md5()
    h.update(pp.text.encode("utf-8", "surrogatepass"))
    for seg in pp.sourcemap.segments:
        h.update(repr(tuple(seg)).encode())
    h.update(repr(pp.diagnostics).encode())
    h.update(repr(pp.included).encode())
    h.update(repr(pp.missing).encode())
    for path, sf in pp.sources.items():
        h.update(repr((path, sf.path, sf.had_bom, sf.decode_errors, sf.encoding)).encode())
        h.update(hashlib.md5(sf.text.encode("utf-8", "surrogatepass")).digest())
    h.update(tree.normalized.encode("utf-8", "surrogatepass"))
    h.update(repr(tree.annotations).encode())
    h.update(repr(tree.unparsed).encode())
    _tree_digest(tree, h)
    return h.hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--fresh", action="store_true", help="forget the process-wide stores before each unit")
    ap.add_argument("--time", action="store_true")
    args = ap.parse_args()
    tune_gc()
    lines: list[str] = []
    for folder in args.folders:
        files = shader_files([folder])
        resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS))
        loader = FileLoader()  # one per run, as a -j 1 lint reads files
        units = _plan_units(files, resolver, loader)
        spent = 0.0
        reused = 0
        for u in units:
            if args.fresh:
                pp_stage.clear_cache()
            t0 = time.perf_counter()
            main_file = loader(u.path)
            pp, tree = front_end(main_file, u.settings, u.variant, loader)
            spent += time.perf_counter() - t0
            reused += pp.reused
            name = u.path + (f" [{u.variant.name}]" if u.variant else "")
            lines.append(f"{name} {unit_digest(pp, tree)}\n")
        if args.time:
            print(f"{folder}: {len(units)} units, front end {spent:.2f} s, header expansions reused {reused}")
    with open(args.out, "w") as f:
        f.writelines(lines)
    print(f"{len(lines)} units -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
