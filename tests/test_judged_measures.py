"""Measures of incomplete judgments: judged@k, unjudged@k and bpref.

Checked against the plain reference (tests/reference.py) by brute-force
enumeration of every order of the tied items, under every tie policy: on long
frames (explicit judgments: relevant, judged non-relevant and unjudged
items) and on score matrices and ranked lists (complete judgments); bpref
against trec_eval itself (pytrec_eval) on random qrels and runs with judged
non-relevant rows, unjudged retrieved documents and ties; Judged@k against
a transcription of ir_measures' judged provider; and through
``rm.evaluate``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import reference as ref

import recmetrics as rm
from recmetrics.ranking import TIE_POLICIES

TOL = 1e-12
CUTOFFS = (None, 1, 2, 3, 5, 10)


# --------------------------------------------------------------------------
# long frames: explicit judgments
def _frames(seed, n_users=6, n_items=7, n_values=3, pooled=False):
    """Truth with relevant (1, 2) and judged non-relevant (0) rows; runs with unjudged items.

    ``pooled=True``: some items of each user are in the pool but not judged
    (grade -1, a row of truth), from a second generator (the other rows are
    the same).

    Users by ``u % 6``: 0 has judged non-relevant rows only, 1 no judged
    non-relevant row (N = 0), 2 an empty run; the others are random. Item ids
    are zero-padded, so that trec_eval's order (decreasing id) is the string
    order. Few score values: many ties.
    """
    rng = np.random.default_rng(seed)
    pool_rng = np.random.default_rng([seed, 1])
    truth, run = [], []
    for u in range(n_users):
        kind = u % 6
        judged = rng.permutation(n_items)[: rng.integers(1, n_items + 1)]
        grades = rng.integers(0, 3, judged.size)
        if kind == 0:
            grades[:] = 0
        elif kind == 1:
            grades = rng.integers(1, 3, judged.size)
        elif not grades.any():
            grades[0] = 1
        truth += [(f"u{u}", f"d{i:03d}", int(g)) for i, g in zip(judged, grades, strict=True)]
        if pooled:
            rest = np.setdiff1d(np.arange(n_items), judged)
            sampled = rest[pool_rng.random(rest.size) < 0.5]
            truth += [(f"u{u}", f"d{i:03d}", -1) for i in sampled]
        if kind != 2:
            listed = rng.permutation(n_items)[: rng.integers(1, n_items + 1)]
            scores = rng.integers(0, n_values, listed.size) / 4.0
            run += [(f"u{u}", f"d{i:03d}", float(s)) for i, s in zip(listed, scores, strict=True)]
    truth = pd.DataFrame(truth, columns=["user", "item", "rel"])
    run = pd.DataFrame(run, columns=["user", "item", "score"])
    return truth, run


def _orders(rows, ties):
    """Every order of one user's (item, score, grade) rows that the tie policy allows."""
    rows = sorted(rows, key=lambda r: -r[1])
    groups = [list(g) for _, g in itertools.groupby(rows, key=lambda r: r[1])]
    if ties == "trec_eval":
        yield [r for g in groups for r in sorted(g, key=lambda r: r[0], reverse=True)]
        return
    options = []
    for g in groups:
        if ties == "expected":
            options.append(list(itertools.permutations(g)))
            continue
        rel = [r for r in g if r[2] is not None and r[2] > 0]
        other = [r for r in g if not (r[2] is not None and r[2] > 0)]
        if ties == "optimistic":
            options.append([tuple(rel) + p for p in itertools.permutations(other)])
        else:
            options.append([p + tuple(rel) for p in itertools.permutations(other)])
    for combo in itertools.product(*options):
        yield [r for g in combo for r in g]


def _brute_force(truth, run, uid, ties, fn, **kw):
    """The reference measure of one user, averaged over the orders the policy allows."""
    grade = dict(truth.loc[truth.user == uid, ["item", "rel"]].itertuples(index=False))
    rows = [
        (i, s, _unjudged_if_pooled(grade.get(i), fn))  # None: unjudged
        for i, s in run.loc[run.user == uid, ["item", "score"]].itertuples(index=False)
    ]
    rel_gains = [g for g in grade.values() if g > 0]
    if fn is ref.bpref:
        kw = dict(kw, rel_gains=rel_gains, n_nonrelevant=sum(g == 0 for g in grade.values()))
    values = [fn([g for (_, _, g) in order], **kw) for order in _orders(rows, ties)]
    return float(np.mean(values)) if values else fn([], **kw)


