"""Tuning a baseline without touching the test set: validation carved out of training.

References
----------
.. [1] M. Ferrari Dacrema, P. Cremonesi and D. Jannach. Are We Really Making
   Much Progress? A Worrying Analysis of Recent Neural Recommendation
   Approaches. RecSys 2019.
.. [2] J. Bergstra and Y. Bengio. Random Search for Hyper-Parameter
   Optimization. JMLR 13, 281-305, 2012.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validation import check_bool, check_seed
from ..evaluation import evaluate
from ..inputs.ids import _frame
from ..metrics._registry import parse
from ._common import _interactions, _positive_int

__all__ = ["tune", "TuneResult"]

_FIT_INPUTS = ("matrix", "frame")


@dataclass(frozen=True)
class TuneResult:
    """What :func:`tune` found: the chosen configuration, its refit scores, every trial.

    Attributes
    ----------
    best : dict
        The chosen configuration (parameter name -> value).
    scores : ndarray of shape (len(users), len(items))
        ``fit``'s scores for ``best``, refit on the whole of ``train``.
    results : pandas.DataFrame
        One row per configuration tried, in the order of the space: one
        column per parameter and one, named ``metric``, with its validation
        value (no fit times: they differ from run to run).
    metric : str
        The metric maximised, as given.
    search : {'grid', 'random'}
        Every configuration of the space, or a seeded random sample of it.
    n_configurations : int
        The size of the space (the product of the numbers of values).
    users, items : pandas.Index
        The rows and columns of ``scores``.
    """

    best: dict
    scores: np.ndarray = field(repr=False)
    results: pd.DataFrame = field(repr=False)
    metric: str
    search: str
    n_configurations: int
    users: pd.Index = field(repr=False)
    items: pd.Index = field(repr=False)


def tune(
    train,
    *,
    fit,
    space,
    split,
    metric="ndcg@10",
    budget=20,
    seed=0,
    relevant=None,
    exclude_train=True,
    users=None,
    items=None,
    fit_input="matrix",
    user="user",
    item="item",
):
    """Choose a model's configuration on a validation split carved out of ``train``.

    1. ``split(train)`` gives ``(fit_part, validation)``: the same protocol
       as the test split, applied to the training data only (the test data
       are no argument, so they cannot leak).
    2. Every configuration of ``space`` (a grid) if there are at most
       ``budget`` of them, otherwise ``budget`` distinct ones drawn with
       ``seed`` (random search, Bergstra and Bengio 2012), is fitted on
       ``fit_part`` and scored on the validation users (those with at least
       one relevant validation item):

       .. math:: c^* = \\operatorname{arg\\,max}_{c} \\;
                 \\frac{1}{|U_v|} \\sum_{u \\in U_v} m(\\mathrm{fit}_c(\\text{fit part}), u)

       ties going to the configuration that comes first in the space.
    3. ``c*`` is refitted on the whole of ``train`` (fit part + validation).

    Parameters
    ----------
    train : pandas.DataFrame
        The training interactions of the outer split, long format, with the
        columns ``user``, ``item`` and whatever ``split`` and ``fit`` read
        (e.g. a time column for ``leave_last_out``).
    fit : callable
        The model: ``fit(X, **params)`` with ``X`` the user x item
        :func:`recmetrics.split.interaction_matrix` of the fitting data
        (``fit_input='matrix'``), or ``fit(frame, users, items, **params)``
        with the fitting rows of ``train`` (``fit_input='frame'``, e.g.
        :func:`last_item`). It returns a ``(len(users), len(items))`` score
        matrix. Fix the parameters you do not tune with
        ``functools.partial``.
    space : dict
        Parameter name -> list (or tuple, range, 1-D array) of values, each
        name one that ``fit`` takes. The grid is the product of the lists in
        the dict's order, the last parameter varying fastest.
    split : callable
        ``split(frame) -> (train, test)``, e.g.
        ``functools.partial(rm.split.leave_last_out, n=1)`` or
        ``functools.partial(rm.split.random_holdout, test_size=0.2, seed=1)``:
        the test protocol with its keywords.
    metric : str, default 'ndcg@10'
        A ranking metric of :func:`recmetrics.evaluate` (larger is better).
    budget : int, default 20
        Most configurations fitted on the validation split.
    seed : None, int or numpy.random.Generator, default 0
        Seed of the random search (unused by a grid). The split's and the
        model's seeds are their own keywords.
    relevant : callable, optional
        Which validation rows count as relevant:
        ``relevant(validation) -> rows``, e.g.
        ``functools.partial(rm.split.relevant_from_ratings, threshold=4.0)``.
        Default: every held-out row, with relevance 1.
    exclude_train : bool, default True
        Mask each validation user's fitting items, as ``mask=X`` does at
        test time.
    users, items : sequence, optional
        The rows and columns of every score matrix (every id of ``train``
        among them); default: the ids of ``train`` in order of appearance.
        Give the ones of the test matrices to line ``scores`` up with them.
    fit_input : {'matrix', 'frame'}, default 'matrix'
        What ``fit`` takes (see ``fit``).
    user, item : str
        Column names.

    Returns
    -------
    TuneResult
        ``.best``, ``.scores`` (the refit model's), ``.results`` (one row
        per configuration), and the search's description.

    Raises
    ------
    TypeError
        For a ``train`` that is not a DataFrame, a ``fit`` or ``split`` that
        is not callable, a ``space`` that is not a dict of lists, or a
        ``split`` that returns something other than two DataFrames.
    ValueError
        For an empty space or an empty list of values, a parameter ``fit``
        does not take, ``budget < 1``, an unknown or non-ranking
        ``metric``, a validation split without relevant rows, and scores of
        the wrong shape.

    Notes
    -----
    Untuned baselines make new models look better than they are (Ferrari
    Dacrema et al. 2019); the same budget for every model, the validation
    protocol equal to the test protocol, and the refit on all training data
    make the comparison fairer. The budget caps the number of
    configurations; it does not equalise it: a space smaller than the budget
    is searched whole, so models with smaller spaces get fewer
    configurations. The results are deterministic when ``fit`` and
    ``split`` are (seeded): ``results`` holds no fit times for that reason.

    References
    ----------
    .. [1] M. Ferrari Dacrema, P. Cremonesi and D. Jannach. Are We Really
       Making Much Progress? A Worrying Analysis of Recent Neural
       Recommendation Approaches. RecSys 2019.
    .. [2] J. Bergstra and Y. Bengio. Random Search for Hyper-Parameter
       Optimization. JMLR 13, 281-305, 2012.

    Examples
    --------
    >>> import functools, recmetrics as rm
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame({"user": np.repeat(np.arange(30), 6),
    ...                      "item": np.concatenate([rng.choice(12, 6, replace=False)
    ...                                              for _ in range(30)]),
    ...                      "timestamp": np.tile(np.arange(6), 30)})
    >>> result = tune(data, fit=rm.models.ease, space={"l2": [1.0, 10.0, 100.0]},
    ...               split=functools.partial(rm.split.leave_last_out, n=1), metric="hr@5")
    >>> result.results.columns.tolist(), len(result.results), result.search
    (['l2', 'hr@5'], 3, 'grid')
    >>> result.best == result.results.loc[result.results["hr@5"].idxmax(), ["l2"]].to_dict()
    True
    >>> result.scores.shape
    (30, 12)
    """
    _frame(train, "train", [user, item])
    if not callable(fit):
        raise TypeError(f"fit must be a callable model, got {type(fit).__name__}")
    if not callable(split):
        raise TypeError(
            "split must be a callable frame -> (train, test), e.g. "
            f"functools.partial(rm.split.leave_last_out, n=1), got {split!r}"
        )
    if not isinstance(fit_input, str) or fit_input not in _FIT_INPUTS:
        raise ValueError(f"fit_input must be 'matrix' or 'frame', got {fit_input!r}")
    space = _check_space(space, fit, fit_input)
    budget = _positive_int(budget, "budget")
    _check_metric(metric)
    rng = check_seed(seed)
    exclude_train = check_bool(exclude_train, "exclude_train")
    users = pd.Index(train[user].unique()) if users is None else users
    items = pd.Index(train[item].unique()) if items is None else items

    def matrix(frame, what):
        return _interactions(frame, what, users, items, user=user, item=item)

    def run(frame, x, params):
        data = (x,) if fit_input == "matrix" else (frame, users, items)
        scores = np.asarray(fit(*data, **params), dtype=np.float64)
        if scores.shape != (len(users), len(items)):
            raise ValueError(
                f"fit returned scores of shape {scores.shape}, expected (len(users), "
                f"len(items)) = {(len(users), len(items))}"
            )
        return scores

    full = matrix(train, "train")  # every id of train is in users and items
    fit_part, truth, rows = _validation(train, split, relevant, matrix)
    x_fit = matrix(fit_part, "the training rows of split(train)")
    mask = x_fit[rows] if exclude_train else None
    configs, search, total = _configurations(space, budget, rng)
    values = []
    for params in configs:
        scores = run(fit_part, x_fit, params)
        result = evaluate(truth[rows], scores[rows], [metric], mask=mask)
        values.append(float(result.iloc[0]))
    results = pd.DataFrame({name: [c[name] for c in configs] for name in space})
    results[metric] = values
    finite = np.where(np.isnan(values), -np.inf, values)
    best = dict(configs[int(np.argmax(finite))])  # the first of the largest
    return TuneResult(
        best=best,
        scores=run(train, full, best),
        results=results,
        metric=metric,
        search=search,
        n_configurations=total,
        users=pd.Index(users),
        items=pd.Index(items),
    )


def _check_space(space, fit, fit_input):
    """``space`` as a dict of non-empty lists, every name a keyword ``fit`` takes."""
    if not isinstance(space, Mapping):
        raise TypeError(
            f"space must be a dict of parameter name -> list of values, got {type(space).__name__}"
        )
    if not space:
        raise ValueError("space is empty: give at least one parameter and its values")
    out = {}
    for name, values in space.items():
        if not isinstance(name, str):
            raise TypeError(f"space's keys must be parameter names (str), got {name!r}")
        if isinstance(values, np.ndarray) and values.ndim == 1:
            values = values.tolist()
        if not isinstance(values, (list, tuple, range)):
            raise TypeError(
                f"space[{name!r}] must be a list of values, got {type(values).__name__}"
            )
        if len(values) == 0:
            raise ValueError(f"space[{name!r}] has no value")
        out[name] = list(values)
    try:
        params = list(inspect.signature(fit).parameters.values())
    except (TypeError, ValueError):  # no signature to read (a builtin): fit will tell
        return out
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return out
    data_args = 1 if fit_input == "matrix" else 3
    keywords = [
        p.name
        for i, p in enumerate(params)
        if p.kind is inspect.Parameter.KEYWORD_ONLY
        or (p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and i >= data_args)
    ]
    for name in out:
        if name not in keywords:
            raise ValueError(
                f"space has the parameter {name!r}, which fit does not take "
                f"(fit takes {', '.join(map(repr, keywords)) or 'no parameter'})"
            )
    return out


def _check_metric(metric):
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a metric name like 'ndcg@10', got {metric!r}")
    try:
        spec, _ = parse(metric)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"metric {metric!r} is not a metric of evaluate: {exc}") from None
    if spec.kind != "ranking":
        raise ValueError(
            f"metric must be a ranking metric (one value per user), got {metric!r}, a "
            f"{spec.kind} metric"
        )


def _validation(train, split, relevant, matrix):
    """``(fit_part, y_true, rows)``: the split of ``train`` and the validation users' rows."""
    parts = split(train)
    if not (
        isinstance(parts, tuple)
        and len(parts) == 2
        and all(isinstance(p, pd.DataFrame) for p in parts)
    ):
        raise TypeError(
            "split must return (train, test) DataFrames, as rm.split's functions do, got "
            f"{type(parts).__name__}"
        )
    fit_part, held_out = parts
    if relevant is not None:
        if not callable(relevant):
            raise TypeError(f"relevant must be callable or None, got {type(relevant).__name__}")
        held_out = relevant(held_out)
        if not isinstance(held_out, pd.DataFrame):
            raise TypeError(f"relevant must return a DataFrame, got {type(held_out).__name__}")
    if held_out.empty:
        raise ValueError(
            "split(train) leaves no relevant validation row: no validation user to score"
        )
    truth = matrix(held_out, "the validation rows of split(train)")
    rows = np.diff(truth.indptr) > 0  # csr: stored entries per row, all > 0
    if not rows.any():
        raise ValueError(
            "split(train) leaves no relevant validation row: no validation user to score"
        )
    return fit_part, truth, rows


def _configurations(space, budget, rng):
    """The configurations tried, in the space's order: the grid, or a random sample."""
    names = list(space)
    sizes = [len(space[n]) for n in names]
    total = math.prod(sizes)
    if total <= budget:
        picked, search = range(total), "grid"
    else:
        if total > np.iinfo(np.int64).max:
            raise ValueError(f"space has {total} configurations, too many to sample from")
        picked = np.sort(rng.choice(total, size=budget, replace=False)).tolist()
        search = "random"
    configs = []
    for index in picked:
        config = {}
        for name, size in zip(reversed(names), reversed(sizes), strict=True):
            index, position = divmod(index, size)
            config[name] = space[name][position]
        configs.append({n: config[n] for n in names})
    return configs, search, total
