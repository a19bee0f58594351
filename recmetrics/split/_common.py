"""What every splitter shares: positions within a user, the two parts, ``min_train``."""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from .._validation import check_bool

# where a splitter records in ``test.attrs`` what ``drop_unseen`` removed
_DROPPED = "recmetrics.dropped_unseen"


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


def _check_min_train(min_train):
    if isinstance(min_train, (bool, np.bool_)) or not isinstance(min_train, numbers.Integral):
        raise TypeError(f"min_train must be an integer >= 0, got {min_train!r}")
    if min_train < 0:
        raise ValueError(f"min_train must be >= 0, got {min_train}")
    return min(int(min_train), 2**62)  # any count beyond the rows acts the same
