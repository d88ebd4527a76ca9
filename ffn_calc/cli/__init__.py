"""The command line: the only package that imports Typer.

`app` has every command (for help and tests); `main`, the console script, builds only the
command being run, since Typer inspects every parameter of every registered command at start.
"""

import errno
import os
import sys

from ffn_calc.cli import commands as _commands  # noqa: F401  (registers the commands)
from ffn_calc.cli import exercise as _exercise  # noqa: F401  (registers the exercise group)
from ffn_calc.cli import roofline as _roofline  # noqa: F401
from ffn_calc.cli import sweep as _sweep  # noqa: F401

# isort: off
from ffn_calc.cli import check as _check  # noqa: F401  (after the others: its place in --help)

# isort: on
from ffn_calc.cli.app import (
    COMMANDS,
    EXIT_OUTPUT_ERROR,
    GROUPS,
    build_app,
    drop_stdout,
    quiet_stderr,
    say,
)

WRITE_ERRORS = {errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT}

app = build_app()


def main() -> None:
    """Console-script entry point: builds only the command asked for, when it is one."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")  # no entry-point scan at start
    quiet_stderr()  # a message that cannot be written never changes the exit code
    if sys.stdout is None:  # started with stdout closed (`>&-`): nowhere to write results
        from ffn_calc.i18n.translate import _

        say(_("Error: cannot write the output: standard output is closed."))
        sys.exit(EXIT_OUTPUT_ERROR)
    name = sys.argv[1] if len(sys.argv) > 1 else None
    completing = "_FFN_CALC_COMPLETE" in os.environ  # the shell asks for completions
    one = name in COMMANDS or name in GROUPS
    try:
        build_app(name if one and not completing else None)()
    except UnicodeEncodeError as exc:  # a write that no command caught (see app.fit)
        from ffn_calc.i18n.translate import _

        say(
            _("Error: cannot write the output: {reason}.").format(
                reason=f"{exc.encoding}: U+{ord(exc.object[exc.start]):04X}"
            )
        )
        sys.exit(EXIT_OUTPUT_ERROR)
    except OSError as exc:  # a write that no command caught (commands use output_errors)
        if exc.errno not in WRITE_ERRORS:
            raise
        drop_stdout()
        from ffn_calc.i18n.translate import _

        say(_("Error: cannot write the output: {reason}.").format(reason=exc.strerror))
        sys.exit(EXIT_OUTPUT_ERROR)
