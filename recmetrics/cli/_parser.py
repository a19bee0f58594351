"""The ``recmetrics`` command: evaluate and compare runs stored in files.

Installed with the package as ``recmetrics`` (also ``python -m recmetrics``)::

    recmetrics evaluate QRELS RUN -m ndcg@10 map P_10 --convention trec_eval
    recmetrics compare RUN_A RUN_B --qrels QRELS -m ndcg@10 --test randomization

Inputs are TREC files (qrels: ``query 0 document grade``; run: ``query Q0
document rank score tag``) or CSV/TSV/Parquet tables of (user, item, ...)
rows, told apart by their file name (see :func:`recmetrics.io.file_format`)
or by ``--truth-format`` / ``--run-format``, which win over the name (the
compression still follows the name: ``.gz``, ``.bz2``, ``.xz``, ``.zst``).
Measures are the names of :func:`recmetrics.evaluate` (``ndcg@10``) or
trec_eval's own (``ndcg_cut_10``, ``P_10``, ``P.10``, ``map``,
``recip_rank``; a family name such as ``P`` stands for trec_eval's default
cutoffs), so that trec_eval's measure lists carry over (trec_eval's other
options, such as ``-q`` or ``-c``, are spelled ``--per-user`` and ``--users
truth`` here).

An empty input (no line, blank lines only, or a table without rows) is an
error, as trec_eval refuses an empty qrels or results file: an empty run is
far more often a failed job than a system that returned nothing. (In
Python, :func:`recmetrics.evaluate` takes predictions without rows.)

``--format latex`` writes a booktabs ``tabular`` (``\\usepackage{booktabs}``)
with the text escaped, without jinja2.

Exit status: 0 on success; 1 when an input file or value is wrong, with a
one-line message naming the file (and the line, for a TREC file); 2 for a
command-line error (an unknown option, a bad option value such as
``--digits -1`` or ``--alpha 1.5``, options that contradict each other),
with argparse's usage line and a one-line message. No error prints a
traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import numbers
import os
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

users: by default the convention's (trec_eval: 'both', the queries in the
  qrels and in the run, as trec_eval without -c; lenskit: 'predictions';
  recommenders: 'both' for precision, recall and map); otherwise 'truth'
  (every judged user; one without predictions scores 0). trec_eval's -q is
  --per-user, its -c is --users truth.

inputs: a TREC run is ordered by its scores (as trec_eval does); --rank rank
  evaluates the ranks written in it instead. Grades below 1 are judged, not
  relevant, and carry no gain (as in trec_eval), in qrels files and tables
  alike. Beside a TREC file, a table's id columns are read as text. The
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
    if not isinstance(name, str):
        raise TypeError(f"a measure name must be a str, got {type(name).__name__}")
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


def _name(text):
    """A column or run name: a non-empty string."""
    if not text:
        raise argparse.ArgumentTypeError("must be a non-empty name, got ''")
    return text


def _measure(text):
    """A measure name, ours or trec_eval's, that the command line can compute."""
    from .. import _registry

    try:
        for _, metric in trec_measures(text):
            spec, _ = _registry.parse(metric)
            data = [need for need in spec.needs if need != "truth"]
            if data:
                raise ValueError(
                    f"{text} needs {' and '.join(data)}, which the command line cannot give; "
                    "compute it with recmetrics.evaluate in Python"
                )
    except (ValueError, TypeError) as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def _keyword_choices():
    """The values each convention keyword takes (those recmetrics.evaluate checks)."""
    from .._metric_core import NO_RELEVANT_POLICIES
    from ..evaluation import SCORE_DTYPES as _SCORE_DTYPES
    from ..ndcg import DISCOUNTS, GAINS, IDCG_MODES
    from ..ranking import TIE_POLICIES
    from ..topn import AP_DENOMINATORS, AP_TIES, RECALL_DENOMINATORS

    return {
        "ties": TIE_POLICIES,
        "no_relevant": NO_RELEVANT_POLICIES,
        "ap_denominator": AP_DENOMINATORS,
        "ap_ties": AP_TIES,
        "recall_denominator": RECALL_DENOMINATORS,
        "gain": GAINS,
        "idcg": IDCG_MODES,
        "discount": DISCOUNTS,
        "score_dtype": _SCORE_DTYPES,
    }


# the convention keywords of recmetrics.evaluate offered as options
_KEYWORDS = (
    "ties",
    "no_relevant",
    "ap_denominator",
    "ap_ties",
    "recall_denominator",
    "gain",
    "idcg",
    "log_base",
    "discount",
    "score_dtype",
)


# ---------------------------------------------------------------------------
# checks of the command line that the parser cannot make (exit status 2)
def _format(path, given):
    from ..io import file_format

    return file_format(path) if given == "auto" else given


def _run_paths(args):
    return [args.run] if args.command == "evaluate" else list(args.runs)


