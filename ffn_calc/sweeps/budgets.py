"""`ffn-calc check BUDGETS.toml`: models and the requirements each must meet, all checked in one
process (the report, its builder and the reading of the file).

A budgets file is TOML, one `[[budget]]` table per model:

    [[budget]]
    name = "draft 7B"               # optional (default: the model's name)
    config = "models/draft.toml"    # or preset = "llama-3-8b", or hf_config = "ckpt/config.json"
    seq_len = 4096                  # optional: forward_flops, training_flops without @N
    context = 32768                 # optional: kv_elements, kv_bytes, decode_flops without @N
    batch = 1                       # optional (default 1)
    dtype = "bf16"                  # optional: weights_bytes, kv_bytes (default bf16)
    require = ["total_params <= 7.2e9", "kv_bytes <= 4GiB", "ffn_share >= 60%"]

Paths are relative to the budgets file. Requirements are read and counted as `--require` reads
and counts them (ffn_calc.sweeps.require). Anything wrong with the file (TOML, a key, a value,
a model, a requirement) is a FileError naming the file and the line: exit 2.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any, ClassVar

from ffn_calc.errors import FfnCalcError, FileError
from ffn_calc.files import parse_toml, printable, read_text_file, shown
from ffn_calc.i18n.translate import N_, _
from ffn_calc.limits import MAX_SIZE
from ffn_calc.model.choices import DTYPE_BITS
from ffn_calc.quantities import cut
from ffn_calc.reports.base import Result
from ffn_calc.sweeps.require import RequirementResult, Setting, evaluate, parse_requirements

BUDGETS_FILE = N_("budgets file")
# Where a budget gives the length of a metric written without @N.
BUDGET_LENGTHS = {"S": "seq_len = S", "L": "context = L"}
SOURCES = ("preset", "config", "hf_config")
LENGTHS = ("seq_len", "context", "batch")
KEYS = ("name", *SOURCES, *LENGTHS, "dtype", "require")
MAX_BUDGETS = 10_000  # far more than any repository keeps; bounds the work of one file
MAX_REQUIREMENTS = 1_000  # per budget


class BudgetResult(Result):
    """One budget: its model, the setting its requirements are counted at, each result."""

    name: str
    model: str
    source: str  # "preset llama-3-8b", "config models/draft.toml", as written in the file
    line: int | None  # the line of its [[budget]] header
    seq_len: int | None
    context: int | None
    batch: int
    dtype: str
    ok: bool
    requirements: list[RequirementResult]


class CheckReport(Result):
    """`ffn-calc check`: every budget of a file; `ok` when every requirement holds."""

    view: ClassVar[str] = "ffn_calc.views.check:check_tables"

    file: str
    ok: bool
    requirements: int  # how many were checked, over every budget
    failed: int
    budgets: list[BudgetResult]


_HEADER = re.compile(r"^\s*\[\[\s*budget\s*\]\]")


class _Lines:
    """Where a budget and its keys are in the file's text (TOML parsers give no positions):
    budget i spans from its i-th `[[budget]]` header to the next."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.headers = [n for n, line in enumerate(self.lines) if _HEADER.match(line)]

    def _span(self, i: int) -> range:
        if i >= len(self.headers):
            return range(0)
        end = self.headers[i + 1] if i + 1 < len(self.headers) else len(self.lines)
        return range(self.headers[i], end)

    def header(self, i: int) -> int | None:
        return self.headers[i] + 1 if i < len(self.headers) else None

    def key(self, i: int, key: str) -> int | None:
        pattern = re.compile(rf"^\s*\"?{re.escape(key)}\"?\s*=")
        for n in self._span(i):
            if pattern.match(self.lines[n]):
                return n + 1
        return self.header(i)

    def text(self, i: int, needle: str, after: int | None) -> int | None:
        """The line of a requirement's text in budget i (its string, at or after `after`)."""
        for n in self._span(i):
            if (after is None or n + 1 >= after) and needle in self.lines[n]:
                return n + 1
        return after


class _Where:
    """A message's place: the file and line, and the budget it is in."""

    def __init__(self, path: Path, lines: _Lines) -> None:
        self.path, self.lines = path, lines

    def error(self, line: int | None, message: str, budget: str | None = None) -> FileError:
        origin = f"'{self.path}'"
        where = _("{origin}, line {line}").format(origin=origin, line=line) if line else origin
        if budget is not None:
            where = _("{where}, budget {budget}").format(where=where, budget=budget)
        return FileError(_("{where}: {message}").format(where=where, message=message))


def _integer(value: object, key: str, most: int = MAX_SIZE) -> str | None:
    """Why `value` is not a length or batch (None: it is one)."""
    if type(value) is not int or not 1 <= value <= most:
        return _("{key} is an integer from 1 to {max}, not {value}.").format(
            key=key, max=f"{most:,}", value=shown(value)
        )
    return None


def _setting(b: dict[str, Any], line: Any) -> Setting:
    """The budget's seq_len, context, batch and dtype (FileError at the key's line)."""
    for key in LENGTHS:
        if key in b:
            reason = _integer(b[key], key)
            if reason:
                raise line(key, reason)
    dtype = b.get("dtype", "bf16")
    if not isinstance(dtype, str) or dtype not in DTYPE_BITS:
        raise line(
            "dtype",
            _("dtype is one of {choices}, not {value}.").format(
                choices=", ".join(DTYPE_BITS), value=shown(dtype)
            ),
        )
    return Setting(b.get("seq_len"), b.get("context"), b.get("batch", 1), dtype)


