"""Exposure of items and groups of items under a position-based attention model.

A user who scans a ranked list looks at the first slots more often than at
the later ones; the *exposure* an item receives from one list is the
attention ``w(r)`` of its rank ``r``, and its exposure from a set of lists
is the sum over the lists. The attention model is the keyword
``attention`` of every function here (see :func:`attention_weights`).

* :func:`item_exposure`: the exposure of each recommended item (a Series);
* :func:`group_exposure`: the exposure of groups of items (providers,
  popular items against the long tail), total, per item or as a share;
* :func:`tail_exposure`: the share of all exposure that goes to the long
  tail (the registry's ``tail_exposure``);
* :func:`disparate_treatment_ratio`: Singh and Joachims' ratio of exposure
  to merit between two groups.

Expected exposure over stochastic rankings (Diaz et al. 2020) is in
:mod:`.expected_exposure`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

import numpy as np
import pandas as pd

from ..._validation import (
    as_numeric_array,
    check_bool,
    check_choice,
    check_count,
    check_probability,
)
from ...inputs.ids import _show
from ...inputs.lists import _read_lists
from ._pieces import _fill_doc
from ._side import _counts, _popularity, _side_ids, _user_rows
from .popularity import _check_head, _short_head

__all__ = [
    "ATTENTION_MODELS",
    "attention_weights",
    "item_exposure",
    "group_exposure",
    "tail_exposure",
    "disparate_treatment_ratio",
]

#: The named attention models (``attention=``); an array gives one weight per rank.
ATTENTION_MODELS = ("log", "rbp", "geometric", "uniform")


def _attention_of(ranks, attention, patience):
    """Attention of each rank in ``ranks`` (integers >= 1) under the model ``attention``."""
    ranks = np.asarray(ranks, dtype=np.float64)
    if isinstance(attention, str):
        check_choice(attention, "attention", ATTENTION_MODELS)
        if attention in ("rbp", "geometric"):
            p = 0.5 if patience is None else check_probability(patience, "patience")
            w = p ** (ranks - 1.0)
            return (1.0 - p) * w if attention == "rbp" else w
        if patience is not None:
            raise TypeError(
                f"patience applies only to attention='rbp' or 'geometric', not {attention!r}"
            )
        if attention == "log":
            return 1.0 / np.log2(ranks + 1.0)
        return np.ones(ranks.shape[0])
    if isinstance(attention, (Mapping, set, frozenset, bytes)) or not hasattr(attention, "__len__"):
        raise TypeError(
            f"attention must be one of {ATTENTION_MODELS} or an array of weights per rank, "
            f"got {type(attention).__name__}"
        )
    if patience is not None:
        raise TypeError("patience applies only to attention='rbp' or 'geometric', not to weights")
    w = as_numeric_array(attention, "attention", ndim=1, nonnegative=True)
    idx = ranks.astype(np.int64) - 1
    return np.where(idx < w.shape[0], w[np.minimum(idx, w.shape[0] - 1)], 0.0)


def attention_weights(length, attention="log", *, patience=None):
    """Attention of ranks ``1 .. length`` under a position-based model.

    .. math:: w_{\\text{log}}(r) = \\frac{1}{\\log_2(1 + r)}, \\quad
              w_{\\text{rbp}}(r) = (1 - p)\\,p^{r-1}, \\quad
              w_{\\text{geometric}}(r) = p^{r-1}, \\quad
              w_{\\text{uniform}}(r) = 1

    ``'log'`` is DCG's discount, the position bias of Singh and Joachims
    (2018); ``'rbp'`` is rank-biased precision's weight of rank ``r``
    (Moffat and Zobel 2008), the share of a patient ``p`` user's attention
    that rank ``r`` gets (summing to 1 over an infinite list);
    ``'geometric'`` is the same without the factor ``1 - p``: the
    probability ``p**(r - 1)`` that such a user looks at rank ``r`` (the
    first slot gets 1), the exposure of Diaz et al. (2020) and of their
    ``expeval``.

    Parameters
    ----------
    length : int
        Number of ranks, at least 1.
    attention : {'log', 'rbp', 'geometric', 'uniform'} or array-like, default 'log'
        The model, or the weight of each rank (``attention[r - 1]`` for rank
        ``r``, non-negative; ranks beyond the array get 0).
    patience : float, optional
        ``p`` in (0, 1) of ``'rbp'`` and ``'geometric'``; ``None`` means 0.5
        (Diaz et al. 2020). Refused by the other models.

    Returns
    -------
    numpy.ndarray
        ``length`` weights.

    References
    ----------
    .. [1] A. Singh and T. Joachims. Fairness of Exposure in Rankings. KDD 2018.
    .. [2] A. Moffat and J. Zobel. Rank-biased precision for measurement of
       retrieval effectiveness. ACM TOIS 27(1), 2008.
    .. [3] F. Diaz, B. Mitra, M. D. Ekstrand, A. J. Biega and B. Carterette.
       Evaluating Stochastic Rankings with Expected Exposure. CIKM 2020.

    Examples
    --------
    >>> attention_weights(3)
    array([1.       , 0.6309298, 0.5      ])
    >>> attention_weights(3, "rbp", patience=0.5)
    array([0.5  , 0.25 , 0.125])
    >>> attention_weights(3, [1.0, 0.5])
    array([1. , 0.5, 0. ])
    """
    length = check_count(length, "length", maximum=10**8)
    return _attention_of(np.arange(1, length + 1), attention, patience)


def _exposure(lists, attention, patience):
    """Exposure summed over the lists, one value per item of ``lists.items``."""
    w = _attention_of(lists.pos, attention, patience)
    return np.bincount(lists.code, weights=w, minlength=len(lists.items))


def _read_groups(item_groups, lists):
    """``item_groups`` (a Series or dict item -> group) keyed like the lists' items."""
    if isinstance(item_groups, Mapping):
        item_groups = pd.Series(list(item_groups.values()), index=pd.Index(list(item_groups)))
    if not isinstance(item_groups, pd.Series):
        raise TypeError(
            "item_groups must be a pandas Series or a dict item -> group, got "
            f"{type(item_groups).__name__}"
        )
    if len(item_groups) == 0:
        raise ValueError("item_groups is empty")
    if item_groups.index.hasnans or item_groups.isna().any():
        raise ValueError("item_groups has a missing item id or group")
    if not item_groups.index.is_unique:
        dup = item_groups.index[item_groups.index.duplicated()][0]
        raise ValueError(f"item_groups gives the item {_show(dup)!r} two groups")
    for g in item_groups.unique():
        if not isinstance(g, Hashable):
            raise TypeError(f"item_groups must hold hashable group labels, found {g!r}")
    keys = pd.Index(_side_ids(item_groups.index, lists, "item_groups (its index)"))
    groups = pd.Series(item_groups.to_numpy(), index=keys)
    where = keys.get_indexer(lists.items)
    used = np.bincount(lists.code, minlength=len(lists.items)) > 0
    missing = used & (where < 0)
    if missing.any():
        bad = lists.items[int(np.argmax(missing))]
        raise ValueError(f"item_groups has no group for the recommended item {_show(bad)!r}")
    return groups, where


