"""``dir()`` of each public subpackage shows its public API, not its imports.

``dir(rm.models)`` used to list ``np``, ``sp``, ``math``, ``warnings`` and the
validation helpers it imports. Each module below defines ``__dir__`` as its
``__all__``; every name of ``__all__`` resolves. (``rm.spark`` and
``rm.dask``, in recmetrics/distributed/, are not covered yet.)
"""

from __future__ import annotations

import types

import pytest

import recmetrics as rm

SUBMODULES = [
    "models",
    "datasets",
    "conventions",
    "stats",
    "split",
    "sampled",
    "beyond",
    "ranking",
    "evaluation",
    "io",
]


@pytest.mark.parametrize("name", SUBMODULES)
def test_dir_is_the_public_api(name):
    module = getattr(rm, name)
    assert isinstance(module, types.ModuleType)
    shown = dir(module)
    assert shown == sorted(module.__all__)
    for attr in shown:
        value = getattr(module, attr)  # every public name resolves
        assert not (isinstance(value, types.ModuleType) and attr not in module.__all__)
    for leaked in ("np", "pd", "sp", "math", "numbers", "warnings", "annotations"):
        assert leaked not in shown, f"rm.{name} shows {leaked}"


def test_models_shows_its_models_and_tuning():
    assert dir(rm.models) == [
        "TuneResult",
        "als",
        "bpr",
        "ease",
        "item_knn",
        "last_item",
        "popularity",
        "tune",
        "user_knn",
    ]
    assert rm.models.np is not None  # the imports still work, they are just not listed
