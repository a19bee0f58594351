"""Benchmark: the measures of incomplete judgments, batch and through the CLI, against the peers.

Two cases in one run (issue 26, section Performance):

1. **batch**: ``n_queries`` queries (default 10,000) x 100 candidates in the
   long format (``truth`` and ``predictions`` data frames), scores rounded to
   two decimals (so there are ties), graded qrels (0-3) that judge about half
   of the candidates (most of them non-relevant) and two documents outside
   the run (one relevant), every other candidate unjudged. Timed:
   :func:`recmetrics.evaluate` with ``bpref``, ``infap``, ``err@20``,
   ``RBP(p=0.8)`` and ``judged@10`` (``ties='trec_eval'``); pytrec_eval
   (``bpref``, ``infAP``; trec_eval has no ERR nor Judged, and pytrec_eval's
   trec_eval 9.0.8 no RBP); ranx in this process (``bpref``, ``rbp.80``;
   compiled by numba in a warm-up; ranx has no ERR, infAP or Judged);
   ir_measures (``Judged@10``, ``RBP(p=0.8)``, ``ERR@20``, each measure on
   its own so that one that fails, ERR@20 if perl's gdeval cannot run, is
   skipped and recorded). Every peer's time includes its own input conversion
   from the data frames. Each is the best of ``--repeat`` runs. The values
   are compared where the definitions agree: with pytrec_eval on the timed
   (tied) data, under trec_eval's tie order (``ties='trec_eval'``: decreasing
   document id); with ranx and ir_measures on a tie-free copy of the first
   1,000 queries (their order inside a tie is not trec_eval's).
2. **CLI**: a TREC run of ``n_cli`` queries (default 2,000) x 1,000
   documents and its qrels are written once (not timed), then
   ``recmetrics evaluate qrels run -m all_trec --convention trec_eval`` runs
   end to end in a subprocess, and so does a script that parses the same two
   files with pytrec_eval and evaluates every measure of ``all_trec`` that
   pytrec_eval supports (all but ``unj``, ``rbp`` and ``rbp_resid``), one
   after the other in the same minute. Wall time and peak memory (maximum
   resident set size) come from ``/usr/bin/time -v``; both are the best of
   ``--repeat-cli`` runs, and so is the CPU time (user + system), which a
   loaded machine stretches less than the wall time.

The machine the results were produced on is shared (2 cores, several jobs at
once): the load average (:func:`os.getloadavg`) before and after every
timing is saved with it, and timings under such load vary by 1.5-2x from run
to run; the ratios measured in one run are steadier than the seconds.
Not part of the test suite (no timing assertions); results are saved to
``book/data/benchmarks/trec_measures.json`` with the date, the processor
model and the versions (``--quick``: small sizes, nothing saved).

    .venv/bin/python benchmarks/bench_trec_measures.py [--quick]
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _timing import RESULTS, cpu_model  # noqa: E402

import recmetrics as rm  # noqa: E402

OURS = ["bpref", "infap", "err@20", "RBP(p=0.8)", "judged@10"]
N_CANDIDATES = 100
PYTREC = {"bpref": "bpref", "infAP": "infap"}  # pytrec_eval measure -> our column
RANX = {"bpref": "bpref", "rbp.80": "RBP(p=0.8)"}
IR_MEASURES = {"Judged@10": "judged@10", "RBP(p=0.8)": "RBP(p=0.8)", "ERR@20": "err@20"}
TIME = "/usr/bin/time"


def load():
    """The 1-, 5- and 15-minute load averages."""
    return [round(x, 2) for x in os.getloadavg()]


def best_of(fn, repeat):
    """(shortest time, last output, load before, load after) of ``repeat`` calls."""
    before, times, out = load(), [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out, before, load()


# --------------------------------------------------------------------------
# batch case
def make_batch(n_queries, seed=0, ties=True):
    """Truth (query, doc, grade) and predictions (query, doc, score) data frames."""
    rng = np.random.default_rng(seed)
    width = len(str(n_queries - 1))
    # numeric query ids: gdeval (ir_measures' ERR) reads no other
    queries = np.array([f"{i:0{width}d}" for i in range(n_queries)])
    docs = np.array([f"d{j:03d}" for j in range(N_CANDIDATES)])
    q = np.repeat(queries, N_CANDIDATES)
    d = np.tile(docs, n_queries)
    score = rng.random(q.size)
    if ties:
        score = np.round(score, 2)
    pred = pd.DataFrame({"user": q, "item": d, "score": score})
    judged = rng.random(q.size) < 0.5
    grade = np.where(rng.random(q.size) < 0.7, 0, rng.integers(1, 4, q.size))
    extra = pd.DataFrame(
        {
            "user": np.repeat(queries, 2),
            "item": np.tile(["x0", "x1"], n_queries),  # outside the run
            "grade": np.tile([1, 0], n_queries),
        }
    )
    truth = pd.concat(
        [pd.DataFrame({"user": q[judged], "item": d[judged], "grade": grade[judged]}), extra],
        ignore_index=True,
    )
    return truth, pred


def run_recmetrics(truth, pred, metrics=OURS):
    return rm.evaluate(
        truth, pred, metrics, relevance="grade", ties="trec_eval", per_user=True
    ).sort_index()


def frames_to_dicts(truth, pred):
    """``{query: {doc: grade}}`` and ``{query: {doc: score}}`` (pytrec_eval's input)."""
    qrels, run = {}, {}
    columns = (truth["user"].tolist(), truth["item"].tolist(), truth["grade"].tolist())
    for u, i, g in zip(*columns, strict=True):
        qrels.setdefault(u, {})[i] = int(g)
    columns = (pred["user"].tolist(), pred["item"].tolist(), pred["score"].tolist())
    for u, i, s in zip(*columns, strict=True):
        run.setdefault(u, {})[i] = float(s)
    return qrels, run


def run_pytrec_eval(truth, pred):
    import pytrec_eval

    qrels, run = frames_to_dicts(truth, pred)
    res = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC)).evaluate(run)
    return pd.DataFrame({ours: {u: v[m] for u, v in res.items()} for m, ours in PYTREC.items()})


