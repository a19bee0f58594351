"""Convention presets (recmetrics.conventions) against the libraries they copy.

* Run here: scikit-learn, pytrec_eval (trec_eval) and ranx are called on
  random data, binary and graded, with and without tied scores, and every
  metric their preset provides must agree per user to 1e-9. ranx is checked
  without ties only: its order inside a tie is the input order through an
  unstable argsort (shown by ``test_ranx_depends_on_input_order_with_ties``).
  The libraries are run through the adapters of recmetrics.peers.
* Not installed here: torchmetrics, RecBole, Microsoft Recommenders, Spark,
  RecTools and LensKit are checked on small examples, most of them the
  libraries' own docstring examples (whose outputs their doctests produce),
  the others computed by hand from the formulas in their source code
  (cited in recmetrics.conventions.SOURCES).
* The preset machinery of recmetrics.evaluate: a preset fills the keywords
  left out; an explicit keyword contradicting it, or a metric the library
  lacks, raises ValueError.
* The keywords added to the core for these presets, each on a small example.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, dcg_score, ndcg_score, roc_auc_score

import recmetrics as rm
from recmetrics import conventions as cv
from recmetrics import peers

TOL = 1e-9
CASES = [(False, False), (False, True), (True, False), (True, True)]  # (ties, graded)


def random_data(seed, ties, graded, n_users=12, n_items=15, density=0.3):
    """Integer gains (0/1 or 0..3) and scores; some users without a relevant item."""
    rng = np.random.default_rng(seed)
    top = 4 if graded else 2
    y_true = rng.integers(1, top, (n_users, n_items)) * (rng.random((n_users, n_items)) < density)
    y_true[0] = 0  # a user without relevant items
    y_true[1, :] = 0
    y_true[1, 3] = 1  # a user with one
    if ties:
        y_score = rng.integers(0, 4, (n_users, n_items)) / 4.0
    else:  # distinct, also as float32
        y_score = np.stack([(rng.permutation(n_items) + 1) / (n_items + 1) for _ in range(n_users)])
    return y_true.astype(int), y_score


def per_user(y_true, y_score, metric, convention, **kw):
    return rm.evaluate(y_true, y_score, [metric], convention=convention, per_user=True, **kw)[
        metric
    ].to_numpy()


# ======================================================================
# scikit-learn
# ======================================================================
@pytest.mark.crosslib
@pytest.mark.parametrize("ties,graded", CASES)
def test_sklearn_ndcg_dcg(ties, graded):
    y_true, y_score = random_data(1 + 2 * ties + graded, ties, graded)
    for k in (None, 1, 5, 10):
        name = "ndcg" if k is None else f"ndcg@{k}"
        sk = peers.sklearn_per_user(ndcg_score, y_true, y_score, k=k)
        np.testing.assert_allclose(per_user(y_true, y_score, name, "sklearn"), sk, rtol=0, atol=TOL)
        got = rm.evaluate(y_true, y_score, [name], convention="sklearn")[name]
        assert got == pytest.approx(ndcg_score(y_true, y_score, k=k), abs=TOL)
        name = "dcg" if k is None else f"dcg@{k}"
        sk = peers.sklearn_per_user(dcg_score, y_true, y_score, k=k)
        np.testing.assert_allclose(per_user(y_true, y_score, name, "sklearn"), sk, rtol=0, atol=TOL)


@pytest.mark.crosslib
@pytest.mark.parametrize("ties", [False, True])
def test_sklearn_average_precision_samples(ties):
    y_true, y_score = random_data(11 + ties, ties, graded=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rows without a positive label warn and score 0
        sk_rows = peers.sklearn_per_user(average_precision_score, y_true, y_score)
        sk_mean = average_precision_score(y_true, y_score, average="samples")
    np.testing.assert_allclose(
        per_user(y_true, y_score, "map", "sklearn"), sk_rows, rtol=0, atol=TOL
    )
    assert rm.evaluate(y_true, y_score, ["map"], convention="sklearn")["map"] == pytest.approx(
        sk_mean, abs=TOL
    )
    if ties:  # the tied-group rule matters here: the policies differ from scikit-learn
        for policy in ("expected", "optimistic", "pessimistic"):
            other = rm.average_precision(y_true, y_score, ties=policy, per_user=True)
            assert not np.allclose(other, sk_rows, atol=1e-6), policy


@pytest.mark.crosslib
def test_sklearn_average_precision_default_averages_over_items():
    """average_precision_score's default (average='macro') averages over columns, i.e. items."""
    y_true, y_score = random_data(13, ties=False, graded=False)
    keep = y_true.sum(axis=0) > 0  # macro needs a positive in every column
    yt, ys = y_true[:, keep], y_score[:, keep]
    macro = average_precision_score(yt, ys)
    per_item = np.mean([average_precision_score(yt[:, j], ys[:, j]) for j in range(yt.shape[1])])
    assert macro == pytest.approx(per_item, abs=TOL)
    assert abs(macro - rm.evaluate(yt, ys, ["map"], convention="sklearn")["map"]) > 1e-3


