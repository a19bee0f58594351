"""A reward model for the direct method and the doubly robust estimators."""

from __future__ import annotations

import numpy as np

from .._validation import (
    as_numeric_array,
    check_bool,
    check_count,
    check_positive_number,
    check_seed,
)
from ._inputs import _indices

__all__ = ["fit_reward_model"]


def _folds(n, n_folds, seed):
    if n_folds == 1:
        return [np.arange(n)], [np.arange(n)]
    order = check_seed(seed).permutation(n)
    tests = np.array_split(order, n_folds)
    trains = [np.setdiff1d(order, t, assume_unique=True) for t in tests]
    return trains, tests


def _smoothed_rates(reward, action, position, n_actions, len_list, smoothing):
    shows = np.zeros((n_actions, len_list))
    clicks = np.zeros((n_actions, len_list))
    np.add.at(shows, (action, position), 1.0)
    np.add.at(clicks, (action, position), reward)
    mean = float(reward.mean()) if reward.size else 0.0
    return (clicks + smoothing * mean) / (shows + smoothing)


def _features(context, action, position, n_actions, len_list):
    one_a = np.eye(n_actions)[action]
    one_p = np.eye(len_list)[position]
    return np.hstack([context, one_a, one_p])


def _predict(fitted, x):
    if hasattr(fitted, "predict_proba"):
        classes = list(fitted.classes_)
        proba = fitted.predict_proba(x)
        return proba[:, classes.index(1)] if 1 in classes else np.zeros(len(x))
    return fitted.predict(x)


def _fit(model, x, y, fallback):
    """A clone of ``model`` fitted on ``(x, y)``; ``None`` (predict ``fallback``) for one class."""
    from sklearn.base import clone

    if y.size == 0 or (hasattr(model, "predict_proba") and np.unique(y).size < 2):
        return None
    return clone(model).fit(x, y)


def _model_predictions(model, context, reward, action, position, train, test, shape, per_action):
    n_actions, len_list = shape
    out = np.empty((test.size, n_actions, len_list))
    overall = float(reward[train].mean()) if train.size else 0.0
    if not per_action:
        fitted = _fit(
            model,
            _features(context[train], action[train], position[train], n_actions, len_list),
            reward[train],
            overall,
        )
        # every (round, action, position) of the test rounds, in C order of the output
        rows = np.repeat(test, n_actions * len_list)
        acts = np.tile(np.repeat(np.arange(n_actions), len_list), test.size)
        poss = np.tile(np.arange(len_list), test.size * n_actions)
        x = _features(context[rows], acts, poss, n_actions, len_list)
        pred = np.full(len(x), overall) if fitted is None else _predict(fitted, x)
        return np.asarray(pred, dtype=np.float64).reshape(out.shape)
    for a in range(n_actions):
        mine = train[action[train] == a]
        fallback = float(reward[mine].mean()) if mine.size else overall
        x_train = np.hstack([context[mine], np.eye(len_list)[position[mine]]])
        fitted = _fit(model, x_train, reward[mine], fallback)
        for k in range(len_list):
            if fitted is None:
                out[:, a, k] = fallback
                continue
            x = np.hstack([context[test], np.tile(np.eye(len_list)[k], (test.size, 1))])
            out[:, a, k] = _predict(fitted, x)
    return out