def _unjudged_if_pooled(grade, fn):
    """A pooled-but-unjudged grade (< 0) is None (unjudged) for every reference but infAP's."""
    if grade is None or grade >= 0 or fn is ref.infap:
        return grade
    return None


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("pooled", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_frames_equal_brute_force(ties, seed, pooled):
    truth, run = _frames(seed, pooled=pooled)
    r = rm.from_frames(truth, run, relevance="rel", ties=ties)
    got = rm.bpref(r, per_user=True, no_relevant="zero")
    for uid in r.user_ids:
        want = _brute_force(truth, run, uid, ties, ref.bpref)
        assert got[uid] == pytest.approx(want, abs=TOL), ("bpref", uid)
    for k in CUTOFFS:
        for short in ("k", "list"):
            got_j = rm.judged(r, k=k, short_lists=short, per_user=True)
            got_u = rm.unjudged(r, k=k, short_lists=short, per_user=True)
            for uid in r.user_ids:
                want = _brute_force(truth, run, uid, ties, ref.judged, k=k, short_lists=short)
                assert got_j[uid] == pytest.approx(want, abs=TOL), ("judged", k, short, uid)
                want = _brute_force(truth, run, uid, ties, ref.unjudged, k=k, short_lists=short)
                assert got_u[uid] == pytest.approx(want, abs=TOL), ("unjudged", k, short, uid)


def test_expected_ties_with_the_cap():
    """A tie group whose judged non-relevant items can push n_r past R: E[min] is not min(E)."""
    # R = 1, N = 3: the relevant item is tied with the three judged non-relevant items
    truth = pd.DataFrame({"user": 1, "item": ["a", "b", "c", "d"], "rel": [1, 0, 0, 0]})
    run = pd.DataFrame({"user": 1, "item": ["a", "b", "c", "d", "x"], "score": [1.0] * 5})
    r = rm.from_frames(truth, run, relevance="rel")
    got = rm.bpref(r)
    # n_r uniform on 0..3; the term is 1 - min(n_r, 1) / 1: 1 only when n_r = 0
    assert got == pytest.approx(0.25, abs=TOL)
    assert got == pytest.approx(_brute_force(truth, run, 1, "expected", ref.bpref), abs=TOL)


# --------------------------------------------------------------------------
# complete judgments: score matrices and ranked lists
def _rows(seed, n_rows=6, n_items=6):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 3, (n_rows, n_items)) * (rng.random((n_rows, n_items)) < 0.5)
    y_true[0] = 0
    y_true[1] = 2  # no non-relevant item: N = 0
    y_score = rng.integers(0, 3, (n_rows, n_items)) / 2.0
    y_score[2] = 0.5  # all tied
    mask = rng.random((n_rows, n_items)) < 0.2
    mask[:, 0] = False
    return y_true, y_score, mask


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("with_mask", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_score_matrices_equal_brute_force(ties, with_mask, seed):
    y_true, y_score, mask = _rows(seed)
    if not with_mask:
        mask = None
    got = rm.bpref(y_true, y_score, mask=mask, ties=ties, per_user=True, no_relevant="zero")
    for u in range(y_true.shape[0]):
        m = None if mask is None else list(mask[u])
        keep = [j for j in range(y_true.shape[1]) if m is None or not m[j]]
        n_nonrel = sum(1 for j in keep if y_true[u, j] == 0)
        want = ref.from_scores(
            ref.bpref, list(y_true[u]), list(y_score[u]), ties, m, n_nonrelevant=n_nonrel
        )
        assert got[u] == pytest.approx(want, abs=TOL), (u, ties)
    for k in CUTOFFS:
        got = rm.judged(y_true, y_score, k=k, mask=mask, ties=ties, per_user=True)
        n = y_true.shape[1] - (0 if mask is None else mask.sum(axis=1))
        want = np.minimum(n if k is None else k, n) / (n if k is None else k)
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
        got = rm.unjudged(y_true, y_score, k=k, mask=mask, ties=ties, per_user=True)
        np.testing.assert_array_equal(got, 0.0)


@pytest.mark.parametrize("n_items", [None, 12])
def test_ranked_lists(n_items):
    rng = np.random.default_rng(3)
    lists, relevant = [], []
    for _ in range(20):
        lists.append([f"i{j}" for j in rng.permutation(12)[: rng.integers(1, 8)]])
        relevant.append({f"i{j}" for j in rng.permutation(12)[: rng.integers(0, 5)]})
    got = rm.bpref(lists, relevant, n_items=n_items, per_user=True, no_relevant="zero")
    for u, (lst, rel) in enumerate(zip(lists, relevant, strict=True)):
        gains, rel_gains = ref.gains_from_list(lst, rel)
        n_nonrel = None if n_items is None else n_items - len(rel)
        want = ref.bpref(gains, rel_gains=rel_gains, n_nonrelevant=n_nonrel)
        assert got[u] == pytest.approx(want, abs=TOL), u
    got = rm.judged(lists, relevant, k=5, per_user=True)
    np.testing.assert_allclose(got, [min(5, len(x)) / 5 for x in lists], rtol=0, atol=TOL)


def test_frames_judging_every_item_equal_the_score_matrix():
    """Explicit judgments of every item give the complete-judgment value, under every policy."""
    y_true, y_score, _ = _rows(7)
    n_users, n_items = y_true.shape
    truth = pd.DataFrame(
        [(u, f"d{j:03d}", int(y_true[u, j])) for u in range(n_users) for j in range(n_items)],
        columns=["user", "item", "rel"],
    )
    run = pd.DataFrame(
        [(u, f"d{j:03d}", y_score[u, j]) for u in range(n_users) for j in range(n_items)],
        columns=["user", "item", "score"],
    )
    for ties in TIE_POLICIES:  # trec_eval: decreasing id = decreasing column
        r = rm.from_frames(truth, run, relevance="rel", ties=ties)
        got = rm.bpref(r, per_user=True, no_relevant="zero").to_numpy()
        want = rm.bpref(y_true, y_score, ties=ties, per_user=True, no_relevant="zero")
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL, err_msg=ties)
        for k in (2, 10):
            got = rm.judged(r, k=k, per_user=True).to_numpy()
            want = rm.judged(y_true, y_score, k=k, ties=ties, per_user=True)
            np.testing.assert_allclose(got, want, rtol=0, atol=TOL, err_msg=ties)