@pytest.mark.crosslib
@pytest.mark.parametrize("ties", [False, True])
def test_sklearn_roc_auc_per_user(ties):
    y_true, y_score = random_data(21 + ties, ties, graded=False)
    y_true[:, 0], y_true[:, 1] = 1, 0  # both classes in every row
    sk = peers.sklearn_per_user(roc_auc_score, y_true, y_score)
    np.testing.assert_allclose(per_user(y_true, y_score, "auc", "sklearn"), sk, rtol=0, atol=TOL)


# ======================================================================
# trec_eval through pytrec_eval
# ======================================================================
TREC = {  # trec_eval measure -> our metric name
    "P_5": "precision@5",
    "P_10": "precision@10",
    "recall_5": "recall@5",
    "recall_10": "recall@10",
    "map_cut_5": "map@5",
    "map_cut_10": "map@10",
    "map": "map",
    "ndcg_cut_5": "ndcg@5",
    "ndcg_cut_10": "ndcg@10",
    "ndcg": "ndcg",
    "recip_rank": "mrr",
    "success_5": "hr@5",
}


@pytest.mark.crosslib
@pytest.mark.parametrize("ties,graded", CASES)
def test_trec_eval(ties, graded):
    y_true, y_score = random_data(31 + 2 * ties + graded, ties, graded, n_users=15, n_items=25)
    tv = peers.trec_eval(y_true, y_score, TREC)
    ours = rm.evaluate(y_true, y_score, list(TREC.values()), convention="trec_eval", per_user=True)
    for m, name in TREC.items():
        np.testing.assert_allclose(ours[name], tv[m], rtol=0, atol=TOL, err_msg=m)


@pytest.mark.crosslib
def test_trec_eval_single_precision_scores():
    """Scores distinct in float64 but equal in float32 are a tie for trec_eval and the preset."""
    y_true = np.array([[0, 1, 0, 0, 1, 0]])
    y_score = np.array([[0.5, 0.1, 0.1 + 1e-9, 0.1 - 1e-9, 0.3, 0.2]])
    tv = peers.trec_eval(y_true, y_score, {"recip_rank": "mrr", "map": "map"})
    assert tv["recip_rank"][0] == 0.5  # item 4 (0.3) is second
    got = rm.evaluate(y_true, y_score, ["mrr", "map"], convention="trec_eval")
    assert got["map"] == pytest.approx(tv["map"][0], abs=TOL)
    # item 1 ties with items 2 and 3 in float32; by column, 3 and 2 come first
    assert tv["map"][0] == pytest.approx((1 / 2 + 2 / 6) / 2)
    plain = rm.average_precision(y_true, y_score, ties="trec_eval")  # float64: no tie
    assert plain == pytest.approx((1 / 2 + 2 / 5) / 2)


# ======================================================================
# ranx (no ties), in a subprocess without numba's JIT
# ======================================================================
RANX = {  # ranx metric -> our metric name
    "precision@5": "precision@5",
    "recall@5": "recall@5",
    "f1@5": "f1@5",
    "hit_rate@5": "hr@5",
    "mrr@5": "mrr@5",
    "mrr": "mrr",
    "map@5": "map@5",
    "map": "map",
    "ndcg@5": "ndcg@5",
    "ndcg": "ndcg",
    "precision@10": "precision@10",
    "map@10": "map@10",
    "ndcg@10": "ndcg@10",
}


