"""Benchmark: ``recmetrics evaluate`` on TREC files, end to end, against trec_eval.

Issue 30, TREC files: a run of ``--queries`` queries (default 2,000) x
``--docs`` documents (default 1,000; 2 million lines, about 67 MB) and its
qrels (50 judged documents per query, 40 of them retrieved, grades -1 to 2,
mostly 0) are written once from a seeded generator (scores rounded to two
decimals, so that there are ties, including ``-0.0000``). Then, alternating
in the same minutes, each ``--repeat`` times, in a fresh process:

* ``recmetrics evaluate qrels run -m map P_10 ndcg_cut_10 recip_rank
  --convention trec_eval`` (``python -m recmetrics``; file to printed numbers);
* pytrec_eval, the stand-in for trec_eval's C code: a ``python -c`` script
  that parses both files with ``pytrec_eval.parse_qrel``/``parse_run`` and
  evaluates the same four measures (its bundled trec_eval 9.0.x);
* the trec_eval binary itself, if ``--trec-eval PATH`` is given (build it
  from https://github.com/usnistgov/trec_eval with ``make``; its version,
  ``trec_eval -v``, is recorded). Its numbers are shown, not compared: on
  the default run its per-query P_10 values are pytrec_eval's, but their
  mean is 267/20,000, halfway between two printed values, and the binary's
  sequential sum (0.01335000000000005) prints 0.0134 where the mean of the
  per-query values in NumPy (0.013349999999999999) prints 0.0133.

Wall time and peak memory (maximum resident set size) come from
``/usr/bin/time -v``; the load average is taken before each run. The
numbers printed by recmetrics are checked against pytrec_eval's (rounded
to the 4 digits both print). The package's byte code is written first, as
an installation does (with ``PYTHONDONTWRITEBYTECODE`` set, every run would
compile its sources again), and the first recmetrics run is a warm-up
(numba loads or compiles its kernels), not counted. Run it from a worktree
with ``PYTHONPATH=$PWD`` to time that tree; ``--before DIR`` times another
(``git archive main | tar -x -C DIR``) in the same minutes. Not part of the test
suite; prints a table and writes the results to
``book/data/benchmarks/trec_files.json`` (``--json FILE`` elsewhere), read by
the scale chapter. ``import recmetrics only`` times the import of the
package's command line alone: the floor of any command of the package.

    .venv/bin/python benchmarks/bench_trec_files.py [--quick] [--trec-eval /tmp/te/trec_eval]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import RESULTS, cpu_model  # noqa: E402

MEASURES = ["map", "P_10", "ndcg_cut_10", "recip_rank"]
BYTECODE = (
    "import compileall, os, recmetrics; "
    "compileall.compile_dir(os.path.dirname(recmetrics.__file__), quiet=1)"
)
PEER = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrel = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
measures = sys.argv[3:]
per_query = pytrec_eval.RelevanceEvaluator(qrel, set(measures)).evaluate(run)
for m in measures:
    v = pytrec_eval.compute_aggregated_measure(m, [r[m] for r in per_query.values()])
    print(f"{m} {v:.4f}")
"""


def write_files(folder, n_queries, n_docs, seed=30):
    """A TREC run (scores with ties) and its qrels, from a seeded generator."""
    rng = np.random.default_rng(seed)
    folder = Path(folder)
    with open(folder / "run.txt", "w") as run, open(folder / "qrels.txt", "w") as qrels:
        for q in range(n_queries):
            docs = rng.choice(50_000, n_docs, replace=False)
            scores = np.round(rng.normal(size=n_docs), 2)
            order = np.argsort(-scores, kind="stable")
            run.write(
                "".join(
                    f"q{q:04d} Q0 d{docs[j]:05d} {r + 1} {scores[j]:.4f} bench\n"
                    for r, j in enumerate(order)
                )
            )
            judged = np.concatenate(
                [
                    docs[rng.choice(n_docs, min(40, n_docs), replace=False)],
                    50_000 + rng.choice(10_000, 10, replace=False),
                ]
            )
            grades = rng.choice([-1, 0, 0, 0, 1, 2], judged.shape[0])
            qrels.write(
                "".join(f"q{q:04d} 0 d{d:05d} {g}\n" for d, g in zip(judged, grades, strict=True))
            )
    return folder / "qrels.txt", folder / "run.txt"


