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
import warnings
from collections.abc import Hashable, Mapping

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._validation import MAX_EXACT_INT, as_numeric_array, check_bool, check_seed

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

# where a splitter records in ``test.attrs`` what ``drop_unseen`` removed
_DROPPED = "recmetrics.dropped_unseen"


# --------------------------------------------------------------------------
# ids of two collections: the same type, or aligned with a warning
_KINDS = {
    "integer": "int",
    "floating": "float",
    "mixed-integer-float": "float",
    "string": "str",
    "boolean": "bool",
    "datetime64": "datetime",
    "datetime": "datetime",
    "mixed-integer": "mixed",
}


def _id_kind(values):
    """The kind of ids in ``values``: 'int', 'float', 'str', 'bool', 'mixed', 'empty', ..."""
    dtype = getattr(values, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype):
        values = values.dtype.categories
    if not isinstance(values, (pd.Series, pd.Index, np.ndarray)):
        values = pd.Index(list(values), dtype=object)
    kind = pd.api.types.infer_dtype(values, skipna=True)
    return _KINDS.get(kind, kind)


def _show(x):
    """An id for a message: NumPy scalars as the Python values they hold."""
    return x.item() if isinstance(x, np.generic) else x


def _dtype_text(values):
    dtype = getattr(values, "dtype", None)
    return str(dtype) if dtype is not None else type(values).__name__


def _whole(values):
    """Whether the numbers in ``values`` are finite whole numbers that int64 holds exactly."""
    arr = pd.to_numeric(pd.Series(np.asarray(values, dtype=object)), errors="coerce").to_numpy(
        dtype=np.float64
    )
    return bool(
        np.all(np.isfinite(arr))
        and np.all(arr == np.round(arr))
        and np.all(np.abs(arr) <= MAX_EXACT_INT)
    )


def _as_int_ids(values):
    """Whole float ids as int64, in the same container (Series, Index or array)."""
    if isinstance(values, pd.Series):
        return values.astype(np.int64)
    if isinstance(values, pd.Index):
        return values.astype(np.int64)
    return np.asarray(values, dtype=np.float64).astype(np.int64)


def _as_float_ids(values):
    """Integer ids as float64, in the same container."""
    if isinstance(values, (pd.Series, pd.Index)):
        return values.astype(np.float64)
    return np.asarray(values, dtype=np.float64)


def _align_ids(values, ref, name, ref_name, *, hint="", to_ref=False):
    """``(values, ref)`` as ids that compare equal where they name the same thing.

    Ids of one kind are returned unchanged. Integer ids on one side and
    whole-number float ids on the other are matched as integers (with
    ``to_ref``, ``values`` takes the type of ``ref`` instead and ``ref`` is
    left alone), with a :class:`UserWarning`. Any other pair of kinds (e.g.
    integers and strings) never matches: :class:`TypeError` naming both and
    their dtypes.
    """
    kv, kr = _id_kind(values), _id_kind(ref)
    if kv == kr or "empty" in (kv, kr) or "mixed" in (kv, kr):
        return values, ref
    if {kv, kr} == {"int", "float"}:
        floats = values if kv == "float" else ref
        if _whole(floats):
            warnings.warn(
                f"{name} holds {kv} ids ({_dtype_text(values)}) and {ref_name} {kr} ids "
                f"({_dtype_text(ref)}); they are matched as integers",
                UserWarning,
                stacklevel=4,
            )
            if kv == "float":
                return _as_int_ids(values), ref
            if to_ref:
                return _as_float_ids(values), ref
            return values, _as_int_ids(ref)
    raise TypeError(
        f"{name} holds {kv} ids ({_dtype_text(values)}) but {ref_name} holds {kr} ids "
        f"({_dtype_text(ref)}): they never match; convert one of them to the other's type{hint}"
    )


# --------------------------------------------------------------------------
# checks shared by the splitters
def _check_label(label, keyword):
    if not isinstance(label, Hashable) or isinstance(label, (list, tuple)):
        raise TypeError(f"{keyword} must be a column name, got {label!r}")
    return label


def _frame(data, name, columns):
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"{name} must be a pandas DataFrame (one row per interaction), "
            f"got {type(data).__name__}"
        )
    for c in columns:
        _check_label(c, "a column name")
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise ValueError(f"{name} has no column {missing[0]!r}; columns are {list(data.columns)}")
    for c in columns:
        if int(np.sum(data.columns == c)) > 1:
            raise ValueError(f"{name} has two columns named {c!r}")
    if data.empty:
        raise ValueError(f"{name} is empty")
    for c in columns:
        col = data[c]
        if col.isna().any():
            raise ValueError(
                f"{name} has missing values in column {c!r} (row {col.index[col.isna()][0]!r})"
            )
        if col.dtype.kind == "f" and np.isinf(col.to_numpy()).any():
            raise ValueError(f"{name} has an infinite value in column {c!r}")
    return data


