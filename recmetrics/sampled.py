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

import inspect
import numbers
import re
import warnings

import numpy as np
import pandas as pd
from scipy import linalg as sla
from scipy import optimize, special, stats

from ._validation import as_numeric_array, check_choice, check_fraction, check_k
from .curves import auc as _auc
from .dcg import dcg as _dcg
from .dcg import ndcg as _ndcg
from .topn import average_precision as _average_precision
from .topn import f1 as _f1
from .topn import hit_ratio as _hit_ratio
from .topn import precision as _precision
from .topn import recall as _recall
from .topn import reciprocal_rank as _reciprocal_rank

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

_EPS = np.finfo(np.float64).eps
#: integers up to 2**53 are exact in float64
_MAX_EXACT = 2**53

CORRECTION_METHODS = ("sampled", "unbiased_rank", "minimal_bias", "bias_variance", "monotone")
_ROUNDINGS = ("round", "floor", "ceil", "interpolate")
_SOLVERS = ("auto", "quadrature", "dense")
#: default trade-off weight of method="bias_variance" (our choice, see correction())
DEFAULT_GAMMA = 0.01
#: warn when the estimated relative error of a minimal-bias vector exceeds this
_TRUST = 1e-6
#: nodes per block of the projection (8192 doubles = 64 kB per vector)
_BLOCK = 8192
#: solver="auto" forms A densely when n (m + 1)^2 is at most this (a few ms)
_DENSE_WORK = 2e7


class IllConditionedCorrectionWarning(RuntimeWarning):
    """The requested correction is not determined in double precision.

    Raised (as a warning) by :func:`correction` when the minimal-bias
    least-squares problem is so ill-conditioned that its solution changes by
    more than about one part in a million under rounding errors, or when
    singular values had to be discarded (the answer then depends on
    ``rcond``).
    """


# ---------------------------------------------------------------------------
# Metric of a rank: the ONE place that maps a metric name to the ranking core
# ---------------------------------------------------------------------------

_NAME = re.compile(r"^\s*([a-z_0-9]+?)\s*(?:@\s*(\d+))?\s*$")
#: name -> (core function, needs a cutoff, passes n_items)
_CORE = {
    "auc": (_auc, False),
    "ndcg": (_ndcg, False),
    "dcg": (_dcg, False),
    "ap": (_average_precision, False),
    "map": (_average_precision, False),
    "average_precision": (_average_precision, False),
    "mrr": (_reciprocal_rank, False),
    "rr": (_reciprocal_rank, False),
    "reciprocal_rank": (_reciprocal_rank, False),
    "arhr": (_reciprocal_rank, False),
    "recall": (_recall, True),
    "precision": (_precision, True),
    "prec": (_precision, True),
    "p": (_precision, True),
    "hr": (_hit_ratio, True),
    "hit_ratio": (_hit_ratio, True),
    "hitrate": (_hit_ratio, True),
    "f1": (_f1, True),
}


class RankMetric:
    """A metric as a vectorised function of the rank of one relevant item.

    Made by :func:`metric_function`; calling it on an integer array of ranks
    returns the metric of each rank as a float array.

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
    """

    def __init__(self, name, func, n_items, cutoff, source):
        self.name = name
        self.source = source
        self._func = func
        self.n_items = n_items
        self.cutoff = cutoff

    def __call__(self, ranks) -> np.ndarray:
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


