"""Differential tests: ffn-calc against the real models in PyTorch and `transformers`.

Optional: they need the `oracle` extra (`pip install torch==2.13.0 && pip install -e '.[oracle]'`)
and skip cleanly without it. Parameter counts come from the instantiated models, FLOPs from
`torch.utils.flop_counter.FlopCounterMode` over a forward pass with eager attention (the math
SDPA kernel for `torch.nn.Transformer`), tensor names from `named_parameters()`, checkpoints
from `save_pretrained`. The transformers decoders also run with the cache on: the cache after a
prefill, one decode step and generate() (`check_cache`); torch.nn.Transformer has no cache.

The family's random tiny configs (`configs`) and the check of one case (`check_case`) run in
the one harness, tests/test_oracle_cases.py, over the cases in tests/oracle_cases.py (random
draws and explicit variants); this module holds them and the family's own tests.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from conftest import run  # noqa: E402
from oracle_cases import EXPLICIT, case, classes, family_of  # noqa: E402
from oracle_support import (  # noqa: E402
    check_cache,
    check_verifies,
    counted_flops,
    inventory_names,
    param_shapes,
    save,
    token_ids,
    verify,
)
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

from ffn_calc.counts.flops import Workload, forward_flops  # noqa: E402
from ffn_calc.counts.params import total_params  # noqa: E402
from ffn_calc.families.resolve import resolve_model  # noqa: E402
from ffn_calc.model.config import ModelConfig  # noqa: E402
from ffn_calc.model.sources import dump_toml, preset_names  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

# The families built from ffn-calc's own model (tests/oracle_cases.py; torch.nn.Transformer
# has no transformers class).
HF_CLASSES = {f: c for f, c in classes("test_torch_oracle").items() if f != "transformer"}


def hf_config(cfg: ModelConfig) -> Any:
    """The `transformers` config that builds the model ffn-calc describes."""
    conf_cls = getattr(transformers, HF_CLASSES[cfg.family][0])
    ids = {"bos_token_id": 0, "eos_token_id": 0, "pad_token_id": None}
    if cfg.family == "gpt2":
        conf = conf_cls(
            n_embd=cfg.d_model, n_head=cfg.n_heads, n_layer=cfg.n_layers, n_inner=cfg.d_ff,
            n_positions=cfg.max_positions, vocab_size=cfg.vocab_size,
            tie_word_embeddings=cfg.tie_embeddings, **ids,
        )  # fmt: skip
    elif cfg.family == "bert":
        conf = conf_cls(
            hidden_size=cfg.d_model, num_attention_heads=cfg.n_heads, num_hidden_layers=cfg.n_layers,
            intermediate_size=cfg.d_ff, max_position_embeddings=cfg.max_positions,
            vocab_size=cfg.vocab_size, type_vocab_size=cfg.type_vocab_size, pad_token_id=None,
        )  # fmt: skip
    else:
        extra: dict[str, Any] = {}
        if cfg.family == "llama":
            extra = {"attention_bias": cfg.attention_bias, "mlp_bias": cfg.ffn_bias}
        if cfg.family == "mixtral":
            extra = {
                "num_local_experts": cfg.n_experts,
                "num_experts_per_tok": cfg.experts_per_token,
            }
        conf = conf_cls(
            hidden_size=cfg.d_model, intermediate_size=cfg.d_ff, num_attention_heads=cfg.n_heads,
            num_key_value_heads=cfg.kv_heads, head_dim=cfg.head_size,
            num_hidden_layers=cfg.n_layers, vocab_size=cfg.vocab_size,
            tie_word_embeddings=cfg.tie_embeddings, max_position_embeddings=4096, **ids, **extra,
        )  # fmt: skip
    conf._attn_implementation = "eager"
    if cfg.family == "mixtral":
        conf._experts_implementation = "eager"
    return conf


class Seq2Seq(torch.nn.Module):
    """The original Transformer: nn.Transformer without its final stack norms, one shared
    embedding that is also the pre-softmax projection (Vaswani et al. 2017, sec. 3.4)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.embedding = torch.nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.transformer = torch.nn.Transformer(
            cfg.d_model, cfg.n_heads, cfg.encoder_layers, cfg.decoder_layers, cfg.d_ff,
            dropout=0.0, batch_first=True,
        )  # fmt: skip
        self.transformer.encoder.norm = None
        self.transformer.decoder.norm = None
        self.lm_head = torch.nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        self.lm_head.weight = self.embedding.weight

    def forward(self, src: Any, tgt: Any) -> Any:
        return self.lm_head(self.transformer(self.embedding(src), self.embedding(tgt)))


