"""Calibration (Steck 2018): how far a list's genre mix is from its user's history."""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..._validation import check_bool, check_fraction
from ...inputs.lists import _read_lists
from ._common import _check_base, _pos_weights
from ._pieces import _fill_doc
from ._presets import _resolve
from ._side import _feature_matrix, _user_rows

__all__ = ["calibration"]


@_fill_doc
def calibration(
    recommended,
    history,
    features,
    *,
    k=None,
    alpha=None,
    discount=False,
    history_weight=None,
    base=None,
    per_user=False,
    user="user",
    item="item",
    convention=None,
    items=None,
):
    """Miscalibration (Steck 2018): KL divergence of the list's genres from the user's history.

    .. math:: C_{KL}(p, q) = \\sum_g p(g|u) \\log \\frac{p(g|u)}{\\tilde q(g|u)},
              \\qquad \\tilde q = (1 - \\alpha)\\, q + \\alpha\\, p

    where ``p(g|i)`` spreads each item evenly over its genres,
    ``p(g|u) = sum_{i in H_u} w_{u,i} p(g|i) / sum w_{u,i}`` is the genre
    distribution of the user's history and ``q(g|u)`` that of the list
    (``w_r = 1``, or ``1 / log2(r + 1)`` by position with ``discount``).
    0 means perfectly calibrated; larger is worse. Items without any
    feature are left out of both distributions; users whose history has
    no feature get NaN. With ``alpha = 0`` a genre of the history missing
    from the list makes the divergence infinite.

    Parameters
    ----------
    %(b_recommended)s
    history : pandas.DataFrame or sequence of collections
        Each user's training items: a long DataFrame (``user``, ``item``
        and optionally a weight column), or one collection per list.
    features : pandas.DataFrame or dict
        Item features (genres): a DataFrame indexed by item id with
        non-negative values (one column per genre; each row is normalised
        to sum to 1) or a dict item -> set of genres.
    %(b_k)s
    alpha : float, optional
        Smoothing in [0, 1); ``None`` means 0.01, Steck's value.
    discount : bool, default False
        Weight list items by rank, ``1 / log2(r + 1)``.
    history_weight : str, optional
        A column of the history DataFrame with the weights ``w_{u,i}``
        (e.g. recency); default equal weights.
    base : float, optional
        Base of the logarithm; ``None`` means ``e`` (nats), as Steck.
    %(beyond_per_user)s
    user, item : str, default 'user', 'item'
        Column names of a history DataFrame.
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float or numpy.ndarray or pandas.Series

    See Also
    --------
    intra_list_diversity, serendipity

    References
    ----------
    .. [1] H. Steck. Calibrated Recommendations. RecSys 2018.

    Examples
    --------
    >>> genres = {"a": {"Drama"}, "b": {"Comedy"}, "c": {"Drama", "Comedy"}}
    >>> calibration([["c"]], [["a", "b"]], genres)   # same genre mix
    0.0
    >>> round(calibration([["a"]], [["a", "b"]], genres), 4)
    1.9585
    """
    opts = _resolve(
        "calibration", convention, {"alpha": alpha, "base": base}, {"alpha": 0.01, "base": np.e}
    )
    a = check_fraction(opts["alpha"], "alpha")
    if a >= 1:
        raise ValueError("alpha must be below 1 (alpha = 1 replaces the list by the history)")
    b = _check_base(opts["base"])
    per_user = check_bool(per_user, "per_user")
    discount = check_bool(discount, "discount")
    lists = _read_lists(recommended, k, items=items)
    owner_h, ids_h, w_h = _user_rows(
        history, lists, "history", user=user, item=item, weight=history_weight
    )
    hcode, hist_items = pd.factorize(pd.Index(ids_h, dtype=object))
    all_items = pd.Index(lists.items).append(pd.Index(hist_items)).drop_duplicates()
    x = _feature_matrix(features, all_items, lists)
    if (x < 0).any():
        raise ValueError("features must be non-negative for calibration")
    rows = x.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        pg = np.where(rows[:, None] > 0, x / rows[:, None], 0.0)  # p(g|i)
    has = rows > 0
    n, m = lists.n_users, len(all_items)
    lcode = all_items.get_indexer(pd.Index(lists.items))[lists.code]
    hcode = all_items.get_indexer(pd.Index(hist_items))[hcode]
    wl = _pos_weights(lists.pos, discount) * has[lcode]
    wh = w_h * has[hcode]
    L = sp.csr_matrix((wl, (lists.owner, lcode)), shape=(n, m))
    H = sp.csr_matrix((wh, (owner_h, hcode)), shape=(n, m))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.asarray(H @ pg) / np.asarray(H.sum(axis=1))
        q = np.asarray(L @ pg) / np.asarray(L.sum(axis=1))
    q = np.where(np.isnan(q), 0.0, q)  # a list without features: q = 0, only alpha p remains
    qt = (1.0 - a) * q + a * p
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(p > 0, p * np.log(p / qt), 0.0)
    kl = terms.sum(axis=1) / np.log(b)
    kl[np.isnan(p).any(axis=1)] = np.nan
    return lists.finish(kl, per_user)
