"""Tables in Japanese and Chinese: every command at 80 columns, numbers whole, myriad units.

Each command runs in English, Japanese and Chinese (`--lang`) at COLUMNS=80: it exits 0, no
line is wider than 80 terminal cells (a CJK character takes two), and every exact figure of the
English output (124,439,808) is in the other two unbroken. CSV and JSON are the same bytes in
every language. The checks that a table *is* translated run only once the compiled catalogs
hold translations (until then Japanese and Chinese fall back to English).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from ffn_calc.cli import app
from ffn_calc.i18n import translate as i18n
from ffn_calc.views.numbers import human

WIDTH = 80
ENV = {"COLUMNS": str(WIDTH), "NO_COLOR": "1", "TERM": "dumb"}
LANGS = ("en", "ja", "zh")
COMMANDS = [
    "params -p gpt2-small",
    "flops -p gpt2-small --seq-len 1024",
    "flops -p gpt2-small --decode --context 100",
    "crossover -p gpt2-small",
    "crossover -p gpt2-small --decode",
    "kv -p gpt2-small --context 1024",
    "memory -p gpt2-small",
    "memory -p gpt2-small --training",
    "compare gpt2-small llama-2-7b",
    "tensors -p gpt2-small",
    "verify -p gpt2-small",
    "presets",
    "show gpt2-small",
    "activations",
    "swiglu-size --d-model 4096",
    "sweep -p gpt2-small --vary d_ff=1000:3000:1000",
    "exercise list",
    "exercise show ffn-4096",
    "exercise solve ffn-4096",
]
# Printed as plain lines by ffn_calc/cli/exercise.py (wrapped at the width, but their first line
# starts with the exercise id in every language: the title check does not apply to them).
PLAIN_LINES = {"exercise show ffn-4096", "exercise solve ffn-4096"}
# Tables whose title is a name (the same in every language): their header line is compared.
TITLE_IS_A_NAME = {"show gpt2-small": 2}
# Grouped digits as the tables write exact figures: 124,439,808.
EXACT = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])")


@pytest.fixture(autouse=True)
def _english_after() -> Iterator[None]:
    """The CLI sets the language for the process: leave English for the tests that follow."""
    yield
    i18n.set_language("en")


@functools.cache
def run(command: str, lang: str, fmt: str | None = None) -> tuple[int, str, str]:
    args = [*command.split(), "--lang", lang, *(["--format", fmt] if fmt else [])]
    r = CliRunner().invoke(app, args, env=ENV)
    if r.exception and not isinstance(r.exception, SystemExit):
        raise r.exception
    i18n.set_language("en")
    return r.exit_code, r.stdout, r.stderr


def translated(lang: str) -> bool:
    """Whether the compiled catalog holds the tables' translations (else they show English;
    tests/test_i18n.py fails on every message left untranslated)."""
    marker = "{model}: whole model"
    return bool(i18n._catalog(lang).gettext(marker) != marker)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_fits_80_columns(command: str, lang: str) -> None:
    code, out, err = run(command, lang)
    assert code == 0, err
    assert out.strip()
    wide = [line for line in out.splitlines() if cell_len(line) > WIDTH]
    assert not wide, "\n".join(wide)


@pytest.mark.parametrize("lang", ["ja", "zh"])
@pytest.mark.parametrize("command", COMMANDS)
def test_exact_figures_stay_whole(command: str, lang: str) -> None:
    english = run(command, "en")[1]
    other = run(command, lang)[1]
    figures = set(EXACT.findall(english))
    assert figures or command in {"activations", "exercise show ffn-4096"}
    missing = sorted(f for f in figures if f not in other)
    assert not missing, missing


def test_the_exact_count_of_gpt2_small_is_written_in_every_language() -> None:
    for lang in LANGS:
        assert "124,439,808" in run("params -p gpt2-small", lang)[1]


@pytest.mark.parametrize("lang", ["ja", "zh"])
@pytest.mark.parametrize("command", [c for c in COMMANDS if c not in PLAIN_LINES])
def test_the_title_is_translated(command: str, lang: str) -> None:
    if not translated(lang):
        pytest.skip(f"the {lang} catalog holds no translations yet")
    line = TITLE_IS_A_NAME.get(command, 0)
    english = run(command, "en")[1].splitlines()[line]
    other = run(command, lang)[1].splitlines()[line]
    assert other != english


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_translated_tables_use_myriads(lang: str) -> None:
    if not translated(lang):
        pytest.skip(f"the {lang} catalog holds no translations yet")
    out = run("params -p gpt2-small", lang)[1]
    assert ("1.24億" if lang == "ja" else "1.24亿") in out
    assert "124.4M" not in out


# --- CSV and JSON: English whatever the language -------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "json"])
@pytest.mark.parametrize(
    "command", ["params -p gpt2-small", "sweep -p gpt2-small --vary d_ff=1000:3000:1000"]
)
def test_csv_and_json_are_the_same_bytes_in_every_language(command: str, fmt: str) -> None:
    outs = {lang: run(command, lang, fmt) for lang in LANGS}
    assert all(code == 0 for code, _, _ in outs.values())
    assert outs["en"][1] == outs["ja"][1] == outs["zh"][1]
    # stderr is for people, in their language like every message: the sweep's CSV summary
    # (tests/test_i18n_leaks.py) is translated; nothing else is written there.
    if not command.startswith("sweep") or fmt == "json":
        assert outs["en"][2] == outs["ja"][2] == outs["zh"][2]


def test_sweep_json_keeps_english_conventions() -> None:
    import json

    data = json.loads(run("sweep -p gpt2-small --vary n_heads=5,12", "ja", "json")[1])
    assert data["convention"].startswith("Parameters: what the reference implementation")
    assert data["skipped_reasons"] and data["skipped_reasons"][0]["reason"].isascii()


# --- human(): 124.4M in English, myriads in Japanese and Chinese ------------------------------


@pytest.fixture
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    i18n.set_language(request.param)
    yield request.param
    i18n.set_language("en")


@pytest.mark.parametrize(
    ("lang", "n", "expected"),
    [
        ("ja", 134_217_728, "1.34億"),
        ("zh", 134_217_728, "1.34亿"),
        ("ja", 124_439_808, "1.24億"),
        ("zh", 124_439_808, "1.24亿"),
        ("ja", 6_738_415_616, "67.4億"),
        ("zh", 6_738_415_616, "67.4亿"),
        ("ja", 46_702_792_704, "467億"),
        ("zh", 46_702_792_704, "467亿"),
        ("ja", 8_388_608, "839万"),
        ("zh", 8_388_608, "839万"),
        ("ja", 660_606_025_728, "6,610億"),  # three significant figures
        ("ja", 1_981_818_077_184, "1.98兆"),
        ("zh", 1_981_818_077_184, "1.98万亿"),
        ("ja", 3 * 10**16, "3.00京"),
        ("zh", 3 * 10**16, "3.00亿亿"),
        ("ja", 12_345 * 10**16, "12,300京"),  # past the largest unit the figure grows
        ("ja", 9_999, "9,999"),  # below 10^4: the number itself
        ("zh", 768, "768"),
        ("ja", 10_000, "1.00万"),
        ("ja", 99_950, "10.0万"),  # 9.995万 rounds up to three figures
        ("ja", 999_950, "100万"),
        ("ja", 99_995_000, "1.00億"),  # 9,999.5万 is 1.00億, not 10,000万
        ("zh", 999_950_000_000, "1.00万亿"),
        ("ja", -134_217_728, "-1.34億"),
        ("zh", -8_388_608, "-839万"),
        ("ja", 1.5e6, "150万"),
        ("ja", 1234.5, "1,234.5"),
    ],
    indirect=["lang"],
)
def test_human_in_myriads(lang: str, n: float, expected: str) -> None:
    assert human(n) == expected


@pytest.mark.parametrize("lang", ["ja", "zh"], indirect=True)
def test_human_in_myriads_takes_any_int(lang: str) -> None:
    unit = "京" if lang == "ja" else "亿亿"
    big = human(10**400)  # exact: no float overflow
    assert big == f"{10**384:,}{unit}"
    assert human(-(10**400)) == "-" + big
    assert human(134_217_728, "B") == ("1.34億B" if lang == "ja" else "1.34亿B")


def test_human_in_english_is_unchanged() -> None:
    i18n.set_language("en")
    assert human(124_439_808) == "124.4M"
    assert human(134_217_728) == "134.2M"
    assert human(291_648_307_200, "FLOPs") == "291.6GFLOPs"
    assert human(999_950) == "1.0M"
    assert human(768) == "768"


# --- wrapping CJK text ---------------------------------------------------------------------


def test_cjk_text_wraps_between_characters_never_inside_a_number() -> None:
    from ffn_calc.output.wrap import wrap

    text = "合計 1.24億 パラメータ；FFN : アテンション = 1.999；埋め込み以外 85,056,000。"  # noqa: RUF001
    for width in range(12, 60):
        lines = wrap(text, width, cell_len)
        assert all(cell_len(line) <= width for line in lines), (width, lines)
        joined = "".join(lines)
        assert "1.24億" in joined and "85,056,000" in joined and "アテンション" in joined
        closing = ("。", "；", "、", "）")  # noqa: RUF001
        assert not any(line.startswith(closing) for line in lines), lines
    # No spaces: the lines break between characters, never inside the identifier d_model.
    lines = wrap(
        "各値の最大は太字の緑、最小は青。d_model ごとの値は最初の層の種類である。", 20, cell_len
    )
    assert all(cell_len(line) <= 20 for line in lines)
    assert any("d_model" in line for line in lines)


# --- sentences as values: the reports keep messages, the views show them -----------------------


def _shown(r: object, lang: str) -> list[str]:
    """Every note of the report's tables, in `lang`."""
    from ffn_calc.views.registry import tables_for

    with i18n.use(lang):
        return [n for t in tables_for(r, False) or [] for n in t.notes]  # type: ignore[arg-type]


