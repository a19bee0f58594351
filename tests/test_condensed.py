"""Condensed lists (Sakai 2007; trec_eval's ``-J``): ``judged_only`` of every rank metric.

``Ranking.condensed()`` removes the unjudged ranked items (not rows of
``truth``, or rows with a negative grade) and closes the judged ones up; every
ranking metric of the registry takes ``judged_only=True`` for it, and
:func:`recmetrics.evaluate` uses the same method. Checked here:

* the representation against from_frames on frames whose unjudged
  predictions were dropped by hand, field by field, under every tie policy;
* every registry ranking metric with ``judged_only=True`` against the metric
  on those frames, and against ``rm.evaluate(judged_only=True)``;
* ``ties='expected'`` against the mean over every order of the tied items of
  the *whole* list (unjudged items included), each order condensed by hand;
* trec_eval's ``-J`` through pytrec_eval (``judged_docs_only_flag=True``);
* the input forms that judge every item (identity) and bad input.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics._keywords import CONVENTION_KEYWORDS, PARAMETERS
from recmetrics.metrics import _registry
from recmetrics.ranking import TIE_POLICIES

SPECS = [spec for spec in _registry.REGISTRY.values() if spec.kind == "ranking"]
IDS = [spec.name for spec in SPECS]
TOL = 1e-12
FIELDS = ("indptr", "gain", "start", "n_ranked", "n_items", "nonrel_indptr", "nonrel_start",
          "nonrel_size", "pooled_indptr", "pooled_start", "pooled_size")  # fmt: skip


def _frames(seed, n_users=6, n_items=12):
    """qrels-like truth (grades -1, 0, 1, 2) and runs with tied scores and unjudged items."""
    rng = np.random.default_rng(seed)
    truth, run = [], []
    for u in range(n_users):
        for i in rng.permutation(n_items)[: rng.integers(0, 8)]:
            grade = int(rng.choice([-1, 0, 1, 2], p=[0.15, 0.35, 0.3, 0.2]))
            truth.append((u, f"d{i:02d}", grade))
        for i in rng.permutation(n_items)[: rng.integers(1, 10)]:
            run.append((u, f"d{i:02d}", float(rng.integers(0, 4))))
    truth = pd.DataFrame(truth, columns=["user", "item", "rel"])
    return truth, pd.DataFrame(run, columns=["user", "item", "score"])


def _judged_run(truth, run):
    """The predictions judged in truth (grade >= 0): the condensed run, by hand."""
    judged = truth.loc[truth.rel >= 0, ["user", "item"]]
    return run.merge(judged, on=["user", "item"])


def _call(spec, r, **kw):
    kw = dict(kw, per_user=True, no_relevant="zero")
    if spec.takes_cutoff:
        kw.setdefault("k", 3)
    return np.asarray(spec.function(r, **kw), dtype=np.float64)


# --------------------------------------------------------------------------
# the representation
@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", range(25))
def test_condensed_is_the_ranking_of_the_judged_predictions(seed, ties):
    truth, run = _frames(seed)
    got = rm.from_frames(truth, run, relevance="rel", ties=ties).condensed()
    want = rm.from_frames(truth, _judged_run(truth, run), relevance="rel", ties=ties)
    assert got.judgments == "explicit" and got.ties == ties
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(got, field), getattr(want, field), err_msg=field)
    ranked = np.isfinite(got.start)  # an item not ranked keeps placeholders
    for field in ("size", "group_rel", "rel_before"):
        np.testing.assert_array_equal(
            getattr(got, field)[ranked], getattr(want, field)[ranked], err_msg=field
        )
    again = got.condensed()  # nothing left to remove
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(again, field), getattr(got, field))


def test_condensed_example_by_hand():
    # x, y, z unjudged; w pooled (grade -1); a, c relevant; b judged non-relevant
    truth = pd.DataFrame({"user": 1, "item": ["a", "b", "c", "w"], "rel": [1, 0, 2, -1]})
    run = pd.DataFrame({"user": 1, "item": list("xawbyzc"), "score": [7, 6, 5, 4, 4, 4, 1]})
    r = rm.from_frames(truth, run, relevance="rel")
    assert r.start.tolist() == [1.0, 6.0] and r.nonrel_start.tolist() == [3.0]
    assert r.nonrel_size.tolist() == [3.0]  # b tied with y and z
    c = r.condensed()
    # a, b, c: b alone in its tie group now
    assert c.start.tolist() == [0.0, 2.0] and c.size.tolist() == [1.0, 1.0]
    assert c.nonrel_start.tolist() == [1.0] and c.nonrel_size.tolist() == [1.0]
    assert c.n_ranked.tolist() == [3.0] and c.n_items.tolist() == [3.0]
    assert c.pooled_start.tolist() == [np.inf]  # w is in the pool, no longer ranked
    assert c.n_pooled_unjudged.tolist() == [1.0] and c.n_relevant.tolist() == [2.0]
    assert rm.precision(r, k=2, judged_only=True) == 0.5
    assert rm.reciprocal_rank(r, judged_only=True) == 1.0
    assert rm.average_precision(r, judged_only=True) == pytest.approx((1 + 2 / 3) / 2, abs=TOL)


def test_tie_groups_shrink_to_their_judged_members():
    # a (relevant), b (judged non-relevant) and two unjudged items share a score
    truth = pd.DataFrame({"user": 1, "item": ["a", "b"], "rel": [1, 0]})
    run = pd.DataFrame({"user": 1, "item": ["x", "a", "b", "y", "z"], "score": [9, 5, 5, 5, 5]})
    r = rm.from_frames(truth, run, relevance="rel")
    assert (r.start.tolist(), r.size.tolist()) == ([1.0], [4.0])
    c = r.condensed()
    assert (c.start.tolist(), c.size.tolist(), c.group_rel.tolist()) == ([0.0], [2.0], [1.0])
    assert (c.nonrel_start.tolist(), c.nonrel_size.tolist()) == ([0.0], [2.0])
    assert rm.reciprocal_rank(r, judged_only=True) == 0.75  # rank 1 or 2


@pytest.mark.parametrize(
    "r",
    [
        rm.from_scores([[1, 0, 2], [0, 1, 0]], [[0.3, 0.3, 0.1], [0.5, 0.2, 0.9]]),
        rm.from_lists([["a", "b", "c"]], [{"b"}]),
        rm.from_ranks([[3, 7], [1]], n_items=10),
        rm.from_gains([0, 1, 0, 2]),
    ],
    ids=["scores", "lists", "ranks", "gains"],
)
def test_complete_judgments_are_left_as_they_are(r):
    assert r.judgments == "complete" and r.condensed() is r


def test_complete_judgments_give_the_same_values():
    y_true, y_score = [[1, 0, 2, 0], [0, 1, 0, 1]], [[0.3, 0.3, 0.1, 0.2], [0.5, 0.2, 0.9, 0.2]]
    for spec in SPECS:
        want = _call(spec, rm.from_scores(y_true, y_score))
        np.testing.assert_array_equal(
            _call(spec, rm.from_scores(y_true, y_score), judged_only=True), want
        )
    for fn in (rm.ndcg, rm.average_precision, rm.r_precision, rm.auc):
        assert fn(y_true, y_score, judged_only=True) == fn(y_true, y_score)


def test_a_ranking_with_depth_and_judgments_is_refused():
    from dataclasses import replace

    truth = pd.DataFrame({"user": 1, "item": ["a", "b"], "rel": [1, 0]})
    run = pd.DataFrame({"user": 1, "item": ["x", "a", "b"], "score": [3.0, 2.0, 1.0]})
    r = replace(rm.from_frames(truth, run, relevance="rel"), depth=2)
    with pytest.raises(ValueError, match="depth=2"):
        r.condensed()
    with pytest.raises(ValueError, match="depth=2"):
        rm.precision(r, k=1, judged_only=True)


# --------------------------------------------------------------------------
# every ranking metric of the registry
@functools.cache
def _pairs():
    """(seed, ties, ranking of the frames, ranking of the judged predictions)."""
    out = []
    for seed in range(4):
        truth, run = _frames(seed)
        judged = _judged_run(truth, run)
        for ties in TIE_POLICIES:
            r = rm.from_frames(truth, run, relevance="rel", ties=ties)
            out.append((seed, ties, r, rm.from_frames(truth, judged, relevance="rel", ties=ties)))
    return out


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_judged_only_equals_the_metric_on_the_judged_predictions(spec):
    for seed, ties, r, condensed_by_hand in _pairs():
        want = _call(spec, condensed_by_hand)
        got = _call(spec, r, judged_only=True)
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL, err_msg=f"{ties} {seed}")
        # the default is the whole list
        np.testing.assert_array_equal(_call(spec, r), _call(spec, r, judged_only=False))


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", range(3))
def test_evaluate_judged_only_equals_the_functions(seed, ties):
    truth, run = _frames(seed)
    names = [f"{spec.name}@3" if spec.takes_cutoff else spec.name for spec in SPECS]
    kw = dict(relevance="rel", ties=ties, per_user=True, no_relevant="zero")
    table = rm.evaluate(truth, run, names, judged_only=True, **kw)
    r = rm.from_frames(truth, run, relevance="rel", ties=ties)
    for name, spec in zip(names, SPECS, strict=True):
        # a convention keyword reaches the function under its parameter name
        keywords = {PARAMETERS.get(key, key): CONVENTION_KEYWORDS[key] for key in spec.keywords}
        want = _call(spec, r, judged_only=True, **keywords)
        np.testing.assert_allclose(table[name].to_numpy(), want, rtol=0, atol=TOL, err_msg=name)
    # a prebuilt Ranking of frames is condensed the same way
    again = rm.evaluate(r, None, names, judged_only=True, per_user=True, no_relevant="zero")
    np.testing.assert_array_equal(again.to_numpy(), table.to_numpy())


def test_evaluate_keeps_the_frame_behaviour():
    """The frames' condensed list: evaluate on the judged predictions, users kept."""
    truth, run = _frames(11)
    names = ["map", "precision@3", "ndcg@5", "bpref", "infap", "num_ret", "auc"]
    kw = dict(relevance="rel", per_user=True, no_relevant="zero", users="both")
    got = rm.evaluate(truth, run, names, judged_only=True, **kw)
    want = rm.evaluate(
        truth[truth.user.isin(run.user)], _judged_run(truth, run), names,
        **dict(kw, users="truth"),
    )  # fmt: skip
    pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize("ties", TIE_POLICIES)
