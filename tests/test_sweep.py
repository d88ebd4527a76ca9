"""`ffn-calc sweep` and ffn_calc.sweep: axes, metrics, filters, skipped combinations, every
model source and format, streaming, and ModelConfig.varied (the sweep's validation)."""

from __future__ import annotations

import csv
import io
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, DOCS, readme_block, run, shown
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from strategies import model_configs

import ffn_calc
from ffn_calc.model.config import ModelConfig
from ffn_calc.output import sweep as sweep_output
from ffn_calc.sweeps.metrics import parse_metric
from ffn_calc.sweeps.run import (
    MAX_COMBINATIONS,
    Sweep,
    parse_axis,
    parse_bound,
    parse_filter,
)

LLAMA = ffn_calc.load(preset="llama-2-7b")


# --- axes, metrics, filters -------------------------------------------------------------------


def test_axes() -> None:
    assert list(parse_axis("d_ff=8192:16384:1024").values) == list(range(8192, 16385, 1024))
    assert list(parse_axis("n_layers=1:3").values) == [1, 2, 3]  # the end is included
    assert list(parse_axis("n_layers=1:64:*2").values) == [1, 2, 4, 8, 16, 32, 64]
    assert list(parse_axis("n_layers=3:100:*3").values) == [3, 9, 27, 81]
    assert list(parse_axis("n_kv_heads=1,2, 4,none").values) == [1, 2, 4, None]
    assert list(parse_axis("activation=gelu,swiglu").values) == ["gelu", "swiglu"]
    assert list(parse_axis("tie_embeddings=true,false").values) == [True, False]
    assert list(parse_axis("d_ff=1_024").values) == [1024]
    big = parse_axis("d_ff=1:1000000")  # a range stays a range: nothing is listed
    assert isinstance(big.values, range) and len(big.values) == 1_000_000


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("d_ff", "write FIELD=START:STOP[:STEP]"),
        ("d_f=1,2", "unknown field 'd_f'. Did you mean d_ff"),
        ("name=a,b", "name cannot be varied"),
        ("dense_ffn_layers=1", "cannot be varied"),
        ("d_ff=10:1", "starts after it stops (10 > 1)"),
        ("d_ff=1:10:0", "the step must be at least 1"),
        ("d_ff=1:10:*1", "*k step needs k >= 2"),
        ("d_ff=0:10", "0 is not a valid d_ff: input should be greater than 0"),
        (f"d_ff=1:{2**40 + 1}", "is not a valid d_ff: input should be less than or equal to"),
        ("d_ff=1,x", "'x' is not an integer"),
        ("d_ff=1.5", "'1.5' is not an integer"),
        ("d_ff=1,1", "a value is listed twice"),
        ("d_ff=none", "'none' is not an integer"),
        ("activation=tanh", "activation is one of relu, gelu"),
        ("activation=a:b", "activation is not an integer field"),
        ("tie_embeddings=yes", "tie_embeddings is true or false"),
        ("d_ff=1:2:3:4", "a range is START:STOP or START:STOP:STEP"),
    ],
)
def test_bad_axes_exit_2_naming_the_problem(spec: str, message: str) -> None:
    r = run("sweep", "--preset", "gpt2-small", "--vary", spec)
    assert r.exit_code == 2 and r.stdout == "", r.stdout
    assert message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_metrics_and_filters() -> None:
    assert parse_metric("forward_flops@2048").name == "forward_flops@2048"
    assert parse_metric("kv_bytes@1_000").argument == 1000
    f = parse_filter("total_params <= 7B")
    assert (f.metric.name, f.op, f.bound) == ("total_params", "<=", 7 * 10**9)
    assert parse_filter("ffn_share>=60%").bound * 100 == 60
    assert parse_filter("scores_vs_ffn=4096").op == "=="
    assert parse_bound("7e9", "x") == 7 * 10**9
    assert parse_bound("1/3", "x") * 3 == 1
    assert parse_bound("6.5G", "x") == 6_500_000_000
    for bad, message in [
        ("total_param", "unknown metric 'total_param'. Did you mean total_params"),
        ("forward_flops", "needs a sequence length: forward_flops@2048"),
        ("total_params@5", "takes no @ argument"),
        ("kv_bytes@0", "a context length from 1 to"),
    ]:
        r = run("sweep", "-p", "gpt2-small", "--vary", "d_ff=1,2", "--metric", bad)
        assert r.exit_code == 2 and r.stdout == "" and message in r.stderr, r.stderr
    for bad, message in [
        ("total_params<<7", "'<7' is not a number"),
        ("total_params", "write METRIC OP NUMBER"),
        ("total_params<=seven", "'seven' is not a number"),
        ("params<=7", "unknown metric 'params'"),
    ]:
        r = run("sweep", "-p", "gpt2-small", "--vary", "d_ff=1,2", "--where", bad)
        assert r.exit_code == 2 and r.stdout == "" and message in r.stderr, r.stderr


