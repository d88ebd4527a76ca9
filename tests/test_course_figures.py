"""Figures an instructor puts on a slide: `activations --functions relu,gelu --range -5:5`,
ReLU's derivative drawn with its jump (two pieces, a filled and an open dot, no vertical line),
the --x points marked, and a CJK font found when it was installed after matplotlib's font cache
was written, or when a font package (the `plot-cjk` extra) ships one.

The figure tests skip without matplotlib (the `plot` extra), as tests/test_plot.py does."""

from __future__ import annotations

import itertools
import json
import math
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run

# --- the table and the terminal curves (no matplotlib needed) ------------------------------


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_functions_choose_the_columns(lang: str) -> None:
    r = run("activations", "--functions", "relu,gelu", "--x", "-1.5", "--lang", lang,
            "-f", "markdown")  # fmt: skip
    assert r.exit_code == 0, r.stderr
    header = next(line for line in r.stdout.splitlines() if line.startswith("| x |"))
    assert (
        header.split("|")[2:4] == [" relu ", " gelu "] and "silu" not in r.stdout.split("\n\n")[0]
    )
    # GELU(-1.5) = -1.5 x Phi(-1.5) = -0.1002108 (math.erf)
    assert "-0.1002108" in r.stdout and "d_relu" in r.stdout and "d_silu" not in r.stdout


def test_functions_repeat_and_any_case() -> None:
    a = run("activations", "--functions", "SiLU", "--functions", "gelu-tanh", "-f", "markdown")
    header = next(line for line in a.stdout.splitlines() if line.startswith("| x |"))
    assert [c.strip() for c in header.split("|")[2:4]] == ["silu", "gelu_tanh"]


def test_json_holds_the_functions_asked_for() -> None:
    r = run("activations", "--functions", "relu", "--x", "1", "-f", "json")
    assert json.loads(r.stdout)["rows"] == [{"x": 1.0, "relu": 1.0, "d_relu": 1.0}]
    every = json.loads(run("activations", "--x", "1", "-f", "json").stdout)["rows"][0]
    assert list(every) == ["x", "relu", "gelu", "gelu_tanh", "silu", "d_relu", "d_gelu",
                           "d_gelu_tanh", "d_silu"]  # fmt: skip


@pytest.mark.parametrize("fmt", ["json", "csv", "markdown"])
def test_range_goes_with_the_terminal_or_a_figure(fmt: str) -> None:
    r = run("activations", "--range", "-5:5", "-f", fmt)
    assert r.exit_code == 2 and "--range" in r.stderr and not r.stdout


def test_the_terminal_curves_follow_range_and_functions() -> None:
    r = run("activations", "--functions", "relu,silu", "--range", "-5:5", "--x", "1")
    assert r.exit_code == 0
    assert (
        "Curves on [-5, 5] (r ReLU, s SiLU)" in r.stdout
        and " g " not in r.stdout.split("Curves on")[1].splitlines()[0]
    )
    ja = run("activations", "--functions", "gelu,gelu_tanh", "--range=-2:2", "--lang", "ja")
    assert "[-2, 2] の曲線（g GELU；GELU-tanh は GELU と重なる）" in ja.stdout  # noqa: RUF001


def test_the_default_curves_are_as_before() -> None:
    r = run("activations")
    assert "Curves on [-3, 3] (r ReLU, g GELU, s SiLU; GELU-tanh overlaps GELU)" in r.stdout


def test_a_point_outside_the_default_range_widens_it() -> None:
    from ffn_calc.reports.activations import parse_range

    assert parse_range(None, []) == (-3.0, 3.0)
    assert parse_range(None, [-5.0, 1.0]) == (-5.0, 3.0)
    assert parse_range("-1:2", [-5.0]) == (-1.0, 2.0)  # a range given is kept


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--functions", "relu,tanh"], "--functions tanh"),
        (["--functions", ","], "--functions"),
        (["--range", "5"], "LO:HI"),
        (["--range", "a:b"], "LO:HI"),
        (["--range", "3:-3"], "below"),
        (["--range", "0:nan"], "below"),
        (["--range", "-1e9:1"], "within"),
    ],
)
def test_bad_functions_and_ranges_exit_2(args: list[str], message: str) -> None:
    r = run("activations", *args)
    assert r.exit_code == 2 and message in r.stderr and not r.stdout, r.stderr
    assert "Traceback" not in r.stderr


# --- the extra -------------------------------------------------------------------------------


def test_the_plot_cjk_extra_brings_a_font_and_stays_optional() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extra = project["optional-dependencies"]["plot-cjk"]
    assert any(d.startswith("matplotlib") for d in extra)
    assert any(d.startswith("paperang-p2-fonts-cjk") for d in extra)
    assert not any("font" in d for d in project["dependencies"])


# --- the figure --------------------------------------------------------------------------------


def _figure(monkeypatch: pytest.MonkeyPatch, args: list[str], tmp_path: Path) -> Any:
    """The figure `activations ARGS --plot` draws, caught before it is written."""
    pytest.importorskip("matplotlib")
    from ffn_calc.output import plot as figures

    caught: list[Any] = []
    monkeypatch.setattr(figures, "_save", lambda path, fmt, build: caught.append(build()))
    r = run("activations", *args, "--plot", str(tmp_path / "a.png"), "--no-plot")
    assert r.exit_code == 0, r.stderr
    (fig,) = caught
    return fig


def _line(ax: Any, label: str) -> Any:
    return next(line for line in ax.get_lines() if line.get_label() == label)


