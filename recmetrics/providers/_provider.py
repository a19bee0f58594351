"""What one library does: the record every provider file fills in."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .._keywords import CONVENTION_KEYWORDS

__all__ = ["Provider", "CUTOFF_RULES"]

# How a library offers a metric: only with a cutoff, only without, or both.
CUTOFF_RULES = ("k", "none", "both")


@dataclass(frozen=True)
class Provider:
    """One library's variant of the metrics, and where each choice was read.

    Attributes
    ----------
    name : str
        The preset's name (``convention="..."``); the provider file's name.
    order : int
        Its place in the tables (:func:`recmetrics.conventions.describe`,
        :func:`recmetrics.compare_conventions`): smaller first.
    library, version, checked : str
        The library's name, the version read or run, and how the preset
        was checked against it.
    ties : str
        What the library does with tied scores.
    notes : str
        Its other quirks, in one paragraph.
    keywords : mapping
        The convention keywords (:data:`recmetrics.conventions.CONVENTION_KEYWORDS`)
        it sets differently from the package's defaults.
    metric_keywords : mapping
        Metric -> keywords that one metric of the library sets differently
        from the rest.
    metrics : mapping
        Ranking metric (a canonical name of the registry) -> cutoff rule:
        ``'k'`` (only with a cutoff), ``'none'`` (only without), ``'both'``.
    sources : mapping
        Metric (or ``'ties'``, ``'no_relevant'``) -> the source file and
        function read.
    beyond : mapping
        Beyond-accuracy metric -> the keyword values of the library's
        definition (:mod:`recmetrics.beyond`).
    beyond_sources : mapping
        Beyond-accuracy metric -> the source file and function read.
    """

    name: str
    order: int
    library: str
    version: str
    checked: str = ""
    ties: str = ""
    notes: str = ""
    keywords: Mapping[str, object] = field(default_factory=dict)
    metric_keywords: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    metrics: Mapping[str, str] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    beyond: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    beyond_sources: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self):
        unknown = set(self.keywords).union(*map(set, self.metric_keywords.values())) - set(
            CONVENTION_KEYWORDS
        )
        if unknown:
            raise ValueError(f"provider {self.name!r} sets unknown keywords {sorted(unknown)}")
        bad = {m: c for m, c in self.metrics.items() if c not in CUTOFF_RULES}
        if bad:
            raise ValueError(f"provider {self.name!r}: cutoff rules must be {CUTOFF_RULES}: {bad}")
        stray = set(self.metric_keywords) - set(self.metrics)
        if stray:
            raise ValueError(f"provider {self.name!r} overrides metrics it lacks: {stray}")
        if set(self.beyond_sources) != set(self.beyond):
            raise ValueError(f"provider {self.name!r}: every beyond preset needs its source")

    @property
    def ranking(self) -> bool:
        """Whether the library provides ranking metrics (a preset of :func:`evaluate`)."""
        return bool(self.metrics)
