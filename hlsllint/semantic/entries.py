"""Which functions of a unit are entry points, and of which stage: from the build's `-E`, the
functions' attributes and signatures (semantics), the config's names, or names that entry points
have. Reads the unit's `Function`s only."""

from __future__ import annotations

import re

from hlsllint.semantic import types as T
from hlsllint.semantic.symbols import EntryPoint, Function
from hlsllint.settings import AnalysisSettings, stage_of_profile


def find_entry_points(
    functions: dict[str, list[Function]],
    settings: AnalysisSettings,
    techniques: dict[str, str] | None = None,
) -> list[EntryPoint]:
    """Entry points, most certain evidence first (never a function the unit calls, unless an
    attribute says it is one):

    1. the build's `-E` (`settings.entry`): that function only;
    2. in an effect file whose techniques compile functions of the unit (`techniques`, from
       `technique_stages`): those functions, at the stage of their profile, and no other
       (an effect compiler builds what its passes name);
    3. `[numthreads]`, `[shader("...")]` or a stage attribute, a semantic on the return (or an
       output's `SV_Target`/`SV_Position`), an `SV_` input (`stage_of`);
    4. the config's `entry-points` names;
    5. when 3 and 4 find nothing: names that entry points have (`main`, `*Main`, `VS`, ...).
    """
    wanted = settings.entry
    if wanted is not None and functions.get(wanted):
        f = functions[wanted][-1]
        found = settings.stage or _stage_of(f) or stage_from_name(f.name) or "compute"
        return [EntryPoint(f, found, _group_size(f))]
    called: set[str] = set()
    for overloads in functions.values():
        for f in overloads:
            called |= f.calls - {f.name}
    listed = set(settings.entry_points)
    chosen: dict[int, EntryPoint] = {}
    compiled = {name: stage for name, stage in (techniques or {}).items() if functions.get(name)}
    for name, profile_stage in compiled.items():
        f = functions[name][-1]
        chosen[id(f)] = EntryPoint(f, profile_stage, _group_size(f))
    for overloads in functions.values() if not compiled else ():
        for f in overloads:
            if f.body is None or f.owner is not None:  # a struct's method is no entry point
                continue
            stage = _stage_of(f)
            if stage is None:
                continue
            explicit = f.attribute("shader") or f.attribute("numthreads")
            if f.name in called and explicit is None:
                continue
            chosen[id(f)] = EntryPoint(f, stage, _group_size(f))
    for name in sorted(listed):
        for f in functions.get(name, ()):
            if f.body is not None and id(f) not in chosen:
                stage = _stage_of(f) or stage_from_name(f.name) or "unknown"
                chosen[id(f)] = EntryPoint(f, stage, _group_size(f))
    if not chosen:
        for overloads in functions.values():
            for f in overloads:
                if f.body is None or f.name in called or f.owner is not None:
                    continue
                if not looks_like_entry_name(f.name):
                    continue
                if not _entry_signature(f):
                    continue
                stage = stage_from_name(f.name) or "unknown"
                chosen[id(f)] = EntryPoint(f, stage, _group_size(f))
    return sorted(chosen.values(), key=lambda e: e.function.node.start_byte)


_COMPILE = re.compile(
    r"\bcompile\s+([A-Za-z]+_\w+)\s+([A-Za-z_]\w*)\s*\(|\bCompileShader\s*\(\s*([A-Za-z]+_\w+)\s*,\s*([A-Za-z_]\w*)\s*\("
)
"""A pass's shader: `VertexShader = compile vs_2_0 VS();` (D3D9) or
`SetPixelShader(CompileShader(ps_5_0, PS()));` (D3D10/11 effects)."""


