"""Shader build settings read from the build: a compilation database or a file of command lines.

Engines compile one shader file several times (entry points, stages, defines). Each compiler
invocation found here becomes one analysed variant of its file: its defines, include folders,
16-bit types, the stage from the target profile (`cs_6_6` -> compute) and the entry point.

Two inputs are read:
- `compile_commands.json`: a list of `{"directory", "file", "command" | "arguments"}`;
- any other file: one command line per line (`#` comments, blank lines and lines that are not a
  shader compiler are skipped), relative paths against the file's folder.

Only dxc, fxc, slangc and glslangValidator invocations are used. DXC's predefined macros
(`__HLSL_VERSION`, `__SHADER_TARGET_STAGE`, `__SHADER_STAGE_*`, `__SHADER_TARGET_MAJOR/MINOR`,
`__DXC_VERSION_*`) are set for dxc entries as DXC sets them, so `#if` blocks pick the code the
real build compiles.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hlsllint.files import read_regular
from hlsllint.settings import stage_of_profile

COMPILERS = ("dxc", "fxc", "slangc", "glslangvalidator")

# DXIL::ShaderKind in DXC's DxilConstants.h: the values of the __SHADER_STAGE_* macros.
DXC_STAGE_VALUES = {
    "pixel": 0,
    "vertex": 1,
    "geometry": 2,
    "hull": 3,
    "domain": 4,
    "compute": 5,
    "library": 6,
    "mesh": 13,
    "amplification": 14,
}
DXC_VERSION = (1, 8, 2505, 0)
"""The DXC release whose `__DXC_VERSION_MAJOR/MINOR/RELEASE/COMMITS` are set (1.8.2505)."""
DEFAULT_HLSL_VERSION = 2021
"""DXC's default `-HV` since release 1.7.2212."""

SLANG_STAGES = {"fragment": "pixel", "task": "amplification"}
GLSLANG_STAGES = {
    "vert": "vertex",
    "frag": "pixel",
    "geom": "geometry",
    "tesc": "hull",
    "tese": "domain",
    "comp": "compute",
    "mesh": "mesh",
    "task": "amplification",
}

# Options that take a value in the next argument (so that value is not taken for the input file).
_VALUE_OPTIONS = frozenset(
    {
        "-fo",
        "-fh",
        "-fc",
        "-fd",
        "-fe",
        "-fre",
        "-frs",
        "-fsh",
        "-fi",
        "-vn",
        "-o",
        "-target",
        "-rootsig-define",
        "-external",
        "-external-fn",
        "-p",
        "-setrootsignature",
        "-extractrootsignature",
        "-verifyrootsignature",
        "-outputhash",
        "-exports",
        "-profile",
        "-entry",
        "-stage",
        "-capability",
        "-lang",
        "-e",
        "--entry-point",
        "--target-env",
        "--client",
        "--source-entrypoint",
        "--resource-set-binding",
        "--shift-sampler-binding",
    }
)


class BuildError(Exception):
    """A compilation database that cannot be read. The message names the file."""


@dataclass(frozen=True)
class BuildEntry:
    """One compiler invocation: a variant of `file`."""

    file: str
    compiler: str
    entry: str | None = None
    profile: str | None = None
    stage: str | None = None
    defines: tuple[tuple[str, str], ...] = ()
    include_dirs: tuple[str, ...] = ()
    enable_16bit_types: bool = False
    hlsl_version: int | None = None

    @property
    def name(self) -> str:
        """How findings name the variant: entry, profile, then the command's defines."""
        parts = [p for p in (self.entry, self.profile) if p]
        parts += [f"-D{k}" if v == "1" else f"-D{k}={v}" for k, v in self.defines]
        return " ".join(parts) or os.path.basename(self.file)

    def predefined(self) -> tuple[tuple[str, str], ...]:
        """The macros the compiler itself defines for this invocation (DXC's, for dxc)."""
        if self.compiler != "dxc":
            return ()
        out = [
            ("__hlsl_dx_compiler", "1"),
            ("__HLSL_VERSION", str(self.hlsl_version or DEFAULT_HLSL_VERSION)),
        ]
        major, minor, release, commits = DXC_VERSION
        out += [
            ("__DXC_VERSION_MAJOR", str(major)),
            ("__DXC_VERSION_MINOR", str(minor)),
            ("__DXC_VERSION_RELEASE", str(release)),
            ("__DXC_VERSION_COMMITS", str(commits)),
        ]
        out += [(f"__SHADER_STAGE_{s.upper()}", str(v)) for s, v in DXC_STAGE_VALUES.items()]
        if self.stage in DXC_STAGE_VALUES:
            out.append(("__SHADER_TARGET_STAGE", str(DXC_STAGE_VALUES[self.stage])))
        version = _profile_version(self.profile)
        if version is not None:
            out += [("__SHADER_TARGET_MAJOR", version[0]), ("__SHADER_TARGET_MINOR", version[1])]
        return tuple(out)


def _profile_version(profile: str | None) -> tuple[str, str] | None:
    parts = (profile or "").split("_")
    if len(parts) == 3 and parts[1].isdigit():
        minor = parts[2] if parts[2].isdigit() else "15"  # lib_6_x: DXC reads "x" as 15 (offline)
        return parts[1], minor
    return None


