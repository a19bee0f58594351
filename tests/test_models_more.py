"""Unit tests of issue 29's baselines: ``user_knn``, ``bpr`` and ``last_item``.

The shared contract (output type and shape, sparse formats, stored zeros, bad
``train``) of ``user_knn`` and ``bpr`` is swept with the other models in
``tests/test_models.py``. Here: values computed by hand and by a direct dense
formula (``user_knn``), determinism and what the scores depend on (``bpr``),
and the sequential baseline ``last_item`` against a plain Python loop.
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from recmetrics import models
from recmetrics.models import neighbours

needs_implicit = pytest.mark.skipif(
    importlib.util.find_spec("implicit") is None
    or importlib.util.find_spec("threadpoolctl") is None,
    reason="bpr needs the optional 'implicit' package (the 'data' extra)",
)

X3 = [[1, 1, 0], [1, 1, 1], [0, 0, 1]]


def _csr(a):
    return sp.csr_matrix(np.asarray(a, dtype=np.float64))


def _random_train(seed, shape=(12, 7), density=0.45, weighted=False):
    rng = np.random.default_rng(seed)
    a = (rng.random(shape) < density).astype(np.float64)
    a[np.arange(shape[0]), np.arange(shape[0]) % shape[1]] = 1.0
    if weighted:
        a *= rng.integers(1, 6, shape)
    return a


# --------------------------------------------------------------------------
# user_knn


def _cosine_users(a):
    norms = np.sqrt((a**2).sum(axis=1))
    inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    c = (a * inv[:, None]) @ (a * inv[:, None]).T
    np.fill_diagonal(c, 0.0)  # never one's own neighbour
    return c


def _user_knn_dense(a, k):
    """The K most similar other users (sim > 0, ties to the lower index), densely."""
    c = _cosine_users(a)
    w = np.zeros_like(c)
    for u in range(a.shape[0]):
        others = [v for v in range(a.shape[0]) if v != u]
        order = sorted(others, key=lambda v: -c[u, v])  # stable: lower index first
        for v in order[:k]:
            if c[u, v] > 0:
                w[u, v] = c[u, v]
    return w @ a


def test_user_knn_by_hand():
    # cosines: (0, 1) = 2/sqrt(6), (1, 2) = 1/sqrt(3), (0, 2) = 0
    s01, s12 = 2 / math.sqrt(6), 1 / math.sqrt(3)
    want = [[s01, s01, s01], [s01, s01, 0.0], [s12, s12, s12]]
    np.testing.assert_allclose(models.user_knn(_csr(X3), neighbours=1), want, rtol=1e-15)
    # two neighbours: user 1 adds user 2's item 2; users 0 and 2 have one neighbour > 0
    want2 = [[s01, s01, s01], [s01, s01, s12], [s12, s12, s12]]
    np.testing.assert_allclose(models.user_knn(_csr(X3), neighbours=2), want2, rtol=1e-15)


@pytest.mark.parametrize("weighted", [False, True], ids=["binary", "weighted"])
@pytest.mark.parametrize("k", [11, 12, 100, 2**70])
def test_user_knn_with_every_neighbour_is_the_full_cosine_formula(weighted, k):
    # K >= n_users - 1: score = (C - diag C) X, C the users' cosine similarities
    a = _random_train(0, shape=(12, 7), weighted=weighted)
    got = models.user_knn(_csr(a), neighbours=k)
    np.testing.assert_allclose(got, _cosine_users(a) @ a, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize("weighted", [False, True], ids=["binary", "weighted"])
def test_user_knn_keeps_the_k_most_similar_users(k, weighted):
    a = _random_train(1, shape=(15, 6), weighted=weighted)
    got = models.user_knn(_csr(a), neighbours=k)
    np.testing.assert_allclose(got, _user_knn_dense(a, k), rtol=1e-12, atol=1e-14)


def test_user_knn_ties_keep_the_lower_user_index():
    # users 1, 2 and 3 are identical, equally similar to user 0: K=1 keeps user 1
    a = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 1, 0], [1, 0, 1, 0]], dtype=float)
    a[3, 3] = 0.0
    S = models.user_knn(_csr(a), neighbours=1)
    s = 1 / 2  # cos((1,1,0,0), (1,0,1,0))
    np.testing.assert_allclose(S[0], s * a[1], rtol=1e-15)


def test_user_knn_user_without_interactions():
    a = _random_train(2)
    a[3] = 0.0
    S = models.user_knn(_csr(a), neighbours=4)
    assert (S[3] == 0).all()
    # nobody has user 3 as a neighbour: removing it changes nothing for the others
    rest = np.delete(a, 3, axis=0)
    np.testing.assert_allclose(
        np.delete(S, 3, axis=0), models.user_knn(_csr(rest), neighbours=4), rtol=1e-12
    )


def test_user_knn_blocks_give_the_same_scores(monkeypatch):
    a = _random_train(3, shape=(20, 8), weighted=True)
    want = models.user_knn(_csr(a), neighbours=4)
    monkeypatch.setattr(neighbours, "_BLOCK", 3)
    np.testing.assert_array_equal(models.user_knn(_csr(a), neighbours=4), want)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "3", None, math.nan, 2.0], ids=repr)
def test_user_knn_neighbours_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match=r"^neighbours must be an integer >= 1, got "):
        models.user_knn(_csr(X3), neighbours=bad)


@pytest.mark.parametrize("v", [1e-200, 1e200])
def test_user_knn_never_returns_nan(v):
    with pytest.raises(ValueError, match=r"user 0's values under- or overflow"):
        models.user_knn(_csr(np.array(X3) * v))


# --------------------------------------------------------------------------
# bpr


def _bpr(X, **kw):
    return models.bpr(X, **{"factors": 3, "iterations": 20, **kw})


@needs_implicit
def test_bpr_same_seed_bit_identical_other_seed_other_scores():
    X = _csr(_random_train(10, shape=(20, 9)))
    first = _bpr(X, seed=5)
    np.testing.assert_array_equal(first, _bpr(X, seed=5))
    np.testing.assert_array_equal(first, _bpr(X, seed=np.int64(5)))
    np.testing.assert_array_equal(_bpr(X), _bpr(X, seed=0))  # the default seed is 0
    np.testing.assert_array_equal(_bpr(X, seed=np.random.default_rng(5)), first)
    assert not np.allclose(first, _bpr(X, seed=6))
    a, b = _bpr(X, seed=None), _bpr(X, seed=None)
    assert np.isfinite(a).all() and not np.allclose(a, b)


@needs_implicit
@pytest.mark.parametrize(
    "change",
    [{"factors": 2}, {"iterations": 5}, {"learning_rate": 0.1}, {"regularization": 0.5}],
    ids=lambda c: next(iter(c)),
)
def test_bpr_every_hyperparameter_is_used(change):
    X = _csr(_random_train(11, shape=(20, 9)))
    assert not np.allclose(_bpr(X, **change), _bpr(X))


@needs_implicit
def test_bpr_reads_only_which_cells_are_non_zero():
    a = _random_train(12, shape=(20, 9))
    weighted = a * np.random.default_rng(12).integers(1, 50, a.shape)
    np.testing.assert_array_equal(_bpr(_csr(weighted)), _bpr(_csr(a)))


@needs_implicit
@pytest.mark.parametrize("factors", [1, 2, 4])
def test_bpr_scores_are_factors_plus_a_bias(factors):
    # implicit keeps the item bias as one more factor (the user's is 1)
    X = _csr(_random_train(13, shape=(20, 9)))
    S = _bpr(X, factors=factors)
    assert np.linalg.matrix_rank(S, tol=1e-10 * np.abs(S).max()) == factors + 1


@needs_implicit
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bpr_separates_two_disjoint_groups(seed):
    a = np.zeros((8, 6))
    a[:4, :3] = 1.0
    a[4:, 3:] = 1.0
    S = models.bpr(_csr(a), factors=2, iterations=300, learning_rate=0.05, seed=seed)
    for u in range(4):
        assert S[u, :3].min() > S[u, 3:].max()
    for u in range(4, 8):
        assert S[u, 3:].min() > S[u, :3].max()


@needs_implicit
@pytest.mark.parametrize(
    "arg,bad,error,pattern",
    [
        ("learning_rate", 0.0, ValueError, "learning_rate must be a finite number > 0"),
        ("learning_rate", -1.0, ValueError, "learning_rate must be a finite number > 0"),
        ("learning_rate", math.nan, ValueError, "learning_rate must be a finite number"),
        ("learning_rate", "0.1", TypeError, "learning_rate must be a real number"),
        ("regularization", -1.0, ValueError, "regularization must be a finite number"),
        ("regularization", math.inf, ValueError, "regularization must be a finite number"),
        ("factors", 0, ValueError, "factors must be an integer >= 1"),
        ("iterations", 1.5, ValueError, "iterations must be an integer >= 1"),
        ("seed", -1, ValueError, "seed must be a non-negative integer"),
        ("seed", 1.5, TypeError, "seed must be None"),
    ],
)
def test_bpr_bad_hyperparameters(arg, bad, error, pattern):
    with pytest.raises(error, match=rf"^{pattern}"):
        _bpr(_csr(X3), **{arg: bad})


@needs_implicit
def test_bpr_regularization_may_be_zero():
    assert np.isfinite(_bpr(_csr(X3), regularization=0.0)).all()


# --------------------------------------------------------------------------
# last_item


def _last_item_loop(frame, users, items):
    """Transition counts and each user's last item, with plain Python."""
    counts = {}
    last = {}
    for u, rows in frame.groupby("user", sort=False):
        seq = sorted(zip(rows["timestamp"], rows["item"], strict=True))
        for (_, a), (_, b) in zip(seq, seq[1:], strict=False):
            counts[a, b] = counts.get((a, b), 0) + 1
        last[u] = seq[-1][1]
    out = np.zeros((len(users), len(items)))
    for r, u in enumerate(users):
        if u in last:
            for c, i in enumerate(items):
                out[r, c] = counts.get((last[u], i), 0)
    return out


