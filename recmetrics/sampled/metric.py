"""The metric of one rank, ``M(r)``: the one place where a metric name becomes numbers here.

It reads the metric registry (``recmetrics/metrics/_registry.py``) and calls the
ranking core with ``ranks=``, so no formula is written twice.
"""

from __future__ import annotations

import inspect

import numpy as np

from .._docs import fill_doc
from ..metrics import _registry
from ._common import _MAX_EXACT, _check_count, _check_ranks

# ---------------------------------------------------------------------------
# Metric of a rank: the ONE place that maps a metric name to the ranking core
# ---------------------------------------------------------------------------


@fill_doc
class RankMetric:
    """A metric as a vectorised function of the rank of one relevant item.

    .. math:: r \\mapsto M(r), \\qquad r = 1, 2, \\dots, n

    Made by :func:`metric_function`; calling it on an integer array of ranks
    (1-based, at most ``n_items`` when it is known) returns the metric of
    each rank as a float array of the same shape. It is zero beyond
    ``cutoff`` by construction.

    Parameters
    ----------
    name : str
        The metric's name (or the callable's name).
    func : callable
        Vectorised ``f(ranks)`` for a 1-D int64 array of checked ranks
        (within the cutoff, if any), returning one float per rank.
    n_items : int or None
        Number of ranked items the ranks refer to.
    cutoff : int or None
        ``k`` for an ``@k`` metric, else ``None``.
    source : str or callable
        What :func:`metric_function` was given (used to rebuild the metric
        for another ``n_items``).

    Attributes
    ----------
    name : str
        The metric's name (or the callable's name).
    n_items : int or None
        Number of ranked items the ranks refer to (AUC depends on it).
    cutoff : int or None
        ``k`` when the metric is zero for every rank above ``k`` (``@k``
        metrics); ``None`` otherwise. Used to skip work, never to change a value.
    source : str or callable
        What :func:`metric_function` was given.

    See Also
    --------
    metric_function : Makes a RankMetric from a name or a callable.

    References
    ----------
    %(ref_krichene2020)s

    Examples
    --------
    >>> m = metric_function("recall@10")
    >>> m
    RankMetric('recall@10', n_items=None)
    >>> m.cutoff, m([1, 10, 11]).tolist()
    (10, [1.0, 1.0, 0.0])
    """

    def __init__(self, name, func, n_items, cutoff, source):
        self.name = name
        self.source = source
        self._func = func
        self.n_items = n_items
        self.cutoff = cutoff

    def __call__(self, ranks) -> np.ndarray:
        """The metric at each rank (an array of the shape of ``ranks``)."""
        upper = _MAX_EXACT if self.n_items is None else self.n_items
        r = _check_ranks(ranks, upper, "ranks", ndim=None, allow_empty=True)
        shape = r.shape
        r = r.reshape(-1)
        out = np.zeros(r.shape[0], dtype=np.float64)
        if self.cutoff is not None:
            keep = r <= self.cutoff
            if keep.any():
                out[keep] = self._func(r[keep])
        elif r.shape[0]:
            out[:] = self._func(r)
        return out.reshape(shape)

    def __repr__(self):
        return f"RankMetric({self.name!r}, n_items={self.n_items})"


def _accepts_n_items(func) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return "n_items" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


