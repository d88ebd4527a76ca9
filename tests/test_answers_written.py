"""Answers as students write them (issue: the course): fractions in every written form, counter
and unit words, 割 / 成, "about" after the number, a closing 。 or です, ちょうど, placeholder zeros
after 約, the floor and ceiling of a width. Judged exactly: the wrong ones stay wrong.

Exact answers (tests/test_answers_cjk.py::test_the_answers_these_tests_use): ffn-4096 is
2 x 4096 x 16384 = 134,217,728; two-thirds is 8d^2 / 12d^2 = 2/3; swiglu-parity is
8 x 4096 / 3 = 10,922.67; ffn-4096-vs-gpt2 is 134,217,728 / 4,718,592 = 28.44x;
gpt2-block-mlp-share is 4,722,432 / 7,087,872 = 66.63%.
"""

from __future__ import annotations

import pytest
from conftest import run


def code(exercise: str, given: str, *lang: str) -> int:
    r = run("exercise", "check", exercise, given, *lang)
    assert "Traceback" not in r.stderr
    if r.exit_code == 2:
        assert r.stdout == "" and r.stderr
    return r.exit_code


RIGHT = [
    ("ffn-4096", "約1億3400万個"),  # the chapter's own answer (its exercise 1)
    ("ffn-4096", "約1億3400万個です。"),
    ("ffn-4096", "約1億3400万個です"),
    ("ffn-4096", "1億3400万パラメータ"),
    ("ffn-4096", "約1億3400万個のパラメータ"),
    ("ffn-4096", "约1亿3400万个参数"),
    ("ffn-4096", "1亿3400万个"),
    ("ffn-4096", "134217728個"),
    ("ffn-4096", "134,217,728 parameters"),
    ("ffn-4096", "1.34億程度"),
    ("ffn-4096", "1.34億ほど"),
    ("ffn-4096", "1.34亿左右"),
    ("ffn-4096", "1.34亿前后"),
    ("ffn-4096", "約134000000"),  # after 約 the zeros are placeholders: 3 figures
    ("ffn-4096", "约134,000,000"),
    ("ffn-4096", "134000000左右"),
    ("ffn-4096", "ちょうど134217728"),
    ("ffn-4096", "134217728。"),
    ("ffn-4096-vs-gpt2", "およそ28.4倍"),
    ("ffn-4096-vs-gpt2", "28.4倍です"),
    ("ffn-4096-vs-gpt2", "28.4倍程度"),
    ("two-thirds", "2/3"),
    ("two-thirds", "\uff12\uff0f\uff13"),  # full-width 2/3
    ("two-thirds", "⅔"),
    ("two-thirds", "3分の2"),
    ("two-thirds", "三分の二"),
    ("two-thirds", "三分之二"),
    ("two-thirds", "约三分之二"),
    ("two-thirds", "4/6"),  # the same fraction, not reduced
    ("two-thirds", "6.7割"),  # 67%: 66.67 is within 0.5
    ("two-thirds", "6.7成"),
    ("gpt2-block-mlp-share", "6.7割"),
    ("swiglu-parity", "10922"),  # the floor of 10,922.67
    ("swiglu-parity", "10923"),  # its ceiling
    ("swiglu-parity", "32768/3"),  # exact
]

WRONG = [
    ("ffn-4096", "1億個"),  # 1 figure
    ("ffn-4096", "134000000"),  # without 約 all 9 figures count
    ("ffn-4096", "ちょうど134000000"),  # "exactly" is not "about"
    ("ffn-4096", "約1億3500万個"),
    ("ffn-4096", "1.35億程度"),
    ("ffn-4096", "約135000000"),
    ("ffn-4096", "2/3"),
    ("ffn-4096-vs-gpt2", "28.4個"),  # a counter on a ratio
    ("ffn-4096-vs-gpt2", "29倍程度"),
    ("two-thirds", "0.666"),  # the fraction's precision: 0.6667 is 0.00067 away
    ("two-thirds", "1/2"),
    ("two-thirds", "3分の1"),
    ("two-thirds", "二分之一"),
    ("two-thirds", "2/3個"),  # a share is not counted
    ("two-thirds", "6.6割"),
    ("two-thirds", "-2/3"),
    ("swiglu-parity", "10921"),
    ("swiglu-parity", "10924"),
    ("swiglu-parity", "10922.5"),  # decimals written: judged to the tenth (0.17 away)
]

UNREADABLE = [
    ("ffn-4096", "1½"),  # would fold into 11/2
    ("ffn-4096", "2/0"),
    ("ffn-4096", "十十分之一"),
    ("ffn-4096", "個"),
    ("ffn-4096", "です"),
    ("ffn-4096", "1億3400万円"),  # not a counter
    ("two-thirds", "2/3/4"),
    ("ffn-4096", "134217728個個"),  # one counter word
]


@pytest.mark.parametrize("lang", [(), ("--lang", "ja"), ("--lang", "zh")])
@pytest.mark.parametrize(("exercise", "given"), RIGHT)
def test_right_answers_as_written(exercise: str, given: str, lang: tuple[str, ...]) -> None:
    assert code(exercise, given, *lang) == 0


@pytest.mark.parametrize("lang", [(), ("--lang", "zh")])
@pytest.mark.parametrize(("exercise", "given"), WRONG)
def test_wrong_answers_stay_wrong(exercise: str, given: str, lang: tuple[str, ...]) -> None:
    assert code(exercise, given, *lang) == 1


@pytest.mark.parametrize(("exercise", "given"), UNREADABLE)
def test_what_is_not_a_number_exits_2(exercise: str, given: str) -> None:
    assert code(exercise, given) == 2


def test_a_counter_on_a_ratio_says_why() -> None:
    r = run("exercise", "check", "ffn-4096-vs-gpt2", "28.4個")
    assert r.exit_code == 1 and "counts things" in r.stdout
