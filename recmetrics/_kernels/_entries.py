"""The arrays of a Ranking under ``ties='expected'``, written in one pass per row.

:func:`expected_entries` does what :func:`~recmetrics._kernels.tie_groups`
followed by gathering every per-entry array in its order does (the tie
groups of the relevant entries of score matrices and long data frames), but
writes each entry's gain, start, tie-group size, relevant items in its group
and relevant items above it straight to its place in the row's sorted
order: no order array, no per-entry temporaries in the input order, and no
gather afterwards (with 5 million entries, six arrays of 40 MB fewer).
``None`` when the compiled kernel is not to be used (no numba; a small
input while the kernel is not compiled; a key it cannot sort exactly): the
caller then takes the NumPy path, with the same results bit for bit.
"""

from __future__ import annotations

import numpy as np

from ._dispatch import HAVE_NUMBA, _compiled, _parallel, numba

if HAVE_NUMBA:
    from ._sort import _heapsort

    @numba.njit(cache=True, nogil=True)
    def _key(i, greater, dropped, fill):  # pragma: no cover
        # the sort key: the count above, or ``fill`` (after every count) where dropped
        return fill if dropped[i] else greater[i]

    @numba.njit(cache=True, nogil=True)
    def _place(dst, src, run, before, ki, unranked, gain, equal, out):  # pragma: no cover
        # entry ``src`` (key ``ki``) of the input goes to place ``dst`` of the Ranking
        out[0][dst] = gain[src]
        out[1][dst] = np.inf if unranked[src] else ki
        out[2][dst] = equal[src]
        out[3][dst] = run
        out[4][dst] = before

    @numba.njit(parallel=True, cache=True)
    def _expected_rows(
        row_ptr, perm, greater, dropped, fill, unranked, gain, equal, out
    ):  # pragma: no cover
        # per row, the order of tie_groups (stable by key): rows of 64
        # entries or fewer are counted (an entry's place is the number of
        # smaller keys plus the equal keys ahead of it), longer rows heap
        # sorted by ``key * m + position`` (exact: the caller checks that it
        # stays below 2**52), then one scan of the runs of equal keys. The
        # entry at position ``t`` of a row is ``perm[t]`` of the inputs
        # (``t`` itself when ``perm`` is empty: the entries come by row)
        by_perm = perm.shape[0] > 0
        for u in numba.prange(row_ptr.shape[0] - 1):
            a, b = row_ptr[u], row_ptr[u + 1]
            m = b - a
            if m <= 64:
                for i in range(a, b):
                    si = perm[i] if by_perm else i
                    ki = _key(si, greater, dropped, fill)
                    lt = eq = ahead = 0
                    for j in range(a, b):
                        kj = _key(perm[j] if by_perm else j, greater, dropped, fill)
                        lt += kj < ki
                        eq += kj == ki
                        ahead += (kj == ki) & (j < i)
                    _place(a + lt + ahead, si, eq, lt, ki, unranked, gain, equal, out)
                continue
            comp = np.empty(m, dtype=np.float64)
            idx = np.empty(m, dtype=np.int64)
            for t in range(m):
                idx[t] = perm[a + t] if by_perm else a + t
                comp[t] = _key(idx[t], greater, dropped, fill) * m + t
            _heapsort(comp, idx)
            i = 0
            while i < m:
                j = i + 1
                ki = _key(idx[i], greater, dropped, fill)
                while j < m and _key(idx[j], greater, dropped, fill) == ki:
                    j += 1
                for q in range(i, j):
                    _place(a + q, idx[q], j - i, i, ki, unranked, gain, equal, out)
                i = j

    @numba.njit(cache=True, nogil=True)
    def _by_row(user, row_ptr):  # pragma: no cover
        # the entries' indices grouped by row, in input order within a row
        # (np.argsort(user, kind="stable")), by one counting pass
        nxt = row_ptr[:-1].copy()
        perm = np.empty(user.shape[0], dtype=np.int64)
        for i in range(user.shape[0]):
            perm[nxt[user[i]]] = i
            nxt[user[i]] += 1
        return perm


def expected_entries(row_ptr, greater, dropped, fill, unranked, gain, equal, user=None):
    """Gain, start, size, group_rel and rel_before of each entry, in the Ranking's order.

    ``row_ptr`` (int64) delimits the rows (users); the key of an entry is
    ``greater``, or ``fill`` where ``dropped`` (``np.where(dropped, fill,
    greater)``, never built). Within a row the entries are ordered by key
    (stable), as ``tie_groups(row_ptr, key)`` orders them, and each gets:
    its ``gain``, its start (its key, or ``inf`` where ``unranked``), its
    tie-group size (``equal``), the number of the row's entries with an
    equal key (group_rel) and with a smaller key (rel_before). The entries
    come grouped by row (``row_ptr``), or in any order, with their rows in
    ``user`` (int64): then a row's entries keep their input order among
    equal keys, as ``np.lexsort((key, user))`` orders them. Returns the
    five float64 arrays, or ``None`` when the caller should take the NumPy
    path (see the module's docstring).

    Examples
    --------
    Two rows, ``[2, 0, 0]`` and ``[5]`` (the last entry not ranked):

    >>> from recmetrics._kernels import _dispatch
    >>> _dispatch._SMALL_TO_NUMPY = False   # compile even for a tiny input
    >>> dropped = np.array([False, False, False, True])
    >>> rows = expected_entries(
    ...     np.array([0, 3, 4]), np.array([2.0, 0.0, 0.0, 0.0]), dropped, 6.0, dropped,
    ...     np.array([1.0, 2.0, 3.0, 1.0]), np.array([1.0, 2.0, 2.0, 1.0]))
    >>> _dispatch._SMALL_TO_NUMPY = True
    >>> rows is None or [a.tolist() for a in rows] == [   # None without numba
    ...     [2.0, 3.0, 1.0, 1.0], [0.0, 0.0, 2.0, np.inf], [2.0, 2.0, 1.0, 1.0],
    ...     [2.0, 2.0, 1.0, 1.0], [0.0, 0.0, 2.0, 0.0]]
    True
    """
    if not HAVE_NUMBA:
        return None
    row_ptr = np.ascontiguousarray(row_ptr, dtype=np.int64)
    greater = np.ascontiguousarray(greater, dtype=np.float64)
    fill = float(fill)
    lengths = np.diff(row_ptr)
    longest = int(lengths.max()) if lengths.size else 0
    # the heap sort of key * m + position needs whole keys below 2**52 / m
    # (checked on every count, dropped or not, and on the fill)
    if longest > 64 and not (
        (max(np.abs(greater).max(initial=0.0), abs(fill)) + 1.0) * (longest + 1.0) < 2.0**52
        and not np.any(greater % 1.0)
        and fill % 1.0 == 0.0
    ):
        return None
    n = greater.shape[0]
    out = tuple(np.empty(n) for _ in range(5))
    perm = np.empty(0, dtype=np.int64)
    args = (
        row_ptr,
        perm,
        greater,
        np.ascontiguousarray(dropped, dtype=np.bool_),
        fill,
        np.ascontiguousarray(unranked, dtype=np.bool_),
        np.ascontiguousarray(gain, dtype=np.float64),
        np.ascontiguousarray(equal, dtype=np.float64),
        out,
    )
    if not _compiled(_expected_rows, args, n, entries=True):
        return None
    if user is not None and n:
        user = np.ascontiguousarray(user, dtype=np.int64)
        if not _compiled(_by_row, (user, row_ptr), n, entries=True):
            return None
        args = (row_ptr, _by_row(user, row_ptr), *args[2:])
    _parallel(_expected_rows, *args)
    return out
