"""The compiled kernels against plain NumPy: counting, the NaN/inf check, dense nonzeros.

The counting kernel sweeps each row four relevant scores at a time and finds
NaN or infinite scores in the same sweeps; many relevant items (> 128, or > 64
with float64 scores) take the one-pass histogram branch; dense relevance
matrices are read by a compiled block-wise nonzero. Every path is compared
here with a NumPy reference on inputs with heavy ties, masks, rows without
relevant items, and every score dtype.

Small inputs take the NumPy path until the compiled kernel for their types
exists (in the process or in numba's cache), so that they never wait for a
compilation: the last tests check that routing, that both paths give the
same bits, the one-line notice of a first compilation and the warning of
the NumPy fallback without numba, in fresh processes.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import recmetrics as rm
from recmetrics import _kernels as K
from recmetrics._kernels import _counting, _dispatch, _nonzero, _ties

pytestmark = pytest.mark.skipif(not K.HAVE_NUMBA, reason="numba kernels")


@pytest.fixture(autouse=True)
def _compiled_kernels(monkeypatch):
    """Every input takes the compiled kernels, which these tests compare with NumPy.

    (Small inputs otherwise take the NumPy path until the kernels are compiled;
    the tests of that routing below undo this.)
    """
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", False)


def _case(rng, n_users, n_items, max_rel, dtype, levels, mask_share=0.1):
    S = (rng.integers(0, levels, (n_users, n_items)) / levels).astype(dtype)
    counts = rng.integers(0, min(max_rel, n_items) + 1, n_users)
    counts[rng.random(n_users) < 0.2] = 0  # rows without relevant items
    cols = [np.sort(rng.choice(n_items, c, replace=False)) for c in counts]
    row_ptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(counts, out=row_ptr[1:])
    rel = np.concatenate(cols).astype(np.int64) if cols else np.zeros(0, np.int64)
    M = rng.random((n_users, n_items)) < mask_share
    for u, c in enumerate(cols):
        M[u, c] = False  # relevant items are not excluded (from_scores drops them)
    m = sp.csr_array(M)
    return S, row_ptr, rel, m.indptr.astype(np.int64), m.indices.astype(np.int64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    ("n_items", "max_rel", "levels"),
    [
        (1, 1, 2),
        (3, 3, 2),
        (7, 7, 3),
        (100, 11, 5),
        (300, 150, 20),
        (257, 120, 10**6),
        (600, 400, 20),
        (700, 350, 10**6),
    ],
)
@pytest.mark.parametrize("masked", [False, True])
def test_counts_match_numpy(dtype, n_items, max_rel, levels, masked):
    """Every relevant entry's greater / equal / after counts, every branch of the kernel.

    Up to 400 relevant items per row (the histogram branch above 128, or 64
    with float64 scores, the sweeps of four plus the remainder below), heavy
    ties (2 to 10**6 score levels).
    """
    rng = np.random.default_rng(n_items * 7 + max_rel + masked)
    S, row_ptr, rel, mp, mi = _case(rng, 60, n_items, max_rel, dtype, levels)
    mp, mi = (mp, mi) if masked else (None, None)
    g, e, a, bad = K.count_above(S, row_ptr, rel, mp, mi, want_after=True, check=True)
    counts = np.diff(row_ptr)
    rows = np.flatnonzero(counts).astype(np.int64)
    compact = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts[rows], out=compact[1:])
    g0, e0, a0 = K._count_above_numpy(S, rows, compact, rel, mp, mi, True)
    np.testing.assert_array_equal(g, g0)
    np.testing.assert_array_equal(e, e0)
    np.testing.assert_array_equal(a, a0)
    assert not bad.any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    ("n_users", "n_items", "max_rel", "levels"),
    [
        (60, 7, 7, 3),  # rows too short to stop early: every entry counted
        (60, 600, 11, 5),
        (60, 520, 120, 20),
        (200, 700, 60, 10**6),
        (60, 512, 12, 2),
        (60, 700, 350, 10**6),
        (60, 600, 400, 20),
    ],
)
@pytest.mark.parametrize("depth", [1, 3, 10, 1000])
@pytest.mark.parametrize("masked", [False, True])
def test_counts_to_a_depth_are_exact_where_they_matter(
    dtype, n_users, n_items, max_rel, levels, depth, masked
):
    """``depth``: exact counts for every entry that can sit within the top ``depth``.

    The counted entries carry the exact greater / equal / after counts; an
    entry left out (``greater = -1``) has ``depth`` or more items above it,
    is scored strictly below every counted entry of its row (tie groups are
    never split), and every entry with fewer than ``depth`` items above it
    is counted. Serial and parallel loops (200 x 700 cells), masks, ties,
    more relevant items than the sweeps of four, and rows in the histogram
    branch (up to 400 relevant items), which stop after a few sweeps or, at
    a depth they never reach, fall back to counting every item.
    """
    rng = np.random.default_rng(n_items * 13 + depth + masked)
    S, row_ptr, rel, mp, mi = _case(rng, n_users, n_items, max_rel, dtype, levels)
    mp, mi = (mp, mi) if masked else (None, None)
    g, e, a, bad = K.count_above(S, row_ptr, rel, mp, mi, want_after=True, check=True, depth=depth)
    assert not bad.any()
    counts = np.diff(row_ptr)
    rows = np.flatnonzero(counts).astype(np.int64)
    compact = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts[rows], out=compact[1:])
    g0, e0, a0 = K._count_above_numpy(S, rows, compact, rel, mp, mi, True)
    counted = g >= 0
    np.testing.assert_array_equal(g[counted], g0[counted])
    np.testing.assert_array_equal(e[counted], e0[counted])
    np.testing.assert_array_equal(a[counted], a0[counted])
    left = ~counted
    assert np.all(g0[left] >= depth) and np.all(g[left] == -1) and np.all(e[left] == 1)
    assert np.all(a[left] == 0)
    assert np.all(counted[g0 < depth])
    user = np.repeat(np.arange(n_users), counts)
    s = S[user, rel].astype(np.float64)
    for u in np.unique(user[left]):
        mine = user == u
        if np.any(counted & mine):
            assert s[left & mine].max() < s[counted & mine].min()
    if depth >= n_items or n_items < K._DEPTH_MIN_ITEMS:
        assert counted.all()
    elif levels > 100 and max_rel > 20:
        assert left.sum() > counted.sum()  # the point: most entries are not swept


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("spread", ["log", "cluster", "extreme", "levels"])
def test_histogram_buckets_are_exact_for_any_spread_of_scores(dtype, spread):
    """The one-pass histogram is exact for any spread of the relevant scores.

    It places each score through a table of buckets over the relevant scores'
    range: the counts must stay exact when that range is huge or overflows,
    when most relevant scores crowd one bucket, and with heavy ties.
    """
    rng = np.random.default_rng(len(spread))
    n_users, n_items = 8, 700
    if spread == "log":  # magnitudes from 1e-30 to 1e30, both signs
        S = rng.choice([-1.0, 1.0], (n_users, n_items)) * 10.0 ** rng.uniform(
            -30, 30, (n_users, n_items)
        )
    elif spread == "cluster":  # a crowd of tiny values and a few far away
        S = rng.random((n_users, n_items)) * 1e-9
        S[:, ::50] = rng.random(S[:, ::50].shape) * 1e6
    elif spread == "extreme":  # the range overflows: (x - lo) * scale is inf or NaN
        big = np.finfo(dtype).max
        S = rng.choice([-big, big, 0.0, 1.0, -1.0], (n_users, n_items))
    else:
        S = rng.integers(0, 3, (n_users, n_items)).astype(np.float64)
    S = S.astype(dtype)
    counts = rng.integers(150, 400, n_users)  # all in the histogram branch
    cols = [np.sort(rng.choice(n_items, c, replace=False)) for c in counts]
    row_ptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(counts, out=row_ptr[1:])
    rel = np.concatenate(cols).astype(np.int64)
    g, e, a, bad = K.count_above(S, row_ptr, rel, want_after=True, check=True)
    assert not bad.any()
    rows = np.arange(n_users, dtype=np.int64)
    g0, e0, a0 = K._count_above_numpy(S, rows, row_ptr, rel, None, None, True)
    np.testing.assert_array_equal(g, g0)
    np.testing.assert_array_equal(e, e0)
    np.testing.assert_array_equal(a, a0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("n_rel", [0, 1, 3, 4, 9, 120, 300])
@pytest.mark.parametrize("depth", [0, 3])
def test_bad_values_are_found_in_the_counting_sweeps(dtype, value, n_rel, depth):
    """A NaN or infinity anywhere in a row flags that row, whatever its relevant items.

    Rows with no relevant item (only read for the check), with 1-9 (the
    sweeps: the bad value is counted in the first one), with 120 (the sweeps
    for float32, the histogram branch for float64) and with 300 (the
    histogram branch); the bad value first, last, in a masked cell, on a
    relevant cell. With a depth, on rows long enough to stop early, the
    first sweep of the relevant scores is the one that checks.
    """
    rng = np.random.default_rng(n_rel)
    n_users, n_items = 6, (310 if depth == 0 else 600)
    S = rng.random((n_users, n_items)).astype(dtype)
    rel_cols = np.sort(rng.choice(n_items, n_rel, replace=False)) if n_rel else []
    row_ptr = np.arange(n_users + 1, dtype=np.int64) * n_rel
    rel = np.tile(np.asarray(rel_cols, dtype=np.int64), n_users)
    where = {1: 0, 2: n_items - 1, 4: 5}  # row -> column of the bad value
    if n_rel:
        where[5] = int(rel_cols[-1])
    for u, c in where.items():
        S[u, c] = value
    mask = sp.csr_array((np.ones(1, bool), ([4], [5])), shape=(n_users, n_items))
    *_, bad = K.count_above(
        S,
        row_ptr,
        rel,
        mask.indptr.astype(np.int64),
        mask.indices.astype(np.int64),
        check=True,
        depth=depth,
    )
    np.testing.assert_array_equal(np.flatnonzero(bad), sorted(where))
    *_, bad = K.count_above(S, row_ptr, rel, check=False)
    assert not bad.any()
    assert K.first_bad_value(S) == (1, 0)


@pytest.mark.parametrize(
    "dtype",
    [bool, np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64, np.float32, np.float64],
)
@pytest.mark.parametrize(
    "shape", [(1, 1), (5, 1), (3, 8), (3, 63), (4, 64), (7, 65), (40, 300), (6, 1000)]
)
def test_dense_nonzero_matches_numpy(dtype, shape):
    rng = np.random.default_rng(shape[0] * shape[1])
    A = (rng.random(shape) < 0.1) * rng.integers(1, 5, shape)
    A[0] = 0  # an empty row
    if shape[0] > 2:
        A[1] = 1 + rng.integers(0, 3, shape[1])  # a full row
        A[2, -1] = 3  # only the last column
    A = A.astype(dtype)
    indptr, cols, vals = K.dense_nonzero(A)
    r, c = np.nonzero(A)
    np.testing.assert_array_equal(cols, c)
    np.testing.assert_array_equal(vals, A[r, c])
    np.testing.assert_array_equal(np.diff(indptr), np.bincount(r, minlength=shape[0]))
    assert vals.dtype == A.dtype


def test_dense_nonzero_declines_what_it_cannot_read():
    assert K.dense_nonzero(np.ones((3, 4), dtype=np.float16)) is None
    assert K.dense_nonzero(np.ones((4, 3))[:, ::2]) is None  # not C-contiguous
    assert K.dense_nonzero(np.ones(4)) is None
    assert K.dense_nonzero(np.array([[1j]])) is None
    # negative zero is zero, NaN is nonzero, as for np.nonzero
    indptr, cols, _ = K.dense_nonzero(np.array([[-0.0, np.nan, 0.0, 2.0]]))
    assert cols.tolist() == [1, 3]
    # float32 rows read as 64-bit words: blocks of negative zeros pass the
    # word test and hold no nonzero cell
    B = np.zeros((3, 200), dtype=np.float32)
    B[1] = -0.0
    B[2, 70:140] = -0.0
    B[2, 150] = 1.0
    indptr, cols, _ = K.dense_nonzero(B)
    assert indptr.tolist() == [0, 0, 0, 1] and cols.tolist() == [150]


def test_dense_nonzero_reads_unaligned_rows():
    buf = np.zeros(10 * 16 + 1, dtype=np.int8)
    A = buf[1:].reshape(10, 16)  # rows of whole words, not 8-byte aligned
    A[3, 5], A[9, 15] = 2, 1
    indptr, cols, vals = K.dense_nonzero(A)
    assert np.diff(indptr).tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0, 1]
    assert cols.tolist() == [5, 15] and vals.tolist() == [2, 1]


@pytest.mark.parametrize("max_len", [0, 1, 5, 64, 65, 200, 3000])
@pytest.mark.parametrize("levels", [4, 10**6])
@pytest.mark.parametrize("whole", [True, False])
def test_tie_groups_sort_each_row_and_find_the_runs(max_len, levels, whole):
    """Per-row order and runs of equal keys, every branch of the kernel.

    Short rows by counting, long ones by a heap sort of key * m + position
    (whole-number keys) or NumPy's lexsort (fractional keys).
    """
    rng = np.random.default_rng(max_len + levels)
    lengths = rng.integers(0, max_len + 1, 50)
    row_ptr = np.zeros(51, dtype=np.int64)
    np.cumsum(lengths, out=row_ptr[1:])
    key = rng.integers(0, levels, row_ptr[-1]).astype(np.float64)  # ties when few levels
    if not whole:
        key /= 3.0
    row = np.repeat(np.arange(50), lengths)
    s = -key * 3.0 + 1.0  # decreasing score, increasing count above it
    order, size, before = K.tie_groups(row_ptr, key)
    np.testing.assert_array_equal(order, np.lexsort((key, row)))
    np.testing.assert_array_equal((size, before), K.runs_of_equal(row, s, order, row_ptr))
    for u in range(50):  # the definition, row by row
        a, b = row_ptr[u], row_ptr[u + 1]
        for i in range(a, b):
            same = key[a:b] == key[i]
            assert size[i] == same.sum()
            assert before[i] == (key[a:b] < key[i]).sum()
    # the NumPy version on shuffled entries
    perm = rng.permutation(row.shape[0])
    order2 = np.lexsort((key[perm], row[perm]))
    size2, before2 = K.runs_of_equal(row[perm], s[perm], order2, row_ptr)
    np.testing.assert_array_equal(size2, size[perm])
    np.testing.assert_array_equal(before2, before[perm])


# -- end to end: from_scores and evaluate ------------------------------------------------


def _scores_case(rng, n_users=300, n_items=80):
    S = rng.integers(0, 6, (n_users, n_items)).astype(np.float64)  # heavy ties
    T = (rng.random((n_users, n_items)) < 0.08) * rng.integers(1, 4, (n_users, n_items))
    T[::7] = 0  # users without relevant items
    M = (rng.random((n_users, n_items)) < 0.05) & (T == 0)
    return T, S, M


def _same(r1, r2):
    for name in ("indptr", "gain", "start", "size", "group_rel", "rel_before", "n_ranked"):
        np.testing.assert_array_equal(getattr(r1, name), getattr(r2, name), err_msg=name)


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "trec_eval"])
@pytest.mark.parametrize("t_dtype", [np.int8, np.int64, np.float32, np.float64])
def test_dense_and_sparse_relevance_give_the_same_ranking(ties, t_dtype):
    rng = np.random.default_rng(3)
    T, S, M = _scores_case(rng)
    Td = T.astype(t_dtype)
    dense = rm.from_scores(Td, S, mask=M, ties=ties)
    sparse = rm.from_scores(sp.csr_array(Td), S, mask=sp.csr_array(M), ties=ties)
    listed = rm.from_scores(Td.tolist(), S.tolist(), mask=M.tolist(), ties=ties)
    _same(dense, sparse)
    _same(dense, listed)


@pytest.mark.parametrize("s_dtype", [np.float16, np.float32, np.float64, np.int32, np.int64])
def test_score_dtypes_rank_alike(s_dtype):
    """Integer and float scores with the same order give the same ranking."""
    rng = np.random.default_rng(5)
    T, S, M = _scores_case(rng)
    reference = rm.from_scores(T, S, mask=M)
    _same(rm.from_scores(T, S.astype(s_dtype), mask=M), reference)


@pytest.mark.parametrize("s_dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("where", [(0, 0), (6, 79), (7, 3)])  # row 7 has no relevant item
def test_nan_or_inf_scores_raise_with_their_position(s_dtype, where):
    rng = np.random.default_rng(1)
    T, S, M = _scores_case(rng)
    for value, word in ((np.nan, "NaN"), (np.inf, "an infinite value")):
        bad = S.astype(s_dtype)
        bad[where] = value
        msg = f"y_score contains {word} at row {where[0]}, column {where[1]}"
        with pytest.raises(ValueError, match=msg):
            rm.from_scores(T, bad, mask=M)
        with pytest.raises(ValueError, match=msg):
            rm.evaluate(T, bad, ["ndcg@5"], mask=M)


def test_nan_relevance_raises():
    rng = np.random.default_rng(2)
    T, S, _ = _scores_case(rng)
    T = T.astype(np.float64)
    T[3, 4] = np.nan
    with pytest.raises(ValueError, match="y_true"):
        rm.from_scores(T, S)


def test_blocks_of_users_do_not_change_the_result():
    """The default blocks (>= 4 million cells) and small explicit blocks agree."""
    rng = np.random.default_rng(9)
    T, S, M = _scores_case(rng, n_users=500)
    names = ["ndcg@10", "map@10", "recall@5", "mrr@10", "auc"]
    whole = rm.evaluate(T, S, names, mask=M, per_user=True)
    blocks = rm.evaluate(T, S, names, mask=M, per_user=True, chunk_users=37)
    np.testing.assert_array_equal(whole.to_numpy(), blocks.to_numpy())


_CONCURRENT = """
import numpy as np, numba, recmetrics as rm
from concurrent.futures import ThreadPoolExecutor
rng = np.random.default_rng(0)
y = (rng.random((400, 600)) < 0.05).astype(np.int8)
s = rng.random((400, 600))
names = ["ndcg@10", "auc"]
ref = rm.evaluate(y, s, names, per_user=True)
with ThreadPoolExecutor(4) as ex:
    outs = list(ex.map(lambda _: rm.evaluate(y, s, names, per_user=True), range(24)))
