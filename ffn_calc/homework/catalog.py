"""Exercise catalogs: the built-in one or an instructor's TOML file, every entry checked.

Each `[[exercise]]` is validated strictly (unknown keys with a close match suggested, wrong
types named by key), its `model` and `other` tables as `ModelConfig` types its fields, its id
must be unique, and its answer must compute; every problem is a message naming the entry.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from pydantic_core import ErrorDetails

from ffn_calc.errors import FfnCalcError, FileError
from ffn_calc.files import parse_toml, read_text_file
from ffn_calc.homework.exercises import Exercise, answer
from ffn_calc.i18n.translate import _
from ffn_calc.model.config import ModelConfig
from ffn_calc.model.sources import FLAG_FIELDS, field_message


def _model_table() -> type[BaseModel]:
    """`model = {...}` / `other = {...}`: a preset and/or the size flags, typed as ModelConfig
    types them (strict: `d_model = true`, `n_heads = "32"` and `d_model = 64.0` are refused)."""
    annotate: Any = Annotated  # built at run time from ModelConfig's own field types
    fields: dict[str, Any] = {"preset": (str, None), "bias": (bool, None), "tie": (bool, None)}
    for name in FLAG_FIELDS:
        info = ModelConfig.model_fields[name]
        kind = annotate[(info.annotation, *info.metadata)] if info.metadata else info.annotation
        fields[name] = (kind, None)
    config = ConfigDict(extra="forbid", strict=True)
    return create_model("ModelTable", __config__=config, **fields)


MODEL_TABLE = _model_table()
MODEL_KEYS = list(MODEL_TABLE.model_fields)


def _toml(value: Any) -> str:
    """A value as it is written in TOML: true, inf, "32"."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)[:200]
    return repr(value)[:200]


def _phrase(err: ErrorDetails, keys: Sequence[str], table: str | None = None) -> str:
    """One validation error as a phrase naming the key: `model.d_modell`, `x = inf`."""
    loc = [str(p) for p in err["loc"]]
    name = ".".join([table, *loc] if table else loc)
    if err["type"] == "extra_forbidden":
        close = difflib.get_close_matches(loc[-1], keys, n=1, cutoff=0.6)
        if close:
            return _("unknown key '{key}' (did you mean '{close}'?)").format(
                key=name, close=close[0]
            )
        return _("unknown key '{key}'; the keys are {keys}").format(key=name, keys=", ".join(keys))
    if err["type"] == "missing":
        return _("required key '{key}' is missing").format(key=name)
    msg = field_message(err)
    if not name:
        return msg
    return _("{key} = {value}: {problem}").format(key=name, value=_toml(err["input"]), problem=msg)


def _problems(raw: Any) -> tuple[Exercise | None, list[str]]:
    """Validate one raw entry: the exercise, or what is wrong with it (unknown keys first)."""
    if not isinstance(raw, dict):
        return None, [_("an [[exercise]] must be a table, not {value}").format(value=_toml(raw))]
    try:
        e = Exercise.model_validate(raw)
    except ValidationError as exc:
        errors = sorted(exc.errors(), key=lambda err: err["type"] != "extra_forbidden")
        return None, [_phrase(err, list(Exercise.model_fields)) for err in errors]
    problems: list[str] = []
    for table in ("model", "other"):
        spec = getattr(e, table)
        try:
            if spec is not None:
                MODEL_TABLE.model_validate(spec)
        except ValidationError as exc:
            problems += [_phrase(err, MODEL_KEYS, table) for err in exc.errors()]
    return e, problems


def _entries(data: dict[str, Any], origin: str) -> list[Any]:
    """The [[exercise]] entries; a catalog holds nothing else."""
    for key in data:
        if key not in ("exercise", "terms"):
            close = difflib.get_close_matches(key, ["exercise", "terms"], n=1, cutoff=0.6)
            if close:
                raise FileError(
                    _(
                        "{origin}: unknown key '{key}' (did you mean '{close}'?); a catalog "
                        "holds [[exercise]] entries and a [terms] table."
                    ).format(origin=origin, key=key, close=close[0])
                )
            raise FileError(
                _(
                    "{origin}: unknown key '{key}'; a catalog holds [[exercise]] entries and a [terms] "
                    "table."
                ).format(origin=origin, key=key)
            )
    entries = data.get("exercise")
    if not isinstance(entries, list) or not entries:
        raise FileError(_("{origin}: no [[exercise]] entries.").format(origin=origin))
    return entries


