"""Benchmark: the same evaluation in one process, on Spark local[2] and on a local Dask cluster.

Synthetic data, seeded: ``n_users`` users, each with 1 to 9 relevant items
(graded 1-3) and a list of ``list_len`` scored predictions drawn from 50,000
items (scores rounded to 3 decimals, so there are ties), written once as
Parquet files (not timed). Each engine then reads the two Parquet files and
computes NDCG@10, MAP@10, P@10, R@10 and MRR@10 (graded, ``ties='expected'``):

* ``single``: ``pandas.read_parquet`` + :func:`recmetrics.evaluate`;
* ``spark``: ``spark.read.parquet`` + :func:`recmetrics.spark.evaluate`
  (``local[2]``, 8 buckets of users);
* ``dask``: ``dask.dataframe.read_parquet`` + :func:`recmetrics.dask.evaluate`
  on a ``distributed.LocalCluster`` of 2 single-threaded worker processes;
* ``spark_ranking_metrics`` (the peer): the usual Spark pipeline, top-k lists
  built with ``row_number`` over a window and ``collect_list``, then
  ``pyspark.mllib.evaluation.RankingMetrics`` for NDCG@10, MAP@10, P@10 and
  R@10 (binary relevance, its only form in PySpark), the four computed one
  after the other as its API requires;
* ``read_only`` (the floor): reading the two files into pandas and one
  ``groupby`` pass over the predictions (the least any evaluation does).

Sizes: users 10,000 / 100,000 / 1,000,000 with lists of 20; lists of
10 / 100 / 500 with 20,000 users. Every engine's means are compared with the
single-process ones (largest relative difference). One timing per size
(the larger ones take seconds to minutes; run on a quiet machine); the
start-up of the Spark session and of the Dask cluster is reported apart.
Results go to ``book/data/benchmarks/scale.json`` with the processor model.

    .venv/bin/python benchmarks/bench_scale.py [--quick]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _timing import RESULTS, cpu_model  # noqa: E402

import recmetrics as rm  # noqa: E402

METRICS = ["ndcg@10", "map@10", "precision@10", "recall@10", "mrr@10"]
N_ITEMS = 50_000


def make_data(n_users, list_len, directory, seed=0):
    """Write truth.parquet and predictions.parquet; return their paths."""
    rng = np.random.default_rng(seed)
    n_rel = rng.integers(1, 10, n_users)
    t_user = np.repeat(np.arange(n_users), n_rel)
    # relevant items: half drawn from the user's list (hits), half anywhere
    p_user = np.repeat(np.arange(n_users), list_len)
    p_item = (rng.integers(0, N_ITEMS, n_users)[:, None] + np.arange(list_len) * 7919) % N_ITEMS
    p_item = p_item.ravel()
    score = np.round(rng.random(n_users * list_len), 3)
    pick = rng.integers(0, list_len, t_user.size)
    from_list = p_item.reshape(n_users, list_len)[t_user, pick]
    anywhere = rng.integers(0, N_ITEMS, t_user.size)
    t_item = np.where(rng.random(t_user.size) < 0.5, from_list, anywhere)
    truth = pd.DataFrame({"user": t_user, "item": t_item, "grade": rng.integers(1, 4, t_user.size)})
    truth = truth.drop_duplicates(["user", "item"])
    pred = pd.DataFrame({"user": p_user, "item": p_item, "score": score})
    tp, pp = Path(directory) / "truth.parquet", Path(directory) / "predictions.parquet"
    truth.to_parquet(tp, index=False, row_group_size=1_000_000)
    pred.to_parquet(pp, index=False, row_group_size=1_000_000)
    return tp, pp, len(truth), len(pred)


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def run_single(tp, pp):
    truth, pred = pd.read_parquet(tp), pd.read_parquet(pp)
    return rm.evaluate(truth, pred, METRICS, relevance="grade")


def run_floor(tp, pp):
    truth, pred = pd.read_parquet(tp), pd.read_parquet(pp)
    return pred.groupby("user")["score"].max().size + len(truth)


def run_spark(spark, tp, pp):
    truth, pred = spark.read.parquet(str(tp)), spark.read.parquet(str(pp))
    return rm.spark.evaluate(truth, pred, METRICS, relevance="grade", n_buckets=8)


def run_dask(tp, pp):
    import dask.dataframe as dd

    truth, pred = dd.read_parquet(str(tp)), dd.read_parquet(str(pp))
    return rm.dask.evaluate(truth, pred, METRICS, relevance="grade", npartitions=8)


def run_spark_ranking_metrics(spark, tp, pp):
    from pyspark.mllib.evaluation import RankingMetrics
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    truth, pred = spark.read.parquet(str(tp)), spark.read.parquet(str(pp))
    w = Window.partitionBy("user").orderBy(F.desc("score"))
    top = (
        pred.withColumn("rank", F.row_number().over(w))
        .where(F.col("rank") <= 10)
        .groupBy("user")
        .agg(F.sort_array(F.collect_list(F.struct("rank", "item"))).alias("top"))
        .select("user", F.col("top.item").alias("top"))
    )
    labels = truth.groupBy("user").agg(F.collect_list("item").alias("labels"))
    pairs = labels.join(top, "user", "left").select(
        F.coalesce("top", F.array().cast("array<bigint>")).alias("top"), "labels"
    )
    metrics = RankingMetrics(pairs.rdd.map(lambda r: (r[0], r[1])))
    return {
        "ndcg@10": metrics.ndcgAt(10),
        "map@10": metrics.meanAveragePrecisionAt(10),
        "precision@10": metrics.precisionAt(10),
        "recall@10": metrics.recallAt(10),
    }


def start_spark():
    return rm.spark.local_session(
        2,
        config={
            "spark.driver.memory": "6g",
            "spark.sql.shuffle.partitions": "8",
            "spark.sql.execution.arrow.maxRecordsPerBatch": "100000",
        },
    )


def start_dask():
    import distributed

    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
        memory_limit="8GiB",
    )  # fmt: skip
    return cluster, distributed.Client(cluster)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only (a smoke run)")
    parser.add_argument("--save", default=str(RESULTS / "scale.json"))
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    if args.quick:
        sizes = [(2_000, 20), (4_000, 20), (2_000, 50)]
    else:
        sizes = [(10_000, 20), (100_000, 20), (1_000_000, 20), (20_000, 10), (20_000, 100),
                 (20_000, 500)]  # fmt: skip

    t_spark, spark = timed(start_spark)
    t_dask, (cluster, client) = timed(start_dask)
    print(f"start-up: Spark session {t_spark:.1f} s, Dask cluster {t_dask:.1f} s", flush=True)
    # warm-up: numba compilation and Python imports in every process, not timed
    with tempfile.TemporaryDirectory() as d:
        tp, pp, _, _ = make_data(500, 10, d)
        run_single(tp, pp)
        run_spark(spark, tp, pp)
        run_dask(tp, pp)
        run_spark_ranking_metrics(spark, tp, pp)

    rows = []
    header = (
        f"{'users':>9} {'list':>5} {'rows':>11} | {'engine':<22} {'seconds':>8} "
        f"{'users/s':>10} {'x floor':>8} {'max rel diff':>12}"
    )
    print(header)
    for n_users, list_len in sizes:
        with tempfile.TemporaryDirectory() as d:
            tp, pp, n_truth, n_pred = make_data(n_users, list_len, d)
            t_floor, _ = timed(lambda: run_floor(tp, pp))  # noqa: B023
            t_single, ref = timed(lambda: run_single(tp, pp))  # noqa: B023
            results = {"read_only": (t_floor, None), "single": (t_single, ref)}
            results["spark"] = timed(lambda: run_spark(spark, tp, pp))  # noqa: B023
            results["dask"] = timed(lambda: run_dask(tp, pp))  # noqa: B023
            results["spark_ranking_metrics"] = timed(
                lambda: run_spark_ranking_metrics(spark, tp, pp)  # noqa: B023
            )
            for engine, (secs, means) in results.items():
                diff = None
                if means is not None and engine != "spark_ranking_metrics":
                    diff = float(np.max(np.abs(np.asarray(means) / ref.to_numpy() - 1)))
                row = {
                    "engine": engine,
                    "n_users": n_users,
                    "list_len": list_len,
                    "truth_rows": n_truth,
                    "prediction_rows": n_pred,
                    "seconds": secs,
                    "users_per_second": n_users / secs,
                    "x_floor": secs / t_floor,
                    "max_rel_diff_to_single": diff,
                }
                if engine == "spark_ranking_metrics":
                    row["values"] = means
                    row["binary_ndcg_single"] = float(
                        rm.evaluate(pd.read_parquet(tp), pd.read_parquet(pp), ["ndcg@10"],
                                    convention="spark").iloc[0]
                    )  # fmt: skip
                rows.append(row)
                print(
                    f"{n_users:>9,} {list_len:>5} {n_pred:>11,} | {engine:<22} {secs:>8.2f} "
                    f"{n_users / secs:>10,.0f} {secs / t_floor:>8.1f} "
                    f"{'' if diff is None else f'{diff:.1e}':>12}",
                    flush=True,
                )
    client.close()
    cluster.close()
    spark.stop()
    import dask
    import pyspark

    result = {
        "benchmark": "bench_scale.py",
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "processor": cpu_model(),
        "cpus": os.cpu_count(),
        "versions": {
            "recmetrics": rm.__version__,
            "pyspark": pyspark.__version__,
            "dask": dask.__version__,
            "pandas": pd.__version__,
            "numpy": np.__version__,
        },
        "metrics": METRICS,
        "startup_seconds": {"spark": t_spark, "dask": t_dask},
        "rows": rows,
    }
    if not args.quick:
        Path(args.save).write_text(json.dumps(result, indent=2) + "\n")
        print(f"saved {args.save}")


if __name__ == "__main__":
    main()
