"""The command line: the only package that imports Typer.

`app` has every command (for help and tests); `main`, the console script, builds only the
command being run, since Typer inspects every parameter of every registered command at start.
"""

import os
import sys

from ffn_calc.cli import commands as _commands  # noqa: F401  (registers the commands)
from ffn_calc.cli.app import COMMANDS, build_app

app = build_app()


def main() -> None:
    """Console-script entry point: builds only the command asked for, when it is one."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")  # no entry-point scan at start
    name = sys.argv[1] if len(sys.argv) > 1 else None
    build_app(name if name in COMMANDS or name == "exercise" else None)()