def _sequences(seed, n_users=25, n_items=10, per_user=5):
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(n_users):
        for t, i in enumerate(rng.choice(n_items, per_user, replace=False)):
            rows.append((u, int(i), int(rng.integers(0, 3)) + 3 * t))
    return pd.DataFrame(rows, columns=["user", "item", "timestamp"])


def test_last_item_by_hand():
    # user 1: a b c; user 2: b c; user 3: c a. Transitions a->b, b->c (twice), c->a.
    train = pd.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 3, 3],
            "item": list("abcbcca"),
            "timestamp": [1, 2, 3, 5, 6, 1, 9],
        }
    )
    S = models.last_item(train, [1, 2, 3, 4], list("abc"))
    # last items: user 1 c (-> a once), user 2 c, user 3 a (-> b once), user 4 none
    assert S.tolist() == [[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0]]
    assert S.dtype == np.float64


@pytest.mark.parametrize("seed", range(4))
def test_last_item_equals_a_plain_loop(seed):
    frame = _sequences(seed)
    users, items = list(range(27)), list(range(11))  # a user and an item never seen
    got = models.last_item(frame, users, items)
    np.testing.assert_array_equal(got, _last_item_loop(frame, users, items))
    assert (got[25:] == 0).all() and (got[:, 10] == 0).all()


