"""trec_eval's fourth kind of item: in the pool but not judged (a negative qrels grade).

* the Ranking's pooled entries: empty by default, validated, placed as the
  judged non-relevant ones would be (every tie policy);
* every metric but infAP reads them as unjudged: adding the rows changes
  nothing else;
* against trec_eval itself (pytrec_eval) on sampled qrels (grades -1, 0, 1,
  2) and runs with ties, per query, through ``rm.evaluate`` with trec_eval's
  options ``judged_only`` (-J) and ``relevance_level`` (-l);
* Dask and Spark give the single-process per-user values.

Brute force over every order of tied items with the four kinds: the
``pooled=True`` cases of tests/test_judged_measures.py and
tests/test_trec_summaries.py.
"""

from __future__ import annotations

import os
import shutil
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from test_judged_measures import _frames, _trec_inputs

import recmetrics as rm
from recmetrics.metrics import _registry
from recmetrics.metrics.infap import INFAP_EPSILON
from recmetrics.ranking import TIE_POLICIES

TOL = 1e-12


def _sampled(seed, share=0.3):
    """trec-like qrels with ``share`` of the lines at grade -1, and runs with ties."""
    truth, run = _trec_inputs(seed)
    rng = np.random.default_rng([seed, 7])
    return truth.assign(rel=np.where(rng.random(len(truth)) < share, -1, truth.rel)), run


# --------------------------------------------------------------------------
# the representation
def test_pooled_entries_default_to_empty_and_are_checked():
    r = rm.from_frames(
        pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "rel": [1, 0]}),
        pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0]}),
        relevance="rel",
    )
    assert r.pooled_indptr.tolist() == [0, 0] and r.pooled_start.size == 0
    assert r.n_pooled_unjudged.tolist() == [0.0]
    bare = replace(r, pooled_indptr=None, pooled_start=None, pooled_size=None)
    assert bare.pooled_indptr.tolist() == [0, 0]  # None: none, stored empty
    with pytest.raises(ValueError, match="all of pooled_indptr"):
        replace(r, pooled_start=None)
    with pytest.raises(ValueError, match="do not match the users"):
        replace(r, pooled_indptr=np.array([0, 1]))
    complete = rm.from_scores([[1, 0]], [[0.3, 0.2]])
    assert complete.pooled_indptr is None and complete.n_pooled_unjudged is None
    with pytest.raises(ValueError, match="need judgments='explicit'"):
        replace(complete, pooled_indptr=np.zeros(2, int), pooled_start=np.empty(0),
                pooled_size=np.empty(0))  # fmt: skip


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", range(4))
def test_pooled_entries_sit_where_judged_nonrelevant_ones_would(ties, seed):
    """Grade -1 rows are placed as the same rows at grade 0 (in the non-relevant entries)."""
    truth, run = _frames(seed, pooled=True)
    assert (truth.rel < 0).any()
    r = rm.from_frames(truth, run, relevance="rel", ties=ties)
    as_zero = rm.from_frames(truth.assign(rel=truth.rel.clip(lower=0)), run, relevance="rel",
                             ties=ties)  # fmt: skip
    without = rm.from_frames(truth[truth.rel >= 0], run, relevance="rel", ties=ties)
    for u in range(r.n_users):
        lo, hi = r.nonrel_indptr[u], r.nonrel_indptr[u + 1]
        mine = list(zip(r.nonrel_start[lo:hi], r.nonrel_size[lo:hi], strict=True))
        lo, hi = without.nonrel_indptr[u], without.nonrel_indptr[u + 1]
        assert mine == list(
            zip(without.nonrel_start[lo:hi], without.nonrel_size[lo:hi], strict=True)
        )
        lo, hi = r.pooled_indptr[u], r.pooled_indptr[u + 1]
        pooled = list(zip(r.pooled_start[lo:hi], r.pooled_size[lo:hi], strict=True))
        lo, hi = as_zero.nonrel_indptr[u], as_zero.nonrel_indptr[u + 1]
        both = list(zip(as_zero.nonrel_start[lo:hi], as_zero.nonrel_size[lo:hi], strict=True))
        assert sorted(mine + pooled) == sorted(both)
    n_pooled = truth[truth.rel < 0].groupby("user").size()
    np.testing.assert_array_equal(r.n_pooled_unjudged, n_pooled.reindex(r.user_ids, fill_value=0))


