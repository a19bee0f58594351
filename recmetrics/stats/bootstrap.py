"""Bootstrap confidence intervals of a mean over users, or of a mean paired difference."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._kernels import CHUNK_CELLS
from .._validation import check_choice, check_probability, check_seed
from ._common import (
    _MISSING,
    _NAN,
    _as_frame,
    _check_n_resamples,
    _columns_of,
    _one_or_table,
    _pair,
    _pairs_of,
)

__all__ = ["BootstrapResult", "bootstrap_ci"]

_CI_METHODS = ("percentile", "bca")


@dataclass(frozen=True)
class BootstrapResult:
    """The result of :func:`bootstrap_ci` on one metric.

    Attributes
    ----------
    estimate : float
        The mean (or mean paired difference) on the data.
    low, high : float
        The interval's bounds.
    level : float
        Its confidence level.
    method : str
        ``'percentile'`` or ``'bca'``.
    n_users, n_resamples : int
        Users resampled and number of resamples.
    standard_error : float
        The standard deviation of the bootstrap means.
    """

    estimate: float
    low: float
    high: float
    level: float
    method: str
    n_users: int
    n_resamples: int
    standard_error: float


def _resampled_means(values, n_resamples, rng):
    """Means of ``n_resamples`` resamples of the rows of ``values`` (n, m), as (n_resamples, m).

    The same resampled users serve every column, drawn in blocks of bounded
    size (``CHUNK_CELLS`` indices at a time).
    """
    n, m = values.shape
    out = np.empty((n_resamples, m))
    step = max(1, CHUNK_CELLS // n)
    for lo in range(0, n_resamples, step):
        hi = min(n_resamples, lo + step)
        idx = rng.integers(0, n, size=(hi - lo, n))
        for j in range(m):
            out[lo:hi, j] = values[idx, j].mean(axis=1)
    return out


def _bca(theta, boot, values, alpha):
    """BCa bounds (Efron & Tibshirani, ch. 14) for the mean, jackknife in closed form."""
    n = values.shape[0]
    # bias correction: the fraction of bootstrap means below the estimate
    frac = (np.sum(boot < theta, axis=0) + 0.5 * np.sum(boot == theta, axis=0)) / boot.shape[0]
    z0 = special.ndtri(np.clip(frac, 1.0 / (2 * boot.shape[0]), 1 - 1.0 / (2 * boot.shape[0])))
    # acceleration from the jackknife means (sum - x_i) / (n - 1)
    jack = (values.sum(axis=0) - values) / (n - 1)
    dev = jack.mean(axis=0) - jack
    num = np.sum(dev**3, axis=0)
    den = 6.0 * np.sum(dev**2, axis=0) ** 1.5
    acc = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    bounds = []
    for q in (alpha / 2, 1 - alpha / 2):
        zq = special.ndtri(q)
        adj = special.ndtr(z0 + (z0 + zq) / (1 - acc * (z0 + zq)))
        bounds.append(adj)
    return bounds


def _min_bootstrap_users(level):
    """Fewest users whose bootstrap interval at ``level`` is not just the range of the values.

    With ``n`` users, the smallest resampled mean (every draw the same user)
    has probability ``n**-n``; when that reaches ``(1 - level) / 2`` the
    interval's bounds are the smallest and largest values themselves.
    """
    n = 2
    while n * math.log(n) <= -math.log((1.0 - level) / 2.0):
        n += 1
    return n


def _bootstrap(cols, level, method, n_resamples, rng, name="a"):
    """Bootstrap results per metric from ``{metric: values without NaN}``."""
    n_min = _min_bootstrap_users(level)
    for col, x in cols.items():
        if x.shape[0] < n_min:
            raise ValueError(
                f"metric {col!r} of {name} has {x.shape[0]} users, too few for a bootstrap "
                f"interval at level {level:g} (at least {n_min}: with n users the extreme "
                "resampled means have probability n**-n, and the interval would be the range "
                "of the values). "
                "Per-user values are expected: evaluate(..., per_user=True)"
            )
    alpha = 1.0 - level
    results = {}
    # metrics with the same users are resampled together (one pass, shared indices)
    groups = {}
    for col, x in cols.items():
        groups.setdefault(x.shape[0], []).append(col)
    for n, names in groups.items():
        values = np.column_stack([cols[c] for c in names])
        theta = values.mean(axis=0)
        boot = _resampled_means(values, n_resamples, rng)
        if method == "percentile":
            lo_q = np.full(len(names), alpha / 2)
            hi_q = np.full(len(names), 1 - alpha / 2)
        else:
            lo_q, hi_q = _bca(theta, boot, values, alpha)
        for j, name in enumerate(names):
            low, high = np.quantile(boot[:, j], [lo_q[j], hi_q[j]])
            results[name] = BootstrapResult(
                estimate=float(theta[j]),
                low=float(low),
                high=float(high),
                level=float(level),
                method=method,
                n_users=int(n),
                n_resamples=n_resamples,
                standard_error=float(np.std(boot[:, j], ddof=1)),
            )
    return {col: results[col] for col in cols}


def bootstrap_ci(
    a,
    b=None,
    *,
    level=0.95,
    method="bca",
    n_resamples=10_000,
    seed=0,
    missing="raise",
    nan="drop",
):
    """Bootstrap confidence interval of a mean over users, or of a mean paired difference.

    Users are resampled with replacement (``n_resamples`` times); the
    interval is read from the distribution of the resampled means:

    .. math:: \\hat\\theta = \\frac{1}{n}\\sum_u d_u, \\qquad
              d_u = a_u \\ (\\text{or } a_u - b_u)

    Parameters
    ----------
    a : array-like, pandas.Series or pandas.DataFrame
        Per-user values (a DataFrame: one column per metric; the same
        resampled users serve every metric), e.g.
        ``evaluate(..., per_user=True)``. The means of
        ``evaluate(..., per_user=False)`` are refused (see the module
        docstring).
    b : same as ``a``, optional
        A second model's values: the interval is then that of the mean
        paired difference ``a - b``, users paired as in :func:`paired_test`.
    level : float, default 0.95
        Confidence level, in (0, 1).
    method : {'bca', 'percentile'}, default 'bca'
        ``'percentile'``: the ``(1 - level) / 2`` and ``(1 + level) / 2``
        quantiles of the resampled means. ``'bca'``: bias-corrected and
        accelerated (Efron & Tibshirani 1993, ch. 14), more accurate for
        skewed per-user values (most ranking metrics are).
    n_resamples : int, default 10000
        Number of resamples, at least 1.
    seed : None, int or numpy.random.Generator, default 0
        Seed of the resampling: an integer gives the same resamples on
        every call, ``None`` fresh entropy from the operating system.
    missing, nan : str
        As in :func:`paired_test` (``nan='drop'`` drops a user's NaN per
        metric; with ``b``, a user is dropped when either value is NaN).

    Returns
    -------
    BootstrapResult or pandas.DataFrame
        One result for one metric, else a DataFrame indexed by metric name
        (columns estimate, low, high, level, method, n_users, n_resamples,
        standard_error).

    Raises
    ------
    TypeError
        For non-numeric input and arguments of the wrong type.
    ValueError
        As in :func:`paired_test`, and for a metric with too few users for
        an interval at this level: with ``n`` users the most extreme
        resampled mean has probability ``n**-n``, so at least
        :math:`n` with :math:`n^{-n} < (1 - \\text{level}) / 2` (4 users at
        levels 0.95 and 0.99, 5 at 0.999).

    See Also
    --------
    paired_test : the p-value of the difference.
    scipy.stats.bootstrap : the general routine (slower here: this one
        resamples every metric with the same users in one pass).

    References
    ----------
    B. Efron and R. J. Tibshirani. An Introduction to the Bootstrap. Chapman &
    Hall, 1993.

    Examples
    --------
    >>> a = [0.50, 0.40, 0.90, 0.70, 0.60, 0.80, 0.30, 0.55]
    >>> r = bootstrap_ci(a, method="percentile", n_resamples=2000, seed=1)
    >>> round(r.estimate, 4), r.low < r.estimate < r.high
    (0.5938, True)
    >>> b = [0.45, 0.30, 0.80, 0.72, 0.50, 0.60, 0.31, 0.50]
    >>> d = bootstrap_ci(a, b, n_resamples=2000, seed=1)
    >>> round(d.estimate, 4), bool(d.low > 0)
    (0.0713, True)
    """
    check_choice(method, "method", _CI_METHODS)
    level = check_probability(level, "level")
    check_choice(missing, "missing", _MISSING)
    check_choice(nan, "nan", _NAN)
    n_resamples = _check_n_resamples(n_resamples)
    rng = check_seed(seed)
    if b is None:
        fa, _ = _as_frame(a, "a")
        cols = _columns_of(fa, nan)
    else:
        fa, fb = _pair(a, b, missing)
        cols = {col: x - y for col, (x, y) in _pairs_of(fa, fb, nan).items()}
    results = _bootstrap(cols, level, method, n_resamples, rng, "a" if b is None else "a - b")
    return _one_or_table(results, len(results) == 1)
