"""Spark and Dask evaluation equal the single-process evaluate.

They run in a real local Spark session and a real local Dask cluster;
``convention='spark'`` equals pyspark's own ``RankingMetrics`` run on the same data.

Every test here needs Java (OpenJDK 17) for Spark; the session starts once per module.
"""

from __future__ import annotations

import os
import shutil
import warnings

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm

pyspark = pytest.importorskip("pyspark")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]

METRICS = ["ndcg@10", "map@10", "precision@5", "recall@10", "mrr", "map", "ndcg", "auc"]


def make_frames(n_users=2600, n_items=300, seed=0):
    """Truth with grades 0-3 and predictions with tied scores; users in one frame only."""
    rng = np.random.default_rng(seed)
    t_rows, p_rows = [], []
    for u in range(n_users):
        if u % 10 != 7:  # some users have no truth
            rel = rng.choice(n_items, size=rng.integers(1, 8), replace=False)
            t_rows.append(
                pd.DataFrame({"user": u, "item": rel, "grade": rng.integers(0, 4, rel.size)})
            )
        if u % 10 != 3:  # some have no predictions
            pred = rng.choice(n_items, size=rng.integers(1, 30), replace=False)
            scores = np.round(rng.random(pred.size), 1)  # many ties
            p_rows.append(pd.DataFrame({"user": u, "item": pred, "score": scores}))
    truth = pd.concat(t_rows, ignore_index=True)
    pred = pd.concat(p_rows, ignore_index=True)
    pred["rank"] = pred.groupby("user").cumcount() + 1
    return truth, pred


@pytest.fixture(scope="module")
def frames():
    return make_frames()


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java (OpenJDK 17)")
    session = rm.spark.local_session(2, config={"spark.sql.shuffle.partitions": "8"})
    yield session
    session.stop()


@pytest.fixture(scope="module")
def dask_client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
        client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


CASES = [
    dict(relevance="grade"),
    dict(relevance="grade", convention="trec_eval", metrics=["ndcg@10", "map", "precision@5"]),
    dict(convention="recbole", metrics=["ndcg@10", "map@10", "hr@10", "mrr@10"]),
    dict(relevance="grade", ties="optimistic", users="all", no_relevant="zero"),
    dict(rank="rank", users="both"),
    # a preset whose metrics evaluate different users (precision, recall and map:
    # users with predictions only), users left to the preset
    dict(convention="recommenders", metrics=["precision@10", "recall@10", "map@10", "ndcg@10"]),
]


def single(truth, pred, case, per_user):
    case = dict(case)
    metrics = case.pop("metrics", METRICS)
    return rm.evaluate(truth, pred, metrics, per_user=per_user, **case)


@pytest.mark.parametrize("case", CASES)
def test_spark_equals_single_process(spark, frames, case):
    truth, pred = frames
    st, sp = spark.createDataFrame(truth), spark.createDataFrame(pred)
    kw = dict(case)
    metrics = kw.pop("metrics", METRICS)
    if case is CASES[0] or case is CASES[1] or case is CASES[5]:  # the means, by Spark
        means = rm.spark.evaluate(st, sp, metrics, **kw)
        expected = single(truth, pred, case, per_user=False)
        pd.testing.assert_index_equal(means.index, expected.index)
        np.testing.assert_allclose(means, expected, rtol=1e-13, atol=0)
    per = rm.spark.evaluate(st, sp, metrics, per_user=True, **kw).toPandas()
    per = per.set_index("user").sort_index()
    want = single(truth, pred, case, per_user=True)
    assert len(per) == len(want) >= 2000
    np.testing.assert_array_equal(per.index.to_numpy(), want.index.to_numpy())
    # bit for bit per user (null in Spark = NaN here)
    np.testing.assert_array_equal(per[metrics].to_numpy(float), want[metrics].to_numpy(float))


@pytest.mark.parametrize("case", CASES[:2] + CASES[4:])
def test_dask_equals_single_process(dask_client, frames, case):
    truth, pred = frames
    dt, dp = dd.from_pandas(truth, npartitions=5), dd.from_pandas(pred, npartitions=7)
    kw = dict(case)
    metrics = kw.pop("metrics", METRICS)
    means = rm.dask.evaluate(dt, dp, metrics, **kw)
    expected = single(truth, pred, case, per_user=False)
    np.testing.assert_allclose(means, expected, rtol=1e-13, atol=0)
    per = rm.dask.evaluate(dt, dp, metrics, per_user=True, **kw).compute()
    per = per.set_index("user").sort_index()
    want = single(truth, pred, case, per_user=True)
    assert len(per) == len(want) >= 2000
    np.testing.assert_array_equal(per.index.to_numpy(), want.index.to_numpy())
    np.testing.assert_array_equal(per[metrics].to_numpy(float), want[metrics].to_numpy(float))


