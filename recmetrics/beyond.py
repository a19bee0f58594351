"""Beyond accuracy: coverage, concentration, novelty, popularity and diversity of lists.

These metrics look at the recommended lists themselves (and at item data:
popularity from the training interactions, item features), not at whether
the items were relevant. Libraries define them differently; every choice is a
keyword here (issue 13 of the project; this module is its first part: the
core definitions, vectorised over users).

Recommended lists are given as

* a list of lists of item ids (one ranked list per user, best first), or a
  2-D array of item ids ``(n_users, k)``;
* a long pandas DataFrame with ``user``, ``item`` and ``rank`` (1 = first) or
  ``score`` columns, as :func:`recmetrics.from_frames` reads it;

and ``k`` cuts every list to its first ``k`` items.

References
----------
.. [1] S. Vargas and P. Castells. Rank and Relevance in Novelty and Diversity
   Metrics for Recommender Systems. RecSys 2011.
.. [2] T. Zhou et al. Solving the apparent diversity-accuracy dilemma of
   recommender systems. PNAS 107(10), 2010.
.. [3] H. Abdollahpouri, R. Burke and B. Mobasher. Managing Popularity Bias
   in Recommender Systems with Personalized Re-ranking. FLAIRS 2019.
.. [4] H. Steck. Calibrated Recommendations. RecSys 2018.
.. [5] M. Kaminskas and D. Bridge. Diversity, Serendipity, Novelty, and
   Coverage: A Survey and Empirical Analysis of Beyond-Accuracy Objectives in
   Recommender Systems. ACM TiiS 7(1), 2016.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._kernels import CHUNK_CELLS
from ._validation import check_choice, check_k, check_unique_items

__all__ = [
    "coverage",
    "gini",
    "entropy",
    "novelty",
    "average_popularity",
    "long_tail_share",
    "intra_list_diversity",
]

_DISTANCES = ("jaccard", "cosine")


# --------------------------------------------------------------------------
# reading recommended lists
def _lists(recommended, k=None, *, user="user", item="item", rank=None, score=None):
    """Flatten lists to ``(items, owner, position, n_users, user_ids)``; positions are 1-based."""
    k = check_k(k, allow_none=True)
    if isinstance(recommended, pd.DataFrame):
        for col in (user, item):
            if col not in recommended.columns:
                raise ValueError(f"recommended has no column {col!r}")
        if rank is None and score is None:
            score = "score" if "score" in recommended.columns else None
            rank = "rank" if score is None else None
        key = rank if rank is not None else score
        if key is None or key not in recommended.columns:
            raise ValueError(
                "recommended needs a 'rank' or 'score' column (or pass rank= / score=)"
            )
        if recommended.duplicated(subset=[user, item]).any():
            raise ValueError("recommended holds a (user, item) pair twice")
        codes, uids = pd.factorize(recommended[user], sort=False)
        order_key = recommended[key].to_numpy(dtype=np.float64)
        order_key = order_key if rank is not None else -order_key
        order = np.lexsort((recommended[item].factorize()[0], order_key, codes))
        su = codes[order]
        first = np.searchsorted(su, su, side="left")
        pos = np.arange(su.shape[0]) - first + 1
        items = recommended[item].to_numpy()[order]
        keep = pos <= (np.inf if k is None else k)
        return items[keep], su[keep], pos[keep], len(uids), pd.Index(uids)
    if isinstance(recommended, np.ndarray) and recommended.ndim == 2:
        rec = recommended[:, :k] if k is not None else recommended
        n_users, width = rec.shape
        owner = np.repeat(np.arange(n_users), width)
        pos = np.tile(np.arange(1, width + 1), n_users)
        for u in range(n_users) if rec.dtype == object else ():
            check_unique_items(list(rec[u]), f"recommended[{u}]")
        if rec.dtype != object:
            srt = np.sort(rec, axis=1)
            if width > 1 and (srt[:, 1:] == srt[:, :-1]).any():
                raise ValueError("a recommended list repeats an item")
        return rec.ravel(), owner, pos, n_users, None
    if isinstance(recommended, (str, bytes)) or not hasattr(recommended, "__len__"):
        raise TypeError("recommended must be lists of item ids, a 2-D array or a long DataFrame")
    flat, owner, pos = [], [], []
    for u, lst in enumerate(recommended):
        if isinstance(lst, (str, bytes, set, frozenset, Mapping)) or not hasattr(lst, "__len__"):
            raise TypeError(f"recommended[{u}] must be a ranked list of item ids")
        lst = list(lst)[:k] if k is not None else list(lst)
        check_unique_items(lst, f"recommended[{u}]")
        flat.extend(lst)
        owner.extend([u] * len(lst))
        pos.extend(range(1, len(lst) + 1))
    if not recommended:
        raise ValueError("recommended is empty")
    items = np.empty(len(flat), dtype=object)
    items[:] = flat
    return items, np.asarray(owner, dtype=np.int64), np.asarray(pos), len(recommended), None


def _per_user_mean(values, owner, n_users, user_ids, per_user):
    sums = np.bincount(owner, weights=values, minlength=n_users)
    counts = np.bincount(owner, minlength=n_users)
    with np.errstate(invalid="ignore", divide="ignore"):
        per = sums / counts
    if per_user:
        return per if user_ids is None else pd.Series(per, index=user_ids)
    ok = counts > 0
    return float(np.mean(per[ok])) if ok.any() else float("nan")


def _popularity(popularity, n_interactions=None):
    """Item -> count (a Series) from a Series/dict of counts or a training DataFrame."""
    if isinstance(popularity, pd.DataFrame):
        if "item" not in popularity.columns:
            raise ValueError(
                "a popularity DataFrame must have an 'item' column (training interactions)"
            )
        counts = popularity["item"].value_counts()
        users = popularity["user"].nunique() if "user" in popularity.columns else len(popularity)
        return counts.astype(np.float64), float(users)
    if isinstance(popularity, Mapping):
        popularity = pd.Series(popularity)
    if not isinstance(popularity, pd.Series):
        raise TypeError(
            "popularity must be a Series or dict item -> count, or a training DataFrame"
        )
    if popularity.dtype.kind not in "iuf" or (popularity < 0).any():
        raise ValueError("popularity counts must be numbers >= 0")
    if n_interactions is None:
        raise TypeError(
            "with counts, pass n_users= (the number of training users) so that the "
            "popularity of an item is the fraction of users who interacted with it"
        )
    return popularity.astype(np.float64), float(n_interactions)


# --------------------------------------------------------------------------
# catalogue coverage and concentration
def _exposure(recommended, k, n_items, discount):
    items, owner, pos, _, _ = _lists(recommended, k)
    check_choice(discount, "discount", ("none", "log"))
    w = np.ones(pos.shape[0]) if discount == "none" else 1.0 / np.log2(pos + 1.0)
    exp = pd.Series(w).groupby(items).sum()
    if n_items is not None:
        if isinstance(n_items, (bool, np.bool_)) or not isinstance(n_items, numbers.Integral):
            raise TypeError(f"n_items must be an integer, got {n_items!r}")
        if n_items < len(exp):
            raise ValueError(
                f"n_items={n_items} is smaller than the {len(exp)} distinct recommended items"
            )
    return exp.to_numpy(), n_items


def coverage(recommended, *, n_items, k=None):
    """Catalogue coverage: the fraction of the catalogue recommended to at least one user.

    .. math:: \\mathrm{Coverage@}k = \\frac{|\\bigcup_u L_u^{(k)}|}{|I|}

    Parameters
    ----------
    recommended : lists, 2-D array or DataFrame
        The recommended lists (see the module docstring).
    n_items : int
        Catalogue size ``|I|``.
    k : int, optional
        Cut every list at ``k``.

    Returns
    -------
    float

    Examples
    --------
    >>> coverage([["a", "b"], ["a", "c"]], n_items=10)
    0.3
    """
    exp, n = _exposure(recommended, k, n_items, "none")
    return float(exp.shape[0] / n)


def gini(recommended, *, n_items, k=None, discount="none"):
    """Gini index of the exposure of the catalogue's items (0 = equal, towards 1 = concentrated).

    .. math:: G = \\frac{\\sum_{j=1}^{n} (2j - n - 1)\\, x_{(j)}}{n \\sum_j x_j}

    with ``x_(1) <= ... <= x_(n)`` the exposures of all ``n = n_items``
    items, never-recommended items counting 0.

    Parameters
    ----------
    recommended : lists, 2-D array or DataFrame
        The recommended lists.
    n_items : int
        Catalogue size (items never recommended count with exposure 0).
    k : int, optional
        Cut every list at ``k``.
    discount : {'none', 'log'}, default 'none'
        Exposure of a slot: 1, or ``1 / log2(position + 1)`` (a user sees the
        top of a list more often).

    Returns
    -------
    float

    Examples
    --------
    >>> gini([["a"], ["a"]], n_items=2)   # one item gets all exposure
    0.5
    >>> gini([["a"], ["b"]], n_items=2)
    0.0
    """
    exp, n = _exposure(recommended, k, n_items, discount)
    x = np.sort(np.concatenate([np.zeros(n - exp.shape[0]), exp]))
    j = np.arange(1, n + 1)
    return float(np.sum((2 * j - n - 1) * x) / (n * np.sum(x)))


def entropy(recommended, *, k=None, discount="none", base=2.0, n_items=None):
    """Shannon entropy of the exposure distribution over the recommended items.

    .. math:: H = -\\sum_i p_i \\log_b p_i, \\qquad p_i = x_i / \\sum_j x_j

    Parameters
    ----------
    recommended : lists, 2-D array or DataFrame
        The recommended lists.
    k : int, optional
        Cut every list at ``k``.
    discount : {'none', 'log'}, default 'none'
        As in :func:`gini`.
    base : float, default 2
        Base of the logarithm (bits).
    n_items : int, optional
        Only checked (the entropy does not depend on items never shown).

    Returns
    -------
    float

    Examples
    --------
    >>> entropy([["a", "b"], ["c", "d"]])   # four items, equal exposure: 2 bits
    2.0
    """
    exp, _ = _exposure(recommended, k, n_items, discount)
    p = exp / exp.sum()
    return float(-np.sum(p * np.log(p)) / np.log(base))


# --------------------------------------------------------------------------
# popularity: novelty, ARP, long tail
def _item_popularity(items, popularity, n_users):
    counts, total = _popularity(popularity, n_users)
    return pd.Series(items).map(counts).fillna(0.0).to_numpy(dtype=np.float64), counts, total


def novelty(
    recommended, popularity, *, n_users=None, k=None, base=2.0, unseen="smooth", per_user=False
):
    """Mean self-information of the recommended items: ``-log_b p(i)``, averaged per list.

    .. math:: \\mathrm{Nov}(L_u) = \\frac{1}{|L_u|}\\sum_{i \\in L_u} -\\log_b p(i),
              \\qquad p(i) = \\frac{|\\{v : i \\in H_v\\}|}{|U|}

    the fraction of training users who interacted with ``i`` (Zhou et al.
    2010; Vargas & Castells 2011). Libraries differ: some use the fraction
    of interactions, or ``log2`` of raw counts; choose with the arguments.

    Parameters
    ----------
    recommended : lists, 2-D array or DataFrame
        The recommended lists.
    popularity : pandas.DataFrame, pandas.Series or dict
        The training interactions (columns ``user``, ``item``): ``p(i)`` is
        the fraction of training users with ``i``; or counts per item, with
        ``n_users`` the denominator (e.g. the number of interactions, for
        the fraction-of-interactions variant).
    n_users : int, optional
        Denominator of ``p(i)`` when ``popularity`` holds counts.
    k : int, optional
        Cut every list at ``k``.
    base : float, default 2
        Base of the logarithm.
    unseen : {'smooth', 'raise'}, default 'smooth'
        An item absent from the training data has ``p = 0`` and infinite
        self-information: ``'smooth'`` uses ``p = 1 / (|U| + 1)``, ``'raise'``
        raises.
    per_user : bool, default False
        One value per user instead of the mean over users.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 2, 3, 4], "item": ["a", "a", "a", "b"]})
    >>> round(novelty([["a", "b"]], train), 4)   # (-log2(3/4) - log2(1/4)) / 2
    1.2075
    """
    items, owner, _, n, uids = _lists(recommended, k)
    check_choice(unseen, "unseen", ("smooth", "raise"))
    pop, _, total = _item_popularity(items, popularity, n_users)
    if (pop == 0).any():
        if unseen == "raise":
            raise ValueError("a recommended item has no training interaction (p = 0)")
        pop = np.where(pop == 0, total / (total + 1.0), pop)  # p = 1 / (|U| + 1)
    info = -np.log(pop / total) / np.log(base)
    return _per_user_mean(info, owner, n, uids, per_user)


def average_popularity(recommended, popularity, *, n_users=None, k=None, per_user=False):
    """Average recommendation popularity (ARP): the mean training count of the listed items.

    .. math:: \\mathrm{ARP}(L_u) = \\frac{1}{|L_u|}\\sum_{i \\in L_u} \\phi(i)

    with ``phi(i)`` the number of training users (or interactions) with ``i``
    (Abdollahpouri et al. 2019).

    Parameters
    ----------
    recommended, popularity, n_users, k, per_user
        As in :func:`novelty`.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 2, 3, 4], "item": ["a", "a", "a", "b"]})
    >>> average_popularity([["a", "b"], ["b"]], train)   # (2 + 1) / 2
    1.5
    """
    items, owner, _, n, uids = _lists(recommended, k)
    pop, _, _ = _item_popularity(items, popularity, n_users)
    return _per_user_mean(pop, owner, n, uids, per_user)


def long_tail_share(recommended, popularity, *, n_users=None, k=None, head=0.2, per_user=False):
    """Share of each list in the long tail (APLT): items outside the popular head.

    The head is the smallest set of most popular items that holds a fraction
    ``head`` of all training interactions (Abdollahpouri et al. 2019 use the
    items making up 20 % of the ratings); the tail is every other item.

    Parameters
    ----------
    recommended, popularity, n_users, k, per_user
        As in :func:`novelty`.
    head : float, default 0.2
        Fraction of the interactions the head items hold, in (0, 1).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 2, 3, 4, 5], "item": ["a", "a", "a", "b", "c"]})
    >>> long_tail_share([["a", "b"], ["b", "c"]], train, head=0.5)   # head = {a}
    0.75
    """
    if isinstance(head, (bool, np.bool_)) or not isinstance(head, numbers.Real) or not 0 < head < 1:
        raise ValueError(f"head must be a fraction in (0, 1), got {head!r}")
    items, owner, _, n, uids = _lists(recommended, k)
    _, counts, _ = _item_popularity(items, popularity, n_users)
    ranked = counts.sort_values(ascending=False, kind="stable")
    share = ranked.cumsum() / ranked.sum()
    n_head = int(np.searchsorted(share.to_numpy(), head - 1e-12) + 1)
    head_items = set(ranked.index[:n_head])
    in_tail = ~pd.Series(items).isin(head_items).to_numpy()
    return _per_user_mean(in_tail.astype(np.float64), owner, n, uids, per_user)


# --------------------------------------------------------------------------
# diversity within a list
def _feature_matrix(features, items):
    """Binary/real feature vectors of ``items`` (rows) from a DataFrame or a dict item -> set."""
    if isinstance(features, pd.DataFrame):
        missing = ~pd.Index(items).isin(features.index)
        if missing.any():
            raise ValueError(f"features has no row for item {items[int(np.argmax(missing))]!r}")
        return features.loc[items].to_numpy(dtype=np.float64)
    if isinstance(features, Mapping):
        vocab = sorted({f for v in features.values() for f in v}, key=str)
        col = {f: j for j, f in enumerate(vocab)}
        out = np.zeros((len(items), len(vocab)))
        for r, it in enumerate(items):
            if it not in features:
                raise ValueError(f"features has no entry for item {it!r}")
            for f in features[it]:
                out[r, col[f]] = 1.0
        return out
    raise TypeError(
        "features must be a DataFrame indexed by item id or a dict item -> set of features"
    )


def intra_list_diversity(
    recommended, features, *, k=None, distance="jaccard", per_user=False, discount=False
):
    """Intra-list diversity: the mean pairwise distance between the items of each list.

    .. math:: \\mathrm{ILD}(L_u) = \\frac{2}{|L_u|(|L_u| - 1)}
              \\sum_{i < j \\in L_u} d(i, j)

    (Ziegler et al. 2005; with ``discount=True`` each pair is weighted by
    ``1/log2(p_i + 1) * 1/log2(p_j + 1)``, the rank-aware variant of Vargas &
    Castells 2011, normalised by the sum of the weights).

    Parameters
    ----------
    recommended : lists, 2-D array or DataFrame
        The recommended lists.
    features : pandas.DataFrame or dict, or square array
        Item features (a DataFrame indexed by item id, one column per
        feature, e.g. one-hot genres; or a dict item -> set of features);
        with ``distance='precomputed'`` a pandas DataFrame of distances
        indexed and labelled by item id.
    k : int, optional
        Cut every list at ``k``.
    distance : {'jaccard', 'cosine', 'precomputed'}, default 'jaccard'
        ``1 - |A ∩ B| / |A ∪ B|`` on binary features (two items without any
        feature have distance 0), ``1 - cos`` on feature vectors, or the
        given matrix.
    per_user : bool, default False
        One value per user (NaN for lists shorter than 2) instead of the mean.
    discount : bool, default False
        Weight pairs by their positions.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> genres = {"a": {"Drama"}, "b": {"Drama"}, "c": {"Comedy"}}
    >>> round(intra_list_diversity([["a", "b", "c"]], genres), 4)   # pairs: 0, 1, 1
    0.6667
    """
    check_choice(distance, "distance", (*_DISTANCES, "precomputed"))
    items, owner, pos, n, uids = _lists(recommended, k)
    order = np.lexsort((pos, owner))
    items, owner, pos = items[order], owner[order], pos[order]
    inv, uniques = pd.factorize(pd.Series(items))
    reps = list(uniques)
    counts = np.bincount(owner, minlength=n)
    width = int(counts.max())
    # padded (n_users, width) item codes; -1 where a list is shorter
    slot = pos - 1
    codes = np.full((n, width), -1, dtype=np.int64)
    codes[owner, slot] = inv
    if distance == "precomputed":
        if not isinstance(features, pd.DataFrame):
            raise TypeError(
                "with distance='precomputed', features must be a DataFrame of distances"
            )
        dmat = features.loc[reps, reps].to_numpy(dtype=np.float64)
    else:
        x = _feature_matrix(features, reps)
        if distance == "jaccard":
            b = (x > 0).astype(np.float64)
            inter = b @ b.T
            size = b.sum(axis=1)
            union = size[:, None] + size[None, :] - inter
            with np.errstate(invalid="ignore", divide="ignore"):
                dmat = np.where(union > 0, 1.0 - inter / union, 0.0)
        else:
            norm = np.linalg.norm(x, axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                unit = np.where(norm[:, None] > 0, x / norm[:, None], 0.0)
            dmat = 1.0 - unit @ unit.T
            dmat[norm == 0, :] = 1.0
            dmat[:, norm == 0] = 1.0
            np.fill_diagonal(dmat, 0.0)
    # every pair of positions at once, in blocks of users (bounded memory);
    # the padding code -1 points at an extra zero row and column, weight 0
    m = dmat.shape[0]
    dpad = np.zeros((m + 1, m + 1))
    dpad[:m, :m] = dmat
    pi, pj = np.triu_indices(width, 1)
    w_pos = 1.0 / np.log2(np.arange(1, width + 1) + 1.0) if discount else np.ones(width)
    w_pair = w_pos[pi] * w_pos[pj]
    total = np.zeros(n)
    weight = np.zeros(n)
    step = max(1, CHUNK_CELLS // max(pi.shape[0], 1))
    for lo in range(0, n, step):
        c = codes[lo : lo + step]
        ci, cj = c[:, pi], c[:, pj]
        valid = (ci >= 0) & (cj >= 0)
        d = dpad[np.where(ci >= 0, ci, m), np.where(cj >= 0, cj, m)]
        total[lo : lo + step] = d @ w_pair
        weight[lo : lo + step] = valid @ w_pair
    with np.errstate(invalid="ignore", divide="ignore"):
        per = np.where(weight > 0, total / weight, np.nan)
    if per_user:
        return per if uids is None else pd.Series(per, index=uids)
    ok = ~np.isnan(per)
    return float(np.mean(per[ok])) if ok.any() else float("nan")
