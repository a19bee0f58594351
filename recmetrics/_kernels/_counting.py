"""Counting kernels: where each relevant item falls in its user's full ranking.

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

Dense relevance matrices and masks are turned into their CSR structure by a
compiled two-pass reader (:func:`dense_nonzero`).

The work is ``O(n_items * min(m, log m + c))`` per user and the matrix is read
from memory once, so the cost stays within a small factor of one reduction
pass over the scores. With numba (pinned in the book's environment) the rows
run compiled and in parallel; without it a chunked NumPy version with the
same results is used, and the first call large enough to notice says so once
(a ``RuntimeWarning`` naming ``pip install numba``).

The first call: numba compiles a kernel the first time it meets a type of
input and keeps the machine code in its on-disk cache, so a fresh
environment pays several seconds once. Inputs whose NumPy path costs a
fraction of a second take that path (the same results, bit for bit) until
the compiled kernel is ready, compiled in this process or found in numba's
cache; they never compile. A larger first call compiles, and says so first,
once per process, in one line on standard error (the logger ``recmetrics``;
``RECMETRICS_COMPILE_NOTICE=0`` silences it); it says nothing when the cache
is warm. See ``book/data/benchmarks/cold_start.json``.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import warnings

import numpy as np

try:  # pragma: no cover - exercised through whichever path is available
    import numba
    from numba.core import event as _numba_event

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    numba = _numba_event = None
    HAVE_NUMBA = False

__all__ = [
    "CHUNK_CELLS",
    "HAVE_NUMBA",
    "count_above",
    "dense_nonzero",
    "first_bad_value",
    "jaccard_pair_sums",
    "runs_of_equal",
    "tie_groups",
]

# Work on at most this many matrix cells at a time (counting, block sizes of
# the metric helpers), so that extra memory stays bounded whatever the number
# of users: 4 million cells are 32 MB of float64.
CHUNK_CELLS = 4_000_000

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
    def _sift_down(keys, idx, root, n):  # pragma: no cover
        while True:
            child = 2 * root + 1
            if child >= n:
                return
            if child + 1 < n and keys[child + 1] > keys[child]:
                child += 1
            if keys[root] >= keys[child]:
                return
            keys[root], keys[child] = keys[child], keys[root]
            idx[root], idx[child] = idx[child], idx[root]
            root = child

    @numba.njit(cache=True, nogil=True)
    def _heapsort(keys, idx):  # pragma: no cover
        # sort ``keys`` increasing in place, permuting ``idx`` alongside
        # (O(m log m), not stable); a few lines here compile in a fraction
        # of a second, where numba's np.argsort adds about 2 s to the first
        # call of every kernel that uses it
        n = keys.shape[0]
        for start in range(n // 2 - 1, -1, -1):
            _sift_down(keys, idx, start, n)
        for end in range(n - 1, 0, -1):
            keys[0], keys[end] = keys[end], keys[0]
            idx[0], idx[end] = idx[end], idx[0]
            _sift_down(keys, idx, 0, end)

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
        # instead of ceil(m / 4); tied relevant items share one sweep.
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

    @numba.njit(cache=True, nogil=True)
    def _count_cells(row, lo, hi):  # pragma: no cover
        h = np.int32(0)
        for c in range(lo, hi):
            h = np.int32(h + np.int32(row[c] != 0))
        return h

    @numba.njit(cache=True, nogil=True)
    def _compact(row, lo, hi, cols, vals, p, end):  # pragma: no cover
        # branch-free: every cell of row[lo:hi] is written at p, which
        # advances past the nonzero ones; stopping at the row's last nonzero
        # cell (p == end) keeps every write inside the row's slice
        for c in range(lo, hi):
            v = row[c]
            cols[p] = c
            vals[p] = v
            p += np.int64(v != 0)
            if p == end:
                break
        return p

    @numba.njit(cache=True, nogil=True)
    def _compact_sparse(row, lo, hi, cols, vals, p):  # pragma: no cover
        # a branch per cell, taken only at the nonzero ones: for a block of
        # word-wide cells, where most cells are zero (measured on 10,000 x
        # 100 float64 relevance, 6 % nonzero: 1.5 ms instead of 2.8 ms for
        # the branch-free compaction, which suits the nonzero narrow words)
        for c in range(lo, hi):
            v = row[c]
            if v != 0:
                cols[p] = c
                vals[p] = v
                p += 1
        return p

    def _make_nonzero(parallel):
        rng = numba.prange if parallel else range

        def nonzero(A, bits, block_words, cells_per_word):  # pragma: no cover
            # CSR structure of the nonzero cells of a dense matrix ``A``, read
            # in blocks of 64 cells. ``bits`` is ``A`` viewed as unsigned
            # words (64-bit when a row is a whole number of them, else of the
            # cell's width), ``block_words`` of them per block, each holding
            # ``cells_per_word`` cells. For cells narrower than a word, the OR
            # of a block's words skips an empty block at memory speed, and
            # only the nonzero words of the others are read cell by cell
            # (comparing int8 cells one by one widens them to 32 bits, 4x the
            # work); a word of negative zeros passes the word test and the
            # exact test counts them as zero, as np.nonzero does. Pass 1
            # counts the nonzero cells of each row and marks the blocks that
            # hold one; pass 2 visits only those.
            n_rows, n_cols = A.shape
            n_words = bits.shape[1]
            n_blocks = (n_words + block_words - 1) // block_words
            block = block_words * cells_per_word  # cells per block
            wide = cells_per_word > 1
            marked = np.zeros((n_rows, n_blocks), dtype=np.bool_)
            counts = np.zeros(n_rows, dtype=np.int64)
            for u in rng(n_rows):
                row, row_bits = A[u], bits[u]
                cnt = 0
                for k in range(n_blocks):
                    w0, w1 = k * block_words, min(k * block_words + block_words, n_words)
                    if wide:
                        acc = row_bits[w0]
                        for w in range(w0 + 1, w1):
                            acc |= row_bits[w]
                        if acc == 0:
                            continue
                        h = np.int32(0)
                        for w in range(w0, w1):
                            if row_bits[w] != 0:
                                lo = w * cells_per_word
                                h = np.int32(h + _count_cells(row, lo, lo + cells_per_word))
                    else:
                        h = _count_cells(row, k * block, min(k * block + block, n_cols))
                    if h > 0:
                        marked[u, k] = True
                        cnt += h
                counts[u] = cnt
            indptr = np.zeros(n_rows + 1, dtype=np.int64)
            for u in range(n_rows):
                indptr[u + 1] = indptr[u] + counts[u]
            cols = np.empty(indptr[n_rows], dtype=np.int64)
            vals = np.empty(indptr[n_rows], dtype=A.dtype)
            for u in rng(n_rows):
                row, row_bits = A[u], bits[u]
                p, end = indptr[u], indptr[u + 1]
                for k in range(n_blocks):
                    if p == end:
                        break
                    if not marked[u, k]:
                        continue
                    w0, w1 = k * block_words, min(k * block_words + block_words, n_words)
                    if wide:
                        for w in range(w0, w1):
                            if row_bits[w] != 0 and p < end:
                                lo = w * cells_per_word
                                p = _compact(row, lo, lo + cells_per_word, cols, vals, p, end)
                    else:
                        lo = k * block
                        p = _compact_sparse(row, lo, min(lo + block, n_cols), cols, vals, p)
            return indptr, cols, vals

        nonzero.__name__ = nonzero.__qualname__ = (
            "nonzero_parallel" if parallel else "nonzero_serial"
        )
        return numba.njit(parallel=parallel, cache=True)(nonzero)

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

    # Handing rows to the thread pool costs about 3 us per call with the
    # OpenMP layer and 0.1 ms with numba's fallback "workqueue" layer, so
    # only small inputs take the serial version of each loop. (Measured on 2
    # cores: 10,000 x 100 float64, counting 5.1 ms serial, 1.8 ms parallel;
    # the parallel build is faster even on one thread, 3.6 ms.)
    _count_serial, _count_parallel = _make_row_loop(False), _make_row_loop(True)
    _nonzero_serial, _nonzero_parallel = _make_nonzero(False), _make_nonzero(True)

_PARALLEL_CELLS = 100_000

# numba's fallback threading layer, "workqueue" (used when neither OpenMP nor
# TBB is available, as on many macOS installs), aborts the whole process when
# two Python threads run parallel kernels at once (a Dask threaded scheduler,
# a thread pool). Parallel kernels are therefore called through _parallel(),
# which serialises them under that layer; the layer is known after the first
# parallel call, which is serialised too.
_WORKQUEUE_LOCK = threading.Lock()
_LAYER = [None]


def _parallel(kernel, *args):
    """``kernel(*args)`` for a ``parallel=True`` kernel, serialised under "workqueue"."""
    if _LAYER[0] not in (None, "workqueue"):
        return kernel(*args)
    with _WORKQUEUE_LOCK:
        out = kernel(*args)
        if _LAYER[0] is None:
            _LAYER[0] = numba.threading_layer()
    return out


# -- the first call ----------------------------------------------------------------------
#
# A fresh environment compiles the kernels that the first evaluate needs: 6.5 s
# for 100 x 50 scores, 10.7 s for 5,000 x 20,000 (2 cores, AMD EPYC; the
# "before" run of book/data/benchmarks/cold_start.json). Compiled code is
# faster at every size once it exists (counting 100 x 50 scores, 5 relevant
# items each: 0.02 ms, NumPy 0.05 ms; 1,000 x 1,000, 10 each: 0.4 ms and
# 28 ms), so the crossover that matters is against the compilation: an input
# whose NumPy path takes a fraction of a second is not worth seconds of
# compiling. Measured NumPy costs (same machine): about 2.8 ns per comparison
# of a relevant entry with an item of its row (count_above), 3 ns per cell
# (np.nonzero of dense relevance; the NaN/inf check, 1 ns), 70 ns per entry
# (the sort behind tie_groups). Below these limits (NumPy paths of 0.17 to
# 0.28 s measured at them) an input takes the NumPy path unless the compiled
# kernel for its types is ready.
_NUMPY_MAX_WORK = 1 << 26  # comparisons (count_above), cells (dense_nonzero, NaN check)
_NUMPY_MAX_ENTRIES = 1 << 21  # entries (tie_groups)
# False: every input takes the compiled kernels when numba is present (tests)
_SMALL_TO_NUMPY = True
# (id of a kernel, argument types) -> whether numba's on-disk cache holds it
_CACHED = {}
# What the one-line notice says a first compilation costs: the "after" runs
# of bench_cold_start.py (first call minus warm first call) on 2 cores.
_COMPILE_SECONDS = "about 10 s"
_NOTICES = {"compile": False, "numpy": False}
_LOG = logging.getLogger("recmetrics")


def _ready(kernel, args):
    """Whether ``kernel(*args)`` runs without compiling: compiled here, or in numba's cache."""
    try:
        sig = tuple(kernel.typeof_pyval(a) for a in args)
        if sig in kernel.overloads:
            return True
        key = (id(kernel), sig)
        if key not in _CACHED:
            # numba's own lookup (Dispatcher.compile): the index of the
            # function's cache file, keyed by types, CPU and bytecode, empty
            # when the source file changed
            cache = kernel._cache
            index = cache._cache_file._load_index()
            _CACHED[key] = cache._index_key(sig, kernel.targetctx.codegen()) in index
        return _CACHED[key]
    except Exception:  # another numba's internals, caching off: not known to be ready
        return False


