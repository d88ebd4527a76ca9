"""For instructors: a worksheet and its key, grading a class in one process, a variant per
student (other sizes, the same for the same seed, checked against its own numbers), and
`check --no-reveal` for practice.

Exact answers: as tests/test_course.py (ffn-4096 = 134,217,728; ffn-512 = 2,097,152;
attention-512 = 1,048,576; the ratio at d_ff = 4 d_model exactly 2).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run

DATA = Path(__file__).parent / "data" / "course"
CLASS = DATA / "class.csv"  # answers as a class would write them (see test_grade_a_class)


def ex(*args: str) -> tuple[int, str, str]:
    r = run("exercise", *args)
    assert "Traceback" not in r.stderr
    return r.exit_code, r.stdout, r.stderr


# --- the worksheet and its key -----------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_the_worksheet_has_no_answers_and_the_key_has_them(lang: str) -> None:
    code, sheet, _ = ex("sheet", "--catalog", "course", "--lang", lang)
    assert code == 0 and sheet.startswith("# ")
    for answer in ("134,217,728", "1,048,576", "2,097,152", "[1, 8, 2048]"):
        assert answer not in sheet
    assert "attention-512" in sheet and "gelu-half" in sheet
    code, key, _ = ex("sheet", "--catalog", "course", "--answers", "--lang", lang)
    assert code == 0 and "\\[1, 8, 2048\\]" in key  # Markdown: brackets escaped
    key = key.replace("\\", "")
    for answer in ("134,217,728", "1,048,576", "2,097,152", "[1, 8, 2048]"):
        assert answer in key
    assert "0.346" in key  # the GELU slip's note is in the key


def test_the_worksheet_json_holds_no_answer() -> None:
    code, out, _ = ex("sheet", "--catalog", "course", "-f", "json")
    data = json.loads(out)
    assert code == 0 and data["answers"] is False
    assert all(set(e) == {"id", "question"} for e in data["exercises"])
    code, out, _ = ex("sheet", "--catalog", "course", "--answers", "-f", "json")
    key = {e["id"]: e for e in json.loads(out)["exercises"]}
    assert key["ffn-4096"]["answer"] == 134_217_728 and key["ffn-4096"]["steps"]


def test_the_default_catalog_has_a_sheet_too() -> None:
    code, out, _ = ex("sheet", "-f", "csv")
    assert code == 0 and out.splitlines()[1] == "id,question"


# --- variants ----------------------------------------------------------------------------------


def key(seed: str) -> dict[str, dict[str, object]]:
    code, out, _ = ex("sheet", "--catalog", "course", "--answers", "--variant", seed, "-f", "json")
    assert code == 0
    return {e["id"]: e for e in json.loads(out)["exercises"]}


def test_a_variant_is_the_same_for_the_same_seed_and_differs_between_seeds() -> None:
    a, b, c = key("7"), key("7"), key("8")
    assert a == b
    base = key("0")
    varied = [i for i in a if a[i]["question"] != c[i]["question"]]
    assert len(varied) >= 10
    # the 2/3 holds at every size: the ratio stays exactly 2 and the share 2/3
    for k in (a, c, base):
        assert k["ffn-vs-attention-512"]["answer"] == 2
        assert k["ffn-share-512"]["answer"] == pytest.approx(2 / 3)


@pytest.mark.parametrize("seed", ["1", "7", "12345"])
def test_check_judges_against_the_variants_numbers(seed: str) -> None:
    k = key(seed)
    for exercise in ("ffn-512", "attention-512", "shape-hidden", "gelu-minus-1", "ffn-macs-8"):
        given = str(k[exercise]["answer_text"])
        assert ex("check", exercise, given, "--catalog", "course", "--variant", seed)[0] == 0
        show = ex("show", exercise, "--catalog", "course", "--variant", seed, "-f", "json")[1]
        assert json.loads(show)["question"] == k[exercise]["question"]
    # the base catalog's answer is wrong for a variant whose sizes differ
    code, _out, _ = ex("check", "ffn-512", "2097152", "--catalog", "course", "--variant", seed)
    assert k["ffn-512"]["answer"] != 2_097_152 and code == 1


def test_solve_shows_the_variants_work() -> None:
    k = key("7")
    code, out, _ = ex("solve", "ffn-512", "--catalog", "course", "--variant", "7")
    assert code == 0 and str(k["ffn-512"]["answer_text"]) in out


@pytest.mark.parametrize("seed", ["-1", "x", str(2**63)])
def test_a_bad_variant_exits_2(seed: str) -> None:
    code, out, err = ex("check", "ffn-512", "1", "--catalog", "course", "--variant", seed)
    assert code == 2 and out == "" and "--variant" in err


# --- check --no-reveal -------------------------------------------------------------------------


def test_no_reveal_keeps_the_answer_back() -> None:
    code, out, _ = ex("check", "ffn-4096", "1億", "--no-reveal")
    assert code == 1 and "134" not in out and "1.3億" not in out
    assert "significant figure" in out  # why it is wrong, without an example
    code, out, _ = ex("check", "ffn-4096", "134217728", "--no-reveal")
    assert code == 0 and out.count("134") == 1  # the answer given, nothing more
    code, out, _ = ex("check", "ffn-4096", "2", "--no-reveal", "-f", "json")
    data = json.loads(out)
    assert code == 1 and data["answer"] is None and data["steps"] == []
    code, out, _ = ex("check", "gelu-half", "0.345", "--catalog", "course", "--no-reveal")
    assert code == 1 and "0.346" not in out  # the slip's note would give the answer
    code, _out, err = ex("check", "ffn-4096", "lots", "--no-reveal")
    assert code == 2 and "cannot read" in err


# --- grading a class ---------------------------------------------------------------------------


def test_grade_a_class() -> None:
    code, out, _ = ex("grade", str(CLASS), "--catalog", "course", "-f", "json")
    assert code == 0
    data = json.loads(out)
    verdicts = [(r["student"], r["exercise"], r["verdict"]) for r in data["rows"]]
    assert verdicts == [
        ("aiko", "ffn-4096", "right"),  # 約1億3400万個
        ("aiko", "ffn-share-512", "right"),  # 2/3
        ("aiko", "gelu-half", "wrong"),  # 0.345, the textbook slip
        ("aiko", "shape-hidden", "right"),
        ("bo", "ffn-4096", "wrong"),  # 1億: 1 significant figure
        ("bo", "ffn-share-512", "right"),  # 三分之二
        ("bo", "ffn-512", "unreadable"),  # lots
        ("bo", "ffn-vs-attention-512", "right"),  # ちょうど2倍
        ("chen", "ffn-512", "unreadable"),  # no answer
        ("chen", "ffn-4096", "right"),
        ("chen", "ffn-vs-attention-512", "right"),  # 2.0倍 in variant 3: still exactly 2
    ]
    reasons = {(r["student"], r["exercise"]): r["reason"] for r in data["rows"]}
    assert "0.346" in reasons[("aiko", "gelu-half")]
    assert "significant figure" in reasons[("bo", "ffn-4096")]
    assert "cannot read the answer 'lots'" in reasons[("bo", "ffn-512")]
    assert data["students"] == [
        {"student": "aiko", "right": 3, "total": 4},
        {"student": "bo", "right": 2, "total": 4},
        {"student": "chen", "right": 2, "total": 3},
    ]
    assert data["rows"][-1]["variant"] == 3


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_grade_csv_stays_english_and_table_is_translated(lang: str) -> None:
    code, out, _ = ex("grade", str(CLASS), "--catalog", "course", "-f", "csv", "--lang", lang)
    assert code == 0
    assert "line,student,exercise,variant,answer,verdict,why" in out
    assert "lots,unreadable,\"cannot read the answer 'lots'" in out
    assert "student,right,total\naiko,3,4\nbo,2,4\nchen,2,3" in out
    code, out, _ = ex("grade", str(CLASS), "--catalog", "course", "--lang", lang)
    assert code == 0 and "aiko" in out


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("student,exercise\nx,ffn-512\n", 1, "header"),
        ("student,exercise,answer\nx,nope,1\n", 2, "unknown exercise 'nope'"),
        ("student,exercise,answer\nx,ffn-512,1\ny,ffn-512\n", 3, "2 cells"),
        ("student,exercise,answer,variant\nx,ffn-512,1,-3\n", 2, "variant '-3'"),
        ("student,exercise,answer\n,ffn-512,1\n", 2, "student"),
        ("student,exercise,answer,answer\nx,ffn-512,1,2\n", 1, "header"),
    ],
)
def test_a_bad_answers_file_exits_2_naming_the_line(
    tmp_path: Path, text: str, line: int, says: str
) -> None:
    path = tmp_path / "answers.csv"
    path.write_text(text, encoding="utf-8")
    code, out, err = ex("grade", str(path), "--catalog", "course")
    assert code == 2 and out == ""
    assert f"line {line}:" in err and says in err


def test_a_missing_or_empty_answers_file_exits_2(tmp_path: Path) -> None:
    assert ex("grade", str(tmp_path / "none.csv"))[0] == 2
    (tmp_path / "empty.csv").write_text("student,exercise,answer\n", encoding="utf-8")
    code, _out, err = ex("grade", str(tmp_path / "empty.csv"))
    assert code == 2 and "no answers" in err
