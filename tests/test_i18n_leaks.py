"""Every sentence in the chosen language: no English sentence under --lang ja or zh.

Every command (and its error paths) runs under `--lang ja` and `--lang zh`; a line of its
output that holds an English sentence fails the test. A sentence here is three or more
lowercase English words in a row with at least one of English's small function words among
them ("should be", "of one", "and nan are not"), once what is English by design is taken out:
`code`, 'quoted values', "strings", option names, identifiers and numbers (d_ff, gelu_tanh,
forward_flops@4096, 2sbh), field values (relu, gelu, decoder-only), model and field names.

Left as written, by design (docs/languages.md): a preset's `source` (a citation) and `note`
(remarks on its exact figures), which are model data like its name; JSON and CSV; Typer's own
usage errors and --help (not run here).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ffn_calc.model.sources import load_preset_data, preset_names
from tests.conftest import run

FUNCTION_WORDS = frozenset(
    ("the", "of", "and", "an", "is", "are", "to", "in", "on", "for", "with", "without", "not",
     "be", "should", "has", "have", "by", "at", "from", "as", "or", "that", "this", "it", "its",
     "no", "per", "into", "than", "does", "do", "can", "cannot", "must", "only", "each", "every",
     "one", "when", "which", "give", "use")
)  # fmt: skip
_RUN = re.compile(r"(?<![\w.`/])[a-z]+(?:[ ,;]+[a-z]+){2,}(?![\w/])")


def _scrub(line: str, quotes: bool = True) -> str:
    """The line without what is English by design (see the module docstring)."""
    line = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"|--[\w-]+" if quotes else r"--[\w-]+", " ", line)
    line = re.sub(r"\b[\w.@^-]*[_\d@^][\w.@^-]*", " ", line)  # identifiers, numbers, formulas
    line = re.sub(r"\b\w+(?:\.\w+)+", " ", line)  # dotted tensor names: model.visual.merger
    return re.sub(r"(?<=[a-z])-(?=[a-z])", "", line)  # decoder-only: one word


def english(line: str) -> str | None:
    """The first English sentence in `line`, or None."""
    for m in _RUN.finditer(_scrub(line)):
        words = re.findall(r"[a-z]+", m.group())
        if sum(len(w) > 1 for w in words) >= 3 and FUNCTION_WORDS & set(words):
            return m.group()
    return None


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", _scrub(text, quotes=False))


def _model_data() -> str:
    """Every preset's source and note as their words (a wrapped line is a piece of one)."""
    texts = []
    for name in preset_names():
        data, _origin = load_preset_data(name)
        texts += [str(data.get("source", "")), str(data.get("note", ""))]
    return "".join(f" {' '.join(_words(t))} " for t in texts)


def leak(line: str) -> bool:
    """Whether `line` holds an English sentence that is not a preset's source or note: three
    words in a row, one of them a function word, that no source or note has."""
    return any(_leak(cell) for cell in re.split(r"\s{2,}", line))  # a table's cells apart


def _leak(text: str) -> bool:
    if english(text) is None:
        return False
    words = _words(text)
    return any(
        FUNCTION_WORDS & set(words[i : i + 3])
        and f" {' '.join(words[i : i + 3])} " not in MODEL_DATA
        for i in range(len(words) - 2)
    )


MODEL_DATA = _model_data()
DATA = Path(__file__).parent / "data" / "checkpoints"