@fill_doc
def metric_function(metric, n_items=None) -> RankMetric:
    """The metric ``M(r)`` of a user whose one relevant item is at rank ``r``.

    This is the only place where :mod:`recmetrics.sampled` turns a metric
    into numbers; it calls the ranking core with ``ranks=`` (one relevant item
    per user), so every formula lives in one module.

    Parameters
    ----------
    metric : str, callable or RankMetric
        A name, optionally with a cutoff ``@k``: ``"auc"``, ``"ndcg"``,
        ``"ndcg@10"``, ``"dcg@10"``, ``"ap"`` (also ``"map"``),
        ``"ap@10"``, ``"mrr"`` (also ``"rr"``), ``"mrr@10"``, ``"arhr@10"``,
        ``"recall@10"``, ``"precision@10"``, ``"hr@10"``, ``"f1@10"``.
        Recall, precision, hit ratio and F1 need the cutoff. Or a vectorised
        callable ``f(ranks)`` (or ``f(ranks, n_items=...)``) returning one
        finite float per rank. A RankMetric is returned as it is (or rebuilt
        for another ``n_items``).
    n_items : int, optional
        Number of ranked items. Needed by AUC, whose value depends on it:
        ``AUC(r) = (n - r) / (n - 1)``. For a sampled list it is ``m + 1``.

    Returns
    -------
    RankMetric
        A callable mapping an integer array of ranks to metric values.

    See Also
    --------
    RankMetric : The returned callable.
    recmetrics.evaluate : The same registered names on full rankings.

    Notes
    -----
    With one relevant item the core's definitions reduce to the closed forms
    of Krichene and Rendle (2020, Sec. 2):

    .. math::

        \\mathrm{AUC}(r) = \\frac{n - r}{n - 1}, \\quad
        \\mathrm{Recall@}k(r) = \\mathbb{1}[r \\le k], \\quad
        \\mathrm{Prec@}k(r) = \\frac{\\mathbb{1}[r \\le k]}{k}, \\quad
        \\mathrm{AP@}k(r) = \\frac{\\mathbb{1}[r \\le k]}{r}, \\quad
        \\mathrm{NDCG@}k(r) = \\frac{\\mathbb{1}[r \\le k]}{\\log_2(r + 1)}.

    References
    ----------
    %(ref_krichene2020)s

    Examples
    --------
    >>> f = metric_function("ndcg@10")
    >>> f([1, 3, 11]).round(4).tolist()
    [1.0, 0.5, 0.0]
    >>> metric_function("auc", n_items=5)([1, 2, 5]).tolist()
    [1.0, 0.75, 0.0]
    >>> metric_function(lambda r: 1.0 / r)([1, 2, 4]).tolist()
    [1.0, 0.5, 0.25]
    """
    if isinstance(metric, RankMetric):
        return metric if metric.n_items == n_items else metric_function(metric.source, n_items)
    if n_items is not None:
        n_items = _check_count(n_items, "n_items")
    if callable(metric):
        name = getattr(metric, "__name__", repr(metric))
        if _accepts_n_items(metric):

            def func(r, _f=metric, _n=n_items):
                return np.asarray(_f(r, n_items=_n), dtype=np.float64)
        else:

            def func(r, _f=metric):
                return np.asarray(_f(r), dtype=np.float64)

        def checked(r, _func=func, _name=name):
            v = _func(r)
            if v.shape != r.shape:
                raise ValueError(
                    f"metric {_name!r} must return one value per rank: got shape {v.shape} for "
                    f"{r.shape[0]} ranks"
                )
            if not np.all(np.isfinite(v)):
                raise ValueError(f"metric {_name!r} returned a non-finite value")
            return v

        return RankMetric(name, checked, n_items, None, metric)
    if not isinstance(metric, str):
        raise TypeError(
            f"metric must be a metric name or a callable, got {metric!r} of type "
            f"{type(metric).__name__}"
        )
    try:
        spec, k = _registry.parse(metric)
    except ValueError as exc:
        raise ValueError(
            f"metric must be a registered metric name (optionally with @k) or a callable: {exc}"
        ) from None
    if spec.kind != "ranking":
        raise ValueError(
            f"metric {metric!r} is a beyond-accuracy metric of the recommended lists, not a "
            "function of the rank of a held-out item"
        )
    if spec.aggregate != "mean":  # MetricSpec.aggregate: trec_eval's sums and geometric means
        raise ValueError(
            f"metric {metric!r} is summarised over users by a {spec.aggregate} "
            "(MetricSpec.aggregate), and the sampled metrics estimate means over users"
        )
    if spec.rank_cutoff_required and k is None:
        raise ValueError(f"metric {metric!r} needs a cutoff, e.g. '{spec.name}@10'")
    if "n_items" in spec.needs and n_items is None:  # AUC
        raise ValueError(f"metric {spec.name!r} needs n_items (AUC(r) = (n - r) / (n - 1))")
    if not spec.takes_cutoff:

        def call(r, _f=spec.function, _n=n_items):
            return _f(ranks=r, n_items=_n, per_user=True)
    else:

        def call(r, _f=spec.function, _k=k, _n=n_items):
            return _f(ranks=r, n_items=_n, k=_k, per_user=True)

    return RankMetric(metric, call, n_items, k, metric)
