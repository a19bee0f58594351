"""Counting kernels: where each relevant item falls in its user's full ranking.

For every relevant (user, item) entry we need the number of the user's
non-excluded items scored strictly higher, scored equal, and (for the
trec_eval tie order) scored equal with a higher item index. Sorting whole rows
costs ``O(n log n)`` per user and ``np.argpartition`` is not much cheaper; but
counting needs no order at all:

* with few relevant items (``m <= 96``, the usual case) the row is read from
  memory once and then swept ``m`` times while it sits in the CPU cache; each
  sweep is a branch-free compare-and-count loop that the compiler vectorises;
* with many relevant items, one sweep with a binary search among the
  user's ``m`` sorted relevant scores (``O(n log m)``) fills a histogram whose
  running sum gives every count;
* excluded items (the mask) are then subtracted, ``O(m)`` each.

The work is ``O(n_items * min(m, log m + c))`` per user and the matrix is read
from memory once, so the cost stays within a small factor of one reduction
pass over the scores. With numba (pinned in the book's environment) the rows
run compiled and in parallel; without it a chunked NumPy version with the
same results is used.
"""

from __future__ import annotations

import numpy as np

try:  # pragma: no cover - exercised through whichever path is available
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    numba = None
    HAVE_NUMBA = False

__all__ = ["CHUNK_CELLS", "HAVE_NUMBA", "count_above", "first_bad_value", "jaccard_pair_sums"]

# Work on at most this many matrix cells at a time (counting, block sizes of
# the metric helpers), so that extra memory stays bounded whatever the number
# of users: 4 million cells are 32 MB of float64.
CHUNK_CELLS = 4_000_000


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

    @numba.njit(cache=True, nogil=True)
    def _passes(x_row, rel_c, g_out, e_out):  # pragma: no cover
        # one vectorisable pass over the (cache-resident) row per relevant item
        n = x_row.shape[0]
        for i in range(rel_c.shape[0]):
            r = x_row[rel_c[i]]
            # 32-bit counters, cast back on every step: numba would otherwise
            # widen them to 64 bits and halve the SIMD width (measured: 12x)
            g = np.int32(0)
            e = np.int32(0)
            for c in range(n):
                x = x_row[c]
                g = np.int32(g + np.int32(x > r))
                e = np.int32(e + np.int32(x == r))
            g_out[i] = g
            e_out[i] = e

    @numba.njit(cache=True, nogil=True)
    def _histogram(x_row, rel_c, g_out, e_out):  # pragma: no cover
        # many relevant items: one pass, binary search among their sorted scores
        m = rel_c.shape[0]
        vals = np.empty(m, dtype=np.float64)
        for i in range(m):
            vals[i] = x_row[rel_c[i]]
        order = np.argsort(-vals, kind="mergesort")
        sv = vals[order]  # decreasing
        low = sv[m - 1]
        above = np.zeros(m + 1, dtype=np.int64)
        eqc = np.zeros(m, dtype=np.int64)
        for c in range(x_row.shape[0]):
            x = x_row[c]
            if x < low:
                continue
            lo_, hi_ = 0, m  # first j with sv[j] < x
            while lo_ < hi_:
                mid = (lo_ + hi_) >> 1
                if sv[mid] < x:
                    hi_ = mid
                else:
                    lo_ = mid + 1
            above[lo_] += 1
            if lo_ > 0 and sv[lo_ - 1] == x:
                eqc[lo_ - 1] += 1  # recorded at the last index of the run of equal values
        run = 0
        j = 0
        while j < m:
            i1 = j
            while i1 + 1 < m and sv[i1 + 1] == sv[j]:
                i1 += 1
            for q in range(j, i1 + 1):
                run += above[q]
            for q in range(j, i1 + 1):
                g_out[order[q]] = run  # items scored above this value
                e_out[order[q]] = eqc[i1]
            j = i1 + 1

    @numba.njit(cache=True, nogil=True)
    def _row_counts(x_row, rel_c, masked, want_after, g_out, e_out, a_out):  # pragma: no cover
        m = rel_c.shape[0]
        if m <= 96:
            _passes(x_row, rel_c, g_out, e_out)
        else:
            _histogram(x_row, rel_c, g_out, e_out)
        # remove the excluded items' contributions
        for t in range(masked.shape[0]):
            x = x_row[masked[t]]
            for i in range(m):
                r = x_row[rel_c[i]]
                if x > r:
                    g_out[i] -= 1
                elif x == r:
                    e_out[i] -= 1
        if want_after:
            n = x_row.shape[0]
            for i in range(m):
                if e_out[i] <= 1:
                    a_out[i] = 0
                    continue
                xi = x_row[rel_c[i]]
                ci = rel_c[i]
                cnt = 0
                for c in range(ci + 1, n):
                    if x_row[c] == xi:
                        cnt += 1
                for t in range(masked.shape[0]):
                    if masked[t] > ci and x_row[masked[t]] == xi:
                        cnt -= 1
                a_out[i] = cnt

    def _make_row_loop(parallel):
        rng = numba.prange if parallel else range

        def loop(
            S, rows, row_ptr, rel_cols, mask_ptr, mask_idx, has_mask, want_after
        ):  # pragma: no cover
            nnz = rel_cols.shape[0]
            greater = np.zeros(nnz, dtype=np.int64)
            equal = np.zeros(nnz, dtype=np.int64)
            after = np.zeros(nnz, dtype=np.int64)
            empty = np.zeros(0, dtype=np.int64)
            for i in rng(rows.shape[0]):
                u = rows[i]
                a, b = row_ptr[i], row_ptr[i + 1]
                if b == a:
                    continue
                masked = mask_idx[mask_ptr[u] : mask_ptr[u + 1]] if has_mask else empty
                _row_counts(
                    S[u], rel_cols[a:b], masked, want_after, greater[a:b], equal[a:b], after[a:b]
                )
            return greater, equal, after

        # distinct names, so that numba's on-disk cache keeps the two apart
        loop.__name__ = loop.__qualname__ = (
            "count_rows_parallel" if parallel else "count_rows_serial"
        )
        return numba.njit(parallel=parallel, cache=True)(loop)

    def _make_bad_rows(parallel):
        rng = numba.prange if parallel else range

        def bad_rows(bits, exponent):  # pragma: no cover
            # ``bits`` is the score matrix viewed as integers: a value is NaN
            # or infinite exactly when all its exponent bits are set
            n_rows, n_cols = bits.shape
            bad = np.zeros(n_rows, dtype=np.bool_)
            for u in rng(n_rows):
                row = bits[u]
                cnt = np.int32(0)
                for c in range(n_cols):
                    cnt = np.int32(cnt + np.int32((row[c] & exponent) == exponent))
                bad[u] = cnt > 0
            return bad

        bad_rows.__name__ = bad_rows.__qualname__ = (
            "bad_rows_parallel" if parallel else "bad_rows_serial"
        )
        return numba.njit(parallel=parallel, cache=True)(bad_rows)

    # Starting the thread pool costs tens of milliseconds per call on a small
    # machine, so small inputs take the serial version of each loop.
    _count_serial, _count_parallel = _make_row_loop(False), _make_row_loop(True)
    _bad_serial, _bad_parallel = _make_bad_rows(False), _make_bad_rows(True)

