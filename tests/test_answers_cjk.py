"""`exercise check` on answers written the Japanese and Chinese way, in every language.

The expected answers (`ffn-calc exercise list`, worked out in `exercise solve`):
  ffn-4096: W1 + W2 = 2 x 4096 x 16384 = 134,217,728 (1億3421万7728)
  ffn-4096-vs-gpt2 (a ratio): 134,217,728 / 4,718,592 = 28.444x
  transformer-base-ffn-vs-attention (a ratio): 2,099,712 / 1,050,624 = 1.9985x
  gpt2-mlp-model-share (a share): 56,669,184 / 124,439,808 = 45.54%
  llama-d-ff (sig_figs = 5): 11,008

The rules (ffn_calc/homework/answers.py): NFKC first (full-width digits and signs); 約/约/大約/大约/およそ
in front change nothing; 倍 is x; full-width %, パーセント and the prefix 百分之 are %; 万 10^4, 億/亿
10^8, 兆 10^12, alone or largest first. In the 万/億/兆 forms the zeros ending the number are
not significant (約1億3400万: 3 figures, 134,000,000 +- 500,000); decimals written are.
"""

from __future__ import annotations

import gettext
import json
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import run

from ffn_calc.homework.answers import parse_answer
from ffn_calc.i18n import translate as i18n