def test_negative_grades_by_rank_column():
    truth = pd.DataFrame({"user": 1, "item": ["a", "b", "c", "d"], "rel": [1, -1, 0, -2]})
    run = pd.DataFrame({"user": 1, "item": ["b", "a", "x", "d"], "rank": [1, 2, 3, 4]})
    r = rm.from_frames(truth, run, relevance="rel", rank="rank")
    assert r.pooled_start.tolist() == [0.0, 3.0] and r.nonrel_start.tolist() == [np.inf]
    # b (pooled) above a: X = 1, r = n = 0, so a adds 1/2 + 1/2 * 1 * eps / (2 eps)
    assert rm.infap(r) == pytest.approx(0.75, abs=1e-12)


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", range(3))
def test_pooled_rows_change_no_other_metric(ties, seed):
    """Every registry metric but infAP reads a pooled-but-unjudged item as unjudged."""
    truth, run = _frames(seed, pooled=True)
    names = [
        f"{m}@3" if _registry.get(m).takes_cutoff else m
        for m in _registry.ranking_names()
        if m != "infap"
    ]
    kw = dict(relevance="rel", ties=ties, per_user=True, no_relevant="zero")
    with_pooled = rm.evaluate(truth, run, names, **kw)
    without = rm.evaluate(truth[truth.rel >= 0], run, names, **kw)
    pd.testing.assert_frame_equal(with_pooled, without)


# --------------------------------------------------------------------------
# trec_eval (pytrec_eval)
# our name -> trec_eval's
TREC = {
    "infap": "infAP",
    "bpref": "bpref",
    "map": "map",
    "precision@5": "P_5",
    "precision@10": "P_10",
    "ndcg": "ndcg",
    "ndcg@10": "ndcg_cut_10",
    "mrr": "recip_rank",
    "rprec": "Rprec",
    "set_precision": "set_P",
    "set_recall": "set_recall",
    "set_f": "set_F",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
}
OPTIONS = [
    ({}, {}),
    ({"judged_only": True}, {"judged_docs_only_flag": True}),
    ({"relevance_level": 2}, {"relevance_level": 2}),
    ({"judged_only": True, "relevance_level": 2}, {"judged_docs_only_flag": True,
                                                   "relevance_level": 2}),
]  # fmt: skip


@pytest.mark.crosslib
@pytest.mark.parametrize("options", OPTIONS, ids=["plain", "J", "l2", "J-l2"])
@pytest.mark.parametrize("seed", range(4))
def test_evaluate_equals_trec_eval_on_sampled_qrels(seed, options):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ours, theirs_kw = options
    truth, run = _sampled(seed)
    qrels, results = {}, {}
    for q, d, g in truth.itertuples(index=False):
        qrels.setdefault(q, {})[d] = int(g)
    for q, d, s in run.itertuples(index=False):
        results.setdefault(q, {})[d] = float(s)
    measures = {t.rsplit("_", 1)[0] if t[-1].isdigit() else t for t in TREC.values()}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, **theirs_kw)
    theirs = pd.DataFrame(evaluator.evaluate(results)).T.sort_index()
    per = rm.evaluate(truth, run, list(TREC), relevance="rel", convention="trec_eval",
                      per_user=True, **ours)  # fmt: skip
    assert list(per.index) == list(theirs.index)
    for name, trec in TREC.items():
        np.testing.assert_allclose(
            per[name].to_numpy(), theirs[trec].to_numpy(float), rtol=0, atol=TOL, err_msg=name
        )


