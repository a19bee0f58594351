"""Benchmark: five metrics @10 for 10,000 users x 100 scored candidates.

Times ``recmetrics.evaluate`` beside pytrec_eval, ranx and scikit-learn's
``ndcg_score`` on the same data, each including its own input conversion
(pytrec_eval and ranx take nested dicts; both are run through the adapters of
``recmetrics.peers``, ranx in this process, compiled by numba after a warm-up),
checks that the NDCG@10 values agree,
and prints the ratios measured in this run, with two references on the same
scores: one reduction pass (``y_score.max(axis=1)``) and a full
``np.argsort`` of every row. recmetrics and the references are the best of
``--repeat-ours`` runs in each of ``--repeat`` rounds (their times are a few
milliseconds, where one scheduling hiccup doubles a single run), the peers
the best of one run in each round.

Four distributions of the same shape (``DISTRIBUTIONS``): few relevant items
and scores unrelated to them (``uniform``), 5-20 relevant items per user with
scores that follow them (``correlated``: standard normal noise plus the
relevance) or not (``unrelated``: the noise alone), and 30-60 relevant items
per user (``many``, scored as ``correlated``). recmetrics' kernels are
compiled before timing (``_SMALL_TO_NUMPY`` off for the warm-up), as in any
session after the first, where numba's disk cache holds them; the first
call of a fresh environment is ``bench_cold_start.py``'s subject.

Not part of the test suite (no
timing assertions anywhere); results are saved to
``book/data/benchmarks/evaluate.json``.

Run: ``.venv/bin/python benchmarks/bench_evaluate.py [--users 10000] [--items 100]``
"""

from __future__ import annotations

import argparse
import gc
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
    """The shortest of ``repeat`` runs of ``fn`` and its result.

    As ``timeit`` does, the garbage collector is off while ``fn`` runs (after
    one collection), for every implementation alike: the peers leave
    hundreds of thousands of Python objects behind, and a collection that
    happens to fall into a run of a few milliseconds would time the peers'
    garbage instead.
    """
    times, out = [], None
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeat):
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
    finally:
        gc.enable()
    return min(times), out


def make_uniform(n_users, n_items, rng):
    """About 5 % relevant items (at least one per user), uniform scores."""
    y_true = (rng.random((n_users, n_items)) < 0.05).astype(float)
    y_true[np.arange(n_users), rng.integers(0, n_items, n_users)] = 1.0
    return y_true, rng.random((n_users, n_items))


def _k_relevant(n_users, n_items, low, high, rng):
    """``low`` to ``high`` relevant items per user (uniform count, random places)."""
    counts = rng.integers(low, high + 1, n_users)
    ranks = rng.random((n_users, n_items)).argsort(axis=1).argsort(axis=1)
    return (ranks < counts[:, None]).astype(float)


def make_correlated(n_users, n_items, rng):
    """5-20 relevant items per user; scores = standard normal noise + relevance."""
    y_true = _k_relevant(n_users, n_items, 5, 20, rng)
    return y_true, rng.standard_normal((n_users, n_items)) + y_true


def make_unrelated(n_users, n_items, rng):
    """5-20 relevant items per user; scores = standard normal noise alone."""
    y_true = _k_relevant(n_users, n_items, 5, 20, rng)
    return y_true, rng.standard_normal((n_users, n_items))


def make_many(n_users, n_items, rng):
    """30-60 relevant items per user; scores = standard normal noise + relevance."""
    y_true = _k_relevant(n_users, n_items, 30, 60, rng)
    return y_true, rng.standard_normal((n_users, n_items)) + y_true


DISTRIBUTIONS = {
    "uniform": make_uniform,
    "correlated": make_correlated,
    "unrelated": make_unrelated,
    "many": make_many,
}


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


