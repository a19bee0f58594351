"""``recmetrics evaluate``: one run against the truth."""

from __future__ import annotations

import pandas as pd

from ._files import _evaluate_file
from ._output import _write
from ._trec_groups import RUNID, read_zscores, to_zscores, trec_all, write_trec
from ._trec_names import _note_conventions


def _cmd_evaluate(args, out):
    _note_conventions(args, args.labelled)
    _note_skipped(args)
    zscores = read_zscores(args.zscores) if args.zscores is not None else None
    trec = args.format == "trec"
    # trec_eval's 'all' lines (counts summed) and -Z (per query, then averaged)
    # need the per-query values
    per_user = args.per_user or trec or zscores is not None
    # users=None: the preset's (trec_eval: 'both'; LensKit: 'predictions'), else 'truth'
    table = _evaluate_file(args.qrels, args.run, args, args.users, per_user)
    n_queries = len(table)
    if zscores is not None:
        table = to_zscores(table, zscores)
    # each measure's 'all' by its own rule (z-scores too, as trec_eval averages
    # the converted per-query values with each measure's own function)
    means = trec_all(table, [metric for _, metric in args.labelled]) if per_user else table
    if not args.labelled:  # relstring only: no number, no mean
        means = pd.Series(dtype=float)
    strings = getattr(args, "strings", None)
    if trec:
        if "num_q" in args.special:
            means = means.copy()
            means["num_q"] = float(n_queries)
            order = ["num_q"] + [label for label in means.index if label != "num_q"]
            means = means[order]
        runid = args.run_tag if RUNID in args.special else None
        write_trec(table, means, args.per_user, args.digits, out, runid=runid,
                   z=zscores is not None, strings=strings)  # fmt: skip
        return 0
    if zscores is not None:
        table = table.rename(columns=lambda label: "Z" + label)
        means = means.rename(lambda label: "Z" + label)
    if strings is not None:  # trec_eval's relstring: text columns after the numbers
        table = pd.concat([table, strings], axis=1)
    _write(table if args.per_user else means, args.format, args.digits, out)
    return 0


def _note_skipped(args):
    """Name on standard error the measures of a trec_eval group not computed here."""
    import sys

    if args.skipped:
        print(
            f"recmetrics: note: {', '.join(args.skipped)} (of trec_eval's measure groups) are "
            "not computed by recmetrics yet, and left out",
            file=sys.stderr,
        )
