"""Counting kernels: where each relevant item falls in its user's full ranking.

For every relevant (user, item) entry the metrics need the number of the
user's non-excluded items scored strictly higher, scored equal, and (for the
trec_eval tie order) scored equal with a higher item index: counted, never
sorted, reading the matrix from memory once (the method: ``_counting``).
Dense relevance matrices and masks are turned into their CSR structure by a
compiled two-pass reader (:func:`dense_nonzero`).

With numba (pinned in the book's environment) the rows run compiled and in
parallel; without it a chunked NumPy version with the same results is used,
and the first call large enough to notice says so once (a ``RuntimeWarning``
naming ``pip install numba``).

The first call: numba compiles a kernel the first time it meets a type of
input and keeps the machine code in its on-disk cache, so a fresh
environment pays several seconds once. Inputs whose NumPy path costs a
fraction of a second take that path (the same results, bit for bit) until
the compiled kernel is ready, compiled in this process or found in numba's
cache. A larger first call compiles, as does the small call that takes a
kernel's NumPy work in the process past the same limit (a loop of small
calls compiles once instead of staying on the slower path), and says so first,
once per process, in one line on standard error (the logger ``recmetrics``;
``RECMETRICS_COMPILE_NOTICE=0`` silences it); it says nothing when the cache
is warm. See ``book/data/benchmarks/cold_start.json``.

Modules, from the bottom layer up:

* ``_dispatch``: numba detection, the first-call routing (numba's cache
  index, ``_SMALL_TO_NUMPY``, the size limits, the NumPy work done so far),
  the compile notice and the NumPy-path warning, ``CHUNK_CELLS``, the threading-layer guard;
* ``_sort``: a compiled heap sort shared by the two kernels below;
* ``_counting``: :func:`count_above` and :func:`first_bad_value`;
* ``_ties``: :func:`tie_groups` and :func:`runs_of_equal`;
* ``_nonzero``: :func:`dense_nonzero`;
* ``_frames``: :func:`frame_places` (long data frames, one pass per user)
  and :func:`first_codes` (integer ids coded without hashing);
* ``_entries``: ``expected_entries``, the writer of a ``ties='expected'``
  Ranking's arrays (one pass per user, in :func:`tie_groups`' order);
* ``_pairs``: :func:`jaccard_pair_sums` (intra-list diversity);
* ``_segments``: :func:`segment_sums` (the per-user sums every metric ends
  in: ``Ranking.per_user_sum``).

The routing switches (``_SMALL_TO_NUMPY``, ``_NUMPY_MAX_WORK``,
``_NUMPY_MAX_ENTRIES``, ``_NUMPY_SPENT``, ``_ready``) and the compiled kernels are read where
they are defined: set or patch them there (``_dispatch``, ``_counting``,
...), not here.
"""

from ._counting import _DEPTH_MIN_ITEMS as _DEPTH_MIN_ITEMS
from ._counting import _SWEEP_MAX_F32 as _SWEEP_MAX_F32
from ._counting import _SWEEP_MAX_F64 as _SWEEP_MAX_F64
from ._counting import _count_above_numpy as _count_above_numpy
from ._counting import count_above, first_bad_value
from ._dispatch import _NOTICES as _NOTICES
from ._dispatch import _PARALLEL_CELLS as _PARALLEL_CELLS
from ._dispatch import CHUNK_CELLS, HAVE_NUMBA
from ._dispatch import _ready as _ready
from ._frames import first_codes, frame_places
from ._nonzero import dense_nonzero
from ._pairs import jaccard_pair_sums
from ._segments import segment_sums
from ._ties import runs_of_equal, tie_groups

if HAVE_NUMBA:  # the compiled kernels (read by tests/test_kernels.py)
    from ._counting import _count_parallel as _count_parallel
    from ._counting import _count_serial as _count_serial
    from ._counting import _lower_bound as _lower_bound
    from ._nonzero import _nonzero_parallel as _nonzero_parallel
    from ._nonzero import _nonzero_serial as _nonzero_serial
    from ._ties import _tie_groups as _tie_groups

__all__ = [
    "CHUNK_CELLS",
    "HAVE_NUMBA",
    "count_above",
    "dense_nonzero",
    "first_bad_value",
    "first_codes",
    "frame_places",
    "jaccard_pair_sums",
    "runs_of_equal",
    "segment_sums",
    "tie_groups",
]