def _model(b: dict[str, Any], base: Path, line: Any) -> tuple[Any, str]:
    """The budget's model and its source as written (FileError at the source's line)."""
    from ffn_calc.families.resolve import resolve_model

    given = [k for k in SOURCES if k in b]
    if len(given) != 1:
        first = given[1] if given else None
        raise line(
            first,
            _("name one model: `preset`, `config` or `hf_config` (found {found}).").format(
                found=", ".join(given) or _("none")
            ),
        )
    key = given[0]
    value = b[key]
    if not isinstance(value, str) or not value.strip():
        raise line(
            key,
            _("{key} is a name or a path in a string, not {value}.").format(
                key=key, value=shown(value)
            ),
        )
    try:
        if key == "preset":
            model = resolve_model(preset=value)
        else:
            path = base / value  # relative to the budgets file (an absolute path stays)
            if key == "config":
                model = resolve_model(config=path)
            else:
                model = resolve_model(hf_config=_hf_source(path, value))
    except FfnCalcError as exc:
        raise line(key, str(exc)) from None
    return model, f"{key} {value}"


def _hf_source(path: Path, value: str) -> Path | str:
    """`hf_config`: the file or directory relative to the budgets file when one is there,
    else a value shaped like ORG/NAME[@REVISION] as a repo id in the Hugging Face cache (a
    str), never a path relative to the working directory."""
    import os

    try:
        if os.path.lexists(path):
            return path
    except (OSError, ValueError):
        return path
    from ffn_calc.families.hub import parse_repo_id

    return value if parse_repo_id(value) is not None else path


def _budget(i: int, b: object, base: Path, where: _Where) -> BudgetResult:
    lines = where.lines
    label = str(i + 1)

    def at(key: str | None, message: str) -> FileError:
        return where.error(lines.key(i, key) if key else lines.header(i), message, label)

    if not isinstance(b, dict):
        raise where.error(
            lines.header(i),
            _("a budget is a [[budget]] table, not {value}.").format(value=shown(b)),
            label,
        )
    name = b.get("name")
    if name is not None:
        if not isinstance(name, str) or not name.strip():
            raise at("name", _("name is a string, not {value}.").format(value=shown(name)))
        label = f"{i + 1} ({printable(cut(name))})"
    for key in b:
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = _(" Did you mean {name}?").format(name=close[0]) if close else ""
            raise at(
                key,
                _("unknown key {key}. Keys: {keys}.").format(
                    key=repr(key[:60]), keys=", ".join(KEYS)
                )
                + hint,
            )
    require = b.get("require")
    if not isinstance(require, list) or not require or not all(isinstance(r, str) for r in require):
        raise at(
            "require" if "require" in b else None,
            _(
                'require is a list of requirements, METRIC OP NUMBER in strings: require = ["total_params <= 7e9"].'
            ),
        )
    if len(require) > MAX_REQUIREMENTS:
        raise at(
            "require",
            _("more than {max} requirements in one budget.").format(max=f"{MAX_REQUIREMENTS:,}"),
        )
    setting = _setting(b, at)
    model, source = _model(b, base, at)
    results: list[RequirementResult] = []
    after = lines.key(i, "require")
    for text in require:
        line = lines.text(i, text.strip(), after)
        try:
            filters = parse_requirements([text], setting, "require", BUDGET_LENGTHS)
            results += evaluate(model, filters, setting)
        except FfnCalcError as exc:
            raise where.error(line, str(exc), label) from None
        after = line
    return BudgetResult(
        name=name or model.name,
        model=model.name,
        source=source,
        line=lines.header(i),
        seq_len=setting.seq_len,
        context=setting.context,
        batch=setting.batch,
        dtype=setting.dtype,
        ok=all(r.holds for r in results),
        requirements=results,
    )


def check(path: Path) -> CheckReport:
    """Read a budgets file and check every budget in it (FileError, exit 2, on a bad file)."""
    text = read_text_file(path, BUDGETS_FILE)
    data = parse_toml(text, f"'{path}'")
    where = _Where(path, _Lines(text))
    extra = [k for k in data if k != "budget"]
    if extra:
        from ffn_calc.files import line_of

        raise where.error(
            line_of(text, extra[0]) or _table_line(text, extra[0]),
            _("unknown key {key}: a budgets file holds [[budget]] tables.").format(
                key=repr(extra[0][:60])
            ),
        )
    budgets = data.get("budget")
    if not isinstance(budgets, list) or not budgets:
        raise where.error(
            None,
            _("no budgets: write a [[budget]] table with a model and require = [...]."),
        )
    if len(budgets) > MAX_BUDGETS:
        raise where.error(None, _("more than {max} budgets.").format(max=f"{MAX_BUDGETS:,}"))
    base = path.parent
    results = [_budget(i, b, base, where) for i, b in enumerate(budgets)]
    total = sum(len(b.requirements) for b in results)
    failed = sum(not r.holds for b in results for r in b.requirements)
    return CheckReport(
        file=str(path), ok=failed == 0, requirements=total, failed=failed, budgets=results
    )


def _table_line(text: str, key: str) -> int | None:
    """The line of a `[key]` table header."""
    pattern = re.compile(rf"^\s*\[+\s*{re.escape(key)}\s*[\].]")
    for n, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return n
    return None
