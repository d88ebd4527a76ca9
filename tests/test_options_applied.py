"""Every option a command accepts is applied or refused, never silently ignored.

The commands and their options are read from the Typer app, so an option added later is
checked too: it needs a non-default value in VALUES (or a reason in EXEMPT), and each command
needs its modes in MODES. For every mode of a command and every option the mode does not
already give, the run with the option must either change the figures (the JSON with the
options merely echoed left out) or exit 2 with a message naming the option. Options that
only shape the people's view (--explain, --no-plot) must change the table, and be refused
in the formats they cannot change.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import typer

from ffn_calc.cli import app
from ffn_calc.cli.options import MODEL_OPTION_NAMES
from tests.conftest import run

CATALOG = """
[[exercise]]
id = "ffn-4096"
question = "BERT-base FFN parameters per layer?"
quantity = "layer_ffn_params"
model = { preset = "bert-base" }
"""

# Each command's modes: the arguments of a run that works; every other option is added to it.
MODES: dict[str, list[list[str]]] = {
    "params": [["-p", "gpt2-small"], ["--d-model", "64", "--n-heads", "4"]],
    "flops": [
        ["-p", "gpt2-small", "-s", "64"],
        ["-p", "bert-base", "-s", "64"],
        ["-p", "t5-base", "-s", "64"],
        ["-p", "gpt2-small", "--decode", "-L", "64"],
        ["-p", "t5-base", "--decode", "-L", "64"],
        ["-p", "gpt2-small", "-s", "64", "--generate", "4"],
        ["-p", "t5-base", "-s", "64", "--generate", "4"],
        ["--d-model", "64", "--n-heads", "4", "-s", "64"],
    ],
    "crossover": [
        ["-p", "gpt2-small"],
        ["-p", "bert-base"],
        ["-p", "gpt2-small", "--decode"],
        ["-p", "mixtral-8x7b", "--decode"],
    ],
    "kv": [["-p", "gpt2-small", "-L", "64"], ["-p", "t5-base", "-L", "64"]],
    "memory": [
        ["-p", "gpt2-small"],
        ["-p", "gpt2-small", "--gpu-memory", "2GB"],
        ["-p", "gpt2-small", "--gpu-memory", "2GB", "-L", "1024"],
        ["-p", "bert-base", "--gpu-memory", "2GB"],
        ["-p", "gpt2-small", "--training"],
        ["-p", "gpt2-small", "--training", "--tp", "2"],
        ["-p", "gpt2-small", "--training", "--recipe", "distributed"],
        ["-p", "gpt2-small", "--training", "--gpu-memory", "80GB"],
        ["-p", "gpt2-small", "--training", "--zero", "3", "--dp", "4"],
    ],
    "tensors": [["-p", "gpt2-small"], ["-p", "gpt2-small", "--matmuls"]],
    "verify": [["-p", "gpt2-small"]],
    "compare": [["gpt2-small", "llama-2-7b"]],
    "activations": [[]],
    "swiglu-size": [["--d-model", "4096"]],
    "presets": [[]],
    "show": [["gpt2-small"]],
    "import-hf": [],  # no option besides --format
    "check": [],  # no option besides --format: tests/test_check.py
    "sweep": [["-p", "gpt2-small", "-V", "n_layers=1:4"]],
    "roofline": [
        ["-p", "gpt2-small", "--gpu", "h100-sxm", "-s", "64", "-L", "64"],
        ["-p", "mixtral-8x7b", "--gpu", "h100-sxm", "-L", "64", "--measured", "100"],
        ["-p", "gpt2-small", "--gpu", "h100-sxm", "-s", "64", "-b", "4", "--training", "--dp", "2"],
    ],
    "exercise list": [["--catalog", "course"]],  # its questions have sizes a variant varies
    "exercise show": [["ffn-4096"]],
    "exercise check": [["ffn-4096", "134217728"]],
    "exercise solve": [["ffn-4096"]],
    "exercise sheet": [[]],
    "exercise grade": [["{answers}"]],
}

# A value other than the default, for each option (its first spelling).
VALUES: dict[str, list[str]] = {
    "--seq-len": ["--seq-len", "32"],
    "--decode": ["--decode"],
    "--context": ["--context", "32"],
    "--source-len": ["--source-len", "16"],
    "--generate": ["--generate", "3"],
    "--batch": ["--batch", "3"],
    "--target-len": ["--target-len", "16"],
    "--unit": ["--unit", "macs"],
    "--causal": ["--causal"],
    "--lm-head": ["--no-lm-head"],
    "--explain": ["--explain"],
    "--images": ["--images", "1"],
    "--image-size": ["--image-size", "896x896"],
    "--grid": ["--grid"],
    "--dtype": ["--dtype", "fp32"],
    "--gpu-memory": ["--gpu-memory", "80GB"],
    "--training": ["--training"],
    "--recipe": ["--recipe", "fp32"],
    "--dp": ["--dp", "4"],
    "--tp": ["--tp", "4"],
    "--sequence-parallel": ["--sequence-parallel"],
    "--recompute": ["--recompute", "full"],
    "--zero": ["--zero", "2"],
    "--offload": ["--offload", "optimizer"],
    "--interconnect": ["--interconnect", "1e11"],
    "--micro-batch": ["--micro-batch", "2"],
    "--matmuls": ["--matmuls"],
    "--all": ["--all"],
    "--x": ["--x", "0.5"],
    "--functions": ["--functions", "relu"],
    "--range": ["--range", "-5:5"],
    "--no-plot": ["--no-plot"],
    "--multiple-of": ["--multiple-of", "64"],
    "--ffn-dim-multiplier": ["--ffn-dim-multiplier", "1.3"],
    "--metric": ["--metric", "ffn_params"],
    "--where": ["--where", "total_params<60e6"],
    "--require": ["--require", "total_params>0"],
    "--vary": ["--vary", "d_ff=1024,2048"],
    "--preset": ["--preset", "gpt2-medium"],
    "--config": ["--config", "{config}"],
    "--hf-config": ["--hf-config", "{hf_config}"],
    "--exercises": ["--exercises", "{catalog}"],
    "--gpu": ["--gpu", "l4"],
    "--peak-flops": ["--peak-flops", "1e15"],
    "--bandwidth": ["--bandwidth", "1e12"],
    "--efficiency": ["--efficiency", "0.5"],
    "--act-dtype": ["--act-dtype", "fp32"],
    "--kv-dtype": ["--kv-dtype", "fp8"],
    "--measured": ["--measured", "1000"],
    "--measured-phase": ["--measured-phase", "prefill"],
    "--catalog": ["--catalog", "{catalog}"],
    "--variant": ["--variant", "7"],
    "--no-reveal": ["--no-reveal"],
    "--answers": ["--answers"],
}

# Options checked elsewhere, with the reason.
EXEMPT = {
    "--format": "the format itself: every run below picks one",
    "--lang": "the language of tables and messages; JSON and CSV stay English by contract",
    "--help": "prints the help",
    "--checkpoint": "compared with the checkpoint's header: tests/test_safetensors.py",
    "--plot": "writes a figure: test_plot_written below",
}

# Options that only shape what people read: the table must change, JSON and CSV refuse.
TABLE_ONLY = {"--explain", "--no-plot", "--range"}

# Keys of a JSON report that echo the options given rather than count anything.
ECHOED = {
    "model", "batch", "seq_len", "target_len", "context", "source_len", "dtype", "unit",
    "causal", "lm_head_counted", "convention", "prompt", "new_tokens", "recipe", "parallel",
    "micro_batch", "gpu_memory_bytes", "vary", "where", "metrics", "dp", "tp",
    "sequence_parallel", "recompute",
}  # fmt: skip


def _commands() -> dict[str, Any]:
    out: dict[str, Any] = {}

    def walk(cmd: Any, path: list[str]) -> None:
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                walk(sub, [*path, name])
        else:
            out[" ".join(path)] = cmd

    walk(typer.main.get_command(app), [])
    return out


COMMANDS = _commands()


def _options(name: str) -> list[str]:
    """The command's options (first spelling), model options included."""
    return [
        p.opts[0]
        for p in COMMANDS[name].params
        if p.opts[0].startswith("--") and p.opts[0] not in EXEMPT
    ]


