"""The package's own words: its docstring's examples run, and no text names a module that
is gone."""

from __future__ import annotations

import doctest
import importlib
import io
import re
import tokenize
from pathlib import Path

import ffn_calc

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


# A module named in prose must exist: a file name (`api.py`, `ffn_calc/counts/params.py`) is
# the name of a file of the project, and a dotted name (`ffn_calc.counts.flops.score_terms`)
# imports, up to its last attribute. Modules move as the package grows; mentions must follow.
_FILE = re.compile(r"(?<![\w.-])((?:[\w.]+/)*[A-Za-z_]\w*\.py)\b")
_DOTTED = re.compile(r"\bffn_calc(?:\.[A-Za-z_]\w*)+(?<!\.po)(?<!\.mo)\b")
# Files of other projects that the prose cites (Meta's Llama code; the floor app the start-up
# benchmark writes; DeepSpeed's ZeRO estimators).
_ELSEWHERE = {
    "llama/model.py",
    "floor.py",
    "deepspeed/runtime/zero/stage_1_and_2.py",
    "deepspeed/runtime/zero/stage3.py",
}


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        try:
            obj: object = importlib.import_module(name)
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


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
    """Comments, docstrings, messages and docs name modules that exist, by file or dotted name."""
    texts = [
        p
        for pattern in ("ffn_calc/**/*.py", "tests/*.py", "docs/**/*.md", "*.md", "benchmarks/*.py")
        for p in ROOT.glob(pattern)
    ]
    files = {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.py")}
    names = {Path(f).name for f in files}
    stale = []
    for p in texts:
        for n, text in _prose(p):
            for f in _FILE.findall(text):
                if f in _ELSEWHERE:
                    continue
                if (
                    "/" in f and f not in files and not any(x.endswith("/" + f) for x in files)
                ) or ("/" not in f and f not in names):
                    stale.append(f"{p.relative_to(ROOT)}:{n}: {f}")
            for d in _DOTTED.findall(text):
                if not _resolves(d.rstrip(".")):
                    stale.append(f"{p.relative_to(ROOT)}:{n}: {d}")
    assert stale == []


def test_family_modules_export_what_the_families_docstring_says() -> None:
    """ffn_calc.families' docstring lists what a family module exports: every registered
    module has ARCHITECTURE, fields(r) and naming(cfg); one without a config.json has no
    fields. The docstring names exactly these."""
    from ffn_calc import families
    from ffn_calc.model.families import REGISTRY, family_names

    doc = families.__doc__ or ""
    for name in ("`ARCHITECTURE`", "`fields(r)`", "`naming(cfg)`"):
        assert f"- {name}:" in doc
    assert "- `NAMING`:" not in doc
    for family in family_names():
        module = families.family_module(family)
        if module is None:  # "custom": no module
            continue
        assert isinstance(module.ARCHITECTURE, str), family
        assert callable(module.naming), family
        assert callable(getattr(module, "fields", None)) == (family in REGISTRY), family
