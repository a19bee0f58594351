"""Estimators of a target policy's value from logs of another policy (single actions).

Logs of a *logging* (behaviour) policy :math:`\\pi_b` hold, for each round
:math:`i`, the context :math:`x_i`, the action shown :math:`a_i` (at
position :math:`p_i`), its reward :math:`r_i` and its propensity
:math:`\\pi_b(a_i \\mid x_i)` (``pscore``). The value of a *target* policy
:math:`\\pi_e` (``action_dist``) is the expected reward per round had it
chosen the actions, :math:`V(\\pi_e) = E_x E_{a \\sim \\pi_e}[q(x, a)]`.
With the importance weight :math:`w_i = \\pi_e(a_i \\mid x_i) / \\pi_b(a_i
\\mid x_i)` and a reward model :math:`\\hat q`:

* direct method (DM): :math:`\\frac1n \\sum_i \\hat q(x_i, \\pi_e)`, unbiased
  if the reward model is right;
* inverse propensity scoring (IPS): :math:`\\frac1n \\sum_i \\min(w_i,
  \\lambda)\\, r_i`, unbiased without clipping (:math:`\\lambda = \\infty`);
* self-normalised IPS (SNIPS): :math:`\\sum_i w_i r_i / \\sum_i w_i`,
  consistent;
* doubly robust (DR): :math:`\\frac1n \\sum_i \\hat q(x_i, \\pi_e) + w_i
  (r_i - \\hat q(x_i, a_i))`, unbiased if either the propensities or the
  reward model is right;

plus the self-normalised DR, switch-DR and DR with optimistic shrinkage,
which trade a little bias for less variance. Every function takes obp's
argument names (keyword-only, so that two arrays of the same shape cannot
be swapped silently), reads ``action_dist`` at the logged position as obp
does, and returns a :class:`~recmetrics.offpolicy.PolicyValue` with a
confidence interval.
"""

from __future__ import annotations

import numpy as np

from .._docs import fill_doc
from . import _docs  # noqa: F401  (registers the shared docstring pieces)
from ._inputs import check_lambda, read_feedback
from ._result import estimate, interval_options, mean

__all__ = ["dm", "ips", "snips", "dr", "sndr", "switch_dr", "dros"]

_DR_NEEDS = ("reward", "action", "pscore", "action_dist", "estimated_rewards_by_reg_model")


def _ratio(a, w, axis=-1):
    return np.mean(a, axis=axis) / np.mean(w, axis=axis)


def _shifted_ratio(q, b, w, axis=-1):
    return np.mean(q, axis=axis) + np.mean(b, axis=axis) / np.mean(w, axis=axis)


def _self_normalised(name, q, b, w, options):
    """``mean(q) + sum(b) / sum(w)``, with the delta method's influence terms."""
    w_bar = float(np.mean(w))
    if w_bar == 0:
        raise ValueError(
            f"{name}: the target policy gives probability 0 to every logged action, so the "
            "self-normalised estimate is undefined (sum of the importance weights is 0)"
        )
    b_bar = float(np.mean(b))
    influence = q + b / w_bar - (b_bar / w_bar**2) * w
    return estimate(name, (q, b, w), _shifted_ratio, influence, **options)


@fill_doc
def dm(
    *,
    action_dist,
    estimated_rewards_by_reg_model,
    position=None,
    interval="normal",
    level=0.95,
    n_resamples=10_000,
    seed=0,
):
    """The direct method: the reward model's value of the target policy.

    .. math:: \\hat V_{\\mathrm{DM}} = \\frac1n \\sum_{i=1}^n \\sum_a
              \\pi_e(a \\mid x_i)\\, \\hat q(x_i, a)

    No logged reward enters: the estimate is as good as the reward model,
    and biased as much as it is (obp's ``DirectMethod``). Its interval
    treats the model as known: it measures how :math:`\\hat q(x_i, \\pi_e)`
    varies over the rounds, not the error of the fitted model, and can be
    far too narrow (refit the model on bootstrap resamples of the logs for
    an interval that includes it).

    Parameters
    ----------
    %(ope_action_dist)s
    %(ope_q_hat)s
    %(ope_position)s
    %(ope_interval)s

    Returns
    -------
    %(ope_returns)s

    See Also
    --------
    dr : corrects the reward model's bias with the logged rewards.
    fit_reward_model : a reward model from the logs.

    References
    ----------
    %(ref_obp)s

    Examples
    --------
    >>> import numpy as np
    >>> pi = np.full((4, 2, 1), 0.5)
    >>> q_hat = np.array([0.2, 0.4] * 4).reshape(4, 2, 1)
    >>> round(dm(action_dist=pi, estimated_rewards_by_reg_model=q_hat).value, 6)
    0.3
    """
    f = read_feedback(
        action_dist=action_dist,
        estimated_rewards_by_reg_model=estimated_rewards_by_reg_model,
        position=position,
        need=("action_dist", "estimated_rewards_by_reg_model"),
    )
    q = f.q_hat_of_target()
    return estimate("dm", (q,), mean, q, **interval_options(interval, level, n_resamples, seed))


