"""From scores, ranked lists or ranks to one representation of a ranking.

Every Top-N metric of a user is a function of *where that user's relevant
items sit in the ranking* (and, for graded relevance, of their gains): this is
the ``M(R)`` of Krichene & Rendle. This module computes that once per call, for
all users at once, and the metric modules (:mod:`recmetrics.topn`,
:mod:`recmetrics.ndcg`, :mod:`recmetrics.roc_auc`) are small functions of it.

The representation, :class:`Ranking`, stores one entry per relevant item
(gain > 0), grouped by user in CSR fashion. For each entry it keeps the *tie
group* the item falls in: ``start`` items are ranked strictly above the group,
the group spans positions ``start + 1 .. start + size``, and it contains
``group_rel`` relevant items, with ``rel_before`` relevant items strictly above
it. Under a deterministic tie policy every group has size 1 and ``start + 1``
is the item's rank. Under ``ties="expected"`` the item is equally likely to sit
at any position of its group, and the metrics return their exact expectation
over all orders of the tied items (McSherry & Najork, 2008). Items that are not
ranked at all (a relevant item missing from a recommendation list) have
``start = inf``.

Input forms, all converging here:

* a score matrix ``(n_users, n_items)`` with a relevance (gain) matrix of the
  same shape, dense or :mod:`scipy.sparse`, and an optional mask of items to
  exclude (:func:`from_scores`);
* ranked recommendation lists with sets, or graded dicts, of relevant items
  (:func:`from_lists`), including one list of gains in ranked order
  (:func:`from_gains`);
* the ranks of held-out items (:func:`from_ranks`).
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._kernels import count_above, first_bad_value
from ._validation import (
    MAX_EXACT_INT,
    as_numeric_array,
    check_bool,
    check_choice,
    check_integers,
    check_n_items,
    check_unique_items,
)

__all__ = [
    "Ranking",
    "TIE_POLICIES",
    "from_gains",
    "from_lists",
    "from_ranks",
    "from_scores",
    "as_ranking",
]

TIE_POLICIES = ("expected", "optimistic", "pessimistic", "trec_eval")

# Work on at most this many matrix cells at a time when counting, so extra
# memory stays bounded whatever the number of users.
_CHUNK_CELLS = 4_000_000


@dataclass(frozen=True)
class Ranking:
    """Where each user's relevant items sit in a ranking (see module docstring).

    Attributes
    ----------
    indptr : ndarray of shape (n_users + 1,)
        Entries of user ``u`` are ``indptr[u]:indptr[u + 1]``.
    gain : ndarray of shape (nnz,)
        Gain (relevance grade, > 0) of each relevant item.
    start : ndarray of shape (nnz,)
        Number of items ranked strictly above the item's tie group
        (``inf`` when the item is not ranked at all).
    size : ndarray of shape (nnz,)
        Size of the tie group (1 when there is no tie).
    group_rel : ndarray of shape (nnz,)
        Number of relevant items in the tie group.
    rel_before : ndarray of shape (nnz,)
        Number of relevant items ranked strictly above the tie group.
    n_ranked : ndarray of shape (n_users,)
        Length of each user's ranking (list length, or catalogue size after
        the mask for a full ranking).
    n_items : ndarray of shape (n_users,) or None
        Catalogue size of each user (after the mask); ``None`` when unknown
        (ranked lists without a catalogue), which AUC and TN need.
    ties : str or None
        The tie policy the ranking was built with (``None`` when the input
        cannot hold ties: ranked lists, ranks, a list of gains).
    """

    indptr: np.ndarray
    gain: np.ndarray
    start: np.ndarray
    size: np.ndarray
    group_rel: np.ndarray
    rel_before: np.ndarray
    n_ranked: np.ndarray
    n_items: np.ndarray | None = None
    ties: str | None = None

    @property
    def n_users(self) -> int:
        return self.indptr.shape[0] - 1

    @property
    def n_relevant(self) -> np.ndarray:
        """Number of relevant items of each user, ranked or not."""
        return np.diff(self.indptr).astype(np.float64)

    @property
    def user(self) -> np.ndarray:
        """User index of each entry."""
        return np.repeat(np.arange(self.n_users), np.diff(self.indptr))

    @property
    def is_graded(self) -> bool:
        return bool(np.any(self.gain != 1.0))

    def per_user_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum entry values per user (vectorised)."""
        return np.bincount(self.user, weights=values, minlength=self.n_users)

    def ranks(self) -> np.ndarray:
        """Ranks of the relevant items (1-based; ties resolved to the group's
        mean position under ``ties='expected'``; ``inf`` if not ranked)."""
        return self.start + (self.size + 1.0) / 2.0


