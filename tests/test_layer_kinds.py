"""Layer kinds are values (model.layer_kinds.LayerKind): their str() is the label results have
always carried, their shown() the label the tables have always drawn, and no code reads a
label back (no comparison with, or parse of, a layer-kind label anywhere in the package)."""

from __future__ import annotations

import ast
import copy
import pickle
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from strategies import model_configs

from ffn_calc.counts import inference as inf
from ffn_calc.counts import training as tr
from ffn_calc.families.resolve import resolve_model
from ffn_calc.i18n.translate import _, language, use
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.layer_kinds import (
    CHUNKED,
    CROSS_ATTENTION,
    DENSE,
    FFNS,
    FULL,
    MIXERS,
    MOE,
    SLIDING,
    LayerKind,
    layer_kind,
    layer_kinds,
    local_kind,
    with_stack,
)
from ffn_calc.model.sources import preset_names

PACKAGE = Path(__file__).parent.parent / "ffn_calc"


# --- the labels as they were written before kinds were values (the reference) ---------------


def labels_before(cfg: ModelConfig, layers: int) -> list[tuple[str, int]]:
    """ModelConfig.layer_kinds as it was: (FFN label, attention label, count), joined; a
    hybrid's from its per-layer lists (hybrid_labels)."""
    if cfg.layer_mixers and layers:
        return hybrid_labels(cfg, layers)
    n = cfg.attention_window or 0
    window = {"sliding": "sliding-window", "chunked": "chunked",
              "bidirectional": "bidirectional sliding-window"}[cfg.window_kind]  # fmt: skip
    local = f"{window} attention over {n:,} {'token' if n == 1 else 'tokens'}"
    dense = sorted(cfg.dense_ffn_layers) if cfg.is_moe and layers else []
    if cfg.layer_mixers and layers and not dense and not cfg.ffn_free_layers:
        # A hybrid of one FFN kind: each mixer's label where the layers mix in several ways.
        mixers: dict[str, int] = {}
        for name in cfg.layer_mixers:
            mixers[MIXERS[name].label] = mixers.get(MIXERS[name].label, 0) + 1
        return list(mixers.items()) if len(mixers) > 1 else [("", layers)]

    def ffn_only(attn: str) -> list[tuple[str, str, int]]:
        if not dense:
            return [("", attn, layers)]
        kinds = (("dense FFN", len(dense)), ("MoE", layers - len(dense)))
        return [(k, attn, m) for k, m in kinds if m]

    if cfg.attention_window is not None and not cfg.window_layers and layers:
        rows = ffn_only(local)
    elif not cfg.window_layers or not layers:
        rows = ffn_only("")
    else:
        is_dense, is_local = set(dense), set(cfg.window_layers)
        counts: dict[tuple[str, str], int] = {}
        for i in range(layers):
            ffn = ("dense FFN" if i in is_dense else "MoE") if dense else ""
            key = (ffn, local if i in is_local else "full attention")
            counts[key] = counts.get(key, 0) + 1
        rows = [(f, a, m) for (f, a), m in counts.items()]
    return [(", ".join(x for x in (f, a) if x), m) for f, a, m in rows]


def hybrid_labels(cfg: ModelConfig, layers: int) -> list[tuple[str, int]]:
    """A hybrid's kinds read off its lists, layer by layer, in the order each first appears:
    the FFN (none in ffn_free_layers; dense in a MoE model's dense_ffn_layers) and the mixer
    layer_mixers names; each part in the label where the stack has more than one of it."""
    free, dense = set(cfg.ffn_free_layers), set(cfg.dense_ffn_layers) if cfg.is_moe else set()
    routed = "MoE" if cfg.is_moe else "dense FFN"
    counts: dict[tuple[str, str], int] = {}
    for i in range(layers):
        ffn = "no FFN" if i in free else "dense FFN" if i in dense else routed
        key = (ffn, str(MIXERS[cfg.layer_mixers[i]].text(None)))
        counts[key] = counts.get(key, 0) + 1
    ffns, mixers = len({f for f, _ in counts}) > 1, len({m for _, m in counts}) > 1
    return [
        (", ".join(x for x, named in ((f, ffns), (m, mixers)) if named), n)
        for (f, m), n in counts.items()
    ]


