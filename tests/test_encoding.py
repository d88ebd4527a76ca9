"""Output that cannot be encoded never ends in a traceback, and a failed write to stderr never
changes the exit code.

Each test runs the console script in a subprocess with PYTHONIOENCODING set (the encoding a
terminal or a redirection gives Python), stdout and stderr as pipes, files, a full device
(/dev/full) or closed. Rules (cli/app.py):

- a language the output's encoding cannot write (Simplified Chinese on Big5, Japanese on
  latin-1 or ASCII) falls back to English, with one line on stderr saying so (none for JSON
  and CSV, which are English anyway);
- chart bars a legacy encoding lacks are drawn in ASCII; JSON escapes what it cannot write;
- anything else that cannot be written (a model named in kana, on ASCII) writes nothing on
  stdout, one line on stderr, exit 74;
- a message that cannot be written on stderr leaves the exit code as it was meant (2, 74, 1).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FULL = Path("/dev/full")
needs_full = pytest.mark.skipif(not FULL.exists(), reason="no /dev/full")


def run(
    *args: str,
    encoding: str | None = None,
    stdout: Any = subprocess.PIPE,
    stderr: Any = subprocess.PIPE,
    close_stderr: bool = False,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`python -m ffn_calc ARGS`, its output as bytes (in the encoding asked for)."""
    e = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "FFN_CALC"))}
    e.update({"PYTHONPATH": str(ROOT), "LANG": "C.UTF-8", "COLUMNS": "100"})
    if encoding is not None:
        e["PYTHONIOENCODING"] = encoding
    else:
        e.pop("PYTHONIOENCODING", None)
    e.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "ffn_calc", *args],
        stdout=stdout,
        stderr=stderr,
        env=e,
        cwd=ROOT,
        timeout=120,
        preexec_fn=(lambda: os.close(2)) if close_stderr else None,
        check=False,
    )


def lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").splitlines()


def no_traceback(r: subprocess.CompletedProcess[bytes]) -> None:
    assert b"Traceback" not in (r.stderr or b""), r.stderr.decode("utf-8", "replace")


# --- a language the encoding cannot write: English, one line saying so ------------------------


@pytest.mark.parametrize(
    ("encoding", "lang", "name"),
    [("big5", "zh", "Chinese"), ("latin-1", "ja", "Japanese"), ("ascii", "ja", "Japanese"),
     ("ascii", "zh", "Chinese"), ("big5", "ja", "Japanese")],
)  # fmt: skip
def test_a_language_the_encoding_cannot_write_falls_back_to_english(
    encoding: str, lang: str, name: str
) -> None:
    english = run("params", "-p", "gpt2-small", "--lang", "en", encoding=encoding)
    r = run("params", "-p", "gpt2-small", "--lang", lang, encoding=encoding)
    no_traceback(r)
    assert r.returncode == 0
    assert r.stdout == english.stdout and r.stdout.startswith(b"gpt2-small: one decoder layer")
    [note] = lines(r.stderr)
    assert note.startswith("Note: the output's encoding") and name in note and "English" in note


def test_the_fallback_is_the_same_for_a_file_and_a_pipe(tmp_path: Path) -> None:
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with out.open("wb") as o, err.open("wb") as e:
        r = run(
            "crossover", "-p", "gpt2-small", "--lang", "zh", encoding="big5", stdout=o, stderr=e
        )
    piped = run("crossover", "-p", "gpt2-small", "--lang", "zh", encoding="big5")
    assert r.returncode == piped.returncode == 0
    assert out.read_bytes() == piped.stdout and err.read_bytes() == piped.stderr
    assert len(lines(piped.stderr)) == 1


def test_json_and_csv_fall_back_without_a_note() -> None:
    for fmt in ("json", "csv"):
        r = run("params", "-p", "gpt2-small", "--lang", "ja", "-f", fmt, encoding="latin-1")
        english = run("params", "-p", "gpt2-small", "-f", fmt, encoding="latin-1")
        assert (r.returncode, r.stdout, r.stderr) == (0, english.stdout, b"")


def test_an_error_under_an_encoding_that_cannot_write_the_language_is_readable() -> None:
    """The message itself is in English, not a row of backslash escapes."""
    r = run("params", "-p", "nope", "--lang", "ja", encoding="latin-1")
    no_traceback(r)
    assert r.returncode == 2 and r.stdout == b""
    assert b"\\u" not in r.stderr
    assert lines(r.stderr)[-1].startswith("Error: unknown preset 'nope'")


@pytest.mark.parametrize(
    ("encoding", "lang", "text"),
    [("shift_jis", "ja", "デコーダ"), ("euc_jp", "ja", "デコーダ"), ("cp932", "ja", "デコーダ"),
     ("gbk", "zh", "解码器"), ("gb2312", "zh", "解码器"), ("gb18030", "zh", "解码器")],
)  # fmt: skip
def test_an_encoding_that_writes_the_language_keeps_it(encoding: str, lang: str, text: str) -> None:
    r = run("params", "-p", "gpt2-small", "--lang", lang, encoding=encoding)
    assert (r.returncode, r.stderr) == (0, b"")
    assert text in r.stdout.decode(encoding)


