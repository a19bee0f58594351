"""K-fold cross-validation: every interaction (or every user) tested exactly once."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._validation import check_seed
from ..inputs.ids import _check_no_duplicates, _frame
from ._common import _finish, _within_user_position

__all__ = ["kfold"]


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
