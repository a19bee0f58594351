"""Rank metrics on test sets that are missing not at random: propensity weighting.

A held-out test set holds the relevant items a user *happened to reveal*.
When the chance that a relevant item is observed depends on the item, most
often on its popularity, the plain metrics reward recommending what is
likely to be observed rather than what is relevant (Marlin & Zemel 2009;
Steck 2011). If item :math:`i`, when relevant, is observed with probability
:math:`p_i > 0` (the *propensity*), weighting each observed relevant item
by :math:`1/p_i` makes a sum over the observed relevant items an unbiased
estimate of the same sum over all relevant items: the inverse propensity idea of
:mod:`recmetrics.offpolicy` applied to the test set (Schnabel et al. 2016;
Yang et al. 2018). The assumption is that observation depends on the item
alone (not on the user, nor on whether it was recommended), and that the
propensities are right; :func:`popularity_propensity` is the usual
estimate, :math:`p_i \\propto n_i^{\\beta}` from the items' interaction
counts, with :math:`\\beta` to be chosen (Yang et al. fit it per data set).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._validation import as_numeric_array, check_choice, check_k

__all__ = ["popularity_propensity", "weighted_recall", "weighted_dcg"]

AVERAGES = ("user", "pooled")


def popularity_propensity(interactions, *, exponent=0.5, item="item"):
    """Propensities from popularity: :math:`p_i = (n_i / \\max_j n_j)^{\\beta}`.

    :math:`n_i` is the number of rows of item ``i`` in ``interactions``
    (all observed interactions, as Yang et al. count them). The scale does
    not matter to the self-normalised metrics below; the largest
    propensity is 1. ``exponent=0`` gives 1 for every item: no weighting.
    Steck's popularity-stratified recall (2011) weights each relevant
    item by :math:`n_i^{-\\beta}` with :math:`n_i` its number of observed
    *relevant* ratings: pass the relevant interactions to get his weights.
    Yang et al. (2018) also model the propensity as a power of the item's
    popularity; the exponent has to be chosen or fitted, and the estimate
    depends on it.

    Parameters
    ----------
    interactions : pandas.DataFrame
        Observed interactions, one row each, with an ``item`` column.
    exponent : float, default 0.5
        :math:`\\beta \\ge 0`.
    item : str, default 'item'
        The item column.

    Returns
    -------
    pandas.Series
        Indexed by item id, named ``'propensity'``, values in (0, 1].

    References
    ----------
    H. Steck. Item Popularity and Recommendation Accuracy. RecSys 2011.

    L. Yang, Y. Cui, Y. Xuan, C. Wang, S. Belongie and D. Estrin. Unbiased
    Offline Recommender Evaluation for Missing-Not-at-Random Implicit
    Feedback. RecSys 2018.

    Examples
    --------
    >>> import pandas as pd
    >>> popularity_propensity(pd.DataFrame({"item": [1, 1, 1, 1, 2]})).to_dict()
    {1: 1.0, 2: 0.5}
    """
    if not isinstance(interactions, pd.DataFrame):
        raise TypeError(
            f"interactions must be a pandas DataFrame, got {type(interactions).__name__}"
        )
    if item not in interactions.columns:
        raise ValueError(f"interactions has no column {item!r} (pass item=)")
    if isinstance(exponent, (bool, np.bool_)) or not isinstance(exponent, numbers.Real):
        raise TypeError(f"exponent must be a number >= 0, got {exponent!r}")
    if not exponent >= 0:
        raise ValueError(f"exponent must be a number >= 0, got {exponent!r}")
    if len(interactions) == 0:
        raise ValueError("interactions has no rows")
    counts = interactions[item].value_counts(sort=False)
    return ((counts / counts.max()) ** float(exponent)).rename("propensity")


def _weights(truth, propensity, user, item):
    if not isinstance(truth, pd.DataFrame):
        raise TypeError(f"truth must be a pandas DataFrame, got {type(truth).__name__}")
    for col in (user, item):
        if col not in truth.columns:
            raise ValueError(f"truth has no column {col!r}")
    if not isinstance(propensity, pd.Series):
        raise TypeError(
            "propensity must be a pandas Series indexed by item id (e.g. "
            f"popularity_propensity(...)), got {type(propensity).__name__}"
        )
    values = as_numeric_array(propensity.to_numpy(), "propensity", ndim=1)
    bad = (values <= 0) | (values > 1)
    if np.any(bad):
        raise ValueError(
            f"propensity must be in (0, 1], found {values[bad][0]!r} for item "
            f"{propensity.index[np.argmax(bad)]!r}"
        )
    p = pd.Series(values, index=propensity.index).reindex(truth[item].to_numpy())
    missing = p.isna().to_numpy()
    if missing.any():
        examples = list(pd.unique(truth[item].to_numpy()[missing])[:5])
        raise ValueError(
            f"propensity has no value for {int(missing.sum())} relevant row(s) of truth, "
            f"items {examples}: every relevant item needs a propensity"
        )
    return 1.0 / p.to_numpy()


def _weighted(truth, predictions, propensity, k, discount, average, user, item, score, ties):
    from .. import cg, dcg, from_frames

    check_choice(average, "average", AVERAGES)
    k = check_k(k, allow_none=True)
    w = _weights(truth, propensity, user, item)
    column = "_weight"
    while column in truth.columns:
        column += "_"
    judged = truth[[user, item]].assign(**{column: w})
    ranking = from_frames(judged, predictions, user=user, item=item, score=score,
                          relevance=column, ties=ties)  # fmt: skip
    metric = dcg if discount else cg
    hits = metric(ranking, k=k, gain="linear", per_user=True)
    total = judged.groupby(user, sort=False)[column].sum().reindex(hits.index)
    if average == "pooled":
        return float(hits.sum() / total.sum())
    return float((hits / total).mean())


def weighted_recall(
    truth,
    predictions,
    *,
    k,
    propensity,
    average="pooled",
    user="user",
    item="item",
    score="score",
    ties="expected",
):
    """Recall@k with each relevant item weighted by its inverse propensity.

    With ``average='pooled'`` (the default), the sums run over every
    observed relevant (user, item) pair, with :math:`w_i = 1/p_i`:

    .. math::
        \\mathrm{R}_w@k = \\frac{\\sum_u \\sum_{i \\in R_u} w_i\\,
        \\mathbb{1}[\\mathrm{rank}_u(i) \\le k]}{\\sum_u \\sum_{i \\in R_u} w_i}

    Steck's popularity-stratified recall (2011). Numerator and denominator
    are unbiased, up to one common factor, for the hits and the count of
    *all* relevant pairs, observed or not, so the ratio is a consistent
    estimate (as the number of users grows) of the recall pooled over all
    relevant pairs. With ``average='user'`` the ratio is taken per user and
    then averaged (the usual mean over users); each user's ratio is then
    consistent only as that user's observed items grow, and with a few
    observed items per user it stays close to the unweighted recall. With
    every :math:`p_i` equal, ``'user'`` is :func:`recmetrics.recall`. Under
    ``ties='expected'`` each relevant item counts with its probability of
    being in the top ``k``.

    Parameters
    ----------
    truth : pandas.DataFrame
        The observed relevant (user, item) pairs.
    predictions : pandas.DataFrame
        Scored (user, item) pairs.
    k : int
        The cutoff.
    propensity : pandas.Series
        The propensity of each item, indexed by item id, in (0, 1] (e.g.
        :func:`popularity_propensity`); every item of ``truth`` needs one.
    average : {'pooled', 'user'}, default 'pooled'
        The ratio of the sums over all users, or the mean of the users'
        ratios.
    user, item, score : str
        Column names.
    ties : {'expected', 'optimistic', 'pessimistic', 'trec_eval'}
        The tie policy.

    Returns
    -------
    float

    See Also
    --------
    popularity_propensity, weighted_dcg

    References
    ----------
    H. Steck. Item Popularity and Recommendation Accuracy. RecSys 2011.

    L. Yang et al. Unbiased Offline Recommender Evaluation for
    Missing-Not-at-Random Implicit Feedback. RecSys 2018.

    Examples
    --------
    >>> import pandas as pd
    >>> truth = pd.DataFrame({"user": [1, 1], "item": ["a", "b"]})
    >>> preds = pd.DataFrame({"user": [1, 1], "item": ["b", "c"], "score": [2.0, 1.0]})
    >>> p = pd.Series({"a": 1.0, "b": 0.25})
    >>> weighted_recall(truth, preds, k=1, propensity=p)  # (1 / 0.25) / (1 + 4)
    0.8
    """
    return _weighted(truth, predictions, propensity, k, False, average, user, item, score, ties)


def weighted_dcg(
    truth,
    predictions,
    *,
    k=None,
    propensity,
    average="pooled",
    user="user",
    item="item",
    score="score",
    ties="expected",
):
    """DCG@k over the inverse-propensity-weighted relevant items, per unit of weight.

    .. math::
        \\mathrm{DCG}_w@k(u) = \\frac{\\sum_{i \\in R_u} \\mathbb{1}[\\mathrm{rank}_u(i)
        \\le k]\\, / \\bigl(p_i \\log_2(1 + \\mathrm{rank}_u(i))\\bigr)}
        {\\sum_{i \\in R_u} 1 / p_i}

    (shown for ``average='user'``; ``'pooled'``, the default, sums over
    all users before dividing, as in :func:`weighted_recall`): the
    self-normalised inverse-propensity estimate of the mean discount
    :math:`1/\\log_2(1 + \\mathrm{rank})` of the relevant items, the
    "DCG" that Yang et al. (2018) weight by popularity propensities; not
    normalised by an ideal ranking (``k=None``: no cutoff).

    Parameters
    ----------
    truth, predictions : pandas.DataFrame
        As in :func:`weighted_recall`.
    k : int, optional
        The cutoff.
    propensity : pandas.Series
        As in :func:`weighted_recall`.
    average : {'pooled', 'user'}, default 'pooled'
        As in :func:`weighted_recall`.
    user, item, score : str
        Column names.
    ties : {'expected', 'optimistic', 'pessimistic', 'trec_eval'}
        The tie policy.

    Returns
    -------
    float

    See Also
    --------
    weighted_recall

    References
    ----------
    L. Yang et al. Unbiased Offline Recommender Evaluation for
    Missing-Not-at-Random Implicit Feedback. RecSys 2018.

    Examples
    --------
    >>> import pandas as pd
    >>> truth = pd.DataFrame({"user": [1], "item": ["b"]})
    >>> preds = pd.DataFrame({"user": [1, 1], "item": ["c", "b"], "score": [2.0, 1.0]})
    >>> round(weighted_dcg(truth, preds, propensity=pd.Series({"b": 0.5})), 4)
    0.6309
    """
    return _weighted(truth, predictions, propensity, k, True, average, user, item, score, ties)
