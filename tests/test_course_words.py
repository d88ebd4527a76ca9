"""Words as the course writes them: 倍 for a ratio in Japanese and Chinese, 規約 (not 約定) for
a convention in Japanese, no English words left in the ja/zh tables the course shows, and in
Chinese a wrong answer (答案错误) told apart from an input error (错误)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, run

from ffn_calc.i18n import catalogs


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_a_ratio_is_written_with_bai(lang: str) -> None:
    # ffn-4096-vs-gpt2: 134,217,728 / 4,718,592 = 28.44 (tests/test_answers_cjk.py)
    r = run("exercise", "check", "ffn-4096-vs-gpt2", "28.4x", "--lang", lang)
    assert r.exit_code == 0 and "28.44倍" in r.stdout and "28.44x" not in r.stdout
    r = run("exercise", "list", "--lang", lang)
    assert "28.44倍" in r.stdout and "28.44x" not in r.stdout
    assert "28.44x" in run("exercise", "list", "-f", "json", "--lang", lang).stdout  # JSON: English


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_no_4x_in_the_translations(lang: str) -> None:
    _, entries = catalogs.read_po(catalogs.po_path(lang))
    assert not [e.msgstr for e in entries.values() if "4x" in e.msgstr.replace("28.4x", "")]


def test_ja_says_kiyaku_for_a_convention() -> None:
    _, entries = catalogs.read_po(catalogs.po_path("ja"))
    assert not [e.msgstr for e in entries.values() if "約定" in e.msgstr]


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_no_english_words_in_the_tables(lang: str) -> None:
    out = run("compare", "gpt2-small", "llama-2-7b", "--lang", lang).stdout
    for word in ("plain", "gated", "encoder-decoder"):
        assert word not in out
    assert "weight + bias" not in run("params", "-p", "gpt2-small", "--lang", lang).stdout


def test_zh_tells_a_wrong_answer_from_an_input_error() -> None:
    wrong = run("exercise", "check", "ffn-4096", "2", "--lang", "zh")
    assert wrong.exit_code == 1 and wrong.stdout.startswith("答案错误")
    error = run("exercise", "check", "ffn-4096", "lots", "--lang", "zh")
    assert error.exit_code == 2 and error.stderr.startswith("错误")


# --- every table and Markdown page in Japanese and Chinese: no English word left --------------
# Words that ffn-calc itself once put in ja/zh tables (values and labels, not identifiers,
# tensor names, formula symbols or software names): found by reading every command x format x
# language over every preset (scripts/transcript.py) for ASCII words.
ENGLISH = (
    "ffn", "proj", "dense", "plain", "gated", "none", "full", "selective", "custom", "weight",
    "bias", "dropout", "logits", "sink", "sinks", "shell", "layers", "selective",
)  # fmt: skip
_WORD = re.compile(r"(?<![\w.\-/\[`'{])(" + "|".join(ENGLISH) + r")(?![\w.\-/\]`'}(])")
COMMANDS = [
    ("crossover", "-p", "llama-2-7b"),
    ("crossover", "-p", "gpt2-small", "--decode"),
    ("crossover", "-p", "mixtral-8x7b", "--decode", "--batch", "8"),
    ("presets",),
    ("compare", "gpt2-small", "llama-2-7b", "t5-base"),
    ("memory", "-p", "llama-2-7b", "--training", "--explain"),
    ("memory", "-p", "gpt2-small", "--training", "--recompute", "selective"),
    ("memory", "-p", "llama-2-7b", "--training", "--recompute", "full", "--tp", "2"),
    ("params", "-p", "gpt2-small", "--explain"),
    ("params", "-p", "gpt-oss-20b", "--explain"),
    ("params", "--preset", "nemotron-h-8b", "--explain"),
    ("params", "--d-model", "4096", "--d-ff", "16384", "--n-heads", "32", "--n-layers", "2"),
    ("flops", "--d-model", "512", "--n-heads", "8", "--seq-len", "128", "--explain"),
    (
        "flops",
        "--preset",
        "nemotron-h-8b",
        "--seq-len",
        "64",
        "--explain",
    ),
    ("kv", "--d-model", "512", "--n-heads", "8", "--context", "100"),
    ("tensors", "-p", "mixtral-8x7b"),
]


def _english_left(text: str) -> list[str]:
    """The words found, leaving out a model's own note and source (data, in English)."""
    lines = [
        line for line in text.splitlines()
        if not line.lstrip("| ").startswith(("注：", "注:", "出典：", "出处：", "来源："))  # noqa: RUF001
    ]  # fmt: skip
    return sorted({m.group(1) for m in _WORD.finditer("\n".join(lines))})


