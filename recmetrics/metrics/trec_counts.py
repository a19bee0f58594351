"""trec_eval's counts: num_q, num_ret, num_rel, num_rel_ret and num_nonrel_judged_ret.

Not evaluation numbers in themselves, they give the details of a run; their
summary over users is the **sum** (the registry's ``aggregate='sum'``;
trec_eval's ``te_calc_avg_meas_empty`` and ``te_calc_avg_num_q``), so
``rm.num_ret(...)`` and ``rm.evaluate(..., ["num_ret"])`` print the total
over users, as trec_eval's ``all`` line does. Each is trec_eval's C file
line by line (``m_num_q.c``, ``m_num_ret.c``, ``m_num_rel.c``,
``m_num_rel_ret.c``, ``m_num_nonrel_judged_ret.c``). The order of the
ranking does not matter: every tie policy gives the same counts.
"""

from __future__ import annotations

import numpy as np

from .._docs import fill_doc
from ._core import finish, hits
from .topn._common import _rank

__all__ = ["num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"]


def _ranking(a, b, ranks, n_items, mask, ties, judged_only):
    """The Ranking and whether one user was given; the lengths of the lists must be known."""
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    if np.any(~np.isfinite(r.n_ranked)):
        raise ValueError("the counts need the length of each list: pass n_items with ranks")
    return r, single


def _every_user(r):
    return np.ones(r.n_users, dtype=bool)


