"""Cascade doubly robust: rankings evaluated with a reward model and cascade weights."""

from __future__ import annotations

import numpy as np

from .._validation import as_numeric_array, check_integers
from ._inputs import probabilities
from ._result import estimate, interval_options, mean

__all__ = ["cascade_dr"]


def _slots(slate_id, position):
    """Check that the rows are whole rankings of one length, slot by slot in order."""
    ids = as_numeric_array(slate_id, "slate_id", ndim=1)
    pos = as_numeric_array(position, "position", ndim=1)
    check_integers(pos, "position", minimum=0)
    if ids.size != pos.size:
        raise ValueError(f"position has {pos.size} entries but slate_id has {ids.size}")
    starts = np.flatnonzero(pos == 0)
    if starts.size == 0 or starts[0] != 0:
        raise ValueError("the rows must start each ranking at position 0")
    len_list = int(ids.size // starts.size)
    expected = np.tile(np.arange(len_list), starts.size)
    if ids.size != starts.size * len_list or not np.array_equal(pos, expected):
        raise ValueError(
            "cascade_dr needs every ranking's rows together, positions 0, 1, ..., "
            "len_list - 1 in order, and every ranking of the same length"
        )
    same = ids.reshape(-1, len_list)
    if np.any(same != same[:, :1]):
        raise ValueError("the rows of one ranking (positions 0 .. len_list - 1) differ in slate_id")
    if np.unique(same[:, 0]).size != same.shape[0]:
        raise ValueError("a slate_id is used by two rankings")
    return starts.size, len_list


def cascade_dr(
    *,
    slate_id,
    action,
    reward,
    position,
    pscore_cascade,
    evaluation_policy_pscore_cascade,
    q_hat,
    evaluation_policy_action_dist,
    interval="normal",
    level=0.95,
    n_resamples=10_000,
    seed=0,
):
    """Cascade doubly robust estimate of a ranking policy's value (Kiyohara et al. 2022).

    With :math:`w_{i,1:k}` the ratio of the target's and the logger's
    probabilities of the ranking's top :math:`k` items (as in :func:`rips`,
    :math:`w_{i,1:0} = 1`) and a model :math:`\\hat q_k(x, a_{1:k})` of the
    Q function, the expected sum of the rewards *from slot* :math:`k` *to
    the end of the ranking* given the items at and above it, with the items
    below chosen by the *target* policy,

    .. math::
        \\hat V = \\frac1n \\sum_{i=1}^n \\sum_{k=1}^{K} \\Bigl(
        w_{i,1:k} \\bigl(r_{ik} - \\hat q_k(x_i, a_{i,1:k})\\bigr)
        + w_{i,1:k-1} \\sum_a \\pi_e(a \\mid x_i, a_{i,1:k-1})\\,
          \\hat q_k(x_i, a_{i,1:k-1}, a) \\Bigr)

    Under the cascade assumption (the reward at a slot depends on the items
    at and above it only) it is unbiased when the cascade weights are right,
    whatever :math:`\\hat q` (a good one lowers the variance), and with wrong
    weights only if :math:`\\hat q` is the true Q function: a model of each
    slot's *own* reward, or of the rewards below under the *logging*
    policy, even an exact one, is not enough (obp fits the Q function slot
    by slot from the bottom up with the target's action distribution,
    ``SlateRegressionModel``).
    With :math:`\\hat q = 0` it is :func:`rips`.
    This is what obp's ``SlateCascadeDoublyRobust`` computes.

    Parameters
    ----------
    slate_id : array-like of shape (n_slots,)
        The ranking each row belongs to; the rows of a ranking are together,
        slot by slot (positions 0, 1, ..., K - 1), every ranking of length K.
    action : array-like of int, shape (n_slots,)
        The item shown at each slot, ``0 .. n_actions - 1``.
    reward : array-like of shape (n_slots,)
        The slot's reward.
    position : array-like of int, shape (n_slots,)
        The slot, 0 = top.
    pscore_cascade : array-like of shape (n_slots,)
        The logging policy's probability of the ranking's items down to this
        slot, in (0, 1].
    evaluation_policy_pscore_cascade : array-like of shape (n_slots,)
        The target policy's probability of the same, in [0, 1].
    q_hat : array-like of shape (n_slots, n_actions)
        :math:`\\hat q_k(x_i, a_{i,1:k-1}, a)` for every action ``a`` at each
        slot, given the logged items above it: the expected sum of the
        rewards from this slot to the end of the ranking, the items below
        chosen by the target policy (not the slot's own reward); obp's flat
        ``q_hat`` is ``q_hat.reshape(n_slots, n_actions)``.
    evaluation_policy_action_dist : array-like of shape (n_slots, n_actions)
        The target policy's probability of each action at each slot given
        the logged items above it; sums to 1 over the actions.
    interval, level, n_resamples, seed
        As in :func:`sips` (the rankings are the resampled units).

    Returns
    -------
    PolicyValue

    See Also
    --------
    rips : the same weights without a reward model.

    References
    ----------
    H. Kiyohara, Y. Saito, T. Matsuhiro, Y. Narita, N. Shimizu and Y.
    Yamamoto. Doubly Robust Off-Policy Evaluation for Ranking Policies under
    the Cascade Behavior Model. WSDM 2022.

    Examples
    --------
    >>> import numpy as np
    >>> kw = dict(slate_id=[0, 0], action=[1, 0], reward=[1, 0], position=[0, 1],
    ...           pscore_cascade=[0.5, 0.5], evaluation_policy_pscore_cascade=[1.0, 1.0],
    ...           evaluation_policy_action_dist=[[0.0, 1.0], [1.0, 0.0]])
    >>> cascade_dr(**kw, q_hat=np.zeros((2, 2))).value  # = rips: 2 * 1 + 2 * 0
    2.0
    >>> cascade_dr(**kw, q_hat=[[0.2, 0.6], [0.1, 0.3]]).value  # .8 + .6 - .2 + .2
    1.4
    """
    n, len_list = _slots(slate_id, position)
    n_slots = n * len_list
    act = as_numeric_array(action, "action", ndim=1)
    check_integers(act, "action", minimum=0)
    rew = as_numeric_array(reward, "reward", ndim=1, allow_bool=True)
    ps = probabilities(pscore_cascade, "pscore_cascade", positive=True)
    ev = probabilities(evaluation_policy_pscore_cascade, "evaluation_policy_pscore_cascade",
                      positive=False)  # fmt: skip
    q = as_numeric_array(q_hat, "q_hat", ndim=2)
    dist = as_numeric_array(evaluation_policy_action_dist, "evaluation_policy_action_dist",
                            ndim=2, nonnegative=True)  # fmt: skip
    for arr, what in ((act, "action"), (rew, "reward"), (ps, "pscore_cascade"),
                      (ev, "evaluation_policy_pscore_cascade")):  # fmt: skip
        if arr.size != n_slots:
            raise ValueError(f"{what} has {arr.size} entries for {n_slots} slots")
    if q.shape != dist.shape or q.shape[0] != n_slots:
        raise ValueError(
            f"q_hat and evaluation_policy_action_dist must both have shape (n_slots, n_actions) "
            f"with n_slots = {n_slots}, got {q.shape} and {dist.shape}"
        )
    if np.any(act >= q.shape[1]):
        raise ValueError(f"action must be in 0..{q.shape[1] - 1} (the columns of q_hat)")
    if np.any(np.abs(dist.sum(axis=1) - 1) > 1e-6):
        raise ValueError("evaluation_policy_action_dist must sum to 1 over the actions")
    w = (ev / ps).reshape(n, len_list)
    w_prev = np.concatenate([np.ones((n, 1)), w[:, :-1]], axis=1)
    q_logged = q[np.arange(n_slots), act.astype(np.int64)].reshape(n, len_list)
    q_target = np.einsum("ij,ij->i", dist, q).reshape(n, len_list)
    per_slate = (w * (rew.reshape(n, len_list) - q_logged) + w_prev * q_target).sum(axis=1)
    return estimate("cascade_dr", (per_slate,), mean, per_slate,
                    **interval_options(interval, level, n_resamples, seed))  # fmt: skip
