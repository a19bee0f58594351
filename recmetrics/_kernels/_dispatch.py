"""What every kernel module shares: numba, the first-call routing, the notices, threads.

* ``HAVE_NUMBA`` and ``numba`` (None without it);
* the routing of the first calls (:func:`_compiled`): an input whose NumPy
  path costs a fraction of a second takes that path until the compiled
  kernel for its types is ready, compiled in this process or found in
  numba's on-disk cache (:func:`_ready`, which asks each kernel's own cache,
  kept next to the source file that defines it), or until the NumPy work of
  the process's calls adds up to as much as one large call;
* the one-line notice before numba compiles one of the package's kernels
  (``RECMETRICS_COMPILE_NOTICE=0`` silences it), and the one warning of the
  NumPy path without numba;
* :func:`_parallel`, which serialises the parallel kernels under numba's
  "workqueue" threading layer.

The switches the tests set (``_SMALL_TO_NUMPY``, ``_NUMPY_MAX_WORK``,
``_NUMPY_MAX_ENTRIES``, ``_NUMPY_SPENT``, ``_ready``) are read here, so they
are set here.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import warnings

try:  # pragma: no cover - exercised through whichever path is available
    import numba
    from numba.core import event as _numba_event

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    numba = _numba_event = None
    HAVE_NUMBA = False

# Work on at most this many matrix cells at a time (counting, block sizes of
# the metric helpers), so that extra memory stays bounded whatever the number
# of users: 4 million cells are 32 MB of float64.
CHUNK_CELLS = 4_000_000

# Handing rows to the thread pool costs about 3 us per call with the
# OpenMP layer and 0.1 ms with numba's fallback "workqueue" layer, so
# only small inputs take the serial version of each loop. (Measured on 2
# cores: 10,000 x 100 float64, counting 5.1 ms serial, 1.8 ms parallel;
# the parallel build is faster even on one thread, 3.6 ms.)
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
#
# The limits bound the NumPy work of a process too, not only of one call: a
# loop of small calls (an evaluate per fold, per bootstrap draw, or a
# benchmark's repetitions) would otherwise stay on the NumPy path for good in
# a fresh environment (10,000 x 100 scores, five metrics @10: 27 ms a call,
# 5.6 ms compiled). Each kernel's NumPy work is added up, and the first call
# that takes the sum past its limit compiles the kernel (cached on disk after
# that): each kernel spends at most about one limit's worth of NumPy time,
# 0.2-0.3 s, before it is compiled (a large call compiles at once and spends
# none).
_NUMPY_MAX_WORK = 1 << 26  # comparisons (count_above), cells (dense_nonzero, NaN check)
_NUMPY_MAX_ENTRIES = 1 << 21  # entries (tie_groups)
# id of a kernel -> the work its NumPy path has done in this process
_NUMPY_SPENT = {}
# False: every input takes the compiled kernels when numba is present (tests)
_SMALL_TO_NUMPY = True
# (id of a kernel, argument types) -> whether numba's on-disk cache holds it
_CACHED = {}
# What the one-line notice says a first compilation costs: the "after" runs
# of bench_cold_start.py (first call minus warm first call) on 2 cores.
_COMPILE_SECONDS = "about 10 s"
_NOTICES = {"compile": False, "numpy": False}
_LOG = logging.getLogger("recmetrics")
# the kernels live in this package's modules (recmetrics._kernels._counting, ...)
_PACKAGE = __name__.rpartition(".")[0] + "."


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
            # when the source file changed. The kernel locates it: named
            # after the module that defines the kernel (_counting, _ties,
            # ...), in that module's __pycache__ or under NUMBA_CACHE_DIR
            cache = kernel._cache
            index = cache._cache_file._load_index()
            _CACHED[key] = cache._index_key(sig, kernel.targetctx.codegen()) in index
        return _CACHED[key]
    except Exception:  # another numba's internals, caching off: not known to be ready
        return False


def _compiled(kernel, args, work, entries=False):
    """Whether to call the compiled ``kernel``: it is ready, or the NumPy path has done enough.

    The NumPy path is taken while ``work`` (in comparisons or cells, or in
    entries when ``entries``), added to this kernel's earlier NumPy work in
    this process, stays within the limit.
    """
    limit = _NUMPY_MAX_ENTRIES if entries else _NUMPY_MAX_WORK
    if not _SMALL_TO_NUMPY or work > limit or _ready(kernel, args):
        return True
    spent = _NUMPY_SPENT.get(id(kernel), 0) + work
    if spent > limit:  # small calls that add up: compile now (see _NUMPY_SPENT)
        return True
    _NUMPY_SPENT[id(kernel)] = spent
    return False


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
    # recmetrics/, the parent of this package (recmetrics/_kernels/)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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
        """Announces the first compilation of one of this package's kernels."""

        # the Jaccard kernel of recmetrics.beyond compiles in about 1 s: no notice
        quiet = frozenset({"_jaccard_sums", "_popcount"})

        def on_start(self, event):
            data = event.data if isinstance(event.data, dict) else {}
            py_func = getattr(data.get("dispatcher"), "py_func", None)
            if (
                py_func is not None
                and (py_func.__module__ or "").startswith(_PACKAGE)
                and py_func.__name__ not in self.quiet
            ):
                _announce_compile()

        def on_end(self, event):
            pass

    _numba_event.register("numba:compile", _CompileListener())
