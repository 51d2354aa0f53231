"""Every coefficient of the register-pressure model, in one place (tuned against regtruth)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CostModel:
    texture_descriptor_sgprs: int = 8
    buffer_descriptor_sgprs: int = 4
    sampler_descriptor_sgprs: int = 4
    cbuffer_descriptor_sgprs: int = 4
    """A constant buffer's descriptor (its members are loaded with scalar loads at use)."""
    bool_as_lane_mask: bool = True
    """A per-lane bool is a lane mask in SGPRs (2 per component in wave64, 1 in wave32)."""
    exec_mask_per_divergent_level: bool = True
    """Inside divergent control flow the saved exec mask takes a lane mask of SGPRs per level."""
    writable_raw_loads_scalar: bool = False
    """Whether RW raw/structured loads at a uniform address become scalar loads (ACO: no)."""
    count_operands_at_instruction: bool = False
    """Pressure at an instruction counts its operands and its result (live-in + defs)."""
    preloads: dict[str, tuple[tuple[str, int, str], ...]] = field(
        default_factory=lambda: {
            # stage: (name, width, class) of what the hardware preloads
            "compute": (("local_invocation_id", 3, "vgpr"), ("workgroup_id", 3, "sgpr")),
            "amplification": (("local_invocation_id", 3, "vgpr"), ("workgroup_id", 3, "sgpr")),
            "mesh": (("local_invocation_id", 3, "vgpr"), ("workgroup_id", 3, "sgpr")),
            "pixel": (("barycentrics", 2, "vgpr"), ("prim_mask", 1, "sgpr")),
            "vertex": (("vertex_id", 1, "vgpr"), ("instance_id", 1, "vgpr")),
        }
    )
    stream_componentwise_temps: bool = True
    """A single-use vector temporary between two component-wise operations costs one register."""
    vs_input_vgprs: dict[str, int] = field(default_factory=lambda: {"gcn": 4, "rdna": 9})
    """VGPRs a vertex wave starts with, by family (regtruth `input_vgprs`: navi10, navi21 and
    gfx1100 9, vega10 4), vertex and instance IDs included."""
    export_needs_vgprs: bool = True
    """Exported outputs (render targets, VS outputs) are moved into VGPRs, uniform or not."""
    fold_constant_values: bool = True
    """Values that only ever hold compile-time constants take no register (folded into uses)."""
    fold_constant_components: bool = True
    """A vector or matrix whose components are partly compile-time constants (`float4(luma, 0,
    0, 0)`) holds registers only for the others."""
    intrinsic_temp_vgprs: dict[str, int] = field(
        default_factory=lambda: {"atan2": 8, "atan": 7, "tanh": 4, "asin": 3, "acos": 2}
    )
    """VGPRs an intrinsic the compiler expands into a polynomial holds while it computes one
    component, besides its operands and result (regtruth, navi21: a per-lane float through
    `atan2` holds 8 more than through `*` with 4 or 12 other VGPRs live; `atan` 7, `tanh` 4,
    `asin` 3, `acos` 2; `sin`, `exp`, `pow`, `sqrt` and division none)."""
    uniform_float_alu_in_vgprs: bool = True
    """Wave-uniform results of floating-point arithmetic and of conversions are in VGPRs (no
    scalar floating-point ALU on GCN or RDNA 1-3), and so are moves and integer arithmetic of
    them (`liveness.vector_alu_uniforms`)."""
    hold_unrolled_common_values: bool = True
    """An unrolled loop holds the components its iterations compute alike (from a constant
    table read at the counter, or the counter itself, and loop-invariant values) from their
    first computation to their last use (`unrolled.unrolled_holds`)."""
    hold_repeated_nests: bool = True
    """A later unrolled copy of a loop nest (a helper inlined twice) reads again what an earlier
    copy computed: the compiler computes it once and holds every iteration's value from the
    first copy to the second (`repeated_nests.repeated_nest_holds`)."""
    elements_in_place: bool = True
    """The value an unrolled loop writes to a split local array, an element per iteration, is
    that element's register: the one element the current iteration writes is not held twice
    beside it (`repeated_nests.element_sources`)."""
    hold_paired_shared_reads: bool = True
    """An unrolled loop that reads 32- or 64-bit groupshared elements at constant offsets from
    one index has them read two by two, sorted by address: each pair's other word is held from
    its first's read (`paired_reads.paired_read_holds`)."""
    hold_deferred_sums: bool = True
    """A sum over an unrolled loop whose weight is a literal in the iterations a branch on the
    counters skips holds the earlier iterations' weights until the first of those: the compiler
    rebuilds the chain of additions from the constant (`deferred_sums.deferred_sum_holds`)."""
    share_bit_identical_conversions: bool = True
    """A conversion that changes no bit (`int2(id.xy)` of a `uint3`, `asfloat(u)`) is its
    operand's registers while the operand is live (`value_classes.bit_identical_conversions`)."""
    drop_unpicked_components: bool = True
    """A vector read only through constructors that pick some of its components holds
    registers only for those (`value_classes.unpicked_components`)."""
    number_components: bool = False
    """Components computed alike are one value, as the compiler's value numbering after
    scalarisation makes them (`components.number_components`): a value whose components an
    earlier one computed in the same order is that value. Off: on its repros it comes within
    0-20% of regtruth (from 40-60% below), WickedEngine and DiligentFX improve, but the four
    engines' median error goes 6.7% -> 7.9% (README, issue 21 notes pcse29)."""
    hold_shared_components: bool = True
    """A component an earlier value computed already is that value's register, held from
    there to the later value's last use, and costs nothing in the later value."""
    component_liveness: bool = True
    """A vector's components each die after their own last use, as once the compiler splits
    it into per-component registers (`component_liveness`): `v.xy` read early and
    `v.zw` late frees two registers after the first read. A read the lowering cannot name
    the components of (a fetch's coordinates, a store, a copy) reads the whole vector. A vector
    temporary streams into its reader only when the reader fuses it (a product into a sum, an
    output clamp, an input negation: `value_classes.fused_temps`); the others are held by
    component.
    With it, a float division holds its divisor's reciprocal and value numbering merges an
    operation of run-time values wherever it is written (`lowering_expr.reciprocal`, `merge`);
    a component-wise instruction reads only the components its result's live ones need (a
    component overwritten before any read is never computed), and an array of scalars or
    vectors held whole is followed by component too (an element at a constant index).
    On by default since the twentieth landing: on the eleven tune engines (471 entry points)
    the median error went 10.0% -> 6.1%, and on the held-out RBDOOM-3-BFG 20.0% -> 9.5% (README,
    "Accuracy on engine shaders"). Off, a vector's registers live until its last component's
    last use (the earlier model, kept for comparison)."""
    factor_sums: bool = True
    """A sum of products of one factor is the product of the sum (NIR's `a*b + a*c -> a*(b+c)`,
    `factored_sums`): the sum reads the products' other operands, which stay live to it (a
    texel scaled in its load helper and summed with a weight: FidelityFX RCAS). Only with the
    liveness by component (the operands' components)."""
    base_sgprs: int = 2
    """SGPRs always live in an entry point (e.g. the descriptor-set pointer)."""

    @property
    def records_components(self) -> bool:
        """Whether the lowering records which components of its operands an operation reads
        (`ops`: for the value numbering by component and the liveness by component)."""
        return self.number_components or self.component_liveness


DEFAULT_COSTS = CostModel()