def ranx_data():
    """Two tie-free inputs (binary, graded), then one tied row given in two item orders."""
    data = [
        random_data(41 + graded, ties=False, graded=graded, n_users=15, n_items=20)
        for graded in (0, 1)
    ]
    # ties: the same tied scores given in two orders of the items
    y_true = np.array([[0, 0, 1, 0, 0, 0]])
    y_score = np.array([[0.5, 0.5, 0.5, 0.5, 0.9, 0.1]])
    return data, (y_true, y_score)


def ranx_jobs():
    """The inputs ranx runs on (tests/conftest.py runs them; see ranx_results)."""
    data, (y_true, y_score) = ranx_data()
    jobs = [(yt, ys, list(RANX)) for yt, ys in data]
    jobs += [(y_true, y_score, ["mrr", "map"], o) for o in ([0, 1, 2, 3, 4, 5], [2, 0, 1, 3, 4, 5])]
    return jobs


@pytest.mark.crosslib
@pytest.mark.slow
def test_ranx_without_ties(ranx_results):
    data, _ = ranx_data()
    for (y_true, y_score), rx in zip(data, ranx_results[:2], strict=False):
        ours = rm.evaluate(y_true, y_score, list(RANX.values()), convention="ranx", per_user=True)
        has = y_true.sum(axis=1) > 0
        assert not has.all()  # users judged without a relevant item score 0 in ranx
        for m, name in RANX.items():
            assert (ours[name][~has] == 0).all()
            assert (rx[m][~has] == 0).all()
            np.testing.assert_allclose(ours[name], rx[m], rtol=0, atol=TOL, err_msg=m)
            mean = rm.evaluate(y_true, y_score, [name], convention="ranx")[name]
            assert mean == pytest.approx(np.mean(rx[m]), abs=TOL)


@pytest.mark.crosslib
@pytest.mark.slow
def test_ranx_depends_on_input_order_with_ties(ranx_results):
    _, (y_true, y_score) = ranx_data()
    first, second = ranx_results[2], ranx_results[3]
    # same data, other item order, other number (the relevant item lands at
    # another place among the four tied items, ranks 2 to 5)
    assert first["mrr"][0] != second["mrr"][0]
    assert {first["mrr"][0], second["mrr"][0]} <= {1 / 2, 1 / 3, 1 / 4, 1 / 5}
    # the expected value over tie orders does not depend on the order
    ours = rm.evaluate(y_true, y_score, ["mrr"], convention="ranx")["mrr"]
    assert ours == pytest.approx((1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) / 4)


# ======================================================================
# libraries not installed here: their docstring examples and hand-computed cases
# ======================================================================
def test_torchmetrics_docstring_examples():
    """Outputs of torchmetrics 1.9.0's own docstring examples (its doctests)."""
    preds, target = np.array([[0.2, 0.3, 0.5]]), np.array([[1, 0, 1]])
    r = rm.evaluate(target, preds, ["precision@2", "recall@2", "map"], convention="torchmetrics")
    assert r.round(4).tolist() == [0.5, 0.5, 0.8333]
    assert rm.evaluate([[0, 1, 0]], preds, ["mrr"], convention="torchmetrics")["mrr"] == 0.5
    got = rm.evaluate(
        [[10, 0, 0, 1, 5]], [[0.1, 0.2, 0.3, 4, 70]], ["ndcg"], convention="torchmetrics"
    )
    assert round(got["ndcg"], 4) == 0.6957
    # the retrieval classes: two queries of 3 and 4 documents (padding masked out)
    preds = np.array([[0.2, 0.3, 0.5, -1.0], [0.1, 0.3, 0.5, 0.2]])
    target = np.array([[0, 0, 1, 0], [0, 1, 0, 1]])
    mask = np.array([[0, 0, 0, 1], [0, 0, 0, 0]], dtype=bool)
    r = rm.evaluate(
        target,
        preds,
        ["precision@2", "recall@2", "map", "mrr", "ndcg"],
        mask=mask,
        convention="torchmetrics",
    )
    assert r.round(4).tolist() == [0.5, 0.75, 0.7917, 0.75, 0.8467]


