"""Rank-biased precision (Moffat & Zobel, 2008) and its residual.

A user reads the ranking from the top and, after each item, goes on to the
next with probability ``p`` (the *persistence*) or stops. RBP is the
expected rate of gain per item read:

.. math:: \\mathrm{RBP}(p) = (1 - p) \\sum_{i \\ge 1} g_i \\, p^{i - 1}.

Items the judgments do not cover contribute nothing, and neither do the
positions beyond the end of the list; the *residual* is how much the score
could still rise if all of them were relevant, so that RBP and RBP plus the
residual bracket the value under complete judgments.

* :func:`rbp` (ir_measures' ``RBP(p=...)``, ranx's ``rbp.80``);
* :func:`rbp_residual`, Moffat & Zobel's residual of the same ranking.
"""

from __future__ import annotations

import numpy as np

from .._docs import fill_doc
from .._validation import check_choice, check_probability
from ._core import finish, window
from .topn._common import _rank

__all__ = ["rbp", "rbp_residual", "RBP_GAINS"]

# binary: every relevant item has gain 1; linear: its grade (ranx's rbp);
# scaled: its grade over the user's largest grade when that is above 1 (trec_eval 10.0)
RBP_GAINS = ("binary", "linear", "scaled")
# rbp_residual: Moffat & Zobel's, or trec_eval 10.0's (0 for a list without
# unjudged items; computed for a user without relevant items too)
RESIDUALS = ("moffat_zobel", "trec_eval")


def _scaled(r):
    """Each relevant entry's grade over its user's largest grade, when that is above 1.

    trec_eval 10.0 (``m_rbp.c``) maps the gains (by default the grades) to
    ``[0, 1]`` by ``(g - min) / (max - min)`` when one lies outside; with
    the grades ``0 .. max`` of a query's qrels that is ``g / max``.
    """
    top = np.zeros(r.n_users)
    np.maximum.at(top, r.user, r.gain)
    return r.gain / np.maximum(top, 1.0)[r.user]


def _weight(r, k, p):
    """Per relevant entry: ``(1 - p) E[p^(pos - 1); pos <= k]`` over its tie group.

    Positions ``lo + 1 .. hi`` of the entry's group fall in the top ``k``
    (:func:`~recmetrics.metrics._core.window`), each with probability
    ``1 / size``, and ``(1 - p) sum_{i=lo+1}^{hi} p^(i-1) = p^lo - p^hi``.
    """
    lo, hi = window(r, k)
    return (np.power(p, lo) - np.power(p, hi)) / r.size


def _nonrel_weight(r, k, p):
    """The same for the judged non-relevant entries (``judgments='explicit'``)."""
    kk = np.inf if k is None else float(k)
    start, size = r.nonrel_start, r.nonrel_size
    ranked = np.isfinite(start)
    lo = np.where(ranked, np.minimum(start, kk), 0.0)
    hi = np.where(ranked, np.minimum(start + size, kk), 0.0)
    return np.where(ranked, (np.power(p, lo) - np.power(p, hi)) / np.maximum(size, 1.0), 0.0)


