"""One cold `-j 1` lint of the given folders in this process (no cache, no time budget), for
counting instructions, which do not move with the host's load as seconds do:

    valgrind --tool=callgrind --callgrind-out-file=OUT python bench/cold_lint_once.py FOLDER...
    callgrind_annotate OUT | grep 'PROGRAM TOTALS'

Units and settings are those of bench/lint_speed.py. Prints the findings count and the CPU
seconds the lint took (under valgrind, about 50 times the native figure).
"""

from __future__ import annotations

import sys
import time

from lint_speed import STAGE_EXTS, shader_files

from hlsllint.config import ConfigResolver, Settings
from hlsllint.lint import lint_paths, tune_gc


def main(folders: list[str]) -> int:
    files = shader_files(folders)
    tune_gc()
    resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS, time_budget=0.0))
    start = time.process_time()
    result = lint_paths(files, resolver, jobs=1, cache=None)
    print(f"findings {len(result.diagnostics)}  cpu {time.process_time() - start:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