def build(cfg: ModelConfig, device: str = "cpu") -> Any:
    with torch.device(device):
        if cfg.family == "transformer":
            return Seq2Seq(cfg)
        model_cls = getattr(transformers, HF_CLASSES[cfg.family][1])
        return model_cls(hf_config(cfg))


def torch_flops(
    cfg: ModelConfig, model: Any, batch: int, s: int, t: int | None, device: str
) -> int:
    """FlopCounterMode over one forward: B x S tokens (and B x T target tokens for the
    Transformer, through the math SDPA kernel)."""
    vocab = cfg.vocab_size or 1
    ids = token_ids(vocab, batch, s, device)
    if cfg.family != "transformer":
        return counted_flops(model, input_ids=ids)
    tgt = token_ids(vocab, batch, t or s, device)
    with sdpa_kernel(SDPBackend.MATH):
        return counted_flops(model, ids, tgt)


def param_names(model: Any) -> dict[str, tuple[int, ...]]:
    return {
        n.removeprefix("transformer.")
        if n.startswith("transformer.encoder") or n.startswith("transformer.decoder")
        else n: s
        for n, s in param_shapes(model).items()
    }


# --- every preset, at full size on the meta device ------------------------------------------


# The presets of the families above; each other family's tests/test_oracle_*.py checks its own.
PRESETS = [
    n for n in preset_names() if resolve_model(preset=n).family in {*HF_CLASSES, "transformer"}
]


@pytest.mark.parametrize("name", PRESETS)
def test_preset_params_and_names(name: str) -> None:
    cfg = resolve_model(preset=name)
    model = build(cfg, "cpu" if cfg.family == "transformer" else "meta")
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    if cfg.family != "mixtral":  # transformers keeps Mixtral's experts fused in memory
        assert param_names(model) == inventory_names(cfg)


@pytest.mark.parametrize("name", [n for n in PRESETS if not n.startswith("mixtral")])
def test_preset_forward_flops(name: str) -> None:
    cfg = resolve_model(preset=name)
    device = "cpu" if cfg.family == "transformer" else "meta"
    model = build(cfg, device)
    t = 32 if cfg.family == "transformer" else None
    got = torch_flops(cfg, model, 2 if t else 1, 64, t, device)
    assert got == forward_flops(cfg, Workload(batch=2 if t else 1, seq_len=64, target_len=t))


# --- random small configs per family, run on the CPU for real ----------------------------------


def small_configs(family: str) -> st.SearchStrategy[ModelConfig]:
    @st.composite
    def make(draw: Any) -> ModelConfig:
        heads = draw(st.integers(1, 4))
        kv = draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))
        head_dim = draw(st.sampled_from([2, 4, 6, 8]))  # rotary needs an even head_dim
        base = draw(st.integers(1, 8))
        d_model = heads * base * 2 if draw(st.booleans()) else heads * head_dim
        fields: dict[str, Any] = {
            "family": family, "n_layers": draw(st.integers(1, 2)), "d_model": d_model,
            "n_heads": heads, "d_ff": draw(st.integers(1, 48)),
            "vocab_size": draw(st.integers(8, 64)),
        }  # fmt: skip
        if family == "gpt2":
            fields |= {"activation": "gelu_tanh", "attention_bias": True, "ffn_bias": True,
                       "positions": "learned", "max_positions": 16,
                       "tie_embeddings": draw(st.booleans())}  # fmt: skip
            fields["d_model"] = heads * base * 2
        elif family == "bert":
            fields |= {"architecture": "encoder-only", "activation": "gelu", "attention_bias": True,
                       "ffn_bias": True, "final_norm": False, "embedding_norm": True,
                       "positions": "learned", "max_positions": 16, "lm_head": False,
                       "pooler": True, "type_vocab_size": draw(st.integers(1, 3))}  # fmt: skip
            fields["d_model"] = heads * base * 2
        elif family == "transformer":
            fields |= {"architecture": "encoder-decoder", "activation": "relu",
                       "attention_bias": True, "ffn_bias": True, "final_norm": False,
                       "positions": "sinusoidal", "tie_embeddings": True,
                       "n_decoder_layers": draw(st.integers(1, 2))}  # fmt: skip
            fields["d_model"] = heads * base * 2
        else:
            fields |= {"n_kv_heads": kv, "head_dim": head_dim, "activation": "swiglu",
                       "norm": "rmsnorm", "positions": "rotary",
                       "tie_embeddings": draw(st.booleans())}  # fmt: skip
            if family == "llama":
                fields |= {"attention_bias": draw(st.booleans()), "ffn_bias": draw(st.booleans())}
            if family == "qwen2":
                fields |= {"attention_bias": True, "attention_out_bias": False}
            if family == "mixtral":
                experts = draw(st.integers(1, 4))
                fields |= {"n_experts": experts, "experts_per_token": draw(st.integers(1, experts))}
        return ModelConfig.model_validate(fields)

    return make()