@fill_doc
def rbp(
    a=None,
    b=None,
    *,
    k=None,
    p=0.8,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
    gain="binary",
):
    """Rank-biased precision RBP(p): the expected gain per item read by a persistent user.

    .. math:: \\mathrm{RBP}(p)@k = (1 - p) \\sum_{i=1}^{\\min(k, n)} g_i \\, p^{i - 1}

    per user, averaged over users (Moffat & Zobel, 2008), with ``g_i`` the
    gain of the item at position ``i`` (``gain='binary'``: 1 for a relevant
    item, 0 otherwise; ``gain='linear'``: its grade) and ``n`` the length of
    the ranking. The user reads the first item, and after each item reads
    the next with probability ``p``: the expected number of items read is
    ``1 / (1 - p)`` (5 for the default ``p = 0.8``). Without a cutoff the
    sum runs over the whole ranking; unjudged items and the positions
    beyond the list count as not relevant, and :func:`rbp_residual` says
    how much they could add.

    The peers: ranx's ``rbp.80`` (``ranx/metrics/rank_biased_precision.py``,
    ``_rank_biased_precision``) sums the qrels' grades, as
    ``gain='linear'`` (they are 0/1 only for binary qrels; its docstring
    says binary), over the whole run, without a cutoff. ir_measures'
    ``RBP(p=0.8)`` (``ir_measures/measures/rbp.py``; default ``p = 0.8``)
    is computed only by its ``cwl_eval`` provider, for binary relevance at a
    threshold (``RBP(rel=1)``: ``gain='binary'``), without a cutoff, over at
    most the first 1000 items of the run. trec_eval 10.0's ``rbp``
    (``m_rbp.c``; default ``p = 0.9``, not in pytrec_eval's trec_eval
    9.0.8) takes the grades as gains and, when one is above 1, maps them to
    ``[0, 1]`` by ``(g - min) / (max - min)`` over the query's grades
    ``0 .. max``: ``gain='scaled'``, ``g / max`` (``min`` and ``max`` are
    read uninitialised there; its test outputs are those of ``min = 0``).

    Under ``ties='expected'`` the value is the exact expectation over the
    orders of tied items: an item of a tie group that spans the positions
    ``start + 1 .. start + size`` contributes, in closed form,

    .. math:: (1 - p) \\frac{1}{size} \\sum_{i=lo+1}^{hi} p^{i - 1}
              = \\frac{p^{lo} - p^{hi}}{size}

    with ``lo = min(start, k)`` and ``hi = min(start + size, k)``.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    p : float, default 0.8
        The persistence, in (0, 1): the probability of reading on after an
        item.
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s
    %(judged_only)s
    gain : {'binary', 'linear', 'scaled'}, default 'binary'
        The gain of a relevant item: 1, its grade (ranx), or its grade over
        the user's largest grade when that is above 1 (trec_eval 10.0).

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    rbp_residual : How much unjudged items and the end of the list could add.
    recmetrics.dcg : A discount by ``log2(i + 1)`` instead of ``p^(i - 1)``.

    References
    ----------
    %(ref_moffat2008)s

    %(ref_bassani2022)s

    %(ref_macavaney2022)s

    %(ref_mcsherry2008)s

    Examples
    --------
    Relevant items at positions 1 and 3: ``0.2 * (1 + 0.8^2)``:

    >>> round(rbp([1, 0, 1, 0]), 6)
    0.328
    >>> round(rbp([1, 0, 1, 0], p=0.5), 6), round(rbp([1, 0, 1, 0], k=2), 6)
    (0.625, 0.2)
    >>> round(rbp([2, 0, 1], gain="linear"), 6)   # the grades, as ranx
    0.528
    >>> round(rbp([2, 0, 1], gain="scaled"), 6)   # the grades over 2, as trec_eval 10.0
    0.264

    A relevant item tied with a non-relevant one sits at position 1 or 2:

    >>> round(rbp([[1, 0]], [[0.5, 0.5]]), 6)   # 0.2 * (1 + 0.8) / 2
    0.18
    """
    p = check_probability(p, "p")
    check_choice(gain, "gain", RBP_GAINS)
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
    g = {"binary": np.ones_like, "linear": np.asarray, "scaled": lambda _: _scaled(r)}[gain](r.gain)
    val = r.per_user_sum(g * _weight(r, k, p))
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def rbp_residual(
    a=None,
    b=None,
    *,
    k=None,
    p=0.8,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
    definition="moffat_zobel",
):
    """The residual of RBP(p): the most it could rise if every unjudged position were relevant.

    .. math:: \\mathrm{res}(p)@k = (1 - p) \\sum_{i \\in U} p^{i - 1}
              + \\left(p^{\\min(k, n)} - p^{k}\\right)
              = 1 - p^{k} - (1 - p) \\sum_{i \\le \\min(k, n),\\ i \\text{ judged}} p^{i - 1}

    per user (Moffat & Zobel, 2008, Sec. 4), with ``U`` the positions of
    the unjudged items among the first ``min(k, n)``, ``n`` the length of
    the ranking, and ``p^k = 0`` without a cutoff: the unjudged items of
    the list, and every position between its end and the cutoff, counted as
    relevant with gain 1. ``RBP <= true RBP <= RBP + residual`` for binary
    gains, whatever the missing judgments are; Moffat & Zobel report RBP as
    ``RBP + residual`` intervals.

    With long data frames the unjudged items are the ranked items that are
    not rows of ``truth`` (:attr:`~recmetrics.Ranking.judgments`); every
    other input judges every ranked item, so that only the end of the list
    is left: ``p^min(k, n) - p^k``, which is 0 for a full ranking of the
    catalogue cut at ``k <= n`` (and tiny without a cutoff). A user without
    relevant items follows ``no_relevant``, as in :func:`rbp`, so that the
    mean residual is the residual of the mean RBP.

    trec_eval 10.0's ``rbp_resid`` (``m_rbp_resid.c``; ``p = 0.9``, no
    cutoff; not in pytrec_eval's trec_eval 9.0.8) is this residual for a
    list that holds an unjudged document (not in the qrels, or with a
    negative grade), and 0 for one that holds none, whose tail ``p^n`` it
    leaves out; it reads no relevance, so that a query without relevant
    documents has its residual too: ``definition='trec_eval'``.

    Under ``ties='expected'`` the value is the exact expectation over the
    orders of tied items: each judged item (relevant or judged
    non-relevant) covers ``(p^lo - p^hi) / size`` of the mass ``1 - p^k``,
    as in :func:`rbp`.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    p : float, default 0.8
        The persistence, in (0, 1), as in :func:`rbp`.
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s
    %(judged_only)s
    definition : {'moffat_zobel', 'trec_eval'}, default 'moffat_zobel'
        Moffat & Zobel's residual (the formula above; a user without
        relevant items follows ``no_relevant``), or trec_eval 10.0's: 0
        for a user whose ranked list (all of it, whatever ``k``) holds no
        unjudged item, and the formula for every other user, with relevant
        items or not (``no_relevant`` is not used).

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    rbp : Rank-biased precision.
    recmetrics.unjudged : The fraction of the top ``k`` that is unjudged.

    References
    ----------
    %(ref_moffat2008)s

    Examples
    --------
    ``x`` is unjudged (position 2), and the list ends after 3 items:
    ``0.2 * 0.8 + 0.8^3``:

    >>> import pandas as pd
    >>> from recmetrics import from_frames
    >>> truth = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "rel": [1, 0]})
    >>> run = pd.DataFrame({"user": [1] * 3, "item": ["a", "x", "b"], "score": [3, 2, 1]})
    >>> r = from_frames(truth, run, relevance="rel")
    >>> round(rbp(r), 6), round(rbp_residual(r), 6)
    (0.2, 0.672)
    >>> round(rbp_residual(r, k=2), 6)   # position 2 only: 0.2 * 0.8
    0.16

    Complete judgments: only the end of the list is left.

    >>> round(rbp_residual([1, 0, 0]), 6), rbp_residual([1, 0, 0], k=3)   # 0.8^3
    (0.512, 0.0)
    >>> rbp_residual([1, 0, 0], definition="trec_eval")   # trec_eval 10.0: no unjudged item
    0.0
    """
    p = check_probability(p, "p")
    check_choice(definition, "definition", RESIDUALS)
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
    tail = 0.0 if k is None else np.power(p, float(k))  # p^k, 0 without a cutoff
    if r.judgments == "complete":
        seen = r.n_ranked if k is None else np.minimum(r.n_ranked, float(k))
        val = np.maximum(np.power(p, seen) - tail, 0.0)
    else:
        # float even when no user has a relevant entry (an empty sum)
        judged = np.asarray(r.per_user_sum(_weight(r, k, p)), dtype=np.float64)
        nonrel_user = np.repeat(np.arange(r.n_users), np.diff(r.nonrel_indptr))
        judged += np.bincount(nonrel_user, weights=_nonrel_weight(r, k, p), minlength=r.n_users)
        val = np.clip(1.0 - tail - judged, 0.0, 1.0)
    if definition == "trec_eval":
        val = np.where(_has_unjudged(r), val, 0.0)
        defined = np.ones(r.n_users, dtype=bool)
        return finish(val, r, single, no_relevant=no_relevant, per_user=per_user, defined=defined)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


def _has_unjudged(r):
    """Per user: whether the ranked list holds an item that is not judged."""
    if r.judgments == "complete":
        return np.zeros(r.n_users, dtype=bool)
    ranked = np.asarray(r.per_user_sum(np.isfinite(r.start).astype(np.float64)), np.float64)
    nonrel_user = np.repeat(np.arange(r.n_users), np.diff(r.nonrel_indptr))
    ranked = ranked + np.bincount(
        nonrel_user, weights=np.isfinite(r.nonrel_start).astype(np.float64), minlength=r.n_users
    )
    return ranked < r.n_ranked
