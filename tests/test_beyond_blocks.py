"""Beyond-accuracy metrics of score matrices read them a block of rows at a time."""

import tracemalloc

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics.inputs.lists import top_k


def _peak(f):
    f()  # compiled kernels and caches first
    tracemalloc.start()
    f()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_memory_does_not_grow_with_the_users():
    rng = np.random.default_rng(0)
    peaks = {}
    for n_users in (1_000, 4_000):
        s = rng.random((n_users, 5_000), dtype=np.float32)
        y = (rng.random((n_users, 5_000)) < 0.002).astype(np.int8)
        peaks[n_users] = _peak(lambda s=s, y=y: rm.evaluate(y, s, ["ndcg@10", "coverage@10"]))
    # a few blocks' worth (4 million cells as float64), not the 80 MB matrix or more
    assert peaks[4_000] < 1.2 * peaks[1_000], peaks
    assert peaks[4_000] < 2 * s.nbytes, (peaks, s.nbytes)


def test_the_same_lists_and_values_as_one_block():
    rng = np.random.default_rng(1)
    s = np.round(rng.random((3_000, 2_000)), 2)  # ties across block edges
    y = rng.random((3_000, 2_000)) < 0.01
    mask = rng.random((3_000, 2_000)) < 0.05
    whole = top_k(s, 10, mask=mask)
    rows = [top_k(s[lo : lo + 500], 10, mask=mask[lo : lo + 500]) for lo in range(0, 3_000, 500)]
    np.testing.assert_array_equal(whole, np.vstack(rows))
    metrics = ["ndcg@10", "coverage@10", "arp@10"]
    pop = pd.Series(y.sum(axis=0), index=np.arange(2_000))
    a = rm.evaluate(y, s, metrics, mask=mask, popularity=pop)
    b = rm.evaluate(y.astype(np.float64), s.astype(np.float32).astype(np.float64), metrics,
                    mask=mask.astype(np.int8), popularity=pop)  # fmt: skip
    np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=1e-12)


def test_boolean_relevance_with_a_beyond_metric():
    # accepted as for the ranking metrics alone (it raised TypeError before)
    y = np.array([[True, False, True, False], [False, True, False, False]])
    s = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.4, 0.6, 0.8]])
    both = rm.evaluate(y, s, ["ndcg@2", "coverage@2"])
    assert both["ndcg@2"] == pytest.approx(rm.evaluate(y, s, ["ndcg@2"])["ndcg@2"])
    assert both["coverage@2"] == pytest.approx(rm.evaluate(y * 1, s, ["coverage@2"])["coverage@2"])


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (np.array([[0.1, np.nan], [0.2, 0.3]]), "y_score"),
        (np.array([[0.1, np.inf], [0.2, 0.3]]), "y_score"),
    ],
)
def test_bad_scores_are_named_in_any_block(bad, message):
    big = np.tile(bad, (3_000_000 // bad.size, 1))
    with pytest.raises(ValueError, match=message):
        rm.evaluate(np.ones_like(big), big, ["coverage@1"])


def test_integer_scores_beyond_2_53_are_ranked_exactly():
    # as from_scores ranks them: float64 would merge 2**60 and 2**60 + 1
    for scores in ([[2**60, 2**60 + 1, 0]], np.array([[2**60, 2**60 + 1, 0]])):
        assert top_k(scores, 1).tolist() == [[1]]
    y = np.array([[0, 1, 0]])
    s = np.array([[2**60, 2**60 + 1, 0]])
    train = pd.DataFrame({"user": [0, 1, 2, 3], "item": [1, 1, 2, 0]})
    out = rm.evaluate(y, s, ["mrr", "arp@1"], popularity=train)
    # the top item is column 1 for both: mrr 1, and arp its popularity in train
    assert out["mrr"] == 1.0
    same_top = np.array([[0, 1, 0]])  # column 1 first, in plain numbers
    want = rm.evaluate(y, same_top, ["arp@1"], popularity=train)["arp@1"]
    assert out["arp@1"] == pytest.approx(want)


def test_a_mask_of_numbers_holds_zeros_and_ones():
    s = [[1.0, 2.0, 3.0]]
    assert top_k(s, 1, mask=[[0, 0, 1.0]]).tolist() == [[1]]
    with pytest.raises(TypeError, match="mask must be boolean"):
        top_k(s, 1, mask=[[0.5, 0, 0]])
    with pytest.raises(ValueError, match="NaN"):
        top_k(s, 1, mask=[[np.nan, 0, 0]])
