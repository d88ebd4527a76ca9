"""What the differential tests (tests/test_torch_oracle.py, tests/test_oracle_*.py) share.

Not a test module: each of those files calls `pytest.importorskip("torch")` and
`pytest.importorskip("transformers")` before importing it, so without the `oracle` extra they
skip cleanly and this module, which needs both, is never imported.

- `build_hf`: a transformers class instantiated from config fields, eager attention.
- `read`: ffn-calc's model of a config.json, read as `--hf-config` reads it.
- `inventory_names`, `param_shapes`: ffn-calc's untied tensors and the model's parameters, by
  real name and shape.
- `token_ids`, `counted_flops`: FlopCounterMode's count over one forward pass.
- `check_counts`: parameters, names and shapes, FLOPs of a model against ffn-calc's, and for a
  decoder-only model `check_cache`.
- `check_cache`: with the cache on, the cache after a prefill, one decode step and a whole
  `generate()` against kv_elements, decode_flops and generation_flops (any decoder).
- `check_hub_config`: all of it for one config.json, its saved checkpoint included.
- `save`, `verify`, `check_verifies`, `check_wider_ffn_fails`: `ffn-calc verify --checkpoint`
  against what `save_pretrained` writes.
- `maybe`: a config.json field drawn or left absent.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
import transformers
from conftest import Result, expand, run
from hypothesis import strategies as st
from torch.utils.flop_counter import FlopCounterMode

from ffn_calc.counts.flops import Workload, forward_flops
from ffn_calc.counts.inference import decode_flops, generation_flops, kv_elements
from ffn_calc.counts.params import total_params
from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.config import ModelConfig
from ffn_calc.reference.instantiate import instantiate


def build_hf(conf_name: str, model_name: str, fields: dict[str, Any], device: str = "cpu") -> Any:
    """transformers' `model_name` built from `conf_name(**fields)` with eager attention."""
    conf = getattr(transformers, conf_name)(**fields)
    conf._attn_implementation = "eager"
    with torch.device(device):
        return getattr(transformers, model_name)(conf)


def read(data: dict[str, Any], tmp: Path) -> ModelConfig:
    """ffn-calc's model for a config.json with these fields (written to `tmp`/config.json)."""
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "config.json"
    path.write_text(json.dumps(data, indent=2))
    return resolve_model(hf_config=path)


def inventory_names(cfg: ModelConfig) -> dict[str, tuple[int, ...]]:
    """The inventory's untied tensors by real name: each template written out per index."""
    return expand(instantiate(cfg), tied=False)


def param_shapes(model: Any) -> dict[str, tuple[int, ...]]:
    """The model's `named_parameters()`: each name and its shape."""
    return {n: tuple(p.shape) for n, p in model.named_parameters()}


def header(path: Path) -> dict[str, tuple[int, ...]]:
    """Names and shapes in a safetensors file's header (a directory: its model.safetensors)."""
    from safetensors import safe_open

    file = path / "model.safetensors" if path.is_dir() else path
    with safe_open(str(file), "pt") as f:
        return {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}  # noqa: SIM118


def token_ids(vocab: int, batch: int, s: int, device: str = "cpu") -> Any:
    """A batch x s tensor of random token ids below `vocab`."""
    return torch.randint(0, vocab, (batch, s), device=device)


def counted_flops(model: Any, *args: Any, **inputs: Any) -> int:
    """The FLOPs FlopCounterMode counts over `model(*args, **inputs)`, without gradients."""
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(*args, **inputs)
    return int(counter.get_total_flops())


def check_counts(model: Any, cfg: ModelConfig, ids: Any | None, **inputs: Any) -> None:
    """The instantiated model against ffn-calc's: (a) parameters, (b) names and shapes of the
    untied tensors, (c) FLOPs of a forward pass on `ids` (batch x seq_len token ids, with the
    other `inputs`; None: no forward pass), (d) a decoder-only model's cache, decode step and
    generate() (`check_cache`, always with the cache on)."""
    assert sum(p.numel() for p in model.parameters()) == total_params(cfg)
    assert param_shapes(model) == inventory_names(cfg)
    if ids is not None:
        batch, s = ids.shape
        got = counted_flops(model, input_ids=ids, **inputs)
        assert got == forward_flops(cfg, Workload(batch=batch, seq_len=s))
        if cfg.architecture == "decoder-only":
            check_cache(model, cfg, ids)


