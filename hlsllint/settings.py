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


PROFILE_STAGES = {
    "vs": "vertex",
    "ps": "pixel",
    "gs": "geometry",
    "hs": "hull",
    "ds": "domain",
    "cs": "compute",
    "ms": "mesh",
    "as": "amplification",
    "lib": "library",
}


def stage_of_profile(profile: str) -> str | None:
    """`cs_6_6` -> compute, `ps_5_0` -> pixel, `lib_6_3` -> library (a compile command's `-T`, an
    effect pass's `compile ps_2_0`)."""
    return PROFILE_STAGES.get(profile.split("_")[0].lower())
