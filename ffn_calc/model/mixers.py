"""The sizes of token mixers other than attention, each a nested model of ModelConfig.

A layer's token mixer is named per layer in ModelConfig.layer_mixers ("full" attention,
"mamba2", ... or "none" for an FFN-only layer; model.layer_kinds.MIXERS holds the rows); the
sizes of a mixer live in its own field of ModelConfig (`mamba2: Mamba2Config`), read by its
counting module (counts.mixers). Field names follow the transformers configuration classes.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from ffn_calc.limits import MAX_SIZE

PositiveInt = Annotated[int, Field(gt=0, le=MAX_SIZE)]


class Mamba2Config(BaseModel):
    """A Mamba-2 (SSD) mixer (transformers Mamba2Mixer and its copies in Nemotron-H,
    Granite 4.0-H, Falcon-H1, Bamba): in_proj to [gate z, x, B, C, dt], a depthwise causal
    convolution over [x, B, C], the chunked SSD scan, a gated RMSNorm, out_proj."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)

    heads: PositiveInt = Field(description="SSM heads (num_heads / mamba_num_heads).")
    head_dim: PositiveInt = Field(description="Channels per head (head_dim / mamba_head_dim).")
    state_size: PositiveInt = Field(description="State size N per head (state_size).")
    n_groups: PositiveInt = Field(1, description="Groups sharing B and C (n_groups).")
    conv_kernel: PositiveInt = Field(4, description="Width K of the causal convolution.")
    chunk_size: PositiveInt = Field(256, description="Chunk length of the SSD scan.")
    inner: PositiveInt | None = Field(
        None,
        description="Width of x and the gate (intermediate_size, mamba_d_ssm; default "
        "heads x head_dim).",
    )
    proj_bias: bool = Field(False, description="Biases on in_proj and out_proj (use_bias).")
    out_bias: bool | None = Field(
        None,
        description="A bias on out_proj where it differs from in_proj's (Falcon-H1's "
        "projectors_bias); default proj_bias.",
    )
    conv_bias: bool = Field(True, description="A bias on the convolution (use_conv_bias).")
    gated_norm: bool = Field(
        True,
        description="The gated RMSNorm [inner] before out_proj (false: Falcon-H1's "
        "mamba_rms_norm false, a plain gate).",
    )

    @property
    def out_proj_bias(self) -> bool:
        return self.proj_bias if self.out_bias is None else self.out_bias

    @property
    def width(self) -> int:
        """The width of x and the gate z."""
        return self.heads * self.head_dim if self.inner is None else self.inner

    @property
    def bc(self) -> int:
        """The width of B and of C: n_groups x state_size."""
        return self.n_groups * self.state_size

    @property
    def conv_dim(self) -> int:
        """Channels of the convolution: x, B and C."""
        return self.width + 2 * self.bc

    @property
    def in_width(self) -> int:
        """in_proj's outputs: z, x, B, C and dt (one per head)."""
        return 2 * self.width + 2 * self.bc + self.heads


class GatedDeltaNetConfig(BaseModel):
    """A gated DeltaNet mixer (transformers Qwen3NextGatedDeltaNet): in_proj_qkvz to [q, k, v,
    gate z], in_proj_ba to [beta, a] (one each per value head), a depthwise causal convolution
    over [q, k, v] (no bias), dt_bias and A_log per value head, the chunked gated delta rule,
    a gated RMSNorm [value_head_dim] shared by the heads, out_proj. Qwen3.5's
    (Qwen3_5GatedDeltaNet) splits the two input projections into four of the same widths in
    all: in_proj_qkv, in_proj_z, in_proj_b, in_proj_a (`split_projections`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)

    key_heads: PositiveInt = Field(description="Query/key heads (linear_num_key_heads).")
    value_heads: PositiveInt = Field(description="Value heads (linear_num_value_heads).")
    key_head_dim: PositiveInt = Field(description="Width of a key head (linear_key_head_dim).")
    value_head_dim: PositiveInt = Field(
        description="Width of a value head (linear_value_head_dim)."
    )
    conv_kernel: PositiveInt = Field(4, description="Width K of the causal convolution.")
    chunk_size: PositiveInt = Field(
        64, description="Chunk length Q of the delta rule's torch path (its default, 64)."
    )
    split_projections: bool = Field(
        False,
        description="Four input projections (Qwen3.5's in_proj_qkv, in_proj_z, in_proj_b, "
        "in_proj_a) instead of two (in_proj_qkvz, in_proj_ba); the same widths in all.",
    )

    @property
    def key_dim(self) -> int:
        return self.key_heads * self.key_head_dim

    @property
    def value_dim(self) -> int:
        return self.value_heads * self.value_head_dim

    @property
    def conv_dim(self) -> int:
        """Channels of the convolution: q, k and v."""
        return 2 * self.key_dim + self.value_dim

    @property
    def qkvz(self) -> int:
        """in_proj_qkvz's outputs: q, k, v and the gate z."""
        return 2 * self.key_dim + 2 * self.value_dim

    @property
    def projections(self) -> list[tuple[str, str, int]]:
        """The input projections from d_model: (name, its outputs as a formula, outputs)."""
        if self.split_projections:
            return [
                ("in_proj_qkv", "2 key_dim + value_dim", self.conv_dim),
                ("in_proj_z", "value_dim", self.value_dim),
                ("in_proj_b", "value_heads", self.value_heads),
                ("in_proj_a", "value_heads", self.value_heads),
            ]
        return [
            ("in_proj_qkvz", "2 key_dim + 2 value_dim", self.qkvz),
            ("in_proj_ba", "2 value_heads", 2 * self.value_heads),
        ]