def _figures(stdout: str) -> Any:
    data = json.loads(stdout)
    if isinstance(data, dict):
        return {k: v for k, v in data.items() if k not in ECHOED}
    return data


def _names(option: str, name: str) -> tuple[str, ...]:
    """How a refusal may name the option: its spellings, and for a model option the field."""
    p = next(p for p in COMMANDS[name].params if p.opts[0] == option)
    spelled = (*p.opts, *p.secondary_opts)
    return (*spelled, p.name) if p.name in MODEL_OPTION_NAMES else spelled


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("inputs")
    (d / "hw.toml").write_text(CATALOG)
    (d / "model.toml").write_text(
        'name = "m"\nd_model = 128\nn_heads = 4\nd_ff = 256\nn_layers = 3\n'
    )
    hf = {"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "vocab_size": 100,
          "n_positions": 128}  # fmt: skip
    (d / "config.json").write_text(json.dumps(hf))
    (d / "answers.csv").write_text("student,exercise,answer\na,ffn-4096,134217728\n")
    return {"catalog": str(d / "hw.toml"), "config": str(d / "model.toml"),
            "hf_config": str(d / "config.json"), "answers": str(d / "answers.csv")}  # fmt: skip


def _size_flag(option: str) -> bool:
    """A model option other than the model's source: it changes the model (see
    test_model_flags_applied), whose figures a command may not depend on (the crossover does
    not depend on the vocabulary)."""
    field = option.removeprefix("--").replace("-", "_")
    return field in MODEL_OPTION_NAMES and field not in ("preset", "config", "hf_config")


