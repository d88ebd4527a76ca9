"""Every parser of user text returns or refuses within a bound, whatever the input.

Each parser is fed adversarial text (a hundred thousand spaces, a number and then spaces and a
stray letter, exponents of a hundred million, thousands of digits) in a child process with a
timeout: a parser that hangs fails the test instead of hanging the suite. This is a bound, not a
benchmark: every input here returns in well under a second, and the timeout is generous for a
loaded machine. Before the parsers were bounded, `--where total_params<=1e99999999` and
`--where 'total_params<=1<100,000 spaces>x'` ran for over a minute, `--gpu-memory` with
100,000 spaces took about 50 s, and an answer 百分之 followed by 50,000 spaces over a minute.
Each outcome must be a result or an FfnCalcError, never another exception.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
TIMEOUT = 30  # seconds for a whole batch, start-up included; each input takes milliseconds
N = 100_000

# Text that made the old parsers backtrack or build huge numbers, and its relatives.
ADVERSARIAL = [
    " " * N,
    "\t" * N + "x",
    "1" + " " * N + "x",
    "1" + " " * N,
    " " * N + "1",
    "1e99999999",
    "1e-99999999",
    "1E+99999999999999999999",
    "1.5e99999999",
    "1/1e99999999",
    "1" * 5000,
    "9" * N,
    "0." + "1" * N,
    "1" + "0" * N + "e-" + "9" * 50,
    "," * N,
    "1," * (N // 2),
    "1" + ",000" * (N // 4) + "x",
    "_" * N,
    "1_" * (N // 2),
    "." * N,
    "百分之" + " " * N + "1y",
    "約" + " " * N + "1x",
    "1万" * (N // 2),
    "1" + " " * N + "万x",
    "e" * N,
    "1" + "e" * N,
    "-" * N + "1",
    "\n" * N + "1",
    "1" + "\n" * N + "x",
]


def _outcomes(call: str, args: list[list[str]]) -> list[str]:
    """Run `call` (an expression of a function, e.g. "sweeps.parse_filter") on each argument
    list in a child process; one line per input: ok, refused or crashed (with its type)."""
    script = (
        "import json, sys, importlib\n"
        "from ffn_calc.errors import FfnCalcError\n"
        "module, name = sys.argv[1].rsplit('.', 1)\n"
        "f = getattr(importlib.import_module('ffn_calc.' + module), name)\n"
        "for i, args in enumerate(json.loads(sys.stdin.read())):\n"
        "    try:\n"
        "        f(*args)\n"
        "        print(i, 'ok', flush=True)\n"
        "    except FfnCalcError as e:\n"
        "        print(i, 'refused', type(e).__name__, flush=True)\n"
        "    except BaseException as e:\n"
        "        print(i, 'crashed', type(e).__name__, str(e)[:100], flush=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FFN_CALC_LANG": "en"}
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, call],
            input=json.dumps(args),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            env=env,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        lines = out.splitlines()
        stuck = len(lines)
        pytest.fail(
            f"{call} did not return within {TIMEOUT} s on input {stuck}: "
            f"{args[stuck] if stuck < len(args) else '?'!r:.120}"
        )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(args), done.stderr
    return [line.split(" ", 1)[1] for line in lines]


def _bounded(call: str, make: Callable[[str], list[str]], texts: list[str] = ADVERSARIAL) -> None:
    args = [make(t) for t in texts]
    for text, outcome in zip(texts, _outcomes(call, args), strict=True):
        assert not outcome.startswith("crashed"), (outcome, text[:80])


PARSERS: dict[str, tuple[str, Callable[[str], list[str]]]] = {
    "--where on a count": ("sweeps.run.parse_filter", lambda t: [f"total_params<={t}"]),
    "--where on bytes": ("sweeps.run.parse_filter", lambda t: [f"weights_bytes < {t}"]),
    "--where on a share": ("sweeps.run.parse_filter", lambda t: [f"ffn_share>={t}%"]),
    "--where as a whole": ("sweeps.run.parse_filter", lambda t: [t]),
    "--where metric": ("sweeps.run.parse_filter", lambda t: [f"{t}<=1"]),
    "--vary list": ("sweeps.run.parse_axis", lambda t: [f"d_ff=1,{t}"]),
    "--vary range": ("sweeps.run.parse_axis", lambda t: [f"d_ff=1:{t}:*2"]),
    "--vary field": ("sweeps.run.parse_axis", lambda t: [f"{t}=1,2"]),
    "--vary choice": ("sweeps.run.parse_axis", lambda t: [f"activation=gelu,{t}"]),
    "--metric": ("sweeps.metrics.parse_metric", lambda t: [f"forward_flops@{t}"]),
    "--gpu-memory": ("quantities.parse_bytes", lambda t: [t]),
    "--gpu-memory with a unit": ("quantities.parse_bytes", lambda t: [t + "GB"]),
    "an answer": ("homework.answers.parse_answer", lambda t: [t]),
    "an answer in percent": ("homework.answers.parse_answer", lambda t: ["百分之" + t]),
    "a number": ("quantities.read_number", lambda t: [t, "count", "x", "y"]),
    "a share": ("quantities.read_share", lambda t: [t, "x", "y"]),
    "TOML": ("files.parse_toml", lambda t: [f"d_model = {t}\n", "x"]),
    "JSON": ("files.parse_json", lambda t: [f'{{"d_model": {t}}}', "x"]),
}


@pytest.mark.parametrize("parser", list(PARSERS))
def test_every_parser_returns_or_refuses_within_a_bound(parser: str) -> None:
    call, make = PARSERS[parser]
    _bounded(call, make)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line in a child process with a timeout: a hang fails, it does not block."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FFN_CALC_LANG": "en"}
    try:
        return subprocess.run(
            [sys.executable, "-m", "ffn_calc", *args],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            env=env,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"ffn-calc {' '.join(a[:40] for a in args)} did not return in {TIMEOUT} s")


def test_answers_are_judged_within_a_bound() -> None:
    # The verdict as well as the reading: exponents and digits as long as an answer may carry
    # (exactly: 134217728 followed by 99,000 zeros after the point is right).
    for text, code in [
        ("1e999999999", 1),
        ("1e-999999999", 1),
        ("1.342e999999999", 1),
        ("134217728." + "0" * 99_000, 0),
        ("百分之" + " " * 99_000 + "1y", 2),
        ("1" * 100_001, 2),  # longer than any answer: refused before it is read
    ]:
        r = _cli("exercise", "check", "ffn-4096", text)
        assert r.returncode == code and "Traceback" not in r.stderr, r.stderr[:200]


def test_huge_exponents_are_refused_not_built() -> None:
    from ffn_calc.errors import UsageError
    from ffn_calc.quantities import MAX_EXPONENT, read_number
    from ffn_calc.sweeps.run import parse_filter

    for bound in ("1e99999999", "1e-99999999", f"1e{MAX_EXPONENT + 1}"):
        with pytest.raises(UsageError, match=r"exponent .* is out of range"):
            parse_filter(f"total_params<={bound}")
    # The range itself is read exactly, to its ends.
    assert read_number(f"1e{MAX_EXPONENT}", "count", "x", "y") == 10**MAX_EXPONENT
    assert read_number(f"1e-{MAX_EXPONENT}", "count", "x", "y") * 10**MAX_EXPONENT == 1


def test_the_parsers_regexes_never_backtrack() -> None:
    """Every module-level regex of the modules that read user text, on runs of its own
    characters followed by one that fails the match: linear, so a batch returns at once."""
    modules = [
        "homework.answers",
        "sweeps.run",
        "sweeps.metrics",
        "quantities",
        "model.sources",
        "reports.verify",
        "files",
    ]
    script = (
        "import importlib, re, sys, itertools\n"
        "atoms = [' ', '1', '1,', ',111', '.', '1.', 'e', 'a', '_', '@1', '<', '=', '\\n',\n"
        "         '万', '1万', '%', '\\t', '-', '/', '0', '1 ', ' 1', '百分之', 'x']\n"
        "for name in sys.argv[1:]:\n"
        "    m = importlib.import_module('ffn_calc.' + name)\n"
        "    for key, p in vars(m).items():\n"
        "        if not isinstance(p, re.Pattern):\n"
        "            continue\n"
        f"        for a, b in itertools.product(atoms, repeat=2):\n"
        f"            for s in (a * {N // 10} + b, b + a * {N // 10} + '!'):\n"
        "                p.fullmatch(s), p.match(s)\n"
        "        print(name, key, flush=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, *modules],
            capture_output=True,
            text=True,
            timeout=TIMEOUT * 2,
            env=env,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        pytest.fail(f"a regex backtracked; the last that returned: {out.splitlines()[-1:]}")
    assert done.returncode == 0, done.stderr


def test_the_cli_refuses_adversarial_options_quickly() -> None:
    """Through the command line: exit 2, one short message, nothing on stdout."""
    for args in (
        ["sweep", "-p", "gpt2-small", "-V", "d_ff=1,2", "-w", "total_params<=1e99999999"],
        ["sweep", "-p", "gpt2-small", "-V", "d_ff=1,2", "-w", "total_params<=1" + " " * N + "x"],
        ["memory", "-p", "gpt2-small", "--gpu-memory", "1" + " " * N + "x"],
        ["memory", "-p", "gpt2-small", "--gpu-memory", "1" * 5000],
        ["sweep", "-p", "gpt2-small", "-V", "d_ff=" + " " * N + "x"],
        ["sweep", "-p", "gpt2-small", "-V", "d_ff=1,2", "-m", "forward_flops@" + "9" * N],
        ["exercise", "show", "x" * N],
    ):
        r = _cli(*args)
        assert r.returncode == 2 and r.stdout == "", r.stderr[:300]
        assert "Traceback" not in r.stderr
        assert len(r.stderr) < 600, r.stderr[:300]  # the input is quoted cut short
