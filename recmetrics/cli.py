"""The ``recmetrics`` command: evaluate and compare runs stored in files.

Installed with the package as ``recmetrics`` (also ``python -m recmetrics``)::

    recmetrics evaluate QRELS RUN -m ndcg@10 map P_10 --convention trec_eval
    recmetrics compare RUN_A RUN_B --qrels QRELS -m ndcg@10 --test randomization

Inputs are TREC files (qrels: ``query 0 document grade``; run: ``query Q0
document rank score tag``) or CSV/TSV/Parquet tables of (user, item, ...)
rows, told apart by their file name (see :func:`recmetrics.io.file_format`)
or by ``--truth-format`` / ``--run-format``. Measures are the names of
:func:`recmetrics.evaluate` (``ndcg@10``) or trec_eval's own (``ndcg_cut_10``,
``P_10``, ``P.10``, ``map``, ``recip_rank``; a family name such as ``P``
stands for trec_eval's default cutoffs), so that trec_eval's measure lists
carry over (trec_eval's other options, such as ``-q`` or ``-c``, are
spelled ``--per-user`` and ``--users truth`` here). Exit status: 0 on
success, 1 when an input file or value is wrong (the message names it), 2
for a command-line error.
"""

from __future__ import annotations

import argparse
import json
import numbers
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["main", "trec_measures"]

# trec_eval measure family -> our metric name, and its default cutoffs
# (trec_eval 9.0: P, recall, map_cut, ndcg_cut at 5 ... 1000; success at 1, 5, 10)
_TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_TREC_FAMILIES = {
    "P": ("precision", _TREC_CUTOFFS),
    "recall": ("recall", _TREC_CUTOFFS),
    "map_cut": ("map", _TREC_CUTOFFS),
    "ndcg_cut": ("ndcg", _TREC_CUTOFFS),
    "success": ("hr", (1, 5, 10)),
}
_TREC_PLAIN = {"map": "map", "ndcg": "ndcg", "recip_rank": "mrr"}
_TREC_NAME = re.compile(r"^(P|recall|map_cut|ndcg_cut|success)(?:[._](\d+(?:,\d+)*))?$")

_EPILOG_EVALUATE = """\
examples:
  recmetrics evaluate qrels.txt run.txt -m ndcg_cut_10 map P_10 --convention trec_eval
  recmetrics evaluate truth.csv predictions.parquet -m ndcg@10 recall@20 --relevance grade
  recmetrics evaluate qrels.txt run.txt -m P --per-user --format csv > per_query.csv

measures: names of recmetrics.evaluate (precision@10, recall@10, map@10, map,
  ndcg@10, mrr, hr@10, auc, ...) or trec_eval's (P_10 or P.10, recall_10,
  map, map_cut_10, ndcg, ndcg_cut_10, recip_rank, success_10; P, recall,
  map_cut, ndcg_cut and success alone give trec_eval's default cutoffs).
  Results are labelled as the measures are written.

users: with --convention trec_eval the default is 'both' (queries in the
  qrels and in the run, as trec_eval without -c); otherwise 'truth' (every
  judged user; one without predictions scores 0). trec_eval's -q is
  --per-user, its -c is --users truth.

inputs: a TREC run is ordered by its scores (as trec_eval does); --rank rank
  evaluates the ranks written in it instead. Grades below 1 are judged, not
  relevant, and carry no gain (as in trec_eval), in qrels files and tables
  alike. Beside a TREC file, a table's id columns are read as text.

exit status: 0 success, 1 bad input file or value, 2 bad command line.
"""

_EPILOG_COMPARE = """\
examples:
  recmetrics compare bm25.txt dense.txt --qrels qrels.txt -m ndcg_cut_10 map \\
      --test randomization --correction holm
  recmetrics compare a.parquet b.parquet c.parquet --qrels truth.csv -m ndcg@10 \\
      --test t --format csv

Each run is evaluated per user on the same users (every judged user, also
with --convention trec_eval, so that every run has the same users), then
the first run (or --baseline) is compared with each other run on every
measure by a paired test, with the p-values adjusted over all tests.

exit status: 0 success, 1 bad input file or value, 2 bad command line.
"""


