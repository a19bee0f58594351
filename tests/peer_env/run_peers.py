"""Compute recommender-library metrics through each library's own public API.

Run by a Python that has the libraries installed: the second environment of
``tests/peer_env/requirements.txt`` (RecTools, LensKit, Microsoft
Recommenders, torchmetrics, RecBole: they need pandas < 3), or the project's
own environment for ranx. It does not import ``recmetrics``::

    python run_peers.py JOBS.json RESULTS.json

``JOBS.json`` holds a list of jobs, each a dict with

* ``id``: a name, echoed in the results;
* ``library``: ``"rectools"``, ``"lenskit"``, ``"recommenders"``,
  ``"torchmetrics"``, ``"recbole"`` or ``"ranx"``; or
  ``"rectools_confusion"``: RecTools' ``Accuracy`` and its confusion counts
  (TP, FP, FN, LIKED) at each of the job's ``cutoffs``, with the job's
  ``catalog`` (a list of item ids) as RecTools' catalogue;
* ``metrics``: metric names in recmetrics' spelling (``"precision@5"``,
  ``"ndcg"``, ...), translated here to the library's own metric objects;
* the data: long frames ``truth`` (columns ``user``, ``item``, ``grade``;
  grade 0 = judged not relevant) and ``predictions`` (``user``, ``item``,
  ``score``, ``rank``), each a dict of column lists; or the matrices
  ``y_true`` (integer grades) and ``y_score`` (lists of rows).

Each library is fed the data as its own documentation feeds it: RecTools,
LensKit and Microsoft Recommenders take the relevant rows only (grade > 0)
and, for RecTools and LensKit, the ranks; torchmetrics and RecBole take the
score matrix (RecBole only the users with a test item, as its evaluation data
loader does); ranx reads TREC qrels, zero grades included.

``RESULTS.json`` maps each job id to ``{"mean": {metric: value},
"per_user": {metric: {user: value}} or null, "users": [...] or null}``;
``None`` stands for NaN. Per-user values are those of the library's per-user
API where it has one (Microsoft Recommenders has none).
"""

from __future__ import annotations

import json
import math
import sys
import warnings

import numpy as np
import pandas as pd


def _split(name):
    base, _, k = name.partition("@")
    return base, (int(k) if k else None)


def _num(x):
    x = float(x)
    return None if math.isnan(x) else x


def _series(s):
    return {str(u): _num(v) for u, v in s.items()}


def _frames(job):
    truth = pd.DataFrame(job["truth"])
    pred = pd.DataFrame(job["predictions"])
    return truth, pred


# ---------------------------------------------------------------- RecTools
def _rectools(job):
    from rectools import Columns
    from rectools.metrics import MAP, MRR, NDCG, F1Beta, HitRate, Precision, Recall, calc_metrics

    truth, pred = _frames(job)
    interactions = truth.loc[truth["grade"] > 0, ["user", "item"]].rename(
        columns={"user": Columns.User, "item": Columns.Item}
    )
    reco = pred[["user", "item", "rank"]].rename(
        columns={"user": Columns.User, "item": Columns.Item, "rank": Columns.Rank}
    )
    make = {
        "precision": Precision,
        "recall": Recall,
        "f1": F1Beta,
        "hr": HitRate,
        "mrr": MRR,
        "map": MAP,
        "ndcg": NDCG,
    }
    objects = {}
    for name in job["metrics"]:
        base, k = _split(name)
        objects[name] = make[base](k=k)
    means = calc_metrics(objects, reco=reco, interactions=interactions)
    per_user = {name: _series(m.calc_per_user(reco, interactions)) for name, m in objects.items()}
    return {"mean": {n: _num(means[n]) for n in objects}, "per_user": per_user}


def _rectools_confusion(job):
    """RecTools' ``Accuracy`` (per user and ``calc_metrics``) and its confusion counts.

    The job holds the frames, ``catalog`` (the item ids) and ``cutoffs``. The
    counts are those of ``rectools.metrics.classification.make_confusions``, the
    table every classification metric is computed from (TP, FP, FN and LIKED,
    the number of test items); ``Accuracy`` adds ``TN = len(catalog) - k - FN``.
    """
    from rectools import Columns
    from rectools.metrics import Accuracy, calc_metrics
    from rectools.metrics.classification import FN, FP, LIKED, TP, make_confusions

    truth, pred = _frames(job)
    interactions = truth.loc[truth["grade"] > 0, ["user", "item"]].rename(
        columns={"user": Columns.User, "item": Columns.Item}
    )
    reco = pred[["user", "item", "rank"]].rename(
        columns={"user": Columns.User, "item": Columns.Item, "rank": Columns.Rank}
    )
    catalog = job["catalog"]
    out = {"mean": {}, "per_user": {}}
    for k in job["cutoffs"]:
        metric = Accuracy(k=k)
        name = f"accuracy@{k}"
        out["per_user"][name] = _series(metric.calc_per_user(reco, interactions, catalog))
        means = calc_metrics({name: metric}, reco=reco, interactions=interactions, catalog=catalog)
        out["mean"][name] = _num(means[name])
        counts = make_confusions(reco, interactions, k)
        for col, label in ((TP, "TP"), (FP, "FP"), (FN, "FN"), (LIKED, "LIKED")):
            out["per_user"][f"{label}@{k}"] = _series(counts[col])
    return out


