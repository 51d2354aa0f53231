"""Stage 3: the semantic model of a translation unit (placeholder until it lands)."""

from __future__ import annotations

from typing import Any


def build_model(tree: Any, settings: Any) -> Any:
    raise NotImplementedError("the semantic model is not built yet")
