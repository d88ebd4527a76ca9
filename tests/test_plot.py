"""`--plot FILE`: PNG and SVG figures for slides (the `plot` extra: matplotlib).

The README's test command does not install the extra, so these tests skip without matplotlib;
.ci/run installs it and runs them.
"""

from __future__ import annotations

import os
import stat
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("matplotlib")

from ffn_calc.i18n import translate as i18n
from ffn_calc.output import plot as figures

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
INSTALL = "pip install 'ffn-calc[plot]'"

# command line, English text the figure must contain (its title)
COMMANDS: dict[str, tuple[list[str], str]] = {
    "activations": (["activations"], "FFN activations and their derivatives on [-3, 3]"),
    "crossover": (
        ["crossover", "-p", "gpt2-small"],
        "gpt2-small: share of one decoder layer's FLOPs over the sequence length S",
    ),
    "crossover-causal": (["crossover", "-p", "llama-3-8b", "--causal"], "causal: the scores"),
    "crossover-decode": (
        ["crossover", "-p", "gpt2-small", "--decode", "--batch", "8"],
        "gpt2-small: share of one decode step's FLOPs, one decoder layer, over the context L",
    ),
    "compare": (["compare", "gpt2-small", "bert-base", "mixtral-8x7b"], "Parameters per component"),
    "sweep": (
        ["sweep", "-p", "gpt2-small", "-V", "n_layers=1:48:*2", "-m", "total_params", "-m", "ffn_share"],
        "Sweep of gpt2-small: n_layers = 1:48:*2",
    ),
    "sweep-two-fields": (
        ["sweep", "-p", "gpt2-small", "-V", "d_ff=1024:4096:1024", "-V", "activation=gelu,swiglu"],
        "Sweep of gpt2-small: d_ff = 1024:4096:1024 x activation = gelu,swiglu",
    ),
}  # fmt: skip


def check_png(path: Path) -> None:
    import matplotlib.image

    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert width > 0 and height > 0
    pixels = matplotlib.image.imread(path)
    assert pixels.shape[:2] == (height, width)


def check_svg(path: Path, text: str) -> str:
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    raw = path.read_text(encoding="utf-8")
    assert text.replace("'", "&apos;") in raw or text in raw, text
    return raw


@pytest.mark.parametrize("name", COMMANDS)
def test_png_written_besides_the_normal_output(cli: Any, tmp_path: Path, name: str) -> None:
    args, _ = COMMANDS[name]
    out = tmp_path / "figure.png"
    r = cli(*args, "--plot", str(out))
    assert r.exit_code == 0, r.stderr
    assert r.stdout == cli(*args).stdout  # the table is printed as without --plot
    assert f"Figure written to {out}." in r.stderr
    check_png(out)