# ---------------------------------------------------------------- LensKit
def _lenskit(job):
    from lenskit.data import ItemListCollection
    from lenskit.metrics import NDCG, Hit, Precision, Recall, RecipRank, RunAnalysis
    from lenskit.metrics.ranking import AveragePrecision

    truth, pred = _frames(job)
    test = truth.loc[truth["grade"] > 0, ["user", "item"]].rename(
        columns={"user": "user_id", "item": "item_id"}
    )
    recs_df = (
        pred.sort_values(["user", "rank"])[["user", "item", "rank"]]
        .rename(columns={"user": "user_id", "item": "item_id"})
        .reset_index(drop=True)
    )
    tested = ItemListCollection.from_df(
        recs_df[recs_df["user_id"].isin(set(test["user_id"]))], "user_id"
    )
    recs = ItemListCollection.from_df(recs_df, "user_id")
    test = ItemListCollection.from_df(test, "user_id")
    make = {
        "precision": Precision,
        "recall": Recall,
        "hr": Hit,
        "mrr": RecipRank,
        "map": AveragePrecision,
        "ndcg": NDCG,
    }
    # AveragePrecision divides by min(len(test), len(recs)): a list whose user has
    # no test item raises ZeroDivisionError (lenskit/metrics/ranking/_map.py), so
    # it is measured on the lists of users with test items only
    out = {"mean": {}, "per_user": {}, "global": {}}
    for name in job["metrics"]:
        base, k = _split(name)
        metric = make[base](k)
        analysis = RunAnalysis()
        analysis.add_metric(metric)
        result = analysis.measure(tested if base == "map" else recs, test)
        label = metric.label
        # LensKit's summary fills a NaN per-list value with the metric's default, 0
        out["mean"][name] = _num(result.list_summary()["mean"][label])
        out["per_user"][name] = _series(result.list_metrics(fill_missing=False)[label])
        out["global"][name] = _num(result.global_metrics()[label])
    return out


# ------------------------------------------------- Microsoft Recommenders
def _recommenders(job):
    from recommenders.evaluation import python_evaluation as pe

    truth, pred = _frames(job)
    rating_true = truth.loc[truth["grade"] > 0, ["user", "item", "grade"]].rename(
        columns={"user": "userID", "item": "itemID", "grade": "rating"}
    )
    rating_pred = pred[["user", "item", "score"]].rename(
        columns={"user": "userID", "item": "itemID", "score": "prediction"}
    )
    funcs = {
        "precision": pe.precision_at_k,
        "recall": pe.recall_at_k,
        "map": pe.map_at_k,
        "ndcg": pe.ndcg_at_k,
    }
    means = {}
    for name in job["metrics"]:
        base, k = _split(name)
        means[name] = _num(funcs[base](rating_true, rating_pred, k=k))
    return {"mean": means, "per_user": None}


# ---------------------------------------------------------------- torchmetrics
def _torchmetrics(job):
    import torch
    from torchmetrics import retrieval as tr
    from torchmetrics.functional import retrieval as fr

    y_true = torch.tensor(job["y_true"], dtype=torch.long)
    y_score = torch.tensor(job["y_score"], dtype=torch.float64)
    n_users, n_items = y_true.shape
    classes = {
        "precision": (tr.RetrievalPrecision, fr.retrieval_precision),
        "recall": (tr.RetrievalRecall, fr.retrieval_recall),
        "map": (tr.RetrievalMAP, fr.retrieval_average_precision),
        "mrr": (tr.RetrievalMRR, fr.retrieval_reciprocal_rank),
        "ndcg": (tr.RetrievalNormalizedDCG, fr.retrieval_normalized_dcg),
    }
    indexes = torch.arange(n_users).repeat_interleave(n_items)
    means, per_user = {}, {}
    for name in job["metrics"]:
        base, k = _split(name)
        cls, fn = classes[base]
        # P, R, AP and RR take binary targets; NDCG takes the grades
        target = y_true if base == "ndcg" else (y_true > 0).long()
        metric = cls(top_k=k)  # empty_target_action='neg' (0) by default
        means[name] = _num(metric(y_score.reshape(-1), target.reshape(-1), indexes=indexes))
        per_user[name] = {str(u): _num(fn(y_score[u], target[u], top_k=k)) for u in range(n_users)}
    return {"mean": means, "per_user": per_user}


