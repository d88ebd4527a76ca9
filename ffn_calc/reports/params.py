"""Result models: what `--format json` dumps, and what the renderers draw.

Builders here turn a ModelConfig into reports by calling the pure counting functions;
nothing is printed. Integers stay exact; shares are floats in [0, 1]."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field, PrivateAttr, SerializerFunctionWrapHandler, model_serializer

from ffn_calc.counts import params as pm
from ffn_calc.counts.terms import Term
from ffn_calc.counts.totals import param_components
from ffn_calc.counts.towers import language_model_params
from ffn_calc.i18n.translate import Text
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.towers import Part, Tower
from ffn_calc.reports.base import KindResult, Result, TermReport


class ParamLayer(KindResult):
    stack: str
    kind: str = Field("", description="'' for a stack of one kind; 'dense FFN' / 'MoE'")
    count: int
    attention: int
    ffn: int
    norm: int
    total: int
    terms: list[TermReport]


class TowerParams(Result):
    """One tower of a multimodal wrapper: its stack's layers (the attention / FFN split), its
    own tensors outside the layers, and the projector that maps it into the language model."""

    name: str = Field(description="vision or audio: its key in the wrapper's components")
    family: str = Field(description="the tower's model_type (siglip_vision_model, ...)")
    total_params: int = Field(description="the tower's parameters, its projector's not")
    components: dict[str, int] = Field(description="embedding, attention, ffn, norm")
    layers: list[ParamLayer]
    other_terms: list[TermReport] = Field(description="the tower's tensors outside its layers")
    projector_params: int
    projector_terms: list[TermReport]
    stack_tokens: int = Field(description="tokens through the tower's stack per image")
    tokens_per_image: int = Field(description="tokens each image gives the language model")
    image_size: list[int] | None = Field(
        description="[height, width] the tower takes (null: any size, see grid)"
    )
    grid: dict[str, Any] | None = Field(
        None,
        description="a tower that takes images of any size: patch (pixels a side per token), "
        "merge (tokens a side per language-model token), window and window_layers; its "
        "stack_tokens and tokens_per_image are then those of one patch x merge square",
    )


class ParamsReport(Result):
    """The counts of `ffn-calc params`. From params_report, the totals come from the closed
    form (ffn_calc/counts/totals.py) and the term lists (`layers`, `other_terms`, `active_terms`) are
    built from the model when first read or dumped: a loop that reads `total_params` pays for
    the sums only. The JSON is the same either way."""

    view: ClassVar[str] = "ffn_calc.views.params:params_tables"

    model: str
    source: str | None
    note: str | None = Field(None, description="a convention stated with the counts")
    total_params: int
    language_model_params: int | None = Field(
        None,
        description="a multimodal wrapper: the language model and its head (a tied head "
        "once), the total less the towers and projectors; null for a language model alone",
    )
    active_params: int
    active_params_without_embedding: int = Field(
        description="active_params less the input embedding (how some vendors quote it)"
    )
    checkpoint_elements: int = Field(
        description="elements a complete checkpoint stores: the parameters plus stored buffers"
    )
    non_embedding_params: int
    components: dict[str, int]
    shares: dict[str, float]
    ffn_to_attention: float = Field(description="FFN parameters / attention parameters")
    layers: list[ParamLayer]
    other_terms: list[TermReport]
    active_terms: list[str] = Field(description="how active_params adds up (MoE)")
    towers: list[TowerParams] = Field(
        [], description="a multimodal wrapper's towers (the key only where there are some)"
    )
    not_counted: list[str] = Field(
        [],
        description="parts of the model not counted, neither in total_params nor in the "
        "components (Gemma 3n's timm vision tower; the key only where there are some)",
    )
    # The same as messages (not in JSON), for a view to show in the reader's language. An
    # immutable default: a default_factory makes Pydantic inspect the factory's signature,
    # which for a builtin such as `list` costs milliseconds at start-up.
    _active_lines: tuple[Text, ...] = PrivateAttr(())
    # The model whose term lists are still to build (None once built, or for a report
    # validated from JSON).
    _terms_of: ModelConfig | None = PrivateAttr(None)

    def active_lines(self) -> list[str | Text]:
        """active_terms as messages (English strings for a report read back from JSON)."""
        self._build_terms()
        return list(self._active_lines) if self._active_lines else list(self.active_terms)

    def _build_terms(self) -> None:
        """Build the term lists still missing, in their places in the field order (a dump
        follows the order of the instance's __dict__)."""
        private = self.__pydantic_private__
        cfg = None if private is None else private.get("_terms_of")
        if cfg is None or private is None:
            return
        built = _param_terms(cfg)
        values = self.__dict__
        ordered = {k: built[k] if k in built else values[k] for k in type(self).model_fields}
        values.clear()
        values.update(ordered)
        private["_active_lines"] = built["_active_lines"]
        private["_terms_of"] = None

    if not TYPE_CHECKING:  # mypy keeps checking attribute names

        def __getattr__(self, name: str) -> Any:
            if name in _TERM_FIELDS:
                self._build_terms()
                if name in self.__dict__:
                    return self.__dict__[name]
            return super().__getattr__(name)

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        self._build_terms()
        out = handler(self)
        if isinstance(out, dict) and not out.get("towers"):
            out.pop("towers", None)  # a language model alone: no key, as `pooler`
        if isinstance(out, dict) and not out.get("not_counted"):
            out.pop("not_counted", None)  # everything counted: no key
        return out

    def __eq__(self, other: object) -> bool:
        self._build_terms()
        if isinstance(other, ParamsReport):
            other._build_terms()
        return super().__eq__(other)

    def __iter__(self) -> Any:
        self._build_terms()
        return super().__iter__()

    def __repr_args__(self) -> Any:
        self._build_terms()
        return super().__repr_args__()


_TERM_FIELDS = frozenset({"layers", "other_terms", "active_terms", "towers"})


def _param_terms(cfg: ModelConfig) -> dict[str, Any]:
    """A ParamsReport's term lists (and its active lines as messages): what --explain and the
    tables read."""
    layers = _layers(cfg)
    active = pm.active_lines(cfg)
    return {
        "layers": layers,
        "other_terms": [TermReport.of(t) for t in pm.model_terms(cfg)],
        "active_terms": [str(line) for line in active],
        "towers": [_tower_params(t) for t in cfg.towers],
        "_active_lines": tuple(active),
    }


def _layers(cfg: ModelConfig, stack: str | None = None) -> list[ParamLayer]:
    """The layer kinds of the model's stacks (`stack`: a tower's name in place of its stack's)."""
    return [
        ParamLayer(
            stack=stack or layer.stack, kind=str(layer.kind), count=layer.count,
            attention=layer.group("attention"),
            ffn=layer.group("ffn"), norm=layer.group("norm"), total=layer.total,
            terms=[TermReport.of(t) for t in layer.terms],
        ).with_kind(layer.kind)
        for layer in pm.layer_counts(cfg)
    ]  # fmt: skip


def _part_term(p: Part) -> TermReport:
    """A tensor outside a tower's layers, as a term: its name and shape."""
    shape = ([p.layers] if p.layers > 1 else []) + p.shape  # a copy in each of `layers`
    t = Term(p.name, " x ".join(f"{x:,}" for x in shape), tuple(shape), p.group)
    return TermReport.of(t)


def _tower_params(t: Tower) -> TowerParams:
    from ffn_calc.counts import towers as tw

    comps = tw.tower_components(t)
    return TowerParams(
        name=t.name, family=t.family, total_params=sum(comps.values()), components=comps,
        layers=_layers(t.stack, t.name),
        other_terms=[TermReport.of(x) for x in pm.model_terms(t.stack)]
        + [_part_term(p) for p in t.own_parts],
        projector_params=tw.projector_params(t),
        projector_terms=[_part_term(p) for p in t.projector_parts],
        stack_tokens=t.tokens, tokens_per_image=t.output_tokens,
        image_size=None if t.grid is not None and t.grid.up_to is None else t.image_size,
        grid=None if t.grid is None else t.grid.model_dump(),
    )  # fmt: skip


def _ratio(part: int, whole: int) -> float:
    """share() for integers: int / int is the correctly rounded quotient, as Fraction's float."""
    return part / whole if whole else 0.0


def params_report(cfg: ModelConfig) -> ParamsReport:
    comps = param_components(cfg)  # == pm.components(cfg), without building the terms
    tot = sum(comps.values())
    idle = pm.idle_params(cfg)
    fields: dict[str, Any] = dict(
        model=cfg.name,
        source=cfg.source,
        note=cfg.note,
        total_params=tot,
        language_model_params=language_model_params(cfg, tot),
        active_params=tot - idle,
        active_params_without_embedding=tot - idle - comps["embedding"],
        checkpoint_elements=tot + pm.stored_buffers(cfg),
        non_embedding_params=tot - comps["embedding"] - comps["lm_head"],
        components=comps,
        shares={k: _ratio(v, tot) for k, v in comps.items()},
        ffn_to_attention=_ratio(comps["ffn"], comps["attention"]),
        not_counted=[u.name for u in cfg.not_counted],
    )
    # Every field counts as set (the term lists too, built when read or dumped).
    report = ParamsReport.model_construct(_fields_set=set(_PARAMS_FIELDS), **fields)
    report._terms_of = cfg
    return report


_PARAMS_FIELDS = tuple(ParamsReport.model_fields)
