"""How much of each unit's expanded text repeats, as a prefix, an earlier unit's: the most that
tree-sitter's incremental reparse (an old tree edited into the new text) could reuse.

    python bench/shared_prefix.py /work/corpus/DirectX-Graphics-Samples/MiniEngine ...

Prints, per folder, the units' expanded text in all and the sum over units of the longest common
prefix with any earlier unit (quadratic in units: for measurement, not for the lint).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lint_speed import STAGE_EXTS, shader_files

from hlsllint.config import ConfigResolver, Settings
from hlsllint.driver import _plan_units
from hlsllint.lint import FileLoader, front_end


def main() -> int:
    for folder in sys.argv[1:]:
        resolver = ConfigResolver(forced=Settings(extensions=STAGE_EXTS))
        loader = FileLoader()
        texts: list[str] = []
        total = shared = 0
        for unit in _plan_units(shader_files([folder]), resolver, loader):
            pp, _tree = front_end(loader(unit.path), unit.settings, unit.variant, loader)
            text = pp.text
            # a prefix of characters is what is meant, not of path components
            common = (len(os.path.commonprefix([t, text])) for t in texts)  # noqa: RUF071
            shared += max(common, default=0)
            texts.append(text)
            total += len(text)
        share = 100 * shared / total if total else 0.0
        repeated = f"{shared:,} ({share:.0f}%) a prefix shared with an earlier unit"
        print(f"{folder}: {len(texts)} units, {total:,} characters expanded, {repeated}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