# --------------------------------------------------------------------------
# the peers: trec_eval (pytrec_eval) and ir_measures
def _trec_inputs(seed, n_users=40, n_items=60):
    """Qrels with relevant and judged non-relevant rows; runs with unjudged documents and ties."""
    rng = np.random.default_rng(seed)
    docs = [f"d{j:04d}" for j in range(n_items)]
    truth, run = [], []
    for u in range(n_users):
        qid = f"q{u:02d}"
        judged = rng.choice(n_items, size=rng.integers(1, 25), replace=False)
        grades = rng.integers(0, 3, judged.size) * (rng.random(judged.size) < 0.6)
        if u % 7 == 0:
            grades[:] = 0  # judged, nothing relevant: trec_eval scores 0
        truth += [(qid, docs[j], int(g)) for j, g in zip(judged, grades, strict=True)]
        if u % 11 == 5:
            continue  # in the qrels only: trec_eval (without -c) does not evaluate it
        # mostly judged documents, some unjudged ones
        pool = np.r_[judged, rng.choice(n_items, size=10)]
        listed = np.unique(rng.choice(pool, size=rng.integers(1, 30)))
        scores = rng.integers(0, 6, listed.size) / 4.0  # exact in single precision: ties
        run += [(qid, docs[j], float(s)) for j, s in zip(listed, scores, strict=True)]
    truth = pd.DataFrame(truth, columns=["user", "item", "rel"])
    run = pd.DataFrame(run, columns=["user", "item", "score"])
    return truth, run