def test_spark_convention_equals_pyspark_ranking_metrics(spark):
    """convention='spark' gives RankingMetrics' NDCG, MAP, P and R at 10 (and MAP)."""
    from pyspark.mllib.evaluation import RankingMetrics

    rng = np.random.default_rng(5)
    n_users, n_items = 2000, 500
    lists, t_rows, p_rows = [], [], []
    for u in range(n_users):
        rel = rng.choice(n_items, size=rng.integers(1, 12), replace=False)
        pred = rng.choice(n_items, size=rng.integers(3, 25), replace=False)
        scores = np.sort(rng.random(pred.size))[::-1] + np.arange(pred.size)[::-1]  # distinct
        lists.append(([int(i) for i in pred], [int(i) for i in rel]))
        t_rows.append(pd.DataFrame({"user": u, "item": rel}))
        p_rows.append(pd.DataFrame({"user": u, "item": pred, "score": scores}))
    truth, pred = pd.concat(t_rows), pd.concat(p_rows)
    rmx = RankingMetrics(spark.sparkContext.parallelize(lists, 4))
    theirs = pd.Series(
        {
            "ndcg@10": rmx.ndcgAt(10),
            "map@10": rmx.meanAveragePrecisionAt(10),
            "precision@10": rmx.precisionAt(10),
            "recall@10": rmx.recallAt(10),
            "map": rmx.meanAveragePrecision,
        }
    )
    ours = rm.spark.evaluate(
        spark.createDataFrame(truth), spark.createDataFrame(pred), list(theirs.index),
        convention="spark",
    )  # fmt: skip
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0)
    # and the package's defaults differ (linear gain, log2: the same NDCG with binary
    # labels; AP divided by min(|R|, k) in both): what differs is stated, not hidden
    default = rm.evaluate(truth, pred, list(theirs.index))
    np.testing.assert_allclose(default, theirs, rtol=1e-12, atol=0)


def test_errors_are_raised_on_the_driver(spark, frames):
    truth, pred = frames
    st, sp = spark.createDataFrame(truth), spark.createDataFrame(pred)
    with pytest.raises(TypeError, match="truth must be a pyspark.sql.DataFrame"):
        rm.spark.evaluate(truth, sp)
    with pytest.raises(ValueError, match="unknown metric"):
        rm.spark.evaluate(st, sp, ["nope@3"])
    with pytest.raises(ValueError, match="beyond-accuracy"):
        rm.spark.evaluate(st, sp, ["coverage@10"])
    with pytest.raises(ValueError, match="mrr"):
        rm.spark.evaluate(st, sp, ["mrr@10"], convention="trec_eval")
    with pytest.raises(ValueError, match="no relevance column 'level'"):
        rm.spark.evaluate(st, sp, relevance="level")
    with pytest.raises(TypeError, match="has type bigint in truth and string"):
        rm.spark.evaluate(st, sp.withColumn("user", sp["user"].cast("string")))
    with pytest.raises(ValueError, match="ties"):
        rm.spark.evaluate(st, sp, ties="random")
    with pytest.raises(ValueError, match="n_buckets"):
        rm.spark.evaluate(st, sp, n_buckets=0)
    dt, dp = dd.from_pandas(truth, npartitions=2), dd.from_pandas(pred, npartitions=2)
    with pytest.raises(TypeError, match="predictions must be a dask.dataframe.DataFrame"):
        rm.dask.evaluate(dt, pred)
    with pytest.raises(TypeError, match="dtype"):
        rm.dask.evaluate(dt, dp.assign(item=dp["item"].astype(str)))
    with pytest.raises(ValueError, match="no column 'grade2'"):
        rm.dask.evaluate(dt, dp, relevance="grade2")


def test_spark_reads_a_relevance_column_by_default(spark, frames):
    # a truth frame with a column named 'relevance' (grade 0: judged non-relevant)
    truth, pred = frames
    graded = truth.rename(columns={"grade": "relevance"})
    graded.loc[graded.index[::3], "relevance"] = 0
    st, sp = spark.createDataFrame(graded), spark.createDataFrame(pred)
    got = rm.spark.evaluate(st, sp, METRICS, per_user=True).toPandas()
    got = got.set_index("user").sort_index()
    want = rm.evaluate(graded, pred, METRICS, per_user=True, relevance="relevance")
    plain = rm.evaluate(graded, pred, METRICS)
    assert plain.equals(rm.evaluate(graded, pred, METRICS, relevance="relevance"))
    np.testing.assert_array_equal(got[METRICS].to_numpy(float), want[METRICS].to_numpy(float))


def test_dask_reads_a_relevance_column_by_default(dask_client, frames):
    truth, pred = frames
    graded = truth.rename(columns={"grade": "relevance"})
    graded.loc[graded.index[::3], "relevance"] = 0
    dt, dp = dd.from_pandas(graded, npartitions=3), dd.from_pandas(pred, npartitions=4)
    got = rm.dask.evaluate(dt, dp, METRICS, per_user=True).compute()
    got = got.set_index("user").sort_index()
    want = rm.evaluate(graded, pred, METRICS, per_user=True, relevance="relevance")
    np.testing.assert_array_equal(got[METRICS].to_numpy(float), want[METRICS].to_numpy(float))


def test_a_batch_without_one_metrics_users():
    # a hash group may hold no user that a metric evaluates (here: the recommenders
    # preset's precision, over users with predictions): NaN there, not an error
    from recmetrics.distributed import _common

    truth = pd.DataFrame({"user": [2, 4, 4], "item": [12, 10, 11]})
    pred = pd.DataFrame({"user": [3, 4], "item": [12, 10], "score": [0.4, 0.9]})
    kw = dict(user="user", item="item", order="score", rank=None, relevance=None)
    for batch_truth, batch_pred, n_rows in ((truth[:1], pred[:1], 1), (truth, pred, 2)):
        out = _common.evaluate_batch(
            batch_truth,
            batch_pred,
            metrics=["precision@2", "ndcg@2"],
            aggregates=None,
            users=None,
            keywords={"convention": "recommenders"},
            **kw,
        )
        assert len(out) == n_rows and out["user"].tolist() == [2, 4][:n_rows]
        assert np.isnan(out["_rm_0"].iloc[0]) and out["_rm_1"].iloc[0] == 0.0
    assert out["_rm_0"].iloc[1] == pytest.approx(0.5)