_LOCAL = re.compile(
    r"(bidirectional sliding-window|sliding-window|chunked) attention over ([\d,]+) tokens?"
)


def shown_before(label: str) -> str:
    """views.kind_label as it was: the English label parsed back and translated part by part."""
    words = {x: _(x) for x in ("MoE", "dense FFN", "full attention", "cross-attention",
                               *(m.label for m in MIXERS.values() if not m.windowed))}  # fmt: skip
    out = []
    for part in label.split(", "):
        m = _LOCAL.fullmatch(part)
        if m is None:  # a hybrid's mixer: its own message
            out.append(words.get(part, _(part)))
            continue
        one = int(m[2].replace(",", "")) == 1
        which = m[1]
        msg = f"{which} attention over {{tokens}} {'token' if one else 'tokens'}"
        out.append(_(msg).format(tokens=m[2]))
    return ("、" if language() in ("ja", "zh") else ", ").join(out)


def _stacks(cfg: ModelConfig) -> list[int]:
    return [cfg.encoder_layers, cfg.decoder_layers, 0]


# --- the value --------------------------------------------------------------------------------


def test_a_kind_is_a_frozen_hashable_value() -> None:
    kind = LayerKind(MOE, SLIDING, 4096, True, True)
    assert kind == LayerKind(MOE, SLIDING, 4096, True, True)
    assert hash(kind) == hash(LayerKind(MOE, SLIDING, 4096, True, True))
    assert {kind: 1}[LayerKind(MOE, SLIDING, 4096, True, True)] == 1
    assert not hasattr(kind, "__dict__")  # slots
    with pytest.raises(AttributeError):
        kind.window = 1  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(kind)) == kind == copy.deepcopy(kind)
    # An FFN kind and a mixer are rows, each defined once: a copy is the row itself.
    assert pickle.loads(pickle.dumps(SLIDING)) is SLIDING is copy.deepcopy(SLIDING)
    assert pickle.loads(pickle.dumps(MOE)) is MOE is copy.copy(MOE)
    assert layer_kind(MOE, SLIDING, 4096, True, True) is layer_kind(MOE, SLIDING, 4096, True, True)
    assert layer_kind(MOE, SLIDING, 4096, True, True) == kind


@pytest.mark.parametrize(
    ("kind", "label"),
    [
        # every shape of label the results carry (JSON `kind`, crossover `layer`)
        (LayerKind(DENSE, FULL), ""),
        (LayerKind(MOE, FULL), ""),
        (LayerKind(DENSE, FULL, names_ffn=True), "dense FFN"),
        (LayerKind(MOE, FULL, names_ffn=True), "MoE"),
        (LayerKind(DENSE, FULL, names_mixer=True), "full attention"),
        (LayerKind(DENSE, SLIDING, 4096, names_mixer=True), "sliding-window attention over 4,096 tokens"),
        (LayerKind(DENSE, SLIDING, 1, names_mixer=True), "sliding-window attention over 1 token"),
        (LayerKind(MOE, CHUNKED, 8192, names_mixer=True), "chunked attention over 8,192 tokens"),
        (LayerKind(DENSE, SLIDING, 4096, True, True), "dense FFN, sliding-window attention over 4,096 tokens"),
        (LayerKind(MOE, FULL, None, True, True), "MoE, full attention"),
        (CROSS_ATTENTION, "cross-attention"),
        (LayerKind(ffn=MOE, names_ffn=True), "MoE"),  # stored activations: any mixer
    ],
)  # fmt: skip
def test_str_is_the_label(kind: LayerKind, label: str) -> None:
    assert str(kind) == label
    assert kind.named == bool(label)


