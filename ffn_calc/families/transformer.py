"""The original Transformer as `torch.nn.Transformer` builds it (no config.json).

Post-LN layers; self-attention through MultiheadAttention's fused in_proj_weight (separate
q/k/v_proj_weight when the widths differ); the decoder's norms are norm1 (self-attention),
norm2 (cross-attention) and norm3 (FFN).
"""

from __future__ import annotations

from ffn_calc.families.tensor_names import Naming
from ffn_calc.model.config import ModelConfig

ARCHITECTURE = "torch.nn.Transformer"

NAMING = Naming(
    layer="{stack}.layers.{i}.",
    q="self_attn.q_proj_weight",
    k="self_attn.k_proj_weight",
    v="self_attn.v_proj_weight",
    fused_qkv="self_attn.in_proj",
    o="self_attn.out_proj",
    cross_q="multihead_attn.q_proj_weight",
    cross_k="multihead_attn.k_proj_weight",
    cross_v="multihead_attn.v_proj_weight",
    cross_fused="multihead_attn.in_proj",
    cross_o="multihead_attn.out_proj",
    up="linear1",
    down="linear2",
    gate="linear_gate",
    norm_attn="norm1",
    norm_cross="norm2",
    norm_ffn="norm2",
    final_norm="{stack}.norm",
    tok="embedding",
    target_tok="target_embedding",
    torch_mha=True,
    decoder={"norm_ffn": "norm3"},
    architecture="encoder-decoder",
)


def naming(cfg: ModelConfig) -> Naming:
    return NAMING
