"""``recmetrics evaluate``: one run against the truth."""

from __future__ import annotations

from ._files import _evaluate_file
from ._output import _write, _write_trec
from ._trec_names import _note_conventions


def _cmd_evaluate(args, out):
    _note_conventions(args, args.labelled)
    # users=None: the preset's (trec_eval: 'both'; LensKit: 'predictions'), else 'truth'
    table = _evaluate_file(args.qrels, args.run, args, args.users, args.per_user)
    if args.format == "trec":
        _write_trec(table, args.per_user, args.digits, out)
    else:
        _write(table, args.format, args.digits, out)
    return 0
