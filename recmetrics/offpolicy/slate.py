"""Estimators for rankings (slates): standard, independent and reward-interaction IPS.

The logs hold one row per slot of each shown ranking: ``slate_id``, the
slot's ``position`` and ``reward``, and the logging and target policies'
probabilities of what was shown. The value of a ranking policy is the
expected *sum* of the slots' rewards per ranking. The three estimators
differ in which probability they weight by, i.e. in what they assume about
how users react to a ranking (McInerney et al. 2020, Eqs. 1-4):

===========  ==============================================  ===========================
estimator    weight of slot :math:`k` of ranking :math:`i`     assumes
===========  ==============================================  ===========================
``sips``     the whole ranking's probability ratio             nothing (unbiased, high
                                                               variance)
``iips``     the ratio of the item-at-position marginals       a slot's reward depends only
                                                               on its own item (item-position
                                                               model; Li et al. 2018)
``rips``     the ratio of the top-:math:`k` prefixes           the reward at slot :math:`k`
                                                               depends on slots 1..k only
                                                               (cascade)
===========  ==============================================  ===========================

Each takes obp's argument names (``pscore``, ``pscore_item_position``,
``pscore_cascade`` and their ``evaluation_policy_`` counterparts) and
returns a :class:`~recmetrics.offpolicy.PolicyValue` whose rounds are the
rankings.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import as_numeric_array, check_integers
from ._inputs import probabilities
from ._result import estimate, interval_options, mean

__all__ = ["sips", "iips", "rips"]


def _slates(name, slate_id, reward, position, pscore, target, pscore_name, options, *, joint):
    ids = pd.Series(as_numeric_array(slate_id, "slate_id", ndim=1, dtype=np.float64))
    pos = as_numeric_array(position, "position", ndim=1)
    check_integers(pos, "position", minimum=0)
    rew = as_numeric_array(reward, "reward", ndim=1, allow_bool=True)
    ps = probabilities(pscore, pscore_name, positive=True)
    ev = probabilities(target, f"evaluation_policy_{pscore_name}", positive=False)
    n = ids.size
    for arr, what in ((pos, "position"), (rew, "reward"), (ps, pscore_name),
                      (ev, f"evaluation_policy_{pscore_name}")):  # fmt: skip
        if arr.size != n:
            raise ValueError(
                f"{what} has {arr.size} entries but slate_id has {n}: one entry per slot"
            )
    codes, uniques = pd.factorize(ids)
    slots = pd.DataFrame({"s": codes, "p": pos})
    if slots.duplicated().any():
        i = int(np.argmax(slots.duplicated().to_numpy()))
        raise ValueError(f"slate {ids[i]:g} has position {pos[i]:g} twice")
    if joint:
        frame = pd.DataFrame({"s": codes, "b": ps, "e": ev})
        spread = frame.groupby("s")[["b", "e"]].agg(lambda x: x.max() - x.min()).max(axis=1)
        if np.any(spread.to_numpy() > 1e-12):
            s = int(spread.to_numpy().argmax())
            raise ValueError(
                f"{pscore_name} and evaluation_policy_{pscore_name} must be the whole ranking's "
                f"probability, the same for every slot of a slate; slate {uniques[s]:g} has "
                "different values (for per-slot marginals use iips)"
            )
    per_slate = np.bincount(codes, weights=rew * (ev / ps), minlength=uniques.size)
    return estimate(name, (per_slate,), mean, per_slate, **options)


def sips(*, slate_id, reward, position, pscore, evaluation_policy_pscore, interval="normal",
         level=0.95, n_resamples=10_000, seed=0):  # fmt: skip
    """Standard IPS for rankings: every slot weighted by the whole ranking's ratio.

    .. math:: \\hat V_{\\mathrm{SIPS}} = \\frac1n \\sum_{i=1}^n
              \\frac{\\pi_e(s_i \\mid x_i)}{\\pi_b(s_i \\mid x_i)}
              \\sum_k r_{ik}

    with :math:`s_i` the ranking shown. It assumes nothing about how the
    slots' rewards interact, and its weights are those of whole rankings,
    huge for long lists (obp's ``SlateStandardIPS``).

    Parameters
    ----------
    slate_id : array-like of shape (n_slots,)
        The ranking each row (slot) belongs to.
    reward : array-like of shape (n_slots,)
        The slot's reward (a click: 0 or 1).
    position : array-like of int, shape (n_slots,)
        The slot's position (0 = top); once per ranking.
    pscore : array-like of shape (n_slots,)
        The logging policy's probability of the whole ranking (the same
        on each of its slots), in (0, 1].
    evaluation_policy_pscore : array-like of shape (n_slots,)
        The target policy's probability of the whole ranking (the same on
        each of its slots), in [0, 1].
    interval : {'normal', 'bootstrap'}, default 'normal'
        The confidence interval (rankings are the resampled units).
    level : float, default 0.95
        Its confidence level.
    n_resamples : int, default 10000
        Bootstrap resamples.
    seed : None, int or numpy.random.Generator, default 0
        Seed of the bootstrap.

    Returns
    -------
    PolicyValue
        The estimated expected sum of the rewards per ranking, with its
        interval; ``n_rounds`` counts the rankings.

    Raises
    ------
    ValueError
        Also when the probabilities differ between the slots of a ranking
        (marginals passed where the joint probability is expected).

    See Also
    --------
    iips, rips

    References
    ----------
    J. McInerney, B. Brost, P. Chandar, R. Mehrotra and B. Carterette.
    Counterfactual Evaluation of Slate Recommendations with Sequential
    Reward Interactions. KDD 2020.

    Examples
    --------
    >>> v = sips(slate_id=[0, 0, 1, 1], reward=[1, 0, 0, 1], position=[0, 1, 0, 1],
    ...          pscore=[0.25] * 4, evaluation_policy_pscore=[0.5, 0.5, 0.0, 0.0])
    >>> v.value  # (2 * 1 + 0) / 2
    1.0
    """
    options = interval_options(interval, level, n_resamples, seed)
    return _slates("sips", slate_id, reward, position, pscore, evaluation_policy_pscore,
                   "pscore", options, joint=True)  # fmt: skip


def iips(*, slate_id, reward, position, pscore_item_position,
         evaluation_policy_pscore_item_position, interval="normal", level=0.95,
         n_resamples=10_000, seed=0):  # fmt: skip
    """Independent IPS: each slot weighted by its item-at-position marginal ratio.

    .. math:: \\hat V_{\\mathrm{IIPS}} = \\frac1n \\sum_{i=1}^n \\sum_k
              \\frac{\\pi_e(a_{ik}, k \\mid x_i)}{\\pi_b(a_{ik}, k \\mid x_i)}\\, r_{ik}

    Unbiased when a slot's reward depends only on the item at that slot
    (the item-position model; Li et al. 2018), with far smaller weights
    than :func:`sips` (obp's ``SlateIndependentIPS``).

    Parameters
    ----------
    slate_id : array-like of shape (n_slots,)
        The ranking each row (slot) belongs to.
    reward : array-like of shape (n_slots,)
        The slot's reward (a click: 0 or 1).
    position : array-like of int, shape (n_slots,)
        The slot's position (0 = top); once per ranking.
    pscore_item_position : array-like of shape (n_slots,)
        The logging policy's marginal probability of the slot's item at
        the slot's position, in (0, 1].
    evaluation_policy_pscore_item_position : array-like of shape (n_slots,)
        The target policy's marginal probability of the slot's item at the
        slot's position, in [0, 1].
    interval : {'normal', 'bootstrap'}, default 'normal'
        The confidence interval (rankings are the resampled units).
    level : float, default 0.95
        Its confidence level.
    n_resamples : int, default 10000
        Bootstrap resamples.
    seed : None, int or numpy.random.Generator, default 0
        Seed of the bootstrap.

    Returns
    -------
    PolicyValue
        The estimated expected sum of the rewards per ranking, with its
        interval; ``n_rounds`` counts the rankings.

    See Also
    --------
    sips, rips

    References
    ----------
    J. McInerney, B. Brost, P. Chandar, R. Mehrotra and B. Carterette.
    Counterfactual Evaluation of Slate Recommendations with Sequential
    Reward Interactions. KDD 2020.

    S. Li, Y. Abbasi-Yadkori, B. Kveton, S. Muthukrishnan, V. Vinay and
    Z. Wen. Offline Evaluation of Ranking Policies with Click Models. KDD
    2018.

    Examples
    --------
    >>> v = iips(slate_id=[0, 0, 1, 1], reward=[1, 0, 0, 1], position=[0, 1, 0, 1],
    ...          pscore_item_position=[0.5] * 4,
    ...          evaluation_policy_pscore_item_position=[1.0, 0.0, 0.0, 1.0])
    >>> v.value  # (2 + 2) / 2
    2.0
    """
    return _slates("iips", slate_id, reward, position, pscore_item_position,
                   evaluation_policy_pscore_item_position, "pscore_item_position",
                   interval_options(interval, level, n_resamples, seed), joint=False)  # fmt: skip


def rips(*, slate_id, reward, position, pscore_cascade, evaluation_policy_pscore_cascade,
         interval="normal", level=0.95, n_resamples=10_000, seed=0):  # fmt: skip
    """Reward-interaction IPS: slot k weighted by the ratio of the top-k prefixes.

    .. math:: \\hat V_{\\mathrm{RIPS}} = \\frac1n \\sum_{i=1}^n \\sum_k
              \\frac{\\pi_e(a_{i1}, \\ldots, a_{ik} \\mid x_i)}
                   {\\pi_b(a_{i1}, \\ldots, a_{ik} \\mid x_i)}\\, r_{ik}

    Unbiased when the reward at a slot depends only on the items at and
    above it (a cascade: users read from the top), between :func:`iips`
    and :func:`sips` in both assumption and variance. This is the
    unnormalised form that obp's ``SlateRewardInteractionIPS`` computes
    (McInerney et al. 2020 also give a self-normalised one).

    Parameters
    ----------
    slate_id : array-like of shape (n_slots,)
        The ranking each row (slot) belongs to.
    reward : array-like of shape (n_slots,)
        The slot's reward (a click: 0 or 1).
    position : array-like of int, shape (n_slots,)
        The slot's position (0 = top); once per ranking.
    pscore_cascade : array-like of shape (n_slots,)
        The logging policy's probability of the ranking's top k items, k = position + 1, in (0, 1].
    evaluation_policy_pscore_cascade : array-like of shape (n_slots,)
        The target policy's probability of the ranking's top k items, k = position + 1, in [0, 1].
    interval : {'normal', 'bootstrap'}, default 'normal'
        The confidence interval (rankings are the resampled units).
    level : float, default 0.95
        Its confidence level.
    n_resamples : int, default 10000
        Bootstrap resamples.
    seed : None, int or numpy.random.Generator, default 0
        Seed of the bootstrap.

    Returns
    -------
    PolicyValue
        The estimated expected sum of the rewards per ranking, with its
        interval; ``n_rounds`` counts the rankings.

    See Also
    --------
    sips, iips

    References
    ----------
    J. McInerney, B. Brost, P. Chandar, R. Mehrotra and B. Carterette.
    Counterfactual Evaluation of Slate Recommendations with Sequential
    Reward Interactions. KDD 2020.

    Examples
    --------
    >>> v = rips(slate_id=[0, 0, 1, 1], reward=[1, 1, 0, 1], position=[0, 1, 0, 1],
    ...          pscore_cascade=[0.5, 0.25, 0.5, 0.25],
    ...          evaluation_policy_pscore_cascade=[1.0, 0.5, 0.0, 0.0])
    >>> v.value  # (2 + 2) / 2
    2.0
    """
    return _slates("rips", slate_id, reward, position, pscore_cascade,
                   evaluation_policy_pscore_cascade, "pscore_cascade",
                   interval_options(interval, level, n_resamples, seed), joint=False)  # fmt: skip