def test_relu_derivative_is_drawn_with_its_jump(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fig = _figure(monkeypatch, ["--functions", "relu"], tmp_path)
    _left, right = fig.axes[:2]
    relu = _line(right, "ReLU")
    xs, ys = (list(map(float, v)) for v in relu.get_data())
    # no segment of the drawn line rises from 0 to 1: the jump at 0 is a break (a NaN)
    points = list(zip(xs, ys, strict=True))
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if not (math.isnan(y0) or math.isnan(y1)):
            assert abs(y1 - y0) < 0.5, (x0, y0, x1, y1)
    assert any(math.isnan(y) for y in ys)
    dots = [line for line in right.get_lines() if line.get_linestyle() == "None"]
    at = {(float(line.get_xdata()[0]), float(line.get_ydata()[0])): line for line in dots}
    # ReLU'(0) = 0 (PyTorch): a filled dot at (0, 0); the limit 1 from the right, open
    assert set(at) == {(0.0, 0.0), (0.0, 1.0)}
    assert at[(0.0, 1.0)].get_markerfacecolor() == "white"
    assert at[(0.0, 0.0)].get_markerfacecolor() != "white"


def test_smooth_derivatives_have_no_dots_and_one_piece(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fig = _figure(monkeypatch, ["--functions", "gelu,silu"], tmp_path)
    for ax in fig.axes[:2]:
        assert all(line.get_linestyle() != "None" for line in ax.get_lines())
        for label in ("GELU", "SiLU"):
            assert not any(math.isnan(float(y)) for y in _line(ax, label).get_ydata())


def test_the_x_points_are_marked_and_the_range_applied(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fig = _figure(
        monkeypatch,
        ["--functions", "relu,gelu", "--range", "-5:5", "--x", "-1.5", "--x", "4", "--x", "9"],
        tmp_path,
    )
    left, right = fig.axes[:2]
    assert left.get_xlim() == (-5.0, 5.0) and right.get_xlim() == (-5.0, 5.0)
    assert fig._suptitle.get_text() == "FFN activations and their derivatives on [-5, 5]"
    marks = [line for line in left.get_lines() if line.get_linestyle() == "None"]
    points = sorted((float(x), round(float(y), 7)) for m in marks for x, y in zip(*m.get_data(), strict=True))  # fmt: skip
    # ReLU(-1.5) = 0, ReLU(4) = 4; GELU(-1.5) = -0.1002108, GELU(4) = 3.9998733; 9 is outside
    assert points == [(-1.5, -0.1002108), (-1.5, 0.0), (4.0, 3.9998733), (4.0, 4.0)]
    # one colour per function in both panels
    assert _line(left, "GELU").get_color() == _line(right, "GELU").get_color()


# --- a CJK font installed after matplotlib's cache, or shipped by a package ---------------


def _probe_font(path: Path, family: str) -> Path:
    """A tiny TrueType font whose character map has the probe glyphs (fontTools comes with
    matplotlib)."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    chars = "層パ层参"
    names = [".notdef", *[f"g{i}" for i in range(len(chars))]]
    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder(names)
    fb.setupCharacterMap({ord(c): f"g{i}" for i, c in enumerate(chars)})
    pen = TTGlyphPen(None)
    pen.moveTo((0, 0))
    pen.lineTo((0, 500))
    pen.lineTo((500, 0))
    pen.closePath()
    glyph = pen.glyph()
    fb.setupGlyf(dict.fromkeys(names, glyph))
    fb.setupHorizontalMetrics({n: (600, 0) for n in names})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": family, "styleName": "Regular"})
    fb.setupOS2()
    fb.setupPost()
    fb.save(str(path))
    return path


@pytest.fixture
def fonts(monkeypatch: pytest.MonkeyPatch) -> Any:
    """matplotlib's font list as its cache has it, restored after the test; no system font."""
    pytest.importorskip("matplotlib")
    from matplotlib import font_manager

    monkeypatch.setattr(font_manager.fontManager, "ttflist", list(font_manager.fontManager.ttflist))
    monkeypatch.setattr(font_manager, "findSystemFonts", lambda *a, **k: [])
    return font_manager


def test_a_font_installed_after_the_cache_is_found(fonts: Any, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    from ffn_calc.output import plot as figures

    font = _probe_font(tmp_path / "late.ttf", "Late CJK Probe")
    assert figures.cjk_font("ja") is None  # the cache's fonts only: none has the glyphs
    monkeypatch.setattr(fonts, "findSystemFonts", lambda *a, **k: [str(font)])
    assert figures.cjk_font("ja") == "Late CJK Probe"  # rescanned
    assert figures.cjk_font("zh") == "Late CJK Probe"


def test_a_font_package_is_found_without_importing_it(fonts: Any, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    from ffn_calc.output import plot as figures

    package = tmp_path / "site" / "paperang_p2_fonts_cjk"
    (package / "fonts").mkdir(parents=True)
    (package / "__init__.py").write_text("raise ImportError('never imported')\n")
    _probe_font(package / "fonts" / "probe.ttc", "Packaged CJK Probe")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert figures.cjk_font("zh") == "Packaged CJK Probe"
    assert "paperang_p2_fonts_cjk" not in sys.modules


def test_the_note_says_how_to_get_a_font(fonts: Any, tmp_path: Path) -> None:
    r = run("activations", "--plot", str(tmp_path / "a.png"), "--no-plot", "--lang", "ja")
    assert r.exit_code == 0
    assert "pip install 'ffn-calc[plot-cjk]'" in r.stderr and "fonts-noto-cjk" in r.stderr
    assert (tmp_path / "a.png").exists()