def _commands(tmp: Path) -> Iterator[list[str]]:
    for p in preset_names():
        yield ["params", "-p", p, "--explain"]
        yield ["show", p]
    for p in (
        "gpt2-small",
        "t5-base",
        "mixtral-8x7b",
        "deepseek-v3",
        "gpt-oss-20b",
        "llama-4-scout-text",
    ):
        yield from (
            ["flops", "-p", p, "-s", "1024", "--explain"], ["flops", "-p", p, "--decode", "-L", "4096"],
            ["flops", "-p", p, "-s", "128", "--generate", "16"], ["crossover", "-p", p],
            ["crossover", "-p", p, "--decode"], ["kv", "-p", p, "-L", "8192"],
            ["memory", "-p", p, "--gpu-memory", "80GB", "--context", "4096"],
            ["memory", "-p", p, "--training", "--explain", "--gpu-memory", "80GB"],
            ["tensors", "-p", p, "--matmuls"], ["verify", "-p", p],
        )  # fmt: skip
    yield from (
        ["crossover", "-p", "gpt2-small", "--grid"], ["compare", "gpt2-small", "mixtral-8x7b", "t5-base"],
        ["activations", "--x", "0.5"], ["swiglu-size", "--d-model", "4096", "--ffn-dim-multiplier", "1.3"],
        ["presets"], ["exercise", "list"], ["flops", "-p", "gpt2-small", "-s", "64", "--unit", "macs", "--causal", "--no-lm-head"],
        ["sweep", "-p", "llama-2-7b", "--vary", "d_ff=8192:16384:2048", "--vary", "n_kv_heads=1,3,8,32",
         "--metric", "forward_flops@4096", "--where", "total_params<=7e9"],
        ["sweep", "-p", "gpt2-small", "--vary", "n_heads=5,7,12", "--vary", "n_kv_heads=none,5", "-f", "csv"],
        ["sweep", "-p", "gpt2-small", "--vary", "n_heads=5,7,12", "-f", "markdown"],
        ["verify", "--checkpoint", str(DATA / "tiny-gpt2.safetensors-header.json"),
         "--hf-config", str(DATA / "tiny-gpt2.config.json")],
    )  # fmt: skip
    exercises = run("exercise", "list", "-f", "json").json()["exercises"]
    for e in exercises:
        for args in (
            ["show"],
            ["solve"],
            ["check", str(e["answer"])],
            ["check", "1"],
            ["check", "5%"],
        ):
            yield ["exercise", args[0], e["id"], *args[1:]]
    bad_toml, bad_json, bad_catalog = tmp / "bad.toml", tmp / "bad.json", tmp / "catalog.toml"
    bad_toml.write_text('d_model = 64\nn_heads = 4\nd_ff = -1\nbogus = 3\nn_layers = "x"\n')
    bad_json.write_text('{"model_type": "llama", "hidden_size": 64}')
    broken_toml, broken_json = tmp / "broken.toml", tmp / "broken.json"
    broken_toml.write_text("a = 1\na = 2\n")
    broken_json.write_text('{"d_model": 64,')
    bad_catalog.write_text(
        '[[exercise]]\nid = ""\nquestion = 5\nquantity = "bogus"\nx = inf\nsig_figs = 99\n'
        '[[exercise]]\nid = "b"\nquestion = "q"\nquantity = "total_params"\n'
    )
    yield from (
        ["params", "-p", "nope"], ["params"], ["params", "-c", str(bad_toml)], ["params", "--hf-config", str(bad_json)],
        ["params", "-c", str(broken_toml)], ["params", "-c", str(broken_json)],
        ["params", "--d-model", "100", "--n-heads", "3"], ["flops", "-p", "gpt2-small"],
        ["flops", "-p", "gpt2-small", "-s", "10", "-t", "4"], ["activations", "--x", "nan"],
        ["activations", "--x", "inf"], ["swiglu-size", "--d-model", "64", "--ffn-dim-multiplier", "0"],
        ["sweep", "-p", "gpt2-small", "--vary", "d_ff=0"], ["sweep", "-p", "gpt2-small", "--vary", "vocab_size=1:9999999999999999"],
        ["sweep", "-p", "gpt2-small", "--vary", "foo=1,2"], ["sweep", "-p", "gpt2-small", "--vary", "d_ff=1:4", "--metric", "bogus"],
        ["exercise", "show", "nope"], ["exercise", "check", "ffn-4096-vs-gpt2", "abc"],
        ["exercise", "list", "--exercises", str(bad_catalog)], ["kv", "-p", "gpt2-small"],
        ["memory", "-p", "gpt2-small", "--gpu-memory", "lots"], ["compare", "gpt2-small", "nope"],
        ["crossover", "-p", "gpt2-small", "--decode", "--grid"],
    )  # fmt: skip


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_no_english_sentence_in_japanese_or_chinese(lang: str, tmp_path: Path) -> None:
    leaks: dict[str, str] = {}
    for args in _commands(tmp_path):
        r = run(*args, "--lang", lang)
        for line in (r.stdout + "\n" + r.stderr).splitlines():
            if line not in leaks and leak(line):
                leaks[line] = " ".join(args)
    report = [f"{cmd}: {line.strip()}" for line, cmd in leaks.items()]
    assert not report, f"{len(report)} lines in English:\n" + "\n".join(report[:40])