# The catalogs shipped with ffn-calc, by the name `--catalog` takes: the default one and the
# course's (every figure of the course texts that can be an exercise).
BUILT_IN = {"default": "exercises.toml", "course": "course.toml"}


def built_in(path: Path | None) -> str | None:
    """The built-in catalog a name means (`course`), unless a file of that name exists."""
    if path is None:
        return "default"
    name = str(path)
    return name if name in BUILT_IN and not path.exists() else None


def _terms(data: dict[str, Any], origin: str) -> dict[str, dict[str, str]]:
    """`[terms.ja]` `attention = "注意機構"`: the words the catalog's texts use for some of the
    messages (by their English), per language; shown while the catalog is."""
    from ffn_calc.i18n.translate import LANGUAGES

    raw = data.get("terms", {})
    out: dict[str, dict[str, str]] = {}
    if not isinstance(raw, dict):
        raise FileError(
            _("{origin}: [terms] is a table of languages (ja, zh), each of words.").format(
                origin=origin
            )
        )
    for lang, table in raw.items():
        if lang not in LANGUAGES[1:] or not isinstance(table, dict):
            raise FileError(
                _("{origin}: [terms.{lang}]: give words for ja or zh, as message = word.").format(
                    origin=origin, lang=str(lang)[:40]
                )
            )
        for message, word in table.items():
            if not isinstance(word, str) or not word.strip():
                raise FileError(
                    _("{origin}: [terms.{lang}] {message}: the word is a non-empty string.").format(
                        origin=origin, lang=lang, message=str(message)[:60]
                    )
                )
        out[lang] = {str(k): v for k, v in table.items()}
    return out


def load_catalog(path: Path | None = None, words: bool = False) -> list[Exercise]:
    """A shipped catalog (none given, or its name: `course`), or an instructor's file; every
    entry checked and answerable. `words`: the catalog's [terms] are used in what is shown
    next (the CLI's command; see i18n.translate.prefer)."""
    if (name := built_in(path)) is not None:
        text = (files("ffn_calc.homework") / BUILT_IN[name]).read_text(encoding="utf-8")
        origin = _("the built-in catalog") if name == "default" else _("the course catalog")
    else:
        assert path is not None
        text, origin = read_text_file(path, "exercise catalog"), f"'{path}'"
    data = parse_toml(text, origin)
    entries = _entries(data, origin)
    terms = _terms(data, origin)
    out: list[Exercise] = []
    seen: set[str] = set()
    for i, raw in enumerate(entries, start=1):
        if isinstance(raw, dict) and "id" in raw:
            label = _("{origin}, exercise {n} ('{id}')").format(
                origin=origin, n=i, id=str(raw["id"])[:100]
            )
        else:
            label = _("{origin}, exercise {n}").format(origin=origin, n=i)
        e, problems = _problems(raw)
        if e is None or problems:
            line = _("{where}: {problem}.")
            raise FfnCalcError("\n".join(line.format(where=label, problem=p) for p in problems))
        if e.id in seen:
            raise FfnCalcError(
                _("{where}: the id '{id}' is used twice.").format(where=label, id=e.id)
            )
        seen.add(e.id)
        try:
            answer(e)
        except FfnCalcError as exc:
            problem = str(exc).rstrip(".\u3002")  # the sentence ends once, in the language's stop
            raise FfnCalcError(
                _("{where}: {problem}.").format(where=label, problem=problem)
            ) from None
        out.append(e)
    if words:
        from ffn_calc.i18n.translate import prefer

        prefer(terms)
    return out


def find(catalog: list[Exercise], exercise_id: str) -> Exercise:
    from ffn_calc.quantities import cut

    for e in catalog:
        if e.id == exercise_id:
            return e
    close = difflib.get_close_matches(exercise_id, [e.id for e in catalog], n=3, cutoff=0.5)
    if close:
        raise FfnCalcError(
            _(
                "unknown exercise '{id}'. Did you mean {close}? See `ffn-calc exercise list`."
            ).format(id=cut(exercise_id), close=", ".join(close))
        )
    raise FfnCalcError(
        _("unknown exercise '{id}'. See `ffn-calc exercise list`.").format(id=cut(exercise_id))
    )
