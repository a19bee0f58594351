"""Paired tests of two models' per-user values: t, Wilcoxon, sign and randomization.

Fisher's randomization test enumerates every sign flip for few users and
draws seeded random flips otherwise (:func:`paired_test` says which).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from .._kernels import CHUNK_CELLS
from .._validation import check_choice, check_seed
from ._common import (
    _ALTERNATIVES,
    _EPS,
    _MISSING,
    _NAN,
    _check_n_resamples,
    _degenerate,
    _one_or_table,
    _pair,
    _pairs_of,
    _scaled,
)

__all__ = ["PAIRED_TESTS", "PairedTestResult", "paired_test"]

PAIRED_TESTS = ("t", "wilcoxon", "sign", "randomization")
# Up to this many users the Monte Carlo sign flips look up subset sums of 8
# users at a time (a table of 256 n / 8 values), beyond it of 4 (16 n / 4).
_BYTE_TABLE_USERS = 1 << 17


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
    resampling : str
        How the null distribution was obtained: ``'exact'`` (all ``2**n_users``
        sign flips enumerated), ``'monte carlo'`` (``n_resamples`` random sign
        flips) or ``'none'`` (t, Wilcoxon and sign tests: no resampling).
    n_resamples : int
        Sign flips the randomization p-value is computed from (0 without
        resampling).
    """

    statistic: float
    pvalue: float
    mean_difference: float
    n_users: int
    method: str
    alternative: str
    details: dict = field(default_factory=dict)
    resampling: str = "none"
    n_resamples: int = 0


def _t_test(d, alternative):
    if np.all(d == d[0]):
        return _degenerate(float(d[0]), alternative)
    res = stats.ttest_1samp(_scaled(d), 0.0, alternative=alternative)
    return float(res.statistic), float(res.pvalue)


