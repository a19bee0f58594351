"""Splitting protocols: no leakage, determinism, and the documented edge cases."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import recmetrics as rm
from recmetrics import split


def interactions(seed=0, n_users=30, n_items=40, density=0.3):
    rng = np.random.default_rng(seed)
    cells = rng.random((n_users, n_items)) < density
    u, i = np.nonzero(cells)
    return pd.DataFrame(
        {
            "user": [f"u{x}" for x in u],
            "item": i,
            "rating": rng.integers(1, 11, u.shape[0]) / 2,
            "timestamp": rng.integers(0, 50, u.shape[0]),  # many ties in time
        }
    )


def assert_partition(data, train, test):
    assert len(train) + len(test) == len(data)
    assert set(train.index).isdisjoint(test.index)
    assert set(train.index) | set(test.index) == set(data.index)
    pairs = set(zip(train["user"], train["item"], strict=True))
    assert not pairs & set(zip(test["user"], test["item"], strict=True))  # no leakage


SPLITTERS = {
    "random": lambda d, **kw: split.random_holdout(d, test_size=0.25, **kw),
    "count": lambda d, **kw: split.random_holdout(d, test_size=2, **kw),
    "temporal": lambda d, **kw: split.temporal(d, test_fraction=0.2),
    "leave_last_out": lambda d, **kw: split.leave_last_out(d, n=2),
}


@pytest.mark.parametrize("name", SPLITTERS)
def test_splits_are_partitions_without_leakage(name):
    data = interactions()
    train, test = SPLITTERS[name](data)
    assert_partition(data, train, test)
    assert split.split_summary(train, test)["pairs in both"] == 0


@pytest.mark.parametrize("name", SPLITTERS)
def test_same_seed_same_split(name):
    data = interactions(3)
    a = SPLITTERS[name](data)
    b = SPLITTERS[name](data.sample(frac=1.0, random_state=5).sort_index())
    pd.testing.assert_frame_equal(a[1], b[1])


def test_random_holdout_seed_and_counts():
    data = interactions(1)
    t1 = split.random_holdout(data, seed=1)[1]
    t2 = split.random_holdout(data, seed=2)[1]
    assert not t1.index.equals(t2.index)
    n = data.groupby("user").size()
    got = t1.groupby("user").size().reindex(n.index, fill_value=0)
    want = np.clip(np.minimum(np.floor(n * 0.2 + 0.5), n - 1), 0, None)
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    # a count per user, keeping min_train rows
    t3 = split.random_holdout(data, test_size=3, min_train=2)[1].groupby("user").size()
    assert (t3 <= 3).all() and (n.loc[t3.index] - t3 >= 2).all()


def test_users_with_few_interactions_stay_in_train():
    data = pd.DataFrame({"user": [1, 2, 2], "item": ["a", "a", "b"], "timestamp": [1, 1, 2]})
    train, test = split.random_holdout(data, test_size=0.5)
    assert 1 not in set(test["user"])
    train, test = split.leave_last_out(data, n=1)
    assert test[["user", "item"]].values.tolist() == [[2, "b"]]
    train, test = split.leave_last_out(data, n=1, min_train=2)
    assert test.empty


def test_leave_last_out_breaks_time_ties_by_item_id():
    data = pd.DataFrame({"user": [1, 1, 1], "item": ["b", "c", "a"], "timestamp": [5, 5, 5]})
    for perm in ([0, 1, 2], [2, 1, 0], [1, 2, 0]):
        test = split.leave_last_out(data.iloc[perm], n=2)[1]
        assert sorted(test["item"]) == ["b", "c"]
    # mixed id types still sort the same way everywhere (numbers before strings)
    mixed = pd.DataFrame({"user": [1, 1, 1], "item": ["a", 2, "b"], "timestamp": [1, 1, 0]})
    assert split.leave_last_out(mixed)[1]["item"].tolist() == ["a"]
    assert split.leave_last_out(mixed.iloc[::-1])[1]["item"].tolist() == ["a"]


def test_leave_last_out_takes_the_latest():
    data = interactions(4)
    train, test = split.leave_last_out(data, n=1)
    last_train = train.groupby("user")["timestamp"].max()
    test_time = test.set_index("user")["timestamp"]
    assert (test_time >= last_train.loc[test_time.index]).all()


def test_temporal_cutoff_and_fraction():
    data = interactions(5)
    train, test = split.temporal(data, cutoff=40)
    assert train["timestamp"].max() < 40 <= test["timestamp"].min()
    train, test = split.temporal(data, test_fraction=0.3)
    assert len(test) <= 0.3 * len(data)
    assert train["timestamp"].max() < test["timestamp"].min()
    with pytest.raises(ValueError, match="one side"):
        split.temporal(data, cutoff=10**9)
    with pytest.raises(TypeError, match="exactly one"):
        split.temporal(data)
    # a global cut leaves users and items that only appear after it
    summary = split.split_summary(*split.temporal(data, cutoff=45))
    assert summary["test rows"] > 0


def test_drop_unseen():
    data = pd.DataFrame(
        {"user": [1, 1, 2, 3], "item": ["a", "b", "a", "c"], "timestamp": [1, 2, 3, 4]}
    )
    train, test = split.temporal(data, cutoff=4)
    s = split.split_summary(train, test)
    assert s["test users unseen in train"] == 1 and s["test items unseen in train"] == 1
    train, test = split.temporal(data, cutoff=4, drop_unseen=True)
    assert test.empty


@pytest.mark.parametrize("by", ["interaction", "user"])
def test_kfold_tests_everything_once(by):
    data = interactions(6)
    folds = list(split.kfold(data, n_splits=4, by=by, seed=3))
    tested = np.concatenate([test.index.to_numpy() for _, test in folds])
    assert np.array_equal(np.sort(tested), np.sort(data.index.to_numpy()))
    for train, test in folds:
        assert_partition(data, train, test)
        if by == "user":
            assert set(train["user"]).isdisjoint(test["user"])
    sizes = [len(t) for _, t in folds]
    assert max(sizes) - min(sizes) <= (data["user"].nunique() if by == "interaction" else 60)


def test_bad_inputs():
    data = interactions()
    with pytest.raises(TypeError, match="DataFrame"):
        split.random_holdout(data.to_numpy())
    with pytest.raises(ValueError, match="no column 'who'"):
        split.random_holdout(data, user="who")
    dup = pd.concat([data, data.iloc[:1]])
    with pytest.raises(ValueError, match="twice"):
        split.random_holdout(dup)
    with pytest.raises(ValueError, match="fraction must lie in"):
        split.random_holdout(data, test_size=1.5)
    with pytest.raises(TypeError, match="seed"):
        split.random_holdout(data, seed=1.5)
    with pytest.raises(TypeError, match="drop_unseen"):
        split.random_holdout(data, drop_unseen="yes")
    with pytest.raises(ValueError, match="missing values"):
        split.random_holdout(data.assign(item=data["item"].where(data.index > 0)))
    with pytest.raises(ValueError, match="n_splits must be >= 2"):
        next(split.kfold(data, n_splits=1))


def test_relevant_and_matrices():
    data = interactions(7)
    rel = split.relevant_from_ratings(data, threshold=4)
    assert (rel["rating"] >= 4).all() and (rel["relevance"] == 1).all()
    graded = split.relevant_from_ratings(data, threshold=4, graded=True)
    assert (graded["relevance"] == graded["rating"]).all()
    users, items = pd.Index(sorted(data["user"].unique())), pd.Index(range(40))
    m = split.interaction_matrix(rel, users, items, value="rating")
    assert m.shape == (len(users), 40) and m.sum() == rel["rating"].sum()
    with pytest.raises(ValueError, match="not in items"):
        split.interaction_matrix(rel, users, items[:5])


def test_sample_candidates_exclude_everything_the_user_touched():
    data = interactions(8)
    train, test = split.leave_last_out(data, n=1)
    items = pd.Index(range(40))
    cand = split.sample_candidates(train, test, items, n_samples=10, seed=4)
    again = split.sample_candidates(train, test, items, n_samples=10, seed=4)
    pd.testing.assert_frame_equal(cand, again)
    sampled = cand[cand["sampled"]]
    touched = set(zip(data["user"], data["item"], strict=True))
    assert not touched & set(zip(sampled["user"], sampled["item"], strict=True))
    assert (sampled.groupby("user").size() == 10).all()
    assert not sampled.duplicated(["user", "item"]).any()
    with pytest.raises(ValueError, match="fewer than n_samples"):
        split.sample_candidates(train, test, items, n_samples=39)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.floats(0.05, 0.95))
def test_property_random_holdout_partitions(seed, frac):
    data = interactions(seed % 7, n_users=8, n_items=10, density=0.5)
    train, test = split.random_holdout(data, test_size=frac, seed=seed)
    assert_partition(data, train, test)
    assert train.groupby("user").size().min() >= 1


def test_split_module_is_public():
    assert rm.split is split
