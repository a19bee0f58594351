"""Splitting protocols and the evaluation set-up every paper must state.

Every function takes one long data frame of interactions (one row per
user-item pair, with the columns named by ``user=``, ``item=`` and, where time
matters, ``time=``) and returns ``(train, test)`` frames: a partition of the
rows, so no test interaction is ever in the training data. Randomness comes
from ``seed`` alone (the same seed gives the same split on every machine).

* :func:`random_holdout`: per user, a random fraction or count of the rows;
* :func:`temporal`: one global cut-off time (or the time that leaves a
  fraction of the rows after it): the past trains, the future tests;
* :func:`leave_last_out`: each user's last ``n`` interactions by time (ties
  in time broken by item id, deterministically);
* :func:`kfold`: ``n_splits`` folds of each user's interactions, or of the
  users themselves.

Test users or items absent from the training data are *reported* by
:func:`split_summary` and dropped only when asked (``drop_unseen=True``): a
model cannot score a user it never saw, and silently dropping such users
flatters it.

The set-up around the split: :func:`relevant_from_ratings` (which test
interactions count as relevant), :func:`interaction_matrix` (frames to the
sparse matrices the metrics take, with the training interactions as the mask
of items not to recommend again), and :func:`sample_candidates` (``m``
sampled non-interacted items per user, the protocol whose effect the
sampled-metrics chapters measure).

References
----------
.. [1] M. Harper and J. Konstan. The MovieLens Datasets: History and
   Context. ACM TiiS 5(4), 19, 2015.
.. [2] W. Krichene and S. Rendle. On Sampled Metrics for Item
   Recommendation. KDD 2020.
.. [3] Z. Meng, R. McCreadie, C. Macdonald and I. Ounis. Exploring Data
   Splitting Strategies for the Evaluation of Recommendation Models.
   RecSys 2020.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._validation import check_bool, check_seed

__all__ = [
    "random_holdout",
    "temporal",
    "leave_last_out",
    "kfold",
    "split_summary",
    "relevant_from_ratings",
    "interaction_matrix",
    "sample_candidates",
]


# --------------------------------------------------------------------------
# checks shared by the splitters
def _frame(data, name, columns):
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"{name} must be a pandas DataFrame (one row per interaction), "
            f"got {type(data).__name__}"
        )
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise ValueError(f"{name} has no column {missing[0]!r}; columns are {list(data.columns)}")
    if data.empty:
        raise ValueError(f"{name} is empty")
    for c in columns:
        if data[c].isna().any():
            raise ValueError(f"{name} has missing values in column {c!r}")
    return data


def _check_no_duplicates(data, user, item, name):
    dup = data.duplicated(subset=[user, item])
    if dup.any():
        row = data[dup].iloc[0]
        raise ValueError(
            f"{name} holds the pair ({row[user]!r}, {row[item]!r}) twice; "
            "aggregate repeated interactions first (e.g. keep the last)"
        )


def _within_user_position(codes, key):
    """Position (0-based) of each row within its user, in increasing ``key`` order."""
    order = np.lexsort((key, codes))
    sorted_codes = codes[order]
    first = np.searchsorted(sorted_codes, sorted_codes, side="left")
    pos = np.empty(codes.shape[0], dtype=np.int64)
    pos[order] = np.arange(codes.shape[0]) - first
    return pos


def _finish(data, is_test, user, item, drop_unseen):
    drop_unseen = check_bool(drop_unseen, "drop_unseen")
    train, test = data[~is_test], data[is_test]
    if drop_unseen:
        seen = test[user].isin(train[user]) & test[item].isin(train[item])
        test = test[seen]
    return train, test


def _test_count(n, test_size, min_train):
    """Test rows per user: a fraction (rounded half up) or a count, leaving ``min_train``."""
    if isinstance(test_size, (bool, np.bool_)) or not isinstance(test_size, numbers.Real):
        raise TypeError(
            f"test_size must be a fraction in (0, 1) or a count >= 1, got {test_size!r}"
        )
    if isinstance(test_size, numbers.Integral):
        if test_size < 1:
            raise ValueError(f"test_size as a count must be >= 1, got {test_size}")
        want = np.full(n.shape[0], int(test_size))
    else:
        if not 0 < test_size < 1:
            raise ValueError(f"test_size as a fraction must lie in (0, 1), got {test_size}")
        want = np.floor(n * float(test_size) + 0.5).astype(np.int64)
    return np.clip(np.minimum(want, n - min_train), 0, None)


def _check_min_train(min_train):
    if isinstance(min_train, (bool, np.bool_)) or not isinstance(min_train, numbers.Integral):
        raise TypeError(f"min_train must be an integer >= 0, got {min_train!r}")
    if min_train < 0:
        raise ValueError(f"min_train must be >= 0, got {min_train}")
    return int(min_train)


# --------------------------------------------------------------------------
# the splitters
def random_holdout(
    data,
    *,
    test_size=0.2,
    seed=0,
    min_train=1,
    user="user",
    item="item",
    drop_unseen=False,
):
    """Hold out a random part of each user's interactions.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per interaction, with the columns ``user`` and ``item``.
    test_size : float or int, default 0.2
        A fraction in (0, 1) of each user's rows (rounded half up), or a
        count of rows per user.
    seed : int or numpy.random.Generator, default 0
        Seed of the random draw: the same seed gives the same split.
    min_train : int, default 1
        Rows each user keeps in the training data at least (a user with
        ``min_train`` rows or fewer has no test rows).
    user, item : str
        Column names.
    drop_unseen : bool, default False
        Drop test rows whose item is absent from the training data (their
        user always keeps ``min_train`` rows there). See :func:`split_summary`.

    Returns
    -------
    train, test : pandas.DataFrame
        The rows of ``data`` (index kept), a partition of it.

    See Also
    --------
    temporal, leave_last_out : splits by time.
    kfold : every interaction tested once.

    Examples
    --------
    >>> data = pd.DataFrame({"user": [1, 1, 1, 1, 2, 2], "item": list("abcdab")})
    >>> train, test = random_holdout(data, test_size=0.5, seed=1)
    >>> len(train), len(test), sorted(test["user"])
    (3, 3, [1, 1, 2])
    """
    _frame(data, "data", [user, item])
    _check_no_duplicates(data, user, item, "data")
    min_train = _check_min_train(min_train)
    codes, _ = pd.factorize(data[user])
    n = np.bincount(codes)
    n_test = _test_count(n, test_size, min_train)
    key = check_seed(seed).random(codes.shape[0])
    is_test = _within_user_position(codes, key) < n_test[codes]
    return _finish(data, is_test, user, item, drop_unseen)


def temporal(
    data,
    *,
    cutoff=None,
    test_fraction=None,
    time="timestamp",
    user="user",
    item="item",
    drop_unseen=False,
):
    """Split at one global time: interactions from ``cutoff`` on are the test data.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per interaction, with the columns ``user``, ``item`` and
        ``time`` (numbers or datetimes).
    cutoff : scalar, optional
        Rows with ``time >= cutoff`` are test rows.
    test_fraction : float, optional
        Instead of ``cutoff``: the smallest time such that at most this
        fraction of the rows is at or after it (rows at the cutoff time all
        go to the test side, so the fraction is reached or slightly missed).
    time, user, item : str
        Column names.
    drop_unseen : bool, default False
        Drop test rows whose user or item is absent from the training data
        (a global cut leaves new users and new items in the test data: see
        :func:`split_summary`).

    Returns
    -------
    train, test : pandas.DataFrame

    Examples
    --------
    >>> data = pd.DataFrame({"user": [1, 1, 2, 2], "item": list("abab"), "timestamp": [1, 2, 3, 4]})
    >>> train, test = temporal(data, cutoff=3)
    >>> train["timestamp"].tolist(), test["timestamp"].tolist()
    ([1, 2], [3, 4])
    >>> temporal(data, test_fraction=0.25)[1]["timestamp"].tolist()
    [4]
    """
    _frame(data, "data", [user, item, time])
    _check_no_duplicates(data, user, item, "data")
    if (cutoff is None) == (test_fraction is None):
        raise TypeError("give exactly one of cutoff and test_fraction")
    t = data[time]
    if test_fraction is not None:
        if isinstance(test_fraction, (bool, np.bool_)) or not isinstance(
            test_fraction, numbers.Real
        ):
            raise TypeError(f"test_fraction must be a number in (0, 1), got {test_fraction!r}")
        if not 0 < test_fraction < 1:
            raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction}")
        values = np.sort(t.to_numpy())
        n_test = int(np.floor(values.shape[0] * float(test_fraction)))
        if n_test == 0:
            raise ValueError(
                f"test_fraction={test_fraction} leaves no test row in {values.shape[0]} rows"
            )
        candidate = values[values.shape[0] - n_test]
        # all rows at the cutoff time go to the test side: move up if that is too many
        later = values[values > candidate]
        cutoff = (
            candidate
            if (values >= candidate).sum() <= n_test
            else (later[0] if later.size else candidate)
        )
    is_test = (t >= cutoff).to_numpy()
    if is_test.all() or not is_test.any():
        raise ValueError(f"cutoff={cutoff!r} puts every row on one side of the split")
    return _finish(data, is_test, user, item, drop_unseen)


def leave_last_out(
    data,
    *,
    n=1,
    min_train=1,
    time="timestamp",
    user="user",
    item="item",
    drop_unseen=False,
):
    """Hold out each user's last ``n`` interactions by time.

    Interactions at the same time are ordered by item id (sorted values, the
    same order on every machine), so the split is deterministic.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per interaction, with the columns ``user``, ``item``, ``time``.
    n : int, default 1
        Interactions held out per user (leave-one-out for ``n=1``).
    min_train : int, default 1
        A user keeps at least this many rows in the training data (users
        with ``n + min_train`` rows or fewer hold out fewer, maybe none).
    time, user, item : str
        Column names.
    drop_unseen : bool, default False
        Drop test rows whose item is absent from the training data.

    Returns
    -------
    train, test : pandas.DataFrame

    Examples
    --------
    >>> data = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": list("abcba"),
    ...                      "timestamp": [3, 1, 3, 5, 6]})
    >>> train, test = leave_last_out(data)
    >>> test[["user", "item"]].values.tolist()    # user 1: a and c at time 3, c is the later id
    [[1, 'c'], [2, 'a']]
    """
    _frame(data, "data", [user, item, time])
    _check_no_duplicates(data, user, item, "data")
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    min_train = _check_min_train(min_train)
    codes, _ = pd.factorize(data[user])
    counts = np.bincount(codes)
    n_test = np.clip(np.minimum(int(n), counts - min_train), 0, None)
    try:
        item_order = pd.factorize(data[item], sort=True)[0]
    except TypeError:
        raise TypeError(
            f"column {item!r} mixes ids that cannot be sorted (e.g. strings and numbers); "
            "ties in time are broken by item id, so use one type"
        ) from None
    time_order = pd.factorize(data[time], sort=True)[0]
    # position from the end: the latest first, ties in time by item id descending
    latest_first = np.empty(codes.shape[0], dtype=np.int64)
    latest_first[np.lexsort((-item_order, -time_order))] = np.arange(codes.shape[0])
    from_end = _within_user_position(codes, latest_first)
    is_test = from_end < n_test[codes]
    return _finish(data, is_test, user, item, drop_unseen)


def kfold(data, *, n_splits=5, by="interaction", seed=0, user="user", item="item"):
    """K-fold cross-validation: every interaction (or user) is tested exactly once.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per interaction, with the columns ``user`` and ``item``.
    n_splits : int, default 5
        Number of folds (at least 2).
    by : {'interaction', 'user'}, default 'interaction'
        ``'interaction'``: each user's rows are dealt at random into the
        folds (each fold tests part of every user with enough rows: weak
        generalisation, the usual protocol for collaborative filtering).
        ``'user'``: the users are dealt into the folds and a fold tests all
        rows of its users (strong generalisation: test users are absent
        from the training data, which only models that fold in new users
        can handle).
    seed : int, default 0
        Seed of the random draw.
    user, item : str
        Column names.

    Yields
    ------
    train, test : pandas.DataFrame
        One pair per fold.

    Examples
    --------
    >>> data = pd.DataFrame({"user": [1, 1, 1, 2, 2, 2], "item": list("abcabc")})
    >>> folds = list(kfold(data, n_splits=3, seed=0))
    >>> [len(test) for _, test in folds], sorted(i for _, t in folds for i in t.index)
    ([2, 2, 2], [0, 1, 2, 3, 4, 5])
    """
    _frame(data, "data", [user, item])
    _check_no_duplicates(data, user, item, "data")
    if isinstance(n_splits, (bool, np.bool_)) or not isinstance(n_splits, numbers.Integral):
        raise TypeError(f"n_splits must be an integer >= 2, got {n_splits!r}")
    if n_splits < 2:
        raise ValueError(f"n_splits must be >= 2, got {n_splits}")
    if by not in ("interaction", "user"):
        raise ValueError(f"by must be 'interaction' or 'user', got {by!r}")
    rng = check_seed(seed)
    codes, uniques = pd.factorize(data[user])
    if by == "user":
        if len(uniques) < n_splits:
            raise ValueError(f"{len(uniques)} users cannot fill n_splits={n_splits} folds")
        fold_of_user = rng.permutation(len(uniques)) % n_splits
        fold = fold_of_user[codes]
    else:
        # deal each user's rows in a random order: fold sizes differ by at most one per user
        pos = _within_user_position(codes, rng.random(codes.shape[0]))
        offset = rng.integers(0, n_splits, size=len(uniques))
        fold = (pos + offset[codes]) % n_splits
    for f in range(n_splits):
        is_test = fold == f
        yield data[~is_test], data[is_test]


# --------------------------------------------------------------------------
# reporting and the evaluation set-up
def split_summary(train, test, *, user="user", item="item"):
    """What a split left in each part, and what the test part needs that train lacks.

    Parameters
    ----------
    train, test : pandas.DataFrame
        The two parts.
    user, item : str
        Column names.

    Returns
    -------
    pandas.Series
        Rows and users of each part, the test users and items absent from
        the training data (and their test rows), and the number of
        (user, item) pairs in both parts (0 for a proper split).

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"]})
    >>> test = pd.DataFrame({"user": [1, 3], "item": ["c", "a"]})
    >>> summary = split_summary(train, test)
    >>> summary[["test users unseen in train", "test items unseen in train"]].tolist()
    [1, 1]
    """
    _frame(train, "train", [user, item])
    _frame(test, "test", [user, item])
    new_user = ~test[user].isin(train[user])
    new_item = ~test[item].isin(train[item])
    pairs = pd.MultiIndex.from_frame(train[[user, item]]).intersection(
        pd.MultiIndex.from_frame(test[[user, item]])
    )
    return pd.Series(
        {
            "train rows": len(train),
            "test rows": len(test),
            "train users": train[user].nunique(),
            "test users": test[user].nunique(),
            "test users unseen in train": test.loc[new_user, user].nunique(),
            "test rows of unseen users": int(new_user.sum()),
            "test items unseen in train": test.loc[new_item, item].nunique(),
            "test rows of unseen items": int(new_item.sum()),
            "pairs in both": len(pairs),
        },
        name="split",
    )


def relevant_from_ratings(data, *, threshold=4.0, rating="rating", graded=False):
    """The test interactions that count as relevant: a rating at or above ``threshold``.

    Parameters
    ----------
    data : pandas.DataFrame
        Interactions with a ``rating`` column.
    threshold : float, default 4.0
        Lowest relevant rating (on MovieLens' 0.5-5 star scale, 4 stars is
        the usual choice; state it next to every number).
    rating : str
        Column name.
    graded : bool, default False
        Add a ``relevance`` column equal to the rating (for graded NDCG);
        otherwise ``relevance`` is 1.

    Returns
    -------
    pandas.DataFrame
        The relevant rows, with a ``relevance`` column.

    Examples
    --------
    >>> data = pd.DataFrame({"user": [1, 1, 2], "item": list("abc"), "rating": [5, 3, 4.5]})
    >>> relevant_from_ratings(data)["item"].tolist()
    ['a', 'c']
    """
    _frame(data, "data", [rating])
    graded = check_bool(graded, "graded")
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a number, got {threshold!r}")
    keep = data[data[rating] >= threshold].copy()
    keep["relevance"] = keep[rating].astype(float) if graded else 1.0
    return keep


def interaction_matrix(data, users, items, *, user="user", item="item", value=None):
    """Long interactions as a sparse ``(len(users), len(items))`` matrix.

    Parameters
    ----------
    data : pandas.DataFrame
        Interactions; rows whose user or item is not in ``users`` / ``items``
        raise (say which ids the matrix covers explicitly).
    users, items : sequence
        The ids of the rows and columns, in order (e.g. from
        ``pd.Index(train[user].unique())``).
    user, item : str
        Column names.
    value : str, optional
        Column holding the cell values (e.g. ``'relevance'``); 1 by default.

    Returns
    -------
    scipy.sparse.csr_array
        ``float64`` values; use it as ``y_true`` or, with ``value=None``, as
        the ``mask`` of items a user interacted with in training.

    Examples
    --------
    >>> data = pd.DataFrame({"user": ["u", "v"], "item": ["b", "a"]})
    >>> interaction_matrix(data, ["u", "v"], ["a", "b"]).toarray().tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    cols = [user, item] + ([] if value is None else [value])
    _frame(data, "data", cols)
    users, items = pd.Index(users), pd.Index(items)
    if not users.is_unique or not items.is_unique:
        raise ValueError("users and items must not repeat an id")
    r = users.get_indexer(data[user])
    c = items.get_indexer(data[item])
    if (r < 0).any():
        raise ValueError(
            f"data has user {data[user].iloc[int(np.argmax(r < 0))]!r}, which is not in users"
        )
    if (c < 0).any():
        raise ValueError(
            f"data has item {data[item].iloc[int(np.argmax(c < 0))]!r}, which is not in items"
        )
    v = np.ones(r.shape[0]) if value is None else data[value].to_numpy(dtype=np.float64)
    m = sp.csr_array((v, (r, c)), shape=(len(users), len(items)))
    m.sum_duplicates()
    return m


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
        The catalogue.
    n_samples : int, default 100
        Sampled items per test user.
    seed : int, default 0
        Seed of the draw.
    user, item : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        Columns ``user``, ``item``, ``sampled`` (False for the user's test
        items, True for the sampled ones): the pairs to score.

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
    if isinstance(n_samples, (bool, np.bool_)) or not isinstance(n_samples, numbers.Integral):
        raise TypeError(f"n_samples must be an integer >= 1, got {n_samples!r}")
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    items = pd.Index(items)
    if not items.is_unique:
        raise ValueError("items must not repeat an id")
    rng = check_seed(seed)
    seen = pd.concat([train[[user, item]], test[[user, item]]])
    seen_cols = items.get_indexer(seen[item])
    if (seen_cols < 0).any():
        raise ValueError("train or test holds an item that is not in items")
    test_users = pd.unique(test[user])
    seen_by_user = (
        pd.Series(seen_cols).groupby(seen[user].to_numpy()).agg(lambda s: np.unique(s.to_numpy()))
    )
    rows = []
    for u in test_users:  # one draw per user: rejection-free sampling from the complement
        excluded = seen_by_user[u]
        free = len(items) - excluded.shape[0]
        if free < n_samples:
            raise ValueError(
                f"user {u!r} has only {free} untouched items, fewer than n_samples={n_samples}"
            )
        draw = rng.choice(free, size=n_samples, replace=False)
        # map positions in the complement to item positions (excluded is sorted)
        cols = draw + np.searchsorted(excluded - np.arange(excluded.shape[0]), draw, side="right")
        rows.append(pd.DataFrame({user: u, item: items[cols], "sampled": True}))
    held = test[[user, item]].assign(sampled=False)
    return pd.concat([held, *rows], ignore_index=True)
