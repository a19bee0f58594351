"""The fast path of iprec_at_recall and 11pt_avg against the exact computation, user by user.

``_iprec_values`` reads the precision of untied hits with one vectorised
maximum per user and level, and leaves to the exact computation
(``_iprec_exact``, the expectation over tie orders, group by group) only the
users and levels that a tie group reaches. Both must give the same doubles
on every input form, tie policy, depth, recall level and edge case (no
relevant item, nothing retrieved, empty lists), and the levels are computed
once per Ranking.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics.metrics import interpolated_precision as ip
from recmetrics.ranking import Ranking

TIES = ("expected", "optimistic", "pessimistic", "trec_eval")
# trec_eval's levels, and some whose cut rounds differently (x |R| + 0.9 near an integer)
LEVELS = ip.RECALL_LEVELS + (0.05, 0.25, 0.33, 0.35, 0.75, 0.999)


def _scores(seed, n_users=60, n_items=25, levels=6):
    """Graded truth with a varying share of relevant items; scores with few levels (ties)."""
    rng = np.random.default_rng(seed)
    share = rng.uniform(0.0, 0.6, (n_users, 1))
    y_true = np.where(rng.random((n_users, n_items)) < share, rng.integers(1, 4, (n_users, 1)), 0)
    y_true[0] = 0  # a user without relevant items
    y_true[1] = 1  # every item relevant
    y_score = rng.integers(0, levels, (n_users, n_items)).astype(float)
    y_score[2] = np.arange(n_items)  # no ties at all
    y_score[3] = 0.0  # one tie group holding the whole row
    return y_true, y_score


def _same(r, levels=LEVELS):
    """The fast path and the exact computation agree bit for bit on every user and level."""
    fast = ip._iprec_values(r, levels)
    exact = ip._iprec_exact(r, levels)
    assert fast.shape == exact.shape == (r.n_users, len(levels))
    np.testing.assert_array_equal(fast, exact)
    return fast


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", range(4))
def test_fast_path_equals_exact_on_score_matrices(seed, ties):
    y_true, y_score = _scores(seed)
    _same(rm.from_scores(y_true, y_score, ties=ties))


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", range(3))
def test_fast_path_equals_exact_many_ties_and_untied(seed, ties):
    """Two score levels (large tie groups) and continuous scores (no ties)."""
    y_true, _ = _scores(seed + 10, n_users=30, n_items=12)
    rng = np.random.default_rng(seed)
    _same(rm.from_scores(y_true, rng.integers(0, 2, y_true.shape).astype(float), ties=ties))
    _same(rm.from_scores(y_true, rng.random(y_true.shape), ties=ties))


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("depth", [1, 3, 10])
def test_fast_path_equals_exact_with_depth_and_mask(depth, ties):
    y_true, y_score = _scores(5, n_users=40, n_items=20)
    mask = np.random.default_rng(5).random(y_true.shape) < 0.2
    _same(rm.from_scores(y_true, y_score, ties=ties, depth=depth))
    _same(rm.from_scores(y_true, y_score, mask=mask, ties=ties))


def test_fast_path_equals_exact_on_lists_with_empty_lists_and_unretrieved():
    rng = np.random.default_rng(3)
    recommended, relevant = [], []
    for u in range(50):
        n = int(rng.integers(0, 15)) if u % 7 else 0  # some empty lists
        recommended.append(list(rng.choice(40, n, replace=False)))
        relevant.append(set(rng.choice(40, int(rng.integers(0, 8)), replace=False).tolist()))
    r = rm.from_lists(recommended, relevant)
    out = _same(r)
    assert np.all(out[[u for u in range(50) if not recommended[u]]] == 0.0)


@pytest.mark.parametrize("ties", TIES)
def test_fast_path_equals_exact_on_frames(ties):
    """Long frames (explicit judgments, unretrieved relevant items, tied scores)."""
    rng = np.random.default_rng(7)
    rows, truth = [], []
    for u in range(80):
        items = rng.choice(60, int(rng.integers(1, 30)), replace=False)
        score = np.round(rng.random(items.size), 1)
        rows += [(u, i, s) for i, s in zip(items, score, strict=True)]
        judged = rng.choice(60, 20, replace=False)
        truth += [(u, i, int(rng.integers(0, 3))) for i in judged]
    pred = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth, columns=["user", "item", "grade"])
    r = rm.from_frames(truth, pred, relevance="grade", ties=ties)
    _same(r)


def test_empty_ranking_and_users_without_relevant_items():
    r = rm.from_scores(np.zeros((3, 4)), np.ones((3, 4)))
    np.testing.assert_array_equal(_same(r), np.zeros((3, len(LEVELS))))
    r = rm.from_lists([[], [], [1]], [set(), {2}, {1}])
    np.testing.assert_array_equal(_same(r)[:, 0], [0.0, 0.0, 1.0])


def test_known_values_through_the_fast_path(monkeypatch):
    """Hits at ranks 1, 3, 6 of |R| = 4: the untied path alone, never the exact one."""

    def refuse(*args, **kwargs):
        raise AssertionError("the exact path was taken for an untied ranking")

    monkeypatch.setattr(ip, "_iprec_exact", refuse)
    r = rm.from_lists([list(range(10))], [{0, 2, 5, 99}])
    got = ip._iprec_values(r, ip.RECALL_LEVELS)[0]
    # cuts int(x * 4 + 0.9): 0 1 1 2 2 2 3 3 4 4 4 (4 > 3 retrieved: 0)
    want = [1.0, 1.0, 1.0, 2 / 3, 2 / 3, 2 / 3, 0.5, 0.5, 0.0, 0.0, 0.0]
    assert got.tolist() == want
    assert rm.precision_11pt(r) == np.mean(want)
    # and on a list of gains (|R| = 3: 4 levels at 1, 4 at 2/3, 3 at 1/2)
    assert rm.precision_11pt([1, 0, 1, 0, 0, 1]) == pytest.approx((4 + 8 / 3 + 1.5) / 11)


def test_levels_are_computed_once_per_ranking(monkeypatch):
    """11pt_avg and the 11 iprec_at_recall_x measures of one Ranking share one computation."""
    y_true, y_score = _scores(1)
    r = rm.from_scores(y_true, y_score, ties="expected")
    calls = []
    levels_fn = ip._iprec_levels

    def counted(r, levels):
        calls.append(tuple(levels))
        return levels_fn(r, levels)

    monkeypatch.setattr(ip, "_iprec_levels", counted)
    pt = rm.precision_11pt(r, per_user=True)
    cols = [
        ip.IPREC_AT_LEVEL[f"iprec_at_recall_{x:.2f}"](r, per_user=True) for x in ip.RECALL_LEVELS
    ]
    assert calls == [ip.RECALL_LEVELS]
    np.testing.assert_allclose(np.mean(cols, axis=0), pt, rtol=0, atol=1e-15)
    # a level outside the 11 is computed on its own, once
    rm.iprec_at_recall(r, recall_level=0.25)
    rm.iprec_at_recall(r, recall_level=0.25)
    assert calls == [ip.RECALL_LEVELS, (0.25,)]
    # the kept columns cannot be changed through a result
    out = rm.iprec_at_recall(r, recall_level=0.5, per_user=True, no_relevant="zero")
    out[:] = -1.0
    assert np.all(ip._iprec_values(r, (0.5,)) >= 0.0)


def test_evaluate_all_levels_match_the_exact_computation():
    """Through rm.evaluate (one Ranking for every measure), ties='expected'."""
    y_true, y_score = _scores(2)
    names = [f"iprec_at_recall_{x:.2f}" for x in ip.RECALL_LEVELS] + ["11pt_avg"]
    got = rm.evaluate(y_true, y_score, names, ties="expected", per_user=True, no_relevant="zero")
    r = rm.from_scores(y_true, y_score, ties="expected")
    exact = ip._iprec_exact(r, ip.RECALL_LEVELS)
    for col, name in enumerate(names[:-1]):
        np.testing.assert_array_equal(got[name].to_numpy(), exact[:, col])
    np.testing.assert_allclose(got["11pt_avg"].to_numpy(), exact.mean(axis=1), rtol=0, atol=1e-15)


def test_a_hand_built_ranking_with_inconsistent_counts_takes_the_exact_path():
    """rel_before that does not count the hits above: the exact computation, as before."""
    one = np.ones(2)
    r = Ranking(
        indptr=np.array([0, 2]),
        gain=one,
        start=np.array([0.0, 3.0]),
        size=one,
        group_rel=one,
        rel_before=np.array([0.0, 0.0]),  # should be [0, 1]
        n_ranked=np.array([5.0]),
    )
    levels = (0.0, 0.1, 0.2)  # cut 1 (the exact path fails for a cut of 2: no group holds it)
    np.testing.assert_array_equal(ip._iprec_values(r, levels), ip._iprec_exact(r, levels))
    assert ip._iprec_prep(r)["reach"][0] == np.inf


def test_a_ranking_with_entries_out_of_rank_order():
    """Entries of a user not in rank order (a Ranking built by hand): sorted first."""
    one = np.ones(3)
    r = Ranking(
        indptr=np.array([0, 3]),
        gain=one,
        start=np.array([5.0, 0.0, 2.0]),  # hits at ranks 6, 1 and 3
        size=one,
        group_rel=one,
        rel_before=np.array([2.0, 0.0, 1.0]),
        n_ranked=np.array([8.0]),
    )
    got = _same(r)
    assert got[0, ip.RECALL_LEVELS.index(1.0)] == 0.5
    assert got[0, ip.RECALL_LEVELS.index(0.5)] == 2 / 3
