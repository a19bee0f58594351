"""Every convention preset against its library, run through the library's own API.

For each preset of :mod:`recmetrics.conventions`, ``rm.evaluate(...,
convention=name)`` is compared, metric by metric, with the library itself on
seeded random inputs:

* ``binary``: grades 0/1, distinct scores;
* ``graded``: grades 0..3, distinct scores;
* ``ties``: grades 0..3, scores with many ties.

Every case holds users without a relevant item (judged, grade 0 only),
recommendation lists shorter than ``k`` (``k`` beyond the list: ``@20`` on
lists of 1 to 25 items, or on 15 items for the score matrices), users of the
truth without predictions and users with predictions but no truth.

Where the libraries run:

* in this environment: trec_eval (through pytrec_eval), scikit-learn and
  Spark MLlib's ``RankingMetrics`` (pyspark, a local session) in process; ranx
  in a subprocess of this Python with numba's JIT off
  (``tests/peer_env/run_peers.py``);
* in a second environment, built by the fixture ``peer_python`` from the exact
  pins of ``tests/peer_env/requirements.txt`` (pandas < 3): RecTools, LensKit,
  Microsoft Recommenders, torchmetrics and RecBole, through
  ``tests/peer_env/run_peers.py``, fed with JSON files. The environment is
  built once in ``~/.cache/recmetrics/peers-venv`` (``$XDG_CACHE_HOME`` is
  honoured; ``$RECMETRICS_PEERS_VENV`` names another folder), outside the
  repository so that the book build does not scan it, and reused while the
  requirements file and the Python version are unchanged (a hash stamp). From
  scratch it takes about 45 s and 1.6 GB (torch, CPU build, is 0.75 GB).

Each library gets the data as its documentation feeds it: long frames
(truth, predictions) for trec_eval, ranx, RecTools, LensKit, Microsoft
Recommenders and Spark (RecTools, LensKit and Spark read the ranks; the
relevant rows only, grade > 0, for those that take no grades); score matrices
for scikit-learn, torchmetrics and RecBole. recmetrics gets the same data in
the same form (``relevance='grade'``; ``rank='rank'`` where the library reads
ranks). Spark receives one (prediction, labels) pair per user of the truth.

Three tests per library and case: ``test_per_user_values`` (every user that
both evaluate has the library's value, per metric), ``test_same_users_evaluated``
(the same users are evaluated, every metric) and ``test_mean`` (the mean equals
the library's own summary, per metric). Microsoft Recommenders and Spark report
means only. Where the preset does not reproduce the library the test is marked
``xfail(strict=True)`` with the exact difference and the library's source line
(``KNOWN``): the day the preset is fixed, the test passes and strict xfail
turns it into a failure, so that the mark is removed.

RecTools' ``Accuracy`` is no metric of ``evaluate`` (no preset): its own
tests compare it, per user and in ``calc_metrics``' mean, with
``rm.confusion(..., recommended='k', n_items=80)`` on the long frames of each
case at k = 5 and 20, together with the TP, FP and FN of RecTools'
``make_confusions``, on the users RecTools reports (those with a test item,
also without recommendations). RecTools counts ``k - TP`` false positives
whatever the list's length, which ``recommended='k'`` reproduces; the default
``recommended='list'`` differs by exactly ``(k - n) / n_items`` on a list of
``n < k`` items, and a test checks that too.

What the libraries cannot be asked, and how the runner deals with it:

* RecBole cannot rank beyond the catalogue (``torch.topk`` raises "selected
  index k out of range"): it is run with k = 5 and 10 on 15 items.
* LensKit's ``AveragePrecision`` raises ZeroDivisionError on a list whose
  user has no test item (``ap_sum / denom`` with ``denom = min(len(test),
  len(recs)) = 0``): AP is measured on the lists of the users with test items.
* RecBole 1.2.1's MRR, MAP and NDCG use ``np.float``, removed in NumPy 1.24,
  while LensKit needs NumPy >= 1.25: the runner restores the alias (it was the
  builtin ``float``) before importing RecBole.
* Spark's graded NDCG (3-tuples, gain 2^rel - 1) is not compared: the preset
  has binary gains, Spark's (prediction, labels) form.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics import conventions as cv

ROOT = Path(__file__).resolve().parents[1]
PEER_DIR = Path(__file__).resolve().parent / "peer_env"
REQUIREMENTS = PEER_DIR / "requirements.txt"
RUNNER = PEER_DIR / "run_peers.py"
PEER_PYTHON = "python3.11"  # the version the pins were resolved for

pytestmark = [pytest.mark.crosslib]

# --------------------------------------------------------------------------
# the libraries, how they read their input, and the metrics compared
FRAME_LIBS = ("trec_eval", "ranx", "rectools", "lenskit", "recommenders", "spark")
MATRIX_LIBS = ("sklearn", "torchmetrics", "recbole")
PEER_ENV_LIBS = ("rectools", "lenskit", "recommenders", "torchmetrics", "recbole")
RANK_LIBS = ("rectools", "lenskit", "spark")  # they read ranks, not scores
CUTOFFS = {"recbole": (5, 10)}  # RecBole's torch.topk cannot go beyond the catalogue (15)
DEFAULT_CUTOFFS = (5, 20)
CASES = {"binary": (1, False, False), "graded": (2, True, False), "ties": (3, True, True)}
# torchmetrics computes in single precision
RTOL = {"torchmetrics": 1e-6}
FRAME_ITEMS = 80  # the catalogue of the long frames: items i000 .. i079


def metrics_of(lib):
    """Every metric the preset provides, at every cutoff the library has (names of evaluate)."""
    names = []
    for base, cut in cv.SUPPORTED[lib].items():
        if cut in ("k", "both"):
            names += [f"{base}@{k}" for k in CUTOFFS.get(lib, DEFAULT_CUTOFFS)]
        if cut in ("none", "both"):
            names.append(base)
    return names


# --------------------------------------------------------------------------
# differences between a preset and its library, found by these tests: each is
# a strict xfail. Key: (aspect, library, case or "*", metric or "*"), aspect
# "values" (per user), "users" (who is evaluated) or "mean".
RANX_TIES = (
    "ranx orders tied scores by an unstable argsort of the run's input order "
    "(data_structures/common.py sort_dict_by_value); convention='ranx' uses ties='expected'"
)
RECOMMENDERS_TIES = (
    "Microsoft Recommenders orders tied predictions by input row order (get_top_k_items: "
    "sort_values over (user, prediction), a stable lexsort); convention='recommenders' uses "
    "ties='expected'"
)
TORCHMETRICS_TIES = (
    "torchmetrics orders tied scores as torch.topk / torch.argsort return them (unspecified; "
    "functional/retrieval/precision.py, recall.py, average_precision.py, reciprocal_rank.py); "
    "convention='torchmetrics' uses ties='expected' (its NDCG averages over ties and agrees)"
)
RECBOLE_TIES = (
    "RecBole orders tied scores as torch.topk returns them (evaluator/collector.py "
    "Collector.eval_batch_collect); convention='recbole' uses ties='expected'"
)

LENSKIT_NAN = (
    "LensKit gives a list whose user has no test item NaN in every metric but Precision "
    "(metrics/bulk.py RunAnalysis.measure), then counts that NaN as 0 in its summary "
    "(metrics/_base.py ListMetric.default = 0.0); convention='lenskit' (no_relevant='zero') "
    "gives the 0 per user too, so that its means are LensKit's summary"
)
LENSKIT_AP_CRASH = (
    "LensKit's AveragePrecision raises ZeroDivisionError on a list whose user has no test item "
    "(metrics/ranking/_map.py: denom = min(len(test), len(recs)) = 0), so LensKit has no summary "
    "of AP for such a run; the runner measures AP on the other lists, and its mean leaves those "
    "users out, where convention='lenskit' counts them 0 as list_summary does for every other "
    "metric"
)
KNOWN: dict[tuple[str, str, str, str], str] = {("users", "lenskit", "*", "*"): LENSKIT_NAN}
for _m in ("map@5", "map@20", "map"):
    KNOWN["mean", "lenskit", "*", _m] = LENSKIT_AP_CRASH
for _m in ("precision@5", "precision@20", "recall@5", "recall@20", "map@5", "map@20"):
    KNOWN["mean", "recommenders", "ties", _m] = RECOMMENDERS_TIES
for _m in ("ndcg@5", "ndcg@20"):
    KNOWN["mean", "recommenders", "ties", _m] = RECOMMENDERS_TIES
for _base in ("precision", "recall", "f1", "hr"):  # without a cutoff ties do not matter
    for _k in ("@5", "@20"):
        KNOWN["values", "ranx", "ties", _base + _k] = RANX_TIES
        KNOWN["mean", "ranx", "ties", _base + _k] = RANX_TIES
for _base in ("mrr", "map", "ndcg"):
    for _k in ("@5", "@20", ""):
        KNOWN["values", "ranx", "ties", _base + _k] = RANX_TIES
        KNOWN["mean", "ranx", "ties", _base + _k] = RANX_TIES
# the cutoffs of 20 reach the whole catalogue of 15 items, where P and R ignore the order
for _m in ("precision@5", "recall@5", "mrr@5", "mrr@20", "mrr", "map@5", "map@20", "map"):
    KNOWN["values", "torchmetrics", "ties", _m] = TORCHMETRICS_TIES
    KNOWN["mean", "torchmetrics", "ties", _m] = TORCHMETRICS_TIES
for _base in ("ndcg_burges", "dcg_burges"):  # ranx's Burges DCG: the same ties as ndcg
    for _k in ("@5", "@20", ""):
        KNOWN["values", "ranx", "ties", _base + _k] = RANX_TIES
        KNOWN["mean", "ranx", "ties", _base + _k] = RANX_TIES
for _m in metrics_of("recbole"):
    if _m != "hr@10":  # a hit in the top 10 of 15 items is the same in every order here
        KNOWN["values", "recbole", "ties", _m] = RECBOLE_TIES
        KNOWN["mean", "recbole", "ties", _m] = RECBOLE_TIES


def known(aspect, lib, case, metric):
    for c in (case, "*"):
        for m in (metric, "*"):
            if (aspect, lib, c, m) in KNOWN:
                return KNOWN[aspect, lib, c, m]
    return None


# --------------------------------------------------------------------------
# inputs
def make_frames(seed, graded, ties, n_users=48, n_items=FRAME_ITEMS):
    """Long truth (user, item, grade) and predictions (user, item, score, rank).

    Users by ``u % 8``: 0 in the truth without predictions, 1 with predictions
    but no truth, 2 judged with grade 0 only, 3 with 1 to 3 predictions (lists
    shorter than k), the others with 5 to 25.
    """
    rng = np.random.default_rng(seed)
    items = np.array([f"i{j:03d}" for j in range(n_items)])
    t_rows, p_rows = [], []
    for u in range(n_users):
        uid, kind = f"u{u:02d}", u % 8
        judged = np.array([], dtype=int)
        if kind != 1:
            judged = rng.choice(n_items, size=rng.integers(2, 12), replace=False)
            top = 4 if graded else 2
            grades = rng.integers(0, top, judged.size)
            if kind == 2:
                grades[:] = 0
            elif not grades.any():
                grades[0] = rng.integers(1, top)
            t_rows.append(pd.DataFrame({"user": uid, "item": items[judged], "grade": grades}))
        if kind != 0:
            length = rng.integers(1, 4) if kind == 3 else rng.integers(5, 26)
            hits = judged[rng.random(judged.size) < 0.6]
            others = rng.permutation(np.setdiff1d(np.arange(n_items), hits))
            chosen = rng.permutation(np.r_[hits, others][:length])
            if ties:
                scores = rng.integers(0, 4, chosen.size) / 4.0
            else:  # distinct, also in single precision
                scores = (rng.permutation(chosen.size) + rng.random(chosen.size) / 2) / 8.0
            order = np.argsort(-scores, kind="stable")
            rank = np.empty(chosen.size, dtype=np.int64)
            rank[order] = np.arange(1, chosen.size + 1)
            p_rows.append(
                pd.DataFrame({"user": uid, "item": items[chosen], "score": scores, "rank": rank})
            )
    truth = pd.concat(t_rows, ignore_index=True)
    pred = pd.concat(p_rows, ignore_index=True)
    return truth, pred


def make_matrices(seed, graded, ties, n_users=40, n_items=15):
    """Grades and scores (negative ones too); every sixth user has no relevant item."""
    rng = np.random.default_rng(seed + 100)
    top = 4 if graded else 2
    y_true = rng.integers(1, top, (n_users, n_items)) * (rng.random((n_users, n_items)) < 0.3)
    for u in range(n_users):
        if u % 6 == 0:
            y_true[u] = 0
        elif not y_true[u].any():
            y_true[u, rng.integers(n_items)] = 1
    if ties:
        y_score = rng.integers(-2, 3, (n_users, n_items)) / 2.0
    else:
        y_score = np.stack(
            [(rng.permutation(n_items) - 5 + rng.random(n_items) / 2) / 4 for _ in range(n_users)]
        )
    return y_true.astype(np.int64), y_score


@pytest.fixture(scope="module")
def data():
    """Every case's inputs: {case: (truth, predictions, y_true, y_score)}."""
    return {
        case: (*make_frames(seed, graded, ties), *make_matrices(seed, graded, ties))
        for case, (seed, graded, ties) in CASES.items()
    }


