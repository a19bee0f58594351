"""Benchmark: beyond-accuracy metrics on 100,000 users x top-20 lists over 5,000 items.

1. Intra-list diversity (issue 13's target: <= 1 s) with 20 binary genre-like
   features (density 0.15, seeded): ``recmetrics.beyond.intra_list_diversity``
   with ``distance='jaccard'`` (numba popcount kernel) and ``'cosine'`` (closed
   form, one sparse product), best of ``--repeat`` after one warm-up call; the
   first (cold) call of the process is reported apart, and so is the numba
   compilation with an empty cache (a separate process, tiny input). Baselines:
   a plain per-user Python loop (Jaccard on Python sets, cosine with NumPy
   vectors) timed on ``--loop-users`` users and extrapolated linearly to all
   users; the previous implementation's "naive vectorised NumPy" approach (a
   5,000 x 5,000 distance matrix computed once, timed apart, then every pair of
   positions gathered from it in blocks of users).
2. Novelty, ARP, catalogue coverage and long-tail share with a seeded Zipf-like
   popularity from a training DataFrame of ~1,000,000 interactions:
   each recmetrics function (from the training frame, and from precomputed
   counts), a plain per-user loop (extrapolated as above; its popularity
   dictionaries built once from the training pairs) and the "one pass"
   reference: the per-item popularity arrays computed once (timed apart), then
   one gather from the 2-D lists array and a mean per row (a bincount for
   coverage).
3. The memory floor: one pass over the lists array (``rec.max()``; also
   ``np.bincount(rec.ravel())``); every recmetrics timing is shown as a multiple
   of it, and so is the reading of the lists into flat arrays that every
   recmetrics call starts with (the internal ``beyond._read_lists``).

Per-user values of every baseline are checked against recmetrics (max absolute
difference). Library baselines were not run: RecTools and Microsoft
Recommenders (the libraries with intra-list diversity and novelty functions)
require numpy<2 / pandas<3 and do not install next to this repository's pins
(numpy 2.4, pandas 3.1). Not part of the test suite; results are saved to
``book/data/benchmarks/beyond.json``.

    .venv/bin/python benchmarks/bench_beyond.py [--users 100000] [--loop-users 2000]
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numba
import numpy as np
import pandas as pd
from _timing import RESULTS, best_of, cpu_model

import recmetrics
from recmetrics.metrics import beyond

NOT_RUN = {
    "RecTools": "requires numpy<2 and pandas<3; does not install next to numpy 2.4 / pandas 3.1",
    "Microsoft Recommenders": (
        "requires numpy<2 and pandas<3; does not install next to numpy 2.4 / pandas 3.1"
    ),
}

COMPILE_SNIPPET = """
import time
import numpy as np
import pandas as pd
from recmetrics import beyond
f = pd.DataFrame(np.eye(8, 3, dtype=np.int8))
t0 = time.perf_counter()
beyond.intra_list_diversity(np.array([[0, 1, 2], [3, 4, 5]]), f, distance="jaccard")
print(time.perf_counter() - t0)
"""


def make_data(n_users, n_items, n_features, density, length, n_train, seed):
    """Features, top-``length`` lists (popularity-biased) and Zipf-like training interactions."""
    rng = np.random.default_rng(seed)
    feats = rng.random((n_items, n_features)) < density
    # popularity rank r (1 = most popular) of each item: a seeded permutation of the ids
    rank = rng.permutation(n_items) + 1
    p_train = 1.0 / rank
    p_train /= p_train.sum()
    train = pd.DataFrame(
        {
            "user": rng.integers(0, n_users, n_train),
            "item": rng.choice(n_items, size=n_train, p=p_train),
        }
    )
    # lists: draws with replacement biased towards popular items (rank^-0.5),
    # the first ``length`` distinct items of each row, in draw order
    p_rec = rank**-0.5
    p_rec /= p_rec.sum()
    draws = rng.choice(n_items, size=(n_users, 3 * length), p=p_rec)
    order = np.argsort(draws, axis=1, kind="stable")
    srt = np.take_along_axis(draws, order, axis=1)
    first_sorted = np.ones(srt.shape, dtype=bool)
    first_sorted[:, 1:] = srt[:, 1:] != srt[:, :-1]
    first = np.empty_like(first_sorted)
    np.put_along_axis(first, order, first_sorted, axis=1)
    keep = first & (np.cumsum(first, axis=1) <= length)
    if not (keep.sum(axis=1) == length).all():
        raise RuntimeError("a row has fewer distinct draws than the list length; change the seed")
    rec = np.ascontiguousarray(draws[keep].reshape(n_users, length).astype(np.int64))
    return pd.DataFrame(feats.astype(np.int8)), rec, train


# --------------------------------------------------------------------------
# baselines: intra-list diversity
def ild_loop_jaccard(lists, sets):
    out = []
    for lst in lists:
        fs = [sets[i] for i in lst]
        total, n = 0.0, 0
        for a in range(len(fs)):
            for b in range(a + 1, len(fs)):
                union = len(fs[a] | fs[b])
                total += 1.0 - len(fs[a] & fs[b]) / union if union else 0.0
                n += 1
        out.append(total / n)
    return np.array(out)


def ild_loop_cosine(lists, unit):
    out = []
    for lst in lists:
        vs = [unit[i] for i in lst]
        total, n = 0.0, 0
        for a in range(len(vs)):
            for b in range(a + 1, len(vs)):
                total += 1.0 - float(np.dot(vs[a], vs[b]))
                n += 1
        out.append(total / n)
    return np.array(out)


def jaccard_matrix(x):
    b = (x > 0).astype(np.float64)
    inter = b @ b.T
    size = b.sum(axis=1)
    union = size[:, None] + size[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, 1.0 - inter / union, 0.0)


def cosine_matrix(x):
    x = x.astype(np.float64)
    norm = np.linalg.norm(x, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        unit = np.where(norm[:, None] > 0, x / norm[:, None], 0.0)
    d = 1.0 - unit @ unit.T
    d[norm == 0, :] = 1.0
    d[:, norm == 0] = 1.0
    np.fill_diagonal(d, 0.0)
    return d


def ild_naive_numpy(rec, dmat, chunk_cells=4_000_000):
    """The previous implementation: all pairs of positions gathered from the matrix, in blocks."""
    n, width = rec.shape
    pi, pj = np.triu_indices(width, 1)
    w_pair = np.ones(pi.shape[0])
    out = np.empty(n)
    step = max(1, chunk_cells // pi.shape[0])
    for lo in range(0, n, step):
        c = rec[lo : lo + step]
        out[lo : lo + step] = dmat[c[:, pi], c[:, pj]] @ w_pair
    return out / w_pair.sum()


# --------------------------------------------------------------------------
# baselines: popularity metrics
def popularity_dicts(users, items, head=0.2):
    """Plain Python: users per item, interactions per item, number of users, the head set."""
    pairs = set(zip(users, items, strict=True))
    users_per_item = Counter(i for _, i in pairs)
    inter = Counter(items)
    n_users = len(set(users))
    total = sum(inter.values())
    head_set, acc = set(), 0
    for i, c in sorted(inter.items(), key=lambda kv: (-kv[1], kv[0])):
        acc += c
        head_set.add(i)
        if acc / total >= head * (1 - 1e-12):
            break
    return users_per_item, inter, n_users, head_set


def novelty_loop(lists, users_per_item, n_users):
    # an item absent from training: p = 1 / (n_users + 1), as recmetrics' unseen='smooth'
    unseen = n_users / (n_users + 1)
    return np.array(
        [
            sum(-math.log2((users_per_item[i] or unseen) / n_users) for i in lst) / len(lst)
            for lst in lists
        ]
    )


def arp_loop(lists, inter):
    return np.array([sum(inter[i] for i in lst) / len(lst) for lst in lists])


def lts_loop(lists, head_set):
    return np.array([sum(i not in head_set for i in lst) / len(lst) for lst in lists])


def coverage_loop(lists, n_items):
    seen = set()
    for lst in lists:
        seen.update(lst)
    return len(seen) / n_items


def popularity_arrays(users, items, n_items, head=0.2):
    """NumPy, once: users per item, interactions per item, number of users, tail flags."""
    # distinct (user, item) pairs by a sort (np.unique is several times slower here)
    keys = np.sort(users * n_items + items)
    pairs = keys[np.concatenate([[True], keys[1:] != keys[:-1]])]
    users_per_item = np.bincount(pairs % n_items, minlength=n_items).astype(np.float64)
    inter = np.bincount(items, minlength=n_items).astype(np.float64)
    n_users = float(np.count_nonzero(np.bincount(users)))
    order = np.lexsort((np.arange(n_items), -inter))
    share = np.cumsum(inter[order]) / inter.sum()
    n_head = int(np.searchsorted(share, head * (1 - 1e-12)) + 1)
    tail = np.ones(n_items)
    tail[order[:n_head]] = 0.0
    smoothed = np.where(users_per_item > 0, users_per_item, n_users / (n_users + 1))
    info = -np.log2(smoothed / n_users)
    return info, inter, tail, users_per_item, n_users


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=5_000)
    parser.add_argument("--length", type=int, default=20)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--density", type=float, default=0.15)
    parser.add_argument("--train", type=int, default=1_000_000)
    parser.add_argument("--loop-users", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=str(RESULTS / "beyond.json"))
    args = parser.parse_args()
    n, m, k = args.users, args.items, args.length
    feats, rec, train = make_data(n, m, args.features, args.density, k, args.train, args.seed)
    x = feats.to_numpy()
    sub = rec[: args.loop_users].tolist()  # the loops' input: lists of lists (not timed)
    scale = n / len(sub)
    seconds, agreement, extrapolated = {}, {}, []
    numba_cache = any(
        (Path(recmetrics.__file__).parent / "_kernels" / "__pycache__").glob(
            "_pairs._jaccard_sums*.nbi"
        )
    )

    # 3. the memory floor (one pass over the lists array)
    floor = best_of(rec.max, max(args.repeat, 5))
    seconds["floor: rec.max()"] = floor
    seconds["floor: np.bincount(rec.ravel())"] = best_of(
        lambda: np.bincount(rec.ravel(), minlength=m), max(args.repeat, 5)
    )
    # what every recmetrics call below does first: the lists read into flat arrays
    seconds["recmetrics: reading the lists (internal beyond._read_lists)"] = best_of(
        lambda: beyond._read_lists(rec), args.repeat
    )

    # 1. intra-list diversity
    def ild(distance):
        return beyond.intra_list_diversity(rec, feats, distance=distance, per_user=True)

    for distance in ("jaccard", "cosine"):
        t0 = time.perf_counter()
        ild(distance)
        seconds[f"recmetrics ILD {distance}, first call"] = time.perf_counter() - t0
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache_dir:
        env["NUMBA_CACHE_DIR"] = cache_dir
        run = subprocess.run(
            [sys.executable, "-c", COMPILE_SNIPPET], env=env, capture_output=True, text=True
        )
    if run.returncode == 0:
        seconds["recmetrics ILD jaccard, compile (empty numba cache)"] = float(run.stdout)
    for distance in ("jaccard", "cosine"):
        seconds[f"recmetrics ILD {distance}"] = best_of(lambda d=distance: ild(d), args.repeat)
    ours = {d: ild(d) for d in ("jaccard", "cosine")}

    sets = [frozenset(np.flatnonzero(row).tolist()) for row in x]
    norm = np.linalg.norm(x, axis=1)
    unit = np.zeros(x.shape)
    unit[norm > 0] = x[norm > 0] / norm[norm > 0, None]
    loops = {
        "jaccard": lambda: ild_loop_jaccard(sub, sets),
        "cosine": lambda: ild_loop_cosine(sub, unit),
    }
    for distance, fn in loops.items():
        name = f"plain Python loop ILD {distance}"
        seconds[name] = best_of(fn, args.repeat) * scale
        extrapolated.append(name)
        agreement[f"ILD {distance}: plain loop ({len(sub):,} users)"] = float(
            np.max(np.abs(fn() - ours[distance][: len(sub)]))
        )
    for distance, builder in (("jaccard", jaccard_matrix), ("cosine", cosine_matrix)):
        t0 = time.perf_counter()
        dmat = builder(x)
        t_mat = time.perf_counter() - t0
        t_gather = best_of(lambda dmat=dmat: ild_naive_numpy(rec, dmat), args.repeat)
        seconds[f"naive NumPy ILD {distance}: {m:,}^2 distance matrix"] = t_mat
        seconds[f"naive NumPy ILD {distance}: gather pairs"] = t_gather
        seconds[f"naive NumPy ILD {distance}: total"] = t_mat + t_gather
        agreement[f"ILD {distance}: naive NumPy (all users)"] = float(
            np.max(np.abs(ild_naive_numpy(rec, dmat) - ours[distance]))
        )
        del dmat

    # 2. novelty, ARP, coverage, long-tail share
    users, items = train["user"].to_numpy(), train["item"].to_numpy()
    info, inter, tail, upi, n_train_users = popularity_arrays(users, items, m)
    seconds["one pass: popularity arrays from the training frame"] = best_of(
        lambda: popularity_arrays(users, items, m), args.repeat
    )
    by_users = pd.Series(upi, index=np.arange(m))
    by_inter = pd.Series(inter, index=np.arange(m))
    metrics = {
        "novelty": (
            lambda: beyond.novelty(rec, train, per_user=True),
            lambda: beyond.novelty(rec, by_users, n_users=n_train_users, per_user=True),
            lambda: info[rec].mean(axis=1),
        ),
        "ARP": (
            lambda: beyond.average_popularity(rec, train, per_user=True),
            lambda: beyond.average_popularity(rec, by_inter, n_users=len(train), per_user=True),
            lambda: inter[rec].mean(axis=1),
        ),
        "coverage": (
            lambda: beyond.coverage(rec, n_items=m),
            None,
            lambda: np.count_nonzero(np.bincount(rec.ravel(), minlength=m)) / m,
        ),
        "long-tail share": (
            lambda: beyond.long_tail_share(rec, train, per_user=True),
            lambda: beyond.long_tail_share(rec, by_inter, n_users=len(train), per_user=True),
            lambda: tail[rec].mean(axis=1),
        ),
    }
    values = {}
    for name, (from_frame, from_counts, one_pass) in metrics.items():
        from_frame()  # warm-up
        seconds[f"recmetrics {name}"] = best_of(from_frame, args.repeat)
        if from_counts is not None:
            seconds[f"recmetrics {name} (counts Series)"] = best_of(from_counts, args.repeat)
            agreement[f"{name}: from counts vs from frame"] = float(
                np.max(np.abs(from_counts() - from_frame()))
            )
        seconds[f"one pass {name}"] = best_of(one_pass, max(args.repeat, 5))
        values[name] = from_frame()
        agreement[f"{name}: one pass (all users)"] = float(
            np.max(np.abs(one_pass() - values[name]))
        )
    u_list, i_list = users.tolist(), items.tolist()
    t0 = time.perf_counter()
    upi_d, inter_d, n_u, head_set = popularity_dicts(u_list, i_list)
    prep_name = "plain loop: popularity dicts from the training pairs (once)"
    seconds[prep_name] = time.perf_counter() - t0
    loops = {
        "novelty": lambda: novelty_loop(sub, upi_d, n_u),
        "ARP": lambda: arp_loop(sub, inter_d),
        "coverage": lambda: coverage_loop(sub, m),
        "long-tail share": lambda: lts_loop(sub, head_set),
    }
    for name, fn in loops.items():
        label = f"plain Python loop {name}"
        seconds[label] = best_of(fn, args.repeat) * scale
        seconds[f"{label} + popularity dicts"] = seconds[label] + seconds[prep_name]
        extrapolated += [label, f"{label} + popularity dicts"]
        if name != "coverage":
            agreement[f"{name}: plain loop ({len(sub):,} users)"] = float(
                np.max(np.abs(fn() - values[name][: len(sub)]))
            )
    agreement[f"coverage: plain loop over all {n:,} lists"] = abs(
        coverage_loop(rec.tolist(), m) - values["coverage"]
    )

    # ratios
    ratios = {"x floor (rec.max())": {}, "x recmetrics": {}, "recmetrics / one pass": {}}
    for name, t in seconds.items():
        if name.startswith("recmetrics"):
            ratios["x floor (rec.max())"][name] = t / floor
    for distance in ("jaccard", "cosine"):
        ref = seconds[f"recmetrics ILD {distance}"]
        for name, t in seconds.items():
            if distance in name and not name.startswith("recmetrics") and "ILD" in name:
                ratios["x recmetrics"][name] = t / ref
    prep_arr = seconds["one pass: popularity arrays from the training frame"]
    for name in metrics:
        ref = seconds[f"recmetrics {name}"]
        for label in (f"plain Python loop {name}", f"plain Python loop {name} + popularity dicts"):
            ratios["x recmetrics"][label] = seconds[label] / ref
        ratios["x recmetrics"][f"one pass {name}"] = seconds[f"one pass {name}"] / ref
        ratios["recmetrics / one pass"][f"recmetrics {name}"] = ref / seconds[f"one pass {name}"]
        ratios["recmetrics / one pass"][f"recmetrics {name} / (one pass + popularity arrays)"] = (
            ref / (seconds[f"one pass {name}"] + prep_arr)
        )
        if f"recmetrics {name} (counts Series)" in seconds:
            ratios["recmetrics / one pass"][f"recmetrics {name} (counts Series)"] = (
                seconds[f"recmetrics {name} (counts Series)"] / seconds[f"one pass {name}"]
            )

    # table
    def line(name, t, ratio=None):
        r = f"{ratio:10.3g}" if ratio is not None else " " * 10
        fl = f"{t / floor:9.0f}" if name.startswith("recmetrics") else " " * 9
        star = " *" if name in extrapolated else ""
        print(f"  {name:60s} {t:9.4f} {r} {fl}{star}")

    print(
        f"{n:,} users x top-{k} over {m:,} items; {args.features} binary features "
        f"(density {args.density}); {len(train):,} training interactions; best of {args.repeat}"
    )
    print(f"  {'':60s} {'seconds':>9s} {'x recm.':>10s} {'x floor':>9s}")
    print("3. memory floor: one pass over the lists array")
    for name in (
        "floor: rec.max()",
        "floor: np.bincount(rec.ravel())",
        "recmetrics: reading the lists (internal beyond._read_lists)",
    ):
        line(name, seconds[name])
    print("1. intra-list diversity (per-user values)")
    for name, t in seconds.items():
        if "ILD" in name:
            line(name, t, ratios["x recmetrics"].get(name))
    target = seconds["recmetrics ILD jaccard"]
    print(f"  issue target <= 1 s (jaccard, warm): {'met' if target <= 1 else 'NOT met'}")
    print("2. novelty, ARP, coverage, long-tail share (per-user values; coverage: one number)")
    for name, t in seconds.items():
        if "ILD" in name or name.startswith(("floor", "recmetrics:")):
            continue
        line(name, t, ratios["x recmetrics"].get(name))
    print("  recmetrics / one pass (gather + mean per row, popularity arrays precomputed):")
    for name, r in ratios["recmetrics / one pass"].items():
        print(f"    {name:70s} {r:7.3g}")
    print(
        f"  * plain Python loops: measured on the first {len(sub):,} users, extrapolated "
        f"linearly (x {scale:g})"
    )
    print("  x recm.: time / recmetrics' (same metric and distance); x floor: time / rec.max()")
    print(f"  numba on-disk cache of the Jaccard kernel present before this run: {numba_cache}")
    print("  not run: " + "; ".join(f"{k}: {v}" for k, v in NOT_RUN.items()))
    print("agreement with recmetrics, max |difference| per user:")
    for name, v in agreement.items():
        print(f"  {name:60s} {v:.2e}  {'ok' if v < 1e-9 else 'DIFFERS'}")

    result = {
        "benchmark": "beyond",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {
            "processor": cpu_model(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "pandas": pd.__version__,
            "numba": numba.__version__,
            "load average": os.getloadavg(),
        },
        "users": n,
        "items": m,
        "length": k,
        "features": args.features,
        "density": args.density,
        "training interactions": len(train),
        "repeat": args.repeat,
        "seed": args.seed,
        "loop users (extrapolated linearly)": len(sub),
        "extrapolated": extrapolated,
        "numba cache present before the run": numba_cache,
        "seconds": seconds,
        "ratios": ratios,
        "agreement": agreement,
        "not run": NOT_RUN,
    }
    Path(args.save).parent.mkdir(parents=True, exist_ok=True)
    Path(args.save).write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {args.save}")


if __name__ == "__main__":
    main()
