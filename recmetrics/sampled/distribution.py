"""The distribution of a sampled rank, expected metrics, and Monte Carlo sampling.

With ``m`` sampled irrelevant items, ``r~ - 1`` given the true rank ``r`` is
binomial (with replacement) or hypergeometric (without); see
:func:`rank_distribution`, :func:`expected_metric` and :func:`sample_ranks`.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import special

from .._docs import fill_doc
from .._kernels import CHUNK_CELLS
from .._validation import as_numeric_array, check_bool, check_k, check_seed
from ._common import _check_count, _check_nm, _check_ranks
from .metric import RankMetric, _accepts_n_items, metric_function

# ---------------------------------------------------------------------------
# The distribution of the sampled rank
# ---------------------------------------------------------------------------


@fill_doc
def rank_distribution(rank, n_items, n_samples, replace=True) -> np.ndarray:
    """Distribution of the sampled rank ``r~`` given the true rank ``r``.

    The relevant item is ranked against ``m = n_samples`` irrelevant items
    drawn uniformly from the ``n - 1`` irrelevant ones; ``r~ - 1`` counts the
    sampled items ranked above it.

    * ``replace=True`` (the paper's model): ``r~ - 1 ~ Binomial(m, p)`` with
      ``p = (r - 1) / (n - 1)``,
    * ``replace=False``: ``r~ - 1 ~ Hypergeometric``,

    .. math::

        P(\\tilde r = i \\mid r) = \\binom{m}{i-1} p^{i-1} (1-p)^{m-i+1}
        \\quad\\text{or}\\quad
        \\frac{\\binom{r-1}{i-1}\\binom{n-r}{m-i+1}}{\\binom{n-1}{m}},
        \\qquad i = 1, \\dots, m + 1.

    Both have mean ``E[r~] = 1 + m (r - 1) / (n - 1)`` (Krichene & Rendle
    2020, Sec. 3.2).

    Parameters
    ----------
    rank : int or array-like of int
        True rank(s) ``r`` in ``1..n_items``.
    %(sampled_n_items)s
    %(sampled_n_samples)s
    %(sampled_replace)s

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
    >>> rank_distribution([1, 3], n_items=5, n_samples=2).tolist()   # one row per rank
    [[1.0, 0.0, 0.0], [0.25, 0.5, 0.25]]

    See Also
    --------
    expected_metric : The expectation of a metric of ``r~``.
    sample_ranks : Draws of ``r~`` (Monte Carlo).
    correction : Corrected metric values indexed by ``r~``.

    References
    ----------
    %(ref_krichene2020)s

    %(ref_loader2000)s
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
    from scipy import stats  # imported on first use (0.6 s)

    k = np.arange(m + 1 if kmax is None else min(kmax, m + 1))
    r = np.asarray(r)
    if replace:
        return _binom_pmf(m, ((r - 1) / (n - 1))[..., None], ((n - r) / (n - 1))[..., None], kmax)
    big_n, big_k, q = n - 1, (r - 1)[..., None], m / (n - 1.0)
    if m == big_n:  # every irrelevant item is drawn: r~ = r
        return (k == big_k).astype(np.float64)
    return (
        stats.binom.pmf(k, big_k, q)
        * stats.binom.pmf(m - k, big_n - big_k, q)
        / stats.binom.pmf(m, big_n, q)
    )


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
    from scipy import stats  # imported on first use (0.6 s)

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
            log_pmf = (
                -np.log(m + 1.0)
                - special.betaln(kk + 1.0, m - kk + 1.0)
                + special.xlogy(kk, pp)
                + special.xlogy(m - kk, qq)
            )
        out[tail] = np.exp(log_pmf)
    return out


def _rank_block(n_rows, m):
    return max(1, min(n_rows, 2_000_000 // (m + 1)))


@fill_doc
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
    %(sampled_n_items)s
    n_samples : int or 1-D array-like of int
        Number ``m`` of sampled items (>= 1; at most ``n - 1`` without
        replacement); several values give the expectation as a function of
        ``m`` (the metric's values are then computed once when they do not
        depend on the list length, i.e. except for AUC).
    %(sampled_metric)s
    %(sampled_replace)s
    per_user : bool, default False
        Return one expectation per rank instead of their mean.

    Returns
    -------
    float or numpy.ndarray
        The mean over the given ranks (a float; for one scalar rank, its
        expectation), or with ``per_user`` one value per rank. For an array
        of ``n_samples``, one entry (or, with ``per_user``, one row) per
        value of ``m``.

    See Also
    --------
    rank_distribution : The distribution the expectation is taken over.
    sample_ranks : Monte Carlo draws of sampled ranks.
    metric_function : The metric ``M(r)`` of one rank.

    Notes
    -----
    Costs ``O(u (m + 1))`` for ``u`` distinct ranks. Examples of closed forms
    (Krichene & Rendle 2020, Sec. 3.3): expected sampled AUC equals the exact
    AUC for every ``m``; expected ``Recall@k`` is the binomial CDF
    ``F(k - 1; m, (r - 1)/(n - 1))``.

    References
    ----------
    %(ref_krichene2020)s

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
        ms = [
            check_k(int(v) if float(v).is_integer() else v, "n_samples")
            for v in as_numeric_array(n_samples, "n_samples", ndim=1)
        ]
        _check_count(n_items, "n_items")
        f = metric_function(metric, None) if _length_free(metric) else None
        values = None if f is None else f(np.arange(1, max(ms) + 2))
        return np.array(
            [
                _expected(
                    ranks,
                    n_items,
                    m,
                    metric,
                    replace,
                    per_user,
                    None if values is None else values[: m + 1],
                )
                for m in ms
            ]
        )
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
    per_user = check_bool(per_user, "per_user")
    if values is None:
        values = metric_function(metric, m + 1)(np.arange(1, m + 2))
    nz = np.flatnonzero(values)
    kmax = int(nz[-1]) + 1 if nz.size else 1  # M(i) = 0 beyond: those probabilities are not needed
    values = values[:kmax]
    uniq, inv = np.unique(r, return_inverse=True)
    out = np.empty(uniq.shape[0])
    step = _rank_block(uniq.shape[0], kmax)
    for s in range(0, uniq.shape[0], step):
        out[s : s + step] = _pmf(uniq[s : s + step], n, m, replace, kmax) @ values
    per = out[inv]
    if scalar:
        return float(per[0])
    return per if per_user else float(per.mean())


# ---------------------------------------------------------------------------
# Monte Carlo: really sample the irrelevant items
# ---------------------------------------------------------------------------


@fill_doc
def sample_ranks(ranks, n_items, n_samples, *, replace=True, n_repeats=None, seed=None):
    """Simulate sampled evaluation: draw ``m`` irrelevant items, rank the relevant one among them.

    .. math:: \\tilde r = 1 + \\sum_{j=1}^{m} \\mathbb{1}[d_j < r - 1]

    for drawn item numbers ``d_1 .. d_m`` in ``0 .. n - 2``, so that ``r~``
    follows :func:`rank_distribution`.

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
        True ranks, one per user, in ``1..n_items``.
    %(sampled_n_items)s
    %(sampled_n_samples)s
    %(sampled_replace)s
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

    See Also
    --------
    rank_distribution : The exact distribution of the draws.
    expected_metric : The exact expectation of a metric of them.
    corrected_metric : Corrected metric values of observed sampled ranks.

    References
    ----------
    %(ref_krichene2020)s

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
    rng = check_seed(seed)
    above = np.tile(r - 1, reps)  # item numbers below this are ranked above the relevant item
    out = np.empty(above.shape[0], dtype=np.int64)
    rejection = (not replace) and m * (m - 1) / (2.0 * (n - 1)) <= 1.0
    step = max(1, CHUNK_CELLS // max(m, 1) if (replace or rejection) else CHUNK_CELLS // (n - 1))
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
            draws = (
                keys.argsort(axis=1)[:, :m]
                if m == n - 1
                else np.argpartition(keys, m - 1, axis=1)[:, :m]
            )
        out[s:e] = 1 + (draws < above[s:e, None]).sum(axis=1)
    return out if single else out.reshape(reps, r.shape[0])
