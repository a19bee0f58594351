"""Measures of incomplete judgments: judged@k, unjudged@k and bpref.

Every ranked item of a :class:`~recmetrics.Ranking` is *relevant*, *judged
non-relevant* or *unjudged* (:attr:`~recmetrics.Ranking.judgments`). Long
data frames carry explicit judgments: the rows of ``truth`` with relevance
0 are the judged non-relevant items, and every other ranked item is
unjudged, as in the qrels of a pooled IR test collection. The other inputs
(score matrices, ranked lists, ranks, gains) carry complete judgments: every
item that is not relevant is judged non-relevant.

* :func:`judged` (ir_measures' ``Judged@k``) and :func:`unjudged`: how much
  of the top ``k`` is judged, a warning sign for every other measure;
* :func:`bpref` (trec_eval's ``bpref``, Buckley & Voorhees 2004): a measure
  that reads only the judged items, so that unjudged items cost nothing.
"""

from __future__ import annotations

import numpy as np

from .._docs import fill_doc
from .._validation import check_choice
from ._core import finish
from .topn._common import SHORT_LISTS, _rank, _ratio, _slots

__all__ = ["judged", "unjudged", "bpref"]


# --------------------------------------------------------------------------
# judged@k and unjudged@k
def _judged_counts(a, b, k, ranks, n_items, mask, ties, short_lists, judged_only):
    """The Ranking, whether one user was given, the judged and filled slots, the denominator."""
    check_choice(short_lists, "short_lists", SHORT_LISTS)
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
    den = _slots(r, k, short_lists)  # k, min(k, n), or n without a cutoff
    filled = r.n_ranked if k is None else np.minimum(float(k), r.n_ranked)
    judged_top = r.judged_in_top(np.inf if k is None else k)
    if r.judgments == "complete":
        defined = np.ones(r.n_users, dtype=bool)
    else:  # a user with a qrels line, if only a pooled-but-unjudged one (m_unjudged.c)
        defined = (r.n_relevant + r.n_judged_nonrelevant + r.n_pooled_unjudged) > 0
    return r, single, judged_top, filled, den, defined


