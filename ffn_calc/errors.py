"""Errors that reach the user: each message is a sentence a user can act on.

The core raises these; the CLI turns them into a message on stderr and an exit code.
"""

from __future__ import annotations

from typing import Protocol


class Message(Protocol):
    """A message kept with its fields (ffn_calc.i18n.translate.Text): str() is its English,
    shown() the reader's language."""

    def shown(self) -> str: ...


class FfnCalcError(Exception):
    """Bad input or usage (exit code 2). Raised with a message (a str, in the reader's
    language), or with a Text: then str() is the message shown in the reader's language and
    `text` keeps it, whose str() is the English (a sweep counts skipped combinations by it)."""

    exit_code = 2
    text: Message | None = None

    def __init__(self, *args: object) -> None:
        shown = getattr(args[0], "shown", None) if len(args) == 1 else None
        if shown is not None:  # a Text (errors.py imports no module: i18n raises errors)
            self.text = args[0]  # type: ignore[assignment]
            args = (shown(),)
        super().__init__(*args)


class ConfigError(FfnCalcError):
    """A model config (preset, file, flags or Hugging Face config.json) is invalid."""


class FileError(FfnCalcError):
    """A file is missing, unreadable, empty, binary or malformed."""


class UsageError(FfnCalcError):
    """Options that contradict each other or do not apply to the model."""
