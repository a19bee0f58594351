"""What each library does, one file per library: the single place that answers "what does X do?".

A provider file (``recmetrics/providers/<library>.py``) holds one
:class:`Provider`: the library's version read, how the preset was checked,
the convention keywords it sets differently from the package's defaults
(:data:`recmetrics.conventions.CONVENTION_KEYWORDS`), per-metric exceptions,
which ranking metrics it provides with which cutoff rule, its
beyond-accuracy definitions, and the source file and function behind each
choice. This package holds data only (it imports nothing from the metrics):
the presets of :func:`recmetrics.evaluate` (:mod:`recmetrics.conventions`)
and of :mod:`recmetrics.beyond` are read from it.

Adding a library is one new file here (found by its name; its place in the
tables is its ``order``) and its runner in ``tests/test_preset_parity.py``.

>>> from recmetrics.providers import PROVIDERS
>>> PROVIDERS["recbole"].keywords
{'gain': 'binary'}
>>> list(PROVIDERS)[:3]
['trec_eval', 'sklearn', 'ranx']
"""

from __future__ import annotations

import importlib
import pkgutil

from .._keywords import CONVENTION_KEYWORDS
from ._provider import CUTOFF_RULES, Provider

__all__ = [
    "Provider",
    "CUTOFF_RULES",
    "PROVIDERS",
    "PRESETS",
    "METRIC_OVERRIDES",
    "LIBRARIES",
    "SOURCES",
    "BEYOND_PRESETS",
    "BEYOND_SOURCES",
]


def _discover() -> dict[str, Provider]:
    """Every provider file of this package, in the order of the tables."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        provider = importlib.import_module(f"{__name__}.{info.name}").PROVIDER
        if provider.name != info.name:
            raise ValueError(f"providers/{info.name}.py holds the provider {provider.name!r}")
        found.append(provider)
    found.sort(key=lambda p: (p.order, p.name))
    return {p.name: p for p in found}


PROVIDERS: dict[str, Provider] = _discover()

_RANKING = [p for p in PROVIDERS.values() if p.ranking]

# Every keyword of every ranking preset (the defaults filled in).
PRESETS = {p.name: {**CONVENTION_KEYWORDS, **p.keywords} for p in _RANKING}

# Keywords that one metric of a library sets differently from the rest.
METRIC_OVERRIDES = {p.name: dict(p.metric_keywords) for p in _RANKING if p.metric_keywords}

# Library, version read, how it was checked, and what it does with ties.
LIBRARIES = {
    p.name: {
        "library": p.library,
        "version": p.version,
        "checked": p.checked,
        "ties": p.ties,
        "notes": p.notes,
    }
    for p in _RANKING
}

# Source file and function behind each metric of each library.
SOURCES = {p.name: dict(p.sources) for p in _RANKING}

# The beyond-accuracy presets: library -> metric -> keywords, and their sources.
BEYOND_PRESETS = {p.name: dict(p.beyond) for p in PROVIDERS.values() if p.beyond}
BEYOND_SOURCES = {p.name: dict(p.beyond_sources) for p in PROVIDERS.values() if p.beyond}