def compiler_of(program: str) -> str | None:
    name = os.path.basename(program.replace("\\", "/")).lower()
    name = name.removesuffix(".exe")
    return name if name in COMPILERS else None


def parse_command(
    argv: Sequence[str], directory: str, file: str | None = None, extensions: Sequence[str] = ()
) -> BuildEntry | None:
    """One compiler invocation, or None when `argv` is not a shader compiler we read."""
    if not argv:
        return None
    compiler = compiler_of(argv[0])
    if compiler is None:
        return None
    entry = profile = stage = None
    defines: list[tuple[str, str]] = []
    includes: list[str] = []
    sixteen = False
    hv: int | None = None
    inputs: list[str] = []
    args = list(argv[1:])
    i = 0

    def value() -> str | None:
        nonlocal i
        i += 1
        return args[i] if i < len(args) else None

    while i < len(args):
        a = args[i]
        flag = "-" + a[1:] if compiler == "fxc" and a.startswith("/") else a
        if flag in ("-T", "-profile") or (compiler == "fxc" and flag == "-t"):
            profile = value()
        elif flag.startswith("-T") and len(flag) > 2 and compiler in ("dxc", "fxc"):
            profile = flag[2:]
        elif flag in ("-E", "-entry", "--entry-point") or (compiler == "glslangvalidator" and flag == "-e"):
            entry = value()
        elif flag.startswith("-E") and len(flag) > 2 and compiler in ("dxc", "fxc"):
            entry = flag[2:]
        elif flag == "-D" and compiler != "glslangvalidator":
            d = value()
            if d:
                defines.append(_define(d))
        elif flag.startswith("-D") and len(flag) > 2:
            defines.append(_define(flag[2:]))
        elif flag == "-I":
            d = value()
            if d:
                includes.append(_path(d, directory))
        elif flag.startswith("-I") and len(flag) > 2:
            includes.append(_path(flag[2:], directory))
        elif a.lower() == "-enable-16bit-types":
            sixteen = True
        elif flag == "-HV":
            v = value()
            hv = int(v) if v and v.isdigit() else None
        elif flag == "-stage" or (compiler == "glslangvalidator" and flag == "-S"):
            s = (value() or "").lower()
            stage = GLSLANG_STAGES.get(s) or SLANG_STAGES.get(s) or s or None
        elif a.startswith(("-", "/")) and not (compiler != "fxc" and os.path.isabs(a)):
            if flag.lower() in _VALUE_OPTIONS:
                i += 1
        else:
            inputs.append(a)
        i += 1
    if file is None:
        shaders = [x for x in inputs if x.lower().endswith(tuple(extensions))] or inputs
        if not shaders:
            return None
        file = shaders[-1]
    if profile and stage is None:
        stage = stage_of_profile(profile)
    return BuildEntry(
        file=_path(file, directory),
        compiler=compiler,
        entry=entry,
        profile=profile,
        stage=stage,
        defines=tuple(defines),
        include_dirs=tuple(includes),
        enable_16bit_types=sixteen,
        hlsl_version=hv,
    )


def split_command(line: str) -> list[str]:
    """Split a command line as a shell would; Windows lines (backslash paths) keep backslashes."""
    if "\\" not in line:
        return shlex.split(line, posix=True)
    lexer = shlex.shlex(line, posix=False)
    lexer.whitespace_split = True
    return [t[1:-1] if len(t) > 1 and t[0] == t[-1] and t[0] in "\"'" else t for t in lexer]


def _define(text: str) -> tuple[str, str]:
    name, eq, val = text.partition("=")
    return (name.strip(), val if eq else "1")


def _path(p: str, directory: str) -> str:
    return os.path.normpath(os.path.join(directory, p))


def load_build_entries(
    path: str, extensions: Sequence[str] = (".hlsl", ".hlsli", ".fx", ".fxh")
) -> list[BuildEntry]:
    """The shader compiler invocations in a compilation database or a file of command lines."""
    try:
        text = read_regular(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BuildError(f"{path}: cannot read: {e}") from e
    base = os.path.dirname(os.path.abspath(path))
    if text.lstrip().startswith("["):
        return list(_from_json(path, text, base, extensions))
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith(("#", "//", "rem ", "REM ")):
            continue
        try:
            argv = split_command(line)
        except ValueError as e:
            raise BuildError(f"{path}:{n}: cannot split the command line: {e}") from e
        entry = parse_command(argv, base, None, extensions)
        if entry is not None:
            out.append(entry)
    return out


def _from_json(path: str, text: str, base: str, extensions: Sequence[str]) -> Iterator[BuildEntry]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise BuildError(f"{path}: invalid JSON: {e}") from e
    if not isinstance(data, list):
        raise BuildError(f"{path}: a compilation database is a JSON list of entries")
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            raise BuildError(f"{path}: entry {i} is not an object")
        directory = _path(str(item.get("directory", ".")), base)
        if isinstance(item.get("arguments"), list):
            argv = [str(a) for a in item["arguments"]]
        elif isinstance(item.get("command"), str):
            try:
                argv = split_command(item["command"])
            except ValueError as e:
                raise BuildError(f"{path}: entry {i}: cannot split the command: {e}") from e
        else:
            raise BuildError(f"{path}: entry {i} has neither `command` nor `arguments`")
        file = item.get("file")
        entry = parse_command(argv, directory, str(file) if isinstance(file, str) else None, extensions)
        if entry is not None:
            yield entry