@fill_doc
def judged(
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
    """Judged@k: the fraction of the top ``k`` that is judged (relevant or judged non-relevant).

    .. math:: \\mathrm{Judged@}k = \\frac{|\\{i \\le \\min(k, n) :
              \\text{item at } i \\text{ is judged}\\}|}{d}, \\qquad
              d = k \\text{ or } \\min(k, n)

    per user, averaged over users, with ``n`` the length of the user's
    ranking. It is ir_measures' ``Judged@k`` (its ``judged`` provider,
    adapted from OpenNIR), the usual warning sign that a run retrieves
    items the judgments never saw, so that every other measure counts them
    as non-relevant. With long data frames the judged items are the rows
    of ``truth`` (relevant or with relevance 0); with every other input all
    items are judged, and Judged@k is ``min(k, n) / d``. A row with a
    negative grade (an item in the pool but not judged, trec_eval's
    meaning) is not a judgment: the item is unjudged, as trec_eval's
    ``-J`` reads it, while ir_measures counts every qrels line as judged,
    whatever its grade, and so differs on such qrels.

    The denominator ``d`` of a list shorter than ``k`` is ``short_lists``:
    ``'k'`` (default, as :func:`~recmetrics.precision`: the empty slots
    count as not judged) or ``'list'``, ``min(k, n)``, which is
    ir_measures' definition (``judged_provider.py``: the cutoff is
    recalculated as the length of the run when the run is shorter). With
    ``k=None`` both are the whole ranking (ir_measures' ``Judged``). An
    empty list scores 0.

    Under ``ties='expected'`` the value is the exact expectation over the
    orders of tied items: a judged item that may sit at any of the
    positions ``start + 1 .. start + size`` is in the top ``k`` with
    probability ``clip((k - start) / size, 0, 1)``
    (:meth:`~recmetrics.Ranking.judged_in_top`). ir_measures orders tied
    documents by increasing document id (it sorts by ``(-score, id)``),
    trec_eval by decreasing id (our ``'trec_eval'``): with ties, no tie
    policy of the package is ir_measures' order. ``judged_only=True``
    (trec_eval's ``-J``, as for every ranking metric) measures the
    condensed list, where every ranked item is judged: Judged@k is then
    ``min(k, n) / d`` with ``n`` the number of judged ranked items, and
    Unjudged@k is 0, a check that the unjudged items were removed.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    no_relevant : {'skip', 'zero', 'one', 'raise'}, default 'skip'
        What to do with a user for which the value is undefined: here a
        user without any row in ``truth`` (no relevant, judged
        non-relevant or pooled-but-unjudged item: a user of
        ``predictions`` missing from ``truth``), whom ir_measures and
        trec_eval do not evaluate either. A user whose rows are all
        pooled but unjudged (negative grades) is defined: its judged
        fraction is 0, as trec_eval 10.0's ``unj`` counts it. With complete
        judgments every user is defined. ``'skip'`` leaves the user out of
        the mean (NaN per user), ``'zero'`` and ``'one'`` count it as 0 or
        1, ``'raise'`` raises ``ValueError``.
    %(per_user)s
    %(judged_only)s
    short_lists : {'k', 'list'}, default 'k'
        The denominator for a list shorter than ``k``: ``k``, or the list's
        length (ir_measures), as above.

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    unjudged : The fraction of the top ``k`` that is unjudged.
    bpref : A measure that reads only the judged items.
    recmetrics.Ranking.judged_in_top : The expected number of judged items in the top ``k``.

    References
    ----------
    %(ref_macavaney2022)s

    %(ref_buckley2004)s

    Examples
    --------
    >>> import pandas as pd
    >>> from recmetrics import from_frames
    >>> truth = pd.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"], "rel": [1, 0, 1]})
    >>> run = pd.DataFrame({"user": [1] * 4, "item": ["a", "x", "b", "y"], "score": [4, 3, 2, 1]})
    >>> r = from_frames(truth, run, relevance="rel")
    >>> judged(r, k=2)   # a is judged, x is not
    0.5
    >>> judged(r, k=10, short_lists="list"), judged(r, k=10)   # 2 of 4 items, 2 of 10 slots
    (0.5, 0.2)

    Every item of a score matrix is judged:

    >>> judged([[1, 0, 0]], [[0.3, 0.2, 0.1]], k=2)
    1.0
    """
    r, single, judged_top, _, den, defined = _judged_counts(
        a, b, k, ranks, n_items, mask, ties, short_lists, judged_only
    )
    val = _ratio(judged_top, den)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user, defined=defined)


@fill_doc
def unjudged(
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
    """Unjudged@k: the fraction of the top ``k`` slots that hold an unjudged item.

    .. math:: \\mathrm{Unjudged@}k = \\frac{\\min(k, n) - |\\{i \\le \\min(k, n) :
              \\text{item at } i \\text{ is judged}\\}|}{d}

    with ``n`` and ``d`` as in :func:`judged`. It is ``1 - judged`` whenever
    the top ``k`` is full (``n >= k``) or ``short_lists='list'`` (and the
    list is not empty); with ``short_lists='k'`` the empty slots of a short
    list are neither judged nor unjudged. With complete judgments (every
    input but long data frames) it is 0. The keywords are those of
    :func:`judged`, the tie policies included.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    no_relevant : {'skip', 'zero', 'one', 'raise'}, default 'skip'
        As in :func:`judged`: for a user without any row in ``truth``. A
        user whose rows are all pooled but unjudged (negative grades) is
        defined, as trec_eval 10.0's ``unj`` evaluates it
        (``m_unjudged.c``): its top ``k`` is all unjudged.
    %(per_user)s
    %(judged_only)s
    short_lists : {'k', 'list'}, default 'k'
        The denominator for a list shorter than ``k``: ``k``, or the list's
        length (ir_measures' Judged@k), as in :func:`judged`.

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    judged : The fraction of the top ``k`` that is judged.

    References
    ----------
    %(ref_macavaney2022)s

    Examples
    --------
    >>> import pandas as pd
    >>> from recmetrics import from_frames
    >>> truth = pd.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"], "rel": [1, 0, 1]})
    >>> run = pd.DataFrame({"user": [1] * 4, "item": ["a", "x", "b", "y"], "score": [4, 3, 2, 1]})
    >>> r = from_frames(truth, run, relevance="rel")
    >>> unjudged(r, k=2), unjudged(r, k=10), unjudged(r, k=10, short_lists="list")
    (0.5, 0.2, 0.5)
    """
    r, single, judged_top, filled, den, defined = _judged_counts(
        a, b, k, ranks, n_items, mask, ties, short_lists, judged_only
    )
    val = _ratio(np.maximum(filled - judged_top, 0.0), den)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user, defined=defined)