def trec_measures(name: str) -> list[tuple[str, str]]:
    """``(label, metric)`` pairs for a measure name, ours or trec_eval's.

    Examples
    --------
    >>> trec_measures("P.10"), trec_measures("ndcg_cut_5"), trec_measures("recip_rank")
    ([('P_10', 'precision@10')], [('ndcg_cut_5', 'ndcg@5')], [('recip_rank', 'mrr')])
    >>> [label for label, _ in trec_measures("success")]
    ['success_1', 'success_5', 'success_10']
    >>> trec_measures("ndcg@10")
    [('ndcg@10', 'ndcg@10')]
    """
    if name in _TREC_PLAIN:
        return [(name, _TREC_PLAIN[name])]
    m = _TREC_NAME.match(name)
    if m:
        family, cuts = m.group(1), m.group(2)
        metric, default = _TREC_FAMILIES[family]
        ks = default if cuts is None else [int(c) for c in cuts.split(",")]
        if any(k < 1 for k in ks):
            raise ValueError(f"measure {name!r}: cutoffs must be >= 1")
        return [(f"{family}_{k}", f"{metric}@{k}") for k in ks]
    return [(name, name)]


# ---------------------------------------------------------------------------
# reading the inputs
def _format(path, given):
    from .io import file_format

    return file_format(path) if given == "auto" else given


def _read_inputs(truth_path, run_path, args):
    """Both inputs as long frames, with the column names evaluate needs.

    TREC files get the column names of ``--user``/``--item`` (so that a TREC
    file and a table can be mixed); their ids are strings, so a table read
    beside one reads its id columns as strings too. Options that do not
    apply to a TREC file raise.
    """
    from .io import read_table, read_trec_qrels, read_trec_run

    t_fmt = _format(truth_path, args.truth_format)
    r_fmt = _format(run_path, args.run_format)
    user, item = args.user, args.item
    ids_as_text = "trec" in (t_fmt, r_fmt)
    if t_fmt == "trec":
        if args.relevance is not None:
            raise ValueError("--relevance applies to tables; a qrels file's grades are read")
        truth = read_trec_qrels(truth_path, progress=args.progress)
        truth = truth.rename(columns={"user": user, "item": item})
        relevance = "relevance"
    else:
        relevance = args.relevance
        cols = [user, item] + ([relevance] if relevance else [])
        truth = read_table(truth_path, columns=cols, progress=args.progress,
                           text_columns=[user, item] if ids_as_text else None)  # fmt: skip
    if relevance is not None:
        # as trec_eval: grades below 1 are judged non-relevant and carry no gain
        grades = pd.to_numeric(truth[relevance], errors="coerce")
        truth[relevance] = grades.clip(lower=0)
    if args.rank and args.score:
        raise ValueError("give --score or --rank, not both")
    if r_fmt == "trec":
        if args.score is not None or args.rank not in (None, "rank"):
            raise ValueError(
                "a TREC run has the columns 'score' and 'rank': use --rank rank to evaluate "
                "the written ranks, nothing to order by the scores (trec_eval's order)"
            )
        run = read_trec_run(run_path, progress=args.progress)
        run = run.rename(columns={"user": user, "item": item})
        score, rank = (None, "rank") if args.rank else ("score", None)
    else:
        order = args.rank or args.score or "score"
        run = read_table(run_path, columns=[user, item, order], progress=args.progress,
                         text_columns=[user, item] if ids_as_text else None)  # fmt: skip
        score, rank = (None, order) if args.rank else (order, None)
    return truth, run, user, item, relevance, score, rank


_KEYWORDS = (
    ("ties", str),
    ("no_relevant", str),
    ("ap_denominator", str),
    ("ap_ties", str),
    ("recall_denominator", str),
    ("gain", str),
    ("idcg", str),
    ("log_base", float),
    ("discount", str),
    ("score_dtype", str),
)


def _evaluate_file(truth_path, run_path, labelled, args, users, per_user):
    from .evaluate import evaluate

    for path, what in ((truth_path, "QRELS"), (run_path, "RUN")):
        if not Path(path).is_file():
            raise ValueError(f"{what}: no such file: {str(path)!r}")
    truth, run, user, item, relevance, score, rank = _read_inputs(truth_path, run_path, args)
    keywords = {k: getattr(args, k) for k, _ in _KEYWORDS if getattr(args, k) is not None}
    table = evaluate(
        truth,
        run,
        [metric for _, metric in labelled],
        user=user,
        item=item,
        score=score,
        rank=rank,
        relevance=relevance,
        users=users,
        convention=args.convention,
        per_user=per_user,
        **keywords,
    )
    labels = [label for label, _ in labelled]
    if per_user:
        table.columns = labels
    else:
        table.index = labels
    return table