def _check_time(data, time, name):
    """A time column holds numbers or datetimes (not strings, not booleans)."""
    col = data[time]
    if not (
        pd.api.types.is_datetime64_any_dtype(col)
        or (pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col))
    ):
        raise TypeError(f"{name}[{time!r}] must hold numbers or datetimes, got dtype {col.dtype}")
    return col


def _check_no_duplicates(data, user, item, name):
    dup = data.duplicated(subset=[user, item])
    if dup.any():
        row = data[dup].iloc[0]
        raise ValueError(
            f"{name} holds the pair ({_show(row[user])!r}, {_show(row[item])!r}) twice; "
            "aggregate repeated interactions first (e.g. keep the last)"
        )


def _id_index(ids, name):
    """A catalogue of ids (users or items) as a unique pandas Index without missing values."""
    if ids is None or isinstance(ids, (str, bytes, set, frozenset, Mapping)):
        raise TypeError(
            f"{name} must be an ordered sequence of ids (list, array or pandas Index), "
            f"got {type(ids).__name__}"
        )
    try:
        flat = not isinstance(ids, pd.DataFrame) and not sp.issparse(ids) and np.ndim(ids) == 1
    except ValueError:  # ragged nested sequences
        flat = False
    if not flat:
        raise TypeError(f"{name} must be one-dimensional (one id per row or column)")
    index = pd.Index(ids)
    if len(index) == 0:
        raise ValueError(f"{name} is empty")
    if index.hasnans:
        raise ValueError(f"{name} holds a missing id")
    if not index.is_unique:
        raise ValueError(f"{name} repeats the id {_show(index[index.duplicated()][0])!r}")
    return index


def _within_user_position(codes, key):
    """Position (0-based) of each row within its user, in increasing ``key`` order."""
    order = np.lexsort((key, codes))
    sorted_codes = codes[order]
    first = np.searchsorted(sorted_codes, sorted_codes, side="left")
    pos = np.empty(codes.shape[0], dtype=np.int64)
    pos[order] = np.arange(codes.shape[0]) - first
    return pos


def _finish(data, is_test, user, item, drop_unseen):
    """``(train, test)``; with ``drop_unseen`` the test rows of unseen users or items go.

    What was dropped is recorded in ``test.attrs`` for :func:`split_summary`,
    and a :class:`UserWarning` says so when it is more than half the test rows.
    """
    drop_unseen = check_bool(drop_unseen, "drop_unseen")
    train, test = data[~is_test], data[is_test]
    rows = users = 0
    if drop_unseen:
        seen = (test[user].isin(train[user]) & test[item].isin(train[item])).to_numpy()
        n_test, n_users = len(test), test[user].nunique()
        kept = test[seen]
        rows, users = int((~seen).sum()), int(n_users - kept[user].nunique())
        if rows > n_test / 2:
            warnings.warn(
                f"drop_unseen=True dropped {rows:,} of the {n_test:,} test rows (and {users:,} "
                f"of the {n_users:,} test users entirely): their user or item is absent from "
                "the training data. The test data left are not the held-out data; "
                "split_summary(train, test) reports the drop",
                UserWarning,
                stacklevel=3,
            )
        test = kept
    train.attrs = {key: v for key, v in train.attrs.items() if key != _DROPPED}
    test.attrs = {**test.attrs, _DROPPED: {"rows": rows, "users": users}}
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
        want = np.full(n.shape[0], min(int(test_size), int(n.max(initial=0))))
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
    return min(int(min_train), 2**62)  # any count beyond the rows acts the same


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
        Drop test rows whose user or item is absent from the training data
        (with ``min_train >= 1`` every user keeps a training row, so only
        items can be absent). The drop is recorded for :func:`split_summary`
        and warned about when it removes more than half the test rows.

    Returns
    -------
    train, test : pandas.DataFrame
        The rows of ``data`` (index kept), a partition of it (without the
        dropped rows, if any).

    Raises
    ------
    TypeError
        If ``data`` is not a DataFrame or an argument has the wrong type.
    ValueError
        For a missing column, missing or infinite values in it, an empty
        frame, a (user, item) pair repeated, or arguments out of range.

    See Also
    --------
    temporal, leave_last_out : splits by time.
    kfold : every interaction tested once.

    References
    ----------
    .. [1] Z. Meng, R. McCreadie, C. Macdonald and I. Ounis. Exploring Data
       Splitting Strategies for the Evaluation of Recommendation Models.
       RecSys 2020.

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
    rng = check_seed(seed)
    codes, _ = pd.factorize(data[user])
    n = np.bincount(codes)
    n_test = _test_count(n, test_size, min_train)
    key = rng.random(codes.shape[0])
    is_test = _within_user_position(codes, key) < n_test[codes]
    return _finish(data, is_test, user, item, drop_unseen)