# --------------------------------------------------------------------------
# bpref
def _judged_nonrelevant_total(r):
    """``N`` per user: the judged non-relevant items, retrieved or not."""
    if r.judgments == "explicit":
        return r.n_judged_nonrelevant
    if r.n_items is not None:  # every item of the catalogue that is not relevant
        return r.n_items - r.n_relevant
    # no catalogue (ranked lists): the list's items that are not relevant
    return r.n_ranked - r.per_user_sum(np.isfinite(r.start).astype(np.float64))


def _nonrelevant_around(r):
    """Per relevant entry: judged non-relevant items surely above it (``A``), tied with it (``J``).

    With complete judgments they are the group's counts: ``start -
    rel_before`` non-relevant items above the tie group, ``size -
    group_rel`` in it. With explicit judgments a judged non-relevant entry
    is above a relevant one when its range of positions ends before the
    relevant one's starts, and tied with it when the ranges overlap (under
    ``ties='expected'`` the ranges are then the same score group; under the
    other policies ranges never overlap).
    """
    if r.judgments == "complete":
        return r.start - r.rel_before, r.size - r.group_rel
    return _entries_around(r, r.nonrel_indptr, r.nonrel_start, r.nonrel_size)


def _entries_around(r, indptr, n_start, n_size):
    """:func:`_nonrelevant_around` for entries in the layout of the judged non-relevant ones."""
    n_end = n_start + n_size
    finite = np.concatenate([r.start + r.size, n_end])
    finite = finite[np.isfinite(finite)]
    width = np.int64(finite.max(initial=0.0)) + 2  # larger than every position
    n_user = np.repeat(np.arange(r.n_users, dtype=np.int64), np.diff(indptr))

    def key(user, pos):  # (user, position) in one sortable integer; inf -> the user's end
        return user * width + np.where(np.isfinite(pos), pos, width - 1).astype(np.int64)

    first = indptr[r.user]
    ranked = np.isfinite(r.start)
    start = np.where(ranked, r.start, 0.0)
    ends = np.sort(key(n_user, n_end))
    above = np.searchsorted(ends, key(r.user, start), side="right") - first
    starts = np.sort(key(n_user, n_start))
    not_below = np.searchsorted(starts, key(r.user, start + r.size), side="left")
    return above.astype(np.float64), (not_below - first - above).astype(np.float64)