def test_a_convention_is_its_sentences_english_in_json_each_shown_in_the_language() -> None:
    """flops --unit macs --causal --no-lm-head: four sentences, one English string in JSON
    (a space between them), each shown translated in the tables (no space between CJK
    sentences); the view never matches English text."""
    import ffn_calc
    from ffn_calc.counts import flops as fl
    from ffn_calc.i18n.translate import Text, _
    from ffn_calc.reports import flops as fr

    cfg = ffn_calc.load(preset="gpt2-small")
    r = fr.flops_report(cfg, fl.Workload(batch=1, seq_len=64, causal=True, lm_head=False), "macs")
    pieces = (fr.MACS_NOTE, fl.CONVENTION, fr.CAUSAL_NOTE, fr.NO_LM_HEAD_NOTE)
    assert all(isinstance(s, Text) for s in r.sentences())
    assert tuple(map(str, r.sentences())) == pieces
    assert r.convention == " ".join(pieces) == r.model_dump()["convention"]
    for lang, joiner in (("en", " "), ("ja", ""), ("zh", "")):
        with i18n.use(lang):
            expected = joiner.join(_(p) for p in pieces)
        assert expected in _shown(r, lang)
    # A report read back from JSON shows its convention as read.
    back = fr.FlopsReport.model_validate_json(r.model_dump_json())
    assert back.sentences() == (r.convention,) and back == fr.FlopsReport(**r.model_dump())


