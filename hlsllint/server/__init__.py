"""The language server (`hlsllint server`)."""

from __future__ import annotations


def serve() -> int:
    """Run the LSP server over stdio until the client exits."""
    from hlsllint.server.lsp import run

    return run()