assert numba.threading_layer() == "workqueue"
assert all(o.equals(ref) for o in outs)
print("ok")
"""


def test_parallel_kernels_from_many_threads_under_the_workqueue_layer():
    """Concurrent calls from many threads under numba's "workqueue" layer.

    That layer aborts the process on concurrent parallel launches (a thread
    pool, Dask's threaded scheduler): the kernels are serialised under it,
    with the same results.
    """
    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue")
    out = subprocess.run(
        [sys.executable, "-c", _CONCURRENT], env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"


# -- the first call: small inputs on the NumPy path, the notices --------------------------


def _explode(*args):
    raise AssertionError("a compiled kernel was called for a small input")


def _no_kernel_ready(monkeypatch):
    """As in a fresh environment: no compiled kernel ready; calling one fails the test."""
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", True)
    monkeypatch.setattr(_dispatch, "_ready", lambda kernel, args: False)
    monkeypatch.setattr(_dispatch, "_NUMPY_SPENT", {})  # no NumPy work done yet
    # one function per kernel: the routing adds up each kernel's NumPy work by its id
    for name in ("_count_serial", "_count_parallel"):
        monkeypatch.setattr(_counting, name, lambda *args: _explode())
    for name in ("_nonzero_serial", "_nonzero_parallel"):
        monkeypatch.setattr(_nonzero, name, lambda *args: _explode())
    monkeypatch.setattr(_ties, "_tie_groups", lambda *args: _explode())


@pytest.fixture
def cold(monkeypatch):
    _no_kernel_ready(monkeypatch)


_NAMES = ["ndcg@10", "map@10", "precision@5", "recall@10", "mrr@10", "hr@3", "auc"]


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "trec_eval"])
@pytest.mark.parametrize(
    ("n_users", "n_items", "levels"),
    [(100, 50, 6), (30, 700, 10**6), (30, 600, 3), (200, 120, 2)],
)
def test_small_inputs_take_the_numpy_path_with_the_same_bits(ties, n_users, n_items, levels):
    """Small inputs never call a compiled kernel while none is ready, and the bits agree.

    The same inputs through the compiled kernels (the default of these tests)
    and, with no kernel ready, through NumPy: every metric, every tie policy,
    masks, dense and sparse relevance, and rows of 512 items or more, which
    the compiled kernels count only to the cutoff (metrics @k without AUC).
    """
    rng = np.random.default_rng(n_users + n_items + levels)
    S = rng.integers(0, levels, (n_users, n_items)) / levels
    T = (rng.random((n_users, n_items)) < 0.05) * rng.integers(1, 4, (n_users, n_items))
    T[::7] = 0
    M = (rng.random((n_users, n_items)) < 0.05) & (T == 0)
    inputs = [(T, S, M), (sp.csr_array(T), S.astype(np.float32), None)]
    cutoffs_only = [n for n in _NAMES if n != "auc"]
    compiled = [
        rm.evaluate(t, s, names, mask=m, ties=ties, per_user=True)
        for t, s, m in inputs
        for names in (_NAMES, cutoffs_only)
    ]
    rankings = [rm.from_scores(t, s, mask=m, ties=ties) for t, s, m in inputs]
    with pytest.MonkeyPatch.context() as mp:
        _no_kernel_ready(mp)
        numpy_path = [
            rm.evaluate(t, s, names, mask=m, ties=ties, per_user=True)
            for t, s, m in inputs
            for names in (_NAMES, cutoffs_only)
        ]
        numpy_rankings = [rm.from_scores(t, s, mask=m, ties=ties) for t, s, m in inputs]
    for a, b in zip(compiled, numpy_path, strict=True):
        np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())
        assert list(a.columns) == list(b.columns)
    for a, b in zip(rankings, numpy_rankings, strict=True):
        _same(a, b)


def test_small_inputs_route_by_size_and_readiness(cold, monkeypatch):
    """Below the limits: NumPy while no kernel is ready; above them, or once ready: compiled."""
    rng = np.random.default_rng(4)
    S = rng.random((20, 30))
    row_ptr = np.arange(21, dtype=np.int64) * 2
    rel = np.tile(np.array([3, 17], dtype=np.int64), 20)
    g, e, a, bad = K.count_above(S, row_ptr, rel, check=True)  # NumPy: no kernel called
    g0, e0, a0 = K._count_above_numpy(
        S, np.arange(20, dtype=np.int64), row_ptr, rel, None, None, False
    )
    np.testing.assert_array_equal(g, g0)
    np.testing.assert_array_equal(e, e0)
    assert not bad.any()
    A = (rng.random((20, 30)) < 0.2).astype(np.int8)
    assert K.dense_nonzero(A) is None  # the caller's np.nonzero
    order, size, before = K.tie_groups(row_ptr, rel.astype(np.float64))
    np.testing.assert_array_equal(order, np.arange(40))
    assert K.first_bad_value(S) is None
    S[3, 4] = np.nan
    assert K.first_bad_value(S) == (3, 4)
    # above the limit (lowered here), the compiled kernel is called
    calls = []
    monkeypatch.setattr(_counting, "_count_serial", lambda *args: calls.append(args) or "compiled")
    monkeypatch.setattr(_dispatch, "_NUMPY_MAX_WORK", 100)
    assert K.count_above(S, row_ptr, rel) == "compiled"
    # at any size, once the kernel for these types is ready
    monkeypatch.setattr(_dispatch, "_NUMPY_MAX_WORK", 1 << 26)
    monkeypatch.setattr(_dispatch, "_ready", lambda kernel, args: kernel is _counting._count_serial)
    assert K.count_above(S, row_ptr, rel) == "compiled"
    assert len(calls) == 2
    assert K.dense_nonzero(A) is None  # not ready: still NumPy


def test_small_calls_that_add_up_compile_once(cold, monkeypatch):
    """A loop of small calls: NumPy until their work passes the limit, then compiled.

    Without this, a fresh environment's loop of small evaluations (folds,
    bootstrap draws, repetitions) stays on the slower NumPy path for good.
    """
    rng = np.random.default_rng(5)
    S = rng.random((20, 30))
    row_ptr = np.arange(21, dtype=np.int64) * 2
    rel = np.tile(np.array([3, 17], dtype=np.int64), 20)  # 40 entries x 30 items: 1,200
    calls = []
    monkeypatch.setattr(_counting, "_count_serial", lambda *args: calls.append(args) or "compiled")
    monkeypatch.setattr(_dispatch, "_NUMPY_MAX_WORK", 5_000)
    out = [K.count_above(S, row_ptr, rel) for _ in range(6)]
    # 1,200, 2,400, 3,600 and 4,800 stay within the limit; 6,000 passes it
    assert [isinstance(o, str) for o in out] == [False] * 4 + [True] * 2
    assert len(calls) == 2
    g0, e0, _ = K._count_above_numpy(
        S, np.arange(20, dtype=np.int64), row_ptr, rel, None, None, False
    )
    for g, e, _a, _bad in out[:4]:
        np.testing.assert_array_equal(g, g0)
        np.testing.assert_array_equal(e, e0)
    # each kernel keeps its own sum: the NaN check of dense_nonzero has done no work
    A = (rng.random((20, 30)) < 0.2).astype(np.int8)
    assert K.dense_nonzero(A) is None


def test_ready_reads_the_process_and_numbas_cache():
    """``_ready``: a kernel compiled in this process, or not (a type never compiled)."""
    S = np.random.default_rng(0).random((3, 4))
    row_ptr = np.zeros(4, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    args = (S, row_ptr, empty, np.zeros(4, dtype=np.int64), empty, False, False, True, 0)
    K._count_serial(*args)
    assert K._ready(K._count_serial, args)
    odd = (S.astype(">f8"), *args[1:])  # big-endian scores: never compiled, never cached
    assert not K._ready(K._count_serial, odd)
    assert not K._ready(object(), args)  # anything unexpected: not ready


_FIRST_CALL = """
import json, sys, numpy as np, recmetrics as rm
from recmetrics import _kernels as K
from recmetrics._kernels import _dispatch
if sys.argv[1] == "small-limit":
    _dispatch._NUMPY_MAX_WORK = 1000  # so that a quick input counts as large
