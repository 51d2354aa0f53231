"""How much of real shaders the front end sees: calls resolved, attribute arguments evaluated,
loop bounds folded and entry points whose register estimate is complete, per repository.

    python bench/coverage.py /work/corpus                 # every repository folder under it
    python bench/coverage.py /work/corpus-new --top 15    # and the 15 most frequent unresolved names
    python bench/coverage.py --repos /work/corpus/FidelityFX-SDK  # one repository

No compiler is needed. Each file is one translation unit (preprocessed, parsed, modelled, each entry
point lowered), as `hlsllint pressure` sees it without a config: `#include`s resolve next to the
including file and, with `--auto-includes` (the default), in the repository's folders that make an
include found nowhere else resolve (an engine's shader root); `--no-auto-includes` turns that off.

Per repository (folders named `tests-*` are compiler test suites, totalled apart):
- calls: call sites in the functions the entry points reach, constructors and casts aside; a call
  is resolved unless `analysis.blind` counts it (a call or an intrinsic the estimate cannot see).
  A call of a plain name (not a method) left unresolved whose callee the unit's sources do not
  define is counted apart, as "callee absent from the sources", and out of the share: no file of
  the repository defines a function of that name (a header the repository does not hold), or
  only files the unit does not include define it (it cannot compile without them either), or the
  unit's files define it only under an `#if` branch not taken (the preprocessed text holds no
  definition); a method of an object the unit does not declare at all likewise (a method of an
  object it declares, a `Struct::f`, an intrinsic, a name the model knows or one the
  preprocessed text defines stays a miss);
- numthreads: entry points with `[numthreads]` whose three arguments all evaluated to numbers,
  out of those whose arguments name no constant that no file of the repository defines (those
  are counted apart: "+N absent");
  attribute arguments: every argument of the numeric attributes of entry points (`numthreads`,
  `maxvertexcount`, `outputcontrolpoints`, `maxtessfactor`, `WaveSize`);
- loops: `for` loops the entry points reach with a constant trip count in every inlined copy
  the lowering made (the trip count HL106 and the estimate use), out of those the compiler
  folds (`LoopBounds`): a counted loop whose start and bound name no constant-buffer member,
  resource, groupshared or global variable, stage input, call or loaded value, no local set
  at run time (no initializer, written again: an enclosing loop's counter) and no constant
  the unit does not define; a helper's parameter is followed to every call site's argument;
  a counter written in the body or scaled (`j /= 2`: the compiler keeps the loop) is not
  foldable either (each reason is counted, `--top`, and in `--detail`);
- complete: entry points whose estimate is complete (`blind_spots(...).complete`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from parse_coverage import shader_files

from hlsllint.analysis.blind import blind_spots
from hlsllint.analysis.occupancy import reachable_functions
from hlsllint.analysis.unit import analyze
from hlsllint.config import Settings
from hlsllint.deadline import Deadline, Stop, active
from hlsllint.includers import direct_includes, translation_units
from hlsllint.lint import FileLoader, analysis_settings, front_end
from hlsllint.semantic import Model, build_model
from hlsllint.semantic.intrinsics import NOT_CALLS
from hlsllint.semantic.loops import is_var, loop_header, trip_count
from hlsllint.semantic.symbols import Function
from hlsllint.source import SourceError
from hlsllint.syntax import Node
from hlsllint.syntax.queries import is_written

NUMERIC_ATTRIBUTES = ("numthreads", "maxvertexcount", "outputcontrolpoints", "maxtessfactor", "wavesize")
RUNTIME_KINDS = frozenset({"cbuffer_member", "resource", "groupshared", "static"})
EXTRA_EXTS = (".shader",)
"""FlaxEngine's `.shader` files are HLSL."""
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)
SOURCE_EXTS = (".hlsl", ".hlsli", ".h", ".fx", ".fxh", ".ush", ".usf", ".inc", ".shader", ".slang")
"""Files searched for a callee's definition (`Sources.defines`)."""


