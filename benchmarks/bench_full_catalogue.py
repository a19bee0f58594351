"""Benchmark: full-catalogue evaluation against np.argpartition and the one-pass floor.

(b) For a score matrix of n_users x n_items float32 (default 20,000 x 20,000,
    1.6 GB), with 10 relevant items and 50 excluded (training) items per user,
    time in one run:
      * the floor: one reduction pass over the matrix, ``S.max(axis=1)``;
      * the obvious top-k: ``np.argpartition(S, -k, axis=1)`` (selection only,
        no metric computed, no mask applied: a lower bound of that approach);
      * ``recmetrics.from_scores`` (exact ranks of every relevant item, mask
        applied, any tie policy) followed by ``recmetrics.evaluate`` of
        NDCG@10, MAP@10, P@10, R@10, MRR@10 and AUC;
      * ``recmetrics.evaluate`` from the inputs in one call, with relevance and
        mask sparse (CSR) and dense (int8 relevance, bool mask), results equal:
        the six metrics (AUC needs every rank), the five @10 metrics alone
        (ranked only to depth 10, same numbers), and NDCG@10 with R@10
        without a mask;
    and print the ratios. It also checks the top-10 metrics against the
    argpartition result on a subset of users.
(c) What the counting costs per relevant item: ``from_scores`` on 5,000 users
    x the same items with m = 1 .. 1,000 relevant items per user (no mask), as
    a ratio to one pass over the same matrix. Each relevant item costs two
    comparisons per score (greater, equal) in the sweeps of the cached row,
    so the ratio grows with m until the one-pass histogram branch takes over
    (above 128 relevant items with float32 scores). Beside it,
    ``from_scores(..., depth=10)``, what ``evaluate`` does for metrics @10:
    counting stops once the relevant items left are below position 10.
(d) Peak memory of (b) as the number of users grows: each size runs in a fresh
    subprocess and reports its peak resident set size beyond the inputs.

Not part of the test suite (no timing assertions anywhere). Results are saved
to ``book/data/benchmarks/full_catalogue.json``.

Run: ``.venv/bin/python benchmarks/bench_full_catalogue.py [--users 20000] [--items 20000]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _timing import RESULTS, cpu_model

import recmetrics as rm

METRICS = ["ndcg@10", "map@10", "precision@10", "recall@10", "mrr@10", "auc"]
AT_10 = METRICS[:-1]  # every one cut at 10: ranked to depth 10 only
ISSUE_16 = ["ndcg@10", "recall@10"]  # the case of the repository's issue 16


def make_data(n_users, n_items, n_rel=10, n_mask=50, seed=0):
    rng = np.random.default_rng(seed)
    S = rng.random((n_users, n_items), dtype=np.float32)
    rows = np.repeat(np.arange(n_users), n_rel)
    T = sp.csr_array(
        (np.ones(rows.shape[0]), (rows, rng.integers(0, n_items, rows.shape[0]))),
        shape=(n_users, n_items),
    )
    T.sum_duplicates()
    T.data[:] = 1.0
    mrows = np.repeat(np.arange(n_users), n_mask)
    M = sp.csr_array(
        (np.ones(mrows.shape[0], dtype=bool), (mrows, rng.integers(0, n_items, mrows.shape[0]))),
        shape=(n_users, n_items),
    )
    M.sum_duplicates()
    return T, S, M


def timed(fn, repeat=1):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def run_b(n_users, n_items, repeat):
    T, S, M = make_data(n_users, n_items)
    rm.evaluate(T[:20], S[:20], METRICS, mask=M[:20])  # compile the kernels once
    t_floor, _ = timed(lambda: S.max(axis=1), repeat)
    t_rank, r = timed(lambda: rm.from_scores(T, S, mask=M), repeat)
    t_metrics, res = timed(lambda: rm.evaluate(r, None, METRICS), repeat)
    t_ours = t_rank + t_metrics
    t_argp, top = timed(lambda: np.argpartition(S, -10, axis=1)[:, -10:], 1)
    # the same evaluation from the inputs, relevance and mask sparse (CSR) or dense
    # (int8 relevance and bool mask, the scikit-learn form), NaN check included
    Td, Md = T.toarray().astype(np.int8), M.toarray()
    rm.evaluate(Td[:20], S[:20], METRICS, mask=Md[:20])  # compile the dense readers
    t_sparse, res_sparse = timed(lambda: rm.evaluate(T, S, METRICS, mask=M), repeat)
    t_dense, res_dense = timed(lambda: rm.evaluate(Td, S, METRICS, mask=Md), repeat)
    t_sparse10, res_sparse10 = timed(lambda: rm.evaluate(T, S, AT_10, mask=M), repeat)
    t_dense10, res_dense10 = timed(lambda: rm.evaluate(Td, S, AT_10, mask=Md), repeat)
    t_plain, res_plain = timed(lambda: rm.evaluate(T, S, ISSUE_16), repeat)
    t_plain_dense, res_plain_dense = timed(lambda: rm.evaluate(Td, S, ISSUE_16), repeat)
    full = rm.from_scores(T, S)  # every rank, no mask: the reference for the last two
    # agreement on a subset: rebuild P@10 from argpartition (no ties in random floats, no mask)
    sub = slice(0, min(n_users, 500))
    Ts, Ss = T[sub], S[sub]
    top_s = np.argpartition(Ss, -10, axis=1)[:, -10:]
    p_arg = np.asarray(
        Ts.toarray()[np.arange(Ts.shape[0])[:, None], top_s].sum(axis=1) / 10.0
    ).ravel()
    p_ours = rm.precision(Ts, Ss, k=10, per_user=True)
    seconds = {
        "floor S.max(axis=1)": t_floor,
        "np.argpartition top-10": t_argp,
        "recmetrics from_scores": t_rank,
        "recmetrics evaluate (6 metrics)": t_metrics,
        "recmetrics total": t_ours,
        "rm.evaluate 6 metrics, sparse relevance and mask": t_sparse,
        "rm.evaluate 6 metrics, dense relevance and mask": t_dense,
        "rm.evaluate 5 metrics @10, sparse relevance and mask": t_sparse10,
        "rm.evaluate 5 metrics @10, dense relevance and mask": t_dense10,
        "rm.evaluate NDCG@10 + R@10, sparse relevance": t_plain,
        "rm.evaluate NDCG@10 + R@10, dense relevance": t_plain_dense,
    }
    same = [
        all(res_dense[k] == res_sparse[k] for k in METRICS),
        all(res_dense10[k] == res_sparse10[k] == res_sparse[k] for k in AT_10),
        all(res_plain_dense[k] == res_plain[k] for k in ISSUE_16),
        res_plain["ndcg@10"] == rm.ndcg(full, k=10),
        res_plain["recall@10"] == rm.recall(full, k=10),
    ]
    return {
        "users": n_users,
        "items": n_items,
        "dtype": "float32",
        "seconds": seconds,
        "x floor": {name: t / t_floor for name, t in seconds.items()},
        "dense == sparse == full ranks": bool(all(same)),
        "ratio recmetrics/floor": t_ours / t_floor,
        "speed-up over argpartition": t_argp / t_ours,
        "max |P@10 - argpartition P@10| (500 users, no mask)": float(
            np.max(np.abs(p_arg - p_ours))
        ),
        "means": {k: float(v) for k, v in res.items()},
    }


def run_c(n_users, n_items, repeat, m_values=(1, 2, 4, 10, 20, 50, 100, 200, 500, 1000)):
    rng = np.random.default_rng(1)
    S = rng.random((n_users, n_items), dtype=np.float32)
    t_floor, _ = timed(lambda: S.max(axis=1), repeat)
    rows = []
    for m in m_values:
        cols = rng.integers(0, n_items, n_users * m)  # a rare repeat is merged away
        T = sp.csr_array(
            (np.ones(n_users * m), (np.repeat(np.arange(n_users), m), cols)),
            shape=(n_users, n_items),
        )
        T.sum_duplicates()
        T.data[:] = 1.0
        rm.from_scores(T[:20], S[:20])  # warm the path
        t, _ = timed(lambda T=T: rm.from_scores(T, S), repeat)
        t10, _ = timed(lambda T=T: rm.from_scores(T, S, depth=10), repeat)
        rows.append(
            {
                "relevant per user": m,
                "seconds": t,
                "x floor": t / t_floor,
                "depth 10 seconds": t10,
                "depth 10 x floor": t10 / t_floor,
            }
        )
    return {"users": n_users, "items": n_items, "floor seconds": t_floor, "rows": rows}


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def child(n_users, n_items):
    """Peak resident memory during one evaluation, beyond what the inputs occupy.

    A thread samples the resident set size every millisecond while
    ``evaluate`` runs; the baseline is the resident size just before, with the
    inputs built and the kernels compiled.
    """
    import threading

    T, S, M = make_data(n_users, n_items)
    rm.evaluate(T[:20], S[:20], METRICS, mask=M[:20])
    base = _rss_mb()
    peak = [base]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], _rss_mb())
            time.sleep(0.001)

    th = threading.Thread(target=sample)
    th.start()
    rm.evaluate(T, S, METRICS, mask=M)
    done.set()
    th.join()
    peak[0] = max(peak[0], _rss_mb())
    print(
        json.dumps(
            {
                "users": n_users,
                "items": n_items,
                "input MB": (S.nbytes + T.data.nbytes + T.indices.nbytes + M.indices.nbytes)
                / 2**20,
                "extra peak MB": peak[0] - base,
            }
        )
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--users", type=int, default=20_000)
    ap.add_argument("--items", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--memory-users", type=int, nargs="*", default=[2_500, 5_000, 10_000, 20_000])
    ap.add_argument("--child", type=int, nargs=2, help=argparse.SUPPRESS)
    ap.add_argument(
        "--only-memory",
        action="store_true",
        help="re-measure (d) only, keeping (b) from the saved results",
    )
    ap.add_argument("--save", default=str(RESULTS / "full_catalogue.json"))
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    if args.only_memory:
        saved = json.loads(Path(args.save).read_text())
        b, c = saved["b"], saved["c"]
    else:
        b = run_b(args.users, args.items, args.repeat)
        c = run_c(min(args.users, 5_000), args.items, args.repeat)
    print(f"(b) {args.users} users x {args.items} items, float32, best of {args.repeat}")
    print(f"    on {cpu_model()}, {os.cpu_count()} cores")
    for name, t in b["seconds"].items():
        print(f"  {name:54s} {t:8.3f} s = {b['x floor'][name]:5.2f} x floor")
    print(f"  recmetrics / floor              {b['ratio recmetrics/floor']:8.1f} x")
    print(f"  dense, sparse and full-rank results equal: {b['dense == sparse == full ranks']}")
    print(f"  speed-up over np.argpartition   {b['speed-up over argpartition']:8.1f} x")
    agreement = b["max |P@10 - argpartition P@10| (500 users, no mask)"]
    print(f"  agreement with argpartition P@10: {agreement:.1e}")
    print(f"(c) from_scores on {c['users']} users x {c['items']} items, no mask")
    for row in c["rows"]:
        print(
            f"  {row['relevant per user']:4d} relevant per user: {row['seconds']:7.3f} s "
            f"= {row['x floor']:5.1f} x one pass; to depth 10: {row['depth 10 seconds']:6.3f} s "
            f"= {row['depth 10 x floor']:4.1f} x"
        )
    d = []
    for u in args.memory_users:
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(u), str(args.items)],
            capture_output=True,
            text=True,
            check=True,
        )
        d.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"(d) peak memory beyond the inputs, {args.items} items")
    for row in d:
        print(
            f"  {row['users']:7d} users: inputs {row['input MB']:8.0f} MB, "
            f"extra peak {row['extra peak MB']:7.0f} MB"
        )
    result = {
        "benchmark": "full_catalogue",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": cpu_model(),
            "cpus": os.cpu_count(),
            "numba": rm._kernels.HAVE_NUMBA,
        },
        "b": b,
        "c": c,
        "d": d,
    }
    Path(args.save).parent.mkdir(parents=True, exist_ok=True)
    Path(args.save).write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {args.save}")


if __name__ == "__main__":
    main()
