"""Shared fixtures: the reference cases, a CLI runner that keeps stdout and stderr apart, an
inventory written out by real tensor name."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from typer.testing import CliRunner

from ffn_calc.cli import app
from ffn_calc.reference.inventory import Inventory, values

# HYPOTHESIS_PROFILE=ci (set by .ci/run): the same examples on every run, so that a merge is
# judged by its code, not by the draw; a developer's run (the default profile) draws afresh.
settings.register_profile("ci", derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

DATA = Path(__file__).parent / "data"

# The tests read English unless they ask for another language (a developer's LANG=ja_JP.UTF-8
# would otherwise change every table).
os.environ["FFN_CALC_LANG"] = "en"

# Exact figures from instantiated models; see tests/data/README.md for how each was obtained.
CASES: list[dict[str, Any]] = json.loads((DATA / "reference_cases.json").read_text())["cases"]
CASES_BY_NAME = {c["name"]: c for c in CASES}


ROOT = Path(__file__).parent.parent
# The documentation: the README first, then every page under docs/, by path from the root.
DOC_PAGES: dict[str, str] = {
    p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
    for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
}
README = DOC_PAGES["README.md"]
# Every page's text together: what "the documentation shows" means in the tests.
DOCS = "\n".join(DOC_PAGES.values())


def readme_block(marker: str) -> str:
    """The ```text block that follows `marker` in the documentation (the README or a docs/ page).

    A marker shown in several places (an example in the README and on its page) must be followed
    by the same block everywhere, so every copy is checked.
    """
    blocks = []
    for text in DOC_PAGES.values():
        at = text.find(marker)
        while at != -1:
            start = text.index("```text\n", at) + len("```text\n")
            blocks.append(text[start : text.index("\n```", start)])
            at = text.find(marker, at + 1)
    assert blocks, f"no page of the documentation shows {marker!r}"
    assert all(b == blocks[0] for b in blocks), f"the copies after {marker!r} differ"
    return blocks[0]


def shown(args: list[str], columns: int) -> str:
    """A command's table output as the README shows it: no colour, no trailing spaces."""
    r = CliRunner().invoke(
        app, args, env={"COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "dumb"}
    )
    return "\n".join(line.rstrip() for line in r.stdout.splitlines()).strip("\n")


class Result:
    def __init__(self, exit_code: int, stdout: str, stderr: str) -> None:
        self.exit_code, self.stdout, self.stderr = exit_code, stdout, stderr

    def json(self) -> Any:
        return json.loads(self.stdout)


def run(*args: str) -> Result:
    """Invoke the CLI in-process; a wide terminal so tables are not wrapped."""
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "200", "NO_COLOR": "1"})
    if r.exception and not isinstance(r.exception, SystemExit):
        raise r.exception
    return Result(r.exit_code, r.stdout, r.stderr)


@pytest.fixture
def cli() -> Any:
    return run


def expand(inv: Inventory, *, tied: bool = True) -> dict[str, tuple[int, ...]]:
    """Every tensor by its real name: the templates written out, one copy per index of each
    span (n, a range or the indices themselves). `tied=False` leaves out the tensors tied to
    another, as `named_parameters()` does."""
    return {
        t.name.format_map({key: i for (key, _), i in zip(t.ranges, index, strict=True)}): t.shape
        for t in inv.tensors
        if tied or t.tied_to is None
        for index in product(*(values(span) for _, span in t.ranges))
    }


@pytest.fixture(autouse=True)
def _language_restored() -> Iterator[None]:
    """A test that switches the process's language (an in-process `--lang ja`, set_language)
    must not leave the next test reading Japanese: each test starts in the language the one
    before it started in."""
    from ffn_calc.i18n import translate

    before = translate.language()
    yield
    translate.set_language(before)