def wide(text: str) -> str:
    """The full-width form of ASCII text (1.34 -> U+FF11 U+FF0E U+FF13 U+FF14)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def check(*args: str) -> tuple[int, str, str]:
    r = run("exercise", "check", *args)
    assert "Traceback" not in r.stderr
    return r.exit_code, r.stdout, r.stderr


def test_the_answers_these_tests_use() -> None:
    ex = {e["id"]: e for e in run("exercise", "list", "-f", "json").json()["exercises"]}
    assert ex["ffn-4096"]["answer"] == 134_217_728
    assert ex["ffn-4096-vs-gpt2"]["answer_text"] == "28.44x"
    assert ex["transformer-base-ffn-vs-attention"]["answer_text"] == "1.999x"
    assert ex["gpt2-mlp-model-share"]["answer_text"] == "45.54%"
    assert ex["llama-d-ff"]["answer"] == 11_008


# --- counts: 万, 億 (亿), 兆, full-width digits, "about" -----------------------------------------


@pytest.mark.parametrize(
    "given",
    [
        wide("134217728"),  # full-width digits: NFKC
        wide("134,217,728"),
        wide("1.34") + "億",  # 1.34億 in full-width digits
        "約1億3400万",  # 3 figures: 134,000,000 +- 500,000 (the chapter's own answer)
        "约1亿3400万",
        "1.34億",
        "1.34亿",
        "13421.7728万",  # exact
        "1億3421万7728",  # exact, composed
        "1億3421万7728.0",
        "1億 3400万",  # spaces between the parts
        "13420万",  # 4 figures: 134,200,000 +- 50,000
        "1.3億",  # 2 figures are enough here: 130,000,000 +- 5,000,000
        "大約1.34億",
        "大约1.34亿",
        "およそ1.34億",
        "約 1.34億",
        "約134.2M",  # about in front of an ASCII answer too
        "0.000134兆",
        "1.342" + wide("e8"),
    ],
)
def test_counts_written_the_cjk_way_are_right(given: str) -> None:
    code, out, err = check("ffn-4096", given)
    assert code == 0 and out == f"Right: {given} (exact: 134,217,728).\n" and err == ""


@pytest.mark.parametrize(
    "given",
    [
        "1.35億",  # 135,000,000 +- 500,000
        "約1億5000万",  # 2 figures: 150,000,000 +- 5,000,000
        "約1億3500万",  # 135,000,000 +- 500,000
        "1.30億",  # decimals written count: 3 figures, 130,000,000 +- 500,000
        "3400万",
        "1億3421万7729",  # exact to the unit: 1 away
        "13421.7729万",
        "1億7728",  # read as written: 100,007,728
        "-1.34億",
        "1.34兆",
        "1,342万",
    ],
)
def test_wrong_counts_written_the_cjk_way_are_wrong(given: str) -> None:
    code, out, err = check("ffn-4096", given)
    assert code == 1 and err == ""
    assert out.startswith(f"Wrong: {given}; expected 134,217,728. See `ffn-calc exercise solve")


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("1億", "1億 has 1 significant figure; give at least 2 (e.g. 1.3億)"),
        ("1亿", "1亿 has 1 significant figure; give at least 2 (e.g. 1.3亿)"),
        ("約1億", "約1億 has 1 significant figure; give at least 2 (e.g. 1.3億)"),
        ("1億0000万", "has 1 significant figure; give at least 2 (e.g. 1.3億)"),
        ("1万", "1万 has 1 significant figure; give at least 2 (e.g. 13000万)"),
        ("0.0001兆", "has 1 significant figure; give at least 2 (e.g. 0.00013兆)"),
        ("0億", "0億 is zero, and zero never matches a non-zero answer"),
        (wide("0") + "万", "is zero, and zero never matches a non-zero answer"),
        ("134217728倍", "134217728倍 is a ratio, but the question asks for a parameter count"),
        ("134217728パーセント", "is a percentage, but the question asks for a parameter count"),
        ("百分之134217728", "is a percentage, but the question asks for a parameter count"),
        ("134217728" + wide("%"), "is a percentage, but the question asks for a parameter count"),
    ],
)  # fmt: skip
def test_cjk_counts_too_imprecise_or_in_the_wrong_unit_say_why(given: str, why: str) -> None:
    code, out, err = check("ffn-4096", given)
    out = " ".join(out.split())  # a long verdict is wrapped at the terminal's width
    assert code == 1 and out.startswith(f"Wrong: {given}; expected 134,217,728.") and err == ""
    assert why in out and out.endswith("See `ffn-calc exercise solve ffn-4096`.")


def test_two_figures_are_right_only_where_the_exercise_asks_for_at_most_two(
    tmp_path: Path,
) -> None:
    p = tmp_path / "hw.toml"
    p.write_text(
        '[[exercise]]\nid = "f3"\nquestion = "FFN parameters?"\nquantity = "layer_ffn_params"\n'
        "model = { d_model = 4096, d_ff = 16384, n_heads = 32, bias = false }\nsig_figs = 3\n"
    )
    assert check("ffn-4096", "1.3億")[0] == 0  # the built-in exercise asks for 2
    code, out, _ = check("f3", "1.3億", "--exercises", str(p))
    assert code == 1 and "1.3億 has 2 significant figures; give at least 3 (e.g. 1.34億)" in out
    assert check("f3", "1.34億", "--exercises", str(p))[0] == 0
    assert check("f3", "約1億3400万", "--exercises", str(p))[0] == 0  # 3 figures
    code, out, _ = check("f3", "約1億3000万", "--exercises", str(p))  # 2 figures
    assert (
        code == 1 and "約1億3000万 has 2 significant figures; give at least 3 (e.g. 1.34億)" in out
    )
    code, out, _ = check("f3", "13000万", "--exercises", str(p))  # the example: in the unit written
    assert code == 1 and "13000万 has 2 significant figures; give at least 3 (e.g. 13400万)" in out


def test_the_exercise_sig_figs_apply_to_cjk_forms() -> None:
    # llama-d-ff asks for the exact d_ff (5 figures): 11,008.
    assert check("llama-d-ff", "1.1008万")[0] == 0
    assert check("llama-d-ff", "1万1008")[0] == 0
    code, out, _ = check("llama-d-ff", "1.1万")
    assert code == 1 and "1.1万 has 2 significant figures; give at least 5 (e.g. 1.1008万)" in out
    code, out, _ = check("llama-d-ff", "1万1000")  # the zeros ending it are not significant
    assert code == 1 and "1万1000 has 2 significant figures; give at least 5" in out


# --- ratios: 倍 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "code"),
    [
        ("28.4倍", 0),  # 28.35 to 28.45
        ("28.44倍", 0),
        ("28倍", 0),  # 27.5 to 28.5
        ("28.4 倍", 0),
        (wide("28.4") + "倍", 0),
        (wide("28.4x"), 0),
        ("約28.4倍", 0),
        ("约28.4倍", 0),
        ("29倍", 1),  # 28.5 to 29.5
        ("28.5倍", 1),
        ("30倍", 1),  # as 30x: 2 figures, 29.5 to 30.5
        ("2.844e1倍", 0),
    ],
)
def test_ratios_with_bai(given: str, code: int) -> None:
    assert check("ffn-4096-vs-gpt2", given)[0] == code


def test_ratio_verdicts_with_bai_say_why() -> None:
    code, out, _ = check("transformer-base-ffn-vs-attention", "2倍")
    assert code == 1 and "2倍 has 1 significant figure; give at least 2 (e.g. 2.0倍)" in out
    assert check("transformer-base-ffn-vs-attention", "2.0倍")[0] == 0
    code, out, _ = check("ffn-4096-vs-gpt2", "28億")
    assert code == 1
    assert (
        "28億 has the multiplier 億, but the question asks for a ratio (write it plain or with x)"
        in out
    )
    code, out, _ = check("ffn-4096-vs-gpt2", "百分之2844")
    assert code == 1 and "is a percentage, but the question asks for a ratio" in out


# --- shares: full-width %, パーセント, 百分之 -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "code"),
    [
        ("45.5パーセント", 0),
        ("46パーセント", 0),
        ("45.5" + wide("%"), 0),
        (wide("45.5%"), 0),
        ("百分之45.5", 0),  # the prefix: 45.5%
        ("百分之46", 0),
        ("约百分之45.5", 0),
        ("約45.5パーセント", 0),
        ("百分之 45.5", 0),
        ("45パーセント", 1),  # 44.5 to 45.5; the share is 45.54%
        ("百分之45", 1),
        ("百分之0.455", 1),  # 0.455%, not 45.5%
        ("47" + wide("%"), 1),
    ],
)
def test_shares_with_percent_words(given: str, code: int) -> None:
    assert check("gpt2-mlp-model-share", given)[0] == code


def test_share_verdicts_say_why_in_the_form_written() -> None:
    code, out, _ = check("gpt2-block-mlp-share", "百分之7e1")
    assert (
        code == 1 and "百分之7e1 has 1 significant figure; give at least 2 (e.g. 百分之67)" in out
    )
    code, out, _ = check("gpt2-block-mlp-share", "7e1パーセント")
    assert code == 1 and "give at least 2 (e.g. 67パーセント)" in out
    code, out, _ = check("gpt2-mlp-model-share", "45.5倍")
    assert code == 1
    assert (
        "45.5倍 is a ratio, but the question asks for a share (write it as a fraction or with %)"
        in out
    )
    code, out, _ = check("gpt2-mlp-model-share", "4.5億")
    assert code == 1 and "has the multiplier 億, but the question asks for a share" in out


# --- what cannot be read -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given",
    [
        "1億億",  # a unit twice
        "万3400",  # a unit before any number
        "1.2.3億",  # two points
        "1万1億",  # not largest first
        "1億13400万",  # 13400万 does not fit below 億
        "1.5億3400万",  # decimals before the last number
        "1億.5万",
        "億",
        "約",
        "1億万",
        "1e8億",
        "2万倍",  # a multiplier and a ratio unit
        "1億x",
        "28.4倍倍",
        "倍28.4",
        "百分之45%",  # two percent signs
        "百分之",
        "45%パーセント",
        "10\u2078",  # a superscript 8 is not read as the digit 8 (10⁸ is not 108)
        "1\u00bd",  # 1½ would fold into 11/2 (a vulgar fraction alone is a fraction: ⅔)
        "\u2460",  # ①
        "1億3400万円",
    ],
)
def test_what_cannot_be_read_exits_2_with_a_message(given: str) -> None:
    code, out, err = check("ffn-4096", given)
    assert code == 2 and out == "" and f"cannot read the answer '{given}'" in err


def test_a_malformed_cjk_number_says_how_the_units_go() -> None:
    err = check("ffn-4096", "1億億")[2]
    assert "万, 億 (亿) and 兆 each follow a number, largest first" in err
    assert "1億3400万" in err


# --- the reading itself ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "value", "tolerance", "figures", "unit"),
    [
        ("約1億3400万", "134000000", "500000", 3, "億"),
        ("1.34億", "134000000", "500000", 3, "億"),
        ("1億", "100000000", "50000000", 1, "億"),
        ("13421.7728万", "134217728", "0.5", 9, "万"),
        ("1億3421万7728", "134217728", "0.5", 9, "億"),
        ("3400万", "34000000", "500000", 2, "万"),
        ("1.30億", "130000000", "500000", 3, "億"),
        ("1兆2億", "1000200000000", "50000000", 5, "兆"),
        ("28.4倍", "28.4", "0.05", 3, "x"),
        ("百分之45.5", "45.5", "0.05", 3, "%"),
        (wide("1.34") + "億", "134000000", "500000", 3, "億"),
        (wide("-5"), "-5", "0.5", 1, ""),
    ],
)  # fmt: skip
def test_values_windows_and_figures(
    given: str, value: str, tolerance: str, figures: int, unit: str
) -> None:
    g = parse_answer(given)
    assert g.value == Decimal(value) and g.tolerance == Decimal(tolerance)
    assert g.sig_figs == figures and g.unit == unit


def test_long_cjk_answers_are_read_exactly() -> None:
    assert check("ffn-4096", "13421.7728" + "0" * 5000 + "万")[0] == 0
    assert check("ffn-4096", "13421.7728" + "0" * 5000 + "1万")[0] == 1
    assert check("ffn-4096", "1" * 5000 + "万")[0] == 1


# --- languages: the reading does not change; the verdict's words do ------------------------------

FORMS = ["約1億3400万", "1億", "1.35億", "1億億", "28.4倍", "百分之45.5", "0億", "45.5倍"]


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_the_reading_does_not_depend_on_the_language(lang: str) -> None:
    for exercise in ("ffn-4096", "ffn-4096-vs-gpt2", "gpt2-mlp-model-share"):
        for given in FORMS:
            en = run("exercise", "check", exercise, given, "-f", "json", "--lang", "en")
            other = run("exercise", "check", exercise, given, "-f", "json", "--lang", lang)
            assert other.exit_code == en.exit_code and other.stdout == en.stdout
            if en.exit_code != 2:
                assert en.json()["given"] == given


class Marked(gettext.NullTranslations):
    """A stand-in catalog: every message comes back between « », its fields kept."""

    def gettext(self, message: str) -> str:
        return f"«{message}»"


def test_verdicts_and_errors_are_drawn_in_the_chosen_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(i18n._catalogs, "ja", Marked())
    r = run("exercise", "check", "ffn-4096", "1億", "--lang", "ja")
    assert r.exit_code == 1
    assert r.stdout == (
        "«Wrong: 1億; expected 134,217,728. "
        "«1億 has 1 significant figure; give at least 2 (e.g. 1.3億)». "
        "See `ffn-calc exercise solve ffn-4096`.»\n"
    )
    r = run("exercise", "check", "gpt2-mlp-model-share", "45.5倍", "--lang", "ja")
    assert "«45.5倍 is a ratio, but the question asks for «a share» " in r.stdout
    assert "(«write it as a fraction or with %»)»" in r.stdout
    r = run("exercise", "check", "ffn-4096", "約1億3400万", "--lang", "ja")
    assert r.stdout == "«Right: 約1億3400万 (exact: 134,217,728).»\n"
    r = run("exercise", "check", "ffn-4096", "1億億", "--lang", "ja")
    assert r.exit_code == 2 and r.stdout == "" and "«cannot read the answer '1億億': " in r.stderr
    r = run("exercise", "solve", "gpt2-block-mlp-share", "--lang", "ja")
    assert r.stdout.startswith("gpt2-block-mlp-share: «What share of a GPT-2 small block's")
    assert "  ««ffn» = 4,722,432»" in r.stdout and "  «layer = " in r.stdout
    assert r.stdout.endswith("«Answer: 66.63%»\n")
    # What programs read stays English.
    monkeypatch.setitem(i18n._catalogs, "zh", Marked())
    for args in (["check", "ffn-4096", "1億"], ["solve", "two-thirds"], ["list"]):
        for fmt in ("json", "csv"):
            outs = {lang: run("exercise", *args, "-f", fmt, "--lang", lang).stdout
                    for lang in i18n.LANGUAGES}  # fmt: skip
            assert outs["en"] == outs["ja"] == outs["zh"] and "«" not in outs["en"]
    data = json.loads(
        run("exercise", "check", "ffn-4096", "1億", "-f", "json", "--lang", "ja").stdout
    )
    assert data["reason"] == "1億 has 1 significant figure; give at least 2 (e.g. 1.3億)"


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_verdicts_use_the_catalogs(lang: str) -> None:
    """With the shipped catalogs: the verdict is the catalog's sentence, fields put in."""
    tr = i18n._catalog(lang)
    why = tr.gettext("{answer} has {n} significant figure; give at least {need} (e.g. {example})")
    wrong = tr.gettext(
        "Wrong: {given}; expected {answer}. {reason}. See `ffn-calc exercise solve {id}`."
    )
    reason = why.format(answer="1億", n="1", need="2", example="1.3億")
    expected = wrong.format(given="1億", answer="134,217,728", reason=reason, id="ffn-4096")
    r = run("exercise", "check", "ffn-4096", "1億", "--lang", lang)
    assert r.exit_code == 1 and r.stdout == expected + "\n"