def _pytrec_eval(truth, run, measure):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, results = {}, {}
    for q, d, g in truth.itertuples(index=False):
        qrels.setdefault(q, {})[d] = int(g)
    for q, d, s in run.itertuples(index=False):
        results.setdefault(q, {})[d] = float(s)
    out = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(results)
    return pd.Series({q: v[measure] for q, v in out.items()}).sort_index()


@pytest.mark.parametrize("seed", range(6))
def test_bpref_equals_trec_eval(seed):
    truth, run = _trec_inputs(seed)
    want = _pytrec_eval(truth, run, "bpref")
    r = rm.from_frames(truth, run, relevance="rel", ties="trec_eval", users="both")
    got = rm.bpref(r, per_user=True, no_relevant="zero")
    assert list(got.index) == list(want.index)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=TOL)
    # the preset: trec_eval's ties, single precision, users in both, 0 without relevant items
    table = rm.evaluate(
        truth, run, ["bpref"], relevance="rel", convention="trec_eval", per_user=True
    )
    np.testing.assert_allclose(table["bpref"].to_numpy(), want.to_numpy(), rtol=0, atol=TOL)
    mean = rm.evaluate(truth, run, ["bpref"], relevance="rel", convention="trec_eval")
    assert mean["bpref"] == pytest.approx(want.mean(), abs=TOL)


def test_bpref_without_judged_nonrelevant_rows_equals_trec_eval():
    """N = 0 (a truth without relevance 0): bpref is the share of relevant items retrieved."""
    truth, run = _trec_inputs(11)
    truth = truth[truth.rel > 0]
    want = _pytrec_eval(truth, run, "bpref")
    r = rm.from_frames(truth, run, relevance="rel", ties="trec_eval", users="both")
    got = rm.bpref(r, per_user=True, no_relevant="zero")
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=TOL)
    found = rm.recall(r, per_user=True, no_relevant="zero")  # no cutoff: the whole run
    np.testing.assert_allclose(got.to_numpy(), found.to_numpy(), rtol=0, atol=TOL)


def _ir_measures_judged(truth, run, cutoff):
    """ir_measures' JudgedEvaluator._iter_calc (providers/judged_provider.py), transcribed."""
    qrels = {}
    for q, d, g in truth.itertuples(index=False):
        qrels.setdefault(q, {})[d] = g
    by_query = {}
    for q, d, s in run.itertuples(index=False):
        by_query.setdefault(q, {})[d] = s
    out = {}
    for qid, docs in by_query.items():
        qid_qrels = qrels.get(qid)
        if not qid_qrels:
            continue
        current_run = sorted(docs.items(), key=lambda x: (-x[1], x[0]))
        c = len(current_run) if cutoff is None else cutoff
        cutoff_run = current_run[:c]
        judged_c = sum((did in qid_qrels) for did, _ in cutoff_run)
        if len(cutoff_run) < c:
            c = len(cutoff_run)
        out[qid] = judged_c / c
    return pd.Series(out).sort_index()


@pytest.mark.parametrize("cutoff", [None, 1, 5, 10, 100])
def test_judged_equals_ir_measures(cutoff):
    truth, run = _trec_inputs(5)
    # ir_measures orders tied documents by increasing id, no policy of ours: untie
    run = run.assign(score=run["score"] + np.random.default_rng(0).random(len(run)) / 8)
    want = _ir_measures_judged(truth, run, cutoff)
    r = rm.from_frames(truth, run, relevance="rel", users="both")
    got = rm.judged(r, k=cutoff, short_lists="list", per_user=True)
    assert list(got.index) == list(want.index)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=TOL)