rng = np.random.default_rng(0)
y = (rng.random((300, 400)) < 0.03).astype(np.int8)
s = rng.random((300, 400))
small = rm.evaluate(y[:8, :20], s[:8, :20], ["ndcg@10", "auc"], per_user=True)
sys.stderr.write("after small\\n")
compiled_small = [k.py_func.__name__ for k in (K._count_serial, K._nonzero_serial) if k.overloads]
i64 = np.zeros(301, dtype=np.int64)
count_args = (s, i64, i64[:0], i64, i64[:0], False, False, True, 0)
ready = [K._ready(k, count_args) for k in (K._count_parallel, K._count_serial)]
large = rm.evaluate(y, s, ["ndcg@10", "auc"], per_user=True)
sys.stderr.write("after large\\n")
rm.evaluate(y, s, ["map@10"], per_user=True)
print(json.dumps({"compiled by the small call": compiled_small, "ready": ready,
                  "small": small.to_numpy().tolist(), "large": large.to_numpy().tolist()}))
"""


@pytest.mark.slow
def test_first_call_in_a_fresh_cache_compiles_only_large_inputs_and_says_so(tmp_path):
    """Fresh processes on an empty numba cache, then on the cache they filled.

    The small first call compiles nothing and prints nothing; the first large
    call prints one line before it compiles, the next calls nothing; a second
    process finds the kernels in the cache and prints nothing.
    """
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("RECMETRICS_COMPILE_NOTICE", None)
    runs = [
        subprocess.run(
            [sys.executable, "-c", _FIRST_CALL, "small-limit"],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    cold_lines = runs[0].stderr.splitlines()
    assert cold_lines[0] == "after small"
    notice = [line for line in cold_lines if "compiling" in line]
    assert len(notice) == 1 and cold_lines[1] == notice[0]
    assert notice[0].startswith("recmetrics: compiling its counting kernels with numba")
    assert "cached on disk" in notice[0] and cold_lines[2:] == ["after large"]
    assert runs[1].stderr.splitlines() == ["after small", "after large"]
    cold, warm = (json.loads(run.stdout) for run in runs)
    assert cold["compiled by the small call"] == []
    # numba's cache index, read before the large call: the parallel counting
    # kernel is there in the second process only, the serial one never was
    assert cold["ready"] == [False, False] and warm["ready"] == [True, False]
    for key in ("small", "large"):
        np.testing.assert_array_equal(np.array(cold[key]), np.array(warm[key]))


def test_compile_notice_is_one_line_once_and_can_be_silenced(monkeypatch, caplog):
    """The notice comes from numba's compile event of this module's kernels only."""
    import numba

    monkeypatch.delenv("RECMETRICS_COMPILE_NOTICE", raising=False)
    monkeypatch.setitem(K._NOTICES, "compile", False)
    with caplog.at_level(logging.WARNING, logger="recmetrics"):
        other = numba.njit(lambda x: x + 1)  # another module's function: no notice
        other(1.0)
        assert caplog.records == []
        fresh = numba.njit(K._lower_bound.py_func)  # a dispatcher without cache: compiles
        fresh(np.arange(5.0), 0, 5, 2.5)
        fresh(np.arange(5, dtype=np.float32), 0, 5, 2.5)  # compiles again: no second line
    assert [r.name for r in caplog.records] == ["recmetrics"]
    message = caplog.records[0].getMessage()
    assert "\n" not in message and message.startswith("recmetrics: compiling")
    caplog.clear()
    monkeypatch.setitem(K._NOTICES, "compile", False)
    monkeypatch.setenv("RECMETRICS_COMPILE_NOTICE", "0")
    with caplog.at_level(logging.WARNING, logger="recmetrics"):
        numba.njit(K._lower_bound.py_func)(np.arange(5.0), 0, 5, 2.5)
    assert caplog.records == []


_WITHOUT_NUMBA = """
import json, sys, warnings
sys.modules["numba"] = None  # import numba raises ImportError
import numpy as np, recmetrics as rm
from recmetrics import _kernels as K
from recmetrics._kernels import _dispatch
assert not K.HAVE_NUMBA
_dispatch._NUMPY_MAX_WORK = 1000  # so that a quick input counts as large
rng = np.random.default_rng(0)
y = (rng.random((300, 400)) < 0.03).astype(np.int8)
s = rng.random((300, 400))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    small = rm.evaluate(y[:4, :5], s[:4, :5], ["ndcg@10", "auc"], per_user=True)
    n_small = len(caught)
    large = rm.evaluate(y, s, ["ndcg@10", "auc"], per_user=True)
    rm.evaluate(y, s, ["map@10"], per_user=True)
