"""The result of an off-policy estimate: the value and its confidence interval.

Two intervals, chosen with ``interval``:

* ``'normal'`` (default): the estimate plus or minus ``z`` standard errors,
  the standard error from the estimator's influence terms (the per-round
  terms of a mean; the delta method for the self-normalised estimators);
* ``'bootstrap'``: the percentile interval of the estimator recomputed on
  rounds resampled with replacement (:func:`scipy.stats.bootstrap`, the
  whole estimator in each resample, self-normalisation included).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from .._validation import check_choice, check_count, check_probability, check_seed

__all__ = ["PolicyValue", "INTERVALS", "estimate", "mean", "interval_options"]

INTERVALS = ("normal", "bootstrap")
# rounds x resamples held at once by the bootstrap (a few tens of MB per column)
_BATCH_CELLS = 4_000_000


@dataclass(frozen=True)
class PolicyValue:
    """An estimated policy value with its confidence interval.

    ``float(result)`` is the value, so a result can stand where a number is
    expected.

    Attributes
    ----------
    estimator : str
        The estimator's name (``'ips'``, ``'snips'``, ``'dr'``, ...).
    value : float
        The estimated policy value (the expected reward per round).
    low, high : float
        The confidence interval's bounds.
    level : float
        Its confidence level.
    interval : str
        ``'normal'`` or ``'bootstrap'``.
    standard_error : float
        The standard error (normal: from the influence terms; bootstrap:
        the standard deviation of the resampled estimates).
    n_rounds : int
        The number of logged rounds (or slates) used.
    """

    estimator: str
    value: float
    low: float
    high: float
    level: float
    interval: str
    standard_error: float
    n_rounds: int

    def __float__(self) -> float:
        return self.value


def mean(a, axis=-1):
    """The statistic of the estimators that are means of per-round (or per-ranking) terms."""
    return np.mean(a, axis=axis)


def interval_options(interval, level, n_resamples, seed):
    """The interval keywords of an estimator, as :func:`estimate` takes them."""
    return {"interval": interval, "level": level, "n_resamples": n_resamples, "seed": seed}


def _normal(value, influence, level):
    n = influence.shape[0]
    se = float(np.std(influence, ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    z = float(special.ndtri(0.5 + level / 2))
    return value - z * se, value + z * se, se


def estimate(name, columns, statistic, influence, *, interval, level, n_resamples, seed):
    """A :class:`PolicyValue` from per-round ``columns`` and the estimator ``statistic``.

    ``statistic(*columns, axis=-1)`` computes the estimate from arrays whose
    last axis is the rounds (vectorised for the bootstrap); ``influence``
    holds the per-round influence terms of the normal interval.
    """
    check_choice(interval, "interval", INTERVALS)
    level = check_probability(level, "level")
    value = float(statistic(*columns, axis=-1))
    n = columns[0].shape[0]
    if interval == "normal":
        low, high, se = _normal(value, influence, level)
    else:
        n_resamples = check_count(n_resamples, "n_resamples")
        if n < 2:
            raise ValueError("a bootstrap interval needs at least 2 rounds")
        result = stats.bootstrap(
            tuple(columns),
            statistic,
            paired=True,
            vectorized=True,
            n_resamples=n_resamples,
            batch=max(1, _BATCH_CELLS // n),
            confidence_level=level,
            method="percentile",
            random_state=check_seed(seed),
        )
        low, high = (float(x) for x in result.confidence_interval)
        se = float(result.standard_error)
    return PolicyValue(name, value, float(low), float(high), level, interval, se, n)
