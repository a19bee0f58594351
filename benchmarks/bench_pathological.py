"""Benchmark: inputs that could make evaluation super-linear, and the first-call cost.

Each case runs at two sizes, the second with twice the users, and prints the
time of ``rm.evaluate`` (best of a few runs), the floor (one reduction pass over
the scores, ``S.max(axis=1)``), their ratio, and the time ratio between the two
sizes: about 2 means linear. The cases:

* ties everywhere: two score levels, 10 relevant items per user, under the
  expected (McSherry-Najork) tie policy and under trec_eval's (tied items by
  item index);
* one tie group: every score equal;
* thousands of relevant items per user: 5,000 of 20,000 items relevant, two
  score levels, both tie policies (the histogram branch of the counting kernel
  and the one-sweep count of tied items to the right);
* k far above the catalogue: NDCG@100000 and MAP@100000 on 100 items;
* a million users with 3 items each.

The first-call cost is measured in fresh processes: ``import recmetrics``, and
the first ``rm.evaluate`` with an empty numba cache (the kernels are compiled)
and with the cache filled by an earlier process.

Not part of the test suite. Results go to ``book/data/benchmarks/pathological.json``
with the processor model.

Run: ``.venv/bin/python benchmarks/bench_pathological.py``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime

import numpy as np
from _timing import RESULTS, best_of, cpu_model

import recmetrics as rm

RANK_METRICS = ["ndcg@10", "map@10", "recall@10", "mrr@10"]


def _relevant(rng, n_users, n_items, per_user):
    T = np.zeros((n_users, n_items), dtype=np.int8)
    for u in range(n_users):
        T[u, rng.choice(n_items, per_user, replace=False)] = 1
    return T


def case_ties(n_users, rng):
    S = rng.integers(0, 2, (n_users, 2000)).astype(np.float32)
    return _relevant(rng, n_users, 2000, 10), S, RANK_METRICS


def case_one_group(n_users, rng):
    S = np.ones((n_users, 2000), dtype=np.float32)
    return _relevant(rng, n_users, 2000, 10), S, RANK_METRICS


def case_many_relevant(n_users, rng):
    S = rng.integers(0, 2, (n_users, 20_000)).astype(np.float32)
    return _relevant(rng, n_users, 20_000, 5000), S, RANK_METRICS + ["auc"]


def case_huge_k(n_users, rng):
    S = rng.random((n_users, 100), dtype=np.float32)
    return _relevant(rng, n_users, 100, 5), S, ["ndcg@100000", "map@100000", "recall@100000"]


def case_three_items(n_users, rng):
    S = rng.random((n_users, 3), dtype=np.float32)
    T = (rng.random((n_users, 3)) < 0.4).astype(np.int8)
    return T, S, RANK_METRICS + ["auc"]


CASES = [
    ("ties everywhere (2 levels), 2,000 items", case_ties, 10_000, "expected"),
    ("ties everywhere, trec_eval ties", case_ties, 10_000, "trec_eval"),
    ("one tie group (all scores equal)", case_one_group, 10_000, "expected"),
    ("5,000 relevant of 20,000, 2 levels", case_many_relevant, 100, "expected"),
    ("5,000 relevant of 20,000, trec_eval ties", case_many_relevant, 100, "trec_eval"),
    ("k = 100,000 on 100 items", case_huge_k, 10_000, "expected"),
    ("3 items per user", case_three_items, 500_000, "expected"),
]

FIRST_CALL = """
import time
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
import recmetrics as rm
t2 = time.perf_counter()
rng = np.random.default_rng(0)
S = rng.random((100, 50))
T = (rng.random((100, 50)) < 0.1).astype(int)
rm.evaluate(T, S, ["ndcg@10", "map@10"], mask=rng.random((100, 50)) < 0.05)
t3 = time.perf_counter()
rm.evaluate(T, S, ["ndcg@10", "map@10"])
t4 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3)
"""


def first_call():
    """Fresh processes: import time, first evaluate with a cold and a warm numba cache."""
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in ("cold numba cache", "warm numba cache"):
            line = subprocess.run(
                [sys.executable, "-c", FIRST_CALL],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            numpy_s, import_s, first_s, second_s = map(float, line)
            out[label] = {
                "import numpy s": numpy_s,
                "import recmetrics s": import_s,
                "first evaluate s": first_s,
                "second evaluate s": second_s,
            }
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--save", default=str(RESULTS / "pathological.json"))
    args = parser.parse_args()

    rows = []
    print(f"{'case':44s} {'users':>9s} {'evaluate s':>11s} {'x floor':>8s} {'x smaller':>9s}")
    for name, make, users, ties in CASES:
        previous = None
        for n_users in (users, 2 * users):
            rng = np.random.default_rng(n_users)
            T, S, metrics = make(n_users, rng)
            rm.evaluate(T[:64], S[:64], metrics, ties=ties)  # compile outside the timing
            rm.evaluate(T, S, metrics, ties=ties)
            t_floor = best_of(lambda S=S: S.max(axis=1), args.repeat)
            t_eval = best_of(
                lambda T=T, S=S, m=metrics, t=ties: rm.evaluate(T, S, m, ties=t),
                args.repeat,
            )
            growth = None if previous is None else t_eval / previous
            previous = t_eval
            rows.append(
                {
                    "case": name,
                    "users": n_users,
                    "items": S.shape[1],
                    "ties": ties,
                    "metrics": metrics,
                    "seconds": t_eval,
                    "floor seconds": t_floor,
                    "x floor": t_eval / t_floor,
                    "x previous size": growth,
                }
            )
            grown = "" if growth is None else f"{growth:9.2f}"
            print(f"{name:44s} {n_users:9,d} {t_eval:11.4f} {t_eval / t_floor:8.1f} {grown:>9s}")
    first = first_call()
    for label, times in first.items():
        print(
            f"{label}: import numpy {times['import numpy s']:.2f} s, import recmetrics "
            f"{times['import recmetrics s']:.2f} s, first evaluate "
            f"{times['first evaluate s']:.2f} s, second {times['second evaluate s']:.4f} s"
        )
    result = {
        "benchmark": "pathological inputs and first-call cost",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "numpy": np.__version__,
        "recmetrics": rm.__version__,
        "repeat": args.repeat,
        "cases": rows,
        "first call": first,
    }
    with open(args.save, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(f"saved {args.save}")


if __name__ == "__main__":
    main()
