"""The one reading of logged bandit feedback: arrays in obp's names, checked once.

Every estimator of :mod:`recmetrics.offpolicy` takes its arrays under the
names of the Open Bandit Pipeline (obp): ``reward``, ``action``,
``position``, ``pscore``, ``action_dist`` and
``estimated_rewards_by_reg_model``; this module turns them into NumPy arrays
or raises a :class:`TypeError`/:class:`ValueError` that names the argument.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._validation import as_numeric_array, check_integers

__all__ = ["Feedback", "read_feedback", "check_lambda", "probabilities", "SUM_TOLERANCE"]

#: How far ``action_dist`` may sum from 1 over the actions (obp: ``np.allclose``).
SUM_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Feedback:
    """Logged bandit feedback, checked: every array has one row per round."""

    n_rounds: int
    reward: np.ndarray | None
    action: np.ndarray | None
    position: np.ndarray | None
    pscore: np.ndarray | None
    action_dist: np.ndarray | None
    q_hat: np.ndarray | None

    def target_at_logged(self) -> np.ndarray:
        """``pi_e(a_i | x_i, position_i)``: the target policy's probability of the logged action."""
        rows = np.arange(self.n_rounds)
        return self.action_dist[rows, self.action, self.position]

    def weights(self) -> np.ndarray:
        """The importance weights ``w_i = pi_e(a_i | x_i) / pi_b(a_i | x_i)``."""
        return self.target_at_logged() / self.pscore

    def q_hat_of_target(self) -> np.ndarray:
        """``sum_a pi_e(a | x_i) q_hat(x_i, a)`` at each round's logged position."""
        rows = np.arange(self.n_rounds)
        pi = self.action_dist[rows, :, self.position]
        return np.einsum("ij,ij->i", pi, self.q_hat[rows, :, self.position])

    def q_hat_at_logged(self) -> np.ndarray:
        """``q_hat(x_i, a_i)`` at each round's logged position."""
        rows = np.arange(self.n_rounds)
        return self.q_hat[rows, self.action, self.position]


def _vector(x, name, *, allow_bool=False):
    return as_numeric_array(x, name, ndim=1, allow_bool=allow_bool)


def probabilities(x, name, *, positive, meaning=""):
    """A 1-D array of probabilities: in (0, 1] (``positive``) or in [0, 1], else a clear error."""
    arr = as_numeric_array(x, name, ndim=1)
    bad = ((arr <= 0) if positive else (arr < 0)) | (arr > 1)
    if np.any(bad):
        i = int(np.argmax(bad))
        span = "(0, 1]" if positive else "[0, 1]"
        raise ValueError(f"{name} must be in {span}{meaning}, found {arr[i]!r} at position {i}")
    return arr


def _indices(x, name, size, what):
    arr = _vector(x, name)
    check_integers(arr, name, minimum=0)
    big = arr >= size
    if np.any(big):
        i = int(np.argmax(big))
        raise ValueError(
            f"{name} must be in 0..{size - 1} ({what} of action_dist), found {arr[i]:g} "
            f"at position {i}"
        )
    return arr.astype(np.int64)


def _distribution(x, name):
    arr = as_numeric_array(x, name, nonnegative=True)
    if arr.ndim != 3:
        hint = f"; for one slot use {name}[:, :, None]" if arr.ndim == 2 else ""
        raise ValueError(
            f"{name} must be 3-D, (n_rounds, n_actions, len_list), got shape {arr.shape}{hint}"
        )
    return arr


def read_feedback(
    *,
    reward=None,
    action=None,
    position=None,
    pscore=None,
    action_dist=None,
    estimated_rewards_by_reg_model=None,
    need=("reward", "action", "pscore", "action_dist"),
) -> Feedback:
    """Check the arrays an estimator needs (``need``) and return them as a :class:`Feedback`.

    ``action_dist`` (shape ``(n_rounds, n_actions, len_list)``) fixes the
    number of actions and of positions; ``position`` may be left out when
    ``len_list == 1`` (every action shown in the one slot, index 0).
    """
    given = {
        "reward": reward,
        "action": action,
        "pscore": pscore,
        "action_dist": action_dist,
        "estimated_rewards_by_reg_model": estimated_rewards_by_reg_model,
    }
    for name in need:
        if given[name] is None:
            raise TypeError(f"{name} is required by this estimator")
    dist = _distribution(action_dist, "action_dist")
    n_rounds, n_actions, len_list = dist.shape
    if n_rounds == 0:
        raise ValueError("action_dist has no rounds; at least one is needed")
    sums = dist.sum(axis=1)
    off = np.abs(sums - 1.0) > SUM_TOLERANCE
    if np.any(off):
        i, j = np.unravel_index(np.argmax(off), off.shape)
        raise ValueError(
            "action_dist must sum to 1 over the actions (axis 1) for each round and position, "
            f"got {sums[i, j]:.6g} at round {i}, position {j}"
        )
    lengths = {"action_dist": n_rounds}

    def aligned(arr, name):
        if arr.shape[0] != n_rounds:
            raise ValueError(
                f"{name} has {arr.shape[0]} rounds but action_dist has {n_rounds}: "
                "every array needs one entry per round"
            )
        lengths[name] = arr.shape[0]
        return arr

    act = None
    if "action" in need or action is not None:
        act = aligned(_indices(action, "action", n_actions, "axis 1"), "action")
    if position is None:
        if len_list != 1:
            raise TypeError(f"position is required: action_dist has {len_list} positions (axis 2)")
        pos = np.zeros(n_rounds, dtype=np.int64)
    else:
        pos = aligned(_indices(position, "position", len_list, "axis 2"), "position")
    rew = None
    if "reward" in need or reward is not None:
        rew = aligned(_vector(reward, "reward", allow_bool=True), "reward")
    ps = None
    if "pscore" in need or pscore is not None:
        meaning = " (the logging policy's probability of the logged action)"
        ps = aligned(probabilities(pscore, "pscore", positive=True, meaning=meaning), "pscore")
    q_hat = None
    if "estimated_rewards_by_reg_model" in need or estimated_rewards_by_reg_model is not None:
        q_hat = as_numeric_array(estimated_rewards_by_reg_model, "estimated_rewards_by_reg_model")
        if q_hat.shape != dist.shape:
            raise ValueError(
                "estimated_rewards_by_reg_model must have the shape of action_dist, "
                f"{dist.shape}, got {q_hat.shape}"
            )
    return Feedback(n_rounds, rew, act, pos, ps, dist, q_hat)


def check_lambda(x, name="lambda_", *, strict=False) -> float:
    """A hyperparameter in [0, inf] (``strict``: in (0, inf]); NaN, bools and strings raise."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a number, got {x!r} of type {type(x).__name__}")
    value = float(x)
    if value != value or value < 0 or (strict and value == 0):
        bound = "> 0" if strict else ">= 0"
        raise ValueError(f"{name} must be a number {bound} (np.inf for none), got {x!r}")
    return value
