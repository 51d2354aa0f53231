"""Every fact about a GPU target in one place: names, aliases and chip names, wave sizes, register
files and their allocation granules, wave slots, SGPR limits, LDS. A leaf module (it imports nothing
of hlsllint): the configuration resolves `target` and `wave-size` here once (`resolve_settings`),
and the analyses read the numbers here.

The numbers come from LLVM's AMDGPU target description (`AMDGPUBaseInfo.cpp`), AMD's GPUOpen
occupancy articles and measurements with regtruth (Mesa RADV/ACO); `docs/targets.md` is generated
from this table (`python -m hlsllint.targets > docs/targets.md`, a test keeps it current).
"""

from __future__ import annotations

from dataclasses import dataclass

KIB = 1024
D3D_MAX_GROUPSHARED = 32 * KIB
"""The most groupshared memory one thread group may declare (Direct3D 11+)."""
MAX_ADDRESSABLE_VGPRS = 256


class WaveSizeError(ValueError):
    """A wave size the target does not run (`gcn` with wave32)."""


@dataclass(frozen=True)
class Target:
    """The occupancy-relevant numbers of one GPU generation."""

    name: str
    family: str
    """"gcn" or "rdna" (the architecture family)."""
    gfx: str
    """The LLVM/RADV generation, e.g. "gfx9", "gfx10.3", "gfx11"."""
    wave_sizes: tuple[int, ...]
    vgpr_granule: dict[int, int]
    """Allocation granule by wave size."""
    vgpr_file: dict[int, int]
    """VGPRs per SIMD by wave size."""
    max_waves: int
    """Wave slots per SIMD (in waves of the shader's own size)."""
    sgpr_file: int | None
    """SGPRs per SIMD, or None when SGPRs never limit occupancy (RDNA)."""
    sgpr_granule: int
    sgpr_addressable: int
    sgpr_waves_table: tuple[tuple[int, int], ...]
    """(allocated SGPRs ≤ N, waves) steps, last step applies above; empty on RDNA."""
    lds_bytes: int
    """LDS shared by the groups of one CU (GCN) or WGP (RDNA)."""
    simds_per_lds: int
    """SIMDs that share that LDS (and among which a group's waves are spread)."""
    lds_granule: int = 512
    chips: tuple[str, ...] = ()
    default_chip: str = ""
    """The RADV family name that regtruth uses for this target."""

    @property
    def default_wave(self) -> int:
        return 64 if 64 in self.wave_sizes else self.wave_sizes[0]

    def wave_for(self, requested: int | None) -> int:
        """The configured wave size, or the target's default when none is; one the target does
        not run raises `WaveSizeError` (the settings refuse it before: never a silent wave64)."""
        if requested is None:
            return self.default_wave
        if requested not in self.wave_sizes:
            runs = " or ".join(f"wave{w}" for w in self.wave_sizes)
            raise WaveSizeError(f"target `{self.name}` runs only {runs}, not wave{requested}")
        return requested


_GCN_OLD_SGPR_STEPS = ((48, 10), (56, 9), (64, 8), (72, 7), (80, 6), (10_000, 5))
_GCN_SGPR_STEPS = ((80, 10), (88, 9), (100, 8), (10_000, 7))

TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target(
            name="gfx6",
            family="gcn",
            gfx="gfx6",
            wave_sizes=(64,),
            vgpr_granule={64: 4},
            vgpr_file={64: 256},
            max_waves=10,
            sgpr_file=512,
            sgpr_granule=8,
            sgpr_addressable=104,
            sgpr_waves_table=_GCN_OLD_SGPR_STEPS,
            lds_bytes=64 * KIB,
            simds_per_lds=4,
            lds_granule=256,
            chips=(
                "tahiti",
                "pitcairn",
                "verde",
                "oland",
                "hainan",
                "bonaire",
                "kabini",
                "kaveri",
                "hawaii",
                "mullins",
            ),
            default_chip="hawaii",
        ),
        Target(
            name="gcn",
            family="gcn",
            gfx="gfx9",
            wave_sizes=(64,),
            vgpr_granule={64: 4},
            vgpr_file={64: 256},
            max_waves=10,
            sgpr_file=800,
            sgpr_granule=16,
            sgpr_addressable=102,
            sgpr_waves_table=_GCN_SGPR_STEPS,
            lds_bytes=64 * KIB,
            simds_per_lds=4,
            chips=(
                "tonga",
                "iceland",
                "carrizo",
                "fiji",
                "stoney",
                "vega10",
                "vega12",
                "vega20",
                "raven",
                "raven2",
                "renoir",
                "arcturus",
                "aldebaran",
            ),
            default_chip="vega10",
        ),
        Target(
            # Polaris and Vega M are GCN4 with 8 wave slots per SIMD instead of 10 (RADV's
            # ac_gpu_info; regtruth: 8 VGPRs give 8 waves on polaris10, 10 on vega10/fiji).
            name="polaris",
            family="gcn",
            gfx="gfx8",
            wave_sizes=(64,),
            vgpr_granule={64: 4},
            vgpr_file={64: 256},
            max_waves=8,
            sgpr_file=800,
            sgpr_granule=16,
            sgpr_addressable=102,
            sgpr_waves_table=_GCN_SGPR_STEPS,
            lds_bytes=64 * KIB,
            simds_per_lds=4,
            chips=("polaris10", "polaris11", "polaris12", "vegam"),
            default_chip="polaris10",
        ),
        Target(
            name="rdna1",
            family="rdna",
            gfx="gfx10.1",
            wave_sizes=(32, 64),
            vgpr_granule={64: 4, 32: 8},
            vgpr_file={64: 512, 32: 1024},
            max_waves=20,
            sgpr_file=None,
            sgpr_granule=8,
            sgpr_addressable=106,
            sgpr_waves_table=(),
            lds_bytes=128 * KIB,
            simds_per_lds=4,
            chips=("navi10", "navi12", "navi14"),
            default_chip="navi10",
        ),
        Target(
            name="rdna2",
            family="rdna",
            gfx="gfx10.3",
            wave_sizes=(32, 64),
            vgpr_granule={64: 8, 32: 16},
            vgpr_file={64: 512, 32: 1024},
            max_waves=16,
            sgpr_file=None,
            sgpr_granule=8,
            sgpr_addressable=106,
            sgpr_waves_table=(),
            lds_bytes=128 * KIB,
            simds_per_lds=4,
            chips=(
                "navi21",
                "navi22",
                "navi23",
                "navi24",
                "navi2x",
                "vangogh",
                "rembrandt",
                "gfx1036",
                "raphael",
                "mendocino",
                "gfx1102",
                "gfx1103",
                "gfx1103_r1",
                "gfx1103_r2",
            ),
            default_chip="navi21",
        ),
        Target(
            name="rdna3",
            family="rdna",
            gfx="gfx11",
            wave_sizes=(32, 64),
            vgpr_granule={64: 12, 32: 24},
            vgpr_file={64: 768, 32: 1536},
            max_waves=16,
            sgpr_file=None,
            sgpr_granule=8,
            sgpr_addressable=106,
            sgpr_waves_table=(),
            lds_bytes=128 * KIB,
            simds_per_lds=4,
            chips=("gfx1100", "gfx1101", "navi31", "navi32"),
            default_chip="gfx1100",
        ),
    )
}

ALIASES: dict[str, str] = {
    "gfx7": "gfx6",
    "gcn1": "gfx6",
    "gcn2": "gfx6",
    "gfx8": "gcn",
    "gfx9": "gcn",
    "gcn3": "gcn",
    "gcn4": "gcn",
    "gcn5": "gcn",
    "vega": "gcn",
    "gfx10": "rdna1",
    "gfx10.1": "rdna1",
    "gfx1010": "rdna1",
    "gfx10.3": "rdna2",
    "gfx1030": "rdna2",
    "gfx11": "rdna3",
}

TARGET_NAMES: tuple[str, ...] = ("gcn", "gfx6", "polaris", "rdna1", "rdna2", "rdna3")
"""Names accepted by `--target` (chip names and the aliases work too)."""


class UnknownTarget(ValueError):
    pass


def resolve_target(name: str | Target) -> Target:
    """A target by name, alias ("gfx9", "gfx1030") or RADV chip name ("navi21", "polaris10")."""
    if isinstance(name, Target):
        return name
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key in TARGETS:
        return TARGETS[key]
    for target in TARGETS.values():
        if key in target.chips:
            return target
    known = ", ".join(TARGET_NAMES)
    raise UnknownTarget(f"unknown target {name!r} (known: {known}, or a RADV chip name)")


def accepted_names() -> list[str]:
    """Every spelling `resolve_target` accepts: the targets, their aliases and chip names."""
    names = list(TARGET_NAMES)
    names += [a for a in ALIASES if a not in names]
    for t in TARGETS.values():
        names += [c for c in t.chips if c not in names]
    return names