def configs(family: str) -> st.SearchStrategy[ModelConfig]:
    """The harness's random configs (tests/test_oracle_cases.py)."""
    return small_configs(family)


def check_case(data: ModelConfig | dict[str, Any], batch: int, s: int, t: int, tmp: Path) -> None:
    """One case through the harness (tests/test_oracle_cases.py): parameters, names, FLOPs
    (T target tokens for torch.nn.Transformer), a decoder's cache, decode step and
    generate(), and the save_pretrained checkpoint against `verify --config` and
    `verify --hf-config`, then with d_ff one wider."""
    cfg = data if isinstance(data, ModelConfig) else ModelConfig.model_validate(data)
    family = cfg.family
    torch.manual_seed(0)
    model = build(cfg)
    if family != "transformer":  # nn.Transformer's eval fast path is not seen by FlopCounterMode
        model.eval()
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    if family != "mixtral":
        assert param_names(model) == inventory_names(cfg)
    target = t if family == "transformer" else None
    got = torch_flops(cfg, model, batch, s, target, "cpu")
    assert got == forward_flops(cfg, Workload(batch=batch, seq_len=s, target_len=target))
    if cfg.architecture == "decoder-only":  # the cache, a decode step, generate()
        check_cache(model, cfg, token_ids(cfg.vocab_size or 1, batch, s))
    if family != "transformer":  # save_pretrained, then compare the file's header
        out = save(model, tmp / "ckpt")
        toml = out / "model.toml"
        toml.write_text(dump_toml(cfg))
        r = run("verify", "--config", str(toml), "--checkpoint", str(out), "-f", "json")
        assert r.exit_code == 0, r.stdout
        r = verify(out)
        assert r.exit_code == 0, r.stdout
        wrong = toml.read_text().replace(f"d_ff = {cfg.d_ff}", f"d_ff = {cfg.d_ff + 1}")
        toml.write_text(wrong)
        r = run("verify", "--config", str(toml), "--checkpoint", str(out), "-f", "json")
        assert r.exit_code == 1
        assert r.json()["checkpoint"]["shape_mismatches"]


def test_checkpoint_of_a_sharded_save(tmp_path: Path) -> None:
    cfg = resolve_model(
        hf_config=Path(__file__).parent / "data" / "checkpoints" / "tiny-llama-gqa.config.json"
    )
    model = build(cfg.model_copy(update={"family": "llama"}))
    save(model, tmp_path, max_shard_size="20KB")
    assert (tmp_path / "model.safetensors.index.json").exists()
    r = verify(tmp_path)
    assert r.exit_code == 0, r.stdout
    assert r.json()["checkpoint"]["checkpoint_params"] == 66_096  # the tiny Llama's header sum


# The explicit cases built from ffn-calc's model by a transformers class.
SAVED = sorted(label for label, d in EXPLICIT.items() if family_of(d) in HF_CLASSES)


@pytest.mark.parametrize("label", SAVED)
def test_save_pretrained_checkpoints(label: str, tmp_path: Path) -> None:
    """One layer more in the saved config.json: the checkpoint lacks its tensors."""
    cfg = ModelConfig.model_validate(case(label))
    model = build(cfg)
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    check_verifies(save(model, tmp_path), cfg)
    config = json.loads((tmp_path / "config.json").read_text())
    key = "n_layer" if cfg.family == "gpt2" else "num_hidden_layers"
    more = {key: config[key] + 1}
    if config.get("layer_types"):  # one type per layer (Qwen2's): the new layer's too
        more["layer_types"] = [*config["layer_types"], config["layer_types"][-1]]
    (tmp_path / "config.json").write_text(json.dumps({**config, **more}))
    r = verify(tmp_path)
    assert r.exit_code == 1 and r.json()["checkpoint"]["missing"]