_PARALLEL_CELLS = 2_000_000

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


def count_above(S, rows, row_ptr, rel_cols, mask_ptr=None, mask_idx=None, want_after=False):
    """Counts for relevant entries grouped by user.

    Parameters
    ----------
    S : ndarray (n_users, n_items), float32 or float64, C-contiguous
    rows : int64 array of the users that have entries, increasing
    row_ptr : int64 array, entries of ``rows[i]`` are ``row_ptr[i]:row_ptr[i+1]``
    rel_cols : int64 array, the item (column) of each entry
    mask_ptr, mask_idx : CSR structure of the excluded items, or None
    want_after : bool, also count equal scores at higher item indices

    Returns
    -------
    greater, equal, after : int64 arrays aligned with ``rel_cols``
        ``equal`` includes the item itself.
    """
    if HAVE_NUMBA and S.dtype in (np.float32, np.float64) and S.flags.c_contiguous:
        has_mask = mask_ptr is not None
        mp = mask_ptr if has_mask else np.zeros(S.shape[0] + 1, dtype=np.int64)
        mi = mask_idx if has_mask else np.zeros(0, dtype=np.int64)
        big = rows.shape[0] * S.shape[1] >= _PARALLEL_CELLS
        loop = _count_parallel if big else _count_serial
        return loop(S, rows, row_ptr, rel_cols, mp, mi, has_mask, want_after)
    return _count_above_numpy(S, rows, row_ptr, rel_cols, mask_ptr, mask_idx, want_after)


def first_bad_value(S, chunk_rows=1024):
    """Position (row, col) of the first NaN or infinite score, or None; bounded memory."""
    if HAVE_NUMBA and S.dtype in (np.float32, np.float64) and S.flags.c_contiguous:
        if S.dtype == np.float32:
            bits, exponent = S.view(np.int32), np.int32(0x7F800000)
        else:
            bits, exponent = S.view(np.int64), np.int64(0x7FF0000000000000)
        bad = (_bad_parallel if S.size >= _PARALLEL_CELLS else _bad_serial)(bits, exponent)
        if not bad.any():
            return None
        u = int(np.argmax(bad))
        return u, int(np.argmax(~np.isfinite(S[u])))
    for lo in range(0, S.shape[0], chunk_rows):
        block = S[lo : lo + chunk_rows]
        nf = ~np.isfinite(block)
        if nf.any():
            u, c = np.unravel_index(int(np.argmax(nf)), nf.shape)
            return lo + int(u), int(c)
    return None