def _group_sums(lists, groups, where, values):
    """Sum of per-item ``values`` (codes of ``lists``) over each group of ``groups``."""
    per_item = np.zeros(len(groups))
    ok = where >= 0
    np.add.at(per_item, where[ok], values[ok])
    try:
        inverse, labels = pd.factorize(groups.to_numpy(), sort=True)
    except TypeError:
        raise TypeError(
            "item_groups mixes group labels that cannot be sorted (e.g. strings and numbers)"
        ) from None
    total = np.bincount(inverse, weights=per_item, minlength=len(labels))
    size = np.bincount(inverse, minlength=len(labels))
    return pd.Index(labels, name="group"), total, size


@_fill_doc
def item_exposure(
    recommended, *, k=None, attention="log", patience=None, normalize=False, items=None
):
    """Exposure of each recommended item: the attention of its ranks, summed over the lists.

    .. math:: E(i) = \\sum_u w(r_u(i))

    with ``r_u(i)`` the rank of ``i`` in user ``u``'s list (no term when it
    is absent) and ``w`` the attention model (:func:`attention_weights`).

    Parameters
    ----------
    %(b_recommended)s
    %(b_k)s
    attention : {'log', 'rbp', 'geometric', 'uniform'} or array-like, default 'log'
        The attention of each rank (:func:`attention_weights`).
    patience : float, optional
        ``p`` of ``'rbp'`` and ``'geometric'`` (``None``: 0.5).
    normalize : bool, default False
        Divide by the total, so that the exposures are shares summing to 1.
    %(b_items)s

    Returns
    -------
    pandas.Series
        Indexed by item id (items never recommended are absent: exposure 0),
        in the order of first appearance in the lists.

    See Also
    --------
    group_exposure, recmetrics.beyond.gini

    References
    ----------
    .. [1] A. Singh and T. Joachims. Fairness of Exposure in Rankings. KDD 2018.

    Examples
    --------
    >>> item_exposure([["a", "b"], ["b", "c"]], attention="uniform")
    a    1.0
    b    2.0
    c    1.0
    Name: exposure, dtype: float64
    >>> item_exposure([["a", "b"], ["b", "c"]], attention=[1.0, 0.5], normalize=True)
    a    0.333333
    b    0.500000
    c    0.166667
    Name: exposure, dtype: float64
    """
    normalize = check_bool(normalize, "normalize")
    lists = _read_lists(recommended, k, items=items)
    exp = _exposure(lists, attention, patience)
    # items in the order of their first entry in the lists
    first = np.full(len(lists.items), lists.code.shape[0])
    np.minimum.at(first, lists.code, np.arange(lists.code.shape[0]))
    order = np.argsort(first, kind="stable")[: np.unique(lists.code).shape[0]]
    out = pd.Series(exp[order], index=pd.Index(lists.items[order]), name="exposure")
    if normalize:
        out = out / _positive_total(out.sum())
    return out


