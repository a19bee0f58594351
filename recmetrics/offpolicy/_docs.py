"""The docstring pieces the off-policy estimators share (filled in by ``fill_doc``)."""

from __future__ import annotations

from .._docs import DOCS

__all__ = ["PIECES"]

PIECES = {
    "ope_reward": """\
reward : array-like of shape (n_rounds,)
    The observed reward of each logged round (a click: 0 or 1).""",
    "ope_action": """\
action : array-like of int, shape (n_rounds,)
    The action (item) the logging policy chose, ``0 .. n_actions - 1``.""",
    "ope_pscore": """\
pscore : array-like of shape (n_rounds,)
    The logging policy's probability of the logged action at the logged
    position, :math:`\\pi_b(a_i \\mid x_i)`, in (0, 1].""",
    "ope_action_dist": """\
action_dist : array-like of shape (n_rounds, n_actions, len_list)
    The target policy's probabilities :math:`\\pi_e(a \\mid x_i)` of each
    action at each position; they sum to 1 over the actions.""",
    "ope_logged": """\
reward : array-like of shape (n_rounds,)
    The observed reward of each logged round (a click: 0 or 1).
action : array-like of int, shape (n_rounds,)
    The action (item) the logging policy chose, ``0 .. n_actions - 1``.
pscore : array-like of shape (n_rounds,)
    The logging policy's probability of the logged action at the logged
    position, :math:`\\pi_b(a_i \\mid x_i)`, in (0, 1].
action_dist : array-like of shape (n_rounds, n_actions, len_list)
    The target policy's probabilities :math:`\\pi_e(a \\mid x_i)` of each
    action at each position; they sum to 1 over the actions.""",
    "ope_q_hat": """\
estimated_rewards_by_reg_model : array-like of shape (n_rounds, n_actions, len_list)
    A reward model's expected reward :math:`\\hat q(x_i, a)` of each action
    at each position (e.g. :func:`fit_reward_model`; cross-fitted for the
    doubly robust estimators).""",
    "ope_position": """\
position : array-like of int, shape (n_rounds,), optional
    The slot of the logged action, ``0 .. len_list - 1``; required when
    ``len_list > 1``. Every estimate reads ``action_dist`` at the logged
    position (obp's convention).""",
    "ope_interval": """\
interval : {'normal', 'bootstrap'}, default 'normal'
    The confidence interval: the normal approximation from the
    estimator's influence terms, or the percentile bootstrap over rounds.
level : float, default 0.95
    Its confidence level.
n_resamples : int, default 10000
    Bootstrap resamples (``interval='bootstrap'`` only).
seed : None, int or numpy.random.Generator, default 0
    Seed of the bootstrap resampling.""",
    "ope_returns": """\
PolicyValue
    ``.value`` (the estimated expected reward per round; ``float(result)``
    gives it), ``.low`` and ``.high`` (the interval), ``.standard_error``,
    ``.level``, ``.interval``, ``.n_rounds``, ``.estimator``.""",
    "ref_obp": """\
Y. Saito, S. Aihara, M. Matsutani and Y. Narita. Open Bandit Dataset and
Pipeline: Towards Realistic and Reproducible Off-Policy Evaluation. NeurIPS
Datasets and Benchmarks, 2021 (obp 0.5.7, ``obp/ope/estimators.py``).""",
}

for _key in PIECES:
    if _key in DOCS and DOCS[_key] != PIECES[_key]:  # pragma: no cover - a naming clash
        raise KeyError(f"docstring piece {_key!r} is defined twice")
DOCS.update(PIECES)
