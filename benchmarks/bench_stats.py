"""Benchmark: paired bootstrap intervals over users, recmetrics vs scipy.stats.bootstrap.

10,000 users x 5 metrics x 10,000 resamples (issue 12's target: <= 2 s). scipy's
``bootstrap`` runs one metric at a time; its time for the 5 metrics is measured
on the same data (vectorised statistic, BCa and percentile). Results with the
machine and date go to book/data/benchmarks/stats.json.

    .venv/bin/python benchmarks/bench_stats.py [--users 10000] [--resamples 10000]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
from pathlib import Path

import numpy as np
import pandas as pd
from _timing import RESULTS, best_of, cpu_model
from scipy import stats as sps

from recmetrics import stats


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--metrics", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--save", default=str(RESULTS / "stats.json"))
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    a = pd.DataFrame(rng.beta(0.6, 1.5, (args.users, args.metrics)))
    b = a + rng.normal(0.01, 0.1, a.shape)
    d = (a - b).to_numpy()
    seconds, agreement = {}, {}
    for method, sp_method in (("percentile", "percentile"), ("bca", "BCa")):
        ours = f"recmetrics bootstrap_ci ({method}, {args.metrics} metrics)"
        seconds[ours] = best_of(
            lambda method=method: stats.bootstrap_ci(
                a, b, method=method, n_resamples=args.resamples
            ),
            args.repeat,
        )
        theirs = f"scipy.stats.bootstrap ({sp_method}, {args.metrics} metrics)"
        results = []

        def run_scipy(sp_method=sp_method, results=results):
            results.clear()
            for j in range(args.metrics):
                results.append(
                    sps.bootstrap(
                        (d[:, j],), np.mean, method=sp_method, n_resamples=args.resamples, rng=1
                    ).confidence_interval
                )

        seconds[theirs] = best_of(run_scipy, 1)
        mine = stats.bootstrap_ci(a, b, method=method, n_resamples=args.resamples)
        agreement[f"max |bound difference| ({method}), in standard errors"] = float(
            max(
                max(
                    abs(mine.iloc[j]["low"] - results[j].low),
                    abs(mine.iloc[j]["high"] - results[j].high),
                )
                / mine.iloc[j]["standard_error"]
                for j in range(args.metrics)
            )
        )
    base = {k: v for k, v in seconds.items() if k.startswith("recmetrics")}
    print(f"{args.users:,} users x {args.metrics} metrics x {args.resamples:,} resamples")
    for name, t in seconds.items():
        ref = base[[k for k in base if k.split("(")[1].split(",")[0] in name.lower()][0]]
        print(f"  {name:55s} {t:7.2f} s   {t / ref:5.1f} x recmetrics")
    for name, v in agreement.items():
        print(f"  {name}: {v:.2f}")
    result = {
        "benchmark": "stats",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {
            "processor": cpu_model(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load average": os.getloadavg(),
        },
        "users": args.users,
        "metrics": args.metrics,
        "resamples": args.resamples,
        "seconds": seconds,
        "agreement": agreement,
    }
    Path(args.save).write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {args.save}")


if __name__ == "__main__":
    main()