def test_the_detector_finds_sentences_and_leaves_identifiers() -> None:
    assert english("エラー：--x nan: give finite numbers; inf and nan are not evaluated.")  # noqa: RUF001
    assert english("d_model = -3: input should be greater than 0。")
    assert english("one routed expert: 3 x d_model x d_ff = 3 x 7,168 x 2,048")
    assert english("activation は relu, gelu, gelu_tanh, silu, swiglu, geglu のいずれか") is None
    assert english("x       relu        gelu   gelu_tanh        silu") is None
    assert english("gpt2-small は decoder-only である。") is None


# --- the classes named in the issue, one by one ----------------------------------------------


@pytest.mark.parametrize(("lang", "word"), [("ja", "有限"), ("zh", "有限")])
def test_the_non_finite_x_message_is_translated(lang: str, word: str) -> None:
    for x in ("nan", "inf", "-inf"):
        r = run("activations", "--x", x, "--lang", lang)
        assert r.exit_code == 2 and r.stdout == ""
        assert word in r.stderr and f"--x {x}" in r.stderr and english(r.stderr) is None


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_a_sweep_value_pydantic_refuses_is_explained_in_the_language(lang: str) -> None:
    for spec in ("d_ff=0", "n_heads=0,3", "vocab_size=99999999999999999", "n_kv_heads=none,0"):
        r = run("sweep", "-p", "gpt2-small", "--vary", spec, "--lang", lang)
        assert r.exit_code == 2 and r.stdout == ""
        assert "input should" not in r.stderr and english(r.stderr) is None, r.stderr


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_exercise_catalog_errors_are_in_the_language(lang: str, tmp_path: Path) -> None:
    catalog = tmp_path / "c.toml"
    catalog.write_text(
        '[[exercise]]\nid = ""\nquestion = "q"\nquantity = "total_params"\nx = inf\n'
    )
    r = run("exercise", "list", "--exercises", str(catalog), "--lang", lang)
    assert r.exit_code == 2 and r.stdout == ""
    assert "should" not in r.stderr and english(r.stderr) is None, r.stderr
    catalog.write_text('[[exercise]]\nid = "a"\nquestion = "q"\nquantity = "total_params"\n')
    r = run("exercise", "list", "--exercises", str(catalog), "--lang", lang)
    assert r.exit_code == 2 and english(r.stderr) is None and "`model`" in r.stderr


@pytest.mark.parametrize(("lang", "word"), [("ja", "アクティブ"), ("zh", "激活")])
def test_moe_active_parameter_lines_are_translated_and_json_stays_english(
    lang: str, word: str
) -> None:
    english_json = run("params", "-p", "deepseek-v3", "-f", "json").json()
    assert run("params", "-p", "deepseek-v3", "-f", "json", "--lang", lang).json() == english_json
    # 3 x 7,168 x 2,048 = 44,040,192: one routed expert (counts.params.expert_params)
    assert english_json["active_terms"][0] == (
        "one routed expert: 3 x d_model x d_ff = 3 x 7,168 x 2,048 = 44,040,192"
    )
    out = run("params", "-p", "deepseek-v3", "--explain", "--lang", lang).stdout
    lines = [line for line in out.splitlines() if line.startswith(word)]
    assert len(lines) >= 4  # each layer kind, the rest, the sum (table rows start so too)
    assert "37,552,282,624" in out and "44,040,192" in out
    assert "routed expert" not in out and "idle experts" not in out


def test_the_sweep_csv_summary_is_in_the_language_and_the_data_is_not() -> None:
    args = ("sweep", "-p", "gpt2-small", "--vary", "n_heads=5,7,12", "-f", "csv")
    en, ja = run(*args, "--lang", "en"), run(*args, "--lang", "ja")
    assert en.stdout == ja.stdout
    assert "combinations shown" in en.stderr and "combinations shown" not in ja.stderr
    assert "768" in ja.stderr  # the skipped combination's message has its numbers: d_model (768)


@pytest.mark.parametrize(
    ("text", "suffix", "english"),
    [("a = 1\na = 2\n", ".toml", "malformed TOML: Cannot overwrite a value (at line 2, column 6)."),
     ('{"d_model": 64,', ".json", "malformed JSON: Expecting property name enclosed in double quotes."),
     ("x = [", ".toml", "malformed TOML: Invalid value (at end of document).")],
)  # fmt: skip
def test_parser_messages_are_translated_and_english_is_unchanged(
    text: str, suffix: str, english: str, tmp_path: Path
) -> None:
    path = tmp_path / f"c{suffix}"
    path.write_text(text)
    assert english in run("params", "-c", str(path), "--lang", "en").stderr
    for lang in ("ja", "zh"):
        r = run("params", "-c", str(path), "--lang", lang)
        assert r.exit_code == 2 and r.stdout == "" and english.split(": ")[1][:12] not in r.stderr