@fill_doc
def ips(
    *,
    reward,
    action,
    pscore,
    action_dist,
    position=None,
    lambda_=np.inf,
    interval="normal",
    level=0.95,
    n_resamples=10_000,
    seed=0,
):
    """Inverse propensity scoring (Horvitz-Thompson), optionally with clipped weights.

    .. math:: \\hat V_{\\mathrm{IPS}} = \\frac1n \\sum_{i=1}^n
              \\min(w_i, \\lambda)\\, r_i, \\qquad
              w_i = \\frac{\\pi_e(a_i \\mid x_i)}{\\pi_b(a_i \\mid x_i)}

    Unbiased when the propensities are right and :math:`\\pi_b(a \\mid x) > 0`
    wherever :math:`\\pi_e(a \\mid x) > 0` (and ``lambda_`` is infinite);
    its variance grows with the weights, i.e. with how far the target
    policy is from the logging one. Clipping at ``lambda_`` (Strehl et al.
    2010) lowers the variance and biases the estimate downwards for
    non-negative rewards (obp's ``InverseProbabilityWeighting``).

    Parameters
    ----------
    %(ope_logged)s
    %(ope_position)s
    lambda_ : float, default np.inf
        The largest importance weight kept (obp's name); ``np.inf``: no
        clipping.
    %(ope_interval)s

    Returns
    -------
    %(ope_returns)s

    See Also
    --------
    snips : normalises the weights instead of clipping them.
    weight_diagnostics : how large the weights are.

    References
    ----------
    D. G. Horvitz and D. J. Thompson. A Generalization of Sampling Without
    Replacement from a Finite Universe. JASA 47(260), 1952.

    A. Strehl, J. Langford, L. Li and S. M. Kakade. Learning from Logged
    Implicit Exploration Data. NeurIPS 2010.

    %(ref_obp)s

    Examples
    --------
    >>> import numpy as np
    >>> pi = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])[:, :, None]
    >>> v = ips(reward=[1, 0, 1, 1], action=[0, 0, 1, 1], pscore=[0.5] * 4, action_dist=pi)
    >>> v.value
    1.5
    """
    f = read_feedback(reward=reward, action=action, pscore=pscore, action_dist=action_dist,
                      position=position)  # fmt: skip
    lam = check_lambda(lambda_)
    terms = np.minimum(f.weights(), lam) * f.reward
    return estimate(
        "ips", (terms,), mean, terms, **interval_options(interval, level, n_resamples, seed)
    )


@fill_doc
def snips(
    *,
    reward,
    action,
    pscore,
    action_dist,
    position=None,
    interval="normal",
    level=0.95,
    n_resamples=10_000,
    seed=0,
):
    """Self-normalised inverse propensity scoring.

    .. math:: \\hat V_{\\mathrm{SNIPS}} = \\frac{\\sum_i w_i r_i}{\\sum_i w_i}

    Biased for a finite sample (the bias shrinks as :math:`1/n`) but
    consistent, bounded by the range of the rewards, and usually of much
    lower variance than IPS (Swaminathan & Joachims 2015). The normal
    interval uses the delta method; the bootstrap renormalises in each
    resample.

    Parameters
    ----------
    %(ope_logged)s
    %(ope_position)s
    %(ope_interval)s

    Returns
    -------
    %(ope_returns)s

    Raises
    ------
    ValueError
        If every importance weight is 0 (the estimate is undefined).

    See Also
    --------
    ips, sndr

    References
    ----------
    A. Swaminathan and T. Joachims. The Self-Normalized Estimator for
    Counterfactual Learning. NeurIPS 2015.

    %(ref_obp)s

    Examples
    --------
    >>> import numpy as np
    >>> pi = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])[:, :, None]
    >>> v = snips(reward=[1, 0, 1, 1], action=[0, 0, 1, 1], pscore=[0.5, 0.5, 0.25, 0.25],
    ...           action_dist=pi)
    >>> round(v.value, 6)  # (2 + 4 + 4) / (2 + 2 + 4 + 4)
    0.833333
    """
    f = read_feedback(reward=reward, action=action, pscore=pscore, action_dist=action_dist,
                      position=position)  # fmt: skip
    w = f.weights()
    return _self_normalised(
        "snips",
        np.zeros(f.n_rounds),
        w * f.reward,
        w,
        interval_options(interval, level, n_resamples, seed),
    )


