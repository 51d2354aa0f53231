"""The HLSL grammar as tree-sitter holds it: the language, its node type names and field ids, and
each thread's parser."""

from __future__ import annotations

import ctypes
import threading
from functools import cache

import tree_sitter
import tree_sitter_hlsl


@cache
def language() -> tree_sitter.Language:
    return tree_sitter.Language(_as_capsule(tree_sitter_hlsl.language()))


@cache
def kind_names() -> list[str | None]:
    """The grammar's node type names by kind id (`node.kind_id`, the public symbol, whose name is
    `node.type`), one string per type for every tree: `node.type` makes a new string each time
    (an error node's id is past the end: its type is asked of the node)."""
    lang = language()
    return [lang.node_kind_for_id(k) for k in range(lang.node_kind_count)]


_CAPSULE_NAME = ctypes.create_string_buffer(b"tree_sitter.Language")
"""The name tree-sitter gives its language capsules (kept alive: a capsule points at it)."""


def _as_capsule(grammar: object) -> object:
    """The grammar as tree-sitter's `Language` wants it since 0.23, a capsule. tree-sitter-hlsl 0.2
    hands out the `TSLanguage *` as an int, which tree-sitter has deprecated (a warning in every
    process) and may stop taking: wrap it in the capsule a newer binding would return."""
    if not isinstance(grammar, int):
        return grammar
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    capsule: object = new(grammar, ctypes.addressof(_CAPSULE_NAME), None)
    return capsule


_local = threading.local()


def thread_parser() -> tree_sitter.Parser:
    """This thread's parser. A parser is not shared between threads: its read and progress hooks
    run Python, so another thread can take the interpreter mid-parse, and a second parse on the
    same parser then corrupts the first (the language server, which analyses documents on several
    threads, died of SIGSEGV)."""
    parser: tree_sitter.Parser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = tree_sitter.Parser(language())
        _local.parser = parser
    return parser


@cache
def field_id(name: str) -> int:
    """The grammar's id of a field: `node.child_by_field_id(field_id("body"))` is
    `node.child_by_field_name("body")` without looking the name up again on every call (the
    lookup is a scan of the grammar's field names, several times the cost of the child itself)."""
    found = language().field_id_for_name(name)
    if found is None:
        raise KeyError(f"the HLSL grammar has no field {name!r}")
    return found