def _measures(args):
    if args.measures:
        names = args.measures
    elif args.convention == "trec_eval":
        names = ["map", "P_10", "recall_10", "ndcg_cut_10", "recip_rank"]
    else:
        names = ["ndcg@10", "map@10", "precision@10", "recall@10", "mrr@10"]
    labelled = [pair for name in names for pair in trec_measures(name)]
    seen = set()
    for label, _ in labelled:
        if label in seen:
            raise ValueError(f"measure {label!r} is asked for twice")
        seen.add(label)
    return labelled


# ---------------------------------------------------------------------------
# writing the results
def _write(table, fmt, digits, out, *, value_name="value"):
    if fmt == "json":
        if isinstance(table, pd.Series):
            data = {k: _json_value(v) for k, v in table.items()}
        else:
            data = {
                str(uid): {k: _json_value(v) for k, v in row.items()}
                for uid, row in table.iterrows()
            }
        json.dump(data, out, indent=2)
        out.write("\n")
        return
    frame = table.to_frame(value_name) if isinstance(table, pd.Series) else table
    if isinstance(table, pd.Series):
        frame.index.name = "measure"
    if fmt == "csv":
        frame.to_csv(out)
    elif fmt == "latex":
        out.write(frame.to_latex(float_format=f"%.{digits}f", na_rep="--"))
    else:
        out.write(frame.to_string(float_format=f"%.{digits}f".__mod__, na_rep="NaN") + "\n")


def _json_value(v):
    """A JSON value with every digit of a float (repr), null for NaN."""
    if isinstance(v, bool | np.bool_):
        return bool(v)
    if isinstance(v, numbers.Real):
        return None if np.isnan(v) else float(v)
    return None if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)


def _write_trec(table, per_user, digits, out):
    """trec_eval's own output: ``measure  query  value`` lines, ``all`` for the mean."""
    if per_user:
        for uid, row in table.iterrows():
            for label, value in row.items():
                if not pd.isna(value):
                    out.write(f"{label:<22}\t{uid}\t{value:.{digits}f}\n")
        means = table.mean()
    else:
        means = table
    for label, value in means.items():
        out.write(f"{label:<22}\tall\t{value:.{digits}f}\n")


# ---------------------------------------------------------------------------
# the commands
def _note_conventions(args, labelled):
    """Say on standard error when trec_eval's names meet the package's conventions."""
    trec_named = [label for label, metric in labelled if label != metric or label in _TREC_PLAIN]
    if trec_named and args.convention is None:
        print(
            f"recmetrics: note: {', '.join(trec_named)} computed with recmetrics' defaults "
            "(expected value over tied scores, AP@k divided by min(|R|, k), users without "
            "a relevant item left out); add --convention trec_eval for trec_eval's numbers",
            file=sys.stderr,
        )


def _cmd_evaluate(args, out):
    labelled = _measures(args)
    _note_conventions(args, labelled)
    users = args.users or ("both" if args.convention == "trec_eval" else "truth")
    table = _evaluate_file(args.qrels, args.run, labelled, args, users, args.per_user)
    if args.format == "trec":
        _write_trec(table, args.per_user, args.digits, out)
    else:
        _write(table, args.format, args.digits, out)
    return 0


def _cmd_compare(args, out):
    from .stats import compare

    if len(args.runs) < 2:
        raise ValueError("compare needs at least two runs")
    labelled = _measures(args)
    _note_conventions(args, labelled)
    names = _run_names(args.runs)
    per_user = {
        name: _evaluate_file(args.qrels, path, labelled, args, args.users or "truth", True)
        for name, path in zip(names, args.runs, strict=True)
    }
    if args.baseline is not None and args.baseline not in per_user:
        raise ValueError(f"--baseline {args.baseline!r} is not one of the runs: {names}")
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
    if args.format == "json":
        records = [
            {k: _json_value(v) for k, v in row.items()}
            for row in table.reset_index().to_dict("records")
        ]
        json.dump(records, out, indent=2)
        out.write("\n")
    elif args.format == "csv":
        table.to_csv(out)
    elif args.format == "latex":
        out.write(table.to_latex(float_format=f"%.{args.digits}f", na_rep="--"))
    else:
        fmt = f"%.{args.digits}f".__mod__
        out.write(table.to_string(float_format=fmt, na_rep="") + "\n")
    return 0


