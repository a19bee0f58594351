"""Shared fixtures of the test suite, and the markers of the peer-library tests.

Markers (registered in pyproject.toml, ``--strict-markers``):

* ``crosslib``: the test runs a peer library (scikit-learn, pytrec_eval, ranx)
  through :mod:`recmetrics.peers`; ``-m "not crosslib"`` runs without them.
* ``slow``: the test takes more than about 2 s; ``-m "not slow"`` is the quick
  run.

The doctests of :mod:`recmetrics.peers` cannot carry a decorator, so
:func:`pytest_collection_modifyitems` marks them here: all ``crosslib``, the
ranx ones (a subprocess each, 3-5 s) also ``slow``.

ranx runs in a subprocess (numba's JIT off, see
:func:`recmetrics.peers.ranx_evaluate_many`); importing ranx there costs about
3.5 s, so every test module's ranx inputs go through ONE subprocess: a module
defines ``ranx_jobs()``, a list of jobs for ``peers.ranx_evaluate_many``, and
its tests take the fixture ``ranx_results``, the list of per-user results of
those jobs, in order.
"""

from __future__ import annotations

import pytest

from recmetrics import peers

# doctests of recmetrics.peers that start a ranx subprocess
_SLOW_DOCTESTS = {"recmetrics.peers.ranx_evaluate", "recmetrics.peers.ranx_evaluate_many"}


def pytest_collection_modifyitems(items):
    for item in items:
        if type(item).__name__ == "DoctestItem" and item.name.startswith("recmetrics.peers"):
            item.add_marker(pytest.mark.crosslib)
            if item.name in _SLOW_DOCTESTS:
                item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def _ranx_by_module(request):
    """{module name: results of its ranx_jobs()} for every module using ranx_results."""
    modules = []
    for item in request.session.items:
        if "ranx_results" in getattr(item, "fixturenames", ()) and item.module not in modules:
            modules.append(item.module)
    jobs = {m.__name__: list(m.ranx_jobs()) for m in modules}
    results = iter(peers.ranx_evaluate_many([job for js in jobs.values() for job in js]))
    return {name: [next(results) for _ in js] for name, js in jobs.items()}


@pytest.fixture(scope="module")
def ranx_results(request, _ranx_by_module):
    """The per-user ranx results (DataFrames) of this module's ranx_jobs(), in order."""
    return _ranx_by_module[request.module.__name__]
