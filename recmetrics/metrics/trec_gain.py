"""trec_eval's gain-based and utility measures, trec_eval's relstring and ranx's Burges DCG.

* :func:`rndcg` (trec_eval's ``Rndcg``, ``m_Rndcg.c``): NDCG averaged over
  the cutoffs where the ideal gain changes;
* :func:`bin_g` (``binG``, ``m_binG.c``): each retrieved relevant item
  weighs ``1 / log2(2 + non-relevant items above it)``;
* :func:`utility` (``utility``, ``m_utility.c``): a weighted sum of the
  contingency table of the retrieved set;
* :func:`relstring` (``relstring``, ``m_relstring.c``): the grades of the
  top ``k`` as a string, per user (not a number: no registry entry);
* :func:`ndcg_burges` and :func:`dcg_burges` (ranx's ``ndcg_burges`` and
  ``dcg_burges``, ``ranx/metrics/ndcg.py``): NDCG and DCG with the
  exponential gain ``2^rel - 1`` of Burges et al. (2005).

trec_eval's gain maps (``-m Rndcg.1=0.5,2=3``) are the keyword
``gain_values`` (:mod:`recmetrics.metrics._gain_values`): a grade named
there has that gain, every other grade ``l >= 0`` the gain ``l``; grade 0
(judged non-relevant items) may get a gain; gains may be 0 or negative. The
ideal ranking holds every judged item with a positive gain, in decreasing
order of gain. Unjudged items (long data frames: items missing from
``truth``) have gain 0. trec_eval's discount is ``1 / log2(i + 1)``.

Where the ideal order differs from trec_eval's: trec_eval sorts its levels
with the comparator ``(int)(gain1 - gain2)`` (``gain_init.c``:
``comp_rel_gain``), which calls two gains closer than 1 equal. When such
gains meet, its ideal walk may take them in the wrong order, or stop at a
gain of 0 before a positive one (``ndcg.1=0.5`` with judged non-relevant
items: grade 1 never enters the ideal). The ideal here is the decreasing
order; the measures agree with trec_eval whenever its sort is right (the
tests check both). trec_eval also accepts a negative level (``ndcg.-1=5``
gives every retrieved document missing from the qrels the gain 5, never
in the ideal); negative grades are unjudged items here and cannot be named.
trec_eval ``ndcg_cut`` has no gain map; ``ndcg(k=..., gain_values=...)``
applies one at a cutoff (what ir_measures' ``nDCG(gains=...)@k`` computes
through pytrec_eval, by mapping the qrels' grades first).

The measures ``ndcg_rel`` and ``G`` are in
:mod:`recmetrics.metrics.trec_gain_walks`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._docs import fill_doc
from .._validation import check_k
from ..inputs.forms import as_ranking
from ._core import finish, group_mean, hits
from ._gain_values import check_gain_values, entry_gains, expected_dcg, ideal_dcg, ideal_runs
from .ndcg import dcg, ndcg
from .topn._common import _cutoff_size, _rank, _ratio

__all__ = ["rndcg", "bin_g", "utility", "relstring", "ndcg_burges", "dcg_burges"]


def _log2_discount(i):
    return 1.0 / np.log2(i + 1.0)


def _gains(r, gain_values):
    """The relevant entries' gains and grade 0's gain under trec_eval's map (default: the grade)."""
    gain_values = check_gain_values(gain_values) or {}
    return entry_gains(r, gain_values, r.gain)


def _list_lengths(r, what):
    if np.any(~np.isfinite(r.n_ranked)):
        raise ValueError(f"{what} needs the length of each list: pass n_items with ranks")
    return r.n_ranked


