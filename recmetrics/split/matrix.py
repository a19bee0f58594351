"""From the frames of a split to what the metrics take.

:func:`relevant_from_ratings` keeps the test interactions that count as
relevant; :func:`interaction_matrix` turns long interactions into the sparse
``y_true`` (or, from the training data, the ``mask`` of items not to
recommend again).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._validation import as_numeric_array, check_bool
from ..inputs.ids import _align_ids, _check_no_duplicates, _frame, _id_index, _show

__all__ = ["relevant_from_ratings", "interaction_matrix"]


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