@fill_doc
def bpref(
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
    """Binary preference (bpref), as trec_eval computes it: judged items only.

    .. math:: \\mathrm{bpref} = \\frac{1}{R} \\sum_{\\text{retrieved relevant } r}
              \\left(1 - \\frac{\\min(n_r, R)}{\\min(N, R)}\\right)

    per user, averaged over users (Buckley & Voorhees, 2004): ``R`` is the
    number of relevant items, ``N`` the number of judged non-relevant
    items (retrieved or not), and ``n_r`` the number of judged non-relevant
    items ranked above the relevant item ``r`` (the term is 1 when
    ``n_r = 0``, also when ``N = 0``). Unjudged items are skipped: they
    neither count in ``n_r`` nor cost anything. This is trec_eval's
    ``m_bpref.c`` line by line: the sum runs over the *retrieved* list only
    (a relevant item that is not retrieved adds 0), ``R`` and ``N`` count
    every judgment of the user, retrieved or not, an item is relevant when
    its grade is at least trec_eval's relevance level 1 (here: gain > 0)
    and judged non-relevant when its grade is 0, and a judged user with no
    relevant item scores 0 (``no_relevant='zero'``, as the ``trec_eval``
    preset sets; the package's default ``'skip'`` leaves it out). The
    ``min(n_r, R)`` caps the count at the first ``R`` judged non-relevant
    items and ``min(N, R)`` normalises it, with ``N`` counting every judged
    non-relevant item, retrieved or not: trec_eval's fix of version 8.0
    (its file ``bpref_bug``; earlier versions counted the retrieved ones
    only). The paper writes ``R``, the same whenever ``N >= R``.

    Which items are judged depends on the input: with long data frames the
    judged non-relevant items are the rows of ``truth`` with relevance 0,
    and every other ranked item is unjudged. Every other input has complete
    judgments: every item that is not relevant is judged non-relevant, so
    ``n_r`` counts all the non-relevant items above ``r``, and ``N`` is the
    catalogue less ``R`` (``n_items``, or the row of a score matrix minus
    ``mask``), or, for ranked lists without a catalogue, the list's
    non-relevant items.

    bpref has no cutoff (trec_eval's ``bpref``, ir_measures' ``Bpref``
    and ranx's ``bpref``, which ignores its ``k``, have none either): it is
    computed over the whole retrieved list. trec_eval's ``-M depth``, which
    truncates the run before evaluating, is the same as truncating the
    predictions first (each user's ``depth`` best rows, ties ordered as
    ``ties='trec_eval'``).

    Under ``ties='expected'`` the value is the exact expectation over the
    orders of tied items. ``n_r = A + X``, where ``A`` judged non-relevant
    items sit surely above ``r``'s tie group and ``X`` of the ``J`` judged
    non-relevant items of the group precede ``r``. In a uniformly random
    order of the group, the place of ``r`` among itself and those ``J``
    items is uniform, so ``X`` is uniform on ``0 .. J`` and

    .. math:: E\\left[\\min(n_r, R)\\right] = \\frac{1}{J + 1}
              \\sum_{x=0}^{J} \\min(A + x, R),

    a sum with a closed form (the cap makes the expectation of the term
    differ from the term of the expectation once ``A + J > R``). Under
    ``'optimistic'`` the relevant items of a tie group precede its other
    items, under ``'pessimistic'`` they follow them, and ``'trec_eval'``
    orders tied items by decreasing id, as trec_eval does.

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
    judged : How much of the top ``k`` is judged.
    recmetrics.average_precision : AP, which counts unjudged items as non-relevant.

    References
    ----------
    %(ref_buckley2004)s

    %(ref_sakai2007)s

    %(ref_trec_eval)s

    %(ref_mcsherry2008)s

    Examples
    --------
    One relevant item below one of the two judged non-relevant ones, and an
    unjudged item (``x``) that costs nothing: ``R = 2``, ``N = 2``, so
    ``(1 - 1/2) / 2``; the relevant item ``c`` is not retrieved:

    >>> import pandas as pd
    >>> from recmetrics import from_frames
    >>> truth = pd.DataFrame({"user": [1] * 4, "item": ["a", "b", "c", "d"], "rel": [1, 0, 1, 0]})
    >>> run = pd.DataFrame({"user": [1] * 3, "item": ["x", "b", "a"], "score": [3, 2, 1]})
    >>> bpref(from_frames(truth, run, relevance="rel"))
    0.25

    With complete judgments (a score matrix) every non-relevant item is
    judged; a relevant item tied with a non-relevant one is above it in
    half of the orders:

    >>> bpref([[1, 0, 0]], [[0.5, 0.5, 0.1]])   # R = 1, N = 2: (1 + 0) / 2
    0.5
    """
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    R = r.n_relevant
    D = np.minimum(_judged_nonrelevant_total(r), R)[r.user]  # min(N, R)
    cap = R[r.user]
    A, J = _nonrelevant_around(r)
    ranked = np.isfinite(r.start)
    A, J = np.where(ranked, A, 0.0), np.where(ranked, J, 0.0)
    # sum_{x=0}^{J} min(A + x, R): the values A .. min(A + J, R) as they are, R for the rest
    hi = np.minimum(A + J, cap)
    below = np.maximum(hi - A + 1.0, 0.0)
    total = (A + hi) * below / 2.0 + cap * (J + 1.0 - below)
    term = np.where(ranked, 1.0 - _ratio(total / (J + 1.0), D), 0.0)
    val = _ratio(r.per_user_sum(term), R)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)
