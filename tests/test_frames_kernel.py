"""The compiled pass over long frames (``frame_places``) against its NumPy path, bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics._kernels import HAVE_NUMBA, _dispatch, frame_places
from recmetrics.inputs import frame_rows as fr
from recmetrics.inputs import frames

needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="the compiled path needs numba")


def _coded(rng, n_users, shuffled, repeated=False):
    """Coded rows: ragged users (some long: the merge sort), some not evaluated (-1)."""
    lengths = rng.integers(0, 30, n_users)
    lengths[rng.random(n_users) < 0.1] = rng.integers(60, 200)
    n_items = 400
    pu = np.repeat(np.arange(n_users), lengths)
    pi = np.concatenate([rng.choice(n_items, m, replace=False) for m in lengths]).astype(np.int64)
    values = np.round(rng.random(pu.shape[0]), int(rng.integers(0, 3)))
    if repeated and pu.shape[0] > 3:  # a user's item twice, later
        pi[-1] = pi[pu == pu[-1]][0]
    pu = np.where(rng.random(pu.shape[0]) < 0.05, -1, pu)  # users not evaluated
    if shuffled:
        perm = rng.permutation(pu.shape[0])
        pu, pi, values = pu[perm], pi[perm], values[perm]
    n_truth = rng.integers(0, 8, n_users)
    n_truth[lengths > 40] = 60  # many predicted: each list sorted, not counted
    tu = np.repeat(np.arange(n_users), n_truth)
    ti = rng.integers(0, n_items, tu.shape[0])
    pick = rng.random(tu.shape[0]) < 0.7  # most truth rows predicted
    for j in np.flatnonzero(pick):
        mine = pi[pu == tu[j]]
        if mine.shape[0]:
            ti[j] = mine[rng.integers(mine.shape[0])]
    order = np.lexsort((ti, tu))
    tu, ti = tu[order], ti[order]
    keep = np.r_[True, (tu[1:] != tu[:-1]) | (ti[1:] != ti[:-1])]
    tu, ti = tu[keep], ti[keep]
    tu = np.where(rng.random(tu.shape[0]) < 0.05, -1, tu)
    if shuffled:
        perm = rng.permutation(tu.shape[0])
        tu, ti = tu[perm], ti[perm]
    relevant = rng.random(tu.shape[0]) < 0.8
    items = pd.Index([f"d{j}" for j in range(n_items)])
    return (tu, ti, relevant), (pu, pi, values), items


@needs_numba
@pytest.mark.parametrize("ties", ["expected", "trec_eval"])
@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_frame_places_equals_numpy_path(ties, shuffled, seed, monkeypatch):
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", False)
    rng = np.random.default_rng(seed)
    n_users = 120
    t_rows, p_rows, items = _coded(rng, n_users, shuffled, repeated=seed == 3)
    want = fr._places_numpy(t_rows, p_rows, items, n_users, ties, False)
    text_rank = fr._text_rank(items) if ties == "trec_eval" else None
    got = frame_places(*p_rows, n_users, *t_rows, text_rank)
    coded = t_rows[0] >= 0
    np.testing.assert_array_equal(got[0], want[0])  # rows per user
    assert got[1] == want[1] and (got[1] >= 0) == (seed == 3)  # the first repeat
    if seed == 3:
        return  # a repeated pair is refused: the rest is not read
    for g, w in zip(got[2:], want[2:], strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g[coded], w[coded])


@needs_numba
def test_frame_places_without_users_or_predictions(monkeypatch):
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", False)
    empty = np.zeros(0, dtype=np.int64)
    tu, ti, rel = np.array([0, 1]), np.array([3, 4]), np.array([True, False])
    counts, first, found, s, greater, equal, after, g_rel = frame_places(
        empty, empty, np.zeros(0), 2, tu, ti, rel
    )
    assert counts.tolist() == [0, 0] and first == -1 and not found.any()
    assert s.tolist() == [-np.inf, -np.inf] and equal.tolist() == [1.0, 1.0]
    assert greater.tolist() == after.tolist() == g_rel.tolist() == [0.0, 0.0]
    got = frame_places(empty, empty, np.zeros(0), 0, np.array([-1]), ti[:1], rel[:1])
    assert got[0].shape == (0,) and got[1] == -1


def _frames(rng, n_users=40):
    rows = []
    for u in range(n_users):
        m = int(rng.integers(0, 25)) if u % 7 else int(rng.integers(70, 150))
        items = rng.choice(300, m, replace=False)
        rows += [(u, i, s) for i, s in zip(items, np.round(rng.random(m), 1), strict=True)]
    p = pd.DataFrame(rows, columns=["user", "item", "score"]).sample(frac=1, random_state=1)
    t = p.sample(frac=0.3, random_state=2)[["user", "item"]]
    t = pd.concat([t, pd.DataFrame({"user": [0, 1, 2], "item": [301, 302, 303]})])
    t["grade"] = rng.integers(0, 4, len(t))  # 0: judged non-relevant
    return t, p


@needs_numba
@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "trec_eval"])
@pytest.mark.parametrize("kind", ["int", "str"])
def test_from_frames_compiled_equals_numpy(ties, kind, monkeypatch):
    rng = np.random.default_rng(7)
    t, p = _frames(rng)
    if kind == "str":
        t, p = (f.assign(item="d" + f["item"].astype(str)) for f in (t, p))
    rankings = []
    for compiled in (False, True):
        monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", not compiled)
        rankings.append(rm.from_frames(t, p, relevance="grade", ties=ties, users="all"))
    a, b = rankings
    for field in ("indptr", "gain", "start", "size", "group_rel", "rel_before", "n_ranked"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    for field in ("nonrel_indptr", "nonrel_start", "nonrel_size"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert a.nonrel_start.shape[0] > 0  # judged non-relevant rows were placed


@needs_numba
def test_repeated_pair_compiled_error_names_the_first_row(monkeypatch):
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", False)
    p = pd.DataFrame({"user": list("abaca"), "item": list("xyzyx"), "score": 1.0})
    t = pd.DataFrame({"user": ["a"], "item": ["x"]})
    with pytest.raises(ValueError) as want:
        frames._no_duplicates(p, "user", "item", "predictions")
    assert "(user='a', item='x')" in str(want.value)  # row 4, as pandas finds it
    with pytest.raises(ValueError) as got:
        rm.from_frames(t, p)
    assert str(got.value) == str(want.value)


@needs_numba
@pytest.mark.parametrize("seed", range(5))
def test_first_codes_as_pandas_factorize(seed, monkeypatch):
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", False)
    rng = np.random.default_rng(seed)
    a = rng.integers(-50, 50, int(rng.integers(0, 40)))
    b = rng.integers(-60, 2000 if seed == 4 else 40, int(rng.integers(1, 40)))
    got = fr.first_codes(a, b)
    want, distinct = pd.factorize(pd.Series(np.r_[a, b]))
    if seed == 4 and got is None:  # a span beyond four times the ids: hashed instead
        return
    np.testing.assert_array_equal(np.r_[got[0], got[1]], want)
    np.testing.assert_array_equal(got[2], distinct)
    assert got[2].dtype == distinct.dtype


@pytest.mark.parametrize("users", ["truth", "predictions", "both", "all"])
def test_coded_user_index_as_user_index(users):
    rng = np.random.default_rng(3)
    t = pd.Series(rng.integers(0, 40, 50))
    p = pd.Series(rng.integers(20, 70, 80))
    tu, pu, distinct = fr._joint_codes(t, p)
    got = fr._coded_user_index(tu, pu, distinct, users)
    want = frames._user_index(t, p, users)
    assert got.equals(want) and got.dtype == want.dtype
    # pandas' strings sort too: the same Index as _user_index, dtype kept
    ts, ps = t.map("u{:03d}".format).astype(str), p.map("u{:03d}".format).astype(str)
    tu, pu, distinct = fr._joint_codes(ts, ps)
    got = fr._coded_user_index(tu, pu, distinct, users)
    want = frames._user_index(ts, ps, users)
    assert got.equals(want) and got.dtype == want.dtype
    # ids of Python objects (which may not sort) are left to _user_index
    mixed = pd.Index(["a", 1], dtype=object)
    assert fr._coded_user_index(np.array([0]), np.array([1]), mixed, users) is None


@pytest.mark.parametrize("seed", range(4))
def test_joint_codes_of_categories_as_of_their_strings(seed):
    # the TREC readers' categorical ids (the command line) give the codes and
    # the Index of the same columns as strings, whatever the categories' order
    rng = np.random.default_rng(seed)
    t = pd.Series(rng.choice([f"d{i}" for i in range(30)], 60)).astype(str)
    p = pd.Series(rng.choice([f"d{i}" for i in range(10, 50)], 90)).astype(str)
    want = fr._joint_codes(t, p)
    cats = [f"d{i}" for i in rng.permutation(60)]  # unused categories too
    tc = t.astype(pd.CategoricalDtype(pd.Index(cats, dtype=str)))
    pc = p.astype(pd.CategoricalDtype(pd.Index(sorted(set(p)), dtype=str)))
    assert fr._plain_ids(tc, pc)
    got = fr._joint_codes(tc, pc)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert got[2].equals(want[2]) and got[2].dtype == want[2].dtype
    # a category column and a string column, or a missing value: not coded this way
    assert not fr._plain_ids(tc, p)
    with_nan = pd.Series(pd.Categorical([None, "d1"], categories=["d1"]))
    assert not fr._plain_ids(with_nan, pc)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_user_rank_order_is_lexsort(seed, compiled, monkeypatch):
    from recmetrics.ranking._representation import _user_rank_order

    if compiled and not HAVE_NUMBA:
        pytest.skip("needs numba")
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", not compiled)
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 90, 60)  # rows beyond 64 entries are sorted, others counted
    user = np.repeat(np.arange(60), lengths)
    rank = rng.integers(1, 200, user.shape[0]).astype(np.float64)
    rank[rng.random(user.shape[0]) < 0.2] = np.inf  # not ranked
    if seed == 3:
        rank += 0.5  # not whole numbers: sorted whole by the kernel's fallback
    np.testing.assert_array_equal(_user_rank_order(user, rank, 60), np.lexsort((rank, user)))
    shuffled = rng.permutation(user)
    np.testing.assert_array_equal(
        _user_rank_order(shuffled, rank, 60), np.lexsort((rank, shuffled))
    )
