"""Who is served worse? A per-user metric by group of users, with intervals and corrected tests."""

from __future__ import annotations

import itertools
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._validation import as_numeric_array, check_choice, check_probability, check_seed
from .bootstrap import bootstrap_ci
from .corrections import adjust_pvalues

__all__ = ["GroupDisparityResult", "group_disparity", "GROUP_TESTS"]

#: The tests of a difference between two groups of users (independent samples).
GROUP_TESTS = ("welch", "mannwhitney", "permutation")


@dataclass(frozen=True)
class GroupDisparityResult:
    """The output of :func:`group_disparity`.

    Attributes
    ----------
    groups : pandas.DataFrame
        One row per (metric, group): ``n_users``, ``mean``, ``low``, ``high``
        (the bootstrap interval of the group's mean).
    differences : pandas.DataFrame
        One row per (metric, group_a, group_b), ``group_a`` before
        ``group_b`` in sorted order: ``difference`` (mean of ``group_a``
        minus mean of ``group_b``), ``pvalue``, ``pvalue_adjusted`` and
        ``reject`` (adjusted p-value below ``alpha``).
    """

    groups: pd.DataFrame
    differences: pd.DataFrame


def _read(per_user, user_groups):
    """``(table, labels)``: a DataFrame of metrics by user and the group of each row."""
    if isinstance(per_user, pd.Series):
        per_user = per_user.to_frame(per_user.name if per_user.name is not None else "value")
    if isinstance(per_user, pd.DataFrame):
        if not isinstance(user_groups, pd.Series):
            raise TypeError(
                "with per-user values indexed by user, user_groups must be a pandas Series "
                f"user -> group, got {type(user_groups).__name__}"
            )
        if not per_user.index.is_unique:
            raise ValueError("per_user repeats a user in its index")
        if not user_groups.index.is_unique:
            raise ValueError("user_groups gives a user two groups")
        labels = user_groups.reindex(per_user.index)
        if labels.isna().any():
            bad = per_user.index[labels.isna().to_numpy()][0]
            raise ValueError(f"user_groups has no group for the user {bad!r} of per_user")
        table = per_user
        if table.shape[0] == 0 or table.shape[1] == 0:
            raise ValueError("per_user is empty")
    else:
        values = as_numeric_array(per_user, "per_user", ndim=1, allow_nan=True)
        if isinstance(user_groups, (pd.DataFrame, dict, set, str)) or not hasattr(
            user_groups, "__len__"
        ):
            raise TypeError("user_groups must be one group label per user (array-like)")
        labels = pd.Series(list(user_groups))
        if len(labels) != values.shape[0]:
            raise ValueError(f"user_groups has {len(labels)} labels for {values.shape[0]} users")
        if labels.isna().any():
            raise ValueError("user_groups has a missing group label")
        table = pd.DataFrame({"value": values})
        labels.index = table.index
    for col in table.columns:
        as_numeric_array(table[col].to_numpy(), f"per_user[{col!r}]", allow_nan=True)
    for g in labels.unique():
        if not isinstance(g, Hashable):
            raise TypeError(f"user_groups must hold hashable group labels, found {g!r}")
    return table, labels


def _test(a, b, test, n_resamples, rng):
    if test == "welch":
        return float(stats.ttest_ind(a, b, equal_var=False).pvalue)
    if test == "mannwhitney":
        return float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)
    res = stats.permutation_test(
        (a, b),
        lambda x, y: np.mean(x) - np.mean(y),
        permutation_type="independent",
        n_resamples=n_resamples,
        rng=rng,
    )
    return float(res.pvalue)