def _run_names(paths):
    """Short, distinct names for the runs: file stems, else the paths as given."""
    stems = [Path(p).name.split(".")[0] for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    if len(set(paths)) == len(paths):
        return list(paths)
    raise ValueError("the same run is given twice")


# ---------------------------------------------------------------------------
def _parser():
    from . import __version__

    top = argparse.ArgumentParser(
        prog="recmetrics",
        description="Evaluate recommendations and rankings stored in files, every "
        "convention explicit.",
        epilog="Run 'recmetrics COMMAND --help' for a command's options and examples.",
    )
    top.add_argument("--version", action="version", version=f"recmetrics {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(p, formats):
        p.add_argument(
            "-m",
            "--measures",
            nargs="+",
            action="extend",
            metavar="M",
            help="measures to compute (see below; -m may be repeated); default ndcg@10 "
            "map@10 precision@10 "
            "recall@10 mrr@10, or with --convention trec_eval map P_10 recall_10 "
            "ndcg_cut_10 recip_rank",
        )
        p.add_argument(
            "--convention",
            help="reproduce one library's variant of every metric: trec_eval, sklearn, ranx, "
            "torchmetrics, recbole, recommenders, spark, rectools, lenskit",
        )
        p.add_argument(
            "--users",
            choices=("truth", "predictions", "both", "all"),
            help="which users are evaluated (see below)",
        )
        fmt = ("auto", "trec", "csv", "tsv", "parquet")
        p.add_argument("--truth-format", choices=fmt, default="auto", help="default: by name")
        p.add_argument("--run-format", choices=fmt, default="auto", help="default: by name")
        g = p.add_argument_group("columns of CSV/TSV/Parquet inputs")
        g.add_argument("--user", default="user", help="user id column (default: user)")
        g.add_argument("--item", default="item", help="item id column (default: item)")
        g.add_argument("--score", help="score column of the run (default: score)")
        g.add_argument("--rank", help="rank column of the run (1 = first), instead of scores")
        g.add_argument("--relevance", help="graded relevance column of the truth")
        k = p.add_argument_group(
            "convention keywords (as in recmetrics.evaluate; default: the package's, or the "
            "--convention's)"
        )
        for name, kind in _KEYWORDS:
            k.add_argument("--" + name.replace("_", "-"), dest=name, type=kind, metavar="VALUE")
        p.add_argument(
            "--format",
            choices=formats,
            default="table",
            help="output format (default: table)",
        )
        p.add_argument(
            "--digits",
            type=int,
            default=4,
            help="decimals in table, latex and trec output (default 4); csv and json carry "
            "every digit",
        )
        p.add_argument("--progress", action="store_true", help="progress bars while reading")

    ev = sub.add_parser(
        "evaluate",
        help="evaluate one run against the truth",
        description="Evaluate one run (predictions) against the truth (qrels).",
        epilog=_EPILOG_EVALUATE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("qrels", metavar="QRELS", help="the truth: TREC qrels or a table")
    ev.add_argument("run", metavar="RUN", help="the predictions: TREC run or a table")
    common(ev, ("table", "csv", "json", "latex", "trec"))
    ev.add_argument("--per-user", action="store_true", help="one row per user, not the means")
    ev.set_defaults(handler=_cmd_evaluate)

    cp = sub.add_parser(
        "compare",
        help="compare runs with paired tests",
        description="Compare several runs on the same truth: means, bootstrap intervals, "
        "paired tests against the baseline and adjusted p-values (recmetrics.stats.compare).",
        epilog=_EPILOG_COMPARE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cp.add_argument("runs", nargs="+", metavar="RUN", help="two or more runs")
    cp.add_argument("--qrels", required=True, metavar="QRELS", help="the truth")
    common(cp, ("table", "csv", "json", "latex"))
    cp.add_argument("--baseline", help="the run the others are compared with (default: first)")
    cp.add_argument(
        "--test", default="t", choices=("t", "wilcoxon", "sign", "randomization"),
        help="paired test (default: t)",
    )  # fmt: skip
    cp.add_argument(
        "--correction", default="holm", choices=("holm", "bonferroni", "bh", "none"),
        help="p-value adjustment over all tests (default: holm)",
    )  # fmt: skip
    cp.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    cp.add_argument(
        "--n-resamples", type=int, default=10_000, help="bootstrap/randomization resamples"
    )
    cp.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    cp.set_defaults(handler=_cmd_compare)
    return top


def main(argv=None) -> int:
    """Run the command line; return the exit status (0, 1 bad input, 2 bad usage)."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args, sys.stdout)
    except BrokenPipeError:  # e.g. piped into head
        return 0
    except (ValueError, TypeError, OSError, KeyError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else err
        print(f"recmetrics {args.command}: error: {message}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
