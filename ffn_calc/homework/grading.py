"""Grading a class: a CSV of answers (`student,exercise,answer[,variant]`), a verdict per row
and a score per student, in one process.

Each row is judged as `exercise check` judges it, against the numbers of the row's variant when
it names one: `right`, `wrong` (with the reason when the value alone does not say it: too few
figures, a unit that does not fit, a known textbook slip) or `unreadable` (with what could not
be read). A file that is not such a CSV (missing columns, an unknown exercise, a bad variant)
is refused naming its line: grading half a class silently would be worse.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import PrivateAttr

from ffn_calc.errors import FfnCalcError, FileError
from ffn_calc.files import read_text_file
from ffn_calc.homework.catalog import find
from ffn_calc.homework.exercises import Exercise, answer, judge
from ffn_calc.homework.variants import check_seed, vary
from ffn_calc.i18n.translate import N_, Text, _, language, say, use
from ffn_calc.reports.base import Result

COLUMNS = ("student", "exercise", "answer")
OPTIONAL = ("variant",)
MAX_ROWS = 100_000

Verdict = Literal["right", "wrong", "unreadable"]


class GradeRow(Result):
    line: int
    student: str
    exercise: str
    answer: str
    variant: int | None = None
    verdict: Verdict
    reason: str | None = None  # English; shown_reason() for people
    _why: Text | str | None = PrivateAttr(None)

    def shown_reason(self) -> str | None:
        """Why, in the current language (a message read when the answer could not be: kept
        in the language it was graded in, and the English one for CSV)."""
        why = self._why
        if isinstance(why, Text):
            return why.shown()
        return self.reason if why is None or language() == "en" else why


class StudentScore(Result):
    student: str
    right: int
    total: int


class GradeReport(Result):
    view: ClassVar[str] = "ffn_calc.views.grading:grade_tables"

    rows: list[GradeRow]
    students: list[StudentScore]


def _bad(origin: str, line: int, problem: str) -> FileError:
    return FileError(
        _("{origin}, line {line}: {problem}").format(origin=origin, line=line, problem=problem)
    )


def _records(text: str, origin: str) -> list[tuple[int, dict[str, str]]]:
    """The rows with their line numbers, the header checked."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip().lower() for h in next(reader)]
    except (StopIteration, csv.Error):
        raise FileError(_("{origin}: no header row.").format(origin=origin)) from None
    missing = [c for c in COLUMNS if c not in header]
    unknown = [h for h in header if h not in COLUMNS + OPTIONAL]
    if missing or unknown or len(set(header)) != len(header):
        raise _bad(
            origin, 1,
            _("the header must name the columns `student`, `exercise`, `answer` and "
              "optionally `variant`, each once (it is: {header}).").format(header=", ".join(header)),
        )  # fmt: skip
    out = []
    try:
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue  # a blank line
            if len(row) != len(header):
                raise _bad(
                    origin, line,
                    _("{n} cells; the header has {m}.").format(n=len(row), m=len(header)),
                )  # fmt: skip
            out.append((line, dict(zip(header, row, strict=True))))
            if len(out) > MAX_ROWS:
                raise _bad(origin, line, _("more than {max} answers.").format(max=f"{MAX_ROWS:,}"))
    except csv.Error as exc:
        raise _bad(origin, reader.line_num, str(exc)) from None
    if not out:
        raise FileError(_("{origin}: no answers after the header.").format(origin=origin))
    return out


def _variant(cell: str, origin: str, line: int) -> int | None:
    cell = cell.strip()
    if not cell:
        return None
    try:
        return check_seed(int(cell))
    except (ValueError, FfnCalcError):
        raise _bad(
            origin, line,
            _("variant '{value}' is not a whole number from 0 to 2^63 - 1.").format(
                value=cell[:100]
            ),
        ) from None  # fmt: skip


def _english(e: Exercise, given: str) -> str:
    """Why an answer cannot be read, in English (for JSON and CSV)."""
    with use("en"):
        try:
            judge(e, answer(e), given)
        except FfnCalcError as exc:
            return str(exc)
    return ""


def grade_text(text: str, origin: str, catalog: list[Exercise]) -> GradeReport:
    rows: list[GradeRow] = []
    scores: dict[str, list[int]] = {}
    for line, rec in _records(text, origin):
        student, exercise_id, given = rec["student"].strip(), rec["exercise"].strip(), rec["answer"]
        if not student:
            raise _bad(origin, line, _("the student is empty."))
        variant = _variant(rec.get("variant", ""), origin, line)
        try:
            e = find(catalog, exercise_id)
        except FfnCalcError as exc:
            raise _bad(origin, line, str(exc)) from None
        if variant is not None:
            e = vary(e, variant)
        why: Text | str | None
        verdict: Verdict
        if not given.strip():
            verdict, why = "unreadable", say(N_("no answer"))
        else:
            try:
                correct, why = judge(e, answer(e), given)
                verdict = "right" if correct else "wrong"
            except FfnCalcError as exc:
                verdict, why = "unreadable", str(exc)
        english = why if not isinstance(why, str) else _english(e, given)
        r = GradeRow(
            line=line, student=student, exercise=e.id, answer=given, variant=variant,
            verdict=verdict, reason=None if english is None else str(english),
        )  # fmt: skip
        r._why = why
        rows.append(r)
        score = scores.setdefault(student, [0, 0])
        score[0] += verdict == "right"
        score[1] += 1
    students = [StudentScore(student=s, right=r, total=t) for s, (r, t) in scores.items()]
    return GradeReport(rows=rows, students=students)


def grade_file(path: Path, catalog: list[Exercise]) -> GradeReport:
    text = read_text_file(path, N_("answers file"))
    return grade_text(text, f"'{path}'", catalog)