def cache_numel(cache: Any) -> int:
    """Elements of every cached key and value tensor (transformers' Cache layers; an
    encoder-decoder cache: its self-attention and cross-attention caches), and of a sparse
    attention layer's cached indexer keys (DynamicIndexedLayer.indexer_keys)."""
    if hasattr(cache, "cross_attention_cache"):
        return cache_numel(cache.self_attention_cache) + cache_numel(cache.cross_attention_cache)
    names = ("keys", "values", "indexer_keys")
    return sum(
        t.numel()
        for layer in cache.layers
        for t in (getattr(layer, name, None) for name in names)
        if t is not None and hasattr(t, "numel")
    )


def generated_flops(model: Any, ids: Any, new: int) -> int:
    """FlopCounterMode over `model.generate(ids)` of exactly `new` tokens, greedy, with the
    default cache (an encoder-decoder model: `ids` the source; its decoder starts from token 0
    where the config names no start token, as T5's does). generate() sizes its default cache
    by the config's num_hidden_layers, which for T5 is the encoder's num_layers: with more
    decoder layers it fails (IndexError), so there it gets the same cache grown lazily."""
    encdec = model.config.is_encoder_decoder
    start: dict[str, Any] = {}
    if encdec and model.generation_config.decoder_start_token_id is None:
        start["decoder_start_token_id"] = 0
    decoder = model.config.get_text_config(decoder=True)
    if encdec and getattr(decoder, "num_decoder_layers", None) not in (
        None,
        decoder.num_hidden_layers,
    ):
        start["past_key_values"] = transformers.EncoderDecoderCache(
            transformers.DynamicCache(), transformers.DynamicCache()
        )
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        out = model.generate(
            ids, attention_mask=torch.ones_like(ids), max_new_tokens=new, min_new_tokens=new,
            do_sample=False, num_beams=1, **start,
        )  # fmt: skip
    assert out.shape[1] == (1 if encdec else ids.shape[1]) + new  # no early stop
    return int(counter.get_total_flops())


