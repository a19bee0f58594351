"""Beyond accuracy: coverage, novelty, popularity, diversity, serendipity and calibration.

These metrics look at the recommended lists themselves and at item data
(popularity in the training interactions, item features such as genres, the
user's history), not only at whether the recommended items were relevant.
Libraries give the same names to different quantities; every such choice is
a keyword here, and :data:`PRESETS` reproduces the libraries' definitions.

The flow is the package's: the lists are read once into flat arrays (item,
owner, rank), the item data into one matrix over the distinct
recommended items, and every metric is a vectorised reduction over users
(``np.bincount``, sparse products; no loop over users in Python).

Recommended lists are given as

* a list of lists of item ids (one ranked list per user, best first), or a
  2-D integer or object array of item ids ``(n_users, length)``;
* a long pandas DataFrame with ``user``, ``item`` and ``rank`` (1 = first) or
  ``score`` columns, as :func:`recmetrics.from_frames` reads predictions;

a score matrix becomes lists through :func:`top_k`. One rule cuts every list
at ``k``, the ranking metrics' rule: an item is in the top ``k`` when its
rank is at most ``k`` (its position in a list; its ``rank`` value in a
frame, gaps and all; with scores, its position after sorting by score).

Item data are matched to the lists by item id. Lists of column positions
(what :func:`top_k` returns) name their ids with ``items=``; item data keyed
by ids of another type than the lists' (integers against strings) raise
:class:`TypeError` rather than match nothing.

References
----------
.. [1] S. Vargas and P. Castells. Rank and Relevance in Novelty and Diversity
   Metrics for Recommender Systems. RecSys 2011.
.. [2] T. Zhou et al. Solving the apparent diversity-accuracy dilemma of
   recommender systems. PNAS 107(10), 2010.
.. [3] H. Abdollahpouri, R. Burke and B. Mobasher. Managing Popularity Bias
   in Recommender Systems with Personalized Re-ranking. FLAIRS 2019.
.. [4] H. Steck. Calibrated Recommendations. RecSys 2018.
.. [5] M. Kaminskas and D. Bridge. Diversity, Serendipity, Novelty, and
   Coverage: A Survey and Empirical Analysis of Beyond-Accuracy Objectives in
   Recommender Systems. ACM TiiS 7(1), 2016.
.. [6] M. Ge, C. Delgado-Battenfeld and D. Jannach. Beyond accuracy:
   evaluating recommender systems by coverage and serendipity. RecSys 2010.
.. [7] C.-N. Ziegler, S. M. McNee, J. A. Konstan and G. Lausen. Improving
   recommendation lists through topic diversification. WWW 2005.
"""

from __future__ import annotations

import numbers
import re
import warnings
from collections.abc import Hashable, Mapping

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..._docs import fill_doc
from ..._ids import _align_ids, _as_int_ids, _dtype_text, _id_index, _id_kind, _show, _whole
from ..._kernels import CHUNK_CELLS, jaccard_pair_sums
from ..._validation import (
    as_numeric_array,
    check_bool,
    check_choice,
    check_fraction,
    check_k,
    check_positive_number,
    check_unique_items,
)
from ...providers import BEYOND_PRESETS, BEYOND_SOURCES
from ...providers import PRESETS as RANKING_PRESETS

__all__ = [
    "top_k",
    "coverage",
    "user_coverage",
    "gini",
    "entropy",
    "novelty",
    "average_popularity",
    "long_tail_share",
    "intra_list_diversity",
    "serendipity",
    "calibration",
    "PRESETS",
    "describe",
]

_DISTANCES = ("jaccard", "cosine", "hamming", "precomputed")

# docstring pieces of this module (the shared ones come from recmetrics._docs)
_LOCAL_DOCS = {
    "b_recommended": """\
recommended : list of lists, 2-D array of item ids, or pandas.DataFrame
    The recommended lists, best first: one list of item ids per user; a
    2-D array of item ids ``(n_users, length)`` (integers or objects; a
    float array is refused, because it would be a score matrix: turn
    scores into lists with :func:`recmetrics.beyond.top_k`); or a long
    DataFrame with ``user``, ``item`` and ``rank`` or ``score`` columns,
    one row per recommended item. Ranks are integers >= 1 (1 = first),
    distinct within a user, gaps allowed; with scores, an item's rank is
    its position after sorting the user's rows by decreasing score, equal
    scores in increasing item id order. An item is in the top ``k`` when
    its rank (its position in a list or array row) is at most ``k``, as
    for the ranking metrics. Per-user results are indexed by the user ids
    of a DataFrame, by position otherwise.""",
    "b_items": """\
items : array-like, optional
    The item id of each column when ``recommended`` holds column
    positions (as :func:`top_k` returns; for a DataFrame, its item
    column): position ``j`` stands for ``items[j]``, and the item data are
    matched by these ids. Without it the entries of ``recommended`` are
    the ids themselves, and item data keyed by ids of another type (say
    strings against integers) raise :class:`TypeError`.""",
    "b_popularity": """\
popularity : pandas.DataFrame, pandas.Series or dict
    The training interactions as a long DataFrame (columns ``user`` and
    ``item``, one row per interaction), or counts per item (a Series or
    dict item -> count) together with ``n_users``; keyed by the item ids
    of ``recommended`` (see ``items``). Ids of another type raise
    :class:`TypeError`; when most recommended items are absent from it, a
    :class:`UserWarning` says so (absent items count as documented for
    each metric).""",
    "b_k": """\
k : int, optional
    Keep the items of rank at most ``k`` (the first ``k`` of a list or an
    array row); ``None`` keeps every item.""",
}
_LOCAL_PLACEHOLDER = re.compile(r"^(\s*)%\((b_\w+)\)s$", re.MULTILINE)


