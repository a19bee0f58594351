"""The adapters of recmetrics.peers themselves: ids, orders, shapes, missing values, errors.

What the peers compute, and that recmetrics agrees, is checked in test_crosslib.py
and test_conventions.py; here, that the adapters hand the peers exactly the inputs
they claim to and bring back one value per user, in row order.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
import scipy.sparse as sp
from sklearn.metrics import average_precision_score, ndcg_score, roc_auc_score

import recmetrics as rm
from recmetrics import peers

pytestmark = pytest.mark.crosslib

TOL = 1e-9


def tie_free(seed, n_users, n_items, graded=True):
    """Integer grades (user 0 without relevant items) and scores distinct as float32."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4 if graded else 2, (n_users, n_items))
    y_true[0] = 0
    y_true[1:, 0] = np.maximum(y_true[1:, 0], 1)
    y_score = np.stack([(rng.permutation(n_items) + 1) / (n_items + 1) for _ in range(n_users)])
    return y_true, y_score


# ======================================================================
# to_trec_dicts
# ======================================================================
def test_ids_are_zero_padded_so_string_order_is_index_order():
    y_true = np.zeros((11, 12), dtype=int)
    qrels, run = peers.to_trec_dicts(y_true, np.ones((11, 12)))
    assert list(run) == [f"u{u:02d}" for u in range(11)] == sorted(run)
    assert list(run["u00"]) == [f"d{j:02d}" for j in range(12)] == sorted(run["u00"])
    assert list(qrels) == list(run) and all(list(qrels[q]) == list(run[q]) for q in run)
    qrels, run = peers.to_trec_dicts([[1]], [[0.5]])
    assert qrels == {"u0": {"d0": 1}} and run == {"u0": {"d0": 0.5}}


def test_trec_eval_tie_order_needs_the_padding():
    # 12 tied items, the relevant one in column 2: trec_eval takes decreasing docno,
    # padded d11, d10, ..., d02: rank 10; unpadded d9, ..., d3, d2 ("d2" > "d11"): rank 8
    y_true = np.zeros((1, 12), dtype=int)
    y_true[0, 2] = 1
    y_score = np.zeros((1, 12))
    rr = peers.trec_eval(y_true, y_score, ["recip_rank"])["recip_rank"][0]
    assert rr == pytest.approx(1 / 10)
    assert rm.reciprocal_rank(y_true, y_score, ties="trec_eval") == pytest.approx(rr)
    unpadded = {"q": {f"d{j}": float(y_score[0, j]) for j in range(12)}}
    ev = pytrec_eval.RelevanceEvaluator({"q": {"d2": 1, "d0": 0}}, {"recip_rank"})
    assert ev.evaluate(unpadded)["q"]["recip_rank"] == pytest.approx(1 / 8)


def test_relevant_only():
    y_true = [[0, 2, 0, 1], [0, 0, 0, 0], [1, 0, 0, 0]]
    y_score = np.arange(12.0).reshape(3, 4)
    qrels, run = peers.to_trec_dicts(y_true, y_score, relevant_only=True)
    assert qrels == {"u0": {"d1": 2, "d3": 1}, "u2": {"d0": 1}}  # user 1 is absent
    assert list(run) == ["u0", "u1", "u2"] and run["u1"] == {f"d{j}": 4.0 + j for j in range(4)}
    full, _ = peers.to_trec_dicts(y_true, y_score)
    assert full["u1"] == {"d0": 0, "d1": 0, "d2": 0, "d3": 0}


def test_items_give_the_insertion_order_not_the_ids():
    y_true, y_score = [[0, 1, 0, 2]], [[0.1, 0.2, 0.3, 0.4]]
    qrels, run = peers.to_trec_dicts(y_true, y_score, items=[3, 1, 0, 2])
    assert list(run["u0"].items()) == [("d3", 0.4), ("d1", 0.2), ("d0", 0.1), ("d2", 0.3)]
    assert list(qrels["u0"]) == ["d3", "d1", "d0", "d2"]
    plain, plain_run = peers.to_trec_dicts(y_true, y_score)
    assert qrels == plain and run == plain_run  # the same dicts, in another order
    qrels, _ = peers.to_trec_dicts(
        y_true, y_score, items=np.array([3, 1, 0, 2]), relevant_only=True
    )
    assert list(qrels["u0"].items()) == [("d3", 2), ("d1", 1)]


def test_users_and_input_types():
    qrels, run = peers.to_trec_dicts([[1, 0], [0, 1]], [[0.5, 0.25]] * 2, users=["ann", 7])
    assert list(run) == ["ann", "7"] and qrels["7"] == {"d0": 0, "d1": 1}
    # integer-valued floats and sparse matrices are fine; grades come out as int
    qrels, run = peers.to_trec_dicts(np.array([[1.0, 0.0]]), sp.csr_matrix([[0.5, 0.25]]))
    assert qrels == {"u0": {"d0": 1, "d1": 0}} and type(qrels["u0"]["d0"]) is int
    assert run == {"u0": {"d0": 0.5, "d1": 0.25}}
    qrels, _ = peers.to_trec_dicts(sp.csr_matrix([[0, 3]]), [[0.5, 0.25]], relevant_only=True)
    assert qrels == {"u0": {"d1": 3}}


