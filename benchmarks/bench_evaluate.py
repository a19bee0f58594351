"""Benchmark: five metrics @10 for 10,000 users x 100 scored candidates.

Times ``recmetrics.evaluate`` beside pytrec_eval, ranx and scikit-learn's
``ndcg_score`` on the same data, each including its own input conversion
(pytrec_eval and ranx take nested dicts; both are run through the adapters of
``recmetrics.peers``, ranx in this process, compiled by numba after a warm-up),
checks that the NDCG@10 values agree,
and prints the ratios measured in this run, with two references on the same
scores: one reduction pass (``y_score.max(axis=1)``) and a full
``np.argsort`` of every row. recmetrics and the references are the best of
``--repeat-ours`` runs (their times are a few milliseconds, where one
scheduling hiccup doubles a single run), the peers the best of ``--repeat``.
Not part of the test suite (no
timing assertions anywhere); results are saved to
``book/data/benchmarks/evaluate.json``.

Run: ``.venv/bin/python benchmarks/bench_evaluate.py [--users 10000] [--items 100]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from _timing import RESULTS, cpu_model

import recmetrics as rm
from recmetrics import peers

METRICS = ["ndcg@10", "map@10", "precision@10", "recall@10", "mrr@10"]


def best_of(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def make_data(n_users, n_items, seed=0):
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n_users, n_items)) < 0.05).astype(float)
    y_true[np.arange(n_users), rng.integers(0, n_items, n_users)] = (
        1.0  # every user has a relevant item
    )
    y_score = rng.random((n_users, n_items))
    return y_true, y_score


def run_recmetrics(y_true, y_score):
    table = rm.evaluate(y_true, y_score, METRICS, per_user=True)
    return table["ndcg@10"].to_numpy()


def run_pytrec_eval(y_true, y_score):
    # qrels of the relevant items only, as usual (every user has one here)
    measures = ["ndcg_cut.10", "map_cut.10", "P.10", "recall.10", "recip_rank"]
    table = peers.trec_eval(y_true, y_score, measures, relevant_only=True)
    return table["ndcg_cut_10"].to_numpy()


def run_ranx(y_true, y_score):
    table = peers.ranx_evaluate(y_true, y_score, METRICS, in_process=True)
    return table["ndcg@10"].to_numpy()


def run_sklearn(y_true, y_score):
    from sklearn.metrics import ndcg_score

    return ndcg_score(y_true, y_score, k=10)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--users", type=int, default=10_000)
    ap.add_argument("--items", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--repeat-ours", type=int, default=20)
    ap.add_argument("--save", default=str(RESULTS / "evaluate.json"))
    args = ap.parse_args()
    y_true, y_score = make_data(args.users, args.items)

    # warm-ups (ranx compiles with numba on first use; imports)
    small = (y_true[:50], y_score[:50])
    for fn in (run_recmetrics, run_pytrec_eval, run_ranx, run_sklearn):
        fn(*small)

    rows = {}
    t_rm, nd_rm = best_of(lambda: run_recmetrics(y_true, y_score), args.repeat_ours)
    rows["recmetrics.evaluate (5 metrics)"] = t_rm
    rows["one pass over the scores, y_score.max(axis=1)"], _ = best_of(
        lambda: y_score.max(axis=1), args.repeat_ours
    )
    rows["np.argsort of every row (no metric)"], _ = best_of(
        lambda: np.argsort(y_score, axis=1), args.repeat_ours
    )
    t_pt, nd_pt = best_of(lambda: run_pytrec_eval(y_true, y_score), args.repeat)
    rows["pytrec_eval (5 measures, incl. dict conversion)"] = t_pt
    t_rx, nd_rx = best_of(lambda: run_ranx(y_true, y_score), args.repeat)
    rows["ranx (5 metrics, incl. Qrels/Run conversion)"] = t_rx
    t_sk, nd_sk = best_of(lambda: run_sklearn(y_true, y_score), args.repeat)
    rows["sklearn ndcg_score (NDCG@10 only)"] = t_sk

    agree = {
        "max |ndcg@10 - pytrec_eval|": float(np.max(np.abs(nd_rm - nd_pt))),
        "max |ndcg@10 - ranx|": float(np.max(np.abs(nd_rm - nd_rx))),
        "|mean ndcg@10 - sklearn|": float(abs(nd_rm.mean() - nd_sk)),
    }
    print(
        f"{args.users} users x {args.items} candidates, best of {args.repeat_ours} "
        f"(recmetrics, pass, argsort) or {args.repeat} (peers), on {cpu_model()}"
    )
    print(f"{'implementation':52s} {'seconds':>9s} {'x recmetrics':>13s}")
    for name, t in rows.items():
        print(f"{name:52s} {t:9.3f} {t / t_rm:13.1f}")
    for name, v in agree.items():
        print(f"{name:30s} {v:.2e}")
    result = {
        "benchmark": "evaluate",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": cpu_model(),
            "cpus": os.cpu_count(),
        },
        "users": args.users,
        "items": args.items,
        "repeat": args.repeat,
        "repeat recmetrics": args.repeat_ours,
        "seconds": rows,
        "ratio_to_recmetrics": {k: v / t_rm for k, v in rows.items()},
        "agreement": agree,
    }
    Path(args.save).parent.mkdir(parents=True, exist_ok=True)
    Path(args.save).write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {args.save}")


if __name__ == "__main__":
    main()
