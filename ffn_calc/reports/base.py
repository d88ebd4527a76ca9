"""The base of every result model that `--format json` dumps."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from pydantic import BaseModel, ConfigDict


class Result(BaseModel):
    """A JSON result. Validation schemas are built on first use, not at import: a command
    pays only for the result models it returns."""

    model_config = ConfigDict(defer_build=True)

    # How a notebook shows a result: set by ffn_calc.api (the tables live above this layer).
    display_markdown: ClassVar[Callable[[Result], str | None] | None] = None

    def _repr_markdown_(self) -> str | None:
        """In Jupyter, the command's tables (IPython calls this for display)."""
        show = type(self).display_markdown
        return show(self) if show is not None else None
