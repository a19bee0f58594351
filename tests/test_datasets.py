"""Tests of recmetrics.datasets: determinism, ranges, shapes, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics.datasets import synthetic_ratings

COLUMNS = ["user", "item", "rating", "split", "pred_global", "pred_user", "pred_noisy"]


def test_exported_at_top_level():
    assert rm.synthetic_ratings is synthetic_ratings
    assert "synthetic_ratings" in rm.__all__


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_same_seed_same_frame(seed):
    a = synthetic_ratings(n_users=50, n_items=30, seed=seed)
    b = synthetic_ratings(n_users=50, n_items=30, seed=seed)
    pd.testing.assert_frame_equal(a, b)


def test_generator_seed_is_used():
    a = synthetic_ratings(n_users=20, n_items=10, seed=np.random.default_rng(7))
    b = synthetic_ratings(n_users=20, n_items=10, seed=np.random.default_rng(7))
    pd.testing.assert_frame_equal(a, b)


def test_different_seeds_differ():
    a = synthetic_ratings(n_users=50, n_items=30, seed=0)
    b = synthetic_ratings(n_users=50, n_items=30, seed=1)
    assert not a.equals(b)


def test_columns_dtypes_and_ranges():
    df = synthetic_ratings(n_users=80, n_items=40, seed=3)
    assert list(df.columns) == COLUMNS
    for col in ("user", "item", "rating"):
        assert df[col].dtype == np.int64
    for col in ("pred_global", "pred_user", "pred_noisy"):
        assert df[col].dtype == np.float64
    assert df["rating"].between(1, 5).all()
    assert set(df["user"]) == set(range(80))
    assert df["item"].between(0, 39).all()
    assert set(df["split"]) == {"train", "test"}
    # sorted by user then item, and no (user, item) pair twice
    assert df.equals(df.sort_values(["user", "item"]).reset_index(drop=True))
    assert not df.duplicated(["user", "item"]).any()


def test_every_user_has_train_and_test_ratings():
    df = synthetic_ratings(n_users=100, n_items=20, mean_ratings_per_user=2, seed=5)
    per_user = df.groupby("user")["split"].agg(lambda s: set(s))
    assert all(s == {"train", "test"} for s in per_user)
    counts = df.groupby("user").size()
    assert counts.min() >= 2 and counts.max() <= 20


def test_test_fraction_is_respected():
    df = synthetic_ratings(
        n_users=300, n_items=100, mean_ratings_per_user=20, test_fraction=0.25, seed=2
    )
    share = (df["split"] == "test").mean()
    assert 0.2 < share < 0.3


def test_predictors_are_fitted_on_training_ratings_only():
    df = synthetic_ratings(n_users=60, n_items=30, seed=4)
    train = df[df["split"] == "train"]
    assert np.allclose(df["pred_global"], train["rating"].mean())
    user_means = train.groupby("user")["rating"].mean()
    assert np.allclose(df["pred_user"], user_means.loc[df["user"]].to_numpy())


def test_noisy_predictor_noise_level():
    df = synthetic_ratings(n_users=300, n_items=100, prediction_sd=0.5, seed=6)
    noise = df["pred_noisy"] - df["rating"]
    assert abs(noise.mean()) < 0.05
    assert noise.std() == pytest.approx(0.5, rel=0.1)
    exact = synthetic_ratings(n_users=30, n_items=10, prediction_sd=0, seed=6)
    assert (exact["pred_noisy"] == exact["rating"]).all()


def test_mean_activity_and_heavy_tail():
    df = synthetic_ratings(n_users=2000, n_items=500, mean_ratings_per_user=15, seed=8)
    counts = df.groupby("user").size()
    assert counts.mean() == pytest.approx(15, rel=0.1)
    assert counts.max() > 4 * counts.median()


def test_usable_with_rating_metrics():
    df = synthetic_ratings(n_users=40, n_items=25, seed=9)
    test = df[df["split"] == "test"]
    assert rm.mae(test["rating"], test["pred_noisy"], clip=(1, 5)) <= rm.mae(
        test["rating"], test["pred_noisy"]
    )
    assert rm.mae(test["rating"], test["pred_user"], users=test["user"], average="user") > 0


@pytest.mark.parametrize(
    "kwargs, exc, pattern",
    [
        ({"n_users": 0}, ValueError, "n_users must be an integer >= 1"),
        ({"n_users": 2.5}, TypeError, "n_users must be an integer"),
        ({"n_items": 1}, ValueError, "n_items must be at least 2"),
        ({"n_items": "10"}, TypeError, "n_items must be an integer"),
        ({"mean_ratings_per_user": 1}, ValueError, "mean_ratings_per_user must be at least 2"),
        (
            {"mean_ratings_per_user": -3},
            ValueError,
            "mean_ratings_per_user must be a finite number > 0",
        ),
        ({"mean_ratings_per_user": None}, TypeError, "mean_ratings_per_user must be a real number"),
        ({"test_fraction": 0}, ValueError, "test_fraction must lie strictly between 0 and 1"),
        ({"test_fraction": 1}, ValueError, "test_fraction must lie strictly between 0 and 1"),
        ({"test_fraction": 1.5}, ValueError, r"test_fraction must lie in \[0, 1\]"),
        ({"user_sd": -0.1}, ValueError, "user_sd must be a finite number >= 0"),
        ({"item_sd": float("nan")}, ValueError, "item_sd must be a finite number"),
        ({"noise_sd": "big"}, TypeError, "noise_sd must be a real number"),
        ({"prediction_sd": float("inf")}, ValueError, "prediction_sd must be a finite number"),
        ({"seed": -1}, ValueError, "seed must be a non-negative integer"),
        (
            {"seed": 1.5},
            TypeError,
            "seed must be None, a non-negative integer or a numpy.random.Generator",
        ),
        (
            {"seed": True},
            TypeError,
            "seed must be None, a non-negative integer or a numpy.random.Generator",
        ),
    ],
)
def test_bad_input(kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        synthetic_ratings(**kwargs)