@pytest.mark.parametrize("name", COMMANDS)
def test_svg_has_the_title(cli: Any, tmp_path: Path, name: str) -> None:
    args, title = COMMANDS[name]
    out = tmp_path / "figure.SVG"  # the suffix in any case
    r = cli(*args, "--plot", str(out), "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert r.json()  # JSON on stdout as usual
    check_svg(out, title)


def test_crossover_marks_the_crossovers(cli: Any, tmp_path: Path) -> None:
    # llama-2-7b (rotary, no position table): the crossovers of tests/test_flops.py and of
    # tests/test_inference.py::test_decode_crossovers.
    out = tmp_path / "c.svg"
    assert cli("crossover", "-p", "llama-2-7b", "--plot", str(out)).exit_code == 0
    raw = out.read_text(encoding="utf-8")
    for label in ("scores = FFN", "scores = projections", "scores = projections + FFN"):
        assert label in raw
    for at in ("S = 16,512", "S = 8,192", "S = 24,704"):
        assert at in raw
    out = tmp_path / "d.svg"
    assert cli("crossover", "-p", "llama-2-7b", "--decode", "--plot", str(out)).exit_code == 0
    raw = out.read_text(encoding="utf-8")
    assert "L = 16,511" in raw and "cache read = FFN weights read" in raw and "L = 16,512" in raw


def test_crossover_marks_only_what_the_model_reaches(cli: Any, tmp_path: Path) -> None:
    # gpt2-small: every crossover (S = 1,536 and up) lies past its 1,024 learned positions;
    # mistral-7b: every layer's window holds 4,095 cached tokens, where the scores stop growing.
    out = tmp_path / "c.svg"
    assert cli("crossover", "-p", "gpt2-small", "--plot", str(out)).exit_code == 0
    raw = out.read_text(encoding="utf-8")
    assert "scores = FFN" not in raw and "S = 3,072" not in raw
    out = tmp_path / "d.svg"
    assert cli("crossover", "-p", "mistral-7b", "--decode", "--plot", str(out)).exit_code == 0
    raw = out.read_text(encoding="utf-8")
    assert "scores = FFN" not in raw and "cache read" not in raw
    assert "the window is full" in raw and "L = 4,095" in raw


def test_output_is_deterministic(cli: Any, tmp_path: Path) -> None:
    for suffix in ("svg", "png"):
        a, b = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
        assert cli("compare", "gpt2-small", "--plot", str(a)).exit_code == 0
        assert cli("compare", "gpt2-small", "--plot", str(b)).exit_code == 0
        assert a.read_bytes() == b.read_bytes()
    assert "<dc:date>" not in (tmp_path / "a.svg").read_text(encoding="utf-8")


def test_activations_keeps_no_plot(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "a.png"
    with_curves = cli("activations").stdout
    r = cli("activations", "--no-plot", "--plot", str(out))
    assert r.exit_code == 0
    assert "Curves on [-3, 3]" in with_curves and "Curves on" not in r.stdout
    check_png(out)


def test_japanese_without_a_cjk_font_draws_english(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(figures, "cjk_font", lambda lang: None)
    out = tmp_path / "ja.svg"
    r = cli("compare", "gpt2-small", "--plot", str(out), "--lang", "ja")
    assert r.exit_code == 0, r.stderr
    with i18n.use("ja"):
        note = i18n._(figures.NO_CJK_FONT)
        written = i18n._("Figure written to {path}.").format(path=out)
    assert note in r.stderr and written in r.stderr
    check_svg(out, "Parameters per component")


def test_this_machine_without_cjk_fonts_draws_english(cli: Any, tmp_path: Path) -> None:
    """The real font lookup: English labels unless a font with the glyphs is installed."""
    out = tmp_path / "zh.svg"
    found = figures.cjk_font("zh")
    r = cli("activations", "--plot", str(out), "--lang", "zh")
    assert r.exit_code == 0, r.stderr
    if found is None:
        check_svg(out, "FFN activations and their derivatives")
        with i18n.use("zh"):
            assert i18n._(figures.NO_CJK_FONT) in r.stderr


@pytest.mark.filterwarnings("ignore:Glyph")
def test_a_cjk_font_is_named_and_labels_translated(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import matplotlib

    families: list[Any] = []
    figure = figures._figure
    before = list(matplotlib.rcParams["font.family"])

    def spy(width: float, height: float) -> Any:
        families.append(list(matplotlib.rcParams["font.family"]))
        return figure(width, height)

    monkeypatch.setattr(figures, "cjk_font", lambda lang: "DejaVu Sans")
    monkeypatch.setattr(figures, "_figure", spy)
    out = tmp_path / "zh.svg"
    r = cli("compare", "gpt2-small", "--plot", str(out), "--lang", "zh")
    assert r.exit_code == 0, r.stderr
    with i18n.use("zh"):
        title = i18n._("Parameters per component")
    assert families == [["DejaVu Sans", "DejaVu Sans"]]
    assert title in out.read_text(encoding="utf-8")
    assert list(matplotlib.rcParams["font.family"]) == before  # rcParams restored


def test_a_font_with_the_glyphs_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fonts are ranked by name and kept only when their character map has the glyphs."""
    from matplotlib import font_manager, ft2font

    entry = font_manager.FontEntry(fname="/fonts/NotoSansCJK.ttc", name="Noto Sans CJK JP")
    last = font_manager.FontEntry(fname="/fonts/LastResort.otf", name="Last Resort")

    class Font:
        def __init__(self, fname: str) -> None:
            self.fname = fname

        def get_charmap(self) -> dict[int, int]:
            return {ord(c): 1 for c in "層パ层参"}

    monkeypatch.setattr(font_manager.fontManager, "ttflist", [last, entry])
    monkeypatch.setattr(ft2font, "FT2Font", Font)
    assert figures.cjk_font("ja") == "Noto Sans CJK JP"
    assert figures.cjk_font("en") is None
    monkeypatch.setattr(font_manager.fontManager, "ttflist", [last])
    monkeypatch.setattr(figures, "_more_fonts", list)  # no font installed since (the rescan)
    assert figures.cjk_font("zh") is None


@pytest.mark.parametrize("name", ["figure.txt", "figure.pdf", "figure"])
def test_a_bad_suffix_exits_2(cli: Any, tmp_path: Path, name: str) -> None:
    out = tmp_path / name
    r = cli("crossover", "-p", "gpt2-small", "--plot", str(out))
    assert r.exit_code == 2
    assert r.stdout == ""
    assert (out.suffix or ".png or .svg") in r.stderr
    assert not out.exists()


def test_an_unwritable_path_exits_2(cli: Any, tmp_path: Path) -> None:
    for out in (tmp_path / "no-such-dir" / "figure.png", tmp_path):
        target = out if out.suffix else out.with_suffix(".svg")
        if not out.suffix:
            target.mkdir()  # a directory named like the figure
        r = cli("activations", "--plot", str(target))
        assert r.exit_code == 2, r.stderr
        assert "cannot write the figure" in r.stderr and "Traceback" not in r.stderr
        assert r.stdout == ""


def test_a_full_disk_leaves_no_half_written_figure(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import io
    import os

    class Full(io.BytesIO):
        def write(self, data: Any) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def full(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        os.close(fd)
        return Full()

    out = tmp_path / "full.png"
    monkeypatch.setattr(os, "fdopen", full)  # every write of the figure: ENOSPC
    r = cli("activations", "--plot", str(out))
    assert r.exit_code == 2
    assert "cannot write the figure: No space left on device" in r.stderr
    assert list(tmp_path.iterdir()) == [] and r.stdout == ""  # no half a figure, no leftovers


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_device_is_refused_and_the_link_to_it_kept(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "full.png"
    out.symlink_to("/dev/full")
    r = cli("activations", "--plot", str(out))
    assert r.exit_code == 2 and r.stdout == ""
    assert "not a regular file" in r.stderr
    assert out.is_symlink() and os.readlink(out) == "/dev/full"


def _plot_in_a_child(
    path: Path, fsize_limit: int | None = None
) -> subprocess.CompletedProcess[str]:
    """`ffn-calc activations --plot PATH` in a child process, with a timeout (a write that
    blocks fails the test, not the suite) and perhaps a file-size limit: every write past it
    fails with EFBIG, as a full disk fails with ENOSPC."""
    code = (
        "import resource, signal, sys\n"
        "limit = int(sys.argv[1])\n"
        "if limit:\n"
        "    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))\n"
        "sys.argv = ['ffn-calc', 'activations', '--plot', sys.argv[2]]\n"
        "from ffn_calc.console import main\n"
        "main()\n"
    )
    env = {**os.environ, "FFN_CALC_LANG": "en", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": str(Path(__file__).parent.parent)}  # fmt: skip
    return subprocess.run(
        [sys.executable, "-c", code, str(fsize_limit or 0), str(path)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip


def test_a_named_pipe_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "figure.png"
    os.mkfifo(fifo)  # opening it to write would wait for a reader forever
    r = _plot_in_a_child(fifo)
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert "not a regular file" in r.stderr and "Traceback" not in r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_failed_write_keeps_the_link_and_its_target(tmp_path: Path) -> None:
    target = tmp_path / "target.png"
    target.write_bytes(b"keep")
    link = tmp_path / "link.png"
    link.symlink_to(target)
    r = _plot_in_a_child(link, fsize_limit=1000)  # the figure is tens of kB: the write fails
    assert r.returncode == 2 and "cannot write the figure" in r.stderr, r.stderr
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert target.read_bytes() == b"keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.png", "target.png"]


def test_a_write_through_a_link_replaces_the_target_and_keeps_the_link(
    cli: Any, tmp_path: Path
) -> None:
    target = tmp_path / "target.png"
    target.write_bytes(b"old")
    target.chmod(0o640)
    link = tmp_path / "link.png"
    link.symlink_to(target.name)  # relative, as links often are
    r = cli("activations", "--plot", str(link))
    assert r.exit_code == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == "target.png"
    check_png(target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the figure keeps its permissions
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.png", "target.png"]


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root writes all")
def test_a_read_only_figure_is_not_replaced(cli: Any, tmp_path: Path) -> None:
    kept = tmp_path / "kept.png"
    kept.write_bytes(b"old")
    kept.chmod(0o444)
    r = cli("activations", "--plot", str(kept))
    assert r.exit_code == 2 and "cannot write the figure" in r.stderr
    assert kept.read_bytes() == b"old"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-V", "d_ff=1024,2048", "-w", "total_params<1"], "nothing to draw: no combination"),
        (["-V", "n_heads=5,7"], "nothing to draw: no combination was kept (0 filtered out by "
                                "--where, 2 not valid models)"),
        (["-V", "d_ff=3072"], "every combination kept has d_ff = 3072"),
        (["-V", "n_heads=4,5", "-V", "d_ff=1024,2048"], "every combination kept has n_heads = 4"),
    ],
)  # fmt: skip
def test_a_sweep_with_nothing_to_draw_writes_no_figure(
    cli: Any, tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "s.png"
    r = cli("sweep", "-p", "gpt2-small", *args, "--plot", str(out))
    assert r.exit_code == 2 and r.stdout == "", r.stderr
    assert message in r.stderr, r.stderr
    assert not out.exists()


def test_sweep_plots_one_or_two_fields(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "s.png"
    three = ["-V", "n_layers=1,2", "-V", "d_ff=1024,2048", "-V", "n_heads=4,8"]
    r = cli("sweep", "-p", "gpt2-small", *three, "--plot", str(out))
    assert r.exit_code == 2
    assert "--plot draws one or two varied fields" in r.stderr
    assert r.stdout == "" and not out.exists()
    monkeypatch.setattr(figures, "MAX_SWEEP_ROWS", 3)
    r = cli("sweep", "-p", "gpt2-small", "-V", "n_layers=1:4", "--plot", str(out))
    assert r.exit_code == 2 and "at most 3 combinations" in r.stderr
    assert not out.exists()


def test_sweep_skips_and_filters(cli: Any, tmp_path: Path) -> None:
    """Rows a filter drops or that are not valid models are left out of the lines."""
    out = tmp_path / "s.svg"
    r = cli("sweep", "-p", "gpt2-small", "-V", "n_heads=1:16", "-V", "activation=gelu,swiglu",
            "-w", "total_params>1", "--plot", str(out))  # fmt: skip
    assert r.exit_code == 0, r.stderr
    check_svg(out, "Sweep of gpt2-small: n_heads = 1:16")


def test_without_matplotlib_exits_2_with_the_install_command(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    for args in (["activations"], ["crossover", "-p", "gpt2-small"], ["compare", "gpt2-small"],
                 ["sweep", "-p", "gpt2-small", "-V", "n_layers=1,2"]):  # fmt: skip
        out = tmp_path / "figure.png"
        r = cli(*args, "--plot", str(out))
        assert r.exit_code == 2, (args, r.stderr)
        assert INSTALL in r.stderr and r.stdout == ""
        assert not out.exists()
    kept = tmp_path / "kept.svg"
    kept.write_text("old")
    assert cli("activations", "--plot", str(kept)).exit_code == 2
    assert kept.read_text() == "old"


def test_matplotlib_is_imported_only_for_plot(tmp_path: Path) -> None:
    """Start-up unchanged: no command imports matplotlib unless --plot is given; without it
    installed, the console script exits 2 with the install command."""
    code = (
        "import sys\n"
        "if sys.argv[1] == 'hide': sys.modules['matplotlib'] = None\n"
        "sys.argv = ['ffn-calc', *sys.argv[2:]]\n"
        "from ffn_calc.console import main\n"
        "try:\n    main()\n"
        "finally:\n    print('matplotlib' in sys.modules and sys.modules['matplotlib'] is not None,"
        " file=sys.stderr)\n"
    )  # fmt: skip
    env = {**os.environ, "FFN_CALC_LANG": "en"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                              text=True, env=env, check=False)  # fmt: skip

    r = run("show", "crossover", "-p", "gpt2-small")
    assert r.returncode == 0 and r.stderr.strip().endswith("False")
    out = tmp_path / "c.png"
    r = run("show", "crossover", "-p", "gpt2-small", "--plot", str(out))
    assert r.returncode == 0 and r.stderr.strip().endswith("True")
    check_png(out)
    out.unlink()
    r = run("hide", "crossover", "-p", "gpt2-small", "--plot", str(out))
    assert r.returncode == 2 and INSTALL in r.stderr and r.stdout == ""
    assert not out.exists()