def check_cache(model: Any, cfg: ModelConfig, ids: Any, surplus: int = 0, new: int = 3) -> None:
    """With the cache on, as generate() runs the model: (a) after a prefill of `ids` (an
    encoder-decoder model: `ids` the source and a target of about half as many tokens) the
    sum of numel() over every cached key and value equals kv_elements; (b) one decode step with
    that cache costs decode_flops; (c) generate() of `new` tokens costs generation_flops
    (FlopCounterMode; on the meta device only (a) and (b)). `surplus`: FLOPs per token and
    sequence the reference runs beyond ffn-calc's convention (Llama 4's eager experts; a
    decoder-only model)."""
    batch, s = ids.shape
    encdec = cfg.architecture == "encoder-decoder"
    with torch.no_grad():
        if encdec:
            t = max(1, s // 2)
            out = model(input_ids=ids, decoder_input_ids=ids[:, :t], use_cache=True)
            step_inputs = {"encoder_outputs": (out.encoder_last_hidden_state,),
                           "decoder_input_ids": ids[:, t - 1 : t]}  # fmt: skip
            context, source = t, s
        else:
            out = model(input_ids=ids, use_cache=True)
            step_inputs, context, source = {"input_ids": ids[:, -1:]}, s, None
        cache = out.past_key_values
        assert cache_numel(cache) == kv_elements(cfg, batch, context, source)
        step = counted_flops(model, **step_inputs, past_key_values=cache, use_cache=True)
    assert step == decode_flops(cfg, batch, context, source) + surplus * batch
    if ids.device.type != "meta":  # (a decoder-only model runs s + new - 1 tokens)
        got = generated_flops(model, ids, new)
        assert got == generation_flops(cfg, batch, s, new) + surplus * batch * (s + new - 1)


def save(model: Any, out: Path, **kwargs: Any) -> Path:
    """`model.save_pretrained(out)`, its messages on stderr discarded."""
    with contextlib.redirect_stderr(io.StringIO()):
        model.save_pretrained(out, **kwargs)
    return out


def verify(path: Path) -> Result:
    """`ffn-calc verify` of the checkpoint in `path` against the config.json beside it."""
    return run("verify", "--hf-config", str(path), "--checkpoint", str(path), "-f", "json")


def check_verifies(path: Path, cfg: ModelConfig) -> dict[str, Any]:
    """The saved checkpoint agrees with its config.json (exit 0) and its header holds every
    parameter of `cfg`; the checkpoint report, for further checks."""
    r = verify(path)
    assert r.exit_code == 0, r.stdout
    checkpoint: dict[str, Any] = r.json()["checkpoint"]
    assert checkpoint["checkpoint_params"] == total_params(cfg)
    return checkpoint


def check_wider_ffn_fails(path: Path, keys: Sequence[str], absent: int | None = None) -> None:
    """With each FFN width in `keys` one wider in config.json (a width left out or null taken
    as `absent`), the same checkpoint fails (exit 1) on the shapes."""
    config = path / "config.json"
    data = json.loads(config.read_text())
    for key in keys:
        data[key] = (data[key] if absent is None else data.get(key) or absent) + 1
    config.write_text(json.dumps(data))
    r = verify(path)
    assert r.exit_code == 1
    assert r.json()["checkpoint"]["shape_mismatches"]


def check_hub_config(
    data: dict[str, Any], build: Callable[[dict[str, Any]], Any], batch: int, s: int, tmp: Path
) -> None:
    """One config.json (its FFN width in `intermediate_size`) against the model `build` makes of
    it: parameters, names and shapes, FLOPs and a save_pretrained checkpoint, all exact."""
    torch.manual_seed(0)
    cfg = read(data, tmp)
    model = build(data).eval()
    check_counts(model, cfg, token_ids(data["vocab_size"], batch, s))
    # The checkpoint and the config.json that save_pretrained writes (every field explicit).
    out = save(model, tmp / "ckpt")
    assert total_params(resolve_model(hf_config=out)) == total_params(cfg)
    check_verifies(out, cfg)
    check_wider_ffn_fails(out, ["intermediate_size"])


def split_experts(
    names: dict[str, tuple[int, ...]], expert: re.Pattern[str]
) -> tuple[dict[str, tuple[int, ...]], dict[tuple[str, str], list[tuple[int, ...]]]]:
    """Checkpoint names apart from the per-expert ones (`expert` matches those, its groups the
    prefix, the expert's index and the projection), and the per-expert shapes by (prefix,
    projection), in order: what each family folds as transformers holds experts in memory."""
    out: dict[str, tuple[int, ...]] = {}
    experts: dict[tuple[str, str], list[tuple[int, ...]]] = {}
    for name, shape in names.items():
        m = expert.fullmatch(name)
        if m is None:
            out[name] = shape
        else:
            experts.setdefault((m[1], m[3]), []).append(shape)
    return out, experts


def moe_active(model: Any) -> int:
    """The total less, in every MoE layer, (experts - top-k) x one expert's slice of the fused
    expert tensors, from the model (the layer's experts under `mlp`, `feed_forward` or
    `mixer`)."""
    out = sum(p.numel() for p in model.parameters())
    for layer in model.model.layers:
        for block in ("mlp", "feed_forward", "mixer"):
            experts = getattr(getattr(layer, block, None), "experts", None)
            if experts is not None:
                one = sum(p[0].numel() for p in experts.parameters())
                out -= (experts.num_experts - model.config.num_experts_per_tok) * one
                break
    return int(out)


def maybe(draw: Any, out: dict[str, Any], key: str, value: Any) -> None:
    """Set `key` or leave it absent (the class default applies)."""
    if draw(st.booleans()):
        out[key] = value