def test_bpref_reads_judged_items_only_and_infap_becomes_ap(ties):
    """On the condensed list bpref is unchanged, and infAP is AP (up to its smoothing)."""
    for seed in range(6):
        truth, run = _frames(seed)
        r = rm.from_frames(truth, run, relevance="rel", ties=ties)
        kw = dict(per_user=True, no_relevant="zero")
        np.testing.assert_allclose(
            rm.bpref(r, judged_only=True, **kw), rm.bpref(r, **kw), rtol=0, atol=TOL
        )
        ap = rm.average_precision(r, judged_only=True, ap_denominator="relevant", **kw)
        # trec_eval's infAP smooths its estimates with 0.00001 (m_infAP.c)
        np.testing.assert_allclose(rm.infap(r, judged_only=True, **kw), ap, rtol=0, atol=1e-5)


def test_judged_and_unjudged_on_the_condensed_list():
    """Every ranked item of a condensed list is judged."""
    truth, run = _frames(3)
    r = rm.from_frames(truth, run, relevance="rel")
    kw = dict(per_user=True, no_relevant="zero", judged_only=True)
    assert rm.unjudged(r, k=5, **kw).eq(0).all()
    n = r.condensed().n_ranked
    full = rm.judged(r, k=5, short_lists="list", **kw).to_numpy()
    np.testing.assert_array_equal(full, np.where(n > 0, 1.0, 0.0))
    assert rm.judged(r, k=5, **dict(kw, judged_only=False)).lt(1).any()  # not so before


