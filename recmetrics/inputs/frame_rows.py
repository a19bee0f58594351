"""The rows of long data frames as integer codes, in (user, score) order.

What :func:`recmetrics.from_frames` computes over every row, kept to
integer arrays: the ids of both frames coded once (:func:`_joint_codes`),
repeated (user, item) pairs found from their sorted keys
(:func:`_first_repeat`), each relevant pair's row among the predictions
(:func:`_rows_of`), and the predictions ordered by user and decreasing
score with their tie groups (:func:`_score_groups`): one user's row at a
time when the rows fit a matrix (:func:`_by_user_rows`), else one sort of
a combined key (:func:`_by_user_score`). Each is the same, bit for bit, as
the general computation it replaces (``tests/test_frames_speed_paths.py``).

With numba, large inputs take one compiled pass per user instead
(:func:`recmetrics._kernels.frame_places`, and :func:`~recmetrics._kernels.first_codes`
for int64 ids); the NumPy passes here, gathered in :func:`_places_numpy`,
are its fallback and give the same numbers (``tests/test_frames_kernel.py``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._kernels import first_codes


def _plain_ids(t_values, p_values):
    """Whether two id columns share one dtype (NumPy or pandas' strings).

    Then ids are equal exactly when their codes in one :class:`pandas.Index`
    are, as in :meth:`pandas.DataFrame.duplicated`, and the two columns
    cannot be the integers and floats that :func:`_same_id_kind` warns about.
    Two categorical columns count when their categories do and no value is
    missing (the TREC readers' ids for the command line): their codes say
    which rows hold equal ids, and only the categories are hashed.
    """
    if isinstance(t_values.dtype, pd.CategoricalDtype) and isinstance(
        p_values.dtype, pd.CategoricalDtype
    ):
        t_cats, p_cats = t_values.dtype.categories, p_values.dtype.categories
        return (
            _plain_ids(t_cats, p_cats)
            and not (t_values.cat.codes < 0).any()
            and not (p_values.cat.codes < 0).any()
        )
    dtype = t_values.dtype
    return dtype == p_values.dtype and isinstance(dtype, (np.dtype, pd.StringDtype))


def _joint_codes(t_values, p_values):
    """Each value's place in the Index of the distinct values of both (truth's first).

    The Index is ``pd.Index(pd.unique(pd.concat([t_values, p_values])))``
    and the codes its ``get_indexer`` of each column, from one hashing pass
    (:func:`pandas.factorize`); for columns of one dtype (:func:`_plain_ids`).
    Categorical columns give the same codes and Index from their integer
    codes: the categories in order of first use are hashed, not the rows.
    """
    if isinstance(t_values.dtype, pd.CategoricalDtype):
        return _joint_category_codes(t_values, p_values)
    if t_values.dtype == np.int64 and p_values.dtype == np.int64:
        coded = first_codes(t_values.to_numpy(), p_values.to_numpy())
        if coded is not None:  # compiled, no hashing: the same codes
            return coded[0], coded[1], pd.Index(coded[2])
    codes, distinct = pd.factorize(pd.concat([t_values, p_values], ignore_index=True))
    codes = codes.astype(np.int64, copy=False)
    n_t = len(t_values)
    return codes[:n_t], codes[n_t:], pd.Index(distinct)


def _joint_category_codes(t_values, p_values):
    """:func:`_joint_codes` of two categorical columns without missing values."""
    t_codes = t_values.cat.codes.to_numpy().astype(np.int64)
    p_codes = p_values.cat.codes.to_numpy().astype(np.int64)
    t_used, p_used = pd.unique(t_codes), pd.unique(p_codes)  # in order of first use
    t_cats, p_cats = t_values.dtype.categories, p_values.dtype.categories
    values = pd.concat([pd.Series(t_cats[t_used]), pd.Series(p_cats[p_used])], ignore_index=True)
    codes, distinct = pd.factorize(values)
    codes = codes.astype(np.int64, copy=False)
    t_map = np.zeros(len(t_cats), dtype=np.int64)
    p_map = np.zeros(len(p_cats), dtype=np.int64)
    t_map[t_used], p_map[p_used] = codes[: t_used.shape[0]], codes[t_used.shape[0] :]
    return t_map[t_codes], p_map[p_codes], pd.Index(distinct)


def _coded_user_index(tu, pu, distinct, policy):
    """:func:`recmetrics.inputs.frames._user_index` of integer ids from their joint codes.

    The codes of :func:`_joint_codes` number truth's ids first, in order of
    appearance: truth holds the codes below ``tu.max() + 1``, the
    predictions those counted in ``pu``. Integer ids and pandas' strings
    always sort, so the Index is the sorted ids the policy keeps; None for
    other ids.
    """
    numbers = isinstance(distinct.dtype, np.dtype) and distinct.dtype.kind in "iu"
    if not (numbers or isinstance(distinct.dtype, pd.StringDtype)):
        return None
    n_d = len(distinct)
    in_t = np.arange(n_d) < (int(tu.max()) + 1 if tu.shape[0] else 0)
    in_p = np.bincount(pu, minlength=n_d) > 0
    keep = {"truth": in_t, "predictions": in_p, "both": in_t & in_p, "all": in_t | in_p}
    if not numbers:  # pandas' strings: sorted as _user_index sorts them, dtype kept
        return distinct[keep[policy]].sort_values()
    return pd.Index(np.sort(distinct.to_numpy()[keep[policy]]))


def _first_repeat(key, order):
    """The first row (input order) whose ``key`` an earlier row holds, or -1.

    ``order`` sorts ``key`` stably: within a run of equal keys the rows keep
    their input order, so every row after a run's first is a repeat.
    """
    if key.shape[0] < 2:
        return -1
    sorted_key = key[order]
    repeat = sorted_key[1:] == sorted_key[:-1]
    return int(order[1:][repeat].min()) if repeat.any() else -1


def _rows_of(p_key, p_order, keys):
    """Whether each key is among the predictions' keys, and its prediction row (-1 if not)."""
    if not p_key.shape[0]:
        return np.zeros(keys.shape[0], dtype=bool), np.full(keys.shape[0], -1)
    sorted_key = p_key[p_order]
    at = np.minimum(np.searchsorted(sorted_key, keys), p_key.shape[0] - 1)
    found = sorted_key[at] == keys
    return found, np.where(found, p_order[at], -1)


def _take(values, row):
    """``values[row]`` where ``row >= 0`` (a relevant pair that was predicted), else 0."""
    if values.shape[0] == 0:  # no prediction at all: every pair is unfound
        return np.zeros(row.shape[0])
    return values[np.maximum(row, 0)]


def _at(sorted_values, pos, row):
    """:func:`_take` of a column held in sorted order (input row ``i`` at ``pos[i]``)."""
    if sorted_values.shape[0] == 0:  # no prediction at all: every pair is unfound
        return np.zeros(row.shape[0])
    return sorted_values[pos[np.maximum(row, 0)]].astype(np.float64)


def _by_user_score(pu, values, skey, n_users, n_text):
    """The order of the predictions by user, score descending, then ``skey`` ascending.

    Equal to ``np.lexsort((skey, -values, pu))`` (a stable sort by each key),
    computed as one stable sort of a combined integer key: the scores'
    dense rank (one float sort) within the user, then ``skey``. ``lexsort``
    with a float key is several times slower on millions of rows.
    """
    by_value = np.argsort(-values, kind="stable")
    sorted_values = values[by_value]
    new_value = np.empty(values.shape[0], dtype=bool)
    new_value[:1] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=new_value[1:])
    vcode = np.empty(values.shape[0], dtype=np.int64)
    vcode[by_value] = np.cumsum(new_value) - 1
    n_v = int(vcode.max()) + 1 if vcode.shape[0] else 1
    if n_users * n_v * n_text >= 2**62:  # the combined key would overflow
        keys = (-values, pu) if skey is None else (skey, -values, pu)
        return np.lexsort(keys)
    key = pu * np.int64(n_v) + vcode
    if skey is not None:
        key = key * np.int64(n_text) + skey
    return np.argsort(key, kind="stable")


