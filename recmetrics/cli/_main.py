"""The entry point of the ``recmetrics`` command: parse, check, run, and one line per error."""

from __future__ import annotations

import os
import re
import sys

from ._checks import _check_usage
from ._parser import _parser


def _one_line(message):
    """A message on one line (pandas' parser errors end in a newline)."""
    return re.sub(r"\s*\n\s*", " ", str(message)).strip()


def _quiet_stdout():
    """After a broken pipe: send what is left of standard output to /dev/null."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (tests)
        pass


def main(argv=None) -> int:
    """Run the command line; return the exit status (0 success, 1 bad input).

    A bad command line (an unknown option, a bad option value, options
    that contradict each other) exits through argparse (``SystemExit(2)``),
    as do ``--help`` and ``--version`` (``SystemExit(0)``). Every other
    error prints one line, ``recmetrics COMMAND: error: ...``, on standard
    error, and returns 1.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        _check_usage(args)
    except (ValueError, TypeError) as err:
        args.subparser.error(_one_line(err))
    prefix = f"recmetrics {args.command}: error:"
    try:
        return args.handler(args, sys.stdout)
    except BrokenPipeError:  # e.g. piped into head
        _quiet_stdout()
        return 0
    except KeyboardInterrupt:
        print(f"recmetrics {args.command}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError, KeyError, ImportError, ArithmeticError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else err
        print(f"{prefix} {_one_line(message)}", file=sys.stderr)
        return 1
    except MemoryError:
        print(f"{prefix} out of memory", file=sys.stderr)
        return 1
    except Exception as err:  # a bug: still one line, no traceback
        print(
            f"{prefix} unexpected {type(err).__name__}: {_one_line(err)} (please report this "
            "with the command line)",
            file=sys.stderr,
        )
        return 1