class Sources:
    """The text of a repository's shader and header files, to tell a callee the front end missed
    from one the unit's sources do not define (a header the repository does not hold, a
    definition only under an `#if` branch not taken)."""

    def __init__(self, root: str) -> None:
        self.texts: dict[str, str] = {}
        for d, _s, names in os.walk(root):
            for n in names:
                if n.lower().endswith(SOURCE_EXTS) or "." not in n:
                    path = os.path.join(d, n)
                    try:
                        self.texts[path] = Path(path).read_text(encoding="utf-8", errors="replace")
                    except OSError:
                        continue
        self._defs: dict[str, frozenset[str]] = {}

    def _files_matching(self, key: str, name: str, rx: Callable[[str], re.Pattern[str]]) -> frozenset[str]:
        """The files whose text `rx(name)` matches, found once per `key`."""
        found = self._defs.get(key)
        if found is None:
            pattern = rx(name)
            found = frozenset(p for p, t in self.texts.items() if name in t and pattern.search(t))
            self._defs[key] = found
        return found

    def defines(self, name: str) -> frozenset[str]:
        """The files with a definition of a function or method `name` (a body after the
        parameter list, `: SEMANTIC` or `const` allowed between)."""
        return self._files_matching(name, name, _definition)

    def declares(self, name: str) -> frozenset[str]:
        """The files with a declaration of a variable `name` (`RWByteAddressBuffer name :
        register(u0);`, `Texture2D name[]`, a parameter)."""
        return self._files_matching("var " + name, name, _declaration)

    def defines_constant(self, name: str) -> bool:
        """Whether some file defines a constant `name` (`#define NAME`, `NAME = ...` in a
        `static const`, an enum or a C++ header)."""
        key = "const " + name
        found = self._defs.get(key)
        if found is None:
            rx = re.compile(r"#\s*define\s+" + re.escape(name) + r"\b|\b" + re.escape(name) + r"\s*=(?!=)")
            found = frozenset(p for p, t in self.texts.items() if name in t and rx.search(t))
            self._defs[key] = found
        return bool(found)

    def defines_scope(self, name: str) -> bool:
        """Whether some file declares a namespace, struct, class or enum `name`."""
        key = "scope " + name
        found = self._defs.get(key)
        if found is None:
            rx = re.compile(r"\b(?:namespace|struct|class|enum)\s+" + re.escape(name) + r"\b")
            found = frozenset(p for p, t in self.texts.items() if name in t and rx.search(t))
            self._defs[key] = found
        return bool(found)

    def declares_in(self, name: str, text: str) -> bool:
        return name in text and _declaration(name).search(text) is not None

    def defines_in(self, name: str, text: str) -> bool:
        """Whether `text` (a preprocessed unit) holds a definition of `name`."""
        return name in text and _definition(name).search(text) is not None


_ROOT = re.compile(r"[A-Za-z_]\w*")


def _declaration(name: str) -> re.Pattern[str]:
    return re.compile(
        r"\b[A-Za-z_][\w:]*(?:\s*<[^;{}()]*>)?\s+" + re.escape(name) + r"\s*(?:\[[^\]]*\]\s*)*(?:[:;=,)]|$)",
        re.M,
    )


def _definition(name: str) -> re.Pattern[str]:
    return re.compile(
        r"\b" + re.escape(name) + r"\s*\((?:[^()]|\([^()]*\))*\)\s*(?:const\s*)?(?::\s*\w+\s*)?\{"
    )


_CONSTANT_NAME = re.compile(r"[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*")


def constant_absent(sources: Sources, attribute: str) -> str:
    """Why an attribute argument that did not evaluate (`numthreads(THREAD_GROUP_WIDTH)`) is
    absent from the sources: it names a constant no file of the repository defines (a `-D` of
    the build, a header the repository does not hold), or "" (a miss of the front end)."""
    if "(not read)" in attribute:
        return ""  # the attribute is there: the front end lost it
    arg = attribute.partition("(")[2].rpartition(")")[0]
    for name in _CONSTANT_NAME.findall(arg):
        parts = [p.strip() for p in name.split("::")]
        if parts[-1] in _TYPE_WORDS:
            continue
        if not sources.defines_constant(parts[-1]):
            return "constant not defined in the repository"
        if len(parts) > 1 and not sources.defines_scope(parts[0]):
            return "scope not defined in the repository"  # `Params::Group::Width` of a header not held
    return ""


NOT_ABSENT = frozenset({"vector", "matrix"})
"""Names called that no source defines but the language does."""

_TYPE_WORDS = frozenset(
    ["int", "uint", "float", "half", "bool", "double", "min16int", "min16uint", "min16float", "true", "false"]
)


