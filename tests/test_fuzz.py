"""Fuzzing the CLI: random flags and corrupted inputs never end in a traceback or a lie.

Every run ends with exit 0, 1 or 2; on 2 nothing is on stdout and stderr has a message; on 0
with --format json stdout is valid JSON. For valid random models the invariants that hold
everywhere are checked too: the same model from flags, TOML and JSON gives the same counts,
`import-hf` round-trips, and the components sum to the total. Example counts are bounded so the
whole file runs in well under a minute on two cores.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from conftest import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ffn_calc.cli import app

FUZZ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def invoke(args: list[str]) -> Any:
    """Run in-process; an exception that is not a clean exit fails the test with its traceback."""
    r = CliRunner().invoke(app, args, env={"COLUMNS": "120", "NO_COLOR": "1"})
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise AssertionError(f"{args!r} raised {r.exception!r}") from r.exception
    assert r.exit_code in (0, 1, 2), (args, r.exit_code, r.stderr)
    if r.exit_code == 2:
        assert r.stdout == "", (args, r.stdout)
        assert r.stderr.strip(), args
        assert "Traceback" not in r.stderr
    if r.exit_code == 0 and "json" in args:
        json.loads(r.stdout)
    return r


# --- random flag combinations ---------------------------------------------------------------

COMMANDS = ["params", "flops", "crossover", "tensors", "verify", "compare"]
SIZE_FLAGS = ["--d-model", "--d-ff", "--n-heads", "--n-kv-heads", "--head-dim", "--n-layers",
              "--n-decoder-layers", "--vocab-size", "--max-positions", "--n-experts",
              "--experts-per-token"]  # fmt: skip
CHOICE_FLAGS = {
    "--activation": ["relu", "gelu", "gelu_tanh", "silu", "swiglu", "geglu", "tanh"],
    "--norm": ["layernorm", "rmsnorm", "batchnorm"],
    "--positions": ["learned", "sinusoidal", "rotary", "none"],
    "--architecture": ["decoder-only", "encoder-only", "encoder-decoder", "x"],
    "--format": ["json", "csv", "markdown", "table"],
}
SWITCHES = ["--bias", "--no-bias", "--tie", "--no-tie", "--causal", "--explain", "--grid",
            "--matmuls", "--no-lm-head"]  # fmt: skip
sizes = st.one_of(
    st.integers(1, 64), st.integers(-3, 0), st.just(2**40), st.just(2**40 + 1),
    st.sampled_from(["x", "1.5", "", "1e3", "-", "--", "0x10"]),
).map(str)  # fmt: skip
flag = st.one_of(
    st.tuples(st.sampled_from(SIZE_FLAGS), sizes).map(list),
    st.sampled_from(list(CHOICE_FLAGS)).flatmap(
        lambda f: st.sampled_from(CHOICE_FLAGS[f]).map(lambda v: [f, v])
    ),
    st.sampled_from(SWITCHES).map(lambda s: [s]),
    st.tuples(st.sampled_from(["--seq-len", "--batch", "--target-len"]), sizes).map(list),
    st.tuples(st.just("--preset"), st.sampled_from(["gpt2-small", "bert-base", "nope", "", "a/b"])).map(list),
)  # fmt: skip


@FUZZ
@given(command=st.sampled_from(COMMANDS), flags=st.lists(flag, max_size=8))
def test_random_flags(command: str, flags: list[list[str]]) -> None:
    args = [command, *[x for f in flags for x in f]]
    if command in ("flops", "crossover") and "--d-model" in args:
        args += ["--n-layers", "2"]  # keep tensors/verify small: layers are listed once anyway
    r = invoke(args)
    if r.exit_code == 0 and "--format" in args and args[args.index("--format") + 1] == "json":
        data = json.loads(r.stdout)
        if command == "params":
            assert sum(data["components"].values()) == data["total_params"]
        if command == "flops":
            assert sum(data["components"].values()) == data["forward_flops"]


# --- corrupted files ------------------------------------------------------------------------


def mutate(data: bytes, edits: list[tuple[int, int, int]]) -> bytes:
    """Apply (kind, position, byte) edits: 0 flips a byte, 1 inserts one, 2 deletes one."""
    out = bytearray(data)
    for kind, pos, byte in edits:
        if not out:
            out.append(byte)
            continue
        i = pos % len(out)
        if kind == 0:
            out[i] = byte
        elif kind == 1:
            out.insert(i, byte)
        else:
            del out[i]
    return bytes(out)


edits = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 10**6), st.sampled_from(
        [0, 0x22, 0x2C, 0x3A, 0x5B, 0x5D, 0x7B, 0x7D, 0x3D, 0x0A, 0x2D, 0x30, 0x39, 0xFF, 0xEF]
    )),
    min_size=1, max_size=6,
)  # fmt: skip

VALID_TOML = b'name = "m"\nd_model = 64\nn_heads = 4\nn_layers = 2\nd_ff = 256\nvocab_size = 100\n'
VALID_JSON = json.dumps(
    {"d_model": 64, "n_heads": 4, "n_layers": 2, "d_ff": 256, "activation": "swiglu"}
).encode()


def _write(tmp: str, name: str, data: bytes) -> str:
    path = Path(tmp) / name
    path.write_bytes(data)
    return str(path)


@FUZZ
@given(which=st.sampled_from(["toml", "json"]), e=edits, fmt=st.sampled_from(["json", "table"]))
def test_corrupted_config(which: str, e: list[tuple[int, int, int]], fmt: str) -> None:
    base = VALID_TOML if which == "toml" else VALID_JSON
    with tempfile.TemporaryDirectory() as tmp:
        invoke(["params", "-c", _write(tmp, f"c.{which}", mutate(base, e)), "-f", fmt])


@FUZZ
@given(source=st.sampled_from(["tiny-gpt2.config.json", "tiny-llama-gqa.config.json"]), e=edits)
def test_corrupted_hf_config(source: str, e: list[tuple[int, int, int]]) -> None:
    base = (DATA / "checkpoints" / source).read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(tmp, "config.json", mutate(base, e))
        invoke(["flops", "--hf-config", path, "-s", "8", "-f", "json"])
        invoke(["import-hf", path])


def _safetensors(header_file: str) -> bytes:
    header = json.loads((DATA / "checkpoints" / header_file).read_text())
    size = max(v["data_offsets"][1] for k, v in header.items() if k != "__metadata__")
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    return len(raw).to_bytes(8, "little") + raw + bytes(size)


@FUZZ
@given(e=edits)
def test_corrupted_safetensors(e: list[tuple[int, int, int]]) -> None:
    data = _safetensors("tiny-gpt2.safetensors-header.json")
    head = 8 + int.from_bytes(data[:8], "little")  # mutate the length and the header only
    corrupted = mutate(data[:head], e) + data[head:]
    config = str(DATA / "checkpoints" / "tiny-gpt2.config.json")
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(tmp, "model.safetensors", corrupted)
        invoke(["verify", "--hf-config", config, "--checkpoint", path, "-f", "json"])


CATALOG = b"""[[exercise]]
id = "a"
question = "How many FFN parameters?"
quantity = "layer_ffn_params"
model = { d_model = 64, d_ff = 256, n_heads = 4, bias = false }