def _positive_total(total):
    if not total > 0:
        raise ValueError("the lists give no exposure at all (every attention weight is 0)")
    return float(total)


@_fill_doc
def group_exposure(
    recommended, item_groups, *, k=None, attention="log", patience=None, per_item=False,
    normalize=False, items=None,
):  # fmt: skip
    """Exposure of each group of items (providers, popularity classes), summed over the lists.

    .. math:: E(G) = \\sum_{i \\in G} E(i), \\qquad
              \\bar E(G) = \\frac{1}{|G|} \\sum_{i \\in G} E(i)

    ``E(i)`` is :func:`item_exposure`; ``|G|`` counts the items that
    ``item_groups`` puts in ``G``, recommended or not, so a group whose
    items are never recommended gets 0.

    Parameters
    ----------
    %(b_recommended)s
    item_groups : pandas.Series or dict
        The group of each item (item id -> group label), for every
        recommended item at least (a recommended item without a group
        raises); items listed here but never recommended count with
        exposure 0.
    %(b_k)s
    attention : {'log', 'rbp', 'geometric', 'uniform'} or array-like, default 'log'
        The attention of each rank (:func:`attention_weights`).
    patience : float, optional
        ``p`` of ``'rbp'`` and ``'geometric'`` (``None``: 0.5).
    per_item : bool, default False
        The mean exposure of one item of the group, ``E(G) / |G|`` (Singh
        and Joachims' ``Exposure(G)``), instead of the group's total.
    normalize : bool, default False
        The group's share of all exposure, ``E(G) / sum_H E(H)`` (the shares
        sum to 1); not with ``per_item``.
    %(b_items)s

    Returns
    -------
    pandas.Series
        Indexed by group label (sorted), named ``'exposure'``.

    See Also
    --------
    item_exposure, disparate_treatment_ratio, tail_exposure

    References
    ----------
    .. [1] A. Singh and T. Joachims. Fairness of Exposure in Rankings. KDD 2018.

    Examples
    --------
    >>> groups = {"a": "head", "b": "tail", "c": "tail", "d": "tail"}
    >>> group_exposure([["a", "b"], ["a", "c"]], groups, attention=[1.0, 0.5])
    group
    head    2.0
    tail    1.0
    Name: exposure, dtype: float64
    >>> group_exposure([["a", "b"], ["a", "c"]], groups, attention=[1.0, 0.5], per_item=True)
    group
    head    2.000000
    tail    0.333333
    Name: exposure, dtype: float64
    """
    per_item = check_bool(per_item, "per_item")
    normalize = check_bool(normalize, "normalize")
    if per_item and normalize:
        raise ValueError("normalize (shares of the total) does not apply with per_item=True")
    lists = _read_lists(recommended, k, items=items)
    groups, where = _read_groups(item_groups, lists)
    exp = _exposure(lists, attention, patience)
    labels, total, size = _group_sums(lists, groups, where, exp)
    if per_item:
        total = total / size
    elif normalize:
        total = total / _positive_total(total.sum())
    return pd.Series(total, index=labels, name="exposure")