# --------------------------------------------------------------------------
# builders
def _from_entries(user, gain, start, size, group_rel, rel_before, n_users, n_ranked, n_items, ties=None):
    order = np.lexsort((start, user))
    user = user[order]
    counts = np.bincount(user, minlength=n_users)
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    f = lambda x: np.asarray(x, dtype=np.float64)[order]  # noqa: E731
    return Ranking(
        indptr=indptr,
        gain=f(gain),
        start=f(start),
        size=f(size),
        group_rel=f(group_rel),
        rel_before=f(rel_before),
        n_ranked=np.asarray(n_ranked, dtype=np.float64),
        n_items=None if n_items is None else np.asarray(n_items, dtype=np.float64),
        ties=ties,
    )


def _deterministic(user, gain, rank, n_users, n_ranked, n_items, ties=None):
    """Entries with exact (distinct within user) ranks; ``inf`` = not ranked."""
    rank = np.asarray(rank, dtype=np.float64)
    order = np.lexsort((rank, user))
    rel_before = np.empty(rank.shape[0], dtype=np.float64)
    su = user[order]
    first = np.searchsorted(su, su, side="left")
    rel_before[order] = np.arange(rank.shape[0]) - first
    ones = np.ones_like(rank)
    return _from_entries(user, gain, rank - 1.0, ones, ones, rel_before, n_users, n_ranked, n_items, ties)


def from_ranks(ranks, n_items=None) -> Ranking:
    """Ranking from the ranks of held-out relevant items.

    Parameters
    ----------
    ranks : array-like of int, or sequence of array-likes of int
        A 1-D array gives one relevant item per user (leave-one-out); a
        sequence of 1-D arrays gives each user's relevant items. Ranks are
        1-based and distinct within a user.
    n_items : int or array-like of int, optional
        Catalogue size (per user or shared). Needed by AUC and by the
        true-negative count; ranks may not exceed it.

    Examples
    --------
    >>> r = from_ranks([1, 3, 10], n_items=100)
    >>> r.n_users, r.ranks().tolist()
    (3, [1.0, 3.0, 10.0])
    """
    ragged = (
        isinstance(ranks, Sequence)
        and not isinstance(ranks, (str, bytes))
        and len(ranks) > 0
        and all(isinstance(x, (Sequence, np.ndarray)) and not isinstance(x, (str, bytes)) for x in ranks)
    )
    if ragged:
        parts = [as_numeric_array(x, f"ranks[{u}]", ndim=1, allow_empty=True) for u, x in enumerate(ranks)]
        lengths = np.array([p.shape[0] for p in parts], dtype=np.int64)
        flat = np.concatenate(parts) if parts else np.zeros(0)
        n_users = len(parts)
    else:
        flat = as_numeric_array(ranks, "ranks", ndim=1)
        lengths = np.ones(flat.shape[0], dtype=np.int64)
        n_users = flat.shape[0]
    check_integers(flat, "ranks", minimum=1)
    user = np.repeat(np.arange(n_users), lengths)
    if n_items is not None:
        n_arr = check_n_items(n_items, n_users)
        over = flat > n_arr[user]
        if np.any(over):
            i = int(np.argmax(over))
            raise ValueError(
                f"ranks must be <= n_items: user {user[i]} has rank {flat[i]:g} > n_items={n_arr[user[i]]:g}"
            )
        n_ranked = n_arr
    else:
        n_arr = None
        n_ranked = np.full(n_users, np.inf)
    if ragged:
        key = user * (flat.max() + 1 if flat.size else 1) + flat
        if np.unique(key).shape[0] != key.shape[0]:
            raise ValueError("ranks of one user must be distinct (two relevant items cannot share a rank)")
    return _deterministic(user, np.ones_like(flat), flat, n_users, n_ranked, n_arr)


def from_gains(gains) -> Ranking:
    """Ranking of one user from the gains of the recommended items in ranked order.

    The items with gain > 0 are the relevant ones; the catalogue is the list
    itself, so the ideal order is the same gains sorted in decreasing order.

    Examples
    --------
    >>> r = from_gains([3, 2, 3, 0, 1, 2])
    >>> r.ranks().tolist(), r.gain.tolist()
    ([1.0, 2.0, 3.0, 5.0, 6.0], [3.0, 2.0, 3.0, 1.0, 2.0])
    """
    g = as_numeric_array(gains, "gains", ndim=1, nonnegative=True)
    pos = np.flatnonzero(g > 0)
    n = g.shape[0]
    return _deterministic(np.zeros(pos.shape[0], dtype=np.int64), g[pos], pos + 1.0, 1, [n], [n])


def _relevant_mapping(rel, name):
    """Return {item: gain > 0} from a set/list of ids or a dict of grades."""
    if isinstance(rel, Mapping):
        out = {}
        for item, grade in rel.items():
            _check_id(item, name)
            if isinstance(grade, (bool, np.bool_)) or not isinstance(grade, numbers.Real):
                raise TypeError(f"{name} grades must be numbers, got {grade!r} for item {item!r}")
            try:
                grade = float(grade)
            except OverflowError:
                raise ValueError(f"{name} has a grade too large for float64 for item {item!r}") from None
            if not np.isfinite(grade):
                raise ValueError(f"{name} has a non-finite grade {grade!r} for item {item!r}")
            if grade < 0:
                raise ValueError(f"{name} grades must be non-negative, got {grade!r} for item {item!r}")
            if grade > 0:
                out[item] = float(grade)
        return out
    if isinstance(rel, (str, bytes)) or not hasattr(rel, "__iter__"):
        raise TypeError(
            f"{name} must be a set or list of relevant item ids, or a dict item -> grade; got {type(rel).__name__}"
        )
    items = list(rel)
    if isinstance(rel, (set, frozenset)):
        for item in items:
            _check_id(item, name)
    else:
        check_unique_items(items, name)
    return {item: 1.0 for item in items}