def run_ranx(truth, pred):
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_df(
        truth.rename(columns={"user": "q_id", "item": "doc_id", "grade": "score"}).astype(
            {"q_id": object, "doc_id": object, "score": "int64"}
        )
    )
    run = Run.from_df(
        pred.rename(columns={"user": "q_id", "item": "doc_id"}).astype(
            {"q_id": object, "doc_id": object}
        )
    )
    evaluate(qrels, run, list(RANX), return_mean=False)
    return pd.DataFrame({ours: pd.Series(run.scores[m]) for m, ours in RANX.items()}).sort_index()


def run_ir_measures(truth, pred, measure):
    import ir_measures

    qrels = truth.rename(columns={"user": "query_id", "item": "doc_id", "grade": "relevance"})
    run = pred.rename(columns={"user": "query_id", "item": "doc_id"})
    m = ir_measures.parse_measure(measure)
    return pd.Series({r.query_id: r.value for r in ir_measures.iter_calc([m], qrels, run)})


def max_diff(ours, theirs):
    """Largest |difference| over the queries both have, and how many they share."""
    both = ours.index.intersection(theirs.index)
    return float(np.max(np.abs(ours.loc[both].to_numpy() - theirs.loc[both].to_numpy()))), len(both)


def batch_case(n_queries, repeat, ours_repeat):
    truth, pred = make_batch(n_queries)
    small_t, small_p = make_batch(50, seed=1)
    # warm-ups: imports, numba compilation (ranx), not timed
    run_recmetrics(small_t, small_p)
    run_pytrec_eval(small_t, small_p)
    run_ranx(small_t, small_p)
    ir_ok, ir_errors = [], {}
    for m in IR_MEASURES:
        try:
            run_ir_measures(small_t, small_p, m)
            ir_ok.append(m)
        except Exception as exc:  # noqa: BLE001 - a peer that cannot run is recorded
            ir_errors[m] = f"{type(exc).__name__}: {str(exc)[:300]}"

    rows = {}
    t, ours, b, a = best_of(lambda: run_recmetrics(truth, pred), ours_repeat)
    rows["recmetrics.evaluate (5 measures)"] = {"seconds": t, "load_before": b, "load_after": a}
    t_rm = t
    # the ranking alone (reading the frames, sorting, judgments), then one
    # measure at a time: what dominates
    t, _, b, a = best_of(
        lambda: rm.from_frames(truth, pred, relevance="grade", ties="trec_eval"), repeat
    )
    rows["rm.from_frames alone (the ranking, no measure)"] = {
        "seconds": t,
        "load_before": b,
        "load_after": a,
    }
    for m in OURS:
        t, _, b, a = best_of(lambda m=m: run_recmetrics(truth, pred, [m]), repeat)
        rows[f"recmetrics.evaluate ({m} alone)"] = {
            "seconds": t,
            "load_before": b,
            "load_after": a,
        }
    t, pt, b, a = best_of(lambda: run_pytrec_eval(truth, pred), repeat)
    rows["pytrec_eval (bpref, infAP; incl. dict conversion)"] = {
        "seconds": t,
        "load_before": b,
        "load_after": a,
    }
    t, rx, b, a = best_of(lambda: run_ranx(truth, pred), repeat)
    rows["ranx (bpref, rbp.80; incl. Qrels/Run conversion)"] = {
        "seconds": t,
        "load_before": b,
        "load_after": a,
    }
    for m in ir_ok:
        t, _, b, a = best_of(lambda m=m: run_ir_measures(truth, pred, m), repeat)
        rows[f"ir_measures ({m}; incl. conversion)"] = {
            "seconds": t,
            "load_before": b,
            "load_after": a,
        }
    for r in rows.values():
        r["x_recmetrics"] = r["seconds"] / t_rm

    agreement = {}
    for m, col in PYTREC.items():
        d, n = max_diff(ours[col], pt[col])
        agreement[f"max |{col} - pytrec_eval {m}| (tied scores, ties='trec_eval')"] = d
    # ranx and ir_measures: on a tie-free copy (their order inside a tie differs)
    n_free = min(1000, n_queries)
    ft, fp = make_batch(n_free, seed=2, ties=False)
    ours_free = run_recmetrics(ft, fp)
    rx_free = run_ranx(ft, fp)
    # ranx's rbp sums the grades (gain='linear'); ours defaults to binary gain.
    # Through rm.rbp: rm.evaluate does not pass gain= on to rbp (it ignores it)
    ranking = rm.from_frames(ft, fp, relevance="grade", ties="trec_eval")
    ours_free["RBP(p=0.8)"] = rm.rbp(ranking, p=0.8, gain="linear", per_user=True).to_numpy()
    for m, col in RANX.items():
        d, n = max_diff(ours_free[col], rx_free[col])
        agreement[f"max |{col} - ranx {m}| (no ties, {n} queries)"] = d
    for m in ir_ok:
        col = IR_MEASURES[m]
        if col == "RBP(p=0.8)":  # cwl_eval's RBP is binary (rel=1)
            continue
        d, n = max_diff(ours_free[col], run_ir_measures(ft, fp, m))
        agreement[f"max |{col} - ir_measures {m}| (no ties, {n} queries)"] = d
    means = {c: float(ours[c].mean()) for c in ours.columns}
    return rows, agreement, ir_errors, means