def _cases() -> list[Any]:
    out = []
    for name, modes in MODES.items():
        for i, mode in enumerate(modes):
            for option in _options(name):
                if option in mode or any(a.startswith(option + "=") for a in mode):
                    continue
                if _size_flag(option):
                    continue  # test_model_flags_applied
                out.append(pytest.param(name, mode, option, id=f"{name}[{i}] {option}"))
    return out


def test_every_command_has_modes_and_every_option_a_value() -> None:
    assert set(COMMANDS) - {"exercise"} <= set(MODES), "a command without modes"
    missing = {o for name in MODES for o in _options(name) if o not in VALUES and not _size_flag(o)}
    assert not missing, f"options without a test value: {missing}"


def _argv(name: str, mode: list[str], extra: list[str], files: dict[str, str]) -> list[str]:
    return [*name.split(), *(a.format(**files) for a in (*mode, *extra))]


def _check(name: str, option: str, base: Any, r: Any, fmt: str) -> None:
    if r.exit_code == 2:
        assert r.stdout == "" and "Traceback" not in r.stderr
        named = _names(option, name)
        assert any(n in r.stderr for n in named), f"{fmt}: the refusal names {named}: {r.stderr}"
        return
    assert r.exit_code in (0, 1), r.stderr
    if r.exit_code != base.exit_code:  # a verdict changed (exercise check: right, wrong)
        changed = True
    elif fmt == "json":
        changed = _figures(r.stdout) != _figures(base.stdout)
    else:
        changed = r.stdout != base.stdout
    assert changed, f"{fmt}: {option} was accepted and changed nothing"


@pytest.mark.parametrize(("name", "mode", "option"), _cases())
def test_option_applied_or_refused(
    name: str, mode: list[str], option: str, files: dict[str, str]
) -> None:
    formats = ["json", "table", "csv"] if option in TABLE_ONLY else ["json"]
    for fmt in formats:
        base = run(*_argv(name, mode, ["-f", fmt], files))
        assert base.exit_code in (0, 1), base.stderr
        r = run(*_argv(name, mode, [*VALUES[option], "-f", fmt], files))
        _check(name, option, base, r, fmt)


# --- the size flags: each changes the model's counts, or is refused ---------------------------

MODELS = {
    "gpt2-small": ["-p", "gpt2-small"],
    "llama-2-7b": ["-p", "llama-2-7b"],
    "deepseek-v2-lite": ["-p", "deepseek-v2-lite"],
    "bert-base": ["-p", "bert-base"],
    "t5-base": ["-p", "t5-base"],
    "bare": ["--d-model", "64", "--n-heads", "4"],
}