def group_disparity(
    per_user, user_groups, *, level=0.95, method="bca", n_resamples=10_000, seed=0,
    test="welch", correction="holm", alpha=0.05,
):  # fmt: skip
    """Mean of a per-user metric in each group of users, and the differences between groups.

    Ekstrand et al. (2018) ask whether a recommender serves some groups of
    users (by age, gender, activity level) worse than others: the mean
    utility of each group, with an interval, and tests of the differences.

    .. math:: \\bar m_g = \\frac{1}{|U_g|}\\sum_{u \\in U_g} m_u, \\qquad
              \\Delta_{gh} = \\bar m_g - \\bar m_h

    The interval of ``bar m_g`` is :func:`bootstrap_ci` of the group's
    values (users resampled within the group); each pair of groups is
    tested with an unpaired test (the groups hold different users), and
    the p-values of the whole table, every metric and pair together, are
    adjusted by :func:`adjust_pvalues`. NaN values (users without a value
    for a metric) are dropped for that metric.

    Parameters
    ----------
    per_user : pandas.Series, pandas.DataFrame or array-like
        Per-user values of one metric (a Series or 1-D array) or several (a
        DataFrame, one column per metric), e.g. ``evaluate(...,
        per_user=True)``.
    user_groups : pandas.Series or array-like
        The group of each user: a Series user -> group (matched on the
        index of ``per_user``; every user needs a group, users of other
        tables are ignored), or, for an array ``per_user``, one label per
        value. ``evaluate(..., per_user=True)`` of score matrices indexes
        the users by row (0, 1, ...), of data frames by user id: index
        ``user_groups`` the same way.
    level : float, default 0.95
        Confidence level of the intervals.
    method : {'bca', 'percentile'}, default 'bca'
        Bootstrap interval (:func:`bootstrap_ci`).
    n_resamples : int, default 10000
        Resamples of the bootstrap (and of the permutation test).
    seed : None, int or numpy.random.Generator, default 0
        Seed of the resampling.
    test : {'welch', 'mannwhitney', 'permutation'}, default 'welch'
        Welch's unequal-variance t-test (``scipy.stats.ttest_ind``), the
        Mann-Whitney U test (``scipy.stats.mannwhitneyu``), or a
        permutation test of the difference of means
        (``scipy.stats.permutation_test``); all two-sided.
    correction : {'holm', 'bonferroni', 'bh', 'by', 'none'}, default 'holm'
        Multiple-comparison adjustment (:func:`adjust_pvalues`).
    alpha : float, default 0.05
        Level of the ``reject`` column.

    Returns
    -------
    GroupDisparityResult
        ``groups`` (indexed by metric and group) and ``differences``
        (indexed by metric, group_a and group_b).

    References
    ----------
    .. [1] M. D. Ekstrand, M. Tian, I. M. Azpiazu, J. D. Ekstrand, O.
       Anuyah, D. McNeill and M. S. Pera. All The Cool Kids, How Do They Fit
       In?: Popularity and Demographic Biases in Recommender Evaluation and
       Effectiveness. FAT* 2018 (PMLR 81).

    Examples
    --------
    >>> values = pd.Series([0.9, 0.8, 0.7, 0.9, 0.2, 0.1, 0.3, 0.2], name="ndcg")
    >>> groups = pd.Series(["light"] * 4 + ["heavy"] * 4)
    >>> r = group_disparity(values, groups, n_resamples=2000)
    >>> r.groups["mean"].round(3).tolist()
    [0.2, 0.825]
    >>> r.differences[["difference", "reject"]].round(3)
                             difference  reject
    metric group_a group_b
    ndcg   heavy   light         -0.625    True
    """
    check_probability(level, "level")
    check_probability(alpha, "alpha")
    check_choice(test, "test", GROUP_TESTS)
    check_choice(method, "method", ("bca", "percentile"))
    check_choice(correction, "correction", ("holm", "bonferroni", "bh", "by", "none"))
    rng = check_seed(seed)
    table, labels = _read(per_user, user_groups)
    try:
        names = sorted(labels.unique())
    except TypeError:
        raise TypeError("user_groups mixes labels that cannot be sorted; use one type") from None
    if len(names) < 2:
        raise ValueError(f"user_groups holds {len(names)} group; at least 2 are compared")
    rows, diffs = [], []
    for metric in table.columns:
        col = table[metric]
        by_group = {}
        for g in names:
            v = col[(labels == g).to_numpy()].dropna()
            try:
                ci = bootstrap_ci(
                    v.to_numpy(), level=level, method=method, n_resamples=n_resamples, seed=rng
                )
            except ValueError as err:
                raise ValueError(f"per_user: the group {g!r} of {metric!r}: {err}") from None
            by_group[g] = v.to_numpy()
            rows.append((metric, g, v.shape[0], ci.estimate, ci.low, ci.high))
        for a, b in itertools.combinations(names, 2):
            x, y = by_group[a], by_group[b]
            p = _test(x, y, test, n_resamples, rng)
            diffs.append((metric, a, b, float(np.mean(x) - np.mean(y)), p))
    groups = pd.DataFrame(rows, columns=["metric", "group", "n_users", "mean", "low", "high"])
    d = pd.DataFrame(diffs, columns=["metric", "group_a", "group_b", "difference", "pvalue"])
    d["pvalue_adjusted"] = adjust_pvalues(d["pvalue"].to_numpy(), method=correction)
    d["reject"] = d["pvalue_adjusted"] < alpha
    return GroupDisparityResult(
        groups=groups.set_index(["metric", "group"]),
        differences=d.set_index(["metric", "group_a", "group_b"]),
    )