# --------------------------------------------------------------------------
# CLI case
PYTREC_SCRIPT = """
import math, sys, pytrec_eval
from recmetrics.cli._trec_groups import TREC_GROUPS
measures = set(TREC_GROUPS["all_trec"]) & pytrec_eval.supported_measures
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
res = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
names = sorted(next(iter(res.values())))
counts = ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret")  # summed, as trec_eval
for m in names:
    total = sum(v[m] for v in res.values())
    mean = total / len(res)
    # gm_*: pytrec_eval returns log values per query, trec_eval prints exp(mean)
    print(m, total if m in counts else math.exp(mean) if m.startswith("gm_") else mean)
"""


def write_trec(n_queries, n_docs, directory, seed=0):
    """A TREC run (n_docs per query, tied scores) and qrels (about 10 % judged, 3 unretrieved)."""
    rng = np.random.default_rng(seed)
    width = len(str(n_queries - 1))
    q = np.repeat([f"{i:0{width}d}" for i in range(n_queries)], n_docs)
    docs = np.array([f"D{j:05d}" for j in range(2 * n_docs)])
    pick = np.concatenate([rng.choice(2 * n_docs, n_docs, replace=False) for _ in range(n_queries)])
    d = docs[pick]
    score = np.round(rng.random(q.size) * 100, 2)
    run = pd.DataFrame({"q": q, "Q0": "Q0", "d": d, "rank": 0, "score": score, "tag": "bench"})
    run["rank"] = run.groupby("q")["score"].rank(ascending=False, method="first").astype(int)
    judged = rng.random(q.size) < 0.1
    grade = np.where(rng.random(q.size) < 0.7, 0, rng.integers(1, 4, q.size))
    qrels = pd.DataFrame({"q": q[judged], "it": 0, "d": d[judged], "g": grade[judged]})
    # unretrieved judged documents: X0 relevant, so that every query has one
    extra = pd.DataFrame(
        {
            "q": np.repeat(np.unique(q), 3),
            "it": 0,
            "d": np.tile(["X0", "X1", "X2"], n_queries),
            "g": np.tile([1, 0, 2], n_queries),
        }
    )
    qrels = pd.concat([qrels, extra]).sort_values(["q", "d"])
    qp, rp = Path(directory) / "qrels.txt", Path(directory) / "run.txt"
    qrels.to_csv(qp, sep=" ", header=False, index=False)
    run.to_csv(rp, sep=" ", header=False, index=False)
    return qp, rp, len(qrels), len(run)