def test_torchmetrics_nonpositive_scores_are_not_retrieved():
    # relevant items at scores 0.9, 0.0 and -0.5: only the first is "retrieved"
    y_true, y_score = [[1, 0, 1, 1]], [[0.9, 0.8, 0.0, -0.5]]
    r = rm.evaluate(
        y_true,
        y_score,
        ["precision@4", "recall@4", "map@4", "mrr", "ndcg@4"],
        convention="torchmetrics",
    )
    assert r["precision@4"] == 0.25 and r["recall@4"] == pytest.approx(1 / 3)
    assert r["map@4"] == 1.0  # AP over the hits: (1/1) / 1
    assert r["mrr"] == 1.0
    # NDCG has no such filter: ranks 1, 3, 4 all count
    dcg = 1 + 1 / math.log2(4) + 1 / math.log2(5)
    assert r["ndcg@4"] == pytest.approx(dcg / (1 + 1 / math.log2(3) + 1 / math.log2(4)), abs=TOL)
    # a relevant item scored 0 at rank 2 is no hit at all
    assert rm.evaluate([[0, 1]], [[0.5, 0.0]], ["mrr"], convention="torchmetrics")["mrr"] == 0.0
    assert rm.evaluate([[0, 1]], [[0.5, 0.0]], ["mrr"], convention="trec_eval")["mrr"] == 0.5
    # AP over the hits: hits at ranks 1 and 3 of the top 3, |R| = 5
    y_true = [[1, 0, 1, 0, 1, 1, 1]]
    y_score = [[0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]]
    assert rm.evaluate(y_true, y_score, ["map@3"], convention="torchmetrics")[
        "map@3"
    ] == pytest.approx((1 + 2 / 3) / 2)


def test_recbole_formulas():
    # hits at ranks 1 and 3 of the top 3, |R| = 5 (graded input is binarised)
    y_true = [[3, 0, 1, 0, 2, 1, 1]]
    y_score = [[0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]]
    r = rm.evaluate(
        y_true,
        y_score,
        ["precision@3", "recall@3", "map@3", "ndcg@3", "mrr@3", "hr@3"],
        convention="recbole",
    )
    assert r["precision@3"] == pytest.approx(2 / 3) and r["recall@3"] == pytest.approx(2 / 5)
    assert r["map@3"] == pytest.approx((1 + 2 / 3) / 3)  # min(|R|, k) = 3
    assert r["ndcg@3"] == pytest.approx((1 + 0.5) / (1 + 1 / math.log2(3) + 0.5))
    assert r["mrr@3"] == 1.0 and r["hr@3"] == 1.0
    # a user without relevant items is not evaluated
    per = rm.evaluate(
        [[0, 0], [0, 1]], [[0.5, 0.1], [0.5, 0.1]], ["mrr@2"], convention="recbole", per_user=True
    )
    assert np.isnan(per["mrr@2"][0]) and per["mrr@2"][1] == 0.5
    with pytest.raises(ValueError, match="needs a cutoff"):
        rm.evaluate(y_true, y_score, ["map"], convention="recbole")


def test_recommenders_formulas():
    y_true = [[3, 0, 1, 0, 2, 1, 1]]
    y_score = [[0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]]
    r = rm.evaluate(y_true, y_score, ["map@3", "ndcg@3"], convention="recommenders")
    assert r["map@3"] == pytest.approx((1 + 2 / 3) / 3)  # map_at_k: min(|R|, k)
    assert r["ndcg@3"] == pytest.approx(
        (1 + 0.5) / (1 + 1 / math.log2(3) + 0.5)
    )  # binary, log base cancels
    with pytest.raises(ValueError, match="provides no 'mrr'"):
        rm.evaluate(y_true, y_score, ["mrr@3"], convention="recommenders")


def test_spark_docstring_example():
    """pyspark.mllib.evaluation.RankingMetrics' docstring (outputs truncated with '...' there)."""
    rec = [[1, 6, 2, 7, 8, 3, 9, 10, 4, 5], [4, 1, 5, 6, 2, 7, 3, 8, 9, 10], [1, 2, 3, 4, 5]]
    rel = [{1, 2, 3, 4, 5}, {1, 2, 3}, set()]
    expected = {
        "precision@1": "0.33",
        "precision@5": "0.26",
        "precision@15": "0.17",
        "map": "0.35",
        "map@1": "0.3333333333333333",
        "map@2": "0.25",
        "ndcg@3": "0.33",
        "ndcg@10": "0.48",
        "recall@1": "0.06",
        "recall@5": "0.35",
        "recall@15": "0.66",
    }
    got = rm.evaluate(rec, rel, list(expected), convention="spark")
    for name, prefix in expected.items():
        assert repr(float(got[name])).startswith(prefix), (name, got[name])