def test_last_item_ignores_the_order_of_the_rows_and_follows_the_index():
    frame = _sequences(7)
    users, items = list(range(25)), list(range(10))
    want = models.last_item(frame, users, items)
    shuffled = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
    np.testing.assert_array_equal(models.last_item(shuffled, users, items), want)
    pu, pi = users[::-1], items[3:] + items[:3]
    np.testing.assert_array_equal(
        models.last_item(frame, pu, pi), want[np.ix_(pu, [items.index(i) for i in pi])]
    )


def test_last_item_ties_in_time_are_ordered_by_item_id():
    # user 1 took b and a at the same time: a, then b (item order); user 2 ends with a
    train = pd.DataFrame({"user": [1, 1, 2], "item": ["b", "a", "a"], "timestamp": [5, 5, 1]})
    S = models.last_item(train, [1, 2], ["a", "b"])
    assert S.tolist() == [[0, 0], [0, 1]]


def test_last_item_takes_datetimes_and_other_column_names():
    frame = _sequences(8)
    want = models.last_item(frame, list(range(25)), list(range(10)))
    other = frame.rename(columns={"user": "u", "item": "i", "timestamp": "t"})
    other["t"] = pd.Timestamp("2020-01-01") + pd.to_timedelta(other["t"], unit="D")
    got = models.last_item(other, pd.Index(range(25)), range(10), user="u", item="i", time="t")
    np.testing.assert_array_equal(got, want)


def test_last_item_counts_are_exact():
    # every user takes 0 then 1: the count is the number of users
    n = 1000
    train = pd.DataFrame(
        {"user": np.repeat(np.arange(n), 2), "item": np.tile([0, 1], n), "timestamp": 0}
    )
    S = models.last_item(train, list(range(n + 1)), [0, 1, 2])
    assert S[n].tolist() == [0, 0, 0]
    assert S[0].tolist() == [0, 0, 0]  # last item 1: nothing followed it
    train.loc[0, "timestamp"] = 1  # user 0: 1, then 0; the others 0, then 1
    S = models.last_item(train, list(range(n)), [0, 1])
    assert S[0].tolist() == [0, n - 1]  # last item 0: followed by 1, n - 1 times
    assert S[1].tolist() == [1, 0]  # last item 1: followed by 0 once (user 0)


@pytest.mark.parametrize(
    "change,error,pattern",
    [
        (lambda f: f.to_numpy(), TypeError, r"^train must be a pandas DataFrame"),
        (lambda f: f.drop(columns="timestamp"), ValueError, r"^train has no column 'timestamp'"),
        (lambda f: f.assign(timestamp="x"), TypeError, r"^train\['timestamp'\] must hold"),
        (lambda f: pd.concat([f, f.iloc[:1]]), ValueError, r"^train holds the pair"),
    ],
    ids=["array", "no time", "string times", "duplicate"],
)
def test_last_item_bad_train(change, error, pattern):
    frame = _sequences(9, n_users=3)
    with pytest.raises(error, match=pattern):
        models.last_item(change(frame), list(range(3)), list(range(10)))


def test_last_item_ids_outside_the_index():
    frame = _sequences(9, n_users=3)
    with pytest.raises(ValueError, match=r"^train has user 2, which is not in users"):
        models.last_item(frame, [0, 1], list(range(10)))
    with pytest.raises(ValueError, match=r"which is not in items"):
        models.last_item(frame, [0, 1, 2], list(range(5)))
    with pytest.raises(TypeError, match=r"^users must be an ordered sequence"):
        models.last_item(frame, {0, 1, 2}, list(range(10)))
