"""The preprocessor: directives, macros, includes, and exact mapping back to original files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hlsllint.preprocess import (
    PreprocessOptions,
    PreprocessResult,
    preprocess,
    resolve_include,
    scan_includes,
)
from hlsllint.source import SourceError, SourceFile


def _run_store(text: str, files: dict[str, str], path: str = "main.hlsl") -> PreprocessResult:
    """Preprocess `text`; `files` are other (in-memory) files by relative path."""
    store = {path: text, **files}

    def loader(p: str) -> SourceFile:
        if p not in store:
            raise SourceError("No such file or directory")
        return SourceFile(p, store[p])

    return preprocess(SourceFile(path, text), PreprocessOptions(), loader)


def pp(text: str, *defines: tuple[str, str]) -> PreprocessResult:
    return preprocess(
        SourceFile("main.hlsl", text),
        PreprocessOptions(defines=defines),
        lambda p: (_ for _ in ()).throw(SourceError("no includes here")),
    )


def code(r: PreprocessResult) -> list[str]:
    """The non-blank lines of the output, stripped."""
    return [line.strip() for line in r.text.splitlines() if line.strip()]


def codes(r: PreprocessResult) -> list[str]:
    return [d.code for d in r.diagnostics]


def map_back(r: PreprocessResult, needle: str, nth: int = 0) -> tuple[str, int, int, bool]:
    """Where the nth occurrence of `needle` in the output maps to."""
    at = -1
    for _ in range(nth + 1):
        at = r.text.index(needle, at + 1)
    m = r.sourcemap.map_range(at, at + len(needle))
    return m.path, m.start, m.end, m.exact


# -- verbatim text and mapping ---------------------------------------------------------------


def test_plain_text_is_identity() -> None:
    src = "float4 main() : SV_Target {\n  return 1;\n}\n"
    r = pp(src)
    assert r.text == src
    assert r.sourcemap.map_range(7, 11) == r.sourcemap.map_range(7, 11)
    m = r.sourcemap.map_range(7, 11)
    assert (m.path, m.start, m.end, m.exact) == ("main.hlsl", 7, 11, True)


def test_directive_lines_become_blank_and_rows_are_kept() -> None:
    src = "#define A 1\n#pragma pack_matrix(row_major)\nfloat x;\n"
    r = pp(src)
    assert r.text.splitlines()[2] == "float x;"
    assert r.text.count("\n") == src.count("\n")
    assert map_back(r, "x;") == ("main.hlsl", src.index("x;"), src.index("x;") + 2, True)


def test_verbatim_columns_after_macro_on_same_line() -> None:
    src = "#define N 16\nfloat a[N]; float bb;\n"
    r = pp(src)
    assert "float a[16]; float bb;" in r.text
    _, start, end, exact = map_back(r, "bb")
    assert src[start:end] == "bb" and exact
    # The expansion maps as a whole to the invocation.
    _path, start, end, exact = map_back(r, "16")
    assert src[start:end] == "N" and not exact


def test_nested_function_macro_maps_to_outermost_invocation() -> None:
    src = "#define SQ(x) ((x) * (x))\n#define LEN2(v) SQ(v.x) + SQ(v.y)\nfloat f = LEN2(p);\n"
    r = pp(src)
    assert "float f = ((p.x) * (p.x)) + ((p.y) * (p.y));" in r.text
    _, start, end, exact = map_back(r, "p.y")
    assert src[start:end] == "LEN2(p)" and not exact


def test_invocation_spanning_lines_keeps_rows() -> None:
    src = "#define ADD(a, b) ((a) + (b))\nint x = ADD(1,\n   2);\nint y;\n"
    r = pp(src)
    lines = r.text.split("\n")
    assert lines[1] == "int x = ((1) + (2))"
    assert lines[3] == "int y;"
    _, start, end, _ = map_back(r, "((1)")
    assert src[start:end] == "ADD(1,\n   2)"


def test_macro_as_syntax() -> None:
    src = (
        "#define CBUFFER(n, r) cbuffer n : register(r)\n"
        "#define FFX_MIN16_F4 min16float4\n"
        "CBUFFER(cb0, b0) { FFX_MIN16_F4 c; };\n"
    )
    assert code(pp(src)) == ["cbuffer cb0 : register(b0) { min16float4 c; };"]


# -- macros -----------------------------------------------------------------------------------


def test_stringify_and_paste() -> None:
    src = '#define S(x) #x\n#define CAT(a, b) a##b\nS(a "b" c) CAT(foo, 12) CAT(, y) CAT(x, )\n'
    assert code(pp(src)) == ['"a \\"b\\" c" foo12 y x']


def test_variadic_and_gnu_comma() -> None:
    src = (
        "#define V(fmt, ...) f(fmt, __VA_ARGS__)\n"
        "#define G(fmt, ...) g(fmt, ## __VA_ARGS__)\n"
        "#define N(args...) h(args)\n"
        "V(a, 1, 2) G(b) G(c, 3) N(4, 5)\n"
    )
    assert code(pp(src)) == ["f(a, 1, 2) g(b) g(c, 3) h(4, 5)"]


def test_self_reference_is_painted_blue() -> None:
    src = "#define foo foo + 1\n#define a b\n#define b a\n#define f(x) f(x) * 2\nfoo a f(f(3))\n"
    assert code(pp(src)) == ["foo + 1 a f(f(3) * 2) * 2"]


def test_rescan_takes_arguments_from_source() -> None:
    src = "#define F G\n#define G(x) [x]\n#define ID(x) x\nF(1) ID(G)(2)\n"
    r = pp(src)
    assert code(r) == ["[1] [2]"]
    _, start, end, _ = map_back(r, "[1]")
    assert src[start:end] == "F(1)"


def test_function_macro_without_parens_is_left_alone() -> None:
    assert code(pp("#define f(x) x\nint f;\n")) == ["int f;"]


def test_undef_and_redefine() -> None:
    src = "#define A 1\nA\n#undef A\nA\n#define A 2\nA\n"
    assert code(pp(src)) == ["1", "A", "2"]


def test_line_and_file() -> None:
    r = pp("\n\nint l = __LINE__; string f = __FILE__;\n")
    assert code(r) == ['int l = 3; string f = "main.hlsl";']


def test_command_line_defines() -> None:
    r = pp("#if X == 2 && defined(Y)\nA Z\n#endif\n", ("X", "2"), ("Y", "1"), ("Z", "zz"))
    assert code(r) == ["A zz"]


def test_argument_count_mismatch_is_reported() -> None:
    r = pp("#define F(a, b) a b\nF(1)\n")
    assert codes(r) == ["HL003"]


def test_unterminated_invocation_is_reported_and_left_verbatim() -> None:
    r = pp("#define F(a) a\nF(1, \n")
    assert codes(r) == ["HL003"]
    assert "F(1," in r.text


def test_exponential_expansion_hits_a_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    import hlsllint.preprocess.macros as macros

    monkeypatch.setattr(macros, "MAX_EXPANSION_TOKENS", 20_000)  # keeps the test fast
    lines = ["#define D0(x) x x"] + [f"#define D{i}(x) D{i - 1}(x) D{i - 1}(x)" for i in range(1, 40)]
    r = pp("\n".join(lines) + "\nD39(a)\nint after;\n")
    assert "HL003" in codes(r)
    assert "int after;" in r.text


# -- conditionals -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("1 + 2 * 3 == 7", True),
        ("(1 ? 2 : 0) && !0", True),
        ("0x10 == 16 && 010 == 8 && 'A' == 65 && '\\n' == 10", True),
        ("10u > 2ul && 5L", True),
        ("-1 < 0u", False),  # -1 converts to unsigned
        ("-1 < 0", True),
        ("~0 == -1 && (1 << 4) == 16 && (256 >> 4) == 16", True),
        ("7 / 2 == 3 && -7 / 2 == -3 && -7 % 2 == -1", True),
        ("UNDEFINED_NAME", False),
        ("UNDEFINED_NAME == 0", True),
        ("defined A && defined(A) && !defined B", True),
        ("A == 5", True),
        ("1 || (1 / 0)", True),
        ("(2 | 1) ^ 1 == 2", True),
        ("0 ? 1 : 2 ? 3 : 0", True),
        ("true", True),
    ],
)
def test_if_expressions(expr: str, value: bool) -> None:
    r = pp(f"#define A 5\n#if {expr}\nyes\n#else\nno\n#endif\n")
    assert code(r) == ["yes" if value else "no"]
    assert codes(r) == []


@pytest.mark.parametrize("expr", ["1 +", "(1", "1 / 0", "1.5", "", "1 2", "defined"])
def test_malformed_if_is_hl003_and_false(expr: str) -> None:
    r = pp(f"#if {expr}\nyes\n#else\nno\n#endif\n")
    assert codes(r) == ["HL003"]
    assert code(r) == ["no"]


def test_elif_chain_and_nesting() -> None:
    src = (
        "#define B 2\n"
        "#if B == 1\none\n#elif B == 2\n"
        "#ifdef NOPE\nnested\n#else\ntwo\n#endif\n"
        "#elif B == 2\nagain\n#else\nother\n#endif\n"
    )
    r = pp(src)
    assert code(r) == ["two"]
    assert r.text.count("\n") == src.count("\n")


def test_inactive_regions_ignore_garbage_directives() -> None:
    r = pp("#if 0\n#bogus\n#error no\n#if (((\n#endif\n#include <missing>\n#endif\nok\n")
    assert code(r) == ["ok"]
    assert codes(r) == []


def test_error_unknown_and_unbalanced_directives() -> None:
    r = pp("#error stop here\n#frobnicate\n#endif\n#else\n#if 1\nx\n")
    messages = [d.message for d in r.diagnostics]
    assert codes(r) == ["HL003"] * 5
    assert "#error stop here" in messages[0]
    assert "frobnicate" in messages[1]
    assert "x" in code(r)


def test_line_and_pragma_are_accepted() -> None:
    r = pp('#line 100 "other.hlsl"\n#pragma warning(disable: 1)\nint x = __LINE__;\n')
    assert codes(r) == []
    _, start, _, exact = map_back(r, "int")
    assert exact and start == r.sources["main.hlsl"].text.index("int")


def test_thousand_deep_nested_if() -> None:
    src = "#if 1\n" * 1000 + "deep\n" + "#endif\n" * 1000
    r = pp(src)
    assert code(r) == ["deep"]
    assert codes(r) == []


# -- line structure ---------------------------------------------------------------------------


def test_line_continuations() -> None:
    src = "#define LONG(a) \\\n  (a + \\\n   1)\nint v = LONG(2);\n#if 1 && \\\n 0\nno\n#endif\n"
    r = pp(src)
    assert code(r) == ["int v = (2 + 1);"]
    assert r.text.count("\n") == src.count("\n")


def test_crlf() -> None:
    src = "#define A 1\r\n#ifdef A\r\nint x = A;\r\n#endif\r\nint y;\r\n"
    r = pp(src)
    assert code(r) == ["int x = 1;", "int y;"]
    _, start, end, exact = map_back(r, "y;")
    assert src[start:end] == "y;" and exact
    assert r.text.replace("\r", "").count("\n") == 5


def test_comments_hide_directives_and_macros() -> None:
    src = "#define A 1\n/* #define A 2\n#error no */ int a = A; // A\n"
    r = pp(src)
    assert "int a = 1; // A" in r.text
    assert codes(r) == []


# -- includes ---------------------------------------------------------------------------------


def test_include_is_spliced_and_mapped() -> None:
    main = '#include "lib/common.hlsli"\nfloat4 c = COLOR;\n'
    header = "#define COLOR float4(1, 0, 0, 1)\nfloat helper() { return 2; }\n"
    r = _run_store(main, {"lib/common.hlsli": header})
    assert code(r) == ["float helper() { return 2; }", "float4 c = float4(1, 0, 0, 1);"]
    assert r.included == ["lib/common.hlsli"]
    path, start, end, exact = map_back(r, "helper")
    assert (path, header[start:end], exact) == (r.included[0], "helper", True)
    path, start, end, _ = map_back(r, "float4(1")
    assert (path, main[start:end]) == ("main.hlsl", "COLOR")
    assert set(r.sources) == {"main.hlsl", r.included[0]}


def test_include_relative_to_includer_and_normalised() -> None:
    files = {
        "a/b/x.hlsli": '#include "../y.hlsli"\n',
        "a/y.hlsli": "int y;\n",
    }
    r = _run_store('#include "a/b/x.hlsli"\n', files)
    assert r.included == ["a/b/x.hlsli", "a/y.hlsli"]
    assert code(r) == ["int y;"]


def test_include_guard_and_pragma_once() -> None:
    guarded = "#ifndef G_H\n#define G_H\nint g;\n#endif\n"
    once = "#pragma once\nint o;\n"
    main = '#include "g.h"\n#include "g.h"\n#include "o.h"\n#include "o.h"\nint m;\n'
    r = _run_store(main, {"g.h": guarded, "o.h": once})
    assert code(r) == ["int g;", "int o;", "int m;"]
    assert codes(r) == []


def test_missing_include_is_hl002_and_run_continues() -> None:
    main = '  #include "nope.hlsli"\nint after;\n'
    r = _run_store(main, {})
    assert codes(r) == ["HL002"]
    d = r.diagnostics[0]
    assert main[d.start : d.end] == '#include "nope.hlsli"'
    assert code(r) == ["int after;"]


def test_include_cycle_is_hl003() -> None:
    r = _run_store('#include "a.h"\nint m;\n', {"a.h": '#include "b.h"\nint a;\n', "b.h": '#include "a.h"\n'})
    assert codes(r) == ["HL003"]
    assert code(r) == ["int a;", "int m;"]


def test_self_include_with_guard_is_silent() -> None:
    r = _run_store('#include "a.h"\n', {"a.h": '#ifndef A\n#define A\n#include "a.h"\nint a;\n#endif\n'})
    assert codes(r) == []
    assert code(r) == ["int a;"]


def test_include_depth_limit() -> None:
    # A chain of 80 distinct files: deeper than 64 is cut with HL003.
    files = {f"f{i}.h": f'#include "f{i + 1}.h"\n' for i in range(80)}
    r = _run_store('#include "f0.h"\n', files)
    assert codes(r) == ["HL003"]
    assert "deeper" in r.diagnostics[0].message


def test_macro_include_name_and_angled(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "sys.h").write_text("int sys;\n")
    (tmp_path / "local.h").write_text("int local;\n")
    main_path = tmp_path / "main.hlsl"
    main_path.write_text('#define HDR "local.h"\n#include HDR\n#include <sys.h>\n#include <local.h>\n')
    r = preprocess(
        SourceFile.read(str(main_path)),
        PreprocessOptions(include_dirs=(str(tmp_path / "inc"),)),
        SourceFile.read,
    )
    assert codes(r) == []
    assert code(r) == ["int local;", "int sys;", "int local;"]
    assert r.included == [str(tmp_path / "local.h"), str(tmp_path / "inc" / "sys.h")]


def test_unreadable_include_reports_reason(tmp_path: Path) -> None:
    (tmp_path / "bin.h").write_bytes(b"\x00\x01binary")
    main = tmp_path / "main.hlsl"
    main.write_text('#include "bin.h"\nint x;\n')
    r = preprocess(SourceFile.read(str(main)), PreprocessOptions(), SourceFile.read)
    assert len(r.diagnostics) == 1
    assert "binary" in r.diagnostics[0].message
    assert code(r) == ["int x;"]


# -- helpers for the driver -------------------------------------------------------------------


def test_scan_includes_skips_comments() -> None:
    text = '#include "a.h"\n// #include "b.h"\n/* #include "c.h" */\n  #  include <d.h>\nx = "#include";\n'
    found = scan_includes(text)
    assert [(n, angled) for n, angled, _, _ in found] == [("a.h", False), ("d.h", True)]
    _name, _, start, end = found[1]
    assert text[start:end] == "#  include <d.h>"


def test_resolve_include_order() -> None:
    existing = {"src/x.h", "inc/x.h", "inc/y.h", "src/y.h"}

    def exists(p: str) -> bool:
        return p in existing

    assert resolve_include("x.h", "src/main.hlsl", ["inc"], False, exists) == "src/x.h"
    assert resolve_include("x.h", "src/main.hlsl", ["inc"], True, exists) == "inc/x.h"
    assert resolve_include("../src/y.h", "src/main.hlsl", [], False, exists) == os.path.normpath("src/y.h")
    assert resolve_include("sub\\..\\x.h", "src/main.hlsl", [], False, exists) == "src/x.h"
    assert resolve_include("none.h", "src/main.hlsl", ["inc"], False, exists) is None


def test_defined_produced_by_a_macro() -> None:
    src = "#define HAS(x) defined(USE_##x)\n#define USE_FOO\n#if HAS(FOO) && !HAS(BAR)\nyes\n#endif\n"
    r = pp(src)
    assert code(r) == ["yes"]
    assert codes(r) == []


def test_include_served_by_loader_only() -> None:
    # The file does not exist on disk: the loader (e.g. an editor buffer) is asked.
    r = _run_store('#include "unsaved.hlsli"\n', {"unsaved.hlsli": "int u;\n"})
    assert code(r) == ["int u;"]
    assert set(r.sources) == {"main.hlsl", "unsaved.hlsli"}


def test_empty_and_garbage_input_do_not_crash() -> None:
    for text in ["", "#", "#define", "#define F(", "#if", '#include "', "/* open", "'", "\\", "#if 1\n#elif"]:
        r = pp(text)
        assert r.sourcemap.segments
        r.sourcemap.map_range(0, len(r.text))


def test_header_ending_in_open_comment_does_not_swallow_includer() -> None:
    r = _run_store('#include "h.h"\nint after;\n', {"h.h": "int h; /* never closed\n"})
    assert codes(r) == ["HL003"]
    assert r.text.rstrip().endswith("int after;")
    assert "*/" in r.text


def test_headers_are_lexed_once_per_process() -> None:
    import hlsllint.preprocess.lexer as lexer

    lexer.clear_cache()
    before = lexer.STATS.lexed
    header = {"common.hlsli": "#pragma once\nint shared;\n"}
    for i in range(5):
        r = _run_store(f'#include "common.hlsli"\nint u{i};\n', header, path=f"unit{i}.hlsl")
        assert code(r) == ["int shared;", f"int u{i};"]
    assert lexer.STATS.lexed - before == 6  # five main files + the header once


# -- header expansions reused across units -----------------------------------------------------


def _unit(main: str, files: dict[str, str], path: str = "main.hlsl", *defines: tuple[str, str]) -> tuple:
    """Preprocess one unit with a fresh Preprocessor; (its result's fingerprint, headers reused)."""
    from hlsllint.preprocess.engine import Preprocessor

    store = {path: main, **files}

    def loader(p: str) -> SourceFile:
        if p not in store:
            raise SourceError("No such file or directory")
        return SourceFile(p, store[p])

    pre = Preprocessor(loader, (), defines)
    pre.run(SourceFile(path, main))
    text, smap = pre.out.result(path)
    fingerprint = (
        text,
        [(s.out_start, s.out_end, s.path, s.src_start, s.src_end, s.verbatim) for s in smap.segments],
        [(d.code, d.message, d.path, d.start, d.end) for d in pre.diagnostics],
        list(pre.included),
        list(pre.sources),
        sorted(pre.missing),
        {k: v for k, v in pre.macros.items() if not v.builtin},
    )
    return fingerprint, pre.replayed


def _fresh(main: str, files: dict[str, str], path: str = "main.hlsl", *defines: tuple[str, str]) -> tuple:
    from hlsllint.preprocess import clear_cache

    clear_cache()
    fingerprint, reused = _unit(main, files, path, *defines)
    assert reused == 0
    clear_cache()  # what it recorded is not reused by the test that follows
    return fingerprint


def _same_result(a: tuple, b: tuple) -> bool:
    """Same output, mapping, diagnostics, files and final macro definitions (compared by shape)."""
    from hlsllint.preprocess.expansions import same_macro as _same_macro

    return a[:6] == b[:6] and a[6].keys() == b[6].keys() and all(_same_macro(a[6][k], b[6][k]) for k in a[6])


HEADERS = {
    "common.hlsli": (
        "#ifndef COMMON_HLSLI\n#define COMMON_HLSLI\n"
        '#include "types.hlsli"\n'
        "#define SQUARE(x) ((x) * (x))\n"
        "float shared_value = SQUARE(SCALE);\n"
        "#endif\n"
    ),
    "types.hlsli": "#pragma once\ntypedef float real;\n#define SCALE 2\n",
}


def test_a_header_expansion_is_reused_and_matches_a_fresh_one() -> None:
    main_a = '#include "common.hlsli"\nfloat a = SQUARE(3);\n'
    main_b = 'float before;\n#include "common.hlsli"\n#include "common.hlsli"\nreal b = SCALE;\n'
    fresh_b = _fresh(main_b, HEADERS, "b.hlsl")
    _unit(main_a, HEADERS, "a.hlsl")  # records common.hlsli (and types.hlsli inside it)
    reused_b, reused = _unit(main_b, HEADERS, "b.hlsl")
    assert reused == 1  # common.hlsli replayed whole; its second inclusion is skipped by its guard
    assert _same_result(reused_b, fresh_b)
    text = reused_b[0]
    assert "float shared_value = ((2) * (2));" in text
    assert "real b = 2;" in text  # the header's #define took effect in the includer
    assert text.count("shared_value") == 1
    # The mapping still points into the header's own text.
    at = text.index("shared_value")
    seg = next(s for s in reused_b[1] if s[0] <= at < s[1])
    assert seg[2] == "common.hlsli" and seg[5]
    assert HEADERS["common.hlsli"][seg[3] + at - seg[0] :].startswith("shared_value")


def test_a_header_is_not_reused_when_a_macro_it_reads_differs() -> None:
    headers = {"h.hlsli": "float v = VALUE;\n#ifdef FAST\nint fast;\n#endif\n"}
    first, _ = _unit('#define VALUE 1\n#include "h.hlsli"\n', headers, "a.hlsl")
    assert "float v = 1;" in first[0]
    main_b = '#define VALUE 2\n#include "h.hlsli"\n'
    fresh_b = _fresh(main_b, headers, "b.hlsl")
    _unit('#define VALUE 1\n#include "h.hlsli"\n', headers, "a.hlsl")
    got_b, reused = _unit(main_b, headers, "b.hlsl")
    assert reused == 0
    assert _same_result(got_b, fresh_b)
    assert "float v = 2;" in got_b[0]
    # A -D define the header tests with #ifdef is read too.
    with_fast, reused = _unit('#define VALUE 1\n#include "h.hlsli"\n', headers, "a.hlsl", ("FAST", "1"))
    assert reused == 0
    assert "int fast;" in with_fast[0]
    # The same state again is reused.
    again, reused = _unit('#define VALUE 1\n#include "h.hlsli"\n', headers, "c.hlsl", ("FAST", "1"))
    assert reused == 1
    assert again[0] == with_fast[0]


def test_a_macro_defined_by_a_nested_macro_body_is_a_dependency() -> None:
    headers = {"h.hlsli": "float v = OUTER;\n"}
    main = '#define OUTER INNER + 1\n#define INNER {}\n#include "h.hlsli"\n'
    _unit(main.format(1), headers, "a.hlsl")
    got, reused = _unit(main.format(5), headers, "b.hlsl")
    assert reused == 0
    assert "float v = 5 + 1;" in got[0]


def test_pragma_once_and_guards_replay_their_state() -> None:
    headers = {
        "once.hlsli": "#pragma once\nint once_value;\n",
        "user.hlsli": '#include "once.hlsli"\nint user_value;\n',
    }
    main_a = '#include "user.hlsli"\n#include "once.hlsli"\n'
    main_b = '#include "once.hlsli"\n#include "user.hlsli"\n'
    fresh_a = _fresh(main_a, headers, "a.hlsl")
    fresh_b = _fresh(main_b, headers, "b.hlsl")
    _unit(main_a, headers, "x.hlsl")
    got_a, _ = _unit(main_a, headers, "a.hlsl")
    got_b, reused_b = _unit(main_b, headers, "b.hlsl")
    assert _same_result(got_a, fresh_a) and _same_result(got_b, fresh_b)
    assert got_a[0].count("once_value") == 1 and got_b[0].count("once_value") == 1
    # In b, once.hlsli was already included when user.hlsli comes: its recording (which
    # included once.hlsli) does not fit, and user.hlsli is expanded afresh.
    assert reused_b == 1  # only once.hlsli itself


def test_a_changed_nested_header_is_not_reused() -> None:
    outer = {"outer.hlsli": '#include "inner.hlsli"\n'}
    first, _ = _unit('#include "outer.hlsli"\n', {**outer, "inner.hlsli": "int old_name;\n"}, "a.hlsl")
    assert "old_name" in first[0]
    got, reused = _unit('#include "outer.hlsli"\n', {**outer, "inner.hlsli": "int new_name;\n"}, "a.hlsl")
    assert reused == 0
    assert "new_name" in got[0] and "old_name" not in got[0]
    # A header that appears where the search once found nothing is taken.
    probe = {"p.hlsli": '#include "maybe.hlsli"\n'}
    missing, _ = _unit('#include "p.hlsli"\n', probe, "a.hlsl")
    assert "maybe.hlsli" in missing[5] and any(d[0] == "HL002" for d in missing[2])
    found, reused = _unit('#include "p.hlsli"\n', {**probe, "maybe.hlsli": "int maybe;\n"}, "a.hlsl")
    assert reused == 0
    assert "int maybe;" in found[0] and not found[2]


def test_counter_and_include_cycles_are_expanded_afresh() -> None:
    headers = {"c.hlsli": "int id = __COUNTER__;\n"}
    _unit('#include "c.hlsli"\n', headers, "a.hlsl")
    got, reused = _unit('int x = __COUNTER__;\n#include "c.hlsli"\n', headers, "b.hlsl")
    assert reused == 0
    assert "int id = 1;" in got[0]
    cyc = {"x.hlsli": '#include "y.hlsli"\n', "y.hlsli": '#include "x.hlsli"\nint y;\n'}
    fresh = _fresh('#include "y.hlsli"\n', cyc, "a.hlsl")
    _unit('#include "x.hlsli"\n', cyc, "b.hlsl")  # records y.hlsli with x.hlsli on the stack
    got, _ = _unit('#include "y.hlsli"\n', cyc, "a.hlsl")
    assert _same_result(got, fresh)
    assert [d[0] for d in got[2]] == ["HL003"]


def test_recorded_expansions_stay_within_their_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    import hlsllint.preprocess.expansions as expansions

    expansions.clear_expansions()
    monkeypatch.setattr(expansions, "_EXPANSION_BUDGET", 2_000)
    headers = {f"h{i}.hlsli": f"int value_{i}[{i + 1}];\n" * 20 for i in range(10)}
    main = "".join(f'#include "h{i}.hlsli"\n' for i in range(10))
    _unit(main, headers, "a.hlsl")
    assert 0 < expansions._expansions_size <= 2_000
    assert 0 < len(expansions.EXPANSIONS) < 10
    backwards = "".join(f'#include "h{i}.hlsli"\n' for i in reversed(range(10)))
    got, reused = _unit(backwards, headers, "b.hlsl")  # the last headers recorded are still there
    assert 0 < reused < 10
    assert _same_result(got, _fresh(backwards, headers, "b.hlsl"))
    assert expansions._expansions_size == 0  # _fresh cleared them


def test_the_result_counts_reused_header_expansions() -> None:
    from hlsllint.preprocess import clear_cache

    clear_cache()
    header = {"shared.hlsli": "int shared_value;\n"}
    first = _run_store('#include "shared.hlsli"\n', header, path="one.hlsl")
    second = _run_store('#include "shared.hlsli"\nint two;\n', header, path="two.hlsl")
    assert (first.reused, second.reused) == (0, 1)
    assert code(second) == ["int shared_value;", "int two;"]


def test_copies_of_a_header_are_lexed_once() -> None:
    import hlsllint.preprocess.lexer as lexer

    lexer.clear_cache()
    before = lexer.STATS.lexed
    copy = "#pragma once\n#define ANSWER 42\nint answer = ANSWER;\n"
    files = {"a/common.hlsli": copy, "b/common.hlsli": copy}
    r = _run_store('#include "a/common.hlsli"\n#include "b/common.hlsli"\n', files)
    assert lexer.STATS.lexed - before == 2  # the main file, and the header's text once
    # Each copy is still its own file: both are expanded (#pragma once is per path), each
    # mapped to its own path.
    assert code(r) == ["int answer = 42;", "int answer = 42;"]
    assert [map_back(r, "answer =", n)[0] for n in (0, 1)] == ["a/common.hlsli", "b/common.hlsli"]


def test_a_cache_hit_survives_another_thread_clearing_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """The language server analyses documents on several threads, and a cancelled analysis
    clears the lexer cache: a hit that another thread's clear removes before it is marked recent
    is still returned (it used to raise KeyError, an internal error in the other document)."""
    from collections import OrderedDict

    import hlsllint.preprocess.lexer as lexer

    class ClearedMeanwhile(OrderedDict[str, object]):
        def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
            found = super().get(key, default)
            self.clear()  # what the other thread's stop does between get and move_to_end
            return found

    monkeypatch.setattr(lexer, "_CACHE", ClearedMeanwhile())
    first = lexer.lexed("a.hlsl", "float a;\n")
    assert lexer.lexed("a.hlsl", "float a;\n") is first