def test_inputs_hold_every_situation(data):
    """The cases hold what they promise (so that the parity tests test it)."""
    for case, (truth, pred, y_true, y_score) in data.items():
        t_users, p_users = set(truth["user"]), set(pred["user"])
        assert t_users - p_users and p_users - t_users  # users in one frame only
        relevant = truth[truth["grade"] > 0].groupby("user").size()
        assert t_users - set(relevant.index)  # judged users without a relevant item
        lengths = pred.groupby("user").size()
        assert lengths.min() < 5 and (lengths < 20).mean() > 0.5  # lists shorter than k
        assert (y_true.sum(axis=1) == 0).any() and (y_score < 0).any()
        assert y_true.shape[1] < 20  # k beyond the catalogue
        if case == "ties":
            assert pred.duplicated(["user", "score"]).any()
            assert any(len(set(row)) < len(row) for row in y_score)
        else:
            assert not pred.duplicated(["user", "score"]).any()
            assert (
                not pred.assign(s=pred["score"].astype(np.float32)).duplicated(["user", "s"]).any()
            )
        if case == "binary":
            assert set(truth["grade"]) == {0, 1}
        else:
            assert truth["grade"].max() == 3


def ours(lib, case, data, per_user):
    """rm.evaluate under the preset, on the input form the library reads."""
    truth, pred, y_true, y_score = data[case]
    metrics = metrics_of(lib)
    if lib in MATRIX_LIBS:
        return rm.evaluate(y_true, y_score, metrics, convention=lib, per_user=per_user)
    order = {"rank": "rank"} if lib in RANK_LIBS else {"score": "score"}
    return rm.evaluate(
        truth, pred, metrics, convention=lib, per_user=per_user, relevance="grade", **order
    )


