"""The package's own words: its docstring's examples run, and no text names a module that
is gone."""

from __future__ import annotations

import doctest
import io
import re
import tokenize
from pathlib import Path

import ffn_calc
from ffn_calc import flop_counts, param_counts

ROOT = Path(__file__).resolve().parent.parent


def test_package_docstring_examples_run() -> None:
    """Every `>>>` example in ffn_calc's docstring runs and prints what it says (124439808:
    GPT2LMHeadModel's parameters, the head tied; the FLOPs: ffn_calc's `flops` of gpt2-small
    at S = 1024, as tests/test_flops.py)."""
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(ffn_calc, "ffn_calc", globs={})
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 3
    assert result.failed == 0


# Modules renamed: params.py -> param_counts.py, flops.py -> flop_counts.py. A mention is the
# file name, or the old module's name before one of the new module's own names
# (`params.LayerCount`, `flops.layer_flops`), not an attribute such as `report.flops.items`.
_OWN = {
    old: sorted(n for n in vars(module) if not n.startswith("_"))
    for old, module in (("params", param_counts), ("flops", flop_counts))
}
GONE = re.compile(
    r"\b(?:params|flops)\.py\b|"
    + "|".join(
        rf"(?<![\w.])(?:ffn_calc\.)?{old}\.(?:{'|'.join(names)})\b" for old, names in _OWN.items()
    )
)


def _prose(path: Path) -> list[tuple[int, str]]:
    """The lines a reader reads as words: a Python file's comments and strings, a Markdown
    file outside its code blocks."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        out, code = [], False
        for n, line in enumerate(text.splitlines(), 1):
            code ^= line.lstrip().startswith("```")
            if not code:
                out.append((n, line))
        return out
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return [
        (t.start[0], t.string)
        for t in tokens
        if t.type == tokenize.COMMENT
        or (
            t.type == tokenize.STRING and not re.match("[rRbBuU]*[fF]", t.string)
        )  # f-strings hold code
    ]


def test_no_text_names_a_module_that_is_gone() -> None:
    """Comments, docstrings, messages and docs name param_counts.py / flop_counts.py, not the
    old params.py / flops.py."""
    texts = [
        p
        for pattern in ("ffn_calc/**/*.py", "tests/*.py", "docs/**/*.md", "*.md", "benchmarks/*.py")
        for p in ROOT.glob(pattern)
        if p.name != Path(__file__).name
    ]
    stale = [
        f"{p.relative_to(ROOT)}:{n}" for p in texts for n, text in _prose(p) if GONE.search(text)
    ]
    assert stale == []


def test_family_modules_export_what_the_families_docstring_says() -> None:
    """ffn_calc.families' docstring lists what a family module exports: every registered
    module has ARCHITECTURE, fields(r) and naming(cfg); one without a config.json has no
    fields. The docstring names exactly these."""
    from ffn_calc import families

    doc = families.__doc__ or ""
    for name in ("`ARCHITECTURE`", "`fields(r)`", "`naming(cfg)`"):
        assert f"- {name}:" in doc
    assert "- `NAMING`:" not in doc
    for family in families.family_names():
        module = families.family_module(family)
        if module is None:  # "custom": no module
            continue
        assert isinstance(module.ARCHITECTURE, str), family
        assert callable(module.naming), family
        assert callable(getattr(module, "fields", None)) == (family in families.REGISTRY), family
