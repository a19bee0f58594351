"""Recommended lists in: :func:`top_k` of a score matrix, and the readers of every form.

The beyond-accuracy metrics (:mod:`recmetrics.beyond`) read their
``recommended`` argument with :func:`_read_lists` into one
:class:`~recmetrics.ranking.recommended._Lists` (flat arrays: item code,
owner, rank), cut at rank ``k``: a list of lists or a 2-D array of item ids
(:func:`_read_sequence`, :func:`_read_array`), a long DataFrame
(:func:`_read_frame`), or lists of column positions named by ``items=``
(:func:`_to_ids`). :func:`recmetrics.evaluate` checks its own inputs with
:func:`_check_eval_frames` and :func:`_check_eval_matrix`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._kernels import CHUNK_CELLS
from .._validation import (
    as_numeric_array,
    check_k,
    check_unique_items,
)
from ..ranking.recommended import _Lists
from ..ranking.scores import _exact_integer_scores
from .ids import _align_ids, _as_int_ids, _id_index, _id_kind, _show, _whole

__all__ = ["top_k"]


# --------------------------------------------------------------------------
# from scores to lists
def top_k(y_score, k, *, mask=None, items=None):
    """The ``k`` best-scored items of each row of a score matrix, as column indices.

    Ties are broken by the lower column first, on every machine (the
    selection never depends on a sorting algorithm's order of equal
    values). Masked items (e.g. each user's training items) are never
    selected.

    Parameters
    ----------
    y_score : array-like of shape (n_users, n_items)
        Scores, larger is better; finite.
    k : int
        Length of every list.
    mask : array-like or scipy.sparse matrix of shape (n_users, n_items), optional
        Items to exclude (non-zero entries).
    items : array-like of length n_items, optional
        The item id of each column: the lists then hold these ids instead
        of column indices, ready for item data keyed by id.

    Returns
    -------
    numpy.ndarray of shape (n_users, k)
        Column indices (or ``items`` ids), best first.

    Raises
    ------
    ValueError
        If a row has fewer than ``k`` items left after the mask, the
        scores are not finite, or ``items`` does not name every column
        exactly once.

    See Also
    --------
    intra_list_diversity, novelty : Metrics of the lists.

    References
    ----------
    .. [1] F. McSherry and M. Najork. Computing information retrieval
       performance measures efficiently in the presence of tied scores.
       ECIR 2008 (ties in rankings).

    Examples
    --------
    >>> top_k([[0.1, 0.9, 0.5, 0.9]], 3)
    array([[1, 3, 2]])
    >>> top_k([[0.1, 0.9, 0.5, 0.9]], 2, mask=[[0, 1, 0, 0]])
    array([[3, 2]])
    >>> top_k([[0.1, 0.9, 0.5, 0.9]], 2, items=["a", "b", "c", "d"])
    array([['b', 'd']], dtype=object)
    """
    S = _checked_rows(y_score, "y_score")
    n_users, n_items = S.shape
    k = check_k(k)
    if k > n_items:
        raise ValueError(f"k={k} is larger than the {n_items} items (columns of y_score)")
    columns = None if items is None else _columns(items, n_items, "y_score")
    if mask is not None:
        if sp.issparse(mask):
            M = mask.tocsr()
            if M.shape == S.shape:
                as_numeric_array(M.data, "mask", ndim=1, allow_empty=True)
        else:
            if isinstance(mask, (str, bytes, set, frozenset, Mapping)):
                raise TypeError(
                    f"mask must be an array or sparse matrix, got {type(mask).__name__}"
                )
            try:
                m = np.asarray(mask)
            except ValueError:
                raise ValueError("mask must be a rectangular array (one row per user)") from None
            if m.dtype.kind not in "biuf":
                raise TypeError(f"mask must hold numbers or booleans, got dtype {m.dtype}")
            if m.shape != S.shape:
                raise ValueError(f"mask has shape {m.shape}, y_score has shape {S.shape}")
            M = m  # read (and checked for NaN) a block of rows at a time below
        if M.shape != S.shape:
            raise ValueError(f"mask has shape {M.shape}, y_score has shape {S.shape}")
    out = np.empty((n_users, k), dtype=np.int64)
    step = max(1, CHUNK_CELLS // max(n_items, 1))
    for lo in range(0, n_users, step):
        # a copy of the block; integers beyond 2**53 by their order, exactly
        exact = _exact_integer_scores(S[lo : lo + step]) if S.dtype.kind in "iu" else None
        s = exact if exact is not None else np.array(S[lo : lo + step], dtype=np.float64)
        if mask is not None:
            block = M[lo : lo + step]
            if sp.issparse(block):
                excluded = block.toarray() != 0
            else:
                if block.dtype.kind == "f" and np.isnan(block).any():
                    raise ValueError("mask contains NaN")
                excluded = block != 0
                # a mask of numbers holds 0 and 1 only, as from_scores requires
                if block.dtype != bool and np.any(block[excluded] != 1):
                    raise TypeError("mask must be boolean (True = exclude the item)")
            s[excluded] = -np.inf
            short = np.isneginf(s).sum(axis=1) > n_items - k
            if short.any():
                row = lo + int(np.argmax(short))
                raise ValueError(
                    f"row {row} of y_score has fewer than k={k} items outside the mask; lower k"
                )
        # the k-th largest value of each row; everything above it is in, and
        # the tied values at it are taken in column order
        kth = -np.partition(-s, k - 1, axis=1)[:, k - 1 : k]
        above = s > kth
        tied = (s == kth) & (np.cumsum(s == kth, axis=1) <= k - above.sum(axis=1, keepdims=True))
        c = np.nonzero(above | tied)[1].reshape(-1, k)
        # c increases along each row (np.nonzero's order): a stable sort on
        # decreasing scores keeps equal scores in column order
        order = np.argsort(-np.take_along_axis(s, c, axis=1), axis=1, kind="stable")
        out[lo : lo + s.shape[0]] = np.take_along_axis(c, order, axis=1)
    if columns is not None:
        return columns.to_numpy()[out]
    return out


def _columns(items, n_columns=None, what="the lists"):
    """``items=``: the id of each column, unique, without missing values."""
    columns = _id_index(items, "items")
    if n_columns is not None and len(columns) != n_columns:
        raise ValueError(f"items has {len(columns)} ids for the {n_columns} columns of {what}")
    return columns


def _read_lists(
    recommended, k=None, *, user="user", item="item", rank=None, score=None, items=None,
    n_positions=None, allow_empty=False, name="recommended",
):  # fmt: skip
    """Read ``recommended`` (any accepted form) into :class:`_Lists`, cut at rank ``k``.

    With ``items`` the entries are column positions, replaced by
    ``items[position]``; with ``n_positions`` (a score matrix's columns, no
    ids) they stay positions, and item data must be keyed by them.
    """
    if isinstance(recommended, _Lists):
        lists = recommended if k is None else recommended.subset(recommended.pos <= k)
        if items is not None:
            raise TypeError("items= applies to the lists as given, not to lists already read")
        if not allow_empty:
            lists.require_items(k)
        return lists
    k = check_k(k, allow_none=True)
    if isinstance(recommended, pd.DataFrame):
        lists = _read_frame(recommended, k, user, item, rank, score, name)
    else:
        for key, value in (("rank", rank), ("score", score)):
            if value is not None:
                raise TypeError(f"{key}= applies only when recommended is a DataFrame")
        if isinstance(recommended, np.ndarray):
            lists = _read_array(recommended, k)
        else:
            lists = _read_sequence(recommended, k)
    if items is not None:
        lists = _to_ids(lists, _columns(items))
    elif n_positions is not None:
        lists.n_positions = int(n_positions)
    lists.name = name
    if not allow_empty:
        lists.require_items(k)
    return lists


def _read_array(recommended, k):
    if recommended.ndim != 2:
        raise ValueError(
            f"recommended as an array must be 2-D (one row of item ids per user), got "
            f"{recommended.ndim}-D"
        )
    if recommended.dtype.kind in "fc" or recommended.dtype == bool:
        raise TypeError(
            "recommended is a 2-D array of floats or booleans; it must hold item ids "
            "(integers or strings). For a score matrix, use recmetrics.beyond.top_k first"
        )
    if recommended.shape[0] == 0:
        raise ValueError("recommended is empty (no row, no user)")
    rec = recommended[:, :k] if k is not None else recommended
    n_users, width = rec.shape
    if rec.dtype == object:
        for u in range(n_users):
            check_unique_items(list(rec[u]), f"recommended[{u}]")
    elif width > 1:
        srt = np.sort(rec, axis=1)
        dup = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
        if dup.any():
            raise ValueError(f"recommended[{int(np.argmax(dup))}] repeats an item")
    code, uniques = pd.factorize(rec.ravel())
    owner = np.repeat(np.arange(n_users, dtype=np.int64), width)
    pos = np.tile(np.arange(1, width + 1, dtype=np.int64), n_users)
    return _Lists(code.astype(np.int64), owner, pos, uniques, pd.RangeIndex(n_users), False)


def _read_sequence(recommended, k):
    if (
        isinstance(recommended, (str, bytes, set, frozenset, Mapping))
        or sp.issparse(recommended)
        or not hasattr(recommended, "__len__")
    ):
        raise TypeError(
            "recommended must be a list of ranked lists of item ids, a 2-D array of item ids "
            f"or a long DataFrame, got {type(recommended).__name__}"
        )
    if len(recommended) == 0:
        raise ValueError("recommended is empty")
    flat, lengths = [], []
    for u, lst in enumerate(recommended):
        if isinstance(lst, (str, bytes, set, frozenset, Mapping)) or not hasattr(lst, "__len__"):
            raise TypeError(
                f"recommended[{u}] must be a ranked list of item ids, got {type(lst).__name__}"
            )
        lst = list(lst)[:k] if k is not None else list(lst)
        check_unique_items(lst, f"recommended[{u}]")
        flat.extend(lst)
        lengths.append(len(lst))
    arr = np.empty(len(flat), dtype=object)
    arr[:] = flat
    code, uniques = pd.factorize(arr)
    lengths = np.asarray(lengths, dtype=np.int64)
    owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    start = np.repeat(np.cumsum(lengths) - lengths, lengths)
    pos = np.arange(owner.shape[0], dtype=np.int64) - start + 1
    uniques = pd.Index(uniques, dtype=object)
    if _id_kind(uniques) in ("int", "float", "str", "bool"):  # one type: its own dtype
        uniques = pd.Index(list(uniques))
    return _Lists(code.astype(np.int64), owner, pos, uniques, pd.RangeIndex(len(lengths)), False)


def _to_ids(lists, columns):
    """Lists of column positions as lists of the ids ``columns[position]``."""
    pos = lists.items
    kind = _id_kind(pos)
    if kind == "float" and _whole(pos):
        pos = _as_int_ids(pos)
    elif kind not in ("int", "empty"):
        raise TypeError(
            f"with items=, recommended must hold column positions (integers 0 .. "
            f"{len(columns) - 1}), but it holds {kind} ids such as {_show(pos[0])!r}"
        )
    p = np.asarray(pos, dtype=np.int64)
    bad = (p < 0) | (p >= len(columns))
    if bad.any():
        raise ValueError(
            f"recommended holds the column position {int(p[bad][0])}, but items has "
            f"{len(columns)} ids (positions 0 .. {len(columns) - 1})"
        )
    out = _Lists(lists.code, lists.owner, lists.pos, columns[p], lists.user_ids, lists.from_frame)
    out.columns = columns
    return out


def _read_frame(frame, k, user, item, rank, score, name="recommended"):
    for col in (user, item):
        if not isinstance(col, Hashable):
            raise TypeError(f"column names must be labels, got {col!r}")
        if col not in frame.columns:
            raise ValueError(f"{name} has no column {col!r}")
    if rank is not None and score is not None:
        raise TypeError("pass rank= or score=, not both")
    if rank is None and score is None:
        # the ranking metrics' rule (recmetrics.from_frames): the 'score'
        # column unless rank= names one; a frame of ranks only is read by them
        if "score" in frame.columns:
            score = "score"
        elif "rank" in frame.columns:
            rank = "rank"
        else:
            raise ValueError(f"{name} needs a 'rank' or 'score' column (or pass rank= / score=)")
    key = rank if rank is not None else score
    if key not in frame.columns:
        raise ValueError(f"{name} has no column {key!r}")
    if len(frame) == 0:
        raise ValueError(f"{name} is empty")
    if frame[[user, item]].isna().any().any():
        raise ValueError(f"{name} has a missing {user!r} or {item!r}")
    if frame.duplicated(subset=[user, item]).any():
        raise ValueError(f"{name} holds a (user, item) pair twice")
    value = as_numeric_array(frame[key].to_numpy(), f"{name}[{key!r}]", ndim=1)
    ucode, uids = pd.factorize(frame[user], sort=False)
    icode, items = pd.factorize(frame[item], sort=False)
    if rank is not None:
        # the rank is the position: integers >= 1, distinct within a user
        if np.any(value != np.round(value)) or np.any(value < 1):
            raise ValueError(f"{name}[{rank!r}] must hold integer ranks >= 1 (1 = first)")
        order = np.lexsort((value, ucode))
        owner = ucode[order].astype(np.int64)
        pos = value[order].astype(np.int64)
        dup = (owner[1:] == owner[:-1]) & (pos[1:] == pos[:-1])
        if dup.any():
            i = int(np.argmax(dup))
            who = _show(uids[owner[i]])
            raise ValueError(
                f"{name} gives two items the rank {pos[i]} for user {who!r}; "
                "ranks must be distinct within a user"
            )
    else:
        # best first by decreasing score; equal scores in increasing item id
        # order (never the row order, so the result does not depend on it)
        try:
            id_order = pd.factorize(pd.Index(items), sort=True)[0]
        except TypeError:
            raise TypeError(
                f"{name}[{item!r}] mixes ids that cannot be sorted (e.g. strings and "
                "numbers); equal scores are ordered by item id, so use one type"
            ) from None
        order = np.lexsort((id_order[icode], -value, ucode))
        owner = ucode[order].astype(np.int64)
        first = np.searchsorted(owner, owner, side="left")
        pos = np.arange(owner.shape[0], dtype=np.int64) - first + 1
    code = icode[order].astype(np.int64)
    if k is not None:
        keep = pos <= k
        code, owner, pos = code[keep], owner[keep], pos[keep]
    return _Lists(code, owner, pos, items, pd.Index(uids, name=user), True)


def _check_eval_frames(truth, predictions, user, item, relevance):
    """Check :func:`recmetrics.evaluate`'s frames for beyond-accuracy metrics.

    Their columns, no gaps, no repeated pair, and ids of one type in both
    (the ranking metrics check the same).
    """
    for name, frame in (("truth", truth), ("predictions", predictions)):
        for col in (user, item):
            if col not in frame.columns:
                raise ValueError(
                    f"{name} has no column {col!r}; its columns are {list(frame.columns)}"
                )
        if frame[[user, item]].isna().any().any():
            raise ValueError(f"{name} has a missing {user!r} or {item!r}")
        if frame.duplicated(subset=[user, item]).any():
            raise ValueError(f"{name} holds a ({user}, {item}) pair twice")
    for col in (user, item):
        _align_ids(truth[col], predictions[col], f"truth[{col!r}]", f"predictions[{col!r}]")
    if relevance is not None:  # > 0 relevant; 0 and negative (pooled, unjudged) are not
        if relevance not in truth.columns:
            raise ValueError(f"truth has no column {relevance!r} (relevance=)")
        as_numeric_array(truth[relevance].to_numpy(), f"truth[{relevance!r}]", ndim=1)


def _checked_rows(x, name, **checks):
    """``x`` as a checked 2-D array (:func:`as_numeric_array`), without copying a matrix.

    A 2-D NumPy array of numbers (or booleans) is checked a block of rows at
    a time and returned as it is, so that memory beyond it stays bounded
    whatever its number of rows; anything else is converted whole.
    """
    if not isinstance(x, np.ndarray) and not sp.issparse(x):
        try:  # nested lists: their own dtype (integers stay integers), then as arrays
            arr = np.asarray(x)
        except (ValueError, TypeError, OverflowError):
            arr = None  # ragged or odd: as_numeric_array names what is wrong
        x = arr if arr is not None and arr.dtype.kind in "biuf" else x
    if not (isinstance(x, np.ndarray) and x.ndim == 2 and x.dtype.kind in "biuf" and x.size):
        return as_numeric_array(x, name, ndim=2, **checks)
    step = max(1, CHUNK_CELLS // max(x.shape[1], 1))
    for lo in range(0, x.shape[0], step):
        as_numeric_array(x[lo : lo + step], name, ndim=2, **checks)
    return x


def _check_eval_matrix(y_true, y_score):
    """``y_score`` as a finite 2-D array, with ``y_true`` of its shape (finite, non-negative).

    Arrays are checked a block of rows at a time and not copied (see
    :func:`_checked_rows`); relevance may be boolean, as everywhere.
    """
    S = _checked_rows(y_score, "y_score")
    if sp.issparse(y_true):
        if y_true.shape != S.shape:
            raise ValueError(f"y_true has shape {y_true.shape}, y_score has shape {S.shape}")
        data = y_true.tocoo().data
        as_numeric_array(
            data, "y_true", ndim=1, nonnegative=True, allow_empty=True, allow_bool=True
        )
    else:
        T = _checked_rows(y_true, "y_true", nonnegative=True, allow_bool=True)
        if T.shape != S.shape:
            raise ValueError(f"y_true has shape {T.shape}, y_score has shape {S.shape}")
    return S
