"""Is B really better? Paired tests, bootstrap intervals, corrections and power.

Everything here works on *per-user* metric values, the ``per_user=True``
output of :func:`recmetrics.evaluate` (a DataFrame, one column per metric,
indexed by user) or of any metric function (an array or a Series). Two
models are compared *paired*: both were evaluated on the same users, and
the user-to-user spread, much larger than the difference between models,
cancels in the per-user differences (Smucker, Allan & Carterette, 2007).

* :func:`paired_test`: paired t, Wilcoxon signed-rank, sign and Fisher's
  randomization test (exact for few users, seeded Monte Carlo otherwise),
  through :mod:`scipy.stats`;
* :func:`bootstrap_ci`: percentile or BCa interval of a mean, or of a mean
  paired difference, resampling users (the same resamples for every metric);
* :func:`adjust_pvalues`: Holm, Bonferroni (statsmodels) and
  Benjamini-Hochberg (scipy);
* :func:`detectable_difference` and :func:`users_needed`: the power of a
  paired t-test (statsmodels);
* :func:`compare`: several models against a baseline on several metrics, as
  a tidy table, and :func:`significance_table` to print it with marks.

**Pairing and missing values.** Inputs with an index (Series, DataFrames)
are aligned on it; users in only one of them raise unless
``missing='drop'``. Arrays without an index must have equal lengths (row ``i``
is the same user in both). A NaN per-user value (a user left out by
``no_relevant='skip'``) drops that user from that metric's comparison
(``nan='drop'``, default) or raises (``nan='raise'``).

References
----------
.. [1] M. D. Smucker, J. Allan and B. Carterette. A Comparison of Statistical
   Significance Tests for Information Retrieval Evaluation. CIKM 2007.
.. [2] T. Sakai. Statistical reform in information retrieval? SIGIR Forum
   48(1), 2014.
.. [3] B. Carterette. Multiple testing in statistical analysis of
   systems-based information retrieval experiments. ACM TOIS 30(1), 2012.
.. [4] R. Dror, G. Baumer, S. Shlomov and R. Reichart. The Hitchhiker's Guide
   to Testing Statistical Significance in Natural Language Processing.
   ACL 2018.
.. [5] B. Efron and R. J. Tibshirani. An Introduction to the Bootstrap.
   Chapman & Hall, 1993 (BCa intervals: chapter 14).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import special, stats

from ._kernels import CHUNK_CELLS
from ._validation import check_choice, check_seed

__all__ = [
    "PAIRED_TESTS",
    "PairedTestResult",
    "BootstrapResult",
    "paired_test",
    "bootstrap_ci",
    "adjust_pvalues",
    "detectable_difference",
    "users_needed",
    "compare",
    "significance_table",
]

PAIRED_TESTS = ("t", "wilcoxon", "sign", "randomization")
_ALTERNATIVES = ("two-sided", "greater", "less")
_ADJUSTMENTS = ("holm", "bonferroni", "bh", "none")
_CI_METHODS = ("percentile", "bca")


@dataclass(frozen=True)
class PairedTestResult:
    """The result of :func:`paired_test` on one metric.

    Attributes
    ----------
    statistic : float
        The test statistic (t; Wilcoxon's W; the number of users where
        ``a > b`` for the sign test; the mean difference for randomization).
    pvalue : float
        The p-value under the test's null hypothesis.
    mean_difference : float
        ``mean(a - b)`` over the paired users.
    n_users : int
        Users in the comparison (after alignment and NaN handling).
    method, alternative : str
        As requested.
    details : dict
        Method-specific: degrees of freedom (t), ties and zero differences
        (sign, Wilcoxon), number of resamples and whether the randomization
        distribution was exact.
    """

    statistic: float
    pvalue: float
    mean_difference: float
    n_users: int
    method: str
    alternative: str
    details: dict = field(default_factory=dict)


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


# --------------------------------------------------------------------------
# reading per-user values
def _as_frame(x, name):
    """Per-user values as a DataFrame (one column per metric) and whether the input had an index."""
    if isinstance(x, pd.DataFrame):
        frame, indexed = x, True
    elif isinstance(x, pd.Series):
        frame, indexed = x.to_frame(name=x.name if x.name is not None else "value"), True
    else:
        if isinstance(x, (str, bytes, set, dict)) or x is None:
            raise TypeError(
                f"{name} must be per-user values (array, Series or DataFrame), got {x!r}"
            )
        arr = np.asarray(x)
        if arr.ndim != 1:
            raise ValueError(f"{name} must be 1-D (one value per user), got shape {arr.shape}")
        frame, indexed = pd.DataFrame({"value": arr}), False
    bad = [c for c in frame.columns if frame[c].dtype.kind not in "iufb"]
    if bad:
        raise TypeError(f"{name} column {bad[0]!r} must hold numbers, got {frame[bad[0]].dtype}")
    if len(frame) == 0:
        raise ValueError(f"{name} is empty")
    values = frame.to_numpy(dtype=np.float64)
    if np.isinf(values).any():
        raise ValueError(f"{name} holds an infinite value")
    return frame.astype(np.float64), indexed


def _pair(a, b, missing):
    """Align two per-user inputs; return the two frames with the same index and columns."""
    check_choice(missing, "missing", ("raise", "drop"))
    fa, ia = _as_frame(a, "a")
    fb, ib = _as_frame(b, "b")
    if list(fa.columns) != list(fb.columns):
        if fa.shape[1] == fb.shape[1] == 1:
            fb = fb.set_axis(fa.columns, axis=1)
        else:
            raise ValueError(
                f"a and b must hold the same metrics: {list(fa.columns)} and {list(fb.columns)}"
            )
    if ia and ib:
        if not fa.index.is_unique or not fb.index.is_unique:
            raise ValueError("a and b must have one row per user (their index repeats a user)")
        only_a = fa.index.difference(fb.index)
        only_b = fb.index.difference(fa.index)
        if len(only_a) or len(only_b):
            if missing == "raise":
                who = only_a[0] if len(only_a) else only_b[0]
                raise ValueError(
                    f"{len(only_a)} users are only in a and {len(only_b)} only in b "
                    f"(e.g. {who!r}); "
                    "pass missing='drop' to compare the users present in both"
                )
            common = fa.index.intersection(fb.index, sort=False)
            fa, fb = fa.loc[common], fb.loc[common]
        else:
            fb = fb.loc[fa.index]
    else:
        if len(fa) != len(fb):
            raise ValueError(
                f"a and b have {len(fa)} and {len(fb)} users; without an index (arrays) row i must "
                "be the same user in both, so the lengths must be equal"
            )
        fb = fb.set_axis(fa.index, axis=0)
    return fa, fb


def _pairs_of(fa, fb, nan):
    """Per metric: the paired values without NaN (or raise)."""
    check_choice(nan, "nan", ("drop", "raise"))
    out = {}
    for col in fa.columns:
        x, y = fa[col].to_numpy(), fb[col].to_numpy()
        ok = ~(np.isnan(x) | np.isnan(y))
        if not ok.all() and nan == "raise":
            raise ValueError(
                f"metric {col!r} has NaN for {int((~ok).sum())} users (users without relevant "
                "items under no_relevant='skip'?); pass nan='drop' to leave them out"
            )
        if ok.sum() < 2:
            raise ValueError(f"metric {col!r} has fewer than 2 users with values in both a and b")
        out[col] = (x[ok], y[ok])
    return out


def _n_resamples(n):
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n_resamples must be an integer >= 1, got {n!r}")
    return int(n)


def _one_or_table(results, single):
    if single:
        return next(iter(results.values()))
    rows = {
        name: {k: v for k, v in r.__dict__.items() if k != "details"} for name, r in results.items()
    }
    table = pd.DataFrame(rows).T
    table.index.name = "metric"
    return table


# --------------------------------------------------------------------------
# paired tests
def paired_test(
    a,
    b,
    *,
    method="t",
    alternative="two-sided",
    n_resamples=10_000,
    seed=0,
    missing="raise",
    nan="drop",
):
    """Paired significance test of the per-user values of two models.

    .. math:: H_0:\\ \\text{the per-user differences } d_u = a_u - b_u
              \\text{ are centred on } 0

    Parameters
    ----------
    a, b : array-like, pandas.Series or pandas.DataFrame
        Per-user values of the two models (a DataFrame: one column per
        metric, tested separately). See the module docstring for how users
        are paired.
    method : {'t', 'wilcoxon', 'sign', 'randomization'}, default 't'
        ``'t'``: Student's paired t-test (``scipy.stats.ttest_rel``).
        ``'wilcoxon'``: Wilcoxon's signed-rank test
        (``scipy.stats.wilcoxon``; zero differences dropped).
        ``'sign'``: the sign test, a binomial test of the number of users
        with ``a > b`` among those with ``a != b`` (``scipy.stats.binomtest``).
        ``'randomization'``: Fisher's paired randomization test of the mean
        difference (``scipy.stats.permutation_test`` swapping ``a_u`` and
        ``b_u``): exact when ``2**n_users <= n_resamples``, else
        ``n_resamples`` seeded random sign flips.
    alternative : {'two-sided', 'greater', 'less'}, default 'two-sided'
        ``'greater'``: the alternative is that ``a`` is better (larger).
    n_resamples : int, default 10000
        Resamples of the randomization test.
    seed : int or numpy.random.Generator, default 0
        Seed of the randomization test.
    missing : {'raise', 'drop'}, default 'raise'
        Users present in only one of ``a`` and ``b`` (indexed inputs).
    nan : {'drop', 'raise'}, default 'drop'
        Users with a NaN value for a metric.

    Returns
    -------
    PairedTestResult or pandas.DataFrame
        One result for 1-D input or a one-column frame; a DataFrame (one
        row per metric: statistic, pvalue, mean_difference, n_users,
        method, alternative) for several metrics.

    See Also
    --------
    bootstrap_ci : the interval of the mean difference.
    adjust_pvalues : for many tests at once.

    References
    ----------
    M. D. Smucker, J. Allan and B. Carterette. A Comparison of Statistical
    Significance Tests for Information Retrieval Evaluation. CIKM 2007.

    Examples
    --------
    >>> a = [0.50, 0.40, 0.90, 0.70, 0.60, 0.80]
    >>> b = [0.45, 0.30, 0.80, 0.72, 0.50, 0.60]
    >>> r = paired_test(a, b)
    >>> round(r.statistic, 3), round(r.pvalue, 4), round(r.mean_difference, 4)
    (2.996, 0.0302, 0.0883)
    >>> round(paired_test(a, b, method="randomization").pvalue, 4)   # exact: 2**6 sign flips
    0.0625
    >>> paired_test(a, b, method="sign").statistic   # users where a > b
    5.0
    """
    check_choice(method, "method", PAIRED_TESTS)
    check_choice(alternative, "alternative", _ALTERNATIVES)
    n_resamples = _n_resamples(n_resamples)
    fa, fb = _pair(a, b, missing)
    rng = check_seed(seed)
    results = {}
    for col, (x, y) in _pairs_of(fa, fb, nan).items():
        d = x - y
        details = {}
        if method == "t":
            res = stats.ttest_rel(x, y, alternative=alternative)
            statistic, p = float(res.statistic), float(res.pvalue)
            details["df"] = int(d.shape[0] - 1)
        elif method == "wilcoxon":
            if not np.any(d != 0):
                statistic, p = 0.0, 1.0
            else:
                res = stats.wilcoxon(x, y, alternative=alternative)
                statistic, p = float(res.statistic), float(res.pvalue)
            details["zero_differences"] = int(np.sum(d == 0))
        elif method == "sign":
            wins, losses = int(np.sum(d > 0)), int(np.sum(d < 0))
            statistic = float(wins)
            p = (
                1.0
                if wins + losses == 0
                else float(
                    stats.binomtest(wins, wins + losses, 0.5, alternative=alternative).pvalue
                )
            )
            details.update(wins=wins, losses=losses, ties=int(d.shape[0] - wins - losses))
        else:
            exact = 2.0 ** d.shape[0] <= n_resamples
            res = stats.permutation_test(
                (x, y),
                lambda u, v, axis: np.mean(u - v, axis=axis),
                permutation_type="samples",
                vectorized=True,
                n_resamples=n_resamples,
                alternative=alternative,
                rng=rng,
            )
            statistic, p = float(res.statistic), float(res.pvalue)
            details.update(
                exact=bool(exact), n_resamples=int(2 ** d.shape[0]) if exact else n_resamples
            )
        results[col] = PairedTestResult(
            statistic=statistic,
            pvalue=p,
            mean_difference=float(np.mean(d)),
            n_users=int(d.shape[0]),
            method=method,
            alternative=alternative,
            details=details,
        )
    return _one_or_table(results, len(results) == 1)


# --------------------------------------------------------------------------
# bootstrap intervals
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
        resampled users serve every metric).
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
        Number of resamples.
    seed : int or numpy.random.Generator, default 0
        Seed of the resampling.
    missing, nan : str
        As in :func:`paired_test` (``nan='drop'`` drops a user's NaN per
        metric; with ``b``, a user is dropped when either value is NaN).

    Returns
    -------
    BootstrapResult or pandas.DataFrame
        One result for one metric, else one row per metric (estimate, low,
        high, level, method, n_users, n_resamples, standard_error).

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
    if (
        isinstance(level, (bool, np.bool_))
        or not isinstance(level, numbers.Real)
        or not 0 < level < 1
    ):
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    n_resamples = _n_resamples(n_resamples)
    rng = check_seed(seed)
    if b is None:
        fa, _ = _as_frame(a, "a")
        check_choice(nan, "nan", ("drop", "raise"))
        cols = {}
        for col in fa.columns:
            x = fa[col].to_numpy()
            ok = ~np.isnan(x)
            if not ok.all() and nan == "raise":
                raise ValueError(f"metric {col!r} has NaN for {int((~ok).sum())} users")
            cols[col] = x[ok]
    else:
        fa, fb = _pair(a, b, missing)
        cols = {col: x - y for col, (x, y) in _pairs_of(fa, fb, nan).items()}
    for col, x in cols.items():
        if x.shape[0] < 2:
            raise ValueError(f"metric {col!r} has fewer than 2 users")
    alpha = 1.0 - float(level)
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
    ordered = {col: results[col] for col in cols}
    return _one_or_table(ordered, len(ordered) == 1)


# --------------------------------------------------------------------------
# many tests
def adjust_pvalues(pvalues, method="holm"):
    """P-values adjusted for multiple comparisons.

    Parameters
    ----------
    pvalues : array-like of float
        P-values in [0, 1], any shape (the adjustment runs over all of them).
    method : {'holm', 'bonferroni', 'bh', 'none'}, default 'holm'
        ``'holm'``: Holm's step-down method, controls the family-wise error
        rate (equal to statsmodels' ``multipletests``, which the tests check,
        and much faster per call). ``'bonferroni'``: ``min(1, m p)``, the
        same control, less power. ``'bh'``: Benjamini-Hochberg,
        controls the false discovery rate (``scipy.stats.false_discovery_control``).
        ``'none'``: unchanged.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape (compare them with the level alpha).

    See Also
    --------
    compare : applies it across models and metrics.

    References
    ----------
    S. Holm. A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6(2), 1979. Y. Benjamini and Y.
    Hochberg. Controlling the false discovery rate. JRSS B 57(1), 1995.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.20]).round(3).tolist()
    [0.04, 0.09, 0.09, 0.2]
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.20], method="bh").round(3).tolist()
    [0.04, 0.053, 0.053, 0.2]
    """
    check_choice(method, "method", _ADJUSTMENTS)
    p = np.asarray(pvalues, dtype=np.float64)
    if p.size == 0:
        raise ValueError("pvalues is empty")
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError("pvalues must lie in [0, 1] (no NaN)")
    flat = p.ravel()
    if method == "none":
        out = flat.copy()
    elif method == "bh":
        out = stats.false_discovery_control(flat, method="bh")
    elif method == "bonferroni":
        out = np.minimum(1.0, flat * flat.shape[0])
    else:
        # Holm's step-down adjustment: the running maximum of (m - i) p_(i) over
        # the sorted p-values. Written out (and tested against statsmodels'
        # multipletests) because multipletests spends ~50 ms per call in
        # gc.collect(), which a simulation of thousands of families cannot afford.
        m = flat.shape[0]
        order = np.argsort(flat, kind="stable")
        stepped = np.maximum.accumulate((m - np.arange(m)) * flat[order])
        out = np.empty(m)
        out[order] = np.minimum(1.0, stepped)
    return np.asarray(out, dtype=np.float64).reshape(p.shape)


# --------------------------------------------------------------------------
# power of a paired comparison
def _check_power_args(sd, alpha, power):
    for value, name in ((alpha, "alpha"), (power, "power")):
        if (
            isinstance(value, (bool, np.bool_))
            or not isinstance(value, numbers.Real)
            or not 0 < value < 1
        ):
            raise ValueError(f"{name} must be a number in (0, 1), got {value!r}")
    if isinstance(sd, (bool, np.bool_)) or not isinstance(sd, numbers.Real) or not sd > 0:
        raise ValueError(
            "sd must be a number > 0 (the standard deviation of the per-user "
            f"differences), got {sd!r}"
        )


def detectable_difference(n_users, sd, *, alpha=0.05, power=0.8):
    """Smallest mean paired difference a two-sided paired t-test detects with this power.

    .. math:: \\delta = d \\cdot s, \\quad d \\text{ solving }
              \\Pr[\\,|T_{n-1}(d\\sqrt{n})| > t_{1-\\alpha/2, n-1}] = 1 - \\beta

    Parameters
    ----------
    n_users : int
        Users in the paired comparison (at least 2).
    sd : float
        Standard deviation of the per-user differences ``a - b`` (from a
        pilot or an earlier experiment).
    alpha : float, default 0.05
        Level of the test.
    power : float, default 0.8
        Required probability of detecting the difference.

    Returns
    -------
    float
        The difference in the metric's own units.

    See Also
    --------
    users_needed : the inverse question.

    References
    ----------
    J. Cohen. Statistical Power Analysis for the Behavioral Sciences. 2nd ed.,
    1988 (through statsmodels' ``TTestPower``).

    Examples
    --------
    >>> round(detectable_difference(671, sd=0.3), 4)
    0.0325
    """
    from statsmodels.stats.power import TTestPower

    _check_power_args(sd, alpha, power)
    if (
        isinstance(n_users, (bool, np.bool_))
        or not isinstance(n_users, numbers.Integral)
        or n_users < 2
    ):
        raise ValueError(f"n_users must be an integer >= 2, got {n_users!r}")
    d = TTestPower().solve_power(effect_size=None, nobs=int(n_users), alpha=alpha, power=power)
    # statsmodels returns a one-element array when its second root finder is used
    return float(np.ravel(d)[0] * sd)


def users_needed(difference, sd, *, alpha=0.05, power=0.8):
    """Users a two-sided paired t-test needs to detect a mean difference with this power.

    Parameters
    ----------
    difference : float
        The mean paired difference to detect (metric units, non-zero).
    sd : float
        Standard deviation of the per-user differences.
    alpha, power : float
        As in :func:`detectable_difference`.

    Returns
    -------
    int
        The smallest number of users (rounded up).

    See Also
    --------
    detectable_difference : the inverse question.

    References
    ----------
    J. Cohen. Statistical Power Analysis for the Behavioral Sciences. 2nd ed.,
    1988 (through statsmodels' ``TTestPower``).

    Examples
    --------
    >>> users_needed(0.01, sd=0.3)
    7066
    """
    from statsmodels.stats.power import TTestPower

    _check_power_args(sd, alpha, power)
    if (
        isinstance(difference, (bool, np.bool_))
        or not isinstance(difference, numbers.Real)
        or difference == 0
    ):
        raise ValueError(f"difference must be a non-zero number, got {difference!r}")
    n = TTestPower().solve_power(
        effect_size=abs(float(difference)) / sd, nobs=None, alpha=alpha, power=power
    )
    return int(np.ceil(np.ravel(n)[0]))


# --------------------------------------------------------------------------
# several models at once
def compare(
    per_user_by_model,
    *,
    baseline=None,
    test="t",
    correction="holm",
    alpha=0.05,
    level=0.95,
    ci_method="bca",
    n_resamples=10_000,
    seed=0,
    missing="raise",
    nan="drop",
):
    """Several models on several metrics: means, intervals, and tests against a baseline.

    Parameters
    ----------
    per_user_by_model : dict of str -> pandas.DataFrame
        For each model, its per-user values (``evaluate(..., per_user=True)``),
        the same metrics as columns and the same users.
    baseline : str, optional
        The model the others are compared with (default: the first).
    test : {'t', 'wilcoxon', 'sign', 'randomization'}, default 't'
        The paired test (see :func:`paired_test`).
    correction : {'holm', 'bonferroni', 'bh', 'none'}, default 'holm'
        Adjustment over all (model, metric) tests (see :func:`adjust_pvalues`).
    alpha : float, default 0.05
        Level at which an adjusted p-value counts as significant.
    level, ci_method, n_resamples, seed
        The interval of each mean (see :func:`bootstrap_ci`).
    missing, nan : str
        As in :func:`paired_test`.

    Returns
    -------
    pandas.DataFrame
        Tidy: one row per (model, metric), with the columns ``model``,
        ``metric``, ``mean``, ``ci_low``, ``ci_high``, ``difference`` (to the
        baseline), ``pvalue``, ``pvalue_adjusted`` and ``significant`` (NaN /
        False for the baseline itself).

    See Also
    --------
    significance_table : the same as a printable table with marks.

    References
    ----------
    B. Carterette. Multiple testing in statistical analysis of systems-based
    information retrieval experiments. ACM TOIS 30(1), 2012.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> base = pd.DataFrame({"ndcg@10": rng.random(200), "recall@10": rng.random(200)})
    >>> better = base + rng.normal(0.05, 0.1, base.shape)
    >>> table = compare({"pop": base, "als": better}, n_resamples=1000)
    >>> table.loc[table["model"] == "als", ["metric", "significant"]].values.tolist()
    [['ndcg@10', True], ['recall@10', True]]
    """
    if not isinstance(per_user_by_model, dict) or len(per_user_by_model) < 2:
        raise TypeError(
            "per_user_by_model must be a dict of at least two models -> per-user values"
        )
    names = list(per_user_by_model)
    baseline = names[0] if baseline is None else baseline
    if baseline not in per_user_by_model:
        raise ValueError(f"baseline {baseline!r} is not one of the models {names}")
    check_choice(correction, "correction", _ADJUSTMENTS)
    base = per_user_by_model[baseline]
    rows = []
    for name in names:
        values = per_user_by_model[name]
        ci = bootstrap_ci(
            values, level=level, method=ci_method, n_resamples=n_resamples, seed=seed, nan=nan
        )
        ci = ci if isinstance(ci, pd.DataFrame) else pd.DataFrame([ci.__dict__], index=["value"])
        if name == baseline:
            tests = None
        else:
            tests = paired_test(values, base, method=test, seed=seed, missing=missing, nan=nan)
            tests = (
                tests
                if isinstance(tests, pd.DataFrame)
                else pd.DataFrame(
                    [{k: v for k, v in tests.__dict__.items() if k != "details"}], index=ci.index
                )
            )
        for metric in ci.index:
            rows.append(
                {
                    "model": name,
                    "metric": metric,
                    "mean": float(ci.loc[metric, "estimate"]),
                    "ci_low": float(ci.loc[metric, "low"]),
                    "ci_high": float(ci.loc[metric, "high"]),
                    "difference": np.nan
                    if tests is None
                    else float(tests.loc[metric, "mean_difference"]),
                    "pvalue": np.nan if tests is None else float(tests.loc[metric, "pvalue"]),
                }
            )
    table = pd.DataFrame(rows)
    tested = table["pvalue"].notna().to_numpy()
    table["pvalue_adjusted"] = np.nan
    table.loc[tested, "pvalue_adjusted"] = adjust_pvalues(
        table.loc[tested, "pvalue"].to_numpy(), correction
    )
    table["significant"] = table["pvalue_adjusted"] < alpha
    return table


def significance_table(table, *, digits=4, marks=("*", ""), alpha=None):
    """The tidy output of :func:`compare` as models x metrics, with significance marks.

    Parameters
    ----------
    table : pandas.DataFrame
        The output of :func:`compare`.
    digits : int, default 4
        Decimals of the means.
    marks : (str, str), default ('*', '')
        Appended to a mean that differs significantly from the baseline,
        and to one that does not.
    alpha : float, optional
        Re-threshold the adjusted p-values at this level instead of the
        ``significant`` column.

    Returns
    -------
    pandas.DataFrame
        Strings such as ``'0.4123*'``; export with ``.to_markdown()`` or
        ``.to_latex()``.

    See Also
    --------
    compare

    References
    ----------
    T. Sakai. Statistical reform in information retrieval? SIGIR Forum
    48(1), 2014.

    Examples
    --------
    >>> t = pd.DataFrame({"model": ["a", "b"], "metric": ["ndcg", "ndcg"], "mean": [0.3, 0.35],
    ...                   "pvalue_adjusted": [np.nan, 0.01], "significant": [False, True]})
    >>> significance_table(t, digits=2).to_dict()
    {'ndcg': {'a': '0.30', 'b': '0.35*'}}
    """
    if not isinstance(table, pd.DataFrame) or not {"model", "metric", "mean"} <= set(table.columns):
        raise TypeError("table must be the output of recmetrics.stats.compare")
    sig = table["significant"] if alpha is None else table["pvalue_adjusted"] < alpha
    text = [
        f"{m:.{int(digits)}f}{marks[0] if s else marks[1]}"
        for m, s in zip(table["mean"], sig, strict=True)
    ]
    out = table.assign(text=text).pivot(index="model", columns="metric", values="text")
    out = out.loc[pd.unique(table["model"]), pd.unique(table["metric"])]
    out.index.name, out.columns.name = None, None
    return out