# --------------------------------------------------------------------------
# the second environment
def _stamp():
    h = hashlib.sha256(REQUIREMENTS.read_bytes())
    h.update(PEER_PYTHON.encode())
    return h.hexdigest()


def peer_venv():
    """Where the second environment lives: outside the repository (the book build scans it)."""
    if os.environ.get("RECMETRICS_PEERS_VENV"):
        return Path(os.environ["RECMETRICS_PEERS_VENV"])
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "recmetrics" / "peers-venv"


def build_peer_env(venv):
    """Create (or reuse) the second environment; return its Python and the seconds spent.

    A lock file serialises concurrent builds (two test runs on one machine).
    """
    python = venv / "bin" / "python"
    stamp = venv / ".requirements.sha256"
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / (venv.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if python.exists() and stamp.exists() and stamp.read_text() == _stamp():
            return python, 0.0
        start = time.perf_counter()
        base = shutil.which(PEER_PYTHON)
        if base is None:
            pytest.fail(f"the peer environment needs {PEER_PYTHON} (the version its pins are for)")
        if venv.exists():
            shutil.rmtree(venv)
        subprocess.run([base, "-m", "venv", str(venv)], check=True)
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-input"]
            + ["--disable-pip-version-check", "-r", str(REQUIREMENTS)],
            capture_output=True,
            text=True,
        )
        if done.returncode:
            pytest.fail(f"building the peer environment failed:\n{done.stderr[-4000:]}")
        stamp.write_text(_stamp())
        return python, time.perf_counter() - start


