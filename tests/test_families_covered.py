"""Every registered family is tested: differential cases and a golden figure (no torch needed).

A family module plus its row in ffn_calc.model.families.REGISTRY would otherwise pass every test
with no test data of its own. For each family that ffn-calc can name (REGISTRY and the
families with tensor names, OTHER_FAMILIES), this asserts:

- differential (oracle) cases: a row in tests/oracle_cases.py ORACLE (the transformers
  classes, the module whose `configs` draws random tiny configs and whose `check_case` checks
  one) and at least one explicit case in EXPLICIT naming the family;
- a golden case: an exact parameter count of an instantiated model in tests/data
  (coverage.json by model_type, or reference_cases.json by preset name), with how it was
  obtained (`params_method`).

Each failure names the family and what to add. The oracle cases themselves run only with
the `oracle` extra (tests/test_oracle_cases.py); this file reads them as data.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import CASES, DATA
from oracle_cases import EXPLICIT, ORACLE, family_of

from ffn_calc.families.resolve import resolve_model
from ffn_calc.model.families import OTHER_FAMILIES, REGISTRY
from ffn_calc.model.sources import preset_names

TESTS = Path(__file__).parent

# Every family with a module: the families a config can name ("custom" has no reference model).
FAMILIES = sorted([*REGISTRY, *(f for f, module in OTHER_FAMILIES.items() if module)])
COVERAGE: list[dict[str, Any]] = json.loads((DATA / "coverage.json").read_text())["cases"]
FRONTIER: list[dict[str, Any]] = json.loads((DATA / "frontier.json").read_text())["cases"]


def golden_families() -> dict[str, list[str]]:
    """Family -> the names of the golden cases in tests/data that give it an exact, sourced
    parameter count."""
    out: dict[str, list[str]] = {}
    presets = set(preset_names())
    for c in [*COVERAGE, *FRONTIER]:
        # A wrapper whose class cannot be built here (Gemma 3n's timm vision tower): its
        # language model's exact count, measured, is its golden figure.
        figure = c.get("total_params", c.get("language_model_params"))
        if isinstance(figure, int) and c.get("params_method"):
            out.setdefault(c["model_type"], []).append(c["name"])
    for c in CASES:
        if (
            c["name"] in presets
            and isinstance(c.get("total_params"), int)
            and c.get("params_method")
        ):
            out.setdefault(resolve_model(preset=c["name"]).family, []).append(c["name"])
    return out


GOLDEN = golden_families()


def defined_functions(module: str) -> set[str]:
    """The top-level functions a test module defines (read, not imported: it needs torch)."""
    tree = ast.parse((TESTS / f"{module}.py").read_text())
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


@pytest.mark.parametrize("family", FAMILIES)
def test_family_has_differential_cases(family: str) -> None:
    assert family in ORACLE, (
        f"family {family!r} has no differential (oracle) cases: add its row to ORACLE in "
        "tests/oracle_cases.py (the transformers configuration and model classes, and the "
        "test module whose configs(family) draws tiny random configs and whose check_case "
        "checks one against the instantiated model)"
    )
    labels = [label for label, data in EXPLICIT.items() if family_of(data) == family]
    assert labels, (
        f"family {family!r} has no explicit differential case: add at least one tiny config "
        f"naming it (model_type {family!r}) to EXPLICIT in tests/oracle_cases.py"
    )
    module = ORACLE[family].module
    assert (TESTS / f"{module}.py").is_file(), f"{family!r}: ORACLE names no file {module}.py"
    missing = {"configs", "check_case"} - defined_functions(module)
    assert not missing, f"{family!r}: tests/{module}.py defines no {', '.join(sorted(missing))}"


@pytest.mark.parametrize("family", FAMILIES)
def test_family_has_a_golden_case(family: str) -> None:
    assert GOLDEN.get(family), (
        f"family {family!r} has no golden case: add to tests/data/coverage.json a real-size "
        f"config.json of the family (model_type {family!r}) with the exact total_params of "
        "the instantiated transformers class and params_method saying how it was obtained "
        "(see tests/data/README.md)"
    )


def test_oracle_rows_name_registered_families() -> None:
    """No stale rows: every family in ORACLE and EXPLICIT is one ffn-calc registers."""
    named = set(ORACLE) | {family_of(data) for data in EXPLICIT.values()}
    assert named <= set(FAMILIES), sorted(named - set(FAMILIES))


def test_tests_readme_lists_every_test_file() -> None:
    """tests/README.md maps modules and questions to test files: every tests/test_*.py is in
    it, and every test file it names exists."""
    readme = (TESTS / "README.md").read_text()
    files = {p.name for p in TESTS.glob("test_*.py")}
    unlisted = sorted(f for f in files if f"`{f}`" not in readme)
    assert not unlisted, f"add to tests/README.md (by module or by question): {unlisted}"
    named = set(re.findall(r"`(test_\w+\.py)`", readme))
    assert named <= files, f"tests/README.md names missing files: {sorted(named - files)}"


def test_tests_readme_maps_every_oracle_module() -> None:
    """Each module named in ORACLE is in the README's table of differential families."""
    readme = (TESTS / "README.md").read_text()
    for family, row in ORACLE.items():
        assert f"`{row.module}.py`" in readme, (family, row.module)


def family_modules() -> set[str]:
    """The modules of ffn_calc/families that are one model_type each."""
    from ffn_calc import families
    from ffn_calc.model.families import family_names

    return {
        m.__name__.rsplit(".", 1)[1]
        for f in family_names()
        if (m := families.family_module(f)) is not None
    }


def test_tests_readme_maps_every_package_module() -> None:
    """Every module of the package is in the README's table by module, by its path in the
    package (`counts/params.py`), so its tests are found from its name. The family modules
    are mapped together, as `families/`."""
    readme = (TESTS / "README.md").read_text()
    package = TESTS.parent / "ffn_calc"
    modules = [
        p
        for p in package.rglob("*.py")
        if not p.name.startswith("__")
        and not (p.parent.name == "families" and p.stem in family_modules())
    ]
    unmapped = sorted(
        p.relative_to(package).as_posix()
        for p in modules
        if f"`{p.relative_to(package).as_posix()}`" not in readme
    )
    assert not unmapped, f"add to tests/README.md's table by module: {unmapped}"
