"""The course's 2/3 (the FFN holds two thirds of a layer's weights whatever d_model is, while
d_ff = 4 d_model) as a sweep: a field that follows another (`--vary d_ff=4*d_model`), the
`layer_ffn_share` metric, and a note when d_model varies but d_ff is held fixed."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from conftest import run

from ffn_calc.api import load
from ffn_calc.sweeps.run import parse_axis, sweep


def test_d_ff_follows_d_model_and_the_share_is_two_thirds() -> None:
    # gpt2-small without biases: attention 4 d^2 and FFN 2 x d x 4d = 8 d^2 per layer, so the
    # FFN's share of the two is 8 / 12 = 2/3 at every d_model (course text 002: 512 x 2048).
    r = run(
        "sweep", "-p", "gpt2-small", "--no-bias", "--vary", "d_model=768:3072:768",
        "--vary", "d_ff=4*d_model", "-m", "layer_ffn_share", "-m", "ffn_params", "-f", "json",
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["vary"] == {"d_model": "768:3072:768", "d_ff": "4*d_model"}
    assert [(row["d_model"], row["d_ff"]) for row in doc["rows"]] == [
        (768, 3072), (1536, 6144), (2304, 9216), (3072, 12288),
    ]  # fmt: skip
    assert {row["layer_ffn_share"] for row in doc["rows"]} == {2 / 3}
    # 12 layers x 2 x d x 4d (no biases): 12 x 8 x 768^2 = 56,623,104
    assert doc["rows"][0]["ffn_params"] == 12 * 8 * 768 * 768
    assert doc["combinations"] == 4 and "warnings" not in doc


def test_the_share_is_exact_for_require_and_the_api() -> None:
    model = load(preset="gpt2-small").varied({"attention_bias": False, "ffn_bias": False})
    rows = list(sweep(model, {"d_model": [768, 1536], "d_ff": "4*d_model"}, ["layer_ffn_share"]))
    assert [r["d_ff"] for r in rows] == [3072, 6144]
    # --require compares the exact Fraction: 8 d^2 / 12 d^2 == 2/3 holds, 66.7% does not
    ok = run("params", "-p", "gpt2-small", "--no-bias", "--require", "layer_ffn_share==2/3")
    assert ok.exit_code == 0, ok.stderr
    off = run("params", "-p", "gpt2-small", "--no-bias", "--require", "layer_ffn_share==66.7%")
    assert off.exit_code == 1


def test_a_fraction_that_is_not_whole_is_skipped_with_its_reason() -> None:
    # 8/3 x 256 = 682.67: no model; 8/3 x 768 = 2,048
    r = run(
        "sweep", "-p", "gpt2-small", "--vary", "d_model=256,768", "--vary", "d_ff=8/3*d_model",
        "-f", "json",
    )  # fmt: skip
    doc = json.loads(r.stdout)
    assert [row["d_ff"] for row in doc["rows"]] == [2048]
    (reason,) = doc["skipped_reasons"]
    assert reason["reason"] == "d_ff = 8/3 x d_model is not a whole number"
    assert reason["first"] == {"d_model": 256}
    zh = run("sweep", "-p", "gpt2-small", "--vary", "d_model=256,768", "--vary",
             "d_ff=8/3*d_model", "--lang", "zh")  # fmt: skip
    assert "8/3" in zh.stdout and "is not a whole number" not in zh.stdout


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("d_ff=0*d_model", "positive"),
        ("d_ff=4*d_ff", "FIELD=K*OTHER"),
        ("d_ff=4*activation", "FIELD=K*OTHER"),
        ("activation=4*d_model", "FIELD=K*OTHER"),
        ("d_ff=4*d_modl", "d_model"),  # a near miss is named
    ],
)
def test_bad_follow_rules_exit_2(spec: str, message: str) -> None:
    r = run("sweep", "-p", "gpt2-small", "--vary", "d_model=768,1536", "--vary", spec)
    assert r.exit_code == 2 and message in r.stderr and not r.stdout
    assert "Traceback" not in r.stderr


def test_a_field_cannot_follow_a_follower() -> None:
    r = run("sweep", "-p", "gpt2-small", "--vary", "d_model=768,1536", "--vary",
            "d_ff=4*n_layers", "--vary", "n_layers=2*d_ff")  # fmt: skip
    assert r.exit_code == 2 and "follows another field itself" in r.stderr


def test_the_follow_rule_is_one_axis_of_no_combinations() -> None:
    axis = parse_axis("d_ff = 3 * d_model")
    assert axis.follows == (Fraction(3), "d_model") and len(axis.values) == 1
    assert parse_axis("d_ff=d_model*4").follows == (Fraction(4), "d_model")


@pytest.mark.parametrize("fmt", ["table", "markdown", "json", "csv"])
@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_d_ff_held_fixed_is_said(fmt: str, lang: str) -> None:
    r = run("sweep", "-p", "llama-2-7b", "--vary", "d_model=2048,4096", "-m", "layer_ffn_share",
            "-f", fmt, "--lang", lang)  # fmt: skip
    assert r.exit_code == 0
    said = r.stderr if fmt == "csv" else r.stdout
    # llama-2-7b: d_ff 11,008 = 43/16 x 4,096
    assert "11,008" in said and "--vary d_ff=43/16*d_model" in said
    if fmt == "json":
        assert json.loads(r.stdout)["warnings"][0].startswith("d_ff is held at 11,008")
    if lang != "en" and fmt != "json":
        assert "while d_model varies" not in said


def test_no_note_when_d_ff_follows_or_d_model_is_fixed() -> None:
    for args in (
        ("--vary", "d_model=2048,4096", "--vary", "d_ff=43/16*d_model"),
        ("--vary", "d_model=2048,4096", "--vary", "d_ff=8192,11008"),
        ("--vary", "n_layers=8,16"),
    ):
        r = run("sweep", "-p", "llama-2-7b", *args)
        assert r.exit_code == 0 and "held at" not in r.stdout + r.stderr


def test_moe_widths_held_fixed_are_said_too() -> None:
    # deepseek-v2-lite: the dense layer's FFN (10,944) and the shared experts' are widths of their own
    r = run("sweep", "-p", "deepseek-v2-lite", "--vary", "d_model=1024,2048", "--vary",
            "d_ff=11/16*d_model", "-f", "json")  # fmt: skip
    warned = " ".join(json.loads(r.stdout).get("warnings", []))
    assert "dense_d_ff is held at" in warned and "d_ff is held at 1,408" not in warned
