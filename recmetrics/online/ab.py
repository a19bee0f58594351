"""A/B tests of recommenders: design, analysis, variance reduction, checks, peeking.

* design: :func:`sample_size` and :func:`detectable_lift` for a click-through
  rate (statsmodels' power solver on Cohen's :math:`h`), and
  :func:`sample_size_mean` for a per-user metric (two-sample t test);
* analysis: :func:`compare_arms` (difference of means, Welch interval),
  :func:`stratified` (post-stratification on a pre-treatment attribute;
  Miratrix, Sekhon & Yu 2013),
  :func:`cuped` (regression on a pre-period covariate; Deng et al. 2013),
  :func:`ratio_metric` (clicks per impression with users as the unit, by the
  delta method; Deng et al. 2018);
* checks: :func:`srm_test` (sample-ratio mismatch, chi-square);
* peeking: :func:`msprt`, the mixture sequential probability ratio test
  (Johari et al. 2017), whose always-valid p-values may be read after every
  observation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._validation import (
    as_numeric_array,
    check_count,
    check_positive_number,
    check_probability,
)
from ..stats.power import (
    proportion_detectable_rate,
    proportion_users_needed,
    two_sample_users_needed,
)

__all__ = [
    "sample_size",
    "detectable_lift",
    "sample_size_mean",
    "ArmComparison",
    "compare_arms",
    "stratified",
    "cuped",
    "ratio_metric",
    "srm_test",
    "SequentialResult",
    "msprt",
]

_ALTERNATIVES = ("two-sided", "larger", "smaller")


def sample_size(p0, p1, *, alpha=0.05, power=0.8, ratio=1.0, alternative="two-sided"):
    """Users in the control arm to detect a click-through rate moving from ``p0`` to ``p1``.

    The two-proportion z test on Cohen's effect size
    :math:`h = 2 \\arcsin\\sqrt{p_1} - 2 \\arcsin\\sqrt{p_0}`, solved by
    statsmodels (``NormalIndPower().solve_power``) and rounded up; the
    treatment arm has ``ratio`` times as many users. The same function as
    :func:`recmetrics.stats.proportion_users_needed`.

    Parameters
    ----------
    p0, p1 : float
        Click-through rates of control and treatment, in (0, 1), different.
    alpha : float, default 0.05
        Significance level.
    power : float, default 0.8
        Probability of detecting the difference.
    ratio : float, default 1.0
        Treatment users per control user.
    alternative : {'two-sided', 'larger', 'smaller'}, default 'two-sided'

    Returns
    -------
    int

    References
    ----------
    J. Cohen. Statistical Power Analysis for the Behavioral Sciences, 2nd
    ed. Erlbaum, 1988.

    Examples
    --------
    >>> sample_size(0.10, 0.11)
    14745
    """
    return proportion_users_needed(
        p0, p1, alpha=alpha, power=power, ratio=ratio, alternative=alternative
    )


def detectable_lift(p0, n, *, alpha=0.05, power=0.8, ratio=1.0):
    """The smallest rate ``p1 > p0`` that ``n`` control users detect (two-sided test).

    Inverts :func:`sample_size`: statsmodels solves for Cohen's :math:`h`
    and :math:`p_1 = \\sin^2(\\arcsin\\sqrt{p_0} + h/2)`
    (:func:`recmetrics.stats.proportion_detectable_rate`).

    Parameters
    ----------
    p0 : float
        The control rate, in (0, 1).
    n : int
        Users in the control arm.
    alpha, power, ratio
        As in :func:`sample_size`.

    Returns
    -------
    float
        The treatment rate ``p1``; the minimum detectable effect is ``p1 - p0``.

    Examples
    --------
    >>> round(detectable_lift(0.10, 14745), 4)
    0.11
    """
    n = check_count(n, "n", minimum=2)
    return proportion_detectable_rate(p0, n, alpha=alpha, power=power, ratio=ratio)


def sample_size_mean(difference, sd, *, alpha=0.05, power=0.8, ratio=1.0):
    """Users in the control arm to detect a difference of means of a per-user metric.

    The two-sample t test (statsmodels' ``TTestIndPower``) on the
    standardised effect ``difference / sd``, rounded up
    (:func:`recmetrics.stats.two_sample_users_needed`).

    Parameters
    ----------
    difference : float
        The difference of means to detect (non-zero).
    sd : float
        The per-user standard deviation (> 0), the same in both arms.
    alpha, power, ratio
        As in :func:`sample_size`.

    Returns
    -------
    int

    Examples
    --------
    >>> sample_size_mean(0.01, 0.1)
    1571
    """
    return two_sample_users_needed(difference, sd, alpha=alpha, power=power, ratio=ratio)


@dataclass(frozen=True)
class ArmComparison:
    """Treatment minus control: the difference, its interval and p-value."""

    difference: float
    low: float
    high: float
    pvalue: float
    standard_error: float
    n_control: int
    n_treatment: int


def _vector(x, name):
    arr = as_numeric_array(x, name, ndim=1, allow_bool=True)
    if arr.size < 2:
        raise ValueError(f"{name} needs at least 2 users")
    return arr


def compare_arms(control, treatment, *, level=0.95):
    """Difference of the mean per-user metric, treatment minus control (Welch's t test).

    Parameters
    ----------
    control, treatment : array-like of shape (n_users,)
        One value per user (clicks, a 0/1 conversion, NDCG, ...).
    level : float, default 0.95
        The interval's confidence level.

    Returns
    -------
    ArmComparison

    References
    ----------
    B. L. Welch. The Generalization of "Student's" Problem when Several
    Different Population Variances are Involved. Biometrika 34, 1947.

    Examples
    --------
    >>> r = compare_arms([0, 1, 0, 0, 1, 0], [1, 1, 0, 1, 1, 0])
    >>> round(r.difference, 4)
    0.3333
    """
    c, t = _vector(control, "control"), _vector(treatment, "treatment")
    level = check_probability(level, "level")
    res = stats.ttest_ind(t, c, equal_var=False)
    ci = res.confidence_interval(confidence_level=level)
    se = math.sqrt(t.var(ddof=1) / t.size + c.var(ddof=1) / c.size)
    return ArmComparison(float(t.mean() - c.mean()), float(ci.low), float(ci.high),
                         float(res.pvalue), se, c.size, t.size)  # fmt: skip


def stratified(metric, arm, strata, *, level=0.95):
    """Post-stratified difference of means, treatment minus control, with its interval.

    Users are grouped by a pre-treatment attribute (country, platform, how
    active they were before the experiment); the arms are compared within
    each stratum :math:`h` and the differences weighted by the stratum's
    share :math:`w_h = N_h / N` of all users:

    .. math::
        \\hat\\Delta = \\sum_h w_h \\bigl(\\bar y_{T,h} - \\bar y_{C,h}\\bigr),
        \\qquad
        \\widehat{\\mathrm{Var}}(\\hat\\Delta) = \\sum_h w_h^2
        \\Bigl(\\frac{s_{T,h}^2}{n_{T,h}} + \\frac{s_{C,h}^2}{n_{C,h}}\\Bigr).

    Variation between strata no longer enters the comparison, so the
    variance is smaller when the strata explain the metric, and about the
    same when they do not (Miratrix, Sekhon & Yu 2013); the estimate stays
    unbiased because the strata are fixed before the treatment. The
    interval and p-value use Student's t with the Welch-Satterthwaite
    degrees of freedom of the sum of variances; with one stratum this is
    exactly :func:`compare_arms` (Welch's test). The variance formula is
    the one of a stratified design, which post-stratification matches to
    order :math:`1/N` when every stratum has many users of each arm.

    Parameters
    ----------
    metric : array-like of shape (n_users,)
        One value per user.
    arm : array-like of bool, shape (n_users,)
        ``True`` for a user in the treatment arm, ``False`` for control.
    strata : array-like of shape (n_users,)
        Each user's stratum: any labels (integers, strings), fixed before
        the experiment. Every stratum needs at least 2 users in each arm.
    level : float, default 0.95
        The interval's confidence level.

    Returns
    -------
    ArmComparison

    Raises
    ------
    TypeError
        When ``arm`` is not boolean.
    ValueError
        For arrays of different lengths, or a stratum with fewer than 2
        users in an arm.

    See Also
    --------
    compare_arms : without strata.
    cuped : adjustment by a continuous pre-period covariate.

    References
    ----------
    L. W. Miratrix, J. S. Sekhon and B. Yu. Adjusting Treatment Effect
    Estimates by Post-Stratification in Randomized Experiments. Journal of
    the Royal Statistical Society B 75(2), 2013.

    A. Deng, Y. Xu, R. Kohavi and T. Walker. Improving the Sensitivity of
    Online Controlled Experiments by Utilizing Pre-Experiment Data. WSDM
    2013.

    F. E. Satterthwaite. An Approximate Distribution of Estimates of
    Variance Components. Biometrics Bulletin 2(6), 1946.

    Examples
    --------
    >>> y = [1.0, 2.0, 2.0, 3.0, 5.0, 6.0, 7.0, 8.0]
    >>> arm = [False, False, True, True, False, False, True, True]
    >>> r = stratified(y, arm, ["a", "a", "a", "a", "b", "b", "b", "b"])
    >>> r.difference  # 0.5 * (2.5 - 1.5) + 0.5 * (7.5 - 5.5)
    1.5
    """
    import pandas as pd

    y = _vector(metric, "metric")
    a = np.asarray(arm)
    if a.dtype.kind != "b":
        raise TypeError(
            f"arm must be booleans (True for treatment, False for control), got dtype {a.dtype}"
        )
    if a.ndim != 1 or a.size != y.size:
        raise ValueError(f"arm needs one boolean per user: {y.size} values, arm shape {a.shape}")
    s = np.asarray(strata)
    if s.ndim != 1 or s.size != y.size:
        raise ValueError(f"strata needs one label per user: {y.size} values, shape {s.shape}")
    level = check_probability(level, "level")
    table = (
        pd.DataFrame({"y": y, "arm": a, "stratum": s})
        .groupby(["stratum", "arm"])["y"]
        .agg(["mean", "var", "count"])
        .unstack("arm")
    )
    counts = table["count"].reindex(columns=[False, True]).fillna(0)
    small = counts.min(axis=1) < 2
    if small.any():
        raise ValueError(
            f"stratum {small.index[small][0]!r} has fewer than 2 users in an arm "
            f"(control {int(counts[False][small].iloc[0])}, treatment "
            f"{int(counts[True][small].iloc[0])}): merge it with another stratum"
        )
    w = counts.sum(axis=1).to_numpy() / y.size
    n_c, n_t = counts[False].to_numpy(), counts[True].to_numpy()
    mean, var = table["mean"], table["var"]
    difference = float(np.sum(w * (mean[True].to_numpy() - mean[False].to_numpy())))
    parts_t = w**2 * var[True].to_numpy() / n_t
    parts_c = w**2 * var[False].to_numpy() / n_c
    variance = float(parts_t.sum() + parts_c.sum())
    se = math.sqrt(variance)
    if se == 0:
        raise ValueError("metric is constant within every stratum and arm: no variance to test")
    df = variance**2 / float(np.sum(parts_t**2 / (n_t - 1)) + np.sum(parts_c**2 / (n_c - 1)))
    t = difference / se
    half = float(stats.t.ppf(0.5 + level / 2, df)) * se
    pvalue = float(2 * stats.t.sf(abs(t), df))
    return ArmComparison(difference, difference - half, difference + half, pvalue, se,
                         int(n_c.sum()), int(n_t.sum()))  # fmt: skip


def cuped(metric, covariate):
    """CUPED: the metric adjusted by a pre-period covariate, :math:`y - \\theta (x - \\bar x)`.

    .. math:: \\theta = \\frac{\\mathrm{cov}(y, x)}{\\mathrm{var}(x)}

    computed on all users of both arms together (so that the adjustment is
    the same in each arm and the difference of means stays unbiased); the
    variance of the pooled mean falls by the factor :math:`1 - \\rho^2`,
    with :math:`\\rho` the pooled correlation of ``metric`` and
    ``covariate``, and each arm's by at most its own :math:`1 - \\rho^2`
    (exactly only with that arm's own :math:`\\theta`). Pass both arms'
    users at once and split the result.

    Parameters
    ----------
    metric : array-like of shape (n_users,)
        The experiment-period metric of every user.
    covariate : array-like of shape (n_users,)
        The same users' pre-period value (not affected by the treatment).

    Returns
    -------
    adjusted : ndarray of shape (n_users,)
    theta : float

    References
    ----------
    A. Deng, Y. Xu, R. Kohavi and T. Walker. Improving the Sensitivity of
    Online Controlled Experiments by Utilizing Pre-Experiment Data. WSDM
    2013.

    Examples
    --------
    >>> adjusted, theta = cuped([2.0, 4.0, 6.0], [1.0, 2.0, 3.0])
    >>> adjusted.tolist(), theta
    ([4.0, 4.0, 4.0], 2.0)
    """
    y, x = _vector(metric, "metric"), _vector(covariate, "covariate")
    if y.size != x.size:
        raise ValueError(f"metric and covariate must have one value per user: {y.size}, {x.size}")
    var_x = x.var(ddof=1)
    if var_x == 0:
        raise ValueError("covariate is constant: it cannot reduce any variance")
    theta = float(np.cov(y, x, ddof=1)[0, 1] / var_x)
    return y - theta * (x - x.mean()), theta


def ratio_metric(numerator, denominator):
    """A ratio of sums over users (clicks per impression) and its delta-method standard error.

    .. math::
        R = \\frac{\\sum_u n_u}{\\sum_u d_u}, \\qquad
        \\mathrm{Var}(R) \\approx \\frac{1}{m\\, \\bar d^2}
        \\Bigl(s_n^2 - 2 R\\, s_{nd} + R^2 s_d^2\\Bigr)

    with :math:`m` users, sample variances :math:`s_n^2, s_d^2` and
    covariance :math:`s_{nd}`. The users, not the impressions, are the
    independent units: treating impressions as independent understates the
    variance when a user's impressions are correlated (Deng et al. 2018).
    Two arms' ratios are compared with the difference and the root of the
    sum of their variances.

    Parameters
    ----------
    numerator, denominator : array-like of shape (n_users,)
        Each user's clicks and impressions (denominators >= 0, sum > 0).

    Returns
    -------
    ratio : float
    standard_error : float

    References
    ----------
    A. Deng, U. Knoblich and J. Lu. Applying the Delta Method in Metric
    Analytics: A Practical Guide with Novel Ideas. KDD 2018.

    Examples
    --------
    >>> r, se = ratio_metric([1, 0, 3, 1], [10, 5, 20, 5])
    >>> round(r, 4)
    0.125
    """
    n, d = _vector(numerator, "numerator"), _vector(denominator, "denominator")
    if n.size != d.size:
        raise ValueError(f"numerator and denominator need one value per user: {n.size}, {d.size}")
    if np.any(d < 0) or d.sum() <= 0:
        raise ValueError("denominator must be >= 0 with a positive sum")
    m = n.size
    r = n.sum() / d.sum()
    cov = np.cov(n, d, ddof=1)
    var = (cov[0, 0] - 2 * r * cov[0, 1] + r * r * cov[1, 1]) / (m * d.mean() ** 2)
    return float(r), float(math.sqrt(max(var, 0.0)))


def srm_test(counts, expected_shares=None):
    """Sample-ratio mismatch: a test that the users are split between the arms as designed.

    Pearson's chi-square test (:func:`scipy.stats.chisquare`) of the arms'
    user counts against the designed shares (equal by default). A small
    p-value (below a threshold such as 0.001; practice varies) says the
    assignment or the logging is broken, and the experiment's comparison
    cannot be trusted (Fabijan et al. 2019).

    Parameters
    ----------
    counts : array-like of int
        Users in each arm.
    expected_shares : array-like, optional
        The designed share of each arm (normalised to sum to 1).

    Returns
    -------
    float
        The p-value.

    References
    ----------
    A. Fabijan, J. Gupchup, S. Gupta, J. Omhover, W. Qin, L. Vermeer and P.
    Dmitriev. Diagnosing Sample Ratio Mismatch in Online Controlled
    Experiments. KDD 2019.

    Examples
    --------
    >>> round(srm_test([50_000, 50_600]), 4)
    0.0585
    """
    c = as_numeric_array(counts, "counts", ndim=1, nonnegative=True)
    if c.size < 2 or c.sum() == 0:
        raise ValueError("counts needs at least two arms and some users")
    if expected_shares is None:
        shares = np.full(c.size, 1.0 / c.size)
    else:
        shares = as_numeric_array(expected_shares, "expected_shares", ndim=1, nonnegative=True)
        if shares.size != c.size or shares.sum() <= 0:
            raise ValueError("expected_shares needs one positive share per arm")
        shares = shares / shares.sum()
    return float(stats.chisquare(c, c.sum() * shares).pvalue)


@dataclass(frozen=True)
class SequentialResult:
    """Always-valid p-values after each observation, and the first rejection."""

    pvalues: np.ndarray
    rejected_at: int | None  # 0-based index of the first p-value <= alpha, or None
    alpha: float


def msprt(differences, *, sigma2, tau2, alpha=0.05):
    """The mixture SPRT: a test of a zero mean that may be checked after every observation.

    For i.i.d. normal observations :math:`y_i` (e.g. treatment minus
    control, one pair of users at a time; for other distributions the
    guarantee holds only approximately, as the mean becomes normal) with
    known variance :math:`\\sigma^2` and a
    normal mixture :math:`N(0, \\tau^2)` over the alternative mean, the
    mixture likelihood ratio after :math:`n` observations with mean
    :math:`\\bar y_n` is

    .. math::
        \\Lambda_n = \\sqrt{\\frac{\\sigma^2}{\\sigma^2 + n\\tau^2}}
        \\exp\\Bigl(\\frac{n^2 \\tau^2 \\bar y_n^2}{2 \\sigma^2 (\\sigma^2 + n \\tau^2)}\\Bigr)

    and :math:`p_n = \\min(1, \\min_{m \\le n} 1/\\Lambda_m)` is an
    always-valid p-value: rejecting the first time :math:`p_n \\le \\alpha`
    keeps the false-positive rate at most :math:`\\alpha` however often one
    looks (Johari et al. 2017), unlike a fixed-horizon test checked every
    day.

    Parameters
    ----------
    differences : array-like of shape (n,)
        The observations, in the order they arrive.
    sigma2 : float
        Their variance (> 0), e.g. estimated from a pre-period.
    tau2 : float
        The mixture's variance (> 0): the scale of the effects expected.
    alpha : float, default 0.05
        The level at which ``rejected_at`` is reported.

    Returns
    -------
    SequentialResult

    References
    ----------
    R. Johari, P. Koomen, L. Pekelis and D. Walsh. Peeking at A/B Tests: Why
    It Matters, and What to Do About It. KDD 2017.

    Examples
    --------
    >>> r = msprt([0.5] * 40, sigma2=1.0, tau2=0.25)
    >>> r.rejected_at is not None and bool(r.pvalues[-1] < 0.05)
    True
    """
    y = as_numeric_array(differences, "differences", ndim=1)
    sigma2 = check_positive_number(sigma2, "sigma2")
    tau2 = check_positive_number(tau2, "tau2")
    alpha = check_probability(alpha, "alpha")
    n = np.arange(1, y.size + 1, dtype=np.float64)
    mean = np.cumsum(y) / n
    log_lr = 0.5 * np.log(sigma2 / (sigma2 + n * tau2)) + (n * n * tau2 * mean * mean) / (
        2 * sigma2 * (sigma2 + n * tau2)
    )
    p = np.minimum(1.0, np.minimum.accumulate(np.exp(-log_lr)))
    hit = np.flatnonzero(p <= alpha)
    return SequentialResult(p, int(hit[0]) if hit.size else None, alpha)