print(json.dumps({"small": small.to_numpy().tolist(), "large": large.to_numpy().tolist(),
                  "warnings after the small call": n_small,
                  "warnings": [[w.category.__name__, str(w.message), w.filename]
                               for w in caught]}))
"""


def test_without_numba_the_numpy_path_says_so_once():
    """Without numba: the same results, and one warning naming ``pip install numba``."""
    out = subprocess.run(
        [sys.executable, "-c", _WITHOUT_NUMBA], capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout)
    assert got["warnings after the small call"] == 0
    assert len(got["warnings"]) == 1
    category, message, filename = got["warnings"][0]
    assert category == "RuntimeWarning" and "pip install numba" in message
    assert filename == "<string>"  # attributed to the caller, not to recmetrics
    rng = np.random.default_rng(0)
    y = (rng.random((300, 400)) < 0.03).astype(np.int8)
    s = rng.random((300, 400))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        large = rm.evaluate(y, s, ["ndcg@10", "auc"], per_user=True)
        small = rm.evaluate(y[:4, :5], s[:4, :5], ["ndcg@10", "auc"], per_user=True)
    np.testing.assert_array_equal(np.array(got["large"], dtype=float), large.to_numpy())
    np.testing.assert_array_equal(np.array(got["small"], dtype=float), small.to_numpy())


# -- per-user sums (Ranking.per_user_sum) ------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_segment_sums_are_bincounts_bit_for_bit(seed, monkeypatch):
    """One pass per user adds what np.bincount adds, in its order: the same bits."""
    if not K.HAVE_NUMBA:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", False)
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 40, 3_000)  # users without entries too
    counts[:5] = 0
    indptr = np.r_[0, np.cumsum(counts)].astype(np.int64)
    n = int(indptr[-1])
    assert n >= K._segments._MIN_ENTRIES
    values = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
    values[rng.random(n) < 0.05] = -0.0
    values[rng.random(n) < 0.001] = np.inf
    values[rng.random(n) < 0.001] = np.nan
    user = np.repeat(np.arange(counts.shape[0]), counts)
    expected = np.bincount(user, weights=values, minlength=counts.shape[0])
    got = K.segment_sums(indptr, values)
    np.testing.assert_array_equal(got, expected)
    assert np.array_equal(np.signbit(got), np.signbit(expected))
    # booleans and integers are summed as float64, as bincount's weights are
    flags = rng.random(n) < 0.5
    np.testing.assert_array_equal(
        K.segment_sums(indptr, flags), np.bincount(user, weights=flags, minlength=3_000)
    )


def test_segment_sums_leave_small_and_odd_inputs_to_bincount(monkeypatch):
    """None (np.bincount is used): few entries, a length that does not match, complex."""
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", False)
    indptr = np.array([0, 2, 5], dtype=np.int64)
    assert K.segment_sums(indptr, np.ones(5)) is None  # below _MIN_ENTRIES
    big = np.array([0, 10, 20_000], dtype=np.int64)
    assert K.segment_sums(big, np.ones(19_999)) is None  # does not match indptr
    assert K.segment_sums(big, np.ones(20_000, dtype=complex)) is None
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", True)
    monkeypatch.setattr(_dispatch, "_ready", lambda kernel, args: False)
    monkeypatch.setattr(_dispatch, "_NUMPY_SPENT", {})
    assert K.segment_sums(big, np.ones(20_000)) is None  # small, not compiled: bincount
