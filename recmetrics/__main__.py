"""``python -m recmetrics``: the command line (see :mod:`recmetrics.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
