"""Long frames, one user at a time: each user's predictions sorted and placed in one pass.

:func:`frame_places` is what :func:`recmetrics.from_frames` computes over
the rows of two long frames coded as integers (users, items), written into
preallocated outputs instead of chains of whole-column NumPy passes: the
predictions grouped by user (a counting sort, skipped when they come
grouped), then per user, compiled and in parallel over blocks of users,

* its rows sorted by item, which finds a repeated (user, item) pair and
  each truth row's prediction row (a binary search);
* its rows sorted by decreasing score (then, for trec_eval's order, by
  ``skey``; then by row), with the tie groups: for each truth row that was
  predicted, the items above it, the size of its score group, its place in
  the group and the number of relevant truth rows in the group.

Every number is the one the NumPy path of :mod:`recmetrics.inputs.frame_rows`
computes, bit for bit (``tests/test_frames_kernel.py``). Without numba, or
for a small input while the kernel is not compiled (see ``_dispatch``), it
returns None and the caller takes that path.
"""

from __future__ import annotations

import numpy as np

from ._dispatch import CHUNK_CELLS, HAVE_NUMBA, _compiled, _numpy_path_notice, _parallel, numba

# users per block of the parallel loop: at most this many blocks
_MAX_BLOCKS = 64

if HAVE_NUMBA:

    @numba.njit(cache=True, nogil=True)
    def _group_rows(codes, n_groups):  # pragma: no cover
        # rows per group (codes < 0: no group), their pointers and the rows in
        # group order (stable); no rows (an empty array) when every row has a
        # group and they come grouped in increasing order
        counts = np.zeros(n_groups, dtype=np.int64)
        grouped = True
        prev = 0
        for i in range(codes.shape[0]):
            c = codes[i]
            if c < 0:
                grouped = False
                continue
            counts[c] += 1
            if c < prev:
                grouped = False
            prev = c
        ptr = np.zeros(n_groups + 1, dtype=np.int64)
        for g in range(n_groups):
            ptr[g + 1] = ptr[g] + counts[g]
        if grouped:
            return counts, ptr, np.empty(0, dtype=np.int64)
        rows = np.empty(ptr[n_groups], dtype=np.int64)
        fill = ptr[:-1].copy()
        for i in range(codes.shape[0]):
            c = codes[i]
            if c >= 0:
                rows[fill[c]] = i
                fill[c] += 1
        return counts, ptr, rows

    @numba.njit(inline="always")
    def _ahead(a, b, v, key, by_score):  # pragma: no cover
        # whether local row a sorts before b: by decreasing v (by_score),
        # then increasing key, then row (rows are distinct: a total order)
        if by_score and v[a] != v[b]:
            return v[a] > v[b]
        if key[a] != key[b]:
            return key[a] < key[b]
        return a < b

    @numba.njit(cache=True, nogil=True)
    def _sort_local(idx, buf, m, v, key, by_score):  # pragma: no cover
        # idx[:m] sorted by _ahead: insertion sorts of runs of 16, then
        # bottom-up merges through buf
        for lo in range(0, m, 16):
            hi = min(lo + 16, m)
            for i in range(lo + 1, hi):
                x = idx[i]
                j = i - 1
                while j >= lo and _ahead(x, idx[j], v, key, by_score):
                    idx[j + 1] = idx[j]
                    j -= 1
                idx[j + 1] = x
        width = 16
        in_buf = False
        while width < m:
            src, dst = (buf, idx) if in_buf else (idx, buf)
            for lo in range(0, m, 2 * width):
                mid, hi = min(lo + width, m), min(lo + 2 * width, m)
                i, j, k = lo, mid, lo
                while i < mid and j < hi:
                    if _ahead(src[j], src[i], v, key, by_score):
                        dst[k] = src[j]
                        j += 1
                    else:
                        dst[k] = src[i]
                        i += 1
                    k += 1
                while i < mid:
                    dst[k] = src[i]
                    i += 1
                    k += 1
                while j < hi:
                    dst[k] = src[j]
                    j += 1
                    k += 1
            in_buf = not in_buf
            width *= 2
        if in_buf:
            idx[:m] = buf[:m]

    @numba.njit(cache=True, nogil=True)
    def _first_codes(a, b, low, span):  # pragma: no cover
        # codes in order of first appearance (a, then b) from a table of the
        # span of values: table[x - low] is x's code, -1 until x is met
        table = np.full(span, -1, dtype=np.int64)
        codes = np.empty(a.shape[0] + b.shape[0], dtype=np.int64)
        distinct = np.empty(min(span, codes.shape[0]), dtype=a.dtype)
        k = 0
        for part, offset in ((a, 0), (b, a.shape[0])):
            for i in range(part.shape[0]):
                x = part[i]
                c = table[x - low]
                if c < 0:
                    c = table[x - low] = k
                    distinct[k] = x
                    k += 1
                codes[offset + i] = c
        return codes, distinct[:k]

    @numba.njit(cache=True, nogil=True)
    def _hash_items(item, m, table):  # pragma: no cover
        # the user's m items into an open-addressing table (local rows, -1:
        # empty) of a power-of-two size >= 2m; returns the size and the first
        # local row whose item an earlier row holds (-1: none; not inserted)
        size = 2
        while size < 2 * m:
            size *= 2
        table[:size] = -1
        first = -1
        for t in range(m):
            h = _slot(item[t], size)
            while table[h] >= 0 and item[table[h]] != item[t]:
                h = (h + 1) & (size - 1)
            if table[h] < 0:
                table[h] = t
            elif first < 0:
                first = t
        return size, first

    @numba.njit(inline="always")
    def _slot(x, size):  # pragma: no cover
        # a multiplicative hash of an item code (int64 arithmetic wraps)
        return ((x ^ (x >> 17)) * 0x2545F4914F6CDD1D >> 20) & (size - 1)

    @numba.njit(inline="always")
    def _lookup(x, item, table, size):  # pragma: no cover
        h = _slot(x, size)
        while table[h] >= 0:
            if item[table[h]] == x:
                return table[h]
            h = (h + 1) & (size - 1)
        return -1

    @numba.njit(cache=True, nogil=True)
    def _count_place(t, m, v, skey, trec):  # pragma: no cover
        # the rows above local row t (higher score), tied with it (itself
        # included) and tied before it in trec_eval's order: counted, no sort
        gt = eq = ahead = 0
        vt, kt = v[t], skey[t]
        for q in range(m):
            gt += v[q] > vt
            tie = v[q] == vt
            eq += tie
            if trec:
                ahead += tie & ((skey[q] < kt) | ((skey[q] == kt) & (q < t)))
        return gt, eq, ahead

    @numba.njit(cache=True, nogil=True)
    def _score_runs(m, v, skey, by_score, buf, g_start, g_size, g_after, gid):  # pragma: no cover
        # a long list: sorted by decreasing score (then skey, then row), with
        # each local row's group start, size, place in it and group number
        for t in range(m):
            by_score[t] = t
        _sort_local(by_score, buf, m, v, skey, True)
        q = g = 0
        while q < m:
            e = q + 1
            while e < m and v[by_score[e]] == v[by_score[q]]:
                e += 1
            for k in range(q, e):
                t = by_score[k]
                g_start[t], g_size[t], g_after[t], gid[t] = q, e - q, k - q, g
            g += 1
            q = e

    @numba.njit(parallel=True, cache=True)
    def _frame_places(  # pragma: no cover
        p_ptr, p_rows, pi, values, text_rank, trec, t_ptr, t_rows, ti, relevant, width, out
    ):
        # out: found, s, greater, equal, after, rel (float64 rows of truth) and
        # per block the first repeated prediction row (-1 on entry: none).
        # A user with few truth rows counts each one's place (O(m) each); a
        # longer one sorts its list (_score_runs)
        found, s, greater, equal, after, rel, first_dup = out
        n_users = p_ptr.shape[0] - 1
        n_blocks = first_dup.shape[0]
        step = (n_users + n_blocks - 1) // n_blocks
        top = text_rank.shape[0] - 1
        for blk in numba.prange(n_blocks):
            w = width[0]
            row, item = np.empty(w, dtype=np.int64), np.empty(w, dtype=np.int64)
            v, skey = np.empty(w, dtype=np.float64), np.zeros(w, dtype=np.int64)
            table = np.empty(4 * w, dtype=np.int64)
            by_score, buf = np.empty(w, dtype=np.int64), np.empty(w, dtype=np.int64)
            g_start, g_size = np.empty(w, dtype=np.int64), np.empty(w, dtype=np.int64)
            g_after, gid = np.empty(w, dtype=np.int64), np.empty(w, dtype=np.int64)
            g_rel = np.zeros(w, dtype=np.int64)
            local = np.empty(width[1], dtype=np.int64)
            for u in range(blk * step, min(n_users, (blk + 1) * step)):
                a, m = p_ptr[u], p_ptr[u + 1] - p_ptr[u]
                for t in range(m):
                    r = a + t if p_rows.shape[0] == 0 else p_rows[a + t]
                    row[t], item[t], v[t] = r, pi[r], values[r]
                    if trec:  # larger id (text) first
                        skey[t] = top - text_rank[pi[r]]
                size, repeat = _hash_items(item, m, table)
                if repeat >= 0 and (first_dup[blk] < 0 or row[repeat] < first_dup[blk]):
                    first_dup[blk] = row[repeat]
                ta, n_t = t_ptr[u], t_ptr[u + 1] - t_ptr[u]
                n_found = 0
                for k in range(n_t):  # each truth row's prediction, from the table
                    j = ta + k if t_rows.shape[0] == 0 else t_rows[ta + k]
                    t = _lookup(ti[j], item, table, size)
                    local[k] = t
                    found[j] = t >= 0
                    n_found += t >= 0
                    if t < 0:
                        s[j], greater[j], equal[j], after[j] = -np.inf, 0.0, 1.0, 0.0
                if n_found > 24:
                    _score_runs(m, v, skey, by_score, buf, g_start, g_size, g_after, gid)
                for k in range(n_t):
                    t = local[k]
                    if t < 0:
                        continue
                    j = ta + k if t_rows.shape[0] == 0 else t_rows[ta + k]
                    if n_found > 24:
                        gt, eq, ahead = g_start[t], g_size[t], g_after[t] if trec else 0
                        g_rel[gid[t]] += relevant[j]
                    else:
                        gt, eq, ahead = _count_place(t, m, v, skey, trec)
                    s[j], greater[j], equal[j], after[j] = v[t], gt, eq, ahead
                for k in range(n_t):  # the relevant rows predicted in each one's group
                    t = local[k]
                    if t < 0:
                        rel[ta + k if t_rows.shape[0] == 0 else t_rows[ta + k]] = 0
                        continue
                    if n_found > 24:
                        n_rel = g_rel[gid[t]]
                    else:
                        n_rel = 0
                        for k2 in range(n_t):
                            t2 = local[k2]
                            j2 = ta + k2 if t_rows.shape[0] == 0 else t_rows[ta + k2]
                            n_rel += (t2 >= 0) and relevant[j2] and v[t2] == v[t]
                    rel[ta + k if t_rows.shape[0] == 0 else t_rows[ta + k]] = n_rel
                if n_found > 24:
                    for k in range(n_t):
                        if local[k] >= 0:
                            g_rel[gid[local[k]]] = 0


