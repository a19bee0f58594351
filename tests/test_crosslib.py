"""Cross-library checks: scikit-learn, pytrec_eval (trec_eval) and ranx.

Every check is made twice: the plain reference implementation
(tests/reference.py) against the other library -- this proves the reference
right -- and recmetrics against the same library, with the keyword arguments
that select the other library's convention.

Conventions established empirically here (scikit-learn 1.9.1,
pytrec-eval-terrier 0.5.11, ranx 0.3.21); each one is asserted by a test:

scikit-learn
  * ``dcg_score`` / ``ndcg_score`` (default ``ignore_ties=False``) average the
    gain of each tied group (McSherry & Najork): equal to the exact mean over
    all orders of tied items, i.e. our ``ties="expected"``. Gain is linear
    (y_true itself), log base 2 by default (``dcg_score(log_base=...)``).
    ``ndcg_score``'s IDCG is the DCG@k of the whole row sorted by y_true, i.e.
    our ``idcg="min"``; a row without a relevant item scores 0 and counts in
    the mean (our ``no_relevant="zero"``).
    With ``ignore_ties=True`` the order inside a tie is whatever NumPy's
    default (unstable) argsort returns: not a documented policy, not tested.
    ``ndcg_score`` refuses a row of one item (ValueError: "only meaningful
    when there is more than 1 document").
  * ``roc_auc_score`` on one user's row = our per-user ``auc`` with ties
    counting 1/2 (Mann-Whitney), i.e. ``ties="expected"``.
  * ``average_precision_score`` is the step-wise area under the P-R curve,
    sum_t (R_t - R_{t-1}) P_t over the DISTINCT score thresholds t. Without
    ties it equals our AP with k=None and ``ap_denominator="relevant"``.
    With ties, a tied group enters as one step: its h relevant items all get
    the precision measured after the WHOLE group, (H + h) / (N + m)
    (H, N: relevant and all items above the group; m: group size). This is no
    tie policy of ours and no average over tie orders: it is >= "pessimistic",
    equals "pessimistic" when every tied group holds at most one relevant
    item, can be below or above "expected", and can even exceed "optimistic".
    Examples: y_true=[1, 1, 0], all scores equal: sklearn 2/3; pessimistic
    7/12; expected 29/36; optimistic 1. y_true=[1, 1, 0], scores [0, 0, 1]:
    every order of the tie gives AP 7/12 (ranks 2 and 3), sklearn gives 2/3
    (both relevant items get the precision 2/3 of the end of their group).
    A row without a relevant item gives 0 (with a warning).

trec_eval (pytrec_eval)
  * Ranking: score descending, ties broken by docno in DESCENDING string
    (strcmp) order: with docnos d1, d2, d3, d10 all tied the order is
    d3, d2, d10, d1. With zero-padded docnos string order = column order, so
    this is our ``ties="trec_eval"`` (higher column index first).
  * Scores are compared in single precision (trec_eval stores ``float sim``):
    0.1 and 0.1 + 1e-9 are a tie for trec_eval. Use scores that are distinct
    as float32 when comparing.
  * ``P_k`` = hits@k / k even if fewer than k documents are retrieved;
    ``recall_k`` = hits@k / |R|; ``map`` and ``map_cut_k`` divide by |R|
    (all relevant docs in the qrels, retrieved or not); ``ndcg`` and
    ``ndcg_cut_k`` use linear gain (the qrel grade), log2(i + 1) discount and
    the IDCG of the ideal order of all judged-relevant docs cut at k
    (min(|R|, k) positions, our ``idcg="min"``); ``recip_rank`` has no cutoff.
    Binary measures count a doc as relevant iff its grade >= 1.
  * A query present in the qrels with only grade-0 judgements gets 0 for
    every measure (per-query value returned); a query absent from the qrels
    is left out of the result altogether.

ranx (checked without ties only: ranx's order inside a tie is not specified)
  * ``precision@k`` = hits/k, ``recall@k``, ``f1@k``, ``hit_rate@k``,
    ``mrr@k`` (cut at k), ``map@k`` with denominator |R| (like trec_eval),
    ``ndcg@k`` (Jarvelin, linear gain, IDCG over min(|R|, k)) and
    ``ndcg_burges@k`` (gain 2^rel - 1).
  * ranx compiles its metrics with numba, which costs about 15-30 s on a cold
    cache; recmetrics.peers runs it in a subprocess with NUMBA_DISABLE_JIT=1
    (the same Python source, interpreted), which takes a few seconds.

The peers are run through the adapters of recmetrics.peers (one per library);
only the probes of trec_eval's own behaviour call pytrec_eval directly.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
import pytrec_eval
import reference as ref
from sklearn.metrics import average_precision_score, dcg_score, ndcg_score, roc_auc_score

import recmetrics as rm
from recmetrics import peers

pytestmark = pytest.mark.crosslib

TOL = 1e-9


def api(name):
    """recmetrics.<name> (an AttributeError, i.e. a failure, if it is missing).

    The peers count a user without relevant items as 0 (scikit-learn's
    ndcg_score, trec_eval for a judged query), so the package is called with
    ``no_relevant="zero"`` unless a test says otherwise.
    """
    fn = getattr(rm, name)
    if "no_relevant" not in inspect.signature(fn).parameters:
        return fn

    def call(*args, **kw):
        kw.setdefault("no_relevant", "zero")
        if name == "average_precision":
            kw.setdefault("ap_denominator", "relevant")  # trec_eval's and ranx's |R|
        return fn(*args, **kw)

    return call


def random_matrix(rng, n_users, n_items, *, ties, graded, density=0.4, score_values=3):
    """(y_true, y_score): integer gains 0..3 (or 0/1) and scores.

    With ties, scores take ``score_values`` distinct values; without, they are
    distinct (a permutation scaled into (0, 1), distinct also as float32).
    """
    top = 4 if graded else 2
    y_true = rng.integers(1, top, (n_users, n_items)) * (rng.random((n_users, n_items)) < density)
    if ties:
        y_score = rng.integers(0, score_values, (n_users, n_items)) / 4.0
    else:
        y_score = np.stack([(rng.permutation(n_items) + 1) / (n_items + 1) for _ in range(n_users)])
    return y_true.astype(int), y_score.astype(float)


# ====================================================================
# scikit-learn
# ====================================================================
def sklearn_cases(seed, ties, graded, n_cases=8, max_items=8, density=0.4):
    rng = np.random.default_rng(seed)
    cases = []
    for _trial in range(n_cases):
        n_users, n_items = int(rng.integers(1, 13)), int(rng.integers(2, max_items))
        cases.append(
            random_matrix(rng, n_users, n_items, ties=ties, graded=graded, density=density)
        )
    return cases


KS = (None, 1, 3, 5)
SK_PARAMS = pytest.mark.parametrize(
    "ties,graded", [(False, False), (False, True), (True, False), (True, True)]
)


@SK_PARAMS
def test_reference_vs_sklearn_dcg_ndcg(ties, graded):
    for y_true, y_score in sklearn_cases(10 + 2 * ties + graded, ties, graded):
        n_users = len(y_true)
        for k in KS:
            for log_base in (2, 10):
                refv = [
                    ref.from_scores(
                        ref.dcg_rel,
                        list(y_true[u]),
                        list(y_score[u]),
                        "expected",
                        k=k,
                        log_base=log_base,
                    )
                    for u in range(n_users)
                ]
                np.testing.assert_allclose(
                    refv,
                    peers.sklearn_per_user(dcg_score, y_true, y_score, k=k, log_base=log_base),
                    rtol=0,
                    atol=TOL,
                )
            refv = [
                ref.from_scores(ref.ndcg, list(y_true[u]), list(y_score[u]), "expected", k=k)
                for u in range(n_users)
            ]
            np.testing.assert_allclose(
                refv, peers.sklearn_per_user(ndcg_score, y_true, y_score, k=k), rtol=0, atol=TOL
            )
            # the batch mean counts rows without a relevant item as 0
            assert np.mean(refv) == pytest.approx(ndcg_score(y_true, y_score, k=k), abs=TOL)


@SK_PARAMS
def test_recmetrics_vs_sklearn_dcg_ndcg(ties, graded):
    ndcg, dcg = api("ndcg"), api("dcg")
    for y_true, y_score in sklearn_cases(10 + 2 * ties + graded, ties, graded):
        for k in KS:
            got = ndcg(
                y_true, y_score, k=k, ties="expected", gain="linear", idcg="min", per_user=True
            )
            np.testing.assert_allclose(
                got,
                peers.sklearn_per_user(ndcg_score, y_true, y_score, k=k),
                rtol=0,
                atol=TOL,
                err_msg=f"k={k} y_true={y_true!r} y_score={y_score!r}",
            )
            assert ndcg(y_true, y_score, k=k) == pytest.approx(
                ndcg_score(y_true, y_score, k=k), abs=TOL
            )
            for log_base in (2, 10):
                got = dcg(y_true, y_score, k=k, ties="expected", log_base=log_base, per_user=True)
                np.testing.assert_allclose(
                    got,
                    peers.sklearn_per_user(dcg_score, y_true, y_score, k=k, log_base=log_base),
                    rtol=0,
                    atol=TOL,
                    err_msg=f"k={k} y_true={y_true!r} y_score={y_score!r}",
                )


def auc_cases(ties):
    cases = sklearn_cases(20 + ties, ties, False, n_cases=12, max_items=9, density=0.5)
    for y_true, _ in cases:
        y_true[:, 0], y_true[:, 1] = 1, 0  # roc_auc_score needs both classes
    return cases


@pytest.mark.parametrize("ties", [False, True])
def test_reference_vs_sklearn_roc_auc_per_user(ties):
    for y_true, y_score in auc_cases(ties):
        n_users = len(y_true)
        sk = peers.sklearn_per_user(roc_auc_score, y_true, y_score)
        mw = [ref.auc_mann_whitney(y_true[u], y_score[u]) for u in range(n_users)]
        enum = [
            ref.from_scores(ref.auc_rel, list(y_true[u]), list(y_score[u]), "expected")
            for u in range(n_users)
        ]
        np.testing.assert_allclose(mw, sk, rtol=0, atol=TOL)
        np.testing.assert_allclose(enum, sk, rtol=0, atol=TOL)


@pytest.mark.parametrize("ties", [False, True])
def test_recmetrics_vs_sklearn_roc_auc_per_user(ties):
    auc = api("auc")
    for y_true, y_score in auc_cases(ties):
        sk = peers.sklearn_per_user(roc_auc_score, y_true, y_score)
        got = auc(y_true, y_score, ties="expected", per_user=True)
        np.testing.assert_allclose(
            got, sk, rtol=0, atol=TOL, err_msg=f"y_true={y_true!r} y_score={y_score!r}"
        )


def sklearn_style_ap(y_true_row, y_score_row):
    """The tied-group convention of average_precision_score, written out."""
    n_rel = sum(1 for t in y_true_row if t > 0)
    total, H, N = 0.0, 0, 0
    for v in sorted(set(y_score_row), reverse=True):
        group = [t for t, s in zip(y_true_row, y_score_row, strict=False) if s == v]
        h = sum(1 for t in group if t > 0)
        H, N = H + h, N + len(group)
        total += (h / n_rel) * (H / N)
    return total


def ap_cases():
    cases = sklearn_cases(30, False, False, n_cases=15, max_items=20)
    for y_true, _ in cases:
        y_true[:, 0] = 1
    return cases


def test_reference_vs_sklearn_average_precision_without_ties():
    for y_true, y_score in ap_cases():
        n_users = len(y_true)
        sk = peers.sklearn_per_user(average_precision_score, y_true, y_score)
        for ties in ref.TIE_POLICIES:  # no ties: every policy agrees
            refv = [
                ref.from_scores(ref.average_precision, list(y_true[u]), list(y_score[u]), ties)
                for u in range(n_users)
            ]
            np.testing.assert_allclose(refv, sk, rtol=0, atol=TOL)


def test_recmetrics_vs_sklearn_average_precision_without_ties():
    ap = api("average_precision")
    for y_true, y_score in ap_cases():
        sk = peers.sklearn_per_user(average_precision_score, y_true, y_score)
        got = ap(y_true, y_score, k=None, ap_denominator="relevant", per_user=True)
        np.testing.assert_allclose(
            got, sk, rtol=0, atol=TOL, err_msg=f"y_true={y_true!r} y_score={y_score!r}"
        )


def test_sklearn_average_precision_with_ties_is_grouped_step():
    rng = np.random.default_rng(31)
    n_below_expected = n_above_expected = n_above_optimistic = 0
    for _trial in range(300):
        n = int(rng.integers(2, 8))
        y_true = (rng.random(n) < 0.4).astype(int)
        y_true[0] = 1
        y_score = rng.integers(0, 3, n) / 2.0
        sk = average_precision_score(y_true, y_score)
        assert sk == pytest.approx(sklearn_style_ap(y_true, y_score), abs=TOL)
        val = {
            t: ref.from_scores(ref.average_precision, list(y_true), list(y_score), t)
            for t in ref.TIE_POLICIES
        }
        assert sk >= val["pessimistic"] - TOL
        n_above_optimistic += sk > val["optimistic"] + TOL
        # equal to pessimistic when each tied group holds <= 1 relevant item
        if all(y_true[y_score == v].sum() <= 1 for v in set(y_score)):
            assert sk == pytest.approx(val["pessimistic"], abs=TOL)
        n_below_expected += sk < val["expected"] - TOL
        n_above_expected += sk > val["expected"] + TOL
    # sklearn's tied-group AP is not the expected AP, in either direction
    assert n_below_expected > 0 and n_above_expected > 0
    # ... and can even exceed every tie order (a group of several relevant items)
    assert n_above_optimistic > 0
    yt, ys = [1, 1, 0], [0.0, 0.0, 1.0]
    assert average_precision_score(yt, ys) == pytest.approx(2 / 3)
    assert all(
        ref.from_scores(ref.average_precision, yt, ys, t) == pytest.approx(7 / 12)
        for t in ref.TIE_POLICIES
    )
    # the worked example quoted in the module docstring
    yt, ys = [1, 1, 0], [0.5, 0.5, 0.5]
    assert average_precision_score(yt, ys) == pytest.approx(2 / 3)
    assert ref.from_scores(ref.average_precision, yt, ys, "pessimistic") == pytest.approx(7 / 12)
    assert ref.from_scores(ref.average_precision, yt, ys, "expected") == pytest.approx(29 / 36)
    assert ref.from_scores(ref.average_precision, yt, ys, "optimistic") == pytest.approx(1.0)


def test_sklearn_average_precision_no_positive_is_zero():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert average_precision_score([0, 0, 0], [0.1, 0.2, 0.3]) == 0.0
    assert ref.average_precision([0, 0, 0]) == 0.0


# ====================================================================
# trec_eval via pytrec_eval
# ====================================================================
TREC_MEASURES = {
    # measure: (reference metric, reference kwargs, recmetrics name, recmetrics kwargs)
    "P_10": (ref.precision, {"k": 10}, "precision", {"k": 10}),
    "recall_10": (ref.recall, {"k": 10}, "recall", {"k": 10}),
    "map_cut_10": (
        ref.average_precision,
        {"k": 10},
        "average_precision",
        {"k": 10, "ap_denominator": "relevant"},
    ),
    "map": (
        ref.average_precision,
        {"k": None},
        "average_precision",
        {"k": None, "ap_denominator": "relevant"},
    ),
    "ndcg_cut_10": (ref.ndcg, {"k": 10}, "ndcg", {"k": 10, "gain": "linear", "idcg": "min"}),
    "ndcg": (ref.ndcg, {"k": None}, "ndcg", {"k": None, "gain": "linear", "idcg": "min"}),
    "recip_rank": (ref.reciprocal_rank, {"k": None}, "reciprocal_rank", {"k": None}),
    "P_5": (ref.precision, {"k": 5}, "precision", {"k": 5}),
    "recall_5": (ref.recall, {"k": 5}, "recall", {"k": 5}),
    "map_cut_5": (
        ref.average_precision,
        {"k": 5},
        "average_precision",
        {"k": 5, "ap_denominator": "relevant"},
    ),
    "ndcg_cut_5": (ref.ndcg, {"k": 5}, "ndcg", {"k": 5, "gain": "linear", "idcg": "min"}),
}


def trec_cases(seed, ties, graded):
    rng = np.random.default_rng(seed)
    cases = []
    for _trial in range(8):
        n_users, n_items = int(rng.integers(1, 16)), int(rng.integers(2, 31))
        density = float(rng.choice([0.1, 0.3, 0.7]))
        y_true, y_score = random_matrix(
            rng, n_users, n_items, ties=ties, graded=graded, density=density
        )
        cases.append((y_true, y_score, peers.trec_eval(y_true, y_score, TREC_MEASURES)))
    return cases


TREC_PARAMS = pytest.mark.parametrize(
    "ties,graded", [(False, False), (False, True), (True, False), (True, True)]
)


@TREC_PARAMS
def test_reference_vs_pytrec_eval_per_query(ties, graded):
    for y_true, y_score, tv in trec_cases(40 + 2 * ties + graded, ties, graded):
        for m, (ref_fn, ref_kw, _rm_name, _rm_kw) in TREC_MEASURES.items():
            refv = [
                ref.from_scores(ref_fn, list(y_true[u]), list(y_score[u]), "trec_eval", **ref_kw)
                for u in range(len(y_true))
            ]
            np.testing.assert_allclose(refv, tv[m], rtol=0, atol=TOL, err_msg=m)


@TREC_PARAMS
def test_recmetrics_vs_pytrec_eval_per_query(ties, graded):
    for y_true, y_score, tv in trec_cases(40 + 2 * ties + graded, ties, graded):
        for m, (_ref_fn, _ref_kw, rm_name, rm_kw) in TREC_MEASURES.items():
            got = api(rm_name)(y_true, y_score, ties="trec_eval", per_user=True, **rm_kw)
            np.testing.assert_allclose(
                got, tv[m], rtol=0, atol=TOL, err_msg=f"{m} y_true={y_true!r} y_score={y_score!r}"
            )


def test_trec_eval_ties_by_docno_descending_string():
    run = {"q": {"d1": 1.0, "d2": 1.0, "d3": 1.0, "d10": 1.0}}
    rank = {}
    for rel in ["d1", "d2", "d3", "d10"]:
        ev = pytrec_eval.RelevanceEvaluator({"q": {rel: 1, "zz": 0}}, {"recip_rank"})
        rank[rel] = round(1 / ev.evaluate(run)["q"]["recip_rank"])
    assert rank == {"d3": 1, "d2": 2, "d10": 3, "d1": 4}  # strcmp, descending
    # zero-padded docnos: descending string = descending column index
    y_true = np.array([[1, 0, 0, 1, 0, 0]])
    y_score = np.zeros((1, 6))
    tv = peers.trec_eval(y_true, y_score, ["recip_rank"])
    assert tv["recip_rank"][0] == pytest.approx(1 / 3)  # column 3 is at rank 3
    assert ref.from_scores(
        ref.reciprocal_rank, [1, 0, 0, 1, 0, 0], [0.0] * 6, "trec_eval"
    ) == pytest.approx(1 / 3)


def test_trec_eval_compares_scores_in_single_precision():
    def rr(eps):
        ev = pytrec_eval.RelevanceEvaluator({"q": {"a": 1, "b": 0}}, {"recip_rank"})
        return ev.evaluate({"q": {"a": 0.1 + eps, "b": 0.1}})["q"]["recip_rank"]

    # float64-distinct but float32-equal: a tie, broken by docno ("b" > "a")
    assert np.float32(0.1 + 1e-9) == np.float32(0.1)
    assert rr(1e-9) == 0.5
    assert np.float32(0.1 + 1e-7) != np.float32(0.1)
    assert rr(1e-7) == 1.0


def test_trec_eval_query_without_relevant_docs():
    qrel = {"q": {"a": 0, "b": 0}, "q2": {"a": 1}}
    run = {"q": {"a": 1.0, "b": 0.5}, "q2": {"a": 1.0}, "q3": {"a": 1.0}}
    measures = {"recip_rank", "map", "ndcg", "P_10", "recall_10", "ndcg_cut_10", "map_cut_10"}
    res = pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run)
    assert set(res) == {"q", "q2"}  # q3 (not in qrels) is left out
    assert all(v == 0.0 for v in res["q"].values())  # no relevant doc: 0, not skipped
    # our "zero" policy gives the same per-user value
    for m, (ref_fn, ref_kw, _rm_name, _rm_kw) in TREC_MEASURES.items():
        if m in measures:
            assert ref.from_scores(ref_fn, [0, 0], [1.0, 0.5], "trec_eval", **ref_kw) == 0.0


def test_recmetrics_query_without_relevant_docs_like_trec_eval():
    y_true, y_score = np.array([[0, 0], [1, 0]]), np.array([[1.0, 0.5], [0.2, 0.1]])
    for m, (_ref_fn, _ref_kw, rm_name, rm_kw) in TREC_MEASURES.items():
        got = api(rm_name)(
            y_true, y_score, ties="trec_eval", per_user=True, no_relevant="zero", **rm_kw
        )
        assert got[0] == 0.0, m


# ====================================================================
# ranx (no ties), in a subprocess without numba's JIT
# ====================================================================
RANX_MEASURES = {
    # ranx metric: (reference fn, kwargs, recmetrics name, kwargs)
    "precision@5": (ref.precision, {"k": 5}, "precision", {"k": 5}),
    "recall@5": (ref.recall, {"k": 5}, "recall", {"k": 5}),
    "f1@5": (ref.f_score, {"k": 5}, "f_score", {"k": 5, "beta": 1.0}),
    "hit_rate@5": (ref.hit_ratio, {"k": 5}, "hit_ratio", {"k": 5}),
    "mrr@5": (ref.reciprocal_rank, {"k": 5}, "reciprocal_rank", {"k": 5}),
    "mrr": (ref.reciprocal_rank, {"k": None}, "reciprocal_rank", {"k": None}),
    "map@5": (
        ref.average_precision,
        {"k": 5},
        "average_precision",
        {"k": 5, "ap_denominator": "relevant"},
    ),
    "map": (
        ref.average_precision,
        {"k": None},
        "average_precision",
        {"k": None, "ap_denominator": "relevant"},
    ),
    "ndcg@5": (ref.ndcg, {"k": 5}, "ndcg", {"k": 5, "gain": "linear", "idcg": "min"}),
    "ndcg": (ref.ndcg, {"k": None}, "ndcg", {"k": None, "gain": "linear", "idcg": "min"}),
    "ndcg_burges@5": (
        ref.ndcg,
        {"k": 5, "gain": "exponential"},
        "ndcg",
        {"k": 5, "gain": "exponential", "idcg": "min"},
    ),
}


def ranx_cases():
    rng = np.random.default_rng(50)
    mats = []
    for _trial in range(8):
        n_users, n_items = int(rng.integers(1, 10)), int(rng.integers(2, 13))
        y_true, y_score = random_matrix(
            rng, n_users, n_items, ties=False, graded=True, density=float(rng.choice([0.3, 0.7]))
        )
        y_true[:, 0] = np.maximum(y_true[:, 0], 1)  # ranx drops queries without qrels
        mats.append((y_true, y_score))
    return mats


def ranx_jobs():
    """The inputs ranx runs on (tests/conftest.py runs them; see ranx_results)."""
    return [(y_true, y_score, list(RANX_MEASURES)) for y_true, y_score in ranx_cases()]


@pytest.mark.slow
def test_reference_vs_ranx_without_ties(ranx_results):
    # |R| > k happens, so map@5's denominator (|R|, not min(|R|, k)) is exercised
    assert any(((y_true > 0).sum(axis=1) > 5).any() for y_true, _ in ranx_cases())
    for m, (ref_fn, ref_kw, _rm_name, _rm_kw) in RANX_MEASURES.items():
        for t, (y_true, y_score) in enumerate(ranx_cases()):
            expected = ranx_results[t][m]
            refv = [
                ref.from_scores(ref_fn, list(y_true[u]), list(y_score[u]), "optimistic", **ref_kw)
                for u in range(y_true.shape[0])
            ]
            np.testing.assert_allclose(refv, expected, rtol=0, atol=TOL, err_msg=m)


@pytest.mark.slow
def test_recmetrics_vs_ranx_without_ties(ranx_results):
    for m, (_ref_fn, _ref_kw, rm_name, rm_kw) in RANX_MEASURES.items():
        fn = api(rm_name)
        for t, (y_true, y_score) in enumerate(ranx_cases()):
            expected = ranx_results[t][m]
            got = fn(y_true, y_score, per_user=True, **rm_kw)
            np.testing.assert_allclose(
                got,
                expected,
                rtol=0,
                atol=TOL,
                err_msg=f"{m} y_true={y_true!r} y_score={y_score!r}",
            )
