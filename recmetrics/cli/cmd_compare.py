"""``recmetrics compare``: several runs on the same truth, by paired tests."""

from __future__ import annotations

from ._files import _evaluate_file
from ._output import _write_comparison
from ._trec_names import _note_conventions


def _cmd_compare(args, out):
    from ..stats import compare

    _note_conventions(args, args.labelled)
    per_user = {
        name: _evaluate_file(args.qrels, path, args, args.users or "truth", True)
        for name, path in zip(args.names, args.runs, strict=True)
    }
    table = compare(
        per_user,
        baseline=args.baseline,
        test=args.test,
        correction=args.correction,
        alpha=args.alpha,
        n_resamples=args.n_resamples,
        seed=args.seed,
    )
    table = table.set_index(["model", "metric"])
    _write_comparison(table, args.format, args.digits, out)
    return 0
