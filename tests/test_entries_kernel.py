"""The compiled Ranking writer of ties='expected' against tie_groups and gathers, bit for bit.

:func:`recmetrics._kernels._entries.expected_entries` writes the five
arrays of a Ranking in the row order of ``tie_groups``; the NumPy path of
``_entries_from_counts`` (``tie_groups``, then gathers) must give the same
doubles, on short rows (counted) and long ones (heap sorted), with ties,
unranked entries and empty rows; and on inputs it cannot sort exactly the
kernel declines (``None``) and the caller's NumPy path answers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics._kernels import HAVE_NUMBA, _dispatch, tie_groups
from recmetrics._kernels import _entries as E
from recmetrics.ranking import scores as sc

FIELDS = ("indptr", "gain", "start", "size", "group_rel", "rel_before", "n_ranked", "n_items")


@pytest.fixture
def compiled(monkeypatch):
    """Every input takes the compiled kernels (numba present)."""
    if not HAVE_NUMBA:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", False)


def _rows(seed, max_len, levels):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, max_len, 30)
    lengths[:2] = (0, max_len)  # an empty row and a long one
    row_ptr = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=row_ptr[1:])
    n = int(row_ptr[-1])
    greater = rng.integers(0, levels, n).astype(float) * 3.0
    dropped = rng.random(n) < 0.2
    greater[dropped] = rng.integers(0, 3, int(dropped.sum()))  # not read: the fill is
    fill = float(3 * levels)
    unranked = dropped | (rng.random(n) < 0.1)
    gain = rng.integers(1, 4, n).astype(float)
    equal = rng.integers(1, 6, n).astype(float)
    return row_ptr, greater, dropped, fill, unranked, gain, equal


def _numpy_path(row_ptr, greater, dropped, fill, unranked, gain, equal):
    key = np.where(dropped, fill, greater)
    order, group_rel, rel_before = tie_groups(row_ptr, key)
    start = key[order]
    start[unranked[order]] = np.inf
    return gain[order], start, equal[order], group_rel[order], rel_before[order]


@pytest.mark.parametrize("max_len", [5, 64, 65, 300])
@pytest.mark.parametrize("levels", [1, 3, 1000])
@pytest.mark.parametrize("seed", range(3))
def test_kernel_equals_tie_groups_and_gathers(compiled, seed, max_len, levels):
    args = _rows(seed, max_len, levels)
    got = E.expected_entries(*args)
    assert got is not None
    for a, b in zip(got, _numpy_path(*args), strict=True):
        assert a.dtype == np.float64
        np.testing.assert_array_equal(a, b)


def test_kernel_declines_keys_it_cannot_sort_exactly(compiled):
    row_ptr, greater, dropped, fill, unranked, gain, equal = _rows(0, 300, 5)
    rest = (unranked, gain, equal)
    assert E.expected_entries(row_ptr, greater + 0.5, dropped, fill, *rest) is None
    assert E.expected_entries(row_ptr, greater + 2.0**45, dropped, fill, *rest) is None
    assert E.expected_entries(row_ptr, greater, dropped, fill + 0.5, *rest) is None
    assert E.expected_entries(row_ptr, greater, dropped, fill, *rest) is not None
    # short rows are counted, not sorted: any key will do
    short = np.array([0, 2, 3], dtype=np.int64)
    no = np.zeros(3, bool)
    out = E.expected_entries(short, np.array([0.5, 0.25, 7.0]), no, 0.0, no, *[np.ones(3)] * 2)
    np.testing.assert_array_equal(out[1], [0.25, 0.5, 7.0])


def test_without_numba_the_caller_takes_the_numpy_path(monkeypatch):
    monkeypatch.setattr(E, "HAVE_NUMBA", False)
    assert E.expected_entries(*_rows(1, 10, 3)) is None


def _frames(seed, max_len):
    """Frames with long truth rows per user, tied scores, relevant items not predicted."""
    rng = np.random.default_rng(seed)
    pred, truth = [], []
    for u in range(25):
        n = int(rng.integers(1, max_len))
        items = rng.choice(2 * max_len, n, replace=False)
        pred += [(u, i, s) for i, s in zip(items, rng.integers(0, 5, n) / 4, strict=True)]
        judged = rng.choice(2 * max_len, int(rng.integers(1, max_len)), replace=False)
        truth += [(u, i, int(rng.integers(0, 3))) for i in judged]
    pred = pd.DataFrame(pred, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth, columns=["user", "item", "grade"])
    return truth, pred


@pytest.mark.parametrize("max_len", [20, 200])
@pytest.mark.parametrize("grouped", [True, False])
def test_frames_and_scores_same_ranking_with_and_without_the_kernel(
    compiled, monkeypatch, max_len, grouped
):
    truth, pred = _frames(max_len, max_len)
    if grouped:
        truth = truth.sort_values(["user", "item"])
    rng = np.random.default_rng(max_len)
    y_true = np.where(rng.random((20, max_len)) < 0.4, rng.integers(1, 4, (20, max_len)), 0)
    y_score = rng.integers(0, 4, (20, max_len)).astype(float)
    calls = []
    kernel = E.expected_entries

    def counted(*args, **kwargs):
        out = kernel(*args, **kwargs)
        calls.append(out is not None)
        return out

    def build():
        return [
            rm.from_frames(truth, pred, relevance="grade", ties="expected"),
            rm.from_frames(
                truth, pred, relevance="grade", ties="expected", retrieve_nonpositive=False
            ),
            rm.from_scores(y_true, y_score, ties="expected"),
            rm.from_scores(y_true, y_score, ties="expected", depth=3),
        ]

    monkeypatch.setattr(sc, "expected_entries", counted)
    with_kernel = build()
    assert any(calls)
    monkeypatch.setattr(sc, "expected_entries", lambda *args, **kwargs: None)
    without = build()
    for a, b in zip(with_kernel, without, strict=True):
        for field in FIELDS:
            x, y = getattr(a, field), getattr(b, field)
            assert (x is None) == (y is None), field
            if x is not None:
                np.testing.assert_array_equal(x, y, err_msg=field)


@pytest.mark.parametrize("max_len", [5, 64, 65, 300])
@pytest.mark.parametrize("seed", range(3))
def test_kernel_groups_entries_in_any_order_by_user(compiled, seed, max_len):
    """Entries shuffled across users: as sorting by user (stable), then the grouped kernel."""
    row_ptr, greater, dropped, fill, unranked, gain, equal = _rows(seed, max_len, 4)
    user = np.repeat(np.arange(row_ptr.size - 1), np.diff(row_ptr))
    shuffle = np.random.default_rng(seed).permutation(user.size)
    args = [x[shuffle] for x in (greater, dropped, unranked, gain, equal)]
    got = E.expected_entries(row_ptr, args[0], args[1], fill, *args[2:], user=user[shuffle])
    back = np.argsort(user[shuffle], kind="stable")  # grouped, input order kept within a user
    want = _numpy_path(row_ptr, args[0][back], args[1][back], fill, *[a[back] for a in args[2:]])
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "trec_eval"])
def test_frames_with_shuffled_truth_same_ranking_with_and_without_the_kernel(
    compiled, monkeypatch, ties
):
    """The general path (two global sorts) and the kernel's counting pass agree."""
    truth, pred = _frames(3, 120)
    truth = truth.sample(frac=1.0, random_state=5)
    with_kernel = rm.from_frames(truth, pred, relevance="grade", ties=ties)
    monkeypatch.setattr(sc, "expected_entries", lambda *args, **kwargs: None)
    without = rm.from_frames(truth, pred, relevance="grade", ties=ties)
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(with_kernel, field), getattr(without, field))
