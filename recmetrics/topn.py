"""Top-N metrics: precision, recall, F-beta, hit ratio, ARHR, reciprocal rank, AP.

Every function accepts the input forms of :mod:`recmetrics.ranking`:

* ``f(gains)``: one ranked list of gains (teaching form);
* ``f(recommended, relevant)``: one ranked list of item ids and a set (or a
  graded dict) of relevant ids, or lists of both for many users;
* ``f(y_true, y_score)``: relevance and score arrays, 1-D for one user or
  ``(n_users, n_items)`` (scikit-learn's argument order), optionally with
  ``mask=``;
* ``f(ranks=..., n_items=...)``: ranks of held-out items;

and the keywords ``ties`` (how equal scores are ordered; ``None``, the
default, means ``'expected'``), ``no_relevant`` (``'skip'``, the default,
leaves users without relevant items out of the mean and gives them NaN per
user; ``'zero'``, ``'one'`` and ``'raise'`` are the alternatives) and
``per_user`` (return one value per user instead of the mean). A single list
or a 1-D ``(y_true, y_score)`` pair returns a float. Each function's
``Parameters`` section describes them in full.

What the arguments mean is decided by their types: the relevant items of
ranked lists are a ``set``, ``frozenset`` or ``dict`` (or a list of them),
and any other pair of sequences is ``(y_true, y_score)``.

Notation: for one user, ``pos`` is the 1-based rank, ``|R|`` the number of
relevant items, ``hits@k`` the number of relevant items in the top ``k``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import gammaln

from ._docs import fill_doc
from ._inputs import as_ranking
from ._kernels import CHUNK_CELLS
from ._metric_core import expected_sum, finish, group_mean, hits, window
from ._validation import check_choice, check_k, check_positive_number

__all__ = [
    "precision",
    "recall",
    "f_score",
    "f1",
    "hit_ratio",
    "arhr",
    "reciprocal_rank",
    "mrr",
    "average_precision",
    "confusion",
    "AP_DENOMINATORS",
    "RECALL_DENOMINATORS",
    "AP_TIES",
    "CONFUSION_SLOTS",
]

AP_DENOMINATORS = ("relevant", "min", "k", "hits")
RECALL_DENOMINATORS = ("relevant", "min")
AP_TIES = ("policy", "group_end")


def _rank(a, b, ranks, n_items, mask, ties, k, *, k_required=False):
    k = check_k(k, allow_none=not k_required)
    r, single = as_ranking(a, b, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
    return r, single, k


def _cutoff_size(r, k):
    """Number of recommendation slots: k, or the whole ranking when k is None."""
    if k is None:
        if np.any(~np.isfinite(r.n_ranked)):
            raise ValueError(
                "k is required when the length of the ranking is unknown (ranks without n_items)"
            )
        return r.n_ranked
    return np.full(r.n_users, float(k))


def _ratio(num, den):
    """``num / den``, and 0 where ``den`` is 0 (an empty list retrieves nothing)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