@fill_doc
def num_ret(
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
    """The number of retrieved items of each user, summed over users (trec_eval's ``num_ret``).

    .. math:: \\mathrm{num\\_ret} = \\sum_{u} n_u

    with ``n_u`` the length of user ``u``'s ranking: the list, or the
    catalogue after the mask for a score matrix. trec_eval's ``m_num_ret.c``
    (``res_rels.num_ret``); its summary is the sum over topics, not the mean
    (``te_calc_avg_meas_empty``), and so is this function's with
    ``per_user=False``. trec_eval's ``-M depth`` is truncating the
    predictions first.

    Parameters
    ----------
    %(a_b)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    no_relevant : {'skip', 'zero', 'one', 'raise'}, default 'skip'
        Accepted for the common signature: the count is defined for every
        user, with or without relevant items, so it changes nothing.
    %(per_user)s
    %(judged_only)s

    Returns
    -------
    float or ndarray or pandas.Series
        The sum over users (``per_user=False``), one count per user, or the
        count of one user's input.

    See Also
    --------
    num_rel, num_rel_ret, num_nonrel_judged_ret, num_q : trec_eval's other counts.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> num_ret([[1, 0, 0], [0, 1, 0]], [[0.3, 0.2, 0.1], [0.1, 0.2, 0.3]])
    6.0
    >>> num_ret(["a", "b", "c"], {"a"})
    3.0
    """
    r, single = _ranking(a, b, ranks, n_items, mask, ties, judged_only)
    return finish(
        r.n_ranked,
        r,
        single,
        no_relevant=no_relevant,
        per_user=per_user,
        defined=_every_user(r),
        aggregate="sum",
    )


@fill_doc
def num_rel(
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
    """The number of relevant items of each user, summed over users (trec_eval's ``num_rel``).

    .. math:: \\mathrm{num\\_rel} = \\sum_{u} |R_u|

    counting every relevant item (gain > 0, trec_eval's relevance level 1),
    retrieved or not. trec_eval's ``m_num_rel.c`` (``res_rels.num_rel``);
    the summary is the sum over topics. Under trec_eval's ``-c`` that sum
    covers every topic of the qrels (``te_calc_avg_num_rel``), which is the
    sum here when the users of ``truth`` are evaluated (``users='truth'``).

    Parameters
    ----------
    %(a_b)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    no_relevant : {'skip', 'zero', 'one', 'raise'}, default 'skip'
        Accepted for the common signature: the count is defined for every
        user (0 without relevant items), so it changes nothing.
    %(per_user)s
    %(judged_only)s

    Returns
    -------
    float or ndarray or pandas.Series
        The sum over users, one count per user, or the count of one user.

    See Also
    --------
    num_ret, num_rel_ret : The retrieved and the relevant retrieved items.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> num_rel([[1, 0, 2], [0, 1, 0]], [[0.3, 0.2, 0.1], [0.1, 0.2, 0.3]])
    3.0
    >>> num_rel(["a", "b"], {"a", "z"})   # z is relevant, not retrieved
    2.0
    """
    r, single = _ranking(a, b, ranks, n_items, mask, ties, judged_only)
    return finish(
        r.n_relevant,
        r,
        single,
        no_relevant=no_relevant,
        per_user=per_user,
        defined=_every_user(r),
        aggregate="sum",
    )


@fill_doc
def num_rel_ret(
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
    """The number of relevant items retrieved, summed over users (trec_eval's ``num_rel_ret``).

    .. math:: \\mathrm{num\\_rel\\_ret} = \\sum_{u} |\\mathrm{retrieved}_u \\cap R_u|

    trec_eval's ``m_num_rel_ret.c`` (``res_rels.num_rel_ret``), summed over
    topics. For a score matrix every unmasked item is retrieved.

    Parameters
    ----------
    %(a_b)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    no_relevant : {'skip', 'zero', 'one', 'raise'}, default 'skip'
        Accepted for the common signature: the count is defined for every
        user, so it changes nothing.
    %(per_user)s
    %(judged_only)s

    Returns
    -------
    float or ndarray or pandas.Series
        The sum over users, one count per user, or the count of one user.

    See Also
    --------
    num_rel, num_ret : The relevant and the retrieved items.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> num_rel_ret(["a", "b", "c"], {"a", "c", "z"})
    2.0
    """
    r, single = _ranking(a, b, ranks, n_items, mask, ties, judged_only)
    return finish(
        hits(r, None),
        r,
        single,
        no_relevant=no_relevant,
        per_user=per_user,
        defined=_every_user(r),
        aggregate="sum",
    )


@fill_doc
def num_nonrel_judged_ret(
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
    """The number of judged non-relevant items retrieved, summed (``num_nonrel_judged_ret``).

    .. math:: \\mathrm{num\\_nonrel\\_judged\\_ret} = \\sum_{u} \\left(n_u -
              \\mathrm{unjudged}_u - \\mathrm{num\\_rel\\_ret}_u\\right)

    trec_eval's ``m_num_nonrel_judged_ret.c``: the retrieved items less the
    unjudged ones (not in the qrels, or in them with a negative grade) less
    the relevant retrieved ones, summed over topics. With long data frames
    the judged non-relevant items are the rows of ``truth`` with relevance
    0 (:attr:`~recmetrics.Ranking.judgments`); every other input judges
    every item, so the count is ``num_ret - num_rel_ret``.

    Parameters
    ----------
    %(a_b)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    no_relevant : {'skip', 'zero', 'one', 'raise'}, default 'skip'
        Accepted for the common signature: the count is defined for every
        user, so it changes nothing.
    %(per_user)s
    %(judged_only)s

    Returns
    -------
    float or ndarray or pandas.Series
        The sum over users, one count per user, or the count of one user.

    See Also
    --------
    recmetrics.judged : The judged share of the top ``k``.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> import pandas as pd
    >>> from recmetrics import from_frames
    >>> truth = pd.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"], "rel": [1, 0, 0]})
    >>> run = pd.DataFrame({"user": [1] * 3, "item": ["a", "b", "x"], "score": [3, 2, 1]})
    >>> num_nonrel_judged_ret(from_frames(truth, run, relevance="rel"))   # b; x is unjudged
    1.0
    """
    r, single = _ranking(a, b, ranks, n_items, mask, ties, judged_only)
    if r.judgments == "complete":
        count = r.n_ranked - hits(r, None)
    else:
        nonrel_user = np.repeat(np.arange(r.n_users), np.diff(r.nonrel_indptr))
        retrieved = np.isfinite(r.nonrel_start).astype(np.float64)
        count = np.bincount(nonrel_user, weights=retrieved, minlength=r.n_users)
    return finish(
        count,
        r,
        single,
        no_relevant=no_relevant,
        per_user=per_user,
        defined=_every_user(r),
        aggregate="sum",
    )


@fill_doc
def num_q(
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
    """The number of users evaluated (trec_eval's ``num_q``): 1 per user, summed.

    .. math:: \\mathrm{num\\_q} = |U|

    with ``U`` the users over whom the mean of a ranking metric runs under
    the same ``no_relevant``: with ``'skip'`` the users with at least one
    relevant item (the others are NaN per user and not counted), with
    ``'zero'`` or ``'one'`` every user (the ``trec_eval`` preset's
    ``'zero'``: every query of both qrels and run, or of the qrels with
    ``users='truth'``, trec_eval's ``-c``). trec_eval's ``m_num_q.c``: 1 per
    topic, and the summary is the number of topics averaged over.

    Parameters
    ----------
    %(a_b)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    no_relevant : {'skip', 'zero', 'one', 'raise'}, default 'skip'
        Which users count: ``'skip'`` only those with a relevant item,
        ``'zero'`` and ``'one'`` every user, ``'raise'`` raises
        ``ValueError`` for a user without relevant items.
    %(per_user)s
    %(judged_only)s

    Returns
    -------
    float or ndarray or pandas.Series
        The number of users (``per_user=False``), or 1 per counted user
        (NaN for a user left out).

    See Also
    --------
    num_ret, num_rel : trec_eval's other counts.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> y_true = [[1, 0, 0], [0, 0, 0], [0, 1, 1]]
    >>> y_score = [[0.3, 0.2, 0.1]] * 3
    >>> num_q(y_true, y_score), num_q(y_true, y_score, no_relevant="zero")
    (2.0, 3.0)
    """
    r, single = _ranking(a, b, ranks, n_items, mask, ties, judged_only)
    defined = _every_user(r) if no_relevant in ("zero", "one") else None
    return finish(
        np.ones(r.n_users),
        r,
        single,
        no_relevant=no_relevant,
        per_user=per_user,
        defined=defined,
        aggregate="sum",
    )