def test_a_metric_that_cannot_apply_is_an_error_not_a_skip() -> None:
    r = run("sweep", "-p", "bert-base", "--vary", "d_ff=1,2", "--metric", "kv_bytes@100")
    assert r.exit_code == 2 and r.stdout == ""
    assert "bert-base is encoder-only: it generates nothing and keeps no KV cache" in r.stderr


def test_too_many_combinations() -> None:
    r = run("sweep", "-p", "gpt2-small", "--vary", "d_ff=1:100000", "--vary", "vocab_size=1:1000")
    assert r.exit_code == 2 and f"at most {MAX_COMBINATIONS:,}" in r.stderr


def test_a_field_varied_twice() -> None:
    r = run("sweep", "-p", "gpt2-small", "--vary", "d_ff=1,2", "--vary", "d_ff=3")
    assert r.exit_code == 2 and "d_ff is varied twice" in r.stderr


# --- rows -----------------------------------------------------------------------------------


def test_rows_equal_the_single_model_reports() -> None:
    s = ffn_calc.sweep(
        LLAMA,
        vary={"d_ff": "10000:12016:1008", "n_kv_heads": [4, 32]},
        metrics=["total_params", "active_params", "non_embedding_params", "ffn_params",
                 "forward_flops@4096", "training_flops@128", "scores_vs_ffn",
                 "scores_vs_dense", "kv_bytes@8192", "kv_elements@7", "decode_flops@300",
                 "weights_bytes", "ffn_share"],
    )  # fmt: skip
    rows = list(s)
    assert len(rows) == 3 * 2 and s.matched == 6
    for row in rows:
        m = ffn_calc.load(preset="llama-2-7b", d_ff=row["d_ff"], n_kv_heads=row["n_kv_heads"])
        p = ffn_calc.params(m)
        assert row["total_params"] == p.total_params == 2 * row["weights_bytes"] // 4
        assert row["active_params"] == p.active_params
        assert row["non_embedding_params"] == p.non_embedding_params
        assert row["ffn_params"] == p.components["ffn"]
        assert row["ffn_share"] == p.shares["ffn"]
        assert row["forward_flops@4096"] == ffn_calc.flops(m, seq_len=4096).forward_flops
        assert row["training_flops@128"] == ffn_calc.flops(m, seq_len=128).training_flops
        c = ffn_calc.crossover(m).crossover
        assert (row["scores_vs_ffn"], row["scores_vs_dense"]) == (
            c["scores_vs_ffn"],
            c["scores_vs_dense"],
        )
        assert row["kv_bytes@8192"] == ffn_calc.kv(m, context=8192).kv_bytes
        assert row["kv_elements@7"] == ffn_calc.kv(m, context=7).kv_elements
        assert row["decode_flops@300"] == ffn_calc.decode(m, context=300).decode_flops
    # Llama-2-7B itself, d_ff 11,008 with 32 KV heads: 6,738,415,616 (LlamaForCausalLM, the
    # reference set's llama-2-7b case).
    (row,) = ffn_calc.sweep(LLAMA, vary={"d_ff": [11008]})
    assert row == {"d_ff": 11008, "total_params": 6_738_415_616}


def test_moe_rows() -> None:
    mixtral = ffn_calc.load(preset="mixtral-8x7b")
    rows = list(ffn_calc.sweep(mixtral, vary={"experts_per_token": "1:3"},
                               metrics=["total_params", "active_params"]))  # fmt: skip
    # Mixtral 8x7B: 46,702,792,704 total, 12,879,925,248 active at k = 2 (MixtralForCausalLM,
    # the reference set's mixtral case); one expert is 3 x 4,096 x 14,336 over 32 layers.
    expert = 32 * 3 * 4096 * 14336
    assert [r["total_params"] for r in rows] == [46_702_792_704] * 3
    assert [r["active_params"] for r in rows] == [
        12_879_925_248 - expert,
        12_879_925_248,
        12_879_925_248 + expert,
    ]