def test_removed_items_leave_an_explicit_catalogue():
    """With n_items given, the condensed catalogue loses the removed items (AUC)."""
    truth, run = _frames(2)
    r = rm.from_frames(truth, run, relevance="rel", n_items=40)
    c = r.condensed()
    np.testing.assert_array_equal(c.n_items, 40 - (r.n_ranked - c.n_ranked))
    kw = dict(relevance="rel", per_user=True, no_relevant="zero", n_items=40)
    got = rm.evaluate(truth, run, ["auc", "pauc"], judged_only=True, **kw)
    np.testing.assert_array_equal(got["auc"], rm.auc(c, per_user=True, no_relevant="zero"))
    want = rm.auc(r, judged_only=True, per_user=True, no_relevant="zero")
    np.testing.assert_array_equal(got["auc"], want)


# --------------------------------------------------------------------------
# ties='expected': the mean over every order of the whole list's tied items
def _orders(run):
    """Each order of the tied predictions of one user, as distinct scores keeping it."""
    groups = [list(g.item) for _, g in run.sort_values("score", ascending=False).groupby(
        "score", sort=False)]  # fmt: skip
    for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
        items = [i for group in perm for i in group]
        yield run.assign(score=run.item.map({i: -float(n) for n, i in enumerate(items)}))


BRUTE_CASES = [
    # relevant, judged non-relevant, pooled (-1) and unjudged items in each tie group
    (
        {"a": 2, "b": 0, "c": 1, "d": -1, "e": 0},
        {"x": 5, "a": 4, "y": 4, "b": 4, "d": 3, "c": 3, "z": 3, "e": 1},
    ),
    ({"a": 1, "b": 1, "c": 0}, {"x": 2, "y": 2, "a": 2, "b": 1, "z": 1, "c": 1}),
    ({"a": 1, "q": 2, "b": -1}, {"u": 1, "v": 1, "a": 1, "b": 1}),  # q not ranked
]


