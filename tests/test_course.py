"""The course catalog (`--catalog course`): every figure of the course texts that can be an
exercise, at the texts' sizes and precisions, their slips explained in every language.

The figures the texts print are in tests/data/course/figures.json (copied with their source).
Exact answers: attention at d_model 512 without biases = 4 x 512^2 = 1,048,576; the FFN at
d_ff 2048 = 2 x 512 x 2048 = 2,097,152; their ratio exactly 2; the share 2/3. GPT-2 small
(transformers GPT2Config defaults, tests/test_homework.py): MLP 4,722,432, attention
2,362,368, block 7,087,872, model 124,439,808. GELU(0.5) = 0.5 Phi(0.5) = 0.3457312.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run

from ffn_calc.i18n import translate as i18n

DATA = Path(__file__).parent / "data" / "course"
FIGURES = json.loads((DATA / "figures.json").read_text(encoding="utf-8"))["figures"]
LANGS = ["en", "ja", "zh"]


def course(*args: str) -> tuple[int, str, str]:
    r = run("exercise", *args, "--catalog", "course")
    assert "Traceback" not in r.stderr
    return r.exit_code, r.stdout, r.stderr


def test_the_course_catalog_computes_the_texts_numbers() -> None:
    code, out, _ = course("list", "-f", "json")
    assert code == 0
    answers = {e["id"]: e["answer"] for e in json.loads(out)["exercises"]}
    assert answers["attention-512"] == 1_048_576  # 4 x 512 x 512
    assert answers["ffn-512"] == 2_097_152  # 2 x 512 x 2048
    assert answers["ffn-vs-attention-512"] == 2  # exactly
    assert answers["ffn-share-512"] == pytest.approx(2 / 3)
    assert answers["shape-hidden"] == [1, 8, 2048]
    assert answers["shape-output"] == [1, 8, 512]
    assert answers["ffn-4096"] == 134_217_728  # 2 x 4096 x 16384
    assert answers["gpt2-mlp-all"] == 56_669_184  # 12 x 4,722,432
    assert answers["crossover-projections-512"] == 1024  # 2 d_model
    assert answers["crossover-ffn-512"] == 2048  # d_ff


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f"{f['exercise']}={f['answer']}")
def test_the_texts_figures(figure: dict[str, str], lang: str) -> None:
    code, out, err = course("check", figure["exercise"], figure["answer"], "--lang", lang)
    assert code == (0 if figure["verdict"] == "right" else 1), out + err


@pytest.mark.parametrize("lang", LANGS)
def test_the_gelu_slip_is_explained_politely(lang: str) -> None:
    code, out, _ = course("check", "gelu-half", "0.345", "--lang", lang)
    with i18n.use(lang):
        note = i18n._(
            "The chapter's table gives 0.345 here, a small slip: GELU(0.5) = 0.5 x Phi(0.5) = "
            "0.34573 (the tanh form gives 0.34571), which is 0.346 to three decimals"
        )
    assert code == 1 and note in out
    assert "0.346" in note and "0.34571" in note
    assert course("check", "gelu-half", "0.346")[0] == 0
    assert course("check", "gelu-half", "0.35")[0] == 1  # not to 3 decimals


@pytest.mark.parametrize("lang", LANGS)
def test_the_rule_of_thumb_is_related_to_the_crossovers(lang: str) -> None:
    for exercise in ("crossover-projections-512", "crossover-ffn-512"):
        code, out, _ = course("solve", exercise, "--lang", lang)
        assert code == 0
        assert "2 d_model" in out and "d_ff" in out
        with i18n.use(lang):
            assert i18n._("Note: {note}").split("{")[0] in out


def test_ja_questions_say_the_course_word_for_attention() -> None:
    code, out, _ = course("show", "attention-512", "--lang", "ja")
    assert code == 0 and "注意機構" in out