@pytest.fixture(scope="session")
def peer_python():
    """The Python of the second environment (built on first use)."""
    python, _ = build_peer_env(peer_venv())
    return python


def run_jobs(python, jobs, tmp_path, env=None):
    """Run ``run_peers.py`` with ``python`` on ``jobs``; its results by job id."""
    src, dst = tmp_path / "jobs.json", tmp_path / "results.json"
    src.write_text(json.dumps(jobs))
    done = subprocess.run(
        [str(python), str(RUNNER), str(src), str(dst)],
        capture_output=True,
        text=True,
        env=dict(os.environ, **(env or {})),
        timeout=900,
    )
    if done.returncode:
        raise RuntimeError(f"run_peers.py failed:\n{done.stderr[-6000:]}")
    return json.loads(dst.read_text())


def _columns(frame):
    return {c: frame[c].tolist() for c in frame.columns}


def job_of(lib, case, data):
    truth, pred, y_true, y_score = data[case]
    job = {"id": f"{lib}/{case}", "library": lib, "metrics": metrics_of(lib)}
    if lib in MATRIX_LIBS:
        job.update(y_true=y_true.tolist(), y_score=y_score.tolist())
    else:
        job.update(truth=_columns(truth), predictions=_columns(pred))
    return job


def frame_catalogue():
    """The item ids of the long frames' catalogue, RecTools' ``catalog``."""
    return [f"i{j:03d}" for j in range(FRAME_ITEMS)]


def confusion_job(case, data):
    """RecTools' Accuracy and confusion counts on a case's frames (not a preset's metric)."""
    truth, pred = data[case][:2]
    return {
        "id": f"rectools_confusion/{case}",
        "library": "rectools_confusion",
        "cutoffs": list(DEFAULT_CUTOFFS),
        "catalog": frame_catalogue(),
        "truth": _columns(truth),
        "predictions": _columns(pred),
    }


@pytest.fixture(scope="module")
def peer_results(peer_python, data, tmp_path_factory):
    """The results of the libraries of the second environment, every case."""
    jobs = [job_of(lib, case, data) for lib in PEER_ENV_LIBS for case in CASES]
    jobs += [confusion_job(case, data) for case in CASES]
    return run_jobs(peer_python, jobs, tmp_path_factory.mktemp("peers"))