[[exercise]]
id = "b"
question = "GELU at 1.5?"
quantity = "gelu"
x = 1.5
"""


@FUZZ
@given(e=edits, answer=st.sampled_from(["32768", "3.3e4", "0", "-5", "x", "32,768", "1%"]))
def test_corrupted_catalog(e: list[tuple[int, int, int]], answer: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(tmp, "catalog.toml", mutate(CATALOG, e))
        invoke(["exercise", "list", "--exercises", path, "-f", "json"])
        invoke(["exercise", "check", "a", answer, "--exercises", path])


# --- invariants over valid random models ---------------------------------------------------

models = st.fixed_dictionaries(
    {
        "d_model": st.sampled_from([8, 16, 24, 64]),
        "n_heads": st.sampled_from([1, 2, 4, 8]),
        "n_layers": st.integers(1, 4),
        "d_ff": st.integers(1, 100),
        "activation": st.sampled_from(["relu", "gelu", "silu", "swiglu", "geglu"]),
        "norm": st.sampled_from(["layernorm", "rmsnorm"]),
        "vocab_size": st.integers(1, 50),
    }
)


@FUZZ
@given(m=models, bias=st.booleans())
def test_flags_toml_and_json_agree(m: dict[str, Any], bias: bool) -> None:
    flags = [x for k, v in m.items() for x in (f"--{k.replace('_', '-')}", str(v))]
    flags.append("--bias" if bias else "--no-bias")
    fields = {**m, "attention_bias": bias, "ffn_bias": bias}
    toml = "".join(
        f"{k} = {json.dumps(v) if not isinstance(v, bool) else str(v).lower()}\n"
        for k, v in fields.items()
    )
    with tempfile.TemporaryDirectory() as tmp:
        a = invoke(["params", *flags, "-f", "json"])
        b = invoke(["params", "-c", _write(tmp, "m.toml", toml.encode()), "-f", "json"])
        c = invoke(
            ["params", "-c", _write(tmp, "m.json", json.dumps(fields).encode()), "-f", "json"]
        )
    results = [json.loads(r.stdout) for r in (a, b, c)]
    assert results[0]["total_params"] == results[1]["total_params"] == results[2]["total_params"]
    assert results[0]["components"] == results[1]["components"] == results[2]["components"]
    assert sum(results[0]["components"].values()) == results[0]["total_params"]


@FUZZ
@given(
    layers=st.integers(1, 6), heads=st.sampled_from([2, 4, 8]), kv=st.sampled_from([1, 2]),
    d_ff=st.integers(1, 300), vocab=st.integers(1, 1000), tie=st.booleans(),
)  # fmt: skip
def test_import_hf_round_trip(
    layers: int, heads: int, kv: int, d_ff: int, vocab: int, tie: bool
) -> None:
    config = {"model_type": "llama", "num_hidden_layers": layers, "hidden_size": 16 * heads,
              "num_attention_heads": heads, "num_key_value_heads": kv, "intermediate_size": d_ff,
              "vocab_size": vocab, "tie_word_embeddings": tie}  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(tmp, "config.json", json.dumps(config).encode())
        toml = invoke(["import-hf", path]).stdout
        back = _write(tmp, "back.toml", toml.encode())
        a = json.loads(invoke(["params", "--hf-config", path, "-f", "json"]).stdout)
        b = json.loads(invoke(["params", "-c", back, "-f", "json"]).stdout)
    assert a["components"] == b["components"] and a["total_params"] == b["total_params"]


json_values = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
        st.text(max_size=20), st.sampled_from(["llama", "gpt2", "silu", "gelu_new"]),
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)  # fmt: skip


# Every family's real config.json (tests/data/coverage.json) and the two tiny checkpoints'.
SOURCES = [c["hf_config"] for c in json.loads((DATA / "coverage.json").read_text())["cases"]]
SOURCES += [
    json.loads((DATA / "checkpoints" / f).read_text())
    for f in ("tiny-gpt2.config.json", "tiny-llama-gqa.config.json")
]


@settings(max_examples=120, deadline=None)
@given(
    source=st.integers(0, len(SOURCES) - 1),
    changes=st.lists(st.tuples(st.integers(0, 100), json_values), min_size=1, max_size=3),
    command=st.sampled_from(["params", "crossover", "tensors"]),
)
def test_hf_config_with_random_values(
    source: int, changes: list[tuple[int, Any]], command: str
) -> None:
    """A real config.json of any family with some fields (model_type included) set to random
    JSON values."""
    config = dict(SOURCES[source])
    keys = sorted(config)
    for index, value in changes:
        config[keys[index % len(keys)]] = value
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(tmp, "config.json", json.dumps(config).encode())
        invoke([command, "--hf-config", path, "-f", "json"])