def test_a_character_the_probe_misses_draws_the_output_again_in_english() -> None:
    """GBK writes kana and kanji but not the katakana middle dot (エンコーダ・デコーダ)."""
    r = run("show", "t5-base", "--lang", "ja", encoding="gbk")
    no_traceback(r)
    assert r.returncode == 0
    assert "Encoder-decoder" in r.stdout.decode("gbk") or "encoder" in r.stdout.decode("gbk")
    [note] = lines(r.stderr)
    assert note.startswith("Note: the output's encoding (gbk)")


# --- English output under legacy encodings ----------------------------------------------------


@pytest.mark.parametrize("encoding", ["ascii", "latin-1", "big5"])
@pytest.mark.parametrize(
    "args",
    [("crossover", "-p", "gpt2-small"), ("sweep", "-p", "gpt2-small", "--vary", "d_ff=1024:4096:1024"),
     ("crossover", "-p", "llama-2-7b", "--decode")],
)  # fmt: skip
def test_chart_bars_are_drawn_in_ascii_where_the_encoding_lacks_them(
    encoding: str, args: tuple[str, ...]
) -> None:
    r = run(*args, encoding=encoding)
    no_traceback(r)
    assert (r.returncode, r.stderr) == (0, b"")
    text = r.stdout.decode(encoding)
    assert "#" in text or "\u2588" in text  # the bars are there, in whatever the encoding has


def test_a_name_the_encoding_cannot_write_exits_74_with_nothing_written(tmp_path: Path) -> None:
    cfg = tmp_path / "m.toml"
    cfg.write_text(
        'name = "モデル"\nd_model = 64\nd_ff = 256\nn_heads = 4\nn_layers = 2\n', encoding="utf-8"
    )
    for fmt in ("table", "markdown", "csv"):
        r = run("params", "-c", str(cfg), "-f", fmt, encoding="ascii")
        no_traceback(r)
        assert (r.returncode, r.stdout) == (74, b""), fmt
        [line] = lines(r.stderr)
        assert line.startswith("Error: cannot write the output") and "U+30E2" in line
    r = run("sweep", "-c", str(cfg), "--vary", "d_ff=64:256:64", encoding="ascii")
    assert (r.returncode, r.stdout) == (74, b"")
    # JSON escapes it: the same document.
    r = run("params", "-c", str(cfg), "-f", "json", encoding="ascii")
    assert r.returncode == 0 and json.loads(r.stdout)["model"] == "モデル"
    r = run("sweep", "-c", str(cfg), "--vary", "d_ff=64:256:64", "-f", "json", encoding="ascii")
    assert r.returncode == 0 and json.loads(r.stdout)["model"] == "モデル"


def test_an_answer_the_encoding_cannot_echo_exits_74_not_a_traceback() -> None:
    r = run("exercise", "check", "ffn-4096-vs-gpt2", "1.34億", encoding="latin-1")
    no_traceback(r)
    assert (r.returncode, r.stdout) == (74, b"")


# --- stderr full or closed: the exit code stays ---------------------------------------------


@needs_full
@pytest.mark.parametrize(
    ("args", "code"),
    [(("params", "-p", "nope"), 2), (("params", "--bogus"), 2), (("params",), 2),
     (("params", "-p", "gpt2-small", "--lang", "fr"), 2),
     (("exercise", "check", "ffn-4096-vs-gpt2", "5"), 1),
     (("params", "-p", "gpt2-small"), 0)],
)  # fmt: skip
def test_a_full_stderr_keeps_the_exit_code(args: tuple[str, ...], code: int) -> None:
    with FULL.open("wb") as full:
        r = run(*args, stderr=full)
    assert r.returncode == code


@needs_full
def test_stdout_and_stderr_full_exit_74() -> None:
    with FULL.open("wb") as full, FULL.open("wb") as full2:
        r = run("params", "-p", "gpt2-small", stdout=full, stderr=full2)
    assert r.returncode == 74


@pytest.mark.parametrize(
    ("args", "code"),
    [(("params", "-p", "nope"), 2), (("params", "--bogus"), 2),
     (("sweep", "-p", "gpt2-small", "--vary", "d_ff=1024:4096:1024", "-f", "csv"), 0),
     (("params", "-p", "gpt2-small", "--lang", "ja"), 0)],
)  # fmt: skip
def test_a_closed_stderr_keeps_the_exit_code(args: tuple[str, ...], code: int) -> None:
    r = run(*args, close_stderr=True, stderr=None)
    assert r.returncode == code


@needs_full
def test_a_full_stdout_with_a_closed_stderr_exits_74() -> None:
    with FULL.open("wb") as full:
        r = run("params", "-p", "gpt2-small", stdout=full, close_stderr=True, stderr=None)
    assert r.returncode == 74


def test_a_strict_stderr_encoding_does_not_fail() -> None:
    """PYTHONIOENCODING=latin-1:strict makes stderr strict too: a preset named in kana is
    written escaped, and the exit code is 2."""
    r = run("params", "-p", "モデル", encoding="latin-1:strict")
    no_traceback(r)
    assert r.returncode == 2 and r.stdout == b""
    assert b"unknown preset" in r.stderr
