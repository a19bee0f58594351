"""Benchmark: the first call of a fresh process, with an empty and with a warm numba cache.

A student's first cell imports the package and evaluates something. Each
measurement here is a new Python process (nothing compiled in memory) that
imports ``recmetrics``, builds a seeded input and times two calls of
``rm.evaluate(y_true, y_score, METRICS)``, the first and the second. Three
settings, each for a small (100 users x 50 items) and a large (5,000 x 20,000)
input, both with dense ``int8`` relevance (5 relevant items per user at 50
items, 10 otherwise) and ``float64`` scores:

* ``cold``: ``NUMBA_CACHE_DIR`` set to a new, empty folder, as on a machine
  that has never run the package (or after an upgrade: numba's cache is keyed
  by the source file);
* ``warm``: a second process on the same cache folder;
* ``numpy``: numba made unimportable (``sys.modules["numba"] = None``), the
  fallback of a platform without numba.

Every process reports its standard error (the one-line compile notice, the
warning of the NumPy fallback) and a SHA-256 of the per-user results, so that
the compiled and the NumPy path can be checked to give the same bits. Cold and
warm runs are the best of ``--repeat`` processes (each cold one with its own
empty folder), the NumPy one a single process. ``--tree`` picks the checkout
whose ``recmetrics`` is imported (through ``PYTHONPATH``), so that a former
commit can be measured from a ``git worktree``; ``--label`` names the run in
``book/data/benchmarks/cold_start.json``, which keeps the runs of other
labels. Not part of the test suite (no test asserts a timing)::

    git worktree add /tmp/before <commit>
    .venv/bin/python benchmarks/bench_cold_start.py --tree /tmp/before --label before
    .venv/bin/python benchmarks/bench_cold_start.py --label after
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from _timing import RESULTS, cpu_model

METRICS = ["ndcg@10", "map@10", "precision@10", "recall@10", "mrr@10"]
SIZES = [(100, 50), (5_000, 20_000)]

# One fresh process: argv = n_users, n_items, block numba (0/1). Prints one JSON line.
CHILD = """
import hashlib, json, sys, time
if sys.argv[3] == "1":
    sys.modules["numba"] = None  # import numba now raises ImportError
t0 = time.perf_counter()
import numpy as np
import recmetrics as rm
t1 = time.perf_counter()
n_users, n_items = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(0)
per_user = 5 if n_items <= 50 else 10
y_score = rng.random((n_users, n_items))
y_true = np.zeros((n_users, n_items), dtype=np.int8)
cols = rng.random((n_users, n_items)).argpartition(per_user, axis=1)[:, :per_user]
np.put_along_axis(y_true, cols, 1, axis=1)
metrics = json.loads(sys.argv[4])
t2 = time.perf_counter()
first = rm.evaluate(y_true, y_score, metrics, per_user=True)
t3 = time.perf_counter()
rm.evaluate(y_true, y_score, metrics, per_user=True)
t4 = time.perf_counter()
digest = hashlib.sha256(np.ascontiguousarray(first.to_numpy()).tobytes()).hexdigest()
print(json.dumps({
    "import recmetrics s": t1 - t0,
    "first evaluate s": t3 - t2,
    "second evaluate s": t4 - t3,
    "result sha256": digest,
    "recmetrics file": rm.__file__,
}))
"""


def run_child(tree, cache_dir, n_users, n_items, block_numba):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    argv = [str(n_users), str(n_items), "1" if block_numba else "0", json.dumps(METRICS)]
    run = subprocess.run(
        [sys.executable, "-c", CHILD, *argv],
        env=env,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),  # not the checkout: PYTHONPATH decides what is imported
    )
    if run.returncode != 0:
        raise RuntimeError(f"child failed ({n_users} x {n_items}):\n{run.stderr[-3000:]}")
    out = json.loads(run.stdout.strip().splitlines()[-1])
    out["stderr"] = [line for line in run.stderr.splitlines() if line.strip()]
    return out


def best(runs):
    """The run with the shortest first call, with every run's first call listed."""
    top = min(runs, key=lambda r: r["first evaluate s"])
    return dict(top, **{"first evaluate s, every run": [r["first evaluate s"] for r in runs]})


def commit_of(tree):
    root = Path(tree) if tree is not None else Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", "recmetrics"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (recmetrics/ modified)" if dirty else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", default=None, help="checkout to import recmetrics from")
    parser.add_argument("--label", default="after")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--no-numpy", action="store_true", help="skip the runs without numba")
    parser.add_argument("--save", default=str(RESULTS / "cold_start.json"))
    args = parser.parse_args()

    import numba
    import numpy as np

    load = list(os.getloadavg())
    sizes = {}
    for n_users, n_items in SIZES:
        key = f"{n_users} x {n_items}"
        cold, warm = [], []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as cache:
                cold.append(run_child(args.tree, cache, n_users, n_items, False))
                warm.append(run_child(args.tree, cache, n_users, n_items, False))
        entry = {"cold numba cache": best(cold), "warm numba cache": best(warm)}
        if not args.no_numpy:
            with tempfile.TemporaryDirectory() as cache:
                entry["numba not installed"] = run_child(args.tree, cache, n_users, n_items, True)
        digests = {r["result sha256"] for r in entry.values()}
        entry["same result bits in every setting"] = len(digests) == 1
        sizes[key] = entry
        for label, r in entry.items():
            if isinstance(r, dict):
                print(
                    f"{args.label:8s} {key:14s} {label:20s} "
                    f"import {r['import recmetrics s']:.2f} s  first {r['first evaluate s']:7.3f} s"
                    f"  second {r['second evaluate s']:7.3f} s  stderr lines: {len(r['stderr'])}"
                )
        print(f"{'':8s} {key:14s} same result bits: {entry['same result bits in every setting']}")

    save = Path(args.save)
    saved = json.loads(save.read_text()) if save.exists() else {}
    runs = saved.get("runs", {})
    runs[args.label] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": commit_of(args.tree),
        "load average before": load,
        "sizes": sizes,
    }
    result = {
        "benchmark": "first call of a fresh process: rm.evaluate, cold and warm numba cache",
        "metrics": METRICS,
        "relevance": "dense int8, 5 relevant items per user at 50 items, 10 otherwise",
        "scores": "float64, uniform",
        "repeat": args.repeat,
        "timing": "wall clock (time.perf_counter), seconds; best of repeat processes",
        "machine": {
            "processor": cpu_model(),
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "numpy": np.__version__,
            "numba": numba.__version__,
        },
        "runs": runs,
    }
    save.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"saved {save}")


if __name__ == "__main__":
    main()
