"""hlsllint: a static-analysis linter for HLSL shaders."""

__version__ = "0.1.0"
"""The one place the version is written: pyproject.toml reads it (`[tool.setuptools.dynamic]`), so
that importing hlsllint needs no `importlib.metadata` (about 17 ms of every run's start-up)."""

DOCS_URL = "https://github.com/hlsllint/hlsllint/blob/main/docs/rules.md"


def rule_url(code: str) -> str:
    """Where a rule's documentation lives (used by JSON, SARIF and the LSP server)."""
    return f"{DOCS_URL}#{code.lower()}"