@pytest.mark.parametrize("case", range(len(BRUTE_CASES)))
def test_expected_ties_by_enumeration_of_the_whole_list(case):
    grades, scores = BRUTE_CASES[case]
    truth = pd.DataFrame({"user": 1, "item": list(grades), "rel": list(grades.values())})
    run = pd.DataFrame({"user": 1, "item": list(scores), "score": list(scores.values())})
    r = rm.from_frames(truth, run, relevance="rel", ties="expected")
    orders = [
        rm.from_frames(truth, _judged_run(truth, order), relevance="rel", ties="optimistic")
        for order in _orders(run)
    ]
    for spec in SPECS:
        got = _call(spec, r, judged_only=True)
        want = np.mean([_call(spec, o) for o in orders], axis=0)
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL, err_msg=spec.name)


# --------------------------------------------------------------------------
# trec_eval's -J (pytrec_eval bundles trec_eval 9.0.x)
TREC = {
    "map": (rm.average_precision, {"ap_denominator": "relevant"}),
    "P_10": (rm.precision, {"k": 10}),
    "ndcg_cut_10": (rm.ndcg, {"k": 10}),
    "bpref": (rm.bpref, {}),
    "recip_rank": (rm.reciprocal_rank, {}),
}


def _trec_frames(seed, n_users=30, n_docs=40):
    rng = np.random.default_rng([seed, 26])
    truth, run = [], []
    for u in range(n_users):
        q = f"q{u:02d}"
        for d in rng.permutation(n_docs)[: rng.integers(1, 25)]:
            grade = int(rng.choice([-1, 0, 1, 2, 3], p=[0.15, 0.4, 0.25, 0.12, 0.08]))
            truth.append((q, f"doc{d:03d}", grade))
        for d in rng.permutation(n_docs)[: rng.integers(1, 30)]:
            run.append((q, f"doc{d:03d}", float(rng.integers(0, 12)) / 2))  # ties
    truth = pd.DataFrame(truth, columns=["user", "item", "rel"])
    return truth, pd.DataFrame(run, columns=["user", "item", "score"])


@pytest.mark.crosslib
@pytest.mark.parametrize("seed", range(4))
def test_judged_only_equals_trec_eval_minus_J(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    truth, run = _trec_frames(seed)
    qrels, results = {}, {}
    for q, d, g in truth.itertuples(index=False):
        qrels.setdefault(q, {})[d] = g
    for q, d, s in run.itertuples(index=False):
        results.setdefault(q, {})[d] = s
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "P", "ndcg_cut", "bpref", "recip_rank"}, judged_docs_only_flag=True
    )
    theirs = pd.DataFrame(evaluator.evaluate(results)).T.sort_index()
    r = rm.from_frames(truth, run, relevance="rel", ties="trec_eval", users="both")
    assert list(r.user_ids) == list(theirs.index)
    plain = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(results)
    plain = np.array([plain[q]["map"] for q in theirs.index])
    for trec, (fn, kw) in TREC.items():
        got = fn(r, judged_only=True, per_user=True, no_relevant="zero", **kw).to_numpy()
        np.testing.assert_allclose(got, theirs[trec].to_numpy(float), rtol=0, atol=TOL,
                                   err_msg=trec)  # fmt: skip
    # -J changes the values
    whole = rm.average_precision(r, per_user=True, no_relevant="zero", ap_denominator="relevant")
    np.testing.assert_allclose(whole.to_numpy(), plain, rtol=0, atol=TOL)
    assert not np.allclose(whole.to_numpy(), theirs["map"].to_numpy(float))


# --------------------------------------------------------------------------
# bad input
@pytest.mark.parametrize("spec", SPECS, ids=IDS)
@pytest.mark.parametrize("bad", ["yes", 1, None, np.array([True])])
def test_judged_only_must_be_a_bool(spec, bad):
    kw = {"k": 2} if spec.takes_cutoff else {}
    with pytest.raises(TypeError, match="judged_only must be True or False"):
        spec.function([[1, 0, 1]], [[0.3, 0.2, 0.1]], judged_only=bad, **kw)


def test_every_ranking_metric_takes_judged_only():
    import inspect

    for spec in SPECS:
        param = inspect.signature(spec.function).parameters.get("judged_only")
        assert param is not None and param.default is False, spec.name
        if "Parameters" in spec.function.__doc__:  # not the one-line wrappers (iprec_at_...)
            assert "judged_only : bool, default False" in spec.function.__doc__, spec.name
    for spec in _registry.REGISTRY.values():
        if spec.kind != "ranking":  # the beyond-accuracy metrics read the lists
            assert "judged_only" not in inspect.signature(spec.function).parameters


def test_evaluate_refuses_judged_only_for_complete_judgments():
    with pytest.raises(TypeError, match="judged_only= applies only to long data frames"):
        rm.evaluate([[1, 0, 2]], [[0.3, 0.2, 0.1]], ["map"], judged_only=True)
