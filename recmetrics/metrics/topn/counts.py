"""Top-N metrics that count hits: precision, recall, F-beta, hit ratio, R-precision, confusion."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import gammaln

from ..._docs import fill_doc
from ..._validation import check_choice, check_positive_number
from ...inputs.forms import as_ranking
from ...ranking._representation import condense
from .._core import finish, hits, window
from ._common import RECALL_DENOMINATORS, _cutoff_size, _f_beta, _rank, _ratio, _slots


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
    judged_only=False,
    short_lists="k",
):
    """Precision at k: the fraction of the top ``k`` that is relevant.

    .. math:: \\mathrm{P@}k = \\frac{|\\{\\text{relevant items at } pos \\le k\\}|}{k}

    By default the denominator is ``k`` even when fewer than ``k`` items were
    recommended (as in trec_eval's ``P_k``); ``short_lists='list'`` divides
    by the length of such a list instead, ``min(k, n)`` (LensKit's
    ``Precision``). ``k=None`` uses the whole list;
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
    %(judged_only)s
    short_lists : {'k', 'list'}, default 'k'
        How a list shorter than ``k`` is scored: ``'k'``, its ``k`` slots,
        the empty ones counted as misses (trec_eval, RecTools, ranx);
        ``'list'``, over its own length (LensKit).

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

    A list of two items with one hit, at k = 5:

    >>> precision(["a", "b"], {"a"}, k=5), precision(["a", "b"], {"a"}, k=5, short_lists="list")
    (0.2, 0.5)
    """
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
    val = _ratio(hits(r, k), _slots(r, k, short_lists))
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
    judged_only=False,
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
    %(judged_only)s
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
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
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
    judged_only=False,
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
    %(judged_only)s

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
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
    h = hits(r, k)
    p = _ratio(h, _cutoff_size(r, k))
    rec = _ratio(h, r.n_relevant)
    val = _f_beta(p, rec, beta)
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
    judged_only=False,
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
    %(judged_only)s

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
        judged_only=judged_only,
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
    judged_only=False,
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
    %(judged_only)s

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
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
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
def r_precision(
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
    """R-precision: precision at rank ``|R|``, the number of relevant items of the user.

    .. math:: \\mathrm{R\\text{-}prec} = \\mathrm{P@}|R|
              = \\frac{|\\{\\text{relevant items at } pos \\le |R|\\}|}{|R|}

    Each user is cut at its own ``|R|``, so that every user is measured at
    the point of its ranking where precision equals recall (trec_eval's
    ``Rprec``, Buckley and Voorhees, 2005). ``|R|`` counts every relevant
    item of the user, also those missing from a ranked list; a list shorter
    than ``|R|`` is scored over ``|R|`` slots, the empty ones counted as
    misses (trec_eval looks at ``min(|R|, list length)`` ranks and divides
    by ``|R|``). Graded relevance counts every item with gain > 0 as
    relevant. Under ``ties='expected'`` the number of hits is its
    expectation over the orders of tied items; ``|R|`` does not depend on
    the order, so the value is the exact expectation of R-precision. It
    equals :func:`~recmetrics.break_even_point`.

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
    precision : Precision at one cutoff ``k`` for every user.
    recall : At ``k = |R|`` recall equals R-precision.
    recmetrics.break_even_point : The same value, read off the P-R curve.

    References
    ----------
    %(ref_buckley2005)s

    %(ref_manning2008)s

    %(ref_trec_eval)s

    Examples
    --------
    Three relevant items, two of them in the top 3:

    >>> r_precision(["a", "b", "c", "d"], {"a", "c", "z"})
    0.6666666666666666
    >>> r_precision([1, 0, 1, 1, 0])   # |R| = 3, hits in the top 3: 2
    0.6666666666666666

    Two users; the second one's relevant item is tied with three others at
    the top, so it is in the first position with probability 1/4:

    >>> y_true = [[1, 0, 1, 0], [0, 1, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.7, 0.1], [0.5, 0.5, 0.5, 0.5]]
    >>> r_precision(y_true, y_score, per_user=True).tolist()
    [0.5, 0.25]
    >>> r_precision(y_true, y_score, ties="optimistic", per_user=True).tolist()
    [0.5, 1.0]
    """
    r, single = as_ranking(a, b, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
    r = condense(r, judged_only)
    r.check_depth(None, "R-precision")
    return finish(
        _precision_at_own_cutoff(r), r, single, no_relevant=no_relevant, per_user=per_user
    )


def _precision_at_own_cutoff(r):
    """Per user, the hits in the top ``|R|`` over ``|R|`` (0 without relevant items)."""
    n_rel = r.n_relevant
    return _ratio(hits(r, np.maximum(n_rel, 1)), n_rel)


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
