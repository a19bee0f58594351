"""Sampled metrics: the distribution of a sampled rank, expected metrics, corrections.

Many evaluations do not rank the whole catalogue of ``n`` items for a user:
they rank the held-out relevant item against ``m`` sampled irrelevant items
only, and report a metric of the *sampled rank* ``r~`` (between 1 and
``m + 1``) instead of the true rank ``r`` (between 1 and ``n``). Krichene and
Rendle (2020, 2022) show that this changes the metrics and can even reverse the
order of two recommenders, and propose corrections. This module implements
their analysis for one relevant item per user.

**Sampled rank.** Each sampled irrelevant item lies above the relevant one
with probability ``(r - 1) / (n - 1)``, so with ``m`` draws with replacement

.. math:: \\tilde r - 1 \\mid r \\sim \\mathrm{Binomial}\\Big(m, \\frac{r-1}{n-1}\\Big),

and without replacement ``r~ - 1`` is hypergeometric (``m`` draws from the
``n - 1`` irrelevant items, ``r - 1`` of which are above the relevant one).
See :func:`rank_distribution`, :func:`expected_metric` and the Monte Carlo
sampler :func:`sample_ranks`.

**Corrections.** A corrected metric is a vector ``M^`` indexed by the sampled
rank: a user whose sampled rank is ``r~`` scores ``M^[r~]`` instead of
``M(r~)``. :func:`correction` computes it for the methods of the paper
(unbiased rank estimate, minimal bias, bias-variance trade-off) and a monotone
variant; :func:`corrected_metric` applies it to observed sampled ranks and
:func:`estimator_bias_variance` gives the bias and variance of any such vector
as a function of the true rank.

**Argument order.** Every function takes its data first (``ranks``,
``sampled_ranks``, ``values``), then the sampling set-up (``n_items``, and
``n_samples`` where it is not implied by the data), then the ``metric``,
then keywords: ``expected_metric(ranks, n_items, n_samples, metric)``,
``corrected_metric(sampled_ranks, n_items, n_samples, metric)``,
``correction(n_items, n_samples, metric)`` (no data: the vector for every
rank), ``estimator_bias_variance(values, ranks, n_items, metric)`` (``m``
is ``len(values) - 1``). :func:`metric_function`, which builds a metric
from its name, takes the ``metric`` first.

**One formula, once.** The value of a metric at a rank comes from the ranking
core (:func:`recmetrics.ndcg`, :func:`recmetrics.recall`, ... with
``ranks=``), through :func:`metric_function`; nothing here re-implements a
metric.

References
----------
.. [1] W. Krichene and S. Rendle. On Sampled Metrics for Item Recommendation.
   KDD 2020, 1748-1757. doi:10.1145/3394486.3403226
.. [2] W. Krichene and S. Rendle. On Sampled Metrics for Item Recommendation.
   Communications of the ACM 65(7), 75-83, 2022. doi:10.1145/3535335
"""

from __future__ import annotations

from ._common import DEFAULT_GAMMA as DEFAULT_GAMMA
from ._common import IllConditionedCorrectionWarning
from .correction import (
    CORRECTION_METHODS,
    corrected_metric,
    correction,
    estimator_bias_variance,
)
from .distribution import expected_metric, rank_distribution, sample_ranks
from .metric import RankMetric, metric_function

__all__ = [
    "CORRECTION_METHODS",
    "IllConditionedCorrectionWarning",
    "RankMetric",
    "corrected_metric",
    "correction",
    "estimator_bias_variance",
    "expected_metric",
    "metric_function",
    "rank_distribution",
    "sample_ranks",
]


def __dir__():
    """The public API only (``__all__``), not the module's own imports (``np``, ``math``)."""
    return sorted(__all__)