@fill_doc
def precision(
    a=None,
    b=None,
    *,
    k=None,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
):
    """Precision at k: the fraction of the top ``k`` that is relevant.

    .. math:: \\mathrm{P@}k = \\frac{|\\{\\text{relevant items at } pos \\le k\\}|}{k}

    The denominator is ``k`` even when fewer than ``k`` items were
    recommended (as in trec_eval's ``P_k``). ``k=None`` uses the whole list;
    the precision of an empty list is 0 (as trec_eval and ranx). Graded
    relevance counts every item with gain > 0 as relevant. Under
    ``ties='expected'`` the number of hits is its expectation over the
    orders of tied items.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    recall : The fraction of the relevant items found in the top ``k``.
    f_score : The harmonic mean of precision and recall.
    average_precision : Precision averaged over the ranks of the hits.
    break_even_point : Precision at ``k = |R|`` (R-precision).
    confusion : The top-``k`` list as a binary classifier (TP, FP, ...).
    recmetrics.evaluate : Several metrics from one ranking.

    References
    ----------
    %(ref_manning2008)s

    %(ref_trec_eval)s

    Examples
    --------
    >>> precision([1, 0, 1, 1, 0], k=3)
    0.6666666666666666
    >>> precision([3, 4, 2, 1, 5], {1, 3, 5}, k=5)
    0.6

    Two users as ``(y_true, y_score)``; the second one's four items are tied,
    so its expected number of hits in the top 2 is ``2 * 1/4``:

    >>> y_true = [[1, 0, 1, 0], [0, 1, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.7, 0.1], [0.5, 0.5, 0.5, 0.5]]
    >>> precision(y_true, y_score, k=2, per_user=True).tolist()
    [0.5, 0.25]
    >>> precision(y_true, y_score, k=2, ties="optimistic", per_user=True).tolist()
    [0.5, 0.5]

    Leave-one-out ranks of three users' held-out items:

    >>> round(precision(ranks=[1, 5, 20], k=10), 4)
    0.0667
    """
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k)
    val = _ratio(hits(r, k), _cutoff_size(r, k))
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def recall(
    a=None,
    b=None,
    *,
    k=None,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    recall_denominator="relevant",
):
    """Recall at k: the fraction of the relevant items found in the top ``k``.

    .. math:: \\mathrm{R@}k = \\frac{|\\{\\text{relevant items at } pos \\le k\\}|}{|R|}

    ``|R|`` counts every relevant item of the user, also those missing from
    a ranked list (they are never retrieved).

    Parameters
    ----------
    %(a_b)s
    %(k)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s
    recall_denominator : {'relevant', 'min'}, default 'relevant'
        ``'relevant'`` divides by ``|R|`` (trec_eval, ranx, scikit-learn's
        users, most libraries); ``'min'`` divides by ``min(|R|, k)``, so that
        a user with more than ``k`` relevant items can reach 1 (LensKit's
        ``Recall``; with ``k=None`` both are ``|R|``).

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    precision : The fraction of the top ``k`` that is relevant.
    hit_ratio : Whether at least one relevant item is in the top ``k``.
    f_score : The harmonic mean of precision and recall.

    References
    ----------
    %(ref_manning2008)s

    %(ref_trec_eval)s

    %(ref_ekstrand2020)s

    Examples
    --------
    >>> recall(["a", "b", "x", "c"], {"a", "c", "z"}, k=2)
    0.3333333333333333
    >>> recall(["a", "b", "x", "c"], {"a", "c", "z"}, k=2, recall_denominator="min")
    0.5
    >>> recall([0, 1, 0, 0])   # no cutoff: every relevant item is somewhere in the list
    1.0
    """
    check_choice(recall_denominator, "recall_denominator", RECALL_DENOMINATORS)
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k)
    den = (
        r.n_relevant
        if recall_denominator == "relevant" or k is None
        else np.minimum(r.n_relevant, k)
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        val = hits(r, k) / den
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def f_score(
    a=None,
    b=None,
    *,
    k=None,
    beta=1.0,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
):
    """F-beta at k, the weighted harmonic mean of precision and recall.

    .. math:: F_\\beta = \\frac{(1+\\beta^2)\\,P\\,R}{\\beta^2 P + R}

    with ``P = P@k`` (:func:`precision`) and ``R = R@k`` (:func:`recall`,
    denominator ``|R|``), and 0 when P = R = 0. ``beta > 1`` weighs recall
    more, ``beta < 1`` precision (van Rijsbergen, 1979). The formula is
    evaluated in a form that stays finite for any ``beta``. Under
    ``ties='expected'`` P and R are expectations; F is computed from them
    (not the expectation of F).

    Parameters
    ----------
    %(a_b)s
    %(k)s
    beta : float, default 1.0
        Weight of recall relative to precision (a finite number > 0).
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    f1 : ``f_score`` with ``beta=1``.
    precision, recall : The two means F combines.

    References
    ----------
    %(ref_vanrijsbergen1979)s

    %(ref_manning2008)s

    Examples
    --------
    >>> f_score([1, 0, 1, 0], k=2)     # P = 1/2, R = 1/2
    0.5
    >>> round(f_score([1, 0, 1, 0, 0, 1], k=2, beta=2), 4)   # P = 1/2, R = 1/3
    0.3571
    """
    beta = check_positive_number(beta, "beta")
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k)
    h = hits(r, k)
    p = _ratio(h, _cutoff_size(r, k))
    rec = _ratio(h, r.n_relevant)
    # (1 + b2) P R / (b2 P + R) = P R / (w P + (1 - w) R) with w = b2 / (1 + b2),
    # which stays finite for any beta (beta**2 may overflow or underflow)
    w = 1.0 / (1.0 + 1.0 / (beta * beta)) if beta * beta > 0 else 0.0
    val = _ratio(p * rec, w * p + (1.0 - w) * rec)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def f1(
    a=None,
    b=None,
    *,
    k=None,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
):
    """F1 at k: :func:`f_score` with ``beta=1``, the harmonic mean of precision and recall.

    .. math:: F_1 = \\frac{2\\,P\\,R}{P + R}

    (0 when P = R = 0), with ``P = P@k`` and ``R = R@k``.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    f_score : F-beta, weighing recall ``beta`` times as much as precision.
    precision, recall : The two means F1 combines.

    References
    ----------
    %(ref_vanrijsbergen1979)s

    Examples
    --------
    >>> f1([1, 1, 0, 0, 1], k=4)   # P = 2/4, R = 2/3
    0.5714285714285715
    >>> f1(["a", "b", "c", "d"], {"a", "d", "e"}, k=2)   # P = 1/2, R = 1/3
    0.4
    """
    return f_score(
        a,
        b,
        k=k,
        beta=1.0,
        ranks=ranks,
        n_items=n_items,
        mask=mask,
        ties=ties,
        no_relevant=no_relevant,
        per_user=per_user,
    )


@fill_doc
def hit_ratio(
    a=None,
    b=None,
    *,
    k=None,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
):
    """Hit ratio at k: 1 if at least one relevant item is in the top ``k``.

    .. math:: \\mathrm{HR@}k = \\mathbb{1}\\big[\\exists\\, i \\in R:\\ pos_i \\le k\\big]

    Averaged over users this is the HR@N of the sources, ``hits / |U|``
    (Deshpande & Karypis, 2004). Under ``ties='expected'`` it is the
    probability of a hit when ties are ordered at random: a tie group of
    ``t`` items holding ``c`` relevant ones, ``m`` of whose positions fall
    within the cutoff, misses with probability ``C(t - m, c) / C(t, c)``.
    With one relevant item per user (leave-one-out) it equals recall at k.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    arhr : Rewards each hit by its reciprocal rank.
    reciprocal_rank : ``1 / pos`` of the first hit.
    recall : The fraction of the relevant items in the top ``k``.

    References
    ----------
    %(ref_deshpande2004)s

    %(ref_mcsherry2008)s

    Examples
    --------
    >>> hit_ratio([0, 0, 1], k=2), hit_ratio([0, 0, 1], k=3)
    (0.0, 1.0)
    >>> hit_ratio(ranks=[1, 7, 30], k=10)   # leave-one-out: 2 of 3 users hit
    0.6666666666666666
    """
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k)
    lo, hi = window(r, k)
    m, t, c = (hi - lo).astype(float), r.size, r.group_rel
    # probability that at least one of the group's c relevant items lands in
    # the m positions of the group inside the cutoff: 1 - C(t-m, c) / C(t, c)
    with np.errstate(invalid="ignore", divide="ignore"):
        log_miss = gammaln(t - m + 1) - gammaln(t - m - c + 1) - gammaln(t + 1) + gammaln(t - c + 1)
        p = np.where(m <= 0, 0.0, np.where(t - m < c, 1.0, -np.expm1(log_miss)))
    val = np.zeros(r.n_users)
    np.maximum.at(val, r.user, p)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def arhr(
    a=None,
    b=None,
    *,
    k=None,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
):
    """Average reciprocal hit rank at k (the sources' ARHR@N).

    .. math:: \\mathrm{ARHR@}k = \\sum_{\\text{relevant } i,\\ pos_i \\le k} \\frac{1}{pos_i}

    per user, averaged over users (Deshpande & Karypis, 2004). With one
    relevant item per user (leave-one-out) it equals MRR@k; with several it
    can exceed 1. Under ``ties='expected'`` each relevant item's ``1 / pos``
    is averaged over the positions of its tie group.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    reciprocal_rank : ``1 / pos`` of the first hit only (MRR).
    hit_ratio : Whether there is a hit at all.

    References
    ----------
    %(ref_deshpande2004)s

    Examples
    --------
    >>> arhr([1, 0, 1, 0], k=4)
    1.3333333333333333
    >>> arhr(ranks=[[1, 3], [2]], per_user=True).round(4).tolist()
    [1.3333, 0.5]
    """
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k)
    val = expected_sum(r, k, lambda i: 1.0 / i)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def reciprocal_rank(
    a=None,
    b=None,
    *,
    k=None,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
):
    """Reciprocal rank: ``1 / pos`` of the first relevant item (0 if none in the top ``k``).

    .. math:: \\mathrm{RR@}k = \\frac{\\mathbb{1}[pos_1 \\le k]}{pos_1}, \\qquad
              pos_1 = \\min_{i \\in R} pos_i

    Its mean over users is the MRR (Voorhees, 1999); :func:`mrr` is the
    same function. ``k=None`` (default) has no cutoff, as trec_eval's
    ``recip_rank``.

    Under ``ties='expected'`` the first relevant item of a tie group of
    ``t`` items holding ``c`` relevant ones sits at slot ``s`` of the group
    with probability ``C(t - s, c - 1) / C(t, c)``; the expectation of
    ``1 / (a + s)`` is summed over those slots with a stable recurrence, in
    time linear in the group size and bounded memory.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    arhr : Sums ``1 / pos`` over every hit, not only the first.
    hit_ratio : Whether there is a hit at all.
    average_precision : Precision averaged over the ranks of all hits.

    References
    ----------
    %(ref_voorhees1999)s

    %(ref_mcsherry2008)s

    %(ref_trec_eval)s

    Examples
    --------
    >>> reciprocal_rank([3, 4, 2, 1, 5], {1, 3, 5})
    1.0
    >>> reciprocal_rank(["x", "y", "a"], {"a"}), reciprocal_rank(["x", "y", "a"], {"a"}, k=2)
    (0.3333333333333333, 0.0)
    >>> mrr(ranks=[1, 2, 4], k=3)   # (1 + 1/2 + 0) / 3
    0.5

    Two relevant items tied with a third item at the top: the first relevant
    one is at position 1 with probability 2/3, else at 2:

    >>> round(reciprocal_rank([0, 1, 1, 0], [0.5, 0.5, 0.5, 0.1]), 4)   # 2/3 + 1/3 * 1/2
    0.8333
    """
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k)
    val = np.zeros(r.n_users)
    has = np.diff(r.indptr) > 0
    users = np.flatnonzero(has)
    first = r.indptr[users]  # entries are sorted by start within each user
    a0, t, c = r.start[first], r.size[first], r.group_rel[first]
    ranked = np.isfinite(a0)
    users, a0, t, c = users[ranked], a0[ranked], t[ranked], c[ranked]
    kk = np.inf if k is None else float(k)
    # position s (1..t-c+1) of the first relevant item within the tie group
    length = np.clip(np.minimum(t - c + 1, kk - a0), 0, None)
    val[users] = _expected_first_rr(a0, t, c, length)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


