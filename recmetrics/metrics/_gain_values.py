"""trec_eval's gain maps: a gain per relevance level, for DCG and its relatives.

trec_eval's ``ndcg``, ``ndcg_rel``, ``Rndcg`` and ``G`` take parameters
``rel_level=gain`` (``-m ndcg.1=0.5,2=3``; ``gain_init.c``: ``setup_gains``):
a level named there has that gain, every other level ``l >= 0`` has the gain
``l``. Level 0 (judged non-relevant) may get a gain, and gains may be 0 or
negative. The ideal ranking holds every *judged* item with a positive gain,
in decreasing order of gain (retrieved or not); the walk stops at the first
gain ``<= 0``. Here the map is the keyword ``gain_values``, a mapping from
an int grade ``>= 0`` to a real gain; an unmapped grade keeps the gain of
the metric's ``gain`` keyword (``'linear'``, trec_eval's default, is the
grade itself).

This module holds the machinery shared by :func:`recmetrics.dcg`,
:func:`recmetrics.ndcg` and the measures of :mod:`recmetrics.metrics.trec_gain`:
the gain of each relevant entry and of the judged non-relevant items, the
expected DCG (exact under ``ties='expected'``, by linearity), and the ideal
order as runs of equal gain.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from ..ranking import Ranking
from ._core import expected_sum, group_mean, prefix_table

__all__ = [
    "GainValues",
    "check_gain_values",
    "entry_gains",
    "expected_dcg",
    "ideal_runs",
    "ideal_dcg",
]


class GainValues(Mapping):
    """A read-only, hashable gain map ``{grade: gain}`` (what a metric name's parameters give)."""

    def __init__(self, gains):
        self._gains = dict(gains)

    def __getitem__(self, key):
        return self._gains[key]

    def __iter__(self):
        return iter(self._gains)

    def __len__(self):
        return len(self._gains)

    def __hash__(self):
        return hash(frozenset(self._gains.items()))

    def __eq__(self, other):
        return isinstance(other, Mapping) and dict(self) == dict(other)

    def __repr__(self):
        return repr(self._gains)


def check_gain_values(gain_values):
    """``None``, or the map as ``{int grade >= 0: float gain}``; TypeError/ValueError otherwise."""
    if gain_values is None:
        return None
    if not isinstance(gain_values, Mapping):
        raise TypeError(
            "gain_values must be a mapping from a relevance grade (int) to its gain (a real "
            f"number), like {{1: 0.5, 2: 3}}; got {type(gain_values).__name__}"
        )
    out = {}
    for level, value in gain_values.items():
        if isinstance(level, bool) or not isinstance(level, numbers.Integral):
            raise TypeError(
                "gain_values: the keys are relevance grades, ints (trec_eval's levels), "
                f"got {level!r} of type {type(level).__name__}"
            )
        if level < 0:
            raise ValueError(
                f"gain_values: grade {int(level)} is negative; a negative grade is an unjudged "
                "item here, which has no gain (trec_eval's ndcg.-1=g would give that gain to "
                "every retrieved document missing from the qrels, never to the ideal ranking)"
            )
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(
                f"gain_values: the gain of grade {int(level)} must be a real number, got "
                f"{value!r} of type {type(value).__name__}"
            )
        if not np.isfinite(float(value)):
            raise ValueError(f"gain_values: the gain of grade {int(level)} must be finite")
        out[int(level)] = float(value)
    return GainValues(out)


def entry_gains(r: Ranking, gain_values, base):
    """``(gains of the relevant entries, gain of a judged non-relevant item)`` under the map.

    ``base`` are the relevant entries' gains without the map (the metric's
    ``gain`` keyword applied to the grades): a grade named in the map takes
    the map's gain instead. Level 0 has gain 0 unless the map names it.
    """
    g = np.array(base, dtype=np.float64, copy=True)
    for level, value in gain_values.items():
        if level > 0:
            g[r.gain == level] = value
    return g, gain_values.get(0, 0.0)


def judged_nonrelevant_total(r: Ranking):
    """Per user: the judged non-relevant items, retrieved or not.

    Explicit judgments: the grade-0 rows of ``truth``. Complete judgments:
    every item of the catalogue that is not relevant (``n_items``), or,
    without a catalogue, the list's items that are not relevant.
    """
    if r.judgments == "explicit":
        return r.n_judged_nonrelevant
    if r.n_items is not None:
        return r.n_items - r.n_relevant
    if np.any(~np.isfinite(r.n_ranked)):
        raise ValueError(
            "a gain for grade 0 needs the length of each list: pass n_items with ranks"
        )
    return r.n_ranked - r.per_user_sum(np.isfinite(r.start).astype(np.float64))


def _per_user_cutoff(r: Ranking, k):
    """The cutoff as one float per user (``inf`` for none)."""
    if k is None:
        return np.full(r.n_users, np.inf)
    return np.broadcast_to(np.asarray(k, dtype=np.float64), (r.n_users,))


def expected_dcg(r: Ranking, k, rel_gain, g0, disc):
    """Per user: the expected ``sum_{i <= k} gain_i * disc(i)`` over the ranked items.

    Relevant entries carry ``rel_gain``, judged non-relevant items ``g0``,
    unjudged items 0. ``k`` is None, one cutoff, or one per user. Exact
    under ``ties='expected'``: every item's expected discount is the mean
    over the positions of its tie group, and the sum is linear.
    """
    val = expected_sum(r, k, disc, weights=rel_gain)
    if g0 == 0.0:
        return val
    kk = _per_user_cutoff(r, k)
    if r.judgments == "explicit":
        user = np.repeat(np.arange(r.n_users), np.diff(r.nonrel_indptr))
        start, size = r.nonrel_start, r.nonrel_size
        ranked = np.isfinite(start)
        lo = np.where(ranked, np.minimum(start, kk[user]), 0.0).astype(np.int64)
        hi = np.where(ranked, np.minimum(start + size, kk[user]), 0.0).astype(np.int64)
        part = np.bincount(user, weights=group_mean(disc, lo, hi, size), minlength=r.n_users)
        return val + g0 * part
    # complete judgments: every ranked item that is not relevant is judged non-relevant
    if np.any(~np.isfinite(r.n_ranked)):
        raise ValueError("a gain for grade 0 needs the length of each list: pass n_items")
    n = np.minimum(r.n_ranked, kk).astype(np.int64)
    table = prefix_table(disc, n.max() if n.size else 0)
    nonrel = table[n] - expected_sum(r, k, disc)
    return val + g0 * nonrel


def ideal_runs(r: Ranking, rel_gain, g0):
    """The ideal ranking as runs of equal gain: ``(user, gain, first, count)``.

    Every judged item with a positive gain, in decreasing order of gain per
    user; run ``j`` holds positions ``first + 1 .. first + count``. The
    relevant entries make runs of one item; the judged non-relevant items
    (when ``g0 > 0``) one run of their number.
    """
    keep = rel_gain > 0
    user = r.user[keep]
    gain = rel_gain[keep]
    count = np.ones(user.shape[0])
    if g0 > 0:
        c0 = np.asarray(judged_nonrelevant_total(r), dtype=np.float64)
        has = c0 > 0
        user = np.concatenate([user, np.flatnonzero(has)])
        gain = np.concatenate([gain, np.full(int(has.sum()), g0)])
        count = np.concatenate([count, c0[has]])
    order = np.lexsort((-gain, user))
    user, gain, count = user[order], gain[order], count[order]
    csum = np.cumsum(count)
    first_of_user = np.zeros(r.n_users)
    ends = np.bincount(user, weights=count, minlength=r.n_users)
    first_of_user[1:] = np.cumsum(ends)[:-1]
    first = csum - count - first_of_user[user]
    return user, gain, first, count


def ideal_dcg(r: Ranking, runs, k, disc):
    """Per user: ``sum_{i <= k}`` of the ideal gain at ``i`` times ``disc(i)`` (``k`` per user)."""
    user, gain, first, count = runs
    kk = _per_user_cutoff(r, k)[user]
    lo = np.minimum(first, kk).astype(np.int64)
    hi = np.minimum(first + count, kk).astype(np.int64)
    table = prefix_table(disc, hi.max() if hi.size else 0)
    return np.bincount(user, weights=gain * (table[hi] - table[lo]), minlength=r.n_users)
