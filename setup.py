"""The build's one dynamic part: the analysis pipeline compiled to C with mypyc.

A wheel (`pip install .`) carries the stages a lint spends its time in (preprocessing, syntax,
semantic model, analyses) compiled by mypyc, beside their Python sources. Everything else in
the project's metadata is in pyproject.toml.

- An editable install (`pip install -e .`) stays pure Python, so that an edited module takes
  effect at once (a compiled module next to its source would shadow it).
- `HLSLLINT_COMPILE=0` builds pure Python; `HLSLLINT_COMPILE=preprocess,checker.py` compiles only
  those packages and modules of `hlsllint/` (for measuring what each one is worth).
- pre-commit's install of the hook is pure Python unless `HLSLLINT_COMPILE` is set.
- `HLSLLINT_OPT_LEVEL` overrides the C compiler's optimisation level (`OPT_LEVEL`).
- `HLSLLINT_BUILD_JOBS` sets how many C files compile at once (default: every processor).
- Without a working C compiler the extensions are skipped and the wheel is pure Python: the
  compiled and the pure modules behave the same, only the speed differs.

pip shows a build's output only with `pip install -v`; so that a plain `pip install .` does not
sit for minutes on "still running...", the build also writes one line per step to the terminal
(`/dev/tty`) when there is one.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from functools import partial
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

COMPILED_PACKAGES = ("preprocess", "syntax", "semantic", "analysis")
"""The packages of `hlsllint/` whose modules are compiled (their `__init__` modules stay Python:
they only re-export)."""
COMPILED_MODULES = ("checker.py", "deadline.py")
"""Modules of `hlsllint/` itself that are compiled: the walk that dispatches nodes to the rules, and
the deadline every stage checks (a native call from their loops; the `handover` module it calls to
let other threads take the GIL must stay interpreted)."""
OPT_LEVEL = "1"
"""gcc/clang -O level of the generated C: -O1 compiles in about 60% of -O3's CPU time for 0.6% more
instructions in a lint (bench/build_cost.py, DEVELOPERS.md)."""
BUILD_JOBS_VARIABLE = "HLSLLINT_BUILD_JOBS"


_on_terminal = False


def say(message: str) -> None:
    """One line of progress where the person who started the build sees it."""
    global _on_terminal
    line = f"hlsllint build: {message}"
    try:
        with open("/dev/tty", "w", encoding="utf-8") as tty:  # pip captures stdout and stderr
            # The first line goes below pip's "Building wheel ..."; the next ones first clear the
            # spinner character pip drew since.
            tty.write(f"\r\033[K{line}\n" if _on_terminal else f"\n{line}\n")
            _on_terminal = True
        return
    except OSError:  # no terminal (CI, Windows): the build's output, which `pip install -v` shows
        print(line, flush=True)


def compiled_modules() -> list[str]:
    root = Path(__file__).parent / "hlsllint"
    choice = os.environ.get("HLSLLINT_COMPILE", "1")
    names = COMPILED_PACKAGES + COMPILED_MODULES if choice == "1" else tuple(choice.split(","))
    unknown = set(names) - set(COMPILED_PACKAGES + COMPILED_MODULES)
    if unknown:
        raise SystemExit(f"HLSLLINT_COMPILE: not a compiled package or module: {', '.join(sorted(unknown))}")
    paths = [
        path
        for name in names
        for path in ((root / name).glob("*.py") if name in COMPILED_PACKAGES else [root / name])
        if path.name != "__init__.py"
    ]
    return sorted(str(path.relative_to(root.parent)) for path in paths)


def installed_by_pre_commit() -> bool:
    """pre-commit installs a hook with `pip install .` in its own clone of the repository, a folder
    `repo...` in its store, beside the store's `db.db` (`~/.cache/pre-commit`, `$PRE_COMMIT_HOME`)."""
    here = Path(__file__).resolve().parent
    return here.name.startswith("repo") and (here.parent / "db.db").is_file()


def ext_modules() -> list[Extension]:
    if not {"bdist_wheel", "build_ext"} & set(sys.argv):
        return []  # editable installs, sdists and metadata queries
    if "HLSLLINT_COMPILE" not in os.environ and installed_by_pre_commit():
        # A hook lints the few files of a commit, where start-up is most of the time and compiled
        # code saves little; compiling would hold up the hook's first run for minutes.
        say("installed by pre-commit: pure Python (HLSLLINT_COMPILE=1 compiles it)")
        return []
    if os.environ.get("HLSLLINT_COMPILE", "1") == "0":
        return []
    from mypyc.build import mypycify

    modules = compiled_modules()
    say(f"mypyc translates {len(modules)} modules to C (about a minute)")
    start = time.perf_counter()
    extensions = mypycify(
        modules,
        opt_level=os.environ.get("HLSLLINT_OPT_LEVEL", OPT_LEVEL),
        debug_level="0",
        multi_file=True,  # one C file per module, compiled in parallel (BuildExt)
    )
    say(f"mypyc done in {time.perf_counter() - start:.0f} s")
    for ext in extensions:
        ext.optional = True  # no compiler: the build goes on, pure Python
    return extensions


class BuildExt(build_ext):
    """Compiles every C file of the build on its own thread (as many as `HLSLLINT_BUILD_JOBS`, by
    default one per processor), the largest first, and says which one it compiles."""

    def build_extensions(self) -> None:
        jobs = int(os.environ.get(BUILD_JOBS_VARIABLE, "0")) or processors()
        self.parallel = jobs  # extensions at once: the modules' small shims besides the big library

        files = [source for ext in self.extensions for source in ext.sources]
        done = 0
        lock = threading.Lock()
        compile_one = self.compiler._compile
        start = time.perf_counter()

        def compile_and_say(obj: str, src: str, *args: Any) -> None:
            nonlocal done
            compile_one(obj, src, *args)
            with lock:
                done += 1
                module = Path(src).stem.removeprefix("__native_").replace("___", ".")
                elapsed = time.perf_counter() - start
                if module.startswith("hlsllint."):
                    say(f"{done}/{len(files)} C files compiled ({module}), {elapsed:.0f} s")
                elif done == len(files):
                    say(f"{done}/{len(files)} C files compiled, {elapsed:.0f} s; linking")

        def largest_first(compiler: Any, sources: list[str], *args: Any, **kwargs: Any) -> Any:
            # build_ext sorts the sources by name; the longest compiles should start first
            by_size = sorted(sources, key=lambda source: -os.path.getsize(source))
            return type(compiler).compile(compiler, by_size, *args, **kwargs)  # as patched below

        self.compiler._compile = compile_and_say
        self.compiler.compile = partial(largest_first, self.compiler)
        say(f"compiling {len(files)} C files, {jobs} at a time")
        try:
            from pybind11.setup_helpers import ParallelCompile
        except ImportError:  # a build without the build requirements (pyproject.toml)
            super().build_extensions()
            return
        with ParallelCompile(BUILD_JOBS_VARIABLE, default=jobs):
            super().build_extensions()


def processors() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


setup(ext_modules=ext_modules(), cmdclass={"build_ext": BuildExt})
