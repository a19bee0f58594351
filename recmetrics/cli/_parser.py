"""The argparse tree of the ``recmetrics`` command: its commands, options, help and examples."""

from __future__ import annotations

import argparse

from .._keywords import CONVENTION_KEYWORDS
from ._checks import (
    _MAX_DIGITS,
    _count,
    _digits,
    _level,
    _log_base,
    _measure,
    _name,
    _probability,
    _seed,
)
from ._keyword_options import _KEYWORD_OPTIONS, _TREC_SHORT, _keyword_choices
from .cmd_compare import _cmd_compare
from .cmd_evaluate import _cmd_evaluate

_EPILOG_EVALUATE = """\
examples:
  recmetrics evaluate qrels.txt run.txt -m ndcg_cut_10 map P_10 --convention trec_eval
  recmetrics evaluate truth.csv predictions.parquet -m ndcg@10 recall@20 --relevance grade
  recmetrics evaluate qrels.txt run.txt -m P --per-user --format csv > per_query.csv
  recmetrics evaluate qrels.txt run.txt --convention trec_eval -m all_trec -q -c -M 100

measures: names of recmetrics.evaluate (precision@10, recall@10, map@10, map,
  ndcg@10, mrr, hr@10, auc, ...) or trec_eval's (P_10 or P.10, recall_10,
  map, map_cut_10, ndcg, ndcg_cut_10, recip_rank, success_10; P, recall,
  map_cut, ndcg_cut and success alone give trec_eval's default cutoffs;
  P.5,10 gives P_5 and P_10). trec_eval's groups all_trec, official and set
  stand for their measures (those recmetrics does not compute yet are named
  on standard error and left out). Results are labelled as the measures
  are written. relstring[.N] (the grades of the first N documents) is a
  string per query: it needs -q, and has no mean.

users: by default the convention's (trec_eval: 'both', the queries in the
  qrels and in the run, as trec_eval without -c; lenskit: 'predictions';
  recommenders: 'both' for precision, recall and map); otherwise 'truth'
  (every judged user; one without predictions scores 0). trec_eval's options
  are spelled as in trec_eval too: -q (--per-user), -c (--complete, which is
  --users truth), -M N, -l N, -J and -Z FILE.

inputs: a TREC run is ordered by its scores (as trec_eval does); --rank rank
  evaluates the ranks written in it instead. As in trec_eval, in qrels
  files and tables alike, grades below 1 carry no gain: 0 is judged
  non-relevant, a negative grade is in the pool but not judged (unjudged for
  every measure but infAP, which counts it among the pooled documents; its
  query is still evaluated).
  Beside a TREC file, a table's id columns are read as text. The
  format is told by the file name unless --truth-format/--run-format says
  it; .gz, .bz2, .xz and .zst files are decompressed. An empty file (no
  judgement, no prediction) is an error, as in trec_eval.

output: --format latex writes a booktabs tabular (\\usepackage{booktabs}).

exit status: 0 success; 1 bad input file or value (a one-line message naming
  the file, and the line of a TREC file); 2 bad command line (usage and a
  one-line message).
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
Inputs and formats as for 'recmetrics evaluate' (see its --help); an empty
run is an error.

exit status: 0 success; 1 bad input file or value (a one-line message naming
  the file, and the line of a TREC file); 2 bad command line (usage and a
  one-line message).
"""


