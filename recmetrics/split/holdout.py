"""A random holdout: part of each user's interactions, drawn at random, is the test data."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._validation import check_seed
from ..inputs.ids import _check_no_duplicates, _frame
from ._common import _check_min_train, _finish, _within_user_position

__all__ = ["random_holdout"]


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
