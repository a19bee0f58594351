"""Rankings from score matrices: each relevant item's rank, found by counting (to a depth)."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from tqdm import tqdm

from .._docs import fill_doc
from .._kernels import (
    CHUNK_CELLS,
    count_above,
    dense_nonzero,
    first_bad_value,
    runs_of_equal,
    tie_groups,
)
from .._kernels._entries import expected_entries
from .._validation import (
    MAX_EXACT_INT,
    as_numeric_array,
    check_bool,
    check_choice,
    check_k,
)
from ._representation import TIE_POLICIES, Ranking, _deterministic, _from_entries


def _scores_matrix(x, check_finite=True):
    """Dense, C-contiguous float32/float64 scores, checked for NaN/inf in one pass.

    ``check_finite=False`` leaves the check of a float array to the caller
    (``from_scores`` does it in the counting sweeps, without a pass of its own).
    """
    if sp.issparse(x):
        raise TypeError(
            "y_score must be a dense array (scores for every item), got a scipy.sparse matrix"
        )
    if isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float64):
        S = x
        if S.ndim != 2:
            raise ValueError(
                f"y_score must be 2-D (n_users, n_items), got an array of shape {S.shape}"
            )
        if S.size == 0:
            raise ValueError("y_score is empty; at least one user and one item are needed")
        S = np.ascontiguousarray(S)
        if check_finite:
            _raise_if_bad(S, first_bad_value(S))
        return S
    exact = _exact_integer_scores(x)
    if exact is not None:
        return exact
    return np.ascontiguousarray(as_numeric_array(x, "y_score", ndim=2))


def _raise_if_bad(S, bad):
    """The error for the first NaN or infinite score at ``bad = (row, col)``, if any."""
    if bad is not None:
        what = "NaN" if np.isnan(S[bad]) else "an infinite value"
        raise ValueError(f"y_score contains {what} at row {bad[0]}, column {bad[1]}")


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
    elif (
        arr.dtype == object
        and arr.size
        and all(
            isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
            for v in arr.ravel()
        )
    ):
        big = any(abs(int(v)) > MAX_EXACT_INT for v in arr.ravel())
    else:
        return None
    if not big:
        return None
    if arr.ndim != 2:
        raise ValueError(
            f"y_score must be 2-D (n_users, n_items), got an array of shape {arr.shape}"
        )
    _, inverse = np.unique(arr.ravel(), return_inverse=True)
    return np.ascontiguousarray(inverse.reshape(arr.shape).astype(np.float64))


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
    fast = dense_nonzero(arr)  # compiled, at memory speed
    if fast is not None:
        return fast
    rows, cols = [], []
    step = max(1, CHUNK_CELLS // max(shape[1], 1))
    for lo in range(0, shape[0], step):  # bounded temporaries
        r, c = np.nonzero(arr[lo : lo + step])
        rows.append(r + lo)
        cols.append(c)
    r = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    c = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    indptr = np.zeros(shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=shape[0]), out=indptr[1:])
    return indptr, c.astype(np.int64), arr[r, c]


def _checked_sparse(x, name, copy=True):
    """A CSR copy of a scipy.sparse matrix whose index arrays have been checked.

    A hand-built matrix can hold negative or out-of-range indices, which
    scipy does not check by default and which must never reach the compiled
    kernels (they would read outside the arrays). ``copy=False`` returns a
    CSR input itself (checked), for a caller that only reads or slices it.
    """
    try:
        if sp.issparse(x) and x.format in ("csr", "csc"):
            x.check_format(full_check=True)
        elif sp.issparse(x) and x.format == "coo":
            coords = getattr(x, "coords", None) or (x.row, x.col)
            for axis, idx in enumerate(coords):
                if idx.size and (idx.min() < 0 or idx.max() >= x.shape[axis]):
                    raise ValueError(f"index out of range on axis {axis}")
        m = sp.csr_array(x, copy=copy)
        m.check_format(full_check=True)
    except ValueError as exc:
        raise ValueError(f"{name} is a malformed scipy.sparse matrix: {exc}") from None
    return m


@fill_doc
def from_scores(
    y_true,
    y_score,
    *,
    mask=None,
    ties="expected",
    progress=False,
    retrieve_nonpositive=True,
    depth=None,
) -> Ranking:
    """Ranking of every user's catalogue by score.

    For a relevant item ``i`` of user ``u`` (gain ``y_true[u, i] > 0``) with
    score ``s_i``, among the items of the row that are not masked:

    .. math::

        start_i = |\\{j : s_j > s_i\\}|, \\qquad size_i = |\\{j : s_j = s_i\\}|

    under ``ties='expected'``; a deterministic policy orders each tie group
    and gives every item a group of its own.

    Parameters
    ----------
    y_true : array-like or scipy.sparse of shape (n_users, n_items)
        Gains (relevance grades, >= 0; 0 = not relevant).
    y_score : array-like of shape (n_users, n_items)
        Scores; higher ranks first. Finite values only. C-ordered float32
        and float64 arrays are used as they are, without a copy; other
        arrays are copied (as float64, or into C order). Integer scores
        beyond 2**53, which float64 cannot tell apart, are replaced by
        their positions among the distinct values (a sort of the whole
        matrix, with temporaries of several times its size), so that they
        are compared exactly.
    mask : array-like or scipy.sparse of bool, shape (n_users, n_items), optional
        Items to exclude from the ranking (for example the training
        interactions). Excluded items are neither ranked nor relevant.
    ties : {'expected', 'optimistic', 'pessimistic', 'trec_eval'}, default 'expected'
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
    depth : int, optional
        Build the ranking for metrics cut at ``k <= depth`` only. The
        relevant items are then counted in decreasing order of score, and
        counting stops at the first one with ``depth`` or more items scored
        at least as high (ties kept together): every item below it is
        stored as not ranked (``start = inf``), which changes no metric cut
        at ``k <= depth``. With the relevant items spread over a long
        ranking this is about one pass over the scores instead of one sweep
        per four relevant items; rows shorter than 512 items are counted in
        full. Metrics with a larger cutoff or none (AUC,
        MAP, MRR without ``k``) and :meth:`Ranking.ranks` then raise.
        :func:`recmetrics.evaluate` sets it to the largest cutoff asked
        when every metric has one.

    Returns
    -------
    Ranking
        One user per row; ``n_items = n_ranked`` is the row length minus the
        excluded items, ``ties`` the policy used and ``depth`` as given.

    See Also
    --------
    Ranking : The representation.
    from_lists : From ranked lists of item ids.
    recmetrics.evaluate : Ranks once and evaluates several metrics.

    Notes
    -----
    The full rank of every relevant item is found by *counting* the items
    scored above it in one pass over each row (see
    :mod:`recmetrics._kernels`), never by sorting rows: ``O(n_users * n_items)``
    time, and extra memory proportional to the number of relevant and
    excluded entries (plus bounded temporaries), whatever the number of users.
    Each sweep of a row counts for four relevant items at a time; with
    ``depth`` the sweeps stop as soon as the relevant items left cannot reach
    it, usually after one.

    References
    ----------
    %(ref_mcsherry2008)s

    %(ref_trec_eval)s

    %(ref_pedregosa2011)s

    Examples
    --------
    >>> r = from_scores([[0, 1, 1, 0]], [[0.9, 0.5, 0.5, 0.5]])
    >>> r.start.tolist(), r.size.tolist(), r.group_rel.tolist()
    ([1.0, 1.0], [3.0, 3.0], [2.0, 2.0])
    >>> from_scores([[0, 1, 1, 0]], [[0.9, 0.5, 0.5, 0.5]], ties="pessimistic").ranks().tolist()
    [3.0, 4.0]
    >>> from_scores([[1, 0, 1]], [[0.8, 0.5, 0.0]], retrieve_nonpositive=False).ranks().tolist()
    [1.0, inf]

    For metrics cut at 2 or less, the relevant items below position 2 need not
    be placed once the one at position 2 is (in rows of 512 items or more:
    shorter rows are counted in full, which costs less than sorting first):

    >>> import numpy as np
    >>> from recmetrics import precision
    >>> y, s = np.zeros((1, 1000)), np.linspace(1.0, 0.0, 1000)[None, :]   # best first
    >>> y[0, [1, 3, 700]] = 1
    >>> r = from_scores(y, s, depth=2)
    >>> r.start.tolist(), precision(r, k=2)
    ([1.0, inf, inf], 0.5)
    """
    check_choice(ties, "ties", TIE_POLICIES)
    depth = check_k(depth, "depth", allow_none=True)
    progress = check_bool(progress, "progress")
    if not isinstance(retrieve_nonpositive, (bool, np.bool_)):
        raise TypeError(f"retrieve_nonpositive must be True or False, got {retrieve_nonpositive!r}")
    # NaN and infinite scores are found in the counting sweeps below
    S = _scores_matrix(y_score, check_finite=False)
    shape = S.shape
    n_users, n_cols = shape
    if sp.issparse(y_true):
        t_shape = y_true.shape
    else:
        if isinstance(y_true, np.ndarray) and y_true.dtype.kind in "iufb":
            T = y_true
        else:
            T = as_numeric_array(y_true, "y_true", ndim=2, allow_bool=True)
        t_shape = T.shape
        y_true = T
    if t_shape != shape:
        raise ValueError(f"y_true and y_score must have the same shape, got {t_shape} and {shape}")
    t_ptr, rc, rg = _csr_of(y_true, "y_true", shape)
    rg = as_numeric_array(rg, "y_true", ndim=1, allow_empty=True, allow_bool=True)
    if np.any(rg < 0):
        raise ValueError(f"y_true must be non-negative (gains), found {rg[rg < 0][0]!r}")
    ru = np.repeat(np.arange(n_users), np.diff(t_ptr))
    if mask is not None:
        numeric = False
        if not sp.issparse(mask):
            M = np.asarray(mask)
            if M.dtype != bool and M.dtype.kind not in "iuf":
                raise TypeError("mask must be boolean (True = exclude the item)")
            numeric = M.dtype != bool
            mask = M
        m_ptr, m_idx, m_val = _csr_of(mask, "mask", shape)
        # a mask of numbers must hold only 0 and 1: its nonzero cells must be 1
        # (checked on the nonzero cells alone, with no temporary of the matrix's size)
        if numeric and np.any(m_val != 1):
            raise TypeError("mask must be boolean (True = exclude the item)")
        n_items = (n_cols - np.diff(m_ptr)).astype(np.float64)
        m_users = np.repeat(np.arange(n_users), np.diff(m_ptr))
        # both key lists are sorted (row-major CSR order): a binary search suffices
        m_keys = m_users * n_cols + m_idx
        r_keys = ru * n_cols + rc
        pos = np.minimum(np.searchsorted(m_keys, r_keys), max(m_keys.shape[0] - 1, 0))
        keep = (
            ~((m_keys.shape[0] > 0) & (m_keys[pos] == r_keys))
            if m_keys.shape[0]
            else np.ones(r_keys.shape[0], bool)
        )
        ru, rc, rg = ru[keep], rc[keep], rg[keep]
    else:
        m_ptr = m_idx = None
        n_items = np.full(n_users, float(n_cols))
    keep = rg > 0
    if keep.all() and ru.shape[0] == t_ptr[-1]:  # nothing dropped: the pointers hold
        row_ptr = np.asarray(t_ptr, dtype=np.int64)
    else:
        ru, rc, rg = ru[keep], rc[keep], rg[keep]
        row_ptr = np.zeros(n_users + 1, dtype=np.int64)
        np.cumsum(np.bincount(ru, minlength=n_users), out=row_ptr[1:])
    # entries of user u: row_ptr[u]:row_ptr[u+1]
    nnz = ru.shape[0]
    # a depth at or beyond the row leaves nothing out (and may not fit the kernel's int64)
    counted_depth = depth if depth is not None and depth < n_cols else 0
    greater = np.empty(nnz)
    equal = np.empty(nnz)
    eq_after = np.empty(nnz)
    rc64 = rc.astype(np.int64)
    step = max(1, CHUNK_CELLS // max(n_cols, 1)) if progress else n_users
    with tqdm(total=n_users, disable=not progress, desc="ranking users", unit="user") as bar:
        for lo in range(0, n_users, step):  # chunks of users only to report progress
            hi = min(n_users, lo + step)
            a, b = row_ptr[lo], row_ptr[hi]
            g, e, aft, bad = count_above(
                S[lo:hi],
                row_ptr[lo : hi + 1] - a,
                rc64[a:b],
                None if m_ptr is None else m_ptr[lo : hi + 1],
                m_idx,
                want_after=ties == "trec_eval",
                check=True,
                depth=counted_depth,
            )
            if bad.any():
                u = lo + int(np.argmax(bad))
                _raise_if_bad(S, (u, int(np.argmax(~np.isfinite(S[u])))))
            greater[a:b], equal[a:b], eq_after[a:b] = g, e, aft
            bar.update(hi - lo)
    # the relevant entries' scores: under ties='expected', with every entry
    # retrieved, the counts alone order and group them (no gather from S)
    s = None
    if ties != "expected" or not retrieve_nonpositive:
        s = np.take(S, ru * n_cols + rc).astype(np.float64, copy=False)  # S is C-contiguous
    # relevant items scored <= 0 are not retrieved when asked (torchmetrics);
    # they sit below every positive score, so no other rank changes
    dropped = np.zeros(nnz, dtype=bool) if retrieve_nonpositive else s <= 0
    # entries the counting left out (``depth``): below the top ``depth``
    deep = greater < 0
    if deep.any():
        greater[deep] = n_cols  # after every counted entry, in its own group
    return _entries_from_counts(
        ru=ru,
        rc=rc,
        rg=rg,
        s=s,
        greater=greater,
        equal=equal,
        eq_after=eq_after,
        ties=ties,
        dropped=dropped,
        n_users=n_users,
        n_ranked=n_items,
        n_items=n_items,
        row_ptr=row_ptr,
        deep=deep,
        depth=depth,
    )


def _entries_from_counts(
    *,
    ru,
    rc,
    rg,
    s,
    greater,
    equal,
    eq_after,
    ties,
    dropped,
    n_users,
    n_ranked,
    n_items,
    row_ptr=None,
    deep=None,
    depth=None,
):
    """The Ranking of relevant entries from their counts in their user's ranking.

    Shared by score matrices and long data frames. For each relevant entry:
    its user ``ru``, item position ``rc`` (tie-break order among tied relevant
    items), gain ``rg`` and score ``s`` (``None`` under ``ties='expected'``
    when no entry is dropped and the entries come grouped by user: the
    counts then order them); the number of the user's ranked
    items scored higher (``greater``), equal (``equal``, itself included) and
    equal with a later position in trec_eval's order (``eq_after``);
    ``dropped`` entries are relevant but not ranked (``start = inf``).
    ``row_ptr``, when given, says that the entries come grouped by user,
    those of user ``u`` at ``row_ptr[u]:row_ptr[u + 1]``. ``deep`` entries
    (with ``depth``) have ``depth`` or more items above them and were not
    counted: they are stored as not ranked, after every counted entry of
    their user (their ``greater`` is larger than any count).
    """
    nnz = ru.shape[0]
    unranked = dropped if deep is None else dropped | deep
    if ties == "expected":
        return _expected_entries(
            ru, rg, s, greater, equal, dropped, unranked, n_users, n_ranked, n_items, row_ptr,
            deep, depth,
        )  # fmt: skip
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
    rank = np.where(unranked, np.inf, rank)
    return _deterministic(ru, rg, rank, n_users, n_ranked, n_items, ties, depth=depth)


def _only_unscored_dropped(s, dropped):
    """Whether the dropped entries are exactly those scored ``-inf``, and every other is finite.

    ``s[dropped]`` all ``-inf`` and ``s[~dropped]`` all finite, in two
    reductions and one boolean temporary, without copying either part of
    ``s`` (``np.max`` is NaN when ``s`` holds one).
    """
    return np.array_equal(s == -np.inf, dropped) and bool(np.max(s) < np.inf)


def _expected_entries(
    ru, rg, s, greater, equal, dropped, unranked, n_users, n_ranked, n_items, row_ptr, deep, depth
):
    """``_entries_from_counts`` under ``ties='expected'``: tie groups of the relevant entries.

    Relevant items strictly above / tied, from the relevant entries alone.
    Within a user, decreasing score is increasing start (the items above):
    when the entries come grouped by user and none is dropped, one order
    within the users serves both the tie groups here and the Ranking's
    (user, start) order, with no global sort; the tied relevant items are
    those with equal counts above them (equal scores). The compiled
    :func:`~recmetrics._kernels._entries.expected_entries` writes the
    Ranking's arrays in that order in one pass; without it they are
    gathered once, in that order, straight from the inputs (the starts of
    unranked entries set to ``inf`` after the gather), with the same values.
    Entries not grouped by user (a truth frame in any row order) go to the
    kernel too, with their users: it groups them by one counting pass,
    keeping their input order within a user, which is the order of the
    general path (``np.lexsort`` by user and score, then by user and start:
    two global sorts), the path taken without the kernel.
    """
    nnz = ru.shape[0]
    grouped = row_ptr is not None or not (nnz and np.any(ru[1:] < ru[:-1]))
    if row_ptr is None:
        row_ptr = np.zeros(n_users + 1, dtype=np.int64)
        np.cumsum(np.bincount(ru, minlength=n_users), out=row_ptr[1:])
    fill = None  # the key of a dropped entry: none is dropped
    countable = True  # whether the counts order and group the entries as -s does
    if dropped.any():
        # entries dropped only for want of a score (``s = -inf``, below
        # every scored one) are one run after the scored ones: counting
        # them in that run orders and groups them as sorting ``-s`` does
        countable = deep is None and _only_unscored_dropped(s, dropped)
        if countable:
            fill = np.max(greater, initial=0.0) + 1.0
    rows = None
    if countable and (grouped or deep is None):
        # the compiled kernel writes the five arrays in place (entries not
        # grouped by user: grouped first, by a counting pass, not a sort)
        rows = expected_entries(
            row_ptr, greater, dropped, 0.0 if fill is None else fill, unranked, rg, equal,
            user=None if grouped else ru,
        )  # fmt: skip
    if rows is None and not (grouped and countable):
        order = np.lexsort((-s, ru))
        group_rel, rel_before = runs_of_equal(ru, s, order, row_ptr)
        start = np.where(unranked, np.inf, greater)
        return _from_entries(
            ru, rg, start, equal, group_rel, rel_before, n_users, n_ranked, n_items,
            "expected", depth=depth,
        )  # fmt: skip
    if rows is None:  # tie groups, then one gather of each array
        key = greater if fill is None else np.where(dropped, fill, greater)
        order, group_rel, rel_before = tie_groups(row_ptr, key)
        f = lambda x: np.asarray(x, dtype=np.float64)[order]  # noqa: E731
        start = f(key)  # key = greater, but where the entry is not ranked
        if unranked.any():
            start[unranked[order]] = np.inf
        rows = f(rg), start, f(equal), group_rel[order], rel_before[order]
    gain, start, size, group_rel, rel_before = rows
    return Ranking(
        indptr=row_ptr,
        gain=gain,
        start=start,
        size=size,
        group_rel=group_rel,
        rel_before=rel_before,
        n_ranked=np.asarray(n_ranked, dtype=np.float64),
        n_items=None if n_items is None else np.asarray(n_items, dtype=np.float64),
        ties="expected",
        depth=depth,
    )