def _check_cutoff(cutoff, t, time):
    """``cutoff`` comparable with the time column ``t`` (a number, or a time for datetimes)."""
    if pd.api.types.is_datetime64_any_dtype(t):
        if isinstance(cutoff, (bool, np.bool_)) or isinstance(cutoff, numbers.Number):
            raise TypeError(
                f"data[{time!r}] holds datetimes, so cutoff must be a time (e.g. "
                f"pd.Timestamp('2015-01-01')), got {cutoff!r}"
            )
        try:
            value = pd.Timestamp(cutoff)
        except (TypeError, ValueError):
            raise TypeError(
                f"cutoff must be a time comparable with data[{time!r}], got {cutoff!r}"
            ) from None
        if value is pd.NaT:
            raise ValueError("cutoff is missing (NaT)")
        return value
    if isinstance(cutoff, (bool, np.bool_)) or not isinstance(cutoff, numbers.Real):
        raise TypeError(
            f"data[{time!r}] holds numbers, so cutoff must be a number, got {cutoff!r} of type "
            f"{type(cutoff).__name__}"
        )
    if not np.isfinite(cutoff):
        raise ValueError(f"cutoff must be a finite number, got {cutoff}")
    return cutoff


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
        Drop test rows whose user or item is absent from the training data.
        A global cut leaves many new users and items in the test data (on
        MovieLens latest-small with ``test_fraction=0.2``, 18,140 of the
        20,000 test rows have one; 1,860 are kept), so the drop is recorded
        for :func:`split_summary` and warned about when it removes more
        than half the test rows.

    Returns
    -------
    train, test : pandas.DataFrame

    Raises
    ------
    TypeError
        If not exactly one of ``cutoff`` and ``test_fraction`` is given, a
        time column holds neither numbers nor datetimes, or ``cutoff`` is
        not comparable with it.
    ValueError
        For a cut that leaves one side empty, and the input errors of
        :func:`random_holdout`.

    See Also
    --------
    leave_last_out : a cut per user.
    split_summary : what the cut leaves unseen.

    References
    ----------
    .. [1] Z. Meng, R. McCreadie, C. Macdonald and I. Ounis. Exploring Data
       Splitting Strategies for the Evaluation of Recommendation Models.
       RecSys 2020.

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
    t = _check_time(data, time, "data")
    _check_no_duplicates(data, user, item, "data")
    if (cutoff is None) == (test_fraction is None):
        raise TypeError("give exactly one of cutoff and test_fraction")
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
    else:
        cutoff = _check_cutoff(cutoff, t, time)
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
        Drop test rows whose user or item is absent from the training data
        (only items, with ``min_train >= 1``); recorded for
        :func:`split_summary`, and warned about when it removes more than
        half the test rows.

    Returns
    -------
    train, test : pandas.DataFrame

    Raises
    ------
    TypeError
        For an ``n`` that is not an integer, a time column of neither
        numbers nor datetimes, or item ids that cannot be sorted.
    ValueError
        For ``n < 1`` and the input errors of :func:`random_holdout`.

    See Also
    --------
    temporal : one cut for everyone.

    References
    ----------
    .. [1] Z. Meng, R. McCreadie, C. Macdonald and I. Ounis. Exploring Data
       Splitting Strategies for the Evaluation of Recommendation Models.
       RecSys 2020.

    Examples
    --------
    >>> data = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": list("abcba"),
    ...                      "timestamp": [3, 1, 3, 5, 6]})
    >>> train, test = leave_last_out(data)
    >>> test[["user", "item"]].values.tolist()    # user 1: a and c at time 3, c is the later id
    [[1, 'c'], [2, 'a']]
    """
    _frame(data, "data", [user, item, time])
    _check_time(data, time, "data")
    _check_no_duplicates(data, user, item, "data")
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral):
        raise TypeError(f"n must be an integer >= 1, got {n!r}")
    if n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n}")
    min_train = _check_min_train(min_train)
    codes, _ = pd.factorize(data[user])
    counts = np.bincount(codes)
    n_test = np.clip(np.minimum(min(int(n), len(data)), counts - min_train), 0, None)
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

    The arguments are checked, and the folds drawn, when the function is
    called (not when the first fold is taken).

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
    seed : int or numpy.random.Generator, default 0
        Seed of the random draw.
    user, item : str
        Column names.

    Returns
    -------
    iterator of (train, test)
        One pair of DataFrames per fold.

    Raises
    ------
    TypeError, ValueError
        For bad arguments, as :func:`random_holdout`; also fewer users
        than folds with ``by='user'``.

    See Also
    --------
    random_holdout : one random split.

    References
    ----------
    .. [1] Z. Meng, R. McCreadie, C. Macdonald and I. Ounis. Exploring Data
       Splitting Strategies for the Evaluation of Recommendation Models.
       RecSys 2020.

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
    if n_splits > len(data):
        raise ValueError(
            f"n_splits={n_splits} folds cannot each test one of the {len(data)} interactions"
        )
    if not isinstance(by, str) or by not in ("interaction", "user"):
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
    return _folds(data, fold, int(n_splits))


def _folds(data, fold, n_splits):
    for f in range(n_splits):
        yield _finish(data, fold == f, None, None, False)


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
        (user, item) pairs in both parts (0 for a proper split). When
        ``test`` comes from a splitter of this module, also the test rows
        its ``drop_unseen`` removed and the test users who lost every test
        row that way (0 without ``drop_unseen``): after the drop the test
        part has no unseen user or item left, and these rows say what it
        cost.

    Raises
    ------
    TypeError
        If a part is not a DataFrame, or the two parts hold ids of
        different types in a column (e.g. integers in one, strings in the
        other); ids that are equal as integers (``3`` and ``3.0``) are
        matched with a warning.
    ValueError
        For a missing column, missing values, an empty part, or a
        (user, item) pair repeated within a part.

    See Also
    --------
    random_holdout, temporal, leave_last_out : the splitters.

    References
    ----------
    .. [1] Z. Meng, R. McCreadie, C. Macdonald and I. Ounis. Exploring Data
       Splitting Strategies for the Evaluation of Recommendation Models.
       RecSys 2020.

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"]})
    >>> test = pd.DataFrame({"user": [1, 3], "item": ["c", "a"]})
    >>> summary = split_summary(train, test)
    >>> summary[["test users unseen in train", "test items unseen in train"]].tolist()
    [1, 1]

    After ``drop_unseen``, the test part has nothing unseen left; the
    summary says what was dropped:

    >>> data = pd.DataFrame({"user": [1, 2, 1, 2, 1], "item": list("abbac"),
    ...                      "timestamp": [1, 2, 3, 4, 5]})
    >>> train, test = temporal(data, cutoff=3, drop_unseen=True)   # item c is new
    >>> split_summary(train, test)[["test items unseen in train", "test rows dropped as unseen"]]
    test items unseen in train     0
    test rows dropped as unseen    1
    Name: split, dtype: int64
    """
    _frame(train, "train", [user, item])
    _frame(test, "test", [user, item])
    _check_no_duplicates(train, user, item, "train")
    _check_no_duplicates(test, user, item, "test")
    test_user, train_user = _align_ids(
        test[user], train[user], f"test[{user!r}]", f"train[{user!r}]"
    )
    test_item, train_item = _align_ids(
        test[item], train[item], f"test[{item!r}]", f"train[{item!r}]"
    )
    new_user = ~test_user.isin(train_user)
    new_item = ~test_item.isin(train_item)
    pairs = pd.MultiIndex.from_arrays([train_user, train_item]).intersection(
        pd.MultiIndex.from_arrays([test_user, test_item])
    )
    out = {
        "train rows": len(train),
        "test rows": len(test),
        "train users": train[user].nunique(),
        "test users": test[user].nunique(),
        "test users unseen in train": test_user[new_user].nunique(),
        "test rows of unseen users": int(new_user.sum()),
        "test items unseen in train": test_item[new_item].nunique(),
        "test rows of unseen items": int(new_item.sum()),
        "pairs in both": len(pairs),
    }
    dropped = test.attrs.get(_DROPPED)
    if isinstance(dropped, dict):
        out["test rows dropped as unseen"] = int(dropped["rows"])
        out["test users dropped as unseen"] = int(dropped["users"])
    return pd.Series(out, name="split")