@pytest.mark.parametrize(
    "y_true,y_score,kw,match",
    [
        ([1, 0], [0.5, 0.2], {}, "must be 2-D"),
        ([[1, 0]], [[0.5, 0.2, 0.1]], {}, "differ in shape"),
        (np.zeros((0, 3)), np.zeros((0, 3)), {}, "at least one user and item"),
        ([[1.5, 0]], [[0.5, 0.2]], {}, "integer grades"),
        ([[np.nan, 0]], [[0.5, 0.2]], {}, "integer grades"),
        ([[1, 0]], [[0.5, 0.2]], {"items": [0, 0]}, "permutation"),
        ([[1, 0]], [[0.5, 0.2]], {"items": [0]}, "permutation"),
        ([[1, 0]], [[0.5, 0.2]], {"items": [0.0, 1.0]}, "permutation"),
        ([[1, 0]], [[0.5, 0.2]], {"users": ["a", "b"]}, "distinct ids"),
        ([[1, 0], [0, 1]], [[0.5, 0.2]] * 2, {"users": ["a", "a"]}, "distinct ids"),
    ],
)
def test_to_trec_dicts_rejects(y_true, y_score, kw, match):
    with pytest.raises(ValueError, match=match):
        peers.to_trec_dicts(y_true, y_score, **kw)


# ======================================================================
# trec_eval
# ======================================================================
def test_trec_eval_is_pytrec_eval_on_the_dicts():
    y_true, y_score = tie_free(1, 6, 9)
    measures = ["P_5", "recall_5", "map", "ndcg_cut_5", "recip_rank"]
    got = peers.trec_eval(y_true, y_score, measures)
    qrels, run = peers.to_trec_dicts(y_true, y_score)
    res = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    expected = pd.DataFrame([res[q] for q in run])[measures]
    assert list(got.columns) == measures and got.index.equals(pd.RangeIndex(6, name="user"))
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())
    assert (got.loc[0] == 0).all()  # a judged user without relevant items: 0


def test_trec_eval_measure_names():
    y_true, y_score = tie_free(2, 3, 12)
    got = peers.trec_eval(y_true, y_score, ["ndcg_cut.10", "recip_rank", "P"])
    assert list(got.columns[:3]) == ["ndcg_cut_10", "recip_rank", "P_5"]
    assert {"P_10", "P_1000"} <= set(got.columns)  # the family: every cutoff
    assert list(peers.trec_eval(y_true, y_score, "map").columns) == ["map"]


def test_trec_eval_relevant_only_leaves_users_out():
    y_true, y_score = tie_free(3, 4, 6)
    full = peers.trec_eval(y_true, y_score, ["map", "P_5"])
    cut = peers.trec_eval(y_true, y_score, ["map", "P_5"], relevant_only=True)
    assert cut.loc[0].isna().all() and (full.loc[0] == 0).all()
    pd.testing.assert_frame_equal(cut.loc[1:], full.loc[1:])


# ======================================================================
# ranx
# ======================================================================
def ranx_jobs():
    """The inputs ranx runs on (tests/conftest.py runs them; see ranx_results)."""
    y_true, y_score = tie_free(4, 7, 10)
    order = list(np.random.default_rng(5).permutation(10))
    return [
        (y_true, y_score, ["ndcg@3", "mrr", "map@5", "hit_rate@3"]),
        (y_true, y_score, "map@3"),  # one metric: ranx returns an array, not a dict
        (y_true, y_score, ["ndcg@3", "mrr"], order),
    ]


@pytest.mark.slow
def test_ranx_one_row_per_user_zero_without_relevant(ranx_results):
    (y_true, y_score, metrics), _, _ = ranx_jobs()
    got = ranx_results[0]
    assert list(got.columns) == metrics and got.index.equals(pd.RangeIndex(7, name="user"))
    # every item is judged: user 0 is a query judged without a relevant document
    assert (got.loc[0] == 0).all() and got.notna().all().all()
    names = ["ndcg@3", "mrr", "map@5", "hr@3"]
    ours = rm.evaluate(y_true, y_score, names, convention="ranx", per_user=True)
    np.testing.assert_allclose(ours.to_numpy(), got.to_numpy(), rtol=0, atol=TOL)


