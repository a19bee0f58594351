"""rank_loss's ``no_relevant`` applies to the loss, not to the AUC it comes from.

A user with one class only (every item relevant, or none) has no pair:
``'zero'`` gives 0, ``'one'`` 1, ``'skip'`` leaves it out, in every
average; scikit-learn's ``label_ranking_loss`` is
``rank_loss(ties='pessimistic', no_relevant='zero')``.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as sk

import recmetrics as rm

# users: mixed, all relevant, none relevant, mixed
Y = np.array([[1, 0, 1, 0], [1, 1, 1, 1], [0, 0, 0, 0], [0, 1, 0, 0]])
S = np.array([[0.9, 0.8, 0.3, 0.1]] + [[0.4, 0.3, 0.2, 0.1]] * 3)
MIXED = [0.25, 1 / 3]


@pytest.mark.parametrize(("policy", "fill"), [("zero", 0.0), ("one", 1.0)])
def test_one_class_users_get_the_policy_value(policy, fill):
    per = rm.rank_loss(Y, S, no_relevant=policy, per_user=True)
    np.testing.assert_allclose(per, [MIXED[0], fill, fill, MIXED[1]], atol=1e-15)
    assert rm.rank_loss(Y, S, no_relevant=policy) == pytest.approx(
        (sum(MIXED) + 2 * fill) / 4, abs=1e-15
    )
    assert rm.rank_loss(Y[1], S[1], no_relevant=policy) == fill  # one user


def test_skip_leaves_them_out():
    per = rm.rank_loss(Y, S, no_relevant="skip", per_user=True)
    assert np.isnan(per[1]) and np.isnan(per[2])
    assert rm.rank_loss(Y, S) == pytest.approx(np.mean(MIXED), abs=1e-15)


def test_weighted_averages_count_them_as_zero():
    # weights: 4 ranked items each ('weighted'), the relevant items ('relevant')
    got = rm.rank_loss(Y, S, average="weighted", no_relevant="zero")
    assert got == pytest.approx(sum(MIXED) / 4, abs=1e-15)
    got = rm.rank_loss(Y, S, average="relevant", no_relevant="zero")
    assert got == pytest.approx((2 * MIXED[0] + MIXED[1]) / 7, abs=1e-15)
    got = rm.rank_loss(Y, S, average="relevant", no_relevant="skip")
    assert got == pytest.approx((2 * MIXED[0] + MIXED[1]) / 3, abs=1e-15)


def test_global_average_of_one_class():
    ones = np.ones((2, 3))
    assert rm.rank_loss(ones, S[:2, :3], average="global", no_relevant="zero") == 0.0
    assert rm.rank_loss(ones, S[:2, :3], average="global", no_relevant="one") == 1.0


def test_still_one_minus_auc_where_defined():
    for policy in ("zero", "one", "skip"):
        loss = rm.rank_loss(Y, S, no_relevant=policy, per_user=True)
        auc = rm.auc(Y, S, no_relevant=policy, per_user=True)
        np.testing.assert_allclose(loss[[0, 3]], 1 - auc[[0, 3]], atol=1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_sklearn_label_ranking_loss(seed):
    rng = np.random.default_rng(seed)
    y = (rng.random((30, 8)) < 0.3).astype(int)
    y[0], y[1] = 1, 0  # one class only
    s = rng.integers(0, 4, size=(30, 8)).astype(float)  # many ties
    got = rm.rank_loss(y, s, ties="pessimistic", no_relevant="zero")
    assert got == pytest.approx(sk.label_ranking_loss(y, s), abs=1e-12)