def _check_id(item, name):
    if item is None or (isinstance(item, (float, np.floating)) and item != item):
        raise ValueError(f"{name} contains a missing item id ({item!r}); every item needs an id")


def from_lists(recommended, relevant, n_items=None) -> Ranking:
    """Ranking from ranked recommendation lists and relevant items.

    Parameters
    ----------
    recommended : sequence of sequences of hashable
        One ranked list of item ids per user (best first, no repeats).
    relevant : sequence of (set, list or dict)
        One collection of relevant item ids per user, or a dict
        ``item -> grade`` (grades >= 0; grade 0 is not relevant). Relevant
        items missing from the list count in ``|R|`` but are never retrieved.
    n_items : int or sequence of int, optional
        Catalogue size per user (or shared), for AUC and true negatives:
        unlisted items are then taken as tied below the list.

    Examples
    --------
    >>> r = from_lists([["a", "b", "x", "c"]], [{"a", "c", "z"}])
    >>> r.ranks().tolist(), r.n_relevant.tolist()
    ([1.0, 4.0, inf], [3.0])
    """
    if isinstance(recommended, (str, bytes)) or not isinstance(recommended, (Sequence, np.ndarray)):
        raise TypeError("recommended must be a sequence of ranked lists")
    if isinstance(relevant, (str, bytes)) or not isinstance(relevant, (Sequence, np.ndarray)):
        raise TypeError("relevant must be a sequence of relevant-item collections, one per user")
    n_users = len(recommended)
    if n_users == 0:
        raise ValueError("recommended is empty; at least one user is needed")
    if len(relevant) != n_users:
        raise ValueError(
            f"recommended and relevant must have one entry per user, got {n_users} and {len(relevant)}"
        )
    users, gains, ranks, n_ranked = [], [], [], np.empty(n_users)
    for u in range(n_users):  # conversion of Python objects; the metrics are vectorised
        rec = recommended[u]
        if isinstance(rec, (str, bytes)) or not isinstance(rec, (Sequence, np.ndarray)):
            raise TypeError(f"recommended[{u}] must be a ranked list of item ids, got {type(rec).__name__}")
        rec = list(rec)
        check_unique_items(rec, f"recommended[{u}]" if n_users > 1 else "recommended")
        pos = {item: i + 1 for i, item in enumerate(rec)}
        rel = _relevant_mapping(relevant[u], f"relevant[{u}]" if n_users > 1 else "relevant")
        n_ranked[u] = len(rec)
        for item, g in rel.items():
            users.append(u)
            gains.append(g)
            ranks.append(pos.get(item, np.inf))
    if n_items is not None:
        n_arr = check_n_items(n_items, n_users)
        # the catalogue holds the list and every relevant item missing from it
        unlisted_rel = np.bincount(
            np.asarray(users, dtype=np.int64), weights=np.isinf(np.asarray(ranks, dtype=float)), minlength=n_users
        )
        short = n_arr < n_ranked + unlisted_rel
        if np.any(short):
            u = int(np.argmax(short))
            raise ValueError(
                f"n_items={n_arr[u]:g} is smaller than what user {u} needs: {n_ranked[u]:g} recommended "
                f"items plus {unlisted_rel[u]:g} relevant items missing from the list"
            )
    else:
        n_arr = None
    user = np.asarray(users, dtype=np.int64)
    return _deterministic(user, np.asarray(gains, dtype=float), np.asarray(ranks, dtype=float), n_users, n_ranked, n_arr)


def _scores_matrix(x):
    """Dense, C-contiguous float32/float64 scores, checked for NaN/inf in one pass."""
    if sp.issparse(x):
        raise TypeError("y_score must be a dense array (scores for every item), got a scipy.sparse matrix")
    if isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float64):
        S = x
        if S.ndim != 2:
            raise ValueError(f"y_score must be 2-D (n_users, n_items), got an array of shape {S.shape}")
        if S.size == 0:
            raise ValueError("y_score is empty; at least one user and one item are needed")
        S = np.ascontiguousarray(S)
        bad = first_bad_value(S)
        if bad is not None:
            what = "NaN" if np.isnan(S[bad]) else "an infinite value"
            raise ValueError(f"y_score contains {what} at row {bad[0]}, column {bad[1]}")
        return S
    exact = _exact_integer_scores(x)
    if exact is not None:
        return exact
    return np.ascontiguousarray(as_numeric_array(x, "y_score", ndim=2))


