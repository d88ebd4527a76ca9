"""Zamba2, torch-free: the shared blocks as model parts (where each sits, its uses, the adapter
slots that are not nn.Identity), their FLOPs in the crossovers, and the configs the class
cannot run. Counted against transformers in test_oracle_hybrid_mamba.py.

Golden numbers are hand derivations over Zamba2Config's class defaults (transformers 5.24.0:
54 layers 2,560 wide, hybrid at 6, 12, ..., 42, 47, 51; 32 heads over 2 x 2,560, head_dim
160; intermediate_size 4 x 2,560; one shared block; MLP adapters of rank 128, no attention
adapters)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from conftest import run

from ffn_calc.counts import flops as fl
from ffn_calc.counts import reach as rc
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.config import ModelConfig

ARCH = {"model_type": "zamba2", "architectures": ["Zamba2ForCausalLM"]}
D, HIDDEN_FFN, RANK, HYBRID = 2560, 10240, 128, 9
# Per use and token: Q, K, V (2d -> 2d each) and O (2d -> d).
PROJ_PER_USE = 2 * (3 * 5120 * 5120 + 5120 * D)  # 183,500,800
# Per use and token: gate_up (d -> 2f), down (f -> d), the MLP adapter (d -> r -> 2f), linear.
FFN_PER_USE = 2 * (D * 2 * HIDDEN_FFN + HIDDEN_FFN * D + D * RANK + RANK * 2 * HIDDEN_FFN + D * D)
SCORES_PER_S = 2 * 2 * 32 * 160  # QK^T and AV per token, per S, one hybrid layer


def model(tmp_path: Path, **fields: Any) -> ModelConfig:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**ARCH, **fields}))
    return resolve_model(hf_config=path)


def test_blocks_under_their_first_hybrid_layer(tmp_path: Path) -> None:
    """Two blocks over hybrid layers 1, 2, 4: block 0 under layer 1 (uses 0 and 2), block 1
    under layer 2 (use 1); the adapters only in the slots of the block's own uses."""
    cfg = model(tmp_path, hidden_size=8, num_attention_heads=2, n_mamba_heads=2, num_hidden_layers=5,
                layers_block_type=["mamba", "hybrid", "hybrid", "mamba", "hybrid"],
                num_mem_blocks=2, use_shared_attention_adapter=True, adapter_rank=3)  # fmt: skip
    parts = {p.name: p for p in cfg.model_parts}
    q0 = parts["model.layers.1.shared_transformer.self_attn.q_proj.weight"]
    q1 = parts["model.layers.2.shared_transformer.self_attn.q_proj.weight"]
    assert (q0.shape, q0.uses, q1.uses) == ([16, 16], 2, 1)
    slots = {n.split("adapter_list.")[1][:1] for n in parts if "layers.1." in n and "_list." in n}
    assert slots == {"0", "2"}
    assert (
        "model.layers.2.shared_transformer.feed_forward.gate_up_proj_adapter_list.1.1.weight"
        in parts
    )
    assert [n for n in parts if n.endswith(".linear.weight")] == [
        f"model.layers.{i}.linear.weight" for i in (1, 2, 4)
    ]
    assert cfg.layer_mixers == [
        "mamba2",
        "shared+mamba2",
        "shared+mamba2",
        "mamba2",
        "shared+mamba2",
    ]


def test_crossovers_count_the_shared_weights(tmp_path: Path) -> None:
    """The class defaults: the whole stack's scores reach the shared blocks' FFN at S = 8,608
    and their projections at S = 8,960 (each / (9 x 20,480)); one hybrid layer's own
    crossovers are the same (its share: one use)."""
    cfg = model(tmp_path)
    assert FFN_PER_USE == 176_291_840 and PROJ_PER_USE == 183_500_800
    points = fl.crossovers(cfg)
    assert points["scores_vs_ffn"] == Fraction(HYBRID * FFN_PER_USE, HYBRID * SCORES_PER_S) == 8608
    assert points["scores_vs_projections"] == 8960
    assert points["scores_vs_dense"] == 8608 + 8960
    (hybrid,) = [k for k in rc.kind_crossovers(cfg) if k.mixer == "shared+mamba2"]
    assert hybrid.points == points
    # One decode step reads the FFN weights once per use: FLOPs / 2 per hybrid layer.
    assert rc.stack_ffn_weights_read(cfg, 1) == HYBRID * FFN_PER_USE // 2


def test_refused(tmp_path: Path) -> None:
    """Attention adapters add 2 x hidden_size outputs to Q, K and V: with fewer KV heads the
    class builds but cannot run; a layer type the class does not know; num_hidden_layers other
    than the layers listed (Zamba2Config refuses it); --training."""
    path = tmp_path / "config.json"
    for fields, phrase in (
        ({"use_shared_attention_adapter": True, "num_key_value_heads": 8}, "use_shared_attention_adapter"),
        ({"layers_block_type": ["mamba", "attention"]}, "layers_block_type"),
        ({"num_hidden_layers": 2, "layers_block_type": ["mamba"]}, "num_hidden_layers = 2"),
        ({"num_hidden_layers": 53}, "(absent: its 54 layers)"),
    ):  # fmt: skip
        path.write_text(json.dumps({**ARCH, **fields}))
        r = run("params", "--hf-config", str(path))
        assert r.exit_code == 2 and phrase in r.stderr and "Traceback" not in r.stderr
    path.write_text(json.dumps(ARCH))
    r = run("memory", "--training", "--hf-config", str(path))
    assert r.exit_code == 2 and "shared blocks" in r.stderr