def _model_values(cfg: Any) -> dict[str, list[list[str]]]:
    """Values other than the model's own for each size flag."""
    learned = cfg.positions == "learned"
    other_act = "gelu" if cfg.activation in ("swiglu", "silu") else "swiglu"
    return {
        "--d-model": [["--d-model", str(2 * cfg.d_model)]],
        "--d-ff": [["--d-ff", str(cfg.d_ff + 64)]],
        "--n-heads": [["--n-heads", str(2 * cfg.n_heads)]],
        "--n-kv-heads": [["--n-kv-heads", "1"]] if cfg.kv_heads != 1 else [],
        "--head-dim": [["--head-dim", str(2 * cfg.head_size)]],
        "--n-layers": [["--n-layers", str(cfg.n_layers + 1)]],
        "--n-decoder-layers": [["--n-decoder-layers", str(cfg.decoder_layers + 1)]],
        "--vocab-size": [["--vocab-size", str((cfg.vocab_size or 99) + 1)]],
        "--max-positions": [["--max-positions", str((cfg.max_positions or 99) + 1)]],
        "--activation": [["--activation", other_act]],
        "--norm": [["--norm", "layernorm" if cfg.norm == "rmsnorm" else "rmsnorm"]],
        "--positions": [["--positions", "rotary"]]
        if learned
        else [["--positions", "learned", "--max-positions", "64"]],
        "--architecture": [
            ["--architecture", a]
            for a in ("decoder-only", "encoder-only", "encoder-decoder")
            if a != cfg.architecture
        ],
        "--n-experts": [["--n-experts", str((cfg.n_experts or 1) + 1)]],
        "--experts-per-token": [["--experts-per-token", "1"]],
        "--bias": [["--no-bias" if cfg.attention_bias else "--bias"]],
        "--tie": [["--tie"], ["--no-tie"]],  # either, where the model has no head to tie
    }


@pytest.mark.parametrize("model", list(MODELS))
def test_model_flags_applied(model: str) -> None:
    from ffn_calc.families.resolve import resolve_model

    args = MODELS[model]
    if args[0] == "-p":
        cfg = resolve_model(preset=args[1])
    else:
        cfg = resolve_model(flags={"d_model": 64, "n_heads": 4})

    def counts(*extra: str) -> Any:
        """The parameter counts and the matmuls of a forward pass, or the refusal."""
        r = run("params", *args, *extra, "-f", "json")
        if r.exit_code != 0:
            return r
        m = run("tensors", *args, *extra, "--matmuls", "-s", "8", "-f", "json")
        return r, [_figures(r.stdout), _figures(m.stdout)]

    base = counts()
    values = _model_values(cfg)
    assert set(values) | {"--preset", "--config", "--hf-config"} >= set(_options("params")) - {
        "--explain",
        "--require",
    }
    failures = []
    for option, choices in values.items():
        for extra in choices:
            if (extra == ["--tie"] and cfg.tie_embeddings) or (
                extra == ["--no-tie"] and (cfg.has_lm_head and not cfg.tie_embeddings)
            ):
                continue  # the model's own value: an override to the same
            got = counts(*extra)
            if isinstance(got, tuple):
                if got[1] == base[1]:
                    failures.append(f"{extra}: accepted and changed nothing")
            elif got.exit_code != 2 or got.stdout:
                failures.append(f"{extra}: exit {got.exit_code}: {got.stderr}")
            elif not any(n in got.stderr for n in _names(option, "params")):
                failures.append(f"{extra}: the refusal does not name it: {got.stderr}")
    assert not failures, failures


# --- --plot: the figure is written, or the option refused ---------------------------------------

PLOTS = [
    ["crossover", "-p", "gpt2-small"],
    ["crossover", "-p", "gpt2-small", "--decode"],
    ["compare", "gpt2-small", "llama-2-7b"],
    ["activations"],
    ["sweep", "-p", "gpt2-small", "-V", "n_layers=1:4"],
    ["roofline", "-p", "gpt2-small", "--gpu", "l4", "-L", "64"],
]


