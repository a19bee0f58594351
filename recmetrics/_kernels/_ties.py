"""Tie groups: each row's entries ordered by a key, with their runs of equal keys.

:func:`tie_groups` (compiled and parallel over rows, NumPy's ``lexsort``
for a small input while the kernel is not ready, or without numba) and its
NumPy counterpart for entries in any layout, :func:`runs_of_equal`.
"""

from __future__ import annotations

import numpy as np

from ._dispatch import HAVE_NUMBA, _compiled, _numpy_path_notice, _parallel, numba

if HAVE_NUMBA:
    from ._sort import _heapsort

    @numba.njit(parallel=True, cache=True)
    def _tie_groups(row_ptr, key, order, have_order, size, before):  # pragma: no cover
        # per row: each entry's number of entries with a smaller key (its
        # run's start), with an equal key (the run's length) and with an
        # equal key ahead of it; branch-free counting, O(m^2) for a row of m
        # entries, is several times faster than an insertion sort on short
        # rows. Longer rows are sorted by (key, position), a heap sort of
        # ``key * m + position`` (exact: the caller checks that it stays
        # below 2**52), or come sorted (``have_order``); then one scan of
        # the runs.
        for u in numba.prange(row_ptr.shape[0] - 1):
            a, b = row_ptr[u], row_ptr[u + 1]
            if not have_order and b - a > 64:
                m = b - a
                comp = np.empty(m, dtype=np.float64)
                idx = np.empty(m, dtype=np.int64)
                for t in range(m):
                    comp[t] = key[a + t] * m + t
                    idx[t] = a + t
                _heapsort(comp, idx)
                for t in range(m):
                    order[a + t] = idx[t]
            elif not have_order:
                for i in range(a, b):
                    ki = key[i]
                    lt = eq = ahead = 0
                    for j in range(a, b):
                        kj = key[j]
                        lt += kj < ki
                        eq += kj == ki
                        ahead += (kj == ki) & (j < i)
                    order[a + lt + ahead] = i
                    size[i] = eq
                    before[i] = lt
                continue
            i = a
            while i < b:
                j = i + 1
                while j < b and key[order[j]] == key[order[i]]:
                    j += 1
                for q in range(i, j):
                    size[order[q]] = j - i
                    before[order[q]] = i - a
                i = j


def tie_groups(row_ptr, key):
    """Order of the entries by ``key`` within each row, and their runs of equal keys.

    ``row_ptr`` (n_rows + 1) int64 delimits the rows of a CSR layout. Returns
    ``order``, which sorts every slice ``row_ptr[u]:row_ptr[u + 1]`` by ``key``
    (stable) and leaves the rows in place (``np.lexsort((key, row))`` without
    a global sort), and per entry the length ``size`` of its run of equal
    keys and the number ``before`` of the row's entries with a smaller key
    (float64).

    Examples
    --------
    >>> order, size, before = tie_groups(np.array([0, 3, 4]), np.array([2.0, 0.0, 0.0, 5.0]))
    >>> order.tolist(), size.tolist(), before.tolist()
    ([1, 2, 0, 3], [1.0, 2.0, 2.0, 1.0], [2.0, 0.0, 0.0, 0.0])
    """
    row_ptr = np.ascontiguousarray(row_ptr, dtype=np.int64)
    key = np.ascontiguousarray(key, dtype=np.float64)
    lengths = np.diff(row_ptr)
    longest = int(lengths.max()) if lengths.size else 0
    # the kernel sorts a long row by key * m + position: the order of (key,
    # position) for whole-number keys, exact below 2**52
    # (rows of 64 entries or fewer are counted, not sorted)
    exact = longest <= 64 or (
        (np.abs(key).max() + 1.0) * (longest + 1.0) < 2.0**52 and not np.any(key % 1.0)
    )
    n = key.shape[0]
    size, before = np.empty(n), np.empty(n)
    presorted = not (HAVE_NUMBA and exact)
    if HAVE_NUMBA:
        order = np.empty(n, dtype=np.int64)
        args = (row_ptr, key, order, presorted, size, before)
        compiled = _compiled(_tie_groups, args, n, entries=True)
    else:
        _numpy_path_notice(n, entries=True)
        compiled = False
    if presorted or not compiled:
        row = np.repeat(np.arange(lengths.shape[0]), lengths)
        order = np.lexsort((key, row))
        if not compiled:
            return (order, *runs_of_equal(row, key, order, row_ptr))
    _parallel(_tie_groups, row_ptr, key, order, presorted, size, before)
    return order, size, before


def runs_of_equal(row, s, order, row_ptr):
    """Per entry, the length of its run of equal ``s`` and the row's entries before it.

    The NumPy counterpart of :func:`tie_groups` for entries in any layout:
    ``row`` is each entry's row, ``order`` sorts the entries by row (rows
    increasing, delimited by ``row_ptr`` in the sorted sequence), then by
    ``s``, monotonically.
    """
    n = order.shape[0]
    row, ss = np.asarray(row)[order], np.asarray(s)[order]
    new_run = np.r_[True, (row[1:] != row[:-1]) | (ss[1:] != ss[:-1])] if n else np.zeros(0, bool)
    run = np.cumsum(new_run) - 1
    size, before = np.empty(n), np.empty(n)
    size[order] = np.bincount(run)[run]
    before[order] = np.flatnonzero(new_run)[run] - row_ptr[row]
    return size, before