def _dr_parts(reward, action, pscore, action_dist, q_hat, position):
    f = read_feedback(
        reward=reward,
        action=action,
        pscore=pscore,
        action_dist=action_dist,
        estimated_rewards_by_reg_model=q_hat,
        position=position,
        need=_DR_NEEDS,
    )
    return f.weights(), f.reward - f.q_hat_at_logged(), f.q_hat_of_target()


def _dr_estimate(name, w, residual, q_pi, options):
    terms = q_pi + w * residual
    return estimate(name, (terms,), mean, terms, **options)


@fill_doc
def dr(
    *,
    reward,
    action,
    pscore,
    action_dist,
    estimated_rewards_by_reg_model,
    position=None,
    lambda_=np.inf,
    interval="normal",
    level=0.95,
    n_resamples=10_000,
    seed=0,
):
    """Doubly robust: the direct method, corrected by importance-weighted residuals.

    .. math:: \\hat V_{\\mathrm{DR}} = \\frac1n \\sum_{i=1}^n \\Bigl(
              \\hat q(x_i, \\pi_e) + \\min(w_i, \\lambda)
              \\bigl(r_i - \\hat q(x_i, a_i)\\bigr) \\Bigr)

    Unbiased if either the propensities or the reward model is right
    (Dudik et al. 2011); with a good reward model its variance is below
    IPS's. ``lambda_`` clips the weights as in :func:`ips` (obp's
    ``DoublyRobust``).

    Parameters
    ----------
    %(ope_logged)s
    %(ope_q_hat)s
    %(ope_position)s
    lambda_ : float, default np.inf
        The largest importance weight kept; ``np.inf``: no clipping.
    %(ope_interval)s

    Returns
    -------
    %(ope_returns)s

    See Also
    --------
    dm, ips, sndr, switch_dr, dros

    References
    ----------
    M. Dudik, J. Langford and L. Li. Doubly Robust Policy Evaluation and
    Learning. ICML 2011.

    %(ref_obp)s

    Examples
    --------
    >>> import numpy as np
    >>> pi = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])[:, :, None]
    >>> q_hat = np.full((4, 2, 1), 0.5)
    >>> v = dr(reward=[1, 0, 1, 1], action=[0, 0, 1, 1], pscore=[0.5] * 4, action_dist=pi,
    ...        estimated_rewards_by_reg_model=q_hat)
    >>> v.value  # 0.5 + 2 * (0.5 - 0.5 + 0.5 + 0.5) / 4
    1.0
    """
    w, residual, q_pi = _dr_parts(reward, action, pscore, action_dist,
                                  estimated_rewards_by_reg_model, position)  # fmt: skip
    w = np.minimum(w, check_lambda(lambda_))
    return _dr_estimate(
        "dr", w, residual, q_pi, interval_options(interval, level, n_resamples, seed)
    )


@fill_doc
def sndr(
    *,
    reward,
    action,
    pscore,
    action_dist,
    estimated_rewards_by_reg_model,
    position=None,
    interval="normal",
    level=0.95,
    n_resamples=10_000,
    seed=0,
):
    """Self-normalised doubly robust: DR with the weights divided by their mean.

    .. math:: \\hat V_{\\mathrm{SNDR}} = \\frac1n \\sum_i \\hat q(x_i, \\pi_e)
              + \\frac{\\sum_i w_i \\bigl(r_i - \\hat q(x_i, a_i)\\bigr)}{\\sum_i w_i}

    (obp's ``SelfNormalizedDoublyRobust``; Kallus & Uehara 2019.)

    Parameters
    ----------
    %(ope_logged)s
    %(ope_q_hat)s
    %(ope_position)s
    %(ope_interval)s

    Returns
    -------
    %(ope_returns)s

    Raises
    ------
    ValueError
        If every importance weight is 0.

    See Also
    --------
    dr, snips

    References
    ----------
    N. Kallus and M. Uehara. Intrinsically Efficient, Stable, and Bounded
    Off-Policy Evaluation for Reinforcement Learning. NeurIPS 2019.

    %(ref_obp)s

    Examples
    --------
    >>> import numpy as np
    >>> pi = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])[:, :, None]
    >>> q_hat = np.full((4, 2, 1), 0.5)
    >>> v = sndr(reward=[1, 0, 1, 1], action=[0, 0, 1, 1], pscore=[0.5] * 4, action_dist=pi,
    ...          estimated_rewards_by_reg_model=q_hat)
    >>> v.value  # 0.5 + (0.5 - 0.5 + 0.5 + 0.5) * 2 / 8
    0.75
    """
    w, residual, q_pi = _dr_parts(reward, action, pscore, action_dist,
                                  estimated_rewards_by_reg_model, position)  # fmt: skip
    return _self_normalised(
        "sndr", q_pi, w * residual, w, interval_options(interval, level, n_resamples, seed)
    )


