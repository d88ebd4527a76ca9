"""The Python API refuses wrong types with an FfnCalcError that says what it wanted.

Every public function is called with every argument replaced, one at a time, by values of the
wrong type (a bool for a length, a string for a switch, a dict for a path, None for a list...).
The functions and their parameters are found by introspection, so a new function or parameter
is covered without a new test. A value whose type fits the annotation may be accepted or
refused with an FfnCalcError; one whose type does not fit must be refused with one, with a
message; nothing may raise TypeError, AttributeError, ValueError or a pydantic ValidationError.
"""

from __future__ import annotations

import collections.abc as abc
import inspect
import itertools
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ffn_calc
from ffn_calc.model.config import ModelConfig
from ffn_calc.sweeps.run import Value

MODEL = ffn_calc.load(preset="gpt2-small")

# A valid value for every required parameter of a public function (the test fails, naming it,
# when a new required parameter has none here).
REQUIRED: dict[str, Any] = {
    "model": MODEL,
    "models": [MODEL],
    "seq_len": 16,
    "context": 16,
    "prompt": 4,
    "new": 2,
    "vary": {"d_ff": "3072,4096"},
}

WRONG: list[Any] = [
    True, False, 0, -1, 1.5, float("nan"), 10**400, "no", "", b"x", bytearray(b"x"), None,
    [], [1], ["x"], [None], (), {}, {"d_ff": 5}, {1: "x"}, object(), Path("nowhere.toml"),
    MODEL, range(3), iter([1, 2]), int,
]  # fmt: skip

NAMESPACE = {
    "ModelConfig": ModelConfig, "Path": Path, "Any": Any, "Value": Value,
    "Iterable": abc.Iterable, "Mapping": abc.Mapping, "Sequence": abc.Sequence,
}  # fmt: skip