@pytest.mark.slow
def test_ranx_single_metric_and_item_order(ranx_results):
    single, ordered = ranx_results[1], ranx_results[2]
    assert list(single.columns) == ["map@3"] and single["map@3"].notna().sum() == 7
    y_true, y_score = ranx_jobs()[0][:2]
    np.testing.assert_allclose(
        single["map@3"][1:],
        rm.average_precision(y_true, y_score, k=3, ap_denominator="relevant", per_user=True)[1:],
        rtol=0,
        atol=TOL,
    )
    # without ties the order the items are given in changes nothing
    pd.testing.assert_frame_equal(ordered, ranx_results[0][["ndcg@3", "mrr"]])


@pytest.mark.slow
def test_ranx_in_process_is_the_same(ranx_results):
    """in_process=True (the benchmark's path) gives what the subprocess gave."""
    y_true, y_score, metrics = ranx_jobs()[0]
    code = (
        "import json, sys\n"
        "from recmetrics import peers\n"
        "job = json.load(sys.stdin)\n"
        "got = peers.ranx_evaluate(*job, in_process=True)\n"
        "print(json.dumps(got.to_numpy().tolist()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps([y_true.tolist(), y_score.tolist(), metrics]),
        env=dict(os.environ, NUMBA_DISABLE_JIT="1"),  # interpreted: no 15-30 s compilation
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    got = np.array(json.loads(done.stdout), dtype=float)  # json: NaN in, NaN out
    np.testing.assert_array_equal(got, ranx_results[0].to_numpy())


def test_ranx_without_any_relevant_item_runs_nothing(monkeypatch):
    def no_subprocess(*args, **kw):
        raise AssertionError("ranx was started")

    monkeypatch.setattr(peers.subprocess, "run", no_subprocess)
    got = peers.ranx_evaluate(np.zeros((3, 4)), np.ones((3, 4)), ["mrr", "ndcg@2"])
    assert got.shape == (3, 2) and got.isna().all().all()


def test_ranx_subprocess_failure_shows_its_error(monkeypatch):
    monkeypatch.setattr(peers, "_RANX_CHILD", "import sys; sys.exit('ranx exploded here')")
    with pytest.raises(RuntimeError, match="ranx exploded here"):
        peers.ranx_evaluate([[1, 0]], [[0.5, 0.25]], ["mrr"])


def test_ranx_job_shape():
    with pytest.raises(ValueError, match="each job must be"):
        peers.ranx_evaluate_many([([[1, 0]], [[0.5, 0.25]])])


# ======================================================================
# scikit-learn
# ======================================================================
def test_sklearn_rows_are_2d_for_ranking_metrics_and_1d_otherwise():
    y_true, y_score = tie_free(6, 5, 7, graded=False)
    y_true[0, :2] = [1, 0]  # roc_auc_score needs both classes
    got = peers.sklearn_per_user(ndcg_score, y_true, y_score, k=3)
    expected = [ndcg_score(y_true[[u]], y_score[[u]], k=3) for u in range(5)]
    np.testing.assert_array_equal(got, expected)
    assert got.mean() == pytest.approx(ndcg_score(y_true, y_score, k=3), abs=TOL)
    got = peers.sklearn_per_user("roc_auc_score", y_true, y_score)
    np.testing.assert_array_equal(got, [roc_auc_score(y_true[u], y_score[u]) for u in range(5)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = peers.sklearn_per_user(average_precision_score, y_true, y_score)
    assert got.shape == (5,) and got.dtype == float


def test_sklearn_two_d_override():
    def ndim(t, s, plus=0):
        return t.ndim + s.ndim + plus

    assert peers.sklearn_per_user(ndim, [[1, 0]] * 3, [[0.5, 0.25]] * 3).tolist() == [2] * 3
    assert peers.sklearn_per_user(ndim, [[1, 0]], [[0.5, 0.2]], two_d=True, plus=1).tolist() == [5]
    with pytest.raises(ValueError, match="2-D of one shape"):
        peers.sklearn_per_user(ndim, [1, 0], [0.5, 0.2])
    with pytest.raises(ValueError, match="2-D of one shape"):
        peers.sklearn_per_user(ndim, [[1, 0]], [[0.5, 0.2, 0.1]])


# ======================================================================
# a missing peer
# ======================================================================
@pytest.mark.parametrize(
    "module,call,install",
    [
        ("pytrec_eval", lambda: peers.trec_eval([[1]], [[0.5]], "map"), "pytrec-eval-terrier"),
        ("ranx", lambda: peers.ranx_evaluate([[1]], [[0.5]], "mrr"), "ranx"),
        (
            "sklearn.metrics",
            lambda: peers.sklearn_per_user("ndcg_score", [[1, 0]], [[0.5, 0.2]]),
            "scikit-learn",
        ),
    ],
)
def test_missing_peer_says_what_to_install(monkeypatch, module, call, install):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    with pytest.raises(ImportError, match=f'needs the optional package .*pip install "{install}>='):
        call()
