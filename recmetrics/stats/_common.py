"""Shared private helpers of :mod:`recmetrics.stats`: reading and pairing per-user values.

The functions that take per-user values read them here (one float64 column
per metric, summaries and repeated users refused), pair two models' users,
drop or refuse NaN per metric, and return one result or a typed table; the
t statistics without variance are shared by the paired t-test and the
corrected resampled t-test.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from dataclasses import fields

import numpy as np
import pandas as pd

from .._validation import MAX_EXACT_INT, as_numeric_array, check_choice, check_count
from ..conventions import PRESETS
from ..metrics import _registry

_ALTERNATIVES = ("two-sided", "greater", "less")
_MISSING = ("raise", "drop")
_NAN = ("drop", "raise")
# Per-user values beyond this (in absolute value) are refused: their squares,
# summed over users, would overflow float64 in the variance of a t-test.
_MAX_ABS_VALUE = 1e100
# trec_eval's measure names, as the command line labels its columns
_TREC_MEASURE = re.compile(r"^(P|recall|map_cut|ndcg_cut|success)(?:[._]\d+)?$")
# machine epsilon: the randomization test's tolerance, the power solver's accuracy
_EPS = float(np.finfo(np.float64).eps)


# --------------------------------------------------------------------------
# reading per-user values
def _is_summary_label(label) -> str | None:
    """'metric' or 'convention' if ``label`` names one (a summary row, not a user)."""
    if not isinstance(label, str):
        return None
    if label in PRESETS:
        return "convention"
    if _TREC_MEASURE.match(label):
        return "metric"
    try:
        _registry.parse(label)
    except (TypeError, ValueError):
        return None
    return "metric"


def _refuse_summary(index, name):
    """Raise if every label of ``index`` is a metric (or convention) name, as in a summary."""
    kinds = set()
    for label in index:
        kind = _is_summary_label(label)
        if kind is None:
            return
        kinds.add(kind)
    if "convention" in kinds:
        raise ValueError(
            f"{name} is indexed by convention names ({list(index)[:3]}), as "
            "recmetrics.compare_conventions returns: these are means, not per-user values; "
            "pass evaluate(..., per_user=True), one row per user"
        )
    raise ValueError(
        f"{name} is indexed by metric names ({list(index)[:3]}): it looks like the means "
        "that recmetrics.evaluate(..., per_user=False) returns, not per-user values. "
        "Pass evaluate(..., per_user=True), a table with one row per user"
    )


def _column_values(column, label):
    """One column of per-user values as float64 (NaN allowed, inf and bools refused)."""
    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype):
        raise TypeError(
            f"{label} holds booleans, not metric values; convert with .astype(int) if intended"
        )
    if pd.api.types.is_numeric_dtype(dtype) and getattr(dtype, "kind", "") != "c":
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
    elif pd.api.types.is_object_dtype(dtype):
        values = as_numeric_array(column.to_numpy(), label, ndim=1, allow_nan=True)
    else:
        raise TypeError(f"{label} must hold numbers, got dtype {dtype}")
    bad = np.isinf(values) | (np.abs(values) > _MAX_ABS_VALUE)
    if bad.any():
        where = int(np.argmax(bad))
        raise ValueError(
            f"{label} holds {values[where]!r} for user {column.index[where]!r}: per-user "
            f"values must be finite and at most {_MAX_ABS_VALUE:g} in absolute value"
        )
    return values


def _as_frame(x, name):
    """Per-user values as a float64 DataFrame (one column per metric) and whether x had an index."""
    if isinstance(x, pd.DataFrame):
        frame, indexed = x, True
        if frame.shape[1] == 0:
            raise ValueError(f"{name} has no columns (one column per metric is expected)")
        if not frame.columns.is_unique:
            dup = frame.columns[frame.columns.duplicated()][0]
            raise ValueError(f"{name} has the column {dup!r} twice (one column per metric)")
    elif isinstance(x, pd.Series):
        frame, indexed = x.to_frame(name=x.name if x.name is not None else "value"), True
    else:
        if (
            x is None
            or isinstance(x, (str, bytes, Mapping, set, frozenset, numbers.Number))
            or np.isscalar(x)
        ):
            raise TypeError(
                f"{name} must be per-user values (an array, a Series or a DataFrame), "
                f"got {type(x).__name__}"
            )
        arr = as_numeric_array(x, name, ndim=1, allow_nan=True, allow_empty=True)
        frame, indexed = pd.DataFrame({"value": arr}), False
    if len(frame) == 0:
        raise ValueError(f"{name} is empty (no users)")
    if indexed:
        if not frame.index.is_unique:
            dup = frame.index[frame.index.duplicated()][0]
            raise ValueError(
                f"{name} has the user {dup!r} more than once: one row per user is expected"
            )
        _refuse_summary(frame.index, name)
    several = isinstance(x, pd.DataFrame)
    values = np.column_stack(
        [_column_values(frame[c], f"{name}[{c!r}]" if several else name) for c in frame.columns]
    )
    return pd.DataFrame(values, index=frame.index, columns=frame.columns), indexed


def _align(fa, ia, fb, ib, missing, names=("a", "b")):
    """Pair the users of two per-user frames; the same index and columns for both."""
    na, nb = names
    if list(fa.columns) != list(fb.columns):
        if fa.shape[1] == fb.shape[1] == 1:
            fb = fb.set_axis(fa.columns, axis=1)
        elif set(fa.columns) == set(fb.columns):
            fb = fb[list(fa.columns)]
        else:
            raise ValueError(
                f"{na} and {nb} must hold the same metrics: {list(fa.columns)} and "
                f"{list(fb.columns)}"
            )
    if ia and ib:
        only_a = fa.index.difference(fb.index, sort=False)
        only_b = fb.index.difference(fa.index, sort=False)
        if len(only_a) or len(only_b):
            if missing == "raise":
                who = only_a[0] if len(only_a) else only_b[0]
                raise ValueError(
                    f"{len(only_a)} users are only in {na} and {len(only_b)} only in {nb} "
                    f"(e.g. {who!r}); pass missing='drop' to compare the users present in both"
                )
            common = fa.index.intersection(fb.index, sort=False)
            if len(common) == 0:
                raise ValueError(f"{na} and {nb} have no user in common")
            fa, fb = fa.loc[common], fb.loc[common]
        else:
            fb = fb.loc[fa.index]
    else:
        if len(fa) != len(fb):
            raise ValueError(
                f"{na} and {nb} have {len(fa)} and {len(fb)} users; without an index (arrays) "
                "row i must be the same user in both, so the lengths must be equal"
            )
        fb = fb.set_axis(fa.index, axis=0)
    return fa, fb


def _pair(a, b, missing):
    """Align two per-user inputs; return the two frames with the same index and columns."""
    check_choice(missing, "missing", _MISSING)
    fa, ia = _as_frame(a, "a")
    fb, ib = _as_frame(b, "b")
    return _align(fa, ia, fb, ib, missing)


def _pairs_of(fa, fb, nan, names=("a", "b")):
    """Per metric: the paired values without NaN (or raise)."""
    out = {}
    for col in fa.columns:
        x, y = fa[col].to_numpy(), fb[col].to_numpy()
        ok = ~(np.isnan(x) | np.isnan(y))
        if not ok.all() and nan == "raise":
            raise ValueError(
                f"metric {col!r} has NaN for {int((~ok).sum())} users (users without relevant "
                "items under no_relevant='skip'?); pass nan='drop' to leave them out"
            )
        if ok.sum() < 2:
            raise ValueError(
                f"metric {col!r} has fewer than 2 users with values in both {names[0]} and "
                f"{names[1]}"
            )
        out[col] = (x[ok], y[ok])
    return out


def _columns_of(fa, nan, name="a"):
    """Per metric: the values without NaN (or raise)."""
    out = {}
    for col in fa.columns:
        x = fa[col].to_numpy()
        ok = ~np.isnan(x)
        if not ok.all() and nan == "raise":
            raise ValueError(
                f"metric {col!r} of {name} has NaN for {int((~ok).sum())} users; pass "
                "nan='drop' to leave them out"
            )
        out[col] = x[ok]
    return out


def _check_n_resamples(n_resamples):
    return check_count(n_resamples, "n_resamples", minimum=1, maximum=MAX_EXACT_INT)


def _one_or_table(results, single):
    """One result, or a table with one row per metric and typed (numeric, bool, str) columns."""
    if single:
        return next(iter(results.values()))
    names = [f.name for f in fields(next(iter(results.values()))) if f.name != "details"]
    rows = [[getattr(r, f) for f in names] for r in results.values()]
    table = pd.DataFrame(rows, columns=names)
    for f in names:
        kind = type(rows[0][names.index(f)])
        if kind is float:
            table[f] = table[f].astype(np.float64)
        elif kind is int:
            table[f] = table[f].astype(np.int64)
        elif kind is bool:
            table[f] = table[f].astype(bool)
    table.index = pd.Index(list(results), name="metric", tupleize_cols=False)
    return table


# --------------------------------------------------------------------------
# t statistics without variance
def _degenerate(difference, alternative):
    """Statistic and p-value of a t-test whose differences are all equal to ``difference``."""
    if difference == 0:
        return 0.0, 1.0
    statistic = math.copysign(math.inf, difference)
    if alternative == "two-sided":
        return statistic, 0.0
    favoured = difference > 0 if alternative == "greater" else difference < 0
    return statistic, 0.0 if favoured else 1.0


def _scaled(d):
    """``d`` times a power of two (exact) so that tiny values do not underflow when squared."""
    top = float(np.max(np.abs(d)))
    if 0 < top < 2.0**-400:
        return np.ldexp(d, -int(np.frexp(top)[1]))
    return d
