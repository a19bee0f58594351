"""Ranking metrics of Dask DataFrames, with the package's own core on each partition.

:func:`evaluate` takes the long ``truth`` and ``predictions`` frames of
:func:`recmetrics.evaluate` as Dask DataFrames. The two frames are stacked
(a ``side`` marker tells their rows apart) and shuffled once on the user
column, so that every row of a user lands in one partition; each partition
is evaluated by :func:`recmetrics.evaluate` (vectorised over its users), and
Dask averages the per-user values. As with :mod:`recmetrics.spark`, the
per-user values are exactly those of one process, and the means differ
only by the order of summation.

Needs the ``dask`` extra (``dask[dataframe]``; ``distributed`` for a
cluster). Runs on whatever scheduler is active: a
``distributed.Client``, or Dask's default threads.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from ..metrics import _aggregate
from ._common import evaluate_batch, internal_names, prepare, summary

__all__ = ["evaluate"]

_SIDE = "_rm_side"


def _require():
    try:
        import dask.dataframe  # noqa: F401
    except ImportError as err:  # pragma: no cover - the extra is installed in tests
        raise ImportError(
            "recmetrics.dask needs dask's data frames: "
            'pip install "dask[dataframe]>=2024.1" "distributed>=2024.1"'
        ) from err


def evaluate(
    truth,
    predictions,
    metrics=("ndcg@10", "map@10", "precision@10", "recall@10", "mrr@10"),
    *,
    user="user",
    item="item",
    score=None,
    rank=None,
    relevance=None,
    users=None,
    convention=None,
    per_user=False,
    npartitions=None,
    **keywords,
):
    """Evaluate ranking metrics of Dask DataFrames, as :func:`recmetrics.evaluate` would.

    Parameters
    ----------
    truth, predictions : dask.dataframe.DataFrame
        The long frames of :func:`recmetrics.evaluate`.
    metrics, user, item, score, rank, relevance, users, convention, **keywords
        As in :func:`recmetrics.spark.evaluate`.
    per_user : bool, default False
        Return the per-user values (a Dask DataFrame, lazy: ``user`` column
        and one column per metric) instead of the means.
    npartitions : int, optional
        Partitions after the shuffle on users, each evaluated by one pandas
        call (default: the larger input's number of partitions).

    Returns
    -------
    pandas.Series or dask.dataframe.DataFrame
        The means over users (a Series named ``'mean'``), or the lazy
        per-user values.

    Raises
    ------
    TypeError, ValueError
        As :func:`recmetrics.spark.evaluate`.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> truth = dd.from_pandas(pd.DataFrame({"user": [1, 1, 2], "item": [10, 12, 11]}),
    ...                        npartitions=2)
    >>> pred = dd.from_pandas(pd.DataFrame({"user": [1, 1, 2], "item": [10, 11, 11],
    ...                                     "score": [0.9, 0.8, 0.3]}), npartitions=2)
    >>> evaluate(truth, pred, ["precision@2", "recall@2"])
    precision@2    0.50
    recall@2       0.75
    Name: mean, dtype: float64
    """
    _require()
    import dask
    import dask.dataframe as dd

    for frame, name in ((truth, "truth"), (predictions, "predictions")):
        if not isinstance(frame, dd.DataFrame):
            raise TypeError(
                f"{name} must be a dask.dataframe.DataFrame, got {type(frame).__name__}"
            )
    options = prepare(
        metrics,
        user=user,
        item=item,
        score=score,
        rank=rank,
        relevance=relevance,
        users=users,
        per_user=per_user,
        keywords=dict(keywords, convention=convention),
    )
    metrics, order = options["metrics"], options["order"]
    needed = {
        "truth": (truth, [user, item] + ([relevance] if relevance else [])),
        "predictions": (predictions, [user, item, order]),
    }
    for name, (frame, cols) in needed.items():
        for c in cols:
            if c not in frame.columns:
                raise ValueError(
                    f"{name} has no column {c!r} (columns: {', '.join(map(str, frame.columns))})"
                )
    for col in (user, item):
        a, b = truth[col].dtype, predictions[col].dtype
        if a != b:
            raise TypeError(
                f"the column {col!r} has dtype {a} in truth and {b} in predictions; cast one "
                "so that ids compare equal"
            )
    if npartitions is None:
        npartitions = max(truth.npartitions, predictions.npartitions)
    if isinstance(npartitions, bool) or not isinstance(npartitions, int) or npartitions < 1:
        raise ValueError(f"npartitions must be a positive integer, got {npartitions!r}")

    t = truth[needed["truth"][1]].assign(**{_SIDE: np.int8(0)})
    p = predictions[needed["predictions"][1]].assign(**{_SIDE: np.int8(1)})
    if order in t.columns or (relevance is not None and relevance in p.columns):
        raise ValueError("the relevance and score/rank columns must have different names")
    rows = dd.concat([t, p], ignore_index=True).shuffle(on=user, npartitions=npartitions)
    cols = internal_names(metrics)
    meta = pd.DataFrame({user: truth[user]._meta.iloc[:0]} | {c: np.zeros(0) for c in cols})
    batch = partial(
        _dask_batch,
        options=options,
        t_cols=needed["truth"][1],
        p_cols=needed["predictions"][1],
    )
    per = rows.map_partitions(batch, meta=meta)
    if per_user:
        return per.rename(columns=dict(zip(cols, metrics, strict=True)))
    aggregates = options["aggregates"]
    parts = [
        per[c].sum() if _aggregate.combine(a) == "sum" else per[c].mean()
        for c, a in zip(cols, aggregates, strict=True)
    ]
    combined = dask.compute(*parts)
    return summary([float(v) for v in combined], metrics, aggregates)


def _dask_batch(rows, *, options, t_cols, p_cols):
    side = rows[_SIDE].to_numpy()
    truth = rows.loc[side == 0, t_cols]
    predictions = rows.loc[side == 1, p_cols]
    return evaluate_batch(truth, predictions, **options)