# --------------------------------------------------------------------------
# Rndcg
@fill_doc
def rndcg(
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
    gain_values=None,
):
    """NDCG averaged at the cutoffs where the ideal gain changes (trec_eval's ``Rndcg``).

    .. math:: \\mathrm{Rndcg} = \\frac{1}{|C|} \\sum_{c \\in C} \\mathrm{NDCG@}c

    per user, averaged over users. Sort the judged items with a positive
    gain in decreasing order of gain: ``C`` holds the last position of
    each distinct gain (5 items of gain 3, 3 of gain 2 and 10 of gain 1
    give ``C = {5, 8, 18}``), and the length ``n`` of the list when it
    reaches past the last of them, as in ``m_Rndcg.c``: there the list's
    length is added only when it is at least 2 beyond the last level
    (a list exactly one item longer adds no point), which is kept here.
    ``NDCG@c`` is :func:`~recmetrics.ndcg` at ``k = c`` with trec_eval's
    gains (``gain_values``), its ``log2`` discount and the ideal of every
    judged item with a positive gain. A user without relevant item
    (``no_relevant``) scores 0 in trec_eval; so does here one with
    relevant items but no positive gain (trec_eval divides 0 by 0 there
    and prints ``nan``).

    Under ``ties='expected'`` each ``NDCG@c`` is its exact expectation
    over the orders of tied items (the cutoffs do not depend on the order).

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
    gain_values : mapping of int to float, optional
        trec_eval's gain map (``-m Rndcg.1=0.5,2=3``): the gain of each
        named grade (an int ``>= 0``); the other grades keep their grade
        as gain.

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    recmetrics.ndcg : NDCG at one cutoff, with the same ``gain_values``.

    References
    ----------
    %(ref_jarvelin2002)s

    %(ref_trec_eval)s

    Examples
    --------
    Gains 3, 2, 3 over ideal 3, 3, 2: ``C = {2, 3}`` and the list has 4 items:

    >>> round(rndcg([3, 2, 3, 0]), 4)   # (NDCG@2 + NDCG@3) / 2
    0.9244
    """
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    n = _list_lengths(r, "Rndcg")
    rel, g0 = _gains(r, gain_values)
    runs = ideal_runs(r, rel, g0)
    user, gain, first, count = runs
    # the last run of each distinct gain: a cutoff of C
    last = np.ones(user.shape[0], dtype=bool)
    last[:-1] = (user[1:] != user[:-1]) | (gain[1:] != gain[:-1])
    c_user, c_pos = user[last], (first + count)[last]
    rank_in_user = np.arange(c_user.shape[0]) - np.searchsorted(c_user, c_user)
    total = np.zeros(r.n_users)
    points = np.zeros(r.n_users)
    for j in range(int(rank_in_user.max()) + 1 if c_user.size else 0):
        at = rank_in_user == j
        k = np.zeros(r.n_users)
        k[c_user[at]] = c_pos[at]
        num = expected_dcg(r, k, rel, g0, _log2_discount)
        den = ideal_dcg(r, runs, k, _log2_discount)
        has = np.zeros(r.n_users, dtype=bool)
        has[c_user[at]] = True
        total += np.where(has, _ratio(num, den), 0.0)
        points += has
    # the list's length, when it reaches 2 or more beyond the ideal (m_Rndcg.c)
    depth = np.bincount(user, weights=count, minlength=r.n_users)
    whole = ideal_dcg(r, runs, None, _log2_discount)
    tail = (n >= depth + 2) & (whole > 0)
    total += np.where(tail, _ratio(expected_dcg(r, None, rel, g0, _log2_discount), whole), 0.0)
    points += tail
    val = _ratio(total, points)
    defined = r.n_relevant > 0
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user, defined=defined)


# --------------------------------------------------------------------------
# binG
@fill_doc
def bin_g(
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
    """Binary G: relevant items weighed by the non-relevant items above them (trec_eval's ``binG``).

    .. math:: \\mathrm{binG} = \\frac{1}{|R|} \\sum_{\\text{retrieved relevant } x}
              \\frac{1}{\\log_2(2 + n_x)}

    per user, averaged over users, with ``n_x`` the number of items above
    ``x`` that are not relevant (judged non-relevant or unjudged alike),
    and ``|R|`` the user's relevant items, retrieved or not. It is
    ``m_binG.c``: ``1 / log2(3 + i - rel_so_far)`` at 0-based rank ``i``.
    A user without relevant item scores 0 in trec_eval (``no_relevant``).

    Under ``ties='expected'`` the value is the exact expectation over the
    orders of tied items: with ``A`` non-relevant items surely above the
    tie group of ``x`` and ``J`` in it, ``x``'s place among itself and those
    ``J`` items is uniform, so ``n_x - A`` is uniform on ``0 .. J``.

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
    recmetrics.bpref : Relevant items weighed by the judged non-relevant items above them.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> round(bin_g([1, 0, 1, 0]), 4)   # (1 + 1 / log2(3)) / 2
    0.8155
    """
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    ranked = np.isfinite(r.start)
    above = np.where(ranked, r.start - r.rel_before, 0.0).astype(np.int64)
    tied = np.where(ranked, r.size - r.group_rel, 0.0).astype(np.int64)
    # mean of 1 / log2(2 + m) over m = A .. A + J: positions A + 1 .. A + J + 1 of 1 / log2(1 + i)
    term = group_mean(_log2_discount, above, above + tied + 1, (tied + 1).astype(np.float64))
    val = _ratio(r.per_user_sum(np.where(ranked, term, 0.0)), r.n_relevant)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


# --------------------------------------------------------------------------
# utility
def _real(x, name):
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__}")
    if not np.isfinite(float(x)):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return float(x)