class KdaConfig(BaseModel):
    """A Kimi Delta Attention mixer (transformers KimiLinearDeltaAttention): q/k/v_proj, a
    depthwise causal convolution over [q, k, v] (no bias), the forget gate (f_a_proj,
    f_b_proj, dt_bias per channel, A_log per head), b_proj, the output gate (g_a_proj,
    g_b_proj), the chunked delta rule with per-channel decay, a gated RMSNorm [head_dim]
    (o_norm), o_proj."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)

    heads: PositiveInt = Field(description="Heads (linear_num_heads).")
    head_dim: PositiveInt = Field(description="Width of a head (linear_head_dim).")
    conv_kernel: PositiveInt = Field(4, description="Width K of the causal convolution.")
    chunk_size: PositiveInt = Field(
        64, description="Chunk length Q of the delta rule's torch path (its default, 64)."
    )

    @property
    def width(self) -> int:
        """heads x head_dim: the width of q, k, v and the gates."""
        return self.heads * self.head_dim


class ShortConvConfig(BaseModel):
    """A gated short convolution (LFM2's Lfm2ShortConv): in_proj to [B, C, x] (3 x d_model),
    B x x through a depthwise causal convolution of width conv_L_cache, C times its output,
    out_proj [d_model, d_model]; the channels are the model's hidden_size."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)

    conv_kernel: PositiveInt = Field(3, description="Width K of the convolution (conv_L_cache).")
    bias: bool = Field(False, description="Biases on in_proj, conv and out_proj (conv_bias).")


class MambaConfig(BaseModel):
    """A Mamba-1 selective-scan mixer (transformers JambaMambaMixer): in_proj to [x, gate]
    (2 x inner), a depthwise causal convolution over x, x_proj to [dt, B, C], dt_proj,
    A_log [inner, state], D, out_proj; Jamba's RMSNorms on dt, B and C."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)

    inner: PositiveInt = Field(description="Width of x and the gate (mamba_expand x hidden).")
    state_size: PositiveInt = Field(16, description="State size N per channel (mamba_d_state).")
    conv_kernel: PositiveInt = Field(4, description="Width K of the convolution (mamba_d_conv).")
    dt_rank: PositiveInt = Field(description="Rank of the time step (mamba_dt_rank).")
    conv_bias: bool = Field(True, description="A bias on the convolution (mamba_conv_bias).")
    proj_bias: bool = Field(False, description="Biases on in_proj, out_proj (mamba_proj_bias).")
    dt_bc_norms: bool = Field(
        True, description="RMSNorms on dt [dt_rank], B and C [state] (Jamba's)."
    )


class LightningConfig(BaseModel):
    """Lightning attention (transformers MiniMaxLightningAttention): qkv_proj [3 H P, d_model]
    (SiLU), block-wise linear attention with decay, an RMSNorm [H P], a sigmoid output gate
    [H P, d_model], out_proj [d_model, H P]."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)

    heads: PositiveInt = Field(description="Heads H (num_attention_heads).")
    head_dim: PositiveInt = Field(description="Channels per head P (head_dim).")
    block_size: PositiveInt = Field(256, description="Block length of the scan (block_size).")
