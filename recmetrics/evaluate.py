"""Several metrics at once, from one ranking.

:func:`evaluate` builds the ranking representation once (one pass over the
scores, one tie policy) and evaluates every requested metric on it, so asking
for ten metrics costs little more than asking for one.
"""
from __future__ import annotations

import re

import pandas as pd

from ._validation import check_k
from .curves import auc
from .dcg import cg, dcg, ndcg
from .ranking import Ranking, as_ranking
from .topn import arhr, average_precision, f1, hit_ratio, precision, recall, reciprocal_rank

__all__ = ["evaluate", "METRICS"]

# name -> (function, needs a cutoff, extra keywords it accepts from evaluate)
METRICS = {
    "precision": (precision, True, ()),
    "recall": (recall, True, ()),
    "f1": (f1, True, ()),
    "hr": (hit_ratio, True, ()),
    "arhr": (arhr, True, ()),
    "mrr": (reciprocal_rank, False, ()),
    "map": (average_precision, False, ("ap_denominator",)),
    "ndcg": (ndcg, False, ("gain", "idcg", "log_base")),
    "dcg": (dcg, False, ("gain", "log_base")),
    "cg": (cg, True, ("gain",)),
    "auc": (auc, False, ()),
}
_ALIASES = {
    "p": "precision", "prec": "precision", "r": "recall", "hit_ratio": "hr",
    "hit": "hr", "hitrate": "hr", "rr": "mrr", "recip_rank": "mrr", "ap": "map",
    "f1_score": "f1",
}
_NAME = re.compile(r"^\s*([a-z_0-9]+?)\s*(?:@\s*(\d+))?\s*$")


def _parse(name):
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings like 'ndcg@10', got {name!r}")
    m = _NAME.match(name.lower())
    if not m:
        raise ValueError(f"cannot read the metric name {name!r}; use forms like 'ndcg@10', 'map', 'auc'")
    base, k = m.group(1), m.group(2)
    base = _ALIASES.get(base, base)
    if base not in METRICS:
        known = ", ".join(sorted(METRICS))
        raise ValueError(f"unknown metric {name!r}; known metrics: {known} (with @k where it applies)")
    fn, needs_k, extras = METRICS[base]
    if k is not None:
        k = check_k(int(k), f"the cutoff of {name!r}")
        if base == "auc":
            raise ValueError("auc has no cutoff; ask for 'auc'")
    elif needs_k:
        raise ValueError(f"{name!r} needs a cutoff, e.g. '{base}@10'")
    return fn, k, extras


def evaluate(y_true=None, y_score=None, metrics=("ndcg@10", "map@10", "precision@10", "recall@10", "mrr@10"),
             *, ranks=None, n_items=None, mask=None, ties="expected", no_relevant="zero",
             ap_denominator="relevant", gain="linear", idcg="min", log_base=2.0,
             per_user=False, progress=False):
    """Evaluate several metrics on one ranking computed once.

    Parameters
    ----------
    y_true, y_score
        Any input form of :mod:`recmetrics.ranking`: relevance and score
        matrices ``(n_users, n_items)`` in scikit-learn's order (dense or
        sparse relevance), lists of recommendations and relevant sets, or a
        prebuilt :class:`~recmetrics.ranking.Ranking`; or pass ``ranks=``.
    metrics : sequence of str
        Names with an optional cutoff: ``precision@k``, ``recall@k``,
        ``f1@k``, ``hr@k``, ``arhr@k``, ``mrr`` / ``mrr@k``, ``map`` /
        ``map@k`` (mean AP), ``ndcg`` / ``ndcg@k``, ``dcg@k``, ``cg@k``,
        ``auc``.
    ties, no_relevant, ap_denominator, gain, idcg, log_base
        Conventions, as in the individual metric functions. ``auc`` is the
        mean of the per-user AUCs (see :func:`~recmetrics.curves.auc` for the
        weighted and pooled variants).
    per_user : bool
        Return one row per user instead of the means.
    progress : bool, default False
        Report progress of the ranking step on standard error (score
        matrices only).

    Notes
    -----
    From a score matrix the ranking costs one counting pass over each row
    (no sorting; see :func:`~recmetrics.ranking.from_scores`); memory beyond
    the inputs grows with the number of relevant and excluded entries only.

    Returns
    -------
    pandas.Series (means, indexed by metric name) or pandas.DataFrame

    Examples
    --------
    >>> y_true = [[1, 0, 0, 1], [0, 0, 1, 0]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.4], [0.3, 0.2, 0.9, 0.1]]
    >>> evaluate(y_true, y_score, ["precision@2", "recall@2", "ndcg@2", "mrr", "auc"]).round(4)
    precision@2    0.5000
    recall@2       0.7500
    ndcg@2         0.8066
    mrr            1.0000
    auc            0.8750
    Name: mean, dtype: float64
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    parsed = [(name, *_parse(name)) for name in metrics]
    if not parsed:
        raise ValueError("metrics is empty; ask for at least one metric")
    if len(set(metrics)) != len(metrics):
        raise ValueError("metrics contains a name twice")
    if isinstance(y_true, Ranking):
        r = y_true
    else:
        r, _ = as_ranking(y_true, y_score, ranks=ranks, n_items=n_items, mask=mask, ties=ties,
                          progress=progress)
    options = {"ap_denominator": ap_denominator, "gain": gain, "idcg": idcg, "log_base": log_base}
    columns = {}
    for name, fn, k, extras in parsed:
        kw = {key: options[key] for key in extras}
        if fn is not auc:
            kw["k"] = k
        columns[name] = fn(r, no_relevant=no_relevant, per_user=True, **kw)
    table = pd.DataFrame(columns)
    table.index.name = "user"
    if per_user:
        return table
    if no_relevant == "skip":
        means = table.mean(axis=0, skipna=True)
    else:
        means = table.mean(axis=0)
    means.name = "mean"
    return means
