"""Compile HLSL with the Slang compiler of the `slangpy` wheel, in process, through its C API.

Test helper only (not part of the installed package). The wheel ships no `slangc`, so the shared
library (`libslang-compiler.so`) is loaded with ctypes and driven through Slang's classic C API:
one global session per test process (creating it takes ~0.5 s), one compile request per source
(~50 ms for a fixture, SPIR-V included).

    compiler = slang_compiler()          # None when Slang is missing; slang_missing_reason() says why
    result = compiler.compile(text, "a.hlsl", [("main", "compute")])
    assert result.ok, result.errors

Where the library comes from: `$HLSLLINT_SLANG_LIB` (the library or its folder; a path without
one runs the tests as if Slang were missing), else the `slangpy` package of the running Python
(located with importlib, never imported: importing it loads its GPU runtime).

HLSL 2021 (DXC's default language) rejects a ternary with a vector condition; Slang only warns
(E30056, "use select"), so that warning is raised to an error here.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

ENV_VAR = "HLSLLINT_SLANG_LIB"
_LIBRARY_GLOBS = ("libslang-compiler.so*", "libslang.so*", "libslang-compiler*.dylib", "slang-compiler.dll")

# SlangStage (slang.h) by hlsllint's stage names (hlsllint.semantic.symbols.EntryPoint.stage).
STAGES = {
    "vertex": 1,
    "hull": 2,
    "domain": 3,
    "geometry": 4,
    "pixel": 5,
    "compute": 6,
    "raygeneration": 7,
    "intersection": 8,
    "anyhit": 9,
    "closesthit": 10,
    "miss": 11,
    "callable": 12,
    "mesh": 13,
    "amplification": 14,
}
_SPIRV = 6  # SlangCompileTarget SLANG_SPIRV
_SOURCE_LANGUAGE_HLSL = 2  # SlangSourceLanguage
_PROFILE = b"spirv_1_5"
# Errors where DXC (HLSL 2021) errors and Slang would only warn.
_OPTIONS = ("-warnings-as-errors", "30056")


@dataclass(frozen=True)
class CompileResult:
    ok: bool
    diagnostics: str
    """Everything Slang printed (warnings included)."""

    @property
    def errors(self) -> str:
        """The error blocks of the diagnostics (warnings dropped), for assertion messages."""
        blocks = re.split(r"\n(?=(?:warning|error|note|internal error|fatal error)\b)", self.diagnostics)
        errors = [b.rstrip() for b in blocks if b.strip() and not b.startswith("warning")]
        return "\n".join(errors) or self.diagnostics.strip() or "(Slang printed nothing)"


def find_slang_library() -> Path | None:
    """The Slang compiler library: $HLSLLINT_SLANG_LIB (file or folder; when set, nothing else is
    tried), else the one in the slangpy package."""
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        if Path(explicit).is_file():
            return Path(explicit)
        folders = [Path(explicit)]
    else:
        try:
            spec = importlib.util.find_spec("slangpy")  # finds the package without importing it
        except (ImportError, ValueError):
            spec = None
        folders = [Path(p) for p in (spec.submodule_search_locations or [])] if spec is not None else []
    for folder in folders:
        for pattern in _LIBRARY_GLOBS:
            hits = sorted(p for p in folder.glob(pattern) if p.is_file())
            if hits:
                return hits[0]
    return None


class SlangCompiler:
    """One Slang global session; `compile` type-checks a source and emits SPIR-V for its entries."""

    def __init__(self, library: Path) -> None:
        self.library = library
        lib = ctypes.CDLL(str(library))
        vp, i32, cstr = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p

        def bind(name: str, restype: object, *argtypes: object) -> ctypes._CFuncPtr:
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = list(argtypes)
            return fn

        self._create_request = bind("spCreateCompileRequest", vp, vp)
        self._destroy_request = bind("spDestroyCompileRequest", None, vp)
        self._add_target = bind("spAddCodeGenTarget", i32, vp, i32)
        self._set_profile = bind("spSetTargetProfile", None, vp, i32, i32)
        self._options = bind("spProcessCommandLineArguments", i32, vp, ctypes.POINTER(cstr), i32)
        self._add_search_path = bind("spAddSearchPath", None, vp, cstr)
        self._add_define = bind("spAddPreprocessorDefine", None, vp, cstr, cstr)
        self._add_unit = bind("spAddTranslationUnit", i32, vp, i32, cstr)
        self._add_source = bind("spAddTranslationUnitSourceString", None, vp, i32, cstr, cstr)
        self._add_entry = bind("spAddEntryPoint", i32, vp, i32, cstr, i32)
        self._compile = bind("spCompile", i32, vp)
        self._diagnostics = bind("spGetDiagnosticOutput", cstr, vp)
        build_tag = bind("spGetBuildTagString", cstr)
        self._session = bind("spCreateSession", vp, cstr)(None)
        if not self._session:
            raise OSError(f"spCreateSession failed in {library}")
        self._profile = bind("spFindProfile", i32, vp, cstr)(self._session, _PROFILE)
        self.version = (build_tag() or b"?").decode(errors="replace")

    def compile(
        self,
        source: str,
        path: str,
        entries: Iterable[tuple[str, str]] = (),
        *,
        include_dirs: Sequence[str] = (),
        defines: dict[str, str] | None = None,
    ) -> CompileResult:
        """Compile `source` (named `path`, whose folder is searched for includes) as HLSL.

        `entries` are (function name, hlsllint stage name) pairs; each gets SPIR-V. Without
        entries, the source is only checked (every declaration is type-checked either way).
        """
        request = self._create_request(self._session)
        if not request:
            return CompileResult(False, "spCreateCompileRequest failed")
        try:
            target = self._add_target(request, _SPIRV)
            self._set_profile(request, target, self._profile)
            argv = (ctypes.c_char_p * len(_OPTIONS))(*[o.encode() for o in _OPTIONS])
            if self._options(request, argv, len(_OPTIONS)) < 0:
                return CompileResult(False, "Slang rejected the options " + " ".join(_OPTIONS))
            for folder in (str(Path(path).resolve().parent), *include_dirs):
                self._add_search_path(request, folder.encode())
            for name, value in (defines or {}).items():
                self._add_define(request, name.encode(), value.encode())
            unit = self._add_unit(request, _SOURCE_LANGUAGE_HLSL, None)
            self._add_source(request, unit, path.encode(), source.encode())
            for name, stage in entries:
                if stage not in STAGES:
                    return CompileResult(False, f"no Slang stage for `{stage}` (entry `{name}`)")
                self._add_entry(request, unit, name.encode(), STAGES[stage])
            status = self._compile(request)
            text = (self._diagnostics(request) or b"").decode(errors="replace")
            return CompileResult(status >= 0, text)
        finally:
            self._destroy_request(request)


@functools.cache
def _load() -> tuple[SlangCompiler | None, str]:
    library = find_slang_library()
    if library is None:
        where = f"{ENV_VAR}={os.environ[ENV_VAR]}" if os.environ.get(ENV_VAR) else "no slangpy package"
        return None, (
            f"Slang not found ({where}): install the test extras (`pip install '.[test]'`, slangpy) "
            f"on a platform with a slangpy wheel, or set {ENV_VAR} to libslang-compiler.so "
            f"(Python {sys.version_info.major}.{sys.version_info.minor}, {sys.platform})"
        )
    try:
        return SlangCompiler(library), ""
    except (OSError, AttributeError) as e:
        return None, f"Slang at {library} cannot be used: {e}"


def slang_compiler() -> SlangCompiler | None:
    """The process's one compiler (loaded on first use), or None when Slang is missing."""
    return _load()[0]


def slang_missing_reason() -> str:
    """Why `slang_compiler()` is None ('' when it is not)."""
    return _load()[1]
