#!/bin/bash
# Instructions (callgrind, which the host's load does not move) of the parse-only floor against a
# cold `-j 1` lint, per folder:
#
#     bash bench/floor_instructions.sh /work/corpus/DirectX-Graphics-Samples/MiniEngine ...
#
# floor: tree-sitter alone on every file once (`bench/lint_speed.py`'s parse-only time);
# lint: `bench/profile_lint.py --no-profile`, less the imports it needs (measured on their own);
# tree-sitter in the lint: inclusive instructions of `ts_parser_parse` within it (every unit's
# expansion). Run with the Python whose hlsllint you want measured first on PATH (`python`), from
# a folder where the checkout does not shadow the install. A few minutes per folder.
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
count() { callgrind_annotate "$1" | grep 'PROGRAM TOTALS' | awk '{print $1}' | tr -d ,; }
valgrind --tool=callgrind --callgrind-out-file="$out/imports" python -c "
import sys; sys.path.insert(0, '$bench')
import lint_speed, networkx
from hlsllint.driver import lint_paths
from hlsllint.registry import all_rules
all_rules()" >/dev/null 2>&1
imports=$(count "$out/imports")
printf '| folder | floor | tree-sitter in the lint | lint less imports | the rest |\n|---|---:|---:|---:|---:|\n'
for folder in "$@"; do
  valgrind --tool=callgrind --toggle-collect=ts_parser_parse --callgrind-out-file="$out/floor" python -c "
import sys; sys.path.insert(0, '$bench')
from pathlib import Path
import tree_sitter
from lint_speed import shader_files
from hlsllint.syntax import language
parser = tree_sitter.Parser(language())
for f in shader_files(['$folder']):
    parser.parse(Path(f).read_bytes())" >/dev/null 2>&1
  valgrind --tool=callgrind --callgrind-out-file="$out/lint" python "$bench/profile_lint.py" --no-profile "$folder" >/dev/null 2>&1
  floor=$(count "$out/floor")
  lint=$(( $(count "$out/lint") - imports ))
  parse=$(callgrind_annotate --inclusive=yes "$out/lint" | awk '/parser.c:ts_parser_parse \[/ && !n {print $1; n = 1}' | tr -d ,)
  python3 -c "
f, p, t = $floor, $parse, $lint
print(f'| $(basename "$folder") | {f / 1e6:.0f} M | {p / 1e6:.0f} M ({p / f:.1f}x) | {t / 1e9:.2f} G ({t / f:.0f}x) | {(t - p) / 1e9:.2f} G ({(t - p) / f:.0f}x) |')"
done
rm -rf "$out"
