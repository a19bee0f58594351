"""Machinery shared by the metric functions.

Cutoff windows, expected sums over tie groups, the no-relevant-items policies
and the mean over users.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import check_bool, check_choice
from ..ranking import Ranking
from ._aggregate import summarise

# --------------------------------------------------------------------------
# shared machinery of the metric functions
NO_RELEVANT_POLICIES = ("zero", "skip", "raise", "one")


def prefix_table(f, upto: int) -> np.ndarray:
    """``F[x] = sum_{i=1}^{x} f(i)`` for ``x = 0 .. upto`` (``F[0] = 0``)."""
    upto = int(upto)
    table = np.zeros(upto + 1)
    if upto > 0:
        np.cumsum(f(np.arange(1, upto + 1, dtype=np.float64)), out=table[1:])
    return table


def window(r: Ranking, k):
    """Positions of each entry's tie group that fall within the cutoff.

    Returns integer arrays ``lo, hi`` with the group's positions inside the
    top ``k`` being ``lo + 1 .. hi`` (empty when ``hi == lo``); unranked
    entries get ``lo = hi = 0``. For one cutoff for all users the arrays are
    kept on the Ranking (read-only), so that the metrics of one evaluation
    at the same ``k`` compute them once.
    """
    scalar = k is None or np.ndim(k) == 0
    if scalar:
        key = None if k is None else float(k)
        if key in r._windows:
            return r._windows[key]
    ranked = np.isfinite(r.start)
    if k is None:
        kk = np.inf
    elif not scalar:  # one cutoff per user
        kk = np.asarray(k, dtype=np.float64)[r.user]
    else:
        kk = float(k)
    lo = np.where(ranked, np.minimum(r.start, kk), 0.0).astype(np.int64)
    hi = np.where(ranked, np.minimum(r.start + r.size, kk), 0.0).astype(np.int64)
    if scalar:
        lo.setflags(write=False)
        hi.setflags(write=False)
        r._windows[key] = lo, hi
    return lo, hi


def expected_sum(r: Ranking, k, f, weights=None) -> np.ndarray:
    """Per user: expected value of ``sum over relevant items of w * f(pos) * [pos <= k]``.

    Each relevant item is uniformly distributed over the positions of its tie
    group, so its expected ``f(pos)`` within the cutoff is the sum of ``f``
    over the group's positions inside the cutoff, divided by the group size.
    """
    lo, hi = window(r, k)
    return r.per_user_sum(group_mean(f, lo, hi, r.size) * (1.0 if weights is None else weights))


def group_mean(f, lo, hi, size):
    """``sum_{i=lo+1}^{hi} f(i) / size`` per entry, for integer arrays ``lo <= hi``.

    Untied entries (``size == 1``) evaluate ``f`` at their position directly;
    tie groups use differences of a prefix table built only as long as the
    longest tied window needs, so neither precision nor memory depends on how
    deep the untied items sit.
    """
    out = np.zeros(lo.shape[0])
    # only the entries whose group reaches into the cutoff (with a cutoff, and
    # above all with a Ranking built to a depth, usually a small share) are read
    live = np.flatnonzero(hi > lo)
    if live.shape[0] == 0:
        return out
    lo, hi, size = lo[live], hi[live], size[live]
    single = size == 1
    if single.all():
        out[live] = f(hi.astype(np.float64))
        return out
    out[live[single]] = f(hi[single].astype(np.float64))
    tied = ~single
    table = prefix_table(f, hi[tied].max())
    out[live[tied]] = (table[hi[tied]] - table[lo[tied]]) / size[tied]
    return out


def hits(r: Ranking, k) -> np.ndarray:
    """Expected number of relevant items within the top ``k``, per user."""
    lo, hi = window(r, k)
    return r.per_user_sum((hi - lo) / r.size)


def finish(
    values,
    r: Ranking,
    single: bool,
    *,
    no_relevant: str,
    per_user: bool,
    defined=None,
    aggregate="mean",
):
    """Apply the no-relevant-items policy, then summarise over users (or not).

    ``defined`` marks users for which the metric is defined (default: users
    with at least one relevant item); the others get 0 (``'zero'``), are
    left out (``'skip'``: NaN per user), raise (``'raise'``), or get 1
    (``'one'``: scikit-learn's ``label_ranking_average_precision_score``,
    torchmetrics' ``empty_target_action='pos'``). The summary is the
    metric's ``aggregate`` (:func:`._aggregate.summarise`: the mean, or
    trec_eval's sum and geometric mean).
    """
    check_choice(no_relevant, "no_relevant", NO_RELEVANT_POLICIES)
    per_user = check_bool(per_user, "per_user")
    values = np.asarray(values, dtype=np.float64).copy()
    if defined is None:
        defined = r.n_relevant > 0
    if not np.all(defined):
        if no_relevant == "raise":
            u = int(np.argmin(defined))
            raise ValueError(
                f"user {u} has no relevant item (or the metric is undefined for it); "
                "pass no_relevant='zero' or 'skip' to allow this"
            )
        values[~defined] = {"zero": 0.0, "one": 1.0}.get(no_relevant, np.nan)
    if single:
        return float(values[0])
    if per_user:
        if r.user_ids is not None:
            return pd.Series(values, index=r.user_ids, dtype=np.float64)
        return values
    if no_relevant == "skip":
        return summarise(values[defined], aggregate)
    return summarise(values, aggregate)


def at_value(function, keyword, value, name, doc):
    """``function`` with one keyword fixed: a registry entry per trec_eval parameter value.

    trec_eval names a measure at each default parameter value
    (``iprec_at_recall_0.10``, ``Rprec_mult_0.20``, ...); each is the
    metric ``function`` with ``keyword=value`` and every other argument of
    a rank metric passed on.
    """

    def fn(
        a=None,
        b=None,
        *,
        ranks=None,
        n_items=None,
        mask=None,
        ties=None,
        no_relevant="skip",
        per_user=False,
        judged_only=False,
    ):
        return function(
            a,
            b,
            ranks=ranks,
            n_items=n_items,
            mask=mask,
            ties=ties,
            no_relevant=no_relevant,
            per_user=per_user,
            judged_only=judged_only,
            **{keyword: value},
        )

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn
