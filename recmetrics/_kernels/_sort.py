"""A heap sort compiled with numba, shared by the counting and the tie kernels.

numba keys its on-disk cache of a kernel by the kernel's own source file:
a kernel of another module that calls these functions is not recompiled
when only this file changes. After editing it, clear numba's cache (the
``*.nbi``/``*.nbc`` files in ``recmetrics/_kernels/__pycache__``, or the
``NUMBA_CACHE_DIR``); an installed package is always consistent.
"""

from __future__ import annotations

from ._dispatch import HAVE_NUMBA, numba

if HAVE_NUMBA:

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
