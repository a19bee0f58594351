"""Cascade measures: expected reciprocal rank (Chapelle et al., 2009).

A user reads the ranking from the top; the item at position ``i`` satisfies
them with probability ``R_i``, a function of its grade, and they stop there;
otherwise they read on. ERR is the expected reciprocal of the position where
they stop:

.. math:: \\mathrm{ERR} = \\sum_{i \\ge 1} \\frac{R_i}{i} \\prod_{j < i} (1 - R_j).

* :func:`err` (ir_measures' ``ERR@k``, from its gdeval provider).

ERR is not a sum of ``f(position)`` over the relevant items: the chance of
reaching an item depends on the items above it. Its exact expectation over
the orders of tied items is derived in :func:`err` (Notes); the C/W/L
measures, whose continuation depends on the gain seen so far, are in
:mod:`recmetrics.metrics.cwl`.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import gammaln

from .._docs import fill_doc
from ._core import finish, window
from .topn._common import _rank

__all__ = ["err", "ERR_MAX_GRADE"]

#: gdeval.pl's ``$MAX_JUDGMENT``: the grade of a perfect item.
ERR_MAX_GRADE = 4

# The exact expectation over a tie group of n items of which n_rel are
# relevant costs about (cutoff positions) x (n_rel + 1) floats: beyond this
# the function raises instead of approximating.
_MAX_TIE_WORK = 50_000_000
_BLOCK = 4_000_000  # floats of one block of tie groups computed together


def _check_max_grade(max_grade):
    if isinstance(max_grade, (bool, np.bool_)) or not isinstance(max_grade, numbers.Real):
        raise TypeError(
            f"max_grade must be a real number > 0 (gdeval's 4), got {max_grade!r} of type "
            f"{type(max_grade).__name__}"
        )
    value = float(max_grade)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"max_grade must be a finite number > 0 (gdeval's 4), got {max_grade!r}")
    return value


def _subset_means(x, n_rel):
    """``m[g, s]``: the mean of ``prod_{i in S} x[g, i]`` over the ``s``-subsets ``S`` of row g.

    Group ``g`` holds ``x[g, :n_rel[g]]`` (the rest is padding). ``m[g, s] =
    e_s(x_g) / C(n_rel[g], s)`` with ``e_s`` the elementary symmetric
    polynomial, built one item at a time as a convex combination (adding
    item ``i``: an ``s``-subset of the first ``i`` items holds it with
    probability ``s / i``), so that no binomial coefficient overflows.
    """
    n_groups, width = x.shape
    m = np.zeros((n_groups, width + 1))
    m[:, 0] = 1.0
    for i in range(1, width + 1):
        s = np.arange(1, i + 1, dtype=np.float64) / i
        new = (1.0 - s) * m[:, 1 : i + 1] + s * x[:, i - 1 : i] * m[:, 0:i]
        active = n_rel >= i
        m[active, 1 : i + 1] = new[active]
    return m


def _log_comb(n, k):
    """``log C(n, k)``, ``-inf`` where ``k < 0`` or ``k > n`` (arrays broadcast)."""
    n, k = np.broadcast_arrays(np.asarray(n, np.float64), np.asarray(k, np.float64))
    ok = (k >= 0) & (k <= n)
    kk = np.where(ok, k, 0.0)
    out = gammaln(n + 1.0) - gammaln(kk + 1.0) - gammaln(n - kk + 1.0)
    return np.where(ok, out, -np.inf)


def _groups_stop(x, n_rel, size, start, m):
    """``E[sum_{j=1}^{m} R_(j) / (start + j) prod_{l<j} x_(l)]`` over the orders of tie groups.

    One row per group: ``size`` items, the relevant ones with ``x = 1 - R``
    (``x[g, :n_rel[g]]``) and ``size - n_rel`` non-relevant ones
    (``x = 1``); ``(j)`` is the item at its ``j``-th position and ``m``
    the number of its positions within the cutoff. With
    ``Q_t = prod_{l <= t} x_(l)``, ``R_(j) prod_{l<j} x_(l) = Q_{j-1} - Q_j``,
    and ``E[Q_t]`` is the mean of the product over a uniform random
    ``t``-subset of the group: a hypergeometric number ``s`` of relevant
    items, each ``s``-subset of them equally likely (:func:`_subset_means`).
    """
    means = _subset_means(x, n_rel)
    t = np.arange(int(m.max()) + 1, dtype=np.float64)[None, :, None]
    s = np.arange(x.shape[1] + 1, dtype=np.float64)[None, None, :]
    nr, sz = n_rel[:, None, None], size[:, None, None]
    t = np.minimum(t, sz)  # t beyond a group's m is not used; keep C(size, t) defined
    log_h = _log_comb(nr, s) + _log_comb(sz - nr, t - s) - _log_comb(sz, t)
    q = np.einsum("gts,gs->gt", np.exp(log_h), means)  # q[g, t] = E[Q_t], t = 0 .. max m
    j = np.arange(1, q.shape[1], dtype=np.float64)[None, :]
    terms = (q[:, :-1] - q[:, 1:]) / (start[:, None] + j)
    return np.sum(np.where(j <= m[:, None], terms, 0.0), axis=1)


def _tied_contributions(x, first, ends, size, start, m):
    """:func:`_groups_stop` for the tie groups starting at entries ``first``, in blocks."""
    n_rel = ends - first
    work = (m + 1.0) * (n_rel + 1.0)
    if np.any(work > _MAX_TIE_WORK):
        g = int(np.argmax(work))
        raise ValueError(
            f"ties='expected': the exact expectation of ERR over a tie group of "
            f"{int(size[g])} items with {int(n_rel[g])} relevant ones, {int(m[g])} of its "
            "positions within the cutoff, is too costly; pass ties='optimistic', "
            "'pessimistic' or 'trec_eval', or a cutoff k"
        )
    out = np.empty(first.shape[0])
    order = np.lexsort((n_rel, m))  # similar groups in one block: little padding
    lo = 0
    while lo < order.shape[0]:
        hi = lo + 1
        while (
            hi < order.shape[0]
            and (hi + 1 - lo) * (m[order[hi]] + 1) * (n_rel[order[lo : hi + 1]].max() + 1) <= _BLOCK
        ):
            hi += 1
        block = order[lo:hi]
        width = int(n_rel[block].max())
        pad = np.ones((block.shape[0], width))
        cols = np.arange(width)[None, :]
        idx = first[block][:, None] + cols
        inside = cols < n_rel[block][:, None]
        pad[inside] = x[idx[inside]]
        out[block] = _groups_stop(pad, n_rel[block], size[block], start[block], m[block])
        lo = hi
    return out


def _cumsum_within(values, groups):
    """Running sums of ``values`` restarted at each new value of the sorted ``groups``."""
    import pandas as pd

    return pd.Series(values).groupby(groups, sort=False).cumsum().to_numpy()


def _err_values(r, k, max_grade):
    """Per user: ERR@k, exact over the orders of tied items (see :func:`err`)."""
    sat = (np.power(2.0, r.gain) - 1.0) / np.power(2.0, max_grade)  # R per relevant entry
    lo, hi = window(r, k)
    order = np.lexsort((r.start, r.user))
    user, start, size = r.user[order], r.start[order], r.size[order]
    sat, lo, hi = sat[order], lo[order], hi[order]
    # prod of (1 - R) over the relevant entries of the earlier groups of the user
    log_x = np.log1p(-sat)
    # summed within each user from its first entry (no difference of running sums
    # over all users, so a user's value does not depend on the entries of others:
    # bit for bit the same on a ranking built to a depth)
    within = _cumsum_within(log_x, user)
    before = np.zeros(user.shape[0])  # the sum over the user's earlier entries
    same = np.flatnonzero(user[1:] == user[:-1]) + 1
    before[same] = within[same - 1]
    first = np.ones(user.shape[0], dtype=bool)  # first entry of its (user, group)
    first[1:] = (user[1:] != user[:-1]) | (start[1:] != start[:-1])
    group_first = np.maximum.accumulate(np.where(first, np.arange(user.shape[0]), 0))
    reach = np.exp(before[group_first])
    contrib = np.zeros(user.shape[0])
    single = (size == 1) & (hi > lo)
    contrib[single] = sat[single] / (start[single] + 1.0)
    tied = np.flatnonzero(first & (size > 1) & (hi > lo))
    if tied.shape[0]:
        ends = np.append(np.flatnonzero(first)[1:], user.shape[0])
        end = ends[np.searchsorted(ends, tied, side="right")]
        contrib[tied] = _tied_contributions(
            1.0 - sat, tied, end, size[tied], start[tied], (hi - lo)[tied].astype(np.float64)
        )
    return np.bincount(user, weights=reach * contrib, minlength=r.n_users)


@fill_doc
def err(
    a=None,
    b=None,
    *,
    k=None,
    max_grade=ERR_MAX_GRADE,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
):
    """Expected reciprocal rank ERR@k: the expected ``1 / position`` where a cascading user stops.

    .. math:: \\mathrm{ERR}@k = \\sum_{i=1}^{\\min(k, n)} \\frac{R_i}{i}
              \\prod_{j=1}^{i-1} (1 - R_j), \\qquad
              R_i = \\frac{2^{g_i} - 1}{2^{g_{\\max}}}

    per user, averaged over users (Chapelle et al., 2009), with ``g_i`` the
    grade of the item at position ``i`` (0 for a non-relevant or unjudged
    item), ``n`` the length of the ranking and ``g_max = max_grade`` a fixed
    grade, the same for every user: the top of the grading scale, not the
    largest grade in the user's judgments. A perfect item (grade
    ``g_max``) satisfies with probability ``1 - 2^-g_max``, so ERR < 1 even
    for a perfect ranking: it is not normalised by an ideal ranking.

    The peer is ir_measures' ``ERR@k``, computed by its gdeval provider
    (``ir_measures/providers/gdeval_provider.py``), which runs the TREC Web
    track's ``gdeval.pl`` (``ir_measures/bin/gdeval.pl``, version 1.2a:
    ``sub err``): ``$MAX_JUDGMENT = 4`` (our default ``max_grade=4``; a
    larger grade in the qrels stops gdeval with an error, as it raises
    here), negative grades count 0 (our unjudged items), the first
    ``min(k, n)`` items are read (ir_measures requires the cutoff), topics
    without a relevant item are left out (``no_relevant='skip'``), and a
    run's ties are broken by document id, descending (our
    ``ties='trec_eval'``). gdeval prints 5 decimals. trec_eval and ranx
    have no ERR. RankLib's ``ERRScorer`` also fixes ``g_max = 4``; a tool
    that takes ``g_max`` from the data (the largest grade of the
    judgments) is reproduced by passing that grade as ``max_grade``.

    Under ``ties='expected'`` the value is the exact expectation over the
    orders of tied items, although ERR is not linear in the positions.
    Write ``x_i = 1 - R_i``. The probability of reaching a tie group is the
    product of ``x`` over the items above it, which does not depend on their
    order; within a group of ``size`` items at positions
    ``start + 1 .. start + size``, with ``Q_t`` the product of ``x`` over its
    first ``t`` items,

    .. math:: E\\left[\\sum_{j=1}^{m} \\frac{R_{(j)}}{start + j}
              \\prod_{l<j} x_{(l)}\\right]
              = \\sum_{j=1}^{m} \\frac{E[Q_{j-1}] - E[Q_j]}{start + j},
              \\qquad
              E[Q_t] = \\sum_s \\frac{\\binom{r}{s}\\binom{size - r}{t - s}}
              {\\binom{size}{t}} \\, \\frac{e_s(x)}{\\binom{r}{s}}

    with ``m`` the group's positions within the cutoff, ``r`` its relevant
    items and ``e_s`` the elementary symmetric polynomial of their ``x``
    (the first ``t`` items are a uniform random ``t``-subset of the group;
    non-relevant items have ``x = 1``). The cost is ``O(r^2 + m r)`` per tie
    group, whatever the number of grades; a group too large for that raises
    ``ValueError`` naming ``ties`` rather than approximating.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    max_grade : float, default 4
        ``g_max``, the grade of a perfect item (gdeval's ``$MAX_JUDGMENT``;
        Chapelle et al.'s Yahoo! data use grades 0 .. 4). A grade above it
        raises ``ValueError``.
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s
    %(judged_only)s

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    recmetrics.reciprocal_rank : The reciprocal rank of the first relevant item.
    recmetrics.nerr8 : Azzopardi et al.'s C/W/L versions of ERR.

    References
    ----------
    Chapelle, O., Metzler, D., Zhang, Y. and Grinspan, P. (2009). Expected
    reciprocal rank for graded relevance. Proceedings of CIKM 2009, 621-630.
    doi:10.1145/1645953.1646033

    %(ref_macavaney2022)s

    %(ref_mcsherry2008)s

    Examples
    --------
    Grades 4 and 2 at positions 1 and 3 (``R = 15/16`` and ``3/16``):

    >>> round(err([4, 0, 2]), 6)   # 15/16 + (1/16) * (3/16) / 3
    0.941406
    >>> round(err([4, 0, 2], k=1), 6), round(err([1, 1], max_grade=1), 6)
    (0.9375, 0.625)

    A relevant item (grade 1, ``R = 1/16``) tied with a non-relevant one
    sits at position 1 or 2:

    >>> round(err([[1, 0]], [[0.5, 0.5]]), 6)   # (1/16) * (1 + 1/2) / 2
    0.046875
    """
    max_grade = _check_max_grade(max_grade)
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
    if r.gain.shape[0] and np.max(r.gain) > max_grade:
        raise ValueError(
            f"a relevance grade ({np.max(r.gain):g}) exceeds max_grade={max_grade:g}; pass "
            "the top of the grading scale as max_grade (gdeval stops on such a grade)"
        )
    val = _err_values(r, k, max_grade)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)