def callee_absent(sources: Sources, name: str, unit_files: set[str], known: set[str], text: str) -> str:
    """Why a call the estimate cannot see is absent from the unit's sources, or "" when the
    front end missed a callee the unit defines (a real miss: counts against the bar). A method
    (`obj.f`) is absent only when the unit declares no `obj` at all (`outputBVH` of a header
    the repository does not hold); `S::f` and a method of an object the unit declares stay
    misses."""
    base = name
    if "." in name:
        root = _ROOT.match(name)
        if root is None or root.group(0) in known or sources.declares_in(root.group(0), text):
            return ""  # the object is declared: its type is what the front end missed
        found = sources.declares(root.group(0))
        if not found:
            return "object not declared in the repository"
        return "" if found & unit_files else "object declared only in files the unit does not include"
    if not base.isidentifier() or base in known or base in NOT_ABSENT or base.startswith("__builtin"):
        return ""  # a compiler's builtin or a template constructor (`vector<float, N>(...)`)
    defs = sources.defines(base)
    if not defs:
        return "not defined in the repository"
    if defs & unit_files:
        if sources.defines_in(base, text):
            return ""  # the preprocessed unit defines it: the front end missed it
        return "defined only under an #if branch not taken"
    return "defined only in files the unit does not include"


@dataclass
class Stats:
    files: int = 0
    units_failed: int = 0
    entries: int = 0
    complete: int = 0
    calls: int = 0
    resolved: int = 0
    numthreads: int = 0
    numthreads_evaluated: int = 0
    numthreads_absent: int = 0
    """`[numthreads]` not evaluated that name a constant no file of the repository defines."""
    attr_args: int = 0
    attr_evaluated: int = 0
    loops: int = 0
    foldable: int = 0
    folded: int = 0
    loops_not_foldable: Counter[str] = field(default_factory=Counter)
    """Loops whose bound is not run-time but that the compiler does not fold, by reason."""
    absent: int = 0
    """Unresolved calls whose callee the unit's sources do not define (`callee_absent`)."""
    unresolved: Counter[str] = field(default_factory=Counter)
    absent_names: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def add(self, other: Stats) -> None:
        for k, v in vars(other).items():
            if isinstance(v, Counter):
                getattr(self, k).update(v)
            else:
                setattr(self, k, getattr(self, k) + v)


def repo_files(root: str) -> list[str]:
    files = set(shader_files(root))
    for dirpath, _dirs, names in os.walk(root):
        files.update(os.path.join(dirpath, n) for n in names if n.lower().endswith(EXTRA_EXTS))
    return sorted(files)


def auto_include_dirs(root: str, files: list[str]) -> tuple[str, ...]:
    """Folders of the repository that make an `#include` found nowhere else resolve: for an
    include `a/b.hlsli` not next to its includer, the folder `D` of every `D/a/b.hlsli`."""
    by_suffix: dict[str, list[str]] = {}
    every = [os.path.join(d, n) for d, _s, names in os.walk(root) for n in names]
    for f in every:
        parts = Path(f).parts
        for i in range(len(parts)):
            by_suffix.setdefault("/".join(parts[i:]).lower(), []).append(f)
    dirs: Counter[str] = Counter()
    for f in files:
        try:
            text = Path(f).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for inc in _INCLUDE.findall(text):
            inc = inc.replace("\\", "/").lstrip("./")
            if os.path.exists(os.path.join(os.path.dirname(f), inc)):
                continue
            for hit in by_suffix.get(inc.lower(), ()):
                depth = len(Path(inc).parts)
                dirs[str(Path(hit).parents[depth - 1])] += 1
    return tuple(d for d, _ in dirs.most_common(32))


def lint_units(files: list[str], dirs: tuple[str, ...]) -> list[str]:
    """The files `hlsllint check` on the repository lints as units: those no other file of it
    includes (and those reached only through include cycles). A header is measured through its
    includers, in the state they give it: alone, it lacks their macros (a `[numthreads(GROUP_X, ...)]`
    whose GROUP_X each includer defines) and its entry points would count twice."""
    loader = FileLoader()
    files = [os.path.normpath(f) for f in files]
    includes = {
        f: {os.path.normpath(t) for t in direct_includes(f, dirs, loader) if t is not None} for f in files
    }
    return translation_units(files, includes)