@pytest.fixture(scope="module")
def ranx_results(data, tmp_path_factory):
    """ranx, in a subprocess of this Python with numba's JIT off."""
    pytest.importorskip("ranx")
    jobs = [job_of("ranx", case, data) for case in CASES]
    return run_jobs(
        sys.executable, jobs, tmp_path_factory.mktemp("ranx"), env={"NUMBA_DISABLE_JIT": "1"}
    )


# --------------------------------------------------------------------------
# the libraries of this environment
TREC_MEASURES = {
    "precision": "P",
    "recall": "recall",
    "hr": "success",
    "mrr": "recip_rank",
    "map": "map",
    "ndcg": "ndcg",
    "rprec": "Rprec",
    "bpref": "bpref",
    "set_precision": "set_P",
    "set_recall": "set_recall",
    "set_f": "set_F",
    "set_relative_precision": "set_relative_P",
    "relative_precision": "relative_P",
    **{f"iprec_at_recall_{x / 10:.2f}": f"iprec_at_recall_{x / 10:.2f}" for x in range(11)},
    "precision_11pt": "11pt_avg",
    # issue 26: summed and geometric summaries, set_map, Rprec_mult, infAP
    "gm_map": "gm_map",
    "gm_bpref": "gm_bpref",
    "num_q": "num_q",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
    "set_map": "set_map",
    **{f"rprec_mult_{x / 10:.2f}": f"Rprec_mult_{x / 10:.2f}" for x in range(2, 21, 2)},
    "infap": "infAP",
    "rndcg": "Rndcg",
    "bin_g": "binG",
    "utility": "utility",
    "ndcg_rel": "ndcg_rel",
    "trec_g": "G",
    # judgment groups (-R qrels_jg), which pytrec_eval cannot read: on plain qrels (one group
    # per query) they are map, P and Rprec_mult (trec_eval 10.0's own output with groups:
    # tests/test_judgment_groups.py)
    "map_avgjg": "map",
    "p_avgjg": "P",
    **{f"rprec_mult_avgjg_{x / 10:.2f}": f"Rprec_mult_{x / 10:.2f}" for x in range(2, 21, 2)},
}
# trec_eval's gm_* measures print only a summary; pytrec_eval returns log(max(v, 1e-5)) per
# query. The per-user values compared are those of the measure they summarise.
TREC_PER_TOPIC = {"gm_map": "map", "gm_bpref": "bpref"}


def _trec_name(name):
    base, _, k = name.partition("@")
    if not k:
        return TREC_MEASURES[base], TREC_MEASURES[base]
    family = {"map": "map_cut", "ndcg": "ndcg_cut"}.get(base, TREC_MEASURES[base])
    return f"{family}.{k}", f"{family}_{k}"


def trec_eval_results(data):
    """pytrec_eval on the qrels (every judged row, grade 0 too) and the run."""
    import pytrec_eval

    out = {}
    for case in CASES:
        truth, pred = data[case][:2]
        qrels, run = {}, {}
        for u, i, g in truth[["user", "item", "grade"]].itertuples(index=False):
            qrels.setdefault(u, {})[i] = int(g)
        for u, i, s in pred[["user", "item", "score"]].itertuples(index=False):
            run.setdefault(u, {})[i] = float(s)
        names = dict(_trec_name(m) for m in metrics_of("trec_eval"))
        asked = set(names) | set(TREC_PER_TOPIC.values())
        res = pytrec_eval.RelevanceEvaluator(qrels, asked).evaluate(run)
        per_user, mean = {}, {}
        for name in metrics_of("trec_eval"):
            key = _trec_name(name)[1]
            per_topic = TREC_PER_TOPIC.get(key, key)
            per_user[name] = {u: float(v[per_topic]) for u, v in res.items()}
            # trec_eval's summary ("all"): the mean over the queries it evaluated, the sum
            # of the num_* counts, the geometric mean of gm_* (pytrec_eval's own rule)
            values = [float(v[key]) for v in res.values()]
            mean[name] = float(pytrec_eval.compute_aggregated_measure(key, values))
        out[f"trec_eval/{case}"] = {"mean": mean, "per_user": per_user}
    return out


