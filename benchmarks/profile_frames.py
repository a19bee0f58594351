"""Profile: where the time of :func:`recmetrics.evaluate` on long data frames goes.

The frames of ``bench_scale.py`` (the same generator, built in memory, no
Spark or Dask): ``n_users`` users with 20 scored predictions each (scores
rounded to 3 decimals, so there are ties) and 1 to 9 graded relevant items;
five metrics @10, graded, ``ties='expected'`` unless ``--ties`` says
otherwise. For each size it prints

* the evaluation time (best of ``--repeat``) and the per-row cost (ns per
  prediction row), with its ratio to the smallest size;
* the read floor as ``bench_scale.py`` defines it (Parquet files of the two
  frames, written to a temporary directory, read into pandas, plus one
  ``groupby`` pass over the predictions), and read + evaluate against it;
* per-stage timers: the inclusive time of every helper of
  :mod:`recmetrics.inputs.frames` (and of the ranking builders it calls),
  the rest of :func:`~recmetrics.from_frames`, and the metrics, in wall
  time and in CPU time of the process (all threads: the compiled kernels
  run in parallel). On a shared, loaded machine the wall times of one run
  stretch with the load (several times over under heavy contention); the
  CPU times move far less, so compare stages by CPU time there;
* with ``--cprofile``: the top entries of cProfile, by cumulative and by
  total time.

On Linux, large temporaries (above glibc's mmap threshold, at most 32 MB:
every array of 2x10^7 rows) are mapped fresh and page-faulted on first
touch each time; run once more with ``MALLOC_MMAP_THRESHOLD_=17179869184
MALLOC_TRIM_THRESHOLD_=17179869184`` in the environment to see that share
(the system time) apart.

Nothing is saved unless ``--save`` names a JSON file (write it outside the
book's data directory).

    .venv/bin/python benchmarks/profile_frames.py [--users 10000 100000 1000000]
        [--ties expected] [--cprofile] [--save /tmp/profile_frames.json]
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import json
import pstats
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _timing import cpu_model  # noqa: E402

import recmetrics as rm  # noqa: E402
from recmetrics.evaluation import _rankings  # noqa: E402
from recmetrics.inputs import frames as _frames  # noqa: E402

METRICS = ["ndcg@10", "map@10", "precision@10", "recall@10", "mrr@10"]
N_ITEMS = 50_000


def make_frames(n_users, list_len=20, seed=0):
    """The two frames of ``bench_scale.make_data``, in memory."""
    rng = np.random.default_rng(seed)
    n_rel = rng.integers(1, 10, n_users)
    t_user = np.repeat(np.arange(n_users), n_rel)
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
    return truth, pred


class StageTimers:
    """Inclusive wall time of the helpers of the frame path, by name."""

    NAMES = ("from_frames", "_entries_from_counts", "_deterministic")

    def __init__(self):
        self.seconds = defaultdict(float)
        self.cpu_seconds = defaultdict(float)
        self.saved = {}

    def __enter__(self):
        for module in self.modules():
            names = [n for n in vars(module) if n.startswith("_") and callable(vars(module)[n])]
            names = [n for n in names if not n.startswith("__") and n[1:2].islower()]
            for name in (*self.NAMES, *names):
                fn = getattr(module, name, None)
                if fn is None or not callable(fn) or isinstance(fn, type):
                    continue
                fn = getattr(fn, "__wrapped__", fn)
                self.saved[module, name] = fn
                setattr(module, name, self._wrap(name, fn))
        self.saved_rankings = _rankings.from_frames
        _rankings.from_frames = _frames.from_frames  # imported there by name
        return self

    @staticmethod
    def modules():
        """The modules of the frame path (their helpers call each other by global name)."""
        try:  # the row helpers have their own module since issue 30
            from recmetrics.inputs import frame_rows
        except ImportError:
            return (_frames,)
        return (_frames, frame_rows)

    def _wrap(self, name, fn):
        @functools.wraps(fn)
        def timed(*args, **kwargs):
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - t0
                self.cpu_seconds[name] += time.process_time() - c0

        return timed

    def __exit__(self, *exc):
        for (module, name), fn in self.saved.items():
            setattr(module, name, fn)
        _rankings.from_frames = self.saved_rankings


def evaluate(truth, pred, ties):
    return rm.evaluate(truth, pred, METRICS, relevance="grade", ties=ties)


def best_of(fn, repeat, cpu=False):
    """The shortest wall time of ``repeat`` runs (and CPU time, with ``cpu``)."""
    best, best_cpu = np.inf, np.inf
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return (best, best_cpu) if cpu else best


def read_floor(truth, pred, repeat):
    """``bench_scale``'s floor (read + one groupby) and read + evaluate, from Parquet."""
    with tempfile.TemporaryDirectory() as d:
        tp, pp = Path(d) / "truth.parquet", Path(d) / "predictions.parquet"
        truth.to_parquet(tp, index=False, row_group_size=1_000_000)
        pred.to_parquet(pp, index=False, row_group_size=1_000_000)

        def floor():
            t, p = pd.read_parquet(tp), pd.read_parquet(pp)
            return p.groupby("user")["score"].max().size + len(t)

        def single():
            return evaluate(pd.read_parquet(tp), pd.read_parquet(pp), "expected")

        return best_of(floor, repeat), best_of(single, repeat)