def _is_constructor(model: Model, call: Node) -> bool:
    fn = call.child_by_field_name("function")
    if fn is None:
        return False
    if fn.type == "primitive_type":
        return True
    if fn.type == "parenthesized_expression":  # `(uint)(a + b)`: a cast
        t = model.lookup_type(model.tree.node_text(fn).strip("() \t"))
        return t.is_numeric or t.kind == "struct"
    if model.tree.node_text(fn) in NOT_CALLS:
        return True
    if fn.type in ("type_identifier", "identifier"):
        t = model.lookup_type(model.tree.node_text(fn))
        return t.is_numeric or t.kind == "struct"
    return False


RUNTIME = "run time"
"""`LoopBounds.why`'s answer for a bound that names a value only known at run time."""
SCALING_UPDATES = ("*=", "/=", "<<=", ">>=")


class LoopBounds:
    """Why a `for` loop of an entry point's path is not one the compiler folds (`why`): its
    start or bound names a value known only at run time (a constant-buffer member, resource,
    global, stage input, a call's result, a helper's parameter passed one of these at some call
    site), a local set at run time (no initializer, or written again: an enclosing loop's
    counter), a constant the unit does not define (a `-D` of the build, a header not held); or
    its counter is written in the body, or scaled (`j /= 2`, `k <<= 1`: regtruth, RADV/ACO,
    keeps such a loop even under `[unroll]`, `tests/test_semantic_loops.py`)."""

    def __init__(self, model: Model, entry_params: set[int], reached: list[Function]) -> None:
        self.model = model
        self.entry_params = entry_params
        self.param_of: dict[int, tuple[Function, int]] = {}
        self.sites: dict[int, list[Node]] = {}
        for f in reached:
            if not f.params or id(f.params[0]) in entry_params:
                continue
            for i, p in enumerate(f.params):
                self.param_of[id(p)] = (f, i)
        for f in reached:
            if f.body is None:
                continue
            for n in model.tree.walk(f.body):
                if n.type == "call_expression":
                    callee = model.callee(n)
                    if callee is not None:
                        self.sites.setdefault(id(callee), []).append(n)

    def why(self, loop: Node) -> str:
        """ "" for a loop the compiler folds, else the reason it does not (`RUNTIME` for a bound
        known only at run time)."""
        model = self.model
        header = loop_header(model, loop)
        if header is None:
            return "not a counted loop"
        for part in (header.bound, header.start, header.amount):
            found = self.value(part, 0)
            if found:
                return found
        how = model.tree.node_text(header.update.child_by_field_name("operator") or header.update)
        if header.amount is not None and how in SCALING_UPDATES:
            return "counter scaled (the compiler keeps the loop)"
        body = loop.child_by_field_name("body")
        if body is not None and any(
            is_var(model, n, header.counter) and is_written(model.tree, n) for n in model.tree.walk(body)
        ):
            return "counter written in the body"
        return ""

    def value(self, node: Node | None, depth: int) -> str:
        """ "" when the expression is a compile-time constant to the compiler, else why not."""
        model = self.model
        if node is None or depth > 6 or model.const_value(node) is not None:
            return ""
        for n in model.tree.walk(node):
            if n.type == "call_expression" and not _is_constructor(model, n):
                return RUNTIME
            if n.type == "qualified_identifier" and model.const_value(n) is None:
                name = "".join(model.tree.node_text(n).split())
                if model.static_member(name) is None and name.rpartition("::")[2] not in model.globals:
                    return "names a constant the unit does not define"  # `Kernel::Width` of a header not held
            if n.type != "identifier" or model.const_value(n) is not None:
                continue
            sym = model.resolve(n)
            if sym is None:
                if model.tree.node_text(n) in model.globals or n.parent is None:
                    continue
                if n.parent.type in ("field_expression", "qualified_identifier"):
                    continue  # a member's name: its object decides
                return "names a constant the unit does not define"
            if sym.kind in RUNTIME_KINDS or id(sym) in self.entry_params:
                return RUNTIME
            if sym.kind == "local":
                if sym.init is None or model.const_value(sym.init) is not None:
                    return "names a local set at run time"  # no initializer, or written again
                found = self.value(sym.init, depth + 1)
                if found:
                    return found
            at = self.param_of.get(id(sym))
            if at is not None:
                fn, i = at
                for call in self.sites.get(id(fn), []):
                    args = call.child_by_field_name("arguments")
                    operands = [] if args is None else [a for a in args.named_children if a.type != "comment"]
                    found = self.value(operands[i], depth + 1) if i < len(operands) else ""
                    if found:
                        return found
        return ""


