"""Relevant, judged non-relevant and unjudged items in the Ranking (long frames).

Checked against brute-force enumeration of every order of the tied items,
for every tie policy; and no metric changes when truth gains rows of
relevance 0.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics.metrics import _registry
from recmetrics.ranking import TIE_POLICIES


def _frames(seed, n_users=4, n_items=7):
    rng = np.random.default_rng(seed)
    truth, run = [], []
    for u in range(n_users):
        items = rng.permutation(n_items)
        listed = items[: rng.integers(1, n_items + 1)]
        for i in listed:
            run.append((u, f"d{i}", float(rng.integers(1, 4))))  # few values: ties
        judged = rng.permutation(n_items)[: rng.integers(1, n_items)]
        for i in judged:
            truth.append((u, f"d{i}", int(rng.integers(0, 3))))
        if not any(g > 0 for (v, _, g) in truth if v == u):
            truth.append((u, f"d{judged[0]}", 1))
            truth = [t for t in truth if not (t[0] == u and t[1] == f"d{judged[0]}" and t[2] == 0)]
    truth = pd.DataFrame(truth, columns=["user", "item", "rel"])
    truth = truth.drop_duplicates(["user", "item"], keep="last")
    run = pd.DataFrame(run, columns=["user", "item", "score"])
    return truth, run


def _orders(rows, ties):
    """Every order of one user's predictions that the tie policy allows, equally likely."""
    rows = sorted(rows, key=lambda r: -r[1])
    groups = [list(g) for _, g in itertools.groupby(rows, key=lambda r: r[1])]
    if ties == "trec_eval":
        yield [r for g in groups for r in sorted(g, key=lambda r: r[0], reverse=True)]
        return
    options = []
    for g in groups:
        if ties == "expected":
            options.append(list(itertools.permutations(g)))
        else:
            rel = [r for r in g if r[2] > 0]
            other = [r for r in g if r[2] <= 0]
            first, last = (rel, other) if ties == "optimistic" else (other, rel)
            # the relevant items' own order is fixed by the policy; the others may permute
            options.append(
                [tuple(first) + p for p in itertools.permutations(last)]
                if ties == "optimistic"
                else [p + tuple(last) for p in itertools.permutations(first)]
            )
    for combo in itertools.product(*options):
        yield [r for g in combo for r in g]


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", range(6))
def test_judged_nonrelevant_positions_match_enumeration(ties, seed):
    truth, run = _frames(seed)
    r = rm.from_frames(truth, run, relevance="rel", ties=ties)
    assert r.judgments == "explicit"
    for u, uid in enumerate(r.user_ids):
        grade = dict(truth.loc[truth.user == uid, ["item", "rel"]].itertuples(index=False))
        rows = [
            (i, s, grade.get(i, -1))
            for i, s in run.loc[run.user == uid, ["item", "score"]].itertuples(index=False)
        ]
        positions = {}  # judged non-relevant item -> positions it takes over the orders
        judged_top = {k: [] for k in range(1, 8)}
        for order in _orders(rows, ties):
            for pos, (item, _, g) in enumerate(order, start=1):
                if g == 0:
                    positions.setdefault(item, []).append(pos)
            for k in judged_top:
                judged_top[k].append(sum(1 for (_, _, g) in order[:k] if g >= 0))
        lo, hi = r.nonrel_indptr[u], r.nonrel_indptr[u + 1]
        got = sorted(zip(r.nonrel_start[lo:hi], r.nonrel_size[lo:hi], strict=True))
        want = []
        for item, g in grade.items():
            if g > 0:
                continue
            if item not in positions:
                want.append((np.inf, 1.0))
                continue
            pos = positions[item]
            # each position of the range equally often
            lo_p, hi_p = min(pos), max(pos)
            counts = np.bincount(pos)[lo_p:]
            assert np.all(counts == counts[0]) and len(counts) == hi_p - lo_p + 1
            want.append((lo_p - 1.0, float(hi_p - lo_p + 1)))
        assert got == sorted(want), (ties, uid)
        for k, values in judged_top.items():
            assert r.judged_in_top(k)[u] == pytest.approx(np.mean(values), abs=1e-12)


@pytest.mark.parametrize("ties", TIE_POLICIES)
def test_ranked_by_rank_column(ties):
    truth, run = _frames(11)
    run["rank"] = run.groupby("user")["score"].rank(method="first", ascending=False)
    r = rm.from_frames(truth, run.drop(columns="score"), relevance="rel", rank="rank")
    assert r.judgments == "explicit" and np.all(r.nonrel_size == 1.0)
    for u, uid in enumerate(r.user_ids):
        zero = truth[(truth.user == uid) & (truth.rel == 0)].item
        rank = run[run.user == uid].set_index("item")["rank"]
        want = sorted(rank.get(i, np.inf) - 1.0 if i in rank.index else np.inf for i in zero)
        lo, hi = r.nonrel_indptr[u], r.nonrel_indptr[u + 1]
        assert sorted(r.nonrel_start[lo:hi]) == want


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", range(4))
def test_judged_nonrelevant_rows_change_no_metric(ties, seed):
    truth, run = _frames(seed)
    # every metric that does not read the judgments (bpref, judged, unjudged and
    # rbp_residual do)
    reads_judgments = ("bpref", "judged", "unjudged", "rbp_residual")
    reads_judgments += ("gm_bpref", "num_nonrel_judged_ret", "infap")  # issue 26
    names = [
        f"{m}@3" if _registry.get(m).takes_cutoff else m
        for m in _registry.ranking_names()
        if m not in reads_judgments
    ]
    with_zero = rm.evaluate(truth, run, names, relevance="rel", ties=ties, per_user=True)
    only_rel = truth[truth.rel > 0]
    without = rm.evaluate(only_rel, run, names, relevance="rel", ties=ties, per_user=True)
    pd.testing.assert_frame_equal(with_zero, without)


def test_other_inputs_have_complete_judgments():
    r = rm.from_scores([[1, 0, 0]], [[0.3, 0.2, 0.1]])
    assert r.judgments == "complete" and r.n_judged_nonrelevant is None
    assert r.judged_in_top(2).tolist() == [2.0]
    assert rm.from_lists([["a", "b"]], [{"a"}]).judgments == "complete"


def test_representation_is_checked():
    r = rm.from_scores([[1, 0]], [[0.3, 0.2]])
    from dataclasses import replace

    with pytest.raises(ValueError, match="judgments must be one of"):
        replace(r, judgments="partial")
    with pytest.raises(ValueError, match="exactly when"):
        replace(r, judgments="explicit")
