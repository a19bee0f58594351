"""Top-N metrics that weigh hits by their position: ARHR, reciprocal rank, average precision."""

from __future__ import annotations

import numpy as np

from ..._docs import fill_doc
from ..._kernels import CHUNK_CELLS
from ..._validation import check_choice
from .._core import expected_sum, finish, group_mean, hits, window
from ._common import AP_DENOMINATORS, AP_TIES, SHORT_LISTS, _rank, _slots


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
    judged_only=False,
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
    %(judged_only)s

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
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
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
    judged_only=False,
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
    %(judged_only)s

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
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
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
    val[users] = _expected_first_rr(a0, t, c, length, longest=kk)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


def _expected_first_rr(a, t, c, length, longest=np.inf, block=256, cells=CHUNK_CELLS):
    """``sum_{s=1}^{length} P(S = s) / (a + s)`` with ``P(S = s) = C(t-s, c-1) / C(t, c)``.

    ``P(S = 1) = c / t`` and ``P(S = s + 1) = P(S = s) (t - s - c + 1) / (t - s)``;
    blocks of ``block`` slots are evaluated at once for the groups still
    active, and a group stops once its remaining probability mass cannot
    change the sum (``P(S > s) = P(S = s) (t - s) / c`` bounds it). Untied
    items (``t = 1``) cost nothing beyond ``1 / (a + 1)``. ``longest`` bounds
    every ``length`` (the cutoff ``k``), and the blocks are no longer.
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
        # no more slots than the cutoff allows (never more than k): a bound
        # that does not depend on which users are evaluated together, so that
        # a user's value is the same bit for bit in any batch of users
        step = int(max(1, min(block, cells // max(active.size, 1), longest)))
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
    judged_only=False,
    ap_ties="policy",
    short_lists="k",
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
      mean precision at the hits, torchmetrics' ``retrieval_average_precision``;
      0 without a hit). Under ``ties='expected'`` this is the exact
      expectation of the ratio over the orders of tied items, not the ratio of
      the expectations: the number of hits is random through the tie group
      that the cutoff cuts, and the value is summed over its hypergeometric
      number of relevant items inside the cutoff.

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
    %(judged_only)s
    ap_ties : {'policy', 'group_end'}, default 'policy'
        ``'policy'``: the precision at each relevant item follows ``ties``.
        ``'group_end'``: scikit-learn's rule for tied groups, as above (only
        with ``k=None``; ``ValueError`` otherwise).
    short_lists : {'k', 'list'}, default 'k'
        What ``k`` means in the denominators ``'min'`` and ``'k'`` for a list
        shorter than ``k``: ``k`` itself, or the list's length ``n``
        (``min(|R|, k, n)``, LensKit's ``AveragePrecision``, also without a
        cutoff).

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

    Two relevant items and two others, all tied, cut at 1: the top item is
    relevant in half of the orders (AP 1) and not in the other half (no hit,
    AP 0), so the expectation is 0.5:

    >>> average_precision([[1, 1, 0, 0]], [[0.5, 0.5, 0.5, 0.5]], k=1, ap_denominator="hits")
    0.5

    The denominators differ once ``|R| > k``: one hit at rank 1 of 2 relevant
    items, cut at 1:

    >>> [average_precision(ranks=[[1, 3]], k=1, ap_denominator=d)
    ...  for d in ("min", "relevant", "k", "hits")]
    [1.0, 0.5, 1.0, 1.0]
    """
    check_choice(ap_denominator, "ap_denominator", AP_DENOMINATORS)
    check_choice(ap_ties, "ap_ties", AP_TIES)
    check_choice(short_lists, "short_lists", SHORT_LISTS)
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
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
    s0 = group_mean(lambda i: 1.0 / i, lo, hi, r.size) * r.size  # sum_{s=1..m} 1/(a+s)
    t, c, h = r.size, r.group_rel, r.rel_before
    if r.untied:  # the terms below vanish exactly: t = 1, coef = 0
        entry_num = (h + 1.0) * s0
        s1 = None
    else:
        m = (hi - lo).astype(float)
        s1 = m - (lo + 1.0) * s0  # sum_{s=1..m} (s-1)/(a+s)
        with np.errstate(invalid="ignore", divide="ignore"):
            coef = np.where(t > 1, (c - 1.0) / (t - 1.0), 0.0)
        entry_num = ((h + 1.0) * s0 + coef * np.where(t > 1, s1, 0.0)) / t
    if ap_denominator == "hits" and k is not None and not r.untied:
        # E[num / hits] is not E[num] / E[hits]: condition on the tie group cut by k
        val = _ap_over_hits_expected(r, k, lo, hi, entry_num, s0, s1)
        return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)
    num = r.per_user_sum(entry_num)
    nrel = r.n_relevant
    if ap_denominator == "min" and short_lists == "list":
        den = np.minimum(nrel, _slots(r, k, short_lists))
    elif ap_denominator == "relevant" or k is None and ap_denominator == "min":
        den = nrel
    elif ap_denominator == "min":
        den = np.minimum(nrel, k)
    elif ap_denominator == "k":
        den = _slots(r, k, short_lists)
    else:
        den = hits(r, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


def _ap_over_hits_expected(r, k, lo, hi, entry_num, s0, s1):
    """Exact ``E[num / H]`` per user for AP over the hits under expected ties.

    The number of hits ``H`` within the top ``k`` is random only through the
    one tie group that the cutoff cuts (``a < k < a + t``): of its ``c``
    relevant items, the number ``J`` among its first ``m = k - a`` slots is
    hypergeometric, ``P(J = j) = C(c, j) C(t - c, m - j) / C(t, m)``. Given
    ``J = j``, those ``j`` items are a uniform ``j``-subset of the ``m``
    slots, so the group adds to the numerator

    .. math:: \\frac{j}{m}\\sum_{s=1}^{m}
              \\frac{h + 1 + (s - 1)(j - 1)/(m - 1)}{a + s},

    while every other group adds its expectation, whatever ``J`` is (the
    orders of different groups are independent). Hence
    ``E[AP] = sum_j P(J = j) (N + num_j) / (H_0 + j)``, with ``N`` and
    ``H_0`` the numerator and hits of the other groups.
    """
    from scipy.stats import hypergeom  # only here: most rankings never need it

    ranked = np.isfinite(r.start)
    cut = ranked & (r.start < k) & (r.start + r.size > k)
    inside = np.where(cut, 0.0, (hi - lo) / r.size)
    n_other = r.per_user_sum(np.where(cut, 0.0, entry_num))
    h_other = r.per_user_sum(inside)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(h_other > 0, n_other / np.where(h_other > 0, h_other, 1.0), 0.0)
    users, first = np.unique(r.user[cut], return_index=True)
    if users.size == 0:
        return val
    e = np.flatnonzero(cut)[first]  # one entry of the cut group per user
    a, t, c, h = r.start[e], r.size[e], r.group_rel[e], r.rel_before[e]
    m = k - a
    S0, S1 = s0[e], s1[e]
    j_lo = np.maximum(0.0, m - (t - c))
    j_hi = np.minimum(c, m)
    count = (j_hi - j_lo + 1).astype(np.int64)
    row = np.repeat(np.arange(users.size), count)
    j = j_lo[row] + (np.arange(row.size) - np.repeat(np.cumsum(count) - count, count))
    mr = m[row]
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = np.where(mr > 1, (j - 1.0) / (mr - 1.0), 0.0)
    num_j = (j / mr) * ((h[row] + 1.0) * S0[row] + spread * S1[row])
    den = h_other[users][row] + j
    pmf = hypergeom.pmf(j, t[row], c[row], mr)
    with np.errstate(invalid="ignore", divide="ignore"):
        term = np.where(den > 0, pmf * (n_other[users][row] + num_j) / np.where(den > 0, den, 1), 0)
    val[users] = np.bincount(row, weights=term, minlength=users.size)
    return val