def _exact_integer_scores(x):
    """Integer scores beyond 2**53 as float64 values with the same order, else None.

    Casting such integers to float64 would merge neighbours into false ties;
    replacing each value by its position among the distinct values keeps
    every comparison exact (ranks only depend on the order).
    """
    arr = x if isinstance(x, np.ndarray) else None
    if arr is None:
        try:
            arr = np.asarray(x)
        except (ValueError, OverflowError):
            return None
    if arr.dtype.kind in "iu" and arr.size:
        big = arr.max() > MAX_EXACT_INT or (arr.dtype.kind == "i" and arr.min() < -MAX_EXACT_INT)
    elif arr.dtype == object and arr.size and all(
        isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) for v in arr.ravel()
    ):
        big = any(abs(int(v)) > MAX_EXACT_INT for v in arr.ravel())
    else:
        return None
    if not big:
        return None
    if arr.ndim != 2:
        raise ValueError(f"y_score must be 2-D (n_users, n_items), got an array of shape {arr.shape}")
    _, inverse = np.unique(arr.ravel(), return_inverse=True)
    return np.ascontiguousarray(inverse.reshape(arr.shape).astype(np.float64))


class _Progress:
    """A minimal progress bar on standard error (no dependency, off by default)."""

    def __init__(self, total, enabled):
        import sys
        import time

        self.total, self.enabled, self.stream, self.clock = total, enabled, sys.stderr, time.perf_counter
        self.t0 = self.clock()

    def update(self, done):
        if self.enabled and self.total:
            frac = done / self.total
            bar = "#" * int(30 * frac)
            self.stream.write(f"\rranking users {bar:<30s} {done}/{self.total} {self.clock() - self.t0:6.1f} s")
            self.stream.flush()

    def close(self):
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def _csr_of(x, name, shape):
    """CSR structure (indptr, indices) of the nonzero/True cells of a dense or sparse matrix."""
    if sp.issparse(x):
        if x.shape != shape:
            raise ValueError(f"{name} must have the shape of y_score {shape}, got {x.shape}")
        m = _checked_sparse(x, name)
        m.sum_duplicates()
        m.eliminate_zeros()
        m.sort_indices()
        return m.indptr.astype(np.int64), m.indices.astype(np.int64), m.data
    arr = np.asarray(x)
    if arr.shape != shape:
        raise ValueError(f"{name} must have the shape of y_score {shape}, got {arr.shape}")
    rows, cols = [], []
    step = max(1, _CHUNK_CELLS // max(shape[1], 1))
    for lo in range(0, shape[0], step):  # bounded temporaries
        r, c = np.nonzero(arr[lo:lo + step])
        rows.append(r + lo)
        cols.append(c)
    r = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    c = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    indptr = np.zeros(shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=shape[0]), out=indptr[1:])
    return indptr, c.astype(np.int64), arr[r, c]


def _checked_sparse(x, name):
    """A CSR copy of a scipy.sparse matrix whose index arrays have been checked.

    A hand-built matrix can hold negative or out-of-range indices, which
    scipy does not check by default and which must never reach the compiled
    kernels (they would read outside the arrays).
    """
    try:
        if sp.issparse(x) and x.format in ("csr", "csc"):
            x.check_format(full_check=True)
        elif sp.issparse(x) and x.format == "coo":
            coords = getattr(x, "coords", None) or (x.row, x.col)
            for axis, idx in enumerate(coords):
                if idx.size and (idx.min() < 0 or idx.max() >= x.shape[axis]):
                    raise ValueError(f"index out of range on axis {axis}")
        m = sp.csr_array(x, copy=True)
        m.check_format(full_check=True)
    except ValueError as exc:
        raise ValueError(f"{name} is a malformed scipy.sparse matrix: {exc}") from None
    return m