def relevant_from_ratings(
    data, *, threshold=4.0, rating="rating", graded=False, user="user", item="item"
):
    """The test interactions that count as relevant: a rating at or above ``threshold``.

    Parameters
    ----------
    data : pandas.DataFrame
        Interactions with ``user``, ``item`` and ``rating`` columns.
    threshold : float, default 4.0
        Lowest relevant rating (on MovieLens' 0.5-5 star scale, 4 stars is
        the usual choice; state it next to every number).
    rating : str
        Column name.
    graded : bool, default False
        Add a ``relevance`` column equal to the rating (for graded NDCG);
        otherwise ``relevance`` is 1.
    user, item : str, default 'user', 'item'
        Column names; a (user, item) pair given twice raises (its
        relevance would be ambiguous).

    Returns
    -------
    pandas.DataFrame
        The relevant rows, with a ``relevance`` column.

    Raises
    ------
    TypeError
        If ``data`` is not a DataFrame, the ratings are not numbers, or
        ``threshold`` is not a number.
    ValueError
        For a missing column, missing or infinite ratings, a NaN or
        infinite threshold, or a repeated (user, item) pair.

    See Also
    --------
    interaction_matrix : the relevant rows as ``y_true``.

    References
    ----------
    .. [1] M. Harper and J. Konstan. The MovieLens Datasets: History and
       Context. ACM TiiS 5(4), 19, 2015.

    Examples
    --------
    >>> data = pd.DataFrame({"user": [1, 1, 2], "item": list("abc"), "rating": [5, 3, 4.5]})
    >>> relevant_from_ratings(data)["item"].tolist()
    ['a', 'c']
    """
    _frame(data, "data", [user, item, rating])
    graded = check_bool(graded, "graded")
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a number, got {threshold!r}")
    if not np.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number, got {threshold}")
    col = data[rating]
    if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
        raise TypeError(f"data[{rating!r}] must hold numbers, got dtype {col.dtype}")
    _check_no_duplicates(data, user, item, "data")
    keep = data[col >= threshold].copy()
    keep["relevance"] = keep[rating].astype(float) if graded else 1.0
    return keep