def test_rectools_docstring_examples():
    """Rectools 0.19.0's docstring examples of MAP, MRR and NDCG (per user)."""
    rec = [[7, 8], [1, 2], [1, 2, 3, 4], [1, 2, 3]]
    rel = [{1, 2}, {1}, {1, 3, 4}, {1, 2, 3}]

    def per(name, rec=rec, **kw):
        return (
            rm.evaluate(rec, rel, [name], convention="rectools", per_user=True, **kw)[name]
            .round(8)
            .tolist()
        )

    assert per("map@1") == [0, 1, 0.33333333, 0.33333333]
    assert per("map@3") == [0, 1, 0.55555556, 1]
    assert per("ndcg@1") == [0, 1, 1, 1]
    assert per("ndcg@3") == [0, 0.46927873, 0.70391809, 1]  # IDCG over k = 3 positions
    # divide_by_k=True is ap_denominator='k': not the preset, so pass convention=None
    got = (
        rm.evaluate(rec, rel, ["map@3"], ap_denominator="k", per_user=True)["map@3"]
        .round(8)
        .tolist()
    )
    assert got == [0, 0.33333333, 0.55555556, 1]
    mrr_rec = [[7, 8], [1, 2], [2, 1, 3, 4], [7, 8, 3]]
    assert per("mrr@1", rec=mrr_rec) == [0, 1, 0, 0]
    assert per("mrr@3", rec=mrr_rec) == [0, 1, 0.5, 0.33333333]


def test_lenskit_formulas():
    # discount 1/log2(max(rank, 2)): one relevant item at rank 2 scores a full 1
    assert (
        rm.evaluate([[0, 1, 0]], [[0.9, 0.5, 0.1]], ["ndcg@3"], convention="lenskit")["ndcg@3"]
        == 1.0
    )
    assert rm.evaluate([[0, 1, 0]], [[0.9, 0.5, 0.1]], ["ndcg@3"])["ndcg@3"] == pytest.approx(
        1 / math.log2(3)
    )
    y_true = [[1, 0, 1, 0, 1, 1, 1]]
    y_score = [[0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]]
    r = rm.evaluate(
        y_true,
        y_score,
        ["precision@3", "recall@3", "map@3", "ndcg@3", "mrr@3"],
        convention="lenskit",
    )
    assert r["recall@3"] == pytest.approx(2 / 3)  # hits / min(|R|, k)
    assert r["map@3"] == pytest.approx((1 + 2 / 3) / 3)
    assert r["ndcg@3"] == pytest.approx((1 + 1 / math.log2(3)) / (1 + 1 + 1 / math.log2(3)))
    # a list whose user has no test item counts 0 (LensKit's list_summary fills
    # the NaN of its per-list values with 0 before averaging)
    per = rm.evaluate(
        [[0, 0], [0, 1]], [[0.5, 0.1], [0.5, 0.1]], ["ndcg@2"], convention="lenskit", per_user=True
    )
    assert per["ndcg@2"].tolist() == [0.0, 1.0]
    # a list shorter than k: precision and AP over its own length
    truth = pd.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"]})
    preds = pd.DataFrame({"user": [1, 1], "item": ["a", "x"], "score": [2.0, 1.0]})
    got = rm.evaluate(truth, preds, ["precision@5", "map@5"], convention="lenskit")
    assert got.tolist() == [0.5, 0.5]  # 1 hit / 2 items; AP: 1 / min(3, 5, 2)


