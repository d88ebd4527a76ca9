"""`exercise check` on answers written badly on purpose, and catalogs as strict as configs.

The expected answers come from the worked solutions (`ffn-calc exercise solve ID`):
  ffn-4096: W1 + W2 = 2 x 4096 x 16384 = 134,217,728 (no biases)
  gpt2-block-mlp-share: MLP 4,722,432 / block 7,087,872 = 0.66627 (GPT2Block, biases included)
  gpt2-block-norm-share: ln_1 + ln_2 = 3,072 / 7,087,872 = 0.000433
  transformer-base-ffn-vs-attention: FFN 2,099,712 / attention 1,050,624 = 1.9985
  llama-d-ff: 256 x ceil(int(2 x 4 x 4096 / 3) / 256) = 256 x 43 = 11,008
  gelu-half: GELU(0.5) = 0.5 x Phi(0.5) = 0.3457312
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DOC_PAGES, run


def check(*args: str) -> tuple[int, str, str]:
    r = run("exercise", "check", *args)
    assert "Traceback" not in r.stderr
    return r.exit_code, r.stdout, r.stderr


# --- zero -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exercise", "given"),
    [
        ("ffn-4096", "0G"),
        ("ffn-4096", "0e9"),
        ("ffn-4096", "-0"),
        ("gelu-half", "0"),
        ("llama-d-ff", "0e5"),
        ("gpt2-block-norm-share", "0"),
        ("gpt2-block-norm-share", "0%"),
    ],
)
def test_zero_never_matches_a_nonzero_answer(exercise: str, given: str) -> None:
    code, out, _ = check(exercise, given)
    assert code == 1 and out.startswith(f"Wrong: {given};")
    assert "zero never matches a non-zero answer" in out


# --- significant figures ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exercise", "given", "why"),
    [
        ("ffn-4096", "1e8", "1e8 has 1 significant figure; give at least 2 (e.g. 1.3e8)"),
        ("ffn-4096", "0.1G", "0.1G has 1 significant figure; give at least 2 (e.g. 1.3e8)"),
        ("gpt2-block-mlp-share", "1", "1 has 1 significant figure; give at least 2 (e.g. 0.67)"),
        ("gpt2-block-mlp-share", "0.7", "give at least 2 (e.g. 0.67)"),
        ("gpt2-block-mlp-share", "7e1%", "give at least 2 (e.g. 67%)"),
        ("transformer-base-ffn-vs-attention", "2x", "2x has 1 significant figure; give at least 2 (e.g. 2.0x)"),
        ("gpt2-block-norm-share", "0.04%", "give at least 2 (e.g. 0.043%)"),
        # llama-d-ff asks for the exact d_ff (sig_figs = 5 in the catalog): 11k is 10,922 too.
        ("llama-d-ff", "11k", "11k has 2 significant figures; give at least 5 (e.g. 11008)"),
        ("llama-d-ff", "11.0k", "11.0k has 3 significant figures; give at least 5"),
    ],
)  # fmt: skip
def test_too_few_significant_figures_is_wrong_and_says_why(
    exercise: str, given: str, why: str
) -> None:
    code, out, err = check(exercise, given)
    assert code == 1 and out.startswith(f"Wrong: {given};") and why in out and err == ""


@pytest.mark.parametrize(
    ("exercise", "given"),
    [
        ("ffn-4096", "1.3e8"),
        ("ffn-4096", "13e7"),
        ("ffn-4096", "0.13G"),
        ("gpt2-block-mlp-share", "0.67"),
        ("gpt2-block-mlp-share", "67%"),
        ("gpt2-block-mlp-share", "67"),
        ("transformer-base-ffn-vs-attention", "2.0x"),
        ("gpt2-block-norm-share", "0.043%"),
        ("gpt2-block-norm-share", "0.00043"),
        ("gelu-half", "0.35"),
        ("llama-d-ff", "11008"),
        ("llama-d-ff", "11.008k"),
    ],
)
def test_two_significant_figures_or_what_the_exercise_asks_are_enough(
    exercise: str, given: str
) -> None:
    code, out, _ = check(exercise, given)
    assert code == 0 and out.startswith(f"Right: {given} ")


def test_the_sign_matters_and_answers_can_be_negative(tmp_path: Path) -> None:
    p = tmp_path / "hw.toml"
    p.write_text('[[exercise]]\nid = "g"\nquestion = "GELU(-1)?"\nquantity = "gelu"\nx = -1.0\n')
    # GELU(-1) = -Phi(-1) = -0.1586553 (the GELU table in test_homework.py).
    assert check("g", "-0.16", "--exercises", str(p))[0] == 0
    assert check("g", "-0.1587", "--exercises", str(p))[0] == 0
    assert check("g", "0.16", "--exercises", str(p))[0] == 1
    assert check("g", "-0.158", "--exercises", str(p))[0] == 1


def test_a_zero_answer_is_right_when_the_answer_is_zero(tmp_path: Path) -> None:
    p = tmp_path / "hw.toml"
    p.write_text('[[exercise]]\nid = "g0"\nquestion = "GELU(0)?"\nquantity = "gelu"\nx = 0.0\n')
    # GELU(0) = 0 x Phi(0) = 0 exactly.
    assert check("g0", "0", "--exercises", str(p))[0] == 0
    assert check("g0", "0.000", "--exercises", str(p))[0] == 0
    assert check("g0", "0.001", "--exercises", str(p))[0] == 1


# --- units -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exercise", "given", "why"),
    [
        ("ffn-4096", "134217728%", "134217728% is a percentage, but the question asks for a parameter count"),
        ("ffn-4096", "134217728x", "134217728x is a ratio, but the question asks for a parameter count"),
        ("ffn-4096", "134217728\u00d7", "is a ratio, but the question asks for a parameter count"),
        ("ffn-4096-vs-gpt2", "2844%", "is a percentage, but the question asks for a ratio"),
        ("ffn-4096-vs-gpt2", "0.02844k", "has the multiplier k, but the question asks for a ratio"),
        ("gpt2-mlp-model-share", "45.5x", "45.5x is a ratio, but the question asks for a share"),
        ("gpt2-mlp-model-share", "0.000455M", "has the multiplier M, but the question asks for a share"),
        ("gpt2-crossover", "3072%", "is a percentage, but the question asks for a sequence length"),
        ("gelu-half", "0.3457x", "is a ratio, but the question asks for a value of GELU"),
    ],
)  # fmt: skip
def test_a_unit_that_does_not_fit_the_quantity_is_wrong(
    exercise: str, given: str, why: str
) -> None:
    code, out, _ = check(exercise, given)
    assert code == 1 and out.startswith(f"Wrong: {given};") and why in out


@pytest.mark.parametrize(
    ("exercise", "given"),
    [
        ("ffn-4096", "134.2M"),
        ("ffn-4096", "0.1342G"),
        ("ffn-4096", "0.1342B"),
        ("ffn-4096", "134217.728k"),
        ("ffn-macs", "4.832G"),  # 8 B S D^2 = 8 x 1024 x 768^2 = 4,831,838,208
        ("gpt2-crossover", "3.07k"),  # FFN 4 x 768 x 3072 / scores 4 x 768 per S = 3,072
        ("ffn-4096-vs-gpt2", "28.4\u00d7"),
        ("ffn-4096-vs-gpt2", "28.4X"),
    ],
)
def test_units_that_fit_are_accepted(exercise: str, given: str) -> None:
    assert check(exercise, given)[0] == 0


# --- reading: negative numbers, a trailing dot, what cannot be read ------------------------------


def test_negative_answers_are_read_not_taken_for_options() -> None:
    code, out, err = check("ffn-4096", "-5")
    assert code == 1 and out.startswith("Wrong: -5; expected 134,217,728") and err == ""
    r = run("exercise", "check", "--format", "json", "ffn-4096", "-5")
    assert r.exit_code == 1 and r.json()["given"] == "-5" and r.json()["correct"] is False
    r = run("exercise", "check", "ffn-4096", "-1.342e8", "-f", "json")
    assert r.exit_code == 1 and r.json()["given"] == "-1.342e8"
    assert check("ffn-4096", "--", "-5")[0] == 1
    assert check("ffn-4096", "-5", "--formt", "json")[0] == 2  # a misspelt option is not ignored


@pytest.mark.parametrize(
    ("given", "code"),
    [
        ("134217728.", 0),
        ("134,217,728.", 0),
        ("134217729.", 1),  # a whole number: within 0.5, and 134,217,729 is 1 away
        ("134217728.4", 1),  # to a tenth: 134,217,728 is 0.4 away
        ("134.M", 0),  # 134M to a whole M: 133,500,000 to 134,500,000
    ],
)
def test_a_trailing_dot_reads_as_a_whole_number(given: str, code: int) -> None:
    assert check("ffn-4096", given)[0] == code


def test_long_answers_are_judged_exactly() -> None:
    assert check("ffn-4096", "134217728." + "0" * 5000)[0] == 0
    assert check("ffn-4096", "134217728." + "0" * 5000 + "1")[0] == 1
    assert check("ffn-4096", "1" * 5000)[0] == 1
    assert check("ffn-4096", "1.342e999999")[0] == 1
    assert check("ffn-4096", "1.342e-999999")[0] == 1


@pytest.mark.parametrize(
    "given", ["", " ", ".", "-", "2//3", "2/", "lots", "+.", "1.2.3", "1e", "e8", "nan", "inf", "1,34", "12%%", "--5", "1e9999999999"]
)  # fmt: skip
def test_what_cannot_be_read_is_refused(given: str) -> None:
    code, out, err = check("ffn-4096", given)
    assert code == 2 and out == "" and f"cannot read the answer '{given}'" in err


def test_check_help_states_the_rule() -> None:
    out = run("exercise", "check", "--help").stdout
    assert "at least 2 significant figures" in out
    assert "% only on a share" in out


# --- instructor catalogs -------------------------------------------------------------------------

HEAD = '[[exercise]]\nid = "t"\nquestion = "q?"\n'


def catalog_error(tmp_path: Path, body: str) -> str:
    p = tmp_path / "hw.toml"
    p.write_text(HEAD + body)
    r = run("exercise", "list", "--exercises", str(p))
    assert r.exit_code == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert f"'{p}', exercise 1 ('t')" in r.stderr
    return r.stderr


GPT2 = 'model = { preset = "gpt2-small" }\n'
LAYER = 'quantity = "layer_ffn_params"\n'


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ('quantiy = "gelu"\nx = 1.0\n', "unknown key 'quantiy' (did you mean 'quantity'?)"),
        (LAYER + "model = { d_modell = 64, d_model = 64, n_heads = 4 }\n",
         "unknown key 'model.d_modell' (did you mean 'd_model'?)"),
        ('quantity = "ffn_ratio"\n' + GPT2 + 'other = { preset = "gpt2-small", n_head = 4 }\n',
         "unknown key 'other.n_head' (did you mean 'n_heads'?)"),
        (LAYER + 'model = { preset = "gpt2-small", biass = false }\n', "(did you mean 'bias'?)"),
        (LAYER + 'model = { presett = "gpt2-small" }\n', "(did you mean 'preset'?)"),
        (LAYER + "model = { d_model = true, n_heads = 4 }\n", "model.d_model = true: "),
        (LAYER + "model = { d_model = 64.0, n_heads = 4 }\n", "model.d_model = 64.0: "),
        (LAYER + 'model = { preset = "gpt2-small", n_heads = "32" }\n', "model.n_heads = \"32\": "),
        (LAYER + 'model = { preset = "gpt2-small", bias = "no" }\n', "model.bias = \"no\": "),
        (LAYER + 'model = { preset = "gpt2-small", tie = 1 }\n', "model.tie = 1: "),
        (LAYER + "model = { preset = 5 }\n", "model.preset = 5: "),
        (LAYER + 'model = { preset = "gpt2-small", activation = "gelu2" }\n', "model.activation = \"gelu2\": "),
        (LAYER + 'model = "gpt2-small"\n', "model = \"gpt2-small\": "),
        ('quantity = "gelu"\nx = true\n', "x = true: "),
        ('quantity = "gelu"\nx = inf\n', "x = inf: input should be a finite number"),
        ('quantity = "gelu"\nx = nan\n', "x = nan: input should be a finite number"),
        ('quantity = "gelu"\nx = -inf\n', "x = -inf: input should be a finite number"),
        ('quantity = "llama_d_ff"\nd_model = 4096\nffn_dim_multiplier = nan\n',
         "ffn_dim_multiplier = nan: input should be a finite number"),
        ('quantity = "llama_d_ff"\nd_model = 4096\nffn_dim_multiplier = inf\n',
         "ffn_dim_multiplier = inf: input should be a finite number"),
        ('quantity = "llama_d_ff"\nd_model = 4096.0\n', "d_model = 4096.0: input should be a valid integer"),
        ('quantity = "llama_d_ff"\nd_model = 4096\nmultiple_of = true\n', "multiple_of = true: "),
        ('quantity = "llama_d_ff"\nd_model = 4096\nsig_figs = 0\n', "sig_figs = 0: "),  # 1 is a textbook precision (約0.04パーセント)
        ('quantity = "layer_macs"\n' + GPT2 + 'part = "ffn"\nseq_len = false\n', "seq_len = false: "),
        ('quantity = "layer_macs"\n' + GPT2 + 'part = "ffn"\nseq_len = 1024\nbatch = 2.0\n', "batch = 2.0: "),
        ("x = 1.0\n", "required key 'quantity' is missing"),
    ],
)  # fmt: skip
def test_catalog_errors_name_file_exercise_and_field(tmp_path: Path, body: str, says: str) -> None:
    assert says in catalog_error(tmp_path, body)


def test_catalog_error_names_the_entry_by_index_and_id(tmp_path: Path) -> None:
    p = tmp_path / "hw.toml"
    good = '[[exercise]]\nid = "a"\nquestion = "q?"\nquantity = "gelu"\nx = 1.0\n'
    p.write_text(good + good.replace('"a"', '"b"').replace("x = 1.0", "x = nan"))
    r = run("exercise", "list", "--exercises", str(p))
    assert r.exit_code == 2 and f"'{p}', exercise 2 ('b'): x = nan" in r.stderr


def test_catalog_top_level_keys(tmp_path: Path) -> None:
    p = tmp_path / "hw.toml"
    p.write_text('[[exercize]]\nid = "t"\nquestion = "q?"\nquantity = "gelu"\nx = 1.0\n')
    r = run("exercise", "list", "--exercises", str(p))
    assert r.exit_code == 2 and r.stdout == ""
    assert "unknown key 'exercize' (did you mean 'exercise'?)" in r.stderr and str(p) in r.stderr


def test_catalog_sig_figs(tmp_path: Path) -> None:
    p = tmp_path / "hw.toml"
    p.write_text(HEAD + 'quantity = "gelu"\nx = 0.5\nsig_figs = 4\n')
    # GELU(0.5) = 0.3457312: 0.346 is right to 3 figures, but this exercise asks for 4.
    code, out, _ = check("t", "0.346", "--exercises", str(p))
    assert code == 1 and "0.346 has 3 significant figures; give at least 4 (e.g. 0.3457)" in out
    assert check("t", "0.3457", "--exercises", str(p))[0] == 0


def test_valid_model_tables_still_load(tmp_path: Path) -> None:
    p = tmp_path / "hw.toml"
    p.write_text(
        HEAD + LAYER + 'model = { d_model = 64, n_heads = 4, d_ff = 256, activation = "swiglu", '
        'bias = false, tie = true, n_layers = 2, vocab_size = 100, architecture = "decoder-only" }\n'
    )
    data = run("exercise", "list", "--exercises", str(p), "-f", "json").json()
    assert data["exercises"][0]["answer"] == 3 * 64 * 256  # gate, up, down without biases


def test_the_exact_answer_is_shown_to_more_figures_than_an_answer_needs() -> None:
    ex = {e["id"]: e for e in run("exercise", "list", "-f", "json").json()["exercises"]}
    # ln_1 + ln_2 = 2 x 2 x 768 = 3,072 of a GPT-2 block's 7,087,872 parameters: 0.043341%.
    assert ex["gpt2-block-norm-share"]["answer_text"] == "0.04334%"
    # Transformer base: FFN 2,099,712 / attention 1,050,624 = 1.99853 (not 2.00).
    assert ex["transformer-base-ffn-vs-attention"]["answer_text"] == "1.999x"
    assert ex["gpt2-mlp-model-share"]["answer_text"] == "45.54%"  # 56,669,184 / 124,439,808
    assert ex["ffn-4096-vs-gpt2"]["answer_text"] == "28.44x"  # 134,217,728 / 4,718,592


def test_every_quantity_says_what_it_asks_for() -> None:
    from ffn_calc.homework.exercises import ASKS, QUANTITIES

    assert set(ASKS) == set(QUANTITIES)


def test_catalog_entries_must_be_tables(tmp_path: Path) -> None:
    p = tmp_path / "hw.toml"
    p.write_text("exercise = [1, 2]\n")
    r = run("exercise", "list", "--exercises", str(p))
    assert r.exit_code == 2 and r.stdout == ""
    assert f"'{p}', exercise 1: an [[exercise]] must be a table, not 1." in r.stderr


def test_the_readme_catalog_example_loads(tmp_path: Path) -> None:
    homework = DOC_PAGES["docs/homework.md"]
    start = homework.index("```toml") + len("```toml")
    example = homework[start : homework.index("```", start)]
    p = tmp_path / "hw.toml"
    p.write_text(example)
    data = run("exercise", "list", "--exercises", str(p), "-f", "json").json()
    assert data["exercises"][0]["answer"] == 4_722_432  # BertIntermediate + BertOutput dense
    assert check("bert-ffn", "4.72M", "--exercises", str(p))[0] == 0
    assert check("bert-ffn", "4.7M", "--exercises", str(p))[0] == 1  # sig_figs = 3


def test_the_reason_reaches_csv_and_markdown() -> None:
    # 1e8 for 134,217,728 is judged wrong for want of figures; every format says why.
    for fmt in ("csv", "markdown"):
        r = run("exercise", "check", "ffn-4096", "1e8", "-f", fmt)
        assert r.exit_code == 1
        assert "significant figure" in r.stdout
