"""One registry: a report names the view that draws it (`Result.view`), and every view is named.

The CLI and the notebook display both look tables up through `views.registry`, so a report
whose `view` is wrong fails here, not in front of a user; a table builder that no report names
is dead code.
"""

import inspect
from importlib import import_module
from pathlib import Path

import pytest

from ffn_calc.reports.base import Result
from ffn_calc.views.registry import builder

PACKAGE = Path(__file__).parent.parent / "ffn_calc"


def _modules(folder: str) -> list[str]:
    return [
        f"ffn_calc.{folder}.{p.stem}"
        for p in sorted((PACKAGE / folder).glob("*.py"))
        if not p.name.startswith("__")
    ]


def _reports() -> list[type]:
    """Every class that names a view: the result models, and ModelConfig (`show`)."""
    found: dict[str, type] = {}
    for name in [
        *_modules("reports"),
        *_modules("sweeps"),
        *_modules("homework"),
        "ffn_calc.model.config",
    ]:
        for obj in vars(import_module(name)).values():
            if inspect.isclass(obj) and isinstance(obj.__dict__.get("view"), str):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return list(found.values())


@pytest.mark.parametrize("report", _reports(), ids=lambda c: c.__name__)
def test_every_view_a_report_names_exists(report: type) -> None:
    where = report.__dict__["view"]
    module, _, name = where.partition(":")
    assert module.startswith("ffn_calc.views."), where
    build = getattr(import_module(module), name, None)
    assert callable(build), f"{report.__name__}.view = {where!r}: no such function"
    params = list(inspect.signature(build).parameters)
    assert params[0] != "explain" and params[1:] in ([], ["explain"]), (where, params)


def test_every_table_builder_is_named_by_a_report() -> None:
    named = {c.__dict__["view"] for c in _reports()}
    builders = {
        f"{m}:{n}"
        for m in _modules("views")
        for n, f in vars(import_module(m)).items()
        if n.endswith("_tables") and inspect.isfunction(f) and f.__module__ == m
    }
    assert builders - named == set(), "table builders no report names"


def test_the_lookup_finds_the_builder_of_the_report_class() -> None:
    from ffn_calc.reports.sizing import swiglu_report

    report = swiglu_report(4096, 256, None)
    assert builder(report) is import_module("ffn_calc.views.sizing").swiglu_tables
    assert builder(object()) is None
    assert isinstance(report, Result)