# ======================================================================
# the preset machinery
# ======================================================================
def test_presets_are_complete_and_valid():
    assert set(cv.PRESETS) == set(cv.SUPPORTED) == set(cv.LIBRARIES) == set(cv.SOURCES)
    for name, preset in cv.PRESETS.items():
        assert set(preset) == set(cv.CONVENTION_KEYWORDS), name
        for base in cv.SUPPORTED[name]:
            assert base in cv.SOURCES[name], (name, base)
    table = cv.describe()
    assert list(table.index) == list(cv.PRESETS) and table.notna().all().all()
    assert table.loc["rectools", "NDCG@k"].startswith("binary gain, IDCG over k positions")
    assert table.loc["lenskit", "NDCG@k"].endswith("1/log2(max(i, 2))")
    for name in cv.PRESETS:
        assert list(cv.describe(name).index) == list(cv.SUPPORTED[name])
    with pytest.raises(ValueError, match="convention must be one of"):
        cv.describe("cornac")


def test_explicit_keywords_must_agree_with_the_preset():
    y_true, y_score = random_data(3, ties=True, graded=False)
    base = rm.evaluate(y_true, y_score, ["map@5"], convention="trec_eval")
    # the same values, passed explicitly: fine
    same = rm.evaluate(
        y_true,
        y_score,
        ["map@5"],
        convention="trec_eval",
        ties="trec_eval",
        ap_denominator="relevant",
        log_base=2,
    )
    assert same.equals(base)
    # the default value passed explicitly is still a contradiction
    with pytest.raises(ValueError, match="sets ties='trec_eval', but ties='expected' was passed"):
        rm.evaluate(y_true, y_score, ["map@5"], convention="trec_eval", ties="expected")
    with pytest.raises(ValueError, match="ap_denominator"):
        rm.evaluate(y_true, y_score, ["map@5"], convention="recbole", ap_denominator="relevant")
    with pytest.raises(ValueError, match="convention must be one of"):
        rm.evaluate(y_true, y_score, ["map@5"], convention="TREC")
    # without a preset, the keywords are the plain defaults
    assert rm.evaluate(y_true, y_score, ["map@5"])["map@5"] == rm.average_precision(
        y_true, y_score, k=5
    )


def test_unsupported_metrics_and_cutoffs_raise():
    y_true, y_score = random_data(4, ties=False, graded=False)
    with pytest.raises(ValueError, match="scikit-learn provides no 'precision'"):
        rm.evaluate(y_true, y_score, ["precision@10"], convention="sklearn")
    with pytest.raises(ValueError, match="has no cutoff"):
        rm.evaluate(y_true, y_score, ["mrr@10"], convention="trec_eval")
    with pytest.raises(ValueError, match="has no cutoff"):
        rm.evaluate(y_true, y_score, ["map@10"], convention="sklearn")
    table = rm.compare_conventions(y_true, y_score, k=10)
    assert np.isnan(table.loc["sklearn", "P@10"]) and np.isnan(table.loc["recommenders", "MRR"])
    # uncut; trec_eval counts a judged user without relevant items as 0
    assert table.loc["trec_eval", "MRR"] == rm.reciprocal_rank(y_true, y_score, no_relevant="zero")


def test_presets_need_raw_inputs():
    y_true, y_score = random_data(5, ties=False, graded=False)
    r = rm.from_scores(y_true, y_score)
    with pytest.raises(ValueError, match="prebuilt Ranking"):
        rm.evaluate(r, metrics=["ndcg@5"], convention="ranx")
    with pytest.raises(TypeError, match="applies only to scores"):
        rm.evaluate([["a", "b"]], [{"a"}], ["mrr"], convention="torchmetrics")


@pytest.mark.parametrize(
    "convention", [c for c in cv.PRESETS if cv.PRESETS[c]["ties"] == "expected"]
)
def test_expected_ties_do_not_depend_on_item_order(convention):
    y_true, y_score = random_data(6, ties=True, graded=True)
    perm = np.random.default_rng(0).permutation(y_true.shape[1])
    a = rm.compare_conventions(y_true, y_score, k=5, conventions=[convention])
    b = rm.compare_conventions(y_true[:, perm], y_score[:, perm], k=5, conventions=[convention])
    np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=0, atol=1e-12)