@_fill_doc
def tail_exposure(
    recommended, popularity, *, n_users=None, k=None, head=None, head_by=None, count=None,
    attention="log", patience=None, items=None,
):  # fmt: skip
    """Share of all exposure that goes to long-tail items (outside the popular short head).

    .. math:: \\mathrm{TailExp} = \\frac{\\sum_{i \\notin \\mathcal{H}} E(i)}{\\sum_i E(i)}

    ``E(i)`` is :func:`item_exposure` and the short head ``H`` is that of
    :func:`long_tail_share` (by default the most popular items holding 80%
    of the training interactions). With ``attention='uniform'`` this is the
    share of recommended slots in the long tail, pooled over users (the
    mean of :func:`long_tail_share` when all lists have one length).

    Parameters
    ----------
    %(b_recommended)s
    %(b_popularity)s
    n_users : int, optional
        With counts, the number of training users (or interactions), as for
        :func:`long_tail_share`.
    %(b_k)s
    head : float, optional
        The head's share of the counts (or of the items), in (0, 1);
        ``None`` means 0.8.
    head_by : {'interactions', 'items'}, optional
        How the head is measured; ``None`` means ``'interactions'``.
    count : {'interactions', 'users'}, optional
        An item's popularity in a training DataFrame: its rows (``None``) or
        its distinct users.
    attention : {'log', 'rbp', 'geometric', 'uniform'} or array-like, default 'log'
        The attention of each rank (:func:`attention_weights`).
    patience : float, optional
        ``p`` of ``'rbp'`` and ``'geometric'`` (``None``: 0.5).
    %(b_items)s

    Returns
    -------
    float

    See Also
    --------
    long_tail_share, group_exposure

    References
    ----------
    .. [1] H. Abdollahpouri, R. Burke and B. Mobasher. Managing Popularity
       Bias in Recommender Systems with Personalized Re-ranking. FLAIRS 2019.
    .. [2] A. Singh and T. Joachims. Fairness of Exposure in Rankings. KDD 2018.

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 2, 3, 4, 5], "item": ["a", "a", "a", "b", "c"]})
    >>> tail_exposure([["a", "c"], ["b", "c"]], train, attention=[1.0, 0.5])   # head {a, b}
    0.3333333333333333
    """
    head_by = "interactions" if head_by is None else head_by
    head = _check_head(0.8 if head is None else head, head_by)
    count = "interactions" if count is None else count
    check_choice(count, "count", ("interactions", "users"))
    lists = _read_lists(recommended, k, items=items)
    if n_users is not None:
        counts = _popularity(popularity, n_users, count, lists)[0]
    else:
        counts = _counts(popularity, lists, count)
    exp = _exposure(lists, attention, patience)
    in_tail = ~pd.Index(lists.items).isin(_short_head(counts, head, head_by))
    return float(exp[in_tail].sum() / _positive_total(exp.sum()))