def test_predicates_read_the_fields() -> None:
    assert LayerKind(DENSE, FULL).is_dense_ffn and not LayerKind(DENSE, FULL).is_moe
    assert LayerKind(MOE, FULL).is_moe and not LayerKind(MOE, FULL).is_dense_ffn
    assert LayerKind(DENSE, SLIDING, 4).is_local and LayerKind(DENSE, CHUNKED, 4).is_local
    assert not LayerKind(DENSE, FULL).is_local and not CROSS_ATTENTION.is_local
    assert not LayerKind().is_local and not LayerKind().is_moe and not LayerKind().named
    assert with_stack("decoder", LayerKind(MOE, FULL)) == "decoder"
    assert with_stack("decoder", LayerKind(MOE, FULL, None, True)) == "decoder (MoE)"


# --- every preset, and random configs: the labels of before ------------------------------------


@pytest.mark.parametrize("name", preset_names())
def test_every_presets_kinds_read_as_before(name: str) -> None:
    cfg = resolve_model(preset=name)
    for layers in _stacks(cfg):
        kinds = layer_kinds(cfg, layers)
        assert [(str(k), n) for k, n in kinds] == labels_before(cfg, layers)
        for lang in ("en", "ja", "zh"):
            with use(lang):
                assert [k.shown() for k, _n in kinds] == [
                    shown_before(str(k)) if k.named else "" for k, _n in kinds
                ]
        for kind, _n in kinds:  # the fields say what the label says
            assert kind.is_local == ("attention over" in str(kind))
            assert kind.is_moe == (cfg.is_moe and not str(kind).startswith(("dense FFN", "no FFN")))


@pytest.mark.parametrize("name", preset_names())
def test_cache_and_training_kinds_read_as_before(name: str) -> None:
    cfg = resolve_model(preset=name)
    if cfg.has_decoder:
        # The layers that cache keys and values: each whose mixer attends (a hybrid's list).
        attending = (
            sum(MIXERS[m].attends for m in cfg.layer_mixers)
            if cfg.layer_mixers
            else cfg.decoder_layers
        )
        local, full = (len(cfg.window_layers), attending - len(cfg.window_layers))
        if cfg.attention_window is not None and not cfg.window_layers:
            local, full = cfg.decoder_layers, 0
        n = cfg.attention_window or 0
        window = {"sliding": "sliding-window", "chunked": "chunked",
              "bidirectional": "bidirectional sliding-window"}[cfg.window_kind]  # fmt: skip
        want = (["full attention" if local else ""] if full else []) + (
            [f"{window} attention over {n:,} {'token' if n == 1 else 'tokens'}"] if local else []
        )
        if cfg.architecture == "encoder-decoder":
            want.append("cross-attention")
        got = inf.kv_kinds(cfg, 1, 10, None)
        assert [str(k.kind) for k in got] == want
        for lang in ("ja", "zh"):
            with use(lang):
                assert [k.kind.shown() for k in got] == [shown_before(x) if x else "" for x in want]
    wide = cfg.attending(False) is not cfg  # global layers of their own width (Gemma 4)
    for k in tr.layer_kinds(cfg):
        if wide:  # kept apart by their mixer (training.layer_kinds)
            assert k.kind.mixer is not None and k.kind.names_mixer
            continue
        assert str(k.kind) in ("", *(str(f.label) for f in FFNS.values()))
        assert k.kind.mixer is None  # local and full attention store the same


@settings(max_examples=150, deadline=None)
@given(cfg=model_configs())
def test_random_configs_kinds_read_as_before(cfg: ModelConfig) -> None:
    for layers in _stacks(cfg):
        kinds = layer_kinds(cfg, layers)
        assert [(str(k), n) for k, n in kinds] == labels_before(cfg, layers)
        with use("ja"):
            assert [k.shown() for k, _n in kinds] == [
                shown_before(str(k)) if k.named else "" for k, _n in kinds
            ]