# ======================================================================
# the keywords added to the core for the presets
# ======================================================================
def test_discount_jarvelin():
    np.testing.assert_allclose(
        rm.discount([1, 2, 3, 4], kind="jarvelin"), [1, 1, 1 / math.log2(3), 0.5]
    )
    # base 10: no discount before rank 10 (Jarvelin & Kekalainen, 2002)
    np.testing.assert_allclose(
        rm.discount([1, 9, 10, 100], log_base=10, kind="jarvelin"), [1, 1, 1, 0.5]
    )
    assert rm.dcg([1, 1, 1], discount="jarvelin") == pytest.approx(2 + 1 / math.log2(3))
    with pytest.raises(ValueError, match="discount must be one of"):
        rm.ndcg([1, 0, 1], discount="ln")


def test_gain_binary():
    assert rm.ndcg([3, 0, 2]) != rm.ndcg([1, 0, 1])
    assert rm.ndcg([3, 0, 2], gain="binary") == rm.ndcg([1, 0, 1])
    assert rm.cg([3, 0, 2], gain="binary") == 2.0
    # idcg='k' accepts graded input once the grades are ignored
    assert rm.ndcg([3, 0, 2], k=5, gain="binary", idcg="k") == rm.ndcg([1, 0, 1], k=5, idcg="k")
    with pytest.raises(ValueError, match="binary relevance only"):
        rm.ndcg([3, 0, 2], k=5, idcg="k")


def test_recall_denominator_min():
    rec, rel = ["a", "x", "b", "y"], {"a", "b", "c", "d", "e"}
    assert rm.recall(rec, rel, k=3) == pytest.approx(2 / 5)
    assert rm.recall(rec, rel, k=3, recall_denominator="min") == pytest.approx(2 / 3)
    assert rm.recall(rec, rel, recall_denominator="min") == pytest.approx(2 / 5)  # no cutoff: |R|
    with pytest.raises(ValueError, match="recall_denominator must be one of"):
        rm.recall(rec, rel, k=3, recall_denominator="k")


def test_ap_ties_group_end():
    y_true, y_score = [[1, 1, 0]], [[0.5, 0.5, 0.5]]
    assert rm.average_precision(y_true, y_score, ap_ties="group_end") == pytest.approx(2 / 3)
    assert rm.average_precision(y_true, y_score) == pytest.approx(29 / 36)  # expected over orders
    # both relevant items below one irrelevant: every order gives 7/12, scikit-learn 2/3
    y_score = [[0.0, 0.0, 1.0]]
    assert rm.average_precision(y_true, y_score) == pytest.approx(7 / 12)
    assert rm.average_precision(y_true, y_score, ap_ties="group_end") == pytest.approx(2 / 3)
    # without ties it is plain AP
    assert rm.average_precision([1, 0, 1], ap_ties="group_end") == rm.average_precision([1, 0, 1])
    with pytest.raises(ValueError, match="no cutoff"):
        rm.average_precision(y_true, y_score, k=2, ap_ties="group_end")


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "trec_eval"])
def test_retrieve_nonpositive(ties):
    y_true = np.array([[1, 0, 1, 1, 0], [0, 1, 0, 0, 1]])
    y_score = np.array([[0.9, 0.4, 0.0, -0.2, 0.4], [0.0, 0.0, 0.3, 0.0, 0.0]])
    kept = rm.from_scores(y_true, y_score, ties=ties)
    cut = rm.from_scores(y_true, y_score, ties=ties, retrieve_nonpositive=False)
    assert np.isinf(cut.start[[1, 2, 3, 4]]).all() and cut.start[0] == kept.start[0]
    np.testing.assert_array_equal(cut.n_relevant, kept.n_relevant)
    assert rm.recall(cut, k=5, per_user=True).tolist() == [1 / 3, 0.0]
    assert rm.reciprocal_rank(cut, per_user=True).tolist() == [1.0, 0.0]
    with pytest.raises(TypeError, match="True or False"):
        rm.from_scores(y_true, y_score, retrieve_nonpositive="no")


def test_no_relevant_one():
    y_true, y_score = [[0, 0], [0, 1]], [[0.5, 0.1], [0.5, 0.1]]
    assert rm.ndcg(y_true, y_score, no_relevant="one", per_user=True).tolist()[0] == 1.0
    assert rm.evaluate(y_true, y_score, ["mrr"], no_relevant="one")["mrr"] == pytest.approx(0.75)
