"""What Spark and Dask evaluation share: checking the request once, evaluating one batch.

A batch is every truth and prediction row of a group of users (users are
assigned to groups by a hash of their id, so each user's rows meet in one
group). :func:`evaluate_batch` runs :func:`recmetrics.evaluate` on it with
``per_user=True``; each user's values depend on that user's rows only, so
the union of the batches' rows is the single-process per-user table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import check_bool, check_choice
from ..inputs.frames import FRAME_USERS
from ..metrics import _aggregate, _registry


def prepare(metrics, *, user, item, score, rank, relevance, users, per_user, keywords):
    """Validate the request on the driver, before any job runs; return the batch options.

    A one-user dry run of :func:`recmetrics.evaluate` with the same metrics
    and keywords raises the errors a worker would raise, as a plain
    ``ValueError``/``TypeError`` instead of a remote traceback. The options
    returned are the keyword arguments of :func:`evaluate_batch`; ``order``
    is the column that orders the predictions (``rank`` or the score).
    """
    from ..evaluation import evaluate

    if score is not None and rank is not None:
        raise TypeError("give either score= or rank=, not both")
    order = rank if rank is not None else (score or "score")

    if isinstance(metrics, str):
        metrics = [metrics]
    if metrics is None or not isinstance(metrics, list | tuple):
        raise TypeError(
            "metrics must be a metric name or a list of names like ['ndcg@10', 'map@10'], "
            f"got {type(metrics).__name__}"
        )
    metrics = list(metrics)
    for name in metrics:
        spec, _, _ = _registry.parse_with_keywords(name)
        if spec.kind != "ranking":
            raise ValueError(
                f"{name!r} is a beyond-accuracy metric of the recommended lists; the "
                "distributed evaluate computes ranking metrics only (collect the top-k lists "
                "and use recmetrics.evaluate or recmetrics.beyond)"
            )
    if users is not None:
        check_choice(users, "users", FRAME_USERS)
    check_bool(per_user, "per_user")
    truth = pd.DataFrame({"user": ["u"], "item": ["i"]})
    if relevance is not None:
        truth[relevance] = [1]
    pred = pd.DataFrame({"user": ["u"], "item": ["i"], order: [1]})
    evaluate(
        truth,
        pred,
        metrics,
        score=None if rank else order,
        rank=rank,
        relevance=relevance,
        users=users,
        **keywords,
    )
    return dict(
        metrics=metrics,
        # the summary's per-user transform runs on the workers (per_user=False)
        aggregates=None if per_user else aggregates_of(metrics),
        user=user,
        item=item,
        order=order,
        rank=rank,
        relevance=relevance,
        users=users,
        keywords=keywords,
    )


def _metric_users(metrics, convention, users):
    """The users each metric evaluates: ``users`` if given, else the preset's.

    A preset may set them per metric (:data:`recmetrics.providers.METRIC_OVERRIDES`),
    as :func:`recmetrics.conventions.resolve` says; without a preset, ``'truth'``.
    """
    if users is not None:
        return [users] * len(metrics)
    from ..conventions import resolve

    names = [_registry.parse_with_keywords(m)[0].name for m in metrics]
    options, overrides, _ = resolve(convention, {"users": None}, names)
    general = options["users"] or "truth"
    return [overrides.get(n, {}).get("users", general) for n in names]


def aggregates_of(metrics):
    """The summary rule of each metric name (``MetricSpec.aggregate``)."""
    return [_registry.parse_with_keywords(name)[0].aggregate for name in metrics]


def summary(values, metrics, aggregates):
    """The driver's Series from the engine's combined values (``finalise`` of each rule)."""
    out = [
        _aggregate.finalise(np.nan if v is None else v, a)
        for v, a in zip(values, aggregates, strict=True)
    ]
    return pd.Series(out, index=metrics, name="mean", dtype=float)


def internal_names(metrics):
    """Column names safe in every engine for the metric values."""
    return [f"_rm_{i}" for i in range(len(metrics))]


def evaluate_batch(truth, predictions, *, metrics, aggregates, user, item, order, rank,
                   relevance, users, keywords):  # fmt: skip
    """Per-user values of one batch: columns ``user`` (as ``user``) and ``_rm_0``, ...

    With ``aggregates`` (a summary is asked for) each column holds the
    values its rule combines (:func:`recmetrics.metrics._aggregate.transform`:
    the logarithms of a geometric mean), so that the engine only averages or
    sums them.
    """
    from ..evaluation import evaluate

    cols = internal_names(metrics)
    t_users = pd.Index(truth[user].unique())
    p_users = pd.Index(predictions[user].unique())
    sets = {
        "truth": t_users,
        "predictions": p_users,
        "both": t_users.intersection(p_users),
        "all": t_users.union(p_users),
    }
    frames = dict(user=user, item=item, score=None if rank else order, rank=rank,
                  relevance=relevance, per_user=True)  # fmt: skip
    # the users of each metric: the caller's, else the preset's (which may differ per
    # metric: the recommenders preset's precision, recall and map), as in one process;
    # a batch may hold none of one metric's users (NaN there), which one process,
    # given all the users, would refuse
    each = _metric_users(metrics, keywords.get("convention"), users)
    tables = []
    for chosen in dict.fromkeys(each):
        names = [m for m, u in zip(metrics, each, strict=True) if u == chosen]
        if len(sets[chosen]):
            tables.append(evaluate(truth, predictions, names, users=chosen, **frames,
                                   **keywords))  # fmt: skip
    if not tables:
        empty = {user: truth[user].iloc[:0]} | {c: np.zeros(0) for c in cols}
        return pd.DataFrame(empty)
    table = tables[0] if len(tables) == 1 else pd.concat(tables, axis=1)
    if len(tables) > 1:
        try:
            table = table.sort_index()
        except TypeError:  # ids of several types: the order of first appearance
            pass
    table = table.reindex(columns=metrics)
    out = pd.DataFrame({user: table.index.to_numpy()})
    for i, (c, m) in enumerate(zip(cols, metrics, strict=True)):
        values = table[m].to_numpy(dtype=np.float64)
        out[c] = values if aggregates is None else _aggregate.transform(values, aggregates[i])
    return out