def test_every_convention_of_the_inference_reports_is_made_of_messages() -> None:
    import ffn_calc
    from ffn_calc.i18n.translate import Text
    from ffn_calc.reports import crossover as cr
    from ffn_calc.reports import decode_crossover as dc
    from ffn_calc.reports import inference as ir
    from ffn_calc.reports import memory as mr

    cfg = ffn_calc.load(preset="gpt2-small")
    reports = [
        ir.kv_report(cfg, 1, 100, "bf16"),
        ir.decode_report(cfg, 1, 100, unit="macs", lm_head=False),
        ir.generation_report(cfg, 1, 16, 4, causal=True),
        dc.decode_crossover_report(cfg, 1),
        mr.memory_report(cfg, "bf16", 80 * 10**9, 1, None),
        cr.crossover_report(cfg, causal=True),
    ]
    for r in reports:
        sentences = r.sentences()
        assert sentences and all(isinstance(s, Text) for s in sentences), type(r)
        assert " ".join(map(str, sentences)) == r.convention
        with i18n.use("ja"):
            shown = "".join(s.shown() for s in sentences)  # type: ignore[union-attr]
        assert any(shown in note for note in _shown(r, "ja")), type(r)


def test_a_formula_with_words_is_a_message() -> None:
    """gpt-oss: n_experts x (biases of one expert): English in JSON, the words translated in
    the tables, the symbols as they are."""
    import ffn_calc
    from ffn_calc.views.labels import explained_terms

    r = ffn_calc.params(ffn_calc.load(preset="gpt-oss-20b"))
    term = next(t for t in r.layers[0].terms if t.name == "expert biases")
    assert term.formula == "n_experts x (biases of one expert)"
    assert r.model_dump()["layers"][0]["terms"][term_index(r, term)]["formula"] == term.formula
    with i18n.use("ja"):
        line = explained_terms([term])[0]
    # 32 experts x 8,640 biases (gate, up: 2 x 2,880; down: 2,880) = 276,480
    assert (
        line
        == "エキスパートのバイアス: n_experts x (エキスパート 1 個のバイアス) = 32 x 8,640 = 276,480"
    )


