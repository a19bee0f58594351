"""Beyond-accuracy metrics (issue 13, first part): hand-computed cases and properties."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recmetrics import beyond

TRAIN = pd.DataFrame({"user": [1, 2, 3, 4, 5], "item": ["a", "a", "a", "b", "c"]})
GENRES = {"a": {"Drama"}, "b": {"Drama", "War"}, "c": {"Comedy"}, "d": set()}


def test_coverage_gini_entropy_by_hand():
    lists = [["a", "b"], ["a", "c"]]
    assert beyond.coverage(lists, n_items=4) == 0.75
    assert beyond.coverage(lists, n_items=4, k=1) == 0.25
    # exposures a=2, b=1, c=1, d=0 sorted: 0, 1, 1, 2
    x = np.array([0, 1, 1, 2.0])
    j = np.arange(1, 5)
    assert beyond.gini(lists, n_items=4) == pytest.approx(np.sum((2 * j - 5) * x) / (4 * x.sum()))
    p = np.array([0.5, 0.25, 0.25])
    assert beyond.entropy(lists) == pytest.approx(-(p * np.log2(p)).sum())
    assert beyond.gini([["a"], ["b"], ["c"]], n_items=3) == 0.0
    with pytest.raises(ValueError, match="smaller than"):
        beyond.gini(lists, n_items=2)


def test_popularity_metrics_by_hand():
    lists = [["a", "b"], ["c"]]
    per = beyond.novelty(lists, TRAIN, per_user=True)
    assert per[0] == pytest.approx((-math.log2(3 / 5) - math.log2(1 / 5)) / 2)
    assert per[1] == pytest.approx(-math.log2(1 / 5))
    assert beyond.average_popularity(lists, TRAIN, per_user=True).tolist() == [2.0, 1.0]
    counts = pd.Series({"a": 3, "b": 1, "c": 1})
    assert beyond.novelty(lists, counts, n_users=5) == pytest.approx(beyond.novelty(lists, TRAIN))
    # head = the items holding 60 % of the interactions = {a}
    assert beyond.long_tail_share(lists, TRAIN, head=0.6, per_user=True).tolist() == [0.5, 1.0]
    with pytest.raises(ValueError, match="no training interaction"):
        beyond.novelty([["z"]], TRAIN, unseen="raise")
    assert np.isfinite(beyond.novelty([["z"]], TRAIN))
    with pytest.raises(TypeError, match="n_users"):
        beyond.novelty(lists, counts)


def test_intra_list_diversity_by_hand():
    ild = beyond.intra_list_diversity
    # jaccard: a-b 1/2, a-c 1, b-c 1 -> 5/6
    assert ild([["a", "b", "c"]], GENRES) == pytest.approx((0.5 + 1 + 1) / 3)
    assert np.isnan(ild([["a"]], GENRES, per_user=True)[0])
    onehot = pd.DataFrame(
        {"Drama": [1, 1, 0], "War": [0, 1, 0], "Comedy": [0, 0, 1]}, index=["a", "b", "c"]
    )
    assert ild([["a", "b", "c"]], onehot) == pytest.approx((0.5 + 1 + 1) / 3)
    cos_ab = 1 - 1 / math.sqrt(2)
    assert ild([["a", "b"]], onehot, distance="cosine") == pytest.approx(cos_ab)
    dist = pd.DataFrame([[0, 0.2], [0.2, 0]], index=["a", "b"], columns=["a", "b"])
    assert ild([["a", "b"]], dist, distance="precomputed") == pytest.approx(0.2)
    w = [
        1 / math.log2(2) / math.log2(3),
        1 / math.log2(2) / math.log2(4),
        1 / math.log2(3) / math.log2(4),
    ]
    assert ild([["a", "b", "c"]], GENRES, discount=True) == pytest.approx(
        (w[0] * 0.5 + w[1] + w[2]) / sum(w)
    )
    with pytest.raises(ValueError, match="no entry for item"):
        ild([["a", "x"]], GENRES)


def test_input_forms_agree():
    lists = [["a", "b", "c"], ["c", "a"]]
    frame = pd.DataFrame(
        {
            "user": ["u", "u", "u", "v", "v"],
            "item": ["a", "b", "c", "c", "a"],
            "rank": [1, 2, 3, 1, 2],
        }
    )
    by_score = frame.assign(score=-frame["rank"]).drop(columns="rank").iloc[::-1]
    for fn, kw in (
        (beyond.intra_list_diversity, {"features": GENRES}),
        (beyond.novelty, {"popularity": TRAIN}),
    ):
        a = fn(lists, **kw, per_user=True)
        b = fn(frame, **kw, per_user=True)
        c = fn(by_score, **kw, per_user=True)
        np.testing.assert_allclose(a, b.loc[["u", "v"]].to_numpy())
        np.testing.assert_allclose(a, c.loc[["u", "v"]].to_numpy())
    arr = np.array([[0, 1, 2], [2, 0, 3]])
    feats = pd.DataFrame(np.eye(4), index=range(4))
    assert beyond.intra_list_diversity(arr, feats) == 1.0
    with pytest.raises(ValueError, match="twice"):
        beyond.coverage([["a", "a"]], n_items=3)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from("abcd"), min_size=2, max_size=4, unique=True),
        min_size=1,
        max_size=6,
    ),
    st.randoms(use_true_random=False),
)
def test_properties(lists, rnd):
    ild = beyond.intra_list_diversity(lists, GENRES, per_user=True)
    assert np.all((ild >= 0) & (ild <= 1))
    shuffled = [rnd.sample(lst, len(lst)) for lst in lists]
    np.testing.assert_allclose(beyond.intra_list_diversity(shuffled, GENRES, per_user=True), ild)
    assert 0 <= beyond.gini(lists, n_items=4) <= 1
    assert 0 < beyond.coverage(lists, n_items=4) <= 1
    same = [["a", "b"]] * 3
    assert beyond.intra_list_diversity([["a", "a2"]], {"a": {"x"}, "a2": {"x"}}) == 0.0
    assert beyond.entropy(same) == 1.0