def measure(y_true, y_score, args):
    """Seconds of each implementation and the agreement of their NDCG@10.

    ``--repeat`` rounds; in each, recmetrics and the two references are
    timed ``--repeat-ours`` times in a row, then each peer once. The best
    time over all rounds is kept, so that a passing state of the process
    or the machine (the peers' allocations, a neighbour's work) does not
    decide a number of a few milliseconds.
    """
    ours = {
        "recmetrics.evaluate (5 metrics)": lambda: run_recmetrics(y_true, y_score),
        "one pass over the scores, y_score.max(axis=1)": lambda: y_score.max(axis=1),
        "np.argsort of every row (no metric)": lambda: np.argsort(y_score, axis=1),
    }
    peers_ = {
        "pytrec_eval (5 measures, incl. dict conversion)": lambda: run_pytrec_eval(y_true, y_score),
        "ranx (5 metrics, incl. Qrels/Run conversion)": lambda: run_ranx(y_true, y_score),
        "sklearn ndcg_score (NDCG@10 only)": lambda: run_sklearn(y_true, y_score),
    }
    rows = {name: np.inf for name in (*ours, *peers_)}
    out = {}
    for _ in range(args.repeat):
        for name, fn in ours.items():
            t, out[name] = best_of(fn, args.repeat_ours)
            rows[name] = min(rows[name], t)
        for name, fn in peers_.items():
            t, out[name] = best_of(fn, 1)
            rows[name] = min(rows[name], t)
    nd_rm = out["recmetrics.evaluate (5 metrics)"]
    nd_pt = out["pytrec_eval (5 measures, incl. dict conversion)"]
    nd_rx = out["ranx (5 metrics, incl. Qrels/Run conversion)"]
    nd_sk = out["sklearn ndcg_score (NDCG@10 only)"]
    agree = {
        "max |ndcg@10 - pytrec_eval|": float(np.max(np.abs(nd_rm - nd_pt))),
        "max |ndcg@10 - ranx|": float(np.max(np.abs(nd_rm - nd_rx))),
        "|mean ndcg@10 - sklearn|": float(abs(nd_rm.mean() - nd_sk)),
    }
    return rows, agree


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--users", type=int, default=10_000)
    ap.add_argument("--items", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--repeat-ours", type=int, default=20)
    ap.add_argument("--save", default=str(RESULTS / "evaluate.json"))
    args = ap.parse_args()
    data = {
        name: make(args.users, args.items, np.random.default_rng(seed))
        for seed, (name, make) in enumerate(DISTRIBUTIONS.items())
    }

    # warm-ups: imports, ranx's numba compilation, and recmetrics' kernels for
    # every input of the run (compiled even where a first call of this size
    # would take the NumPy path: see the module docstring)
    from recmetrics._kernels import _dispatch

    for fn in (run_pytrec_eval, run_ranx, run_sklearn):
        fn(*(a[:50] for a in data["uniform"]))
    _dispatch._SMALL_TO_NUMPY = False
    for y_true, y_score in data.values():
        run_recmetrics(y_true, y_score)
    _dispatch._SMALL_TO_NUMPY = True

    print(
        f"{args.users} users x {args.items} candidates, best of {args.repeat} rounds of "
        f"{args.repeat_ours} runs (recmetrics, pass, argsort) or of one (peers), "
        f"on {cpu_model()}"
    )
    results = {}
    for name, (y_true, y_score) in data.items():
        rows, agree = measure(y_true, y_score, args)
        t_rm = rows["recmetrics.evaluate (5 metrics)"]
        per_user = y_true.sum(axis=1)
        relevant = {
            "mean": float(per_user.mean()),
            "min": int(per_user.min()),
            "max": int(per_user.max()),
        }
        print(
            f"\n{name}: {DISTRIBUTIONS[name].__doc__} "
            f"(relevant items per user: {relevant['min']}-{relevant['max']}, "
            f"mean {relevant['mean']:.1f})"
        )
        print(f"{'implementation':52s} {'seconds':>9s} {'x recmetrics':>13s}")
        for row, t in rows.items():
            print(f"{row:52s} {t:9.4f} {t / t_rm:13.1f}")
        for row, v in agree.items():
            print(f"{row:30s} {v:.2e}")
        results[name] = {
            "description": DISTRIBUTIONS[name].__doc__,
            "relevant per user": relevant,
            "seconds": rows,
            "ratio_to_recmetrics": {k: v / t_rm for k, v in rows.items()},
            "agreement": agree,
        }
    result = {
        "benchmark": "evaluate",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": cpu_model(),
            "cpus": os.cpu_count(),
        },
        "load_average_1min": os.getloadavg()[0],
        "users": args.users,
        "items": args.items,
        "repeat": args.repeat,
        "repeat recmetrics": args.repeat_ours,
        "distributions": results,
    }
    Path(args.save).parent.mkdir(parents=True, exist_ok=True)
    Path(args.save).write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {args.save}")


if __name__ == "__main__":
    main()