def _by_user_rows(pu, values, skey, counts):
    """:func:`_by_user_score`'s order, sorting each user's row alone; None if not worth it.

    The rows are grouped by user (a stable sort of the user codes, skipped
    when they come grouped in increasing order), laid out as a matrix of one
    row per user with predictions, padded with ``+inf`` (sorted last), and
    each row is sorted stably by decreasing score (after ``skey``, for
    trec_eval's order): the same permutation, with no sort of the whole
    column of floats (whose cost per row grows with the number of rows).
    None when the padding would more than double the cells.
    """
    n = pu.shape[0]
    width = int(counts.max()) if n else 0
    present = np.flatnonzero(counts)
    if n == 0 or present.shape[0] * width > 2 * n:
        return None
    grouped = not np.any(pu[1:] < pu[:-1])
    by_user = None if grouped else np.argsort(pu, kind="stable")
    lengths = counts[present]
    if present.shape[0] * width == n:  # every user has ``width`` rows
        cell = None
    else:
        first = np.zeros(present.shape[0], dtype=np.int64)
        np.cumsum(lengths[:-1], out=first[1:])
        cell = np.arange(n) + np.repeat(np.arange(present.shape[0]) * width - first, lengths)

    def matrix(column, pad):
        column = column if by_user is None else column[by_user]
        if cell is None:
            return column.reshape(-1, width)
        out = np.full(present.shape[0] * width, pad, dtype=column.dtype)
        out[cell] = column
        return out.reshape(-1, width)

    neg = matrix(-values, np.inf)
    if skey is None:
        within = np.argsort(neg, axis=1, kind="stable")
    else:
        by_text = np.argsort(matrix(skey, np.iinfo(np.int64).max), axis=1, kind="stable")
        by_score = np.argsort(np.take_along_axis(neg, by_text, axis=1), axis=1, kind="stable")
        within = np.take_along_axis(by_text, by_score, axis=1)
    # the cell of each sorted entry: its row's first cell + its place in the row
    within += (np.arange(present.shape[0]) * width)[:, None]
    order = within.ravel()
    if cell is not None:  # drop the padding (sorted last in its row), back to rows
        real = (np.arange(width)[None, :] < lengths[:, None]).ravel()
        row_of_cell = np.full(present.shape[0] * width, -1, dtype=np.int64)
        row_of_cell[cell] = np.arange(n)
        order = row_of_cell[order[real]]
    return order if by_user is None else by_user[order]