@fill_doc
def utility(
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
    rel_ret=1.0,
    nonrel_ret=-1.0,
    rel_not_ret=0.0,
    nonrel_not_ret=0.0,
    n_docs=0,
):
    """Set utility: a weighted sum of the retrieved set's contingency table (``utility``).

    .. math:: u = p_1 \\cdot |\\mathrm{ret} \\cap R| + p_2 \\cdot (n - |\\mathrm{ret} \\cap R|)
              + p_3 \\cdot (|R| - |\\mathrm{ret} \\cap R|)
              + p_4 \\cdot (N + |\\mathrm{ret} \\cap R| - n - |R|)

    per user, averaged over users (trec_eval's own warning: a sum over
    topics may be more useful), with ``n`` the length of the user's list,
    ``|R|`` its relevant items and ``N`` the collection size ``n_docs``.
    The four weights ``p_1 .. p_4`` are trec_eval's parameters in their
    order (``-m utility.1,-1,0,0``, its default; ``m_utility.c``): each
    retrieved relevant item is worth ``rel_ret``, each retrieved
    non-relevant (or unjudged) item ``nonrel_ret``, each relevant item not
    retrieved ``rel_not_ret`` and each non-relevant item not retrieved
    ``nonrel_not_ret``. The order of the list does not matter (every tie
    policy gives the same value), and every user has a value, also
    without relevant items (``no_relevant`` is not used).

    Parameters
    ----------
    %(a_b)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    no_relevant : {'skip', 'zero', 'one', 'raise'}, default 'skip'
        Not used: the utility is defined for every user.
    %(per_user)s
    %(judged_only)s
    rel_ret, nonrel_ret, rel_not_ret, nonrel_not_ret : float, default 1, -1, 0, 0
        trec_eval's parameters ``p1, p2, p3, p4``.
    n_docs : int, default 0
        trec_eval's ``-N``, the number of documents in the collection
        (default 0, as trec_eval's); only ``nonrel_not_ret`` reads it.

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    recmetrics.set_precision : The retrieved set's precision.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> utility([1, 0, 1, 0])   # 2 relevant retrieved, 2 others: 2 - 2
    0.0
    >>> utility([1, 0, 1, 0], nonrel_ret=-0.5)
    1.0
    """
    weights = [
        _real(x, name)
        for x, name in (
            (rel_ret, "rel_ret"),
            (nonrel_ret, "nonrel_ret"),
            (rel_not_ret, "rel_not_ret"),
            (nonrel_not_ret, "nonrel_not_ret"),
        )
    ]
    if isinstance(n_docs, bool) or not isinstance(n_docs, (int, np.integer)):
        raise TypeError(f"n_docs must be an int (trec_eval's -N), got {type(n_docs).__name__}")
    if n_docs < 0:
        raise ValueError(f"n_docs must be >= 0, got {n_docs}")
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    _list_lengths(r, "utility")
    hit, n, rel = hits(r, None), _cutoff_size(r, None), r.n_relevant
    p1, p2, p3, p4 = weights
    val = p1 * hit + p2 * (n - hit) + p3 * (rel - hit) + p4 * (float(n_docs) + hit - n - rel)
    defined = np.ones(r.n_users, dtype=bool)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user, defined=defined)


# --------------------------------------------------------------------------
# relstring
def _grade_char(grade):
    if grade > 9:
        return ">"
    if grade == int(grade) and grade >= 1:
        return str(int(grade))
    return "<"


