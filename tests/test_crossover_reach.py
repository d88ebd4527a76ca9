"""A crossover is reported only where the model reaches it.

A sliding-window or chunked layer keeps at most window - 1 cached tokens, so one decode step's
scores and cache read stop growing there; a learned position table gives positions to at most
`max_positions - position_offset` tokens (a decode step with L cached needs L + 1). A crossover
past either is null with the reason; the rows of the decode table are the real decode step
(`flops --decode --context L` for that layer kind), bent where the window fills.

Golden figures: the FLOP convention of tests/test_flops.py and tests/test_inference.py (2 x
multiply-adds, the scores over the attended tokens), computed from each preset's config.json
fields in the comments; kept tokens from transformers' cache (`[-window + 1:]`).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import run
from hypothesis import given, settings
from hypothesis import strategies as st

from ffn_calc.families.resolve import resolve_model
from ffn_calc.reports.crossover import crossover_report
from ffn_calc.reports.decode_crossover import decode_crossover_report
from ffn_calc.reports.inference import decode_report

PARTS = ("attention_projections", "attention_scores", "ffn")
KEYS = ("scores_vs_ffn", "scores_vs_projections", "scores_vs_dense")
OTHER = {
    "scores_vs_ffn": ("ffn",),
    "scores_vs_projections": ("attention_projections",),
    "scores_vs_dense": ("attention_projections", "ffn"),
}

# Decoders of every kind: sliding-only (Mistral, Phi-3, StarCoder2), local and global
# (Gemma 2, gpt-oss), chunked and global (Llama 4), learned positions (GPT-2, OPT, BART),
# rotary (Llama), MoE (Mixtral), MLA (DeepSeek-V2-Lite), encoder-decoder (BART, T5).
MODELS = ["mistral-7b", "phi-3-mini", "starcoder2-3b", "gemma-2-9b", "gpt-oss-20b",
          "llama-4-scout-text", "gpt2-small", "opt-1.3b", "llama-2-7b", "mixtral-8x7b",
          "deepseek-v2-lite", "bart-base", "t5-base"]  # fmt: skip


def _step(name: str, batch: int, context: int, kind: str) -> dict[str, int]:
    """`flops --decode --context L --batch B`: the layer of `kind`, per part."""
    layers = [x for x in decode_report(resolve_model(preset=name), batch, context).layers]
    layer = next(x for x in layers if x.kind == kind)
    return {g: sum(t.value for t in layer.terms if t.group == g) for g in PARTS}


def _kind(layer: str) -> str:
    return layer.removeprefix("decoder").strip(" ()")


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("batch", [1, 3])
def test_every_decode_row_is_the_decode_step(name: str, batch: int) -> None:
    r = decode_crossover_report(resolve_model(preset=name), batch)
    kind = _kind(r.layer)
    for row in r.rows:
        at = Fraction(row.exact["seq_len"])
        got = {g: Fraction(row.exact[g]) for g in PARTS}
        if at.denominator == 1:
            assert got == _step(name, batch, int(at), kind), (name, at)
        else:  # a crossover between two whole contexts: on the line through them
            lo, hi = _step(name, batch, int(at), kind), _step(name, batch, int(at) + 1, kind)
            t = at - int(at)
            assert got == {g: lo[g] + (hi[g] - lo[g]) * t for g in PARTS}, (name, at)
        if r.max_context is not None:
            assert at <= r.max_context
    # A crossover reached: the scores equal the other side there, and only there is it marked.
    marked = {m for row in r.rows for m in row.marks}
    for key in KEYS:
        at = r.flops[key]
        if at is None:
            assert key in r.never
            continue
        row = next(x for x in r.rows if Fraction(x.exact["seq_len"]) == Fraction(r.flops_exact[key] or ""))  # fmt: skip
        assert Fraction(row.exact["attention_scores"]) == sum(Fraction(row.exact[g]) for g in OTHER[key])  # fmt: skip
    assert len(marked) == sum(1 for k in KEYS if r.flops[k] is not None and r.flops[k] > 0)  # type: ignore[operator]


@pytest.mark.parametrize("name", MODELS)
def test_a_crossover_never_reached_is_never_reached(name: str) -> None:
    """Where the report says 'window', one step's scores stay below the other side at any
    context (the plateau from window - 1 on); 'positions': the crossover lies past L + 1 =
    the table's positions; where it gives L, the scores are below before it."""
    cfg = resolve_model(preset=name)
    r = decode_crossover_report(cfg, 1)
    kind = _kind(r.layer)
    for key in KEYS:
        why = r.never.get(key)
        if why == "window":
            assert r.stops_at is not None
            for L in (r.stops_at, r.stops_at + 1, 4 * r.stops_at, 10**6):
                p = _step(name, 1, L, kind)
                assert p["attention_scores"] < sum(p[g] for g in OTHER[key]), (name, key, L)
        elif why == "positions":
            assert r.max_context is not None and cfg.position_limit == r.max_context + 1
            assert Fraction(r.unbounded_exact[key]) > r.max_context
            p = _step(name, 1, r.max_context, kind)
            assert p["attention_scores"] < sum(p[g] for g in OTHER[key])
        elif why is None:
            at = Fraction(r.flops_exact[key] or "")
            if at > 1:
                p = _step(name, 1, max(1, -(-at.numerator // at.denominator) - 1), kind)
                assert p["attention_scores"] <= sum(p[g] for g in OTHER[key])


def test_mistral_decode_crossover_is_never() -> None:
    # mistral-7b: every layer slides over 4,096 tokens, so a step attends to at most 4,095
    # cached tokens and itself. Scores 2 x 32 heads x 4,096 x (128 + 128) = 67,108,864 FLOPs
    # from L = 4,095 on, below the FFN's 3 x 2 x 4,096 x 14,336 = 352,321,536 and the
    # projections' 2 x 4,096 x (4,096 + 1,024 + 1,024 + 4,096) = 83,886,080. The old line
    # put the FFN crossover at L = 21,503.
    data = run("crossover", "-p", "mistral-7b", "--decode", "-f", "json").json()
    assert data["flops"] == dict.fromkeys(KEYS) and data["flops_exact"] == dict.fromkeys(KEYS)
    assert data["bytes_context"] is None and data["bytes_context_exact"] is None
    # Bytes: 4,095 x 2 x 8 x 128 = 8,386,560 cached elements read, below 176,160,768 weights.
    assert data["never"] == dict.fromkeys([*KEYS, "bytes_context"], "window")
    assert data["stops_at"] == 4095 and data["max_context"] is None and data["unbounded"] == {}
    assert not any(row["marks"] for row in data["rows"])
    plateau = [row for row in data["rows"] if row["seq_len"] >= 4095]
    assert len(plateau) >= 3 and {row["attention_scores"] for row in plateau} == {67_108_864}
    step = run("flops", "-p", "mistral-7b", "--decode", "--context", "21503", "-f", "json").json()
    assert step["layers"][0]["terms"][-1]["value"] * 2 == 67_108_864  # QK^T + AV, equal halves
    table = run("crossover", "-p", "mistral-7b", "--decode")
    assert table.exit_code == 0
    assert "21,503" not in table.stdout and "never" in table.stdout
    assert "Never reached" in table.stdout and "4,095" in table.stdout
    # CSV holds numbers only: a crossover never reached is an empty cell.
    csv = run("crossover", "-p", "mistral-7b", "--decode", "-f", "csv").stdout.splitlines()
    assert csv[2:6] == [f"{label},," for label in (
        "scores = FFN (FLOPs of one step)", "scores = projections (FLOPs of one step)",
        "scores = projections + FFN (FLOPs of one step)",
        "cache read = FFN weights read (bytes of one step)")]  # fmt: skip
    ja = run("crossover", "-p", "mistral-7b", "--decode", "--lang", "ja")
    assert ja.exit_code == 0 and "Never reached" not in ja.stdout


def test_sliding_only_models() -> None:
    # phi-3-mini: sliding_window 2,047, so at most 2,046 cached tokens: scores 2 x 32 x 2,047
    # x 192... with head_dim 96: 2 x 32 x 2,047 x 192 = 25,153,536 < projections 2 x 3,072 x
    # 4 x 3,072 = 75,497,472. Never, for all three and the bytes.
    phi = decode_crossover_report(resolve_model(preset="phi-3-mini"), 1)
    assert phi.stops_at == 2046 and set(phi.never) == {*KEYS, "bytes_context"}
    # starcoder2-3b: window 4,096; projections 2 x 3,072 x (2 x 3,072 + 2 x 256) = 40,894,464
    # against the scores' 2 x 24 x (L + 1) x 256 = 12,288 (L + 1): L = 3,327, under 4,095, is
    # reached; the FFN's 2 x 2 x 3,072 x 12,288 = 150,994,944 (L = 12,287) is not.
    sc = decode_crossover_report(resolve_model(preset="starcoder2-3b"), 1)
    assert sc.flops == {"scores_vs_ffn": None, "scores_vs_projections": 3327, "scores_vs_dense": None}  # fmt: skip
    assert sc.never == {"scores_vs_ffn": "window", "scores_vs_dense": "window", "bytes_context": "window"}  # fmt: skip
    # The same model with a window wider than the crossover reaches it (a rule on the fields,
    # not on the model's name): mistral-7b at 65,536 tokens crosses at the old L = 21,503, but
    # its cache read (2,048 per token against 176,160,768 weights: L = 86,016) still does not.
    wide = resolve_model(preset="mistral-7b").model_copy(update={"attention_window": 65536})
    w = decode_crossover_report(wide, 1)
    assert w.flops["scores_vs_ffn"] == 21503 and w.never == {"bytes_context": "window"}
    wider = wide.model_copy(update={"attention_window": 131072})
    assert decode_crossover_report(wider, 1).bytes_context == 86016


def test_global_layers_still_cross() -> None:
    # gemma-2-9b: the crossover is about its 21 full-attention layers: 2 x 16 x (L + 1) x 512
    # against the FFN's 3 x 2 x 3,584 x 14,336 = 308,281,344: L = 18,815.
    g = run("crossover", "-p", "gemma-2-9b", "--decode", "-f", "json").json()
    assert g["layer"] == "decoder (full attention)" and g["never"] == {}
    assert g["flops"] == {"scores_vs_ffn": 18815, "scores_vs_projections": 5375, "scores_vs_dense": 24191}  # fmt: skip
    assert g["stops_at"] is None and g["bytes_context"] == 37632


def test_learned_positions_prefill() -> None:
    # gpt2-small: scores 4 x 768 x S against the FFN's 2 x 2 x 768 x 3,072 per token: S = 3,072
    # (and 1,536, 4,608), past the 1,024-position table (n_positions), so never reached.
    data = run("crossover", "-p", "gpt2-small", "-f", "json").json()
    assert data["crossover"] == dict.fromkeys(KEYS) and data["exact"] == dict.fromkeys(KEYS)
    assert data["never"] == dict.fromkeys(KEYS, "positions") and data["max_seq_len"] == 1024
    assert data["unbounded"] == {"scores_vs_ffn": 3072, "scores_vs_projections": 1536, "scores_vs_dense": 4608}  # fmt: skip
    assert data["rows"][-1]["seq_len"] == 1024 and not any(r["marks"] for r in data["rows"])
    table = run("crossover", "-p", "gpt2-small")
    assert "never" in table.stdout and "1,024-position table" in table.stdout
    assert "3,072" in table.stdout  # the formula's value, said as such
    # BART and OPT offset position ids by 2, RoBERTa's start after its padding index: the
    # tables' 1,026, 2,050 and 514 rows give 1,024, 2,048 and 512 positions.
    limits = {"bart-base": 1024, "opt-1.3b": 2048, "roberta-base": 512, "bert-base": 512}
    for name, limit in limits.items():
        r = crossover_report(resolve_model(preset=name))
        assert r.max_seq_len == limit and r.crossover == dict.fromkeys(KEYS), name
    # A wider table reaches the crossovers: the limit is the field, not the model's name.
    wide = run("crossover", "-p", "gpt2-small", "--max-positions", "8192", "-f", "json").json()
    assert wide["crossover"] == {"scores_vs_ffn": 3072, "scores_vs_projections": 1536, "scores_vs_dense": 4608}  # fmt: skip
    assert wide["never"] == {} and [r["marks"] for r in wide["rows"] if r["marks"]]


def test_learned_positions_decode() -> None:
    # gpt2-small at decode: L + 1 <= 1,024. The formula's L = 3,071, 1,535, 4,607 and the
    # bytes' 4,722,432 / 1,536 = 6,149/2 all lie past L = 1,023.
    d = decode_crossover_report(resolve_model(preset="gpt2-small"), 1)
    assert d.max_context == 1023 and set(d.never.values()) == {"positions"}
    assert d.unbounded_exact == {"scores_vs_ffn": "3071", "scores_vs_projections": "1535",
                                 "scores_vs_dense": "4607", "bytes_context": "6149/2"}  # fmt: skip
    assert d.rows[-1].seq_len == 1023


def test_rotary_model_unchanged() -> None:
    # llama-2-7b: no position table, no window: the figures of tests/test_flops.py.
    r = crossover_report(resolve_model(preset="llama-2-7b"))
    assert r.crossover == {"scores_vs_ffn": 16512, "scores_vs_projections": 8192, "scores_vs_dense": 24704}  # fmt: skip
    assert r.never == {} and r.max_seq_len is None
    assert r.rows[-1].seq_len == 32768


def test_compare_and_sweep_agree_with_the_report() -> None:
    data = run("compare", "gpt2-small", "llama-2-7b", "-f", "json").json()
    by = {m["model"]: m for m in data["models"]}
    assert by["gpt2-small"]["crossover"] == dict.fromkeys(KEYS)
    assert by["llama-2-7b"]["crossover"]["scores_vs_ffn"] == 16512
    table = run("compare", "gpt2-small", "llama-2-7b")
    assert table.exit_code == 0 and "never" in table.stdout
    # gpt2-small's n_positions = 1,024: d_ff 1,000 (S = 1,000) is reached, 2,000 is not.
    sweep = run("sweep", "-p", "gpt2-small", "--vary", "d_ff=1000,2000", "--metric",
                "scores_vs_ffn", "-f", "json").json()  # fmt: skip
    rows = sweep["rows"] if isinstance(sweep, dict) else sweep
    assert [r["scores_vs_ffn"] for r in rows] == [1000, None]
    kept = run("sweep", "-p", "gpt2-small", "--vary", "d_ff=1000,2000", "--metric",
               "scores_vs_ffn", "--where", "scores_vs_ffn>=1", "-f", "json").json()  # fmt: skip
    rows = kept["rows"] if isinstance(kept, dict) else kept
    assert [r["d_ff"] for r in rows] == [1000]


@settings(max_examples=40, deadline=None)
@given(
    window=st.one_of(st.none(), st.integers(2, 5000), st.sampled_from([2, 3])),
    positions=st.one_of(st.none(), st.integers(2, 5000)),
    d_ff=st.integers(1, 3000),
    heads=st.sampled_from([1, 2, 4]),
    batch=st.integers(1, 4),
)
def test_reach_on_random_designs(
    window: int | None, positions: int | None, d_ff: int, heads: int, batch: int
) -> None:
    """Any window and any position table: a crossover given is where the step's scores equal
    the other side at a context the model runs; one not given is not reached below the
    window's plateau or the table's last position; every row is the decode step."""
    flags: dict[str, object] = {"d_model": 64, "n_heads": heads, "d_ff": d_ff, "n_layers": 2}
    if positions is not None:
        flags |= {"positions": "learned", "max_positions": positions}
    cfg = resolve_model(flags=flags).model_copy(update={"attention_window": window})
    r = decode_crossover_report(cfg, batch)
    top = None if positions is None else positions - 1
    assert r.max_context == top and r.stops_at == (None if window is None else window - 1)

    def step(L: int) -> dict[str, int]:
        layer = decode_report(cfg, batch, L).layers[0]
        return {g: sum(t.value for t in layer.terms if t.group == g) for g in PARTS}

    for row in r.rows:
        at = Fraction(row.exact["seq_len"])
        if at.denominator == 1:
            assert {g: int(row.exact[g]) for g in PARTS} == step(int(at))
        assert top is None or at <= top
    last = min(x for x in (top, 10**6) if x is not None)
    for key in KEYS:
        at, why = r.flops[key], r.never.get(key)
        assert (at is None) == (why is not None)
        if at is not None:
            assert top is None or at <= top
            if at <= 0:  # the scores already reach the other side with nothing cached
                p = step(1)
                assert p["attention_scores"] >= sum(p[g] for g in OTHER[key])
                continue
            row = next(x for x in r.rows if x.exact["seq_len"] == r.flops_exact[key])
            assert Fraction(row.exact["attention_scores"]) == sum(Fraction(row.exact[g]) for g in OTHER[key])  # fmt: skip
        elif why == "window":
            assert window is not None
            p = step(last)
            assert p["attention_scores"] < sum(p[g] for g in OTHER[key])
        elif why == "positions":
            assert top is not None and Fraction(r.unbounded_exact[key]) > top
            p = step(top)
            assert p["attention_scores"] < sum(p[g] for g in OTHER[key])
