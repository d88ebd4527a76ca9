"""Start-up benchmark: whole-process wall times of ffn-calc commands against a minimal app.

Standard library only. Run from a checkout with the package installed:

    python benchmarks/startup.py [--runs 15]

The floor is what any command of this kind must do: a minimal Typer app with one command that
reads a model from a TOML file, validates it with Pydantic and prints it, as JSON or as a Rich
table (two floors, written to a temporary folder and run by the same interpreter). Each
ffn-calc command is compared with the floor of its output: JSON with the JSON floor, tables
(and --help, which Typer draws with Rich) with the table floor. Each round runs both floors and
every command once, in a rotated order, after a warm-up round; medians and ratios are printed.
Target: every command within 1.10x its floor.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 1.10

FLOOR_APP = '''\
import sys
import tomllib
from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel, ConfigDict, Field

app = typer.Typer()


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    source: str | None = None
    family: str = "custom"
    architecture: str = "decoder-only"
    n_layers: int = Field(gt=0)
    d_model: int = Field(gt=0)
    n_heads: int = Field(gt=0)
    d_ff: int = Field(gt=0)
    activation: str = "gelu"
    attention_bias: bool = False
    ffn_bias: bool = False
    norm: str = "layernorm"
    positions: str = "none"
    max_positions: int | None = None
    vocab_size: int | None = None
    tie_embeddings: bool = False


@app.command()
def show(
    config: Annotated[Path, typer.Option("--config", help="A TOML file.")],
    format: Annotated[str, typer.Option("--format", help="json or table.")] = "json",
) -> None:
    """Validate a model from a TOML file and print it."""
    model = Model.model_validate(tomllib.loads(config.read_text()))
    if format == "json":
        print(model.model_dump_json(indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="model")
    table.add_column("field")
    table.add_column("value", justify="right")
    for key, value in model.model_dump().items():
        table.add_row(key, str(value))
    Console().print(table)


app()
'''

# label: (arguments, which floor)
COMMANDS: dict[str, tuple[list[str], str]] = {
    "params --preset gpt2-small": (["params", "--preset", "gpt2-small"], "table"),
    "params --preset gpt2-small --format json": (["params", "--preset", "gpt2-small", "--format", "json"], "json"),
    "params --preset gpt2-small --lang en": (["params", "--preset", "gpt2-small", "--lang", "en"], "table"),
    "params --preset gpt2-small --lang ja": (["params", "--preset", "gpt2-small", "--lang", "ja"], "table"),
    "flops --preset llama-2-7b --seq-len 4096": (["flops", "--preset", "llama-2-7b", "--seq-len", "4096"], "table"),
    "crossover --preset gpt2-small": (["crossover", "--preset", "gpt2-small"], "table"),
    "kv --preset llama-3-8b --context 8192": (["kv", "--preset", "llama-3-8b", "--context", "8192"], "table"),
    "memory --preset llama-3-8b --format json": (["memory", "--preset", "llama-3-8b", "--format", "json"], "json"),
    "sweep --preset gpt2-small --vary n_layers=1:48": (["sweep", "--preset", "gpt2-small", "--vary", "n_layers=1:48"], "table"),
    "params --hf-config (a Llama config.json)": (["params", "--hf-config", "{hf}"], "table"),
    "compare gpt2-small llama-2-7b": (["compare", "gpt2-small", "llama-2-7b"], "table"),
    "presets": (["presets"], "table"),
    "--help": (["--help"], "help"),
    "params --preset gpt2-small --require total_params<=7e9": (["params", "--preset", "gpt2-small", "--require", "total_params<=7e9"], "table"),
    "check examples/budgets.toml --format json": (["check", "{budgets}", "--format", "json"], "json"),
}  # fmt: skip

HF_CONFIG = """{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
"intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
"num_hidden_layers": 32, "vocab_size": 128256, "rms_norm_eps": 1e-05,
"tie_word_embeddings": false, "max_position_embeddings": 8192, "hidden_act": "silu"}
"""


def entry_point() -> list[str]:
    """The installed console script beside this interpreter, else `python -m ffn_calc`."""
    script = Path(sys.executable).parent / "ffn-calc"
    if script.exists():
        return [str(script)]
    found = shutil.which("ffn-calc")
    return [found] if found else [sys.executable, "-m", "ffn_calc"]


# Byte-code caching on, as for an installed package: with PYTHONDONTWRITEBYTECODE set, an
# editable install would recompile every module of ffn-calc at every start (its dependencies,
# compiled by pip at install time, would not), and the comparison would be unfair.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["COLUMNS"] = "100"


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=ENV)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="measured rounds (default 15)")
    args = parser.parse_args()
    base = entry_point()
    with tempfile.TemporaryDirectory() as tmp:
        app, toml, hf = Path(tmp, "floor.py"), Path(tmp, "model.toml"), Path(tmp, "config.json")
        app.write_text(FLOOR_APP)
        root = Path(__file__).resolve().parent.parent
        toml.write_text((root / "presets" / "gpt2-small.toml").read_text())
        hf.write_text(HF_CONFIG)
        floor = [sys.executable, str(app), "--config", str(toml)]
        floors = {
            "json": ("floor: Typer + TOML + Pydantic, JSON", [*floor, "--format", "json"]),
            "table": ("floor: Typer + TOML + Pydantic, Rich table", [*floor, "--format", "table"]),
            "help": ("floor: the same app's --help", [sys.executable, str(app), "--help"]),
        }
        jobs = {label: cmd for label, cmd in floors.values()}
        for label, (argv, _) in COMMANDS.items():
            budgets = str(root / "examples" / "budgets.toml")
            jobs[label] = base + [
                a.replace("{hf}", str(hf)).replace("{budgets}", budgets) for a in argv
            ]
        labels = list(jobs)
        times: dict[str, list[float]] = {label: [] for label in labels}
        for label in labels:  # warm-up: page cache, .pyc files
            timed(jobs[label])
        for i in range(args.runs):
            order = labels[i % len(labels) :] + labels[: i % len(labels)]
            for label in order:
                times[label].append(timed(jobs[label]))
    med = {label: statistics.median(t) for label, t in times.items()}
    print(f"{'command':52} {'median ms':>10} {'ratio':>7}")
    failed = False
    for label, _ in floors.values():
        print(f"{label:52} {1000 * med[label]:10.1f}")
    for label, (_, kind) in COMMANDS.items():
        ratio = med[label] / med[floors[kind][0]]
        over = ratio > TARGET
        failed |= over
        print(f"{label:52} {1000 * med[label]:10.1f} {ratio:7.3f} {'OVER' if over else ''}")
    print(
        f"{args.runs} alternating rounds after a warm-up; ratio to the floor of the same output; "
        f"target {TARGET:.2f}; entry point: {' '.join(base)}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