def _check_usage(args):
    """Raise ``ValueError`` for options that contradict each other or the inputs' formats.

    Sets ``args.labelled`` (the measures as (label, metric) pairs) and, for
    ``compare``, ``args.names`` (the runs' names).
    """
    from .. import _registry, conventions

    if args.score is not None and args.rank is not None:
        raise ValueError("give --score or --rank, not both")
    if args.user == args.item:
        raise ValueError(f"--user and --item name the same column {args.user!r}")
    labelled = _measures(args)
    seen = {}
    for label, metric in labelled:
        spec, k = _registry.parse(metric)
        key = (spec.name, k)
        if key in seen:
            raise ValueError(f"measures {seen[key]!r} and {label!r} are the same measure")
        seen[key] = label
        if spec.kind == "catalogue" and (args.command == "compare" or args.per_user):
            where = "compare" if args.command == "compare" else "--per-user"
            raise ValueError(
                f"{label} is a property of all the lists together, without per-user values: "
                f"it cannot be used with {where}"
            )
        if args.convention is not None and spec.kind == "ranking":
            conventions.check_supported(args.convention, spec.name, k)
    # a keyword that contradicts the --convention preset
    conventions.resolve(args.convention, {k: getattr(args, k) for k in _KEYWORDS})
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


def _run_names(paths):
    """Short, distinct names for the runs: file stems, else the paths as given."""
    stems = [Path(p).name.split(".")[0] for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    if len(set(paths)) == len(paths):
        return list(paths)
    raise ValueError("the same run is given twice")


# ---------------------------------------------------------------------------
# reading the inputs (errors: exit status 1)
def _check_file(path, what):
    if not str(path):
        raise ValueError(f"{what}: the path is empty")
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{what}: {str(path)!r} is a folder, not a file")
    if not p.is_file():
        raise ValueError(f"{what}: no such file: {str(path)!r}")


def _table_numbers(frame, column, path, *, rank=False):
    """Check a numeric column of a table: numbers, finite (ranks: integers >= 1)."""
    values = frame[column]
    if not (
        pd.api.types.is_bool_dtype(values)
        or pd.api.types.is_integer_dtype(values)
        or pd.api.types.is_float_dtype(values)
    ):
        text = pd.to_numeric(values, errors="coerce").isna().to_numpy()
        i = int(np.argmax(text))  # the first value that is not a number
        raise ValueError(
            f"{path}: column {column!r} must hold numbers, got {values.iloc[i]!r} in data row "
            f"{i + 1}"
        )
    as_float = values.astype(np.float64).to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(as_float)
    what = "finite numbers"
    if rank:
        bad |= (as_float < 1) | (as_float != np.round(as_float))
        what = "integer ranks >= 1"
    if bad.any():
        i = int(np.argmax(bad))
        value = values.iloc[i]
        value = value.item() if isinstance(value, np.generic) else value
        raise ValueError(
            f"{path}: column {column!r} must hold {what}, got {value!r} in data row {i + 1}"
        )


def _read_inputs(truth_path, run_path, args):
    """Both inputs as long frames, with the column names evaluate needs.

    TREC files get the column names of ``--user``/``--item`` (so that a TREC
    file and a table can be mixed); their ids are strings, so a table read
    beside one reads its id columns as strings too. An input without rows
    raises.
    """
    from ..io import read_table, read_trec_qrels, read_trec_run

    t_fmt = _format(truth_path, args.truth_format)
    r_fmt = _format(run_path, args.run_format)
    user, item = args.user, args.item
    ids_as_text = "trec" in (t_fmt, r_fmt)
    if t_fmt == "trec":
        truth = read_trec_qrels(truth_path, progress=args.progress)
        truth = truth.rename(columns={"user": user, "item": item})
        relevance = "relevance"
    else:
        relevance = args.relevance
        cols = [user, item] + ([relevance] if relevance else [])
        truth = read_table(truth_path, columns=cols, progress=args.progress, format=t_fmt,
                           text_columns=[user, item] if ids_as_text else None)  # fmt: skip
    if truth.empty:
        raise ValueError(
            f"{truth_path}: no judgement (an empty file or table); nothing to evaluate"
        )
    if t_fmt != "trec" and relevance is not None:
        _table_numbers(truth, relevance, truth_path)
    if relevance is not None:
        # as trec_eval: grades below 1 are judged non-relevant and carry no gain
        truth[relevance] = truth[relevance].clip(lower=0)
    if r_fmt == "trec":
        run = read_trec_run(run_path, progress=args.progress)
        run = run.rename(columns={"user": user, "item": item})
        score, rank = (None, "rank") if args.rank else ("score", None)
    else:
        order = args.rank or args.score or "score"
        run = read_table(run_path, columns=[user, item, order], progress=args.progress,
                         format=r_fmt,
                         text_columns=[user, item] if ids_as_text else None)  # fmt: skip
        score, rank = (None, order) if args.rank else (order, None)
    if run.empty:
        raise ValueError(
            f"{run_path}: no prediction (an empty file or table); an empty run is refused, as "
            "trec_eval refuses one"
        )
    if r_fmt != "trec":
        _table_numbers(run, score or rank, run_path, rank=rank is not None)
    return truth, run, user, item, relevance, score, rank


def _evaluate_file(truth_path, run_path, args, users, per_user):
    from ..evaluation import evaluate

    _check_file(truth_path, "QRELS")
    _check_file(run_path, "RUN")
    truth, run, user, item, relevance, score, rank = _read_inputs(truth_path, run_path, args)
    keywords = {k: getattr(args, k) for k in _KEYWORDS if getattr(args, k) is not None}
    try:
        table = evaluate(
            truth,
            run,
            [metric for _, metric in args.labelled],
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
    except (ValueError, TypeError) as err:
        # evaluate names the frame ('truth', 'predictions'): name the files too
        raise type(err)(f"{err} (truth: {truth_path}; predictions: {run_path})") from None
    labels = [label for label, _ in args.labelled]
    if per_user:
        table.columns = labels
    else:
        table.index = labels
    return table


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
        out.write(_latex(frame, digits))
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


_TEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _tex(text):
    """Text with LaTeX's special characters escaped."""
    return "".join(_TEX.get(c, c) for c in str(text))


def _tex_cell(value, digits):
    if value is None or (isinstance(value, float | np.floating) and np.isnan(value)):
        return "--"
    if isinstance(value, float | np.floating):
        return f"{value:.{digits}f}"
    return _tex(value)


def _latex(frame, digits):
    """A booktabs ``tabular`` of ``frame``: its index levels, then its columns.

    Written here rather than by ``DataFrame.to_latex`` (which needs jinja2,
    not a dependency of the package, and does not escape ``_`` by default);
    an outer index value repeated from the row above is left blank.

    Examples
    --------
    >>> frame = pd.DataFrame({"value": [0.25, float("nan")]}, index=["P_10", "map"])
    >>> frame.index.name = "measure"
    >>> print(_latex(frame, 3), end="")
    \\begin{tabular}{lr}
    \\toprule
    measure & value \\\\
    \\midrule
    P\\_10 & 0.250 \\\\
    map & -- \\\\
    \\bottomrule
    \\end{tabular}
    """
    levels = frame.index.nlevels
    names = ["" if n is None else n for n in frame.index.names]
    align = "l" * levels + "".join(
        "r"
        if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
        else "l"
        for c in frame.columns
    )
    lines = [
        f"\\begin{{tabular}}{{{align}}}",
        "\\toprule",
        " & ".join(_tex(c) for c in [*names, *frame.columns]) + " \\\\",
        "\\midrule",
    ]
    previous = None
    for key, row in zip(frame.index, frame.itertuples(index=False), strict=True):
        key = key if isinstance(key, tuple) else (key,)
        shown = [_tex(k) for k in key]
        if previous is not None:
            for j in range(levels - 1):
                if key[j] != previous[j]:
                    break
                shown[j] = ""
        previous = key
        lines.append(" & ".join(shown + [_tex_cell(v, digits) for v in row]) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


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
    _note_conventions(args, args.labelled)
    # users=None: the preset's (trec_eval: 'both'; LensKit: 'predictions'), else 'truth'
    table = _evaluate_file(args.qrels, args.run, args, args.users, args.per_user)
    if args.format == "trec":
        _write_trec(table, args.per_user, args.digits, out)
    else:
        _write(table, args.format, args.digits, out)
    return 0


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
        out.write(_latex(table, args.digits))
    else:
        fmt = f"%.{args.digits}f".__mod__
        out.write(table.to_string(float_format=fmt, na_rep="") + "\n")
    return 0


# ---------------------------------------------------------------------------
def _parser():
    from .. import __version__
    from ..conventions import CONVENTION_KEYWORDS, PRESETS

    top = argparse.ArgumentParser(
        prog="recmetrics",
        description="Evaluate recommendations and rankings stored in files, every "
        "convention explicit.",
        epilog="Run 'recmetrics COMMAND --help' for a command's options and examples.",
    )
    top.add_argument("--version", action="version", version=f"recmetrics {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    choices = _keyword_choices()

    def common(p, formats):
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
        p.add_argument(
            "--truth-format", choices=fmt, default="auto", help="default: by the file name"
        )
        p.add_argument(
            "--run-format", choices=fmt, default="auto", help="default: by the file name"
        )
        g = p.add_argument_group("columns of CSV/TSV/Parquet inputs")
        g.add_argument("--user", type=_name, default="user", help="user id column (default: user)")
        g.add_argument("--item", type=_name, default="item", help="item id column (default: item)")
        g.add_argument("--score", type=_name, help="score column of the run (default: score)")
        g.add_argument(
            "--rank", type=_name, help="rank column of the run (1 = first), instead of scores"
        )
        g.add_argument("--relevance", type=_name, help="graded relevance column of the truth")
        k = p.add_argument_group(
            "convention keywords (as in recmetrics.evaluate; default: the package's, or the "
            "--convention's)"
        )
        for name in _KEYWORDS:
            flag = "--" + name.replace("_", "-")
            if name == "log_base":
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
    common(cp, ("table", "csv", "json", "latex"))
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
