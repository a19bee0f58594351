"""Ranking by counting: where each relevant item falls in its user's full ranking.

For every relevant (user, item) entry we need the number of the user's
non-excluded items scored strictly higher, scored equal, and (for the
trec_eval tie order) scored equal with a higher item index. Sorting whole rows
costs ``O(n log n)`` per user and ``np.argpartition`` is not much cheaper; but
counting needs no order at all:

* with few relevant items (``m <= 128`` for float32 scores, 64 for float64,
  the usual case) the row is read from memory once and then swept
  ``ceil(m / 4)`` times while it sits in the CPU cache; each sweep is a
  branch-free compare-and-count loop, against four relevant scores at a time,
  that the compiler vectorises;
* with many relevant items, one sweep in which each score finds its place
  among the user's ``m`` sorted relevant scores through a table of buckets
  (``O(n)``, a binary search only in a crowded bucket) fills a histogram
  whose running sum gives every count;
* excluded items (the mask) are then subtracted, ``O(m)`` each; for
  trec_eval's tie order, the tied items to the right of each relevant item
  are counted per item (``m <= 32``) or in one sweep from the right;
* NaN and infinite scores are counted by a first sweep of each row, the one
  that brings it into the cache, so the check reads the matrix no extra time;
* when only the positions within a cutoff ``depth`` matter (metrics @k),
  the distinct relevant scores are swept in decreasing order, the first
  alone (with the NaN/inf check), then four at a time, until the lowest one
  swept has ``depth`` items at or above it: the items below are left
  uncounted, and a row whose best relevant item is far from the top is read
  once.

The work is ``O(n_items * min(m, log m + c))`` per user and the matrix is read
from memory once, so the cost stays within a small factor of one reduction
pass over the scores. With numba (pinned in the book's environment) the rows
run compiled and in parallel; without it a chunked NumPy version with the
same results is used, and the first call large enough to notice says so once
(a ``RuntimeWarning`` naming ``pip install numba``).

A small input takes the NumPy path until the compiled kernel for its types
is ready (see ``_dispatch``): the same results, bit for bit.
"""

from __future__ import annotations

import numpy as np

from ._dispatch import (
    _PARALLEL_CELLS,
    CHUNK_CELLS,
    HAVE_NUMBA,
    _compiled,
    _numpy_path_notice,
    _parallel,
    numba,
)

if HAVE_NUMBA:
    from ._sort import _heapsort

# Up to this many relevant items in a row, sweeps of the cached row (O(n m),
# branch-free SIMD) beat one pass through the bucket table (O(n), but scalar
# work per cell). Measured with from_scores on 5,000 users x 20,000 float32
# scores, 2 cores (AMD EPYC, AVX2): m = 100 takes 0.89 s in sweeps and 1.20 s
# in one pass, m = 150 1.32 and 1.15 s; float64 scores have half the SIMD
# lanes, so their sweeps cost twice as much per relevant item.
_SWEEP_MAX_F32 = 128
_SWEEP_MAX_F64 = 64

# Counting to a depth (``count_above(depth=...)``) sorts each row's relevant
# scores first, which pays only when the sweeps it saves are long: from_scores
# with depth 10 on 1 million float64 cells, 5-10 relevant items per user,
# takes 1.3x the full count with rows of 100 items, 0.95x with 400, 0.8x with
# 800 and 0.7x with 1,600 (2 cores, AMD EPYC). Shorter rows are counted fully.
_DEPTH_MIN_ITEMS = 512


