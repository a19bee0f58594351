"""Checks of the command line: each refusal is a usage error (exit status 2).

The option values are checked by argparse's types, which raise
``argparse.ArgumentTypeError``; what the parser cannot check (options that
contradict each other or the inputs' formats) is checked by
:func:`_check_usage`, which raises ``ValueError``, reported by ``main`` as a
usage error.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from ._files import _apart, _format
from ._keyword_options import _KEYWORD_OPTIONS
from ._relstring import RELSTRING, relstring_label
from ._trec_groups import RUNID, group_members
from ._trec_names import trec_measures

# trec_eval's lines that are no measure of the registry: the run's tag and the
# number of queries evaluated, written by the command line itself (trec format)
_SPECIAL = (RUNID, "num_q")

# ---------------------------------------------------------------------------
# option values: each type raises argparse.ArgumentTypeError, which argparse
# reports as a one-line usage error (exit status 2)
_MAX_DIGITS = 20


def _integer(text, low, high=None):
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f">= {low}"
        raise argparse.ArgumentTypeError(f"must be an integer {bound}, got {text!r}")
    return value


def _digits(text):
    """Decimals of the table, latex and trec output: an integer from 0 to 20."""
    return _integer(text, 0, _MAX_DIGITS)


def _count(text):
    """A number of resamples: an integer >= 1."""
    return _integer(text, 1)


def _seed(text):
    """A random seed: an integer >= 0 (as numpy takes it)."""
    return _integer(text, 0)


def _real(text, what, ok):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and ok(value)):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return value


def _probability(text):
    """A significance level: a number strictly between 0 and 1."""
    return _real(text, "a number strictly between 0 and 1", lambda v: 0.0 < v < 1.0)


def _log_base(text):
    """The base of the logarithmic discount: a finite number > 1."""
    return _real(text, "a finite number > 1", lambda v: v > 1.0)


def _level(text):
    """A relevance level: a finite number > 0 (the lowest relevant grade)."""
    return _real(text, "a finite number > 0", lambda v: v > 0.0)


def _name(text):
    """A column or run name: a non-empty string."""
    if not text:
        raise argparse.ArgumentTypeError("must be a non-empty name, got ''")
    return text


def _measure(text):
    """A measure name, ours or trec_eval's (or a trec_eval group), that the CLI computes."""
    from ..metrics import _registry

    if text in _SPECIAL or group_members(text) is not None:
        return text
    try:
        if relstring_label(text) is not None:
            return text
        for _, metric in trec_measures(text):
            spec, _, _ = _registry.parse_with_keywords(metric)
            data = [need for need in spec.needs if need != "truth"]
            if data:
                raise ValueError(
                    f"{text} needs {' and '.join(data)}, which the command line cannot give; "
                    "compute it with recmetrics.evaluate in Python"
                )
    except (ValueError, TypeError) as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


# ---------------------------------------------------------------------------
# checks of the command line that the parser cannot make (exit status 2)
def _run_paths(args):
    return [args.run] if args.command == "evaluate" else list(args.runs)