def cprofile_top(truth, pred, ties, n=25):
    prof = cProfile.Profile()
    prof.enable()
    evaluate(truth, pred, ties)
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("cumulative").print_stats(n)
    stats.sort_stats("tottime").print_stats(n)
    return out.getvalue()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--ties", default="expected")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cprofile", action="store_true")
    parser.add_argument("--no-floor", action="store_true", help="skip the Parquet read floor")
    parser.add_argument("--save", default=None, help="a JSON file (not in book/data)")
    args = parser.parse_args()
    print(f"processor: {cpu_model()}, numpy {np.__version__}, pandas {pd.__version__}")
    evaluate(*make_frames(2_000), args.ties)  # warm-up: imports and compiled kernels
    rows, base = [], None
    for n_users in args.users:
        truth, pred = make_frames(n_users)
        n_rows = len(pred)
        seconds, cpu = best_of(lambda: evaluate(truth, pred, args.ties), args.repeat, cpu=True)  # noqa: B023
        per_row = seconds / n_rows * 1e9
        base = base or per_row
        with StageTimers() as timers:
            total, total_cpu = best_of(lambda: evaluate(truth, pred, args.ties), 1, cpu=True)  # noqa: B023
        stages = dict(sorted(timers.seconds.items(), key=lambda kv: -kv[1]))
        stages["metrics (evaluate - from_frames)"] = total - stages.get("from_frames", 0.0)
        cpu_stages = {name: timers.cpu_seconds.get(name, 0.0) for name in stages}
        cpu_stages["metrics (evaluate - from_frames)"] = total_cpu - cpu_stages.get(
            "from_frames", 0.0
        )
        row = {
            "n_users": n_users,
            "prediction_rows": n_rows,
            "truth_rows": len(truth),
            "ties": args.ties,
            "seconds": seconds,
            "cpu_seconds": cpu,
            "ns_per_row": per_row,
            "per_row_vs_smallest": per_row / base,
            "stages_seconds": stages,
            "stages_cpu_seconds": cpu_stages,
        }
        print(
            f"\n{n_users:>9,} users {n_rows:>11,} rows: evaluate {seconds:.3f} s "
            f"(CPU {cpu:.3f} s), {per_row:.0f} ns/row ({per_row / base:.2f}x the smallest size)"
        )
        if not args.no_floor:
            floor, single = read_floor(truth, pred, args.repeat)
            row.update(read_floor_seconds=floor, read_evaluate_seconds=single)
            print(
                f"  read floor {floor:.3f} s, read + evaluate {single:.3f} s: "
                f"{single / floor:.1f}x the floor"
            )
        print("  stages (inclusive, one run with timers):      wall        CPU")
        for name, secs in stages.items():
            print(f"    {name:<36} {secs:8.3f} s {cpu_stages[name]:8.3f} s")
        if args.cprofile:
            text = cprofile_top(truth, pred, args.ties)
            row["cprofile"] = text
            print(text)
        rows.append(row)
        truth = pred = None  # free them before the next size
    if args.save:
        meta = {"processor": cpu_model(), "numpy": np.__version__, "pandas": pd.__version__}
        Path(args.save).write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
        print(f"saved {args.save}")


if __name__ == "__main__":
    main()