def technique_stages(text: str, spans: list[tuple[int, int]]) -> dict[str, str]:
    """The functions that an effect file's technique passes compile, with the stage of the
    profile each is compiled for (`ps_2_0` -> pixel), read from the effect blocks' `spans` of
    `text` (the parser sees them blanked)."""
    found: dict[str, str] = {}
    for start, end in spans:
        for m in _COMPILE.finditer(text, start, end):
            profile, name = (m.group(1), m.group(2)) if m.group(2) else (m.group(3), m.group(4))
            stage = stage_of_profile(profile)
            if stage is not None:
                found.setdefault(name, stage)
    return found


GROUP_DIMS = (1024, 1024, 64)
"""The largest `[numthreads]` per dimension (D3D12), and in all:"""
GROUP_THREADS = 1024


def _group_size(f: Function) -> tuple[int, int, int] | None:
    """`[numthreads(x, y, z)]`; None (unknown) when missing, when an argument did not evaluate
    to a number (never one thread: `analysis.blind` says the estimate misses it) or when not a
    size the API accepts (HL109 reports those): the analyses do not count waves of a group that
    cannot run."""
    nt = f.attribute("numthreads")
    if nt is None:
        return None
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in nt.args[:3]):
        return None
    dims = [int(a) for a in nt.args[:3]]
    dims += [1] * (3 - len(dims))
    valid = all(0 < d <= most for d, most in zip(dims, GROUP_DIMS, strict=True))
    if not valid or dims[0] * dims[1] * dims[2] > GROUP_THREADS:
        return None
    return (dims[0], dims[1], dims[2])


def _outputs(f: Function) -> list[str]:
    """Semantics of what the function writes: its result and out/inout parameters."""
    sems = _semantics_of(f.return_type, f.return_semantic)
    for p in f.params:
        if p.direction in ("out", "inout"):
            sems += _semantics_of(p.type, p.semantic)
    return sems


def _entry_signature(f: Function) -> bool:
    """Whether the signature can be an entry point's: a result that is void, a struct or
    labelled with a semantic, and no parameter without a semantic (bar `uniform` ones, structs
    and the stage objects of geometry, hull and mesh shaders)."""
    if f.return_type.kind in ("scalar", "vector", "matrix", "array") and not f.return_semantic:
        return False
    for p in f.params:
        if p.semantic or "uniform" in p.qualifiers or p.qualifiers & _STAGE_PARAM_QUALIFIERS:
            continue
        if p.type.kind in ("struct", "unknown", "resource"):
            continue
        return False
    return True


def _inputs(f: Function) -> list[str]:
    """Semantics of what the function reads: its in/inout parameters."""
    sems: list[str] = []
    for p in f.params:
        if p.direction in ("in", "inout"):
            sems += _semantics_of(p.type, p.semantic)
    return sems


def _stage_of(f: Function) -> str | None:
    """The stage that a function's attributes or signature show, None for a plain function."""
    sh = f.attribute("shader")
    if sh is not None and sh.args and isinstance(sh.args[0], str):
        return sh.args[0].lower()
    quals: set[str] = set()
    for p in f.params:
        quals |= p.qualifiers
    if f.attribute("numthreads") is not None:
        if f.attribute("outputtopology") is not None or quals & {"vertices", "indices"}:
            return "mesh"
        if "DispatchMesh" in f.calls:
            return "amplification"
        return "compute"
    if f.attribute("maxvertexcount") is not None:
        return "geometry"
    if f.attribute("patchconstantfunc") is not None or f.attribute("outputcontrolpoints"):
        return "hull"
    if f.attribute("domain") is not None:
        return "domain"
    # Without an attribute, only a signature the compilers accept for an entry point: DXC and
    # FXC reject an entry whose parameter has no semantic ("Semantic must be defined for all
    # parameters of an entry function"), so a helper returning a struct that holds
    # `SV_Position` (`transform(vertex, float3 position)`) is not a vertex shader.
    if not _entry_signature(f):
        return None
    outs = _outputs(f)
    if any(s.startswith(("SV_TARGET", "SV_DEPTH", "SV_COVERAGE")) for s in outs):
        return "pixel"
    if any(s == "SV_POSITION" for s in outs):
        return "vertex"
    # Shader model 3 style outputs, still accepted by DXC/FXC: a vertex shader writes
    # POSITION; a pixel shader writes only COLORn/DEPTH.
    if any(s.startswith("POSITION") for s in outs):
        return "vertex"
    if outs and all(s.startswith(("COLOR", "DEPTH")) for s in outs):
        return "pixel"
    # An input only the pipeline provides.
    for sem in _inputs(f):
        stage = _SV_INPUT_STAGES.get(sem)
        if stage is not None:
            return stage
    if f.return_semantic:
        return stage_from_name(f.name) or "vertex"
    return None


