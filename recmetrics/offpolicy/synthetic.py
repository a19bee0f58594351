"""A synthetic contextual bandit with a known truth, for checking the estimators."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from .._validation import as_numeric_array, check_count, check_seed

__all__ = ["SyntheticBandit", "synthetic_bandit", "softmax_policy", "policy_value"]


@dataclass(frozen=True)
class SyntheticBandit:
    """Logged feedback of a softmax logging policy, with the true expected rewards.

    Attributes
    ----------
    context : ndarray of shape (n_rounds, n_features)
    expected_reward : ndarray of shape (n_rounds, n_actions)
        The true click probability :math:`q(x_i, a)` of every action.
    logging_dist : ndarray of shape (n_rounds, n_actions, 1)
        The logging policy's action probabilities.
    action, reward, pscore, position : ndarray of shape (n_rounds,)
        The logs, in obp's names (``position`` is all 0: one slot).
    """

    context: np.ndarray
    expected_reward: np.ndarray
    logging_dist: np.ndarray
    action: np.ndarray
    reward: np.ndarray
    pscore: np.ndarray
    position: np.ndarray


def softmax_policy(scores, beta=1.0):
    """``action_dist`` of the softmax policy :math:`\\pi(a \\mid x) \\propto e^{\\beta s(x, a)}`.

    Parameters
    ----------
    scores : array-like of shape (n_rounds, n_actions)
        A score per round and action (e.g. the expected rewards).
    beta : float, default 1.0
        The inverse temperature: 0 is uniform, large values approach the
        greedy policy, negative values prefer low scores.

    Returns
    -------
    ndarray of shape (n_rounds, n_actions, 1)

    Examples
    --------
    >>> softmax_policy([[0.0, 0.0]])[0, :, 0].tolist()
    [0.5, 0.5]
    """
    s = as_numeric_array(scores, "scores", ndim=2)
    b = float(as_numeric_array(beta, "beta", ndim=0))
    return special.softmax(b * s, axis=1)[:, :, None]


def policy_value(expected_reward, action_dist):
    """The true value :math:`\\frac1n \\sum_i \\sum_a \\pi(a \\mid x_i)\\, q(x_i, a)` (one slot).

    Parameters
    ----------
    expected_reward : array-like of shape (n_rounds, n_actions)
    action_dist : array-like of shape (n_rounds, n_actions, 1)

    Returns
    -------
    float

    Examples
    --------
    >>> policy_value([[0.2, 0.4]], [[[0.5], [0.5]]])
    0.30000000000000004
    """
    q = as_numeric_array(expected_reward, "expected_reward", ndim=2)
    pi = as_numeric_array(action_dist, "action_dist", ndim=3)
    if pi.shape != (*q.shape, 1):
        raise ValueError(
            f"action_dist must have shape {(*q.shape, 1)} for expected_reward of shape "
            f"{q.shape}, got {pi.shape}"
        )
    return float(np.mean(np.einsum("ij,ij->i", pi[:, :, 0], q)))


def synthetic_bandit(n_rounds, n_actions=10, *, n_features=5, beta=1.0, seed=0):
    """Logs of a softmax policy on a logistic click model: the truth is known.

    Contexts :math:`x_i \\sim N(0, I)`; the click probability of action
    :math:`a` is :math:`q(x, a) = \\sigma(x^\\top \\theta_a + b_a)` with
    :math:`\\theta_a \\sim N(0, I/d)` and :math:`b_a \\sim N(-2, 0.5^2)` (about one round in six
    is rewarded under a uniform policy); the logging policy is
    :func:`softmax_policy` of :math:`4 q` with inverse temperature ``beta``
    (0: uniform); the reward is a Bernoulli draw of the logged action's
    :math:`q`. The true value of any target policy on these contexts is
    :func:`policy_value` of ``expected_reward``.

    Parameters
    ----------
    n_rounds : int
        Logged rounds.
    n_actions : int, default 10
        Actions.
    n_features : int, default 5
        Context dimensions.
    beta : float, default 1.0
        The logging policy's inverse temperature.
    seed : None, int or numpy.random.Generator, default 0
        Seed of everything drawn.

    Returns
    -------
    SyntheticBandit

    Examples
    --------
    >>> b = synthetic_bandit(1000, 4, seed=1)
    >>> b.logging_dist.shape, bool(abs(b.reward.mean() - 0.13) < 0.1)
    ((1000, 4, 1), True)
    """
    n_rounds = check_count(n_rounds, "n_rounds")
    n_actions = check_count(n_actions, "n_actions", minimum=2)
    n_features = check_count(n_features, "n_features")
    b = float(as_numeric_array(beta, "beta", ndim=0))
    rng = check_seed(seed)
    theta = rng.normal(0.0, 1.0 / np.sqrt(n_features), size=(n_features, n_actions))
    bias = rng.normal(-2.0, 0.5, size=n_actions)
    context = rng.normal(size=(n_rounds, n_features))
    q = special.expit(context @ theta + bias)
    logging = softmax_policy(4.0 * q, b)
    cum = np.cumsum(logging[:, :, 0], axis=1)
    u = rng.random(n_rounds)[:, None]
    action = np.minimum((u > cum).sum(axis=1), n_actions - 1)
    rows = np.arange(n_rounds)
    reward = (rng.random(n_rounds) < q[rows, action]).astype(np.int64)
    return SyntheticBandit(
        context=context,
        expected_reward=q,
        logging_dist=logging,
        action=action,
        reward=reward,
        pscore=logging[rows, action, 0],
        position=np.zeros(n_rounds, dtype=np.int64),
    )