# --------------------------------------------------------------------------
# through evaluate, and the edge cases
def test_evaluate_agrees_with_the_functions():
    truth, run = _trec_inputs(2)
    names = ["bpref", "judged@10", "unjudged@10", "judged_at@5", "unj@3"]
    table = rm.evaluate(truth, run, names, relevance="rel", per_user=True)
    r = rm.from_frames(truth, run, relevance="rel")
    want = {
        "bpref": rm.bpref(r, per_user=True),
        "judged@10": rm.judged(r, k=10, per_user=True),
        "unjudged@10": rm.unjudged(r, k=10, per_user=True),
        "judged_at@5": rm.judged(r, k=5, per_user=True),
        "unj@3": rm.unjudged(r, k=3, per_user=True),
    }
    for name, values in want.items():
        np.testing.assert_array_equal(table[name].to_numpy(), values.to_numpy(), err_msg=name)
    mean = rm.evaluate(truth, run, ["bpref", "judged@10"], relevance="rel")
    assert mean["bpref"] == rm.bpref(r)
    assert mean["judged@10"] == rm.judged(r, k=10)
    listed = rm.evaluate(truth, run, ["judged@10"], relevance="rel", short_lists="list")
    assert listed["judged@10"] == rm.judged(r, k=10, short_lists="list")


def test_users_without_relevant_items_or_judgments():
    truth = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"], "rel": [1, 0, 0]})
    run = pd.DataFrame({"user": [1, 1, 2, 3], "item": ["b", "a", "a", "a"], "score": [2, 1, 1, 1]})
    r = rm.from_frames(truth, run, relevance="rel", users="all")
    # user 1: R = 1, N = 1, b above a: 0; user 2: no relevant item; user 3: not judged at all
    assert rm.bpref(r, per_user=True, no_relevant="zero").tolist() == [0.0, 0.0, 0.0]
    assert np.isnan(rm.bpref(r, per_user=True).to_numpy()[1:]).all()
    with pytest.raises(ValueError, match="no relevant item"):
        rm.bpref(r, no_relevant="raise")
    # judged@k is defined for every user with a judgment (ir_measures: every query of the qrels)
    got = rm.judged(r, k=2, per_user=True)
    assert got.iloc[:2].tolist() == [1.0, 0.5] and np.isnan(got.iloc[2])
    assert rm.judged(r, k=2, short_lists="list", per_user=True).iloc[:2].tolist() == [1.0, 1.0]


def test_unjudged_complements_judged_on_full_lists():
    truth, run = _trec_inputs(4)
    r = rm.from_frames(truth, run, relevance="rel", users="both")
    for k in (1, 3, 10, None):
        j = rm.judged(r, k=k, short_lists="list", per_user=True)
        u = rm.unjudged(r, k=k, short_lists="list", per_user=True)
        np.testing.assert_allclose(j + u, 1.0, rtol=0, atol=TOL)
        j = rm.judged(r, k=k, per_user=True)
        u = rm.unjudged(r, k=k, per_user=True)
        filled = np.minimum(r.n_ranked, r.n_ranked if k is None else k)
        np.testing.assert_allclose(j + u, filled / (r.n_ranked if k is None else k), atol=TOL)


def test_bpref_needs_the_whole_ranking():
    r = rm.from_scores([[1, 0, 1, 0]], [[0.9, 0.8, 0.7, 0.1]], depth=2)
    with pytest.raises(ValueError, match="depth=2"):
        rm.bpref(r)
    assert rm.judged(r, k=2) == 1.0
    with pytest.raises(TypeError):
        rm.bpref([[1, 0]], [[0.5, 0.1]], k=1)  # bpref has no cutoff
    with pytest.raises(ValueError, match="has no cutoff"):
        rm.evaluate([[1, 0]], [[0.5, 0.1]], ["bpref@5"])
    with pytest.raises(ValueError, match="short_lists"):
        rm.judged([[1, 0]], [[0.5, 0.1]], k=1, short_lists="any")


def test_one_list_and_ranks():
    # a list of gains is one user with complete judgments: R = 2, N = 2
    assert rm.bpref([1, 0, 1, 0]) == pytest.approx((1 + (1 - 1 / 2)) / 2)
    assert rm.judged([1, 0, 1], k=5) == pytest.approx(3 / 5)
    assert rm.judged([1, 0, 1], k=5, short_lists="list") == 1.0
    # held-out ranks in a catalogue of 10: bpref is 1 at rank 1, else 0
    assert rm.bpref(ranks=[1, 2, 5], n_items=10, per_user=True).tolist() == [1.0, 0.0, 0.0]
