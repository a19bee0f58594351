"""The one registry of metric names: one spec per ranking metric.

Every consumer that turns a *name* into a metric reads this module:
:func:`recmetrics.evaluate` (``"ndcg@10"``), the sampled metrics
(:func:`recmetrics.metric_function`), the convention presets (which library
provides which metric, with or without a cutoff) and
:func:`recmetrics.conventions.describe`. Adding a metric is one function in
its chapter's module plus one :class:`MetricSpec` here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .._validation import check_k
from ..providers import CUTOFF_RULES, PROVIDERS
from . import beyond
from .interpolated_precision import IPREC_AT_LEVEL, precision_11pt
from .judged import bpref, judged, unjudged
from .ndcg import cg, dcg, ndcg
from .roc_auc import auc
from .topn import (
    arhr,
    average_precision,
    f1,
    hit_ratio,
    precision,
    r_precision,
    recall,
    reciprocal_rank,
)
from .trec_sets import (
    relative_precision,
    set_f,
    set_precision,
    set_recall,
    set_relative_precision,
)

__all__ = ["MetricSpec", "REGISTRY", "CUTOFF_RULES", "get", "parse", "names", "supported_by"]

# What a metric is a function of: the ranking of the relevant items (one
# value per user), the recommended lists (one value per user: novelty,
# diversity, ...), or the lists of all users together (one value for the
# catalogue: coverage, concentration).
KINDS = ("ranking", "list", "catalogue")


@dataclass(frozen=True)
class MetricSpec:
    """What the package knows about one ranking metric.

    Attributes
    ----------
    name : str
        The canonical name used in tables (``"ndcg"``, ``"map"``).
    function : callable
        The metric function of the package (``recmetrics.ndcg``, ...).
    aliases : tuple of str
        Other accepted names (``"average_precision"``, ``"recip_rank"``).
    takes_cutoff : bool
        Whether ``name@k`` is allowed (AUC has no cutoff).
    keywords : tuple of str
        The convention keywords the function takes beyond ``ties`` and
        ``no_relevant`` (passed on by :func:`recmetrics.evaluate`).
    rank_cutoff_required : bool
        Whether the sampled metrics need ``@k`` for it (a function of one
        rank that is constant without a cutoff, like recall).
    kind : {'ranking', 'list', 'catalogue'}
        What the metric is a function of (see :data:`KINDS`): beyond-accuracy
        metrics take the recommended lists instead of the ranking.
    needs : tuple of str
        The item data a beyond-accuracy metric takes from
        :func:`recmetrics.evaluate` (``'popularity'``, ``'features'``,
        ``'history'``, ``'n_items'``, ``'truth'``); a tuple of alternatives
        is not used: a metric with several models (serendipity) names all
        the data its default needs. For a ranking metric, ``'n_items'``
        says that its value depends on the catalogue size (AUC), so a
        function of one rank (:func:`recmetrics.metric_function`) needs it.
    """

    name: str
    function: Callable
    aliases: tuple[str, ...] = ()
    takes_cutoff: bool = True
    keywords: tuple[str, ...] = ()
    rank_cutoff_required: bool = False
    kind: str = "ranking"
    needs: tuple[str, ...] = ()


REGISTRY: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec(
            "precision",
            precision,
            aliases=("p", "prec"),
            keywords=("short_lists",),
            rank_cutoff_required=True,
        ),
        MetricSpec(
            "recall",
            recall,
            aliases=("r",),
            keywords=("recall_denominator",),
            rank_cutoff_required=True,
        ),
        MetricSpec("f1", f1, aliases=("f1_score",), rank_cutoff_required=True),
        MetricSpec(
            "hr",
            hit_ratio,
            aliases=("hit_ratio", "hit", "hitrate", "hit_rate"),
            rank_cutoff_required=True,
        ),
        MetricSpec("rprec", r_precision, aliases=("r_precision",), takes_cutoff=False),
        MetricSpec("arhr", arhr),
        MetricSpec("mrr", reciprocal_rank, aliases=("rr", "recip_rank", "reciprocal_rank")),
        MetricSpec(
            "map",
            average_precision,
            aliases=("ap", "average_precision"),
            keywords=("ap_denominator", "ap_ties", "short_lists"),
        ),
        MetricSpec("ndcg", ndcg, keywords=("gain", "idcg", "log_base", "discount")),
        MetricSpec("dcg", dcg, keywords=("gain", "log_base", "discount")),
        MetricSpec("cg", cg, keywords=("gain",)),
        MetricSpec("auc", auc, aliases=("roc_auc",), takes_cutoff=False, needs=("n_items",)),
        # incomplete judgments: ir_measures' Judged@k, trec_eval's bpref (no cutoff)
        MetricSpec("judged", judged, aliases=("judged_at",), keywords=("short_lists",)),
        MetricSpec("unjudged", unjudged, aliases=("unj",), keywords=("short_lists",)),
        MetricSpec("bpref", bpref, aliases=("binary_preference",), takes_cutoff=False),
        # trec_eval's set measures (the whole list as a set) and relative_P_k
        MetricSpec("set_precision", set_precision, aliases=("set_p",), takes_cutoff=False),
        MetricSpec("set_recall", set_recall, takes_cutoff=False),
        # beta = 1 (trec_eval's set_F, set_F.1.0); other betas: rm.set_f(beta=...)
        MetricSpec("set_f", set_f, aliases=("set_f1",), takes_cutoff=False),
        MetricSpec(
            "set_relative_precision",
            set_relative_precision,
            aliases=("set_relative_p",),
            takes_cutoff=False,
        ),
        MetricSpec(
            "relative_precision",
            relative_precision,
            aliases=("relative_p",),
            rank_cutoff_required=True,
        ),
        # interpolated precision: one name per trec_eval recall level (0.00 .. 1.00;
        # rm.iprec_at_recall(recall_level=x) for another level), and their mean
        *(MetricSpec(name, fn, takes_cutoff=False) for name, fn in IPREC_AT_LEVEL.items()),
        MetricSpec("precision_11pt", precision_11pt, aliases=("11pt_avg",), takes_cutoff=False),
        # beyond accuracy: functions of the recommended lists and item data
        MetricSpec(
            "coverage",
            beyond.coverage,
            aliases=("item_coverage", "catalog_coverage", "catalogue_coverage"),
            kind="catalogue",
            needs=("n_items",),
        ),
        MetricSpec(
            "gini", beyond.gini, aliases=("gini_index",), kind="catalogue", needs=("n_items",)
        ),
        MetricSpec(
            "entropy", beyond.entropy, aliases=("shannon_entropy",), kind="catalogue", needs=()
        ),
        MetricSpec(
            "novelty",
            beyond.novelty,
            aliases=("self_information", "surprisal"),
            kind="list",
            needs=("popularity",),
        ),
        MetricSpec(
            "arp",
            beyond.average_popularity,
            aliases=("average_popularity",),
            kind="list",
            needs=("popularity",),
        ),
        MetricSpec(
            "aplt",
            beyond.long_tail_share,
            aliases=("long_tail_share", "long_tail"),
            kind="list",
            needs=("popularity",),
        ),
        MetricSpec(
            "ild",
            beyond.intra_list_diversity,
            aliases=("intra_list_diversity", "diversity"),
            kind="list",
            needs=("features",),
        ),
        MetricSpec(
            "serendipity",
            beyond.serendipity,
            kind="list",
            needs=("truth", "popularity"),
        ),
        MetricSpec(
            "calibration",
            beyond.calibration,
            aliases=("miscalibration", "calibration_kl"),
            kind="list",
            needs=("history", "features"),
        ),
    )
}

_BY_NAME = {alias: spec for spec in REGISTRY.values() for alias in (spec.name, *spec.aliases)}
# a base name of letters, digits and underscores, with a decimal point in a
# parameter (trec_eval's iprec_at_recall_0.10)
_NAME = re.compile(r"^\s*([a-z_0-9.]+?)\s*(?:@\s*(\d+))?\s*$")


def names() -> list[str]:
    """Every accepted name (canonical names and aliases), sorted."""
    return sorted(_BY_NAME)


def get(name: str) -> MetricSpec:
    """The spec of a metric name or alias (case-insensitive, without ``@k``)."""
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings like 'ndcg@10', got {name!r}")
    spec = _BY_NAME.get(name.strip().lower())
    if spec is None:
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(f"unknown metric {name!r}; known metrics: {known} (aliases: {_aliases()})")
    return spec


def _aliases() -> str:
    return ", ".join(sorted(a for s in REGISTRY.values() for a in s.aliases))


def parse(name: str) -> tuple[MetricSpec, int | None]:
    """Read ``'name'`` or ``'name@k'`` into ``(spec, k)``; ``k`` is None without a cutoff.

    Examples
    --------
    >>> spec, k = parse("average_precision@2")
    >>> spec.name, k
    ('map', 2)
    >>> parse("recip_rank")[0].name
    'mrr'
    """
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings like 'ndcg@10', got {name!r}")
    m = _NAME.match(name.lower())
    if not m:
        raise ValueError(
            f"cannot read the metric name {name!r}; use forms like 'ndcg@10', 'map', 'auc'"
        )
    base, k = m.group(1), m.group(2)
    try:
        spec = get(base)
    except ValueError:
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(
            f"unknown metric {name!r}; known metrics: {known} (with @k where it applies; "
            f"aliases: {_aliases()})"
        ) from None
    if k is not None:
        if not spec.takes_cutoff:
            raise ValueError(f"{spec.name} has no cutoff; ask for {spec.name!r}")
        k = check_k(int(k), f"the cutoff of {name!r}")
    return spec, k


def supported_by(preset: str) -> dict[str, str]:
    """Metric name -> cutoff rule, for every ranking metric the library of ``preset`` provides.

    Read from the library's provider file (:mod:`recmetrics.providers`), in
    the registry's order.
    """
    metrics = PROVIDERS[preset].metrics
    unknown = set(metrics) - set(REGISTRY)
    if unknown:
        raise ValueError(f"provider {preset!r} names metrics not in the registry: {unknown}")
    return {name: metrics[name] for name in REGISTRY if name in metrics}


def ranking_names() -> list[str]:
    """Canonical names of the metrics that are functions of the ranking."""
    return [name for name, spec in REGISTRY.items() if spec.kind == "ranking"]