def test_relevance_level_keeps_negative_grades_pooled():
    """-l2 makes grade 1 judged non-relevant, and leaves grade -1 in the pool, unjudged."""
    truth = pd.DataFrame({"user": 1, "item": ["a", "b", "c", "d"], "rel": [2, -1, 1, 2]})
    run = pd.DataFrame({"user": 1, "item": ["a", "b", "c", "d"], "score": [4.0, 3.0, 2.0, 1.0]})
    got = rm.evaluate(truth, run, ["infap", "num_nonrel_judged_ret", "bpref"], relevance="rel",
                      relevance_level=2, per_user=True)  # fmt: skip
    # d at j = 3: X = 3 (a, b, c), r = 1, n = 1 (c)
    eps = INFAP_EPSILON
    want = (1.0 + 0.25 + 0.75 * 1.0 * (1 + eps) / (2 + 2 * eps)) / 2
    assert got["infap"].iloc[0] == pytest.approx(want, abs=1e-15)
    assert got["num_nonrel_judged_ret"].iloc[0] == 1.0
    condensed = rm.evaluate(truth, run, ["num_ret"], relevance="rel", judged_only=True)
    assert condensed["num_ret"] == 3.0  # b dropped by -J


def test_from_frames_reads_negative_grades():
    truth = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"], "rel": [1.0, -0.5, -3]})
    run = pd.DataFrame({"user": [1, 1, 2], "item": ["b", "a", "a"], "score": [2.0, 1.0, 1.0]})
    r = rm.from_frames(truth, run, relevance="rel")
    assert r.n_relevant.tolist() == [1.0, 0.0]
    assert r.n_pooled_unjudged.tolist() == [1.0, 1.0]
    assert r.n_judged_nonrelevant.tolist() == [0.0, 0.0]


# --------------------------------------------------------------------------
# Dask and Spark: from_frames per group
DISTRIBUTED = ["infap", "bpref", "map", "ndcg@10", "num_nonrel_judged_ret"]
DISTRIBUTED_CASES = [
    dict(relevance="grade"),
    dict(relevance="grade", convention="trec_eval"),
    dict(relevance="grade", convention="trec_eval", judged_only=True, relevance_level=2),
]


def _dist_frames():
    from test_distributed import make_frames

    truth, pred = make_frames(n_users=300, n_items=60, seed=4)
    rng = np.random.default_rng(4)
    return truth.assign(grade=np.where(rng.random(len(truth)) < 0.3, -1, truth.grade)), pred


@pytest.mark.slow
@pytest.mark.parametrize("case", DISTRIBUTED_CASES)
def test_dask_per_user_values(case):
    dd = pytest.importorskip("dask.dataframe")
    truth, pred = _dist_frames()
    dt, dp = dd.from_pandas(truth, npartitions=3), dd.from_pandas(pred, npartitions=4)
    per = rm.dask.evaluate(dt, dp, DISTRIBUTED, per_user=True, **case).compute()
    per = per.set_index("user").sort_index()
    single = rm.evaluate(truth, pred, DISTRIBUTED, per_user=True, **case)
    np.testing.assert_array_equal(per.index.to_numpy(), single.index.to_numpy())
    np.testing.assert_array_equal(per[DISTRIBUTED].to_numpy(float), single.to_numpy(float))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
@pytest.mark.filterwarnings("ignore:The copy keyword is deprecated")
def test_spark_per_user_values():
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java (OpenJDK 17)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spark = rm.spark.local_session(2, config={"spark.sql.shuffle.partitions": "4"})
    try:
        truth, pred = _dist_frames()
        st, sp = spark.createDataFrame(truth), spark.createDataFrame(pred)
        for case in DISTRIBUTED_CASES:
            per = rm.spark.evaluate(st, sp, DISTRIBUTED, per_user=True, **case).toPandas()
            per = per.set_index("user").sort_index()
            single = rm.evaluate(truth, pred, DISTRIBUTED, per_user=True, **case)
            np.testing.assert_array_equal(per.index.to_numpy(), single.index.to_numpy())
            np.testing.assert_array_equal(per[DISTRIBUTED].to_numpy(float), single.to_numpy(float))
    finally:
        spark.stop()