@fill_doc
def relstring(a=None, b=None, *, k=10, ranks=None, n_items=None, mask=None, ties="trec_eval"):
    """The grades of the top ``k`` items as a string, per user (trec_eval's ``relstring``).

    One character per ranked item, from the top (``m_relstring.c``): the
    grade ``1 .. 9`` of a relevant item (``>`` above 9, ``<`` for a grade
    that is not an integer), ``0`` for a judged non-relevant item and ``-``
    for an unjudged one (only long data frames have unjudged items: the
    items missing from ``truth``), ``.`` for an item of ``truth`` with a
    negative grade (in the pool but not judged, as trec_eval prints a
    document of the qrels with grade -1). The string has ``min(k, n)`` characters for a list
    of ``n`` items (trec_eval's ``relstring.10``, its default).

    It is a string, not a number: it has no mean over users and no entry
    in the metric registry (:func:`recmetrics.evaluate` computes numbers).
    It needs one order of the items: ``ties`` is a deterministic policy
    (default ``'trec_eval'``, trec_eval's order of tied documents);
    ``'expected'`` has no single string and raises ``ValueError``.

    Parameters
    ----------
    a, b : array-like, sequence, set, dict or Ranking, optional
        The input forms of the ranking metrics (:func:`recmetrics.ndcg`).
    k : int, default 10
        The number of characters (trec_eval's parameter ``N``).
    ranks, n_items, mask
        As for the ranking metrics.
    ties : {'trec_eval', 'optimistic', 'pessimistic'}, default 'trec_eval'
        The order of tied items.

    Returns
    -------
    str or list of str or pandas.Series
        One string for one user; for several users a list (a Series indexed
        by user id for long data frames).

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> relstring([3, 0, 1, 0, 12, 2], k=5)
    '3010>'
    >>> relstring([["a", "b", "c"]], [{"a": 2, "c": 1}])
    ['201']

    Long data frames: ``x`` is not in ``truth``, ``c`` has grade -1:

    >>> import pandas as pd
    >>> from recmetrics import from_frames
    >>> truth = pd.DataFrame({"user": 1, "item": ["a", "b", "c"], "rel": [2, 0, -1]})
    >>> run = pd.DataFrame({"user": 1, "item": ["a", "x", "b", "c"], "score": [4, 3, 2, 1]})
    >>> relstring(from_frames(truth, run, relevance="rel", ties="trec_eval")).to_dict()
    {1: '2-0.'}
    """
    k = check_k(k)
    if ties == "expected":
        raise ValueError(
            "relstring needs one order of the items: pass ties='trec_eval', 'optimistic' or "
            "'pessimistic' ('expected' averages over orders, which no string can)"
        )
    r, single = as_ranking(a, b, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
    if not r.untied:
        raise ValueError("relstring needs a Ranking built with a deterministic tie policy")
    n = np.minimum(_list_lengths(r, "relstring"), k).astype(np.int64)
    filler = "-" if r.judgments == "explicit" else "0"
    chars = [[filler] * int(m) for m in n]
    if r.judgments == "explicit":
        user = np.repeat(np.arange(r.n_users), np.diff(r.nonrel_indptr))
        for u, pos in zip(user, r.nonrel_start, strict=True):
            if pos < n[u]:
                chars[u][int(pos)] = "0"
    if r.pooled_indptr is not None:  # in the pool, not judged: trec_eval's '.'
        user = np.repeat(np.arange(r.n_users), np.diff(r.pooled_indptr))
        for u, pos in zip(user, r.pooled_start, strict=True):
            if pos < n[u]:
                chars[u][int(pos)] = "."
    for u, pos, grade in zip(r.user, r.start, r.gain, strict=True):
        if pos < n[u]:
            chars[u][int(pos)] = _grade_char(grade)
    out = ["".join(c) for c in chars]
    if single:
        return out[0]
    if r.user_ids is not None:
        return pd.Series(out, index=r.user_ids, dtype=object)
    return out


# --------------------------------------------------------------------------
# ranx's Burges DCG
@fill_doc
def ndcg_burges(
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
    """NDCG with the exponential gain ``2^rel - 1`` (ranx's ``ndcg_burges``).

    .. math:: \\mathrm{NDCG@}k = \\frac{\\sum_{i \\le k} (2^{rel_i} - 1) / \\log_2(i + 1)}
              {\\sum_{i \\le \\min(k, |R|)} (2^{rel^*_i} - 1) / \\log_2(i + 1)}

    :func:`~recmetrics.ndcg` with ``gain='exponential'`` (Burges et al.,
    2005), which is ranx's ``ndcg_burges`` (``ranx/metrics/ndcg.py``:
    ``_dcg`` with ``jarvelin=False``; its ideal is the qrels sorted by
    grade). ranx scores 0 for a query without relevant document
    (``no_relevant='zero'``).

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
    recmetrics.ndcg : Every gain, IDCG and discount.

    References
    ----------
    %(ref_burges2005)s

    %(ref_bassani2022)s

    Examples
    --------
    >>> round(ndcg_burges([3, 2, 3, 0, 1, 2]), 4)
    0.9488
    """
    return ndcg(
        a,
        b,
        k=k,
        gain="exponential",
        ranks=ranks,
        n_items=n_items,
        mask=mask,
        ties=ties,
        no_relevant=no_relevant,
        per_user=per_user,
        judged_only=judged_only,
    )


@fill_doc
def dcg_burges(
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
    """DCG with the exponential gain ``2^rel - 1`` (ranx's ``dcg_burges``).

    .. math:: \\mathrm{DCG@}k = \\sum_{i \\le k} \\frac{2^{rel_i} - 1}{\\log_2(i + 1)}

    :func:`~recmetrics.dcg` with ``gain='exponential'`` (Burges et al.,
    2005), which is ranx's ``dcg_burges`` (``ranx/metrics/ndcg.py``).

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
    ndcg_burges : Normalised by its ideal.

    References
    ----------
    %(ref_burges2005)s

    %(ref_bassani2022)s

    Examples
    --------
    >>> round(dcg_burges([3, 2, 3, 0, 1, 2]), 4)
    13.8482
    """
    return dcg(
        a,
        b,
        k=k,
        gain="exponential",
        ranks=ranks,
        n_items=n_items,
        mask=mask,
        ties=ties,
        no_relevant=no_relevant,
        per_user=per_user,
        judged_only=judged_only,
    )
