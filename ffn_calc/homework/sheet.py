"""A worksheet: the catalog's questions (for a variant's sizes), and with `answers` the key.

A worksheet's JSON holds the questions only; the key's holds each answer and worked solution.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import PrivateAttr

from ffn_calc.homework.exercises import Exercise, ExerciseResult, exercise_result
from ffn_calc.reports.base import Result


class SheetQuestion(Result):
    id: str
    question: str  # English, the sizes put in; shown_question() for people
    _result: ExerciseResult | None = PrivateAttr(None)

    def shown_question(self) -> str:
        return self._result.shown_question() if self._result is not None else self.question


class SheetReport(Result):
    view: ClassVar[str] = "ffn_calc.views.sheet:sheet_tables"

    variant: int | None = None
    answers: bool = False
    exercises: list[ExerciseResult] | list[SheetQuestion]


def sheet(catalog: list[Exercise], *, answers: bool, variant: int | None) -> SheetReport:
    results = [exercise_result(e, variant=variant) for e in catalog]
    if answers:
        return SheetReport(variant=variant, answers=True, exercises=results)
    questions = []
    for r in results:
        q = SheetQuestion(id=r.id, question=r.question)
        q._result = r
        questions.append(q)
    return SheetReport(variant=variant, answers=False, exercises=questions)