def fit_reward_model(
    *,
    reward,
    action,
    n_actions,
    position=None,
    len_list=1,
    context=None,
    model=None,
    per_action=False,
    smoothing=1.0,
    n_folds=1,
    seed=0,
):
    """Expected reward of every action at every position for each round, from the logs.

    Returns ``estimated_rewards_by_reg_model`` for :func:`dm`, :func:`dr` and
    the other doubly robust estimators. Two models:

    * ``model=None`` (the default): each (action, position)'s click rate in
      the logs, shrunk towards the overall rate with ``smoothing`` pseudo
      impressions, :math:`\\hat q(a, k) = (c_{ak} + s \\bar r) / (n_{ak} +
      s)`; it ignores the context;
    * a scikit-learn estimator (a classifier with ``predict_proba`` for 0/1
      rewards, else a regressor), fitted on the context with one-hot
      action and position columns (obp's ``RegressionModel`` with
      ``action_context`` the identity), or, with ``per_action=True``, one
      clone per action fitted on that action's rounds (context and one-hot
      position), which lets the effect of the context differ between
      actions; an action whose rounds hold one class only is predicted by
      its mean reward.

    With ``n_folds > 1`` each round's predictions come from a model fitted
    on the other folds (cross-fitting), which the doubly robust estimators
    need to stay unbiased when the model is flexible (Chernozhukov et al.
    2018; obp's ``fit_predict(n_folds=...)``).

    Parameters
    ----------
    reward : array-like of shape (n_rounds,)
        The logged rewards.
    action : array-like of int, shape (n_rounds,)
        The logged actions, ``0 .. n_actions - 1``.
    n_actions : int
        The number of actions.
    position : array-like of int, shape (n_rounds,), optional
        The logged positions, ``0 .. len_list - 1`` (all 0 if not given).
    len_list : int, default 1
        The number of positions.
    context : array-like of shape (n_rounds, n_features), optional
        Features of each round (``model`` only).
    model : scikit-learn estimator, optional
        The model; ``None`` for the smoothed click rates.
    per_action : bool, default False
        One model per action (``model`` only).
    smoothing : float, default 1.0
        Pseudo impressions of the default model (>= 0).
    n_folds : int, default 1
        Cross-fitting folds.
    seed : None, int or numpy.random.Generator, default 0
        Seed of the fold assignment.

    Returns
    -------
    ndarray of shape (n_rounds, n_actions, len_list)

    References
    ----------
    V. Chernozhukov et al. Double/Debiased Machine Learning for Treatment and
    Structural Parameters. The Econometrics Journal 21(1), 2018.

    Examples
    --------
    >>> q = fit_reward_model(reward=[1, 0, 0, 0], action=[0, 0, 1, 1], n_actions=2,
    ...                      smoothing=0.0)
    >>> q[0, :, 0].tolist()
    [0.5, 0.0]
    """
    r = as_numeric_array(reward, "reward", ndim=1, allow_bool=True)
    n_actions = check_count(n_actions, "n_actions")
    len_list = check_count(len_list, "len_list")
    act = _indices(action, "action", n_actions, "n_actions")
    pos = (
        np.zeros(r.size, dtype=np.int64)
        if position is None
        else _indices(position, "position", len_list, "len_list")
    )
    if not (act.size == pos.size == r.size):
        raise ValueError(
            f"reward, action and position must have one entry per round, got {r.size}, "
            f"{act.size} and {pos.size}"
        )
    smoothing = check_positive_number(smoothing, "smoothing", strict=False)
    n_folds = check_count(n_folds, "n_folds", maximum=max(r.size, 1))
    ctx = None
    per_action = check_bool(per_action, "per_action")
    if per_action and model is None:
        raise TypeError("per_action=True needs model= (a scikit-learn estimator)")
    if context is not None and model is None:
        raise TypeError("context is read by a model only: pass model= (a scikit-learn estimator)")
    if context is not None:
        ctx = as_numeric_array(context, "context", ndim=(1, 2))
        ctx = ctx.reshape(r.size, -1) if ctx.ndim == 1 else ctx
        if ctx.shape[0] != r.size:
            raise ValueError(f"context has {ctx.shape[0]} rows for {r.size} rounds")
    elif model is not None:
        ctx = np.zeros((r.size, 0))
    out = np.empty((r.size, n_actions, len_list))
    trains, tests = _folds(r.size, n_folds, seed)
    for train, test in zip(trains, tests, strict=True):
        if model is None:
            out[test] = _smoothed_rates(r[train], act[train], pos[train], n_actions, len_list,
                                        smoothing)  # fmt: skip
        else:
            out[test] = _model_predictions(model, ctx, r, act, pos, train, test,
                                           (n_actions, len_list), per_action)  # fmt: skip
    return out
