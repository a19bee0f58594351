"""The fast paths of long data frames give what the general paths give, bit for bit.

Not timings: each fast path (rows sorted one user at a time, repeated pairs
found from integer keys, tie groups counted with unscored relevant items)
is compared with the general code it stands in for.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics.inputs import frame_rows as fr
from recmetrics.inputs import frames
from recmetrics.ranking import scores as sc


def _users_rows(rng, n_users, ragged, shuffled):
    lengths = rng.integers(0, 30, n_users) if ragged else np.full(n_users, 12)
    pu = np.repeat(np.arange(n_users), lengths).astype(np.int64)
    if shuffled:
        pu = rng.permutation(pu)
    values = rng.integers(0, 6, pu.shape[0]) / 2.0  # many ties
    return pu, values, np.bincount(pu, minlength=n_users)


@pytest.mark.parametrize("ragged", [False, True])
@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("with_text", [False, True])
def test_by_user_rows_equals_by_user_score(ragged, shuffled, with_text):
    rng = np.random.default_rng(3)
    pu, values, counts = _users_rows(rng, 200, ragged, shuffled)
    n = pu.shape[0]
    skey = rng.permutation(n).astype(np.int64) if with_text else None
    got = fr._by_user_rows(pu, values, skey, counts)
    assert got is not None
    want = fr._by_user_score(pu, values, skey, 200, n if with_text else 1)
    np.testing.assert_array_equal(got, want)
    keys = (-values, pu) if skey is None else (skey, -values, pu)
    np.testing.assert_array_equal(got, np.lexsort(keys))


def test_by_user_rows_declines_sparse_padding():
    # one long row and many short ones: the padded matrix would be too large
    pu = np.r_[np.zeros(1000, dtype=np.int64), np.arange(1, 101)]
    counts = np.bincount(pu)
    assert fr._by_user_rows(pu, np.ones(pu.shape[0]), None, counts) is None


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "trec_eval"])
def test_score_groups_equals_sorting_all_rows(ties):
    rng = np.random.default_rng(5)
    pu, values, counts = _users_rows(rng, 150, True, True)
    n = pu.shape[0]
    pi = rng.permutation(n).astype(np.int64)
    items = pd.Index([f"i{j}" for j in range(n)])
    pos, greater, equal, after, sizes = fr._score_groups(pu, pi, values, items, ties, 150, counts)
    # reference: the order of every row at once, groups of equal (user, score)
    order = np.lexsort((-values, pu))
    np.testing.assert_array_equal(
        np.argsort(pos), order if ties != "trec_eval" else np.argsort(pos)
    )
    su, sv = pu[np.argsort(pos)], values[np.argsort(pos)]
    new = np.r_[True, (su[1:] != su[:-1]) | (sv[1:] != sv[:-1])]
    gid = np.cumsum(new) - 1
    start = np.flatnonzero(new)[gid]
    first = np.searchsorted(su, su, side="left")
    np.testing.assert_array_equal(greater, start - first)
    np.testing.assert_array_equal(equal, np.bincount(gid)[gid])
    np.testing.assert_array_equal(sizes, np.bincount(gid))
    if ties == "trec_eval":
        np.testing.assert_array_equal(after, np.arange(n) - start)


def _pair_frames(rng, kind, n=400):
    user = rng.integers(0, 30, n)
    item = rng.integers(0, 25, n)
    frame = pd.DataFrame({"user": user, "item": item, "score": rng.random(n)})
    if kind == "str":
        frame = frame.assign(user="u" + frame.user.astype(str), item="i" + frame.item.astype(str))
    return frame


@pytest.mark.parametrize("kind", ["int", "str"])
@pytest.mark.parametrize("users", ["truth", "predictions", "both", "all"])
def test_repeated_pair_error_as_pandas(kind, users):
    rng = np.random.default_rng(11)
    for seed in range(8):
        rng = np.random.default_rng(seed)
        truth = _pair_frames(rng, kind, 60)
        predictions = _pair_frames(rng, kind)
        for t, p in ((truth, predictions), (truth.drop_duplicates(["user", "item"]), predictions)):
            want = None
            for frame, name in ((t, "truth"), (p, "predictions")):
                try:
                    frames._no_duplicates(frame, "user", "item", name)
                except ValueError as err:
                    want = str(err)
                    break
            with pytest.raises(ValueError) as got:
                rm.from_frames(t, p, users=users)
            assert str(got.value) == want


def test_repeated_pair_reported_before_id_kinds():
    truth = pd.DataFrame({"user": [1, 1], "item": ["a", "a"]})
    predictions = pd.DataFrame({"user": [1], "item": [2], "score": [1.0]})
    truth = truth.astype(object)
    predictions = predictions.astype({"user": object, "item": object})
    with pytest.raises(ValueError, match="holds the pair"):
        rm.from_frames(truth, predictions)


def test_first_repeat_is_pandas_first_duplicate():
    rng = np.random.default_rng(2)
    for _ in range(20):
        key = rng.integers(0, 50, 60)
        want = pd.Series(key).duplicated().to_numpy()
        got = fr._first_repeat(key, np.argsort(key, kind="stable"))
        assert got == (int(np.argmax(want)) if want.any() else -1)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_tie_groups_with_unscored_entries_as_sorting(seed, compiled, monkeypatch):
    # relevant entries grouped by user, some not predicted (s = -inf): the
    # tie-group path (compiled, or NumPy's for a small input) and the
    # general lexsort path build the same Ranking
    from recmetrics._kernels import HAVE_NUMBA, _dispatch

    if compiled and not HAVE_NUMBA:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", not compiled)
    rng = np.random.default_rng(seed)
    n_users = 40
    lengths = rng.integers(0, 90, n_users)
    ru = np.repeat(np.arange(n_users), lengths)
    nnz = ru.shape[0]
    s = rng.integers(0, 8, nnz).astype(float)
    greater = np.empty(nnz)
    for u in range(n_users):  # items above: a count monotone in the score
        m = ru == u
        greater[m] = [np.sum(s[m] > v) * 2 for v in s[m]]
    dropped = rng.random(nnz) < 0.3
    s[dropped] = -np.inf
    greater[dropped] = 0.0
    args = dict(
        ru=ru,
        rc=np.arange(nnz),
        rg=rng.integers(1, 4, nnz).astype(float),
        s=s,
        greater=greater,
        equal=np.ones(nnz),
        eq_after=np.zeros(nnz),
        ties="expected",
        dropped=dropped,
        n_users=n_users,
        n_ranked=np.full(n_users, 200.0),
        n_items=None,
    )
    got = sc._entries_from_counts(**args)
    # the general path, as _entries_from_counts takes it for entries not grouped
    row_ptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(ru, minlength=n_users), out=row_ptr[1:])
    order = np.lexsort((-s, ru))
    group_rel, rel_before = sc.runs_of_equal(ru, s, order, row_ptr)
    start = np.where(dropped, np.inf, greater)
    general = sc._from_entries(
        ru, args["rg"], start, args["equal"], group_rel, rel_before, n_users,
        args["n_ranked"], None, "expected",
    )  # fmt: skip
    for field in ("indptr", "gain", "start", "size", "group_rel", "rel_before"):
        np.testing.assert_array_equal(getattr(got, field), getattr(general, field))


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "trec_eval"])
def test_frames_same_with_rows_shuffled_and_padded(ties):
    # grouped, shuffled and ragged predictions (each path of _by_user_rows)
    # give the per-user values of the general order
    rng = np.random.default_rng(7)
    n_users = 120
    lengths = rng.integers(1, 25, n_users)
    pu = np.repeat(np.arange(n_users), lengths)
    pi = np.concatenate([rng.choice(80, k, replace=False) for k in lengths])
    pred = pd.DataFrame({"user": pu, "item": pi, "score": rng.integers(0, 4, pu.size) / 3})
    truth = pred.sample(frac=0.3, random_state=1)[["user", "item"]]
    truth = truth.assign(grade=rng.integers(0, 3, len(truth)))
    metrics = ["ndcg@10", "map", "precision@5", "auc"]
    got = rm.evaluate(truth, pred, metrics, ties=ties, relevance="grade", per_user=True)
    original = fr._by_user_rows
    try:
        fr._by_user_rows = lambda *a: None  # the general path: one sort of all rows
        want = rm.evaluate(truth, pred, metrics, ties=ties, relevance="grade", per_user=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            shuffled = pred.sample(frac=1, random_state=3)
            want_shuffled = rm.evaluate(
                truth, shuffled, metrics, ties=ties, relevance="grade", per_user=True
            )
    finally:
        fr._by_user_rows = original
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    got_shuffled = rm.evaluate(
        truth, shuffled, metrics, ties=ties, relevance="grade", per_user=True
    )
    pd.testing.assert_frame_equal(got_shuffled, want_shuffled, check_exact=True)


def test_text_rank_of_strings_as_python_sorts_them():
    # pandas' sort of strings (pyarrow's) in the order of Python's comparison
    rng = np.random.default_rng(4)
    alphabet = list("aZ0_-éÉßẞ中文😀\U0001f600\u00a0z")
    words = {"".join(rng.choice(alphabet, rng.integers(1, 6))) for _ in range(500)}
    for dtype in ("str", "string", object):
        items = pd.Index(sorted(words, key=lambda w: rng.random()), dtype=dtype)
        as_text = items.astype(str).to_numpy()
        want = np.argsort(np.argsort(as_text, kind="stable"), kind="stable")
        np.testing.assert_array_equal(fr._text_rank(items), want)