def test_one_token_window_and_chunks() -> None:
    base = {"n_layers": 4, "d_model": 8, "n_heads": 2, "d_ff": 8, "attention_window": 1}
    cfg = ModelConfig(**base, window_layers=[1])
    assert str(local_kind(cfg)) == "sliding-window attention over 1 token"
    chunked = ModelConfig(**{**base, "attention_window": 8192}, window_kind="chunked")
    assert [(str(k), n) for k, n in layer_kinds(chunked, 4)] == [
        ("chunked attention over 8,192 tokens", 4)
    ]
    for lang in ("ja", "zh"):
        with use(lang):
            assert local_kind(cfg).shown() == shown_before("sliding-window attention over 1 token")
            # Two parts joined as the tables have always joined them (、 in Japanese and Chinese).
            both = LayerKind(DENSE, CHUNKED, 8192, True, True)
            chunks = _("chunked attention over {tokens} tokens").format(tokens="8,192")
            assert both.shown() == _("dense FFN") + "、" + chunks


# --- no code reads a label back -----------------------------------------------------------------

# Words of the layer-kind labels. Comparing with them, testing a prefix, splitting on them,
# matching them with a regex or keying a table by them reads English back into meaning.
LABEL_WORDS = re.compile(
    r"dense FFN|\bMoE\b|full attention|attention over|sliding-window|chunked attention|"
    r"cross-attention"
)
STR_METHODS = {"startswith", "endswith", "removeprefix", "removesuffix", "split", "rsplit",
               "partition", "rpartition", "find", "rfind", "index", "count", "replace"}  # fmt: skip


def _label_literals(node: ast.AST) -> list[str]:
    """String literals in `node` (a constant, or a tuple, list or set of them) that hold a
    layer-kind label word."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if LABEL_WORDS.search(node.value) else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [x for e in node.elts for x in _label_literals(e)]
    return []


def label_reads(source: str) -> list[str]:
    """Where code reads a layer-kind label: comparisons and membership tests with a label
    literal, string methods and regexes given one, tables keyed by one."""
    found = []
    for node in ast.walk(ast.parse(source)):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                found += [f"{where}: compares with {x!r}" for x in _label_literals(side)]
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            is_re = isinstance(f, ast.Attribute) and getattr(f.value, "id", "") == "re"
            if name in STR_METHODS or is_re:
                for arg in node.args:
                    found += [f"{where}: {name}({x!r})" for x in _label_literals(arg)]
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                if key is not None:
                    found += [f"{where}: a table keyed by {x!r}" for x in _label_literals(key)]
        elif isinstance(node, ast.Match):
            for case in node.cases:
                found += [
                    f"{where}: case {x!r}"
                    for p in ast.walk(case.pattern)
                    if isinstance(p, ast.MatchValue)
                    for x in _label_literals(p.value)
                ]
    return found


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.relative_to(PACKAGE).as_posix()
)
def test_no_code_reads_a_layer_kind_label(path: Path) -> None:
    assert label_reads(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "code",
    [
        'x = ffn == "dense FFN"',
        'x = kind.startswith("dense FFN")',
        'x = attn not in ("", "full attention")',
        'x = "attention over" not in kind',
        'x = kind.kind == "MoE"',
        'L = re.compile(r"(sliding-window|chunked) attention over ([\\d,]+) tokens?")',
        'T = {"MoE": N_("MoE"), "dense FFN": N_("dense FFN")}',
        'x = label.split(", ") if "MoE" in label else []',
    ],
)
def test_the_scan_finds_each_way_of_reading_a_label(code: str) -> None:
    """Each of the ways the views and counts used to read labels back is found."""
    assert label_reads(code)


def test_the_scan_leaves_messages_alone() -> None:
    assert label_reads('N_("dense FFN")\nsay(N_("MoE: {value}"), value="1")\nx = kind.is_moe') == []