def measure_unit(
    path: str,
    settings: Settings,
    st: Stats,
    seconds: float,
    sources: Sources | None = None,
    detail: list[dict[str, object]] | None = None,
) -> None:
    loader = FileLoader()
    main = loader(path)
    with active(Deadline(seconds)):
        pp, tree = front_end(main, settings, None, loader)
        model = build_model(tree, analysis_settings(settings, None))
        calls_seen: set[tuple[int, int]] = set()
        blind_calls: dict[tuple[int, int], str] = {}
        loops_seen: set[tuple[int, int]] = set()
        loops: dict[tuple[int, int], tuple[Node, str, str]] = {}
        """Loops not bounded at run time: (node, function, why it is not foldable or "")."""
        trips: dict[tuple[int, int], list[int | None]] = {}
        """The trip count of each inlined copy of a loop the lowerings made."""
        for ep in model.entry_points:
            st.entries += 1
            found = blind_spots(model, ep)
            if found.complete:
                st.complete += 1
            for b in found.spots:
                if b.kind in ("call", "intrinsic"):
                    blind_calls.setdefault(b.span, (b.kind, b.name))
                elif b.kind == "attribute":
                    why = constant_absent(sources, b.name) if sources is not None else ""
                    if b.name == "numthreads (not read)" and "numthreads" not in tree.text:
                        why = "no [numthreads] in the source"
                    (st.absent_names if why else st.unresolved)[f"[{b.name}]"] += 1
                    if detail is not None:
                        detail.append(
                            {"file": path, "kind": b.kind, "name": b.name, "entry": ep.name, "absent": why}
                        )
            if ep.stage == "compute" and ep.function.attribute("numthreads") is None:
                st.numthreads += 1  # a compute shader has one: the front end did not read it ...
                # ... unless the source has none at all (glslang's tests lean on its 1x1x1 default)
                st.numthreads_absent += "numthreads" not in tree.text
            for attr in ep.function.attributes:
                low = attr.name.lower()
                if low not in NUMERIC_ATTRIBUTES:
                    continue
                ok = [isinstance(a, int | float) and not isinstance(a, bool) for a in attr.args]
                st.attr_args += len(ok)
                st.attr_evaluated += sum(ok)
                if low == "numthreads":
                    st.numthreads += 1
                    st.numthreads_evaluated += len(ok) == 3 and all(ok)
                    if sources is not None and not (len(ok) == 3 and all(ok)):
                        texts = [a for a in attr.args if isinstance(a, str)]
                        st.numthreads_absent += any(
                            constant_absent(sources, f"numthreads({a})") for a in texts
                        )
            params = {id(p) for p in ep.function.params}
            reached = reachable_functions(model, ep)
            bounds = LoopBounds(model, params, reached)
            ea = analyze(model).entry(ep.name)
            for rec in ea.cfg.loops if ea is not None else []:
                trips.setdefault(rec.span, []).append(rec.trip_count)
            for fn in reached:
                if fn.body is None:
                    continue
                for n in tree.walk(fn.body):
                    if n.type == "call_expression":
                        span = tree.span(n)
                        if span not in calls_seen and not _is_constructor(model, n):
                            calls_seen.add(span)
                    elif n.type == "for_statement":
                        span = tree.span(n)
                        if span in loops_seen:
                            continue
                        loops_seen.add(span)
                        st.loops += 1
                        why = bounds.why(n)
                        if why != RUNTIME:
                            loops[span] = (n, fn.name, why)
        for span, (n, fname, why) in loops.items():
            if not why:
                st.foldable += 1
                copies = trips.get(span)
                # every inlined copy the lowering made has a constant trip count (none: dead
                # code or a lowering cut short, the model's answer)
                folded = all(t is not None for t in copies) if copies else trip_count(model, n) is not None
                st.folded += folded
                if folded:
                    continue
                why = "not folded"
            else:
                st.loops_not_foldable[why] += 1
            if detail is not None:
                at = tree.text[span[0] : span[0] + 160].split("{")[0].split("\n")[0]
                detail.append({"file": path, "kind": "loop", "fn": fname, "why": why, "text": at})
        calls_seen |= set(blind_calls)
        st.calls += len(calls_seen)
        st.resolved += len(calls_seen) - len(blind_calls)
        unit_files = {os.path.normpath(p) for p in (path, *pp.included)}
        known = set(model.functions) | set(model.globals)
        for span, (kind, name) in blind_calls.items():
            why = ""
            if sources is not None and (kind == "call" or "." in name):  # not an intrinsic
                why = callee_absent(sources, name, unit_files, known, tree.text)
            if why:
                st.absent += 1
                st.absent_names[name] += 1
            else:
                st.unresolved[name] += 1
            if detail is not None:
                at = tree.text[span[0] : span[0] + 100].split("\n")[0]
                detail.append({"file": path, "kind": kind, "name": name, "absent": why, "text": at})


