"""compare, activations, swiglu-size and the exercise catalog."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import CASES_BY_NAME, run


def test_compare_json_exact_totals() -> None:
    r = run(
        "compare",
        "gpt2-small",
        "llama-2-7b",
        "transformer-base",
        "mixtral-8x7b",
        "--format",
        "json",
    )
    assert r.exit_code == 0
    models = {m["model"]: m for m in r.json()["models"]}
    for name, m in models.items():
        # Golden: reference_cases.json total_params (instantiated models).
        assert m["total_params"] == CASES_BY_NAME[name]["total_params"]
    assert models["mixtral-8x7b"]["active_params"] == 12_879_925_248  # reference_cases.json
    # reference_cases.json gpt2-small S=1024 forward_flops (FlopCounterMode).
    assert models["gpt2-small"]["forward_flops"] == 291_648_307_200
    assert models["llama-2-7b"]["crossover"] == {
        "scores_vs_ffn": 16512,
        "scores_vs_projections": 8192,
        "scores_vs_dense": 24704,
    }
    assert models["gpt2-small"]["ffn_params_per_layer"] == 4_722_432


def test_compare_mixes_sources_and_formats(tmp_path: Path) -> None:
    cfg = tmp_path / "tiny.toml"
    cfg.write_text("n_layers = 2\nd_model = 64\nn_heads = 4\nd_ff = 256\n")
    hf = Path(__file__).parent / "data" / "checkpoints" / "tiny-llama-gqa.config.json"
    data = run(
        "compare", "gpt2-small", "-c", str(cfg), "--hf-config", str(hf), "-s", "128", "-f", "json"
    ).json()
    assert [m["model"] for m in data["models"]] == ["gpt2-small", "tiny", "tiny-llama-gqa.config"]
    assert data["models"][2]["total_params"] == 66_096  # the tiny checkpoint's header sum
    table = run("compare", "gpt2-small", "bert-base").stdout
    assert "FFN share of FLOPs" in table and "124,439,808" in table
    assert (
        "| d_model | 768 | 768 |"
        in run("compare", "gpt2-small", "bert-base", "-f", "markdown").stdout
    )
    r = run("compare")
    assert r.exit_code == 2 and "nothing to compare" in r.stderr
    r = run("compare", "gpt2-smal")
    assert r.exit_code == 2 and "gpt2-small" in r.stderr


# Reference values of GELU (x Phi(x)) and its derivative Phi(x) + x phi(x), from the issue.
GELU = {
    -3: -0.0040497,
    -1: -0.1586553,
    -0.5: -0.1542688,
    0.5: 0.3457312,
    1: 0.8413447,
    3: 2.9959503,
}
D_GELU = {-1: -0.0833155, 0: 0.5, 1: 1.0833155}


def test_activations_reference_values() -> None:
    rows = {row["x"]: row for row in run("activations", "-f", "json").json()["rows"]}
    assert list(rows) == [-3, -2, -1, -0.5, 0, 0.5, 1, 2, 3]
    for x, value in GELU.items():
        assert rows[x]["gelu"] == pytest.approx(value, abs=1e-6)
    for x, value in D_GELU.items():
        assert rows[x]["d_gelu"] == pytest.approx(value, abs=1e-6)
    assert rows[1]["relu"] == 1 and rows[-1]["relu"] == 0 and rows[0]["d_relu"] == 0
    # SiLU(1) = 1 / (1 + e^-1) = 0.7310586; tanh-GELU(1) = 0.8411920 (Hendrycks & Gimpel).
    assert rows[1]["silu"] == pytest.approx(0.7310586, abs=1e-6)
    assert rows[1]["gelu_tanh"] == pytest.approx(0.8411920, abs=1e-6)
    out = run("activations", "--x", "0.5", "--x", "-1").stdout
    assert "0.3457312" in out and "Curves" in out


def test_activation_derivatives_match_finite_differences() -> None:
    from ffn_calc.counts import activations as act

    for name in ("gelu", "gelu_tanh", "silu"):
        f, df = act.FUNCTIONS[name], act.FUNCTIONS["d_" + name]
        for x in (-2.5, -0.3, 0.7, 1.9):
            h = 1e-6
            assert df(x) == pytest.approx((f(x + h) - f(x - h)) / (2 * h), abs=1e-6)


@pytest.mark.parametrize(
    ("args", "d_ff"),
    [
        # Golden: Llama's FeedForward rule as in the issue (Llama 1/2 7B and 13B, Llama-2-70B,
        # Llama-3-8B intermediate sizes in their config.json files).
        (["--d-model", "4096"], 11008),
        (["--d-model", "5120"], 13824),
        (["--d-model", "8192", "--ffn-dim-multiplier", "1.3", "--multiple-of", "4096"], 28672),
        (["--d-model", "4096", "--ffn-dim-multiplier", "1.3", "--multiple-of", "1024"], 14336),
    ],
)
def test_swiglu_size(args: list[str], d_ff: int) -> None:
    data = run("swiglu-size", *args, "-f", "json").json()
    assert data["llama_d_ff"] == d_ff
    d = data["d_model"]
    assert data["plain_params"] == 8 * d * d and data["llama_params"] == 3 * d * d_ff
    assert data["parity_d_ff_exact"] == str(__import__("fractions").Fraction(8 * d, 3))


def test_swiglu_size_errors() -> None:
    for args in (
        ["--d-model", "0"],
        ["--d-model", "x"],
        ["--d-model", "64", "--ffn-dim-multiplier", "-1"],
    ):
        r = run("swiglu-size", *args)
        assert r.exit_code == 2 and r.stdout == "" and "Traceback" not in r.stderr


def test_exercise_list() -> None:
    data = run("exercise", "list", "--format", "json").json()
    ex = {e["id"]: e for e in data["exercises"]}
    assert len(ex) >= 10
    assert ex["ffn-4096"]["answer"] == 134_217_728  # 2 x 4096 x 16384
    assert round(ex["ffn-4096-vs-gpt2"]["answer"], 2) == 28.44  # 134,217,728 / 4,718,592
    assert ex["gpt2-mlp"]["answer"] == 4_722_432  # GPT2MLP c_fc + c_proj with biases
    assert round(ex["gpt2-mlp-model-share"]["answer"], 3) == 0.455  # 56,669,184 / 124,439,808
    assert ex["two-thirds"]["answer"] == pytest.approx(2 / 3)
    assert ex["swiglu-parity"]["answer"] == pytest.approx(8 * 4096 / 3)
    assert ex["ffn-macs"]["answer"] == 8 * 1024 * 768**2  # 8 B S D^2
    assert ex["projection-macs"]["answer"] == 4 * 1024 * 768**2  # 4 B S D^2
    assert ex["gpt2-crossover"]["answer"] == 3072
    assert ex["gelu-half"]["answer"] == pytest.approx(0.3457312, abs=1e-7)
    assert "ffn-4096" in run("exercise", "list").stdout


@pytest.mark.parametrize("given", ["134217728", "134,217,728", "134.2M", "1.342e8", "134M"])
def test_check_right(given: str) -> None:
    r = run("exercise", "check", "ffn-4096", given)
    assert r.exit_code == 0 and "Right" in r.stdout


@pytest.mark.parametrize("given", ["134217729", "134.3M", "1.341e8", "67108864", "135M"])
def test_check_wrong(given: str) -> None:
    r = run("exercise", "check", "ffn-4096", given)
    assert r.exit_code == 1 and "expected 134,217,728" in r.stdout


def test_check_ratios_and_percentages() -> None:
    assert run("exercise", "check", "ffn-4096-vs-gpt2", "28.4x").exit_code == 0
    assert run("exercise", "check", "ffn-4096-vs-gpt2", "28.44").exit_code == 0
    assert run("exercise", "check", "ffn-4096-vs-gpt2", "28.5x").exit_code == 1
    assert run("exercise", "check", "gpt2-mlp-model-share", "46%").exit_code == 0
    assert run("exercise", "check", "gpt2-mlp-model-share", "45.5%").exit_code == 0
    assert run("exercise", "check", "gpt2-mlp-model-share", "0.455").exit_code == 0
    assert run("exercise", "check", "gpt2-mlp-model-share", "45%").exit_code == 1
    assert run("exercise", "check", "gelu-half", "0.346").exit_code == 0  # 0.3457 rounded
    assert run("exercise", "check", "gelu-half", "0.345").exit_code == 1  # a common misprint


def test_solve_and_show() -> None:
    out = run("exercise", "solve", "ffn-4096").stdout
    assert "W1: d_model x d_ff = 4,096 x 16,384 = 67,108,864" in out and "134,217,728" in out
    assert "8 d^2 / (4 d^2 + 8 d^2) = 2/3" in run("exercise", "solve", "two-thirds").stdout
    assert "d_model = 4096" in run("exercise", "show", "ffn-4096").stdout


def test_exercise_errors(tmp_path: Path) -> None:
    r = run("exercise", "check", "ffn-409", "1")
    assert r.exit_code == 2 and "unknown exercise 'ffn-409'" in r.stderr and "ffn-4096" in r.stderr
    r = run("exercise", "check", "ffn-4096", "lots")
    assert r.exit_code == 2 and "cannot read the answer 'lots'" in r.stderr


CUSTOM = """
[[exercise]]
id = "bert-ffn"
question = "BERT-base FFN parameters per layer?"
quantity = "layer_ffn_params"
model = { preset = "bert-base" }
"""


def test_instructor_catalog(tmp_path: Path) -> None:
    p = tmp_path / "hw.toml"
    p.write_text(CUSTOM)
    data = run("exercise", "list", "--exercises", str(p), "-f", "json").json()
    assert data["exercises"][0]["answer"] == 4_722_432  # BertIntermediate + BertOutput dense
    assert run("exercise", "check", "bert-ffn", "4722432", "--exercises", str(p)).exit_code == 0

    def bad(text: str) -> str:
        p.write_text(text)
        r = run("exercise", "list", "--exercises", str(p))
        assert r.exit_code == 2 and r.stdout == "" and "Traceback" not in r.stderr
        assert str(p) in r.stderr
        return r.stderr

    assert "unknown preset 'bert-bas'" in bad(CUSTOM.replace("bert-base", "bert-bas"))
    assert "exercise 1 ('bert-ffn')" in bad(CUSTOM.replace("layer_ffn_params", "ffn_size"))
    assert "quantity" in bad(CUSTOM.replace("layer_ffn_params", "ffn_size"))
    assert "used twice" in bad(CUSTOM + CUSTOM)
    assert "no [[exercise]] entries" in bad("# nothing but a comment\n")
    assert "unknown key 'title'" in bad("title = 'a catalog'\n" + CUSTOM)
    assert "malformed TOML" in bad("[[exercise]\n")
    assert "needs `d_model`" in bad(
        CUSTOM.replace('quantity = "layer_ffn_params"', 'quantity = "swiglu_parity_d_ff"')
    )
    assert "does not exist" in bad_missing(tmp_path)


def bad_missing(tmp_path: Path) -> str:
    r = run("exercise", "list", "--exercises", str(tmp_path / "nope.toml"))
    assert r.exit_code == 2
    return r.stderr


def test_exercise_json_outputs() -> None:
    right = run("exercise", "check", "ffn-4096", "134,217,728", "-f", "json")
    assert right.exit_code == 0 and right.json()["correct"] is True
    assert right.json()["answer"] == 134_217_728  # 2 x 4096 x 16384
    wrong = run("exercise", "check", "ffn-4096", "2e8", "-f", "json")
    assert wrong.exit_code == 1 and wrong.json()["correct"] is False
    solved = run("exercise", "solve", "llama-d-ff", "-f", "json").json()
    assert solved["answer"] == 11008 and solved["steps"][0] == "int(2 x 4 x 4,096 / 3) = 10,922"
    assert "| question |" in run("exercise", "show", "ffn-4096", "-f", "markdown").stdout


def test_a_worked_solution_words_its_terms_as_explain_does(tmp_path: Path) -> None:
    """A solution's formula terms are values the view words in the reader's language, as
    `params --explain` does: an instructor's exercise on a MoE model shows no English term
    name or formula word in Japanese or Chinese (before, "router", "experts", "expert biases"
    and "biases of one expert" stayed English); JSON keeps the English steps."""
    p = tmp_path / "moe.toml"
    p.write_text(
        '[[exercise]]\nid = "oss-ffn"\nquestion = "FFN parameters of one gpt-oss-20b layer?"\n'
        'quantity = "layer_ffn_params"\nmodel = { preset = "gpt-oss-20b" }\n'
    )
    english = re.compile(r"\b(?:router:|experts:|expert biases|biases of one expert)")
    for lang in ("ja", "zh"):
        for fmt in ("table", "markdown"):
            out = run("exercise", "solve", "oss-ffn", "--exercises", str(p), "-f", fmt,
                      "--lang", lang).stdout  # fmt: skip
            assert "2,880 x 32 = 92,160" in out  # the router's numbers, as in English
            assert not english.search(out), (lang, fmt, out)
    steps = run("exercise", "solve", "oss-ffn", "--exercises", str(p), "-f", "json").json()
    # gpt-oss-20b: d_model 2,880, 32 experts; one expert's biases 2 x 2,880 + 2,880 = 8,640
    assert steps["steps"][0] == "router: d_model x n_experts = 2,880 x 32 = 92,160"
    assert (
        "expert biases: n_experts x (biases of one expert) = 32 x 8,640 = 276,480" in steps["steps"]
    )