def _expected_first_rr(a, t, c, length, block=256, cells=CHUNK_CELLS):
    """``sum_{s=1}^{length} P(S = s) / (a + s)`` with ``P(S = s) = C(t-s, c-1) / C(t, c)``.

    ``P(S = 1) = c / t`` and ``P(S = s + 1) = P(S = s) (t - s - c + 1) / (t - s)``;
    blocks of ``block`` slots are evaluated at once for the groups still
    active, and a group stops once its remaining probability mass cannot
    change the sum (``P(S > s) = P(S = s) (t - s) / c`` bounds it). Untied
    items (``t = 1``) cost nothing beyond ``1 / (a + 1)``.
    """
    out = np.zeros(a.shape[0])
    ok = length >= 1
    single = ok & (t == 1)
    out[single] = 1.0 / (a[single] + 1.0)
    active = np.flatnonzero(ok & (t > 1))
    if active.size == 0:
        return out
    p = c[active] / t[active]  # P(S = 1)
    s0 = 1.0
    offs = np.arange(block, dtype=np.float64)
    while active.size:
        step = max(1, min(block, cells // max(active.size, 1)))
        sl = s0 + offs[:step]  # slots s0 .. s0 + step - 1
        ta, ca, aa, la = t[active, None], c[active, None], a[active, None], length[active, None]
        # ratio P(S = s + 1) / P(S = s) for s = s0 .. s0 + step - 2, prefixed by 1
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(
                sl[None, :-1] < ta - ca + 1,
                (ta - sl[None, :-1] - ca + 1) / (ta - sl[None, :-1]),
                0.0,
            )
        probs = p[:, None] * np.concatenate(
            [np.ones((active.size, 1)), np.cumprod(ratio, axis=1)], axis=1
        )
        inside = sl[None, :] <= la
        out[active] += np.sum(np.where(inside, probs / (aa + sl[None, :]), 0.0), axis=1)
        last = probs[:, -1]
        s_last = sl[-1]
        nxt = last * np.where(
            s_last < t[active] - c[active] + 1,
            (t[active] - s_last - c[active] + 1) / np.maximum(t[active] - s_last, 1.0),
            0.0,
        )
        tail = (
            last * np.maximum(t[active] - s_last - c[active] + 1, 0.0) / c[active]
        )  # P(S > s_last)
        keep = (
            (s_last + 1 <= length[active])
            & (nxt > 0)
            & (tail / (a[active] + s_last + 1) > 1e-17 * out[active])
        )
        active, p = active[keep], nxt[keep]
        s0 = s_last + 1
    return out


mrr = reciprocal_rank


@fill_doc
def average_precision(
    a=None,
    b=None,
    *,
    k=None,
    ap_denominator="min",
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    ap_ties="policy",
):
    """Average precision at k; its mean over users is MAP@k.

    .. math:: \\mathrm{AP@}k = \\frac{1}{D}\\sum_{i=1}^{k} \\mathrm{rel}(i)\\,\\mathrm{P@}i

    Libraries disagree on the denominator ``D``; choose it with
    ``ap_denominator``:

    * ``'min'`` (default, the book's recommendation): ``min(|R|, k)``, so
      that a perfect top-k scores 1 even when ``|R| > k``, while relevant
      items that would fit in the top ``k`` and are missed still cost (the
      sources' eq. (6), Krichene & Rendle 2020, RecBole, Recommenders'
      ``map_at_k``);
    * ``'relevant'``: ``|R|``, all relevant items, found or not
      (trec_eval's ``map`` and ``map_cut``, pytrec_eval, ranx);
    * ``'k'``: ``k``;
    * ``'hits'``: the number of relevant items found in the top ``k`` (the
      mean precision at the hits; under ``ties='expected'`` this is the ratio
      of the expected numerator and the expected number of hits).

    With ``k=None`` there is no cutoff: ``k`` is the length of the ranking
    ``n``, so ``'relevant'`` and ``'min'`` give ``|R|`` (and so does
    ``'hits'`` when every relevant item is ranked), while ``'k'`` gives ``n``.
    Under ``ties='expected'`` the value is the exact expectation over orders
    of tied items (McSherry & Najork, 2008).

    ``ap_ties='group_end'`` is scikit-learn's ``average_precision_score``
    instead: every relevant item of a tied group gets the precision measured
    after the *whole* group, ``(H + h) / (N + m)`` (``H``, ``N``: relevant and
    all items above the group; ``h``, ``m``: relevant and all items in it).
    That is no average over tie orders. It needs ``ties='expected'`` (which
    keeps the groups; under a deterministic policy every group has one item
    and both rules agree) and no cutoff, as scikit-learn has none. The
    default ``'policy'`` uses the tie policy ``ties``.

    Graded relevance counts every item with gain > 0 as relevant.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    ap_denominator : {'min', 'relevant', 'k', 'hits'}, default 'min'
        The denominator ``D``, as listed above.
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s
    ap_ties : {'policy', 'group_end'}, default 'policy'
        ``'policy'``: the precision at each relevant item follows ``ties``.
        ``'group_end'``: scikit-learn's rule for tied groups, as above (only
        with ``k=None``; ``ValueError`` otherwise).

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    precision : The precision at one cutoff.
    reciprocal_rank : ``1 / pos`` of the first hit.
    recmetrics.ndcg : Position-discounted gain, normalised by its ideal.
    recmetrics.conventions.describe : Which library uses which denominator.

    References
    ----------
    %(ref_manning2008)s

    %(ref_krichene2020)s

    %(ref_mcsherry2008)s

    %(ref_trec_eval)s

    %(ref_pedregosa2011)s

    %(ref_tamm2021)s

    Examples
    --------
    >>> round(average_precision(["a", "b", "x", "c"], {"a", "b", "c"}), 6)   # (1/1 + 2/2 + 3/4) / 3
    0.916667
    >>> average_precision([1, 0, 0, 0, 0, 0, 0], k=3, ap_denominator="min")  # |R| = 1
    1.0
    >>> y_true, y_score = [[1, 1, 0]], [[0.5, 0.5, 0.5]]   # one tied group
    >>> expected = average_precision(y_true, y_score)
    >>> group_end = average_precision(y_true, y_score, ap_ties="group_end")
    >>> round(expected, 4), round(group_end, 4)
    (0.8056, 0.6667)

    The denominators differ once ``|R| > k``: one hit at rank 1 of 2 relevant
    items, cut at 1:

    >>> [average_precision(ranks=[[1, 3]], k=1, ap_denominator=d)
    ...  for d in ("min", "relevant", "k", "hits")]
    [1.0, 0.5, 1.0, 1.0]
    """
    check_choice(ap_denominator, "ap_denominator", AP_DENOMINATORS)
    check_choice(ap_ties, "ap_ties", AP_TIES)
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k)
    if ap_ties == "group_end":
        if k is not None:
            raise ValueError(
                "ap_ties='group_end' (scikit-learn's average_precision_score) has no cutoff; pass "
                "k=None"
            )
        ranked = np.isfinite(r.start)
        with np.errstate(invalid="ignore", divide="ignore"):
            prec_end = np.where(ranked, (r.rel_before + r.group_rel) / (r.start + r.size), 0.0)
        num = r.per_user_sum(prec_end)
        den = r.n_relevant if ap_denominator != "hits" else hits(r, None)
        with np.errstate(invalid="ignore", divide="ignore"):
            val = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
        return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)
    lo, hi = window(r, k)
    m = (hi - lo).astype(float)
    s0 = group_mean(lambda i: 1.0 / i, lo, hi, r.size) * r.size  # sum_{s=1..m} 1/(a+s)
    s1 = m - (lo + 1.0) * s0  # sum_{s=1..m} (s-1)/(a+s)
    t, c, h = r.size, r.group_rel, r.rel_before
    with np.errstate(invalid="ignore", divide="ignore"):
        coef = np.where(t > 1, (c - 1.0) / (t - 1.0), 0.0)
    num = r.per_user_sum(((h + 1.0) * s0 + coef * np.where(t > 1, s1, 0.0)) / t)
    nrel = r.n_relevant
    if ap_denominator == "relevant" or k is None and ap_denominator == "min":
        den = nrel
    elif ap_denominator == "min":
        den = np.minimum(nrel, k)
    elif ap_denominator == "k":
        den = _cutoff_size(r, k)
    else:
        den = hits(r, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


CONFUSION_SLOTS = ("list", "k")


@fill_doc
def confusion(
    a=None, b=None, *, k=None, ranks=None, n_items=None, mask=None, ties=None, recommended="list"
):
    """The top-k list as a binary classifier: TP, FP, FN, TN and accuracy per user.

    Recommending the top ``k`` predicts "relevant" for those items and "not
    relevant" for the rest of the catalogue, so

    .. math::

        TP = \\mathrm{hits@}k, \\quad FP = k' - TP, \\quad FN = |R| - TP, \\quad
        TN = n - k' - FN, \\quad \\mathrm{accuracy} = \\frac{TP + TN}{n},

    with ``n`` the catalogue size (``n_items``), and ``k' = min(k, list
    length)`` (``recommended='list'``, default: the
    slots actually filled), or ``k' = k`` (``recommended='k'``: an empty slot
    counts as a false positive, as RecTools' ``calc_confusions`` does with
    lists shorter than ``k``). TN (and accuracy) need the catalogue size;
    they are NaN when it is unknown. Under ``ties='expected'`` the counts are
    expectations. Precision is ``TP / (TP + FP)`` only when ``k`` items are
    recommended, or with ``recommended='k'``.

    Users without relevant items are kept (there is no ``no_relevant``), and
    one user's input also gives a one-row table.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    recommended : {'list', 'k'}, default 'list'
        What ``k'`` counts: the slots actually filled (``'list'``) or all
        ``k`` slots (``'k'``, which needs a cutoff ``k``).

    Returns
    -------
    pandas.DataFrame
        One row per user (index ``0 .. n_users - 1``), with float columns
        ``TP``, ``FP``, ``FN``, ``TN`` and ``accuracy``.

    See Also
    --------
    precision, recall : ``TP / k`` and ``TP / |R|``.
    recmetrics.roc_curve : TPR and FPR at every threshold of one list of scores.

    References
    ----------
    %(ref_fawcett2006)s

    %(ref_manning2008)s

    Examples
    --------
    >>> confusion([1, 0, 1, 0, 0, 1], k=2)
        TP   FP   FN   TN  accuracy
    0  1.0  1.0  2.0  2.0  0.5

    A list shorter than ``k`` (second user), in a catalogue of 10 items:

    >>> lists, relevant = [["a", "b", "c"], ["d", "e"]], [{"a", "z"}, {"q"}]
    >>> confusion(lists, relevant, k=3, n_items=10, recommended="k")
        TP   FP   FN   TN  accuracy
    0  1.0  2.0  1.0  6.0       0.7
    1  0.0  3.0  1.0  6.0       0.6
    """
    check_choice(recommended, "recommended", CONFUSION_SLOTS)
    r, _, k = _rank(a, b, ranks, n_items, mask, ties, k)
    tp = hits(r, k)
    if recommended == "k" and k is None:
        raise ValueError("recommended='k' needs a cutoff k")
    n_rec = _cutoff_size(r, k) if recommended == "k" else np.minimum(_cutoff_size(r, k), r.n_ranked)
    fp = n_rec - tp
    fn = r.n_relevant - tp
    cat = np.full(r.n_users, np.nan) if r.n_items is None else r.n_items
    tn = cat - n_rec - fn
    return pd.DataFrame({"TP": tp, "FP": fp, "FN": fn, "TN": tn, "accuracy": (tp + tn) / cat})
