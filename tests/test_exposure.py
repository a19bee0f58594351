"""Fairness of exposure (issue 29): exposure, disparities and expected exposure loss.

Attention models, item and group exposure, the disparate treatment ratio,
expected exposure loss and per-user-group disparities.

Hand-computed values on tiny lists, properties (shares sum to 1, relabelling,
a uniform shuffle of equally relevant items meets the target), a cross-check
of the expected exposure metrics against a port of the authors' ``expeval``
(github.com/diazf/expeval, ``exposure.py`` and ``util.py``), and bad input.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import recmetrics as rm
from recmetrics import beyond

L3 = 1.0 / math.log2(3.0)  # log attention of rank 2


# --------------------------------------------------------------------------
# attention models
def test_attention_weights_by_hand():
    np.testing.assert_allclose(beyond.attention_weights(3), [1.0, L3, 0.5])
    # RBP: (1 - p) p^(r - 1)
    np.testing.assert_allclose(beyond.attention_weights(3, "rbp", patience=0.8), [0.2, 0.16, 0.128])
    # geometric: p^(r - 1), patience 0.5 by default
    np.testing.assert_allclose(beyond.attention_weights(3, "geometric"), [1.0, 0.5, 0.25])
    np.testing.assert_allclose(beyond.attention_weights(2, "uniform"), [1.0, 1.0])
    # weights per rank; ranks beyond the array get 0
    np.testing.assert_allclose(beyond.attention_weights(3, [0.7, 0.2]), [0.7, 0.2, 0.0])


@pytest.mark.parametrize(
    "kwargs,error",
    [
        ({"attention": "dcg"}, ValueError),
        ({"attention": "log", "patience": 0.5}, TypeError),
        ({"attention": "rbp", "patience": 1.5}, ValueError),
        ({"attention": [1.0, -0.5]}, ValueError),
        ({"attention": {1: 1.0}}, TypeError),
        ({"attention": [1.0], "patience": 0.5}, TypeError),
    ],
)
def test_attention_weights_bad_input(kwargs, error):
    with pytest.raises(error, match="attention|patience"):
        beyond.attention_weights(3, **kwargs)


# --------------------------------------------------------------------------
# item and group exposure
RECS = [["a", "b", "c"], ["b", "a"]]


def test_item_exposure_by_hand():
    # a: rank 1 and 2 -> 1 + 1/log2(3); b: rank 2 and 1; c: rank 3 -> 1/log2(4) = 0.5
    e = beyond.item_exposure(RECS)
    assert list(e.index) == ["a", "b", "c"]
    np.testing.assert_allclose(e.to_numpy(), [1 + L3, 1 + L3, 0.5])
    share = beyond.item_exposure(RECS, normalize=True)
    assert share.sum() == pytest.approx(1.0)
    # k=1 keeps the first slot of each list: a 1, b 1
    np.testing.assert_allclose(beyond.item_exposure(RECS, k=1).to_numpy(), [1.0, 1.0])


def test_item_exposure_reads_frame_ranks_with_gaps():
    frame = pd.DataFrame({"user": [1, 1, 2], "item": ["x", "y", "x"], "rank": [1, 3, 2]})
    e = beyond.item_exposure(frame, attention="geometric")
    # x: rank 1 (1) + rank 2 (0.5); y: rank 3 (0.25)
    assert e.to_dict() == {"x": 1.5, "y": 0.25}


GROUPS = {"a": "head", "b": "tail", "c": "tail", "d": "tail"}


def test_group_exposure_by_hand():
    w = [1.0, 0.5, 0.25]
    total = beyond.group_exposure(RECS, GROUPS, attention=w)
    # head: a at 1 and 2 = 1.5; tail: b at 2 and 1 = 1.5, c at 3 = 0.25
    assert total.to_dict() == {"head": 1.5, "tail": 1.75}
    # per item: the tail has three items (d is never recommended)
    per_item = beyond.group_exposure(RECS, GROUPS, attention=w, per_item=True)
    assert per_item.to_dict() == pytest.approx({"head": 1.5, "tail": 1.75 / 3})
    share = beyond.group_exposure(RECS, GROUPS, attention=w, normalize=True)
    assert share.to_dict() == pytest.approx({"head": 1.5 / 3.25, "tail": 1.75 / 3.25})


@pytest.mark.parametrize("attention", ["log", "uniform", "rbp", [0.9, 0.3]])
def test_group_shares_sum_to_one_and_ignore_relabelling(attention):
    rng = np.random.default_rng(3)
    items = [f"i{j}" for j in range(12)]
    recs = [list(rng.choice(items, size=5, replace=False)) for _ in range(8)]
    groups = {i: ("p", "q", "r")[j % 3] for j, i in enumerate(items)}
    share = beyond.group_exposure(recs, groups, attention=attention, normalize=True)
    assert share.sum() == pytest.approx(1.0)
    # rename items and groups: the same numbers under the new labels
    rename = {i: 100 + j for j, i in enumerate(items)}
    glabel = {"p": "P", "q": "Q", "r": "R"}
    recs2 = [[rename[i] for i in r] for r in recs]
    groups2 = {rename[i]: glabel[g] for i, g in groups.items()}
    share2 = beyond.group_exposure(recs2, groups2, attention=attention, normalize=True)
    np.testing.assert_allclose(share2.to_numpy(), share.to_numpy())
    assert list(share2.index) == ["P", "Q", "R"]


def test_group_exposure_bad_input():
    with pytest.raises(ValueError, match="item_groups has no group.*'c'"):
        beyond.group_exposure(RECS, {"a": 1, "b": 1})
    with pytest.raises(ValueError, match="normalize"):
        beyond.group_exposure(RECS, GROUPS, per_item=True, normalize=True)
    with pytest.raises(TypeError, match="item_groups"):
        beyond.group_exposure(RECS, ["head", "tail"])
    with pytest.raises(TypeError, match="item_groups"):
        beyond.group_exposure(RECS, pd.Series(["h", "t"], index=[1, 2]))


def test_tail_exposure_by_hand_and_through_evaluate():
    train = pd.DataFrame({"user": [1, 2, 3, 4, 5], "item": ["a", "a", "a", "b", "c"]})
    # head = {a, b} (4 of 5 rows); the tail is c, at rank 2 twice
    recs = [["a", "c"], ["b", "c"]]
    assert beyond.tail_exposure(recs, train, attention="log") == pytest.approx(
        2 * L3 / (2 + 2 * L3)
    )
    # uniform attention and lists of one length: the mean long-tail share
    assert beyond.tail_exposure(recs, train, attention="uniform") == pytest.approx(
        beyond.long_tail_share(recs, train)
    )
    got = rm.evaluate(recs, [{"a"}, {"c"}], ["tail_exposure@2"], popularity=train)
    assert got["tail_exposure@2"] == pytest.approx(beyond.tail_exposure(recs, train))
    with pytest.raises(ValueError, match="head"):
        beyond.tail_exposure(recs, train, head=1.5)


# --------------------------------------------------------------------------
# disparate treatment ratio (Singh & Joachims 2018)
def test_disparate_treatment_ratio_by_hand():
    recs = [["a", "b", "c"], ["b", "c", "a"]]
    rel = [{"a", "b"}, {"a", "c"}]
    groups = {"a": 0, "b": 1, "c": 1}
    w = [1.0, 0.5, 0.25]
    # exposure: a 1 + 0.25, b 0.5 + 1, c 0.25 + 0.5; merit: a 2, b 1, c 1
    # G0 = {a}: 1.25 / 2; G1 = {b, c}: mean exposure 1.125 / mean merit 1
    dtr = beyond.disparate_treatment_ratio(recs, rel, groups, groups=(0, 1), attention=w)
    assert dtr == pytest.approx((1.25 / 2) / 1.125)
    inv = beyond.disparate_treatment_ratio(recs, rel, groups, groups=(1, 0), attention=w)
    assert inv == pytest.approx(1 / dtr)


def test_disparate_treatment_ratio_graded_frame():
    recs = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "rank": [1, 2]})
    rel = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "grade": [3.0, 1.0]})
    groups = pd.Series({"a": "x", "b": "y"})
    # x: 1 / 3; y: 0.5 / 1 -> DTR = (1/3) / 0.5
    dtr = beyond.disparate_treatment_ratio(
        recs, rel, groups, groups=("x", "y"), attention="geometric", grade="grade"
    )
    assert dtr == pytest.approx(2 / 3)


def test_disparate_treatment_ratio_bad_input():
    recs, rel, groups = [["a", "b"]], [{"a"}], {"a": 0, "b": 1}
    with pytest.raises(TypeError, match="groups"):
        beyond.disparate_treatment_ratio(recs, rel, groups, groups=[0, 1])
    with pytest.raises(ValueError, match="groups"):
        beyond.disparate_treatment_ratio(recs, rel, groups, groups=(0, 0))
    with pytest.raises(ValueError, match="no merit"):
        beyond.disparate_treatment_ratio(recs, rel, groups, groups=(0, 1))
    with pytest.raises(ValueError, match="item_groups gives to no item"):
        beyond.disparate_treatment_ratio(recs, rel, groups, groups=(0, 7))


# --------------------------------------------------------------------------
# Plackett-Luce sampler
def test_plackett_luce_is_seeded_and_follows_the_softmax():
    s = np.array([1.0, 0.0, -1.0])
    a = beyond.plackett_luce_rankings(s, 20_000, seed=5)
    assert a.shape == (20_000, 3)
    np.testing.assert_array_equal(a, beyond.plackett_luce_rankings(s, 20_000, seed=5))
    assert (np.sort(a, axis=1) == [0, 1, 2]).all()  # permutations
    first = np.bincount(a[:, 0], minlength=3) / a.shape[0]
    np.testing.assert_allclose(first, np.exp(s) / np.exp(s).sum(), atol=0.015)
    # second place given item 0 first: exp(0) / (exp(0) + exp(-1))
    second = a[a[:, 0] == 0, 1]
    assert np.mean(second == 1) == pytest.approx(1 / (1 + math.exp(-1)), abs=0.02)
    two = beyond.plackett_luce_rankings([s, s[::-1]], 4, k=2, seed=0)
    assert two.shape == (2, 4, 2)


@pytest.mark.parametrize(
    "args,kwargs,error",
    [
        (([1.0, np.nan], 3), {}, ValueError),
        (([1.0, 2.0], 0), {}, ValueError),
        (([1.0, 2.0], 2.0), {}, TypeError),
        (([1.0, 2.0], 2), {"k": 0}, ValueError),
        (([[[1.0]]], 2), {}, ValueError),
    ],
)
def test_plackett_luce_bad_input(args, kwargs, error):
    with pytest.raises(error, match="scores|n_samples|k "):
        beyond.plackett_luce_rankings(*args, **kwargs)


# --------------------------------------------------------------------------
# expected exposure loss: by hand
def test_expected_exposure_loss_by_hand():
    # geometric, p = 0.5: run a 1, b 0.5, c 0.25; target: a, b share positions 1-2: 0.75
    r = beyond.expected_exposure_loss([[["a", "b", "c"]]], [{"a", "b"}])
    assert r["ee_d"] == pytest.approx(1 + 0.25 + 0.0625)
    assert r["ee_r"] == pytest.approx(0.75 + 0.375)
    assert r["ee_l"] == pytest.approx(0.0625 + 0.0625 + 0.0625)
    assert r["ee_l"] == pytest.approx(r["ee_d"] - 2 * r["ee_r"] + 2 * 0.75**2)
    # complete: c (grade 0, judged) has the target of position 3, 0.25
    rc = beyond.expected_exposure_loss(
        [[["a", "b", "c"]]], [{"a": 1, "b": 1, "c": 0}], complete=True
    )
    assert rc["ee_l"] == pytest.approx(0.125)
    # graded: a (2) before b (1): target a 1, b 0.5 = the run's
    rg = beyond.expected_exposure_loss([[["a", "b", "c"]]], [{"a": 2, "b": 1}])
    assert rg["ee_l"] == pytest.approx(0.0625)  # only c, ranked but not relevant


def test_cascade_by_hand():
    # p = u = 0.5, a and b relevant: run a 1, b 0.5 * 0.5; ideal: both positions shared
    r = beyond.expected_exposure_loss([[["a", "b"]]], [{"a", "b"}], attention="cascade")
    assert r["ee_l"] == pytest.approx((1 - 0.625) ** 2 + (0.25 - 0.625) ** 2)


@pytest.mark.parametrize("attention", ["geometric", "cascade", "log", "rbp"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_uniform_shuffle_of_equally_relevant_items_meets_the_target(attention, n):
    items = list(range(n))
    perms = [list(p) for p in itertools.permutations(items)]
    rel = [dict.fromkeys(items, 1)]
    r = beyond.expected_exposure_loss([perms], rel, attention=attention, complete=True)
    assert r["ee_l"] == pytest.approx(0.0, abs=1e-12)
    # EE-D is then its minimum, expeval's lower bound (geometric: (sum_i p^i)^2 / n)
    if attention == "geometric":
        assert r["ee_d"] == pytest.approx((1 - 0.5**n) ** 2 / (1 - 0.5) ** 2 / n)
    # a deterministic ranking of the same items is farther from the target
    fixed = beyond.expected_exposure_loss([[items]], rel, attention=attention, complete=True)
    assert fixed["ee_l"] > 0.01 and fixed["ee_d"] > r["ee_d"]


def test_plackett_luce_of_equal_scores_approaches_the_target():
    a = beyond.plackett_luce_rankings(np.zeros((1, 5)), 4000, seed=2)
    r = beyond.expected_exposure_loss(a, [set(range(5))], complete=True)
    fixed = beyond.expected_exposure_loss(a[:, :1], [set(range(5))], complete=True)
    assert r["ee_l"] < 1e-3 < fixed["ee_l"]


def test_expected_exposure_forms_agree_and_relabelling():
    rng = np.random.default_rng(7)
    lists = [[list(rng.permutation(6)[:4]) for _ in range(3)] for _ in range(4)]
    rel = [{int(i): int(rng.integers(0, 3)) for i in range(6)} for _ in range(4)]
    for r in rel:
        r[0] = 2  # one relevant item at least
    base = beyond.expected_exposure_loss(lists, rel, per_user=True)
    rows = [
        (u, s, i, k + 1)
        for u, samples in enumerate(lists)
        for s, ranking in enumerate(samples)
        for k, i in enumerate(ranking)
    ]
    frame = pd.DataFrame(rows, columns=["user", "sample", "item", "rank"])
    rel_frame = pd.DataFrame(
        [(u, i, g) for u, r in enumerate(rel) for i, g in r.items()],
        columns=["user", "item", "grade"],
    )
    got = beyond.expected_exposure_loss(frame, rel_frame, grade="grade", per_user=True)
    np.testing.assert_allclose(got.to_numpy(), base.to_numpy())
    # 3-D array of ids, and relevance as a 2-D array of grades by column
    arr = np.array(lists)
    grades = np.array([[r[i] for i in range(6)] for r in rel], dtype=float)
    got = beyond.expected_exposure_loss(arr, grades, per_user=True)
    np.testing.assert_allclose(got.to_numpy(), base.to_numpy())
    # item ids renamed
    name = {i: f"doc-{i}" for i in range(6)}
    lists2 = [[[name[i] for i in r] for r in s] for s in lists]
    rel2 = [{name[i]: g for i, g in r.items()} for r in rel]
    got = beyond.expected_exposure_loss(lists2, rel2, per_user=True)
    np.testing.assert_allclose(got.to_numpy(), base.to_numpy())
    # the mean over users is the mean of the rows
    np.testing.assert_allclose(
        beyond.expected_exposure_loss(lists, rel).to_numpy(), base.mean().to_numpy()
    )


def test_expected_exposure_vector():
    e = beyond.expected_exposure([[["a", "b"], ["b", "c"]]])
    assert e.to_dict() == {(0, "a"): 0.5, (0, "b"): 0.75, (0, "c"): 0.25}


def test_users_without_relevant_items_are_skipped():
    r = beyond.expected_exposure_loss([[["a"]], [["b"]]], [{"a"}, set()], per_user=True)
    assert np.isnan(r.loc[1]).all() and not np.isnan(r.loc[0]).any()
    with pytest.raises(ValueError, match="grade > 0"):
        beyond.expected_exposure_loss([[["a"]]], [set()])


@pytest.mark.parametrize(
    "args,kwargs,error,match",
    [
        (([[["a", "a"]]], [{"a"}]), {}, ValueError, "repeated"),
        (([[["a"]]], [{"a"}]), {"utility": 0.5}, TypeError, "utility"),
        (([[["a"]]], [{"a"}, {"b"}]), {}, ValueError, "relevance"),
        (([[["a"]]], [{"a": -1.0}]), {}, ValueError, "relevance"),
        (([[["a"]]], [{"a"}]), {"patience": 2.0}, ValueError, "patience"),
        (([[]], [{"a"}]), {}, ValueError, "rankings"),
        (([[[0.5]]], [{"a"}]), {}, TypeError, "rankings"),
        (([[["a"]]], "a"), {}, TypeError, "relevance"),
        (([[["a"]]], [{"a"}]), {"grade": "g"}, TypeError, "grade"),
    ],
)
def test_expected_exposure_loss_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        beyond.expected_exposure_loss(*args, **kwargs)


def test_normalised_values_by_hand():
    # retrieval, geometric p = 0.5: disparity in [0, 1 / (1 - 0.25)], difference in
    # [0, ||t||^2 + 1 / (1 - 0.5)] = [0, 1.125 + 2], relevance in [0, ||t||^2] (two levels)
    r = beyond.expected_exposure_loss([[["a", "b", "c"]]], [{"a": 2, "b": 1}], normalize=True)
    raw = beyond.expected_exposure_loss([[["a", "b", "c"]]], [{"a": 2, "b": 1}])
    assert r["ee_d"] == pytest.approx(raw["ee_d"] * 0.75)
    assert r["ee_l"] == pytest.approx(raw["ee_l"] / (1.25 + 2))
    assert r["ee_r"] == pytest.approx(raw["ee_r"] / 1.25)
    # one grade only: expeval's default relevance, 1
    one = beyond.expected_exposure_loss([[["a", "b"]]], [{"a", "b"}], normalize=True)
    assert one["ee_r"] == 1.0
    with pytest.raises(ValueError, match="normalize"):
        beyond.expected_exposure_loss([[["a"]]], [{"a"}], attention="log", normalize=True)


def test_cascade_exposure_needs_relevance():
    with pytest.raises(TypeError, match="relevance"):
        beyond.expected_exposure([[["a"]]], attention="cascade")


# --------------------------------------------------------------------------
# cross-check with a port of the authors' expeval (github.com/diazf/expeval,
# exposure.py: expected, target; util.py: l2, dot, distance), unnormalised (-U)
def _expeval_expected(permutations, qrels, um, p, u):
    exposures = {}
    for perm in permutations:
        relret = 0
        for i, did in enumerate(perm):
            e_i = p**i if um == "rbp" else p**i * (1.0 - u) ** relret
            exposures[did] = exposures.get(did, 0.0) + e_i / len(permutations)
            if qrels.get(did, 0) > 0:
                relret += 1
    return exposures


def _expeval_target(qrels, um, p, u):
    levels = sorted(
        [[g, sum(1 for v in qrels.values() if v == g)] for g in set(qrels.values())],
        reverse=True,
    )
    b, per_level = 0, {}
    for g, m in levels:
        if um == "rbp":
            te = (p**b - p ** (b + m)) / (m * (1.0 - p))
        elif g > 0:
            pp = p * (1.0 - u)
            te = (pp**b - pp ** (b + m)) / (m * (1.0 - pp))
        else:
            te = ((1.0 - u) ** b * (p**b - p ** (b + m))) / (m * (1.0 - p))
        per_level[g] = te
        b += m
    return {d: per_level[g] for d, g in qrels.items()}


def _expeval_metrics(run, target):
    keys = set(run) | set(target)
    disparity = sum(v * v for v in run.values())
    relevance = sum(run[k] * target[k] for k in set(run) & set(target))
    difference = sum((run.get(k, 0.0) - target.get(k, 0.0)) ** 2 for k in keys)
    return difference, disparity, relevance


def _expeval_normalised(values, qrels, target, um, p, u, complete):
    """Expeval's metrics.py: (v - lower) / (upper - lower), its defaults at equal bounds."""
    difference, disparity, relevance = values
    n = len(target) if complete else math.inf
    pp = p if um == "rbp" else p * u  # as expeval (metrics.py)

    def geo(q, k):
        return 1.0 / (1.0 - q) if k == math.inf else (1.0 - q**k) / (1.0 - q)

    def norm(v, lb, ub, default):
        return default if lb == ub else (v - lb) / (ub - lb)

    dist = sorted(target.values())
    # Relevance: the target reproduced; a static ranking in reverse order (reranking)
    r_ub = sum(v * v for v in dist)
    r_lb = 0.0 if n == math.inf else sum(pp**i * d for i, d in enumerate(dist))
    if len(set(qrels.values())) <= 1:
        r_ub = r_lb = 0.0
    # Disparity: a static ranking; a uniform shuffle (reranking)
    d_ub = geo(p * p, n)
    d_lb = 0.0 if n == math.inf else geo(pp, n) ** 2 / n
    # Difference
    if n == math.inf:
        f_ub = sum(v * v for v in dist) + geo(pp, n)
    else:
        f_ub = sum((pp**i - d) ** 2 for i, d in enumerate(dist))
    return (
        norm(difference, 0.0, f_ub, 0.0),
        norm(disparity, d_lb, d_ub, 0.0),
        norm(relevance, r_lb, r_ub, 1.0),
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("um", ["rbp", "gerr"])
@pytest.mark.parametrize("complete", [False, True])
def test_agrees_with_expeval_on_random_inputs(seed, um, complete):
    rng = np.random.default_rng(seed)
    p, u = float(rng.uniform(0.3, 0.95)), float(rng.uniform(0.1, 0.9))
    n_items, n_users = int(rng.integers(3, 12)), 5
    lists, rels, expected, normalised = [], [], [], []
    for _ in range(n_users):
        samples = [
            [f"d{j}" for j in rng.permutation(n_items)[: int(rng.integers(1, n_items + 1))]]
            for _ in range(int(rng.integers(1, 8)))
        ]
        grades = rng.integers(0, 4, size=n_items)
        grades[rng.integers(n_items)] = max(1, grades.max())
        # qrels as expeval reads them: grade 0 rows only under -C (complete)
        qrels = {f"d{j}": int(g) for j, g in enumerate(grades) if complete or g > 0}
        lists.append(samples)
        rels.append(qrels)
        run = _expeval_expected(samples, qrels, um, p, u)
        target = _expeval_target(qrels, um, p, u)
        raw = _expeval_metrics(run, target)
        expected.append(raw)
        normalised.append(_expeval_normalised(raw, qrels, target, um, p, u, complete))
    kwargs = {
        "attention": "geometric" if um == "rbp" else "cascade",
        "patience": p,
        "utility": u if um == "gerr" else None,
        "complete": complete,
        "per_user": True,
    }
    got = beyond.expected_exposure_loss(lists, rels, **kwargs)
    np.testing.assert_allclose(got.to_numpy(), np.array(expected), rtol=1e-12, atol=1e-14)
    got = beyond.expected_exposure_loss(lists, rels, normalize=True, **kwargs)
    np.testing.assert_allclose(got.to_numpy(), np.array(normalised), rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------
# per-user-group utility disparity (Ekstrand et al. 2018)
def test_group_disparity_by_hand():
    values = pd.Series([0.9, 0.8, 0.7, 0.9, 0.2, 0.1, 0.3, 0.2, 0.5, 0.6], name="ndcg")
    groups = pd.Series(["light"] * 4 + ["heavy"] * 4 + ["mid"] * 2)
    values = pd.concat([values, pd.Series([0.4, 0.5, 0.6], index=[10, 11, 12])]).rename("ndcg")
    groups = pd.concat([groups, pd.Series(["mid"] * 3, index=[10, 11, 12])])
    r = rm.stats.group_disparity(values, groups, n_resamples=2000, method="percentile")
    g = r.groups.loc["ndcg"]
    assert g["mean"].to_dict() == pytest.approx({"heavy": 0.2, "light": 0.825, "mid": 0.52})
    assert g["n_users"].to_dict() == {"heavy": 4, "light": 4, "mid": 5}
    assert ((g["low"] <= g["mean"]) & (g["mean"] <= g["high"])).all()
    d = r.differences.loc["ndcg"]
    assert list(d.index) == [("heavy", "light"), ("heavy", "mid"), ("light", "mid")]
    light, heavy = values[groups == "light"], values[groups == "heavy"]
    welch = stats.ttest_ind(heavy, light, equal_var=False).pvalue
    assert d.loc[("heavy", "light"), "pvalue"] == pytest.approx(welch)
    assert d.loc[("heavy", "light"), "difference"] == pytest.approx(0.2 - 0.825)
    np.testing.assert_allclose(
        d["pvalue_adjusted"].to_numpy(), rm.stats.adjust_pvalues(d["pvalue"].to_numpy())
    )
    # the interval is the bootstrap interval of the group's values
    ci = rm.stats.bootstrap_ci(heavy.to_numpy(), method="percentile", n_resamples=2000, seed=0)
    assert g.loc["heavy", "mean"] == pytest.approx(ci.estimate)


def test_group_disparity_tables_tests_and_nan():
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"ndcg": rng.uniform(size=30), "recall": rng.uniform(size=30)})
    table.iloc[0, 0] = np.nan  # dropped for ndcg only
    groups = pd.Series(np.repeat(["a", "b", "c"], 10))
    for test in ("welch", "mannwhitney", "permutation"):
        r = rm.stats.group_disparity(table, groups, test=test, n_resamples=500)
        assert r.differences.shape[0] == 6
        assert r.groups.loc[("ndcg", "a"), "n_users"] == 9
        assert r.groups.loc[("recall", "a"), "n_users"] == 10
        assert r.differences["pvalue"].between(0, 1).all()
    mw = rm.stats.group_disparity(table, groups, test="mannwhitney", correction="none")
    a, b = table["recall"][:10], table["recall"][10:20]
    assert mw.differences.loc[("recall", "a", "b"), "pvalue"] == pytest.approx(
        stats.mannwhitneyu(a, b, alternative="two-sided").pvalue
    )
    # arrays with one label per value
    arr = rm.stats.group_disparity(table["recall"].to_numpy(), list(groups), n_resamples=500)
    assert arr.groups["mean"].to_numpy() == pytest.approx(r.groups.loc["recall", "mean"].to_numpy())


def test_group_disparity_bad_input():
    values = pd.Series([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    with pytest.raises(ValueError, match="user_groups has no group"):
        rm.stats.group_disparity(values, pd.Series(["a"] * 4 + ["b"] * 3))
    with pytest.raises(ValueError, match="at least 2"):
        rm.stats.group_disparity(values, pd.Series(["a"] * 8))
    with pytest.raises(TypeError, match="user_groups"):
        rm.stats.group_disparity(values, ["a"] * 4 + ["b"] * 4)
    with pytest.raises(ValueError, match="test"):
        rm.stats.group_disparity(values, pd.Series(["a"] * 4 + ["b"] * 4), test="t")
    # too few users in a group for a bootstrap interval: the message names the group
    with pytest.raises(ValueError, match="'b'"):
        rm.stats.group_disparity(values, pd.Series(["a"] * 7 + ["b"]))
