"""How the per-user values of a metric are summarised: the one place that decides.

Most metrics are summarised by the arithmetic mean over the users they are
defined for. trec_eval has two other rules (``meas_avg.c`` and the
``calc_average`` of each measure):

* ``'sum'``: its counts (``num_ret``, ``num_rel``, ``num_rel_ret``,
  ``num_nonrel_judged_ret``, ``num_q``) print the sum over topics
  (``te_calc_avg_meas_empty``, ``te_calc_avg_num_q``);
* ``'geometric'``: ``gm_map`` and ``gm_bpref`` store ``log(max(v,
  MIN_GEO_MEAN))`` per topic, ``MIN_GEO_MEAN = .00001``
  (``trec_eval.h``), and print ``exp`` of their mean
  (``te_calc_avg_meas_s_gm``). Under trec_eval's ``-c`` a topic of the
  qrels missing from the run adds ``log(MIN_GEO_MEAN)``: the floor of a
  value 0, which is what a user without predictions scores here when the
  users of ``truth`` are evaluated (``users='truth'``).

Every consumer reads :func:`summarise` (the metric functions through
``_core.finish``, :func:`recmetrics.evaluate` and the command line through
it), and the distributed evaluate splits it into :func:`transform` on the
workers, ``combine`` (``'mean'`` or ``'sum'``) by the engine, and
:func:`finalise` on the driver.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice

__all__ = ["AGGREGATES", "MIN_GEO_MEAN", "summarise", "transform", "combine", "finalise"]

#: The summary rules of :attr:`MetricSpec.aggregate`.
AGGREGATES = ("mean", "sum", "geometric")

#: trec_eval's floor of a value before its logarithm (``trec_eval.h``).
MIN_GEO_MEAN = 0.00001


def transform(values, aggregate):
    """The per-user values the engine combines: ``log(max(v, MIN_GEO_MEAN))`` for 'geometric'.

    NaN (a user left out) stays NaN; the other rules keep the values.
    """
    check_choice(aggregate, "aggregate", AGGREGATES)
    values = np.asarray(values, dtype=np.float64)
    if aggregate == "geometric":
        return np.log(np.maximum(values, MIN_GEO_MEAN))  # NaN propagates through maximum
    return values


def combine(aggregate):
    """How the transformed values are combined across users: ``'mean'`` or ``'sum'``."""
    check_choice(aggregate, "aggregate", AGGREGATES)
    return "sum" if aggregate == "sum" else "mean"


def finalise(combined, aggregate):
    """The summary from the combined transformed values (``exp`` for 'geometric')."""
    check_choice(aggregate, "aggregate", AGGREGATES)
    combined = float(combined)
    if aggregate == "geometric" and not np.isnan(combined):
        return float(np.exp(combined))
    return combined


def summarise(values, aggregate="mean"):
    """The summary of the per-user values of the users that count (NaN-free array).

    ``'mean'``: ``np.mean`` (numpy's pairwise sum, bit for bit what the
    metric functions always returned); ``'sum'``: ``np.sum``;
    ``'geometric'``: ``exp(mean(log(max(v, MIN_GEO_MEAN))))``. NaN when no
    user counts, for every rule.

    Examples
    --------
    >>> summarise([0.5, 0.0], "geometric")   # sqrt(0.5 * 0.00001)
    0.0022360679774997894
    >>> summarise([3.0, 4.0], "sum"), summarise([3.0, 4.0])
    (7.0, 3.5)
    """
    check_choice(aggregate, "aggregate", AGGREGATES)
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return float("nan")
    if aggregate == "mean":
        return float(np.mean(values))
    if aggregate == "sum":
        return float(np.sum(values))
    return finalise(np.mean(transform(values, aggregate)), aggregate)
