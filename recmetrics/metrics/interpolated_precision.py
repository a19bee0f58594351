"""Interpolated precision at recall levels, trec_eval's ``iprec_at_recall_x`` and ``11pt_avg``.

* :func:`iprec_at_recall` (``iprec_at_recall_x``, ``m_iprec_at_recall.c``):
  the best precision reached at or below the rank where recall ``x`` is
  reached, the points of the standard recall-precision graph;
* :func:`precision_11pt` (``11pt_avg``, ``m_11pt_avg.c``): their mean over
  the 11 recall levels 0.0, 0.1, ..., 1.0.

Both are exact under ``ties='expected'`` (the expectation of a maximum over
the orders of tied items, counted group by group). The users and recall
levels that no tie group reaches (every user under a deterministic tie
policy) are read in one vectorised pass over the hits' precisions, and
the levels of one Ranking are computed once, shared by the 11
``iprec_at_recall_x`` measures and ``11pt_avg`` of an evaluation.
"""

from __future__ import annotations

import numpy as np

from .._docs import fill_doc
from .._validation import check_fraction
from ._core import at_value, finish
from .topn._common import _rank

__all__ = ["iprec_at_recall", "precision_11pt", "RECALL_LEVELS", "IPREC_AT_LEVEL"]


# --------------------------------------------------------------------------
# interpolated precision at recall levels (m_iprec_at_recall.c, m_11pt_avg.c)
# trec_eval's default recall levels, 0.0, 0.1, ..., 1.0
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _recall_cut(level, n_rel):
    """The number of relevant items a recall level asks for: trec_eval 9.0's rounding.

    ``(long) (level * num_rel + 0.9)`` in doubles, as trec_eval 9.0.8 (which
    pytrec_eval embeds) computes it; trec_eval 10.0 uses ``lround(level *
    num_rel)`` instead, which differs when ``level * num_rel`` has a
    fractional part in [0.1, 0.5).
    """
    return int(level * float(n_rel) + 0.9)


def _count_above(n, g, lower):
    """Weight of the ``g``-subsets ``J_1 < ... < J_g`` of ``1..n`` with ``J_i >= lower[:, i]``.

    One row of ``lower`` (shape ``(V, g)``) per set of bounds; returned as
    fractions of all ``C(n, g)`` subsets (each step is scaled by the
    unconstrained count, so that no count overflows).
    """
    j = np.arange(1, n + 1)
    ways = (j[None, :] >= lower[:, :1]).astype(np.float64)
    free = np.ones(n)
    for i in range(1, g):
        scale = free.sum()
        # J_i = j needs J_{i-1} < j: the running sum of the previous step, shifted by one
        prev = np.cumsum(ways, axis=1)
        ways = np.zeros_like(prev)
        ways[:, 1:] = prev[:, :-1] * (j[None, 1:] >= lower[:, i : i + 1]) / scale
        free = np.concatenate(([0.0], np.cumsum(free)[:-1])) / scale
    return ways.sum(axis=1) / free.sum()


