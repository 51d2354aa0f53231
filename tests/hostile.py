"""Generators of pathological shaders (deep nesting, long chains), for the tests of the limits and
for `bench/deep_nesting.py`, which times the full sizes through the CLI.

Each returns the text of a compute shader whose entry point `main` holds the pathology (or uses
it), so that every analysis (CFG, uniformity, liveness, pressure) runs over it."""

from __future__ import annotations

from collections.abc import Callable

_HEAD = "RWStructuredBuffer<float> o;\n[numthreads(64, 1, 1)]\nvoid main(uint i : SV_DispatchThreadID)\n"


def terms(n: int) -> str:
    """`o[i] = 1+1+...+i;`: a left-nested chain of `n` additions."""
    return f"{_HEAD}{{\n    o[i] = {'1+' * n}i;\n}}\n"


def macro_terms(n: int = 50_000) -> str:
    """The same through macros, in under 250 bytes: a file that small still expands to `n` terms
    (`n` a multiple of 10,000)."""
    assert n % 10_000 == 0
    return (
        "#define A 1+1+1+1+1+1+1+1+1+1+\n"
        "#define B A A A A A A A A A A\n"
        "#define C B B B B B B B B B B\n"
        "#define D C C C C C C C C C C\n"
        f"#define E {' '.join(['D'] * (n // 10_000))}\n"
        "RWStructuredBuffer<float> o;\n[numthreads(64,1,1)]\n"
        "void main(uint i : SV_DispatchThreadID) { o[i] = E 1; }\n"
    )


def parens(n: int) -> str:
    """`o[i] = ((((i))));` with `n` parentheses."""
    return f"{_HEAD}{{\n    o[i] = {'(' * n}i{')' * n};\n}}\n"


def ifs(n: int) -> str:
    """`n` nested `if`s around one store."""
    return f"{_HEAD}{{\n    {'if (i > 1) ' * n}o[i] = 1;\n}}\n"


def blocks(n: int) -> str:
    """`n` nested blocks around one store."""
    return f"{_HEAD}{{\n    {'{' * n}o[i] = 1;{'}' * n}\n}}\n"


def calls(n: int) -> str:
    """`o[i] = f(f(f(i)));` with `n` calls of a helper."""
    return f"float f(float x) {{ return x * 2; }}\n{_HEAD}{{\n    o[i] = {'f(' * n}i{')' * n};\n}}\n"


def local_chain(n: int) -> str:
    """`float a1 = a0 * 2; float a2 = a1 * 2; ...`: `n` locals, each computed from the one before."""
    body = "".join(f"    float a{k} = a{k - 1} * 2;\n" for k in range(1, n))
    return f"{_HEAD}{{\n    float a0 = o[i];\n{body}    o[i] = a{n - 1};\n}}\n"


def struct_chain(n: int) -> str:
    """`struct S1 { S0 a; }; struct S2 { S1 a; }; ...`: `n` structs, each holding the one before."""
    structs = "struct S0 { float x; };\n" + "".join(f"struct S{k} {{ S{k - 1} a; }};\n" for k in range(1, n))
    return f"{structs}groupshared S{n - 1} g;\n{_HEAD}{{\n    o[i] = g.a.a.x;\n}}\n"


def if_directive(n: int) -> str:
    """`#if ((((1))))` with `n` parentheses, then the usual shader."""
    return f"#if {'(' * n}1{')' * n}\n#endif\n{_HEAD}{{\n    o[i] = i;\n}}\n"


SHAPES: dict[str, Callable[[int], str]] = {
    "terms": terms,
    "parens": parens,
    "ifs": ifs,
    "blocks": blocks,
    "calls": calls,
    "local-chain": local_chain,
    "struct-chain": struct_chain,
    "if-directive": if_directive,
}
