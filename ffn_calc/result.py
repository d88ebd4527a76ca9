"""The base of every result model that `--format json` dumps."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Result(BaseModel):
    """A JSON result. Validation schemas are built on first use, not at import: a command
    pays only for the result models it returns."""

    model_config = ConfigDict(defer_build=True)