def from_scores(y_true, y_score, *, mask=None, ties="expected", progress=False,
                retrieve_nonpositive=True) -> Ranking:
    """Ranking of every user's catalogue by score.

    Parameters
    ----------
    y_true : array-like or scipy.sparse of shape (n_users, n_items)
        Gains (relevance grades, >= 0; 0 = not relevant).
    y_score : array-like of shape (n_users, n_items)
        Scores; higher ranks first. Finite values only. float32 and float64
        arrays are used as they are, without a copy.
    mask : array-like or scipy.sparse of bool, shape (n_users, n_items), optional
        Items to exclude from the ranking (for example the training
        interactions). Excluded items are neither ranked nor relevant.
    ties : {'expected', 'optimistic', 'pessimistic', 'trec_eval'}
        How items with equal scores are ordered: ``'expected'`` averages every
        metric over all orders of tied items (exactly, McSherry & Najork,
        2008: deterministic and independent of input order);
        ``'optimistic'`` puts relevant items first within a tie (higher gain
        first); ``'pessimistic'`` puts them last (lower gain first);
        ``'trec_eval'`` breaks ties by item index, higher index first, as
        trec_eval breaks ties by document id in decreasing order.
    progress : bool, default False
        Report progress over users on standard error (for long runs).
    retrieve_nonpositive : bool, default True
        ``False`` treats every relevant item with a score ``<= 0`` as *not
        retrieved* (``start = inf``): it still counts in ``|R|`` but is never
        a hit, at any cutoff. This is torchmetrics' convention for its
        retrieval precision, recall, AP and reciprocal rank (since version
        1.7.4; not for its NDCG). Items scored ``<= 0`` sit below every item
        scored ``> 0``, so the ranks of the other relevant items do not
        change. Meant for the Top-N metrics; AUC assumes every item is
        ranked.

    Notes
    -----
    The full rank of every relevant item is found by *counting* the items
    scored above it in one pass over each row (see
    :mod:`recmetrics._kernels`), never by sorting rows: ``O(n_users * n_items)``
    time, and extra memory proportional to the number of relevant and
    excluded entries (plus bounded temporaries), whatever the number of users.

    Examples
    --------
    >>> r = from_scores([[0, 1, 1, 0]], [[0.9, 0.5, 0.5, 0.5]])
    >>> r.start.tolist(), r.size.tolist(), r.group_rel.tolist()
    ([1.0, 1.0], [3.0, 3.0], [2.0, 2.0])
    >>> from_scores([[0, 1, 1, 0]], [[0.9, 0.5, 0.5, 0.5]], ties="pessimistic").ranks().tolist()
    [3.0, 4.0]
    >>> from_scores([[1, 0, 1]], [[0.8, 0.5, 0.0]], retrieve_nonpositive=False).ranks().tolist()
    [1.0, inf]
    """
    check_choice(ties, "ties", TIE_POLICIES)
    if not isinstance(retrieve_nonpositive, (bool, np.bool_)):
        raise TypeError(f"retrieve_nonpositive must be True or False, got {retrieve_nonpositive!r}")
    S = _scores_matrix(y_score)
    shape = S.shape
    n_users, n_cols = shape
    if sp.issparse(y_true):
        t_shape = y_true.shape
    else:
        if isinstance(y_true, np.ndarray) and y_true.dtype.kind in "iufb":
            T = y_true
        else:
            T = as_numeric_array(y_true, "y_true", ndim=2)
        t_shape = T.shape
        y_true = T
    if t_shape != shape:
        raise ValueError(f"y_true and y_score must have the same shape, got {t_shape} and {shape}")
    t_ptr, rc, rg = _csr_of(y_true, "y_true", shape)
    rg = as_numeric_array(rg, "y_true", ndim=1, allow_empty=True)
    if np.any(rg < 0):
        raise ValueError(f"y_true must be non-negative (gains), found {rg[rg < 0][0]!r}")
    ru = np.repeat(np.arange(n_users), np.diff(t_ptr))
    if mask is not None:
        if not sp.issparse(mask):
            M = np.asarray(mask)
            if M.dtype != bool and (M.dtype.kind not in "iuf" or not np.isin(M, (0, 1)).all()):
                raise TypeError("mask must be boolean (True = exclude the item)")
            mask = M
        m_ptr, m_idx, _ = _csr_of(mask, "mask", shape)
        n_items = (n_cols - np.diff(m_ptr)).astype(np.float64)
        m_users = np.repeat(np.arange(n_users), np.diff(m_ptr))
        # both key lists are sorted (row-major CSR order): a binary search suffices
        m_keys = m_users * n_cols + m_idx
        r_keys = ru * n_cols + rc
        pos = np.minimum(np.searchsorted(m_keys, r_keys), max(m_keys.shape[0] - 1, 0))
        keep = ~((m_keys.shape[0] > 0) & (m_keys[pos] == r_keys)) if m_keys.shape[0] else np.ones(r_keys.shape[0], bool)
        ru, rc, rg = ru[keep], rc[keep], rg[keep]
    else:
        m_ptr = m_idx = None
        n_items = np.full(n_users, float(n_cols))
    keep = rg > 0
    ru, rc, rg = ru[keep], rc[keep], rg[keep]
    nnz = ru.shape[0]
    counts = np.bincount(ru, minlength=n_users)
    rows = np.flatnonzero(counts).astype(np.int64)
    row_ptr = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts[rows], out=row_ptr[1:])
    greater = np.empty(nnz)
    equal = np.empty(nnz)
    eq_after = np.empty(nnz)
    rc64 = rc.astype(np.int64)
    step = max(1, _CHUNK_CELLS // max(n_cols, 1)) if progress else rows.shape[0] or 1
    report = _Progress(rows.shape[0], enabled=progress)
    for lo in range(0, rows.shape[0], step):  # chunks of users only to report progress
        hi = min(rows.shape[0], lo + step)
        a, b = row_ptr[lo], row_ptr[hi]
        g, e, aft = count_above(S, rows[lo:hi], row_ptr[lo:hi + 1] - a, rc64[a:b], m_ptr, m_idx,
                                want_after=ties == "trec_eval")
        greater[a:b], equal[a:b], eq_after[a:b] = g, e, aft
        report.update(hi)
    report.close()
    s = S[ru, rc].astype(np.float64)
    n_ranked = n_items
    # relevant items scored <= 0 are not retrieved when asked (torchmetrics);
    # they sit below every positive score, so no other rank changes
    dropped = np.zeros(nnz, dtype=bool) if retrieve_nonpositive else s <= 0
    if ties == "expected":
        # relevant items strictly above / tied, from the relevant entries alone
        order = np.lexsort((-s, ru))
        su, ss = ru[order], s[order]
        new_user = np.r_[True, su[1:] != su[:-1]]
        new_val = new_user | np.r_[True, ss[1:] != ss[:-1]]
        grp = np.cumsum(new_val) - 1
        grp_first = np.flatnonzero(new_val)
        user_first = np.searchsorted(su, su, side="left")
        c_sorted = np.bincount(grp)[grp]
        h_sorted = grp_first[grp] - user_first
        group_rel = np.empty(nnz)
        rel_before = np.empty(nnz)
        group_rel[order] = c_sorted
        rel_before[order] = h_sorted
        start = np.where(dropped, np.inf, greater)
        return _from_entries(ru, rg, start, equal, group_rel, rel_before, n_users, n_ranked, n_items, ties)
    # deterministic policies: exact rank within the tie group
    if ties == "trec_eval":
        # tied relevant items with a higher column index come first too
        rank = greater + eq_after + 1.0
    else:
        # position among the tied relevant items, by gain
        sign = -1.0 if ties == "optimistic" else 1.0
        order = np.lexsort((rc, sign * rg, -s, ru))
        su, ss = ru[order], s[order]
        new_grp = np.r_[True, (su[1:] != su[:-1]) | (ss[1:] != ss[:-1])]
        first = np.flatnonzero(new_grp)[np.cumsum(new_grp) - 1]
        idx_sorted = np.arange(nnz) - first
        within = np.empty(nnz)
        within[order] = idx_sorted
        if ties == "optimistic":
            rank = greater + within + 1.0
        else:
            c = np.bincount(np.cumsum(new_grp) - 1)[np.cumsum(new_grp) - 1]
            c_orig = np.empty(nnz)
            c_orig[order] = c
            rank = greater + (equal - c_orig) + within + 1.0
    rank = np.where(dropped, np.inf, rank)
    return _deterministic(ru, rg, rank, n_users, n_ranked, n_items, ties)


# --------------------------------------------------------------------------
# dispatch used by every public metric: the *type* of each argument decides
# what it means, never its values
def _is_listlike(x) -> bool:
    return isinstance(x, (Sequence, np.ndarray)) and not isinstance(x, (str, bytes))


def _is_relevant_collection(x) -> bool:
    return isinstance(x, (set, frozenset, Mapping))


def input_form(a=None, b=None, ranks=None) -> str:
    """Which input form the arguments are, by their types alone.

    One of ``'ranks'``, ``'ranking'``, ``'gains'``, ``'lists'`` (ranked item
    ids with sets/dicts of relevant items) and ``'scores'`` (``y_true``,
    ``y_score``); see :func:`as_ranking`.
    """
    if ranks is not None:
        return "ranks"
    if isinstance(a, Ranking):
        return "ranking"
    if b is None:
        return "gains"
    if _is_relevant_collection(b) or (
        _is_listlike(b) and not isinstance(b, np.ndarray) and len(b) > 0
        and any(_is_relevant_collection(x) for x in b)
    ):
        return "lists"
    return "scores"


def _check_not_given(name, value, why):
    if value is not None:
        raise TypeError(f"{name} does not apply here: {why}")


def as_ranking(a=None, b=None, *, ranks=None, n_items=None, mask=None, ties=None, progress=False):
    """Convert any accepted input form to ``(Ranking, single_user)``.

    ``single_user`` tells the caller to return a float rather than a mean over
    users. What the arguments mean is decided by their *types* alone:

    * ``ranks=...``: ranks of held-out relevant items (:func:`from_ranks`);
    * a :class:`Ranking`: used as it is;
    * one argument: a single list of gains in ranked order (:func:`from_gains`);
    * a second argument that is a ``set``, ``frozenset`` or ``dict`` (or a
      list of them, one per user): ranked item ids and relevant items
      (:func:`from_lists`);
    * any other pair of array-likes: ``(y_true, y_score)``, as in
      scikit-learn (:func:`from_scores`); 1-D arrays are one user, 2-D arrays
      (or a scipy.sparse ``y_true``) are ``(n_users, n_items)``.

    Keywords that do not apply to the input form raise ``TypeError``:
    ``mask`` needs score matrices, ``n_items`` ranked lists or ranks, and a
    prebuilt :class:`Ranking` takes none of them (its ties are already
    resolved: ``ties`` must be left out or equal the policy it was built
    with). ``ties=None`` means ``'expected'``.
    """
    if ties is not None:
        check_choice(ties, "ties", TIE_POLICIES)
    if isinstance(a, Ranking):
        if b is not None or ranks is not None:
            raise TypeError("pass either a Ranking or raw inputs, not both")
        _check_not_given("mask", mask, "a prebuilt Ranking has its excluded items removed already")
        _check_not_given("n_items", n_items, "a prebuilt Ranking has its catalogue size already")
        if ties is not None and a.ties is not None and ties != a.ties:
            raise ValueError(
                f"this Ranking was built with ties={a.ties!r}; ties={ties!r} cannot change it "
                "(build the ranking again from the scores with the policy you want)"
            )
        return a, False
    ties = "expected" if ties is None else ties
    if ranks is not None:
        if a is not None or b is not None:
            raise TypeError("pass either ranks= or (y_true, y_score) / (recommended, relevant), not both")
        _check_not_given("mask", mask, "ranks are already computed without the excluded items")
        return from_ranks(ranks, n_items=n_items), False
    if a is None:
        raise TypeError("no input given: pass gains, (recommended, relevant), (y_true, y_score) or ranks=")
    if b is None:
        if sp.issparse(a) or (_is_listlike(a) and len(a) > 0 and _is_listlike(a[0])) or (
            isinstance(a, np.ndarray) and a.ndim == 2
        ):
            raise TypeError("y_score is missing: a 2-D y_true needs a score matrix of the same shape")
        _check_not_given("mask", mask, "a list of gains has no excluded items (mask needs score matrices)")
        _check_not_given("n_items", n_items, "a list of gains is its own catalogue")
        return from_gains(a), True
    if _is_relevant_collection(b):
        # one user's ranked list and set/dict of relevant items
        _check_not_given("mask", mask, "mask needs score matrices; remove excluded items from the list")
        if not _is_listlike(a):
            raise TypeError(
                f"recommended must be an ordered sequence of item ids (best first), got {type(a).__name__}"
            )
        return from_lists([a], [b], n_items=n_items), True
    if _is_listlike(b) and not isinstance(b, np.ndarray) and len(b) > 0 and any(
        _is_relevant_collection(x) for x in b
    ):
        bad = next((i for i, x in enumerate(b) if not _is_relevant_collection(x)), None)
        if bad is not None:
            raise TypeError(
                "relevant must hold one set or dict of relevant items per user; "
                f"relevant[{bad}] is a {type(b[bad]).__name__}"
            )
        _check_not_given("mask", mask, "mask needs score matrices; remove excluded items from the lists")
        if not _is_listlike(a):
            raise TypeError(f"recommended must be a sequence of ranked lists, got {type(a).__name__}")
        return from_lists(a, b, n_items=n_items), False
    # any other pair: y_true and y_score, as in scikit-learn
    _check_not_given(
        "n_items", n_items,
        "with (y_true, y_score) the catalogue is the columns of the matrices (use mask= to exclude items)",
    )
    if sp.issparse(b):
        raise TypeError("y_score must be a dense array (scores for every item), got a scipy.sparse matrix")
    if not sp.issparse(a) and not _is_listlike(a):
        raise TypeError(
            f"y_true must be an array-like of gains (or the ranked list of a (recommended, relevant) pair "
            f"whose relevant items are a set or dict), got {type(a).__name__}"
        )
    if not _is_listlike(b):
        raise TypeError(
            "the second argument must be y_score (an array-like of scores), a set or dict of relevant "
            f"items, or a list of them; got {type(b).__name__}"
        )
    one_user = not sp.issparse(a) and _ndim(a, "y_true") == 1
    if not sp.issparse(a) and np.shape(a) != np.shape(b):
        raise ValueError(
            f"y_true and y_score must have the same shape, got {np.shape(a)} and {np.shape(b)}" + _IDS_HINT
        )
    if one_user:
        if _ndim(b, "y_score") != 1:
            raise ValueError("y_true is 1-D (one user) but y_score is not; give both as 1-D or both as 2-D")
        if mask is not None:
            mask = _as_row(mask, "mask")
        return from_scores(_as_row(a, "y_true"), _as_row(b, "y_score"), mask=mask, ties=ties,
                           progress=progress), True
    return from_scores(a, b, mask=mask, ties=ties, progress=progress), False


_IDS_HINT = (
    " (for ranked lists of item ids, pass each user's relevant items as a set or dict: "
    "two sequences are read as y_true and y_score)"
)


def _ndim(x, name):
    """Number of dimensions of an array-like, with a clear error for ragged or non-numeric input."""
    if isinstance(x, np.ndarray):
        arr = x
    else:
        try:
            arr = np.asarray(x)
        except ValueError:
            raise ValueError(f"{name} must be a rectangular array of numbers, got a ragged sequence"
                             + _IDS_HINT) from None
    if arr.dtype == object:
        if arr.ndim >= 1 and arr.size and any(_is_listlike(v) for v in arr.ravel()[:1]):
            raise ValueError(f"{name} must be a rectangular array of numbers, got a ragged sequence"
                             + _IDS_HINT)
    elif arr.dtype.kind not in "iufb":
        raise TypeError(f"{name} must contain numbers, got dtype {arr.dtype}" + _IDS_HINT)
    if arr.size == 0:
        raise ValueError(f"{name} is empty; at least one user and one item are needed")
    return arr.ndim


def _as_row(x, name):
    """One user's 1-D array-like as a one-row matrix (keeping integer and float dtypes)."""
    arr = x if isinstance(x, np.ndarray) else np.asarray(x)
    if arr.dtype.kind in "iuf":
        return arr.reshape(1, -1)
    if name == "mask":
        return arr.reshape(1, -1)
    return as_numeric_array(x, name, ndim=1).reshape(1, -1)


# --------------------------------------------------------------------------
# shared machinery of the metric functions
NO_RELEVANT_POLICIES = ("zero", "skip", "raise", "one")


def prefix_table(f, upto: int) -> np.ndarray:
    """``F[x] = sum_{i=1}^{x} f(i)`` for ``x = 0 .. upto`` (``F[0] = 0``)."""
    upto = int(upto)
    table = np.zeros(upto + 1)
    if upto > 0:
        np.cumsum(f(np.arange(1, upto + 1, dtype=np.float64)), out=table[1:])
    return table


def window(r: Ranking, k):
    """Positions of each entry's tie group that fall within the cutoff.

    Returns integer arrays ``lo, hi`` with the group's positions inside the
    top ``k`` being ``lo + 1 .. hi`` (empty when ``hi == lo``); unranked
    entries get ``lo = hi = 0``.
    """
    ranked = np.isfinite(r.start)
    if k is None:
        kk = np.inf
    elif np.ndim(k) == 1:  # one cutoff per user
        kk = np.asarray(k, dtype=np.float64)[r.user]
    else:
        kk = float(k)
    lo = np.where(ranked, np.minimum(r.start, kk), 0.0)
    hi = np.where(ranked, np.minimum(r.start + r.size, kk), 0.0)
    return lo.astype(np.int64), hi.astype(np.int64)


def expected_sum(r: Ranking, k, f, weights=None) -> np.ndarray:
    """Per user: expected value of ``sum over relevant items of w * f(pos) * [pos <= k]``.

    Each relevant item is uniformly distributed over the positions of its tie
    group, so its expected ``f(pos)`` within the cutoff is the sum of ``f``
    over the group's positions inside the cutoff, divided by the group size.
    """
    lo, hi = window(r, k)
    return r.per_user_sum(group_mean(f, lo, hi, r.size) * (1.0 if weights is None else weights))


def group_mean(f, lo, hi, size):
    """``sum_{i=lo+1}^{hi} f(i) / size`` per entry, for integer arrays ``lo <= hi``.

    Untied entries (``size == 1``) evaluate ``f`` at their position directly;
    tie groups use differences of a prefix table built only as long as the
    longest tied window needs, so neither precision nor memory depends on how
    deep the untied items sit.
    """
    out = np.zeros(lo.shape[0])
    single = (size == 1) & (hi > lo)
    if np.any(single):
        out[single] = f(hi[single].astype(np.float64))
    tied = (size > 1) & (hi > lo)
    if np.any(tied):
        table = prefix_table(f, hi[tied].max())
        out[tied] = (table[hi[tied]] - table[lo[tied]]) / size[tied]
    return out


def hits(r: Ranking, k) -> np.ndarray:
    """Expected number of relevant items within the top ``k``, per user."""
    lo, hi = window(r, k)
    return r.per_user_sum((hi - lo) / r.size)


def finish(values, r: Ranking, single: bool, *, no_relevant: str, per_user: bool, defined=None):
    """Apply the no-relevant-items policy, then average over users (or not).

    ``defined`` marks users for which the metric is defined (default: users
    with at least one relevant item); the others get 0 (``'zero'``), are
    left out (``'skip'``: NaN per user), raise (``'raise'``), or get 1
    (``'one'``: scikit-learn's ``label_ranking_average_precision_score``,
    torchmetrics' ``empty_target_action='pos'``).
    """
    check_choice(no_relevant, "no_relevant", NO_RELEVANT_POLICIES)
    per_user = check_bool(per_user, "per_user")
    values = np.asarray(values, dtype=np.float64).copy()
    if defined is None:
        defined = r.n_relevant > 0
    if not np.all(defined):
        if no_relevant == "raise":
            u = int(np.argmin(defined))
            raise ValueError(
                f"user {u} has no relevant item (or the metric is undefined for it); "
                "pass no_relevant='zero' or 'skip' to allow this"
            )
        values[~defined] = {"zero": 0.0, "one": 1.0}.get(no_relevant, np.nan)
    if single:
        return float(values[0])
    if per_user:
        return values
    if no_relevant == "skip":
        if not np.any(defined):
            return float("nan")
        return float(np.mean(values[defined]))
    return float(np.mean(values))