def measure_repo(
    root: str, auto_includes: bool, seconds: float, detail: list[dict[str, object]] | None = None
) -> Stats:
    st = Stats()
    files = repo_files(root)
    sources = Sources(root)
    dirs = auto_include_dirs(root, files) if auto_includes else ()
    settings = Settings(include_dirs=dirs)
    t0 = time.perf_counter()
    st.files = len(files)
    for path in lint_units(files, dirs):
        try:
            measure_unit(path, settings, st, seconds, sources, detail)
        except (SourceError, Stop, RecursionError):
            st.units_failed += 1
        except Exception as e:  # a crash is a finding of its own: say it, go on
            st.units_failed += 1
            print(f"{path}: {e!r}", file=sys.stderr)
    st.seconds = time.perf_counter() - t0
    return st


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f}% ({n:,}/{d:,})" if d else "–"


def row(name: str, st: Stats) -> str:
    return (
        f"| {name} | {st.files} | {_pct(st.resolved, st.calls - st.absent)} | {st.absent:,} | "
        f"{_pct(st.numthreads_evaluated, st.numthreads - st.numthreads_absent)}"
        f"{f' (+{st.numthreads_absent} absent)' if st.numthreads_absent else ''} | "
        f"{_pct(st.attr_evaluated, st.attr_args)} | "
        f"{_pct(st.folded, st.foldable)} | {_pct(st.complete, st.entries)} |"
    )


def repositories(paths: list[str], repos: bool) -> list[str]:
    """The repository folders: each argument's subfolders (a corpus), or the arguments themselves
    (`--repos`)."""
    if repos:
        return [p for p in paths if os.path.isdir(p)]
    return [
        d.path
        for p in paths
        if os.path.isdir(p)
        for d in sorted(os.scandir(p), key=lambda e: e.name)
        if d.is_dir()
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("paths", nargs="+", help="corpus folders (each subfolder is a repository)")
    ap.add_argument("--repos", action="store_true", help="the folders given are repositories")
    ap.add_argument("--top", type=int, default=10, help="unresolved names to list per repository")
    ap.add_argument("--no-auto-includes", dest="auto_includes", action="store_false")
    ap.add_argument("--seconds", type=float, default=20.0, help="time limit per file")
    ap.add_argument("--detail", help="write every unresolved call and attribute argument (JSON lines)")
    args = ap.parse_args(argv)
    detail: list[dict[str, object]] | None = [] if args.detail else None
    print(
        "| repository | files | calls resolved | callee absent from the sources | `numthreads` "
        "evaluated | attribute arguments evaluated | foldable loop bounds folded | entry points "
        "with a complete estimate |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    production, suites = Stats(), Stats()
    tops: list[tuple[str, Stats]] = []
    for repo in repositories(args.paths, args.repos):
        name = os.path.basename(os.path.normpath(repo))
        st = measure_repo(repo, args.auto_includes, args.seconds, detail)
        print(row(name, st), flush=True)
        tops.append((name, st))
        (suites if name.startswith("tests-") else production).add(st)
    if len(tops) > 1:
        print(row("**all but test suites**", production))
        if suites.files:
            print(row("**compiler test suites**", suites))
    if detail is not None:
        with open(args.detail, "w", encoding="utf-8") as out:
            out.writelines(json.dumps(d) + "\n" for d in detail)
    if args.top:
        print()
        for name, st in tops:
            common = ", ".join(f"`{n}` {c}" for n, c in st.unresolved.most_common(args.top))
            failed = f" ({st.units_failed} files not analysed)" if st.units_failed else ""
            print(f"- {name}{failed}: {common or 'nothing unresolved'}")
            if st.loops_not_foldable:
                why = ", ".join(f"{n} {c}" for n, c in st.loops_not_foldable.most_common())
                print(f"  - loops not foldable: {why}")
            if st.absent_names:
                absent = ", ".join(f"`{n}` {c}" for n, c in st.absent_names.most_common(args.top))
                print(f"  - absent from the sources: {absent}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