def frame_places(pu, pi, values, n_users, tu, ti, relevant, text_rank=None):
    """Each truth row's place among its user's predictions, or None for the NumPy path.

    ``pu`` and ``pi`` code each prediction row's user (``-1``: not
    evaluated) and item, ``values`` its score; ``tu``, ``ti`` code each
    truth row, ``relevant`` says which truth rows count as relevant;
    ``text_rank`` (trec_eval's order) is each item's place in the order of
    the ids as text, larger ids first within a tie. All int64, float64, bool.

    Returns None when numba is absent, or for a small input while the
    kernel is not compiled; else ``(counts, first_dup, found, s, greater,
    equal, after, rel)``: the prediction rows of each user, the first
    prediction row (input order) of a user with a code whose (user, item)
    pair an earlier row holds (-1: none), and per truth row whether its pair
    was predicted, its score (``-inf`` if not) and, in the user's order by
    decreasing score, the items above it, the size of its score group (1 if
    not predicted), the group's items before it in trec_eval's order (0
    unless ``text_rank`` is given) and the group's relevant truth rows.
    Rows of truth with ``tu < 0`` are not set.

    Examples
    --------
    >>> pu, pi = np.array([0, 0, 0]), np.array([5, 6, 7])
    >>> out = frame_places(pu, pi, np.array([0.5, 0.9, 0.5]), 1, np.array([0]), np.array([7]),
    ...                    np.array([True]))
    >>> out is None or [float(x[0]) for x in out[3:]] == [0.5, 1.0, 2.0, 0.0, 1.0]
    True
    """
    n, n_t = pu.shape[0], tu.shape[0]
    if not HAVE_NUMBA:
        _numpy_path_notice(n, entries=True)
        return None
    trec = text_rank is not None
    text_rank = np.zeros(0, dtype=np.int64) if text_rank is None else text_rank
    # read-only views: one compiled version, whether pandas lent its arrays or not
    pu, pi, tu, ti, text_rank = (_readonly(x, np.int64) for x in (pu, pi, tu, ti, text_rank))
    values, relevant = _readonly(values, np.float64), _readonly(relevant, np.bool_)
    found = np.empty(n_t, dtype=bool)
    floats = tuple(np.empty(n_t) for _ in range(5))
    dummy = np.zeros(1, dtype=np.int64)
    probe = (dummy, dummy, pi, values, text_rank, trec, dummy, dummy, ti, relevant, (1, 1))
    probe += ((found, *floats, dummy),)
    if not _compiled(_frame_places, probe, n + n_t, entries=True):
        return None
    counts, p_ptr, p_rows = _group_rows(pu, n_users)
    t_counts, t_ptr, t_rows = _group_rows(tu, n_users)
    width = (max(int(counts.max(initial=0)), 1), max(int(t_counts.max(initial=0)), 1))
    n_blocks = max(1, min(_MAX_BLOCKS, n_users, max(n, CHUNK_CELLS) // (4 * width[0])))
    first_dup = np.full(n_blocks, -1, dtype=np.int64)
    out = (found, *floats, first_dup)
    args = (p_ptr, p_rows, pi, values, text_rank, trec, t_ptr, t_rows, ti, relevant, width, out)
    _parallel(_frame_places, *args)
    repeats = first_dup[first_dup >= 0]
    first = int(repeats.min()) if repeats.shape[0] else -1
    return (counts, first, found, *floats)


def _readonly(values, dtype):
    """A read-only, C-contiguous view of ``values`` as ``dtype`` (a copy only if needed)."""
    view = np.ascontiguousarray(values, dtype=dtype).view()
    view.flags.writeable = False
    return view


def first_codes(a, b):
    """``pd.factorize`` of int64 ids ``a`` then ``b`` without hashing, or None.

    Returns ``(codes of a, codes of b, distinct)``: each id's place in order
    of first appearance (``a`` first), as :func:`pandas.factorize` numbers
    them, from a table over the span of the ids. None (the caller hashes)
    without numba, for a small input while the kernel is not compiled, for
    ids other than int64, or when the span exceeds four times the number of ids.

    Examples
    --------
    >>> out = first_codes(np.array([7, 3, 7]), np.array([9, 3]))
    >>> out is None or [x.tolist() for x in out] == [[0, 1, 0], [2, 1], [7, 3, 9]]
    True
    """
    n = a.shape[0] + b.shape[0]
    if not HAVE_NUMBA or a.dtype != np.int64 or b.dtype != np.int64 or n == 0:
        return None
    low = min(int(x.min()) for x in (a, b) if x.shape[0])
    span = max(int(x.max()) for x in (a, b) if x.shape[0]) - low + 1
    if span > 4 * n + 1024:
        return None
    a, b = (_readonly(x, a.dtype) for x in (a, b))
    if not _compiled(_first_codes, (a, b, low, span), n, entries=True):
        return None
    codes, distinct = _first_codes(a, b, low, span)
    return codes[: a.shape[0]], codes[a.shape[0] :], distinct