def test_where_is_exact_and_inclusive() -> None:
    total = 6_738_415_616
    keep = list(
        ffn_calc.sweep(LLAMA, vary={"d_ff": [11008, 11009]}, where=[f"total_params<={total}"])
    )
    assert [r["d_ff"] for r in keep] == [11008]
    s = ffn_calc.sweep(LLAMA, vary={"d_ff": [11008, 11009]}, where=[f"total_params>{total}"])
    assert [r["d_ff"] for r in s] == [11009] and s.filtered_out == 1
    # A filter's metric is computed and shown even when not asked for as a column.
    (row,) = ffn_calc.sweep(LLAMA, vary={"d_ff": [11008]}, metrics=["ffn_params"],
                            where=["scores_vs_ffn>=1"])  # fmt: skip
    assert list(row) == ["d_ff", "ffn_params", "scores_vs_ffn"]


def test_invalid_combinations_are_skipped_and_counted() -> None:
    s = ffn_calc.sweep(LLAMA, vary={"n_heads": "30:33", "n_kv_heads": [1, 3, 8]})
    rows = list(s)
    # 4,096 / n_heads: only 32 divides; of its KV heads, 1 and 8 divide 32.
    assert [(r["n_heads"], r["n_kv_heads"]) for r in rows] == [(32, 1), (32, 8)]
    assert s.skipped == {
        "n_heads must divide d_model; set head_dim to use heads that do not divide it": 9,
        "n_kv_heads must divide n_heads": 1,
    }
    assert s.first_skipped["n_kv_heads must divide n_heads"] == {"n_heads": 32, "n_kv_heads": 3}
    assert s.matched + sum(s.skipped.values()) == s.combinations == 12


