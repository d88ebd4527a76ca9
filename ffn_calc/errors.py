"""Errors that reach the user: each message is a sentence a user can act on.

The core raises these; the CLI turns them into a message on stderr and an exit code.
"""

from __future__ import annotations


class FfnCalcError(Exception):
    """Bad input or usage (exit code 2)."""

    exit_code = 2


class ConfigError(FfnCalcError):
    """A model config (preset, file, flags or Hugging Face config.json) is invalid."""


class FileError(FfnCalcError):
    """A file is missing, unreadable, empty, binary or malformed."""


class UsageError(FfnCalcError):
    """Options that contradict each other or do not apply to the model."""