def timed_subprocess(cmd):
    """(wall seconds, peak RSS in MiB, CPU seconds, stdout, stderr) of ``cmd`` under time -v.

    The CPU time (user + system, all threads) stretches far less than the
    wall time when other jobs share the cores.
    """
    t0 = time.perf_counter()
    p = subprocess.run([TIME, "-v", *cmd], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    cpu = sum(
        float(m.group(1))
        for m in re.finditer(r"(?:User|System) time \(seconds\): ([\d.]+)", p.stderr)
    )
    note = p.stderr.split("\tCommand being timed")[0].strip()
    return wall, int(peak.group(1)) / 1024 if peak else None, cpu, p.stdout, note


def cli_case(n_queries, n_docs, repeat):
    cli = str(Path(sys.executable).with_name("recmetrics"))
    with tempfile.TemporaryDirectory() as d:
        qp, rp, n_qrels, n_run = write_trec(n_queries, n_docs, d)
        script = Path(d) / "pytrec_all_trec.py"
        script.write_text(PYTREC_SCRIPT)
        commands = {
            "recmetrics CLI -m all_trec --convention trec_eval": [
                cli, "evaluate", str(qp), str(rp), "-m", "all_trec", "--convention", "trec_eval",
            ],
            "pytrec_eval parse + evaluate (all_trec minus unj, rbp, rbp_resid)": [
                sys.executable, str(script), str(qp), str(rp),
            ],
        }  # fmt: skip
        rows, outputs = {}, {}
        for _ in range(repeat):  # alternate, so that both see the same load
            for name, cmd in commands.items():
                before = load()
                wall, peak, cpu, out, note = timed_subprocess(cmd)
                after = load()
                r = rows.setdefault(name, {"seconds": np.inf, "runs": []})
                r["runs"].append(
                    {"seconds": wall, "cpu_seconds": cpu, "peak_rss_mib": peak,
                     "load_before": before, "load_after": after}
                )  # fmt: skip
                if wall < r["seconds"]:
                    r.update(seconds=wall, peak_rss_mib=peak)
                r["cpu_seconds"] = min(r.get("cpu_seconds", np.inf), cpu)
                outputs[name] = out
                if note:
                    r["stderr"] = note
    t_rm = rows["recmetrics CLI -m all_trec --convention trec_eval"]["seconds"]
    for r in rows.values():
        r["x_recmetrics"] = r["seconds"] / t_rm
    # agreement of the means of the measures both print
    ours = {}
    for line in outputs["recmetrics CLI -m all_trec --convention trec_eval"].splitlines():
        f = line.split()  # the default table: measure, value
        if len(f) == 2 and f[0] != "measure":
            ours[f[0]] = f[1]
    theirs = dict(
        line.split()
        for line in outputs[
            "pytrec_eval parse + evaluate (all_trec minus unj, rbp, rbp_resid)"
        ].splitlines()
    )
    diffs = {}
    for m, v in theirs.items():
        if m in ours and m not in ("runid", "relstring"):
            try:
                diffs[m] = abs(float(ours[m]) - float(v))
            except ValueError:
                pass
    agreement = {
        "measures compared": len(diffs),
        "max |mean - pytrec_eval mean| (CLI prints 4 decimals)": max(diffs.values())
        if diffs
        else None,
        "worst measure": max(diffs, key=diffs.get) if diffs else None,
    }
    return rows, agreement, n_qrels, n_run


def version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, nothing saved")
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--cli-queries", type=int, default=2_000)
    parser.add_argument("--cli-docs", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repeat-ours", type=int, default=5)
    parser.add_argument("--repeat-cli", type=int, default=2)
    parser.add_argument("--save", default=str(RESULTS / "trec_measures.json"))
    args = parser.parse_args()
    if args.quick:
        args.queries, args.cli_queries, args.cli_docs = 500, 100, 200
        args.repeat, args.repeat_ours, args.repeat_cli = 1, 1, 1
    if not shutil.which(TIME):
        raise SystemExit(f"{TIME} is needed for the CLI case (apt-get install time)")

    print(f"on {cpu_model()}, {os.cpu_count()} cpus, load {load()}", flush=True)
    b_rows, b_agree, ir_errors, means = batch_case(args.queries, args.repeat, args.repeat_ours)
    print(f"\nbatch: {args.queries} queries x {N_CANDIDATES} candidates")
    print(f"{'implementation':66s} {'seconds':>8s} {'x recmetrics':>13s}  load before/after")
    for name, r in b_rows.items():
        print(
            f"{name:66s} {r['seconds']:8.3f} {r['x_recmetrics']:13.2f}  "
            f"{r['load_before'][0]:.1f}/{r['load_after'][0]:.1f}"
        )
    for name, v in b_agree.items():
        print(f"  {name:78s} {v:.2e}")
    for m, e in ir_errors.items():
        print(f"  ir_measures {m} skipped: {e.splitlines()[0]}")

    c_rows, c_agree, n_qrels, n_run = cli_case(args.cli_queries, args.cli_docs, args.repeat_cli)
    print(
        f"\nCLI: {args.cli_queries} queries x {args.cli_docs} documents "
        f"({n_run:,} run lines, {n_qrels:,} qrels lines)"
    )
    print(f"{'command':66s} {'seconds':>8s} {'x recm.':>8s} {'peak MiB':>9s} {'CPU s':>7s}")
    for name, r in c_rows.items():
        print(
            f"{name:66s} {r['seconds']:8.2f} {r['x_recmetrics']:8.2f} "
            f"{r['peak_rss_mib']:9.0f} {r['cpu_seconds']:7.2f}"
        )
    for name, v in c_agree.items():
        print(f"  {name}: {v}")

    result = {
        "benchmark": "bench_trec_measures.py",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "processor": cpu_model(),
        "cpus": os.cpu_count(),
        "note": "shared, loaded machine: timings vary 1.5-2x between runs; see load averages",
        "versions": {
            "python": sys.version.split()[0],
            "recmetrics": rm.__version__,
            "pytrec_eval": version("pytrec-eval-terrier") or version("pytrec_eval"),
            "ranx": version("ranx"),
            "ir_measures": version("ir_measures") or version("ir-measures"),
            "numpy": np.__version__,
            "pandas": pd.__version__,
        },
        "batch": {
            "queries": args.queries,
            "candidates": N_CANDIDATES,
            "measures": OURS,
            "repeat": args.repeat,
            "repeat_recmetrics": args.repeat_ours,
            "rows": b_rows,
            "agreement": b_agree,
            "ir_measures_skipped": ir_errors,
            "recmetrics_means": means,
        },
        "cli": {
            "queries": args.cli_queries,
            "documents_per_query": args.cli_docs,
            "run_lines": n_run,
            "qrels_lines": n_qrels,
            "repeat": args.repeat_cli,
            "rows": c_rows,
            "agreement": c_agree,
        },
    }
    if not args.quick:
        Path(args.save).parent.mkdir(parents=True, exist_ok=True)
        Path(args.save).write_text(json.dumps(result, indent=2) + "\n")
        print(f"saved {args.save}")


if __name__ == "__main__":
    main()