def _compiled(kernel, args, work, entries=False):
    """Whether to call the compiled ``kernel``: it is ready, or the input is not small.

    ``work`` is in comparisons or cells, or in entries when ``entries``.
    """
    limit = _NUMPY_MAX_ENTRIES if entries else _NUMPY_MAX_WORK
    return not _SMALL_TO_NUMPY or work > limit or _ready(kernel, args)


def _announce_compile():
    """The one line, once per process, before numba compiles a counting kernel."""
    if _NOTICES["compile"] or os.environ.get("RECMETRICS_COMPILE_NOTICE", "1") == "0":
        return
    _NOTICES["compile"] = True
    _LOG.warning(
        "recmetrics: compiling its counting kernels with numba for this type of input, "
        f"once ({_COMPILE_SECONDS}); they are cached on disk for later sessions"
    )


def _outside_package():
    """``stacklevel`` for ``warnings.warn`` in the caller: the first frame outside recmetrics."""
    here = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(here):
        frame, level = frame.f_back, level + 1
    return level


def _numpy_path_notice(work, entries=False):
    """Without numba: say once, at the first input that is not small, what it costs."""
    limit = _NUMPY_MAX_ENTRIES if entries else _NUMPY_MAX_WORK
    if HAVE_NUMBA or work <= limit or _NOTICES["numpy"]:
        return
    _NOTICES["numpy"] = True
    warnings.warn(
        "numba is not installed, so recmetrics counts with NumPy: the same results, but "
        "10 to 50 times slower on large inputs. Install it with: pip install numba",
        RuntimeWarning,
        stacklevel=_outside_package(),
    )