def _exact_flip_sums(d):
    """``sum(s * d)`` for every sign vector ``s`` in {-1, 1}**n, in blocks."""
    n = d.shape[0]
    shifts = np.arange(n, dtype=np.int64)
    total = 1 << n
    step = max(1, CHUNK_CELLS // n)
    for lo in range(0, total, step):
        k = np.arange(lo, min(total, lo + step), dtype=np.int64)
        signs = 1.0 - 2.0 * ((k[:, None] >> shifts) & 1)
        yield signs @ d


def _random_flip_sums(d, n_resamples, rng):
    """``sum(s * d)`` for ``n_resamples`` uniformly random sign vectors, in blocks.

    Users are taken in groups of ``g`` (8, or 4 above 131072 users to bound the
    table's memory): a table holds, for every subset of a group, the sum of
    its differences, and one random ``g``-bit code per group and resample
    picks the users whose sign flips, ``sum(s * d) = sum(d) - 2 sum(flipped)``:
    ``n / g`` look-ups per resample instead of ``n`` multiplications.
    """
    n = d.shape[0]
    g = 8 if n <= _BYTE_TABLE_USERS else 4
    groups = -(-n // g)
    padded = np.zeros(groups * g)
    padded[:n] = d
    subsets = ((np.arange(1 << g)[:, None] >> np.arange(g)) & 1).astype(np.float64)
    table = (padded.reshape(groups, g) @ subsets.T).ravel()  # (groups, 2**g), flattened
    offsets = np.arange(groups, dtype=np.int64) * (1 << g)
    total = float(np.sum(d))
    step = max(1, CHUNK_CELLS // groups)
    for lo in range(0, n_resamples, step):
        m = min(step, n_resamples - lo)
        codes = rng.integers(0, 1 << g, size=(m, groups), dtype=np.uint8)
        yield total - 2.0 * table[codes + offsets].sum(axis=1)


def _randomization(x, y, alternative, n_resamples, rng):
    """Fisher's paired randomization test of the mean difference: p-value, exact?, resamples.

    Under H0 the sign of each user's difference is a fair coin. The sums
    ``sum(s * d)`` of the flipped differences are compared with the observed
    ``sum(d)`` with a tolerance: values that are equal in exact arithmetic
    (``0.2 - 0.0`` and ``0.6 - 0.8``) differ in floating point by the
    rounding of the metric values, at most ``eps (|a_u| + |b_u|)`` per user,
    and of the sums, at most ``(n - 1) eps / 2 sum |d_u|`` each (Higham,
    Accuracy and Stability of Numerical Algorithms, 2002, ch. 4), so that
    ``tol = 2 n eps sum(|a_u| + |b_u|)`` bounds both. (scipy's
    ``permutation_test`` scales its tolerance to the observed statistic,
    which is itself ~0 when the tie matters.)
    """
    d = x - y
    n = d.shape[0]
    observed = float(np.sum(d))
    tol = 2.0 * n * _EPS * float(np.sum(np.abs(x)) + np.sum(np.abs(y)))
    exact = n < n_resamples.bit_length()  # 2**n <= n_resamples, without computing 2**n
    if exact:
        total, sums = 1 << n, _exact_flip_sums(d)
    else:
        total, sums = n_resamples, _random_flip_sums(d, n_resamples, rng)
    at_least = at_most = 0  # flipped sums >= and <= the observed one
    for t in sums:
        at_least += int(np.count_nonzero(t >= observed - tol))
        at_most += int(np.count_nonzero(t <= observed + tol))
    if exact:  # the share of all sign flips
        greater, less = at_least / total, at_most / total
    else:  # the observed signs count as one more draw: p is never 0 (Phipson & Smyth 2010)
        greater, less = (at_least + 1) / (total + 1), (at_most + 1) / (total + 1)
    # two-sided: twice the smaller tail, as scipy's permutation_test (for the exact,
    # symmetric distribution of the flips this is the share with |sum| >= |observed|)
    p = {"greater": greater, "less": less}.get(alternative, 2.0 * min(greater, less))
    return min(1.0, p), exact, total


def _paired_tests(fa, fb, method, alternative, n_resamples, rng, nan, names=("a", "b")):
    results = {}
    for col, (x, y) in _pairs_of(fa, fb, nan, names).items():
        d = x - y
        n = int(d.shape[0])
        details = {}
        resampling, used = "none", 0
        if method == "t":
            statistic, p = _t_test(d, alternative)
            details["df"] = n - 1
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
            details.update(wins=wins, losses=losses, ties=n - wins - losses)
        else:
            p, exact, used = _randomization(x, y, alternative, n_resamples, rng)
            statistic = float(np.mean(d))
            resampling = "exact" if exact else "monte carlo"
            details.update(exact=exact, n_resamples=used)
        results[col] = PairedTestResult(
            statistic=float(statistic),
            pvalue=float(p),
            mean_difference=float(np.mean(d)),
            n_users=n,
            method=method,
            alternative=alternative,
            details=details,
            resampling=resampling,
            n_resamples=int(used),
        )
    return results


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

    The null hypothesis is about the per-user differences ``d_u = a_u - b_u``,
    and each method states it differently: their mean is 0 (``'t'``); each
    ``d_u`` is distributed symmetrically about 0 (``'randomization'`` and
    ``'wilcoxon'``, a stronger null than a zero mean); their median is 0
    (``'sign'``).

    Parameters
    ----------
    a, b : array-like, pandas.Series or pandas.DataFrame
        Per-user values of the two models (a DataFrame: one column per
        metric, tested separately), e.g. ``evaluate(..., per_user=True)``.
        See the module docstring for how users are paired and what is
        refused.
    method : {'t', 'wilcoxon', 'sign', 'randomization'}, default 't'
        ``'t'``: Student's paired t-test (``scipy.stats.ttest_rel``).
        ``'wilcoxon'``: Wilcoxon's signed-rank test
        (``scipy.stats.wilcoxon``; zero differences dropped).
        ``'sign'``: the sign test, a binomial test of the number of users
        with ``a > b`` among those with ``a != b`` (``scipy.stats.binomtest``).
        ``'randomization'``: Fisher's paired randomization test of the mean
        difference, flipping the sign of each user's difference: exact
        (all ``2**n_users`` sign flips) when ``2**n_users <= n_resamples``,
        else ``n_resamples`` seeded random sign flips, with
        ``p = (1 + #{flipped >= observed}) / (1 + n_resamples)``
        (Phipson & Smyth, 2010) for ``'greater'``, and twice the smaller
        tail for ``'two-sided'`` (at least ``2 / (1 + n_resamples)``, as in
        ``scipy.stats.permutation_test``). Flipped and observed sums are compared with
        a tolerance of ``2 n eps sum(|a_u| + |b_u|)``, so that differences
        equal in exact arithmetic count as ties.
    alternative : {'two-sided', 'greater', 'less'}, default 'two-sided'
        ``'greater'``: the alternative is that ``a`` is better (larger).
    n_resamples : int, default 10000
        Sign flips of the randomization test, at least 1 (and its exactness
        threshold, see ``method``).
    seed : None, int or numpy.random.Generator, default 0
        Seed of the randomization test's Monte Carlo flips: an integer gives
        the same flips on every call, ``None`` fresh entropy from the
        operating system.
    missing : {'raise', 'drop'}, default 'raise'
        Users present in only one of ``a`` and ``b`` (indexed inputs).
    nan : {'drop', 'raise'}, default 'drop'
        Users with a NaN value for a metric.

    Returns
    -------
    PairedTestResult or pandas.DataFrame
        One result for 1-D input or a one-column frame; a DataFrame indexed
        by metric name for several metrics (columns statistic, pvalue,
        mean_difference, n_users, method, alternative, resampling,
        n_resamples). ``resampling`` says how the randomization test's null
        distribution was obtained (``'exact'`` or ``'monte carlo'``; ``'none'``
        for the other tests).

    Raises
    ------
    TypeError
        For inputs that are not numbers (strings, booleans, ``None``) and
        arguments of the wrong type (a float ``n_resamples``, a bool seed).
    ValueError
        For unknown options, empty input, infinite values, a user repeated in
        an index, unequal lengths of unindexed inputs, means indexed by metric
        names instead of per-user values, fewer than 2 paired users.

    See Also
    --------
    bootstrap_ci : the interval of the mean difference.
    adjust_pvalues : for many tests at once.
    corrected_resampled_ttest : for differences measured on repeated splits.

    Notes
    -----
    When every paired difference is the same value ``c``, the t-test has no
    variance to estimate: it returns ``t = 0, p = 1`` for ``c = 0`` and
    ``t = +-inf`` with ``p = 0`` (or ``1`` against the other one-sided
    alternative) otherwise, the limits of the test as the variance vanishes.

    References
    ----------
    M. D. Smucker, J. Allan and B. Carterette. A Comparison of Statistical
    Significance Tests for Information Retrieval Evaluation. CIKM 2007.
    B. Phipson and G. K. Smyth. Permutation P-values Should Never Be Zero.
    Stat. Appl. Genet. Mol. Biol. 9(1), 2010.

    Examples
    --------
    >>> a = [0.50, 0.40, 0.90, 0.70, 0.60, 0.80]
    >>> b = [0.45, 0.30, 0.80, 0.72, 0.50, 0.60]
    >>> r = paired_test(a, b)
    >>> round(r.statistic, 3), round(r.pvalue, 4), round(r.mean_difference, 4)
    (2.996, 0.0302, 0.0883)
    >>> r = paired_test(a, b, method="randomization")
    >>> round(r.pvalue, 4), r.resampling, r.n_resamples   # all 2**6 sign flips
    (0.0625, 'exact', 64)
    >>> paired_test(a, b, method="sign").statistic   # users where a > b
    5.0

    Ties in exact arithmetic count as ties (here ``0.2 - 0.0 == -(0.6 - 0.8)``,
    so three of the four sign flips give a sum at most the observed 0):

    >>> paired_test([0.2, 0.6], [0.0, 0.8], method="randomization", alternative="less").pvalue
    0.75
    """
    check_choice(method, "method", PAIRED_TESTS)
    check_choice(alternative, "alternative", _ALTERNATIVES)
    check_choice(missing, "missing", _MISSING)
    check_choice(nan, "nan", _NAN)
    n_resamples = _check_n_resamples(n_resamples)
    rng = check_seed(seed)
    fa, fb = _pair(a, b, missing)
    results = _paired_tests(fa, fb, method, alternative, n_resamples, rng, nan)
    return _one_or_table(results, len(results) == 1)
