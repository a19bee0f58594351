"""``python -m recmetrics.datasets fetch open_bandit [--data-home DIR] [--archive FILE]``.

Fills the local cache that the data functions read offline (see
:func:`recmetrics.datasets.fetch_open_bandit`); does nothing if it is
complete.
"""

from __future__ import annotations

import argparse
import sys

from ._open_bandit import fetch_open_bandit

FETCHERS = {"open_bandit": fetch_open_bandit}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m recmetrics.datasets",
        description="Download a dataset once into the local cache (see recmetrics.datasets).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    fetch = commands.add_parser("fetch", help="fill the cache for a dataset")
    fetch.add_argument("dataset", choices=sorted(FETCHERS))
    fetch.add_argument("--data-home", help="the cache directory (default: see data_home())")
    fetch.add_argument("--archive", help="a local copy of the source archive (no download)")
    fetch.add_argument("--quiet", action="store_true", help="print nothing")
    args = parser.parse_args(argv)
    try:
        FETCHERS[args.dataset](args.data_home, archive=args.archive, quiet=args.quiet)
    except (RuntimeError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