@pytest.mark.parametrize(
    ("base", "vary", "metric", "english", "words"),
    [
        # gpt2-small at 1,024 tokens: a 512-position table is too short (counts the S the
        # metric asks for against max_positions; model.config.check_positions).
        ("gpt2-small", {"max_positions": [512, 2048]}, "forward_flops@1024",
         "forward_flops@1024: 1,024 tokens do not fit the learned position table of gpt2-small",
         ("1,024", "512")),
        # An encoder-only combination keeps no cache (counts.inference.kv_kinds).
        ("gpt2-small", {"architecture": ["decoder-only", "encoder-only"]}, "decode_flops@16",
         "gpt2-small is encoder-only: it generates nothing and keeps no KV cache", ("gpt2-small",)),
    ],
)  # fmt: skip
def test_a_skipped_combination_is_counted_in_english_from_one_evaluation(
    base: str, vary: dict[str, list[Any]], metric: str, english: str, words: tuple[str, ...],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """In Japanese, a combination an error skips is validated and counted once: its reason in
    English (what JSON and CSV hold) and its message in Japanese come from the same error."""
    from ffn_calc.i18n.translate import use

    built: list[object] = []
    varied = ModelConfig.varied

    def counted(self: ModelConfig, *args: Any, **kwargs: Any) -> ModelConfig:
        built.append(dict(args[0]))
        return varied(self, *args, **kwargs)

    model = ffn_calc.load(preset=base)
    monkeypatch.setattr(ModelConfig, "varied", counted)
    with use("ja"):
        s = ffn_calc.sweep(model, vary, [metric])
        rows = list(s)
    assert len(rows) == 1 and len(built) == s.combinations == 2  # no combination built twice
    assert list(s.skipped) == [english]
    message = next(iter(s.first_message.values()))
    assert not message.isascii() and all(w in message for w in words), message


def test_an_error_raised_with_a_message_keeps_its_english() -> None:
    from ffn_calc.errors import UsageError
    from ffn_calc.i18n.translate import N_, say, use

    with use("ja"):
        exc = UsageError(say(N_("{model} is encoder-only: it generates nothing and keeps no KV cache."), model="m"))  # fmt: skip
    assert str(exc.text) == "m is encoder-only: it generates nothing and keeps no KV cache."
    assert str(exc).startswith("m ") and not str(exc).isascii()  # shown when it was raised
    assert UsageError("plain").text is None and str(UsageError("plain")) == "plain"


def test_iterating_twice_gives_the_same_rows() -> None:
    s = ffn_calc.sweep(LLAMA, vary={"d_ff": "1:5"})
    assert list(s) == list(s) and s.matched == 5


# --- the command: every model source and format -------------------------------------------------


def sources(tmp_path: Path) -> list[list[str]]:
    toml = tmp_path / "m.toml"
    toml.write_text("n_layers = 2\nd_model = 64\nn_heads = 4\nd_ff = 256\nvocab_size = 100\n")
    hf = DATA / "checkpoints" / "tiny-llama-gqa.config.json"
    return [["--preset", "gpt2-small"], ["--config", str(toml)], ["--hf-config", str(hf)],
            ["--d-model", "64", "--n-heads", "4"], ["--preset", "gpt2-small", "--n-layers", "2"]]  # fmt: skip


def test_every_source_and_format(tmp_path: Path) -> None:
    for src in sources(tmp_path):
        args = ["sweep", *src, "--vary", "d_ff=100:400:100", "--vary", "n_heads=1,3,4",
                "--metric", "total_params", "--metric", "forward_flops@64",
                "--where", "forward_flops@64>0"]  # fmt: skip
        base = ffn_calc.load(**_load_args(src))
        expected = list(Sweep(base, [parse_axis("d_ff=100:400:100"), parse_axis("n_heads=1,3,4")],
                              [parse_metric("total_params"), parse_metric("forward_flops@64")],
                              [parse_filter("forward_flops@64>0")]))  # fmt: skip
        j = run(*args, "--format", "json")
        assert j.exit_code == 0, j.stderr
        doc = j.json()
        assert doc["rows"] == expected and doc["matched"] == len(expected)
        assert doc["combinations"] == 12 and doc["model"] == base.name
        assert doc["matched"] + doc["filtered_out"] + doc["skipped"] == 12
        c = run(*args, "--format", "csv")
        table = list(csv.reader(io.StringIO(c.stdout)))
        assert table[0] == ["d_ff", "n_heads", "total_params", "forward_flops@64"]
        assert [[int(x) for x in r] for r in table[1:]] == [list(r.values()) for r in expected]
        assert f"{len(expected)} of 12 combinations shown." in c.stderr
        md = run(*args, "--format", "markdown").stdout
        assert md.count("\n| ") == 2 + len(expected)
        t = run(*args)
        assert t.exit_code == 0 and f"{len(expected)} of 12 combinations shown." in t.stdout
        first = expected[0]
        assert f"{first['total_params']:,}" in t.stdout


def _load_args(src: list[str]) -> dict[str, Any]:
    flags = dict(zip(src[::2], src[1::2], strict=True))
    out: dict[str, Any] = {}
    for flag, value in flags.items():
        key = flag.removeprefix("--").replace("-", "_")
        out[key] = int(value) if value.isdigit() else value
    return out


def test_table_chart_for_one_field() -> None:
    r = run("sweep", "-p", "gpt2-small", "--vary", "n_layers=1:8:*2")
    assert r.exit_code == 0
    assert "total_params as n_layers varies" in r.stdout
    chart = r.stdout.split("total_params as n_layers varies")[1].splitlines()[1:]
    assert len(chart) == 4 and chart[0].split()[0] == "1" and chart[-1].split()[-1] == "96.1M"
    assert chart[-1].count("█") == 50  # the largest value fills the bar
    wide = run("sweep", "-p", "gpt2-small", "--vary", "d_ff=1:100")
    assert "No chart: more than 60 rows" in wide.stdout
    two = run("sweep", "-p", "gpt2-small", "--vary", "d_ff=1,2", "--vary", "n_layers=1,2")
    assert "varies" not in two.stdout and "No chart" not in two.stdout


def test_table_blocks_repeat_the_header() -> None:
    r = run("sweep", "-p", "gpt2-small", "--vary", "d_ff=1:2500", "--format", "table")
    assert r.stdout.count("d_ff  total_params") == 3
    assert "continued after row 1,000" in r.stdout and "continued after row 2,000" in r.stdout
    assert "2,500 of 2,500 combinations shown." in r.stdout


def test_empty_result_still_a_valid_document() -> None:
    j = run(
        "sweep", "-p", "gpt2-small", "--vary", "d_ff=1,2", "--where", "total_params<1", "-f", "json"
    )
    assert j.exit_code == 0
    assert j.json()["rows"] == [] and j.json()["filtered_out"] == 2


def test_memory_stays_flat() -> None:
    """100,000 rows written as CSV hold no more memory than 1,000 do (within a margin)."""

    def peak(n: int) -> int:
        s = ffn_calc.sweep(LLAMA, vary={"d_ff": range(1, n + 1)}, metrics=["total_params"])
        sink = io.StringIO()
        tracemalloc.start()
        sweep_output.write_json(s, _Discard(sink))
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    small, large = peak(1_000), peak(30_000)
    assert large < small + 200_000, (small, large)


class _Discard(io.StringIO):
    """A stdout that keeps nothing."""

    def __init__(self, inner: io.StringIO) -> None:
        super().__init__()

    def write(self, text: str) -> int:
        return len(text)


# --- ModelConfig.varied: the sweep's validation equals a full validation -------------------------

CHANGES = st.dictionaries(
    st.sampled_from(["d_model", "n_heads", "n_kv_heads", "head_dim", "d_ff", "n_layers",
                     "n_experts", "experts_per_token", "vocab_size", "activation",
                     "tie_embeddings", "attention_window", "q_lora_rank", "unique_layers",
                     "layers_per_group", "max_positions", "positions", "architecture"]),
    st.one_of(st.integers(-1, 70), st.none(), st.booleans(),
              st.sampled_from(["gelu", "swiglu", "tanh", "learned", "rotary", "decoder-only",
                               "encoder-decoder"])),
    max_size=3,
)  # fmt: skip


def outcome(make: Any) -> Any:
    try:
        return make().model_dump()
    except ValidationError as exc:
        return sorted((str(e["loc"]), e["msg"]) for e in exc.errors())


@settings(max_examples=300, deadline=None)
@given(model_configs(), CHANGES)
def test_varied_equals_full_validation(cfg: ModelConfig, changes: dict[str, Any]) -> None:
    full = outcome(lambda: ModelConfig.model_validate({**cfg.model_dump(), **changes}))
    assert outcome(lambda: cfg.varied(changes)) == full


def test_varied_family_goes_through_its_validator() -> None:
    with pytest.raises(ValidationError, match="unknown family"):
        LLAMA.varied({"family": "nope"})
    assert LLAMA.varied({"family": "mistral"}).family == "mistral"
    assert LLAMA.varied({}) is LLAMA


def test_json_rows_stream_before_the_counts() -> None:
    buf = io.StringIO()
    sweep_output.write_json(ffn_calc.sweep(LLAMA, vary={"d_ff": [1, 2]}), buf)
    text = buf.getvalue()
    assert text.index('"rows"') < text.index('"matched"')
    assert json.loads(text)["rows"][1] == {
        "d_ff": 2,
        "total_params": json.loads(text)["rows"][1]["total_params"],
    }


def test_readme_sweep_examples_are_current() -> None:
    for args, marker in (
        (["sweep", "--preset", "llama-2-7b", "--vary", "d_ff=8192:16384:2048", "--vary",
          "n_kv_heads=1,3,8,32", "--metric", "total_params", "--metric", "forward_flops@4096",
          "--where", "total_params<=7e9"], "`ffn-calc sweep --preset llama-2-7b"),
        (["sweep", "--preset", "gpt2-small", "--vary", "n_layers=12:48:12", "--metric",
          "total_params", "--metric", "ffn_share"], "`ffn-calc sweep --preset gpt2-small"),
    ):  # fmt: skip
        assert readme_block(marker) == shown(args, 100), f"{marker} is stale"


def test_readme_python_example_output_is_current() -> None:
    import subprocess
    import sys

    example = (Path(__file__).parent / "api_usage.py").read_text()
    code = example.split("from __future__ import annotations\n\n", 1)[1]
    assert f"```python\n{code}```" in DOCS
    out = subprocess.run([sys.executable, str(Path(__file__).parent / "api_usage.py")],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert readme_block("prints\n") == out.strip("\n")