def resolve_settings(target: str, wave_size: int | None) -> tuple[str, int | None]:
    """(the target's canonical name, the wave size) of a configuration, checked once: an unknown
    target raises `UnknownTarget`, a wave size the target does not run raises `WaveSizeError`
    (never a silent fall-back to another wave size)."""
    t = resolve_target(target)
    if wave_size is not None and wave_size not in t.wave_sizes:
        runs = " or ".join(f"wave{w}" for w in t.wave_sizes)
        others = ", ".join(n for n in TARGET_NAMES if wave_size in TARGETS[n].wave_sizes)
        raise WaveSizeError(
            f"target `{target}` ({t.family.upper()}, {t.gfx}) runs only {runs}, not wave{wave_size}"
            + (f" (wave{wave_size} needs one of: {others})" if others else "")
        )
    return t.name, wave_size


def lane_mask_sgprs(wave_size: int) -> int:
    """SGPRs of one wave-wide bool (a lane mask): 2 in wave64, 1 in wave32."""
    return 2 if wave_size == 64 else 1


def vgpr_steps(t: Target, wave_size: int) -> list[tuple[int, int]]:
    """(most VGPRs, waves per SIMD) at each occupancy step, fewest VGPRs first."""
    steps: list[tuple[int, int]] = []
    granule = t.vgpr_granule[wave_size]
    for waves in range(t.max_waves, 0, -1):
        most = min(MAX_ADDRESSABLE_VGPRS, t.vgpr_file[wave_size] // waves // granule * granule)
        if most and (not steps or most > steps[-1][0]):
            steps.append((most, waves))
    return steps


def markdown() -> str:
    """docs/targets.md: the table above, for people."""
    out = [
        "# GPU targets",
        "",
        "Generated from `hlsllint/targets.py` (`python -m hlsllint.targets > docs/targets.md`): the",
        "numbers the register-pressure model and the occupancy rules use. `--target`, the config's",
        "`target` and the editor's `target` setting accept a target's name, an alias or a chip name;",
        "a wave size the target does not run (`--target gcn --wave-size 32`) is an error.",
        "",
        "| target | family, generation | aliases | chips | wave sizes | VGPR granule | VGPRs per SIMD "
        "| wave slots per SIMD | SGPRs per SIMD (granule) | addressable SGPRs | LDS per CU/WGP |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in TARGET_NAMES:
        t = TARGETS[name]
        aliases = ", ".join(f"`{a}`" for a, n in ALIASES.items() if n == name) or "–"
        chips = ", ".join(f"`{c}`" for c in t.chips) or "–"
        waves = ", ".join(f"wave{w}" for w in sorted(t.wave_sizes, reverse=True))
        granule = " / ".join(str(t.vgpr_granule[w]) for w in sorted(t.wave_sizes, reverse=True))
        vfile = " / ".join(f"{t.vgpr_file[w]:,}" for w in sorted(t.wave_sizes, reverse=True))
        sgprs = f"{t.sgpr_file:,} ({t.sgpr_granule})" if t.sgpr_file else "never limit"
        unit = "CU" if t.family == "gcn" else "WGP"
        out.append(
            f"| `{name}` | {t.family.upper()}, {t.gfx} | {aliases} | {chips} | {waves} | {granule} | {vfile} "
            f"| {t.max_waves} | {sgprs} | {t.sgpr_addressable} | {t.lds_bytes // KIB} KiB per {unit} |"
        )
    out += [
        "",
        "Granules and register files are given for wave64 / wave32. A wave addresses at most "
        f"{MAX_ADDRESSABLE_VGPRS} VGPRs; a thread group declares at most {D3D_MAX_GROUPSHARED // KIB} KiB "
        "of groupshared memory (Direct3D).",
        "",
        "## Waves per SIMD by VGPRs",
        "",
        "Waves per SIMD = min(wave slots, VGPRs per SIMD / VGPRs rounded up to the granule); "
        '`≤ N: W` reads "up to N VGPRs: W waves".',
        "",
    ]
    for name in TARGET_NAMES:
        t = TARGETS[name]
        for w in sorted(t.wave_sizes, reverse=True):
            steps = ", ".join(f"≤{most}: {waves}" for most, waves in vgpr_steps(t, w))
            out.append(f"- `{name}` wave{w}: {steps}")
    out += ["", "## Waves per SIMD by SGPRs (GCN)", ""]
    for name in TARGET_NAMES:
        t = TARGETS[name]
        if t.sgpr_waves_table:
            by_sgprs = [f"≤{n}: {w}" for n, w in t.sgpr_waves_table[:-1]]
            by_sgprs.append(f"more: {t.sgpr_waves_table[-1][1]}")
            out.append(f"- `{name}` (allocated SGPRs, VCC included): {', '.join(by_sgprs)}")
    out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown(), end="")