def _parser():
    from .. import __version__

    top = argparse.ArgumentParser(
        prog="recmetrics",
        description="Evaluate recommendations and rankings stored in files, every "
        "convention explicit.",
        epilog="Run 'recmetrics COMMAND --help' for a command's options and examples.",
    )
    top.add_argument("--version", action="version", version=f"recmetrics {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    choices = _keyword_choices()

    ev = sub.add_parser(
        "evaluate",
        help="evaluate one run against the truth",
        description="Evaluate one run (predictions) against the truth (qrels).",
        epilog=_EPILOG_EVALUATE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("qrels", metavar="QRELS", help="the truth: TREC qrels or a table")
    ev.add_argument("run", metavar="RUN", help="the predictions: TREC run or a table")
    _add_common(ev, ("table", "csv", "json", "latex", "trec"), choices)
    ev.add_argument(
        "-q", "--per-user", action="store_true",
        help="one row per user, not the means (trec_eval's -q)",
    )  # fmt: skip
    ev.add_argument(
        "-Z", "--zscores", metavar="FILE",
        help="print z-scores, (value - mean) / std, with the mean and standard deviation of "
        "each query and measure read from FILE ('query measure mean std' lines), as "
        "trec_eval's -Z does (get_zscores.c, convert_zscores.c)",
    )  # fmt: skip
    ev.set_defaults(handler=_cmd_evaluate, subparser=ev)

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
    _add_common(cp, ("table", "csv", "json", "latex"), choices)
    cp.add_argument(
        "--baseline", type=_name,
        help="the run the others are compared with, by its name in the output (default: first)",
    )  # fmt: skip
    cp.add_argument(
        "--test", default="t", choices=("t", "wilcoxon", "sign", "randomization"),
        help="paired test (default: t)",
    )  # fmt: skip
    cp.add_argument(
        "--correction", default="holm", choices=("holm", "bonferroni", "bh", "none"),
        help="p-value adjustment over all tests (default: holm)",
    )  # fmt: skip
    cp.add_argument(
        "--alpha", type=_probability, default=0.05,
        help="significance level, strictly between 0 and 1 (default 0.05)",
    )  # fmt: skip
    cp.add_argument(
        "--n-resamples", type=_count, default=10_000,
        help="bootstrap/randomization resamples, >= 1 (default 10000)",
    )  # fmt: skip
    cp.add_argument("--seed", type=_seed, default=0, help="random seed, >= 0 (default 0)")
    cp.set_defaults(handler=_cmd_compare, subparser=cp, per_user=True)
    return top


def _add_common(p, formats, choices):
    """The options that both commands take: measures, conventions, inputs, output."""
    from ..conventions import PRESETS

    p.add_argument(
        "-m",
        "--measures",
        nargs="+",
        action="extend",
        type=_measure,
        metavar="M",
        help="measures to compute (see below; -m may be repeated); default ndcg@10 "
        "map@10 precision@10 "
        "recall@10 mrr@10, or with --convention trec_eval map P_10 recall_10 "
        "ndcg_cut_10 recip_rank",
    )
    p.add_argument(
        "--convention",
        choices=tuple(PRESETS),
        metavar="LIBRARY",
        help="reproduce one library's variant of every metric: "
        + ", ".join(PRESETS),
    )  # fmt: skip
    p.add_argument(
        "--users",
        choices=("truth", "predictions", "both", "all"),
        help="which users are evaluated (see below)",
    )
    fmt = ("auto", "trec", "csv", "tsv", "parquet")
    p.add_argument("--truth-format", choices=fmt, default="auto", help="default: by the file name")
    p.add_argument("--run-format", choices=fmt, default="auto", help="default: by the file name")
    p.add_argument(
        "-R", "--rel-format", choices=("qrels", "qrels_jg"), default="qrels",
        help="the truth's format, as trec_eval's -R: qrels_jg reads a TREC file's field 2 as "
        "the judgment group (a table's column 'group'), which the *_avgjg measures average "
        "over (default: qrels)",
    )  # fmt: skip
    g = p.add_argument_group("columns of CSV/TSV/Parquet inputs")
    g.add_argument("--user", type=_name, default="user", help="user id column (default: user)")
    g.add_argument("--item", type=_name, default="item", help="item id column (default: item)")
    g.add_argument("--score", type=_name, help="score column of the run (default: score)")
    g.add_argument(
        "--rank", type=_name, help="rank column of the run (1 = first), instead of scores"
    )
    g.add_argument("--relevance", type=_name,
                   help="graded relevance column of the truth (default: its column "
                   "'relevance' if it has one)")  # fmt: skip
    k = p.add_argument_group(
        "convention keywords (as in recmetrics.evaluate; default: the package's, or the "
        "--convention's)"
    )
    t = p.add_argument_group(
        "trec_eval's options (as in recmetrics.evaluate, which names them max_depth, "
        "relevance_level, judged_only and users='truth'; long spellings or trec_eval's short ones)"
    )
    t.add_argument(
        "-c", "--complete", action="store_true",
        help="evaluate every query of the qrels, a query missing from the run scoring 0 "
        "(trec_eval's -c; the same as --users truth)",
    )  # fmt: skip
    for name in _KEYWORD_OPTIONS:
        flag = "--" + name.replace("_", "-")
        if name in _TREC_SHORT:
            _add_trec_option(t, name, flag)
        elif name == "log_base":
            k.add_argument(flag, dest=name, type=_log_base, metavar="BASE",
                           help="base of the log discount, > 1 (package default: "
                           f"{CONVENTION_KEYWORDS[name]:g})")  # fmt: skip
        else:
            default = CONVENTION_KEYWORDS[name]
            k.add_argument(flag, dest=name, choices=choices[name],
                           help=f"package default: {default or 'as given'}")  # fmt: skip
    p.add_argument(
        "--format",
        choices=formats,
        default="table",
        help="output format (default: table)",
    )
    p.add_argument(
        "--digits",
        type=_digits,
        default=4,
        help=f"decimals in table, latex and trec output, 0 to {_MAX_DIGITS} (default 4); "
        "csv and json carry every digit",
    )
    p.add_argument("--progress", action="store_true", help="progress bars while reading")


def _add_trec_option(group, name, flag):
    """One of trec_eval's options -M, -l, -J, generated from its keyword of recmetrics.evaluate."""
    short = _TREC_SHORT[name]
    if name == "judged_only":
        group.add_argument(
            short, flag, dest=name, action="store_true", default=None,
            help="drop the unjudged documents of the run before evaluating: Sakai's condensed "
            "lists (trec_eval's -J), after the cut at --max-depth",
        )  # fmt: skip
    elif name == "max_depth":
        group.add_argument(
            short, flag, dest=name, type=_count, metavar="N",
            help="evaluate only the first N documents of each query, in trec_eval's order "
            "(score, then document id decreasing), as trec_eval's -M; default: all",
        )  # fmt: skip
    else:
        group.add_argument(
            short, flag, dest=name, type=_level, metavar="N",
            help="grades >= N are relevant, as trec_eval's -l (ndcg keeps every grade > 0 as "
            "its gain, as trec_eval's); default: every grade > 0",
        )  # fmt: skip
