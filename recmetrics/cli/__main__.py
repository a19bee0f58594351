"""``python -m recmetrics.cli``: the command line, as ``python -m recmetrics``."""

import sys

from ._main import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
