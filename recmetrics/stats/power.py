"""Power: the difference a test detects, and the users it needs.

* paired comparisons (the same users see both systems, offline):
  :func:`users_needed` and :func:`detectable_difference`;
* two independent groups of users (an A/B test):
  :func:`two_sample_users_needed` and :func:`two_sample_detectable_difference`
  for the mean of a per-user metric, :func:`proportion_users_needed` and
  :func:`proportion_detectable_rate` for a rate such as the click-through.

All are built on statsmodels' power classes.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy import optimize, special, stats

from .._validation import (
    MAX_EXACT_INT,
    check_count,
    check_positive_number,
    check_probability,
)
from ._common import _EPS

__all__ = [
    "detectable_difference",
    "users_needed",
    "two_sample_users_needed",
    "two_sample_detectable_difference",
    "proportion_users_needed",
    "proportion_detectable_rate",
]


def _check_difference(difference):
    """Raise unless ``difference`` is a finite non-zero real number (not a bool)."""
    if isinstance(difference, (bool, np.bool_)) or not isinstance(difference, numbers.Real):
        raise TypeError(
            f"difference must be a number, got {difference!r} of type {type(difference).__name__}"
        )
    if not math.isfinite(difference) or difference == 0:
        raise ValueError(f"difference must be a finite non-zero number, got {difference!r}")


def _check_power_args(sd, alpha, power):
    sd = check_positive_number(sd, "sd")
    alpha = check_probability(alpha, "alpha")
    power = check_probability(power, "power")
    if power <= alpha:
        raise ValueError(
            f"power must be larger than alpha: a two-sided test rejects with probability "
            f"alpha = {alpha:g} even without a difference; got power = {power:g}"
        )
    return sd, alpha, power


def _power(effect_size, n, alpha):
    """Power of the two-sided one-sample (paired) t-test (statsmodels' ``TTestPower``).

    scipy's noncentral t (behind statsmodels) returns NaN in parts of its far
    tails (noncentrality above about 7.5). A NaN tail is then replaced by 0
    where a bound proves it below 1e-12: with ``T = (Z + nc) / S``,
    ``S = sqrt(V / df)``, ``P(T < -c) <= P(Z + nc < 0) = Phi(-nc)``, and for
    ``s = nc / (2 c)``, ``P(T < c) <= P(S > s) + P(Z < c s - nc)
    = chi2.sf(df s**2, df) + Phi(-nc / 2)``.
    """
    from statsmodels.stats.power import TTestPower

    power = float(TTestPower().power(effect_size, n, alpha, alternative="two-sided"))
    if not math.isnan(power):
        return power
    df = n - 1
    nc = float(effect_size) * math.sqrt(n)
    crit = float(stats.t.isf(alpha / 2, df))
    below_crit = float(special.nctdtr(df, nc, crit))
    if math.isnan(below_crit):
        s = nc / (2.0 * crit)
        bound = float(stats.chi2.sf(df * s * s, df)) + float(special.ndtr(-nc / 2.0))
        below_crit = 0.0 if bound < 1e-12 else math.nan
    lower = float(special.nctdtr(df, nc, -crit))
    if math.isnan(lower) and special.ndtr(-nc) < 1e-12:
        lower = 0.0
    power = 1.0 - below_crit + lower
    if math.isnan(power):  # pragma: no cover - not seen on a grid of df and nc
        raise ValueError(
            f"the power of a t-test with {n} users at effect size {effect_size!r} is undefined "
            "in scipy's noncentral t distribution"
        )
    return power


def detectable_difference(n_users, sd, *, alpha=0.05, power=0.8):
    """Smallest mean paired difference a two-sided paired t-test detects with this power.

    .. math:: \\delta = d \\cdot s, \\quad d \\text{ solving }
              \\Pr[\\,|T_{n-1}(d\\sqrt{n})| > t_{1-\\alpha/2, n-1}] = 1 - \\beta

    where :math:`T_{n-1}(\\lambda)` is a noncentral t variable with
    :math:`n - 1` degrees of freedom and noncentrality :math:`\\lambda`.

    Parameters
    ----------
    n_users : int
        Users in the paired comparison, from 2 to ``2**53``.
    sd : float
        Standard deviation of the per-user differences ``a - b`` (from a
        pilot or an earlier experiment), finite and > 0.
    alpha : float, default 0.05
        Level of the test, in (0, 1).
    power : float, default 0.8
        Required probability of detecting the difference, in (alpha, 1).

    Returns
    -------
    float
        The difference in the metric's own units.

    Raises
    ------
    TypeError
        For arguments that are not numbers (``n_users``: not an integer).
    ValueError
        For ``n_users < 2``, ``sd <= 0`` or infinite, ``alpha`` or ``power``
        outside (0, 1), ``power <= alpha``.

    See Also
    --------
    users_needed : the inverse question.

    Notes
    -----
    The power function is statsmodels' (``TTestPower.power``); its root in
    the effect size is found with :func:`scipy.optimize.brentq` to a
    relative accuracy of ``4 eps``, because statsmodels' own solver can stop
    far from it for very few or very many users.

    References
    ----------
    J. Cohen. Statistical Power Analysis for the Behavioral Sciences. 2nd ed.,
    1988.

    Examples
    --------
    >>> round(detectable_difference(671, sd=0.3), 4)
    0.0325
    """
    n = check_count(n_users, "n_users", minimum=2, maximum=MAX_EXACT_INT)
    sd, alpha, power = _check_power_args(sd, alpha, power)

    def gap(effect_size):
        return _power(effect_size, n, alpha) - power

    # the power grows from alpha (no effect) to 1: bracket the root, then solve
    high = (special.ndtri(1 - alpha / 2) + special.ndtri(power)) / math.sqrt(n)
    for _ in range(400):
        if gap(high) >= 0:
            break
        high *= 1.25
    else:  # pragma: no cover - power < 1 is always reached
        raise ValueError(f"no effect size reaches power {power!r} with {n} users")
    effect = optimize.brentq(gap, 0.0, high, xtol=1e-300, rtol=4 * _EPS)
    delta = float(effect * sd)
    if not math.isfinite(delta):
        raise ValueError(f"the detectable difference ({effect!r} sd with sd = {sd!r}) overflows")
    return delta


def users_needed(difference, sd, *, alpha=0.05, power=0.8):
    """Users a two-sided paired t-test needs to detect a mean difference with this power.

    The smallest :math:`n \\ge 2` whose power reaches the one asked for:

    .. math:: n = \\min\\{m \\ge 2 :\\ \\Pr[\\,|T_{m-1}(\\delta\\sqrt{m}/s)|
              > t_{1-\\alpha/2, m-1}] \\ge 1 - \\beta\\}

    Parameters
    ----------
    difference : float
        The mean paired difference to detect (metric units, finite,
        non-zero; its sign does not matter).
    sd : float
        Standard deviation of the per-user differences, finite and > 0.
    alpha, power : float
        As in :func:`detectable_difference`.

    Returns
    -------
    int
        The smallest number of users whose power is at least ``power``
        (the power at one user fewer is below it).

    Raises
    ------
    TypeError
        For arguments that are not numbers.
    ValueError
        For a zero or infinite difference, ``sd <= 0``, ``alpha`` or
        ``power`` outside (0, 1), ``power <= alpha``, or a difference so small
        that more than ``2**53`` users would be needed.

    See Also
    --------
    detectable_difference : the inverse question.

    Notes
    -----
    Starts from statsmodels' solution (``TTestPower.solve_power``), whose
    ceiling can be one user short, and moves to the smallest ``n`` whose
    power (``TTestPower.power``) reaches ``power`` by bisection over the
    integers (the power grows with ``n``).

    References
    ----------
    J. Cohen. Statistical Power Analysis for the Behavioral Sciences. 2nd ed.,
    1988.

    Examples
    --------
    >>> users_needed(0.01, sd=0.3)
    7066
    """
    import warnings

    from statsmodels.stats.power import TTestPower
    from statsmodels.tools import sm_exceptions  # noqa: F401  (sets its warning filters now)

    _check_difference(difference)
    sd, alpha, power = _check_power_args(sd, alpha, power)
    effect = abs(float(difference)) / sd
    if effect == math.inf:  # beyond 1.8e308 standard deviations: the fewest users do
        return 2
    if effect == 0:  # below 5e-324 standard deviations
        raise ValueError(
            f"a difference of {difference!r} with sd {sd!r} needs more than 2**53 users"
        )

    def reaches(n):
        return _power(effect, n, alpha) >= power

    if reaches(2):
        return 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            guess = float(
                np.ravel(
                    TTestPower().solve_power(
                        effect_size=effect, nobs=None, alpha=alpha, power=power
                    )
                )[0]
            )
        except (ValueError, ArithmeticError):  # pragma: no cover - statsmodels' solver failed
            guess = math.nan
    low, high = 2, 3  # invariant: the power at low is below, at high reaches
    if math.isfinite(guess) and 3 <= guess < MAX_EXACT_INT:
        high = math.ceil(guess)
        if not reaches(high - 1):
            low = high - 1
    while not reaches(high):
        low, high = high, 2 * high
        if high > MAX_EXACT_INT:
            raise ValueError(
                f"a difference of {difference!r} with sd {sd!r} needs more than 2**53 users"
            )
    while high - low > 1:
        mid = (low + high) // 2
        if reaches(mid):
            high = mid
        else:
            low = mid
    return int(high)


# --------------------------------------------------------------------------
# two independent samples (an A/B test: different users in each arm)

_ALTERNATIVES = ("two-sided", "larger", "smaller")


def _two_sample_args(alpha, power, ratio, alternative="two-sided"):
    from .._validation import check_choice

    alpha = check_probability(alpha, "alpha")
    power = check_probability(power, "power")
    if power <= alpha:
        raise ValueError(
            f"power must be larger than alpha: the test rejects with probability alpha = "
            f"{alpha:g} even without a difference; got power = {power:g}"
        )
    ratio = check_positive_number(ratio, "ratio")
    check_choice(alternative, "alternative", _ALTERNATIVES)
    return alpha, power, ratio


def _check_direction(effect, alternative, name):
    if (alternative == "larger" and effect < 0) or (alternative == "smaller" and effect > 0):
        raise ValueError(
            f"alternative={alternative!r} tests the other direction than {name} "
            f"({'negative' if effect < 0 else 'positive'}): no number of users detects it"
        )


def _effect_root(power_of, power, n, alpha):
    """The effect size at which ``power_of`` (growing from alpha at 0) reaches ``power``."""

    def gap(effect):
        return float(power_of(effect)) - power

    high = 2 * (special.ndtri(1 - alpha / 2) + special.ndtri(power)) / math.sqrt(n)
    while gap(high) < 0:
        high *= 2
    return float(optimize.brentq(gap, 0.0, high, xtol=1e-15, rtol=4 * _EPS))


def _ceil(n, what):
    n = float(np.ravel(n)[0])
    if not math.isfinite(n) or n >= MAX_EXACT_INT:
        raise ValueError(f"statsmodels' power solver found no finite number of users for {what}")
    return max(2, int(math.ceil(n - 1e-9)))


def proportion_users_needed(p0, p1, *, alpha=0.05, power=0.8, ratio=1.0, alternative="two-sided"):
    """Users in the control arm to detect a rate (click-through) moving from ``p0`` to ``p1``.

    The two-sample z test on Cohen's effect size for proportions,

    .. math:: h = 2 \\arcsin\\sqrt{p_1} - 2 \\arcsin\\sqrt{p_0}, \\qquad
              n_0 \\approx \\Bigl(1 + \\frac{1}{r}\\Bigr)
              \\frac{(z_{1-\\alpha/2} + z_{1-\\beta})^2}{h^2}

    (two-sided), solved exactly for the normal power function by
    statsmodels (``proportion_effectsize`` and
    ``NormalIndPower().solve_power``) and rounded up; the treatment arm has
    :math:`r` = ``ratio`` times as many users.

    Parameters
    ----------
    p0, p1 : float
        The rates of control and treatment, in (0, 1), different.
    alpha : float, default 0.05
        Level of the test, in (0, 1).
    power : float, default 0.8
        Required probability of detecting the difference, in (alpha, 1).
    ratio : float, default 1.0
        Treatment users per control user (> 0).
    alternative : {'two-sided', 'larger', 'smaller'}, default 'two-sided'
        The alternative hypothesis, as in statsmodels.

    Returns
    -------
    int
        Users in the control arm (``ratio`` times as many in the treatment).

    Raises
    ------
    TypeError
        For arguments that are not numbers.
    ValueError
        For rates outside (0, 1) or equal, ``power <= alpha``, ``ratio <= 0``
        or an unknown ``alternative``.

    See Also
    --------
    proportion_detectable_rate : the inverse question.
    two_sample_users_needed : for the mean of a per-user metric.

    References
    ----------
    J. Cohen. Statistical Power Analysis for the Behavioral Sciences. 2nd ed.,
    1988 (chapter 6).

    Examples
    --------
    >>> proportion_users_needed(0.10, 0.11)
    14745
    """
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize

    p0, p1 = check_probability(p0, "p0"), check_probability(p1, "p1")
    if p0 == p1:
        raise ValueError("p0 and p1 are equal: there is no difference to detect")
    alpha, power, ratio = _two_sample_args(alpha, power, ratio, alternative)
    h = float(proportion_effectsize(p1, p0))
    _check_direction(h, alternative, "p1 - p0")
    n = NormalIndPower().solve_power(
        effect_size=h, alpha=alpha, power=power, ratio=ratio, alternative=alternative
    )
    return _ceil(n, f"p0={p0:g}, p1={p1:g}")


def proportion_detectable_rate(p0, n_control, *, alpha=0.05, power=0.8, ratio=1.0):
    """The smallest rate ``p1 > p0`` a two-sided two-sample test detects with ``n_control`` users.

    Inverts :func:`proportion_users_needed`: the root in Cohen's :math:`h`
    of statsmodels' normal power function (``NormalIndPower().power``, by
    :func:`scipy.optimize.brentq`), and

    .. math:: p_1 = \\sin^2\\bigl(\\arcsin\\sqrt{p_0} + h/2\\bigr).

    Parameters
    ----------
    p0 : float
        The control rate, in (0, 1).
    n_control : int
        Users in the control arm (>= 2).
    alpha, power, ratio
        As in :func:`proportion_users_needed`.

    Returns
    -------
    float
        The treatment rate :math:`p_1`; the minimum detectable effect is
        ``p1 - p0``.

    Raises
    ------
    ValueError
        As :func:`proportion_users_needed`, and when no rate below 1 is
        detectable with so few users.

    See Also
    --------
    proportion_users_needed : the inverse question.

    References
    ----------
    J. Cohen. Statistical Power Analysis for the Behavioral Sciences. 2nd ed.,
    1988 (chapter 6).

    Examples
    --------
    >>> round(proportion_detectable_rate(0.10, 14745), 4)
    0.11
    """
    from statsmodels.stats.power import NormalIndPower

    p0 = check_probability(p0, "p0")
    n = check_count(n_control, "n_control", minimum=2, maximum=MAX_EXACT_INT)
    alpha, power, ratio = _two_sample_args(alpha, power, ratio)
    h = _effect_root(lambda e: NormalIndPower().power(e, n, alpha, ratio=ratio), power, n, alpha)
    angle = math.asin(math.sqrt(p0)) + h / 2
    if not math.isfinite(angle) or angle >= math.pi / 2:
        raise ValueError(f"{n} users cannot detect any rate above p0={p0} with this power")
    return math.sin(angle) ** 2


def two_sample_users_needed(
    difference, sd, *, alpha=0.05, power=0.8, ratio=1.0, alternative="two-sided"
):
    """Users in the control arm to detect a difference of means between two groups of users.

    The two-sample t test on the standardised effect :math:`d = \\delta / s`,

    .. math:: n_0 \\approx \\Bigl(1 + \\frac{1}{r}\\Bigr)
              \\frac{(z_{1-\\alpha/2} + z_{1-\\beta})^2}{d^2}

    (two-sided; exactly, the noncentral t power function), solved by
    statsmodels (``TTestIndPower().solve_power``) and rounded up.

    Parameters
    ----------
    difference : float
        The difference of means to detect (finite, non-zero; with
        ``alternative='two-sided'`` its sign does not matter).
    sd : float
        The per-user standard deviation, the same in both arms (> 0).
    alpha, power, ratio, alternative
        As in :func:`proportion_users_needed`.

    Returns
    -------
    int

    See Also
    --------
    users_needed : paired comparisons (the same users see both systems).
    two_sample_detectable_difference : the inverse question.

    References
    ----------
    J. Cohen. Statistical Power Analysis for the Behavioral Sciences. 2nd ed.,
    1988 (chapter 2).

    Examples
    --------
    >>> two_sample_users_needed(0.01, 0.1)
    1571
    """
    from statsmodels.stats.power import TTestIndPower

    _check_difference(difference)
    sd = check_positive_number(sd, "sd")
    alpha, power, ratio = _two_sample_args(alpha, power, ratio, alternative)
    d = float(difference) / sd
    _check_direction(d, alternative, "difference")
    n = TTestIndPower().solve_power(
        effect_size=d, alpha=alpha, power=power, ratio=ratio, alternative=alternative
    )
    return _ceil(n, f"difference={difference!r}, sd={sd!r}")


def two_sample_detectable_difference(n_control, sd, *, alpha=0.05, power=0.8, ratio=1.0):
    """The smallest difference of means a two-sided two-sample t test detects with this power.

    Inverts :func:`two_sample_users_needed`: the root in the standardised
    effect :math:`d` of statsmodels' power function
    (``TTestIndPower().power``, by :func:`scipy.optimize.brentq`), and the
    difference is :math:`d \\cdot s`.

    Parameters
    ----------
    n_control : int
        Users in the control arm (>= 2).
    sd : float
        The per-user standard deviation (> 0).
    alpha, power, ratio
        As in :func:`proportion_users_needed`.

    Returns
    -------
    float
        The minimum detectable difference, in the metric's units.

    See Also
    --------
    detectable_difference : paired comparisons.

    References
    ----------
    J. Cohen. Statistical Power Analysis for the Behavioral Sciences. 2nd ed.,
    1988 (chapter 2).

    Examples
    --------
    >>> round(two_sample_detectable_difference(1571, 0.1), 4)
    0.01
    """
    from statsmodels.stats.power import TTestIndPower

    n = check_count(n_control, "n_control", minimum=2, maximum=MAX_EXACT_INT)
    sd = check_positive_number(sd, "sd")
    alpha, power, ratio = _two_sample_args(alpha, power, ratio)
    d = _effect_root(lambda e: TTestIndPower().power(e, n, alpha, ratio=ratio), power, n, alpha)
    return d * sd