def sklearn_results(data):
    """scikit-learn's ranking metrics: each row as one sample, and the means sklearn averages."""
    from sklearn.metrics import (
        average_precision_score,
        coverage_error,
        dcg_score,
        ndcg_score,
        roc_auc_score,
    )

    out = {}
    for case in CASES:
        y_true, y_score = data[case][2:]
        n = y_true.shape[0]
        per_user, mean = {}, {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # AP of a row without a positive: a warning, 0
            for name in metrics_of("sklearn"):
                base, _, k = name.partition("@")
                k = int(k) if k else None
                if base in ("ndcg", "dcg"):
                    fn = ndcg_score if base == "ndcg" else dcg_score
                    per_user[name] = {
                        str(u): float(fn(y_true[u : u + 1], y_score[u : u + 1], k=k))
                        for u in range(n)
                    }
                    mean[name] = float(fn(y_true, y_score, k=k))
                elif base == "map":
                    per_user[name] = {
                        str(u): float(average_precision_score(y_true[u] > 0, y_score[u]))
                        for u in range(n)
                    }
                    mean[name] = float(
                        average_precision_score(y_true > 0, y_score, average="samples")
                    )
                elif base == "coverage_error":  # a row without a positive counts 0
                    per_user[name] = {
                        str(u): float(coverage_error(y_true[u : u + 1] > 0, y_score[u : u + 1]))
                        for u in range(n)
                    }
                    mean[name] = float(coverage_error(y_true > 0, y_score))
                else:  # auc, pauc: roc_auc_score raises for a row with one class only
                    kw = {"max_fpr": 0.1} if base == "pauc" else {}  # pauc's default max_fpr
                    vals = {}
                    for u in range(n):
                        if 0 < (y_true[u] > 0).sum() < y_true.shape[1]:
                            vals[str(u)] = float(roc_auc_score(y_true[u] > 0, y_score[u], **kw))
                    per_user[name] = vals
                    mean[name] = float(np.mean(list(vals.values())))
        out[f"sklearn/{case}"] = {"mean": mean, "per_user": per_user}
    return out


@pytest.fixture(scope="module")
def spark_results(data):
    """Spark MLlib's RankingMetrics on one (prediction, labels) pair per user of the truth."""
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java (OpenJDK 17)")
    from pyspark.mllib.evaluation import RankingMetrics

    session = rm.spark.local_session(1, config={"spark.sql.shuffle.partitions": "2"})
    out = {}
    try:
        for case in CASES:
            truth, pred = data[case][:2]
            lists = pred.sort_values(["user", "rank"]).groupby("user")["item"].agg(list)
            labels = truth[truth["grade"] > 0].groupby("user")["item"].agg(list)
            pairs = [(lists.get(u, []), labels.get(u, [])) for u in sorted(set(truth["user"]))]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                metrics = RankingMetrics(session.sparkContext.parallelize(pairs, 2))
                mean = {}
                for name in metrics_of("spark"):
                    base, _, k = name.partition("@")
                    if base == "map" and not k:
                        mean[name] = metrics.meanAveragePrecision
                        continue
                    fn = {
                        "precision": metrics.precisionAt,
                        "recall": metrics.recallAt,
                        "map": metrics.meanAveragePrecisionAt,
                        "ndcg": metrics.ndcgAt,
                    }[base]
                    mean[name] = float(fn(int(k)))
            out[f"spark/{case}"] = {"mean": mean, "per_user": None}
    finally:
        session.stop()
    return out


@pytest.fixture(scope="module")
def library_results(request, data):
    """{'lib/case': result} for the libraries asked, computed on first use."""
    cache = {}

    def get(lib):
        if lib not in cache:
            if lib in PEER_ENV_LIBS:
                cache[lib] = request.getfixturevalue("peer_results")
            elif lib == "ranx":
                cache[lib] = request.getfixturevalue("ranx_results")
            elif lib == "spark":
                cache[lib] = request.getfixturevalue("spark_results")
            elif lib == "trec_eval":
                cache[lib] = trec_eval_results(data)
            else:
                cache[lib] = sklearn_results(data)
        return cache[lib]

    return get


@pytest.fixture(scope="module")
def our_results(data):
    cache = {}

    def get(lib, case):
        if (lib, case) not in cache:
            cache[lib, case] = (
                ours(lib, case, data, per_user=False),
                ours(lib, case, data, per_user=True),
            )
        return cache[lib, case]

    return get


# --------------------------------------------------------------------------
# the parity tests
PER_USER_LIBS = tuple(lib for lib in cv.PRESETS if lib not in ("recommenders", "spark"))


def _marks(aspect, lib, case, metric):
    marks = [pytest.mark.slow] if lib in PEER_ENV_LIBS + ("spark", "ranx") else []
    reason = known(aspect, lib, case, metric)
    if reason:
        marks.append(pytest.mark.xfail(strict=True, reason=reason))
    return marks


def _params(aspect, libs):
    return [
        pytest.param(
            lib, case, metric, marks=_marks(aspect, lib, case, metric), id=f"{lib}-{case}-{metric}"
        )
        for lib in libs
        for case in CASES
        for metric in metrics_of(lib)
    ]


def _tol(lib):
    rtol = RTOL.get(lib, 1e-9)
    return {"rtol": rtol, "atol": rtol * 1e-3}


def _per_user(lib, metric, ours_per, theirs):
    """(ours, theirs): the per-user values, NaN (user not evaluated) dropped, indexed by str."""
    mine = ours_per[metric].copy()
    mine.index = mine.index.astype(str)
    their = pd.Series(theirs["per_user"][metric], dtype=float)
    return mine.dropna(), their.dropna()


def value_problems(lib, metric, ours_per, theirs):
    """Users evaluated by both whose values differ."""
    mine, their = _per_user(lib, metric, ours_per, theirs)
    both = sorted(set(mine.index) & set(their.index))
    a, b = mine[both].to_numpy(), their[both].to_numpy()
    bad = ~np.isclose(a, b, **_tol(lib))
    shown = [
        f"{u}: ours {x:.10g}, theirs {y:.10g}"
        for u, x, y, z in zip(both, a, b, bad, strict=True)
        if z
    ]
    if not shown:
        return []
    return [f"{len(shown)} of {len(both)} users differ: " + "; ".join(shown[:5])]


def user_problems(lib, metric, ours_per, theirs):
    """Users evaluated by one side only (with their values)."""
    mine, their = _per_user(lib, metric, ours_per, theirs)
    out = []
    for who, a, b in (("us", mine, their), ("the library", their, mine)):
        only = sorted(set(a.index) - set(b.index))
        if only:
            out.append(
                f"{metric}: {len(only)} users evaluated by {who} only: "
                + ", ".join(f"{u}={a[u]:.4g}" for u in only[:6])
            )
    return out


@pytest.mark.parametrize(("lib", "case", "metric"), _params("values", PER_USER_LIBS))
def test_per_user_values(lib, case, metric, library_results, our_results):
    """Every user that both evaluate has the library's value."""
    theirs = library_results(lib)[f"{lib}/{case}"]
    problems = value_problems(lib, metric, our_results(lib, case)[1], theirs)
    assert not problems, f"convention={lib!r}, {case}, {metric}: " + "; ".join(problems)


@pytest.mark.parametrize(
    ("lib", "case"),
    [
        pytest.param(lib, case, marks=_marks("users", lib, case, "*"), id=f"{lib}-{case}")
        for lib in PER_USER_LIBS
        for case in CASES
    ],
)
def test_same_users_evaluated(lib, case, library_results, our_results):
    """The library and the preset evaluate the same users, for every metric."""
    theirs = library_results(lib)[f"{lib}/{case}"]
    ours_per = our_results(lib, case)[1]
    problems = [p for m in metrics_of(lib) for p in user_problems(lib, m, ours_per, theirs)]
    assert not problems, f"convention={lib!r}, {case}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize(("lib", "case", "metric"), _params("mean", cv.PRESETS))
def test_mean(lib, case, metric, library_results, our_results):
    """The mean over users equals the library's own summary."""
    theirs = library_results(lib)[f"{lib}/{case}"]["mean"][metric]
    theirs = np.nan if theirs is None else theirs
    ours_mean = float(our_results(lib, case)[0][metric])
    assert np.isclose(ours_mean, theirs, equal_nan=True, **_tol(lib)), (
        f"convention={lib!r}, {case}, {metric}: ours {ours_mean!r}, theirs {theirs!r}"
    )


@pytest.mark.slow
def test_peer_versions_are_the_versions_read(library_results):
    """The second environment runs the versions that conventions.LIBRARIES names."""
    installed = library_results("rectools")["_versions"]
    for lib in PEER_ENV_LIBS:
        assert installed[lib] == cv.LIBRARIES[lib]["version"], lib


# --------------------------------------------------------------------------
# RecTools' Accuracy against rm.confusion (not a metric of evaluate, so no preset)
def confusion_tables(case, data, k, recommended):
    """rm.confusion on every user of either frame: ranked lists (by rank) and relevant sets.

    A user without predictions gets an empty list, a user without a relevant
    item an empty set. Indexed by user id.
    """
    truth, pred = data[case][:2]
    lists = pred.sort_values(["user", "rank"]).groupby("user")["item"].agg(list)
    relevant = truth[truth["grade"] > 0].groupby("user")["item"].agg(set)
    users = sorted(set(truth["user"]) | set(pred["user"]))
    table = rm.confusion(
        [lists.get(u, []) for u in users],
        [relevant.get(u, set()) for u in users],
        k=k,
        n_items=FRAME_ITEMS,
        recommended=recommended,
    )
    table.index = users
    return table


CONFUSION_PARAMS = [
    pytest.param(case, k, marks=pytest.mark.slow, id=f"{case}-k{k}")
    for case in CASES
    for k in DEFAULT_CUTOFFS
]


@pytest.mark.parametrize(("case", "k"), CONFUSION_PARAMS)
def test_rectools_accuracy_users(case, k, data, library_results):
    """RecTools' Accuracy evaluates the users with a test item, and only them.

    ``make_confusions`` left-joins the recommendations to the test
    interactions (metrics/base.py ``merge_reco``: ``how="left"``), then groups
    by user (classification.py ``calc_confusions``): a user of the test set
    without recommendations is evaluated (TP 0, FP k), a user with
    recommendations but no test item is not (neither is a user whose judged
    items all have grade 0: the interactions hold the relevant rows only).
    """
    truth, pred = data[case][:2]
    theirs = library_results("rectools")[f"rectools_confusion/{case}"]["per_user"]
    with_test = set(truth.loc[truth["grade"] > 0, "user"])
    assert set(theirs[f"accuracy@{k}"]) == with_test
    assert with_test - set(pred["user"])  # users of the test set without recommendations
    assert set(pred["user"]) - with_test  # users with recommendations only
    assert set(truth["user"]) - with_test  # judged users without a relevant item
    for label in ("TP", "FP", "FN", "LIKED"):
        assert set(theirs[f"{label}@{k}"]) == with_test, label
    no_reco = sorted(with_test - set(pred["user"]))
    assert all(theirs[f"TP@{k}"][u] == 0 and theirs[f"FP@{k}"][u] == k for u in no_reco)


@pytest.mark.parametrize(("case", "k"), CONFUSION_PARAMS)
def test_rectools_accuracy_per_user(case, k, data, library_results):
    """``rm.confusion(recommended='k')`` gives RecTools' Accuracy, TP, FP and FN per user.

    RecTools counts ``FP = k - TP`` (classification.py ``calc_confusions``:
    ``confusion_df[FP] = k - confusion_df[TP]``) and ``TN = len(catalog) - k -
    FN`` (``ClassificationMetric.calc_per_user_from_confusion_df``) whatever
    the length of the list: ``recommended='k'``, with the catalogue size as
    ``n_items``. Compared on the users RecTools reports.
    """
    theirs = library_results("rectools")[f"rectools_confusion/{case}"]["per_user"]
    users = sorted(theirs[f"accuracy@{k}"])
    mine = confusion_tables(case, data, k, "k").loc[users]
    for label in ("accuracy", "TP", "FP", "FN"):
        their = pd.Series(theirs[f"{label}@{k}"], dtype=float)[users]
        bad = ~np.isclose(mine[label].to_numpy(), their.to_numpy(), rtol=1e-12, atol=0)
        shown = [
            f"{u}: ours {a:.10g}, theirs {b:.10g}"
            for u, a, b in zip(np.array(users)[bad], mine[label][bad], their[bad], strict=True)
        ]
        assert not shown, f"{case}, k={k}, {label}: " + "; ".join(shown[:5])
    # |R| = TP + FN is RecTools' LIKED (every test item, also those not recommended)
    liked = pd.Series(theirs[f"LIKED@{k}"], dtype=float)[users]
    np.testing.assert_array_equal((mine["TP"] + mine["FN"]).to_numpy(), liked.to_numpy())


@pytest.mark.parametrize(("case", "k"), CONFUSION_PARAMS)
def test_rectools_accuracy_mean(case, k, library_results, data):
    """The mean of ``rm.confusion``'s accuracy over RecTools' users is ``calc_metrics``' value."""
    their = library_results("rectools")[f"rectools_confusion/{case}"]
    users = sorted(their["per_user"][f"accuracy@{k}"])
    ours_mean = float(confusion_tables(case, data, k, "k").loc[users, "accuracy"].mean())
    assert np.isclose(ours_mean, their["mean"][f"accuracy@{k}"], rtol=1e-12, atol=0)


@pytest.mark.parametrize(("case", "k"), CONFUSION_PARAMS)
def test_rectools_accuracy_needs_k_slots(case, k, data, library_results):
    """With ``recommended='list'`` (the default) exactly the users with fewer than k items differ.

    Counting only the filled slots, ``FP = min(k, n) - TP`` and ``TN`` grows by
    ``k - n`` for a list of ``n < k`` items (no list: ``n = 0``), so the
    accuracy exceeds RecTools' by ``(k - n) / n_items``; the test shows that
    the data hold such users and that ``recommended='k'`` is what RecTools needs.
    """
    truth, pred = data[case][:2]
    theirs = library_results("rectools")[f"rectools_confusion/{case}"]["per_user"]
    users = sorted(theirs[f"accuracy@{k}"])
    their = pd.Series(theirs[f"accuracy@{k}"], dtype=float)[users]
    lengths = pred.groupby("user").size().reindex(users, fill_value=0)
    mine = confusion_tables(case, data, k, "list").loc[users, "accuracy"]
    short = lengths < k
    assert short.any() and not short.all()
    np.testing.assert_allclose(
        (mine - their).to_numpy(),
        ((k - lengths).clip(lower=0) / FRAME_ITEMS).to_numpy(),
        rtol=1e-9,
        atol=1e-15,
    )