# ---------------------------------------------------------------- RecBole
def _recbole(job):
    import torch

    if not hasattr(np, "float"):
        # RecBole 1.2.1's MRR, MAP and NDCG use np.float, the alias of the builtin
        # float that NumPy 1.24 removed (LensKit in this environment needs NumPy >= 1.25)
        np.float = float
    from recbole.evaluator import Collector, Evaluator

    y_true = np.asarray(job["y_true"])
    y_score = np.asarray(job["y_score"], dtype=np.float64)
    # RecBole's evaluation data holds only the users with a test item
    rows = np.flatnonzero((y_true > 0).sum(axis=1) > 0)
    names = {"precision": "precision", "recall": "recall", "hr": "hit", "mrr": "mrr"}
    names.update({"map": "map", "ndcg": "ndcg"})
    wanted = [(n, *_split(n)) for n in job["metrics"]]
    config = {
        "metrics": sorted({names[b] for _, b, _ in wanted}),
        "topk": sorted({k for _, _, k in wanted}),
        "metric_decimal_place": 15,
        "eval_args": {"mode": "full"},
        "device": torch.device("cpu"),
    }
    collector = Collector(config)
    scores = torch.tensor(y_score[rows], dtype=torch.float32)  # models score in float32
    pos_u, pos_i = np.nonzero(y_true[rows] > 0)
    collector.eval_batch_collect(
        scores, None, torch.tensor(pos_u, dtype=torch.long), torch.tensor(pos_i, dtype=torch.long)
    )
    struct = collector.get_data_struct()
    result = Evaluator(config).evaluate(struct)
    topk = struct.get("rec.topk")
    pos_index, pos_len = torch.split(topk, [max(config["topk"]), 1], dim=1)
    pos_index, pos_len = pos_index.to(torch.bool).numpy(), pos_len.squeeze(-1).numpy()
    from recbole.evaluator import metrics_dict

    means, per_user = {}, {}
    for name, base, k in wanted:
        key = names[base]
        means[name] = _num(result[f"{key}@{k}"])
        metric = metrics_dict[key](config)
        info = metric.metric_info(pos_index) if key in ("hit", "mrr", "precision") else None
        if info is None:
            info = metric.metric_info(pos_index, pos_len)
        per_user[name] = {str(int(r)): _num(v) for r, v in zip(rows, info[:, k - 1], strict=True)}
    return {"mean": means, "per_user": per_user}


# ---------------------------------------------------------------- ranx
def _ranx(job):
    from ranx import Qrels, Run, evaluate

    truth, pred = _frames(job)
    qrels, run = {}, {}
    for u, i, g in zip(truth["user"], truth["item"], truth["grade"], strict=True):
        qrels.setdefault(str(u), {})[str(i)] = int(g)
    for u, i, s in zip(pred["user"], pred["item"], pred["score"], strict=True):
        run.setdefault(str(u), {})[str(i)] = float(s)
    names = {"hr": "hit_rate"}
    translated = {}
    for name in job["metrics"]:
        base, k = _split(name)
        base = names.get(base, base)
        translated[name] = base if k is None else f"{base}@{k}"
    q, r = Qrels.from_dict(qrels), Run.from_dict(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        means = evaluate(q, r, list(translated.values()), make_comparable=True)
        per = evaluate(q, r, list(translated.values()), return_mean=False, make_comparable=True)
    if len(translated) == 1:
        means = {next(iter(translated.values())): means}
        per = {next(iter(translated.values())): per}
    users = sorted(set(qrels))  # make_comparable: the queries of the qrels, in sorted order
    return {
        "mean": {n: _num(means[t]) for n, t in translated.items()},
        "per_user": {
            n: {u: _num(v) for u, v in zip(users, per[t], strict=True)}
            for n, t in translated.items()
        },
    }


LIBRARIES = {
    "rectools": _rectools,
    "rectools_confusion": _rectools_confusion,
    "lenskit": _lenskit,
    "recommenders": _recommenders,
    "torchmetrics": _torchmetrics,
    "recbole": _recbole,
    "ranx": _ranx,
}


def versions():
    """The installed version of every library this runner can use."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for dist in ("rectools", "lenskit", "recommenders", "torchmetrics", "recbole", "ranx"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = None
    for dist in ("numpy", "pandas", "scipy", "torch"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = None
    return out


def main(argv):
    """Read the jobs, run each through its library, write the results."""
    if len(argv) != 3:
        raise SystemExit("usage: run_peers.py JOBS.json RESULTS.json")
    with open(argv[1]) as fh:
        jobs = json.load(fh)
    results = {"_versions": versions()}
    for job in jobs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results[job["id"]] = LIBRARIES[job["library"]](job)
    with open(argv[2], "w") as fh:
        json.dump(results, fh)


if __name__ == "__main__":
    main(sys.argv)
