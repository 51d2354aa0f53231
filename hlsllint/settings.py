"""The settings that the semantic model, the analyses and the rules read (a slice of the resolved
config). A leaf module: every stage can import it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AnalysisSettings:
    target: str = "rdna2"
    wave_size: int | None = None
    enable_16bit_types: bool = False
    entry: str | None = None
    """The one entry point the build compiles (a compile command's -E), else all are found."""
    stage: str | None = None
    """That entry's stage, from the build's target profile."""
    entry_points: tuple[str, ...] = ()
    """The config's `entry-points`: function names that are entry points where defined."""
