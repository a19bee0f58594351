"""Unit, property and cross-library tests of recmetrics.metrics.rating."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics import mean_absolute_error, mean_squared_error

import recmetrics as rm


# ---------------------------------------------------------------- values
def test_hand_computed_values():
    # errors 1, 0, -2: squared 1, 0, 4 -> RMSE sqrt(5/3); absolute 1, 0, 2 -> MAE 1
    assert rm.rmse([4, 3, 1], [3, 3, 3]) == pytest.approx(math.sqrt(5 / 3))
    assert rm.mae([4, 3, 1], [3, 3, 3]) == pytest.approx(1.0)


def test_perfect_prediction_is_zero():
    y = [1, 2.5, 5]
    assert rm.rmse(y, y) == 0.0
    assert rm.mae(y, y) == 0.0


def test_per_user_average_differs_from_global():
    # user a: two exact predictions; user b: one error of 3
    y_true = [4, 4, 5]
    y_pred = [4, 4, 2]
    users = ["a", "a", "b"]
    assert rm.mae(y_true, y_pred) == pytest.approx(1.0)  # 3/3
    assert rm.mae(y_true, y_pred, users=users, average="user") == pytest.approx(1.5)  # (0+3)/2
    assert rm.rmse(y_true, y_pred) == pytest.approx(math.sqrt(3))
    assert rm.rmse(y_true, y_pred, users=users, average="user") == pytest.approx(1.5)


def test_min_ratings_filters_users():
    y_true = [4, 4, 5]
    y_pred = [4, 4, 2]
    users = ["a", "a", "b"]
    assert rm.mae(y_true, y_pred, users=users, average="user", min_ratings=2) == 0.0
    with pytest.raises(ValueError, match="min_ratings"):
        rm.mae(y_true, y_pred, users=users, average="user", min_ratings=3)
    with pytest.raises(ValueError, match="min_ratings"):
        rm.mae(y_true, y_pred, min_ratings=2)


def test_per_user_table():
    table = rm.rating_errors_by_user([4, 4, 5], [4, 3, 2], users=[2, 2, 1])
    assert list(table.index) == [1, 2]
    assert table.loc[2, "n_ratings"] == 2
    assert table.loc[2, "mae"] == pytest.approx(0.5)
    assert table.loc[1, "rmse"] == pytest.approx(3.0)


def test_clip_to_scale_never_hurts_when_truth_in_scale():
    rng = np.random.default_rng(0)
    y = rng.integers(1, 6, 500)
    p = y + rng.normal(0, 1.5, 500)
    assert rm.rmse(y, p, clip=(1, 5)) <= rm.rmse(y, p)
    assert rm.mae(y, p, clip=(1, 5)) <= rm.mae(y, p)


# ---------------------------------------------------------------- properties
finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 60).flatmap(
        lambda n: st.tuples(arrays(float, n, elements=finite), arrays(float, n, elements=finite))
    )
)
def test_mae_le_rmse_le_sqrt_n_mae(pair):
    t, p = pair
    n = len(t)
    m, r = rm.mae(t, p), rm.rmse(t, p)
    assert m <= r * (1 + 1e-12) + 1e-12
    assert r <= math.sqrt(n) * m * (1 + 1e-12) + 1e-12


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 40).flatmap(
        lambda n: st.tuples(arrays(float, n, elements=finite), arrays(float, n, elements=finite))
    ),
    finite,
)
def test_shift_invariance_and_symmetry(pair, c):
    t, p = pair
    assert rm.mae(t, p) == pytest.approx(rm.mae(p, t))
    assert rm.rmse(t + c, p + c) == pytest.approx(rm.rmse(t, p), rel=1e-6, abs=1e-6)


# ---------------------------------------------------------------- scikit-learn
@pytest.mark.parametrize("seed", range(10))
def test_agrees_with_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 2000))
    t = rng.integers(1, 6, n).astype(float)
    p = rng.normal(3, 1.2, n)
    assert rm.rmse(t, p) == pytest.approx(math.sqrt(mean_squared_error(t, p)), rel=1e-12)
    assert rm.mae(t, p) == pytest.approx(mean_absolute_error(t, p), rel=1e-12)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("fn", [rm.rmse, rm.mae])
@pytest.mark.parametrize(
    "y_true, y_pred, exc, pattern",
    [
        ([1, 2, float("nan")], [1, 2, 3], ValueError, "y_true contains NaN"),
        ([1, 2, 3], [1, float("inf"), 3], ValueError, "y_pred contains an infinite"),
        ([1, 2, 3], [1, 2], ValueError, "same shape"),
        ([], [], ValueError, "y_true is empty"),
        (["a", "b"], [1, 2], TypeError, "y_true must contain only numbers"),
        ([1, 2], [None, 2], TypeError, "y_pred must contain only numbers"),
        ([[1, 2]], [[1, 2]], ValueError, "y_true must be 1-D"),
        ("12", [1, 2], TypeError, "y_true must be array-like"),
        ([True, False], [1, 0], TypeError, "booleans"),
    ],
)
def test_bad_input(fn, y_true, y_pred, exc, pattern):
    with pytest.raises(exc, match=pattern):
        fn(y_true, y_pred)


def test_bad_options():
    with pytest.raises(ValueError, match="average must be one of"):
        rm.rmse([1], [1], average="item")
    with pytest.raises(ValueError, match="users is required"):
        rm.mae([1], [1], average="user")
    with pytest.raises(ValueError, match="users must have one entry per rating"):
        rm.mae([1, 2], [1, 2], users=["a"], average="user")
    with pytest.raises(TypeError, match="clip must be a pair"):
        rm.rmse([1], [1], clip=5)
    with pytest.raises(ValueError, match="low <= high"):
        rm.rmse([1], [1], clip=(5, 1))
    with pytest.raises(ValueError, match="min_ratings must be an integer >= 1"):
        rm.rmse([1], [1], users=["a"], average="user", min_ratings=0)


@pytest.mark.parametrize("fn", [rm.rmse, rm.mae])
@pytest.mark.parametrize(
    "users",
    [[None, "a", "a"], [1.0, float("nan"), 1.0], np.array(["a", None, "b"], dtype=object)],
    ids=["None", "nan", "object-None"],
)
def test_missing_user_ids_raise_instead_of_being_dropped(fn, users):
    # pandas' groupby drops missing keys; a per-user average must not silently lose ratings
    with pytest.raises(ValueError, match="users contains a missing id"):
        fn([1, 2, 3], [2, 2, 3], users=users, average="user")
    with pytest.raises(ValueError, match="users contains a missing id"):
        rm.rating_errors_by_user([1, 2, 3], [2, 2, 3], users=users)
