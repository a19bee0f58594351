"""The CSR structure of a dense matrix's nonzero cells, read by a compiled two-pass kernel.

Dense relevance matrices and masks become CSR structure here
(:func:`dense_nonzero`); without numba, or for a small matrix while the
compiled kernel is not ready, the caller uses ``np.nonzero``.
"""

from __future__ import annotations

import numpy as np

from ._dispatch import _PARALLEL_CELLS, HAVE_NUMBA, _compiled, _numpy_path_notice, _parallel, numba

if HAVE_NUMBA:

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
        # cell (p == end) keeps every write inside the row's slice. (A branch
        # per cell, taken at the nonzero ones, costs a misprediction at each:
        # 10,000 x 100 float64 relevance, one thread, AMD EPYC: 1.6, 2.2 and
        # 5.3 ms for 6 %, 12 % and 45 % nonzero cells, against 1.5, 1.6 and
        # 1.7 ms so.)
        for c in range(lo, hi):
            v = row[c]
            cols[p] = c
            vals[p] = v
            p += np.int64(v != 0)
            if p == end:
                break
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
                        p = _compact(row, lo, min(lo + block, n_cols), cols, vals, p, end)
            return indptr, cols, vals

        nonzero.__name__ = nonzero.__qualname__ = (
            "nonzero_parallel" if parallel else "nonzero_serial"
        )
        return numba.njit(parallel=parallel, cache=True)(nonzero)

    # serial and parallel builds: see _PARALLEL_CELLS
    _nonzero_serial, _nonzero_parallel = _make_nonzero(False), _make_nonzero(True)


def dense_nonzero(A):
    """CSR structure ``(indptr, cols, values)`` of the nonzero cells of a 2-D array.

    Compiled and parallel over rows: one pass over ``A`` counts the nonzero
    cells and marks the blocks of 64 cells that hold one, a second visits
    only the marked blocks (so a sparse matrix is read once, at memory
    speed); extra memory is one flag per 64 cells of ``A`` beyond the
    result. None
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