if HAVE_NUMBA:

    class _CompileListener(_numba_event.Listener):
        """Announces the first compilation of one of this module's kernels."""

        # the Jaccard kernel of recmetrics.beyond compiles in about 1 s: no notice
        quiet = frozenset({"_jaccard_sums", "_popcount"})

        def on_start(self, event):
            data = event.data if isinstance(event.data, dict) else {}
            py_func = getattr(data.get("dispatcher"), "py_func", None)
            if (
                py_func is not None
                and py_func.__module__ == __name__
                and py_func.__name__ not in self.quiet
            ):
                _announce_compile()

        def on_end(self, event):
            pass

    _numba_event.register("numba:compile", _CompileListener())


if HAVE_NUMBA:

    @numba.njit(cache=True, nogil=True)
    def _popcount(x):  # pragma: no cover
        # SWAR population count on uint64 (every constant typed uint64, so
        # that numba never mixes signed and unsigned into float64)
        x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
        x = (x & np.uint64(0x3333333333333333)) + (
            (x >> np.uint64(2)) & np.uint64(0x3333333333333333)
        )
        x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
        return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)

    @numba.njit(cache=True, nogil=True)
    def _jaccard_sums(codes, w, bits, size, out):  # pragma: no cover
        n, width = codes.shape
        n_words = bits.shape[1]
        for u in range(n):
            total = 0.0
            for i in range(width):
                a = codes[u, i]
                if a < 0:
                    continue
                for j in range(i + 1, width):
                    b = codes[u, j]
                    if b < 0:
                        continue
                    inter = np.uint64(0)
                    for q in range(n_words):
                        inter += _popcount(bits[a, q] & bits[b, q])
                    union = size[a] + size[b] - np.float64(inter)
                    if union > 0:
                        total += w[u, i] * w[u, j] * (1.0 - np.float64(inter) / union)
            out[u] = total