def _check_usage(args):
    """Raise ``ValueError`` for options that contradict each other or the inputs' formats.

    Sets ``args.labelled`` (the measures as (label, metric) pairs) and, for
    ``compare``, ``args.names`` (the runs' names).
    """
    from .. import conventions
    from ..metrics import _registry

    if args.score is not None and args.rank is not None:
        raise ValueError("give --score or --rank, not both")
    if args.complete:  # trec_eval's -c: every query of the qrels
        if args.users not in (None, "truth"):
            raise ValueError(
                f"--complete (-c) evaluates every query of the qrels, as --users truth; it "
                f"contradicts --users {args.users}"
            )
        args.users = "truth"
    if args.user == args.item:
        raise ValueError(f"--user and --item name the same column {args.user!r}")
    labelled = _measures(args)
    seen = {}
    for label, metric in labelled:
        spec, k, keywords = _registry.parse_with_keywords(metric)
        key = (spec.name, k, tuple(sorted(keywords.items())))
        if key in seen:
            raise ValueError(f"measures {seen[key]!r} and {label!r} are the same measure")
        seen[key] = label
        if spec.kind == "catalogue" and (args.command == "compare" or args.per_user):
            where = "compare" if args.command == "compare" else "--per-user"
            raise ValueError(
                f"{label} is a property of all the lists together, without per-user values: "
                f"it cannot be used with {where}"
            )
        if args.convention is not None and spec.kind == "ranking" and not _apart(args, label):
            conventions.check_supported(args.convention, spec.name, k)
    # a keyword that contradicts the --convention preset
    conventions.resolve(args.convention, {k: getattr(args, k) for k in _KEYWORD_OPTIONS})
    if _format(args.qrels, args.truth_format) == "trec" and args.relevance is not None:
        raise ValueError(
            "--relevance applies to tables; a qrels file's grades are read (its format is "
            "trec: by its name, or --truth-format)"
        )
    runs = _run_paths(args)
    trec_run = any(_format(r, args.run_format) == "trec" for r in runs)
    if trec_run and (args.score is not None or args.rank not in (None, "rank")):
        raise ValueError(
            "a TREC run has the columns 'score' and 'rank': use --rank rank to evaluate "
            "the written ranks, nothing to order by the scores (trec_eval's order)"
        )
    trec = {"relevance"} if _format(args.qrels, args.truth_format) == "trec" else set()
    trec |= {"score", "rank", "tag"} if trec_run else set()
    for option, column in (("--user", args.user), ("--item", args.item)):
        if column in trec:
            raise ValueError(
                f"{option} {column!r} is the name of a TREC file's {column} column; choose "
                "another name"
            )
    args.labelled = labelled
    if args.command == "compare":
        if len(runs) < 2:
            raise ValueError("compare needs at least two runs")
        args.names = _run_names(runs)
        if args.baseline is not None and args.baseline not in args.names:
            raise ValueError(
                f"--baseline {args.baseline!r} is not one of the runs: {', '.join(args.names)}"
            )


def _measures(args):
    """The (label, metric) pairs asked for; sets ``args.special`` and ``args.skipped``.

    A trec_eval group (``all_trec``, ``official``, ``set``) stands for its
    measures in trec_eval's printing order, less those asked for already
    and those the package does not compute yet (``args.skipped``, named on
    standard error).
    """
    from .. import conventions
    from ..metrics import _registry

    if args.measures:
        names = args.measures
    elif args.convention == "trec_eval":
        names = ["map", "P_10", "recall_10", "ndcg_cut_10", "recip_rank"]
    else:
        names = ["ndcg@10", "map@10", "precision@10", "recall@10", "mrr@10"]
    # trec_eval's relstring[.N]: strings per query, apart from the numbers (_relstring.py)
    relstrings = [relstring_label(name) for name in names if relstring_label(name) is not None]
    names = [name for name in names if relstring_label(name) is None]
    explicit = [pair for name in names if group_members(name) is None and name not in _SPECIAL
                for pair in trec_measures(name)]  # fmt: skip
    seen = set()
    for label, _ in explicit + relstrings:
        if label in seen:
            raise ValueError(f"measure {label!r} is asked for twice")
        seen.add(label)
    lengths = [n for _, n in relstrings]
    if len(set(lengths)) < len(lengths):
        raise ValueError("relstring is asked for twice with the same length")
    per_query = args.command == "evaluate" and args.per_user
    if relstrings and not per_query:
        raise ValueError(
            f"{relstrings[0][0]} is a string per query, without a mean: "
            + ("compare shows means" if args.command == "compare" else "add --per-user (-q)")
        )
    labelled, special, skipped = [], [], []
    for name in names:
        members = group_members(name)
        if members is None and name not in _SPECIAL:
            labelled += trec_measures(name)
            continue
        for family in [name] if members is None else members:
            if family in _SPECIAL:
                special += [] if family in special else [family]
                continue
            if family == RELSTRING:  # per query only; a relstring.N asked for replaces it
                if per_query and not relstrings:
                    relstrings.append(relstring_label(RELSTRING))
                continue
            try:
                pairs = trec_measures(_measure(family))
                for label, metric in pairs:
                    spec, k, _ = _registry.parse_with_keywords(metric)
                    if args.convention is not None and not _apart(args, label):
                        conventions.check_supported(args.convention, spec.name, k)
            except (ValueError, TypeError, argparse.ArgumentTypeError):
                skipped.append(family)
                continue
            labelled += [pair for pair in pairs if pair[0] not in seen]
            seen.update(label for label, _ in pairs)
    args.special, args.skipped, args.relstrings = special, skipped, relstrings
    if not labelled and not relstrings:
        raise ValueError("no measure to compute: -m names none that recmetrics computes")
    return labelled


def _run_names(paths):
    """Short, distinct names for the runs: file stems, else the paths as given."""
    stems = [Path(p).name.split(".")[0] for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    if len(set(paths)) == len(paths):
        return list(paths)
    raise ValueError("the same run is given twice")
