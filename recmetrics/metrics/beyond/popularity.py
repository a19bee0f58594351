"""Popularity of the recommended items: novelty, average popularity (ARP), long-tail share."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from ..._validation import check_bool, check_choice
from ...inputs.ids import _show
from ...inputs.lists import _read_lists
from ._common import _check_base
from ._pieces import _fill_doc
from ._presets import _resolve
from ._side import _by_popularity, _counts, _pop_of, _popularity

__all__ = ["novelty", "average_popularity", "long_tail_share"]


@_fill_doc
def novelty(
    recommended,
    popularity,
    *,
    n_users=None,
    k=None,
    base=None,
    denominator=None,
    unseen=None,
    average=None,
    per_user=False,
    convention=None,
    items=None,
):
    """Mean self-information of the recommended items, ``-log_b p(i)``, averaged per list.

    .. math:: \\mathrm{Nov}(L_u) = \\frac{1}{|L_u|}\\sum_{i \\in L_u} -\\log_b p(i),
              \\qquad p(i) = \\frac{|\\{v : i \\in H_v\\}|}{|U|}

    by default the fraction of training users who interacted with ``i``
    (Zhou et al. 2010; Vargas & Castells 2011); ``denominator='interactions'``
    uses the item's share of all training interactions instead. An item
    with ``p = 0`` (absent from training) has infinite self-information.

    Parameters
    ----------
    %(b_recommended)s
    %(b_popularity)s
    %(n_users_pop)s
    %(b_k)s
    base : float, optional
        Base of the logarithm; ``None`` means 2.
    denominator : {'users', 'interactions'}, optional
        ``p(i)``: the share of training users with ``i`` (``None``), or
        ``i``'s share of the training interactions.
    unseen : {'smooth', 'one', 'zero', 'skip', 'raise'}, optional
        Items absent from training: ``p = 1 / (N + 1)`` with ``N`` the
        denominator (``None``, default); a count of one, ``p = 1 / N``
        (RecTools); self-information 0, still counted in the mean
        (Microsoft Recommenders); left out of the mean; or an error.
    average : {'user', 'row'}, optional
        ``None`` means ``'user'``: the mean over each list, then over
        users; ``'row'`` pools every recommended item of every list (a
        micro average, as Microsoft Recommenders' ``novelty``; the same
        when all lists have one length). Only without ``per_user``.
    %(beyond_per_user)s
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float or numpy.ndarray or pandas.Series

    See Also
    --------
    average_popularity, long_tail_share

    References
    ----------
    .. [1] T. Zhou et al. Solving the apparent diversity-accuracy dilemma of
       recommender systems. PNAS 107(10), 2010.
    .. [2] S. Vargas and P. Castells. Rank and Relevance in Novelty and
       Diversity Metrics for Recommender Systems. RecSys 2011.

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 2, 3, 4], "item": ["a", "a", "a", "b"]})
    >>> round(novelty([["a", "b"]], train), 4)   # (-log2(3/4) - log2(1/4)) / 2
    1.2075
    """
    opts = _resolve(
        "novelty",
        convention,
        {"base": base, "denominator": denominator, "unseen": unseen, "average": average},
        {"base": 2.0, "denominator": "users", "unseen": "smooth", "average": "user"},
    )
    check_choice(opts["denominator"], "denominator", ("users", "interactions"))
    check_choice(opts["unseen"], "unseen", ("smooth", "one", "zero", "skip", "raise"))
    check_choice(opts["average"], "average", ("user", "row"))
    b = _check_base(opts["base"])
    per_user = check_bool(per_user, "per_user")
    lists = _read_lists(recommended, k, items=items)
    counts, total = _popularity(popularity, n_users, opts["denominator"], lists)
    pop = _pop_of(lists, counts)
    counts_per_user = None
    if (pop == 0).any():
        if opts["unseen"] == "raise":
            bad = lists.items[lists.code[int(np.argmax(pop == 0))]]
            raise ValueError(
                f"the recommended item {_show(bad)!r} has no training interaction (p = 0)"
            )
        if opts["unseen"] == "smooth":
            pop = np.where(pop == 0, total / (total + 1.0), pop)  # p = 1 / (N + 1)
        elif opts["unseen"] == "one":
            pop = np.where(pop == 0, 1.0, pop)  # p = 1 / N
        elif opts["unseen"] == "skip":
            counts_per_user = np.bincount(lists.owner[pop > 0], minlength=lists.n_users)
    with np.errstate(divide="ignore"):
        info = np.where(pop > 0, -np.log(pop / total) / np.log(b), 0.0)
    if opts["average"] == "row":
        if per_user:
            raise ValueError("average='row' pools all users; it has no per-user values")
        kept = info if counts_per_user is None else info[pop > 0]
        return float(np.mean(kept)) if kept.size else float("nan")
    return lists.per_user(info, per_user, counts=counts_per_user)


@_fill_doc
def average_popularity(
    recommended, popularity, *, n_users=None, k=None, count=None, normalize=None,
    per_user=False, convention=None, items=None,
):  # fmt: skip
    """Average recommendation popularity (ARP): the mean training popularity of the listed items.

    .. math:: \\mathrm{ARP}(L_u) = \\frac{1}{|L_u|}\\sum_{i \\in L_u} \\phi(i)

    with ``phi(i)`` the number of training interactions with ``i``
    (Abdollahpouri et al. 2019; RecTools, RecBole) or of training users who
    interacted with it (Elliot), optionally as a share of all interactions
    (or users).

    Parameters
    ----------
    %(b_recommended)s
    %(b_popularity)s
    %(n_users_pop)s
    %(b_k)s
    count : {'interactions', 'users'}, optional
        ``None`` means ``'interactions'`` (rows of the training DataFrame);
        ``'users'`` counts distinct users (the same without repeated rows).
    normalize : bool, optional
        Divide by the number of training interactions (or users, or
        ``n_users``); ``None`` means False.
    %(beyond_per_user)s
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float or numpy.ndarray or pandas.Series

    See Also
    --------
    novelty, long_tail_share

    References
    ----------
    .. [1] H. Abdollahpouri, R. Burke and B. Mobasher. Managing Popularity
       Bias in Recommender Systems with Personalized Re-ranking. FLAIRS 2019.

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 2, 3, 4], "item": ["a", "a", "a", "b"]})
    >>> average_popularity([["a", "b"], ["b"]], train)   # ((3 + 1) / 2 + 1) / 2
    1.5
    """
    opts = _resolve(
        "arp", convention, {"count": count, "normalize": normalize},
        {"count": "interactions", "normalize": False},
    )  # fmt: skip
    check_choice(opts["count"], "count", ("interactions", "users"))
    normalize = check_bool(opts["normalize"], "normalize")
    per_user = check_bool(per_user, "per_user")
    lists = _read_lists(recommended, k, items=items)
    if normalize or n_users is not None:
        counts, total = _popularity(popularity, n_users, opts["count"], lists)
    else:  # raw counts need no denominator
        counts, total = _counts(popularity, lists, opts["count"]), None
    pop = _pop_of(lists, counts)
    return lists.per_user(pop / total if normalize else pop, per_user)


@_fill_doc
def long_tail_share(
    recommended,
    popularity,
    *,
    n_users=None,
    k=None,
    head=None,
    head_by=None,
    count=None,
    per_user=False,
    convention=None,
    items=None,
):
    """Share of each list in the long tail (APLT): items outside the popular short head.

    .. math:: \\mathrm{APLT}(L_u) = \\frac{|L_u \\setminus \\mathcal{H}|}{|L_u|}

    The items are ranked by their training popularity (interactions, or
    distinct users with ``count='users'``; equal counts by item id). The
    short head ``H`` is, with ``head_by='interactions'`` (default), the
    smallest set of the most popular items whose counts reach a fraction
    ``head`` of the sum of all counts; with ``head_by='items'``, the first
    ``floor(head * m)`` of the ``m`` items with training interactions. The
    long tail is every other item, including items absent from training.

    The defaults follow Abdollahpouri, Burke and Mobasher (2019), who split
    the items so that the short head holds 80% of the ratings and the long
    tail the remaining 20% (``head=0.8``; on MovieLens 1M, the items with
    more than 506 ratings). The line in their Figure 1 is another one: "the
    top 20% of items by popularity" (``head=0.2, head_by='items'``). Elliot's ``APLT``
    (``convention='elliot'``) builds the head the same way as the paper
    (``pop_ratio`` 0.8), with popularity counted in distinct users and the
    total in distinct (user, item) pairs (``count='users'``; the same
    numbers when no pair is repeated); equal counts at the border are taken
    in Elliot's internal item order there, by item id here.

    Parameters
    ----------
    %(b_recommended)s
    %(b_popularity)s
    n_users : int, optional
        With counts, the number of training users (or interactions), as
        for :func:`novelty`: no count may exceed it. The head itself needs
        no denominator.
    %(b_k)s
    head : float, optional
        The head's share of the counts (or of the items), in (0, 1);
        ``None`` means 0.8.
    head_by : {'interactions', 'items'}, optional
        How the head is measured; ``None`` means ``'interactions'``.
    count : {'interactions', 'users'}, optional
        An item's popularity in a training DataFrame: its rows (``None``)
        or its distinct users. Counts per item are used as given.
    %(beyond_per_user)s
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float or numpy.ndarray or pandas.Series

    See Also
    --------
    novelty, average_popularity

    References
    ----------
    .. [1] H. Abdollahpouri, R. Burke and B. Mobasher. Managing Popularity
       Bias in Recommender Systems with Personalized Re-ranking. FLAIRS 2019.
    .. [2] V. W. Anelli et al. Elliot: A Comprehensive and Rigorous Framework
       for Reproducible Recommender Systems Evaluation. SIGIR 2021.

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 2, 3, 4, 5], "item": ["a", "a", "a", "b", "c"]})
    >>> long_tail_share([["a", "b"], ["b", "c"]], train)   # head = {a, b}: 4 of 5 rows
    0.25
    >>> long_tail_share([["a", "b"], ["b", "c"]], train, head=0.5)   # head = {a}
    0.75
    """
    opts = _resolve(
        "aplt",
        convention,
        {"head": head, "head_by": head_by, "count": count},
        {"head": 0.8, "head_by": "interactions", "count": "interactions"},
    )
    h = _check_head(opts["head"], opts["head_by"])
    check_choice(opts["count"], "count", ("interactions", "users"))
    per_user = check_bool(per_user, "per_user")
    lists = _read_lists(recommended, k, items=items)
    if n_users is not None:
        counts = _popularity(popularity, n_users, opts["count"], lists)[0]
    else:
        counts = _counts(popularity, lists, opts["count"])
    head_items = _short_head(counts, h, opts["head_by"])
    in_tail = ~pd.Index(lists.items).isin(head_items)
    return lists.per_user(in_tail[lists.code].astype(np.float64), per_user)


def _check_head(head, head_by):
    """``head`` as a fraction in (0, 1); ``head_by`` one of its two measures."""
    if isinstance(head, (bool, np.bool_)) or not isinstance(head, numbers.Real):
        raise TypeError(f"head must be a fraction in (0, 1), got {head!r}")
    if not 0 < head < 1:
        raise ValueError(f"head must be a fraction in (0, 1), got {head!r}")
    check_choice(head_by, "head_by", ("interactions", "items"))
    return float(head)


def _short_head(counts, head, head_by):
    """The item ids of the short head (see :func:`long_tail_share`), from counts per item."""
    ranked = counts[_by_popularity(counts)]
    ranked = ranked[ranked > 0]
    if head_by == "interactions":
        # the first items whose counts reach head * total (Elliot's loop:
        # subtract counts from the limit until it is <= 0)
        limit = float(ranked.sum()) * head
        n_head = int(np.searchsorted(ranked.cumsum().to_numpy(), limit, side="left")) + 1
    else:
        n_head = int(np.floor(head * ranked.shape[0]))
    return pd.Index(ranked.index[:n_head])
