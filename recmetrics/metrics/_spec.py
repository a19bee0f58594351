"""What the package knows about one metric: :class:`MetricSpec`.

The table of specs is :data:`recmetrics.metrics._registry.REGISTRY`; this
module holds only the record type, so that a metric module can be read
without the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ._aggregate import AGGREGATES

__all__ = ["KINDS", "MetricSpec"]

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
        What the metric is a function of (see :data:`KINDS`); every ``'ranking'``
        one takes ``judged_only`` (condensed lists), the others the recommended lists.
    needs : tuple of str
        The item data a beyond-accuracy metric takes from
        :func:`recmetrics.evaluate` (``'popularity'``, ``'features'``,
        ``'history'``, ``'n_items'``, ``'truth'``); a tuple of alternatives
        is not used: a metric with several models (serendipity) names all
        the data its default needs. For a ranking metric, ``'n_items'``
        says that its value depends on the catalogue size (AUC), so a
        function of one rank (:func:`recmetrics.metric_function`) needs it.
    aggregate : {'mean', 'sum', 'geometric'}
        How the per-user values are summarised (:mod:`._aggregate`, the one
        place that forms a summary): the mean over users (default),
        trec_eval's sum (its counts: ``num_ret``, ``num_q``, ...) or its
        geometric mean with a floor (``gm_map``, ``gm_bpref``). The metric
        function (``per_user=False``), :func:`recmetrics.evaluate`, the
        command line and the distributed evaluate all read it.
    graded : bool
        Whether the metric reads every grade above 0 as a gain, whatever
        trec_eval's relevance level (``relevance_level=``, its ``-l``) says
        is relevant: trec_eval's gain measures (``ndcg``, ``ndcg_rel``,
        ``Rndcg``, ``G``) ignore ``-l``. Default: the metrics that take a
        ``gain`` keyword.
    """

    name: str
    function: Callable
    aliases: tuple[str, ...] = ()
    takes_cutoff: bool = True
    keywords: tuple[str, ...] = ()
    rank_cutoff_required: bool = False
    kind: str = "ranking"
    needs: tuple[str, ...] = ()
    aggregate: str = "mean"
    reads_grades: bool = False

    @property
    def graded(self):
        """Whether every grade above 0 is a gain (see the class docstring)."""
        return self.reads_grades or "gain" in self.keywords

    def __post_init__(self):
        if self.aggregate not in AGGREGATES:
            raise ValueError(f"aggregate must be one of {AGGREGATES}, got {self.aggregate!r}")
