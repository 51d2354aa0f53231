"""hlsllint: a static-analysis linter for HLSL shaders."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("hlsllint")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

DOCS_URL = "https://github.com/hlsllint/hlsllint/blob/main/docs/rules.md"


def rule_url(code: str) -> str:
    """Where a rule's documentation lives (used by JSON, SARIF and the LSP server)."""
    return f"{DOCS_URL}#{code.lower()}"
