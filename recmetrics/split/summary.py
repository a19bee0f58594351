"""What a split left in each part, and what the test part needs that train lacks."""

from __future__ import annotations

import pandas as pd

from ..inputs.ids import _align_ids, _check_no_duplicates, _frame
from ._common import _DROPPED

__all__ = ["split_summary"]


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

    >>> from recmetrics.split import temporal
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
