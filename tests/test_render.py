"""Text output at every terminal width: numbers whole, no trailing spaces, nothing left out;
CSV cells hold plain numbers."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import Result
from typer.testing import CliRunner

from ffn_calc.cli import app
from ffn_calc.model.sources import preset_names
from ffn_calc.views.numbers import human
from ffn_calc.views.table import Column, Spelled, Table

WIDTHS = (40, 60, 80, 120, 200)

# Every command that prints tables, with the arguments that give it the most to show.
COMMANDS: dict[str, list[str]] = {
    "params": ["params", "-p", "mixtral-8x7b", "--explain"],
    "params-enc-dec": ["params", "-p", "transformer-base"],
    "flops": ["flops", "-p", "llama-3-8b", "-s", "4096", "--explain"],
    "crossover": ["crossover", "-p", "gpt2-small", "--grid"],
    "compare-1": ["compare", "gpt2-small"],
    "compare-3": ["compare", "gpt2-small", "llama-3-8b", "transformer-base"],
    "compare-30": ["compare", *(preset_names() * 30)[:30]],
    "presets": ["presets"],
    "tensors": ["tensors", "-p", "gpt2-small", "--matmuls", "-s", "1024"],
    "verify": ["verify", "-p", "gpt2-small", "-p", "mixtral-8x7b"],
    "activations": ["activations"],
    "swiglu-size": ["swiglu-size", "--d-model", "4096"],
    "exercise-list": ["exercise", "list"],
    "show": ["show", "llama-3-8b"],
}
# Commands whose table format is plain lines, not tables, but whose CSV is a table.
CSV_ONLY = {"exercise-solve": ["exercise", "solve", "swiglu-parity"]}

# JSON keys whose integers every table shows, at every width (so a test cannot pass on an
# empty table).
HEADLINE = {"total_params", "forward_flops", "closed_form", "params", "plain_params", "answer",
            "d_model", "flops", "scores_vs_ffn"}  # fmt: skip


def unexplained(args: list[str]) -> list[str]:
    """The arguments without --explain, which JSON and CSV refuse (the formulas are notes)."""
    return [a for a in args if a != "--explain"]


def at(columns: int, *args: str) -> Result:
    """The CLI in-process at a given terminal width, colourless."""
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": str(columns), "NO_COLOR": "1"})
    if r.exception and not isinstance(r.exception, SystemExit):
        raise r.exception
    return Result(r.exit_code, r.stdout, r.stderr)


def numbers(data: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """Every integer in a JSON document as tables write it (1,234), with the key it sits under;
    activation values as the activations table writes them (seven decimals)."""
    if isinstance(data, dict):
        for k, v in data.items():
            yield from numbers(v, k)
    elif isinstance(data, list):
        for v in data:
            yield from numbers(v, key)
    elif isinstance(data, int) and not isinstance(data, bool):
        yield key, f"{data:,}"
    elif isinstance(data, float) and key in ACTIVATIONS:
        yield key, f"{data:.7f}"


ACTIVATIONS = {"gelu", "silu", "gelu_tanh", "d_gelu", "d_silu", "d_gelu_tanh"}


def whole(text: str, number: str) -> int:
    """How often a number appears, not as a piece of a longer one."""
    return len(re.findall(rf"(?<![\d,.]){re.escape(number)}(?!\d|[,.]\d)", text))


@pytest.mark.parametrize("name", COMMANDS)
def test_every_number_whole_at_every_width(name: str) -> None:
    args = COMMANDS[name]
    found = list(numbers(at(200, *unexplained(args), "-f", "json").json()))
    headline = {n for k, n in found if k in HEADLINE | ACTIVATIONS}
    assert headline, f"{name}: no headline number in the JSON"
    wide = at(200, *args).stdout
    shown = {n: whole(wide, n) for _, n in found if len(n) > 1}
    for columns in WIDTHS:
        r = at(columns, *args)
        where = f"{name} at COLUMNS={columns}"
        assert r.exit_code == 0 and r.stderr == "", where
        assert r.stdout.strip(), where
        lines = r.stdout.splitlines()
        assert [line for line in lines if line != line.rstrip()] == [], where
        assert [line for line in lines if len(line) > columns] == [], where
        for n in headline:
            assert whole(r.stdout, n) >= 1, f"{where}: {n} is missing or broken"
        for n, count in shown.items():
            assert whole(r.stdout, n) >= count, f"{where}: {n} is broken"


def test_compare_many_models_lists_each_model() -> None:
    names = COMMANDS["compare-30"][1:]
    data = at(80, "compare", *names, "-f", "json").json()
    out = at(80, "compare", *names).stdout
    lines = out.splitlines()
    for m in data["models"]:
        assert m["model"] in lines  # one block per model, headed by its name
    assert all(whole(out, f"{m['total_params']:,}") for m in data["models"])
    assert len([x for x in lines if x.strip().startswith("total params:")]) == 30


def test_presets_at_80_columns_keep_numbers_whole() -> None:
    # The example: "109,48" on one line and "2,240" on the next.
    out = at(80, "presets").stdout
    assert whole(out, "109,482,240") >= 2  # bert-base total and active
    assert "109,48\n" not in out.replace(" ", "")


# --- CSV --------------------------------------------------------------------------------------

# A cell of nothing but digits, separators, units and brackets, that is no plain number:
# "109,482,240", "33.3%", "28.44x", "124.4M", "12 / 4", "12,288.00 (32768/3)".
FORMATTED = re.compile(r"[\d\s,./()%xkMGTP+-]*\d[\d\s,./()%xkMGTP+-]*")
FRACTION = re.compile(r"\d+/\d+")  # an exact fraction in its own text cell


def parses(cell: str) -> bool:
    for kind in (int, float):
        try:
            kind(cell)
        except ValueError:
            continue
        return True
    return False


@pytest.mark.parametrize("name", {**COMMANDS, **CSV_ONLY})
def test_csv_cells_are_plain_numbers(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import ffn_calc.output.csv

    drawn: list[Table] = []
    to_csv = ffn_calc.output.csv.to_csv

    def spy(tables: list[Table]) -> str:
        drawn.extend(tables)
        return to_csv(tables)

    monkeypatch.setattr(ffn_calc.output.csv, "to_csv", spy)
    r = at(80, *unexplained({**COMMANDS, **CSV_ONLY}[name]), "-f", "csv")
    assert r.exit_code == 0
    rows = list(csv.reader(io.StringIO(r.stdout)))
    blocks: list[list[list[str]]] = [[]]
    for row in rows:
        if row:
            blocks[-1].append(row)
        else:
            blocks.append([])
    assert len(blocks) == len(drawn) > 0
    for block, table in zip(blocks, drawn, strict=True):
        title, header, *body = block
        assert title == [table.title]
        columns = [c for c in table.columns if c.only != "people"]
        assert header == [c.name for c in columns]
        assert body, f"{table.title}: no rows"
        for row in body:
            assert len(row) == len(columns)
            for cell, col in zip(row, columns, strict=True):
                plain = parses(cell) or FRACTION.fullmatch(cell)
                assert plain or not FORMATTED.fullmatch(cell), f"{table.title}: {cell!r}"
                if col.kind != "text":
                    assert cell == "" or parses(cell), f"{table.title} / {col.name}: {cell!r}"


def test_csv_writes_each_compared_model_as_a_row() -> None:
    out = at(80, "compare", "gpt2-small", "llama-3-8b", "-f", "csv").stdout
    _, header, *rows = list(csv.reader(io.StringIO(out)))
    assert header[:2] == ["model", "family"] and {"heads", "kv heads", "head_dim"} <= set(header)
    by_model = {row[0]: dict(zip(header, row, strict=True)) for row in rows}
    # Golden: reference_cases.json llama-3-8b total_params; 32 heads, 8 KV heads of 128.
    llama = by_model["llama-3-8b"]
    assert llama["total params"] == "8030261248"
    assert (llama["heads"], llama["kv heads"], llama["head_dim"]) == ("32", "8", "128")
    assert float(by_model["gpt2-small"]["FFN share of the model"]) == pytest.approx(0.4554, 1e-3)


def test_csv_swiglu_keeps_the_exact_fraction_apart() -> None:
    out = at(80, "swiglu-size", "--d-model", "4096", "-f", "csv").stdout
    _, header, *rows = list(csv.reader(io.StringIO(out)))
    parity = dict(zip(header, rows[1], strict=True))
    # 8 x 4096 / 3 = 32768/3 = 10922.67 (sizing.parity_d_ff).
    assert float(parity["d_ff"]) == pytest.approx(32768 / 3)
    assert parity["exact d_ff"] == "32768/3"


def test_csv_and_markdown_spell_numbers_apart() -> None:
    t = Table("t", [Column("answer", "num"), Column("heads", "num", only="people"),
                    Column("n_heads", only="csv")])  # fmt: skip
    t.add(Spelled(0.25, "25.00%"), "12 / 4", 12)
    from ffn_calc.output.csv import to_csv
    from ffn_calc.output.markdown import to_markdown

    assert to_csv([t]).splitlines() == ["t", "answer,n_heads", "0.25,12"]
    assert "| 25.00% | 12 / 4 |" in to_markdown([t])


# --- human() ----------------------------------------------------------------------------------


def test_human_takes_any_int() -> None:
    assert human(10**400) == "1" + "0" * 385 + ".0P"  # 10^400 / 10^15, no float overflow
    assert human(-(10**400)) == "-1" + "0" * 385 + ".0P"
    assert human(124_439_808) == "124.4M"
    assert human(291_648_307_200, "FLOPs") == "291.6GFLOPs"
    assert human(-2_500) == "-2.5k"
    assert human(999_950) == "1.0M"  # rounds up into the next unit, not "1000.0k"
    assert human(768) == "768"
    assert human(1.5e6) == "1.5M"
    assert human(float("inf")) == "inf"


# --- render: layout, wrapping, colours ---------------------------------------------------------


def test_wrap_never_breaks_a_number() -> None:
    from rich.cells import cell_len

    from ffn_calc.output.wrap import wrap

    text = "Total 124,439,808 parameters; non-embedding 85,056,000 (32768/3)."
    for width in range(4, 40):
        lines = wrap(text, width, cell_len)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing lost
        for n in ("124,439,808", "85,056,000", "32768/3"):
            assert any(n in line for line in lines), (width, lines)
        # Only a number wider than the line makes a line wider.
        assert all(len(x) <= max(width, 11) for x in lines), lines
    # A long name folds at its punctuation, never inside the number it holds.
    assert wrap("transformer.h.{0..11}.attn.c_attn", 12, cell_len) == [
        "transformer.", "h.{0..11}.", "attn.c_attn"
    ]  # fmt: skip


def _drawn(tables: list[Table], width: int, colour: bool = False) -> str:
    from rich.console import Console

    from ffn_calc.output.rich import console, draw

    con = console(width)
    if colour:
        con = Console(width=width, force_terminal=True, color_system="standard")
    return draw(tables, con=con)


def _table() -> Table:
    t = Table("gpt2-small: whole model", [Column("component", "text"), Column("params"),
              Column("share", "pct")])  # fmt: skip
    t.add("embedding", 39_383_808, 0.3165)
    t.add("total", 124_439_808, 1.0, style="total")
    t.notes.append("Total 124.4M parameters; non-embedding 85,056,000.")
    return t


def test_a_table_that_fits_is_a_table() -> None:
    out = _drawn([_table()], 60)
    assert "embedding   39,383,808   31.6%" in out
    assert all(line == line.rstrip() for line in out.splitlines())


def test_a_table_too_wide_becomes_one_block_per_row() -> None:
    out = _drawn([_table()], 16).splitlines()
    assert out[:11] == [
        "gpt2-small:",
        "whole model",
        "",
        "embedding",
        "  params:",
        "    39,383,808",
        "  share: 31.6%",
        "",
        "total",
        "  params:",
        "    124,439,808",
    ]
    assert out[11:] == ["  share: 100.0%", "", "Total 124.4M", "parameters;", "non-embedding",
                        "85,056,000.", ""]  # fmt: skip


def test_colours_stay_and_trailing_spaces_go_on_a_terminal() -> None:
    out = _drawn([_table()], 60, colour=True)
    assert "\x1b[" in out
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert all(line == line.rstrip() for line in plain.splitlines())
    assert "124,439,808" in plain


def test_side_by_side_marks_largest_and_smallest() -> None:
    t = Table("Compared", [Column("model", "text"), Column("d_model")], side_by_side=True)
    t.add("small", 768)
    t.add("large", 4096)
    out = _drawn([t], 60, colour=True)
    assert re.search(r"\x1b\[1;32m *4,096", out) and re.search(r"\x1b\[34m *768", out)
    plain = _drawn([t], 60).splitlines()
    assert plain[2:5] == ["         small  large", "━━━━━━━━━━━━━━━━━━━━━", "d_model    768  4,096"]
    # Too narrow for a column per model: a block per model.
    assert _drawn([t], 14).splitlines()[2:] == ["small", "  d_model: 768", "", "large",
                                                "  d_model:", "    4,096", ""]  # fmt: skip