@pytest.mark.parametrize("fmt", ["table", "markdown"])
@pytest.mark.parametrize("lang", ["ja", "zh"])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a))
def test_no_english_word_in_a_table(args: tuple[str, ...], lang: str, fmt: str) -> None:
    r = run(*args, "--lang", lang, "--format", fmt)
    assert r.exit_code == 0, r.stderr
    assert not _english_left(r.stdout), _english_left(r.stdout)


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_a_tower_in_show_is_worded(lang: str) -> None:
    r = run("show", "gemma-3-4b", "--lang", lang, "-f", "markdown")
    (towers,) = [line for line in r.stdout.splitlines() if line.startswith("| towers |")]
    assert "layers" not in towers and ("27 層" in towers or "27 层" in towers)
    heads = run("presets", "--lang", lang).stdout
    assert " / KV" in heads and " / kv" not in heads


def test_json_and_csv_keep_the_english_values() -> None:
    # the values the tables now word stay English for programs
    j = json.loads(run("memory", "-p", "gpt2-small", "--training", "--recompute", "full",
                       "--lang", "ja", "-f", "json").stdout)  # fmt: skip
    assert j["recompute"] == "full"
    j = json.loads(run("params", "--d-model", "512", "--n-heads", "8", "--lang", "zh",
                       "-f", "json").stdout)  # fmt: skip
    assert j["model"] == "custom"
    assert "plain (gelu)" in run("presets", "--lang", "ja", "-f", "csv").stdout
    rows = run("crossover", "-p", "llama-2-7b", "--lang", "zh", "-f", "csv").stdout
    assert ",ffn" in rows or "ffn\n" in rows or "scores_vs_ffn" in rows


def test_a_catalog_chooses_its_word_for_attention() -> None:
    # The course texts (001, 002) write 注意機構; the course catalog says so in its [terms].
    key = run("exercise", "sheet", "--catalog", "course", "--answers", "--lang", "ja").stdout
    assert "1層あたりの 注意機構" in key and "FFN / 注意機構" in key
    assert "アテンション =" not in key
    # the default catalog and other commands keep the tables' word
    assert "注意機構" not in run("params", "-p", "gpt2-small", "--lang", "ja").stdout
    assert (
        "注意機構"
        not in run("exercise", "solve", "gpt2-block-attention-share", "--lang", "ja").stdout
    )


def test_a_catalog_with_bad_terms_exits_2(tmp_path: Path) -> None:
    base = 'id = "a"\nquestion = "How many?"\nquantity = "total_params"\nmodel = { preset = "gpt2-small" }\n'
    for terms, message in (
        ('[terms]\nfr = { attention = "attention" }\n', "[terms.fr]"),
        ('[terms.ja]\nattention = ""\n', "non-empty"),
        ("terms = 3\n", "[terms]"),
    ):
        path = tmp_path / "c.toml"
        path.write_text(terms + "\n[[exercise]]\n" + base, encoding="utf-8")
        r = run("exercise", "list", "--catalog", str(path))
        assert r.exit_code == 2 and message in r.stderr, r.stderr
    path.write_text('[terms.ja]\nattention = "注意"\n\n[[exercise]]\n' + base, encoding="utf-8")
    assert run("exercise", "list", "--catalog", str(path), "--lang", "ja").exit_code == 0


# --- the instructor's workflow, as README.ja.md and README.zh.md show it ----------------------


def test_the_example_class_is_graded_in_both_languages() -> None:
    csv_path = str(ROOT / "examples" / "answers.csv")
    doc = json.loads(run("exercise", "grade", csv_path, "--catalog", "course", "-f", "json").stdout)
    # 佐藤: 約105万 (1,048,576 to 3 figures), 2097152, ちょうど2倍 (exactly 2), 3分の2 (2/3 exact);
    # 鈴木: 1.5倍 and 66% (2/3 = 66.7%) wrong; 王: 很多 unreadable, 2倍 one figure only
    assert {s["student"]: (s["right"], s["total"]) for s in doc["students"]} == {
        "佐藤": (4, 4), "鈴木": (2, 4), "王": (2, 4),
    }  # fmt: skip
    verdicts = [(r["student"], r["exercise"], r["verdict"]) for r in doc["rows"]]
    assert ("王", "ffn-512", "unreadable") in verdicts
    assert ("鈴木", "ffn-share-512", "wrong") in verdicts
    ja = run("exercise", "grade", csv_path, "--catalog", "course", "--lang", "ja").stdout
    zh = run("exercise", "grade", csv_path, "--catalog", "course", "--lang", "zh").stdout
    assert "不正解" in ja and "読み取れない" in ja and "答案错误" in zh and "无法读取" in zh


@pytest.mark.parametrize("readme", ["README.ja.md", "README.zh.md"])
def test_the_translated_readmes_show_the_instructor_workflow(readme: str) -> None:
    text = (ROOT / readme).read_text(encoding="utf-8")
    for command in ("exercise sheet --catalog course", "--answers", "--variant 17",
                    "exercise grade examples/answers.csv", "--no-reveal", "plot-cjk",
                    "--functions relu,gelu", "d_ff=4*d_model"):  # fmt: skip
        assert command in text, command