def _group_max(b, s, n, g, c):
    """Distribution of ``max (b + i) / (s + J_i)`` over ``i`` with ``b + i >= c``.

    ``J`` is a uniformly random ``g``-subset of the ``n`` positions of a tie
    group with ``s`` items above it and ``b`` relevant items above it.
    Returns the support (sorted floats) and the CDF at each support value,
    computed exactly in integers: ``(b + i) / (s + j) <= p / q`` iff
    ``j >= ceil((b + i) q / p) - s``.
    """
    i0 = max(1, c - b)
    if n == 1 or n == g:  # one order only: J_i = i
        v = max((b + i) / (s + i) for i in range(i0, g + 1))
        return np.array([v]), np.array([1.0])
    i = np.arange(i0, g + 1)
    offset = np.arange(n - g + 1)  # J_i ranges over i .. n - g + i
    p = np.repeat(b + i, offset.shape[0]).astype(np.int64)
    q = (s + i[:, None] + offset[None, :]).ravel().astype(np.int64)
    # equal rationals give equal doubles (division is correctly rounded)
    support, first = np.unique(p / q, return_index=True)
    p, q = p[first], q[first]
    lower = np.zeros((support.shape[0], g), dtype=np.int64)  # no bound for i < i0
    for ii in range(i0, g + 1):
        lower[:, ii - 1] = -((-(b + ii) * q) // p) - s
    cdf = np.empty(support.shape[0])
    step = max(1, 4_000_000 // n)  # rows of the counting table at a time
    for lo in range(0, support.shape[0], step):
        cdf[lo : lo + step] = _count_above(n, g, lower[lo : lo + step])
    return support, cdf


def _expected_iprec(groups, cut, n_rel_ret):
    """E[max over relevant ranks m >= cut of m / pos_m] over the orders of tied items."""
    if n_rel_ret == 0 or cut > n_rel_ret:
        return 0.0
    cut = max(cut, 1)  # trec_eval: a cut of 0 relevant items reads the best precision
    parts = [_group_max(b, s, n, g, cut) for b, s, n, g in groups if b + g >= cut]
    support = np.unique(np.concatenate([v for v, _ in parts]))
    cdf = np.ones(support.shape[0])
    for v, f in parts:  # independent groups: the CDF of the max is the product
        at = np.searchsorted(v, support, side="right") - 1
        cdf *= np.where(at >= 0, f[np.maximum(at, 0)], 0.0)
    return float(np.sum(support * np.diff(cdf, prepend=0.0)))


def _user_groups(r, u):
    """The tie groups of user ``u``'s ranked relevant items: ``(b, s, n, g)`` by position."""
    lo, hi = r.indptr[u], r.indptr[u + 1]
    start, size = r.start[lo:hi], r.size[lo:hi]
    ranked = np.isfinite(start)
    groups = {}
    for s, n, b, g in zip(
        start[ranked],
        size[ranked],
        r.rel_before[lo:hi][ranked],
        r.group_rel[lo:hi][ranked],
        strict=True,
    ):
        groups[int(s)] = (int(b), int(s), int(n), int(g))
    return sorted(groups.values(), key=lambda t: t[1]), int(ranked.sum())


def _iprec_exact(r, levels, users=None):
    """Per user (of ``users``, default all) and level: the expectation, group by group.

    The exact computation for every user, tied or not (the fast path of
    :func:`_iprec_values` leaves to it only the users and levels that a tie
    group reaches); also the reference the tests compare the fast path with.
    """
    users = range(r.n_users) if users is None else users
    out = np.zeros((len(users), len(levels)))
    R = r.n_relevant
    for row, u in enumerate(users):
        groups, n_rel_ret = _user_groups(r, u)
        for col, level in enumerate(levels):
            out[row, col] = _expected_iprec(groups, _recall_cut(level, int(R[u])), n_rel_ret)
    return out


def _iprec_prep(r):
    """What every recall level shares, computed once per Ranking (kept in ``r._windows``).

    The ranked relevant items of each user in rank order (CSR: ``lo[u]``,
    ``n_rel_ret[u]``), the precision ``m / pos_m`` at each, and per user the
    largest ``m`` a tie group can hold (``reach``, ``b + g`` over the tied
    groups; 0 without ties): a recall cut above it reads untied items only,
    whose precision is fixed. A user whose untied items do not read as the
    ``1, 2, ...``-th hits in rank order (a Ranking built by hand) gets an
    infinite reach, and the exact computation.
    """
    key = ("iprec", "prep")
    if key in r._windows:
        return r._windows[key]
    ranked = np.flatnonzero(np.isfinite(r.start))
    user = r.user[ranked]
    start = r.start[ranked]
    if np.any((user[1:] == user[:-1]) & (start[1:] < start[:-1])):
        # by user, then position (the builders' order already: rarely needed)
        ranked = ranked[np.lexsort((start, user))]
        user = r.user[ranked]
    n_rel_ret = np.bincount(user, minlength=r.n_users)
    lo = np.zeros(r.n_users, dtype=np.int64)
    np.cumsum(n_rel_ret[:-1], out=lo[1:])
    start, size = r.start[ranked], r.size[ranked]
    hits = r.rel_before[ranked] + 1.0
    untied = size == 1.0
    # precision at each untied hit; 0 after the last entry (reduceat needs an index there)
    prec = np.zeros(ranked.shape[0] + 1)
    prec[:-1][untied] = hits[untied] / (start[untied] + 1.0)
    last = r.rel_before[ranked] + r.group_rel[ranked]  # the last hit of the entry's group
    reach = np.zeros(r.n_users)
    tied = ~untied
    np.maximum.at(reach, user[tied], last[tied])
    rank = np.arange(ranked.shape[0]) - lo[user] + 1.0
    odd = np.where(untied, hits != rank, (rank < hits) | (rank > last))
    reach[np.unique(user[odd])] = np.inf
    prep = {"lo": lo, "n_rel_ret": n_rel_ret, "prec": prec, "reach": reach}
    r._windows[key] = prep
    return prep


def _iprec_levels(r, levels):
    """Columns of :func:`_iprec_values` for ``levels``, all levels in one pass."""
    prep = _iprec_prep(r)
    lo, n_rel_ret, reach = prep["lo"], prep["n_rel_ret"], prep["reach"]
    levels = np.asarray(levels, dtype=np.float64)
    # trec_eval 9.0's cut (see _recall_cut), per user (rows) and level (columns)
    cut = (levels[None, :] * r.n_relevant[:, None] + 0.9).astype(np.int64)
    nrr = n_rel_ret[:, None]
    read = (nrr > 0) & (cut <= nrr)  # else 0: fewer than cut relevant items retrieved
    cut = np.maximum(cut, 1)  # a cut of 0 reads the best precision
    exact = read & (cut <= reach[:, None])  # a tie group holds one of the hits read
    fast = read & ~exact
    out = np.zeros(cut.shape)
    uu, cc = np.nonzero(fast)
    if uu.size:
        # max of the precisions from the cut-th hit to the last: [first, end) per pair
        bounds = np.empty(2 * uu.size, dtype=np.int64)
        bounds[0::2] = lo[uu] + cut[uu, cc] - 1
        bounds[1::2] = lo[uu] + n_rel_ret[uu]
        out[uu, cc] = np.maximum.reduceat(prep["prec"], bounds)[0::2]
    for u in np.flatnonzero(exact.any(axis=1)):
        cols = np.flatnonzero(exact[u])
        out[u, cols] = _iprec_exact(r, levels[cols].tolist(), [u])[0]
    return out


def _iprec_values(r, levels):
    """Per user and level: the interpolated precision, exact under ``ties='expected'``.

    Each level is computed once per Ranking and kept in ``r._windows``, so
    that the 11 ``iprec_at_recall_x`` measures and ``11pt_avg`` of one
    evaluation share the work; the levels not yet computed are computed
    together (:func:`_iprec_levels`).
    """
    levels = tuple(float(x) for x in levels)
    missing = [x for x in dict.fromkeys(levels) if ("iprec", x) not in r._windows]
    if missing:
        for x, col in zip(missing, _iprec_levels(r, missing).T, strict=True):
            col.setflags(write=False)
            r._windows[("iprec", x)] = col
    return np.column_stack([r._windows[("iprec", x)] for x in levels])


@fill_doc
def iprec_at_recall(
    a=None,
    b=None,
    *,
    recall_level=0.0,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
):
    """Interpolated precision at a recall level (trec_eval's ``iprec_at_recall_x``).

    .. math:: \\mathrm{iprec}(x) = \\max_{m \\ge c} \\frac{m}{\\mathrm{pos}_m},
              \\qquad c = \\lfloor x |R| + 0.9 \\rfloor

    per user, averaged over users: the best precision reached at or below
    the rank ``pos_m`` of the ``m``-th retrieved relevant item, for every
    ``m >= c`` (trec_eval's interpolation ``Int_Prec(rank X) = max Prec(rank
    Y) for all Y >= X``), and 0 when fewer than ``c`` relevant items are
    retrieved. This is ``m_iprec_at_recall.c`` line by line, with the
    rounding of trec_eval 9.0.8, which pytrec_eval embeds: ``c = (long)
    (x * num_rel + 0.9)`` in doubles (so ``x = 0.4`` of 3 relevant items
    asks for 2, not 1.2). trec_eval 10.0 rounds instead (``lround(x *
    num_rel)``), which gives 1 there. A cut of 0 (``x = 0`` or a small
    ``x |R|``) reads the best precision of the list.

    Under ``ties='expected'`` the value is the exact expectation over the
    orders of tied items: the relevant items of a tie group take a
    uniformly random subset of its positions, independently of the other
    groups, so the CDF of the maximum is the product of the groups' CDFs,
    each counted exactly (a lattice-path count over the group's positions).
    The cost grows with the size of the tie groups (a group of ``n``
    items with ``g`` relevant ones costs about ``g^2 n^2`` operations): for
    large tied blocks (score matrices with many equal scores) prefer
    another tie policy.

    Parameters
    ----------
    %(a_b)s
    recall_level : float, default 0.0
        The recall level ``x`` in [0, 1]. trec_eval's default levels are
        0.0, 0.1, ..., 1.0 (the registry names ``iprec_at_recall_0.00``
        ... ``iprec_at_recall_1.00``; :data:`RECALL_LEVELS`).
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
    precision_11pt : The mean over the 11 standard recall levels.
    recmetrics.precision_recall_curve : The (non-interpolated) curve.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    Relevant items at ranks 1, 3 and 6 of 6 (``|R| = 3``): precision 1,
    2/3 and 1/2 at the three hits.

    >>> iprec_at_recall([1, 0, 1, 0, 0, 1], recall_level=0.5)   # c = 2: max(2/3, 1/2)
    0.6666666666666666
    >>> iprec_at_recall([1, 0, 1, 0, 0, 1], recall_level=1.0)
    0.5
    """
    level = check_fraction(recall_level, "recall_level")
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    val = _iprec_values(r, (level,))[:, 0]
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def precision_11pt(
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
    """11-point interpolated average precision (trec_eval's ``11pt_avg``).

    .. math:: \\mathrm{11pt} = \\frac{1}{11} \\sum_{x \\in \\{0, 0.1, \\ldots, 1\\}}
              \\mathrm{iprec}(x)

    per user, averaged over users, with :func:`iprec_at_recall` at
    trec_eval's 11 recall levels (``m_11pt_avg.c``, which repeats the
    computation of ``m_iprec_at_recall.c`` and averages it; trec_eval
    calls the measure obsolete, kept for comparing old runs with MAP).
    Under ``ties='expected'`` it is the exact expectation, the mean of the
    levels' expectations.

    Parameters
    ----------
    %(a_b)s
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
    iprec_at_recall : Interpolated precision at one recall level.
    recmetrics.average_precision : AP, the measure that replaced it.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> precision_11pt([1, 0, 1, 0, 0, 1])   # 4 levels at 1, 4 at 2/3 (0.7: 2 of 3), 3 at 1/2
    0.7424242424242423
    """
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    val = _iprec_values(r, RECALL_LEVELS).mean(axis=1)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


def _at_level(x):
    """:func:`iprec_at_recall` at ``recall_level=x``: the registry's ``iprec_at_recall_x.xx``."""
    doc = f"Interpolated precision at recall {x:.2f}: iprec_at_recall(recall_level={x})."
    return at_value(iprec_at_recall, "recall_level", x, f"iprec_at_recall_{x:.2f}", doc)


# the registry's metric per trec_eval default level, by trec_eval's name
IPREC_AT_LEVEL = {f"iprec_at_recall_{x:.2f}": _at_level(x) for x in RECALL_LEVELS}
