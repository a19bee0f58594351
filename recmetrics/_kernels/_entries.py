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

    @numba.njit(cache=True, nogil=True)
    def _count_place(keys, m, t):  # pragma: no cover
        # for entry ``t`` of a row's keys[:m]: the keys below it, the equal
        # keys ahead of it and the equal keys after it (itself included), in
        # two branch-free loops that the compiler vectorises (32-bit
        # counters, as in the counting sweeps)
        ki = keys[t]
        lt = ahead = eq = np.int32(0)
        for j in range(t):
            kj = keys[j]
            lt = np.int32(lt + np.int32(kj < ki))
            ahead = np.int32(ahead + np.int32(kj == ki))
        for j in range(t, m):
            kj = keys[j]
            lt = np.int32(lt + np.int32(kj < ki))
            eq = np.int32(eq + np.int32(kj == ki))
        return lt, ahead, ahead + eq

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
        # (``t`` itself when ``perm`` is empty: the entries come by row).
        # Rows go to the threads in blocks of 64, each with one buffer for
        # the keys of a short row (10,000 rows, one thread, AMD EPYC: 45
        # entries a row 15.5 ms, 12 entries 2.8 ms, against 24.9 and 3.4 ms
        # with each key looked up in the inner loop; an insertion sort of
        # the keys instead of counting: 13.9 and 3.0 ms)
        by_perm = perm.shape[0] > 0
        n_rows = row_ptr.shape[0] - 1
        for blk in numba.prange((n_rows + 63) // 64):
            keys = np.empty(64, dtype=np.float64)
            for u in range(blk * 64, min(n_rows, blk * 64 + 64)):
                a, b = row_ptr[u], row_ptr[u + 1]
                m = b - a
                if m <= 64:
                    for t in range(m):
                        keys[t] = _key(perm[a + t] if by_perm else a + t, greater, dropped, fill)
                    for t in range(m):
                        lt, ahead, eq = _count_place(keys, m, t)
                        si = perm[a + t] if by_perm else a + t
                        _place(a + lt + ahead, si, eq, lt, keys[t], unranked, gain, equal, out)
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