@fill_doc
def switch_dr(
    *,
    reward,
    action,
    pscore,
    action_dist,
    estimated_rewards_by_reg_model,
    position=None,
    lambda_=np.inf,
    interval="normal",
    level=0.95,
    n_resamples=10_000,
    seed=0,
):
    """Switch doubly robust: DR where the weight is at most ``lambda_``, DM elsewhere.

    .. math:: \\hat V_{\\mathrm{SwitchDR}} = \\frac1n \\sum_{i=1}^n \\Bigl(
              \\hat q(x_i, \\pi_e) + w_i \\mathbb{1}[w_i \\le \\lambda]
              \\bigl(r_i - \\hat q(x_i, a_i)\\bigr) \\Bigr)

    ``lambda_ = np.inf`` is DR, ``lambda_ = 0`` is DM (Wang, Agarwal & Dudik
    2017; obp's ``SwitchDoublyRobust``).

    Parameters
    ----------
    %(ope_logged)s
    %(ope_q_hat)s
    %(ope_position)s
    lambda_ : float, default np.inf
        The switching threshold on the importance weight (>= 0).
    %(ope_interval)s

    Returns
    -------
    %(ope_returns)s

    See Also
    --------
    dr, dm, dros

    References
    ----------
    Y.-X. Wang, A. Agarwal and M. Dudik. Optimal and Adaptive Off-policy
    Evaluation in Contextual Bandits. ICML 2017.

    %(ref_obp)s

    Examples
    --------
    >>> import numpy as np
    >>> pi = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])[:, :, None]
    >>> q_hat = np.full((4, 2, 1), 0.5)
    >>> kw = dict(reward=[1, 0, 1, 1], action=[0, 0, 1, 1], pscore=[0.5, 0.5, 0.25, 0.25],
    ...           action_dist=pi, estimated_rewards_by_reg_model=q_hat)
    >>> switch_dr(**kw, lambda_=3).value  # the weights 4 switch to DM
    0.5
    """
    w, residual, q_pi = _dr_parts(reward, action, pscore, action_dist,
                                  estimated_rewards_by_reg_model, position)  # fmt: skip
    w = np.where(w <= check_lambda(lambda_), w, 0.0)
    return _dr_estimate("switch_dr", w, residual, q_pi,
                        interval_options(interval, level, n_resamples, seed))  # fmt: skip


@fill_doc
def dros(
    *,
    reward,
    action,
    pscore,
    action_dist,
    estimated_rewards_by_reg_model,
    position=None,
    lambda_=np.inf,
    interval="normal",
    level=0.95,
    n_resamples=10_000,
    seed=0,
):
    """Doubly robust with optimistic shrinkage of the weights.

    .. math:: \\hat V_{\\mathrm{DRos}} = \\frac1n \\sum_{i=1}^n \\Bigl(
              \\hat q(x_i, \\pi_e) + \\frac{\\lambda w_i}{w_i^2 + \\lambda}
              \\bigl(r_i - \\hat q(x_i, a_i)\\bigr) \\Bigr)

    The shrunk weight :math:`\\lambda w / (w^2 + \\lambda)` minimises a bound
    on the mean squared error (Su et al. 2020); ``lambda_ = np.inf`` is DR,
    ``lambda_ = 0`` is DM. This is what obp's ``DoublyRobustWithShrinkage``
    computes (its docstring's formula multiplies by :math:`w_i` once more,
    but its code does not).

    Parameters
    ----------
    %(ope_logged)s
    %(ope_q_hat)s
    %(ope_position)s
    lambda_ : float, default np.inf
        The shrinkage hyperparameter (>= 0).
    %(ope_interval)s

    Returns
    -------
    %(ope_returns)s

    See Also
    --------
    dr, switch_dr

    References
    ----------
    Y. Su, M. Dimakopoulou, A. Krishnamurthy and M. Dudik. Doubly Robust
    Off-Policy Evaluation with Shrinkage. ICML 2020.

    %(ref_obp)s

    Examples
    --------
    >>> import numpy as np
    >>> pi = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])[:, :, None]
    >>> q_hat = np.full((4, 2, 1), 0.5)
    >>> kw = dict(reward=[1, 0, 1, 1], action=[0, 0, 1, 1], pscore=[0.5] * 4,
    ...           action_dist=pi, estimated_rewards_by_reg_model=q_hat)
    >>> dros(**kw, lambda_=4).value  # weights 2 shrink to 4 * 2 / (4 + 4) = 1
    0.75
    """
    w, residual, q_pi = _dr_parts(reward, action, pscore, action_dist,
                                  estimated_rewards_by_reg_model, position)  # fmt: skip
    lam = check_lambda(lambda_)
    if np.isfinite(lam):
        w = lam * w / (w * w + lam) if lam > 0 else np.zeros_like(w)
    return _dr_estimate(
        "dros", w, residual, q_pi, interval_options(interval, level, n_resamples, seed)
    )