def _fits(tp: Any, value: Any) -> bool:
    """Whether `value` has the annotated type (bool is not an int; str is not a sequence)."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Any:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_fits(a, value) for a in args)
    if tp is None or tp is type(None):
        return value is None
    if tp is bool:
        return type(value) is bool
    if tp is int:
        return type(value) is int
    if tp is float:
        return type(value) in (int, float)
    if tp is str:
        return isinstance(value, str)
    if origin is abc.Mapping:
        return isinstance(value, abc.Mapping) and all(
            _fits(args[0], k) and _fits(args[1], v) for k, v in value.items()
        )
    if origin in (abc.Sequence, abc.Iterable):
        if isinstance(value, str | bytes | bytearray | abc.Mapping):
            return False
        if not isinstance(value, abc.Sequence if origin is abc.Sequence else abc.Iterable):
            return False
        items = list(value) if isinstance(value, abc.Sequence | range) else []
        return all(_fits(args[0], v) for v in items)
    if isinstance(tp, type):
        return isinstance(value, tp)
    raise AssertionError(f"no rule for {tp!r}")


def _public_functions() -> list[str]:
    return [
        n
        for n in ffn_calc.__all__
        if inspect.isfunction(getattr(ffn_calc, n)) and n != "preset_names"
    ]


def _cases() -> list[tuple[str, str, int]]:
    out = []
    for name in _public_functions():
        sig = inspect.signature(getattr(ffn_calc, name))
        for p in sig.parameters.values():
            if p.kind is p.VAR_KEYWORD:
                continue
            out += [(name, p.name, i) for i in range(len(WRONG))]
    return out


def _base_call(name: str) -> dict[str, Any]:
    sig = inspect.signature(getattr(ffn_calc, name))
    kwargs: dict[str, Any] = {}
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            continue
        if p.default is p.empty:
            assert p.name in REQUIRED, f"give test_api_types.REQUIRED a value for {p.name}"
            kwargs[p.name] = REQUIRED[p.name]
    if name == "load":
        kwargs["preset"] = "gpt2-small"
    return kwargs


def test_every_public_function_is_covered_and_its_base_call_works() -> None:
    assert {"load", "sweep", "flops", "memory", "compare"} <= set(_public_functions())
    for name in _public_functions():
        result = getattr(ffn_calc, name)(**_base_call(name))
        assert result is not None


@pytest.mark.parametrize(("function", "parameter"), sorted({(f, p) for f, p, _ in _cases()}))
def test_wrong_types_raise_an_ffn_calc_error(function: str, parameter: str) -> None:
    fn = getattr(ffn_calc, function)
    annotation = eval(  # the annotations are strings (from __future__ import annotations)
        inspect.signature(fn).parameters[parameter].annotation, NAMESPACE
    )
    for value in WRONG:
        kwargs = {**_base_call(function), parameter: value}
        if function == "load" and parameter != "preset":
            kwargs.pop("preset")  # one source at a time
        fits = _fits(annotation, value)
        try:
            result = fn(**kwargs)
            if isinstance(result, ffn_calc.Sweep):
                list(itertools.islice(result, 3))
        except ffn_calc.FfnCalcError as exc:
            assert str(exc).strip(), (function, parameter, value)
            continue
        except Exception as exc:
            pytest.fail(f"{function}({parameter}={value!r:.60}) raised {type(exc).__name__}: {exc}")
        assert fits, f"{function}({parameter}={value!r:.60}) was accepted"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ffn_calc.load(preset=123), "preset must be a string; got 123"),
        (lambda: ffn_calc.load(config={"d_model": 1}), "config must be a file path"),
        (lambda: ffn_calc.sweep(MODEL, None), "vary maps each field to its values"),
        (lambda: ffn_calc.flops(MODEL, 16, causal="no"), "causal must be True or False; got 'no'"),
        (lambda: ffn_calc.crossover(MODEL, grid=1), "grid must be True or False; got 1"),
        (lambda: ffn_calc.compare(MODEL), "models must be a list of models"),
        (lambda: ffn_calc.sweep(MODEL, {"d_ff": b"1,2"}), "give the values as a list"),
        (lambda: ffn_calc.sweep(MODEL, {"d_ff": "1,2"}, metrics=None), "metrics must be a list"),
        (lambda: ffn_calc.memory(MODEL, gpu_memory=10**5000), "a number of about 5,001 digits"),
    ],
)
def test_the_messages_name_the_argument_and_what_it_takes(call: Any, message: str) -> None:
    with pytest.raises(ffn_calc.UsageError) as e:
        call()
    assert message in str(e.value)


def test_an_endless_generator_axis_is_refused_not_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    from ffn_calc.sweeps import run as sweeps

    def endless() -> Iterator[int]:
        """1, 2, 3, ... for ever; past 100,000 values it stops the test instead of hanging it."""
        for i in itertools.count(1):
            if i > 100_000:
                raise AssertionError("the sweep read an endless iterator past its limit")
            yield i

    monkeypatch.setattr(sweeps, "MAX_COMBINATIONS", 1000)  # the same rule, in less memory
    with pytest.raises(ffn_calc.UsageError, match="more than 1,000 values"):
        ffn_calc.sweep(MODEL, {"d_ff": endless()})
    # Beside a sized axis of 100 values, an iterator may give at most 10 of its own.
    with pytest.raises(ffn_calc.UsageError, match="more than 10 values"):
        ffn_calc.sweep(MODEL, {"d_ff": endless(), "n_layers": range(1, 101)})
    # A finite generator within the limit is an axis like a list.
    s = ffn_calc.sweep(MODEL, {"d_ff": (d for d in (3072, 4096))})
    assert [r["d_ff"] for r in s] == [3072, 4096]


def test_load_fields_of_the_wrong_type_are_config_errors() -> None:
    """load(**fields): every ModelConfig field, given a value of some other type, is refused
    with a ConfigError (ModelConfig is strict: "12" is no integer, 0 no boolean)."""
    for field, info in ModelConfig.model_fields.items():
        for value in (object(), 1.5, [1], {"a": 1}, b"x", 10**400, float("inf")):
            try:
                ffn_calc.load(preset="gpt2-small", **{field: value})
            except ffn_calc.ConfigError as exc:
                assert field in str(exc)
                continue
            except Exception as exc:
                pytest.fail(f"load({field}={value!r:.40}) raised {type(exc).__name__}: {exc}")
            pytest.fail(f"load({field}={value!r:.40}) was accepted ({info.annotation})")
