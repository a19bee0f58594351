"""Splits by time: one global cut-off (:func:`temporal`) or each user's last ``n``.

Every interaction before the cut trains, every one from it on tests; ties in
time are broken deterministically (by item id in :func:`leave_last_out`).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from ..inputs.ids import _check_no_duplicates, _check_time, _frame
from ._common import _check_min_train, _finish, _within_user_position

__all__ = ["temporal", "leave_last_out"]


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