def jaccard_pair_sums(codes, w, bits, size):
    """Per row, ``sum_{i<j} w_i w_j (1 - |A_i & A_j| / |A_i | A_j|)`` over the row's items.

    ``codes`` (n, width) int64 indexes the rows of ``bits`` (m, words)
    uint64 (the packed feature sets) and ``size`` (m,) float64 (their
    sizes); ``-1`` marks an empty slot. Returns None without numba (the
    caller then computes the pairs with NumPy).
    """
    if not HAVE_NUMBA:  # pragma: no cover
        return None
    out = np.empty(codes.shape[0])
    _jaccard_sums(
        np.ascontiguousarray(codes, dtype=np.int64),
        np.ascontiguousarray(w, dtype=np.float64),
        np.ascontiguousarray(bits, dtype=np.uint64),
        np.ascontiguousarray(size, dtype=np.float64),
        out,
    )
    return out


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


def dense_nonzero(A):
    """CSR structure ``(indptr, cols, values)`` of the nonzero cells of a 2-D array.

    Compiled and parallel over rows: one pass over ``A`` counts the nonzero
    cells and marks the 64-byte blocks that hold one, a second visits only
    the marked blocks (so a sparse matrix is read once, at memory speed);
    extra memory is one flag per 64 bytes of ``A`` beyond the result. None
    when numba is missing or ``A`` is not a C-contiguous, native-endian
    numeric or boolean array (the caller then uses ``np.nonzero``).

    Examples
    --------
    >>> indptr, cols, vals = dense_nonzero(np.array([[0, 3, 0], [0, 0, 0], [1, 0, 2]]))
    >>> indptr.tolist(), cols.tolist(), vals.tolist()
    ([0, 1, 1, 3], [1, 0, 2], [3, 1, 2])
    """
    if not (isinstance(A, np.ndarray) and A.ndim == 2):
        return None
    if not HAVE_NUMBA:
        _numpy_path_notice(A.size)
        return None
    boolean = A.dtype == np.bool_
    if boolean:
        A = A.view(np.uint8)
    if (
        A.dtype.kind not in "iuf"
        or A.dtype == np.float16  # numba has no float16
        or not (A.flags.c_contiguous and A.dtype.isnative)
    ):
        return None
    width = A.dtype.itemsize
    words = A.view(np.uint64) if (A.shape[1] * width) % 8 == 0 and A.shape[1] else None
    if words is not None and words.flags.aligned:  # rows of whole 64-bit words
        bits, per_word = words, 8 // width
    else:
        bits, per_word = A.view(np.dtype(f"u{width}")), 1
    args = (A, bits, 64 // per_word, per_word)  # 64 cells a block
    parallel = A.size >= _PARALLEL_CELLS
    kernel = _nonzero_parallel if parallel else _nonzero_serial
    if not _compiled(kernel, args, A.size):
        return None  # np.nonzero: a small matrix is not worth compiling for
    indptr, cols, vals = _parallel(kernel, *args) if parallel else kernel(*args)
    return indptr, cols, vals.view(np.bool_) if boolean else vals


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
