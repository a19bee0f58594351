"""The input files: checked, read into long frames, evaluated (errors: exit status 1).

Shared by both commands; a file that is missing, empty or holds a bad value
raises ``ValueError`` with a one-line message naming the file (and the
line, for a TREC file).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import truth_relevance
from ._keyword_options import _KEYWORD_OPTIONS


def _format(path, given):
    from ..io import file_format

    return file_format(path) if given == "auto" else given


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
    from ..io.trec import _read_coded

    t_fmt = _format(truth_path, args.truth_format)
    r_fmt = _format(run_path, args.run_format)
    user, item = args.user, args.item
    ids_as_text = "trec" in (t_fmt, r_fmt)
    groups = getattr(args, "rel_format", "qrels") == "qrels_jg"  # trec_eval's -R qrels_jg
    # two TREC files: ids as categories (the same strings, coded once by the reader);
    # beside a table, or with judgment groups, as text
    both_trec = t_fmt == r_fmt == "trec" and not groups

    def read_trec(path, kind):
        if both_trec:
            return _read_coded(path, kind, args.progress)
        if kind == "qrels":
            return read_trec_qrels(path, progress=args.progress, judgment_groups=groups)
        return read_trec_run(path, progress=args.progress)

    if t_fmt == "trec":
        truth = read_trec(truth_path, "qrels")
        truth = truth.rename(columns={"user": user, "item": item})
        relevance = "relevance"
    else:
        relevance = args.relevance
        cols = [user, item] + ([relevance] if relevance else []) + (["group"] if groups else [])
        truth = read_table(truth_path, columns=cols, progress=args.progress, format=t_fmt,
                           text_columns=[user, item] if ids_as_text else None)  # fmt: skip
    if truth.empty:
        raise ValueError(
            f"{truth_path}: no judgement (an empty file or table); nothing to evaluate"
        )
    if t_fmt != "trec":
        # without --relevance, a table's column 'relevance' holds the grades (the one default)
        relevance = truth_relevance(truth, relevance)
    if t_fmt != "trec" and relevance is not None:
        _table_numbers(truth, relevance, truth_path)
    if r_fmt == "trec":
        run = read_trec(run_path, "run")
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
    # trec_eval's runid: the tag of the run's first line (a TREC run; else its file name)
    args.run_tag = str(run["tag"].iloc[0]) if "tag" in run else Path(run_path).name
    keywords = {k: getattr(args, k) for k in _KEYWORD_OPTIONS if getattr(args, k) is not None}
    frames = dict(user=user, item=item, score=score, rank=rank, relevance=relevance)
    # trec_eval 10.0's measures that its 9.0.8 (the trec_eval preset) lacks:
    # computed apart, with the preset's keywords spelled out
    apart = [pair for pair in args.labelled if _apart(args, pair[0])]
    main = [pair for pair in args.labelled if pair not in apart]
    base = dict(users=users, per_user=per_user, **keywords)
    parts = []
    try:
        if main:
            table = evaluate(truth, run, [metric for _, metric in main], **frames,
                             convention=args.convention, **base)  # fmt: skip
            parts.append(_labelled(table, main, per_user))
        if apart:
            table = evaluate(truth, run, [metric for _, metric in apart], **frames,
                             **_preset_keywords(base, apart))  # fmt: skip
            parts.append(_labelled(table, apart, per_user))
    except (ValueError, TypeError) as err:
        # evaluate names the frame ('truth', 'predictions'): name the files too
        raise type(err)(f"{err} (truth: {truth_path}; predictions: {run_path})") from None
    labels = [label for label, _ in args.labelled]
    args.strings = None
    if getattr(args, "relstrings", None):  # trec_eval's relstring (per query only)
        from ._relstring import relstring_table

        users = parts[0].index if parts else None
        args.strings = relstring_table(truth, run, frames, args, users)
        args.strings.index.name = parts[0].index.name if parts else user
        if not parts:
            return pd.DataFrame(index=args.strings.index)
    if per_user:
        table = pd.concat(parts, axis=1) if len(parts) > 1 else parts[0]
        return table[labels]
    table = pd.concat(parts) if len(parts) > 1 else parts[0]
    return table[labels]


def _labelled(part, pairs, per_user):
    """The results of ``evaluate`` for the (label, metric) pairs, labelled."""
    labels = [label for label, _ in pairs]
    if per_user:
        part.columns = labels
    else:
        part.index = labels
    return part


def _apart(args, label):
    """Whether a measure is trec_eval 10.0's, which the trec_eval preset (9.0.8) lacks."""
    from ._trec_names import trec_eval_10

    return args.convention == "trec_eval" and trec_eval_10(label)


def _preset_keywords(keywords, apart):
    """The keywords of ``evaluate`` for the measures computed apart from the trec_eval preset.

    The preset's values (``resolve`` checked that those passed agree), the
    users included (``None``: the preset's), without ``relevance_level``:
    trec_eval 10.0's rbp reads the grades (``m_rbp.c``), unj and rbp_resid
    only whether a document is judged. Of the preset's metric keywords, only
    those the measures ``apart`` read (evaluate warns for the others).
    """
    from ..conventions import PRESETS
    from ..metrics import _registry

    specs = [_registry.parse_with_keywords(metric)[0] for _, metric in apart]
    read = {key for spec in specs for key in spec.keywords}
    unread = {key for spec in _registry.REGISTRY.values() for key in spec.keywords} - read
    out = {
        key: value
        for key, value in PRESETS["trec_eval"].items()
        if value is not None and key not in unread
    }
    out["per_user"] = keywords["per_user"]
    out.update({key: value for key, value in keywords.items() if value is not None})
    out.pop("relevance_level", None)
    return out
