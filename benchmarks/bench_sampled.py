"""Benchmark: the correction vector of sampled metrics at catalogue sizes 10^4 .. 10^6.

Times ``recmetrics.correction`` (bias-variance, gamma = 0.01, binomial model,
uniform prior) with ``solver="quadrature"`` for n = 10^4, 10^5, 10^6 items and
m = 100 and 1,000 sampled items, for a metric with a cutoff (NDCG@10: only the
ranks 1..10 carry weight) and one without (AP = 1/r: every rank does). It also
times, separately, the evaluation of the metric at every rank 1..n by the
ranking core (included in the correction time), and the dense-matrix solver
at n = 10^4, m = 100 for comparison. Prints a table and the fitted exponent of
time ~ n^a between 10^5 and 10^6 (a = 1: linear), and saves
``book/data/benchmarks/sampled.json`` with machine information. Not part of the
test suite: no timing assertions anywhere.

Complexity (see ``recmetrics.correction``): O(n m) for the projection of the
metric on the orthogonal polynomials of the prior (O(k m) with a cutoff k),
O(n) for the metric values, O(m^3) for the Gauss rule and the small solve.

Run: ``.venv/bin/python benchmarks/bench_sampled.py [--repeat 3]``
(the numbers depend on the load of the machine: other processes, and
OpenBLAS threads competing for the same cores; set OPENBLAS_NUM_THREADS=1 on
a busy machine).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import warnings
from datetime import UTC, datetime

import numpy as np
import scipy
from _timing import RESULTS, best_of, cpu_model

import recmetrics as rm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    rows = []
    for m in (100, 1000):
        for metric in ("ndcg@10", "ap"):
            for n in (10**4, 10**5, 10**6):
                t = best_of(
                    lambda n=n, m=m, metric=metric: rm.correction(
                        n, m, metric, solver="quadrature"
                    ),
                    args.repeat,
                )
                t_metric = best_of(
                    lambda n=n, metric=metric: rm.metric_function(metric, n)(np.arange(1, n + 1)),
                    args.repeat,
                )
                rows.append(
                    {
                        "n": n,
                        "m": m,
                        "metric": metric,
                        "solver": "quadrature",
                        "seconds": t,
                        "metric_values_seconds": t_metric,
                    }
                )
                print(
                    f"n={n:>9,} m={m:>5} {metric:>8}: {t:7.3f} s  (metric values at every rank: "
                    f"{t_metric:6.3f} s)",
                    flush=True,
                )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rm.IllConditionedCorrectionWarning)
        t_dense = best_of(lambda: rm.correction(10**4, 100, "ap", solver="dense"), args.repeat)
    rows.append(
        {
            "n": 10**4,
            "m": 100,
            "metric": "ap",
            "solver": "dense",
            "seconds": t_dense,
            "metric_values_seconds": None,
        }
    )

    print("\n| m | metric | n = 10^4 | n = 10^5 | n = 10^6 | exponent a (10^5 -> 10^6) |")
    print("|---|---|---|---|---|---|")
    exponents = {}
    for m in (100, 1000):
        for metric in ("ndcg@10", "ap"):
            ts = [
                r["seconds"]
                for r in rows
                if r["m"] == m and r["metric"] == metric and r["solver"] == "quadrature"
            ]
            a = float(np.log(ts[2] / ts[1]) / np.log(10.0))
            exponents[f"{metric}, m={m}"] = a
            print(f"| {m} | {metric} | {ts[0]:.3f} s | {ts[1]:.3f} s | {ts[2]:.3f} s | {a:.2f} |")
    print(f"\ndense solver, n = 10^4, m = 100, AP: {t_dense:.3f} s (O(n m^2))")

    result = {
        "benchmark": "recmetrics.correction (bias_variance, gamma=0.01, binomial, uniform prior)",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "platform": platform.platform(),
            "cpu": cpu_model(),
            "cpu_count": os.cpu_count(),
            "load_average_1_5_15": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
        },
        "repeat": args.repeat,
        "timing": "best of repeat, seconds, time.perf_counter",
        "rows": rows,
        "exponent_10e5_to_10e6": exponents,
    }
    out = RESULTS / "sampled.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {out}")


if __name__ == "__main__":
    main()