def metric_function(metric, n_items=None) -> RankMetric:
    """The metric ``M(r)`` of a user whose one relevant item is at rank ``r``.

    This is the only place where :mod:`recmetrics.sampled` turns a metric
    into numbers; it calls the ranking core with ``ranks=`` (one relevant item
    per user), so every formula lives in one module.

    Parameters
    ----------
    metric : str or callable
        A name, optionally with a cutoff ``@k``: ``"auc"``, ``"ndcg"``,
        ``"ndcg@10"``, ``"dcg@10"``, ``"ap"`` (also ``"map"``),
        ``"ap@10"``, ``"mrr"`` (also ``"rr"``), ``"mrr@10"``, ``"arhr@10"``,
        ``"recall@10"``, ``"precision@10"``, ``"hr@10"``, ``"f1@10"``.
        Recall, precision, hit ratio and F1 need the cutoff. Or a vectorised
        callable ``f(ranks)`` (or ``f(ranks, n_items=...)``) returning one
        float per rank.
    n_items : int, optional
        Number of ranked items. Needed by AUC, whose value depends on it:
        ``AUC(r) = (n - r) / (n - 1)``. For a sampled list it is ``m + 1``.

    Returns
    -------
    RankMetric
        A callable mapping an integer array of ranks to metric values.

    Notes
    -----
    With one relevant item the core's definitions reduce to the closed forms
    of Krichene and Rendle (2020, Sec. 2): ``AUC = (n - r)/(n - 1)``,
    ``Recall@k = [r <= k]``, ``Prec@k = [r <= k]/k``, ``AP@k = [r <= k]/r``,
    ``NDCG@k = [r <= k]/log2(r + 1)``.

    Examples
    --------
    >>> f = metric_function("ndcg@10")
    >>> f([1, 3, 11]).round(4).tolist()
    [1.0, 0.5, 0.0]
    >>> metric_function("auc", n_items=5)([1, 2, 5]).tolist()
    [1.0, 0.75, 0.0]
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
                    f"metric {_name!r} must return one value per rank: got shape {v.shape} for {r.shape[0]} ranks"
                )
            if not np.all(np.isfinite(v)):
                raise ValueError(f"metric {_name!r} returned a non-finite value")
            return v

        return RankMetric(name, checked, n_items, None, metric)
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a metric name or a callable, got {metric!r} of type {type(metric).__name__}")
    match = _NAME.match(metric.lower())
    names = ", ".join(sorted(_CORE))
    if match is None or match.group(1) not in _CORE:
        raise ValueError(f"metric must be one of {names} (optionally with @k), or a callable; got {metric!r}")
    base, k = match.group(1), match.group(2)
    func, needs_k = _CORE[base]
    k = None if k is None else check_k(int(k), "metric cutoff k")
    if needs_k and k is None:
        raise ValueError(f"metric {metric!r} needs a cutoff, e.g. '{base}@10'")
    if base == "auc":
        if k is not None:
            raise ValueError("metric 'auc' takes no cutoff")
        if n_items is None:
            raise ValueError("metric 'auc' needs n_items (AUC(r) = (n - r) / (n - 1))")

        def call(r, _n=n_items):
            return _auc(ranks=r, n_items=_n, per_user=True)
    else:
        def call(r, _f=func, _k=k, _n=n_items):
            return _f(ranks=r, n_items=_n, k=_k, per_user=True)

    return RankMetric(metric, call, n_items, k, metric)


# ---------------------------------------------------------------------------
# Input checks
# ---------------------------------------------------------------------------

def _check_bool(x, name):
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {x!r} of type {type(x).__name__}")
    return bool(x)


def _check_count(x, name):
    """A positive integer (``check_k``) that float64 represents exactly: at most 2**53.

    Ranks and sizes enter floating-point formulas (``(r - 1) / (n - 1)``); beyond
    2**53 neighbouring integers merge, and beyond 2**63 NumPy's int64 overflows.
    """
    k = check_k(x, name)
    if k > _MAX_EXACT:
        raise ValueError(
            f"{name} must be at most 2**53 = {_MAX_EXACT} (larger integers are not exactly "
            f"representable as float64), got {k}"
        )
    return k


def _check_nm(n_items, n_samples, replace):
    n = _check_count(n_items, "n_items")
    if n < 2:
        raise ValueError(f"n_items must be >= 2 (one relevant and at least one irrelevant item), got {n}")
    m = _check_count(n_samples, "n_samples")
    replace = _check_bool(replace, "replace")
    if not replace and m > n - 1:
        raise ValueError(
            f"n_samples must be <= n_items - 1 = {n - 1} without replacement "
            f"(there are only {n - 1} irrelevant items), got {m}"
        )
    return n, m, replace


def _where(mask):
    idx = np.unravel_index(int(np.argmax(mask)), mask.shape)
    return f"position {int(idx[0])}" if len(idx) == 1 else f"index {tuple(int(i) for i in idx)}"


def _check_ranks(ranks, upper, name, *, ndim=(0, 1), allow_empty=False):
    """1-based integer ranks in ``1..upper`` as an int64 array, or a clear error.

    Integer input is checked as integers (never through float64, which would
    merge neighbours beyond 2**53); float input must be finite and integral.
    Booleans are not ranks.
    """
    if isinstance(ranks, (str, bytes)) or ranks is None:
        raise TypeError(f"{name} must be integer ranks (array-like), got {ranks!r}")
    try:
        raw = np.asarray(ranks)
    except ValueError as exc:  # ragged
        raise ValueError(f"{name} must be a rectangular array of ranks ({exc})") from None
    if raw.dtype == object:
        flat = raw.ravel()
        bad = next((v for v in flat if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real)), None)
        if bad is not None or any(v is None for v in flat):
            raise TypeError(f"{name} must contain only numbers, found {bad!r} of type {type(bad).__name__}")
        big = [v for v in flat if isinstance(v, numbers.Integral) and abs(int(v)) > _MAX_EXACT]
        if big:
            raise ValueError(
                f"{name} must be at most 2**53 = {_MAX_EXACT} (ranks beyond are not exactly "
                f"representable as float64), found {big[0]}"
            )
        raw = raw.astype(np.float64)
    if raw.dtype.kind == "b":
        raise TypeError(f"{name} must be integer ranks, got booleans")
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be integer ranks, got dtype {raw.dtype}")
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if raw.ndim not in allowed:
            want = " or ".join(f"{d}-D" for d in allowed)
            raise ValueError(f"{name} must be {want}, got an array of shape {raw.shape}")
    if raw.size == 0 and not allow_empty:
        raise ValueError(f"{name} is empty; at least one rank is needed")
    if raw.dtype.kind == "f":
        for bad, what in ((np.isnan(raw), "NaN"), (np.isinf(raw), "an infinite value")):
            if bad.any():
                raise ValueError(f"{name} contains {what} at {_where(bad)}; ranks are integers 1, 2, ...")
        frac = raw != np.floor(raw)
        if frac.any():
            raise ValueError(
                f"{name} must be integers (1-based ranks), found {float(raw[frac].ravel()[0])!r} at {_where(frac)}"
            )
    big = np.abs(raw) > _MAX_EXACT
    if big.any():
        raise ValueError(
            f"{name} must be at most 2**53 = {_MAX_EXACT} (ranks beyond are not exactly "
            f"representable as float64), found {raw[big].ravel()[0]:.17g} at {_where(big)}"
        )
    bad = (raw < 1) | (raw > upper)
    if bad.any():
        raise ValueError(f"{name} must lie in 1..{upper}, found {raw[bad].ravel()[0]:.17g} at {_where(bad)}")
    return raw.astype(np.int64)


def _check_seed(seed):
    """``seed`` of :func:`numpy.random.default_rng`: None, an integer >= 0, a
    Generator, BitGenerator or SeedSequence. Booleans and floats are refused
    (``True`` and ``1.5`` are not seeds)."""
    if seed is None or isinstance(seed, (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(
            "seed must be None, a non-negative integer or a numpy.random.Generator, "
            f"got {seed!r} of type {type(seed).__name__}"
        )
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    return int(seed)


def _check_rcond(rcond):
    if isinstance(rcond, (bool, np.bool_)) or not isinstance(rcond, numbers.Real):
        raise TypeError(f"rcond must be None or a real number in [0, 1), got {rcond!r} of type {type(rcond).__name__}")
    rcond = float(rcond)
    if not (np.isfinite(rcond) and 0 <= rcond < 1):
        raise ValueError(
            f"rcond must be a finite number in [0, 1), got {rcond} (singular values below rcond * s_max "
            "are discarded: rcond >= 1 would discard all of them)"
        )
    return rcond


def _check_prior(prior, n):
    if prior is None:
        return None
    p = as_numeric_array(prior, "prior", ndim=1, nonnegative=True)
    if p.shape[0] != n:
        raise ValueError(f"prior must have one weight per true rank (n_items={n}), got {p.shape[0]}")
    total = p.sum()
    if not total > 0:
        raise ValueError("prior must have a positive total weight")
    return p / total


# ---------------------------------------------------------------------------
# The distribution of the sampled rank
# ---------------------------------------------------------------------------

def rank_distribution(rank, n_items, n_samples, replace=True) -> np.ndarray:
    """Distribution of the sampled rank ``r~`` given the true rank ``r``.

    The relevant item is ranked against ``m = n_samples`` irrelevant items
    drawn uniformly from the ``n - 1`` irrelevant ones; ``r~ - 1`` counts the
    sampled items ranked above it.

    * ``replace=True`` (the paper's model): ``r~ - 1 ~ Binomial(m, p)`` with
      ``p = (r - 1) / (n - 1)``,
      ``P(r~ = i) = C(m, i-1) p^(i-1) (1-p)^(m-i+1)``.
    * ``replace=False``: ``r~ - 1 ~ Hypergeometric``,
      ``P(r~ = i) = C(r-1, i-1) C(n-r, m-i+1) / C(n-1, m)``.

    Both have mean ``E[r~] = 1 + m (r - 1) / (n - 1)``.

    Parameters
    ----------
    rank : int or array-like of int
        True rank(s) ``r`` in ``1..n_items``.
    n_items : int
        Catalogue size ``n`` (>= 2).
    n_samples : int
        Number ``m`` of sampled irrelevant items (>= 1; <= ``n - 1`` without
        replacement).
    replace : bool, default True
        Sample with replacement (binomial) or without (hypergeometric).

    Returns
    -------
    numpy.ndarray
        ``P(r~ = 1), ..., P(r~ = m + 1)``: shape ``(m + 1,)`` for one rank,
        ``(len(rank), m + 1)`` for several. Computed from SciPy's (Boost's)
        binomial pmf, never from differences of log-factorials, with
        ``1 - p`` never formed: relative error below ``1e-11`` (measured
        against exact rationals) also for ``n = 10^6``, ``m = 1000`` and in
        the far tails down to 1e-290 (the hypergeometric by Loader's
        identity, see the source).

    Examples
    --------
    >>> rank_distribution(3, n_items=5, n_samples=2).round(4).tolist()
    [0.25, 0.5, 0.25]
    >>> rank_distribution(3, n_items=5, n_samples=2, replace=False).round(4).tolist()
    [0.1667, 0.6667, 0.1667]

    References
    ----------
    Krichene & Rendle (2020), Sec. 3.2.
    """
    n, m, replace = _check_nm(n_items, n_samples, replace)
    r = _check_ranks(rank, n, "rank")
    return _pmf(r, n, m, replace)


def _pmf(r, n, m, replace, kmax=None):
    """P(r~ = k + 1 | r) for k = 0..m (or 0..kmax-1), one row per rank.

    Binomial: SciPy's ``binom.pmf`` (Boost). Hypergeometric: Loader's identity
    ``h(k; K, N, m) = b(k; K, q) b(m - k; N - K, q) / b(m; N, q)`` with
    ``q = m / N`` and binomial pmfs ``b`` (as R's ``dhyper``), which keeps
    every factor accurate in relative terms: measured error below ``4e-13``
    against exact rational arithmetic up to ``n = 10^6``, ``m = 1000``
    (SciPy's ``hypergeom.pmf`` errs by ``2e-10`` there, and is slow).
    """
    k = np.arange(m + 1 if kmax is None else min(kmax, m + 1))
    r = np.asarray(r)
    if replace:
        return _binom_pmf(m, ((r - 1) / (n - 1))[..., None], ((n - r) / (n - 1))[..., None], kmax)
    big_n, big_k, q = n - 1, (r - 1)[..., None], m / (n - 1.0)
    if m == big_n:  # every irrelevant item is drawn: r~ = r
        return (k == big_k).astype(np.float64)
    return stats.binom.pmf(k, big_k, q) * stats.binom.pmf(m - k, big_n - big_k, q) / stats.binom.pmf(m, big_n, q)


def _binom_pmf(m, p, q, kmax=None):
    """Binomial pmf ``C(m, k) p^k q^(m-k)``, k = 0..m, with ``q = 1 - p`` given separately.

    ``p = (r - 1)/(n - 1)`` and ``q = (n - r)/(n - 1)`` are both computed
    from integers: forming ``1 - p`` inside the pmf would lose ``log10(1/q)``
    digits when ``r`` is close to ``n`` (a relative error of 1e-10 at
    ``n = 10^6``). SciPy's (Boost's) pmf is evaluated on whichever of ``p``,
    ``q`` is at most 1/2 (by the symmetry ``b(k; m, p) = b(m - k; m, q)``);
    where it is below 1e-8 the value is recomputed in log space,
    ``-log(m + 1) - betaln(k + 1, m - k + 1) + k log p + (m - k) log q``,
    whose error is about ``(|log C(m, k)| + m) eps`` relative (~1e-13 for
    ``m = 1000``). Measured against exact rationals: below 1e-13 relative
    for m = 100 and 2e-12 for m = 1000, down to values of 1e-290, n = 10^6.
    """
    k = np.arange(m + 1 if kmax is None else min(kmax, m + 1))
    p, q = np.broadcast_arrays(p, q)
    small_p = p <= 0.5
    out = stats.binom.pmf(np.where(small_p, k, m - k), m, np.where(small_p, p, q))
    tail = out < 1e-8
    if tail.any():
        shape = out.shape
        kk = np.broadcast_to(k, shape)[tail]
        pp = np.broadcast_to(p, shape)[tail]
        qq = np.broadcast_to(q, shape)[tail]
        with np.errstate(divide="ignore"):
            log_pmf = (-np.log(m + 1.0) - special.betaln(kk + 1.0, m - kk + 1.0)
                       + special.xlogy(kk, pp) + special.xlogy(m - kk, qq))
        out[tail] = np.exp(log_pmf)
    return out


def _rank_block(n_rows, m):
    return max(1, min(n_rows, 2_000_000 // (m + 1)))


def expected_metric(ranks, n_items, n_samples, metric, replace=True, *, per_user=False):
    """Exact expectation of a metric of the sampled rank, averaged over users.

    .. math:: E[M(\\tilde r) \\mid r] = \\sum_{i=1}^{m+1} P(\\tilde r = i \\mid r)\\, M_{m+1}(i)

    where ``M_{m+1}`` is the metric on the sampled list of ``m + 1`` items
    (this matters for AUC only). The result is the mean over the given true
    ranks, which is what a sampled evaluation reports on average.

    Parameters
    ----------
    ranks : int or array-like of int
        True ranks, one per user, in ``1..n_items``.
    n_items, replace
        As in :func:`rank_distribution`.
    n_samples : int or 1-D array-like of int
        Number ``m`` of sampled items; several values give the expectation
        as a function of ``m`` (the metric's values are then computed once
        when they do not depend on the list length, i.e. except for AUC).
    metric : str or callable
        See :func:`metric_function`.
    per_user : bool, default False
        Return one expectation per rank instead of their mean.

    Returns
    -------
    float or numpy.ndarray
        For an array of ``n_samples``, one entry (or, with ``per_user``, one
        row) per value of ``m``.

    Notes
    -----
    Costs ``O(u (m + 1))`` for ``u`` distinct ranks. Examples of closed forms
    (Krichene & Rendle 2020, Sec. 3.3): expected sampled AUC equals the exact
    AUC for every ``m``; expected ``Recall@k`` is the binomial CDF
    ``F(k - 1; m, (r - 1)/(n - 1))``.

    Examples
    --------
    >>> round(expected_metric([100, 200], n_items=10_000, n_samples=99, metric="auc"), 6)
    0.985099
    >>> round(float(metric_function("auc", n_items=10_000)([100, 200]).mean()), 6)
    0.985099
    >>> round(expected_metric(100, 10_000, 99, "recall@10"), 4)
    1.0
    >>> expected_metric([40, 8437], 10_000, [1, 10, 100], "recall@1").round(4).tolist()
    [0.5762, 0.4808, 0.3383]
    """
    if not isinstance(n_samples, numbers.Integral) and np.ndim(n_samples) == 1:
        ms = [check_k(int(v) if float(v).is_integer() else v, "n_samples")
              for v in as_numeric_array(n_samples, "n_samples", ndim=1)]
        _check_count(n_items, "n_items")
        f = metric_function(metric, None) if _length_free(metric) else None
        values = None if f is None else f(np.arange(1, max(ms) + 2))
        return np.array([_expected(ranks, n_items, m, metric, replace, per_user,
                                   None if values is None else values[:m + 1]) for m in ms])
    return _expected(ranks, n_items, n_samples, metric, replace, per_user, None)


def _length_free(metric):
    """True when the metric's value at a rank does not depend on the list length."""
    if isinstance(metric, RankMetric):
        metric = metric.source
    if callable(metric):
        return not _accepts_n_items(metric)
    return not (isinstance(metric, str) and metric.strip().lower() == "auc")


def _expected(ranks, n_items, n_samples, metric, replace, per_user, values):
    n, m, replace = _check_nm(n_items, n_samples, replace)
    r = _check_ranks(ranks, n, "ranks")
    scalar = r.ndim == 0
    r = r.reshape(-1)
    per_user = _check_bool(per_user, "per_user")
    if values is None:
        values = metric_function(metric, m + 1)(np.arange(1, m + 2))
    nz = np.flatnonzero(values)
    kmax = int(nz[-1]) + 1 if nz.size else 1  # M(i) = 0 beyond: those probabilities are not needed
    values = values[:kmax]
    uniq, inv = np.unique(r, return_inverse=True)
    out = np.empty(uniq.shape[0])
    step = _rank_block(uniq.shape[0], kmax)
    for s in range(0, uniq.shape[0], step):
        out[s:s + step] = _pmf(uniq[s:s + step], n, m, replace, kmax) @ values
    per = out[inv]
    if scalar:
        return float(per[0])
    return per if per_user else float(per.mean())


# ---------------------------------------------------------------------------
# Monte Carlo: really sample the irrelevant items
# ---------------------------------------------------------------------------

def sample_ranks(ranks, n_items, n_samples, *, replace=True, n_repeats=None, seed=None):
    """Simulate sampled evaluation: draw ``m`` irrelevant items, rank the relevant one among them.

    For each user (true rank ``r``) the ``n - 1`` irrelevant items are
    numbered ``0..n-2`` in rank order (item ``i`` sits at rank ``i + 1`` if
    ``i < r - 1``, else at ``i + 2``). ``m`` item numbers are drawn uniformly,
    with or without replacement, and the sampled rank is one plus the number of
    drawn items ranked above the relevant one. Without replacement the draw is
    exact: rejection of draws with a repeated item when repeats are rare,
    otherwise the ``m`` smallest of ``n - 1`` uniform keys.

    Parameters
    ----------
    ranks : array-like of int
        True ranks, one per user.
    n_items, n_samples, replace
        As in :func:`rank_distribution`.
    n_repeats : int, optional
        Number of independent repetitions. ``None`` gives one, as a 1-D
        result.
    seed : int or numpy.random.Generator, optional
        Seed of :func:`numpy.random.default_rng`.

    Returns
    -------
    numpy.ndarray of int
        Sampled ranks in ``1..m+1``, shape ``(len(ranks),)`` or
        ``(n_repeats, len(ranks))``.

    Examples
    --------
    >>> s = sample_ranks([1, 50, 100], n_items=100, n_samples=10, n_repeats=1000, seed=0)
    >>> s.shape, s[:, 0].max(), s[:, 2].min()
    ((1000, 3), np.int64(1), np.int64(11))
    """
    n, m, replace = _check_nm(n_items, n_samples, replace)
    r = _check_ranks(ranks, n, "ranks", ndim=1)
    single = n_repeats is None
    reps = 1 if single else check_k(n_repeats, "n_repeats")
    rng = np.random.default_rng(_check_seed(seed))
    above = np.tile(r - 1, reps)  # item numbers below this are ranked above the relevant item
    out = np.empty(above.shape[0], dtype=np.int64)
    rejection = (not replace) and m * (m - 1) / (2.0 * (n - 1)) <= 1.0
    step = max(1, 4_000_000 // max(m, 1) if (replace or rejection) else 4_000_000 // (n - 1))
    for s in range(0, above.shape[0], step):
        e = min(above.shape[0], s + step)
        rows = e - s
        if replace:
            draws = rng.integers(0, n - 1, size=(rows, m))
        elif rejection:
            draws = rng.integers(0, n - 1, size=(rows, m))
            while True:
                srt = np.sort(draws, axis=1)
                bad = np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
                if bad.size == 0:
                    break
                draws[bad] = rng.integers(0, n - 1, size=(bad.size, m))
        else:
            keys = rng.random((rows, n - 1))
            draws = keys.argsort(axis=1)[:, :m] if m == n - 1 else np.argpartition(keys, m - 1, axis=1)[:, :m]
        out[s:e] = 1 + (draws < above[s:e, None]).sum(axis=1)
    return out if single else out.reshape(reps, r.shape[0])


# ---------------------------------------------------------------------------
# Corrections
# ---------------------------------------------------------------------------

def _binomial_basis(t, m):
    """``B[i, k] = C(m, k) t_i^k (1 - t_i)^(m - k)`` at real nodes ``t``."""
    t = np.asarray(t, dtype=np.float64)[:, None]
    return _binom_pmf(m, t, 1.0 - t)


def _log_binom_poly(z, jmax):
    """log|C(z, j)| and sign of C(z, j) = z (z-1) ... (z-j+1) / j!, j = 0..jmax, real z."""
    d = z[:, None] - np.arange(jmax)[None, :]
    with np.errstate(divide="ignore"):
        logs = np.log(np.abs(d))
    zero = np.zeros((z.shape[0], 1))
    lg = np.concatenate([zero, np.cumsum(logs, axis=1)], axis=1) - special.gammaln(np.arange(jmax + 1) + 1.0)
    neg = np.concatenate([zero, np.cumsum(d < 0, axis=1)], axis=1)
    return lg, np.where(neg % 2 == 1, -1.0, 1.0)


def _hypergeometric_basis(rank, n, m):
    """``H[i, k] = C(r_i-1, k) C(n-r_i, m-k) / C(n-1, m)`` for real ``r_i``: a polynomial of degree m in r."""
    rank = np.asarray(rank, dtype=np.float64)
    l1, s1 = _log_binom_poly(rank - 1.0, m)
    l2, s2 = _log_binom_poly(n - rank, m)
    lognorm = np.sum(np.log(n - 1.0 - np.arange(m))) - special.gammaln(m + 1.0)
    return s1 * s2[:, ::-1] * np.exp(l1 + l2[:, ::-1] - lognorm)


def _uniform_recurrence(n, m):
    """Recurrence coefficients of the orthonormal polynomials of the uniform
    distribution on ``x_r = (r - 1)/(n - 1)``, ``r = 1..n`` (discrete Chebyshev /
    Gram polynomials, Gautschi 2004, Table 1.2): ``alpha_j = 1/2``,
    ``beta_j = j^2 (n^2 - j^2) / (4 (4 j^2 - 1) (n - 1)^2)``, ``beta_0 = 1``."""
    j = np.arange(1, m + 1, dtype=np.float64)
    beta = j * j * (float(n) * n - j * j) / (4.0 * (4.0 * j * j - 1.0)) / (n - 1.0) ** 2
    return np.full(m + 1, 0.5), beta


def _project_uniform(n, m, weights):
    """``y_j = sum_r w_r psi_j(x_r)`` for the orthonormal Gram polynomials ``psi_j``.

    ``weights`` is ``w`` over ``r = 1..n``. Only ranks where ``w`` (or ``w`` at
    the mirrored rank) is non-zero are visited, and the symmetry
    ``psi_j(1 - x) = (-1)^j psi_j(x)`` halves the work. The recurrence runs on
    ``phi_j = 4^j pi_j`` (``pi_j`` monic), which stays of order one on
    ``[0, 1]``: ``phi_{j+1} = 4 (x - 1/2) phi_j - 16 beta_j phi_{j-1}``; then
    ``psi_j = phi_j / ||phi_j||`` with ``||phi_j||^2 = prod_{i <= j} 16 beta_i``.
    Blocks of 8192 nodes keep the vectors in cache (and below OpenBLAS's
    threading threshold for dot products, which only adds contention here).
    """
    _, beta = _uniform_recurrence(n, m)
    c = 16.0 * beta
    log_norm = 0.5 * np.concatenate([[0.0], np.cumsum(np.log(c))])
    h = (n + 1) // 2
    mirrored = weights[::-1][:h]
    keep = (weights[:h] != 0) | (mirrored != 0)
    lower = np.flatnonzero(keep) + 1
    w_lo, w_hi = weights[lower - 1], mirrored[lower - 1]
    w_hi = np.where(n + 1 - lower != lower, w_hi, 0.0)  # the middle rank (n odd) counts once
    y = np.zeros(m + 1)
    for s in range(0, lower.shape[0], _BLOCK):
        rr = lower[s:s + _BLOCK]
        even = w_lo[s:s + _BLOCK] + w_hi[s:s + _BLOCK]
        odd = w_lo[s:s + _BLOCK] - w_hi[s:s + _BLOCK]
        x4 = 4.0 * ((rr - 1.0) / (n - 1.0) - 0.5)
        prev = np.zeros(rr.shape[0])
        cur = np.ones(rr.shape[0])
        tmp = np.empty(rr.shape[0])
        y[0] += even.sum()
        for j in range(m):
            np.multiply(x4, cur, out=tmp)
            if j:
                prev *= -c[j - 1]
                tmp += prev
            prev, cur, tmp = cur, tmp, prev
            y[j + 1] += (odd if j % 2 == 0 else even) @ cur
    return y * np.exp(-log_norm)


def _dot(a, b):
    """Dot product of long vectors without OpenBLAS threads (einsum: one core, SIMD)."""
    return float(np.einsum("i,i->", a, b))


def _stieltjes(x, p, pm, m):
    """Discretised Stieltjes procedure for the measure sum_r p_r delta(x_r).

    Returns the recurrence coefficients of the orthonormal polynomials
    ``psi_0..psi_m`` and ``y_j = sum_r pm_r psi_j(x_r)``, in O(len(x) * m)
    time and two vectors of memory. Each step is one pass over blocks of
    8192 nodes (cache-sized): it forms
    ``u = (x - alpha_j) psi_j - sqrt(beta_j) psi_{j-1}`` in place of
    ``psi_{j-1}`` and accumulates ``sum p u^2``, ``sum p x u^2`` and
    ``sum pm u``, from which ``beta_{j+1}``, ``alpha_{j+1}`` and ``y_{j+1}``
    follow after normalisation. For the uniform prior the computed
    coefficients agree with the closed form to ~1e-14 up to n = 10^6,
    m = 1000 (Gautschi 2004, Sec. 2.2.3, on the stability of the procedure
    for discrete measures with m much smaller than the number of nodes).
    """
    alpha = np.empty(m + 1)
    beta = np.empty(m)
    y = np.empty(m + 1)
    size = x.shape[0]
    blocks = [slice(s, min(size, s + _BLOCK)) for s in range(0, size, _BLOCK)]
    prev = np.zeros(size)
    cur = np.ones(size)
    y[0] = sum(float(pm[b].sum()) for b in blocks)
    alpha[0] = sum(float(p[b] @ x[b]) for b in blocks)
    sb = 0.0
    for j in range(m):
        a = alpha[j]
        s2 = sx = sy = 0.0
        for b in blocks:
            u = (x[b] - a) * cur[b]
            if j:
                u -= sb * prev[b]
            prev[b] = u
            pu = p[b] * u
            s2 += float(pu @ u)
            sx += float((pu * x[b]) @ u)
            sy += float(pm[b] @ u)
        if not s2 > 0:
            raise ValueError("prior has fewer than n_samples + 1 ranks with positive weight")
        nb = float(np.sqrt(s2))
        prev *= 1.0 / nb
        prev, cur = cur, prev
        beta[j] = s2
        alpha[j + 1] = sx / s2
        y[j + 1] = sy / nb
        sb = nb
    return alpha, beta, y


class _System:
    """The least-squares system of a correction, in compressed form.

    ``A`` (n x (m+1), ``A[r, k] = sqrt(p(r)) P(r~ = k+1 | r)``) and ``b``
    (``b_r = sqrt(p(r)) M(r)``) are replaced by a small ``G`` and ``z`` with
    ``A = Q G`` and ``Q^T b = z`` for some ``Q`` with orthonormal columns, so
    that ``|A x - b|^2 = |G x - z|^2 + (|b|^2 - |z|^2)`` for every ``x``, ``G``
    has the singular values and right singular vectors of ``A``, and
    ``A^T b = G^T z``. Also ``c_k = sum_r p(r) P(r~ = k+1 | r)``.
    """

    def __init__(self, G, z, c, b_sq, solver, structural_rank, A=None, b=None, atb=None):
        self.G, self.z, self.c, self.b_sq = G, z, c, b_sq
        self.atb = G.T @ z if atb is None else atb
        self.solver = solver
        self.structural_rank = structural_rank
        self.A, self.b = A, b  # the dense system itself, when it was formed in one block


def _system_quadrature(n, m, replace, p, mvals):
    # 1. orthonormal polynomials of the prior and the projection y of M on them
    if p is None:
        alpha, beta = _uniform_recurrence(n, m)
        y = _project_uniform(n, m, mvals / n)
        b_sq = _dot(mvals, mvals) / n
    else:
        idx = np.flatnonzero(p > 0)
        x = idx / (n - 1.0)
        alpha, beta, y = _stieltjes(x, p[idx], p[idx] * mvals[idx], m)
        b_sq = float(p[idx] @ (mvals[idx] ** 2))
    # 2. Gauss rule of the prior (Golub-Welsch): exact for degree <= 2m + 1
    nodes, vecs = sla.eigh_tridiagonal(alpha, np.sqrt(beta))
    vecs = vecs * np.where(vecs[0] < 0, -1.0, 1.0)
    sqrt_w = vecs[0]
    nodes = np.clip(nodes, 0.0, 1.0)
    # 3. A^T A = G^T G with G = diag(sqrt w) P(t) (every entry of A^T A is a
    #    polynomial of degree 2m integrated against the prior); z = V^T y
    basis = _binomial_basis(nodes, m) if replace else _hypergeometric_basis(1.0 + (n - 1.0) * nodes, n, m)
    G = sqrt_w[:, None] * basis
    c = (sqrt_w * sqrt_w) @ basis
    return _System(G, vecs.T @ y, c, b_sq, "quadrature", m + 1, atb=_direct_atb(n, m, replace, p, mvals))


def _direct_atb(n, m, replace, p, mvals):
    """``A^T b = sum_r p(r) M(r) P(. | r)`` summed directly when ``M`` is non-zero
    on few ranks (metrics with a cutoff): a sum of terms of one sign, accurate
    entry by entry, where ``G^T z`` is accurate only relative to its largest
    entry. ``None`` when that would cost more than 2e5 pmf evaluations
    (then the cost stays O(n m) with a small constant)."""
    rows = np.flatnonzero(mvals if p is None else mvals * p) + 1
    if rows.shape[0] * (m + 1) > 2e5:
        return None
    weight = mvals[rows - 1] * (1.0 / n if p is None else p[rows - 1])
    out = np.zeros(m + 1)
    step = _rank_block(max(rows.shape[0], 1), m)
    for s in range(0, rows.shape[0], step):
        out += weight[s:s + step] @ _pmf(rows[s:s + step], n, m, replace)
    return out


def _system_dense(n, m, replace, p, mvals):
    rows = np.arange(1, n + 1) if p is None else np.flatnonzero(p > 0) + 1
    weight = np.full(rows.shape[0], 1.0 / n) if p is None else p[rows - 1]
    R = np.zeros((0, m + 2))
    c = np.zeros(m + 1)
    atb = np.zeros(m + 1)
    step = _rank_block(rows.shape[0], m)
    A = b = None
    for s in range(0, rows.shape[0], step):
        rr, ww = rows[s:s + step], weight[s:s + step]
        P = _pmf(rr, n, m, replace)
        c += ww @ P
        atb += (ww * mvals[rr - 1]) @ P
        sw = np.sqrt(ww)
        block = np.hstack([sw[:, None] * P, (sw * mvals[rr - 1])[:, None]])
        if step >= rows.shape[0]:  # one block: A itself is a valid G (Q = I), no factorisation
            A, b = block[:, :m + 1], block[:, m + 1]
        else:
            R = np.linalg.qr(np.vstack([R, block]), mode="r")  # streaming (TSQR) update
    b_sq = float(weight @ (mvals[rows - 1] ** 2))
    if A is not None:
        return _System(A, b, c, b_sq, "dense", min(rows.shape[0], m + 1), A, b, atb)
    return _System(R[:, :m + 1], R[:, m + 1], c, b_sq, "dense", min(rows.shape[0], m + 1), None, None, atb)


def _stacked(system, gamma):
    """Least-squares form of the bias-variance objective for 0 < gamma < 1:
    (1-gamma)|Ax|^2 - 2 x^T A^T b + gamma x^T diag(c) x + const
    = |[sqrt(1-gamma) G; sqrt(gamma c)] x - [z / sqrt(1-gamma); 0]|^2 + const."""
    m1 = system.G.shape[1]
    G = np.vstack([np.sqrt(1.0 - gamma) * system.G, np.diag(np.sqrt(gamma * system.c))])
    z = np.concatenate([system.z / np.sqrt(1.0 - gamma), np.zeros(m1)])
    return G, z


def _monotone_lsq(G, z, lo, hi, decreasing):
    """min |G x - z| subject to hi >= x_1 >= ... >= x_{m+1} >= lo (or increasing).

    Solved exactly with NNLS on the increments (Lawson & Hanson 1974):
    x = lo + U d with d >= 0 enforces monotonicity and the lower bound; if the
    upper bound is then violated it is active, and the problem is re-solved
    from the top (x = hi - L e, e >= 0); only if both bounds are active is the
    equality sum(d) = hi - lo imposed by a heavily weighted row.
    """
    if not decreasing:
        x = _monotone_lsq(G[:, ::-1], z, lo, hi, True)
        return x[::-1]
    m1 = G.shape[1]
    tol = 1e-12 * max(1.0, abs(hi), abs(lo))
    scale = np.sqrt(np.sum(G * G)) or 1.0
    Gs, zs = G / scale, z / scale
    B = np.cumsum(Gs, axis=1)  # columns of G U: x_k = lo + sum_{j >= k} d_j
    d, _ = optimize.nnls(B, zs - lo * Gs.sum(axis=1), maxiter=50 * m1)
    x = lo + np.cumsum(d[::-1])[::-1]
    if x[0] > hi + tol:
        Bt = -np.cumsum(Gs[:, ::-1], axis=1)[:, ::-1]  # x_k = hi - sum_{j <= k} e_j
        e, _ = optimize.nnls(Bt, zs - hi * Gs.sum(axis=1), maxiter=50 * m1)
        x = hi - np.cumsum(e)
        if x[-1] < lo - tol:
            weight = 1e6 * np.sqrt(np.sum(B * B)) / max(hi - lo, 1e-300)
            Bw = np.vstack([B, weight * np.ones((1, m1))])
            zw = np.concatenate([zs - lo * Gs.sum(axis=1), [weight * (hi - lo)]])
            d, _ = optimize.nnls(Bw, zw, maxiter=50 * m1)
            x = lo + np.cumsum(d[::-1])[::-1]
    return np.minimum.accumulate(np.clip(x, lo, hi))


def _round_rank(rhat, rounding, n):
    if rounding == "round":
        return np.clip(np.floor(rhat + 0.5), 1, n).astype(np.int64)
    if rounding == "floor":
        return np.clip(np.floor(rhat), 1, n).astype(np.int64)
    return np.clip(np.ceil(rhat), 1, n).astype(np.int64)


def correction(
    n_items,
    n_samples,
    metric,
    method="bias_variance",
    gamma=None,
    prior=None,
    *,
    replace=True,
    monotone=False,
    rcond=None,
    rounding=None,
    solver="auto",
    return_info=False,
):
    """Corrected metric value for each sampled rank ``r~ = 1..m+1``.

    A user whose relevant item has sampled rank ``r~`` among ``m`` sampled
    irrelevant items scores ``out[r~ - 1]``; averaged over users this
    estimates the metric on the full catalogue of ``n`` items. Methods
    (Krichene & Rendle 2020, Sec. 5):

    ``"sampled"``
        No correction: ``M_{m+1}(r~)``, the metric on the sampled list.
    ``"unbiased_rank"``
        ``M(r^)`` with the unbiased rank estimate
        ``r^ = 1 + (n - 1)(r~ - 1)/m`` (``E[r^ | r] = r``); ``r^`` is made an
        integer by ``rounding``.
    ``"minimal_bias"``
        The least-squares solution of
        ``min_x sum_r p(r) (E[x_{r~} | r] - M(r))^2 = min_x |A x - b|^2``
        with ``A[r, k] = sqrt(p(r)) P(r~ = k+1 | r)`` (``n x (m+1)``: an
        over-determined system when ``n > m + 1``) and
        ``b_r = sqrt(p(r)) M(r)``.
    ``"bias_variance"``
        Minimises ``sum_r p(r) ((E[x_{r~}|r] - M(r))^2 + gamma Var[x_{r~}|r])``,
        whose solution is
        ``x = ((1 - gamma) A^T A + gamma diag(c))^{-1} A^T b`` with
        ``c_k = sum_r p(r) P(r~ = k+1 | r)``. ``gamma = 0`` is minimal bias,
        ``gamma = 1`` the posterior mean ``E[M(r) | r~]``.
    ``"monotone"``
        The bias-variance objective (default ``gamma = 0``) subject to
        ``x`` non-increasing in ``r~`` (non-decreasing for an increasing
        metric) and inside the metric's range ``[min_r M(r), max_r M(r)]``;
        same as ``monotone=True``.

    Parameters
    ----------
    n_items : int
        Catalogue size ``n``.
    n_samples : int
        Number ``m`` of sampled irrelevant items.
    metric : str or callable
        See :func:`metric_function`.
    method : str, default "bias_variance"
        One of :data:`CORRECTION_METHODS`.
    gamma : float in [0, 1], optional
        Weight of the variance. Default ``0.01`` for ``"bias_variance"``
        (our choice: small enough to keep the bias near its minimum, large
        enough to tame the variance; see the book's chapter), ``0`` for
        ``"monotone"``; must be 0 or ``None`` for ``"minimal_bias"``; not
        used by ``"sampled"`` and ``"unbiased_rank"``.
    prior : array-like of shape (n_items,), optional
        Weights ``p(r)`` of the true ranks (normalised to sum 1); uniform by
        default, as in the paper.
    replace : bool, default True
        Binomial (with replacement) or hypergeometric sampling model.
    monotone : bool, default False
        Add the monotonicity and range constraints to ``"minimal_bias"`` or
        ``"bias_variance"``.
    rcond : float in [0, 1), optional
        ``"minimal_bias"`` only (without ``monotone``): singular values of
        ``A`` below ``rcond * s_max`` are treated as zero, exactly as in
        ``numpy.linalg.lstsq(A, b, rcond)``. Default
        ``eps * max(n, m + 1)``, NumPy's default. The truncated solution is
        determined to about ``3 eps / rcond`` relative to its largest entry
        (the ``estimated_relative_error`` of ``return_info``): with
        ``rcond=1e-6`` to about 1e-10 (measured: below 2e-10 between
        NumPy/OpenBLAS builds with and without AVX-512, for n = 5,000 and
        10,000, m = 100), with ``rcond=1e-8`` only to about 1e-8.
    rounding : {"round", "floor", "ceil", "interpolate"}, optional
        ``"unbiased_rank"`` only (default ``"round"``): how ``r^`` becomes a rank ("round" is
        half up; "interpolate" is linear between the neighbouring ranks,
        which keeps AUC exactly unbiased).
    solver : {"auto", "quadrature", "dense"}, default "auto"
        How the least-squares system is formed; see Notes. ``"auto"`` uses
        ``"dense"`` when fewer than ``2 (m + 1)`` ranks have positive prior
        weight (a square or under-determined system), else ``"quadrature"``.
    return_info : bool, default False
        Also return a dict with the solver, the singular values of ``A``, its
        condition number, the numerical rank, ``rcond``, an estimate of the
        relative error of the result and the residual norm.

    Returns
    -------
    numpy.ndarray of shape (m + 1,)
        ``out[i]`` is the corrected value for sampled rank ``i + 1``.
    dict
        Only with ``return_info=True``.

    Warns
    -----
    IllConditionedCorrectionWarning
        ``"minimal_bias"``: when ``3 eps s_max / s_min`` over the singular
        values kept exceeds ``1e-6`` (the result is then not reliable to six
        digits: two correct algorithms disagree; the factor 3 is measured),
        or when the default ``rcond`` discarded singular values (the result
        then depends on the threshold). An explicit ``rcond`` that discards
        them is a choice, not an accident: the truncated solution is then
        determined to about ``3 eps / rcond`` (see ``rcond``) and matches
        ``numpy.linalg.lstsq`` on the dense ``A`` to that accuracy.

    Notes
    -----
    **What is computed.** Minimal bias is ``lstsq(A, b, rcond)``: the
    minimum-norm least-squares solution after discarding singular values
    below ``rcond * s_max``. The system is badly conditioned: every column
    of ``A`` is a polynomial of degree ``m`` in ``r`` (a Bernstein
    polynomial under the binomial model), and ``cond(A)`` grows like
    ``2^m`` (about ``5e5`` at ``m = 20``, ``5e8`` at ``m = 30``, ``5e11``
    at ``m = 40``); from ``m`` around 35 on, the minimal-bias vector is not
    determined in double precision by *any* algorithm, and its entries are
    huge with alternating signs. ``A^T A`` is never formed nor inverted.
    Bias-variance with ``gamma > 0`` is well conditioned
    (``c_k > 0`` regularises it) and is solved as a stacked least-squares
    problem.

    **How** (``solver="quadrature"``). Let ``psi_0..psi_m`` be the
    orthonormal polynomials of the prior on the nodes ``x_r = (r-1)/(n-1)``
    (closed-form recurrence for the uniform prior, the discrete Chebyshev
    polynomials; Stieltjes procedure otherwise) and ``(t_i, w_i)`` its
    ``(m+1)``-point Gauss rule, with ``V`` the eigenvectors of the Jacobi
    matrix (Golub-Welsch). Because ``A[:, k] / sqrt(p)`` is a polynomial of
    degree ``m``, ``A = Q G`` exactly, with ``Q`` orthonormal,
    ``G[i, k] = sqrt(w_i) P(r~ = k+1 | r = 1 + (n-1) t_i)`` and
    ``Q^T b = V^T y``, ``y_j = sum_r p(r) psi_j(x_r) M(r)``. So the
    ``n``-row problem is the ``(m+1)``-row problem ``min |G x - V^T y|``
    with the same singular values, solved by SVD (``numpy.linalg.lstsq``).
    Cost: ``O(n m)`` time for ``y`` (``O(k m)`` for a metric with cutoff
    ``k`` under the uniform prior) and ``O(m^3)`` for the Gauss rule and the
    small solve; memory ``O(m^2)`` plus ``O(n)`` for the metric values (and
    the prior). ``solver="dense"`` forms ``A`` in blocks of rows and reduces
    it with a streaming QR (TSQR) when it does not fit in one block of
    2e6 entries; ``O(n m^2)`` time, ``O(block m + m^2)`` memory.

    Examples
    --------
    >>> correction(10_000, 99, "auc", method="unbiased_rank", rounding="interpolate")[:3].round(4).tolist()
    [1.0, 0.9899, 0.9798]
    >>> x = correction(10_000, 100, "recall@10", gamma=0.01)
    >>> x.shape, round(float(x[0]), 4)
    ((101,), 0.4044)

    References
    ----------
    Krichene & Rendle (2020), Sec. 5; Krichene & Rendle (2022); Gautschi,
    Orthogonal Polynomials: Computation and Approximation (2004), Sec. 2.2;
    Golub & Welsch (1969); Lawson & Hanson, Solving Least Squares Problems
    (1974).
    """
    n, m, replace = _check_nm(n_items, n_samples, replace)
    check_choice(method, "method", CORRECTION_METHODS)
    if rounding is not None:
        check_choice(rounding, "rounding", _ROUNDINGS)
        if method != "unbiased_rank":
            raise ValueError(f"rounding applies only to method='unbiased_rank', not to method={method!r}")
    else:
        rounding = "round"
    check_choice(solver, "solver", _SOLVERS)
    monotone = _check_bool(monotone, "monotone")
    return_info = _check_bool(return_info, "return_info")
    if method == "monotone":
        monotone = True
    least_squares = method in ("minimal_bias", "bias_variance", "monotone")
    if gamma is not None:
        gamma = check_fraction(gamma, "gamma")
        if not least_squares:
            raise ValueError(f"gamma applies only to the least-squares methods, not to method={method!r}")
        if method == "minimal_bias" and gamma != 0:
            raise ValueError(f"method='minimal_bias' is gamma = 0; use method='bias_variance' for gamma={gamma}")
    elif least_squares:
        gamma = DEFAULT_GAMMA if method == "bias_variance" else 0.0
    if monotone and not least_squares:
        raise ValueError(f"monotone=True applies to the least-squares methods, not to method={method!r}")
    if rcond is not None:
        rcond = _check_rcond(rcond)
        if method != "minimal_bias" or monotone:
            raise ValueError(
                "rcond applies only to the unconstrained minimal-bias solve (method='minimal_bias', "
                f"monotone=False), not to method={method!r}, monotone={monotone}"
            )
    p = _check_prior(prior, n)
    if p is not None and not least_squares:
        raise ValueError(f"prior applies only to the least-squares methods, not to method={method!r}")

    info = {"method": method, "gamma": gamma, "solver": None}
    if method == "sampled":
        out = metric_function(metric, m + 1)(np.arange(1, m + 2))
        return (out, info) if return_info else out
    full = metric_function(metric, n)
    if method == "unbiased_rank":
        rhat = 1.0 + (n - 1.0) * np.arange(m + 1) / m
        if rounding == "interpolate":
            lo = np.floor(rhat).astype(np.int64)
            hi = np.minimum(lo + 1, n)
            frac = rhat - lo
            out = (1 - frac) * full(lo) + frac * full(hi)
        else:
            out = full(_round_rank(rhat, rounding, n))
        return (out, info) if return_info else out

    mvals = full(np.arange(1, n + 1))
    support = n if p is None else int(np.count_nonzero(p))
    small = support < 2 * (m + 1) or support * (m + 1) ** 2 <= _DENSE_WORK
    use = solver if solver != "auto" else ("dense" if small else "quadrature")
    if use == "quadrature" and support < m + 1:
        raise ValueError(
            f"solver='quadrature' needs at least n_samples + 1 = {m + 1} ranks with positive prior weight, "
            f"got {support}; use solver='dense'"
        )
    system = (
        _system_quadrature(n, m, replace, p, mvals)
        if use == "quadrature"
        else _system_dense(n, m, replace, p, mvals)
    )
    info["solver"] = use
    lo_val, hi_val = float(mvals.min()), float(mvals.max())

    if monotone:
        if not (np.all(np.diff(mvals) <= 0) or np.all(np.diff(mvals) >= 0)):
            raise ValueError("monotone=True needs a metric that is monotone in the rank")
        decreasing = bool(mvals[0] >= mvals[-1])
        if gamma == 0:
            G, z = system.G, system.z
        elif gamma < 1:
            G, z = _stacked(system, gamma)
        else:  # gamma = 1: minimise sum_k c_k (x_k - q_k)^2 with q the posterior mean
            q = _posterior_mean(system)
            G, z = np.diag(np.sqrt(system.c)), np.sqrt(system.c) * q
        out = _monotone_lsq(G, z, lo_val, hi_val, decreasing)
    elif gamma == 1:
        out = _posterior_mean(system)
    elif gamma > 0:
        out = _solve_bias_variance(system, gamma)
    else:
        rc = _EPS * max(n, m + 1) if rcond is None else rcond
        if system.A is not None:  # the dense system itself: exactly numpy.linalg.lstsq(A, b, rcond)
            out, _, rank, sv = np.linalg.lstsq(system.A, system.b, rcond=rc)
        else:
            out, _, rank, sv = np.linalg.lstsq(system.G, system.z, rcond=rc)
        info.update(_trust(sv, rank, rc, system, out, system.G, system.z))
        if info["rank"] < system.structural_rank and rcond is None:
            info["warn"] = True  # singular values discarded by the default threshold, not by choice
        if info["warn"]:
            warnings.warn(
                f"minimal-bias correction (n={n}, m={m}) is not reliable: cond(A) = {info['cond']:.1e}, "
                f"numerical rank {rank} of {system.structural_rank}, estimated relative error "
                f"{info['estimated_relative_error']:.1e}; the vector depends on rounding errors and on rcond. "
                "Use method='bias_variance' with gamma > 0 or method='monotone'.",
                IllConditionedCorrectionWarning,
                stacklevel=2,
            )
    if return_info and "singular_values" not in info:
        sv = np.linalg.svd(system.G, compute_uv=False)
        info.update(_trust(sv, int(np.sum(sv > _EPS * max(n, m + 1) * sv[0])), 0.0, system, out, system.G, system.z))
        info["warn"] = False
    info.pop("warn", None)
    return (out, info) if return_info else out


def _solve_bias_variance(system, gamma):
    """Solve ((1 - gamma) A^T A + gamma diag(c)) x = A^T b.

    The matrix is symmetric positive definite with eigenvalues in
    ``[gamma min(c), max(c)]`` (``||A^T A|| <= max(c)`` because each row of
    ``A^T A`` sums to ``c_k``), so when ``max(c) / (gamma min(c)) <= 1e8``
    the Cholesky factorisation is accurate and cheap; otherwise the stacked
    least-squares form ``G, z`` is solved by SVD.
    """
    c = system.c
    if c.min() > 0 and c.max() / (gamma * c.min()) <= 1e8:
        normal = (1.0 - gamma) * (system.G.T @ system.G)
        normal[np.diag_indices_from(normal)] += gamma * c
        try:
            return sla.cho_solve(sla.cho_factor(normal), system.atb)
        except np.linalg.LinAlgError:
            pass
    return np.linalg.lstsq(*_stacked(system, gamma), rcond=None)[0]


def _posterior_mean(system):
    atb = system.atb
    c = system.c
    return np.divide(atb, c, out=np.zeros_like(atb), where=c > 0)


def _trust(sv, rank, rcond, system, x, G, z):
    structural = system.structural_rank
    s = sv[:structural]
    cond = float(s[0] / s[-1]) if s[-1] > 0 else np.inf
    kept = sv[:max(int(rank), 1)]
    est = 3.0 * _EPS * float(kept[0] / kept[-1])
    resid = G @ x - z
    res_sq = max(system.b_sq - float(z @ z), 0.0) + float(resid @ resid)
    return {
        "singular_values": sv,
        "cond": cond,
        "rank": int(rank),
        "rcond": rcond,
        "estimated_relative_error": est,
        "residual_norm": float(np.sqrt(res_sq)),
        "warn": bool(est > _TRUST),
    }


def corrected_metric(sampled_ranks, n_items, n_samples, metric, *, per_user=False, **kwargs):
    """Apply a correction to observed sampled ranks.

    Looks up ``correction(n_items, n_samples, metric, **kwargs)`` at each
    sampled rank and averages over the last axis (users).

    Parameters
    ----------
    sampled_ranks : array-like of int
        Sampled ranks in ``1..n_samples + 1``; 1-D (users) or 2-D
        (repetitions x users), e.g. from :func:`sample_ranks`.
    n_items, n_samples, metric
        As in :func:`correction`.
    per_user : bool, default False
        Return the corrected value of every user instead of the mean.
    **kwargs
        ``method``, ``gamma``, ``prior``, ``replace``, ... of
        :func:`correction`; or ``values=`` a precomputed correction vector.

    Returns
    -------
    float or numpy.ndarray
        The mean over users (one per repetition for 2-D input), or the
        per-user values.

    Examples
    --------
    >>> corrected_metric([1, 1, 2], 10_000, 99, "auc", method="sampled")
    0.9966329966329966
    """
    m = _check_count(n_samples, "n_samples")
    per_user = _check_bool(per_user, "per_user")
    s = _check_ranks(sampled_ranks, m + 1, "sampled_ranks", ndim=(1, 2))
    values = kwargs.pop("values", None)
    if values is None:
        values = correction(n_items, n_samples, metric, **kwargs)
    else:
        if kwargs:
            raise TypeError(f"values= excludes the options {sorted(kwargs)}")
        values = as_numeric_array(values, "values", ndim=1)
        if values.shape[0] != m + 1:
            raise ValueError(f"values must have n_samples + 1 = {m + 1} entries, got {values.shape[0]}")
    out = values[s - 1]
    if per_user:
        return out
    mean = out.mean(axis=-1)
    return float(mean) if mean.ndim == 0 else mean


def estimator_bias_variance(values, ranks, n_items, metric, replace=True) -> pd.DataFrame:
    """Bias and variance of a corrected metric as a function of the true rank.

    For a vector ``values`` indexed by the sampled rank (``m + 1`` entries),
    ``E[values[r~] | r]`` and ``Var[values[r~] | r]`` under the sampling
    model, against the true metric ``M(r)``.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``rank``, columns ``metric`` (``M(r)``), ``expected``,
        ``bias``, ``variance``, ``rmse`` (root of bias^2 + variance).

    Examples
    --------
    >>> x = correction(1000, 20, "auc", method="unbiased_rank", rounding="interpolate")
    >>> estimator_bias_variance(x, [1, 500], 1000, "auc")["bias"].abs().max() < 1e-12
    np.True_
    """
    v = as_numeric_array(values, "values", ndim=1)
    m = v.shape[0] - 1
    if m < 1:
        raise ValueError("values must have at least 2 entries (one per sampled rank 1..m+1)")
    n, m, replace = _check_nm(n_items, m, replace)
    r = _check_ranks(ranks, n, "ranks", ndim=1)
    P = _pmf(r, n, m, replace)
    mean = P @ v
    var = np.maximum(P @ (v * v) - mean * mean, 0.0)
    true = metric_function(metric, n)(r)
    bias = mean - true
    frame = pd.DataFrame(
        {"metric": true, "expected": mean, "bias": bias, "variance": var, "rmse": np.sqrt(bias * bias + var)},
        index=pd.Index(r, name="rank"),
    )
    return frame