def interaction_matrix(data, users, items, *, user="user", item="item", value=None):
    """Long interactions as a sparse ``(len(users), len(items))`` matrix.

    Parameters
    ----------
    data : pandas.DataFrame
        Interactions, one row per (user, item) pair; rows whose user or
        item is not in ``users`` / ``items`` raise (say which ids the
        matrix covers explicitly).
    users, items : sequence
        The ids of the rows and columns, in order (e.g. from
        ``pd.Index(train[user].unique())``); each id once.
    user, item : str
        Column names.
    value : str, optional
        Column holding the cell values (e.g. ``'relevance'``); 1 by default.

    Returns
    -------
    scipy.sparse.csr_array
        ``float64`` values; use it as ``y_true`` or, with ``value=None``, as
        the ``mask`` of items a user interacted with in training.

    Raises
    ------
    TypeError
        If ``data`` is not a DataFrame, ``users`` or ``items`` is not an
        ordered sequence, their ids are of another type than the frame's
        column (integers matching whole floats are aligned with a
        warning), or the values are not numbers.
    ValueError
        For ids absent from ``users`` / ``items``, repeated or missing ids,
        a (user, item) pair given twice (its cell would be ambiguous),
        and missing or infinite values.

    See Also
    --------
    relevant_from_ratings : the relevant test rows.

    References
    ----------
    .. [1] W. Krichene and S. Rendle. On Sampled Metrics for Item
       Recommendation. KDD 2020.

    Examples
    --------
    >>> data = pd.DataFrame({"user": ["u", "v"], "item": ["b", "a"]})
    >>> interaction_matrix(data, ["u", "v"], ["a", "b"]).toarray().tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    cols = [user, item] + ([] if value is None else [value])
    _frame(data, "data", cols)
    users, items = _id_index(users, "users"), _id_index(items, "items")
    _check_no_duplicates(data, user, item, "data")
    data_user, users = _align_ids(data[user], users, f"data[{user!r}]", "users")
    data_item, items = _align_ids(data[item], items, f"data[{item!r}]", "items")
    r = users.get_indexer(data_user)
    c = items.get_indexer(data_item)
    if (r < 0).any():
        bad = _show(data[user].iloc[int(np.argmax(r < 0))])
        raise ValueError(f"data has user {bad!r}, which is not in users")
    if (c < 0).any():
        bad = _show(data[item].iloc[int(np.argmax(c < 0))])
        raise ValueError(f"data has item {bad!r}, which is not in items")
    v = (
        np.ones(r.shape[0])
        if value is None
        else as_numeric_array(data[value].to_numpy(), f"data[{value!r}]", ndim=1)
    )
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