@pytest.mark.parametrize("argv", PLOTS, ids=[" ".join(a) for a in PLOTS])
def test_plot_written(argv: list[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    plot_commands = {n for n in COMMANDS if "--plot" in _options_all(n)}
    assert plot_commands <= {a[0] for a in PLOTS}
    out = tmp_path / "figure.svg"
    r = run(*argv, "--plot", str(out), "-f", "json")
    assert r.exit_code == 0, r.stderr
    assert out.stat().st_size > 0


def _options_all(name: str) -> list[str]:
    return [p.opts[0] for p in COMMANDS[name].params if p.opts]


# --- what --decode and --generate now apply -----------------------------------------------------

# GPT-2 small (d_model 768, 12 layers, 12 heads of 64, d_ff 3072, vocab 50257), one decode step
# with L = 64 cached (counts.flops / counts.inference conventions, 2 FLOPs per multiply-add):
#   projections 12 x (2 x 768 x 2304 + 2 x 768 x 768)            =  56,623,104
#   scores      12 x 2 x (2 x 12 x 65 x 64)  (QK^T and AV, 65 attended) =   2,396,160
#   FFN         12 x 2 x (2 x 768 x 3072)                        = 113,246,208
#   LM head     2 x 768 x 50257                                  =  77,194,752
DECODE_64 = 56_623_104 + 2_396_160 + 113_246_208 + 77_194_752  # 249,460,224
LM_HEAD_ONE_TOKEN = 2 * 768 * 50257  # 77,194,752


def test_decode_applies_no_lm_head_and_macs() -> None:
    full = run("flops", "-p", "gpt2-small", "--decode", "-L", "64", "-f", "json").json()
    assert full["decode_flops"] == DECODE_64 and full["unit"] == "flops"
    no_head = run("flops", "-p", "gpt2-small", "--decode", "-L", "64", "--no-lm-head", "-f", "json")
    d = no_head.json()
    assert d["decode_flops"] == DECODE_64 - LM_HEAD_ONE_TOKEN == 172_265_472
    assert d["components"]["lm_head"] == 0 and d["lm_head_counted"] is False
    macs = run("flops", "-p", "gpt2-small", "--decode", "-L", "64", "--unit", "macs", "-f", "json")
    m = macs.json()
    assert m["unit"] == "macs" and m["decode_flops"] == DECODE_64 // 2 == 124_730_112
    assert m["components"] == {k: v // 2 for k, v in full["components"].items()}
    table = run("flops", "-p", "gpt2-small", "--decode", "-L", "64", "--unit", "macs").stdout
    assert "MACs" in table and "Unit: multiply-adds (MACs) = FLOPs / 2." in table


def test_generate_applies_no_lm_head_causal_and_macs() -> None:
    def gen(*extra: str) -> Any:
        argv = ["flops", "-p", "gpt2-small", "-s", "64", "--generate", "4", *extra, "-f", "json"]
        return run(*argv).json()

    def fwd(*extra: str) -> Any:
        return run("flops", "-p", "gpt2-small", "-s", "64", *extra, "-f", "json").json()

    base = gen()
    # The prefill is the forward pass over the prompt, with the same options, but the LM head
    # over the last prompt position only (generate() passes logits_to_keep=1): 15,963,095,040
    # less 63 x 2 x 768 x 50,257 = 4,863,269,376.
    assert base["prefill_flops"] == fwd()["forward_flops"] - 63 * LM_HEAD_ONE_TOKEN
    assert base["prefill_flops"] == 15_963_095_040 - 4_863_269_376
    no_head = gen("--no-lm-head")
    assert no_head["prefill_flops"] == fwd("--no-lm-head")["forward_flops"]
    assert no_head["prefill_flops"] == base["prefill_flops"] - LM_HEAD_ONE_TOKEN
    # Three decode steps (L = 64, 65, 66), each without its LM head over one token.
    assert no_head["decode_flops"] == base["decode_flops"] - 3 * LM_HEAD_ONE_TOKEN
    causal = gen("--causal")
    # --causal: the prefill's scores over S(S+1)/2 = 2080 pairs instead of 64^2 = 4096; the
    # decode steps attend to the cached tokens and themselves either way.
    assert causal["prefill_flops"] == fwd("--causal")["forward_flops"] - 63 * LM_HEAD_ONE_TOKEN
    assert causal["decode_flops"] == base["decode_flops"] and causal["causal"] is True
    scores = fwd()["components"]["attention_scores"]  # 12 x 2 x 2 x 12 x 64 x 64 x 64
    assert base["prefill_flops"] - causal["prefill_flops"] == scores - scores * 2080 // 4096
    macs = gen("--unit", "macs")
    assert macs["unit"] == "macs"
    for key in ("prefill_flops", "decode_flops", "generation_flops"):
        assert macs[key] * 2 == base[key]


def test_crossover_grid_applies_causal() -> None:
    # GPT-2's design at d_model 256 (d_ff 4 d, heads of 64): per token, the scores take
    # 4 d S FLOPs (QK^T and AV, 2 x d x S each), or 4 d (S + 1) / 2 over the causal pairs, and
    # the FFN 16 d^2; they meet at S = 4 d = 1,024, or S = 8 d - 1 = 2,047 with --causal.
    plain = run("crossover", "-p", "gpt2-small", "--grid", "-f", "json").json()["grid"]
    causal = run("crossover", "-p", "gpt2-small", "--grid", "--causal", "-f", "json").json()
    assert plain["d_models"][0] == 256 and plain["scores_vs_ffn"][0] == 1024
    assert causal["grid"]["scores_vs_ffn"][0] == 2047 and causal["grid"]["causal"] is True
    assert causal["grid"]["ratios"][0][0] == 65 / 2048  # S = 64: 2 x 256 x 65 / (16 x 256^2)


def test_api_decode_and_generate_take_the_same_options() -> None:
    import ffn_calc

    m = ffn_calc.load(preset="gpt2-small")
    d = ffn_calc.decode(m, context=64, lm_head=False, unit="macs")
    cli = run("flops", "-p", "gpt2-small", "--decode", "-L", "64", "--no-lm-head", "--unit", "macs", "-f", "json")  # fmt: skip
    assert json.loads(d.model_dump_json()) == cli.json()
    g = ffn_calc.generate(m, prompt=64, new=4, causal=True, lm_head=False, unit="macs")
    cli = run("flops", "-p", "gpt2-small", "-s", "64", "--generate", "4", "--causal", "--no-lm-head", "--unit", "macs", "-f", "json")  # fmt: skip
    assert json.loads(g.model_dump_json()) == cli.json()
    with pytest.raises(ffn_calc.UsageError, match="batch"):
        ffn_calc.memory(m, batch=4)  # the batch counts only for what fits in gpu_memory
    bert = ffn_calc.load(preset="bert-base")
    with pytest.raises(ffn_calc.UsageError, match="--context"):
        ffn_calc.memory(bert, gpu_memory="80GB", context=1024)  # no KV cache to fit
    with pytest.raises(ffn_calc.UsageError, match="--no-lm-head"):
        ffn_calc.decode(ffn_calc.load(d_model=64, n_heads=4), context=8, lm_head=False)


# --- errors name the option the user gave --------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "option", "other"),
    [
        (["-m", "forward_flops@abc"], "--metric", "--vary"),
        (["-m", "forward_flops@0"], "--metric", "--vary"),
        (["-w", "nope<3"], "--where", "--metric"),
        (["-w", "forward_flops<3"], "--where", "--metric"),
        (["-w", "forward_flops@abc<3"], "--where", "--metric"),
        (["-w", "total_params@3<3"], "--where", "--metric"),
        (["-V", "d_ff=x"], "--vary", "--metric"),
    ],
)
def test_sweep_errors_name_the_option_given(args: list[str], option: str, other: str) -> None:
    r = run("sweep", "-p", "gpt2-small", "-V", "n_layers=1:2", *args)
    if args[0] == "-V":
        r = run("sweep", "-p", "gpt2-small", *args)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith(f"Error: {option}") and other not in r.stderr, r.stderr


# --- a sweep's notes describe only the metrics shown ---------------------------------------------

# Words of a note and the metrics that make the note relevant.
NOTE_WORDS = {
    "Parameters": {"total_params", "active_params", "non_embedding_params", "embedding_params",
                   "attention_params", "ffn_params", "norm_params", "lm_head_params",
                   "ffn_share", "layer_ffn_share", "weights_bytes"},
    "bytes": {"weights_bytes", "kv_bytes"},
    "training": {"training_flops", "training_time"},
    "decode": {"decode_flops", "decode_time"},
    "FLOPs @S": {"forward_flops", "training_flops"},
    "Crossovers": {"scores_vs_ffn", "scores_vs_projections", "scores_vs_dense"},
    "prefill": {"kv_elements", "kv_bytes", "prefill_time"},
}  # fmt: skip


def test_sweep_notes_describe_only_the_metrics_shown() -> None:
    from ffn_calc.sweeps.metrics import METRICS

    for name, kind in METRICS.items():
        metric = f"{name}@64" if kind.argument else name
        r = run("sweep", "-p", "gpt2-small", "-V", "n_layers=1:2", "-m", metric, "-f", "json")
        convention = r.json()["convention"]
        assert convention, name
        for word, metrics in NOTE_WORDS.items():
            if word in convention:
                assert name in metrics, f"{name}: a note about {word}: {convention}"


# --- a count of one reads in the singular --------------------------------------------------------

ONES = [
    ["flops", "-p", "gpt2-small", "-s", "1"],
    ["flops", "-p", "gpt2-small", "--decode", "-L", "1"],
    ["flops", "-p", "gpt2-small", "-s", "4", "--generate", "1"],
    ["flops", "-p", "gpt2-small", "-s", "4", "--generate", "2"],
    ["kv", "-p", "gpt2-small", "-L", "1"],
    ["kv", "--d-model", "2", "--n-heads", "1", "--vocab-size", "4", "-L", "1", "--dtype", "int4"],
    ["memory", "-p", "gpt2-small", "--gpu-memory", "1"],
    ["memory", "--d-model", "64", "--n-heads", "4", "--training", "--gpu-memory", "1"],
    ["memory", "--d-model", "1", "--n-heads", "1", "--training", "-s", "1", "--explain"],
    ["sweep", "-p", "gpt2-small", "-V", "n_layers=1"],
    ["params", "-p", "gemma-3-1b", "--n-layers", "1"],
]
PLURAL_AFTER_ONE = re.compile(
    r"(?<![\d.,])(?<!- )1 (tokens|layers|bytes|combinations|steps|decode steps|experts|sequences|"
    r"reasons|other reasons|elements|parameters)\b"
)


@pytest.mark.parametrize("argv", ONES, ids=[" ".join(a) for a in ONES])
def test_one_is_singular(argv: list[str]) -> None:
    r = run(*argv)
    assert r.exit_code in (0, 2), r.stderr
    assert not PLURAL_AFTER_ONE.search(r.stdout + r.stderr), r.stdout + r.stderr


def test_one_local_window_is_singular() -> None:
    from ffn_calc.families.resolve import resolve_model
    from ffn_calc.model.layer_kinds import local_kind

    cfg = resolve_model(preset="gemma-3-1b", fields={"attention_window": 1})
    assert str(local_kind(cfg)) == "sliding-window attention over 1 token"
    r = run("params", "-p", "gemma-3-1b", "-f", "markdown")
    assert "sliding-window attention over 512 tokens" in r.stdout


# --- a sweep: a size flag it varies, a field the model has no use for -----------------------------


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["-p", "gpt2-small", "--n-layers", "5", "-V", "n_layers=1:2"], "--n-layers"),
        (["-p", "gpt2-small", "--no-bias", "-V", "ffn_bias=true,false"], "--no-bias"),
        (["-p", "gpt2-small", "--no-tie", "-V", "tie_embeddings=true,false"], "--no-tie"),
        (["-p", "llama-2-7b", "-V", "max_positions=1,2"], "--vary max_positions=1,2"),
        (["-p", "deepseek-v2-lite", "-V", "n_kv_heads=1,2"], "--vary n_kv_heads=1,2"),
        (["-p", "deepseek-v2-lite", "-V", "head_dim=64,128"], "--vary head_dim=64,128"),
        (["--d-model", "64", "--n-heads", "4", "-V", "tie_embeddings=false"], "--vary"),
    ],
)
def test_sweep_refuses_what_it_would_ignore(args: list[str], named: str) -> None:
    r = run("sweep", *args)
    assert r.exit_code == 2 and r.stdout == "" and named in r.stderr, r.stderr


def test_sweep_varies_a_field_that_another_varied_field_enables() -> None:
    r = run("sweep", "-p", "llama-2-7b", "-V", "positions=learned", "-V", "max_positions=1,2",
            "-f", "json")  # fmt: skip
    rows = r.json()["rows"]
    # one more row of the learned table: d_model = 4,096 parameters (llama-2-7b)
    assert rows[1]["total_params"] - rows[0]["total_params"] == 4096


def test_sweep_keeps_the_flags_that_build_its_model() -> None:
    # Without a source, --d-model and --n-heads build the base model the sweep varies.
    r = run("sweep", "--d-model", "64", "--n-heads", "4", "-V", "n_heads=1,2", "-f", "json")
    assert r.exit_code == 0 and len(r.json()["rows"]) == 2
    r = run("sweep", "--d-model", "64", "--n-heads", "4", "--n-layers", "2", "-V", "n_layers=1")
    assert r.exit_code == 2 and "--n-layers" in r.stderr