@_fill_doc
def disparate_treatment_ratio(
    recommended, relevance, item_groups, *, groups, k=None, attention="log", patience=None,
    grade=None, items=None,
):  # fmt: skip
    """Singh and Joachims' disparate treatment ratio: exposure per unit of merit, group 0 over 1.

    .. math:: \\mathrm{DTR}(G_0, G_1) =
              \\frac{\\bar E(G_0) / \\bar U(G_0)}{\\bar E(G_1) / \\bar U(G_1)},
              \\qquad \\bar U(G) = \\frac{1}{|G|}\\sum_{i \\in G} \\sum_u \\mathrm{rel}_u(i)

    ``bar E(G)`` is the mean exposure of an item of ``G``
    (:func:`group_exposure` with ``per_item=True``), ``bar U(G)`` its mean
    merit. 1 means that both groups get exposure in proportion to their
    merit; below 1, ``G_0`` gets less exposure per unit of merit than
    ``G_1``.

    Variant: Singh and Joachims (2018, section 4.2 and the DTR of their
    experiments) define it for one query, with the exposure and the merit
    (expected relevance) of each document for that query. A recommender
    gives one list per user and each list holds few items of each group,
    so here exposure and merit are summed over users first (amortised over
    the users, as Biega et al. 2018 amortise attention over a sequence of
    rankings) and the ratio is formed once. With one list it is the
    paper's per-query DTR of a deterministic ranking.

    Parameters
    ----------
    %(b_recommended)s
    relevance : pandas.DataFrame or sequence of collections
        The merit: a long DataFrame (``user``, ``item``, and the column
        ``grade`` if given), or one collection of relevant items per list.
        An item's merit is the sum over users of its relevance (1 per
        relevant pair without ``grade``).
    item_groups : pandas.Series or dict
        The group of each item, as in :func:`group_exposure`. The groups are
        the items listed here, relevant or recommended or not.
    groups : tuple
        The labels ``(G_0, G_1)`` of the two groups compared.
    %(b_k)s
    attention : {'log', 'rbp', 'geometric', 'uniform'} or array-like, default 'log'
        The attention of each rank (:func:`attention_weights`); Singh and
        Joachims use ``1 / log(1 + rank)``, ``'log'`` (the base of the
        logarithm cancels in the ratio).
    patience : float, optional
        ``p`` of ``'rbp'`` and ``'geometric'`` (``None``: 0.5).
    grade : str, optional
        The column of a ``relevance`` DataFrame holding graded relevance
        (non-negative); ``None``: every row is a relevant pair of grade 1.
    %(b_items)s

    Returns
    -------
    float

    Raises
    ------
    ValueError
        When a group has no merit (no relevant item), or no item, or
        ``groups`` names a label absent from ``item_groups``.

    See Also
    --------
    group_exposure, recmetrics.beyond.expected_exposure_loss

    References
    ----------
    .. [1] A. Singh and T. Joachims. Fairness of Exposure in Rankings. KDD 2018.
    .. [2] A. J. Biega, K. P. Gummadi and G. Weikum. Equity of Attention:
       Amortizing Individual Fairness in Rankings. SIGIR 2018.

    Examples
    --------
    >>> groups = {"a": 0, "b": 1, "c": 1}
    >>> recs, rel = [["a", "b", "c"]], [{"a", "b", "c"}]
    >>> disparate_treatment_ratio(recs, rel, groups, groups=(0, 1), attention=[1.0, 0.5, 0.5])
    2.0
    """
    if not isinstance(groups, tuple) or len(groups) != 2:
        raise TypeError(f"groups must be a tuple of two group labels (G_0, G_1), got {groups!r}")
    if groups[0] == groups[1]:
        raise ValueError(f"groups must name two different groups, got {groups!r}")
    lists = _read_lists(recommended, k, items=items)
    labels_of, where = _read_groups(item_groups, lists)
    owner, ids, w = _user_rows(relevance, lists, "relevance", weight=grade)
    keys = pd.Index(labels_of.index)
    merit = np.zeros(len(keys))
    at = keys.get_indexer(pd.Index(ids, dtype=object))
    np.add.at(merit, at[at >= 0], w[at >= 0])
    exp = np.zeros(len(keys))
    e = _exposure(lists, attention, patience)
    np.add.at(exp, where[where >= 0], e[where >= 0])
    label_arr = labels_of.to_numpy()
    out = []
    for g in groups:
        member = np.array([x == g for x in label_arr], dtype=bool)
        if not member.any():
            raise ValueError(f"groups names {g!r}, which item_groups gives to no item")
        u = merit[member].mean()
        if not u > 0:
            raise ValueError(f"the group {g!r} has no merit (no relevant item in relevance)")
        out.append(exp[member].mean() / u)
    return float(out[0] / out[1])
