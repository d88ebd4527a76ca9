"""Which tables show a report: the one lookup every command and notebook goes through.

A report names its table builder in its `view` class attribute ("module:function" in this
package); the builder is imported only when a text format is drawn, so JSON output never
loads the views. Adding a question: a report with its `view`, and the view it names.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from ffn_calc.views.table import Table


def builder(report: object) -> Callable[..., list[Table]] | None:
    """The function that draws `report`, from the `view` its class names (None: no tables)."""
    where = getattr(type(report), "view", None)
    if not isinstance(where, str):
        return None
    module, name = where.split(":")
    build: Callable[..., list[Table]] = getattr(import_module(module), name)
    return build


def tables_for(report: Any, explain: bool = False) -> list[Table] | None:
    """The tables a command draws for `report` (with --explain, each term's formula too)."""
    build = builder(report)
    if build is None:
        return None
    return build(report, explain=True) if explain else build(report)