def _count_above_numpy(
    S, rows, row_ptr, rel_cols, mask_ptr, mask_idx, want_after, chunk_cells=None
):
    """Reference implementation: compare each entry with its whole row (chunked)."""
    nnz = rel_cols.shape[0]
    n_cols = S.shape[1]
    greater = np.zeros(nnz, dtype=np.int64)
    equal = np.zeros(nnz, dtype=np.int64)
    after = np.zeros(nnz, dtype=np.int64)
    user_of = np.repeat(rows, np.diff(row_ptr))
    step = max(1, (CHUNK_CELLS if chunk_cells is None else chunk_cells) // max(n_cols, 1))
    cols = np.arange(n_cols)
    for lo in range(0, nnz, step):
        hi = min(nnz, lo + step)
        uu = user_of[lo:hi]
        block = S[uu]
        valid = np.ones(block.shape, dtype=bool)
        if mask_ptr is not None:
            for i, u in enumerate(uu):
                valid[i, mask_idx[mask_ptr[u] : mask_ptr[u + 1]]] = False
        sv = S[uu, rel_cols[lo:hi]][:, None]
        greater[lo:hi] = np.count_nonzero((block > sv) & valid, axis=1)
        eq = (block == sv) & valid
        equal[lo:hi] = np.count_nonzero(eq, axis=1)
        if want_after:
            after[lo:hi] = np.count_nonzero(eq & (cols[None, :] > rel_cols[lo:hi, None]), axis=1)
    return greater, equal, after


if HAVE_NUMBA:
    # Each sweep reads the (cache-resident) row once and compares every score
    # with four relevant scores at a time: four times fewer loads from the
    # cache than one sweep per relevant item. Counters are 32-bit and cast back
    # on every step: numba would otherwise widen them to 64 bits and halve the
    # SIMD width (measured: 12x).

    @numba.njit(cache=True, nogil=True)
    def _sweep4(x_row, rel_c, i, g_out, e_out):  # pragma: no cover
        r0 = x_row[rel_c[i]]
        r1 = x_row[rel_c[i + 1]]
        r2 = x_row[rel_c[i + 2]]
        r3 = x_row[rel_c[i + 3]]
        g0 = g1 = g2 = g3 = e0 = e1 = e2 = e3 = np.int32(0)
        for c in range(x_row.shape[0]):
            x = x_row[c]
            g0 = np.int32(g0 + np.int32(x > r0))
            g1 = np.int32(g1 + np.int32(x > r1))
            g2 = np.int32(g2 + np.int32(x > r2))
            g3 = np.int32(g3 + np.int32(x > r3))
            e0 = np.int32(e0 + np.int32(x == r0))
            e1 = np.int32(e1 + np.int32(x == r1))
            e2 = np.int32(e2 + np.int32(x == r2))
            e3 = np.int32(e3 + np.int32(x == r3))
        g_out[i], g_out[i + 1], g_out[i + 2], g_out[i + 3] = g0, g1, g2, g3
        e_out[i], e_out[i + 1], e_out[i + 2], e_out[i + 3] = e0, e1, e2, e3

    @numba.njit(cache=True, nogil=True)
    def _sweep1(x_row, rel_c, i, g_out, e_out):  # pragma: no cover
        r = x_row[rel_c[i]]
        g = e = np.int32(0)
        for c in range(x_row.shape[0]):
            x = x_row[c]
            g = np.int32(g + np.int32(x > r))
            e = np.int32(e + np.int32(x == r))
        g_out[i] = g
        e_out[i] = e

    @numba.njit(cache=True, nogil=True)
    def _sweep1_bad(x_row, rel_c, i, g_out, e_out):  # pragma: no cover
        # one sweep against one relevant score that also counts the NaN and
        # infinite scores (see _bad_count): the row's first read from memory
        r = x_row[rel_c[i]]
        g = e = bad = np.int32(0)
        for c in range(x_row.shape[0]):
            x = x_row[c]
            g = np.int32(g + np.int32(x > r))
            e = np.int32(e + np.int32(x == r))
            bad = np.int32(bad + np.int32((x - x) != 0))
        g_out[i] = g
        e_out[i] = e
        return bad

    @numba.njit(cache=True, nogil=True)
    def _bad_count(x_row):  # pragma: no cover
        # ``x - x`` is 0 for a finite score and NaN for NaN or an infinity; this
        # sweep is the row's first read from memory, the counting sweeps that
        # follow find it in the cache
        bad = np.int32(0)
        for c in range(x_row.shape[0]):
            x = x_row[c]
            bad = np.int32(bad + np.int32((x - x) != 0))
        return bad

    @numba.njit(cache=True, nogil=True)
    def _passes(x_row, rel_c, g_out, e_out):  # pragma: no cover
        # few relevant items: sweeps of the row, four relevant scores each
        m = rel_c.shape[0]
        i = 0
        while i + 4 <= m:
            _sweep4(x_row, rel_c, i, g_out, e_out)
            i += 4
        while i < m:
            _sweep1(x_row, rel_c, i, g_out, e_out)
            i += 1

    @numba.njit(cache=True, nogil=True)
    def _bucket(v, lo, scale, n_b):  # pragma: no cover
        # the bucket of a value: non-decreasing in v, always in 0 .. n_b - 1
        # (an overflow or a NaN, only possible in a row flagged as bad, goes
        # to bucket 0)
        t = (v - lo) * scale
        if t >= n_b - 1:
            return n_b - 1
        return np.int64(t) if t >= 0 else 0

    @numba.njit(cache=True, nogil=True)
    def _distinct_relevant(x_row, rel_c):  # pragma: no cover
        # the relevant scores' distinct values d[:p], increasing, and which
        # items hold each: rel_c[idx[q]] for q in first[j]:first[j + 1]
        m = rel_c.shape[0]
        a = np.empty(m, dtype=np.float64)
        idx = np.arange(m)
        for i in range(m):
            a[i] = x_row[rel_c[i]]
        _heapsort(a, idx)  # increasing
        d = np.empty(m, dtype=np.float64)
        first = np.empty(m + 1, dtype=np.int64)
        p = 0
        for i in range(m):
            if p == 0 or a[i] != d[p - 1]:
                d[p] = a[i]
                first[p] = i
                p += 1
        first[p] = m
        return d, p, first, idx

    @numba.njit(cache=True, nogil=True)
    def _lower_bound(d, j, e, x):  # pragma: no cover
        # the first index in j .. e of the increasing d[j:e] with d[index] >= x
        while j < e:
            mid = (j + e) >> 1
            if d[mid] < x:
                j = mid + 1
            else:
                e = mid
        return j

    @numba.njit(cache=True, nogil=True)
    def _histogram(x_row, rel_c, g_out, e_out):  # pragma: no cover
        # many relevant items: one pass over the row, in which each score
        # finds how many of the user's distinct relevant scores lie below it
        # through a table of buckets, then a short scan (or a binary search
        # in a crowded bucket). Exact: the bucket of a value never decreases
        # as the value grows, so the relevant scores of lower buckets are
        # below it and those of higher buckets above. A plain binary search
        # mispredicts a branch at most of its halvings (5x slower at m = 1000).
        d, p, first, idx = _distinct_relevant(x_row, rel_c)
        lo, hi = d[0], d[p - 1]
        n_b = 1
        while n_b < 2 * p:
            n_b *= 2
        scale = (n_b - 1) / (hi - lo) if hi > lo else 0.0
        start = np.zeros(n_b + 1, dtype=np.int64)  # first distinct value of each bucket
        for j in range(p):
            start[_bucket(d[j], lo, scale, n_b) + 1] += 1
        for b in range(n_b):
            start[b + 1] += start[b]
        below = np.zeros(p + 1, dtype=np.int64)  # cells with j distinct values below
        eqc = np.zeros(p, dtype=np.int64)  # cells equal to d[j]
        for c in range(x_row.shape[0]):
            x = x_row[c]
            if not x >= lo:  # below every relevant score (or NaN: a flagged row)
                below[0] += 1
                continue
            if x > hi:
                below[p] += 1
                continue
            b = _bucket(x, lo, scale, n_b)
            j, e = start[b], start[b + 1]
            if e - j > 8:
                j = _lower_bound(d, j, e, x)
            else:
                while j < e and d[j] < x:
                    j += 1
            below[j] += 1
            if j < p and d[j] == x:
                eqc[j] += 1
        # cells above d[j]: those with more than j distinct values below them
        above = 0
        for j in range(p - 1, -1, -1):
            above += below[j + 1]
            for q in range(first[j], first[j + 1]):
                g_out[idx[q]] = above
                e_out[idx[q]] = eqc[j]

    @numba.njit(cache=True, nogil=True)
    def _after_sweep(x_row, rel_c, masked, e_out, a_out):  # pragma: no cover
        # many relevant items: for each, the cells to its right with its score
        # (not excluded), in one sweep from the right, O(n log m) instead of
        # one sweep per tied item (O(n m): seconds for thousands of items).
        # ``rel_c`` and ``masked`` are increasing (CSR order).
        m = rel_c.shape[0]
        vals, n_u, _, _ = _distinct_relevant(x_row, rel_c)  # increasing, vals[:n_u]
        seen = np.zeros(n_u, dtype=np.int64)
        i = m - 1
        t = masked.shape[0] - 1
        for c in range(x_row.shape[0] - 1, -1, -1):
            if t >= 0 and masked[t] == c:
                t -= 1
                continue
            x = x_row[c]
            lo_ = _lower_bound(vals, 0, n_u, x)
            found = lo_ < n_u and vals[lo_] == x
            while i >= 0 and rel_c[i] == c:
                a_out[i] = seen[lo_] if (found and e_out[i] > 1) else 0
                i -= 1
            if found:
                seen[lo_] += 1

    @numba.njit(cache=True, nogil=True)
    def _unmask(x_row, rel_c, masked, i, j, g_out, e_out):  # pragma: no cover
        # remove the excluded items' contributions from the counts of entries i .. j - 1
        for t in range(masked.shape[0]):
            x = x_row[masked[t]]
            for q in range(i, j):
                r = x_row[rel_c[q]]
                if x > r:
                    g_out[q] -= 1
                elif x == r:
                    e_out[q] -= 1

    @numba.njit(cache=True, nogil=True)
    def _to_depth(x_row, rel_c, masked, depth, limit, check, g_out, e_out):  # pragma: no cover
        # metrics cut at ``depth`` or above only: the relevant items' distinct
        # scores are swept in decreasing order (the first alone, then four
        # at a time) until the lowest one swept has ``depth`` or more items
        # scored at least as high. Every item scored lower then has at least
        # ``depth`` items above it, so its exact position does not matter: it
        # gets ``g_out = -1`` (not counted). With the relevant items spread
        # over the ranking, one sweep against one score usually suffices,
        # instead of the m // 4 + m % 4 of a full count; tied ones share one.
        # The first sweep also counts the NaN and infinite scores when
        # ``check``. Returns (done, bad): done is False, with no count
        # written, when more than ``limit`` distinct scores would be swept
        # (the caller then counts them all).
        m = rel_c.shape[0]
        key = np.empty(m, dtype=np.float64)
        idx = np.arange(m)
        for i in range(m):
            key[i] = -np.float64(x_row[rel_c[i]])
        _heapsort(key, idx)  # decreasing score
        run = np.empty(m, dtype=np.int64)  # distinct score of each sorted item
        rc = np.empty(m, dtype=np.int64)  # an item holding each distinct score
        p = 0
        for q in range(m):
            if q == 0 or key[q] != key[q - 1]:
                rc[p] = rel_c[idx[q]]
                p += 1
            run[q] = p - 1
        gs = np.empty(p, dtype=np.int64)
        es = np.empty(p, dtype=np.int64)
        i = 0
        bad = 0
        while i < p:
            if i >= limit:
                return False, bad
            j = min(p, i + 4) if i > 0 else 1
            if j - i == 4:
                _sweep4(x_row, rc, i, gs, es)
            elif i == 0 and check:
                bad = _sweep1_bad(x_row, rc, 0, gs, es)
            else:
                for q in range(i, j):
                    _sweep1(x_row, rc, q, gs, es)
            _unmask(x_row, rc, masked, i, j, gs, es)
            i = j
            if gs[j - 1] + es[j - 1] >= depth:
                break
        for q in range(m):
            counted = run[q] < i
            g_out[idx[q]] = gs[run[q]] if counted else -1
            e_out[idx[q]] = es[run[q]] if counted else 1
        return True, bad

    @numba.njit(cache=True, nogil=True)
    def _row_counts(
        x_row, rel_c, masked, want_after, check, depth, g_out, e_out, a_out
    ):  # pragma: no cover
        m = rel_c.shape[0]
        sweeps = m <= (_SWEEP_MAX_F32 if x_row.itemsize == 4 else _SWEEP_MAX_F64)
        pruned = False
        if depth > 0 and m > 1 and x_row.shape[0] >= _DEPTH_MIN_ITEMS:
            # to a depth (its first sweep checks the values); with many
            # relevant items, only a few sweeps before the histogram (which
            # costs about 16 sweeps) is the better bet
            pruned, bad = _to_depth(
                x_row, rel_c, masked, depth, m if sweeps else 16, check, g_out, e_out
            )
        else:
            bad = _bad_count(x_row) if check else 0
        if m == 0:
            return bad
        if not pruned:
            if sweeps:
                _passes(x_row, rel_c, g_out, e_out)
            else:
                _histogram(x_row, rel_c, g_out, e_out)
            _unmask(x_row, rel_c, masked, 0, m, g_out, e_out)
        if want_after:
            if m > 32:  # (entries not counted have e_out = 1: a_out = 0)
                _after_sweep(x_row, rel_c, masked, e_out, a_out)
            else:
                n = x_row.shape[0]
                for i in range(m):
                    if e_out[i] <= 1 or g_out[i] < 0:
                        a_out[i] = 0
                        continue
                    xi = x_row[rel_c[i]]
                    ci = rel_c[i]
                    cnt = np.int32(0)  # branch-free, vectorised (see the sweeps)
                    for c in range(ci + 1, n):
                        cnt = np.int32(cnt + np.int32(x_row[c] == xi))
                    for t in range(masked.shape[0]):
                        if masked[t] > ci and x_row[masked[t]] == xi:
                            cnt -= 1
                    a_out[i] = cnt
        return bad

    def _make_row_loop(parallel):
        rng = numba.prange if parallel else range

        def loop(
            S, row_ptr, rel_cols, mask_ptr, mask_idx, has_mask, want_after, check, depth
        ):  # pragma: no cover
            # every user (row of S) in turn: its entries are row_ptr[u]:row_ptr[u + 1]
            nnz = rel_cols.shape[0]
            n_rows = S.shape[0]
            greater = np.zeros(nnz, dtype=np.int64)
            equal = np.zeros(nnz, dtype=np.int64)
            after = np.zeros(nnz, dtype=np.int64)
            bad = np.zeros(n_rows, dtype=np.bool_)
            empty = np.zeros(0, dtype=np.int64)
            for u in rng(n_rows):
                a, b = row_ptr[u], row_ptr[u + 1]
                if b == a and not check:
                    continue
                masked = mask_idx[mask_ptr[u] : mask_ptr[u + 1]] if has_mask else empty
                nb = _row_counts(
                    S[u],
                    rel_cols[a:b],
                    masked,
                    want_after,
                    check,
                    depth,
                    greater[a:b],
                    equal[a:b],
                    after[a:b],
                )
                bad[u] = nb > 0
            return greater, equal, after, bad

        # distinct names, so that numba's on-disk cache keeps the two apart
        loop.__name__ = loop.__qualname__ = (
            "count_rows_parallel" if parallel else "count_rows_serial"
        )
        return numba.njit(parallel=parallel, cache=True)(loop)

    # serial and parallel builds of the loop over rows: see _PARALLEL_CELLS
    _count_serial, _count_parallel = _make_row_loop(False), _make_row_loop(True)


def count_above(
    S, row_ptr, rel_cols, mask_ptr=None, mask_idx=None, want_after=False, check=False, depth=0
):
    """Counts for the relevant entries of every row of ``S``, grouped by row.

    Parameters
    ----------
    S : ndarray (n_rows, n_items), float32 or float64, C-contiguous
    row_ptr : int64 array (n_rows + 1,), the entries of row ``u`` are
        ``row_ptr[u]:row_ptr[u + 1]`` (``row_ptr[0] == 0``)
    rel_cols : int64 array, the item (column) of each entry, increasing within a row
    mask_ptr, mask_idx : CSR structure of the excluded items (``mask_ptr`` has
        ``n_rows + 1`` pointers into ``mask_idx``, increasing within a row), or
        None
    want_after : bool, also count equal scores at higher item indices
    check : bool, also flag the rows that hold a NaN or an infinite score (in
        the same sweeps over the rows; rows without entries are read once)
    depth : int, the counts are needed only for entries that can sit within
        the top ``depth`` positions (0: for every entry). Entries with
        ``depth`` or more items scored above them may then be left uncounted
        (``greater = -1``, ``equal = 1``, ``after = 0``); in rows shorter than
        ``_DEPTH_MIN_ITEMS``, with one relevant item, or without numba, every
        entry is counted.

    Returns
    -------
    greater, equal, after : int64 arrays aligned with ``rel_cols``
        ``equal`` includes the item itself.
    bad : bool array (n_rows,)
        Rows with a NaN or an infinite score (all False unless ``check``).
        The counts of such a row are meaningless.
    """
    n_rows, n_cols = S.shape
    has_mask = mask_ptr is not None
    # the NumPy path's work: each entry against its row, and the NaN/inf check
    work = rel_cols.shape[0] * n_cols + (n_rows * n_cols if check else 0)
    if HAVE_NUMBA and S.dtype in (np.float32, np.float64) and S.flags.c_contiguous:
        mp = mask_ptr if has_mask else np.zeros(n_rows + 1, dtype=np.int64)
        mi = mask_idx if has_mask else np.zeros(0, dtype=np.int64)
        args = (S, row_ptr, rel_cols, mp, mi, has_mask, bool(want_after), bool(check), int(depth))
        parallel = n_rows * n_cols >= _PARALLEL_CELLS
        kernel = _count_parallel if parallel else _count_serial
        if _compiled(kernel, args, work):
            return _parallel(kernel, *args) if parallel else kernel(*args)
    _numpy_path_notice(work)
    counts = np.diff(row_ptr)
    rows = np.flatnonzero(counts).astype(np.int64)
    compact = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts[rows], out=compact[1:])
    g, e, a = _count_above_numpy(S, rows, compact, rel_cols, mask_ptr, mask_idx, want_after)
    bad = np.zeros(n_rows, dtype=bool)
    if check:
        first = _first_bad_numpy(S)
        if first is not None:
            bad[first[0]] = True
    return g, e, a, bad


def first_bad_value(S, chunk_rows=1024):
    """Position (row, col) of the first NaN or infinite score, or None; bounded memory."""
    if HAVE_NUMBA and S.dtype in (np.float32, np.float64) and S.flags.c_contiguous:
        empty = np.zeros(0, dtype=np.int64)
        row_ptr = np.zeros(S.shape[0] + 1, dtype=np.int64)
        *_, bad = count_above(S, row_ptr, empty, check=True)  # the NumPy path when small
        if not bad.any():
            return None
        u = int(np.argmax(bad))
        return u, int(np.argmax(~np.isfinite(S[u])))
    _numpy_path_notice(S.size)
    return _first_bad_numpy(S, chunk_rows)


def _first_bad_numpy(S, chunk_rows=1024):
    """:func:`first_bad_value` with NumPy, ``chunk_rows`` rows at a time."""
    for lo in range(0, S.shape[0], chunk_rows):
        block = S[lo : lo + chunk_rows]
        nf = ~np.isfinite(block)
        if nf.any():
            u, c = np.unravel_index(int(np.argmax(nf)), nf.shape)
            return lo + int(u), int(c)
    return None
