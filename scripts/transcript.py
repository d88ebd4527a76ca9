"""A transcript of the command line: every command x format x language over every preset.

Run it before and after a change that should not change behaviour, and diff the two:

    python scripts/transcript.py /tmp/before
    ... change the code ...
    python scripts/transcript.py /tmp/after
    diff -r /tmp/before /tmp/after

Each case is one file named after its arguments, holding the exit code, stdout and stderr.
Tables are taken at 80 and 120 columns; JSON, CSV and Markdown once each. The commands run in
process (as the tests run them), so the whole transcript takes minutes, not hours.
"""

import hashlib
import sys
from collections.abc import Iterator
from pathlib import Path

from typer.testing import CliRunner

from ffn_calc.cli import app

LANGS = ("en", "ja", "zh")
FORMATS: tuple[tuple[str, int], ...] = (
    ("table", 80),
    ("table", 120),
    ("json", 200),
    ("csv", 200),
    ("markdown", 200),
)

# What each preset is asked: one line a question, with the options that change its answer.
PER_PRESET: tuple[tuple[str, ...], ...] = (
    ("params",),
    ("params", "--explain"),
    ("flops", "--seq-len", "512"),
    ("flops", "--seq-len", "1024", "--explain"),
    ("flops", "--decode", "--context", "3000", "--batch", "2"),
    ("flops", "--generate", "64", "--seq-len", "128"),
    ("crossover",),
    ("crossover", "--decode"),
    ("kv", "--context", "1000", "--batch", "2"),
    ("memory",),
    ("memory", "--gpu-memory", "80GB"),
    ("memory", "--training", "--explain"),
    ("tensors",),
    ("flops", "--seq-len", "1024", "--causal", "--lm-head", "--unit", "macs"),
    ("crossover", "--grid"),
    ("memory", "--dtype", "int4"),
)
ONCE: tuple[tuple[str, ...], ...] = (
    ("presets",),
    ("activations",),
    ("activations", "--x", "-1.5"),
    ("swiglu-size", "--d-model", "4096"),
    ("swiglu-size", "--d-model", "4096", "--multiple-of", "256", "--ffn-dim-multiplier", "1.3"),
    ("compare", "gpt2-small", "llama-2-7b", "mixtral-8x7b", "t5-base"),
    ("compare", "gpt2-small", "mistral-7b", "--seq-len", "8192"),
    ("verify", "--all"),
    (
        "sweep",
        "--preset",
        "llama-2-7b",
        "--vary",
        "d_ff=8192:16384:4096",
        "--vary",
        "n_kv_heads=1,3,8",
    ),
    (
        "sweep",
        "--preset",
        "gpt2-small",
        "--vary",
        "n_layers=6:48:6",
        "-m",
        "total_params",
        "-m",
        "ffn_share",
    ),
    ("sweep", "--preset", "mixtral-8x7b", "--vary", "n_experts=4,8", "-m", "forward_flops@2048"),
    (
        "sweep",
        "--preset",
        "gpt2-small",
        "--vary",
        "d_model=100,768",
        "--where",
        "total_params<=2e8",
    ),
    (
        "sweep",
        "--preset",
        "llama-2-7b",
        "--vary",
        "n_layers=8,16",
        "-m",
        "kv_bytes@4096",
        "-m",
        "scores_vs_ffn",
        "-m",
        "decode_flops@1024",
    ),
    ("exercise", "list"),
    ("exercise", "show", "ffn-4096"),
    ("exercise", "solve", "ffn-4096"),
    ("exercise", "check", "ffn-4096", "134217728"),
    ("exercise", "check", "ffn-4096", "1.3e8"),
    ("params", "--d-model", "4096", "--d-ff", "16384", "--n-heads", "32", "--n-layers", "2"),
    ("params", "--d-model", "4096", "--n-heads", "32", "--n-layers", "2", "--vocab-size", "100"),
    (
        "memory",
        "--preset",
        "llama-2-7b",
        "--training",
        "--recipe",
        "distributed",
        "--dp",
        "8",
        "--tp",
        "2",
        "--recompute",
        "full",
    ),
    ("params", "--preset", "no-such-model"),
    ("flops", "--preset", "gpt2-small", "--seq-len", "5000"),
)


def presets() -> list[str]:
    from ffn_calc.api import preset_names

    return preset_names()


def cases() -> Iterator[tuple[str, ...]]:
    for name in presets():
        for question in PER_PRESET:
            yield (question[0], "--preset", name, *question[1:])
        yield ("show", name)
    yield from ONCE


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    runner = CliRunner()
    count = 0
    for case in cases():
        for lang in LANGS:
            for fmt, columns in FORMATS:
                args = [*case, "--format", fmt, "--lang", lang]
                env = {"COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "dumb"}
                r = runner.invoke(app, args, env=env)
                crash = ""
                if r.exception and not isinstance(r.exception, SystemExit):
                    crash = f"crash: {type(r.exception).__name__}: {r.exception}\n"
                name = "_".join([*case, fmt, str(columns), lang]).replace("/", "~")
                if len(name) > 150:
                    name = name[:100] + hashlib.sha1(name.encode()).hexdigest()[:12]
                body = f"$ {' '.join(args)}\nexit {r.exit_code}\n{crash}--- stdout\n"
                body += f"{r.stdout}--- stderr\n{r.stderr}"
                (out / name).write_text(body, encoding="utf-8")
                count += 1
    print(f"{count} cases written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "transcript")))
