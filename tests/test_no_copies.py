"""Scores and masks are not copied where the documentation says they are used as they are."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import recmetrics as rm
from recmetrics.evaluation._rankings import cast_scores


def _peak(fn):
    fn()  # warm up (compilation, caches)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_float32_scores_under_score_dtype_float32_are_not_copied():
    s = np.random.default_rng(0).random((300, 400)).astype(np.float32)
    assert cast_scores(s, "float32", "trec_eval") is s
    s64 = s.astype(np.float64)
    out = cast_scores(s64, "float32", None)
    assert out.dtype == np.float32 and not np.shares_memory(out, s64)
    assert _peak(lambda: cast_scores(s, "float32", None)) < 1000


@pytest.mark.parametrize(
    ("values", "bad"),
    [
        ([1.0, 2.0], False),
        ([1e39, 1.0], True),
        ([-1e39, 1.0], True),
        ([np.inf, 1e39], True),  # an infinity does not hide a finite overflow
        ([np.inf, 1.0], False),
        ([np.nan, np.inf], False),  # nothing finite: nothing overflows
    ],
)
def test_float32_range_check(values, bad):
    arr = np.array(values)
    if bad:
        with pytest.raises(ValueError, match="float32 range"):
            cast_scores(arr, "float32", "trec_eval")
    else:
        assert cast_scores(arr, "float32", None).dtype == np.float32


def test_numeric_masks_are_checked_without_full_size_temporaries():
    rng = np.random.default_rng(1)
    y = rng.random((400, 2000)) < 0.002
    s = rng.random((400, 2000), dtype=np.float32)
    m = rng.random((400, 2000)) < 0.002
    base = _peak(lambda: rm.from_scores(y, s, mask=m))
    for dtype in (np.float64, np.int8, np.int64):
        typed = m.astype(dtype)
        assert _peak(lambda typed=typed: rm.from_scores(y, s, mask=typed)) - base < s.size / 64
        assert rm.ndcg(y, s, mask=typed) == rm.ndcg(y, s, mask=m)


@pytest.mark.parametrize("bad", [2, 0.5, np.nan, -1])
def test_numeric_masks_hold_only_0_and_1(bad):
    y = np.array([[1, 0, 0, 1]])
    s = np.array([[0.4, 0.3, 0.2, 0.1]])
    mask = np.array([[0.0, bad, 0.0, 0.0]])
    with pytest.raises(TypeError, match="mask must be boolean"):
        rm.from_scores(y, s, mask=mask)