_STAGE_PARAM_QUALIFIERS = frozenset(
    {"point", "line", "triangle", "lineadj", "triangleadj", "vertices", "indices", "primitives", "payload"}
)

_SV_INPUT_STAGES: dict[str, str] = {
    "SV_DISPATCHTHREADID": "compute",
    "SV_GROUPID": "compute",
    "SV_GROUPTHREADID": "compute",
    "SV_GROUPINDEX": "compute",
    "SV_VERTEXID": "vertex",
    "SV_INSTANCEID": "vertex",
    "SV_POSITION": "pixel",
    "SV_ISFRONTFACE": "pixel",
    "SV_SAMPLEINDEX": "pixel",
    "SV_BARYCENTRICS": "pixel",
    "SV_COVERAGE": "pixel",
    "SV_INNERCOVERAGE": "pixel",
    "SV_DOMAINLOCATION": "domain",
    "SV_OUTPUTCONTROLPOINTID": "hull",
    "SV_GSINSTANCEID": "geometry",
}
"""`SV_` inputs that only one stage receives (SV_Position as an input is the pixel's position)."""

_NAME_STAGES: tuple[tuple[str, str], ...] = (
    ("cs", "compute"),
    ("ps", "pixel"),
    ("fs", "pixel"),
    ("frag", "pixel"),
    ("vs", "vertex"),
    ("vert", "vertex"),
    ("gs", "geometry"),
    ("hs", "hull"),
    ("ds", "domain"),
    ("ms", "mesh"),
    ("as", "amplification"),
)


def _name_words(name: str) -> list[str]:
    """`GBufferPS` -> [g, buffer, ps]; `main_vs` -> [main, vs]; `VSMain` -> [vs, main]."""
    words: list[str] = []
    for part in re.split(r"[_\d]+", name):
        words += [w.lower() for w in re.findall(r"[A-Z]+(?=[A-Z][a-z]|$)|[A-Z]?[a-z]+|[A-Z]+", part)]
    return words


def stage_from_name(name: str) -> str | None:
    """The stage an entry point's name announces: its last word (`GBufferPS`, `main_vs`,
    `ShadeCausticsPixel`), or its first before `main` (`PSMain`, `vs_main`), or all of it (`CS`)."""
    words = _name_words(name)
    if not words:
        return None
    candidates = [words[-1]] if words[-1] != "as" or len(words) == 1 else []
    if len(words) == 1 or words[1:] == ["main"]:
        candidates.append(words[0])
    for w in candidates:
        for tag, stage in _NAME_STAGES:
            if w == tag:
                return stage
    return None


def looks_like_entry_name(name: str) -> bool:
    """`main`, `*Main`/`*_main`, `Main*`, or a name that announces a stage (`VS`, `GBufferPS`)."""
    words = _name_words(name)
    if not words:
        return False
    if words[-1] == "main" or words[0] == "main":
        return True
    return stage_from_name(name) is not None


def _semantics_of(t: T.Type, sem: str | None) -> list[str]:
    """The semantics (upper case) of a value and, for a struct, of its members, nested."""
    found = [sem.upper()] if sem else []
    if t.kind == "struct":
        for m in t.members:
            found += _semantics_of(m.type, m.semantic)
    return found
