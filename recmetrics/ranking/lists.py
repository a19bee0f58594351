"""Rankings from ranked lists, from one list of gains, and from ranks of held-out items."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from .._docs import fill_doc
from .._validation import (
    as_numeric_array,
    check_integers,
    check_n_items,
    check_unique_items,
)
from ._representation import Ranking, _deterministic


@fill_doc
def from_ranks(ranks, n_items=None) -> Ranking:
    """Ranking from the ranks of held-out relevant items.

    The form of leave-one-out and sampled evaluation: each user's relevant
    items sit at the given 1-based ranks, with no ties; every other position
    holds a non-relevant item. Metrics accept the same input as ``ranks=``.

    Parameters
    ----------
    ranks : array-like of int, or sequence of array-likes of int
        A 1-D array gives one relevant item per user (leave-one-out); a
        sequence of 1-D arrays gives each user's relevant items. Ranks are
        1-based and distinct within a user.
    n_items : int or array-like of int, optional
        Catalogue size (per user or shared), which is also the length of the
        ranking. Needed by AUC, by the true-negative count and by metrics
        that divide by the length of the ranking when there is no cutoff;
        ranks may not exceed it.

    Returns
    -------
    Ranking
        With ``ties=None``, ``n_ranked = n_items`` (``inf`` when unknown).

    See Also
    --------
    Ranking : The representation.
    recmetrics.sample_ranks : Sampled ranks of held-out items.

    References
    ----------
    %(ref_krichene2020)s

    Examples
    --------
    >>> r = from_ranks([1, 3, 10], n_items=100)
    >>> r.n_users, r.ranks().tolist()
    (3, [1.0, 3.0, 10.0])
    >>> from_ranks([[1, 4], [2]], n_items=[10, 20]).n_relevant.tolist()
    [2.0, 1.0]
    """
    ragged = (
        isinstance(ranks, Sequence)
        and not isinstance(ranks, (str, bytes))
        and len(ranks) > 0
        and all(
            isinstance(x, (Sequence, np.ndarray)) and not isinstance(x, (str, bytes)) for x in ranks
        )
    )
    if ragged:
        parts = [
            as_numeric_array(x, f"ranks[{u}]", ndim=1, allow_empty=True)
            for u, x in enumerate(ranks)
        ]
        lengths = np.array([p.shape[0] for p in parts], dtype=np.int64)
        flat = np.concatenate(parts) if parts else np.zeros(0)
        n_users = len(parts)
    else:
        flat = as_numeric_array(ranks, "ranks", ndim=1)
        lengths = np.ones(flat.shape[0], dtype=np.int64)
        n_users = flat.shape[0]
    check_integers(flat, "ranks", minimum=1)
    user = np.repeat(np.arange(n_users), lengths)
    if n_items is not None:
        n_arr = check_n_items(n_items, n_users)
        over = flat > n_arr[user]
        if np.any(over):
            i = int(np.argmax(over))
            raise ValueError(
                f"ranks must be <= n_items: user {user[i]} has rank {flat[i]:g} > "
                f"n_items={n_arr[user[i]]:g}"
            )
        n_ranked = n_arr
    else:
        n_arr = None
        n_ranked = np.full(n_users, np.inf)
    if ragged:
        key = user * (flat.max() + 1 if flat.size else 1) + flat
        if np.unique(key).shape[0] != key.shape[0]:
            raise ValueError(
                "ranks of one user must be distinct (two relevant items cannot share a rank)"
            )
    return _deterministic(user, np.ones_like(flat), flat, n_users, n_ranked, n_arr)


@fill_doc
def from_gains(gains) -> Ranking:
    """Ranking of one user from the gains of the recommended items in ranked order.

    The items with gain > 0 are the relevant ones; the catalogue is the list
    itself, so the ideal order is the same gains sorted in decreasing order.
    This is the teaching form of the metrics, ``ndcg([3, 2, 3, 0, 1, 2])``.

    Parameters
    ----------
    gains : array-like of shape (n,)
        Gains (relevance grades >= 0, finite) of the items at positions
        ``1 .. n``.

    Returns
    -------
    Ranking
        One user, ``n_items = n_ranked = n``, ``ties=None``.

    See Also
    --------
    Ranking : The representation.
    from_lists : Ranked lists of item ids with their relevant items.

    References
    ----------
    %(ref_jarvelin2002)s

    Examples
    --------
    >>> r = from_gains([3, 2, 3, 0, 1, 2])
    >>> r.ranks().tolist(), r.gain.tolist()
    ([1.0, 2.0, 3.0, 5.0, 6.0], [3.0, 2.0, 3.0, 1.0, 2.0])
    """
    g = as_numeric_array(gains, "gains", ndim=1, nonnegative=True, allow_bool=True)
    pos = np.flatnonzero(g > 0)
    n = g.shape[0]
    return _deterministic(np.zeros(pos.shape[0], dtype=np.int64), g[pos], pos + 1.0, 1, [n], [n])


def _relevant_mapping(rel, name):
    """Return {item: gain > 0} from a set/list of ids or a dict of grades."""
    if isinstance(rel, Mapping):
        out = {}
        for item, grade in rel.items():
            _check_id(item, name)
            if isinstance(grade, (bool, np.bool_)) or not isinstance(grade, numbers.Real):
                raise TypeError(f"{name} grades must be numbers, got {grade!r} for item {item!r}")
            try:
                grade = float(grade)
            except OverflowError:
                raise ValueError(
                    f"{name} has a grade too large for float64 for item {item!r}"
                ) from None
            if not np.isfinite(grade):
                raise ValueError(f"{name} has a non-finite grade {grade!r} for item {item!r}")
            if grade < 0:
                raise ValueError(
                    f"{name} grades must be non-negative, got {grade!r} for item {item!r}"
                )
            if grade > 0:
                out[item] = float(grade)
        return out
    if isinstance(rel, (str, bytes)) or not hasattr(rel, "__iter__"):
        raise TypeError(
            f"{name} must be a set or list of relevant item ids, or a dict item -> grade; got "
            f"{type(rel).__name__}"
        )
    items = list(rel)
    if isinstance(rel, (set, frozenset)):
        for item in items:
            _check_id(item, name)
    else:
        check_unique_items(items, name)
    return {item: 1.0 for item in items}


def _check_id(item, name):
    if item is None or (isinstance(item, (float, np.floating)) and item != item):
        raise ValueError(f"{name} contains a missing item id ({item!r}); every item needs an id")


@fill_doc
def from_lists(recommended, relevant, n_items=None) -> Ranking:
    """Ranking from ranked recommendation lists and relevant items.

    Item ``i`` of a user's list has rank ``i + 1``; a relevant item missing
    from the list is never retrieved (``start = inf``) but counts in
    ``|R|``. Lists hold no ties.

    Parameters
    ----------
    recommended : sequence of sequences of hashable
        One ranked list of item ids per user (best first, no repeats).
    relevant : sequence of (set, list or dict)
        One collection of relevant item ids per user, or a dict
        ``item -> grade`` (grades >= 0; grade 0 is not relevant). Relevant
        items missing from the list count in ``|R|`` but are never retrieved.
    n_items : int or sequence of int, optional
        Catalogue size per user (or shared), for AUC and true negatives:
        unlisted items are then taken as tied below the list. It must hold
        the list and the user's relevant items missing from it.

    Returns
    -------
    Ranking
        ``n_ranked`` is the length of each list; ``ties=None``.

    See Also
    --------
    Ranking : The representation.
    from_scores : From score matrices instead of ranked lists.

    References
    ----------
    %(ref_krichene2020)s

    Examples
    --------
    >>> r = from_lists([["a", "b", "x", "c"]], [{"a", "c", "z"}])
    >>> r.ranks().tolist(), r.n_relevant.tolist()
    ([1.0, 4.0, inf], [3.0])
    >>> r = from_lists([["a", "b"], ["c"]], [{"a": 2, "z": 1}, {"c"}], n_items=5)
    >>> r.gain.tolist(), r.n_ranked.tolist(), r.n_items.tolist()
    ([2.0, 1.0, 1.0], [2.0, 1.0], [5.0, 5.0])
    """
    if isinstance(recommended, (str, bytes)) or not isinstance(recommended, (Sequence, np.ndarray)):
        raise TypeError("recommended must be a sequence of ranked lists")
    if isinstance(relevant, (str, bytes)) or not isinstance(relevant, (Sequence, np.ndarray)):
        raise TypeError("relevant must be a sequence of relevant-item collections, one per user")
    n_users = len(recommended)
    if n_users == 0:
        raise ValueError("recommended is empty; at least one user is needed")
    if len(relevant) != n_users:
        raise ValueError(
            f"recommended and relevant must have one entry per user, got {n_users} and "
            f"{len(relevant)}"
        )
    users, gains, ranks, n_ranked = [], [], [], np.empty(n_users)
    for u in range(n_users):  # conversion of Python objects; the metrics are vectorised
        rec = recommended[u]
        if isinstance(rec, (str, bytes)) or not isinstance(rec, (Sequence, np.ndarray)):
            raise TypeError(
                f"recommended[{u}] must be a ranked list of item ids, got {type(rec).__name__}"
            )
        rec = list(rec)
        check_unique_items(rec, f"recommended[{u}]" if n_users > 1 else "recommended")
        pos = {item: i + 1 for i, item in enumerate(rec)}
        rel = _relevant_mapping(relevant[u], f"relevant[{u}]" if n_users > 1 else "relevant")
        n_ranked[u] = len(rec)
        for item, g in rel.items():
            users.append(u)
            gains.append(g)
            ranks.append(pos.get(item, np.inf))
    if n_items is not None:
        n_arr = check_n_items(n_items, n_users)
        # the catalogue holds the list and every relevant item missing from it
        unlisted_rel = np.bincount(
            np.asarray(users, dtype=np.int64),
            weights=np.isinf(np.asarray(ranks, dtype=float)),
            minlength=n_users,
        )
        short = n_arr < n_ranked + unlisted_rel
        if np.any(short):
            u = int(np.argmax(short))
            raise ValueError(
                f"n_items={n_arr[u]:g} is smaller than what user {u} needs: {n_ranked[u]:g} "
                "recommended "
                f"items plus {unlisted_rel[u]:g} relevant items missing from the list"
            )
    else:
        n_arr = None
    user = np.asarray(users, dtype=np.int64)
    return _deterministic(
        user,
        np.asarray(gains, dtype=float),
        np.asarray(ranks, dtype=float),
        n_users,
        n_ranked,
        n_arr,
    )