def test_json_stays_english_for_the_messages_built_with_fields() -> None:
    a = run("memory", "-p", "mixtral-8x7b", "--training", "-f", "json").json()
    b = run("memory", "-p", "mixtral-8x7b", "--training", "-f", "json", "--lang", "zh").json()
    assert a == b and json.dumps(a).isascii()


# --- sentences built below the views: every word in the reader's language ---------------------

# Words that read alike in every language: names the glossary keeps in English (MoE, the
# norms), tensor names (a norm's weight and bias, "LayerNorm = weight + bias" in every language;
# the masked-LM head's dense), the symbols of MLA's formulas (nope, rope), the library's name
# (transformers), and the English the translations keep beside or for their own word
# ("共有（tied）重み", "rotary の inv_freq", "注意力 sink").  # noqa: RUF003
# The symbols of the token mixers' formulas (their sizes: heads, inner, state, kernel; chunks
# of the scans; dt, the time step) and their proper names (Mamba, Kimi Delta, DeltaNet).
SYMBOLS = frozenset(
    ("MoE", "LayerNorm", "RMSNorm", "FLOPs", "weight", "bias", "dense", "nope", "rope",
     "transformers", "tied", "rotary", "sink", "wk",  # wk: the indexer's tensor
     "heads", "inner", "state", "kernel", "chunks", "dt", "Mamba", "Kimi", "Delta", "DeltaNet")
)  # fmt: skip


def english_words(line: str) -> list[str]:
    """Every English word in `line` beyond identifiers, numbers, options, quoted text, symbols
    in capitals (AV, KV) and SYMBOLS: stricter than `english` (one word is enough)."""
    words = re.findall(r"[A-Za-z]{2,}", _scrub(line))
    return [w for w in words if w not in SYMBOLS and not w.isupper()]


def unwrapped(*args: str) -> str:
    """The command's stdout on a terminal wide enough that no line wraps (a source or note is
    then one line, found whole)."""
    from typer.testing import CliRunner

    from ffn_calc.cli import app

    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "5000", "NO_COLOR": "1"})
    assert r.exit_code == 0, r.stderr
    return r.stdout


def english_lines(out: str, model_data: list[str]) -> dict[str, list[str]]:
    """The lines of `out` with English words in them (a line quoting model data left out)."""
    lines = [x for x in out.splitlines() if not any(m and m in x for m in model_data)]
    return {x: english_words(x) for x in lines if english_words(x)}


def test_the_strict_detector_finds_one_word_and_leaves_symbols() -> None:
    assert english_words("共有エキスパートのバイアス: biases of the shared expert = 3,072")
    assert english_words("ルーター: router = 2") == ["router"]
    assert not english_words("q_proj: d_model x n_heads x (nope + rope) = 2,048 x 16 x 192")
    assert not english_words("norm_attn: d_model (weight) = 4,096")
    assert not english_words("アクティブ、デコーダ層（MoE）：26 x 8 = 208")  # noqa: RUF001


MOE_PRESETS = [p for p in preset_names() if load_preset_data(p)[0].get("n_experts")]


@pytest.mark.parametrize("lang", ["ja", "zh"])
@pytest.mark.parametrize("preset", MOE_PRESETS)
def test_moe_explain_has_no_english_line(preset: str, lang: str) -> None:
    """`params --explain` of every MoE preset: every line in the reader's language but its
    symbols, formulas and model data (the preset's source and note)."""
    data, _origin = load_preset_data(preset)
    model_data = [str(data.get("source") or ""), str(data.get("note") or "")]
    out = unwrapped("params", "-p", preset, "--explain", "--lang", lang)
    assert "lm_head" in out  # the terms are there
    assert english_lines(out, model_data) == {}


