"""Ranking metrics of Dask DataFrames, with the package's own core on each partition.

:func:`evaluate` takes the long ``truth`` and ``predictions`` frames of
:func:`recmetrics.evaluate` as Dask DataFrames. The two frames
are each shuffled on the user column into the same number of partitions (the
partition of a row is a hash of its user id, the same in both frames), so
that partition ``j`` of both holds every row of its users; each pair of
partitions is evaluated by :func:`recmetrics.evaluate` (vectorised over its
users), and Dask averages the per-user values. Frames already sorted by
user (``presorted=True``) skip the shuffle: one pass over the partitions
finds each partition's first and last user, and each range of users is cut
out of the partitions that hold it. As with :mod:`recmetrics.spark`, the
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

from .._validation import check_bool, truth_relevance
from ..metrics import _aggregate
from ._common import evaluate_batch, internal_names, prepare, summary

__all__ = ["evaluate"]


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
    presorted=False,
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
    presorted : bool, default False
        Both frames are sorted by ``user`` (ascending, across their
        partitions in order, as a file written sorted reads back): no
        shuffle. Checked in one pass over the partitions of each frame
        (each partition ascending, each starting at or after the previous
        one's last user), before any evaluation; a ``ValueError`` otherwise.

    Returns
    -------
    pandas.Series or dask.dataframe.DataFrame
        The means over users (a Series named ``'mean'``), or the lazy
        per-user values.

    Raises
    ------
    TypeError, ValueError
        As :func:`recmetrics.spark.evaluate`; a ``ValueError`` also for
        ``presorted=True`` with frames that are not sorted by user.

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
    relevance = truth_relevance(truth, relevance)
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

    check_bool(presorted, "presorted")

    t_cols, p_cols = needed["truth"][1], needed["predictions"][1]
    if order in t_cols or (relevance is not None and relevance in p_cols):
        raise ValueError("the relevance and score/rank columns must have different names")
    cols = internal_names(metrics)
    meta = pd.DataFrame({user: truth[user]._meta.iloc[:0]} | {c: np.zeros(0) for c in cols})
    if presorted:
        per = _sorted_ranges(truth[t_cols], predictions[p_cols], user, npartitions, options, meta)
    else:
        # the same hash of the same dtype puts a user's rows in partition j of both frames
        t = truth[t_cols].shuffle(on=user, npartitions=npartitions)
        p = predictions[p_cols].shuffle(on=user, npartitions=npartitions)
        batch = partial(evaluate_batch, **options)
        per = dd.map_partitions(batch, t, p, meta=meta, align_dataframes=False)
    if per_user:
        return per.rename(columns=dict(zip(cols, metrics, strict=True)))
    aggregates = options["aggregates"]
    parts = [
        per[c].sum() if _aggregate.combine(a) == "sum" else per[c].mean()
        for c, a in zip(cols, aggregates, strict=True)
    ]
    combined = dask.compute(*parts)
    return summary([float(v) for v in combined], metrics, aggregates)


_SAMPLES = 64  # users read from each partition to place the range boundaries


def _bounds(part, user):
    """One partition's row count, first and last user, order check and evenly spaced users."""
    users = part[user]
    values = users.to_numpy()
    n = len(values)
    picks = values[np.linspace(0, n - 1, min(n, _SAMPLES)).astype(np.int64)] if n else values
    first, last = (values[0], values[-1]) if n else (None, None)
    return n, first, last, bool(users.is_monotonic_increasing), picks


def _sorted_ranges(truth, predictions, user, npartitions, options, meta):
    """Per-user values of frames sorted by user, without a shuffle (``presorted=True``).

    The users are cut into at most ``npartitions`` ranges ``[lo, hi)`` at
    evenly spaced users of the predictions (a sample of each partition,
    weighted by its rows); each range's rows are sliced (binary search) out
    of the partitions whose first and last users overlap it.
    """
    import dask
    import dask.dataframe as dd

    parts = {"truth": truth.to_delayed(), "predictions": predictions.to_delayed()}
    found = dask.compute([[dask.delayed(_bounds)(part, user) for part in parts[name]]
                          for name in ("truth", "predictions")])[0]  # fmt: skip
    spans = {}
    for name, bounds in zip(("truth", "predictions"), found, strict=True):
        spans[name] = []
        last = None
        for i, (n, first, final, ascending, _) in enumerate(bounds):
            if not ascending or (n and last is not None and first < last):
                raise ValueError(
                    f"presorted=True but {name} is not sorted by {user!r} (partition {i} "
                    + ("is not in ascending order" if not ascending else "starts before the "
                       "previous one ends")
                    + "); sort it or leave presorted=False to shuffle by user"
                )  # fmt: skip
            spans[name].append((n, first, final))
            last = final if n else last
    sample, weight = [], []
    for n, _, _, _, picks in found[1]:
        sample.append(picks)
        weight.append(np.full(len(picks), n / max(len(picks), 1)))
    cuts = []
    if sample and sum(len(s) for s in sample):
        sample, weight = np.concatenate(sample), np.concatenate(weight)
        position = np.cumsum(weight) / weight.sum()
        wanted = np.arange(1, npartitions) / npartitions
        cuts = list(
            pd.unique(sample[np.minimum(np.searchsorted(position, wanted), len(sample) - 1)])
        )
    edges = [None] + cuts + [None]
    empty = (truth._meta, predictions._meta, meta)
    pieces = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        chosen = {}
        for name in ("truth", "predictions"):
            chosen[name] = [
                dask.delayed(_slice)(part, user, lo, hi)
                for part, (n, first, final) in zip(parts[name], spans[name], strict=True)
                if n and (lo is None or final >= lo) and (hi is None or first < hi)
            ]
        pieces.append(
            dask.delayed(_range_batch)(chosen["truth"], chosen["predictions"], empty, options)
        )
    return dd.from_delayed(pieces, meta=meta, verify_meta=False)


def _slice(part, user, lo, hi):
    """The rows of a sorted partition with ``lo <= user < hi`` (None: unbounded)."""
    values = part[user].to_numpy()
    start = 0 if lo is None else int(np.searchsorted(values, lo, side="left"))
    stop = len(values) if hi is None else int(np.searchsorted(values, hi, side="left"))
    return part.iloc[start:stop]


def _range_batch(truth_parts, prediction_parts, empty, options):
    """Per-user values of one range of users from its slices (``empty``: the frames' meta)."""
    t_meta, p_meta, meta = empty
    if not truth_parts and not prediction_parts:
        return meta
    truth = pd.concat(truth_parts, ignore_index=True) if truth_parts else t_meta
    predictions = pd.concat(prediction_parts, ignore_index=True) if prediction_parts else p_meta
    return evaluate_batch(truth, predictions, **options)