def term_index(r: object, term: object) -> int:
    return r.layers[0].terms.index(term)  # type: ignore[attr-defined]


def test_crossover_rows_keep_their_parts_and_crossovers_as_keys() -> None:
    """The dominant parts and the crossovers a row is, as keys: the table shows them in the
    reader's words and takes its colour from the key; JSON keeps the English labels."""
    import ffn_calc
    from ffn_calc.output.rich import DOMINANT_STYLE, _grid
    from ffn_calc.reports.crossover import CROSSOVER_LABELS, CrossoverRow, crossover_report
    from ffn_calc.views.crossover import crossover_tables

    r = crossover_report(ffn_calc.load(preset="llama-2-7b"))
    marked = [row for row in r.rows if row.marks]
    assert marked and all(
        row.marks == [CROSSOVER_LABELS[k] for k in row.crossovers()] for row in marked
    )
    # At the scores = FFN crossover the two parts tie. Llama-2-7B: scores 2 x 2 x S x d_model
    # (QK^T, AV) = FFN 2 x 3 x d_model x d_ff at S = 1.5 d_ff = 16,512.
    tie = next(row for row in r.rows if "scores_vs_ffn" in row.crossovers())
    assert tie.seq_len == 16512 and tie.dominant_parts() == ("attention_scores", "ffn")
    assert tie.dominant == "attention_scores = ffn"
    for row in r.rows:  # read back from JSON: the same keys, from the row's values
        back = CrossoverRow.model_validate_json(row.model_dump_json())
        assert (back.dominant_parts(), back.crossovers()) == (
            row.dominant_parts(),
            row.crossovers(),
        )
    with i18n.use("ja"):
        table = crossover_tables(r)[1]
        grid = _grid(table)
    i = r.rows.index(tie)
    # the 'at' column in the reader's words too (issue 24: no English left in ja tables)
    assert table.rows[i][7] == "スコア = FFN" and table.rows[i][8] == "FFN"
    assert table.styles[i] == "attention_scores"
    assert grid.styles[i][0] == DOMINANT_STYLE["attention_scores"]
    assert all(s == DOMINANT_STYLE[row.dominant_parts()[0]] for s, row in zip(
        [g[0] for g in grid.styles], r.rows, strict=True))  # fmt: skip