def timed(command, env=None, cwd=None):
    """(wall s, CPU s (user + system), peak MB, standard output, load before) of a process."""
    load = os.getloadavg()[0]
    res = subprocess.run(
        ["/usr/bin/time", "-v", *command],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=cwd,  # not the checkout: python -m would import recmetrics from there
    )
    if res.returncode != 0:
        raise RuntimeError(f"{command[:3]} failed: {res.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", res.stderr)
    hours, minutes, seconds = wall.groups()
    seconds = int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", res.stderr).group(1))
    cpu = sum(
        float(re.search(rf"{kind} time \(seconds\): ([\d.]+)", res.stderr).group(1))
        for kind in ("User", "System")
    )
    return seconds, cpu, rss / 1024, res.stdout, load


def values(text):
    """Each measure's value, from the printed lines (recmetrics' table, trec_eval's lines)."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in MEASURES:
            out[parts[0]] = parts[-1]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="200 queries, 1 repeat")
    parser.add_argument("--trec-eval", help="path of a trec_eval binary to time too")
    parser.add_argument("--files", help="a folder to keep the files in (default: temporary)")
    parser.add_argument(
        "--json",
        default=str(RESULTS / "trec_files.json"),
        help="write the results to this file (default: the book's benchmark data)",
    )
    parser.add_argument(
        "--before",
        help="a source tree of recmetrics (e.g. from git archive) to time too, as 'before'",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.queries, args.repeat = 200, 1
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.files or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        qrels, run = write_files(folder, args.queries, args.docs)
        size = run.stat().st_size / 1e6
        print(f"run: {args.queries} x {args.docs} lines, {size:.1f} MB; {cpu_model()}")
        commands = {
            "recmetrics": [
                python,
                "-m",
                "recmetrics",
                "evaluate",
                str(qrels),
                str(run),
                "-m",
                *MEASURES,
                "--convention",
                "trec_eval",
            ],  # fmt: skip
            "pytrec_eval": [python, "-c", PEER, str(qrels), str(run), *MEASURES],
            # the floor of any Python command that imports the package
            "import recmetrics only": [python, "-c", "import recmetrics.cli"],
        }
        if args.trec_eval:
            commands["trec_eval binary"] = [args.trec_eval] + [
                a for m in MEASURES for a in ("-m", m.replace("_10", ".10"))
            ] + [str(qrels), str(run)]  # fmt: skip
        envs = {}
        if args.before:
            commands["recmetrics before"] = commands["recmetrics"]
            envs["recmetrics before"] = dict(os.environ, PYTHONPATH=args.before)
        for name in ("recmetrics", "recmetrics before"):
            if name in commands:
                # as installed: byte code written (PYTHONDONTWRITEBYTECODE would have every
                # run compile the package's sources), numba's kernels loaded or compiled
                subprocess.run([python, "-c", BYTECODE], env=envs.get(name), cwd=folder, check=True)
                timed(commands[name], envs.get(name), folder)
        results = {name: [] for name in commands}
        printed = {}
        for _ in range(args.repeat):
            for name, command in commands.items():
                seconds, cpu, mb, out, load = timed(command, envs.get(name), folder)
                results[name].append({"seconds": seconds, "cpu": cpu, "peak_mb": mb, "load": load})
                printed[name] = values(out)
    print(f"{'':18} {'best s':>8} {'median s':>9} {'CPU s':>6} {'peak MB':>8}  load per run")
    for name, runs in results.items():
        s = [r["seconds"] for r in runs]
        print(
            f"{name:18} {min(s):8.2f} {np.median(s):9.2f} {min(r['cpu'] for r in runs):6.2f} "
            f"{max(r['peak_mb'] for r in runs):8.0f}  " + " ".join(f"{r['load']:.1f}" for r in runs)
        )
    printed.pop("import recmetrics only", None)
    ours, peer = printed["recmetrics"], printed["pytrec_eval"]
    same = all(f"{float(ours[m]):.4f}" == f"{float(peer[m]):.4f}" for m in MEASURES)
    print(f"recmetrics prints pytrec_eval's numbers: {same} ({ours})")
    if args.trec_eval:
        print(f"trec_eval binary: {printed['trec_eval binary']}")
    if args.json:
        if args.trec_eval:
            version = subprocess.run([args.trec_eval, "-v"], capture_output=True, text=True)
            trec_eval_version = (version.stdout + version.stderr).strip()
        else:
            trec_eval_version = None
        report = {"cpu": cpu_model(), "cpus": os.cpu_count(),
                  "trec_eval_version": trec_eval_version,
                  "date": datetime.now(UTC).isoformat(timespec="seconds"),
                  "repeat": args.repeat, "measures": MEASURES,
                  "queries": args.queries, "docs": args.docs,
                  "run_mb": size, "results": results, "printed": printed}  # fmt: skip
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