# Fields that add terms named or written with words (a shared expert's biases, the router's
# score bias as a parameter, per-stack token tables, the causal scores ...).
VARIANTS: list[tuple[str, dict[str, object]]] = [
    ("qwen1.5-moe-a2.7b", {"ffn_bias": True, "router_score_bias": "parameter", "router_bias": True}),
    ("gpt-oss-20b", {"shared_expert_d_ff": 256, "shared_expert_gate": True}),
    ("bart-base", {"shared_embeddings": False}),
    ("bart-base", {"stack_embeddings": True}),
    ("opt-1.3b", {"embedding_dim": 512, "embedding_projection_bias": True}),
    ("albert-base-v2", {"lm_head_projection_bias": True}),
]  # fmt: skip


@pytest.mark.parametrize("lang", ["ja", "zh"])
@pytest.mark.parametrize(("preset", "fields"), VARIANTS)
def test_terms_built_with_words_are_in_the_language(
    preset: str, fields: dict[str, object], lang: str
) -> None:
    """Term names and formulas with words, for models beyond the presets: in the reader's
    language in --explain and in the FLOP tables (causal scores, cross-attention)."""
    import ffn_calc
    from ffn_calc.counts.flops import Workload
    from ffn_calc.i18n.translate import use
    from ffn_calc.output.markdown import to_markdown
    from ffn_calc.reports.flops import flops_report
    from ffn_calc.views.labels import term_label
    from ffn_calc.views.registry import tables_for

    cfg = ffn_calc.load(preset=preset, **fields)  # type: ignore[arg-type]
    data, _origin = load_preset_data(preset)
    model_data = [cfg.name, str(data.get("source") or ""), str(data.get("note") or "")]
    flops = flops_report(cfg, Workload(batch=1, seq_len=64, causal=cfg.has_decoder))
    with use(lang):
        out = to_markdown(tables_for(ffn_calc.params(cfg), True) or [])
        # The FLOP tables' notes name symbols (AV, softmax, FlopCounterMode): their terms.
        names = [term_label(t.name) for layer in flops.layers for t in layer.terms]
    assert english_lines(out, model_data) == {}
    assert english_lines("\n".join(names), []) == {}


def test_every_term_named_with_words_has_a_label() -> None:
    """A term the counts name with words ("router score bias", "cross AV") is shown in the
    reader's words: every such name, over every preset and the variants above, has a label."""
    import ffn_calc
    from ffn_calc.counts import flops as fl
    from ffn_calc.counts import params as pm
    from ffn_calc.views.labels import TERM_LABELS

    cfgs = [ffn_calc.load(preset=p) for p in preset_names()]
    cfgs += [ffn_calc.load(preset=p, **v) for p, v in VARIANTS]  # type: ignore[arg-type]
    names: set[str] = set()
    for cfg in cfgs:
        names |= {t.name for layer in pm.layer_counts(cfg) for t in layer.terms}
        names |= {t.name for t in pm.model_terms(cfg)}
        for causal in (False, True) if cfg.has_decoder else (False,):
            w = fl.Workload(batch=1, seq_len=8, causal=causal)
            names |= {t.name for layer in fl.layer_flops(cfg, w) for t in layer.terms}
    # Tensor-like names read alike everywhere: Q, b_Q, W_gate, gate / up / down, norm 1.
    worded = {
        n for n in names if english_words(n) and not re.fullmatch(r"(gate|up|down|norm \d)", n)
    }
    assert worded - set(TERM_LABELS) == set()


def test_no_view_or_writer_translates_by_matching_english() -> None:
    """Views and writers show messages (Text) and look labels up by key; none rewrites text it
    was given: no `.replace(piece, _(piece))`, no re.sub over sentences, no splitting a
    report's string back into its parts (`dominant.split(" = ")`)."""
    import ast

    root = Path(__file__).parent.parent / "ffn_calc"
    found = []
    for path in sorted([*(root / "views").glob("*.py"), *(root / "output").glob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            args = [a for a in node.args if isinstance(a, ast.Call)]
            if node.func.attr == "replace" and any(
                isinstance(a.func, ast.Name) and a.func.id == "_" for a in args
            ):
                found.append(f"{path.name}:{node.lineno} replace with a translation")
            if node.func.attr == "split" and any(
                isinstance(a, ast.Constant) and a.value == " = " for a in node.args
            ):
                found.append(f"{path.name}:{node.lineno} split(' = ')")
            value = node.func.value  # (the writers' re.sub lay out whitespace, not words)
            is_re = isinstance(value, ast.Name) and value.id == "re"
            if node.func.attr == "sub" and is_re and path.parent.name == "views":
                found.append(f"{path.name}:{node.lineno} re.sub in a view")
    assert found == []