def _fill_doc(obj):
    """Fill this module's docstring pieces, then the package's shared ones."""
    if obj.__doc__:

        def piece(match):
            indent, name = match.group(1), match.group(2)
            return "\n".join(
                (indent + line) if line.strip() else "" for line in _LOCAL_DOCS[name].split("\n")
            )

        obj.__doc__ = _LOCAL_PLACEHOLDER.sub(piece, obj.__doc__)
    return fill_doc(obj)


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
    S = as_numeric_array(y_score, "y_score", ndim=2)
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
            if m.dtype.kind == "f" and np.isnan(m).any():
                raise ValueError("mask contains NaN")
            M = sp.csr_matrix(m != 0)
        if M.shape != S.shape:
            raise ValueError(f"mask has shape {M.shape}, y_score has shape {S.shape}")
    out = np.empty((n_users, k), dtype=np.int64)
    step = max(1, CHUNK_CELLS // max(n_items, 1))
    for lo in range(0, n_users, step):
        s = S[lo : lo + step].copy()
        if mask is not None:
            s[M[lo : lo + step].toarray() != 0] = -np.inf
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


# --------------------------------------------------------------------------
# reading recommended lists
class _Lists:
    """Recommended lists, flattened: entry ``e`` is item ``code[e]`` at rank ``pos[e]``.

    The entry belongs to the list of user ``owner[e]``.

    ``items`` holds the distinct item ids (``code`` indexes it), ``user_ids``
    the users' ids (a pandas Index; positions for lists and arrays). Entries
    are sorted by owner, then rank. ``columns`` is the ``items=`` index
    (the id of each column position) when one was given; ``n_positions`` is
    set when the ids are column positions ``0 .. n_positions - 1`` of a
    score matrix without ``items=``: item data must then be keyed by them.
    """

    __slots__ = (
        "code",
        "owner",
        "pos",
        "items",
        "n_users",
        "user_ids",
        "from_frame",
        "columns",
        "n_positions",
        "name",
    )

    def __init__(self, code, owner, pos, items, user_ids, from_frame):
        self.code, self.owner, self.pos, self.items = code, owner, pos, pd.Index(items)
        self.user_ids, self.n_users, self.from_frame = user_ids, len(user_ids), from_frame
        self.columns = self.n_positions = None
        self.name = "recommended"

    def subset(self, keep):
        out = _Lists(
            self.code[keep], self.owner[keep], self.pos[keep], self.items, self.user_ids,
            self.from_frame,
        )  # fmt: skip
        out.columns, out.n_positions, out.name = self.columns, self.n_positions, self.name
        return out

    def slots(self):
        """0-based place of each entry within its user's list (ranks without their gaps)."""
        first = np.searchsorted(self.owner, self.owner, side="left")
        return np.arange(self.owner.shape[0], dtype=np.int64) - first

    def padded(self):
        """``(n_users, width)`` item codes in rank order, ``-1`` where a list is shorter."""
        slot = self.slots()
        width = int(slot.max()) + 1 if slot.size else 0
        out = np.full((self.n_users, width), -1, dtype=np.int64)
        out[self.owner, slot] = self.code
        return out

    def require_items(self, k):
        if self.code.size == 0:
            where = f" with a rank <= k={k}" if k is not None else ""
            raise ValueError(f"{self.name} holds no item{where}: every list is empty")

    def per_user(self, values, per_user, *, counts=None):
        """Mean of ``values`` (one per entry) per user, or its mean over users."""
        sums = np.bincount(self.owner, weights=values, minlength=self.n_users)
        if counts is None:
            counts = np.bincount(self.owner, minlength=self.n_users)
        with np.errstate(invalid="ignore", divide="ignore"):
            per = sums / counts
        return self.finish(per, per_user)

    def finish(self, per, per_user):
        if per_user:
            return pd.Series(per, index=self.user_ids) if self.from_frame else per
        ok = ~np.isnan(per)
        return float(np.mean(per[ok])) if ok.any() else float("nan")


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
        if "rank" in frame.columns:
            rank = "rank"
        elif "score" in frame.columns:
            score = "score"
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
    if relevance is not None:
        if relevance not in truth.columns:
            raise ValueError(f"truth has no column {relevance!r} (relevance=)")
        as_numeric_array(
            truth[relevance].to_numpy(), f"truth[{relevance!r}]", ndim=1, nonnegative=True
        )


def _check_eval_matrix(y_true, y_score):
    """``y_score`` as a finite 2-D array, with ``y_true`` of its shape (finite, non-negative)."""
    S = as_numeric_array(y_score, "y_score", ndim=2)
    if sp.issparse(y_true):
        if y_true.shape != S.shape:
            raise ValueError(f"y_true has shape {y_true.shape}, y_score has shape {S.shape}")
        data = y_true.tocoo().data
        as_numeric_array(data, "y_true", ndim=1, nonnegative=True, allow_empty=True)
    else:
        T = as_numeric_array(y_true, "y_true", ndim=2, nonnegative=True)
        if T.shape != S.shape:
            raise ValueError(f"y_true has shape {T.shape}, y_score has shape {S.shape}")
    return S


# --------------------------------------------------------------------------
# item data matched to the lists
_POSITIONS_HINT = (
    " (if recommended holds column positions, as top_k returns, pass items= with the item "
    "id of each column)"
)


def _side_ids(keys, lists, name):
    """The ids ``keys`` of item data ``name``, comparable with the lists' item ids.

    Ids of another type than the lists' raise (integer and whole float ids
    are matched with a warning); for the column positions of a score
    matrix without ``items=``, every key must be such a position.
    """
    if lists.n_positions is not None:
        n = lists.n_positions
        kind = _id_kind(keys)
        if kind == "empty":
            return keys
        if kind not in ("int", "float") or (kind == "float" and not _whole(keys)):
            raise ValueError(
                f"{name} is keyed by {kind} ids ({_dtype_text(keys)}), but the lists of a score "
                f"matrix hold column positions 0 .. {n - 1}: pass items= (the item id of each "
                "column) to match them by id"
            )
        keys = _as_int_ids(keys) if kind == "float" else keys
        arr = np.asarray(keys, dtype=np.int64)
        bad = (arr < 0) | (arr >= n)
        if bad.any():
            raise ValueError(
                f"{name} is keyed by ids such as {int(arr[bad][0])} that are not column positions "
                f"0 .. {n - 1} of the score matrix: pass items= (the item id of each column) "
                "to match them by id"
            )
        return keys
    keys, _ = _align_ids(keys, lists.items, name, lists.name, hint=_POSITIONS_HINT, to_ref=True)
    return keys


def _check_overlap(lists, known, name):
    """Warn when most recommended entries are absent from ``known`` (the ids of ``name``).

    Absent items have a defined treatment (e.g. ``unseen=`` of
    :func:`novelty`), so this is a warning: ids of one type that mostly do
    not match usually mean that the lists are column positions and the item
    data are keyed by ids.
    """
    found = pd.Index(lists.items).isin(pd.Index(known))[lists.code]
    if found.size and found.mean() < 0.5:
        warnings.warn(
            f"{np.count_nonzero(~found):,} of the {found.size:,} recommended items are absent "
            f"from {name}; check that both use the same item ids" + _POSITIONS_HINT,
            UserWarning,
            stacklevel=4,
        )


def _user_rows(data, lists, name, *, user="user", item="item", weight=None):
    """Per-user item collections (truth, history) aligned with the users of ``lists``.

    Returns ``(owner, item_ids, weights)``: entry ``e`` says that user
    ``owner[e]`` (a position in ``lists.user_ids``) has ``item_ids[e]``.
    A DataFrame is matched on the user ids (rows of other users are
    ignored; no user in common raises); a sequence of collections must
    have one per list.
    """
    if isinstance(data, pd.DataFrame):
        cols = (user, item) + ((weight,) if weight is not None else ())
        for col in cols:
            if not isinstance(col, Hashable):
                raise TypeError(f"column names must be labels, got {col!r}")
            if col not in data.columns:
                raise ValueError(f"{name} has no column {col!r}")
        if len(data) == 0:
            raise ValueError(f"{name} is empty")
        if data[[user, item]].isna().any().any():
            raise ValueError(f"{name} has a missing {user!r} or {item!r}")
        ids = data[user]
        if not lists.from_frame:
            if _id_kind(ids) != "int":
                raise TypeError(
                    f"{name} is a DataFrame but the lists are not: its {user!r} column must "
                    f"hold list positions (integers 0, 1, ...), got {_dtype_text(ids)}"
                )
        else:
            ids, _ = _align_ids(
                ids, lists.user_ids, f"{name}[{user!r}]",
                f"{lists.name}[{lists.user_ids.name!r}]", to_ref=True,
            )  # fmt: skip
        owner = lists.user_ids.get_indexer(ids)
        keep = owner >= 0
        if not keep.any():
            raise ValueError(
                f"{name} shares no user with {lists.name}: the user ids do not match"
                + ("" if lists.from_frame else " (rows of a DataFrame are list positions here)")
            )
        w = (
            np.ones(int(keep.sum()))
            if weight is None
            else as_numeric_array(
                data[weight].to_numpy()[keep], f"{name}[{weight!r}]", ndim=1, nonnegative=True
            )
        )
        item_ids = _side_ids(data[item], lists, f"{name}[{item!r}]")
        return owner[keep].astype(np.int64), np.asarray(item_ids)[keep], w
    if sp.issparse(data):
        if lists.from_frame:
            raise TypeError(
                f"{name} is a sparse matrix (rows are list positions) but the lists are a "
                "DataFrame of user ids: pass a long DataFrame (user, item)"
            )
        coo = data.tocoo()
        if coo.shape[0] != lists.n_users:
            raise ValueError(f"{name} has {coo.shape[0]} rows for {lists.n_users} lists")
        n_cols = len(lists.columns) if lists.columns is not None else lists.n_positions
        if n_cols is not None and coo.shape[1] != n_cols:
            raise ValueError(f"{name} has {coo.shape[1]} columns for {n_cols} items")
        if coo.data.size and not np.all(np.isfinite(coo.data)):
            raise ValueError(f"{name} holds NaN or infinite values")
        keep = coo.data != 0
        w = coo.data[keep].astype(np.float64) if weight == "values" else np.ones(int(keep.sum()))
        cols = coo.col[keep].astype(np.int64)
        if lists.columns is not None:
            return coo.row[keep].astype(np.int64), lists.columns.to_numpy()[cols], w
        ids = _side_ids(cols, lists, f"{name} (its columns)")
        return coo.row[keep].astype(np.int64), np.asarray(ids), w
    if weight is not None:
        raise TypeError(f"weight columns apply only when {name} is a DataFrame")
    if isinstance(data, (str, bytes, set, frozenset, Mapping)) or not hasattr(data, "__len__"):
        raise TypeError(
            f"{name} must be a long DataFrame (user, item) or one collection of items per list"
        )
    if len(data) != lists.n_users:
        raise ValueError(f"{name} has {len(data)} entries for {lists.n_users} recommended lists")
    owner, flat = [], []
    for u, coll in enumerate(data):
        if isinstance(coll, (str, bytes, Mapping)) or not hasattr(coll, "__iter__"):
            raise TypeError(f"{name}[{u}] must be a collection of item ids")
        coll = list(coll)
        for x in coll:
            if x is None or (isinstance(x, (float, np.floating)) and x != x):
                raise ValueError(f"{name}[{u}] holds a missing item id")
            if not isinstance(x, Hashable):
                raise TypeError(f"{name}[{u}] must hold hashable item ids, found {x!r}")
        flat.extend(coll)
        owner.extend([u] * len(coll))
    arr = pd.Index(flat, dtype=object)
    if _id_kind(arr) in ("int", "float", "str", "bool"):
        arr = pd.Index(flat)
    ids = _side_ids(arr, lists, name)
    return np.asarray(owner, dtype=np.int64), np.asarray(ids, dtype=object), np.ones(len(flat))


# --------------------------------------------------------------------------
# presets: the libraries' definitions as keyword values
# the libraries' definitions, one provider file per library (recmetrics.providers)
PRESETS: dict[str, dict[str, dict]] = BEYOND_PRESETS
"""Library -> metric -> keywords (from :mod:`recmetrics.providers`)."""


def _resolve(metric, convention, passed, defaults):
    """Values of the keywords: passed, else the preset's, else the default."""
    preset = {}
    if convention is not None:
        _check_convention_type(convention)
        if convention not in PRESETS:
            if convention in RANKING_PRESETS:
                raise ValueError(
                    f"convention={convention!r} defines no beyond-accuracy metrics here; "
                    f"presets of this family: {', '.join(sorted(PRESETS))}"
                )
        check_choice(convention, "convention", tuple(PRESETS))
        if metric not in PRESETS[convention]:
            have = ", ".join(sorted(PRESETS[convention])) or "none"
            raise ValueError(
                f"convention={convention!r} has no {metric} (the library's metrics of this "
                f"family here: {have})"
            )
        preset = PRESETS[convention][metric]
    out = {}
    for key, default in defaults.items():
        value = passed.get(key)
        if key in preset:
            if value is not None and not _same(value, preset[key]):
                raise ValueError(
                    f"convention={convention!r} sets {key}={preset[key]!r} for {metric}, "
                    f"but {key}={value!r} was passed; drop one of them"
                )
            value = preset[key]
        out[key] = default if value is None else value
    return out


def _check_convention_type(convention):
    if not isinstance(convention, str):
        raise TypeError(
            f"convention must be a preset name (a string such as 'rectools'), got "
            f"{type(convention).__name__}"
        )


def _same(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b


# --------------------------------------------------------------------------
# catalogue coverage and concentration
def _check_n_items(n_items, n_distinct, required=True):
    if n_items is None:
        if required:
            raise TypeError("n_items (the catalogue size) is required")
        return None
    if isinstance(n_items, (bool, np.bool_)) or not isinstance(n_items, numbers.Integral):
        raise TypeError(f"n_items must be an integer, got {n_items!r}")
    if n_items < n_distinct:
        raise ValueError(
            f"n_items={n_items} is smaller than the {n_distinct} distinct recommended items"
        )
    return int(n_items)


def _exposure(lists, discount):
    """Exposure of each distinct recommended item: 1 per slot, or 1/log2(position + 1)."""
    check_choice(discount, "discount", ("none", "log"))
    w = None if discount == "none" else 1.0 / np.log2(lists.pos + 1.0)  # pos: the rank
    exp = np.bincount(lists.code, weights=w, minlength=len(lists.items))
    return exp[exp > 0]


@_fill_doc
def coverage(recommended, *, n_items, k=None, min_exposure=1, items=None):
    """Catalogue coverage: the fraction of the catalogue recommended to at least one user.

    .. math:: \\mathrm{Coverage@}k = \\frac{|\\{i \\in I : e_i \\ge t\\}|}{|I|}

    where ``e_i`` is the number of top-``k`` lists that hold ``i`` and ``t``
    is ``min_exposure`` (1: item coverage as in Elliot, RecBole,
    Microsoft Recommenders' ``catalog_coverage``; Ge et al. 2010).

    Parameters
    ----------
    %(b_recommended)s
    n_items : int
        Catalogue size ``|I|``.
    %(b_k)s
    min_exposure : int, default 1
        Count an item as covered only if at least this many lists hold it.
    %(b_items)s

    Returns
    -------
    float

    See Also
    --------
    gini, entropy : How evenly the exposure is spread.
    user_coverage : The share of users who get a list.

    References
    ----------
    .. [1] M. Ge, C. Delgado-Battenfeld and D. Jannach. Beyond accuracy:
       evaluating recommender systems by coverage and serendipity. RecSys 2010.

    Examples
    --------
    >>> coverage([["a", "b"], ["a", "c"]], n_items=10)
    0.3
    >>> coverage([["a", "b"], ["a", "c"]], n_items=10, min_exposure=2)
    0.1
    """
    lists = _read_lists(recommended, k, items=items, allow_empty=True)
    min_exposure = check_k(min_exposure, "min_exposure")
    exp = np.bincount(lists.code, minlength=len(lists.items))
    n = _check_n_items(n_items, int((exp > 0).sum()))
    return float((exp >= min_exposure).sum() / n)


@_fill_doc
def user_coverage(recommended, *, n_users, k=None, min_length=1, items=None):
    """User coverage: the fraction of users who receive a list of at least ``min_length`` items.

    .. math:: \\mathrm{UserCov} = \\frac{|\\{u : |L_u^{(k)}| \\ge t\\}|}{|U|}

    A model that cannot score cold users, or a filter that removes most
    candidates, leaves users with short or empty lists; this counts them.

    Parameters
    ----------
    %(b_recommended)s
    n_users : int
        The number of users who should have received a list (users absent
        from ``recommended`` count as uncovered).
    %(b_k)s
    min_length : int, default 1
        The shortest list that counts (``k`` for "a full list").
    %(b_items)s

    Returns
    -------
    float

    See Also
    --------
    coverage : The share of the catalogue that is recommended.

    References
    ----------
    .. [1] M. Ge, C. Delgado-Battenfeld and D. Jannach. Beyond accuracy:
       evaluating recommender systems by coverage and serendipity. RecSys 2010.

    Examples
    --------
    >>> user_coverage([["a", "b"], ["c"], []], n_users=4)
    0.5
    >>> user_coverage([["a", "b"], ["c"], []], n_users=4, min_length=2)
    0.25
    """
    lists = _read_lists(recommended, k, items=items, allow_empty=True)
    min_length = check_k(min_length, "min_length")
    if isinstance(n_users, (bool, np.bool_)) or not isinstance(n_users, numbers.Integral):
        raise TypeError(f"n_users must be an integer, got {n_users!r}")
    if n_users < lists.n_users:
        raise ValueError(f"n_users={n_users} is smaller than the {lists.n_users} lists given")
    lengths = np.bincount(lists.owner, minlength=lists.n_users)
    return float((lengths >= min_length).sum() / n_users)


@_fill_doc
def gini(recommended, *, n_items, k=None, discount="none", items=None):
    """Gini index of the exposure of the catalogue's items (0 = equal, towards 1 = concentrated).

    .. math:: G = \\frac{\\sum_{j=1}^{n} (2j - n - 1)\\, x_{(j)}}{n \\sum_j x_j}

    with ``x_(1) <= ... <= x_(n)`` the exposures of all ``n = n_items``
    items, never-recommended items counting 0 (as Elliot's ``Gini`` and
    RecBole's ``GiniIndex`` do).

    Parameters
    ----------
    %(b_recommended)s
    n_items : int
        Catalogue size (items never recommended count with exposure 0).
    %(b_k)s
    discount : {'none', 'log'}, default 'none'
        Exposure of a slot: 1, or ``1 / log2(rank + 1)`` (users look at
        the top of a list more often).
    %(b_items)s

    Returns
    -------
    float

    See Also
    --------
    entropy, coverage

    References
    ----------
    .. [1] M. Kaminskas and D. Bridge. Diversity, Serendipity, Novelty, and
       Coverage. ACM TiiS 7(1), 2016.

    Examples
    --------
    >>> gini([["a"], ["a"]], n_items=2)   # one item gets all exposure
    0.5
    >>> gini([["a"], ["b"]], n_items=2)
    0.0
    """
    lists = _read_lists(recommended, k, items=items)
    exp = _exposure(lists, discount)
    n = _check_n_items(n_items, exp.shape[0])
    # the n - d never-recommended items come first with exposure 0: only the
    # d recommended ones, at sorted places n - d + 1 .. n, add to the sum
    x = np.sort(exp)
    d = x.shape[0]
    j = float(n - d) + np.arange(1, d + 1, dtype=np.float64)
    return float(np.sum((2 * j - n - 1) * x) / (float(n) * np.sum(x)))


@_fill_doc
def entropy(
    recommended, *, k=None, discount="none", base=None, normalize=None, n_items=None,
    convention=None, items=None,
):  # fmt: skip
    """Shannon entropy of the exposure distribution over the recommended items.

    .. math:: H = -\\sum_i p_i \\log_b p_i, \\qquad p_i = x_i / \\sum_j x_j

    Parameters
    ----------
    %(b_recommended)s
    %(b_k)s
    discount : {'none', 'log'}, default 'none'
        As in :func:`gini`.
    base : float, optional
        Base of the logarithm; ``None`` means 2 (bits, as Microsoft
        Recommenders' ``distributional_coverage`` and Elliot's ``SEntropy``).
    normalize : {'none', 'catalogue', 'distinct'}, optional
        ``None`` means ``'none'``; ``'catalogue'`` divides by ``log_b
        n_items``, the entropy of uniform exposure over the catalogue (then
        ``n_items`` is required): 1 = perfectly even; ``'distinct'`` divides
        by the number of distinct recommended items (RecBole's
        ``ShannonEntropy``, with ``base=e``).
    n_items : int, optional
        Catalogue size; only checked unless ``normalize='catalogue'``.
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float

    See Also
    --------
    gini, coverage

    References
    ----------
    .. [1] M. Kaminskas and D. Bridge. Diversity, Serendipity, Novelty, and
       Coverage. ACM TiiS 7(1), 2016.

    Examples
    --------
    >>> entropy([["a", "b"], ["c", "d"]])   # four items, equal exposure: 2 bits
    2.0
    >>> entropy([["a", "b"], ["c", "d"]], normalize="catalogue", n_items=16)
    0.5
    """
    opts = _resolve(
        "entropy", convention, {"base": base, "normalize": normalize},
        {"base": 2.0, "normalize": "none"},
    )  # fmt: skip
    check_choice(opts["normalize"], "normalize", ("none", "catalogue", "distinct"))
    lists = _read_lists(recommended, k, items=items)
    exp = _exposure(lists, discount)
    b = _check_base(opts["base"])
    n = _check_n_items(n_items, exp.shape[0], required=opts["normalize"] == "catalogue")
    p = exp / exp.sum()
    h = float(-np.sum(p * np.log(p)) / np.log(b))
    if opts["normalize"] == "catalogue":
        return float(h / (np.log(n) / np.log(b))) if n > 1 else float("nan")
    if opts["normalize"] == "distinct":
        return h / exp.shape[0]
    return h


def _check_base(base):
    base = check_positive_number(base, "base")
    if base == 1:
        raise ValueError("base must differ from 1")
    return base


# --------------------------------------------------------------------------
# popularity: novelty, ARP, long tail
def _popularity(popularity, n_users, denominator, lists):
    """``(counts, total)``: per-item popularity and the denominator of its fraction.

    ``counts`` is keyed by item ids comparable with the lists' (see
    :func:`_side_ids`); ``denominator='users'`` counts distinct users.
    """
    if isinstance(popularity, pd.DataFrame):
        for col in ("item",) + (("user",) if denominator == "users" else ()):
            if col not in popularity.columns:
                raise ValueError(
                    f"a popularity DataFrame must have a {col!r} column (training interactions)"
                )
        if n_users is not None:
            raise TypeError("n_users applies only when popularity holds counts")
        if len(popularity) == 0:
            raise ValueError("popularity is empty (no training interaction)")
        cols = [c for c in ("user", "item") if c in popularity.columns]
        if popularity[cols].isna().any().any():
            raise ValueError("popularity has a missing 'user' or 'item'")
        item = pd.Series(
            np.asarray(_side_ids(popularity["item"], lists, "popularity['item']")),
            index=popularity.index,
        )
        if denominator == "users":
            pairs = pd.DataFrame({"user": popularity["user"].to_numpy(), "item": item.to_numpy()})
            pairs = pairs.drop_duplicates(["user", "item"])
            counts = pairs["item"].value_counts().astype(np.float64)
            total = float(popularity["user"].nunique())
        else:
            counts, total = item.value_counts().astype(np.float64), float(len(popularity))
        _check_overlap(lists, counts.index, "popularity")
        return counts, total
    counts = _count_series(popularity, lists)
    if n_users is None:
        raise TypeError(
            "with counts, pass n_users= (the number of training users, or of interactions) "
            "so that the popularity of an item is a fraction"
        )
    total = check_positive_number(n_users, "n_users")
    if counts.size and counts.max() > total:
        raise ValueError(f"a popularity count exceeds n_users={n_users}")
    return counts, float(total)


def _count_series(popularity, lists):
    """Counts per item given as a Series or a dict, keyed like the lists."""
    if isinstance(popularity, Mapping):
        popularity = pd.Series(list(popularity.values()), index=pd.Index(list(popularity)))
    if not isinstance(popularity, pd.Series):
        raise TypeError(
            "popularity must be a training DataFrame (user, item), or a Series or dict "
            f"item -> count, got {type(popularity).__name__}"
        )
    if len(popularity) == 0:
        raise ValueError("popularity is empty (no item count)")
    if popularity.index.hasnans:
        raise ValueError("popularity has a missing item id in its index")
    if not popularity.index.is_unique:
        dup = popularity.index[popularity.index.duplicated()][0]
        raise ValueError(f"popularity gives the item {_show(dup)!r} two counts")
    values = as_numeric_array(popularity.to_numpy(), "popularity", ndim=1, nonnegative=True)
    keys = _side_ids(popularity.index, lists, "popularity (its index)")
    counts = pd.Series(values, index=pd.Index(keys))
    _check_overlap(lists, counts.index, "popularity")
    return counts


def _by_popularity(counts):
    """Item ids by decreasing count; equal counts in sorted id order (row order never matters)."""
    try:
        codes, ids = pd.factorize(counts.index, sort=True)
    except TypeError:
        raise TypeError(
            "popularity mixes item ids that cannot be sorted (e.g. strings and numbers); "
            "equal counts are ordered by item id, so use one type"
        ) from None
    return counts.index[np.lexsort((codes, -counts.to_numpy()))]


def _counts(popularity, lists, count="interactions"):
    """Counts per item from training interactions, or the counts as given (no denominator)."""
    if isinstance(popularity, pd.DataFrame):
        return _popularity(popularity, None, count, lists)[0]
    return _count_series(popularity, lists)


def _pop_of(lists, counts):
    """Popularity count of every entry of ``lists`` (0 for items absent from training)."""
    per_item = counts.reindex(lists.items).fillna(0.0).to_numpy(dtype=np.float64)
    return per_item[lists.code]


@_fill_doc
def novelty(
    recommended,
    popularity,
    *,
    n_users=None,
    k=None,
    base=None,
    denominator=None,
    unseen=None,
    average=None,
    per_user=False,
    convention=None,
    items=None,
):
    """Mean self-information of the recommended items, ``-log_b p(i)``, averaged per list.

    .. math:: \\mathrm{Nov}(L_u) = \\frac{1}{|L_u|}\\sum_{i \\in L_u} -\\log_b p(i),
              \\qquad p(i) = \\frac{|\\{v : i \\in H_v\\}|}{|U|}

    by default the fraction of training users who interacted with ``i``
    (Zhou et al. 2010; Vargas & Castells 2011); ``denominator='interactions'``
    uses the item's share of all training interactions instead. An item
    with ``p = 0`` (absent from training) has infinite self-information.

    Parameters
    ----------
    %(b_recommended)s
    %(b_popularity)s
    %(n_users_pop)s
    %(b_k)s
    base : float, optional
        Base of the logarithm; ``None`` means 2.
    denominator : {'users', 'interactions'}, optional
        ``p(i)``: the share of training users with ``i`` (``None``), or
        ``i``'s share of the training interactions.
    unseen : {'smooth', 'one', 'zero', 'skip', 'raise'}, optional
        Items absent from training: ``p = 1 / (N + 1)`` with ``N`` the
        denominator (``None``, default); a count of one, ``p = 1 / N``
        (RecTools); self-information 0, still counted in the mean
        (Microsoft Recommenders); left out of the mean; or an error.
    average : {'user', 'row'}, optional
        ``None`` means ``'user'``: the mean over each list, then over
        users; ``'row'`` pools every recommended item of every list (a
        micro average, as Microsoft Recommenders' ``novelty``; the same
        when all lists have one length). Only without ``per_user``.
    %(beyond_per_user)s
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float or numpy.ndarray or pandas.Series

    See Also
    --------
    average_popularity, long_tail_share

    References
    ----------
    .. [1] T. Zhou et al. Solving the apparent diversity-accuracy dilemma of
       recommender systems. PNAS 107(10), 2010.
    .. [2] S. Vargas and P. Castells. Rank and Relevance in Novelty and
       Diversity Metrics for Recommender Systems. RecSys 2011.

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 2, 3, 4], "item": ["a", "a", "a", "b"]})
    >>> round(novelty([["a", "b"]], train), 4)   # (-log2(3/4) - log2(1/4)) / 2
    1.2075
    """
    opts = _resolve(
        "novelty",
        convention,
        {"base": base, "denominator": denominator, "unseen": unseen, "average": average},
        {"base": 2.0, "denominator": "users", "unseen": "smooth", "average": "user"},
    )
    check_choice(opts["denominator"], "denominator", ("users", "interactions"))
    check_choice(opts["unseen"], "unseen", ("smooth", "one", "zero", "skip", "raise"))
    check_choice(opts["average"], "average", ("user", "row"))
    b = _check_base(opts["base"])
    per_user = check_bool(per_user, "per_user")
    lists = _read_lists(recommended, k, items=items)
    counts, total = _popularity(popularity, n_users, opts["denominator"], lists)
    pop = _pop_of(lists, counts)
    counts_per_user = None
    if (pop == 0).any():
        if opts["unseen"] == "raise":
            bad = lists.items[lists.code[int(np.argmax(pop == 0))]]
            raise ValueError(
                f"the recommended item {_show(bad)!r} has no training interaction (p = 0)"
            )
        if opts["unseen"] == "smooth":
            pop = np.where(pop == 0, total / (total + 1.0), pop)  # p = 1 / (N + 1)
        elif opts["unseen"] == "one":
            pop = np.where(pop == 0, 1.0, pop)  # p = 1 / N
        elif opts["unseen"] == "skip":
            counts_per_user = np.bincount(lists.owner[pop > 0], minlength=lists.n_users)
    with np.errstate(divide="ignore"):
        info = np.where(pop > 0, -np.log(pop / total) / np.log(b), 0.0)
    if opts["average"] == "row":
        if per_user:
            raise ValueError("average='row' pools all users; it has no per-user values")
        kept = info if counts_per_user is None else info[pop > 0]
        return float(np.mean(kept)) if kept.size else float("nan")
    return lists.per_user(info, per_user, counts=counts_per_user)


@_fill_doc
def average_popularity(
    recommended, popularity, *, n_users=None, k=None, count=None, normalize=None,
    per_user=False, convention=None, items=None,
):  # fmt: skip
    """Average recommendation popularity (ARP): the mean training popularity of the listed items.

    .. math:: \\mathrm{ARP}(L_u) = \\frac{1}{|L_u|}\\sum_{i \\in L_u} \\phi(i)

    with ``phi(i)`` the number of training interactions with ``i``
    (Abdollahpouri et al. 2019; RecTools, RecBole) or of training users who
    interacted with it (Elliot), optionally as a share of all interactions
    (or users).

    Parameters
    ----------
    %(b_recommended)s
    %(b_popularity)s
    %(n_users_pop)s
    %(b_k)s
    count : {'interactions', 'users'}, optional
        ``None`` means ``'interactions'`` (rows of the training DataFrame);
        ``'users'`` counts distinct users (the same without repeated rows).
    normalize : bool, optional
        Divide by the number of training interactions (or users, or
        ``n_users``); ``None`` means False.
    %(beyond_per_user)s
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float or numpy.ndarray or pandas.Series

    See Also
    --------
    novelty, long_tail_share

    References
    ----------
    .. [1] H. Abdollahpouri, R. Burke and B. Mobasher. Managing Popularity
       Bias in Recommender Systems with Personalized Re-ranking. FLAIRS 2019.

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 2, 3, 4], "item": ["a", "a", "a", "b"]})
    >>> average_popularity([["a", "b"], ["b"]], train)   # ((3 + 1) / 2 + 1) / 2
    1.5
    """
    opts = _resolve(
        "arp", convention, {"count": count, "normalize": normalize},
        {"count": "interactions", "normalize": False},
    )  # fmt: skip
    check_choice(opts["count"], "count", ("interactions", "users"))
    normalize = check_bool(opts["normalize"], "normalize")
    per_user = check_bool(per_user, "per_user")
    lists = _read_lists(recommended, k, items=items)
    if normalize or n_users is not None:
        counts, total = _popularity(popularity, n_users, opts["count"], lists)
    else:  # raw counts need no denominator
        counts, total = _counts(popularity, lists, opts["count"]), None
    pop = _pop_of(lists, counts)
    return lists.per_user(pop / total if normalize else pop, per_user)


@_fill_doc
def long_tail_share(
    recommended,
    popularity,
    *,
    n_users=None,
    k=None,
    head=None,
    head_by=None,
    count=None,
    per_user=False,
    convention=None,
    items=None,
):
    """Share of each list in the long tail (APLT): items outside the popular short head.

    .. math:: \\mathrm{APLT}(L_u) = \\frac{|L_u \\setminus \\mathcal{H}|}{|L_u|}

    The items are ranked by their training popularity (interactions, or
    distinct users with ``count='users'``; equal counts by item id). The
    short head ``H`` is, with ``head_by='interactions'`` (default), the
    smallest set of the most popular items whose counts reach a fraction
    ``head`` of the sum of all counts; with ``head_by='items'``, the first
    ``floor(head * m)`` of the ``m`` items with training interactions. The
    long tail is every other item, including items absent from training.

    The defaults follow Abdollahpouri, Burke and Mobasher (2019), who split
    the items so that the short head holds 80% of the ratings and the long
    tail the remaining 20% (``head=0.8``; on MovieLens 1M, the items with
    more than 506 ratings). The line in their Figure 1 is another one: "the
    top 20% of items by popularity" (``head=0.2, head_by='items'``). Elliot's ``APLT``
    (``convention='elliot'``) builds the head the same way as the paper
    (``pop_ratio`` 0.8), with popularity counted in distinct users and the
    total in distinct (user, item) pairs (``count='users'``; the same
    numbers when no pair is repeated); equal counts at the border are taken
    in Elliot's internal item order there, by item id here.

    Parameters
    ----------
    %(b_recommended)s
    %(b_popularity)s
    n_users : int, optional
        With counts, the number of training users (or interactions), as
        for :func:`novelty`: no count may exceed it. The head itself needs
        no denominator.
    %(b_k)s
    head : float, optional
        The head's share of the counts (or of the items), in (0, 1);
        ``None`` means 0.8.
    head_by : {'interactions', 'items'}, optional
        How the head is measured; ``None`` means ``'interactions'``.
    count : {'interactions', 'users'}, optional
        An item's popularity in a training DataFrame: its rows (``None``)
        or its distinct users. Counts per item are used as given.
    %(beyond_per_user)s
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float or numpy.ndarray or pandas.Series

    See Also
    --------
    novelty, average_popularity

    References
    ----------
    .. [1] H. Abdollahpouri, R. Burke and B. Mobasher. Managing Popularity
       Bias in Recommender Systems with Personalized Re-ranking. FLAIRS 2019.
    .. [2] V. W. Anelli et al. Elliot: A Comprehensive and Rigorous Framework
       for Reproducible Recommender Systems Evaluation. SIGIR 2021.

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 2, 3, 4, 5], "item": ["a", "a", "a", "b", "c"]})
    >>> long_tail_share([["a", "b"], ["b", "c"]], train)   # head = {a, b}: 4 of 5 rows
    0.25
    >>> long_tail_share([["a", "b"], ["b", "c"]], train, head=0.5)   # head = {a}
    0.75
    """
    opts = _resolve(
        "aplt",
        convention,
        {"head": head, "head_by": head_by, "count": count},
        {"head": 0.8, "head_by": "interactions", "count": "interactions"},
    )
    h = opts["head"]
    if isinstance(h, (bool, np.bool_)) or not isinstance(h, numbers.Real):
        raise TypeError(f"head must be a fraction in (0, 1), got {h!r}")
    if not 0 < h < 1:
        raise ValueError(f"head must be a fraction in (0, 1), got {h!r}")
    check_choice(opts["head_by"], "head_by", ("interactions", "items"))
    check_choice(opts["count"], "count", ("interactions", "users"))
    per_user = check_bool(per_user, "per_user")
    lists = _read_lists(recommended, k, items=items)
    if n_users is not None:
        counts = _popularity(popularity, n_users, opts["count"], lists)[0]
    else:
        counts = _counts(popularity, lists, opts["count"])
    ranked = counts[_by_popularity(counts)]
    ranked = ranked[ranked > 0]
    if opts["head_by"] == "interactions":
        # the first items whose counts reach head * total (Elliot's loop:
        # subtract counts from the limit until it is <= 0)
        limit = float(ranked.sum()) * float(h)
        n_head = int(np.searchsorted(ranked.cumsum().to_numpy(), limit, side="left")) + 1
    else:
        n_head = int(np.floor(h * ranked.shape[0]))
    head_items = pd.Index(ranked.index[:n_head])
    in_tail = ~pd.Index(lists.items).isin(head_items)
    return lists.per_user(in_tail[lists.code].astype(np.float64), per_user)


# --------------------------------------------------------------------------
# item features and distances
def _keyed_positions(index, items, lists, name, what="row"):
    """Where each of ``items`` sits in ``index`` (ids of item data ``name``); raise if absent."""
    if index.hasnans:
        raise ValueError(f"{name} has a missing item id")
    if not index.is_unique:
        dup = _show(index[index.duplicated()][0])
        raise ValueError(f"{name} has two {what}s for the item {dup!r}")
    keys = pd.Index(_side_ids(index, lists, name))
    idx = keys.get_indexer(pd.Index(items))
    if (idx < 0).any():
        bad = items[int(np.argmax(idx < 0))]
        raise ValueError(f"{name} has no {what} for item {_show(bad)!r}")
    return idx


def _feature_matrix(features, items, lists, name="features"):
    """Feature vectors of ``items`` (rows) from a DataFrame or a dict item -> set of features."""
    if isinstance(features, pd.DataFrame):
        idx = _keyed_positions(features.index, items, lists, name)
        dtypes = features.dtypes
        bad = [c for c, t in dtypes.items() if not isinstance(t, np.dtype) or t.kind not in "biuf"]
        if bad:
            raise TypeError(
                f"{name} must hold numbers (one column per feature); column {bad[0]!r} has "
                f"dtype {dtypes[bad[0]]}"
            )
        x = features.to_numpy(dtype=np.float64)
        return as_numeric_array(x[idx], name, ndim=2, allow_empty=True)
    if isinstance(features, Mapping):
        keys = list(features)
        idx = _keyed_positions(pd.Index(keys), items, lists, name, what="entry")
        vocab = {}
        rows, cols = [], []
        for r, i in enumerate(idx):
            it = keys[i]
            feats = features[it]
            if isinstance(feats, (str, bytes, Mapping)) or not hasattr(feats, "__iter__"):
                raise TypeError(f"{name}[{it!r}] must be a set of features")
            for f in feats:
                if not isinstance(f, Hashable):
                    raise TypeError(f"{name}[{it!r}] must hold hashable features, found {f!r}")
                cols.append(vocab.setdefault(f, len(vocab)))
                rows.append(r)
        out = np.zeros((len(items), len(vocab)))
        out[rows, cols] = 1.0
        return out
    raise TypeError(
        f"{name} must be a DataFrame indexed by item id (one column per feature) or a dict "
        f"item -> set of features, got {type(features).__name__}"
    )


class _Space:
    """Distances between the items ``0..m-1`` (codes), with code ``m`` a padding item.

    * jaccard: features packed into 64-bit words; ``|A ∩ B|`` by popcount;
    * hamming: each feature's values as integer codes; the count of
      features whose codes differ;
    * cosine: unit feature vectors (zero for items without features);
    * precomputed: the distance matrix.

    ``width`` is the number of values a pair's distance reads (to size blocks).
    """

    def __init__(self, features, items, distance, lists):
        check_choice(distance, "distance", _DISTANCES)
        self.kind = distance
        self.width = 1
        m = len(items)
        if distance == "precomputed":
            if not isinstance(features, pd.DataFrame):
                raise TypeError(
                    "with distance='precomputed', features must be a DataFrame of distances "
                    "indexed and labelled by item id"
                )
            ri = _keyed_positions(features.index, items, lists, "features (the distance rows)")
            ci = _keyed_positions(
                features.columns, items, lists, "features (the distance columns)", what="column"
            )
            d = as_numeric_array(features.to_numpy(), "features", ndim=2, nonnegative=True)
            self.d = np.zeros((m + 1, m + 1))
            self.d[:m, :m] = d[np.ix_(ri, ci)]
            return
        x = _feature_matrix(features, items, lists)
        if distance == "jaccard":
            b = np.zeros((m + 1, max(x.shape[1], 1)), dtype=bool)
            b[:m, : x.shape[1]] = x != 0
            packed = np.packbits(b, axis=1, bitorder="little")
            pad = (-packed.shape[1]) % 8
            packed = np.pad(packed, ((0, 0), (0, pad)))
            self.bits = np.ascontiguousarray(packed).view(np.uint64)
            self.size = b.sum(axis=1).astype(np.float64)
        elif distance == "hamming":
            # RecTools' PairwiseHammingDistanceCalculator: the number of
            # features whose values differ (2 and 1 differ, as 1 and 0 do)
            codes = np.zeros((m + 1, x.shape[1]), dtype=np.int64)
            for j in range(x.shape[1]):
                codes[:m, j] = np.unique(x[:, j], return_inverse=True)[1].ravel()
            self.codes = codes
            self.width = max(x.shape[1], 1)
        else:
            norm = np.linalg.norm(x, axis=1)
            unit = np.zeros((m + 1, x.shape[1]))
            ok = norm > 0
            unit[:m][ok] = x[ok] / norm[ok, None]
            self.unit = unit
            self.width = max(x.shape[1], 1)

    def pairs(self, a, b):
        """Distances ``d(a[e], b[e])`` for code arrays ``a``, ``b`` of one shape."""
        if self.kind == "precomputed":
            return self.d[a, b]
        if self.kind == "jaccard":
            inter = np.zeros(a.shape, dtype=np.float64)
            for w in range(self.bits.shape[1]):
                col = self.bits[:, w]
                inter += np.bitwise_count(col[a] & col[b])
            union = self.size[a] + self.size[b] - inter
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(union > 0, 1.0 - inter / union, 0.0)
        if self.kind == "hamming":
            out = np.zeros(a.shape, dtype=np.float64)
            for j in range(self.codes.shape[1]):
                col = self.codes[:, j]
                out += col[a] != col[b]
            return out
        return 1.0 - np.einsum("...f,...f->...", self.unit[a], self.unit[b])


def _pair_sums_numpy(space, codes, wpad, pad_code):
    """Per row, ``sum_{i<j} w_i w_j d(i, j)`` over the padded lists, in blocks of users."""
    codes = np.where(codes < 0, pad_code, codes)  # the padding item: no features, weight 0
    n, width = codes.shape
    pi, pj = np.triu_indices(width, 1)
    total = np.zeros(n)
    step = max(1, CHUNK_CELLS // max(pi.shape[0] * space.width, 1))
    for lo in range(0, n, step):
        c, ww = codes[lo : lo + step], wpad[lo : lo + step]
        d = space.pairs(c[:, pi], c[:, pj])
        total[lo : lo + step] = np.einsum("up,up->u", d, ww[:, pi] * ww[:, pj])
    return total


def _pos_weights(pos, discount):
    return 1.0 / np.log2(pos + 1.0) if discount else np.ones(pos.shape[0])


@_fill_doc
def intra_list_diversity(
    recommended, features, *, k=None, distance=None, short=None, per_user=False,
    discount=False, convention=None, items=None,
):  # fmt: skip
    """Intra-list diversity: the mean pairwise distance between the items of each list.

    .. math:: \\mathrm{ILD}(L_u) = \\frac{\\sum_{i < j} w_i w_j\\, d(L_{u,i}, L_{u,j})}
              {\\sum_{i < j} w_i w_j}

    with ``w = 1`` (Ziegler et al. 2005; Smyth & McClave 2001: the mean over
    the ``|L|(|L|-1)/2`` pairs) or, with ``discount=True``,
    ``w_i = 1 / log2(r_i + 1)`` for the item at rank ``r_i``: a rank-aware
    variant in the spirit of Vargas & Castells (2011), normalised by the
    weights so that it stays in the distance's range. Lists shorter than
    two items have no pairs (NaN per user, left out of the mean).

    Parameters
    ----------
    %(b_recommended)s
    features : pandas.DataFrame or dict
        Item features: a DataFrame indexed by item id with one column per
        feature (e.g. one-hot genres), or a dict item -> set of features;
        with ``distance='precomputed'``, a DataFrame of distances indexed
        and labelled by item id.
    %(b_k)s
    distance : {'jaccard', 'cosine', 'hamming', 'precomputed'}, optional
        ``1 - |A ∩ B| / |A ∪ B|`` on the sets of features (non-zero
        entries; two items without features are at distance 0), ``1 - cos``
        of the feature vectors (an item without features is at distance 1
        from every other; with the items' user-incidence vectors from the
        training data as features this is Microsoft Recommenders' default
        co-occurrence similarity), the Hamming distance: the number of
        features (columns) in which the two items' values differ, whatever
        the values (1 and 2 differ as 0 and 1 do; not normalised; RecTools'
        ``PairwiseHammingDistanceCalculator``; for a dict of feature sets,
        ``|A xor B|``), or the given matrix. ``None`` means ``'jaccard'``.
    short : {'skip', 'zero'}, optional
        Lists with fewer than two items have no pairs: ``None`` means
        ``'skip'`` (NaN per user, left out of the mean, as Microsoft
        Recommenders); ``'zero'`` counts them as 0 (RecTools).
    %(beyond_per_user)s
    discount : bool, default False
        Weight pairs by their ranks, as above.
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float or numpy.ndarray or pandas.Series

    See Also
    --------
    serendipity, calibration

    Notes
    -----
    Cosine uses ``sum_{i<j} w_i w_j cos(i, j) = (|sum_i w_i u_i|^2 - sum_i
    w_i^2 |u_i|^2) / 2`` with unit vectors ``u``: one pass over the lists'
    features, no pairs. Jaccard packs the features into 64-bit words and
    counts intersections with a population count, pair by pair, in blocks
    of users.

    References
    ----------
    .. [1] C.-N. Ziegler, S. M. McNee, J. A. Konstan and G. Lausen. Improving
       recommendation lists through topic diversification. WWW 2005.
    .. [2] S. Vargas and P. Castells. Rank and Relevance in Novelty and
       Diversity Metrics for Recommender Systems. RecSys 2011.

    Examples
    --------
    >>> genres = {"a": {"Drama"}, "b": {"Drama"}, "c": {"Comedy"}}
    >>> round(intra_list_diversity([["a", "b", "c"]], genres), 4)   # pairs: 0, 1, 1
    0.6667
    >>> sizes = pd.DataFrame({"seasons": [1, 2, 2], "kids": [0, 0, 1]}, index=["a", "b", "c"])
    >>> round(intra_list_diversity([["a", "b", "c"]], sizes, distance="hamming"), 4)  # 1, 2, 1
    1.3333
    """
    opts = _resolve(
        "ild", convention, {"distance": distance, "short": short},
        {"distance": "jaccard", "short": "skip"},
    )  # fmt: skip
    check_choice(opts["short"], "short", ("skip", "zero"))
    per_user = check_bool(per_user, "per_user")
    discount = check_bool(discount, "discount")
    lists = _read_lists(recommended, k, items=items)
    space = _Space(features, lists.items, opts["distance"], lists)
    w = _pos_weights(lists.pos, discount)
    n = lists.n_users
    sw = np.bincount(lists.owner, weights=w, minlength=n)
    sw2 = np.bincount(lists.owner, weights=w * w, minlength=n)
    weight = (sw * sw - sw2) / 2.0  # sum over pairs of w_i w_j
    if space.kind == "cosine":
        # sum over pairs of w_i w_j cos = (|sum w_i u_i|^2 - sum w_i^2 |u_i|^2) / 2
        m = space.unit.shape[0]
        W = sp.csr_matrix((w, (lists.owner, lists.code)), shape=(n, m))
        s = np.asarray(W @ space.unit)
        sq = (space.unit**2).sum(axis=1)
        self_sim = np.bincount(lists.owner, weights=w * w * sq[lists.code], minlength=n)
        # 1 - cos >= 0: clip the round-off of the difference (exact up to ~1e-16)
        total = np.maximum(weight - ((s * s).sum(axis=1) - self_sim) / 2.0, 0.0)
    else:
        codes = lists.padded()
        wpad = np.zeros(codes.shape)
        wpad[lists.owner, lists.slots()] = w
        total = None
        if space.kind == "jaccard":
            total = jaccard_pair_sums(codes, wpad, space.bits, space.size)
        if total is None:
            total = _pair_sums_numpy(space, codes, wpad, len(lists.items))
    with np.errstate(invalid="ignore", divide="ignore"):
        per = np.where(weight > 0, total / weight, np.nan if opts["short"] == "skip" else 0.0)
    return lists.finish(per, per_user)


# --------------------------------------------------------------------------
# serendipity and calibration: the list against the user
@_fill_doc
def serendipity(
    recommended,
    truth,
    *,
    k=None,
    expectedness=None,
    popularity=None,
    n_primitive=None,
    history=None,
    features=None,
    distance=None,
    n_items=None,
    per_user=False,
    user="user",
    item="item",
    convention=None,
    items=None,
):
    """Serendipity: the share of a list that is both relevant and unexpected.

    .. math:: \\mathrm{Ser}(L_u) = \\frac{1}{|L_u|} \\sum_{i \\in L_u}
              \\mathrm{rel}(u, i)\\, \\mathrm{unexp}(u, i)

    with ``rel`` 1 for the user's relevant (held-out) items and 0 otherwise,
    and the expectedness model chosen by ``expectedness``:

    * ``'popularity'`` (Murakami et al. 2008; Ge et al. 2010): an item is
      expected if a primitive model recommends it, here the
      ``n_primitive`` most popular training items (the user's own training
      items excluded when ``history`` is given); ``unexp`` is 0 or 1;
    * ``'history'`` (Kaminskas & Bridge 2016): ``unexp(u, i)`` is the mean
      distance between ``i`` and the items of the user's history (the
      content-based unexpectedness; Microsoft Recommenders uses its
      complement, 1 - mean cosine similarity);
    * ``'rank'`` (RecTools, after a Lab41 blog post): ``unexp(u, i) =
      max(0, p(i) - pu(i))`` with ``p(i) = (n + 1 - r) / n`` for the item's
      rank ``r`` in the list and ``pu(i) = (n + 1 - s) / n`` for its
      dense popularity rank ``s`` among the training items (0 for items
      absent from training), ``n = n_items``.

    Parameters
    ----------
    %(b_recommended)s
    truth : pandas.DataFrame or sequence of collections
        The relevant items of each user: a long DataFrame (``user``,
        ``item``), or one collection of items per list.
    %(b_k)s
    expectedness : {'popularity', 'history', 'rank'}, optional
        The model of what the user expects; ``None`` means
        ``'popularity'``.
    popularity : pandas.DataFrame, Series or dict, optional
        The training interactions (or counts per item) for the primitive
        model of ``'popularity'``.
    n_primitive : int, optional
        Length of the primitive model's list; ``None``: the largest rank
        in the lists (the length of the longest list when ranks have no
        gaps).
    history : pandas.DataFrame or sequence of collections, optional
        Each user's training items: needed by ``'history'``; with
        ``'popularity'``, removes them from the primitive list.
    features : pandas.DataFrame or dict, optional
        Item features for ``'history'`` (as in :func:`intra_list_diversity`).
    distance : {'jaccard', 'cosine', 'precomputed'}, optional
        The distance of ``'history'``; ``None`` means ``'cosine'``.
    n_items : int, optional
        Catalogue size, for ``'rank'``.
    %(beyond_per_user)s
    user, item : str, default 'user', 'item'
        Column names of ``truth`` and ``history`` DataFrames.
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float or numpy.ndarray or pandas.Series

    See Also
    --------
    novelty, intra_list_diversity

    References
    ----------
    .. [1] T. Murakami, K. Mori and R. Orihara. Metrics for evaluating the
       serendipity of recommendation lists. JSAI 2007, LNAI 4914, 2008.
    .. [2] M. Ge, C. Delgado-Battenfeld and D. Jannach. Beyond accuracy:
       evaluating recommender systems by coverage and serendipity. RecSys 2010.
    .. [3] M. Kaminskas and D. Bridge. Diversity, Serendipity, Novelty, and
       Coverage. ACM TiiS 7(1), 2016.

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 2, 3], "item": ["a", "a", "b"]})
    >>> serendipity([["a", "c"]], [{"a", "c"}], popularity=train, n_primitive=1)
    0.5
    >>> genres = {"a": {"Drama"}, "b": {"Drama"}, "c": {"Comedy"}}
    >>> serendipity([["a", "c"]], [{"a", "c"}], expectedness="history",
    ...             history=[["b"]], features=genres)
    0.5
    """
    opts = _resolve(
        "serendipity",
        convention,
        {"expectedness": expectedness, "distance": distance},
        {"expectedness": "popularity", "distance": "cosine"},
    )
    check_choice(opts["expectedness"], "expectedness", ("popularity", "history", "rank"))
    per_user = check_bool(per_user, "per_user")
    lists = _read_lists(recommended, k, items=items)
    rel = _membership(lists, truth, "truth", user, item)
    if opts["expectedness"] != "rank" and n_items is not None:
        raise TypeError("n_items applies only to expectedness='rank'")
    if opts["expectedness"] == "rank":
        if popularity is None:
            raise TypeError("expectedness='rank' needs popularity= (training interactions)")
        if history is not None or features is not None or n_primitive is not None:
            raise TypeError("history, features and n_primitive do not apply to expectedness='rank'")
        counts = _counts(popularity, lists)
        n = _check_n_items(n_items, len(lists.items))
        dense = pd.Series(counts.rank(method="dense", ascending=False).to_numpy(), counts.index)
        s_rank = dense.reindex(lists.items).to_numpy()[lists.code]
        pu = np.where(np.isnan(s_rank), 0.0, (n + 1 - s_rank) / n)
        unexp = np.maximum((n + 1 - lists.pos) / n - pu, 0.0)
    elif opts["expectedness"] == "popularity":
        if popularity is None:
            raise TypeError("expectedness='popularity' needs popularity= (training interactions)")
        if features is not None:
            raise TypeError("features apply only to expectedness='history'")
        n_p = int(lists.pos.max()) if n_primitive is None else check_k(n_primitive, "n_primitive")
        ranked = _by_popularity(_counts(popularity, lists))
        if history is None:
            expected = pd.Index(lists.items).isin(ranked[:n_p])[lists.code]
        else:
            # the primitive list of each user: the most popular items not in
            # their history; an item is expected if it is in it
            seen = _membership_table(lists, history, "history", user, item)
            pos_in = pd.Series(np.arange(len(ranked)), index=ranked)
            item_rank = pos_in.reindex(lists.items).to_numpy()  # NaN: unseen in training
            # the user's seen items above each popularity position
            top_seen = _seen_above(seen, pos_in, lists.n_users)
            r = item_rank[lists.code]
            # the item is in the primitive list if fewer than n_p unseen items rank above it
            above_unseen = r - top_seen(lists.owner, r)
            is_seen = seen.contains(lists.owner, lists.code)
            expected = ~np.isnan(r) & ~is_seen & (above_unseen < n_p)
        unexp = (~expected).astype(np.float64)
    else:
        if history is None or features is None:
            raise TypeError("expectedness='history' needs history= and features=")
        if n_primitive is not None or popularity is not None:
            raise TypeError("popularity and n_primitive apply only to expectedness='popularity'")
        unexp = _distance_to_history(lists, history, features, opts["distance"], user, item)
    return lists.per_user(rel * unexp, per_user)


class _Membership:
    """Which (user, item) pairs a per-user collection holds, for item codes of ``lists``."""

    def __init__(self, lists, owner, ids):
        code = pd.Index(lists.items).get_indexer(pd.Index(ids, dtype=object))
        ok = code >= 0
        self.m = len(lists.items) + 1
        self.keys = np.unique(owner[ok] * self.m + code[ok])
        self.owner_all, self.ids_all = owner, ids

    def contains(self, owner, code):
        """Whether user ``owner[e]`` holds item ``code[e]``, for every ``e``."""
        if self.keys.size == 0:
            return np.zeros(np.shape(owner), dtype=bool)
        key = owner * self.m + code
        i = np.minimum(np.searchsorted(self.keys, key), self.keys.shape[0] - 1)
        return self.keys[i] == key


def _membership_table(lists, data, name, user, item):
    owner, ids, _ = _user_rows(data, lists, name, user=user, item=item)
    return _Membership(lists, owner, ids)


def _membership(lists, data, name, user, item):
    """1.0 where the entry's item is in its user's collection ``data``, else 0.0."""
    return (
        _membership_table(lists, data, name, user, item)
        .contains(lists.owner, lists.code)
        .astype(np.float64)
    )


def _seen_above(seen, pos_in, n_users):
    """A function ``(owner, r) -> number of the user's seen items ranked above position r``."""
    r_seen = pos_in.reindex(pd.Index(seen.ids_all, dtype=object)).to_numpy()
    ok = ~np.isnan(r_seen)
    own, rs = seen.owner_all[ok], r_seen[ok]
    pairs = np.unique(np.stack([own, rs], axis=1), axis=0) if own.size else np.zeros((0, 2))
    key = pairs[:, 0] * (len(pos_in) + 1) + pairs[:, 1]

    def count(owner, r):
        r = np.where(np.isnan(r), len(pos_in), r)
        lo = np.searchsorted(key, owner * (len(pos_in) + 1), side="left")
        hi = np.searchsorted(key, owner * (len(pos_in) + 1) + r, side="left")
        return (hi - lo).astype(np.float64)

    return count


def _distance_to_history(lists, history, features, distance, user, item):
    """Mean distance of each list entry to the items of its user's history (NaN: no history)."""
    owner_h, ids_h, _ = _user_rows(history, lists, "history", user=user, item=item)
    hcode, hist_items = pd.factorize(pd.Index(ids_h, dtype=object))
    # one item space over the recommended and the history items
    all_items = pd.Index(lists.items).append(pd.Index(hist_items)).drop_duplicates()
    space = _Space(features, all_items, distance, lists)
    lcode = all_items.get_indexer(pd.Index(lists.items))[lists.code]
    hcode = all_items.get_indexer(pd.Index(hist_items))[hcode]
    n = lists.n_users
    n_hist = np.bincount(owner_h, minlength=n).astype(np.float64)
    if space.kind == "cosine":
        f = space.unit.shape[1]
        mean_vec = np.zeros((n, f))
        for j in range(f):
            mean_vec[:, j] = np.bincount(owner_h, weights=space.unit[hcode, j], minlength=n)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_vec /= n_hist[:, None]
        return 1.0 - np.einsum("ef,ef->e", space.unit[lcode], mean_vec[lists.owner])
    # pairs (list entry, history item of the same user), in blocks of entries
    order = np.argsort(owner_h, kind="stable")
    hsorted = hcode[order]
    start = np.concatenate([[0], np.cumsum(np.bincount(owner_h, minlength=n))])
    out = np.empty(lists.code.shape[0])
    reps = n_hist[lists.owner].astype(np.int64)
    bounds = np.concatenate([[0], np.cumsum(reps)])
    e = 0
    while e < out.shape[0]:
        block = max(CHUNK_CELLS // space.width, 1)
        stop = int(np.searchsorted(bounds, bounds[e] + block, side="right")) - 1
        stop = max(stop, e + 1)
        idx = np.arange(e, stop)
        r = reps[idx]
        ent = np.repeat(idx, r)
        offs = np.arange(ent.shape[0]) - np.repeat(np.cumsum(r) - r, r)
        hidx = hsorted[start[lists.owner[ent]] + offs]
        d = space.pairs(lcode[ent], hidx)
        sums = np.bincount(ent - e, weights=d, minlength=idx.shape[0])
        with np.errstate(invalid="ignore", divide="ignore"):
            out[e:stop] = sums / r
        e = stop
    return out


@_fill_doc
def calibration(
    recommended,
    history,
    features,
    *,
    k=None,
    alpha=None,
    discount=False,
    history_weight=None,
    base=None,
    per_user=False,
    user="user",
    item="item",
    convention=None,
    items=None,
):
    """Miscalibration (Steck 2018): KL divergence of the list's genres from the user's history.

    .. math:: C_{KL}(p, q) = \\sum_g p(g|u) \\log \\frac{p(g|u)}{\\tilde q(g|u)},
              \\qquad \\tilde q = (1 - \\alpha)\\, q + \\alpha\\, p

    where ``p(g|i)`` spreads each item evenly over its genres,
    ``p(g|u) = sum_{i in H_u} w_{u,i} p(g|i) / sum w_{u,i}`` is the genre
    distribution of the user's history and ``q(g|u)`` that of the list
    (``w_r = 1``, or ``1 / log2(r + 1)`` by position with ``discount``).
    0 means perfectly calibrated; larger is worse. Items without any
    feature are left out of both distributions; users whose history has
    no feature get NaN. With ``alpha = 0`` a genre of the history missing
    from the list makes the divergence infinite.

    Parameters
    ----------
    %(b_recommended)s
    history : pandas.DataFrame or sequence of collections
        Each user's training items: a long DataFrame (``user``, ``item``
        and optionally a weight column), or one collection per list.
    features : pandas.DataFrame or dict
        Item features (genres): a DataFrame indexed by item id with
        non-negative values (one column per genre; each row is normalised
        to sum to 1) or a dict item -> set of genres.
    %(b_k)s
    alpha : float, optional
        Smoothing in [0, 1); ``None`` means 0.01, Steck's value.
    discount : bool, default False
        Weight list items by rank, ``1 / log2(r + 1)``.
    history_weight : str, optional
        A column of the history DataFrame with the weights ``w_{u,i}``
        (e.g. recency); default equal weights.
    base : float, optional
        Base of the logarithm; ``None`` means ``e`` (nats), as Steck.
    %(beyond_per_user)s
    user, item : str, default 'user', 'item'
        Column names of a history DataFrame.
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float or numpy.ndarray or pandas.Series

    See Also
    --------
    intra_list_diversity, serendipity

    References
    ----------
    .. [1] H. Steck. Calibrated Recommendations. RecSys 2018.

    Examples
    --------
    >>> genres = {"a": {"Drama"}, "b": {"Comedy"}, "c": {"Drama", "Comedy"}}
    >>> calibration([["c"]], [["a", "b"]], genres)   # same genre mix
    0.0
    >>> round(calibration([["a"]], [["a", "b"]], genres), 4)
    1.9585
    """
    opts = _resolve(
        "calibration", convention, {"alpha": alpha, "base": base}, {"alpha": 0.01, "base": np.e}
    )
    a = check_fraction(opts["alpha"], "alpha")
    if a >= 1:
        raise ValueError("alpha must be below 1 (alpha = 1 replaces the list by the history)")
    b = _check_base(opts["base"])
    per_user = check_bool(per_user, "per_user")
    discount = check_bool(discount, "discount")
    lists = _read_lists(recommended, k, items=items)
    owner_h, ids_h, w_h = _user_rows(
        history, lists, "history", user=user, item=item, weight=history_weight
    )
    hcode, hist_items = pd.factorize(pd.Index(ids_h, dtype=object))
    all_items = pd.Index(lists.items).append(pd.Index(hist_items)).drop_duplicates()
    x = _feature_matrix(features, all_items, lists)
    if (x < 0).any():
        raise ValueError("features must be non-negative for calibration")
    rows = x.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        pg = np.where(rows[:, None] > 0, x / rows[:, None], 0.0)  # p(g|i)
    has = rows > 0
    n, m = lists.n_users, len(all_items)
    lcode = all_items.get_indexer(pd.Index(lists.items))[lists.code]
    hcode = all_items.get_indexer(pd.Index(hist_items))[hcode]
    wl = _pos_weights(lists.pos, discount) * has[lcode]
    wh = w_h * has[hcode]
    L = sp.csr_matrix((wl, (lists.owner, lcode)), shape=(n, m))
    H = sp.csr_matrix((wh, (owner_h, hcode)), shape=(n, m))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.asarray(H @ pg) / np.asarray(H.sum(axis=1))
        q = np.asarray(L @ pg) / np.asarray(L.sum(axis=1))
    q = np.where(np.isnan(q), 0.0, q)  # a list without features: q = 0, only alpha p remains
    qt = (1.0 - a) * q + a * p
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(p > 0, p * np.log(p / qt), 0.0)
    kl = terms.sum(axis=1) / np.log(b)
    kl[np.isnan(p).any(axis=1)] = np.nan
    return lists.finish(kl, per_user)


SOURCES: dict[str, dict[str, str]] = BEYOND_SOURCES
"""Library -> metric -> the file and function each preset was read from."""


def describe(convention=None):
    """The beyond-accuracy presets: what each library's definition sets, and where it comes from.

    Parameters
    ----------
    convention : str, optional
        One library (a key of :data:`PRESETS`); all of them by default.

    Returns
    -------
    pandas.DataFrame
        One row per (library, metric) with the keywords the preset sets and
        the source file and function.

    See Also
    --------
    recmetrics.conventions.describe : The presets of the ranking metrics.

    References
    ----------
    .. [1] M. Kaminskas and D. Bridge. Diversity, Serendipity, Novelty, and
       Coverage. ACM TiiS 7(1), 2016.

    Examples
    --------
    >>> describe("recbole").loc[("recbole", "entropy"), "keywords"]
    "base=2.718281828459045, normalize='distinct'"
    """
    if convention is not None:
        _check_convention_type(convention)
    names = tuple(PRESETS) if convention is None else (convention,)
    for name in names:
        check_choice(name, "convention", tuple(PRESETS))
    rows = {
        (name, metric): {
            "keywords": ", ".join(f"{key}={value!r}" for key, value in kw.items()),
            "source": SOURCES[name][metric],
        }
        for name in names
        for metric, kw in PRESETS[name].items()
    }
    table = pd.DataFrame(rows).T
    table.index.names = ["convention", "metric"]
    return table
