"""Splitting protocols: no leakage, determinism, and the documented edge cases."""

import warnings

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
    with pytest.warns(UserWarning, match="dropped 1 of the 1 test rows"):
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


# --------------------------------------------------------------------------
# drop_unseen is reported; ids and bad inputs
DROPPERS = {
    "random": lambda d, **kw: split.random_holdout(d, test_size=0.5, min_train=0, seed=1, **kw),
    "temporal": lambda d, **kw: split.temporal(d, test_fraction=0.5, **kw),
    "leave_last_out": lambda d, **kw: split.leave_last_out(d, n=2, **kw),
}


@pytest.mark.parametrize("name", DROPPERS)
def test_drop_unseen_is_counted_in_the_summary(name):
    data = interactions(9, n_users=40, n_items=60, density=0.08)
    train, kept_all = DROPPERS[name](data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the more-than-half warning, tested below
        train2, kept = DROPPERS[name](data, drop_unseen=True)
    pd.testing.assert_frame_equal(train, train2)
    before = split.split_summary(train, kept_all)
    after = split.split_summary(train2, kept)
    unseen = ~kept_all["user"].isin(train["user"]) | ~kept_all["item"].isin(train["item"])
    assert before["test rows dropped as unseen"] == 0
    assert after["test rows dropped as unseen"] == unseen.sum() > 0
    assert after["test rows"] + after["test rows dropped as unseen"] == before["test rows"]
    lost = set(kept_all["user"]) - set(kept["user"])
    assert after["test users dropped as unseen"] == len(lost)
    assert after["test items unseen in train"] == after["test users unseen in train"] == 0


@pytest.mark.parametrize("name", DROPPERS)
def test_drop_unseen_warns_when_most_of_the_test_set_goes(name):
    data = interactions(9, n_users=40, n_items=60, density=0.08)
    _, test = DROPPERS[name](data)
    train, _ = DROPPERS[name](data)
    unseen = int((~test["user"].isin(train["user"]) | ~test["item"].isin(train["item"])).sum())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DROPPERS[name](data, drop_unseen=True)
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    if unseen > len(test) / 2:
        assert len(messages) == 1 and f"dropped {unseen:,} of the {len(test):,}" in messages[0]
    else:
        assert not messages


def test_temporal_drop_unseen_on_movielens_like_data_warns():
    # the case in small: a global cut, most test rows from new users
    data = pd.DataFrame(
        {
            "user": [1, 2, 1, 3, 4, 5, 2],
            "item": ["a", "b", "b", "c", "d", "a", "a"],
            "timestamp": [1, 2, 3, 4, 5, 6, 7],
        }
    )
    with pytest.warns(UserWarning, match=r"dropped 3 of the 5 test rows \(and 3 of the 5"):
        train, test = split.temporal(data, cutoff=3, drop_unseen=True)
    s = split.split_summary(train, test)
    assert s["test rows"] == 2 and s["test rows dropped as unseen"] == 3
    assert s["test users dropped as unseen"] == 3
    assert s["test users unseen in train"] == 0
    # a summary of frames that no splitter made has no such rows
    fresh = pd.DataFrame(test.to_dict("list"))
    assert "test rows dropped as unseen" not in split.split_summary(train, fresh)


def test_counts_beyond_the_rows_act_as_every_row():
    data = interactions()
    huge = 2**70
    assert split.leave_last_out(data, n=huge)[0].groupby("user").size().eq(1).all()
    assert split.random_holdout(data, min_train=huge)[1].empty
    pd.testing.assert_frame_equal(
        split.random_holdout(data, test_size=huge)[1],
        split.random_holdout(data, test_size=10**6)[1],
    )


def test_kfold_checks_its_arguments_when_called():
    data = interactions()
    with pytest.raises(ValueError, match="n_splits must be >= 2"):
        split.kfold(data, n_splits=1)
    with pytest.raises(TypeError, match="seed"):
        split.kfold(data, seed="0")
    with pytest.raises(ValueError, match="by must be"):
        split.kfold(data, by=["user"])
    train, test = next(split.kfold(data))
    assert split.split_summary(train, test)["test rows dropped as unseen"] == 0


def test_ids_of_different_types_raise_naming_both_columns():
    train = pd.DataFrame({"user": [1, 2], "item": [10, 11]})
    test = pd.DataFrame({"user": [1, 2], "item": ["10", "11"]})
    with pytest.raises(TypeError, match=r"test\['item'\] holds str ids .* train\['item'\] holds "
                       r"int ids \(int64\)"):  # fmt: skip
        split.split_summary(train, test)
    with pytest.warns(UserWarning, match="matched as integers"):
        s = split.split_summary(train, test.assign(item=[10.0, 11.0]))
    assert s["test items unseen in train"] == 0
    with pytest.raises(TypeError, match=r"data\['user'\] holds int ids .* users holds str ids"):
        split.interaction_matrix(train, ["1", "2"], [10, 11])
    with pytest.warns(UserWarning, match="matched as integers"):
        m = split.interaction_matrix(train, [1, 2], [10.0, 11.0])
    assert m.toarray().tolist() == [[1.0, 0.0], [0.0, 1.0]]
    with pytest.raises(TypeError, match=r"test\['item'\] holds str ids .* items holds int ids"):
        split.sample_candidates(train, test, [10, 11, 12], n_samples=1)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda d: split.temporal(d.assign(timestamp=d["timestamp"].astype(str)), cutoff="5"),
            TypeError,
            "numbers or datetimes",
        ),
        (
            lambda d: split.temporal(
                d.assign(timestamp=d["timestamp"] * 1.0).assign(
                    timestamp=lambda x: x["timestamp"].where(x.index > 0, np.inf)
                ),
                cutoff=5,
            ),
            ValueError,
            "infinite",
        ),
        (lambda d: split.temporal(d, cutoff="5"), TypeError, "cutoff must be a number"),
        (lambda d: split.temporal(d, cutoff=np.nan), ValueError, "finite"),
        (lambda d: split.temporal(d, cutoff=True), TypeError, "cutoff must be a number"),
        (
            lambda d: split.temporal(
                d.assign(timestamp=pd.to_datetime(d["timestamp"], unit="D")), cutoff=5
            ),
            TypeError,
            "must be a time",
        ),
        (lambda d: split.leave_last_out(d, n=1.0), TypeError, "n must be an integer"),
        (lambda d: split.leave_last_out(d, n=0), ValueError, "n must be an integer >= 1"),
        (lambda d: split.random_holdout(d, user=["user"]), TypeError, "column name"),
        (lambda d: split.random_holdout(d, test_size=np.nan), ValueError, "fraction"),
        (lambda d: split.random_holdout(d.iloc[:0]), ValueError, "empty"),
        (
            lambda d: split.split_summary(d, pd.concat([d.iloc[:2], d.iloc[:1]])),
            ValueError,
            "twice",
        ),
        (lambda d: split.split_summary(d, "test"), TypeError, "DataFrame"),
        (lambda d: split.relevant_from_ratings(d, threshold=np.nan), ValueError, "finite"),
        (lambda d: split.relevant_from_ratings(d, threshold="4"), TypeError, "number"),
        (
            lambda d: split.relevant_from_ratings(d.assign(rating=d["rating"].astype(str))),
            TypeError,
            "numbers",
        ),
        (lambda d: split.relevant_from_ratings(d.assign(rating=np.inf)), ValueError, "infinite"),
        (lambda d: split.relevant_from_ratings(pd.concat([d, d.iloc[:1]])), ValueError, "twice"),
        (
            lambda d: split.interaction_matrix(
                pd.concat([d, d.iloc[:1]]), d["user"].unique(), range(40)
            ),
            ValueError,
            "twice",
        ),
        (
            lambda d: split.interaction_matrix(d, set(d["user"]), range(40)),
            TypeError,
            "ordered sequence",
        ),
        (lambda d: split.interaction_matrix(d, d["user"].unique(), []), ValueError, "empty"),
        (
            lambda d: split.interaction_matrix(d, d["user"].unique(), [0, 0, 1]),
            ValueError,
            "repeats the id 0",
        ),
        (
            lambda d: split.interaction_matrix(d, d["user"].unique(), [0, np.nan]),
            ValueError,
            "missing id",
        ),
        (
            lambda d: split.interaction_matrix(
                d.assign(v=np.nan), d["user"].unique(), range(40), value="v"
            ),
            ValueError,
            "missing values",
        ),
        (
            lambda d: split.interaction_matrix(d, d["user"].unique(), "abc"),
            TypeError,
            "ordered sequence",
        ),
        (
            lambda d: split.sample_candidates(d, pd.concat([d.iloc[:1], d.iloc[:1]]), range(40)),
            ValueError,
            "twice",
        ),
        (
            lambda d: split.sample_candidates(d, d.iloc[:1], range(40), n_samples=0),
            ValueError,
            "n_samples",
        ),
        (lambda d: split.sample_candidates(d, d.iloc[:1], range(5)), ValueError, "not in items"),
    ],
)
def test_bad_inputs_raise_clearly(call, error, match):
    with pytest.raises(error, match=match):
        call(interactions())
