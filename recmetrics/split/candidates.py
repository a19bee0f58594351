"""Sampled candidate sets: each test pair plus ``n_samples`` items the user never touched."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._validation import check_seed
from ..inputs.ids import _align_ids, _check_no_duplicates, _frame, _id_index, _show

__all__ = ["sample_candidates"]


def sample_candidates(train, test, items, *, n_samples=100, seed=0, user="user", item="item"):
    """Sampled candidate sets: each test pair plus ``n_samples`` items the user never touched.

    The protocol of many papers (and of the sampled-metrics chapters): the
    held-out item is ranked against ``n_samples`` items drawn uniformly,
    without replacement, from the catalogue ``items`` minus everything the
    user interacted with in ``train`` or ``test``.

    Parameters
    ----------
    train, test : pandas.DataFrame
        The split.
    items : sequence
        The catalogue, each id once.
    n_samples : int, default 100
        Sampled items per test user.
    seed : int or numpy.random.Generator, default 0
        Seed of the draw.
    user, item : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        Columns ``user``, ``item``, ``sampled`` (False for the user's test
        items, True for the sampled ones): the pairs to score.

    Raises
    ------
    TypeError
        For frames that are not DataFrames, a catalogue that is not an
        ordered sequence, or ids of different types in ``train``, ``test``
        and ``items`` (whole floats matching integers are aligned with a
        warning).
    ValueError
        For items outside the catalogue, repeated pairs in a part, missing
        values, or a user with fewer than ``n_samples`` untouched items.

    See Also
    --------
    interaction_matrix : the candidates as a mask.

    References
    ----------
    .. [1] W. Krichene and S. Rendle. On Sampled Metrics for Item
       Recommendation. KDD 2020.

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1], "item": ["a"]})
    >>> test = pd.DataFrame({"user": [1], "item": ["b"]})
    >>> c = sample_candidates(train, test, list("abcdef"), n_samples=3, seed=0)
    >>> sorted(c["item"]), int(c["sampled"].sum())
    (['b', 'd', 'e', 'f'], 3)
    """
    _frame(train, "train", [user, item])
    _frame(test, "test", [user, item])
    _check_no_duplicates(train, user, item, "train")
    _check_no_duplicates(test, user, item, "test")
    if isinstance(n_samples, (bool, np.bool_)) or not isinstance(n_samples, numbers.Integral):
        raise TypeError(f"n_samples must be an integer >= 1, got {n_samples!r}")
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    items = _id_index(items, "items")
    rng = check_seed(seed)
    test_user, train_user = _align_ids(
        test[user], train[user], f"test[{user!r}]", f"train[{user!r}]"
    )
    train_item, items = _align_ids(train[item], items, f"train[{item!r}]", "items")
    test_item, items = _align_ids(test[item], items, f"test[{item!r}]", "items")
    seen_users = pd.concat([train_user, test_user], ignore_index=True)
    seen_items = pd.concat([train_item, test_item], ignore_index=True)
    seen_cols = items.get_indexer(seen_items)
    if (seen_cols < 0).any():
        bad = int(np.argmax(seen_cols < 0))
        part = "train" if bad < len(train) else "test"
        raise ValueError(
            f"{part} holds the item {_show(seen_items.iloc[bad])!r}, which is not in items"
        )
    test_users = pd.unique(test_user)
    seen_by_user = (
        pd.Series(seen_cols).groupby(seen_users.to_numpy()).agg(lambda s: np.unique(s.to_numpy()))
    )
    rows = []
    for u in test_users:  # one draw per user: rejection-free sampling from the complement
        excluded = seen_by_user[u]
        free = len(items) - excluded.shape[0]
        if free < n_samples:
            raise ValueError(
                f"user {_show(u)!r} has only {free} untouched items, fewer than "
                f"n_samples={n_samples}"
            )
        draw = rng.choice(free, size=n_samples, replace=False)
        # map positions in the complement to item positions (excluded is sorted)
        cols = draw + np.searchsorted(excluded - np.arange(excluded.shape[0]), draw, side="right")
        rows.append(pd.DataFrame({user: u, item: items[cols], "sampled": True}))
    held = test[[user, item]].assign(sampled=False)
    return pd.concat([held, *rows], ignore_index=True)