def _text_rank(items):
    """Each item's place in the (stable) order of the ids as text."""
    if isinstance(items.dtype, pd.StringDtype):
        # distinct strings: pandas' own sort (pyarrow's), in code point
        # order as Python compares them, then the inverse permutation
        by_text = np.asarray(items.argsort(), dtype=np.int64)
        text_rank = np.empty(by_text.shape[0], dtype=np.int64)
        text_rank[by_text] = np.arange(by_text.shape[0])
        return text_rank
    as_text = items.astype(str).to_numpy()
    return np.argsort(np.argsort(as_text, kind="stable"), kind="stable")


def _score_groups(pu, pi, values, items, ties, n_users, counts):
    """Per prediction row: the items above it, its score group, its place in the group.

    The rows are sorted by (user, decreasing score); returns each input
    row's place in that order (``pos``) and, per sorted row, the user's
    items scored higher (``greater``), the size of its score group
    (``equal``) and the group's items before it in trec_eval's order
    (``after``: larger ids first; zeros under the other policies, which do
    not read it), and the sizes of the groups in order. ``counts`` is the
    number of rows of each user.
    """
    if ties == "trec_eval":
        text_rank = _text_rank(items)
        skey = (len(items) - 1) - text_rank[pi]  # larger id first
        n_text = len(items)
    else:  # the order within a tie group does not matter
        skey, n_text = None, 1
    order = _by_user_rows(pu, values, skey, counts)
    if order is None:
        order = _by_user_score(pu, values, skey, n_users, n_text)
    n = order.shape[0]
    # runs of equal scores within a user (a user's rows are contiguous,
    # from ``user_first``): one pass, then each run's numbers repeated
    user_first = np.zeros(n_users, dtype=np.int64)
    np.cumsum(counts[:-1], out=user_first[1:])
    present = counts > 0
    sorted_values = values[order]
    new_group = np.empty(n, dtype=bool)
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=new_group[1:])
    new_group[user_first[present]] = True
    starts = np.flatnonzero(new_group)
    sizes = np.diff(starts, append=n)
    user_start = np.repeat(user_first[present], counts[present])[starts]
    greater = np.repeat(starts - user_start, sizes)
    equal = np.repeat(sizes, sizes)
    if ties == "trec_eval":
        after = np.arange(n) - np.repeat(starts, sizes)
    else:  # trec_eval's order within a group is read under ties='trec_eval' only
        after = np.zeros(n, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    return pos, greater, equal, after, sizes


def _places_numpy(t_rows, p_rows, items, n_users, ties, by_rank):
    """:func:`recmetrics._kernels.frame_places` from whole-column NumPy passes.

    The path without numba, and for small inputs while the kernel is not
    compiled; the same numbers, bit for bit. The repeated predicted pairs
    are found from the stable order of their (user, item) keys, which also
    finds each truth row's prediction row (:func:`_rows_of`); the score
    groups are those of :func:`_score_groups` (not computed for ranks).
    """
    (tu, ti, relevant), (pu, pi, values) = t_rows, p_rows
    n_it = np.int64(len(items))
    keep_p = pu >= 0
    p_key = (pu * n_it + pi)[keep_p]
    p_order = np.argsort(p_key, kind="stable")
    first = _first_repeat(p_key, p_order)
    first = -1 if first < 0 else int(np.flatnonzero(keep_p)[first])
    pu, pi, values = pu[keep_p], pi[keep_p], values[keep_p]
    counts = np.bincount(pu, minlength=n_users)
    # rows of truth without a user code have negative keys: never found
    found, row = _rows_of(p_key, p_order, tu * n_it + ti)
    s = np.where(found, _take(values, row), -np.inf)
    if by_rank:
        return counts, first, found, s, None, None, None, None
    pos, greater, equal, after, sizes = _score_groups(pu, pi, values, items, ties, n_users, counts)
    rel = np.zeros(tu.shape[0])
    if len(pos):  # the relevant rows predicted in each score group
        group_id = np.repeat(np.arange(sizes.shape[0]), sizes)  # in sorted order
        group = group_id[pos[np.maximum(row, 0)]]
        rel_in_group = np.bincount(group[found & relevant], minlength=sizes.shape[0])
        rel = np.where(found, rel_in_group[group], 0.0)
    greater = np.where(found, _at(greater, pos, row), 0.0)
    equal = np.where(found, _at(equal, pos, row), 1.0)
    after = np.where(found, _at(after, pos, row), 0.0)
    return counts, first, found, s, greater, equal, after, rel
